//! One model on a full catalog, evaluated without listing its candidates: each judged
//! user's scores for every item are computed, fed to the metrics' partial state and
//! dropped (`recs_metrics::stream`). Memory grows with users and test events, not with
//! users × items; the report equals the in-memory one (see `docs/metrics.md`).

use std::sync::atomic::{AtomicUsize, Ordering};

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
/// The default memory budget of a streamed evaluation's block buffers and partial
/// states, shared by every thread (`evaluation.memory_budget_mib`): 1 GiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

/// The plan's metrics of `model` on the full-catalog judgments `catalog` of `split`
/// ([`evaluate_catalog`] with the plan's metrics and options).
pub(crate) fn evaluate(
    plan: &Plan,
    model: &dyn Recommender,
    split: &Split,
    catalog: &CatalogJudgments,
    keep_curves: bool,
) -> Result<Report> {
    let metrics = CatalogMetrics {
        metrics: &plan.metrics,
        options: plan.options,
        max_fpr: plan.max_fpr,
        memory_budget: plan.memory_budget,
    };
    evaluate_catalog(model, split, catalog, metrics, keep_curves)
}

/// Users scored together in one block on a catalog of `n_items` ([`evaluate_catalog`]):
/// at most 64, and at most 2^21 scores (8 MiB) per block; fewer when the memory budget
/// asks for it ([`catalog_workers`]).
pub fn catalog_block_users(n_items: usize) -> usize {
    (SCORES_PER_BLOCK / n_items.max(1)).clamp(1, USERS_PER_TASK)
}

/// How a streamed evaluation shares its memory budget: `workers` tasks run at once, each
/// holding one block of `block_users` users' scores and one partial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogWorkers {
    /// Tasks evaluating blocks at the same time (at most the thread count).
    pub workers: usize,
    /// Users scored together in one block.
    pub block_users: usize,
}

/// The workers of a streamed evaluation of a catalog of `n_items`, with `n_positives`
/// positive pairs when the pooled ROC is asked for (`None` otherwise), on `threads`
/// threads, within `budget` bytes for every worker's buffers together.
///
/// A worker holds a block of scores (4 bytes per score), the negatives' score keys of
/// the block twice while they are counted for the pooled ROC (8 bytes per score), the
/// bucket index of that count (512 KiB), the pooled ROC's negative counts (8 bytes per
/// distinct positive score, at most `n_positives + 1`: two 32-bit counts, widened only
/// past 2^32 negatives in one worker) and the CROC counts (16 bytes per item). The block shrinks (down to one user) until one worker fits the budget;
/// then as many workers run as fit it, at least one and at most `threads`. The thread
/// count changes how many workers run, never what they compute: the report is the same.
pub fn catalog_workers(
    n_items: usize,
    n_positives: Option<usize>,
    threads: usize,
    budget: usize,
) -> CatalogWorkers {
    let per_score = if n_positives.is_some() { 12 } else { 4 };
    let per_user = per_score * n_items.max(1);
    let fixed = n_positives.map_or(0, |p| 8 * (p + 1) + (8 << 16)) + 16 * n_items;
    let mut block_users = catalog_block_users(n_items);
    let room = budget.saturating_sub(fixed);
    if block_users * per_user > room {
        block_users = (room / per_user).max(1);
    }
    let worker = fixed + block_users * per_user;
    let workers = (budget / worker).clamp(1, threads.max(1));
    CatalogWorkers { workers, block_users }
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
    /// Bytes of block buffers and partial states held at once by every thread together
    /// ([`catalog_workers`]; [`DEFAULT_MEMORY_BUDGET`] by default).
    pub memory_budget: usize,
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
    let n_positives = evaluator.needs_positives().then_some(catalog.n_graded());
    let CatalogWorkers { workers, block_users } =
        catalog_workers(n_items, n_positives, rayon::current_num_threads(), metrics.memory_budget);
    // A fixed number of workers, each with one block buffer and one partial state, take
    // the next block until none is left: memory does not grow with the threads. Which
    // worker evaluates which block does not matter: parts merge exactly.
    let blocks: Vec<&[usize]> = positions.chunks(block_users).collect();
    let next = AtomicUsize::new(0);
    let streamed = Streamed { model, split, catalog, evaluator: &evaluator, all_items: &all_items };
    let parts = (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| -> Result<Part> {
            let (mut part, mut block) = (evaluator.part(), Vec::new());
            while let Some(chunk) = blocks.get(next.fetch_add(1, Ordering::Relaxed)) {
                if let Err(error) = streamed.evaluate(chunk, &mut block, &mut part) {
                    // The other workers stop at their next block.
                    next.store(blocks.len(), Ordering::Relaxed);
                    return Err(error);
                }
            }
            Ok(part)
        })
        .collect::<Result<Vec<Part>>>()?;
    let mut parts = parts.into_iter();
    let mut part = parts.next().unwrap_or_else(|| evaluator.part());
    for other in parts {
        part.merge(other);
    }
    Ok(evaluator.finish(part, keep_curves)?)
}

/// What every block of a streamed evaluation is evaluated with.
struct Streamed<'a> {
    model: &'a dyn Recommender,
    split: &'a Split,
    catalog: &'a CatalogJudgments,
    evaluator: &'a Evaluator,
    all_items: &'a [u32],
}

impl Streamed<'_> {
    /// Scores the judged users at `positions` of the catalog against every item into
    /// `block` and evaluates them into `part`.
    fn evaluate(&self, positions: &[usize], block: &mut Vec<f32>, part: &mut Part) -> Result<()> {
        let Streamed { model, split, catalog, evaluator, all_items } = *self;
        let n_items = all_items.len();
        let users: Vec<u32> = positions.iter().map(|&p| catalog.users()[p]).collect();
        block.resize(users.len() * n_items, 0.0);
        score_catalog_block(model, &users, all_items, block, split.history())?;
        let known: Vec<Vec<u32>> = users.iter().map(|&u| split.known_items(u)).collect();
        let rows = block.chunks(n_items.max(1));
        let block_users: Vec<CatalogUser<'_>> = positions
            .iter()
            .zip(&users)
            .zip(rows)
            .zip(&known)
            .map(|(((&p, &user), scores), excluded)| {
                let (graded, grades) = catalog.graded(p);
                CatalogUser { user, scores, excluded, graded, grades }
            })
            .collect();
        evaluator.push_users(part, &block_users)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{Fit, TrainData};
    use recs_data::PowerLaw;
    use recs_models_latent::PureSvdParams;
    use recs_split::{Amount, JudgmentOptions, Protocol, SplitId};

    #[test]
    fn workers_share_the_budget_whatever_the_threads() {
        let (n_items, positives) = (26_744, 4_000_000);
        let budget = 512 << 20;
        let workers = |threads| catalog_workers(n_items, Some(positives), threads, budget);
        let at_16 = workers(16);
        assert_eq!(workers(64), at_16, "more threads than fit the budget change nothing");
        assert_eq!(workers(1).workers, 1);
        assert_eq!(at_16.block_users, catalog_block_users(n_items));
        let per_worker = 8 * (positives + 1) + (8 << 16) + 16 * n_items + 12 * 64 * n_items;
        assert!(at_16.workers * per_worker <= budget && at_16.workers < 16);
        // A budget below one worker: one worker with a block shrunk to one user.
        let tiny = catalog_workers(n_items, Some(positives), 16, 1);
        assert_eq!(tiny, CatalogWorkers { workers: 1, block_users: 1 });
        // Without the pooled ROC a worker is its block and the CROC counts.
        assert_eq!(catalog_workers(1_000, None, 4, 3 * (1_000 * 4 * 64 + 16 * 1_000)).workers, 3);
    }

    #[test]
    fn reports_are_identical_for_any_thread_count_and_memory_budget() {
        let data = PowerLaw {
            n_users: 300,
            n_items: 400,
            n_events: 12_000,
            seed: 3,
            ..PowerLaw::default()
        }
        .generate()
        .unwrap();
        let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
        let split = protocol.split(&data.interactions, 3, SplitId::default()).unwrap();
        let catalog = split.catalog_judgments(&JudgmentOptions::implicit()).unwrap().unwrap();
        let model = PureSvdParams::new(8).unwrap().fit(&TrainData::new(split.train(), 3)).unwrap();
        let metrics = Metric::parse_list("roc,croc,user_auc,ndcg@10,r@20,map").unwrap();
        let run = |threads: usize, budget: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let metrics = CatalogMetrics {
                metrics: &metrics,
                options: Options::default(),
                max_fpr: 0.3,
                memory_budget: budget,
            };
            let report =
                pool.install(|| evaluate_catalog(&model, &split, &catalog, metrics, true)).unwrap();
            format!("{report:?}")
        };
        let reference = run(1, DEFAULT_MEMORY_BUDGET);
        // One user per block, one worker; a few blocks and workers; the default.
        for (threads, budget) in [(4, 1), (4, 400_000), (7, 2_000_000), (16, DEFAULT_MEMORY_BUDGET)]
        {
            assert_eq!(run(threads, budget), reference, "{threads} threads, budget {budget}");
        }
    }
}
