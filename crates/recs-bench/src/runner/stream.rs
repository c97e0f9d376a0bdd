//! One model on a full catalog, evaluated without listing its candidates: each judged
//! user's scores for every item are computed, fed to the metrics' partial state and
//! dropped (`recs_metrics::stream`). Memory grows with users and test events, not with
//! users × items; the report equals the in-memory one (see `docs/metrics.md`).

use rayon::prelude::*;
use recs_core::Recommender;
use recs_metrics::Report;
use recs_metrics::stream::{CatalogUser, Evaluator, Part, PositiveScores};
use recs_split::{CatalogJudgments, Split};

use crate::error::Result;
use crate::plan::Plan;
use crate::scoring::{ItemSource, score_catalog_block, score_user};

/// Users handed to one parallel task: enough to amortise a task, few enough to balance.
const USERS_PER_TASK: usize = 64;
/// Scores held by one task at a time (8 MiB): a task scores at most this many (user,
/// item) pairs in one block, so a large catalog gets smaller blocks.
const SCORES_PER_BLOCK: usize = 1 << 21;

/// The report of `model` on the full-catalog judgments `catalog` of `split`: a first
/// pass scores the graded items (for the pooled ROC), the main pass every item of every
/// judged user. Users of the split's history part are folded in, as in memory.
pub(crate) fn evaluate(
    plan: &Plan,
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    keep_curves: bool,
) -> Result<Report> {
    let mut evaluator = Evaluator::new(&plan.metrics, plan.options, plan.max_fpr)?;
    let history = split.history();
    let positions: Vec<usize> = (0..catalog.users().len()).collect();
    if evaluator.needs_positives() {
        let threshold = plan.options.threshold;
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
    let block_users = (SCORES_PER_BLOCK / n_items.max(1)).clamp(1, USERS_PER_TASK);
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
