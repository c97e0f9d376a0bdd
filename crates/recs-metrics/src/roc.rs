//! The pooled ROC curve (schein2005 §3.1): one ranked list of every (user, candidate) pair.

use rayon::prelude::*;

use crate::curve::{Curve, trapezoid};
use crate::error::{MetricsError, Result};
use crate::scored::{Scored, radix_sort, score_key};

/// Collects (score, label) pairs for a pooled ROC curve.
///
/// Pairs are kept as two arrays of order-preserving score keys, one for positives and
/// one for negatives, so accumulators [`merge`](RocAccumulator::merge) exactly in any
/// order: the result never depends on how pairs were split or in which order they came.
#[derive(Debug, Clone, Default)]
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

    fn sorted(mut self) -> Result<(Vec<u32>, Vec<u32>)> {
        if self.positives.is_empty() {
            return Err(MetricsError::Undefined { what: "ROC", reason: "no positive pair" });
        }
        if self.negatives.is_empty() {
            return Err(MetricsError::Undefined { what: "ROC", reason: "no negative pair" });
        }
        rayon::join(|| radix_sort(&mut self.positives), || radix_sort(&mut self.negatives));
        Ok((self.positives, self.negatives))
    }

    /// The exact curve: one point per group of equal scores, from `(0, 0)` to `(1, 1)`.
    ///
    /// # Errors
    /// [`MetricsError::Undefined`] without a positive or without a negative pair.
    pub fn curve(self) -> Result<Curve> {
        let (positives, negatives) = self.sorted()?;
        let (n_pos, n_neg) = (positives.len() as u64, negatives.len() as u64);
        let mut k = vec![0.0];
        let mut fp = vec![0.0];
        let mut tp = vec![0.0];
        let (mut tp_count, mut fp_count) = (0u64, 0u64);
        walk_groups(&positives, &negatives, |p, n| {
            tp_count += p;
            fp_count += n;
            k.push((tp_count + fp_count) as f64);
            tp.push(tp_count as f64);
            fp.push(fp_count as f64);
        });
        Ok(Curve::from_counts(k, fp, tp, n_pos, n_neg))
    }

    /// AUC and partial AUC up to `max_fpr`, in one pass over the sorted pairs. The AUC is
    /// computed in exact integer arithmetic, `Σ_groups neg_g · (2·tp_before + pos_g) /
    /// (2·P·N)`, and rounded once.
    ///
    /// # Errors
    /// [`MetricsError::Undefined`] without a positive or without a negative pair;
    /// [`MetricsError::InvalidArgument`] when `max_fpr` is not in `(0, 1]`.
    pub fn summary(self, max_fpr: f64) -> Result<RocSummary> {
        check_max_fpr(max_fpr)?;
        let (positives, negatives) = self.sorted()?;
        let (n_pos, n_neg) = (positives.len() as u64, negatives.len() as u64);
        let mut numerator: u128 = 0;
        let mut tp_count = 0u64;
        let mut fp_count = 0u64;
        let mut partial = 0.0;
        let mut last = [0.0, 0.0];
        let limit_fp = max_fpr * n_neg as f64;
        walk_groups(&positives, &negatives, |p, n| {
            numerator += u128::from(n) * u128::from(2 * tp_count + p);
            let was_below = (fp_count as f64) < limit_fp;
            tp_count += p;
            fp_count += n;
            if was_below {
                let point = [fp_count as f64 / n_neg as f64, tp_count as f64 / n_pos as f64];
                partial += trapezoid(&[last, point], max_fpr);
                last = point;
            }
        });
        let auc = numerator as f64 / (2.0 * n_pos as f64 * n_neg as f64);
        Ok(RocSummary {
            auc,
            partial_auc: partial,
            max_fpr,
            n_positives: n_pos,
            n_negatives: n_neg,
        })
    }
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

fn accumulate(scored: &Scored<'_>, threshold: f32) -> RocAccumulator {
    (0..scored.n_users())
        .into_par_iter()
        .fold(RocAccumulator::new, |mut acc, position| {
            let (user, scores) = scored.user(position);
            acc.push_user(user.grades, scores, threshold);
            acc
        })
        .reduce(RocAccumulator::new, |mut a, b| {
            a.merge(b);
            a
        })
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
    accumulate(scored, threshold).curve()
}

/// Pooled ROC AUC and partial AUC up to `max_fpr` without storing the curve.
///
/// # Errors
/// As [`RocAccumulator::summary`].
pub fn roc_summary(scored: &Scored<'_>, threshold: f32, max_fpr: f64) -> Result<RocSummary> {
    accumulate(scored, threshold).summary(max_fpr)
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
    let mut acc = RocAccumulator::new();
    for (&s, &l) in scores.iter().zip(labels) {
        acc.push(s, l);
    }
    Ok(acc.summary(1.0)?.auc)
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
        .map(|position| {
            let (user, scores) = scored.user(position);
            let mut acc = RocAccumulator::new();
            acc.push_user(user.grades, scores, threshold);
            acc.summary(1.0).ok().map(|s| s.auc)
        })
        .collect();
    let values: Vec<f64> = per_user.into_iter().flatten().collect();
    if values.is_empty() {
        return Err(MetricsError::Undefined {
            what: "per-user AUC",
            reason: "no user has both a positive and a negative candidate",
        });
    }
    Ok((values.iter().sum::<f64>() / values.len() as f64, values.len()))
}

#[cfg(test)]
mod tests {
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
