//! The pooled ROC curve (schein2005 §3.1): one ranked list of every (user, candidate) pair.

use std::ops::Range;

use rayon::prelude::*;

use crate::curve::Curve;
use crate::error::{MetricsError, Result};
use crate::radix::{Bucketed, Pairs, bucket_pairs, n_parts_for, sort_keys};
use crate::scored::{Scored, score_key};

/// Collects (score, label) pairs for a pooled ROC curve.
///
/// Pairs are kept as two arrays of order-preserving score keys, one for positives and
/// one for negatives, so accumulators [`merge`](RocAccumulator::merge) exactly in any
/// order: the result never depends on how pairs were split or in which order they came.
///
/// The accumulator is serde-serialisable (its pairs' order keys), so partial states
/// can travel between processes and merge there.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RocAccumulator {
    positives: Vec<u32>,
    negatives: Vec<u32>,
}

/// Area under the pooled ROC curve and its partial area, computed without storing the
/// curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RocSummary {
    /// Area under the whole curve (= Mann–Whitney statistic, ties counting 1/2).
    pub auc: f64,
    /// Area for false-alarm rates in `[0, max_fpr]`, not rescaled.
    pub partial_auc: f64,
    /// The false-alarm limit of `partial_auc`.
    pub max_fpr: f64,
    /// Number of positive pairs.
    pub n_positives: u64,
    /// Number of negative pairs.
    pub n_negatives: u64,
}

impl RocAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one pair. A `NaN` score is a missing score and ranks lowest.
    pub fn push(&mut self, score: f32, relevant: bool) {
        if relevant {
            self.positives.push(score_key(score));
        } else {
            self.negatives.push(score_key(score));
        }
    }

    /// Adds a user's candidates: relevant when `grade >= threshold`.
    pub fn push_user(&mut self, grades: &[f32], scores: &[f32], threshold: f32) {
        for (&g, &s) in grades.iter().zip(scores) {
            self.push(s, g >= threshold);
        }
    }

    /// Adds every pair of `other`.
    pub fn merge(&mut self, mut other: RocAccumulator) {
        self.positives.append(&mut other.positives);
        self.negatives.append(&mut other.negatives);
    }

    /// Number of positive pairs so far.
    pub fn n_positives(&self) -> u64 {
        self.positives.len() as u64
    }

    /// Number of negative pairs so far.
    pub fn n_negatives(&self) -> u64 {
        self.negatives.len() as u64
    }

    /// Both key arrays bucketed by one common digit.
    fn bucketed(self) -> Result<Bucketed> {
        check_classes(self.positives.len(), self.negatives.len())?;
        let parts = Parts::of(self.positives.len() + self.negatives.len());
        Ok(bucket_pairs(&KeyPairs {
            positives: &self.positives,
            negatives: &self.negatives,
            parts,
        }))
    }

    /// The exact curve: one point per group of equal scores, from `(0, 0)` to `(1, 1)`.
    ///
    /// # Errors
    /// [`MetricsError::Undefined`] without a positive or without a negative pair.
    pub fn curve(self) -> Result<Curve> {
        curve_of(self.bucketed()?)
    }

    /// AUC and partial AUC up to `max_fpr`, without storing the curve. Both are computed
    /// in exact integer arithmetic and rounded once: the AUC is `Σ_groups neg_g ·
    /// (2·tp_before + pos_g) / (2·P·N)`, the partial AUC the same sum over the groups that
    /// end at a false-alarm rate `<= max_fpr`, plus the trapezoid of the group crossing
    /// `max_fpr`, cut by linear interpolation. Buckets of keys are summed in parallel; the
    /// result does not depend on the number of threads.
    ///
    /// # Errors
    /// [`MetricsError::Undefined`] without a positive or without a negative pair;
    /// [`MetricsError::InvalidArgument`] when `max_fpr` is not in `(0, 1]`.
    pub fn summary(self, max_fpr: f64) -> Result<RocSummary> {
        check_max_fpr(max_fpr)?;
        summary_of(self.bucketed()?, max_fpr)
    }
}

/// AUC and partial AUC up to `max_fpr` of a pooled ROC given as tie groups: `(positives,
/// negatives)` of each distinct score, from the highest score down — what an engine gets
/// by grouping pairs by [`crate::score_key`]. The arithmetic is [`RocAccumulator::summary`]'s
/// (exact integers, rounded once), so the same pairs give the same bits however they were
/// counted.
///
/// ```
/// use recs_metrics::{RocAccumulator, roc_summary_of_groups};
/// // Scores 0.9 (1 positive), 0.5 (1 positive, 1 negative), 0.1 (2 negatives).
/// let s = roc_summary_of_groups([(1, 0), (1, 1), (0, 2)], 1.0)?;
/// let mut acc = RocAccumulator::new();
/// for (score, relevant) in [(0.9, true), (0.5, true), (0.5, false), (0.1, false), (0.1, false)] {
///     acc.push(score, relevant);
/// }
/// assert_eq!(s, acc.summary(1.0)?);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`RocAccumulator::summary`].
pub fn roc_summary_of_groups(
    groups: impl IntoIterator<Item = (u64, u64)>,
    max_fpr: f64,
) -> Result<RocSummary> {
    check_max_fpr(max_fpr)?;
    let groups: Vec<(u64, u64)> = groups.into_iter().collect();
    let n_pos: u64 = groups.iter().map(|g| g.0).sum();
    let n_neg: u64 = groups.iter().map(|g| g.1).sum();
    check_classes(n_pos as usize, n_neg as usize)?;
    let mut walk = AreaWalk::new(n_pos, n_neg, max_fpr);
    for (p, n) in groups {
        walk.add_group(p, n);
    }
    Ok(walk.summary())
}

pub(crate) fn check_classes(n_positives: usize, n_negatives: usize) -> Result<()> {
    if n_positives == 0 {
        return Err(MetricsError::Undefined { what: "ROC", reason: "no positive pair" });
    }
    if n_negatives == 0 {
        return Err(MetricsError::Undefined { what: "ROC", reason: "no negative pair" });
    }
    Ok(())
}

/// The exact curve of bucketed pairs.
fn curve_of(mut bucketed: Bucketed) -> Result<Curve> {
    let (n_pos, n_neg) = (bucketed.positives.len() as u64, bucketed.negatives.len() as u64);
    check_classes(bucketed.positives.len(), bucketed.negatives.len())?;
    bucketed.sort_buckets();
    let mut points = CurvePoints::default();
    walk_groups(&bucketed.positives, &bucketed.negatives, |p, n| points.add_group(p, n));
    Ok(points.curve(n_pos, n_neg))
}

/// The vertices of a ROC curve, one per tie group visited from the highest score down,
/// after the origin.
#[derive(Debug, Clone)]
pub(crate) struct CurvePoints {
    k: Vec<f64>,
    fp: Vec<f64>,
    tp: Vec<f64>,
    counts: (u64, u64),
}

impl Default for CurvePoints {
    fn default() -> Self {
        CurvePoints { k: vec![0.0], fp: vec![0.0], tp: vec![0.0], counts: (0, 0) }
    }
}

impl CurvePoints {
    /// The next group: `p` positives and `n` negatives tied.
    pub(crate) fn add_group(&mut self, p: u64, n: u64) {
        let (tp, fp) = (self.counts.0 + p, self.counts.1 + n);
        self.counts = (tp, fp);
        self.k.push((tp + fp) as f64);
        self.tp.push(tp as f64);
        self.fp.push(fp as f64);
    }

    pub(crate) fn curve(self, n_pos: u64, n_neg: u64) -> Curve {
        Curve::from_counts(self.k, self.fp, self.tp, n_pos, n_neg)
    }
}

/// AUC and partial AUC of bucketed pairs (see [`RocAccumulator::summary`]).
fn summary_of(mut bucketed: Bucketed, max_fpr: f64) -> Result<RocSummary> {
    let (n_pos, n_neg) = (bucketed.positives.len() as u64, bucketed.negatives.len() as u64);
    check_classes(bucketed.positives.len(), bucketed.negatives.len())?;
    let stats: Vec<BucketStats> = bucketed
        .buckets_mut()
        .into_par_iter()
        .map_init(Scratch::default, |scratch, (p, n)| bucket_stats(p, n, scratch))
        .collect();
    // From the highest bucket down; a bucket that would cross `max_fpr` is walked group
    // by group.
    let mut walk = AreaWalk::new(n_pos, n_neg, max_fpr);
    for (b, s) in stats.iter().enumerate().rev() {
        if !walk.add_block(s.area, s.positives, s.negatives) {
            let (p, n) = bucketed.bucket_mut(b);
            for_each_group(p, n, &mut Scratch::default(), |p, n| walk.add_group(p, n));
        }
    }
    Ok(walk.summary())
}

/// The areas of a ROC curve summed over its tie groups, visited from the highest score
/// down: the AUC numerator `Σ_groups neg_g · (2·tp_before + pos_g)` in exact integers,
/// and the partial area up to `max_fpr` — the same sum over the groups that end at a
/// false-alarm rate `<= max_fpr`, plus the trapezoid of the group crossing it, cut by
/// linear interpolation.
#[derive(Debug, Clone)]
pub(crate) struct AreaWalk {
    n_pos: u64,
    n_neg: u64,
    max_fpr: f64,
    numerator: u128,
    partial_numerator: u128,
    partial_cut: f64,
    tp: u64,
    fp: u64,
    /// Before the group crossing `max_fpr`.
    open: bool,
}

impl AreaWalk {
    pub(crate) fn new(n_pos: u64, n_neg: u64, max_fpr: f64) -> Self {
        AreaWalk {
            n_pos,
            n_neg,
            max_fpr,
            numerator: 0,
            partial_numerator: 0,
            partial_cut: 0.0,
            tp: 0,
            fp: 0,
            open: true,
        }
    }

    fn rate(count: u64, total: u64) -> f64 {
        count as f64 / total as f64
    }

    /// The next group: `p` positives and `n` negatives tied.
    pub(crate) fn add_group(&mut self, p: u64, n: u64) {
        let area = u128::from(n) * u128::from(2 * self.tp + p);
        self.numerator += area;
        if self.open {
            let (x0, x1) = (Self::rate(self.fp, self.n_neg), Self::rate(self.fp + n, self.n_neg));
            if x1 <= self.max_fpr {
                self.partial_numerator += area;
            } else {
                let y0 = Self::rate(self.tp, self.n_pos);
                let y1 = Self::rate(self.tp + p, self.n_pos);
                let y = y0 + (y1 - y0) * (self.max_fpr - x0) / (x1 - x0);
                self.partial_cut = (self.max_fpr - x0) * (y0 + y) / 2.0;
                self.open = false;
            }
        }
        self.tp += p;
        self.fp += n;
    }

    /// The next several groups at once, with `within` their area numerator counted from
    /// their own top. False, adding nothing, when the block would cross `max_fpr`: walk
    /// its groups instead.
    pub(crate) fn add_block(&mut self, within: u128, p: u64, n: u64) -> bool {
        let area = within + 2 * u128::from(n) * u128::from(self.tp);
        if self.open && Self::rate(self.fp, self.n_neg) < self.max_fpr {
            if Self::rate(self.fp + n, self.n_neg) > self.max_fpr {
                return false;
            }
            self.partial_numerator += area;
        }
        self.numerator += area;
        self.tp += p;
        self.fp += n;
        true
    }

    pub(crate) fn summary(self) -> RocSummary {
        let denominator = 2.0 * self.n_pos as f64 * self.n_neg as f64;
        RocSummary {
            auc: self.numerator as f64 / denominator,
            partial_auc: self.partial_numerator as f64 / denominator + self.partial_cut,
            max_fpr: self.max_fpr,
            n_positives: self.n_pos,
            n_negatives: self.n_neg,
        }
    }
}

/// Counts of one bucket and its area numerator `Σ_groups neg_g · (2·tp_before + pos_g)`,
/// with `tp_before` counted within the bucket.
#[derive(Debug, Clone, Copy)]
struct BucketStats {
    positives: u64,
    negatives: u64,
    area: u128,
}

/// Reused storage of the per-bucket work.
#[derive(Debug, Default)]
struct Scratch {
    sort: Vec<u32>,
    /// `[negatives, positives]` per key offset, for dense buckets.
    counts: Vec<[u32; 2]>,
}

/// A bucket is counted per key instead of sorted when its key range is at most
/// [`DENSE_RANGE`] keys wide (the counts stay in cache) and at most [`DENSE_FACTOR`] times
/// its number of keys.
const DENSE_RANGE: u64 = 1 << 16;
const DENSE_FACTOR: u64 = 4;

/// Sorts the bucket in place and calls `f(positives, negatives)` for each group of equal
/// keys, from the highest key down.
fn for_each_group(
    positives: &mut [u32],
    negatives: &mut [u32],
    scratch: &mut Scratch,
    f: impl FnMut(u64, u64),
) {
    sort_keys(positives, &mut scratch.sort);
    sort_keys(negatives, &mut scratch.sort);
    walk_groups(positives, negatives, f);
}

/// The counts and area numerator of one bucket. The area `Σ_groups neg_g · (2·tp_before +
/// pos_g)` is the number of (positive, negative) pairs won, counting 2 per strict win and
/// 1 per tie; within a bucket it is at most `2·P_b·N_b <= (P_b + N_b)² / 2`, so 64 bits
/// hold it below 2³² keys. A dense bucket is counted per key; another is sorted.
fn bucket_stats(
    positives: &mut [u32],
    negatives: &mut [u32],
    scratch: &mut Scratch,
) -> BucketStats {
    let (n_pos, n_neg) = (positives.len() as u64, negatives.len() as u64);
    let len = n_pos + n_neg;
    let mut stats = BucketStats { positives: n_pos, negatives: n_neg, area: 0 };
    if n_pos == 0 || n_neg == 0 {
        return stats;
    }
    if len >= 1 << 32 {
        let (mut area, mut tp) = (0u128, 0u64);
        for_each_group(positives, negatives, scratch, |p, n| {
            area += u128::from(n) * u128::from(2 * tp + p);
            tp += p;
        });
        stats.area = area;
        return stats;
    }
    let (lo, hi) = positives
        .iter()
        .chain(negatives.iter())
        .fold((u32::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let range = u64::from(hi - lo) + 1;
    let area = if range <= DENSE_RANGE && range <= DENSE_FACTOR * len {
        let counts = &mut scratch.counts;
        counts.clear();
        counts.resize(range as usize, [0, 0]);
        for &v in negatives.iter() {
            counts[(v - lo) as usize][0] += 1;
        }
        for &v in positives.iter() {
            counts[(v - lo) as usize][1] += 1;
        }
        let (mut area, mut tp) = (0u64, 0u64);
        for &[n, p] in counts.iter().rev() {
            let (n, p) = (u64::from(n), u64::from(p));
            area += n * (2 * tp + p);
            tp += p;
        }
        area
    } else {
        sort_keys(positives, &mut scratch.sort);
        sort_keys(negatives, &mut scratch.sort);
        negatives_below(positives, negatives, true) + negatives_below(positives, negatives, false)
    };
    stats.area = u128::from(area);
    stats
}

/// `Σ_{p in positives} #{negatives < p}` (`strict`) or `#{negatives <= p}`; both slices
/// sorted ascending. A branch-free merge: on equal keys the positive is taken first when
/// `strict`, the negative first otherwise.
fn negatives_below(positives: &[u32], negatives: &[u32], strict: bool) -> u64 {
    let (mut i, mut j, mut sum) = (0usize, 0usize, 0u64);
    while i < positives.len() && j < negatives.len() {
        let (a, b) = (positives[i], negatives[j]);
        let take = if strict { a <= b } else { a < b };
        sum += j as u64 * u64::from(take);
        i += usize::from(take);
        j += usize::from(!take);
    }
    sum + (positives.len() - i) as u64 * negatives.len() as u64
}

pub(crate) fn check_max_fpr(max_fpr: f64) -> Result<()> {
    if max_fpr > 0.0 && max_fpr <= 1.0 {
        Ok(())
    } else {
        Err(MetricsError::InvalidArgument {
            name: "max_fpr",
            value: max_fpr.to_string(),
            expected: "a number in (0, 1]",
        })
    }
}

/// Walks the groups of equal keys from the highest key down, calling `f(positives in
/// group, negatives in group)`. Both inputs are sorted ascending.
fn walk_groups(positives: &[u32], negatives: &[u32], mut f: impl FnMut(u64, u64)) {
    let (mut i, mut j) = (positives.len(), negatives.len());
    while i > 0 || j > 0 {
        let key = match (i, j) {
            (0, _) => negatives[j - 1],
            (_, 0) => positives[i - 1],
            _ => positives[i - 1].max(negatives[j - 1]),
        };
        let mut p = 0u64;
        while i > 0 && positives[i - 1] == key {
            i -= 1;
            p += 1;
        }
        let mut n = 0u64;
        while j > 0 && negatives[j - 1] == key {
            j -= 1;
            n += 1;
        }
        f(p, n);
    }
}

/// `len` pairs cut into parts of consecutive pairs, as many as [`n_parts_for`] asks for
/// (the last part may be shorter).
#[derive(Debug, Clone, Copy)]
struct Parts {
    len: usize,
    part_len: usize,
}

impl Parts {
    fn of(len: usize) -> Self {
        Parts { len, part_len: len.div_ceil(n_parts_for(len)) }
    }

    fn count(self) -> usize {
        self.len.div_ceil(self.part_len.max(1))
    }

    /// The pairs of part `part`.
    fn range(self, part: usize) -> Range<usize> {
        let start = part * self.part_len;
        start.min(self.len)..(start + self.part_len).min(self.len)
    }
}

/// The keys held by an accumulator, in parts of the concatenation positives ++ negatives.
struct KeyPairs<'a> {
    positives: &'a [u32],
    negatives: &'a [u32],
    parts: Parts,
}

impl Pairs for KeyPairs<'_> {
    fn n_parts(&self) -> usize {
        self.parts.count()
    }

    fn visit(&self, part: usize, mut f: impl FnMut(u32, bool)) {
        let Range { start, end } = self.parts.range(part);
        let p = self.positives.len();
        for &k in &self.positives[start.min(p)..end.min(p)] {
            f(k, true);
        }
        for &k in &self.negatives[start.max(p) - p..end.max(p) - p] {
            f(k, false);
        }
    }
}

/// Plain `(score, label)` slices of equal length, in parts.
struct FlatPairs<'a> {
    scores: &'a [f32],
    labels: &'a [bool],
    parts: Parts,
}

impl Pairs for FlatPairs<'_> {
    fn n_parts(&self) -> usize {
        self.parts.count()
    }

    fn visit(&self, part: usize, mut f: impl FnMut(u32, bool)) {
        let range = self.parts.range(part);
        for (&s, &l) in self.scores[range.clone()].iter().zip(&self.labels[range]) {
            f(score_key(s), l);
        }
    }
}

/// The candidates of a [`Scored`], in parts of consecutive users; relevant when
/// `grade >= threshold`.
struct ScoredPairs<'s, 'a> {
    scored: &'s Scored<'a>,
    threshold: f32,
    /// Part `i` holds the users at positions `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
}

impl<'s, 'a> ScoredPairs<'s, 'a> {
    fn new(scored: &'s Scored<'a>, threshold: f32) -> Self {
        let n = scored.scores().len();
        let target = n.div_ceil(n_parts_for(n)).max(1);
        let mut bounds = vec![0usize];
        let mut since = 0;
        for position in 0..scored.n_users() {
            since += scored.user(position).1.len();
            if since >= target {
                bounds.push(position + 1);
                since = 0;
            }
        }
        if *bounds.last().expect("starts with 0") < scored.n_users() {
            bounds.push(scored.n_users());
        }
        ScoredPairs { scored, threshold, bounds }
    }
}

impl Pairs for ScoredPairs<'_, '_> {
    fn n_parts(&self) -> usize {
        self.bounds.len() - 1
    }

    fn visit(&self, part: usize, mut f: impl FnMut(u32, bool)) {
        for position in self.bounds[part]..self.bounds[part + 1] {
            let (user, scores) = self.scored.user(position);
            for (&s, &g) in scores.iter().zip(user.grades) {
                f(score_key(s), g >= self.threshold);
            }
        }
    }
}

/// The exact pooled ROC curve of `scored`; candidates with `grade >= threshold` are
/// positives.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Scored, roc};
/// let mut builder = Judgments::builder(1, 4);
/// builder.push_user(0, &[0, 1, 2, 3], &[1.0, 0.0, 1.0, 0.0])?;
/// let judgments = builder.build()?;
/// let curve = roc(&Scored::new(&judgments, &[0.9, 0.8, 0.3, 0.1])?, 1.0)?;
/// assert_eq!(curve.points(), vec![[0.0, 0.0], [0.0, 0.5], [0.5, 0.5], [0.5, 1.0], [1.0, 1.0]]);
/// assert!((curve.auc() - 0.75).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] without a positive or without a negative pair.
pub fn roc(scored: &Scored<'_>, threshold: f32) -> Result<Curve> {
    curve_of(bucket_pairs(&ScoredPairs::new(scored, threshold)))
}

/// Pooled ROC AUC and partial AUC up to `max_fpr` without storing the curve.
///
/// # Errors
/// As [`RocAccumulator::summary`].
pub fn roc_summary(scored: &Scored<'_>, threshold: f32, max_fpr: f64) -> Result<RocSummary> {
    check_max_fpr(max_fpr)?;
    summary_of(bucket_pairs(&ScoredPairs::new(scored, threshold)), max_fpr)
}

/// An area under the order of tied scores the metric assumes (the expectation over every
/// order: ties count one half) and under the two extreme orders of tied candidates:
/// positives before negatives (`best`) and after them (`worst`). Every order of the ties
/// gives an area in `[worst, best]`, so a conclusion that holds at both ends holds under
/// any tie order.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TieBounds {
    /// The area with ties as expected values.
    pub expected: f64,
    /// The area when every tie group puts its positives first.
    pub best: f64,
    /// The area when every tie group puts its positives last.
    pub worst: f64,
}

/// The pooled ROC AUC under the expected, the best and the worst order of tied scores
/// ([`TieBounds`]). Exact from the counts: with `P` positives, `N` negatives and `p_g`,
/// `n_g` of them in tie group `g`, the extreme orders move the area by
/// `± Σ_g p_g n_g / (2 P N)`.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Scored, roc_tie_bounds};
///
/// // One user: a positive and a negative tied at 0.5, a negative below.
/// let mut b = Judgments::builder(1, 3);
/// b.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0])?;
/// let judgments = b.build()?;
/// let bounds = roc_tie_bounds(&Scored::new(&judgments, &[0.5, 0.5, 0.1])?, 1.0)?;
/// assert_eq!((bounds.worst, bounds.expected, bounds.best), (0.5, 0.75, 1.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] without a positive or without a negative pair.
pub fn roc_tie_bounds(scored: &Scored<'_>, threshold: f32) -> Result<TieBounds> {
    let expected = roc_summary(scored, threshold, 1.0)?.auc;
    let mut bucketed = bucket_pairs(&ScoredPairs::new(scored, threshold));
    let (p, n) = (bucketed.positives.len() as f64, bucketed.negatives.len() as f64);
    let tied: u128 = bucketed
        .buckets_mut()
        .into_par_iter()
        .map_init(Scratch::default, |scratch, (positives, negatives)| {
            let mut tied = 0u128;
            for_each_group(positives, negatives, scratch, |gp, gn| {
                tied += u128::from(gp) * u128::from(gn);
            });
            tied
        })
        .sum();
    let half = tied as f64 / (2.0 * p * n);
    Ok(TieBounds { expected, best: expected + half, worst: expected - half })
}

/// ROC AUC of plain `(score, label)` pairs: the Mann–Whitney statistic with ties counting
/// 1/2, equal to scikit-learn's `roc_auc_score`.
///
/// # Errors
/// [`MetricsError::ScoreLength`] on mismatched lengths; [`MetricsError::Undefined`]
/// without both classes.
pub fn roc_auc(scores: &[f32], labels: &[bool]) -> Result<f64> {
    if scores.len() != labels.len() {
        return Err(MetricsError::ScoreLength { expected: labels.len(), found: scores.len() });
    }
    let pairs = FlatPairs { scores, labels, parts: Parts::of(scores.len()) };
    Ok(summary_of(bucket_pairs(&pairs), 1.0)?.auc)
}

/// The ROC of the omniscient recommender: `(0, 0)`, `(0, 1)`, `(1, 1)`.
pub fn omniscient_roc(n_positives: u64, n_negatives: u64) -> Curve {
    let (p, n) = (n_positives as f64, n_negatives as f64);
    Curve::from_counts(
        vec![0.0, p, p + n],
        vec![0.0, 0.0, n],
        vec![0.0, p, p],
        n_positives,
        n_negatives,
    )
}

/// The expected ROC of a random recommender: the diagonal from `(0, 0)` to `(1, 1)`.
pub fn random_roc(n_positives: u64, n_negatives: u64) -> Curve {
    let (p, n) = (n_positives as f64, n_negatives as f64);
    Curve::from_counts(vec![0.0, p + n], vec![0.0, n], vec![0.0, p], n_positives, n_negatives)
}

/// Per-user ROC AUC (Mann–Whitney within each user, ties 1/2), averaged over the users
/// that have both a positive and a negative candidate. Returns `(mean, users averaged)`.
/// Distinct from the pooled AUC of [`roc`], which ranks all users' pairs together.
///
/// # Errors
/// [`MetricsError::Undefined`] when no user has both classes.
pub fn user_averaged_auc(scored: &Scored<'_>, threshold: f32) -> Result<(f64, usize)> {
    let per_user: Vec<Option<f64>> = (0..scored.n_users())
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(positives, negatives), position| {
                let (user, scores) = scored.user(position);
                positives.clear();
                negatives.clear();
                for (&g, &s) in user.grades.iter().zip(scores) {
                    if g >= threshold {
                        positives.push(score_key(s))
                    } else {
                        negatives.push(score_key(s))
                    }
                }
                if positives.is_empty() || negatives.is_empty() {
                    return None;
                }
                positives.sort_unstable();
                negatives.sort_unstable();
                // Pairs won, 2 per strict win and 1 per tie (each count < 2⁶⁴).
                let wins = u128::from(negatives_below(positives, negatives, true))
                    + u128::from(negatives_below(positives, negatives, false));
                Some(wins as f64 / (2.0 * positives.len() as f64 * negatives.len() as f64))
            },
        )
        .collect();
    let values: Vec<f64> = per_user.into_iter().flatten().collect();
    Ok((mean_user_auc(&values)?, values.len()))
}

/// The mean of per-user AUCs in user order.
///
/// # Errors
/// [`MetricsError::Undefined`] for no value (no user has both classes).
pub(crate) fn mean_user_auc(values: &[f64]) -> Result<f64> {
    if values.is_empty() {
        return Err(MetricsError::Undefined {
            what: "per-user AUC",
            reason: "no user has both a positive and a negative candidate",
        });
    }
    Ok(values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_serialised_accumulator_merges_to_the_single_pass_summary() {
        let pairs = [(0.9, true), (0.5, false), (0.5, true), (f32::NAN, false), (0.1, false)];
        let mut all = RocAccumulator::new();
        let (mut left, mut right) = (RocAccumulator::new(), RocAccumulator::new());
        for (k, &(s, l)) in pairs.iter().enumerate() {
            all.push(s, l);
            if k % 2 == 0 { left.push(s, l) } else { right.push(s, l) }
        }
        let text = serde_json::to_string(&right).unwrap();
        let again: RocAccumulator = serde_json::from_str(&text).unwrap();
        assert_eq!(again, right);
        left.merge(again);
        let (a, b) = (left.summary(0.3).unwrap(), all.summary(0.3).unwrap());
        assert_eq!(
            (a.auc.to_bits(), a.partial_auc.to_bits()),
            (b.auc.to_bits(), b.partial_auc.to_bits())
        );
    }

    use super::*;
    use proptest::prelude::*;

    /// Brute-force Mann–Whitney over all (positive, negative) pairs.
    fn brute_auc(scores: &[f32], labels: &[bool]) -> f64 {
        let mut wins = 0.0;
        let mut pairs = 0.0;
        for (i, &a) in scores.iter().enumerate() {
            for (j, &b) in scores.iter().enumerate() {
                if labels[i] && !labels[j] {
                    pairs += 1.0;
                    if a > b {
                        wins += 1.0;
                    } else if a == b {
                        wins += 0.5;
                    }
                }
            }
        }
        wins / pairs
    }

    #[test]
    fn hand_computed_with_ties() {
        // Scores 3 (+), 2 (+), 2 (-), 1 (-): pairs (3,2-) win, (3,1) win, (2+,2-) half,
        // (2+,1) win: 3.5 / 4.
        let auc = roc_auc(&[3.0, 2.0, 2.0, 1.0], &[true, true, false, false]).unwrap();
        assert_eq!(auc, 0.875);
        let mut acc = RocAccumulator::new();
        for (s, l) in [(3.0, true), (2.0, true), (2.0, false), (1.0, false)] {
            acc.push(s, l);
        }
        let curve = acc.curve().unwrap();
        assert_eq!(curve.points(), vec![[0.0, 0.0], [0.0, 0.5], [0.5, 1.0], [1.0, 1.0]]);
        assert_eq!(curve.auc(), 0.875);
    }

    #[test]
    fn partial_auc_of_perfect_and_diagonal() {
        let s = roc_auc(&[1.0, 0.0], &[true, false]).unwrap();
        assert_eq!(s, 1.0);
        let mut acc = RocAccumulator::new();
        acc.push(1.0, true);
        acc.push(0.0, false);
        let summary = acc.summary(0.3).unwrap();
        assert!((summary.partial_auc - 0.3).abs() < 1e-15);
        let mut acc = RocAccumulator::new();
        acc.push(1.0, true);
        acc.push(1.0, false);
        let summary = acc.summary(0.3).unwrap();
        assert!((summary.partial_auc - 0.045).abs() < 1e-15);
        assert!(acc_clone_partial_matches());
    }

    fn acc_clone_partial_matches() -> bool {
        let mut acc = RocAccumulator::new();
        for (s, l) in [(0.9, true), (0.8, false), (0.7, true), (0.6, false), (0.5, false)] {
            acc.push(s, l);
        }
        let summary = acc.clone().summary(0.3).unwrap();
        let curve = acc.curve().unwrap();
        (summary.partial_auc - curve.partial_auc(0.3)).abs() < 1e-15
            && (summary.auc - curve.auc()).abs() < 1e-15
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        assert!(roc_auc(&[1.0], &[true]).is_err());
        assert!(roc_auc(&[1.0], &[false]).is_err());
        assert!(roc_auc(&[1.0, 2.0], &[false]).is_err());
        let mut acc = RocAccumulator::new();
        acc.push(1.0, true);
        acc.push(0.0, false);
        assert!(acc.summary(0.0).is_err());
    }

    #[test]
    fn user_averaged_auc_hand_computed() {
        // User 0: the positive (0.9) beats 0.5 and ties 0.9 → 0.75. User 1: the positive
        // 0.2 loses to 0.4 → 0. User 2 has no negative and is left out.
        let mut builder = recs_core::Judgments::builder(3, 3);
        builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0]).unwrap();
        builder.push_user(1, &[0, 1], &[1.0, 0.0]).unwrap();
        builder.push_user(2, &[0], &[1.0]).unwrap();
        let judgments = builder.build().unwrap();
        let scores = [0.9, 0.5, 0.9, 0.2, 0.4, 0.1];
        let scored = Scored::new(&judgments, &scores).unwrap();
        assert_eq!(user_averaged_auc(&scored, 1.0).unwrap(), (0.375, 2));
        let mut builder = recs_core::Judgments::builder(1, 1);
        builder.push_user(0, &[0], &[1.0]).unwrap();
        let judgments = builder.build().unwrap();
        assert!(user_averaged_auc(&Scored::new(&judgments, &[0.3]).unwrap(), 1.0).is_err());
    }

    #[test]
    fn missing_scores_rank_lowest() {
        let auc = roc_auc(&[f32::NAN, f32::NEG_INFINITY], &[false, true]).unwrap();
        assert_eq!(auc, 1.0);
    }

    fn pairs() -> impl Strategy<Value = (Vec<f32>, Vec<bool>)> {
        proptest::collection::vec((0u8..12, any::<bool>()), 2..200).prop_map(|v| {
            let mut v = v;
            v[0].1 = true;
            v[1].1 = false;
            (v.iter().map(|p| f32::from(p.0) / 4.0).collect(), v.iter().map(|p| p.1).collect())
        })
    }

    proptest! {
        #[test]
        fn auc_equals_mann_whitney((scores, labels) in pairs()) {
            let auc = roc_auc(&scores, &labels).unwrap();
            prop_assert!((auc - brute_auc(&scores, &labels)).abs() < 1e-12);
            let mut acc = RocAccumulator::new();
            for (&s, &l) in scores.iter().zip(&labels) { acc.push(s, l); }
            let curve = acc.curve().unwrap();
            prop_assert!((curve.auc() - auc).abs() < 1e-12);
            let pts = curve.points();
            prop_assert_eq!(pts[0], [0.0, 0.0]);
            prop_assert_eq!(*pts.last().unwrap(), [1.0, 1.0]);
        }

        #[test]
        fn monotone_transform_keeps_auc((scores, labels) in pairs()) {
            let auc = roc_auc(&scores, &labels).unwrap();
            let transformed: Vec<f32> = scores.iter().map(|&s| (s * 3.0 - 7.0).exp()).collect();
            prop_assert_eq!(roc_auc(&transformed, &labels).unwrap(), auc);
        }

        #[test]
        fn reversed_scores_give_one_minus_auc((scores, labels) in pairs()) {
            let auc = roc_auc(&scores, &labels).unwrap();
            let reversed: Vec<f32> = scores.iter().map(|&s| -s).collect();
            prop_assert!((roc_auc(&reversed, &labels).unwrap() - (1.0 - auc)).abs() < 1e-12);
        }

        #[test]
        fn merging_shards_equals_all_at_once((scores, labels) in pairs(), cut in 0usize..200) {
            let cut = cut.min(scores.len());
            let mut all = RocAccumulator::new();
            let mut left = RocAccumulator::new();
            let mut right = RocAccumulator::new();
            for (i, (&s, &l)) in scores.iter().zip(&labels).enumerate() {
                all.push(s, l);
                if i < cut { left.push(s, l) } else { right.push(s, l) }
            }
            right.merge(left);
            prop_assert_eq!(right.curve().unwrap(), all.curve().unwrap());
        }
    }
}
