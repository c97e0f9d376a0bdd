//! The CROC curve (schein2005 §3.2): every user gets the same number of recommendations.
//!
//! After `k` recommendations per user, user `p` has received its top `min(k, n(p))`
//! candidates, `n(p)` being its number of candidates. True and false positives are summed
//! over users and divided by the ROC denominators (all positive, all negative pairs).
//!
//! Within a user, the expected true positives `TP_p(k)` under a random order of tied
//! scores are piecewise linear in `k`: a tie group of `g` candidates starting after `a`
//! others and holding `s` positives adds `s/g` per step for `k` in `(a, a + g]`
//! (hypergeometric expectation of a cut group). The accumulator therefore keeps a
//! difference array of these slopes, so one user costs O(its candidates) whatever the
//! maximum `n(p)`. Slopes are held in 64-bit fixed point (`i128`, each `s/g` truncated to
//! a multiple of 2⁻⁶⁴ with the remainder given to the group's last step so each group adds
//! exactly `s`): sums are exact integers, so accumulators merge associatively and the
//! curve is bit-identical for any split of the users and any thread count.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use recs_core::Judgments;

use crate::curve::Curve;
use crate::error::{MetricsError, Result};
use crate::scored::{Ranking, Scored, TieBreak};
use crate::topn::Group;

const FRACTION_BITS: u32 = 64;

/// How the candidates of a tie group are ordered.
#[derive(Debug, Clone, Copy)]
enum GroupOrder {
    /// At their expectation over every order.
    Expected,
    /// Positives before negatives.
    PositivesFirst,
    /// Positives after negatives.
    PositivesLast,
}

/// Collects users' ranked candidates for a CROC curve; see the module documentation.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CrocAccumulator {
    /// Difference array of the per-step expected true positives, fixed point.
    slope_diff: Vec<i128>,
    /// `length_counts[n]` = number of users with `n` candidates.
    length_counts: Vec<u64>,
    n_positives: u64,
    n_negatives: u64,
}

impl CrocAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    fn ensure(&mut self, n: usize) {
        if self.slope_diff.len() < n + 1 {
            self.slope_diff.resize(n + 1, 0);
        }
        if self.length_counts.len() < n + 1 {
            self.length_counts.resize(n + 1, 0);
        }
    }

    /// Adds a user with `n` candidates of which `relevant` are positives; the groups are
    /// added with [`CrocAccumulator::add_group`].
    fn add_user_shape(&mut self, n: usize, relevant: usize) {
        self.ensure(n);
        self.length_counts[n] += 1;
        self.n_positives += relevant as u64;
        self.n_negatives += (n - relevant) as u64;
    }

    /// A tie group of `len` candidates after `start` others, holding `relevant` positives.
    fn add_group(&mut self, start: usize, len: usize, relevant: usize) {
        if relevant == 0 || len == 0 {
            return;
        }
        let total = (relevant as i128) << FRACTION_BITS;
        let slope = total / len as i128;
        let last = total - slope * (len as i128 - 1);
        self.slope_diff[start] += slope;
        self.slope_diff[start + len - 1] += last - slope;
        self.slope_diff[start + len] -= last;
    }

    /// Adds one user's candidates: relevant when `grade >= threshold`; `NaN` scores are
    /// missing and rank lowest.
    pub fn push_user(&mut self, grades: &[f32], scores: &[f32], threshold: f32) {
        let mut ranking = Ranking::default();
        self.push_user_with(&mut ranking, grades, scores, threshold, GroupOrder::Expected);
    }

    /// Adds one user's candidates as [`CrocAccumulator::push_user`] does, but with every tie
    /// group in one extreme order: its positives first (`positives_first`) or last.
    pub fn push_user_extreme(
        &mut self,
        grades: &[f32],
        scores: &[f32],
        threshold: f32,
        positives_first: bool,
    ) {
        let order =
            if positives_first { GroupOrder::PositivesFirst } else { GroupOrder::PositivesLast };
        self.push_user_with(&mut Ranking::default(), grades, scores, threshold, order);
    }

    fn push_user_with(
        &mut self,
        ranking: &mut Ranking,
        grades: &[f32],
        scores: &[f32],
        threshold: f32,
        order: GroupOrder,
    ) {
        let n = grades.len().min(scores.len());
        let relevant = grades[..n].iter().filter(|&&g| g >= threshold).count();
        self.add_user_shape(n, relevant);
        ranking.rank(&scores[..n], None, TieBreak::Expected);
        for &(start, len) in &ranking.groups {
            let s = ranking.order[start..start + len]
                .iter()
                .filter(|&&i| grades[i as usize] >= threshold)
                .count();
            // An extreme order puts the group's positives in its first (or last) `s` places,
            // one hit each.
            match order {
                GroupOrder::Expected => self.add_group(start, len, s),
                GroupOrder::PositivesFirst => self.add_group(start, s, s),
                GroupOrder::PositivesLast => self.add_group(start + len - s, s, s),
            }
        }
    }

    /// Adds a user with `n` candidates, `relevant` of them positives, from its tie groups
    /// that hold a positive (expected-value ties).
    pub(crate) fn push_groups(&mut self, n: usize, relevant: usize, groups: &[Group]) {
        self.add_user_shape(n, relevant);
        for g in groups {
            self.add_group(g.start, g.len, g.relevant);
        }
    }

    /// Adds every user of `other`.
    pub fn merge(&mut self, other: &CrocAccumulator) {
        self.ensure(other.slope_diff.len().saturating_sub(1));
        for (a, b) in self.slope_diff.iter_mut().zip(&other.slope_diff) {
            *a += b;
        }
        for (a, b) in self.length_counts.iter_mut().zip(&other.length_counts) {
            *a += b;
        }
        self.n_positives += other.n_positives;
        self.n_negatives += other.n_negatives;
    }

    /// The curve: one point at every `k = 0..=max n(p)`, ending at `(1, 1)`.
    ///
    /// # Errors
    /// [`MetricsError::Undefined`] without a positive or without a negative pair.
    pub fn curve(&self) -> Result<Curve> {
        if self.n_positives == 0 {
            return Err(MetricsError::Undefined { what: "CROC", reason: "no positive pair" });
        }
        if self.n_negatives == 0 {
            return Err(MetricsError::Undefined { what: "CROC", reason: "no negative pair" });
        }
        let max_n = self.length_counts.iter().rposition(|&c| c > 0).unwrap_or(0);
        // users_at_least[k] = number of users with n(p) >= k.
        let mut users_at_least = vec![0u64; max_n + 2];
        for k in (0..=max_n).rev() {
            users_at_least[k] = users_at_least[k + 1] + self.length_counts[k];
        }
        let scale = (FRACTION_BITS as f64).exp2();
        let mut ks = Vec::with_capacity(max_n + 1);
        let mut fps = Vec::with_capacity(max_n + 1);
        let mut tps = Vec::with_capacity(max_n + 1);
        let (mut slope, mut tp, mut recommended) = (0i128, 0i128, 0u64);
        for (k, &at_least) in users_at_least.iter().enumerate().take(max_n + 1) {
            if k > 0 {
                slope += self.slope_diff[k - 1];
                tp += slope;
                recommended += at_least;
            }
            let fp = (i128::from(recommended) << FRACTION_BITS) - tp;
            ks.push(k as f64);
            tps.push(tp as f64 / scale);
            fps.push(fp as f64 / scale);
        }
        Ok(Curve::from_counts(ks, fps, tps, self.n_positives, self.n_negatives))
    }
}

/// The exact CROC curve of `scored`: candidates with `grade >= threshold` are positives;
/// ties count at their expected value.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Scored, croc};
/// let mut builder = Judgments::builder(2, 3);
/// builder.push_user(0, &[0, 1], &[1.0, 0.0])?;
/// builder.push_user(1, &[0, 1, 2], &[0.0, 1.0, 0.0])?;
/// let judgments = builder.build()?;
/// // User 0 ranks its positive first; user 1 ranks its positive last.
/// let curve = croc(&Scored::new(&judgments, &[0.9, 0.1, 0.8, 0.1, 0.5])?, 1.0)?;
/// assert_eq!(curve.points(), vec![[0.0, 0.0], [1.0 / 3.0, 0.5], [1.0, 0.5], [1.0, 1.0]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] without a positive or without a negative pair.
pub fn croc(scored: &Scored<'_>, threshold: f32) -> Result<Curve> {
    croc_accumulator(scored, threshold).curve()
}

/// The CROC accumulator of `scored` (users processed in parallel; exact merge).
pub fn croc_accumulator(scored: &Scored<'_>, threshold: f32) -> CrocAccumulator {
    (0..scored.n_users())
        .into_par_iter()
        .fold(
            || (CrocAccumulator::new(), Ranking::default()),
            |(mut acc, mut ranking), position| {
                let (user, scores) = scored.user(position);
                acc.push_user_with(
                    &mut ranking,
                    user.grades,
                    scores,
                    threshold,
                    GroupOrder::Expected,
                );
                (acc, ranking)
            },
        )
        .map(|(acc, _)| acc)
        .reduce(CrocAccumulator::new, |mut a, b| {
            a.merge(&b);
            a
        })
}

/// The CROC AUC under the expected, the best and the worst order of each user's tied
/// candidates ([`crate::TieBounds`]): the best order puts a tie group's positives first,
/// the worst last.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Scored, croc_tie_bounds};
///
/// // A user who gives every candidate one score is the random recommender on CROC in
/// // expectation, the omniscient one at best and the worst possible one at worst.
/// let mut b = Judgments::builder(1, 4);
/// b.push_user(0, &[0, 1, 2, 3], &[1.0, 0.0, 0.0, 0.0])?;
/// let judgments = b.build()?;
/// let bounds = croc_tie_bounds(&Scored::new(&judgments, &[0.5; 4])?, 1.0)?;
/// assert_eq!((bounds.worst, bounds.expected, bounds.best), (0.0, 0.5, 1.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] without a positive or without a negative pair.
pub fn croc_tie_bounds(scored: &Scored<'_>, threshold: f32) -> Result<crate::TieBounds> {
    let expected = croc(scored, threshold)?.auc();
    let mut ends = [CrocAccumulator::new(), CrocAccumulator::new()];
    for position in 0..scored.n_users() {
        let (user, scores) = scored.user(position);
        for (acc, first) in ends.iter_mut().zip([true, false]) {
            acc.push_user_extreme(user.grades, scores, threshold, first);
        }
    }
    let [best, worst] = ends;
    Ok(crate::TieBounds { expected, best: best.curve()?.auc(), worst: worst.curve()?.auc() })
}

/// The CROC curve of the omniscient recommender (each user's positives first;
/// schein2005 §3.2). It is below the ideal `(0, 1)` corner as soon as some user has fewer
/// positives than another user's `k`.
///
/// # Errors
/// As [`croc`].
pub fn omniscient_croc(judgments: &Judgments, threshold: f32) -> Result<Curve> {
    omniscient_croc_of(shapes(judgments, threshold))
}

/// [`omniscient_croc`] of users given as (candidates, positives).
///
/// # Errors
/// As [`croc`].
pub fn omniscient_croc_of(users: impl IntoIterator<Item = (usize, usize)>) -> Result<Curve> {
    reference_croc(users, |_, s| s)
}

/// The CROC curve of users each ranking its positives in one tie group at the top of
/// length `group(n, s)`: `s` (omniscient) or `n` (random).
fn reference_croc(
    users: impl IntoIterator<Item = (usize, usize)>,
    group: impl Fn(usize, usize) -> usize,
) -> Result<Curve> {
    let mut acc = CrocAccumulator::new();
    for (n, s) in users {
        acc.add_user_shape(n, s);
        acc.add_group(0, group(n, s), s);
    }
    acc.curve()
}

/// Each judged user as (candidates, positives).
fn shapes(judgments: &Judgments, threshold: f32) -> impl Iterator<Item = (usize, usize)> + '_ {
    judgments.iter().map(move |u| (u.items.len(), u.n_relevant(threshold)))
}

/// The exact expected CROC curve of a random recommender: user `p` contributes
/// `min(k, n(p)) · s(p) / n(p)` expected hits after `k` recommendations (schein2005 §3.2,
/// hypergeometric expectation). With equal `n(p)` for all users it is the diagonal
/// (Theorem 1).
///
/// # Errors
/// As [`croc`].
pub fn random_croc(judgments: &Judgments, threshold: f32) -> Result<Curve> {
    random_croc_of(shapes(judgments, threshold))
}

/// [`random_croc`] of users given as (candidates, positives).
///
/// # Errors
/// As [`croc`].
pub fn random_croc_of(users: impl IntoIterator<Item = (usize, usize)>) -> Result<Curve> {
    reference_croc(users, |n, _| n)
}

/// A Monte-Carlo simulation of random recommendation: the mean CROC curve of `runs`
/// random rankings and a pointwise band.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedCroc {
    /// Mean `(FPR, TPR)` over runs at each `k = 0..=max n(p)`.
    pub mean: Vec<[f64; 2]>,
    /// Pointwise 2.5% quantile of FPR and of TPR at each `k`.
    pub lower: Vec<[f64; 2]>,
    /// Pointwise 97.5% quantile of FPR and of TPR at each `k`.
    pub upper: Vec<[f64; 2]>,
    /// Number of runs.
    pub runs: usize,
    /// Each run's CROC AUC (trapezoid area of its curve), in run order: where the area of
    /// one random recommender falls.
    pub aucs: Vec<f64>,
}

/// Simulates `runs` random recommenders (each user's candidates in a uniformly random
/// order drawn from `Xoshiro256PlusPlus` seeded with `seed`, run `r` using the stream
/// after `r` jumps) and summarises their CROC curves. Deterministic for a seed, whatever
/// the thread count.
///
/// # Errors
/// As [`croc`]; [`MetricsError::InvalidArgument`] when `runs == 0`.
pub fn simulated_croc(
    judgments: &Judgments,
    threshold: f32,
    runs: usize,
    seed: u64,
) -> Result<SimulatedCroc> {
    if runs == 0 {
        return Err(MetricsError::InvalidArgument {
            name: "runs",
            value: "0".into(),
            expected: "at least one run",
        });
    }
    let base = Xoshiro256PlusPlus::seed_from_u64(seed);
    let curves: Vec<Result<Vec<[f64; 2]>>> = (0..runs)
        .into_par_iter()
        .map(|run| {
            let mut rng = base.clone();
            for _ in 0..run {
                rng.jump();
            }
            let mut acc = CrocAccumulator::new();
            let mut ranking = Ranking::default();
            let mut scores = Vec::new();
            for user in judgments.iter() {
                scores.clear();
                // 24 random bits are exact in f32; rare ties are handled exactly.
                scores.extend(user.items.iter().map(|_| (rng.next_u32() >> 8) as f32));
                acc.push_user_with(
                    &mut ranking,
                    user.grades,
                    &scores,
                    threshold,
                    GroupOrder::Expected,
                );
            }
            Ok(acc.curve()?.points())
        })
        .collect();
    let curves: Vec<Vec<[f64; 2]>> = curves.into_iter().collect::<Result<_>>()?;
    let aucs = curves.iter().map(|c| crate::trapezoid(c)).collect();
    let len = curves[0].len();
    let mut mean = Vec::with_capacity(len);
    let mut lower = Vec::with_capacity(len);
    let mut upper = Vec::with_capacity(len);
    let mut column = vec![0.0; runs];
    for k in 0..len {
        let mut m = [0.0; 2];
        let mut lo = [0.0; 2];
        let mut hi = [0.0; 2];
        for axis in 0..2 {
            for (value, curve) in column.iter_mut().zip(&curves) {
                *value = curve[k][axis];
            }
            m[axis] = column.iter().sum::<f64>() / runs as f64;
            column.sort_by(f64::total_cmp);
            lo[axis] = quantile_sorted(&column, 0.025);
            hi[axis] = quantile_sorted(&column, 0.975);
        }
        mean.push(m);
        lower.push(lo);
        upper.push(hi);
    }
    Ok(SimulatedCroc { mean, lower, upper, runs, aucs })
}

/// Quantile `q` of sorted `values` by linear interpolation between order statistics
/// (the "type 7" rule of R and NumPy's default).
pub(crate) fn quantile_sorted(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let h = (values.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    values[lo] + (h - lo as f64) * (values[hi] - values[lo])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn judgments(rows: &[Vec<f32>]) -> Judgments {
        let n_items = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut b = Judgments::builder(rows.len(), n_items);
        for (u, grades) in rows.iter().enumerate() {
            let items: Vec<u32> = (0..grades.len() as u32).collect();
            b.push_user(u as u32, &items, grades).unwrap();
        }
        b.build().unwrap()
    }

    fn close(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x[0] - y[0]).abs() < 1e-12 && (x[1] - y[1]).abs() < 1e-12)
    }

    /// schein2005 §3.2: three people with six observations each; a likes 4, b likes 2,
    /// c likes 6. Recommending four movies to each gives two false positives (from b).
    #[test]
    fn schein2005_three_person_omniscient_example() {
        let a = vec![1.0, 1.0, 1.0, 1.0, 0.0, 0.0];
        let b = vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let c = vec![1.0; 6];
        let j = judgments(&[a, b, c]);
        let curve = omniscient_croc(&j, 1.0).unwrap();
        // 12 positives, 6 negatives.
        assert_eq!((curve.n_positives(), curve.n_negatives()), (12, 6));
        let fp = curve.false_positives();
        let tp = curve.true_positives();
        assert_eq!(fp[4], 2.0);
        assert_eq!(tp[4], 10.0);
        // Hand-computed: k: tp, fp = 0:0,0 1:3,0 2:6,0 3:8,1 4:10,2 5:11,4 6:12,6.
        assert_eq!(tp, &[0.0, 3.0, 6.0, 8.0, 10.0, 11.0, 12.0]);
        assert_eq!(fp, &[0.0, 0.0, 0.0, 1.0, 2.0, 4.0, 6.0]);
        // Area: trapezoids over x = fp/6, y = tp/12.
        let expected = (1.0 / 6.0) * (6.0 + 8.0) / 24.0
            + (1.0 / 6.0) * (8.0 + 10.0) / 24.0
            + (2.0 / 6.0) * (10.0 + 11.0) / 24.0
            + (2.0 / 6.0) * (11.0 + 12.0) / 24.0;
        assert!((curve.auc() - expected).abs() < 1e-15);
        assert!(curve.auc() < 1.0);
    }

    #[test]
    fn fractional_hits_in_cut_tie_group() {
        // One user, scores [2, 1, 1, 1, 0], relevant: the first and one of the tied three.
        let j = judgments(&[vec![1.0, 0.0, 1.0, 0.0, 0.0]]);
        let curve = croc(&Scored::new(&j, &[2.0, 1.0, 1.0, 1.0, 0.0]).unwrap(), 1.0).unwrap();
        let tp = curve.true_positives();
        assert_eq!(tp[1], 1.0);
        assert!((tp[2] - (1.0 + 1.0 / 3.0)).abs() < 1e-15);
        assert!((tp[3] - (1.0 + 2.0 / 3.0)).abs() < 1e-15);
        assert_eq!(tp[4], 2.0);
        assert_eq!(tp[5], 2.0);
        assert_eq!(curve.false_positives()[5], 3.0);
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        let j = judgments(&[vec![0.0, 0.0]]);
        assert!(croc(&Scored::new(&j, &[1.0, 0.0]).unwrap(), 1.0).is_err());
        assert!(simulated_croc(&j, 1.0, 0, 1).is_err());
    }

    #[test]
    fn simulation_is_seeded_and_near_expectation() {
        let j = judgments(&[
            vec![1.0, 0.0, 0.0, 1.0],
            vec![0.0, 0.0, 1.0],
            vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ]);
        let a = simulated_croc(&j, 1.0, 400, 7).unwrap();
        let b = simulated_croc(&j, 1.0, 400, 7).unwrap();
        assert_eq!(a, b);
        let expected = random_croc(&j, 1.0).unwrap().points();
        for (m, e) in a.mean.iter().zip(&expected) {
            assert!((m[1] - e[1]).abs() < 0.05, "{m:?} vs {e:?}");
        }
        for ((lo, hi), m) in a.lower.iter().zip(&a.upper).zip(&a.mean) {
            assert!(lo[1] <= m[1] && m[1] <= hi[1]);
        }
        // Each run's area; their mean is the area of the mean curve (the area is linear in
        // the curve when every run has the same false-alarm rates at each k).
        assert_eq!(a.aucs.len(), 400);
        let mean_auc = a.aucs.iter().sum::<f64>() / 400.0;
        assert!((mean_auc - crate::trapezoid(&a.mean)).abs() < 0.02, "{mean_auc}");
        assert!(a.aucs.iter().any(|&x| (x - mean_auc).abs() > 1e-9), "runs differ");
    }

    fn rows() -> impl Strategy<Value = Vec<Vec<(u8, bool)>>> {
        proptest::collection::vec(proptest::collection::vec((0u8..5, any::<bool>()), 1..12), 1..12)
            .prop_map(|mut rows| {
                rows[0][0].1 = true;
                rows[0].push((0, false));
                rows
            })
    }

    fn build(rows: &[Vec<(u8, bool)>]) -> (Judgments, Vec<f32>) {
        let grades: Vec<Vec<f32>> =
            rows.iter().map(|r| r.iter().map(|p| if p.1 { 1.0 } else { 0.0 }).collect()).collect();
        let scores = rows.iter().flat_map(|r| r.iter().map(|p| f32::from(p.0))).collect();
        (judgments(&grades), scores)
    }

    proptest! {
        #[test]
        fn constant_scores_give_exact_random_expectation(rows in rows()) {
            let (j, scores) = build(&rows);
            let constant = vec![0.5; scores.len()];
            let curve = croc(&Scored::new(&j, &constant).unwrap(), 1.0).unwrap();
            prop_assert!(close(&curve.points(), &random_croc(&j, 1.0).unwrap().points()));
            // Independent formula: TP(k) = Σ_p min(k, n(p)) s(p) / n(p).
            let tp = curve.true_positives();
            for (k, &t) in tp.iter().enumerate() {
                let direct: f64 = j.iter().map(|u| {
                    let n = u.items.len() as f64;
                    (k as f64).min(n) * u.n_relevant(1.0) as f64 / n
                }).sum();
                prop_assert!((t - direct).abs() < 1e-9);
            }
        }

        #[test]
        fn equal_lengths_make_random_the_diagonal(n in 1usize..10, users in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 10), 1..8)) {
            let rows: Vec<Vec<f32>> = users.iter().enumerate().map(|(u, r)| {
                r[..n].iter().enumerate().map(|(i, &b)| if b || (u == 0 && i == 0) { 1.0 } else { 0.0 }).collect()
            }).collect();
            let j = judgments(&rows);
            if let Ok(curve) = random_croc(&j, 1.0) {
                for p in curve.points() {
                    prop_assert!((p[0] - p[1]).abs() < 1e-12, "{:?}", p);
                }
            }
        }

        #[test]
        fn curve_is_monotone_and_ends_at_one(rows in rows()) {
            let (j, scores) = build(&rows);
            let curve = croc(&Scored::new(&j, &scores).unwrap(), 1.0).unwrap();
            let pts = curve.points();
            prop_assert_eq!(pts[0], [0.0, 0.0]);
            prop_assert_eq!(*pts.last().unwrap(), [1.0, 1.0]);
            for w in pts.windows(2) {
                prop_assert!(w[1][0] >= w[0][0] && w[1][1] >= w[0][1]);
            }
            let auc = curve.auc();
            prop_assert!((0.0..=1.0).contains(&auc));
            let omniscient = omniscient_croc(&j, 1.0).unwrap().auc();
            prop_assert!(auc <= omniscient + 1e-12);
        }

        #[test]
        fn merging_shards_equals_all_at_once(rows in rows(), cut in 0usize..12) {
            let (j, scores) = build(&rows);
            let scored = Scored::new(&j, &scores).unwrap();
            let all = croc_accumulator(&scored, 1.0);
            let cut = cut.min(scored.n_users());
            let mut left = CrocAccumulator::new();
            let mut right = CrocAccumulator::new();
            for position in 0..scored.n_users() {
                let (u, s) = scored.user(position);
                if position < cut { left.push_user(u.grades, s, 1.0) } else { right.push_user(u.grades, s, 1.0) }
            }
            right.merge(&left);
            prop_assert_eq!(right.curve().unwrap(), all.curve().unwrap());
        }

        #[test]
        fn input_order_does_not_matter(rows in rows()) {
            // Reversing candidate order inside each user (with its scores) changes nothing.
            let (j, scores) = build(&rows);
            let a = croc(&Scored::new(&j, &scores).unwrap(), 1.0).unwrap();
            let reversed: Vec<Vec<(u8, bool)>> = rows.iter().map(|r| r.iter().rev().copied().collect()).collect();
            let (j2, scores2) = build(&reversed);
            let b = croc(&Scored::new(&j2, &scores2).unwrap(), 1.0).unwrap();
            prop_assert_eq!(a, b);
        }
    }
}
