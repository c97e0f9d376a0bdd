//! The pooled ROC curve in memory that grows with the positives only.
//!
//! Positives are few (the test events); negatives are every other candidate, billions of
//! them on a full catalog. So the positives' score keys come first ([`PositiveScores`],
//! one pass over the graded candidates), their distinct values become [`Thresholds`],
//! and every negative is then only counted ([`NegativeCounts`]): how many fall strictly
//! between two consecutive positive keys, and how many equal each. The curve and the
//! areas need nothing else: a run of negatives between two positive keys is a straight
//! horizontal segment of the curve, whatever its scores.

use serde::{Deserialize, Serialize};

use crate::curve::Curve;
use crate::error::Result;
use crate::roc::{AreaWalk, CurvePoints, RocSummary, check_classes, check_max_fpr};
use crate::scored::score_key;

/// Negative score keys waiting to be counted together ([`Thresholds::push_batch`]), with
/// the storage the count reuses. Empty between calls of the evaluator.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NegativeBatch {
    pub(crate) keys: Vec<u32>,
    bucketed: Vec<u32>,
    starts: Vec<u32>,
}

/// The score keys of every positive pair (phase one of the pooled ROC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PositiveScores {
    keys: Vec<u32>,
}

impl PositiveScores {
    /// No positive yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the positive pairs among one user's graded candidates: those with
    /// `grade >= threshold`.
    pub fn push_user(&mut self, grades: &[f32], scores: &[f32], threshold: f32) {
        let positives = grades.iter().zip(scores).filter(|(g, _)| **g >= threshold);
        self.keys.extend(positives.map(|(_, &s)| score_key(s)));
    }

    /// Adds every positive of `other` (any order of merges gives the same thresholds).
    pub fn merge(&mut self, mut other: PositiveScores) {
        self.keys.append(&mut other.keys);
    }

    /// Number of positive pairs.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True before any positive.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distinct positive keys, ready to count negatives against.
    pub fn thresholds(mut self) -> Thresholds {
        self.keys.sort_unstable();
        let mut keys: Vec<u32> = Vec::new();
        let mut positives: Vec<u64> = Vec::new();
        for &k in &self.keys {
            match (keys.last(), positives.last_mut()) {
                (Some(&last), Some(count)) if last == k => *count += 1,
                _ => {
                    keys.push(k);
                    positives.push(1);
                }
            }
        }
        // An index of 2^bits cells: about 16 per key, so that a cell holds few keys even
        // where scores crowd, within [2^16, 2^24] cells (256 KiB to 64 MiB).
        let bits = (usize::BITS - keys.len().leading_zeros() + 4).clamp(BUCKET_BITS, 24);
        let shift = 32 - bits;
        // prefix[p] = number of keys whose top `bits` bits are below p.
        let mut prefix = vec![0u32; (1 << bits) + 1];
        for &k in &keys {
            prefix[(k >> shift) as usize + 1] += 1;
        }
        for p in 1..prefix.len() {
            prefix[p] += prefix[p - 1];
        }
        Thresholds { keys, positives, prefix, shift }
    }
}

/// The distinct positive score keys (ascending) with their multiplicities, and an index
/// by the top 16 bits of a key so that placing a negative costs a table lookup and a
/// search among the few keys sharing its prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    keys: Vec<u32>,
    positives: Vec<u64>,
    prefix: Vec<u32>,
    /// A key's cell in `prefix` is `key >> shift`.
    shift: u32,
}

/// Negatives of a batch are grouped by the top `BUCKET_BITS` bits of their keys: the
/// index cells and thresholds of one group are contiguous and stay in cache.
const BUCKET_BITS: u32 = 16;

impl Thresholds {
    /// Fresh counts for the negatives of a part of the data.
    pub fn counts(&self) -> NegativeCounts {
        NegativeCounts { below: vec![0; self.keys.len() + 1], equal: vec![0; self.keys.len()] }
    }

    /// Counts one negative pair of `score` (`NaN` = missing, lowest).
    #[inline]
    pub fn push_negative(&self, counts: &mut NegativeCounts, score: f32) {
        self.push_negative_key(counts, score_key(score));
    }

    /// Counts one negative pair of score key `key`.
    #[inline]
    fn push_negative_key(&self, counts: &mut NegativeCounts, key: u32) {
        let p = (key >> self.shift) as usize;
        let (lo, hi) = (self.prefix[p] as usize, self.prefix[p + 1] as usize);
        let j = lo + self.keys[lo..hi].partition_point(|&k| k < key);
        if j < hi && self.keys[j] == key {
            counts.equal[j] += 1;
        } else {
            counts.below[j] += 1;
        }
    }

    /// Counts every negative key gathered in `batch` (as [`score_key`] gives them) and
    /// empties it: the same counts as [`Thresholds::push_negative`] on each, found in
    /// another order. Keys are grouped by their top [`BUCKET_BITS`] bits, so that the
    /// index cells, thresholds and counts of a group are contiguous and stay in cache
    /// while it is counted; in the order scores arrive, each key would be a cache miss
    /// on a large catalog.
    pub(crate) fn push_batch(&self, counts: &mut NegativeCounts, batch: &mut NegativeBatch) {
        let NegativeBatch { keys, bucketed, starts } = batch;
        starts.clear();
        starts.resize((1 << BUCKET_BITS) + 1, 0);
        let bucket_of = |k: u32| (k >> (32 - BUCKET_BITS)) as usize;
        for &k in keys.iter() {
            starts[bucket_of(k) + 1] += 1;
        }
        for p in 1..starts.len() {
            starts[p] += starts[p - 1];
        }
        bucketed.resize(keys.len(), 0);
        let mut next = starts.clone();
        for &k in keys.iter() {
            let slot = &mut next[bucket_of(k)];
            bucketed[*slot as usize] = k;
            *slot += 1;
        }
        let cells = 32 - BUCKET_BITS - self.shift;
        for (b, bounds) in starts.windows(2).enumerate() {
            let bucket = &bucketed[bounds[0] as usize..bounds[1] as usize];
            if bucket.is_empty() {
                continue;
            }
            let (lo, hi) =
                (self.prefix[b << cells] as usize, self.prefix[(b + 1) << cells] as usize);
            if lo == hi {
                counts.below[lo] += bucket.len() as u64;
                continue;
            }
            for &k in bucket {
                self.push_negative_key(counts, k);
            }
        }
        keys.clear();
    }

    /// Number of positive pairs.
    pub fn n_positives(&self) -> u64 {
        self.positives.iter().sum()
    }

    /// The tie groups of the pooled ranking from the highest score down, as (positives,
    /// negatives): the negatives above every positive key, then each positive key's
    /// group followed by the run of negatives between it and the next lower key (several
    /// negative-only groups, merged).
    fn groups<'a>(&'a self, counts: &'a NegativeCounts) -> impl Iterator<Item = (u64, u64)> + 'a {
        let d = self.keys.len();
        (0..=d).rev().flat_map(move |j| {
            let run = (0, counts.below[j]);
            let group = (j < d).then(|| (self.positives[j], counts.equal[j]));
            group.into_iter().chain(std::iter::once(run)).filter(|&(p, n)| p + n > 0)
        })
    }

    /// AUC and partial AUC up to `max_fpr` of the pooled curve. The AUC is the exact
    /// integer `Σ_groups neg_g · (2·tp_before + pos_g)` over `2·P·N`, rounded once, so it
    /// equals [`crate::roc_summary`] bit for bit. The partial AUC is the same sum over the
    /// groups that end at a false-alarm rate `<= max_fpr`, plus the trapezoid of the
    /// group crossing it; where the crossing falls inside a run of negatives that the
    /// in-memory path splits into several groups, the two round differently (within
    /// `1e-15`).
    ///
    /// # Errors
    /// [`crate::MetricsError::Undefined`] without a positive or without a negative pair;
    /// [`crate::MetricsError::InvalidArgument`] when `max_fpr` is not in `(0, 1]`.
    pub fn summary(&self, counts: &NegativeCounts, max_fpr: f64) -> Result<RocSummary> {
        check_max_fpr(max_fpr)?;
        let (n_pos, n_neg) = (self.n_positives(), counts.n_negatives());
        check_classes(n_pos as usize, n_neg as usize)?;
        let mut walk = AreaWalk::new(n_pos, n_neg, max_fpr);
        for (p, n) in self.groups(counts) {
            walk.add_group(p, n);
        }
        Ok(walk.summary())
    }

    /// The exact curve, with one vertex per group of [`Thresholds::summary`]: the
    /// in-memory curve of [`crate::roc`] less the collinear vertices inside runs of
    /// negatives.
    ///
    /// # Errors
    /// [`crate::MetricsError::Undefined`] without a positive or without a negative pair.
    pub fn curve(&self, counts: &NegativeCounts) -> Result<Curve> {
        let (n_pos, n_neg) = (self.n_positives(), counts.n_negatives());
        check_classes(n_pos as usize, n_neg as usize)?;
        let mut points = CurvePoints::default();
        for (p, n) in self.groups(counts) {
            points.add_group(p, n);
        }
        Ok(points.curve(n_pos, n_neg))
    }
}

/// How many negative pairs fall strictly between consecutive positive keys (`below[j]`:
/// under key `j`, above key `j − 1`) and on each key (`equal[j]`). Integer counts: parts
/// merge exactly, in any order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NegativeCounts {
    below: Vec<u64>,
    equal: Vec<u64>,
}

impl NegativeCounts {
    /// Adds the counts of `other` (made from the same [`Thresholds`]).
    ///
    /// # Panics
    /// When `other` was made from other thresholds (counts of another length).
    pub fn merge(&mut self, other: &NegativeCounts) {
        assert_eq!(self.below.len(), other.below.len(), "counts of other thresholds");
        for (a, b) in self.below.iter_mut().zip(&other.below) {
            *a += b;
        }
        for (a, b) in self.equal.iter_mut().zip(&other.equal) {
            *a += b;
        }
    }

    /// Number of negative pairs counted.
    pub fn n_negatives(&self) -> u64 {
        self.below.iter().sum::<u64>() + self.equal.iter().sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roc::RocAccumulator;
    use proptest::prelude::*;

    fn both(positives: &[f32], negatives: &[f32], max_fpr: f64) -> (RocSummary, RocSummary) {
        let mut in_memory = RocAccumulator::new();
        let mut first = PositiveScores::new();
        for &s in positives {
            in_memory.push(s, true);
        }
        first.push_user(&vec![1.0; positives.len()], positives, 1.0);
        let thresholds = first.thresholds();
        let mut counts = thresholds.counts();
        for &s in negatives {
            in_memory.push(s, false);
            thresholds.push_negative(&mut counts, s);
        }
        (in_memory.summary(max_fpr).unwrap(), thresholds.summary(&counts, max_fpr).unwrap())
    }

    #[test]
    fn hand_computed_with_ties_and_missing_scores() {
        // Positives 0.9, 0.5; negatives 0.7, 0.5 (tied), NaN (missing, lowest).
        let (memory, streamed) = both(&[0.9, 0.5], &[0.7, 0.5, f32::NAN], 1.0);
        // Pairs won: 0.9 beats 3, 0.5 beats NaN and ties 0.5: (3 + 1 + 0.5) / 6.
        assert_eq!(streamed.auc, 4.5 / 6.0);
        assert_eq!(streamed.auc.to_bits(), memory.auc.to_bits());
        assert_eq!((streamed.n_positives, streamed.n_negatives), (2, 3));
    }

    #[test]
    fn a_class_missing_is_undefined() {
        let thresholds = PositiveScores::new().thresholds();
        let mut counts = thresholds.counts();
        thresholds.push_negative(&mut counts, 0.5);
        assert!(thresholds.summary(&counts, 0.5).is_err());
        assert!(thresholds.curve(&counts).is_err());
    }

    #[test]
    fn a_fine_index_places_every_key_as_a_search_of_all_thresholds() {
        // 20,000 positives crowded in a narrow range: an index finer than the buckets.
        let mut state = 7u64;
        let mut next =
            move || (recs_core::splitmix64(&mut state) >> 40) as f32 / (1u64 << 24) as f32;
        let positives: Vec<f32> = (0..20_000).map(|_| 0.5 + next() * 0.01).collect();
        let mut first = PositiveScores::new();
        first.push_user(&vec![1.0; positives.len()], &positives, 1.0);
        let thresholds = first.thresholds();
        assert!(thresholds.shift < 32 - BUCKET_BITS, "the index is finer than the buckets");
        let (mut batched, mut brute) = (thresholds.counts(), thresholds.counts());
        let mut batch = NegativeBatch::default();
        for i in 0..60_000 {
            // Negatives among the positives, around them, and some equal to one.
            let s = if i % 7 == 0 { positives[i % positives.len()] } else { 0.49 + next() * 0.03 };
            let key = score_key(s);
            batch.keys.push(key);
            let j = thresholds.keys.partition_point(|&k| k < key);
            if thresholds.keys.get(j) == Some(&key) {
                brute.equal[j] += 1;
            } else {
                brute.below[j] += 1;
            }
        }
        thresholds.push_batch(&mut batched, &mut batch);
        assert_eq!(batched, brute);
        assert!(brute.equal.iter().sum::<u64>() > 0 && brute.below[0] > 0);
    }

    proptest! {
        #[test]
        fn batched_counts_equal_one_at_a_time(
            positives in prop::collection::vec((0u32..4, 0u32..64), 0..60),
            negatives in prop::collection::vec((0u32..4, 0u32..64), 0..400),
        ) {
            // Keys from four prefixes of one bucket each and a few low bits: buckets with
            // and without thresholds, ties, keys above and below every threshold.
            let key = |(prefix, low): (u32, u32)| ((0x3f80 + prefix * 3) << 16) | (low * 977);
            let score = |k: u32| f32::from_bits(k);
            let p: Vec<f32> = positives.iter().map(|&x| score(key(x))).collect();
            let mut first = PositiveScores::new();
            first.push_user(&vec![1.0; p.len()], &p, 1.0);
            let thresholds = first.thresholds();
            let (mut one, mut batched) = (thresholds.counts(), thresholds.counts());
            let mut batch = NegativeBatch::default();
            for &x in &negatives {
                let s = score(key(x));
                thresholds.push_negative(&mut one, s);
                batch.keys.push(score_key(s));
            }
            thresholds.push_batch(&mut batched, &mut batch);
            prop_assert_eq!(&one, &batched);
            prop_assert!(batch.keys.is_empty());
        }

        #[test]
        fn streamed_equals_in_memory(
            positives in prop::collection::vec(0u8..20, 1..40),
            negatives in prop::collection::vec(0u8..20, 1..200),
            max_fpr in 0.01f64..1.0,
            split in 0usize..200,
        ) {
            // Few distinct values: many ties, keys sharing prefixes.
            let score = |v: u8| if v == 0 { f32::NAN } else { f32::from(v) / 7.0 - 1.0 };
            let p: Vec<f32> = positives.iter().map(|&v| score(v)).collect();
            let n: Vec<f32> = negatives.iter().map(|&v| score(v)).collect();
            let (memory, streamed) = both(&p, &n, max_fpr);
            prop_assert_eq!(streamed.auc.to_bits(), memory.auc.to_bits());
            prop_assert!((streamed.partial_auc - memory.partial_auc).abs() < 1e-15);
            // Counts of two parts merge into the counts of the whole.
            let mut first = PositiveScores::new();
            first.push_user(&vec![1.0; p.len()], &p, 1.0);
            let thresholds = first.thresholds();
            let (mut a, mut b, mut whole) =
                (thresholds.counts(), thresholds.counts(), thresholds.counts());
            let cut = split.min(n.len());
            for &s in &n[..cut] { thresholds.push_negative(&mut a, s); }
            for &s in &n[cut..] { thresholds.push_negative(&mut b, s); }
            for &s in &n { thresholds.push_negative(&mut whole, s); }
            b.merge(&a);
            prop_assert_eq!(&b, &whole);
            // The curve has the same area as the in-memory one and ends at (1, 1).
            let curve = thresholds.curve(&whole).unwrap();
            let mut acc = RocAccumulator::new();
            for &s in &p { acc.push(s, true); }
            for &s in &n { acc.push(s, false); }
            let full = acc.curve().unwrap();
            prop_assert!((curve.auc() - full.auc()).abs() < 1e-12);
            let points = curve.points();
            prop_assert_eq!(points.last(), Some(&[1.0, 1.0]));
        }
    }
}
