//! The instances: every relevant item of every user, placed among the user's
//! full-catalog negatives (its exact rank) and among each seed's drawn negatives (its
//! sampled rank). The user's other relevant items are in neither list (leave one out), so
//! each instance is the one-relevant-item setting of Krichene & Rendle.

/// Where an item falls among `others` items: `above` of them score higher and `tied`
/// score the same, so its rank among the `others + 1` is any of `above + 1 ..= above +
/// tied + 1`, each equally likely over the random orders of the tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// How many items it is ranked among (besides itself).
    pub others: u64,
    /// How many of them score higher.
    pub above: u64,
    /// How many of them score the same.
    pub tied: u64,
}

impl Placement {
    /// The item of score key `key` among the items of ascending score keys `sorted`
    /// (`recs_metrics::score_key` order: a higher score, a higher key).
    ///
    /// ```
    /// use recs_sampled::versus::Placement;
    /// let p = Placement::among(&[1, 5, 5, 9], 5);
    /// assert_eq!(p, Placement { others: 4, above: 1, tied: 2 });
    /// ```
    pub fn among(sorted: &[u32], key: u32) -> Placement {
        let below = sorted.partition_point(|&k| k < key);
        let not_above = sorted.partition_point(|&k| k <= key);
        Placement {
            others: sorted.len() as u64,
            above: (sorted.len() - not_above) as u64,
            tied: (not_above - below) as u64,
        }
    }
}

/// One user's lists, as positions in its full-catalog row: its relevant items, its
/// negatives (every other candidate) and the negatives each seed drew.
#[derive(Debug, Clone, Default)]
pub struct UserLists {
    /// Its relevant items, each an instance.
    pub relevant: Vec<u32>,
    /// Every other candidate: what an instance's exact rank is among.
    pub negatives: Vec<u32>,
    /// Per seed, the negatives drawn: what its sampled rank is among.
    pub drawn: Vec<Vec<u32>>,
}

impl UserLists {
    /// A user's lists from its full-catalog row (`items` ascending, graded by `grades`) and
    /// each seed's draw from it (`(items, grades)`, ascending): items whose grade
    /// `is_relevant` are relevant, the rest negatives, and a draw's negatives are found by
    /// position in the row. A drawn item that is not in the row is skipped.
    pub fn from_rows(
        items: &[u32],
        grades: &[f32],
        is_relevant: impl Fn(f32) -> bool,
        draws: &[(&[u32], &[f32])],
    ) -> UserLists {
        let (relevant, negatives): (Vec<u32>, Vec<u32>) =
            (0..items.len() as u32).partition(|&p| is_relevant(grades[p as usize]));
        let drawn = draws
            .iter()
            .map(|(drawn_items, drawn_grades)| {
                // Both lists ascend, so one pass finds every position.
                let mut positions = Vec::with_capacity(drawn_items.len());
                let mut at = 0;
                for (&item, &grade) in drawn_items.iter().zip(drawn_grades.iter()) {
                    at += items[at..].partition_point(|&i| i < item);
                    if !is_relevant(grade) && items.get(at) == Some(&item) {
                        positions.push(at as u32);
                    }
                }
                positions
            })
            .collect();
        UserLists { relevant, negatives, drawn }
    }

    /// Whether the user has instances: a relevant item, and negatives to rank it among
    /// ([`UserLists::is_usable`]).
    pub fn has_instances(&self) -> bool {
        !self.relevant.is_empty() && self.is_usable()
    }

    /// The warning about the relevant items of `users` that are left out because their
    /// user has no negative to rank them against; `None` when there are none.
    pub fn left_out_warning(users: &[UserLists]) -> Option<String> {
        let n: usize = users
            .iter()
            .filter(|u| !u.relevant.is_empty() && !u.is_usable())
            .map(|u| u.relevant.len())
            .sum();
        UserLists::left_out_warning_of(n)
    }

    /// The warning about `n` relevant items left out (as [`UserLists::left_out_warning`]
    /// counts them); `None` when there are none.
    pub fn left_out_warning_of(n: usize) -> Option<String> {
        (n > 0).then(|| {
            format!(
                "{n} relevant items are left out: their users have no negative to rank them \
                 against (in the catalog or, by popularity, in a draw)"
            )
        })
    }

    /// Whether the user's items can be instances: it has a relevant item, and a negative
    /// in the catalog and in every draw (a rank among one item says nothing).
    pub fn is_usable(&self) -> bool {
        !self.negatives.is_empty() && self.drawn.iter().all(|d| !d.is_empty())
    }
}

/// One relevant item: its exact placement and its placement in each seed's draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Among the user's negatives.
    pub exact: Placement,
    /// Among each seed's drawn negatives.
    pub sampled: Vec<Placement>,
}

/// The instances of one user under one run, appended to `out`. `keys` are its
/// full-catalog row's scores as order-preserving keys: a higher score has a higher key,
/// equal scores equal keys (`recs_metrics::score_key`, which sends a missing score below
/// every other, tied with the other missing ones, as everywhere in recs).
pub fn user_instances(lists: &UserLists, keys: &[u32], out: &mut Vec<Instance>) {
    let relevant: Vec<u32> = lists.relevant.iter().map(|&p| keys[p as usize]).collect();
    let placements = |positions: &[u32]| placements_among(&relevant, positions, keys);
    let exact = placements(&lists.negatives);
    let drawn: Vec<Vec<Placement>> = lists.drawn.iter().map(|d| placements(d)).collect();
    for (k, &exact) in exact.iter().enumerate() {
        out.push(Instance { exact, sampled: drawn.iter().map(|d| d[k]).collect() });
    }
}

/// The placement of each key of `relevant` among the keys of the items at `positions`,
/// the same as [`Placement::among`] on them sorted, in one pass over `positions` (a
/// binary search among the few relevant keys for each) instead of a sort of them all.
fn placements_among(relevant: &[u32], positions: &[u32], keys: &[u32]) -> Vec<Placement> {
    let mut distinct = relevant.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    // slot[s]: the keys with exactly s distinct relevant keys below them, so at most
    // distinct[s]; equal[s]: those of them equal to it.
    let mut slot = vec![0u64; distinct.len() + 1];
    let mut equal = vec![0u64; distinct.len()];
    for &p in positions {
        let key = keys[p as usize];
        let below = distinct.partition_point(|&d| d < key);
        slot[below] += 1;
        if distinct.get(below) == Some(&key) {
            equal[below] += 1;
        }
    }
    // The keys above distinct[s] are those of the slots past s.
    let mut above = vec![0u64; distinct.len()];
    let mut higher = slot[distinct.len()];
    for s in (0..distinct.len()).rev() {
        above[s] = higher;
        higher += slot[s];
    }
    relevant
        .iter()
        .map(|key| {
            let s = distinct.partition_point(|d| d < key);
            Placement { others: positions.len() as u64, above: above[s], tied: equal[s] }
        })
        .collect()
}

/// The instances of every user of `users` that has some ([`UserLists::has_instances`]),
/// in order: `keys_of(position, keys)` appends the keys of the user at `position` (its
/// full-catalog row's scores, as for [`user_instances`]) to the cleared `keys`.
pub fn run_instances(
    users: &[UserLists],
    mut keys_of: impl FnMut(usize, &mut Vec<u32>),
) -> Vec<Instance> {
    let (mut instances, mut keys) = (Vec::new(), Vec::new());
    for (position, lists) in users.iter().enumerate() {
        if lists.has_instances() {
            keys.clear();
            keys_of(position, &mut keys);
            user_instances(lists, &keys, &mut instances);
        }
    }
    instances
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_from_rows_find_each_drawn_negative_by_position() {
        // Row: items 2, 5, 7, 9, 11; item 5 relevant. Seed 0 drew 7 and 11 (with the
        // relevant 5), seed 1 drew 2.
        let items = [2, 5, 7, 9, 11];
        let grades = [0.0, 1.0, 0.0, 0.0, 0.0];
        let draws: [(&[u32], &[f32]); 2] =
            [(&[5, 7, 11], &[1.0, 0.0, 0.0]), (&[2, 5], &[0.0, 1.0])];
        let lists = UserLists::from_rows(&items, &grades, |g| g >= 1.0, &draws);
        assert_eq!(lists.relevant, [1]);
        assert_eq!(lists.negatives, [0, 2, 3, 4]);
        assert_eq!(lists.drawn, [vec![2, 4], vec![0]]);
        assert!(lists.is_usable() && lists.has_instances());
        let lonely = UserLists::from_rows(&[5], &[1.0], |g| g >= 1.0, &[(&[5], &[1.0])]);
        assert!(!lonely.has_instances());
        let warning = UserLists::left_out_warning(&[lists, lonely]).unwrap();
        assert!(warning.starts_with("1 relevant items are left out"), "{warning}");
    }

    #[test]
    fn placements_count_higher_and_equal_scores_and_missing_ones_tie_last() {
        // Positions 0..6; relevant 0 (0.5) and 3 (missing); negatives 1, 2, 4, 5, 6.
        // Keys of scores 0.5, 0.9, 0.5, missing, 0.5, 0.1, missing.
        let keys = [5, 9, 5, 0, 5, 1, 0];
        let lists = UserLists {
            relevant: vec![0, 3],
            negatives: vec![1, 2, 4, 5, 6],
            drawn: vec![vec![2, 5], vec![1, 6]],
        };
        let mut out = Vec::new();
        user_instances(&lists, &keys, &mut out);
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

    proptest::proptest! {
        /// One pass with a search among the relevant keys places each of them as a sort
        /// of the others' keys does.
        #[test]
        fn placements_in_one_pass_equal_those_among_the_sorted_keys(
            keys in proptest::collection::vec(0u32..6, 1..40),
            relevant in proptest::collection::vec(0usize..40, 0..6),
            others in proptest::collection::vec(0usize..40, 0..40),
        ) {
            let n = keys.len();
            let relevant: Vec<u32> = relevant.iter().map(|&p| keys[p % n]).collect();
            let positions: Vec<u32> = others.iter().map(|&p| (p % n) as u32).collect();
            let mut sorted: Vec<u32> = positions.iter().map(|&p| keys[p as usize]).collect();
            sorted.sort_unstable();
            let want: Vec<Placement> = relevant.iter().map(|&k| Placement::among(&sorted, k)).collect();
            proptest::prop_assert_eq!(placements_among(&relevant, &positions, &keys), want);
        }
    }
}
