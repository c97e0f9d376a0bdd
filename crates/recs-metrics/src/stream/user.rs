//! One user's tie groups from a score for every item of the catalog, without listing or
//! sorting the candidates.
//!
//! The metrics of a user need only the tie groups that hold a graded candidate (see
//! `counted`): the graded candidates are few, so their keys are sorted, and one pass
//! over the catalog counts, for each key, the candidates ranked above it and tied with
//! it.

use super::counted::{KeyCounts, KeyOrder};
use crate::topn::Group;

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

/// Counts every candidate of `user` against `keys` (ascending, distinct) under `order`
/// into `counts` (reset to `keys.len()` keys); returns the number of candidates and of
/// those whose score is `NaN`.
pub(crate) fn count_row(
    user: &CatalogUser<'_>,
    order: KeyOrder,
    keys: &[u64],
    counts: &mut KeyCounts,
) -> (u64, u64) {
    counts.reset(keys.len());
    let (mut n, mut missing) = (0u64, 0u64);
    for_each_candidate(user, |item, score| {
        n += 1;
        missing += u64::from(score.is_nan());
        counts.count(keys, order.key(score, item));
    });
    (n, missing)
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
