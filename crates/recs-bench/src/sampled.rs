//! Sampled against exact on a streamed full catalog: every relevant item of every judged
//! user of a [`CatalogSource`] placed among the user's full-catalog negatives and among
//! each seed's drawn negatives, without listing a score. Blocks of users are scored and
//! placed by a fixed number of workers and only the placements are kept, so memory grows
//! with the relevant items, not with users × items. The placements are those of
//! [`recs_sampled::versus::run_instances`] on the same scores listed; `recs eval
//! --sampled-vs-exact --user-factors` is built on it. Definitions: `docs/metrics.md`,
//! "Sampled metrics".

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use recs_metrics::score_key;
use recs_metrics::stream::{CatalogSource, StreamProgress, catalog_workers};
use recs_sampled::versus::{Instance, UserLists, user_instances};
use recs_split::SampledCandidates;

/// The placements of a streamed catalog, in the order of the users' positions.
#[derive(Debug, Clone, Default)]
pub struct StreamedInstances {
    /// Every instance of every user that has some ([`UserLists::has_instances`]).
    pub instances: Vec<Instance>,
    /// The `(n, m)` of every instance and seed: the sizes an
    /// [`EstimatorTable`](recs_sampled::versus::EstimatorTable) must hold to serve them.
    pub sizes: BTreeSet<(u64, u64)>,
    /// Users with instances.
    pub n_users: usize,
    /// Relevant items left out because their user has no negative to rank them against
    /// (in the catalog or in a draw).
    pub n_left_out: usize,
    /// Draws (a user and a seed) that found fewer negatives than `negatives` asked.
    pub n_short: usize,
}

impl StreamedInstances {
    fn append(&mut self, mut other: StreamedInstances) {
        self.instances.append(&mut other.instances);
        self.sizes.append(&mut other.sizes);
        self.n_users += other.n_users;
        self.n_left_out += other.n_left_out;
        self.n_short += other.n_short;
    }
}

/// How the negatives are drawn for the user at a position, from its full-catalog row
/// (candidate columns ascending, and their grades): one [`SampledCandidates`] per seed.
pub trait DrawNegatives: Sync {
    /// The draws of the user at `position`, one per seed, in seed order.
    fn draw(&self, position: usize, items: &[u32], grades: &[f32]) -> Vec<SampledCandidates>;

    /// The negatives each draw asks for (a draw with fewer is counted short).
    fn negatives(&self) -> usize;
}

/// The placements of every judged user of `source`: its candidates are every column but
/// its excluded ones, graded by its graded items (0 otherwise); the items whose grade
/// `is_relevant` are instances, the others its negatives, and `draws` draws from the
/// same row. `memory_budget` bounds the score blocks held at once
/// ([`catalog_workers`]); neither it nor the thread count changes the result.
///
/// # Errors
/// The source's scoring error (the other workers stop at their next block).
pub fn stream_instances<S, R, D>(
    source: &S,
    is_relevant: R,
    draws: &D,
    memory_budget: usize,
    progress: &dyn StreamProgress,
) -> Result<StreamedInstances, S::Error>
where
    S: CatalogSource + ?Sized,
    R: Fn(f32) -> bool + Sync,
    D: DrawNegatives + ?Sized,
{
    let n_items = source.n_items();
    let threads = rayon::current_num_threads();
    let plan = catalog_workers(n_items, None, threads, memory_budget);
    let block_users = source.block_users().map_or(plan.block_users, |b| b.min(plan.block_users));
    let positions: Vec<usize> = (0..source.n_users()).collect();
    let blocks: Vec<&[usize]> = positions.chunks(block_users.max(1)).collect();
    progress.begin("catalog", positions.len());
    let next = AtomicUsize::new(0);
    let done: Vec<Vec<(usize, StreamedInstances)>> = (0..plan.workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| -> Result<_, S::Error> {
            let mut out = Vec::new();
            let mut scores = Vec::new();
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(&block) = blocks.get(index) else { break };
                scores.resize(block.len() * n_items, 0.0);
                if let Err(error) = source.score_block(block, &mut scores) {
                    next.store(blocks.len(), Ordering::Relaxed);
                    return Err(error);
                }
                let mut placed = StreamedInstances::default();
                for (k, &position) in block.iter().enumerate() {
                    let row = &scores[k * n_items..(k + 1) * n_items];
                    place_user(source, position, row, &is_relevant, draws, &mut placed);
                }
                out.push((index, placed));
                progress.advance(block.len());
            }
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    let mut blocks_done: Vec<(usize, StreamedInstances)> = done.into_iter().flatten().collect();
    blocks_done.sort_unstable_by_key(|(index, _)| *index);
    let mut all = StreamedInstances::default();
    for (_, placed) in blocks_done {
        all.append(placed);
    }
    Ok(all)
}

/// Places the relevant items of the user at `position`, whose scores over every column
/// are `row`, into `out`.
fn place_user<S, R, D>(
    source: &S,
    position: usize,
    row: &[f32],
    is_relevant: &R,
    draws: &D,
    out: &mut StreamedInstances,
) where
    S: CatalogSource + ?Sized,
    R: Fn(f32) -> bool,
    D: DrawNegatives + ?Sized,
{
    let excluded = source.excluded(position);
    let (graded, graded_grades) = source.graded(position);
    let (items, grades) = candidate_row(row.len() as u32, &excluded, graded, graded_grades);
    let drawn = draws.draw(position, &items, &grades);
    out.n_short += drawn.iter().filter(|d| d.n_negatives < draws.negatives()).count();
    let drawn: Vec<(&[u32], &[f32])> =
        drawn.iter().map(|d| (&d.items[..], &d.grades[..])).collect();
    let lists = UserLists::from_rows(&items, &grades, is_relevant, &drawn);
    if !lists.has_instances() {
        if !lists.relevant.is_empty() {
            out.n_left_out += lists.relevant.len();
        }
        return;
    }
    let keys: Vec<u32> = items.iter().map(|&i| score_key(row[i as usize])).collect();
    user_instances(&lists, &keys, &mut out.instances);
    let n = lists.negatives.len() as u64 + 1;
    out.sizes.extend(lists.drawn.iter().map(|d| (n, d.len() as u64)));
    out.n_users += 1;
}

/// A user's full-catalog row: every column of `0..n_items` but the `excluded` ones
/// (ascending), graded from `graded` (ascending, with `grades`; 0 when absent). A graded
/// item that is excluded is not a candidate.
fn candidate_row(
    n_items: u32,
    excluded: &[u32],
    graded: &[u32],
    grades: &[f32],
) -> (Vec<u32>, Vec<f32>) {
    let mut items = Vec::with_capacity(n_items as usize - excluded.len().min(n_items as usize));
    let mut row_grades = Vec::with_capacity(items.capacity());
    let (mut e, mut g) = (0, 0);
    for item in 0..n_items {
        if excluded.get(e) == Some(&item) {
            e += 1;
            continue;
        }
        while graded.get(g).is_some_and(|&i| i < item) {
            g += 1;
        }
        items.push(item);
        row_grades.push(if graded.get(g) == Some(&item) { grades[g] } else { 0.0 });
    }
    (items, row_grades)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_skips_the_excluded_items_and_grades_the_rest() {
        // Item 3 is graded but excluded (a training item): not a candidate.
        let (items, grades) = candidate_row(6, &[1, 3], &[0, 3, 4], &[2.0, 1.0, 5.0]);
        assert_eq!(items, [0, 2, 4, 5]);
        assert_eq!(grades, [2.0, 0.0, 5.0, 0.0]);
    }
}
