//! Corrected sampled metrics as metric names of a configuration (`metrics =
//! ["ndcg@10~bv:0.1"]`), under `[judgments] sampled`: each is a [`Measure`] on the split's
//! sampled candidates, `recs_sampled::versus::CorrectedEstimators` with the user's
//! full-catalog negatives counted on the split. Definitions: `docs/metrics.md`, "Sampled
//! metrics".

use std::sync::Arc;

use recs_metrics::Scored;
use recs_sampled::versus::{CorrectedEstimators, CorrectedMetric};
use recs_split::{JudgmentOptions, SampleBy};

use crate::error::BenchError;
use crate::plan::{Measure, SampledCandidates};

/// Whether a metric name of a configuration is a corrected sampled metric.
pub(crate) fn is_corrected(name: &str) -> bool {
    CorrectedMetric::is_named(name)
}

/// The measure of the corrected metric `name`, or what is wrong with it.
pub(crate) fn measure(
    name: &str,
    sampled: Option<SampledCandidates>,
    judging: &JudgmentOptions,
    threshold: f32,
) -> Result<Measure, String> {
    let metric: CorrectedMetric = name.parse().map_err(|e| format!("{e}"))?;
    match sampled {
        Some(SampledCandidates { by: SampleBy::Uniform, .. }) => {}
        Some(_) => {
            return Err(format!(
                "{metric} corrects a sampled rank under uniform draws, and judgments.sampled \
                 draws by popularity"
            ));
        }
        None => {
            return Err(format!(
                "{metric} corrects a sampled rank: it needs [judgments] sampled = {{ negatives \
                 = N }}"
            ));
        }
    }
    let estimators = Arc::new(CorrectedEstimators::new(&[metric]));
    let judging = judging.clone();
    Ok(Measure::with_split(metric.to_string(), false, move |split, judgments, scores| {
        let counts = split.catalog_negative_counts(&judging, threshold)?;
        let scored = Scored::new(judgments, scores)?;
        let means = estimators
            .run_means(scored.keyed_users(), &counts, threshold)
            .map_err(|e| BenchError::Experiment(format!("{metric}: {e}")))?;
        Ok(means.values[0].1)
    }))
}
