//! Dataset statistics: counts, density, distributions, profile-length groups, the
//! popularity head and the Gini coefficient of item popularity.

use recs_core::Interactions;
use serde::{Deserialize, Serialize};

use crate::error::{DataError, Result};

/// Summary of a distribution of non-negative counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Smallest value.
    pub min: u32,
    /// Lower quartile (nearest rank).
    pub p25: u32,
    /// Median (nearest rank: the value at rank ⌈n/2⌉).
    pub median: u32,
    /// Upper quartile (nearest rank).
    pub p75: u32,
    /// Largest value.
    pub max: u32,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Distribution {
    /// Summarises `values` (all zeros when empty).
    pub fn of(values: &[u32]) -> Self {
        if values.is_empty() {
            return Distribution { min: 0, p25: 0, median: 0, p75: 0, max: 0, mean: 0.0 };
        }
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        // Nearest-rank percentile: the value at 1-based rank ceil(p * n).
        let at = |p: f64| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let sum: u64 = sorted.iter().map(|&v| u64::from(v)).sum();
        Distribution {
            min: sorted[0],
            p25: at(0.25),
            median: at(0.5),
            p75: at(0.75),
            max: sorted[n - 1],
            mean: sum as f64 / n as f64,
        }
    }
}

/// Users whose profile length (number of events) lies in `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Smallest profile length of the group.
    pub lo: u32,
    /// Largest profile length of the group; `None` for the open last group.
    pub hi: Option<u32>,
    /// Number of users in the group.
    pub n_users: usize,
    /// Their number of events.
    pub n_events: usize,
    /// `n_events` / all events of the dataset (0 when there are no events).
    pub share: f64,
}

/// The most popular items that together hold a given share of the events.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Head {
    /// The share asked for.
    pub target_share: f64,
    /// Smallest number of items (most popular first) reaching the share.
    pub n_items: usize,
    /// Their events.
    pub n_events: usize,
    /// Their actual share of events.
    pub share: f64,
}

/// Counts and distributions of a dataset's events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Number of users (rows, with or without events).
    pub n_users: usize,
    /// Number of items (columns, with or without events).
    pub n_items: usize,
    /// Number of events.
    pub n_events: usize,
    /// `n_events / (n_users × n_items)` (0 for an empty matrix). Sparsity is `1 − density`.
    pub density: f64,
    /// Users without any event.
    pub users_without_events: usize,
    /// Items without any event.
    pub items_without_events: usize,
    /// Distinct event values with their counts, ascending by value.
    pub value_histogram: Vec<(f32, usize)>,
    /// Profile lengths (events per user).
    pub profile_lengths: Distribution,
    /// Item popularity (events per item).
    pub item_popularity: Distribution,
    /// Gini coefficient of item popularity (see [`gini`]).
    pub gini_item_popularity: f64,
}

impl Stats {
    /// Computes the statistics of `interactions`.
    pub fn of(interactions: &Interactions) -> Self {
        let (n_users, n_items, n_events) =
            (interactions.n_users(), interactions.n_items(), interactions.n_events());
        let cells = n_users as f64 * n_items as f64;
        let user_counts = interactions.user_counts();
        let item_counts = interactions.item_counts();
        let mut values: Vec<f32> = interactions.csr().data().to_vec();
        values.sort_unstable_by(f32::total_cmp);
        let mut value_histogram: Vec<(f32, usize)> = Vec::new();
        for v in values {
            match value_histogram.last_mut() {
                Some((last, count)) if *last == v => *count += 1,
                _ => value_histogram.push((v, 1)),
            }
        }
        Stats {
            n_users,
            n_items,
            n_events,
            density: if cells > 0.0 { n_events as f64 / cells } else { 0.0 },
            users_without_events: user_counts.iter().filter(|&&c| c == 0).count(),
            items_without_events: item_counts.iter().filter(|&&c| c == 0).count(),
            value_histogram,
            profile_lengths: Distribution::of(&user_counts),
            item_popularity: Distribution::of(&item_counts),
            gini_item_popularity: gini(&item_counts),
        }
    }
}

/// Number of users per profile length, ascending by length (lengths without users omitted).
pub fn profile_length_histogram(interactions: &Interactions) -> Vec<(u32, usize)> {
    let mut counts = interactions.user_counts();
    counts.sort_unstable();
    let mut histogram: Vec<(u32, usize)> = Vec::new();
    for c in counts {
        match histogram.last_mut() {
            Some((len, n)) if *len == c => *n += 1,
            _ => histogram.push((c, 1)),
        }
    }
    histogram
}

/// Groups users by profile length: bounds `b_0 < b_1 < … < b_k` give the groups
/// `[b_0, b_1 − 1]`, …, `[b_{k−1}, b_k − 1]`, `[b_k, ∞)`. Users shorter than `b_0` belong
/// to no group. With bounds `1, 100, 200`, MovieLens 100K gives 579 / 215 / 149 users
/// (the groups of Cremonesi et al. 2008 / Schein et al.).
///
/// # Errors
/// Empty or not strictly increasing bounds.
pub fn profile_groups(interactions: &Interactions, bounds: &[u32]) -> Result<Vec<Group>> {
    if bounds.is_empty() || bounds.windows(2).any(|w| w[0] >= w[1]) {
        return Err(DataError::invalid(
            "group bounds",
            format!("{bounds:?}"),
            "a non-empty, strictly increasing list",
        ));
    }
    let total = interactions.n_events();
    let mut groups: Vec<Group> = bounds
        .iter()
        .enumerate()
        .map(|(k, &lo)| Group {
            lo,
            hi: bounds.get(k + 1).map(|&b| b - 1),
            n_users: 0,
            n_events: 0,
            share: 0.0,
        })
        .collect();
    for count in interactions.user_counts() {
        // Index of the last bound <= count.
        let k = bounds.partition_point(|&b| b <= count);
        if k == 0 {
            continue;
        }
        groups[k - 1].n_users += 1;
        groups[k - 1].n_events += count as usize;
    }
    for g in &mut groups {
        g.share = if total > 0 { g.n_events as f64 / total as f64 } else { 0.0 };
    }
    Ok(groups)
}

/// The popularity head: the fewest most-popular items whose events reach `share` of all
/// events (Cremonesi et al. 2008 §4: the short head holding a third of the ratings).
///
/// # Errors
/// `share` outside `(0, 1]`.
pub fn popularity_head(interactions: &Interactions, share: f64) -> Result<Head> {
    if !(share > 0.0 && share <= 1.0) {
        return Err(DataError::invalid("head share", share, "a number in (0, 1]"));
    }
    let mut counts = interactions.item_counts();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total = interactions.n_events();
    let target = share * total as f64;
    let mut n_events = 0usize;
    let mut n_items = 0usize;
    for c in counts {
        if n_events as f64 >= target {
            break;
        }
        n_events += c as usize;
        n_items += 1;
    }
    Ok(Head {
        target_share: share,
        n_items,
        n_events,
        share: if total > 0 { n_events as f64 / total as f64 } else { 0.0 },
    })
}

/// Gini coefficient of non-negative counts ([`recs_core::gini`] of the counts): 0 for
/// equal counts, `1 − 1/n` when one item holds everything; 0 when all counts are 0 or
/// there are none.
pub fn gini(counts: &[u32]) -> f64 {
    let amounts: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    recs_core::gini(&amounts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use recs_core::{DuplicatePolicy, Event};

    /// Users with 1, 2, 3 and 0 events over 4 items; item 0 most popular.
    fn sample() -> Interactions {
        let e = [(0, 0, 5.0), (1, 0, 4.0), (1, 1, 4.0), (2, 0, 1.0), (2, 1, 5.0), (2, 2, 4.0)];
        Interactions::from_events(
            4,
            4,
            e.iter().map(|&(u, i, v)| Event::new(u, i, v)),
            DuplicatePolicy::Error,
        )
        .unwrap()
    }

    #[test]
    fn counts_density_and_histogram() {
        let s = Stats::of(&sample());
        assert_eq!((s.n_users, s.n_items, s.n_events), (4, 4, 6));
        assert!((s.density - 6.0 / 16.0).abs() < 1e-12);
        assert_eq!((s.users_without_events, s.items_without_events), (1, 1));
        assert_eq!(s.value_histogram, vec![(1.0, 1), (4.0, 3), (5.0, 2)]);
        assert_eq!(s.profile_lengths.max, 3);
        assert_eq!(s.profile_lengths.median, 1);
        assert!((s.profile_lengths.mean - 1.5).abs() < 1e-12);
        assert_eq!(profile_length_histogram(&sample()), vec![(0, 1), (1, 1), (2, 1), (3, 1)]);
    }

    #[test]
    fn groups_follow_bounds() {
        let g = profile_groups(&sample(), &[1, 2, 3]).unwrap();
        let got: Vec<(u32, Option<u32>, usize, usize)> =
            g.iter().map(|g| (g.lo, g.hi, g.n_users, g.n_events)).collect();
        assert_eq!(got, vec![(1, Some(1), 1, 1), (2, Some(2), 1, 2), (3, None, 1, 3)]);
        assert!((g[2].share - 0.5).abs() < 1e-12);
        assert!(profile_groups(&sample(), &[]).is_err());
        assert!(profile_groups(&sample(), &[2, 2]).is_err());
    }

    #[test]
    fn head_is_the_fewest_items_reaching_the_share() {
        // Item counts 3, 2, 1, 0.
        let h = popularity_head(&sample(), 0.5).unwrap();
        assert_eq!((h.n_items, h.n_events), (1, 3));
        let h = popularity_head(&sample(), 0.51).unwrap();
        assert_eq!((h.n_items, h.n_events), (2, 5));
        assert_eq!(popularity_head(&sample(), 1.0).unwrap().n_items, 3);
        assert!(popularity_head(&sample(), 0.0).is_err());
        assert!(popularity_head(&sample(), f64::NAN).is_err());
    }

    #[test]
    fn gini_hand_computed() {
        assert_eq!(gini(&[5, 5, 5]), 0.0);
        assert!((gini(&[0, 0, 0, 10]) - 0.75).abs() < 1e-12);
        // Sorted 0,1,2,3: 2*(0+2+6+12)/(4*6) - 5/4 = 40/24 - 1.25 = 0.41666…
        assert!((gini(&[3, 0, 2, 1]) - (40.0 / 24.0 - 1.25)).abs() < 1e-12);
        assert_eq!(gini(&[]), 0.0);
        assert_eq!(gini(&[0, 0]), 0.0);
    }

    #[test]
    fn distribution_nearest_rank() {
        let d = Distribution::of(&[4, 1, 3, 2]);
        assert_eq!((d.min, d.p25, d.median, d.p75, d.max), (1, 1, 2, 3, 4));
    }

    proptest! {
        #[test]
        fn gini_in_unit_interval(counts in proptest::collection::vec(0u32..1000, 0..50)) {
            let g = gini(&counts);
            prop_assert!((0.0..1.0).contains(&g) || g.abs() < 1e-12);
        }

        #[test]
        fn groups_partition_users_above_first_bound(
            raw in proptest::collection::vec((0u32..20, 0u32..10), 0..120),
        ) {
            let m = Interactions::from_events(20, 10, raw.iter().map(|&(u, i)| Event::new(u, i, 1.0)), DuplicatePolicy::KeepLast).unwrap();
            let g = profile_groups(&m, &[1, 3, 6]).unwrap();
            let users: usize = g.iter().map(|g| g.n_users).sum();
            let events: usize = g.iter().map(|g| g.n_events).sum();
            let active = m.user_counts().iter().filter(|&&c| c >= 1).count();
            prop_assert_eq!(users, active);
            prop_assert_eq!(events, m.n_events());
        }
    }
}
