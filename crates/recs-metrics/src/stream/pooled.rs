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
    /// The distinct positive score keys ([`score_key`]), ascending: negatives are
    /// counted between and on them.
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The index that narrows a key's search: keys whose top bits (`key >> shift`) are
    /// below `p` number `prefix[p]`, so a key `k` lies among `keys[prefix[k >> shift] ..
    /// prefix[(k >> shift) + 1]]` or just past them. Returns `(prefix, shift)`.
    pub fn index(&self) -> (&[u32], u32) {
        (&self.prefix, self.shift)
    }

    /// Fresh counts for the negatives of a part of the data.
    pub fn counts(&self) -> NegativeCounts {
        NegativeCounts::zeros(self.keys.len())
    }

    /// Counts one negative pair of `score` (`NaN` = missing, lowest).
    #[inline]
    pub fn push_negative(&self, counts: &mut NegativeCounts, score: f32) {
        self.push_negative_key(counts, score_key(score));
    }

    /// Counts one negative pair of score key `key`.
    #[inline]
    fn push_negative_key(&self, counts: &mut NegativeCounts, key: u32) {
        counts.reserve(1);
        match &mut counts.cells {
            Cells::Narrow { below, equal } => self.count_key(below, equal, key),
            Cells::Wide { below, equal } => self.count_key(below, equal, key),
        }
    }

    /// Adds one to the cell of `key`: `equal[j]` on threshold `j`, else `below[j]` under
    /// the first threshold above it.
    #[inline]
    fn count_key<T: Cell>(&self, below: &mut [T], equal: &mut [T], key: u32) {
        let p = (key >> self.shift) as usize;
        let (lo, hi) = (self.prefix[p] as usize, self.prefix[p + 1] as usize);
        let j = lo + self.keys[lo..hi].partition_point(|&k| k < key);
        if j < hi && self.keys[j] == key {
            equal[j].add(1);
        } else {
            below[j].add(1);
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
        counts.reserve(keys.len() as u64);
        match &mut counts.cells {
            Cells::Narrow { below, equal } => self.count_buckets(below, equal, starts, bucketed),
            Cells::Wide { below, equal } => self.count_buckets(below, equal, starts, bucketed),
        }
        keys.clear();
    }

    /// Counts the keys of `bucketed`, grouped by bucket as `starts` delimits them.
    fn count_buckets<T: Cell>(
        &self,
        below: &mut [T],
        equal: &mut [T],
        starts: &[u32],
        bucketed: &[u32],
    ) {
        let cells = 32 - BUCKET_BITS - self.shift;
        for (b, bounds) in starts.windows(2).enumerate() {
            let bucket = &bucketed[bounds[0] as usize..bounds[1] as usize];
            if bucket.is_empty() {
                continue;
            }
            let (lo, hi) =
                (self.prefix[b << cells] as usize, self.prefix[(b + 1) << cells] as usize);
            if lo == hi {
                // A bucket holds fewer keys than a batch, which `reserve` keeps below 2^32.
                below[lo].add(bucket.len() as u32);
                continue;
            }
            for &k in bucket {
                self.count_key(below, equal, k);
            }
        }
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
            let run = (0, counts.below(j));
            let group = (j < d).then(|| (self.positives[j], counts.equal(j)));
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
///
/// The counts are the largest piece of a streamed evaluation's working memory (two per
/// distinct positive score, millions at MovieLens-20M shape, one set per worker), so they
/// are held in 32 bits while they fit (while fewer than 2^32 negatives have been
/// counted) and widened to 64 bits, once, when they might not; the values, the merges and
/// the serialised form (64-bit counts) are the same either way.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(into = "WideCounts", from = "WideCounts")]
pub struct NegativeCounts {
    cells: Cells,
    /// Negatives counted so far: no cell exceeds it.
    counted: u64,
}

/// The cells of [`NegativeCounts`], in 32 or 64 bits.
#[derive(Debug, Clone)]
enum Cells {
    Narrow { below: Vec<u32>, equal: Vec<u32> },
    Wide { below: Vec<u64>, equal: Vec<u64> },
}

/// A counter cell: `u32` or `u64`.
trait Cell: Copy {
    fn add(&mut self, n: u32);
}

impl Cell for u32 {
    #[inline]
    fn add(&mut self, n: u32) {
        *self += n;
    }
}

impl Cell for u64 {
    #[inline]
    fn add(&mut self, n: u32) {
        *self += u64::from(n);
    }
}

/// The serialised form of [`NegativeCounts`].
#[derive(Serialize, Deserialize)]
struct WideCounts {
    below: Vec<u64>,
    equal: Vec<u64>,
}

impl From<NegativeCounts> for WideCounts {
    fn from(counts: NegativeCounts) -> WideCounts {
        match counts.cells {
            Cells::Wide { below, equal } => WideCounts { below, equal },
            Cells::Narrow { below, equal } => WideCounts {
                below: below.into_iter().map(u64::from).collect(),
                equal: equal.into_iter().map(u64::from).collect(),
            },
        }
    }
}

impl From<WideCounts> for NegativeCounts {
    fn from(WideCounts { below, equal }: WideCounts) -> NegativeCounts {
        let counted: u64 = below.iter().chain(&equal).sum();
        let narrow = |cells: Vec<u64>| cells.into_iter().map(|c| c as u32).collect();
        let cells = if counted <= u64::from(u32::MAX) {
            // No cell exceeds the total, so every one fits.
            Cells::Narrow { below: narrow(below), equal: narrow(equal) }
        } else {
            Cells::Wide { below, equal }
        };
        NegativeCounts { cells, counted }
    }
}

impl PartialEq for NegativeCounts {
    fn eq(&self, other: &NegativeCounts) -> bool {
        let n = self.len();
        n == other.len()
            && (0..=n).all(|j| self.below(j) == other.below(j))
            && (0..n).all(|j| self.equal(j) == other.equal(j))
    }
}

impl NegativeCounts {
    /// No negative counted, against `keys` thresholds.
    fn zeros(keys: usize) -> NegativeCounts {
        let cells = Cells::Narrow { below: vec![0; keys + 1], equal: vec![0; keys] };
        NegativeCounts { cells, counted: 0 }
    }

    /// Counts taken elsewhere (by a GPU, say) in the layout of [`Thresholds::counts`]:
    /// `below[j]` negatives strictly under threshold `j` and above threshold `j − 1`
    /// (the last cell: under every threshold), `equal[j]` on threshold `j`.
    ///
    /// # Errors
    /// [`crate::MetricsError::InvalidArgument`] unless `below` has one cell more than
    /// `equal`.
    pub fn from_cells(below: Vec<u64>, equal: Vec<u64>) -> Result<NegativeCounts> {
        if below.len() != equal.len() + 1 {
            return Err(crate::MetricsError::InvalidArgument {
                name: "negative counts",
                value: format!("{} cells below and {} on thresholds", below.len(), equal.len()),
                expected: "one cell below more than on thresholds",
            });
        }
        Ok(WideCounts { below, equal }.into())
    }

    /// The number of thresholds.
    pub(crate) fn len(&self) -> usize {
        match &self.cells {
            Cells::Narrow { equal, .. } => equal.len(),
            Cells::Wide { equal, .. } => equal.len(),
        }
    }

    /// Negatives strictly under threshold `j` and above threshold `j − 1`.
    fn below(&self, j: usize) -> u64 {
        match &self.cells {
            Cells::Narrow { below, .. } => u64::from(below[j]),
            Cells::Wide { below, .. } => below[j],
        }
    }

    /// Negatives on threshold `j`.
    fn equal(&self, j: usize) -> u64 {
        match &self.cells {
            Cells::Narrow { equal, .. } => u64::from(equal[j]),
            Cells::Wide { equal, .. } => equal[j],
        }
    }

    /// Makes room for `more` negatives: widens the cells when the count could pass
    /// `u32::MAX`.
    fn reserve(&mut self, more: u64) {
        self.counted += more;
        if self.counted > u64::from(u32::MAX) {
            self.widen();
        }
    }

    /// Holds the cells in 64 bits from now on.
    fn widen(&mut self) {
        if let Cells::Narrow { below, equal } = &mut self.cells {
            let wide = |cells: &mut Vec<u32>| cells.drain(..).map(u64::from).collect();
            self.cells = Cells::Wide { below: wide(below), equal: wide(equal) };
        }
    }

    /// Adds the counts of `other` (made from the same [`Thresholds`]).
    ///
    /// # Panics
    /// When `other` was made from other thresholds (counts of another length).
    pub fn merge(&mut self, other: &NegativeCounts) {
        assert_eq!(self.len(), other.len(), "counts of other thresholds");
        self.reserve(other.counted);
        if matches!(other.cells, Cells::Wide { .. }) {
            self.widen();
        }
        match (&mut self.cells, &other.cells) {
            (Cells::Narrow { below, equal }, Cells::Narrow { below: b, equal: e }) => {
                add_cells(below, b);
                add_cells(equal, e);
            }
            (Cells::Wide { below, equal }, Cells::Narrow { below: b, equal: e }) => {
                add_cells(below, b);
                add_cells(equal, e);
            }
            (Cells::Wide { below, equal }, Cells::Wide { below: b, equal: e }) => {
                add_cells(below, b);
                add_cells(equal, e);
            }
            (Cells::Narrow { .. }, Cells::Wide { .. }) => unreachable!("widened above"),
        }
    }

    /// Number of negative pairs counted.
    pub fn n_negatives(&self) -> u64 {
        let n = self.len();
        (0..=n).map(|j| self.below(j)).sum::<u64>() + (0..n).map(|j| self.equal(j)).sum::<u64>()
    }
}

/// `a[j] += b[j]` for every cell.
fn add_cells<A: Copy + std::ops::AddAssign + From<B>, B: Copy>(a: &mut [A], b: &[B]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x += A::from(y);
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
        let mut batched = thresholds.counts();
        let n = thresholds.keys.len();
        let (mut below, mut equal) = (vec![0u64; n + 1], vec![0u64; n]);
        let mut batch = NegativeBatch::default();
        for i in 0..60_000 {
            // Negatives among the positives, around them, and some equal to one.
            let s = if i % 7 == 0 { positives[i % positives.len()] } else { 0.49 + next() * 0.03 };
            let key = score_key(s);
            batch.keys.push(key);
            let j = thresholds.keys.partition_point(|&k| k < key);
            if thresholds.keys.get(j) == Some(&key) {
                equal[j] += 1;
            } else {
                below[j] += 1;
            }
        }
        thresholds.push_batch(&mut batched, &mut batch);
        assert!(equal.iter().sum::<u64>() > 0 && below[0] > 0);
        assert_eq!(batched, NegativeCounts::from(WideCounts { below, equal }));
    }

    #[test]
    fn narrow_and_wide_counts_agree_and_widen_before_they_could_overflow() {
        let mut first = PositiveScores::new();
        first.push_user(&[1.0; 3], &[0.2, 0.5, 0.5], 1.0);
        let thresholds = first.thresholds();
        let negatives = [0.1f32, 0.5, 0.7, 0.5, f32::NAN, 0.3];
        let (mut narrow, mut wide) = (thresholds.counts(), thresholds.counts());
        wide.widen();
        for &s in &negatives {
            thresholds.push_negative(&mut narrow, s);
            thresholds.push_negative(&mut wide, s);
        }
        assert!(matches!(narrow.cells, Cells::Narrow { .. }));
        assert!(matches!(wide.cells, Cells::Wide { .. }));
        assert_eq!(narrow, wide);
        assert_eq!(narrow.n_negatives(), 6);
        let (a, b) =
            (thresholds.summary(&narrow, 0.5).unwrap(), thresholds.summary(&wide, 0.5).unwrap());
        assert_eq!(
            (a.auc.to_bits(), a.partial_auc.to_bits()),
            (b.auc.to_bits(), b.partial_auc.to_bits())
        );
        // Merges across widths, both ways.
        let mut doubled = narrow.clone();
        doubled.merge(&wide);
        let mut doubled_wide = wide.clone();
        doubled_wide.merge(&narrow);
        assert_eq!(doubled, doubled_wide);
        assert_eq!((doubled.below(0), doubled.equal(1), doubled.n_negatives()), (4, 4, 12));
        // The serialised form is 64-bit whatever the width; small counts come back narrow.
        let json = serde_json::to_string(&narrow).unwrap();
        assert_eq!(json, serde_json::to_string(&wide).unwrap());
        assert_eq!(json, r#"{"below":[2,1,1],"equal":[0,2]}"#);
        let back: NegativeCounts = serde_json::from_str(&json).unwrap();
        assert!(matches!(back.cells, Cells::Narrow { .. }) && back == narrow);
        let big: NegativeCounts =
            serde_json::from_str(r#"{"below":[4294967296,0,0],"equal":[0,0]}"#).unwrap();
        assert!(matches!(big.cells, Cells::Wide { .. }));
        // A count about to pass 2^32 − 1 widens first: no cell wraps.
        let mut near = thresholds.counts();
        for _ in 0..3 {
            thresholds.push_negative(&mut near, 0.1);
        }
        near.counted = u64::from(u32::MAX) - 1;
        if let Cells::Narrow { below, .. } = &mut near.cells {
            below[0] = u32::MAX - 1;
        }
        let mut batch = NegativeBatch::default();
        batch.keys.extend([score_key(0.1), score_key(0.1), score_key(0.6)]);
        thresholds.push_batch(&mut near, &mut batch);
        assert!(matches!(near.cells, Cells::Wide { .. }));
        assert_eq!((near.below(0), near.below(2)), (u64::from(u32::MAX) + 1, 1));
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
