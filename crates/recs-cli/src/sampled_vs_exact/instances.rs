//! The instances of `--sampled-vs-exact`: every relevant item of every user, placed among
//! the user's full-catalog negatives (its exact rank) and among each seed's drawn
//! negatives (its sampled rank). The user's other relevant items are in neither list
//! (leave one out), so each instance is the one-relevant-item setting of Krichene & Rendle.

use recs_metrics::score_key;

/// Where an item falls among `others` items: `above` of them score higher and `tied`
/// score the same, so its rank among the `others + 1` is any of `above + 1 ..= above +
/// tied + 1`, each equally likely over the random orders of the tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    pub(crate) others: u64,
    pub(crate) above: u64,
    pub(crate) tied: u64,
}

/// The item of score key `key` among the ascending keys `sorted`.
fn place(sorted: &[u32], key: u32) -> Placement {
    let below = sorted.partition_point(|&k| k < key);
    let not_above = sorted.partition_point(|&k| k <= key);
    Placement {
        others: sorted.len() as u64,
        above: (sorted.len() - not_above) as u64,
        tied: (not_above - below) as u64,
    }
}

/// One user's lists, as positions in its full-catalog row: its relevant items, its
/// negatives (every other candidate) and the negatives each seed drew.
#[derive(Debug, Clone, Default)]
pub(crate) struct UserLists {
    pub(crate) relevant: Vec<u32>,
    pub(crate) negatives: Vec<u32>,
    pub(crate) drawn: Vec<Vec<u32>>,
}

impl UserLists {
    /// Whether the user's items can be instances: it has a relevant item, and a negative
    /// in the catalog and in every draw (a rank among one item says nothing).
    pub(crate) fn is_usable(&self) -> bool {
        !self.negatives.is_empty() && self.drawn.iter().all(|d| !d.is_empty())
    }
}

/// One relevant item: its exact placement and its placement in each seed's draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Instance {
    pub(crate) exact: Placement,
    pub(crate) sampled: Vec<Placement>,
}

/// The instances of one user under one run, `scores` being its full-catalog row's scores
/// (`NaN` = missing: below every score, tied with the other missing ones, as everywhere
/// in recs), appended to `out`.
pub(crate) fn user_instances(lists: &UserLists, scores: &[f32], out: &mut Vec<Instance>) {
    let sorted_keys = |positions: &[u32]| {
        let mut keys: Vec<u32> = positions.iter().map(|&p| score_key(scores[p as usize])).collect();
        keys.sort_unstable();
        keys
    };
    let negatives = sorted_keys(&lists.negatives);
    let drawn: Vec<Vec<u32>> = lists.drawn.iter().map(|d| sorted_keys(d)).collect();
    for &item in &lists.relevant {
        let key = score_key(scores[item as usize]);
        out.push(Instance {
            exact: place(&negatives, key),
            sampled: drawn.iter().map(|d| place(d, key)).collect(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_count_higher_and_equal_scores_and_missing_ones_tie_last() {
        // Positions 0..6; relevant 0 (0.5) and 3 (missing); negatives 1, 2, 4, 5, 6.
        let scores = [0.5, 0.9, 0.5, f32::NAN, 0.5, 0.1, f32::NAN];
        let lists = UserLists {
            relevant: vec![0, 3],
            negatives: vec![1, 2, 4, 5, 6],
            drawn: vec![vec![2, 5], vec![1, 6]],
        };
        let mut out = Vec::new();
        user_instances(&lists, &scores, &mut out);
        let p = |others, above, tied| Placement { others, above, tied };
        assert_eq!(
            out,
            [
                // The other relevant item (3) is in neither list.
                Instance { exact: p(5, 1, 2), sampled: vec![p(2, 0, 1), p(2, 1, 0)] },
                Instance { exact: p(5, 4, 1), sampled: vec![p(2, 2, 0), p(2, 1, 1)] },
            ]
        );
    }
}
