//! Sampled against exact on a streamed full catalog: every relevant item of every judged
//! user of a [`CatalogSource`] placed among the user's full-catalog negatives and among
//! each seed's drawn negatives, without listing a score. Blocks of users are scored and
//! placed by a fixed number of workers and only the placements are kept, so memory grows
//! with the relevant items, not with users × items. The placements are those of
//! [`crate::versus::run_instances`] on the same scores listed; `recs eval
//! --sampled-vs-exact --user-factors`, `recs run`'s `evaluation.sampled_vs_exact` and
//! Python's `recs.sampled_vs_exact` from factors are built on it. Definitions: `docs/metrics.md`,
//! "Sampled metrics".

use std::collections::BTreeSet;

use crate::versus::{Instance, UserLists, user_instances};
use recs_metrics::score_key;
use recs_metrics::stream::{CatalogSource, StreamProgress, catalog_workers, for_each_block};
use recs_split::{NegativeSampling, SampledCandidates, SampledUser};

/// The placements of a streamed catalog, in the order of the users' positions.
#[derive(Debug, Clone, Default)]
pub struct StreamedInstances {
    /// Every instance of every user that has some ([`UserLists::has_instances`]).
    pub instances: Vec<Instance>,
    /// The `(n, m)` of every instance and seed: the sizes an
    /// [`EstimatorTable`](crate::versus::EstimatorTable) must hold to serve them.
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

/// Each seed's draw of negatives for the user at each position:
/// [`NegativeSampling::sample`] of the user `user(position)` names (its index or its
/// external id, whose stream the draw follows), with the items it finds relevant left out.
pub struct SeededDraws<'a> {
    /// One sampling per seed, in seed order (all with the same `negatives`).
    pub samplings: Vec<NegativeSampling>,
    /// The user at a position, as its draw's stream is named.
    pub user: Box<dyn Fn(usize) -> SampledUser<'a> + Sync + 'a>,
    /// Training events per column (read by popularity draws; may be empty for uniform
    /// ones).
    pub popularity: Vec<u32>,
    /// A candidate graded at least this is relevant, and never drawn.
    pub threshold: f32,
}

impl DrawNegatives for SeededDraws<'_> {
    fn draw(&self, position: usize, items: &[u32], grades: &[f32]) -> Vec<SampledCandidates> {
        let user = (self.user)(position);
        let relevant = |g: f32| g >= self.threshold;
        self.samplings
            .iter()
            .map(|s| s.sample(user, items, grades, relevant, &self.popularity))
            .collect()
    }

    fn negatives(&self) -> usize {
        self.samplings.first().map_or(0, |s| s.negatives)
    }
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
    let block_users = block_users.max(1);
    let positions: Vec<usize> = (0..source.n_users()).collect();
    let blocks: Vec<&[usize]> = positions.chunks(block_users).collect();
    progress.begin("catalog", positions.len());
    let init = || (Vec::new(), Vec::new(), Row::default());
    let work = |state: &mut _, block: &[usize]| -> Result<(), S::Error> {
        let (done, scores, row): &mut (Vec<(usize, StreamedInstances)>, Vec<f32>, Row) = state;
        scores.resize(block.len() * n_items, 0.0);
        source.score_block(block, scores)?;
        let mut placed = StreamedInstances::default();
        for (k, &position) in block.iter().enumerate() {
            let user_scores = &scores[k * n_items..(k + 1) * n_items];
            place_user(source, position, user_scores, &is_relevant, draws, row, &mut placed);
        }
        // Blocks are consecutive positions: the first one's says which block this is.
        done.push((block[0] / block_users, placed));
        Ok(())
    };
    let states = for_each_block(plan.workers, &blocks, progress, init, work)?;
    let mut blocks_done: Vec<(usize, StreamedInstances)> =
        states.into_iter().flat_map(|(done, _, _)| done).collect();
    blocks_done.sort_unstable_by_key(|(index, _)| *index);
    let mut all = StreamedInstances::default();
    for (_, placed) in blocks_done {
        all.append(placed);
    }
    Ok(all)
}

/// One user's full-catalog row and its score keys, kept by a worker from user to user.
#[derive(Default)]
struct Row {
    items: Vec<u32>,
    grades: Vec<f32>,
    keys: Vec<u32>,
}

/// Places the relevant items of the user at `position`, whose scores over every column
/// are `scores`, into `out`; `row` is the worker's buffer.
fn place_user<S, R, D>(
    source: &S,
    position: usize,
    scores: &[f32],
    is_relevant: &R,
    draws: &D,
    row: &mut Row,
    out: &mut StreamedInstances,
) where
    S: CatalogSource + ?Sized,
    R: Fn(f32) -> bool,
    D: DrawNegatives + ?Sized,
{
    let excluded = source.excluded(position);
    let (graded, grades) = source.graded(position);
    let graded = graded.iter().copied().zip(grades.iter().copied());
    full_catalog_row(scores.len() as u32, &excluded, graded, &mut row.items, &mut row.grades);
    let drawn = draws.draw(position, &row.items, &row.grades);
    out.n_short += drawn.iter().filter(|d| d.n_negatives < draws.negatives()).count();
    let drawn: Vec<(&[u32], &[f32])> =
        drawn.iter().map(|d| (&d.items[..], &d.grades[..])).collect();
    let lists = UserLists::from_rows(&row.items, &row.grades, is_relevant, &drawn);
    if !lists.has_instances() {
        out.n_left_out += lists.relevant.len();
        return;
    }
    row.keys.clear();
    row.keys.extend(row.items.iter().map(|&i| score_key(scores[i as usize])));
    user_instances(&lists, &row.keys, &mut out.instances);
    let n = lists.negatives.len() as u64 + 1;
    out.sizes.extend(lists.drawn.iter().map(|d| (n, d.len() as u64)));
    out.n_users += 1;
}

/// One user's full-catalog candidates into `items` and `grades` (cleared first): every
/// item of `0..n_items` not in `excluded` (ascending), graded from `graded` (`(item,
/// grade)`, ascending; 0 when absent). A graded item that is excluded is not a candidate.
/// Both lists ascend, so one walk suffices. `recs eval`'s `catalog` policy builds its rows
/// with it too.
pub fn full_catalog_row(
    n_items: u32,
    excluded: &[u32],
    graded: impl IntoIterator<Item = (u32, f32)>,
    items: &mut Vec<u32>,
    grades: &mut Vec<f32>,
) {
    items.clear();
    grades.clear();
    let mut graded = graded.into_iter().peekable();
    let mut excluded = excluded.iter().peekable();
    for item in 0..n_items {
        while excluded.next_if(|&&e| e < item).is_some() {}
        if excluded.next_if(|&&e| e == item).is_some() {
            continue;
        }
        while graded.next_if(|&(g, _)| g < item).is_some() {}
        let grade = graded.next_if(|&(g, _)| g == item).map_or(0.0, |(_, grade)| grade);
        items.push(item);
        grades.push(grade);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_skips_the_excluded_items_and_grades_the_rest() {
        // Item 3 is graded but excluded (a training item): not a candidate.
        let (mut items, mut grades) = (vec![9], vec![9.0]);
        let graded = [(0, 2.0), (3, 1.0), (4, 5.0)];
        full_catalog_row(6, &[1, 3], graded, &mut items, &mut grades);
        assert_eq!(items, [0, 2, 4, 5]);
        assert_eq!(grades, [2.0, 0.0, 5.0, 0.0]);
        // A known item (4) that is graded too is skipped; the other grade is kept.
        full_catalog_row(6, &[1, 4], [(2, 3.0), (4, 1.0)], &mut items, &mut grades);
        assert_eq!(items, [0, 2, 3, 5]);
        assert_eq!(grades, [0.0, 3.0, 0.0, 0.0]);
    }
}
