//! One model on a full catalog, evaluated without listing its candidates: each judged
//! user's scores for every item are computed, fed to the metrics' partial state and
//! dropped (`recs_metrics::stream`). Memory grows with users and test events, not with
//! users × items; the report equals the in-memory one (see `docs/metrics.md`).

use rayon::prelude::*;
use recs_core::Recommender;
use recs_metrics::stream::{CatalogUser, Evaluator, Part, PositiveScores};
use recs_metrics::{Metric, Options, Report};
use recs_split::{CatalogJudgments, Split};

use crate::error::Result;
use crate::plan::Plan;
use crate::scoring::{ItemSource, score_catalog_block, score_user};

/// Users handed to one parallel task: enough to amortise a task, few enough to balance.
const USERS_PER_TASK: usize = 64;
/// Scores held by one task at a time (8 MiB): a task scores at most this many (user,
/// item) pairs in one block, so a large catalog gets smaller blocks.
const SCORES_PER_BLOCK: usize = 1 << 21;

/// The plan's metrics of `model` on the full-catalog judgments `catalog` of `split`
/// ([`evaluate_catalog`] with the plan's metrics and options).
pub(crate) fn evaluate(
    plan: &Plan,
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    keep_curves: bool,
) -> Result<Report> {
    let metrics =
        CatalogMetrics { metrics: &plan.metrics, options: plan.options, max_fpr: plan.max_fpr };
    evaluate_catalog(model, split, catalog, metrics, keep_curves)
}

/// Users scored together in one block on a catalog of `n_items` ([`evaluate_catalog`]):
/// at most 64, and at most 2^21 scores (8 MiB) per block.
pub fn catalog_block_users(n_items: usize) -> usize {
    (SCORES_PER_BLOCK / n_items.max(1)).clamp(1, USERS_PER_TASK)
}

/// What a streamed evaluation computes.
#[derive(Debug, Clone, Copy)]
pub struct CatalogMetrics<'a> {
    /// The metrics, as `recs_metrics::evaluate` takes them.
    pub metrics: &'a [Metric],
    /// Cut-offs, relevance threshold, tie and zero policies.
    pub options: Options,
    /// The false-alarm bound of the partial ROC and CROC areas.
    pub max_fpr: f64,
}

/// The report of `model` on the full-catalog judgments `catalog` of `split`
/// ([`Split::catalog_judgments`]), equal to the in-memory evaluation of the same
/// candidates listed, in memory that does not grow with users × items: a first pass
/// scores the graded items (for the pooled ROC), the main pass every item of blocks of
/// judged users ([`Recommender::score_catalog`]), counted and dropped. Users of the
/// split's history part are folded in, as in memory. With `keep_curves`, the report
/// holds the ROC and CROC curves.
///
/// # Errors
/// Invalid metric options, or a model that fails to score.
pub fn evaluate_catalog(
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    metrics: CatalogMetrics<'_>,
    keep_curves: bool,
) -> Result<Report> {
    let mut evaluator = Evaluator::new(metrics.metrics, metrics.options, metrics.max_fpr)?;
    let history = split.history();
    let positions: Vec<usize> = (0..catalog.users().len()).collect();
    if evaluator.needs_positives() {
        let threshold = metrics.options.threshold;
        let positives = positions
            .par_chunks(USERS_PER_TASK)
            .map(|chunk| -> Result<PositiveScores> {
                let (mut positives, mut scores) = (PositiveScores::new(), Vec::new());
                for &p in chunk {
                    let (items, grades) = catalog.graded(p);
                    scores.resize(items.len(), 0.0);
                    let user = catalog.users()[p];
                    score_user(model, user, items, &mut scores, ItemSource::Trained, history)?;
                    positives.push_user(grades, &scores, threshold);
                }
                Ok(positives)
            })
            .try_reduce(PositiveScores::new, |mut a, b| {
                a.merge(b);
                Ok(a)
            })?;
        evaluator.set_positives(positives);
    }
    let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
    let n_items = all_items.len();
    let block_users = catalog_block_users(n_items);
    let part = positions
        .par_chunks(block_users)
        .try_fold(
            || (evaluator.part(), Vec::new()),
            |(mut part, mut block), chunk| -> Result<(Part, Vec<f32>)> {
                let users: Vec<u32> = chunk.iter().map(|&p| catalog.users()[p]).collect();
                block.resize(users.len() * n_items, 0.0);
                score_catalog_block(model, &users, &all_items, &mut block, history)?;
                let known: Vec<Vec<u32>> = users.iter().map(|&u| split.known_items(u)).collect();
                let rows = block.chunks(n_items.max(1));
                let block_users: Vec<CatalogUser<'_>> = chunk
                    .iter()
                    .zip(&users)
                    .zip(rows)
                    .zip(&known)
                    .map(|(((&p, &user), scores), excluded)| {
                        let (graded, grades) = catalog.graded(p);
                        CatalogUser { user, scores, excluded, graded, grades }
                    })
                    .collect();
                evaluator.push_users(&mut part, &block_users)?;
                Ok((part, block))
            },
        )
        .map(|state| state.map(|(part, _)| part))
        .try_reduce(
            || evaluator.part(),
            |mut a, b| {
                a.merge(b);
                Ok(a)
            },
        )?;
    Ok(evaluator.finish(part, keep_curves)?)
}
