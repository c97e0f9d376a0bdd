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
use crate::scoring::{ItemSource, score_user};

/// Users handed to one parallel task: enough to amortise a task, few enough to balance.
const USERS_PER_TASK: usize = 64;

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
    let part = positions
        .par_chunks(USERS_PER_TASK)
        .try_fold(
            || (evaluator.part(), vec![0.0f32; all_items.len()]),
            |(mut part, mut row), chunk| -> Result<(Part, Vec<f32>)> {
                for &p in chunk {
                    let user = catalog.users()[p];
                    score_user(model, user, &all_items, &mut row, ItemSource::Trained, history)?;
                    let known = split.known_items(user);
                    let (graded, grades) = catalog.graded(p);
                    let user = CatalogUser { user, scores: &row, excluded: &known, graded, grades };
                    evaluator.push_user(&mut part, &user)?;
                }
                Ok((part, row))
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
