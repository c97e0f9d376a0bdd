//! A user's candidates reduced to counts: the interface between whatever counts them
//! (this crate's pass over a row of scores, or a GPU) and the code that turns counts
//! into metric values.
//!
//! A user's metrics need only its graded tie groups: where each starts, how long it is,
//! and its members' grades. Sort the graded candidates by their rank key
//! ([`KeyOrder::key`]) and keep the distinct keys ([`GradedKeys`]); then count, over
//! every candidate, how many fall strictly between consecutive keys and how many fall
//! on each ([`KeyCounts`]). Integer counts do not depend on the order candidates are
//! visited in, so any counter that visits each candidate once gives the same counts,
//! and the same report.

use crate::scored::{TieBreak, score_key};
use crate::topn::{Group, Options};

/// How candidates are ordered for counting: a candidate's key is its score (descending)
/// and, when ties are broken by item, its item; ascending keys are rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyOrder {
    /// Items in descending order within equal scores (`item-descending`).
    pub descending_items: bool,
    /// Bits dropped from the packed key: 32 drops the item, so equal scores share a key
    /// (`expected` ties); 0 keeps it.
    pub shift: u32,
}

impl KeyOrder {
    /// The order of `ties`.
    pub fn of(ties: TieBreak) -> Self {
        KeyOrder {
            descending_items: ties == TieBreak::ItemDescending,
            shift: if ties == TieBreak::Expected { 32 } else { 0 },
        }
    }

    /// The rank key of `item` with `score`: the complement of [`score_key`] in the high
    /// half (higher scores first; `NaN` last), the item (or its complement) in the low
    /// half, shifted right by [`KeyOrder::shift`].
    ///
    /// ```
    /// use recs_metrics::TieBreak;
    /// use recs_metrics::stream::KeyOrder;
    /// let order = KeyOrder::of(TieBreak::ItemAscending);
    /// assert!(order.key(0.9, 7) < order.key(0.5, 1));
    /// assert!(order.key(0.5, 1) < order.key(0.5, 2));
    /// let expected = KeyOrder::of(TieBreak::Expected);
    /// assert_eq!(expected.key(0.5, 1), expected.key(0.5, 2));
    /// assert!(expected.key(-1.0, 0) < expected.key(f32::NAN, 0));
    /// ```
    #[inline]
    pub fn key(self, score: f32, item: u32) -> u64 {
        let low = if self.descending_items { !item } else { item };
        ((u64::from(!score_key(score)) << 32) | u64::from(low)) >> self.shift
    }
}

/// A user's graded candidates in rank order under one [`KeyOrder`]: the distinct keys a
/// counter counts against, and each key's members' grades for turning counts into
/// groups.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GradedKeys {
    /// `(key, grade)` of every graded candidate, ascending by key.
    graded: Vec<(u64, f32)>,
    /// The distinct keys, ascending.
    keys: Vec<u64>,
}

impl GradedKeys {
    /// The keys of the graded candidates `items` with `grades` and `scores` (one each).
    pub fn new(order: KeyOrder, items: &[u32], grades: &[f32], scores: &[f32]) -> Self {
        let mut keys = GradedKeys::default();
        keys.fill(order, items, grades, scores);
        keys
    }

    /// As [`GradedKeys::new`], reusing this storage.
    pub fn fill(&mut self, order: KeyOrder, items: &[u32], grades: &[f32], scores: &[f32]) {
        debug_assert!(items.len() == grades.len() && items.len() == scores.len());
        self.graded.clear();
        self.graded.extend(
            items.iter().zip(grades).zip(scores).map(|((&i, &g), &s)| (order.key(s, i), g)),
        );
        self.graded.sort_unstable_by_key(|&(key, _)| key);
        self.keys.clear();
        self.keys.extend(self.graded.iter().map(|&(key, _)| key));
        self.keys.dedup();
    }

    /// The distinct keys, ascending: what [`KeyCounts`] counts against.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The graded tie groups in rank order, from the counts of every candidate against
    /// [`GradedKeys::keys`].
    pub(crate) fn groups(
        &self,
        counts: &KeyCounts,
        options: &Options,
        exp_gains: bool,
        out: &mut Vec<Group>,
    ) {
        out.clear();
        let (mut above, mut before, mut member) = (0u64, 0usize, 0usize);
        for (j, &key) in self.keys.iter().enumerate() {
            above += counts.between[j];
            let mut group = Group::new(above as usize, counts.on[j] as usize, before);
            while member < self.graded.len() && self.graded[member].0 == key {
                group.add(self.graded[member].1, options, exp_gains);
                member += 1;
            }
            before += group.relevant;
            above += counts.on[j];
            out.push(group);
        }
    }
}

/// Counts of one user's candidates against the distinct keys of its [`GradedKeys`]:
/// `between[j]` candidates fall strictly between key `j − 1` and key `j` (`between[0]`:
/// above key 0; the last slot: below every key), `on[j]` have key `j`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyCounts {
    /// `keys + 1` counts.
    pub between: Vec<u64>,
    /// `keys` counts.
    pub on: Vec<u64>,
}

impl KeyCounts {
    /// Zero counts against `keys` distinct keys.
    pub fn zeros(keys: usize) -> Self {
        let mut counts = KeyCounts::default();
        counts.reset(keys);
        counts
    }

    /// Zero counts against `keys` distinct keys, reusing this storage.
    pub fn reset(&mut self, keys: usize) {
        self.between.clear();
        self.between.resize(keys + 1, 0);
        self.on.clear();
        self.on.resize(keys, 0);
    }

    /// Number of candidates counted.
    pub fn total(&self) -> u64 {
        self.between.iter().chain(&self.on).sum()
    }

    /// Counts one candidate of key `key` against `keys` (ascending, distinct).
    #[inline]
    pub fn count(&mut self, keys: &[u64], key: u64) {
        // Most candidates rank below every graded one: no search for them.
        if keys.last().is_none_or(|&last| key > last) {
            self.between[keys.len()] += 1;
            return;
        }
        let j = keys.partition_point(|&k| k < key);
        if keys[j] == key {
            self.on[j] += 1;
        } else {
            self.between[j] += 1;
        }
    }
}

/// What counting every candidate of one user found, as [`crate::stream::Evaluator::push_counted`]
/// takes it.
#[derive(Debug, Clone, Copy)]
pub struct CountedUser<'a> {
    /// The user's index (results are reported in user order).
    pub user: u32,
    /// Number of candidates.
    pub n: u64,
    /// Candidates whose score is `NaN`.
    pub missing: u64,
    /// The grades of the graded candidates (any order).
    pub grades: &'a [f32],
    /// One `(keys, counts)` per order of [`crate::stream::Evaluator::key_orders`], in
    /// that order.
    pub counted: &'a [(GradedKeys, KeyCounts)],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_place_candidates_between_and_on_keys() {
        let order = KeyOrder::of(TieBreak::Expected);
        let keys = GradedKeys::new(order, &[1, 4], &[1.0, 2.0], &[0.5, 0.8]);
        assert_eq!(keys.keys().len(), 2);
        let mut counts = KeyCounts::zeros(2);
        for (item, score) in [(0, 0.9f32), (1, 0.5), (2, 0.5), (3, 0.6), (4, 0.8), (5, f32::NAN)] {
            counts.count(keys.keys(), order.key(score, item));
        }
        // 0.9 above 0.8; on 0.8: item 4; between: 0.6; on 0.5: items 1, 2; below: NaN.
        assert_eq!(counts.between, vec![1, 1, 1]);
        assert_eq!(counts.on, vec![1, 2]);
        assert_eq!(counts.total(), 6);
        let mut groups = Vec::new();
        keys.groups(&counts, &Options::default(), false, &mut groups);
        assert_eq!((groups[0].start, groups[0].len, groups[0].relevant), (1, 1, 1));
        assert_eq!((groups[1].start, groups[1].len, groups[1].before), (3, 2, 1));
    }

    #[test]
    fn item_orders_break_ties_both_ways() {
        let up = KeyOrder::of(TieBreak::ItemAscending);
        let down = KeyOrder::of(TieBreak::ItemDescending);
        assert!(up.key(0.5, 1) < up.key(0.5, 2));
        assert!(down.key(0.5, 2) < down.key(0.5, 1));
        assert!(down.key(0.6, 1) < down.key(0.5, 2));
    }
}
