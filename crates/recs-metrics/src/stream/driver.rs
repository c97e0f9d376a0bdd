//! The one driver of a streamed full-catalog evaluation: whatever produces the scores (a
//! model of the workspace, factors handed in, a callback), blocks of judged users are
//! scored, evaluated into partial states and dropped by a fixed number of workers, and the
//! states merge exactly.
//!
//! The pooled ROC needs every positive before any negative ([`PositiveScores`]): when it
//! is asked for, a first pass collects the graded items' scores, then the main pass scores
//! every item. The number of workers comes from a memory budget ([`catalog_workers`]), not
//! from the thread count, so memory does not grow with the threads; which worker takes
//! which block does not matter, because parts merge by integer addition and appending and
//! are sorted by user at the end.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{CatalogUser, Evaluator, Part, PositiveScores};
use crate::beyond::ItemFacts;
use crate::error::MetricsError;
use crate::report::Report;
use crate::spec::Metric;
use crate::topn::Options;

/// Users handed to one block at most: enough to amortise a block, few enough to balance.
const USERS_PER_BLOCK: usize = 64;
/// Scores held by one block at most (8 MiB): a large catalog gets smaller blocks.
const SCORES_PER_BLOCK: usize = 1 << 21;
/// The default memory budget of a streamed evaluation's block buffers and partial states,
/// shared by every worker: 1 GiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

/// Users scored together in one block on a catalog of `n_items`: at most 64, and at most
/// 2^21 scores (8 MiB) per block; fewer when the memory budget asks for it
/// ([`catalog_workers`]).
pub fn catalog_block_users(n_items: usize) -> usize {
    (SCORES_PER_BLOCK / n_items.max(1)).clamp(1, USERS_PER_BLOCK)
}

/// How a streamed evaluation shares its memory budget: `workers` run at once, each
/// holding one block of `block_users` users' scores and one partial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogWorkers {
    /// Workers evaluating blocks at the same time (at most the thread count).
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
    workers_for_block(n_items, n_positives, threads, budget, catalog_block_users(n_items))
}

/// [`catalog_workers`] starting from blocks of `block_users` users.
fn workers_for_block(
    n_items: usize,
    n_positives: Option<usize>,
    threads: usize,
    budget: usize,
    block_users: usize,
) -> CatalogWorkers {
    let per_score = if n_positives.is_some() { 12 } else { 4 };
    let per_user = per_score * n_items.max(1);
    let fixed = n_positives.map_or(0, |p| 8 * (p + 1) + (8 << 16)) + 16 * n_items;
    let mut block_users = block_users.max(1);
    let room = budget.saturating_sub(fixed);
    if block_users * per_user > room {
        block_users = (room / per_user).max(1);
    }
    let worker = fixed + block_users * per_user;
    let workers = (budget / worker).clamp(1, threads.max(1));
    CatalogWorkers { workers, block_users }
}

/// What a streamed evaluation computes, and within how much memory.
#[derive(Debug, Clone, Copy)]
pub struct CatalogMetrics<'a> {
    /// The metrics, as [`crate::evaluate`] takes them.
    pub metrics: &'a [Metric],
    /// Cut-offs, relevance threshold, tie and zero policies.
    pub options: Options,
    /// The false-alarm bound of the partial ROC and CROC areas.
    pub max_fpr: f64,
    /// Bytes of block buffers and partial states held at once by every worker together
    /// ([`catalog_workers`]; [`DEFAULT_MEMORY_BUDGET`] by default).
    pub memory_budget: usize,
}

/// The judged users of a full catalog and their scores, as [`evaluate_catalog`] reads
/// them. Users are addressed by their *position* among the judged users (`0..n_users()`).
pub trait CatalogSource: Sync {
    /// The error of scoring; metric errors convert into it.
    type Error: From<MetricsError> + Send;

    /// Number of items of the catalog (the length of one user's scores).
    fn n_items(&self) -> usize;

    /// Number of judged users.
    fn n_users(&self) -> usize;

    /// Number of graded pairs of every judged user together.
    fn n_graded(&self) -> usize;

    /// The user index reported for the judged user at `position` (per-user values are
    /// ordered by it).
    fn user(&self, position: usize) -> u32;

    /// The graded items (ascending) and their grades (> 0) of the user at `position`.
    fn graded(&self, position: usize) -> (&[u32], &[f32]);

    /// The items of the user at `position` that are not candidates (ascending).
    fn excluded(&self, position: usize) -> Cow<'_, [u32]>;

    /// Users per block when the source has its own block size (a callback's), `None` to
    /// take [`catalog_block_users`]. The memory budget may still shrink it.
    fn block_users(&self) -> Option<usize> {
        None
    }

    /// First pass of the pooled ROC: the scores of the graded items of the users at
    /// `positions`, user after user, appended to `out` (cleared by the caller).
    ///
    /// # Errors
    /// A scoring failure.
    fn score_graded(&self, positions: &[usize], out: &mut Vec<f32>) -> Result<(), Self::Error>;

    /// Main pass: the score of every item for the users at `positions` into `out`
    /// (`positions.len() × n_items`, row-major).
    ///
    /// # Errors
    /// A scoring failure.
    fn score_block(&self, positions: &[usize], out: &mut [f32]) -> Result<(), Self::Error>;
}

/// Told how far a streamed evaluation has gone; drawing is the front end's business
/// (the front ends share one bar, `TerminalProgress`, behind the `progress` feature).
pub trait StreamProgress: Sync {
    /// A pass over `n_users` users begins: `"positives"` (the pooled ROC's first pass)
    /// or `"catalog"`.
    fn begin(&self, _pass: &'static str, _n_users: usize) {}

    /// `n_users` more users of the current pass are done.
    fn advance(&self, _n_users: usize) {}
}

/// No progress report.
impl StreamProgress for () {}

/// The report of every judged user of `source`, equal to [`crate::evaluate`] on the same
/// candidates listed with the same scores, in memory that does not grow with users ×
/// items: blocks of users are scored, evaluated and dropped by [`catalog_workers`]
/// workers (a first pass over the graded items comes first when the pooled ROC is asked
/// for). With `keep_curves`, the report holds the ROC and CROC curves. The result does
/// not depend on the thread count, the memory budget or the block size.
///
/// # Errors
/// Invalid metric options, or the source's scoring error (the other workers stop at
/// their next block).
pub fn evaluate_catalog<S: CatalogSource + ?Sized>(
    source: &S,
    metrics: CatalogMetrics<'_>,
    keep_curves: bool,
    progress: &dyn StreamProgress,
) -> Result<Report, S::Error> {
    evaluate_catalog_with(source, metrics, ItemFacts::default(), keep_curves, progress)
}

/// As [`evaluate_catalog`], with the items' facts of the metrics that read the lists
/// (coverage and the popularity, novelty, diversity, calibration and exposure metrics;
/// [`Evaluator::with_facts`]): each user's top N is selected from its scores, a block of
/// users at a time, and only its values and the items' exposure counts are kept.
///
/// # Errors
/// As [`evaluate_catalog`], and [`Evaluator::with_facts`]'s.
pub fn evaluate_catalog_with<S: CatalogSource + ?Sized>(
    source: &S,
    metrics: CatalogMetrics<'_>,
    facts: ItemFacts<'_>,
    keep_curves: bool,
    progress: &dyn StreamProgress,
) -> Result<Report, S::Error> {
    let mut evaluator =
        Evaluator::with_facts(metrics.metrics, metrics.options, metrics.max_fpr, facts)?;
    let n_items = source.n_items();
    let n_positives = evaluator.needs_positives().then_some(source.n_graded());
    let block = source.block_users().unwrap_or_else(|| catalog_block_users(n_items));
    let threads = rayon::current_num_threads();
    let CatalogWorkers { workers, block_users } =
        workers_for_block(n_items, n_positives, threads, metrics.memory_budget, block);
    let positions: Vec<usize> = (0..source.n_users()).collect();
    let blocks: Vec<&[usize]> = positions.chunks(block_users).collect();
    if evaluator.needs_positives() {
        let threshold = metrics.options.threshold;
        progress.begin("positives", positions.len());
        let init = || (PositiveScores::new(), Vec::new());
        let states = for_each_block(
            workers,
            &blocks,
            progress,
            init,
            |state, chunk| -> Result<(), S::Error> {
                let (positives, scores): &mut (PositiveScores, Vec<f32>) = state;
                scores.clear();
                source.score_graded(chunk, scores)?;
                let n_graded: usize = chunk.iter().map(|&p| source.graded(p).1.len()).sum();
                if scores.len() != n_graded {
                    return Err(MetricsError::InvalidArgument {
                        name: "graded scores",
                        value: format!("{} scores for {n_graded} graded items", scores.len()),
                        expected: "one score per graded item",
                    }
                    .into());
                }
                let mut start = 0;
                for &p in chunk {
                    let grades = source.graded(p).1;
                    positives.push_user(grades, &scores[start..start + grades.len()], threshold);
                    start += grades.len();
                }
                Ok(())
            },
        )?;
        let mut positives = PositiveScores::new();
        for (part, _) in states {
            positives.merge(part);
        }
        evaluator.set_positives(positives);
    }
    progress.begin("catalog", positions.len());
    let evaluator = &evaluator;
    let init = || (evaluator.part(), Vec::new());
    let states = for_each_block(workers, &blocks, progress, init, |state, chunk| {
        let (part, buffer): &mut (Part, Vec<f32>) = state;
        evaluate_block(source, evaluator, chunk, buffer, part)
    })?;
    let mut parts = states.into_iter().map(|(part, _)| part);
    let mut part = parts.next().unwrap_or_else(|| evaluator.part());
    for other in parts {
        part.merge(other);
    }
    Ok(evaluator.finish(part, keep_curves)?)
}

/// Runs `work` on every block with `workers` workers, each with a state of its own made
/// by `init`: the workers take the next block from a shared counter until none is left,
/// so memory does not grow with the threads. Returns each worker's state; which worker
/// took which block is not fixed, so a caller that keeps per-block results orders them
/// itself. The first error stops the other workers at their next block.
///
/// # Errors
/// The first error `work` returns.
pub fn for_each_block<T, E, I, F>(
    workers: usize,
    blocks: &[&[usize]],
    progress: &dyn StreamProgress,
    init: I,
    work: F,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    I: Fn() -> T + Sync,
    F: Fn(&mut T, &[usize]) -> Result<(), E> + Sync,
{
    let next = AtomicUsize::new(0);
    (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut state = init();
            while let Some(chunk) = blocks.get(next.fetch_add(1, Ordering::Relaxed)) {
                if let Err(error) = work(&mut state, chunk) {
                    // The other workers stop at their next block.
                    next.store(blocks.len(), Ordering::Relaxed);
                    return Err(error);
                }
                progress.advance(chunk.len());
            }
            Ok(state)
        })
        .collect()
}

/// Scores the users at `positions` against every item into `buffer` and evaluates them
/// into `part`.
fn evaluate_block<S: CatalogSource + ?Sized>(
    source: &S,
    evaluator: &Evaluator,
    positions: &[usize],
    buffer: &mut Vec<f32>,
    part: &mut Part,
) -> Result<(), S::Error> {
    let n_items = source.n_items();
    buffer.resize(positions.len() * n_items, 0.0);
    source.score_block(positions, buffer)?;
    let excluded: Vec<Cow<'_, [u32]>> = positions.iter().map(|&p| source.excluded(p)).collect();
    let users: Vec<CatalogUser<'_>> = positions
        .iter()
        .zip(buffer.chunks(n_items.max(1)))
        .zip(&excluded)
        .map(|((&p, scores), excluded)| {
            let (graded, grades) = source.graded(p);
            CatalogUser { user: source.user(p), scores, excluded, graded, grades }
        })
        .collect();
    evaluator.push_users(part, &users)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
