//! ROC1 and ROC2 (§3.2) on leave-25%-out splits: Figures 5 and 6.

use anyhow::{Context, Result};
use rayon::prelude::*;
use recs_bench::report::Table;
use recs_bench::{Figure, Line};
use recs_core::{Interactions, ParamValues, Recommender, TrainData};
use recs_metrics::{Confusion, roc1, top_n_confusions};
use recs_split::{Amount, Protocol, Split, SplitId};
use serde_json::json;

/// Share of each user's ratings withheld (§3.2: "randomly withhold the 25%").
pub(crate) const WITHHELD: f64 = 0.25;
/// The longest top-N list of the ROC2 curves.
pub(crate) const MAX_N: usize = 30;
/// The list lengths marked in Figure 6.
pub(crate) const MARKED_N: [usize; 2] = [5, 20];
/// The threshold marked in Figure 5.
pub(crate) const MARKED_T: f32 = 3.0;

/// The ROC1 thresholds over withheld ratings: 1.1 to 5.0 by 0.1. At `t ≤ 1` every 1–5
/// rating is good and the false-alarm rate is undefined, so the sweep starts above 1.
pub(crate) fn thresholds() -> Vec<f32> {
    (11..=50).map(|k| k as f32 / 10.0).collect()
}

/// The ROC1 thresholds over Figure 1's pairs: 1.0 to 5.0 by 0.1, the paper's range
/// "(1 . . . 5)". The unrated items (value 0) are bad at every threshold, so the
/// false-alarm rate is defined from t = 1.
pub(crate) fn thresholds_with_unrated() -> Vec<f32> {
    (10..=50).map(|k| k as f32 / 10.0).collect()
}

/// A model of the experiments: a catalogued model with fixed parameters.
#[derive(Debug, Clone)]
pub(crate) struct Model {
    pub(crate) label: String,
    name: &'static str,
    params: Vec<String>,
}

impl Model {
    pub(crate) fn new(label: impl Into<String>, name: &'static str, params: &[&str]) -> Model {
        Model { label: label.into(), name, params: params.iter().map(|p| p.to_string()).collect() }
    }

    /// PureSVD with `L` = `rank`, labelled `L=rank`.
    pub(crate) fn puresvd(rank: usize) -> Model {
        Model {
            label: format!("PureSVD L={rank}"),
            name: "puresvd",
            params: vec![format!("rank={rank}")],
        }
    }

    /// The paper's Average Recommender: every item's mean rating.
    pub(crate) fn average() -> Model {
        Model::new("Average Recommender", "item-mean", &["damping=0"])
    }

    /// The paper's Top-Rated reference: the most rated items, in popularity order.
    pub(crate) fn top_rated() -> Model {
        Model::new("Top-Rated", "item-pop", &[])
    }

    /// The naive Bayesian network of §4.1.
    pub(crate) fn nbn(label: impl Into<String>) -> Model {
        Model::new(label, "nbn", &[])
    }

    pub(crate) fn fit(&self, train: &Interactions, seed: u64) -> Result<Box<dyn Recommender>> {
        let entry = recs_bench::registry::find(self.name)?;
        let params = ParamValues::parse(&self.params)?;
        let model = entry.build_checked(&params)?.fit_dyn(&TrainData::new(train, seed));
        model.with_context(|| format!("fitting {}", self.label))
    }
}

/// Repetition `repetition` of the leave-25%-out split of `data`.
pub(crate) fn leave_quarter_out(data: &Interactions, seed: u64, repetition: u32) -> Result<Split> {
    let protocol = Protocol::LeaveKOut { k: Amount::Fraction(WITHHELD), min_train: 1 };
    Ok(protocol.split(data, seed, SplitId::new(repetition, 0))?)
}

/// `data` without the events of the users `keep` rejects (same index space).
pub(crate) fn users_where(data: &Interactions, keep: impl Fn(u32) -> bool) -> Result<Interactions> {
    let mut builder = recs_core::RowsBuilder::new(data.n_users(), data.n_items())?;
    for user in 0..data.n_users() as u32 {
        let row = data.user_row(user);
        if keep(user) {
            builder.push_row(user, row.items, row.values)?;
        }
    }
    Ok(builder.build()?)
}

/// One user's scores of every item it has no training rating with (the candidates, in
/// increasing order), and what the withheld part says of each.
pub(crate) struct UserScores {
    user: u32,
    candidates: Vec<u32>,
    scores: Vec<f32>,
    /// The withheld rating, or 0 for an item not withheld ("not rated").
    actual: Vec<f32>,
    withheld: Vec<bool>,
}

/// `model`'s scores of the items `user` has no training rating with.
fn score_user(model: &dyn Recommender, split: &Split, user: u32) -> Result<UserScores> {
    let known = split.train().user_items(user);
    let row = split.test().user_row(user);
    let candidates: Vec<u32> =
        (0..split.n_items() as u32).filter(|i| known.binary_search(i).is_err()).collect();
    let found: Vec<Option<usize>> =
        candidates.iter().map(|i| row.items.binary_search(i).ok()).collect();
    let mut scores = vec![0.0; candidates.len()];
    model.score(user, &candidates, &mut scores)?;
    Ok(UserScores {
        user,
        candidates,
        scores,
        actual: found.iter().map(|k| k.map_or(0.0, |k| row.values[k])).collect(),
        withheld: found.iter().map(Option::is_some).collect(),
    })
}

/// [`UserScores`] of every user of `users`, in that order: one scoring pass that every
/// ROC of the MovieLens figures reads.
pub(crate) fn score_unrated(
    model: &dyn Recommender,
    split: &Split,
    users: &[u32],
) -> Result<Vec<UserScores>> {
    users.par_iter().map(|&user| score_user(model, split, user)).collect()
}

fn as_counts(points: Vec<recs_metrics::Roc1Point>) -> Vec<(f32, Confusion)> {
    points.into_iter().map(|p| (p.threshold, p.counts)).collect()
}

/// The predictions and ratings of the withheld items, in user then item order.
fn withheld_pairs(scored: &[UserScores]) -> (Vec<f32>, Vec<f32>) {
    scored
        .iter()
        .flat_map(|u| {
            (0..u.candidates.len()).filter(|&k| u.withheld[k]).map(|k| (u.scores[k], u.actual[k]))
        })
        .unzip()
}

/// ROC1 on the withheld ratings: the pooled counts at every threshold of [`thresholds`].
pub(crate) fn roc1_counts(scored: &[UserScores]) -> Result<Vec<(f32, Confusion)>> {
    let (predicted, actual) = withheld_pairs(scored);
    Ok(as_counts(roc1(&predicted, &actual, &thresholds())?))
}

/// ROC1 with the pairs of the paper's Figure 1: every candidate, its actual value the
/// withheld rating or 0 ("not rated"), pooled at every threshold of
/// [`thresholds_with_unrated`]. With `unseen` (items without any training rating), those
/// items are predicted 0 whatever the model says (recommended at no threshold).
pub(crate) fn roc1_counts_with_unrated(
    scored: &[UserScores],
    unseen: Option<&[bool]>,
) -> Result<Vec<(f32, Confusion)>> {
    let (mut predicted, mut actual) = (Vec::new(), Vec::new());
    for u in scored {
        for (k, &item) in u.candidates.iter().enumerate() {
            let zeroed = unseen.is_some_and(|unseen| unseen[item as usize]);
            predicted.push(if zeroed { 0.0 } else { u.scores[k] });
            actual.push(u.actual[k]);
        }
    }
    Ok(as_counts(roc1(&predicted, &actual, &thresholds_with_unrated())?))
}

/// The items of `split` without any training rating.
pub(crate) fn unseen_items(split: &Split) -> Vec<bool> {
    (0..split.n_items() as u32).map(|i| split.train().item_users(i).is_empty()).collect()
}

/// The rating from which a withheld rating counts as good in the scale-free check (§2.2:
/// "this threshold could be set arbitrarily to 4").
pub(crate) const GOOD_RATING: f32 = 4.0;

/// The scale-free check of ROC1: the ROC AUC of the raw predictions of the withheld
/// ratings, ratings ≥ [`GOOD_RATING`] against the others, pooled over users (ties count
/// one half). `None` without both classes.
pub(crate) fn withheld_auc(scored: &[UserScores]) -> Option<f64> {
    let (predicted, actual) = withheld_pairs(scored);
    let good: Vec<bool> = actual.iter().map(|&v| v >= GOOD_RATING).collect();
    recs_metrics::roc_auc(&predicted, &good).ok()
}

/// The mean absolute error of the raw predictions of the withheld ratings (§2.1's MAE),
/// pooled over users; `None` without a withheld rating.
pub(crate) fn withheld_mae(scored: &[UserScores]) -> Option<f64> {
    let (predicted, actual) = withheld_pairs(scored);
    let total: f64 = predicted.iter().zip(&actual).map(|(p, a)| f64::from((p - a).abs())).sum();
    (!predicted.is_empty()).then(|| total / predicted.len() as f64)
}

/// One user's ROC2 counts for `N = 1..=MAX_N`, with the withheld items valued at least
/// `good` positive (the others stay candidates, as negatives); `None` without a positive.
fn roc2_of_user(u: &UserScores, good: f32) -> Option<(u32, Vec<Confusion>)> {
    let grades: Vec<f32> = (0..u.candidates.len())
        .map(|k| if u.withheld[k] && u.actual[k] >= good { 1.0 } else { 0.0 })
        .collect();
    grades.contains(&1.0).then(|| (u.user, top_n_confusions(&grades, &u.scores, MAX_N, 1.0)))
}

/// One user's ROC2 counts for `N = 1..=MAX_N` under the order that puts each group of
/// tied scores' positives first (`positives_first`) or last: the two ends of the range
/// every order of the ties falls in (the expected counts lie between them).
fn roc2_at_tie_end(grades: &[f32], scores: &[f32], positives_first: bool) -> Vec<Confusion> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // Scores descending; inside a tie, positives first or last; the index keeps the sort
    // total (equal (score, grade) pairs are interchangeable for the counts).
    order.sort_by(|&a, &b| {
        let by_grade = if positives_first {
            grades[b].total_cmp(&grades[a])
        } else {
            grades[a].total_cmp(&grades[b])
        };
        scores[b].total_cmp(&scores[a]).then(by_grade).then(a.cmp(&b))
    });
    let positives = grades.iter().filter(|&&g| g >= 1.0).count() as f64;
    let negatives = grades.len() as f64 - positives;
    let mut tp = 0.0;
    (1..=MAX_N)
        .map(|n| {
            if let Some(&k) = order.get(n - 1) {
                tp += f64::from(u8::from(grades[k] >= 1.0));
            }
            let listed = n.min(order.len()) as f64;
            let fp = listed - tp;
            Confusion { tp, fp, fn_: positives - tp, tn: negatives - fp }
        })
        .collect()
}

/// One user's ROC2 counts at `N = 1..=MAX_N`, with the user's index.
pub(crate) type UserCurve = (u32, Vec<Confusion>);

/// Every user's ROC2 counts as [`roc2_per_user`] gives them, and under the two extreme
/// orders of tied scores (positives first, positives last), in that order.
pub(crate) fn roc2_per_user_tie_ends(
    model: &dyn Recommender,
    split: &Split,
    users: &[u32],
) -> Result<[Vec<UserCurve>; 3]> {
    let per_user: Vec<Option<[UserCurve; 3]>> = users
        .par_iter()
        .filter(|&&u| !split.test().user_items(u).is_empty())
        .map(|&user| {
            let u = score_user(model, split, user)?;
            let grades: Vec<f32> = u.withheld.iter().map(|&w| f32::from(u8::from(w))).collect();
            Ok(roc2_of_user(&u, f32::NEG_INFINITY).map(|(id, expected)| {
                [
                    (id, expected),
                    (id, roc2_at_tie_end(&grades, &u.scores, true)),
                    (id, roc2_at_tie_end(&grades, &u.scores, false)),
                ]
            }))
        })
        .collect::<Result<_>>()?;
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for [expected, first, last] in per_user.into_iter().flatten() {
        out[0].push(expected);
        out[1].push(first);
        out[2].push(last);
    }
    Ok(out)
}

/// Every scored user's ROC2 counts (see [`roc2_of_user`]), users without a positive left
/// out, in order.
pub(crate) fn roc2_of(scored: &[UserScores], good: f32) -> Vec<(u32, Vec<Confusion>)> {
    scored.par_iter().filter_map(|u| roc2_of_user(u, good)).collect()
}

/// Every user's ROC2 counts for `N = 1..=MAX_N`: candidates are the items the user has
/// no training event with, positives its withheld items. Users without a withheld item
/// are left out. In `users` order; each user's scores are dropped once counted.
pub(crate) fn roc2_per_user(
    model: &dyn Recommender,
    split: &Split,
    users: &[u32],
) -> Result<Vec<(u32, Vec<Confusion>)>> {
    users
        .par_iter()
        .filter(|&&u| !split.test().user_items(u).is_empty())
        .map(|&user| Ok(roc2_of_user(&score_user(model, split, user)?, f32::NEG_INFINITY)))
        .filter_map(Result::transpose)
        .collect()
}

/// The pooled counts of the users `keep` accepts, at every `N` (summed in user order, so
/// the result does not depend on the thread count).
pub(crate) fn pool(
    per_user: &[(u32, Vec<Confusion>)],
    keep: impl Fn(u32) -> bool,
) -> Vec<Confusion> {
    let mut sums = vec![Confusion::default(); MAX_N];
    for (_, curve) in per_user.iter().filter(|(u, _)| keep(*u)) {
        for (s, c) in sums.iter_mut().zip(curve) {
            s.tp += c.tp;
            s.fp += c.fp;
            s.fn_ += c.fn_;
            s.tn += c.tn;
        }
    }
    sums
}

/// One model's curve averaged over repetitions: at each sweep position (threshold or
/// list length), the mean false-alarm and hit rates, and the per-repetition points.
#[derive(Debug, Clone)]
pub(crate) struct Averaged {
    pub(crate) label: String,
    /// `(position, points of every repetition as [fpr, tpr])`.
    pub(crate) per_position: Vec<(f64, Vec<[f64; 2]>)>,
}

impl Averaged {
    pub(crate) fn new(label: &str) -> Self {
        Averaged { label: label.to_string(), per_position: Vec::new() }
    }

    /// Adds one repetition's counts at each position.
    pub(crate) fn push(&mut self, counts: &[(f64, Confusion)]) {
        for (k, &(position, c)) in counts.iter().enumerate() {
            if self.per_position.len() <= k {
                self.per_position.push((position, Vec::new()));
            }
            self.per_position[k].1.push([c.fpr(), c.tpr()]);
        }
    }

    /// `(position, mean fpr, mean tpr)` where every repetition defines both rates.
    pub(crate) fn means(&self) -> Vec<(f64, f64, f64)> {
        self.per_position
            .iter()
            .filter(|(_, points)| points.iter().flatten().all(|v| v.is_finite()))
            .map(|(position, points)| {
                let n = points.len() as f64;
                let fpr = points.iter().map(|p| p[0]).sum::<f64>() / n;
                let tpr = points.iter().map(|p| p[1]).sum::<f64>() / n;
                (*position, fpr, tpr)
            })
            .collect()
    }

    /// The mean rates at `position`.
    pub(crate) fn at(&self, position: f64) -> Option<[f64; 2]> {
        self.means().into_iter().find(|m| m.0 == position).map(|m| [m.1, m.2])
    }

    /// The hit rate of each repetition at `position`.
    pub(crate) fn tpr_per_repetition(&self, position: f64) -> Vec<f64> {
        self.per_position
            .iter()
            .find(|(p, _)| *p == position)
            .map(|(_, points)| points.iter().map(|p| p[1]).collect())
            .unwrap_or_default()
    }

    /// The area under each repetition's own points sorted by false-alarm rate, closed by
    /// (0, 0) and (1, 1): the summary ROC1's "best curve" is judged by.
    pub(crate) fn closed_area_per_repetition(&self) -> Vec<f64> {
        self.closed_area_per_repetition_from(f64::NEG_INFINITY)
    }

    /// The same area over the sweep positions from `start` on (a shorter threshold
    /// range).
    pub(crate) fn closed_area_per_repetition_from(&self, start: f64) -> Vec<f64> {
        self.closed_area_per_repetition_where(|x| x >= start)
    }

    /// The same area over the sweep positions from `start` on that are whole multiples of
    /// `step` (a coarser threshold grid: `step` 1 keeps the whole ratings).
    pub(crate) fn closed_area_per_repetition_on_grid(&self, start: f64, step: f64) -> Vec<f64> {
        self.closed_area_per_repetition_where(|x| {
            x >= start && ((x / step).round() * step - x).abs() < 1e-6
        })
    }

    fn closed_area_per_repetition_where(&self, keep: impl Fn(f64) -> bool) -> Vec<f64> {
        let repetitions = self.per_position.first().map_or(0, |(_, p)| p.len());
        (0..repetitions)
            .map(|r| {
                let points = self.per_position.iter().filter(|(x, _)| keep(*x)).map(|(_, p)| p[r]);
                closed_area(points.filter(|p| p.iter().all(|v| v.is_finite())).collect())
            })
            .collect()
    }

    /// The mean curve, marked at the sweep positions `marked`.
    fn line(&self, marked: &[f64]) -> Line {
        let means = self.means();
        let mut points: Vec<[f64; 2]> = means.iter().map(|m| [m.1, m.2]).collect();
        points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
        let markers = means.iter().filter(|m| marked.contains(&m.0)).map(|m| [m.1, m.2]).collect();
        Line { label: self.label.clone(), points, band: Vec::new(), markers }
    }
}

/// The area under `points` sorted by false-alarm rate, closed by (0, 0) and (1, 1).
fn closed_area(mut points: Vec<[f64; 2]>) -> f64 {
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.insert(0, [0.0, 0.0]);
    points.push([1.0, 1.0]);
    recs_metrics::trapezoid(&points)
}

/// Counts at list lengths `1..=MAX_N`, as sweep positions.
pub(crate) fn by_list_length(counts: Vec<Confusion>) -> Vec<(f64, Confusion)> {
    counts.into_iter().enumerate().map(|(k, c)| ((k + 1) as f64, c)).collect()
}

/// A figure of averaged curves, each marked at the sweep positions `marked`, with the
/// random classifier's diagonal up to the largest false-alarm rate shown.
pub(crate) fn figure(
    id: &str,
    file: &str,
    title: &str,
    curves: &[Averaged],
    marked: &[f64],
) -> Figure {
    let mut lines: Vec<Line> = curves.iter().map(|c| c.line(marked)).collect();
    let reach = lines.iter().flat_map(|l| l.points.iter().map(|p| p[0])).fold(0.0, f64::max);
    lines.push(Line {
        label: "random".into(),
        points: vec![[0.0, 0.0], [reach, reach]],
        band: Vec::new(),
        markers: Vec::new(),
    });
    Figure::lines(id, file, title, ["false-alarm rate (FPR)", "hit rate (TPR, recall)"], &lines)
}

/// The summary table of ROC2 curves: TPR and FPR at the marked list lengths, and the
/// spread of TPR@20 over repetitions.
pub(crate) fn roc2_table(name: &str, curves: &[Averaged]) -> Table {
    let mut columns = vec!["model".to_string()];
    for n in MARKED_N {
        columns.push(format!("tpr@{n}"));
        columns.push(format!("fpr@{n}"));
    }
    columns.push(format!("tpr@{} sd over repetitions", MARKED_N[1]));
    let rows = curves
        .iter()
        .map(|c| {
            let mut row = vec![json!(c.label)];
            for n in MARKED_N {
                let at = c.at(n as f64);
                row.push(json!(at.map(|p| p[1])));
                row.push(json!(at.map(|p| p[0])));
            }
            row.push(json!(sd(&c.tpr_per_repetition(MARKED_N[1] as f64))));
            row
        })
        .collect();
    Table { name: name.into(), columns, rows }
}

/// Every averaged point of `curves`: model, sweep position, FPR, TPR.
pub(crate) fn points_table(name: &str, position: &str, curves: &[Averaged]) -> Table {
    let rows = curves
        .iter()
        .flat_map(|c| {
            c.means()
                .into_iter()
                .map(|(p, fpr, tpr)| vec![json!(c.label), json!(p), json!(fpr), json!(tpr)])
        })
        .collect();
    Table {
        name: name.into(),
        columns: vec!["model".into(), position.into(), "fpr".into(), "tpr".into()],
        rows,
    }
}

/// The sample standard deviation (`None` below two values).
pub(crate) fn sd(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    Some((values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averaging_keeps_positions_defined_in_every_repetition() {
        let c = |tp, fp, fn_, tn| Confusion { tp, fp, fn_, tn };
        let mut a = Averaged::new("m");
        a.push(&[(1.0, c(1.0, 1.0, 1.0, 1.0)), (2.0, c(0.0, 0.0, 0.0, 2.0))]);
        a.push(&[(1.0, c(2.0, 0.0, 0.0, 2.0)), (2.0, c(1.0, 0.0, 1.0, 2.0))]);
        // Position 2 has no positive in the first repetition: left out.
        assert_eq!(a.means(), [(1.0, 0.25, 0.75)]);
        assert_eq!(a.tpr_per_repetition(1.0), [0.5, 1.0]);
        // (0,0) → (0.25, 0.75) → (1,1): 0.25·0.375 + 0.75·0.875.
        let mean_points = a.means().iter().map(|m| [m.1, m.2]).collect();
        assert!((closed_area(mean_points) - (0.25 * 0.375 + 0.75 * 0.875)).abs() < 1e-12);
        // Per repetition, each with its own defined points: (0.5, 0.5) alone (area 0.5),
        // then (0, 1) and (0, 0.5) (the whole square).
        assert_eq!(a.closed_area_per_repetition(), [0.5, 1.0]);
        assert_eq!(sd(&[1.0, 3.0]), Some(2f64.sqrt()));
        assert_eq!(sd(&[1.0]), None);
    }

    #[test]
    fn users_where_keeps_the_index_space_and_the_chosen_users_rows() {
        let events = [(0, 0, 1.0), (0, 1, 1.0), (1, 1, 1.0), (2, 0, 1.0), (2, 2, 1.0)]
            .map(|(u, i, v)| recs_core::Event::new(u, i, v));
        let data =
            Interactions::from_events(3, 3, events, recs_core::DuplicatePolicy::Error).unwrap();
        let kept = users_where(&data, |u| u != 0).unwrap();
        assert_eq!((kept.n_users(), kept.n_items(), kept.n_events()), (3, 3, 3));
        assert!(kept.user_items(0).is_empty());
        assert_eq!(kept.user_items(2), [0, 2]);
    }

    /// The two ends of the tie range bracket the expected counts, and equal them without
    /// ties.
    #[test]
    fn tie_ends_bracket_the_expected_counts() {
        let grades = [1.0, 0.0, 0.0, 1.0, 0.0];
        let tied = [0.5, 0.5, 0.5, 0.1, 0.9];
        let expected = top_n_confusions(&grades, &tied, MAX_N, 1.0);
        let first = roc2_at_tie_end(&grades, &tied, true);
        let last = roc2_at_tie_end(&grades, &tied, false);
        // Top 2: item 4, then the tie {0, 1, 2} holding one positive.
        assert_eq!((first[1].tp, last[1].tp, expected[1].tp), (1.0, 0.0, 1.0 / 3.0));
        for n in 0..MAX_N {
            assert!(first[n].tp >= expected[n].tp - 1e-12 && expected[n].tp >= last[n].tp - 1e-12);
            assert_eq!(first[n].tp + first[n].fn_, 2.0);
            assert_eq!(first[n].tp + first[n].fp, (n + 1).min(5) as f64);
        }
        let distinct = [0.5, 0.4, 0.3, 0.1, 0.9];
        assert_eq!(
            roc2_at_tie_end(&grades, &distinct, true),
            top_n_confusions(&grades, &distinct, MAX_N, 1.0)
        );
        assert_eq!(
            roc2_at_tie_end(&grades, &distinct, false),
            roc2_at_tie_end(&grades, &distinct, true)
        );
    }

    #[test]
    fn thresholds_start_above_one_and_hold_three_exactly() {
        let t = thresholds();
        assert_eq!((t[0], t[t.len() - 1], t.len()), (1.1, 5.0, 40));
        assert!(t.contains(&MARKED_T));
    }
}
