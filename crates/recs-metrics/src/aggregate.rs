//! Aggregation over users or folds: mean, standard deviation, 95% intervals (Student t
//! and seeded bootstrap), paired comparisons (paired t-test, Wilcoxon signed-rank) and
//! group breakdowns. The statistics are `recs-stats`' (`docs/statistics.md`); this module
//! keeps recs-metrics' conventions over them: a `NaN` value is a missing one, left out
//! (with its pair, in a paired test), and what `recs-stats` answers with a convention of
//! its own (constant differences, no non-zero difference) is [`MetricsError::Undefined`]
//! here.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_stats::{MeanInterval, StatsError, WilcoxonMethod};

use crate::error::{MetricsError, Result};

/// Mean, standard deviation and a 95% interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (denominator `n − 1`; 0 when `n = 1`).
    pub sd: f64,
    /// Sample size.
    pub n: usize,
    /// Lower end of the 95% interval.
    pub lower: f64,
    /// Upper end of the 95% interval.
    pub upper: f64,
}

/// A two-sided test result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestResult {
    /// The test statistic (t for the t-test; `min(W+, W−)` for Wilcoxon).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Number of pairs used (Wilcoxon drops zero differences).
    pub n: usize,
}

fn finite(values: &[f64]) -> Vec<f64> {
    values.iter().copied().filter(|v| !v.is_nan()).collect()
}

fn too_few(what: &'static str) -> MetricsError {
    MetricsError::Undefined { what, reason: "needs at least two values" }
}

/// The error of the statistic `what` for an input `recs-stats` refused. `NaN` values are
/// left out before, so a value it refuses is infinite.
fn refused(what: &'static str, error: StatsError) -> MetricsError {
    let reason = match error {
        StatsError::TooFewUsers { .. } => return too_few(what),
        StatsError::NonFinite { .. } => "a value is infinite",
        StatsError::DifferenceOverflow { .. } => "a difference overflows to infinity",
        _ => "the input is outside the statistic's domain",
    };
    MetricsError::Undefined { what, reason }
}

/// The non-`NaN` values and their mean, standard deviation and 95% t interval.
fn summary(what: &'static str, values: &[f64]) -> Result<(Vec<f64>, MeanInterval)> {
    let v = finite(values);
    if v.len() < 2 {
        return Err(too_few(what));
    }
    let interval = recs_stats::mean_interval(&v, 0.95).map_err(|e| refused(what, e))?;
    Ok((v, interval))
}

/// Mean ± `t_{0.975, n−1} · sd / √n` over the non-`NaN` values (users or folds):
/// [`recs_stats::mean_interval`] at level 0.95.
///
/// ```
/// let i = recs_metrics::t_interval(&[0.61, 0.52, 0.70, 0.44, 0.58])?;
/// assert!((i.mean - 0.57).abs() < 1e-12);
/// assert!(i.lower < 0.57 && 0.57 < i.upper);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] with fewer than two values or an infinite one.
pub fn t_interval(values: &[f64]) -> Result<Interval> {
    let (_, i) = summary("t interval", values)?;
    Ok(Interval { mean: i.mean, sd: i.sd, n: i.n, lower: i.lower, upper: i.upper })
}

/// Percentile bootstrap interval of the mean: `resamples` resamples with replacement
/// drawn from `Xoshiro256PlusPlus::seed_from_u64(seed)`, the 2.5% and 97.5% quantiles of
/// their means (linear interpolation). Deterministic for a seed. The mean and standard
/// deviation are those of [`t_interval`].
///
/// # Errors
/// [`MetricsError::Undefined`] with fewer than two values or an infinite one;
/// [`MetricsError::InvalidArgument`] when `resamples == 0`.
pub fn bootstrap_interval(values: &[f64], resamples: usize, seed: u64) -> Result<Interval> {
    let (v, summary) = summary("bootstrap interval", values)?;
    if resamples == 0 {
        return Err(MetricsError::InvalidArgument {
            name: "resamples",
            value: "0".into(),
            expected: "at least one resample",
        });
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = v.len() as u64;
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..n {
                sum += v[draw_index(&mut rng, n)];
            }
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    Ok(Interval {
        mean: summary.mean,
        sd: summary.sd,
        n: v.len(),
        lower: crate::croc::quantile_sorted(&means, 0.025),
        upper: crate::croc::quantile_sorted(&means, 0.975),
    })
}

/// A uniform index below `n`, unbiased by rejection of the top partial range.
fn draw_index(rng: &mut Xoshiro256PlusPlus, n: u64) -> usize {
    let zone = u64::MAX - (u64::MAX % n) - 1;
    loop {
        let x = rng.next_u64();
        if x <= zone {
            return (x % n) as usize;
        }
    }
}

/// The gap between user groups on a per-user metric: each group's mean, and the mean
/// absolute difference between the means of every two groups with users (MAD; for two
/// groups, `|mean_a − mean_b|`), with a 95% percentile bootstrap interval.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupGap {
    /// Per group, `(mean, users counted)`; `None` for a group without a user.
    pub means: Vec<(Option<f64>, usize)>,
    /// The mean absolute difference between the group means.
    pub mad: f64,
    /// The 2.5% and 97.5% quantiles of the MAD over resamples of each group's users.
    pub interval: [f64; 2],
}

/// [`GroupGap`] of `values` (one per user, `NaN` left out) in groups `groups[i] <
/// n_groups`. Each of `resamples` resamples draws every group's users with replacement
/// from that group, from `Xoshiro256PlusPlus::seed_from_u64(seed)` (groups in index
/// order): deterministic for a seed.
///
/// ```
/// let values = [0.2, 0.4, 0.9, 0.7, f64::NAN];
/// let gap = recs_metrics::group_gap(&values, &[0, 0, 1, 1, 1], 2, 200, 7)?;
/// assert_eq!(gap.means[1], (Some(0.8), 2));
/// assert!((gap.mad - 0.5).abs() < 1e-12);
/// assert!(gap.interval[0] <= gap.mad && gap.mad <= gap.interval[1]);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`group_means`]; [`MetricsError::Undefined`] with fewer than two groups with users;
/// [`MetricsError::InvalidArgument`] when `resamples == 0`.
pub fn group_gap(
    values: &[f64],
    groups: &[usize],
    n_groups: usize,
    resamples: usize,
    seed: u64,
) -> Result<GroupGap> {
    let means = group_means(values, groups, n_groups)?;
    // Each group's values, groups without a value left out.
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); n_groups];
    for (&v, &g) in values.iter().zip(groups) {
        if !v.is_nan() {
            members[g].push(v);
        }
    }
    members.retain(|m| !m.is_empty());
    if members.len() < 2 {
        return Err(MetricsError::Undefined {
            what: "group gap",
            reason: "fewer than two groups with a user",
        });
    }
    if resamples == 0 {
        return Err(MetricsError::InvalidArgument {
            name: "resamples",
            value: "0".into(),
            expected: "at least one resample",
        });
    }
    let mad = mean_absolute_difference;
    let observed: Vec<f64> =
        members.iter().map(|m| m.iter().sum::<f64>() / m.len() as f64).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut resampled: Vec<f64> = (0..resamples)
        .map(|_| {
            let group_means: Vec<f64> = members
                .iter()
                .map(|m| {
                    let n = m.len() as u64;
                    (0..n).map(|_| m[draw_index(&mut rng, n)]).sum::<f64>() / n as f64
                })
                .collect();
            mad(&group_means)
        })
        .collect();
    resampled.sort_by(f64::total_cmp);
    Ok(GroupGap {
        means,
        mad: mad(&observed),
        interval: [
            crate::croc::quantile_sorted(&resampled, 0.025),
            crate::croc::quantile_sorted(&resampled, 0.975),
        ],
    })
}

/// The mean absolute difference between every two of `means` (for two,
/// `|means[0] − means[1]|`): the gap between groups that [`group_gap`] reports. `NaN`
/// with fewer than two values.
///
/// ```
/// let gap = recs_metrics::mean_absolute_difference(&[0.1, 0.4, 0.2]);
/// assert!((gap - (0.3 + 0.1 + 0.2) / 3.0).abs() < 1e-15);
/// ```
pub fn mean_absolute_difference(means: &[f64]) -> f64 {
    let (mut sum, mut pairs) = (0.0, 0usize);
    for (a, x) in means.iter().enumerate() {
        for y in &means[a + 1..] {
            sum += (x - y).abs();
            pairs += 1;
        }
    }
    if pairs == 0 { f64::NAN } else { sum / pairs as f64 }
}

/// One per-user mean broken down by user group ([`group_breakdown`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupBreakdown {
    /// The metric's name (`ndcg@10`).
    pub key: String,
    /// Per group, in the order of the group names given, `(mean, users counted)`.
    pub means: Vec<(Option<f64>, usize)>,
    /// The mean absolute difference of the group means and its 95% bootstrap interval;
    /// `None` when fewer than two groups have a user (`error` says why).
    pub gap: Option<(f64, [f64; 2])>,
    /// Why the gap is undefined, when it is.
    pub error: Option<String>,
}

/// Every per-user mean of `values` ([`crate::Metric::is_user_mean`]) broken down by
/// user group: `group_of(position)` is the group (an index into `n_groups`) of the user
/// in row `position` of `values`, `None` to leave the user out. The gap of each is
/// [`group_gap`] with `resamples` and `seed`.
pub fn group_breakdown(
    values: &crate::PerUser,
    n_groups: usize,
    group_of: impl Fn(usize) -> Option<usize>,
    resamples: usize,
    seed: u64,
) -> Vec<GroupBreakdown> {
    let kept: Vec<(usize, usize)> =
        (0..values.users().len()).filter_map(|at| group_of(at).map(|g| (at, g))).collect();
    let groups: Vec<usize> = kept.iter().map(|&(_, g)| g).collect();
    (0..values.metrics().len())
        .filter(|&c| values.metrics()[c].is_user_mean())
        .map(|column| {
            let key = values.metrics()[column].to_string();
            let all = values.column(column);
            let sample: Vec<f64> = kept.iter().map(|&(at, _)| all[at]).collect();
            match group_gap(&sample, &groups, n_groups, resamples, seed) {
                Ok(gap) => GroupBreakdown {
                    key,
                    means: gap.means,
                    gap: Some((gap.mad, gap.interval)),
                    error: None,
                },
                Err(e) => GroupBreakdown {
                    key,
                    means: group_means(&sample, &groups, n_groups).unwrap_or_default(),
                    gap: None,
                    error: Some(e.to_string()),
                },
            }
        })
        .collect()
}

/// Every per-user mean that reads relevance ([`crate::Metric::reads_relevance`]) broken
/// down by item group: `per_group[g]` holds the per-user values of the same metrics with
/// only group `g`'s items relevant (`crate::io::ItemGroups::masked`), for the same users
/// in the same order. Each group's mean is over its users with a value (a user without a
/// relevant item of the group is left out by the zero policy). The gap is the mean
/// absolute difference of the group means ([`mean_absolute_difference`]) with a 95%
/// percentile bootstrap interval that resamples the users, each resample one draw of
/// users with replacement shared by every group (the groups' means are paired: one user
/// has a value in several), from `Xoshiro256PlusPlus::seed_from_u64(seed)`.
///
/// # Panics
/// When the groups' values are not of the same users and metrics.
pub fn item_group_breakdown(
    per_group: &[crate::PerUser],
    resamples: usize,
    seed: u64,
) -> Vec<GroupBreakdown> {
    let Some(first) = per_group.first() else { return Vec::new() };
    assert!(
        per_group.iter().all(|p| p.users() == first.users() && p.metrics() == first.metrics()),
        "item groups: the same users and metrics in every group"
    );
    let n_users = first.users().len();
    (0..first.metrics().len())
        .filter(|&c| first.metrics()[c].is_user_mean() && first.metrics()[c].reads_relevance())
        .map(|column| {
            let key = first.metrics()[column].to_string();
            let columns: Vec<Vec<f64>> = per_group.iter().map(|p| p.column(column)).collect();
            let mean_of = |values: &[f64], users: &mut dyn Iterator<Item = usize>| {
                let (mut sum, mut n) = (0.0, 0usize);
                for at in users {
                    if !values[at].is_nan() {
                        sum += values[at];
                        n += 1;
                    }
                }
                (n > 0).then(|| sum / n as f64)
            };
            let means: Vec<(Option<f64>, usize)> = columns
                .iter()
                .map(|c| (mean_of(c, &mut (0..n_users)), c.iter().filter(|v| !v.is_nan()).count()))
                .collect();
            let observed: Vec<f64> = means.iter().filter_map(|m| m.0).collect();
            if observed.len() < 2 {
                return GroupBreakdown {
                    key,
                    means,
                    gap: None,
                    error: Some("fewer than two item groups with a relevant item".into()),
                };
            }
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut resampled: Vec<f64> = (0..resamples.max(1))
                .map(|_| {
                    let draw: Vec<usize> =
                        (0..n_users).map(|_| draw_index(&mut rng, n_users as u64)).collect();
                    let group_means: Vec<f64> = columns
                        .iter()
                        .filter_map(|c| mean_of(c, &mut draw.iter().copied()))
                        .collect();
                    mean_absolute_difference(&group_means)
                })
                .filter(|mad| !mad.is_nan())
                .collect();
            resampled.sort_by(f64::total_cmp);
            if resampled.is_empty() {
                return GroupBreakdown {
                    key,
                    means,
                    gap: None,
                    error: Some("no resample holds two item groups with a value".into()),
                };
            }
            let interval = [
                crate::croc::quantile_sorted(&resampled, 0.025),
                crate::croc::quantile_sorted(&resampled, 0.975),
            ];
            GroupBreakdown {
                key,
                means,
                gap: Some((mean_absolute_difference(&observed), interval)),
                error: None,
            }
        })
        .collect()
}

/// The pairs `(a[i], b[i])` where both are not `NaN`, as two columns.
fn pairs(a: &[f64], b: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    if a.len() != b.len() {
        return Err(MetricsError::ScoreLength { expected: a.len(), found: b.len() });
    }
    Ok(a.iter().zip(b).filter(|(x, y)| !x.is_nan() && !y.is_nan()).map(|(x, y)| (*x, *y)).unzip())
}

/// Paired two-sided t-test of `a − b` over pairs where both are not `NaN`:
/// [`recs_stats::paired_t_test`].
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::Undefined`] with
/// fewer than two pairs, zero variance of the differences (every difference the same:
/// `recs-stats` gives `t = 0` or `±∞` there) or an infinite value.
pub fn paired_t_test(a: &[f64], b: &[f64]) -> Result<TestResult> {
    const WHAT: &str = "paired t-test";
    let (x, y) = pairs(a, b)?;
    if x.len() < 2 {
        return Err(too_few(WHAT));
    }
    let test = recs_stats::paired_t_test(&x, &y).map_err(|e| refused(WHAT, e))?;
    let first = x[0] - y[0];
    if x.iter().zip(&y).all(|(p, q)| p - q == first) {
        return Err(MetricsError::Undefined {
            what: WHAT,
            reason: "the differences have zero variance",
        });
    }
    Ok(TestResult { statistic: test.statistic, p_value: test.p_value, n: test.n })
}

/// Wilcoxon signed-rank test of `a − b` (two-sided) over pairs where both are not `NaN`:
/// [`recs_stats::wilcoxon_signed_rank`] with [`WilcoxonMethod::ExactIfUntied`]. Zero
/// differences are dropped; tied absolute differences get average ranks. With at most 50
/// non-zero differences and no ties the p-value is exact (the distribution of `W+` by
/// counting); otherwise the normal approximation with the tie correction of the variance,
/// without continuity correction (scipy's default when there are no ties and no zero
/// differences; with ties on small samples recent scipy releases use an exact
/// permutation p-value instead, and with zero differences among 14 to 50 pairs the
/// normal approximation, see `docs/metrics.md`).
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::Undefined`] when
/// every difference is zero or a value is infinite.
pub fn wilcoxon_signed_rank(a: &[f64], b: &[f64]) -> Result<TestResult> {
    const WHAT: &str = "Wilcoxon test";
    let (mut x, mut y) = pairs(a, b)?;
    // recs-stats asks for two pairs; a zero difference is dropped before ranking and
    // plays no part in the choice of method, so padding with one changes nothing.
    while x.len() < 2 {
        x.push(0.0);
        y.push(0.0);
    }
    let test = recs_stats::wilcoxon_signed_rank(&x, &y, WilcoxonMethod::ExactIfUntied)
        .map_err(|e| refused(WHAT, e))?;
    if test.n == 0 {
        return Err(MetricsError::Undefined { what: WHAT, reason: "no non-zero difference" });
    }
    Ok(TestResult { statistic: test.statistic, p_value: test.p_value, n: test.n })
}

/// Mean of a per-user metric in each user group: `groups[i]` is the group of value `i`
/// (e.g. profile-length groups of cremonesi2008 §3.1). `NaN` values are left out.
/// Returns `(mean, users counted)` per group, `None` for an empty group.
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::InvalidArgument`]
/// for a group index `>= n_groups`.
pub fn group_means(
    values: &[f64],
    groups: &[usize],
    n_groups: usize,
) -> Result<Vec<(Option<f64>, usize)>> {
    if values.len() != groups.len() {
        return Err(MetricsError::ScoreLength { expected: groups.len(), found: values.len() });
    }
    let mut sums = vec![(0.0, 0usize); n_groups];
    for (&v, &g) in values.iter().zip(groups) {
        if g >= n_groups {
            return Err(MetricsError::InvalidArgument {
                name: "group",
                value: g.to_string(),
                expected: "an index below the number of groups",
            });
        }
        if !v.is_nan() {
            sums[g].0 += v;
            sums[g].1 += 1;
        }
    }
    Ok(sums.into_iter().map(|(s, c)| ((c > 0).then(|| s / c as f64), c)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_gap_by_hand_and_by_seed() {
        // Groups 0: 1, 3 (mean 2); 1: 6 (mean 6); 2: 4, 4 (mean 4); group 3 empty.
        let values = [1.0, 3.0, 6.0, 4.0, 4.0, f64::NAN];
        let groups = [0, 0, 1, 2, 2, 3];
        let gap = group_gap(&values, &groups, 4, 500, 3).unwrap();
        assert_eq!(gap.means[3], (None, 0));
        // Pairs: |2 − 6| + |2 − 4| + |6 − 4| over 3.
        assert!((gap.mad - 8.0 / 3.0).abs() < 1e-15);
        // Resampled MADs: group 0 draws means 1, 2 or 3 and group 2 stays 4, so every MAD
        // lies in [4/3 + 2/3, 10/3] = [2, 10/3] (group 0 at 3 or at 1).
        assert!(2.0 - 1e-12 <= gap.interval[0] && gap.interval[1] <= 10.0 / 3.0 + 1e-12);
        assert_eq!(gap, group_gap(&values, &groups, 4, 500, 3).unwrap());
        assert!(group_gap(&[1.0, 2.0], &[0, 0], 2, 10, 0).is_err(), "one group with users");
        assert!(group_gap(&values, &groups, 4, 0, 0).is_err());
    }

    // Reference values: scipy.stats 1.17 (t.ppf, ttest_rel, wilcoxon). The distributions
    // themselves are pinned in recs-stats.

    #[test]
    fn t_interval_and_bootstrap() {
        let x = [0.61, 0.52, 0.70, 0.44, 0.58];
        let i = t_interval(&x).unwrap();
        assert!((i.sd - 0.097_467_943_448_089_62).abs() < 1e-12);
        let half = 2.776_445_105_197_793 * i.sd / 5f64.sqrt();
        assert!((i.upper - (0.57 + half)).abs() < 1e-9);
        let b1 = bootstrap_interval(&x, 2000, 3).unwrap();
        let b2 = bootstrap_interval(&x, 2000, 3).unwrap();
        assert_eq!(b1, b2);
        assert!(b1.lower < 0.57 && b1.upper > 0.57 && b1.lower >= 0.44 && b1.upper <= 0.70);
        assert!(t_interval(&[1.0]).is_err());
        assert!(bootstrap_interval(&x, 0, 1).is_err());
    }

    #[test]
    fn paired_t_test_matches_scipy() {
        let a = [0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.60];
        let b = [0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70, 0.49, 0.58];
        let r = paired_t_test(&a, &b).unwrap();
        assert!((r.statistic - 3.971_892_281_653_051).abs() < 1e-9);
        assert!((r.p_value - 0.003_245_339_373_239_685_5).abs() < 1e-9);
        assert!(paired_t_test(&a, &a).is_err());
    }

    #[test]
    fn wilcoxon_matches_scipy_exact_and_normal() {
        let d = [1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -9.0, 10.0];
        let zeros = [0.0; 10];
        let r = wilcoxon_signed_rank(&d, &zeros).unwrap();
        assert_eq!(r.statistic, 11.0);
        assert!((r.p_value - 0.105_468_75).abs() < 1e-12);
        // n = 60 with ties: normal approximation with tie correction.
        let mut c: Vec<f64> = vec![1.0, 2.0, 2.0, 3.0, 3.0, 3.0];
        c.extend((4..=55).map(f64::from));
        c.extend([-3.0, -7.0]);
        let r = wilcoxon_signed_rank(&c, &vec![0.0; c.len()]).unwrap();
        assert_eq!(r.statistic, 17.0);
        assert!((r.p_value - 3.817_629_109_272_681e-11).abs() < 1e-15);
        assert!(wilcoxon_signed_rank(&zeros, &zeros).is_err());
    }

    #[test]
    fn wrappers_leave_out_nan_and_keep_their_errors() {
        let message = |r: Result<TestResult>| r.unwrap_err().to_string();
        assert_eq!(
            t_interval(&[1.0, f64::NAN]).unwrap_err().to_string(),
            "t interval is undefined: needs at least two values"
        );
        assert_eq!(
            bootstrap_interval(&[1.0, 2.0], 0, 1).unwrap_err().to_string(),
            "invalid value 0 for `resamples`: expected at least one resample"
        );
        assert_eq!(
            t_interval(&[1.0, f64::INFINITY]).unwrap_err().to_string(),
            "t interval is undefined: a value is infinite"
        );
        assert_eq!(
            message(paired_t_test(&[1.0], &[])),
            "1 candidates in the judgments but 0 scores"
        );
        assert_eq!(
            message(paired_t_test(&[1.0, f64::NAN], &[0.0, 0.0])),
            "paired t-test is undefined: needs at least two values"
        );
        // Constant differences, whether or not their sample variance rounds to 0.
        for shift in [0.5, 0.1] {
            assert_eq!(
                message(paired_t_test(&[shift; 3], &[0.0; 3])),
                "paired t-test is undefined: the differences have zero variance"
            );
        }
        assert_eq!(
            message(wilcoxon_signed_rank(&[0.2, f64::NAN], &[0.2, 0.5])),
            "Wilcoxon test is undefined: no non-zero difference"
        );
        assert_eq!(
            message(wilcoxon_signed_rank(&[], &[])),
            message(wilcoxon_signed_rank(&[0.0; 3], &[0.0; 3]))
        );
        // NaN pairs are left out; one non-zero difference: W = 0, p = 1.
        let r = wilcoxon_signed_rank(&[0.7, f64::NAN], &[0.2, 0.1]).unwrap();
        assert_eq!((r.statistic, r.p_value, r.n), (0.0, 1.0, 1));
        let with_nan = paired_t_test(&[0.6, 0.5, f64::NAN, 0.9], &[0.1, 0.3, 0.2, f64::NAN]);
        assert_eq!(with_nan.unwrap(), paired_t_test(&[0.6, 0.5], &[0.1, 0.3]).unwrap());
    }

    #[test]
    fn wilcoxon_is_exact_without_ties_whatever_the_zeros() {
        // 20 distinct non-zero differences and 5 zeros: exact, scipy's
        // `wilcoxon(d, method="exact")` (its `auto` counts the zeros and approximates:
        // 0.009996). Ties on a small sample: the normal approximation (`docs/metrics.md`:
        // 0.034 here, 0.047 in scipy 1.17).
        let mut d: Vec<f64> =
            (1..=20).map(|i| if i % 6 == 0 { -f64::from(i) } else { f64::from(i) }).collect();
        d.extend([0.0; 5]);
        let r = wilcoxon_signed_rank(&d, &[0.0; 25]).unwrap();
        assert_eq!((r.statistic, r.n), (36.0, 20));
        assert!((r.p_value - 0.008_308_410_644_531_25).abs() < 1e-15);
        let r = wilcoxon_signed_rank(&[1.0, 2.0, 2.0, 3.0, -1.0, 4.0, 5.0], &[0.0; 7]).unwrap();
        assert!((r.p_value - 0.034).abs() < 5e-4, "{}", r.p_value);
    }

    #[test]
    fn group_means_by_user_group() {
        let g = group_means(&[1.0, 2.0, f64::NAN, 4.0], &[0, 1, 1, 0], 3).unwrap();
        assert_eq!(g, vec![(Some(2.5), 2), (Some(2.0), 1), (None, 0)]);
        assert!(group_means(&[1.0], &[3], 3).is_err());
    }
}
