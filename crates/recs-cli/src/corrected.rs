//! Corrected sampled metrics as metric names of `recs eval` (`ndcg@10~bv:0.1`), under
//! `--candidates sampled:N`: `recs_sampled::versus::CorrectedEstimators` on the run's own
//! sampled candidates. Definitions: `docs/metrics.md`, "Sampled metrics".

use recs_metrics::{Scored, score_key};
use recs_sampled::versus::{CorrectedEstimators, CorrectedMeans, CorrectedMetric};

/// The judged users of `scored` as `CorrectedEstimators::run_means` reads them: `(user,
/// grades, score keys)`.
pub(crate) fn judged_users<'a>(
    scored: &'a Scored<'a>,
) -> impl Iterator<Item = (u32, &'a [f32], Vec<u32>)> + 'a {
    (0..scored.n_users()).map(|position| {
        let (judged, scores) = scored.user(position);
        (judged.user, judged.grades, scores.iter().map(|&s| score_key(s)).collect())
    })
}

/// Each asked metric's mean over the judged users of `scored` (its sampled candidates),
/// each user's full-catalog negatives counted in `catalog_negatives`.
pub(crate) fn values(
    asked: &[CorrectedMetric],
    scored: &Scored<'_>,
    catalog_negatives: &[(u32, u64)],
    threshold: f32,
) -> anyhow::Result<CorrectedMeans> {
    let estimators = CorrectedEstimators::new(asked);
    Ok(estimators.run_means(judged_users(scored), catalog_negatives, threshold)?)
}
