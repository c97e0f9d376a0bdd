//! Corrected sampled metrics as metric names of `recs eval` (`ndcg@10~bv:0.1`), under
//! `--candidates sampled:N`: `recs_sampled::versus::CorrectedEstimators` on the run's own
//! sampled candidates. Definitions: `docs/metrics.md`, "Sampled metrics".

use recs_metrics::Scored;
use recs_sampled::versus::{CorrectedEstimators, CorrectedMeans, CorrectedMetric};

/// Each asked metric's mean over the judged users of `scored` (its sampled candidates),
/// each user's full-catalog negatives counted in `catalog_negatives`.
pub(crate) fn values(
    asked: &[CorrectedMetric],
    scored: &Scored<'_>,
    catalog_negatives: &[(u32, u64)],
    threshold: f32,
) -> anyhow::Result<CorrectedMeans> {
    let estimators = CorrectedEstimators::new(asked);
    Ok(estimators.run_means(scored.keyed_users(), catalog_negatives, threshold)?)
}
