//! The ROC1 / ROC2 techniques and the withheld-item rank of cremonesi2008 §3.2–3.3, and
//! the rating-error metrics.

use crate::error::{MetricsError, Result};
use crate::scored::{Ranking, Scored, TieBreak};

/// Counts of a binary classification (expected values when ties are cut).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Confusion {
    /// True positives.
    pub tp: f64,
    /// False positives.
    pub fp: f64,
    /// False negatives.
    pub fn_: f64,
    /// True negatives.
    pub tn: f64,
}

impl Confusion {
    /// `tp / (tp + fn)`; `NaN` when there is no positive.
    pub fn tpr(&self) -> f64 {
        self.tp / (self.tp + self.fn_)
    }

    /// `fp / (fp + tn)`; `NaN` when there is no negative.
    pub fn fpr(&self) -> f64 {
        self.fp / (self.fp + self.tn)
    }

    fn add(&mut self, other: &Confusion) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
        self.tn += other.tn;
    }
}

/// One ROC1 point: the threshold and its confusion counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roc1Point {
    /// The threshold `t` on the rating scale.
    pub threshold: f32,
    /// Counts pooled over all (user, candidate) pairs.
    pub counts: Confusion,
}

/// ROC1 (cremonesi2008 §3.2, explicit ratings): for each threshold `t`, a pair is
/// recommended when `predicted ≥ t` and good when `actual ≥ t`. Counts are pooled over
/// the pairs; sweeping `t` gives the curve `(fpr, tpr)`. Missing (`NaN`) predictions are
/// never recommended.
///
/// ```
/// use recs_metrics::roc1;
/// // cremonesi2008 Figure 1.
/// let predicted = [3.2, 1.5, 4.9, 0.6, 1.5, 2.3, 0.9];
/// let actual = [3.0, 3.0, 5.0, 2.0, 0.0, 1.0, 0.0];
/// let point = roc1(&predicted, &actual, &[2.0])?[0];
/// assert_eq!((point.counts.tp, point.counts.fp, point.counts.fn_, point.counts.tn), (2.0, 1.0, 2.0, 2.0));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::ScoreLength`] when the slices differ in length.
pub fn roc1(predicted: &[f32], actual: &[f32], thresholds: &[f32]) -> Result<Vec<Roc1Point>> {
    if predicted.len() != actual.len() {
        return Err(MetricsError::ScoreLength { expected: actual.len(), found: predicted.len() });
    }
    Ok(thresholds
        .iter()
        .map(|&t| {
            let mut c = Confusion::default();
            for (&p, &a) in predicted.iter().zip(actual) {
                match (p >= t, a >= t) {
                    (true, true) => c.tp += 1.0,
                    (true, false) => c.fp += 1.0,
                    (false, true) => c.fn_ += 1.0,
                    (false, false) => c.tn += 1.0,
                }
            }
            Roc1Point { threshold: t, counts: c }
        })
        .collect())
}

/// One ROC2 point: the list length `N` and its rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roc2Point {
    /// Number of recommendations per user.
    pub n: usize,
    /// Counts summed over users ("pooled").
    pub pooled: Confusion,
    /// TPR averaged over users with a relevant candidate.
    pub mean_tpr: f64,
    /// FPR averaged over users with a non-relevant candidate.
    pub mean_fpr: f64,
}

/// The confusion counts of one user's top-`n` list (cremonesi2008 §3.2, ROC2, Figure 2):
/// TP = relevant in the top `n` (expected value across a cut tie group),
/// FP = `min(n, candidates)` − TP, FN = relevant − TP, TN = the rest.
pub fn top_n_confusion(grades: &[f32], scores: &[f32], n: usize, threshold: f32) -> Confusion {
    let mut ranking = Ranking::default();
    user_confusion(&mut ranking, grades, scores, n, threshold)
}

fn user_confusion(
    ranking: &mut Ranking,
    grades: &[f32],
    scores: &[f32],
    n: usize,
    threshold: f32,
) -> Confusion {
    ranking.rank(scores, Some(n), TieBreak::Expected);
    let groups = relevant_groups(ranking, grades, n, threshold);
    confusion_at(&groups, grades, n, threshold)
}

/// The confusion counts of one user's top-`n` lists for every `n` in `1..=max_n`,
/// ranking the candidates once: entry `n − 1` equals [`top_n_confusion`] at `n`. For a
/// whole ROC2 curve of one user.
///
/// ```
/// use recs_metrics::{top_n_confusion, top_n_confusions};
/// let grades = [1.0, 0.0, 1.0, 0.0];
/// let scores = [0.9, 0.5, 0.5, 0.1];
/// let curve = top_n_confusions(&grades, &scores, 4, 1.0);
/// assert_eq!(curve[1], top_n_confusion(&grades, &scores, 2, 1.0));
/// // The top 2 cuts the tie of items 1 and 2 in half: TP = 1 + 1/2.
/// assert_eq!(curve[1].tp, 1.5);
/// ```
pub fn top_n_confusions(
    grades: &[f32],
    scores: &[f32],
    max_n: usize,
    threshold: f32,
) -> Vec<Confusion> {
    let mut ranking = Ranking::default();
    ranking.rank(scores, Some(max_n), TieBreak::Expected);
    let groups = relevant_groups(&ranking, grades, max_n, threshold);
    (1..=max_n).map(|n| confusion_at(&groups, grades, n, threshold)).collect()
}

/// `(start, len, relevant members)` of the tie groups of `ranking` that start above
/// position `n`.
fn relevant_groups(
    ranking: &Ranking,
    grades: &[f32],
    n: usize,
    threshold: f32,
) -> Vec<(usize, usize, usize)> {
    ranking
        .groups
        .iter()
        .take_while(|&&(start, _)| start < n)
        .map(|&(start, len)| {
            let members = &ranking.order[start..start + len];
            (start, len, members.iter().filter(|&&i| grades[i as usize] >= threshold).count())
        })
        .collect()
}

/// The counts of the top `n` from the groups of [`relevant_groups`] (ranked to at least
/// `n`): TP is the expected number of relevant candidates in the top `n`, a group cut by
/// the boundary contributing in proportion to the share of it taken.
fn confusion_at(
    groups: &[(usize, usize, usize)],
    grades: &[f32],
    n: usize,
    threshold: f32,
) -> Confusion {
    let mut tp = 0.0;
    for &(start, len, relevant) in groups {
        if start >= n {
            break;
        }
        let taken = (n - start).min(len);
        tp += relevant as f64 * taken as f64 / len as f64;
    }
    let relevant = grades.iter().filter(|&&g| g >= threshold).count() as f64;
    let recommended = n.min(grades.len()) as f64;
    let fp = recommended - tp;
    let fn_ = relevant - tp;
    let tn = grades.len() as f64 - tp - fp - fn_;
    Confusion { tp, fp, fn_, tn }
}

/// ROC2 (cremonesi2008 §3.2): for each `N` in `ns`, every user's top `N` is recommended;
/// the pooled variant sums counts over users, the averaged one averages per-user rates.
pub fn roc2(scored: &Scored<'_>, ns: &[usize], threshold: f32) -> Vec<Roc2Point> {
    let mut ranking = Ranking::default();
    ns.iter()
        .map(|&n| {
            let mut pooled = Confusion::default();
            let (mut tpr_sum, mut tpr_users, mut fpr_sum, mut fpr_users) = (0.0, 0, 0.0, 0);
            for position in 0..scored.n_users() {
                let (user, scores) = scored.user(position);
                let c = user_confusion(&mut ranking, user.grades, scores, n, threshold);
                pooled.add(&c);
                if c.tp + c.fn_ > 0.0 {
                    tpr_sum += c.tpr();
                    tpr_users += 1;
                }
                if c.fp + c.tn > 0.0 {
                    fpr_sum += c.fpr();
                    fpr_users += 1;
                }
            }
            Roc2Point {
                n,
                pooled,
                mean_tpr: tpr_sum / tpr_users as f64,
                mean_fpr: fpr_sum / fpr_users as f64,
            }
        })
        .collect()
}

/// The rank of a withheld item among a user's other candidates (cremonesi2008 §3.3):
/// `above` candidates score strictly higher and `tied` others score the same, so under a
/// random tie order the rank is uniform on `above + 1 ..= above + tied + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithheldRank {
    /// Dense user index.
    pub user: u32,
    /// Dense item index of the withheld item.
    pub item: u32,
    /// Non-relevant candidates scoring strictly higher.
    pub above: usize,
    /// Non-relevant candidates scoring the same.
    pub tied: usize,
}

impl WithheldRank {
    /// The expected 1-based rank, `above + 1 + tied / 2`.
    pub fn expected_rank(&self) -> f64 {
        self.above as f64 + 1.0 + self.tied as f64 / 2.0
    }

    /// The probability that the rank is at most `n`: a hit in a top-`n` list.
    pub fn hit_probability(&self, n: usize) -> f64 {
        let span = (self.tied + 1) as f64;
        ((n as f64 - self.above as f64) / span).clamp(0.0, 1.0)
    }
}

/// The rank of every relevant candidate among its user's non-relevant candidates
/// (relevant candidates do not compete with each other), in user then item order.
pub fn withheld_ranks(scored: &Scored<'_>, threshold: f32) -> Vec<WithheldRank> {
    let mut out = Vec::new();
    let mut negatives = Vec::new();
    for position in 0..scored.n_users() {
        let (user, scores) = scored.user(position);
        negatives.clear();
        negatives.extend(
            user.grades
                .iter()
                .zip(scores)
                .filter(|(g, _)| **g < threshold)
                .map(|(_, &s)| crate::scored::score_key(s)),
        );
        negatives.sort_unstable();
        for ((&item, &grade), &score) in user.items.iter().zip(user.grades).zip(scores) {
            if grade < threshold {
                continue;
            }
            let key = crate::scored::score_key(score);
            let below_or_equal = negatives.partition_point(|&k| k <= key);
            let below = negatives.partition_point(|&k| k < key);
            out.push(WithheldRank {
                user: user.user,
                item,
                above: negatives.len() - below_or_equal,
                tied: below_or_equal - below,
            });
        }
    }
    out
}

/// Recall at `n` from withheld-item ranks (cremonesi2008 §3.3): the mean hit probability.
/// `None` without ranks.
pub fn recall_from_ranks(ranks: &[WithheldRank], n: usize) -> Option<f64> {
    if ranks.is_empty() {
        return None;
    }
    Some(ranks.iter().map(|r| r.hit_probability(n)).sum::<f64>() / ranks.len() as f64)
}

/// Mean absolute, mean squared and root mean squared error of predicted vs actual
/// ratings (schein2005 §7.3 eq. 11 for MAE). Pairs with a `NaN` prediction are skipped
/// and counted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingErrors {
    /// Mean absolute error.
    pub mae: f64,
    /// Mean squared error.
    pub mse: f64,
    /// Root mean squared error.
    pub rmse: f64,
    /// Pairs used.
    pub n: usize,
    /// Pairs skipped for a missing prediction.
    pub n_missing: usize,
}

/// Rating errors over aligned slices.
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::Undefined`] when
/// no pair has a prediction.
pub fn rating_errors(predicted: &[f32], actual: &[f32]) -> Result<RatingErrors> {
    if predicted.len() != actual.len() {
        return Err(MetricsError::ScoreLength { expected: actual.len(), found: predicted.len() });
    }
    let (mut abs, mut sq, mut n, mut missing) = (0.0, 0.0, 0usize, 0usize);
    for (&p, &a) in predicted.iter().zip(actual) {
        if p.is_nan() {
            missing += 1;
            continue;
        }
        let e = f64::from(p) - f64::from(a);
        abs += e.abs();
        sq += e * e;
        n += 1;
    }
    if n == 0 {
        return Err(MetricsError::Undefined { what: "rating error", reason: "no predicted pair" });
    }
    let mse = sq / n as f64;
    Ok(RatingErrors { mae: abs / n as f64, mse, rmse: mse.sqrt(), n, n_missing: missing })
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::Judgments;

    /// cremonesi2008 Figure 1: t = 2 gives TP FN TP FN TN FP TN.
    #[test]
    fn cremonesi2008_figure_1() {
        let predicted = [3.2, 1.5, 4.9, 0.6, 1.5, 2.3, 0.9];
        let actual = [3.0, 3.0, 5.0, 2.0, 0.0, 1.0, 0.0];
        let expected = ["TP", "FN", "TP", "FN", "TN", "FP", "TN"];
        for (i, label) in expected.iter().enumerate() {
            let c = roc1(&predicted[i..=i], &actual[i..=i], &[2.0]).unwrap()[0].counts;
            let got = match (c.tp, c.fp, c.fn_, c.tn) {
                (1.0, _, _, _) => "TP",
                (_, 1.0, _, _) => "FP",
                (_, _, 1.0, _) => "FN",
                _ => "TN",
            };
            assert_eq!(got, *label, "item {i}");
        }
        let all = roc1(&predicted, &actual, &[2.0]).unwrap()[0].counts;
        assert_eq!(all.tpr(), 0.5);
        assert_eq!(all.fpr(), 1.0 / 3.0);
    }

    /// cremonesi2008 Figure 2: 12 candidates, N = 5, 7 withheld, 3 of them in the top 5
    /// → TP 3, FP 2, FN 4, TN 3.
    #[test]
    fn cremonesi2008_figure_2() {
        // Positions of the items 1..12 in the figure's order: 10 5 2 7 3 4 6 1 12 11 9 8;
        // withheld items 1 5 2 7 3 ... here: withheld = {5, 2, 3, 1, 12, 9, 8}: 3 of them
        // (5, 2, 3) in the top five 10 5 2 7 3.
        let order = [10u32, 5, 2, 7, 3, 4, 6, 1, 12, 11, 9, 8];
        let withheld = [5u32, 2, 3, 1, 12, 9, 8];
        let mut grades = vec![0.0f32; 12];
        let mut scores = vec![0.0f32; 12];
        for (rank, &item) in order.iter().enumerate() {
            scores[(item - 1) as usize] = (12 - rank) as f32;
        }
        for &item in &withheld {
            grades[(item - 1) as usize] = 1.0;
        }
        let c = top_n_confusion(&grades, &scores, 5, 1.0);
        assert_eq!((c.tp, c.fp, c.fn_, c.tn), (3.0, 2.0, 4.0, 3.0));
        let mut b = Judgments::builder(1, 12);
        b.push_user(0, &(0..12).collect::<Vec<u32>>(), &grades).unwrap();
        let j = b.build().unwrap();
        let points = roc2(&Scored::new(&j, &scores).unwrap(), &[5, 12], 1.0);
        assert_eq!(points[0].pooled, c);
        assert_eq!(points[0].mean_tpr, 3.0 / 7.0);
        assert_eq!(points[0].mean_fpr, 2.0 / 5.0);
        assert_eq!((points[1].mean_tpr, points[1].mean_fpr), (1.0, 1.0));
    }

    /// One ranking for every list length gives what ranking once per length gives, ties
    /// and lists longer than the candidates included.
    #[test]
    fn top_n_confusions_equal_one_list_length_at_a_time() {
        let mut state = 7u64;
        for len in [1usize, 2, 5, 17, 40] {
            let draw = |state: &mut u64, k: u64| (recs_core::splitmix64(state) % k) as f32;
            let scores: Vec<f32> = (0..len).map(|_| draw(&mut state, 6)).collect();
            let grades: Vec<f32> = (0..len).map(|_| draw(&mut state, 3)).collect();
            let max_n = len + 3;
            let curve = top_n_confusions(&grades, &scores, max_n, 1.0);
            assert_eq!(curve.len(), max_n);
            for n in 1..=max_n {
                assert_eq!(curve[n - 1], top_n_confusion(&grades, &scores, n, 1.0), "{len} {n}");
            }
        }
    }

    #[test]
    fn withheld_ranks_and_recall() {
        let mut b = Judgments::builder(1, 5);
        b.push_user(0, &[0, 1, 2, 3, 4], &[1.0, 0.0, 0.0, 1.0, 0.0]).unwrap();
        let j = b.build().unwrap();
        // Item 0 ties with one negative below one negative; item 3 tops everything.
        let scored = Scored::new(&j, &[0.5, 0.9, 0.5, 1.0, 0.1]).unwrap();
        let ranks = withheld_ranks(&scored, 1.0);
        assert_eq!(ranks.len(), 2);
        assert_eq!((ranks[0].above, ranks[0].tied), (1, 1));
        assert_eq!(ranks[0].expected_rank(), 2.5);
        assert_eq!((ranks[1].above, ranks[1].tied), (0, 0));
        assert_eq!(recall_from_ranks(&ranks, 1), Some(0.5));
        assert_eq!(recall_from_ranks(&ranks, 2), Some(0.75));
        assert_eq!(recall_from_ranks(&ranks, 3), Some(1.0));
        assert_eq!(recall_from_ranks(&[], 3), None);
    }

    #[test]
    fn rating_errors_hand_computed() {
        let e = rating_errors(&[3.0, 5.0, f32::NAN], &[4.0, 2.0, 1.0]).unwrap();
        assert_eq!((e.mae, e.mse, e.n, e.n_missing), (2.0, 5.0, 2, 1));
        assert_eq!(e.rmse, 5f64.sqrt());
        assert!(rating_errors(&[1.0], &[]).is_err());
        assert!(rating_errors(&[f32::NAN], &[1.0]).is_err());
    }
}
