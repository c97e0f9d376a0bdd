//! One user's tie groups from a score for every item of the catalog, without listing or
//! sorting the candidates.
//!
//! The metrics of a user need only the tie groups that hold a graded candidate: where
//! each starts, how long it is, and its members' grades (see `topn`). The graded
//! candidates are few, so their group keys are sorted, and one pass over the catalog
//! counts, for each key, the candidates ranked above it and tied with it.

use crate::scored::{TieBreak, score_key};
use crate::topn::{Group, Options};

/// The candidates of a user on a full catalog: every item but `excluded`.
#[derive(Debug, Clone, Copy)]
pub struct CatalogUser<'a> {
    /// The user's index (results are reported in user order).
    pub user: u32,
    /// One score per item of the catalog, by item index; `NaN` = missing (lowest).
    pub scores: &'a [f32],
    /// Items that are not candidates (the user's training items), strictly ascending.
    pub excluded: &'a [u32],
    /// Candidates with a positive grade, strictly ascending, none of them excluded.
    pub graded: &'a [u32],
    /// The grade of each of `graded`.
    pub grades: &'a [f32],
}

/// What one pass over a user's candidates found.
#[derive(Debug, Default)]
pub(crate) struct Pass {
    /// Number of candidates.
    pub(crate) n: usize,
    /// Candidates whose score is `NaN`.
    pub(crate) missing: usize,
    /// Graded tie groups in rank order.
    pub(crate) groups: Vec<Group>,
}

/// Reused storage of the per-user work.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// `(packed key, grade)` of the graded candidates, in rank order.
    graded: Vec<(u64, f32)>,
    /// Distinct group keys of the graded candidates, ascending (= rank order).
    keys: Vec<u64>,
    /// Per key `j`: candidates strictly between key `j − 1` and key `j`; the last slot
    /// counts those below every key.
    between: Vec<u64>,
    /// Per key: candidates on it.
    on: Vec<u64>,
}

/// The rank key of item `item` with score `score`: score descending in the high half,
/// the item (ascending, or descending) in the low half, as the in-memory ranking orders
/// candidates (a user's candidate positions follow item order).
#[inline]
fn packed(score: f32, item: u32, descending_items: bool) -> u64 {
    let low = if descending_items { !item } else { item };
    (u64::from(!score_key(score)) << 32) | u64::from(low)
}

/// Calls `visit(item, score)` for every candidate of `user` (every item not excluded).
#[inline]
pub(crate) fn for_each_candidate(user: &CatalogUser<'_>, mut visit: impl FnMut(u32, f32)) {
    let mut next_excluded = user.excluded.iter().copied().peekable();
    for (item, &score) in user.scores.iter().enumerate() {
        let item = item as u32;
        if next_excluded.peek() == Some(&item) {
            next_excluded.next();
            continue;
        }
        visit(item, score);
    }
}

/// The graded tie groups of `user` under `ties`, as `topn` builds them from a listed
/// candidate set: the same starts, lengths and member sums, in the same order.
pub(crate) fn pass(
    user: &CatalogUser<'_>,
    ties: TieBreak,
    options: &Options,
    exp_gains: bool,
    scratch: &mut Scratch,
) -> Pass {
    let Scratch { graded, keys, between, on } = scratch;
    let descending_items = ties == TieBreak::ItemDescending;
    let shift = if ties == TieBreak::Expected { 32 } else { 0 };
    graded.clear();
    graded.extend(
        user.graded
            .iter()
            .zip(user.grades)
            .map(|(&i, &g)| (packed(user.scores[i as usize], i, descending_items), g)),
    );
    graded.sort_unstable_by_key(|&(key, _)| key);
    keys.clear();
    keys.extend(graded.iter().map(|&(key, _)| key >> shift));
    keys.dedup();
    between.clear();
    between.resize(keys.len() + 1, 0);
    on.clear();
    on.resize(keys.len(), 0);
    let mut out = Pass::default();
    let last = keys.last().copied();
    for_each_candidate(user, |item, score| {
        out.n += 1;
        out.missing += usize::from(score.is_nan());
        let key = packed(score, item, descending_items) >> shift;
        // Most candidates rank below every graded one: no search for them.
        if last.is_none_or(|last| key > last) {
            between[keys.len()] += 1;
            return;
        }
        let j = keys.partition_point(|&k| k < key);
        if keys[j] == key {
            on[j] += 1;
        } else {
            between[j] += 1;
        }
    });
    let (mut above, mut before, mut member) = (0u64, 0usize, 0usize);
    for (j, &key) in keys.iter().enumerate() {
        above += between[j];
        let mut group = Group::new(above as usize, on[j] as usize, before);
        while member < graded.len() && graded[member].0 >> shift == key {
            group.add(graded[member].1, options, exp_gains);
            member += 1;
        }
        before += group.relevant;
        above += on[j];
        out.groups.push(group);
    }
    out
}

/// The user's AUC from its groups under expected-value ties: pairs won, 2 per strict win
/// and 1 per tie, over `2·P·N` — the integer `user_averaged_auc` counts, so the same
/// value bit for bit. `None` without a positive or a negative candidate.
pub(crate) fn user_auc(groups: &[Group], n: usize) -> Option<f64> {
    let positives: usize = groups.iter().map(|g| g.relevant).sum();
    let negatives = n - positives;
    if positives == 0 || negatives == 0 {
        return None;
    }
    let mut wins = 0u128;
    for g in groups {
        let negatives_above = g.start - g.before;
        let negatives_tied = g.len - g.relevant;
        let negatives_below = negatives - negatives_above - negatives_tied;
        wins += g.relevant as u128 * (2 * negatives_below as u128 + negatives_tied as u128);
    }
    Some(wins as f64 / (2.0 * positives as f64 * negatives as f64))
}
