//! Aggregation over users or folds: mean, standard deviation, 95% intervals (Student t
//! and seeded bootstrap), paired comparisons (paired t-test, Wilcoxon signed-rank) and
//! group breakdowns. Distributions are computed here (regularized incomplete beta and
//! gamma functions by continued fractions, Lanczos log-gamma); tests pin them to
//! reference values.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    (mean, (ss / (n - 1.0)).sqrt())
}

fn too_few(what: &'static str) -> MetricsError {
    MetricsError::Undefined { what, reason: "needs at least two values" }
}

/// Mean ± `t_{0.975, n−1} · sd / √n` over the non-`NaN` values (users or folds).
///
/// ```
/// let i = recs_metrics::t_interval(&[0.61, 0.52, 0.70, 0.44, 0.58])?;
/// assert!((i.mean - 0.57).abs() < 1e-12);
/// assert!(i.lower < 0.57 && 0.57 < i.upper);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Undefined`] with fewer than two values.
pub fn t_interval(values: &[f64]) -> Result<Interval> {
    let v = finite(values);
    if v.len() < 2 {
        return Err(too_few("t interval"));
    }
    let (mean, sd) = mean_sd(&v);
    let half = student_t_quantile(0.975, (v.len() - 1) as f64) * sd / (v.len() as f64).sqrt();
    Ok(Interval { mean, sd, n: v.len(), lower: mean - half, upper: mean + half })
}

/// Percentile bootstrap interval of the mean: `resamples` resamples with replacement
/// drawn from `Xoshiro256PlusPlus::seed_from_u64(seed)`, the 2.5% and 97.5% quantiles of
/// their means (linear interpolation). Deterministic for a seed.
///
/// # Errors
/// [`MetricsError::Undefined`] with fewer than two values;
/// [`MetricsError::InvalidArgument`] when `resamples == 0`.
pub fn bootstrap_interval(values: &[f64], resamples: usize, seed: u64) -> Result<Interval> {
    let v = finite(values);
    if v.len() < 2 {
        return Err(too_few("bootstrap interval"));
    }
    if resamples == 0 {
        return Err(MetricsError::InvalidArgument {
            name: "resamples",
            value: "0".into(),
            expected: "at least one resample",
        });
    }
    let (mean, sd) = mean_sd(&v);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = v.len() as u64;
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..n {
                // Unbiased index by rejection of the top partial range.
                let zone = u64::MAX - (u64::MAX % n) - 1;
                let index = loop {
                    let x = rng.next_u64();
                    if x <= zone {
                        break x % n;
                    }
                };
                sum += v[index as usize];
            }
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    Ok(Interval {
        mean,
        sd,
        n: v.len(),
        lower: crate::croc::quantile_sorted(&means, 0.025),
        upper: crate::croc::quantile_sorted(&means, 0.975),
    })
}

/// Paired two-sided t-test of `a − b` over pairs where both are not `NaN`.
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::Undefined`] with
/// fewer than two pairs or zero variance of the differences.
pub fn paired_t_test(a: &[f64], b: &[f64]) -> Result<TestResult> {
    let d = differences(a, b)?;
    if d.len() < 2 {
        return Err(too_few("paired t-test"));
    }
    let (mean, sd) = mean_sd(&d);
    if sd == 0.0 {
        return Err(MetricsError::Undefined {
            what: "paired t-test",
            reason: "the differences have zero variance",
        });
    }
    let t = mean / (sd / (d.len() as f64).sqrt());
    let df = (d.len() - 1) as f64;
    Ok(TestResult { statistic: t, p_value: student_t_two_sided(t, df), n: d.len() })
}

fn differences(a: &[f64], b: &[f64]) -> Result<Vec<f64>> {
    if a.len() != b.len() {
        return Err(MetricsError::ScoreLength { expected: a.len(), found: b.len() });
    }
    Ok(a.iter().zip(b).filter(|(x, y)| !x.is_nan() && !y.is_nan()).map(|(x, y)| x - y).collect())
}

/// Wilcoxon signed-rank test of `a − b` (two-sided). Zero differences are dropped; tied
/// absolute differences get average ranks. With at most 50 non-zero differences and no
/// ties the p-value is exact (the distribution of `W+` by counting); otherwise the normal
/// approximation with the tie correction of the variance, without continuity correction
/// (scipy's default when there are no ties; with ties on small samples recent scipy
/// releases use an exact permutation p-value instead, see `docs/metrics.md`).
///
/// # Errors
/// [`MetricsError::ScoreLength`] on different lengths; [`MetricsError::Undefined`] when
/// every difference is zero.
pub fn wilcoxon_signed_rank(a: &[f64], b: &[f64]) -> Result<TestResult> {
    let mut d: Vec<f64> = differences(a, b)?.into_iter().filter(|&x| x != 0.0).collect();
    let n = d.len();
    if n == 0 {
        return Err(MetricsError::Undefined {
            what: "Wilcoxon test",
            reason: "no non-zero difference",
        });
    }
    d.sort_by(|x, y| x.abs().total_cmp(&y.abs()));
    let mut w_plus = 0.0;
    let mut tie_term = 0.0;
    let mut has_ties = false;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && d[j].abs() == d[i].abs() {
            j += 1;
        }
        let t = (j - i) as f64;
        if j - i > 1 {
            has_ties = true;
            tie_term += t * t * t - t;
        }
        let rank = (i + 1 + j) as f64 / 2.0;
        w_plus += d[i..j].iter().filter(|x| **x > 0.0).count() as f64 * rank;
        i = j;
    }
    let total = (n * (n + 1)) as f64 / 2.0;
    let statistic = w_plus.min(total - w_plus);
    let p_value = if n <= 50 && !has_ties {
        // counts[s] = number of sign assignments with W+ = s.
        let max = n * (n + 1) / 2;
        let mut counts = vec![0.0f64; max + 1];
        counts[0] = 1.0;
        for r in 1..=n {
            for s in (r..=max).rev() {
                counts[s] += counts[s - r];
            }
        }
        let all = 2f64.powi(n as i32);
        let k = statistic as usize;
        let tail: f64 = counts[..=k].iter().sum::<f64>() / all;
        (2.0 * tail).min(1.0)
    } else {
        let mean = total / 2.0;
        let var = (n * (n + 1) * (2 * n + 1)) as f64 / 24.0 - tie_term / 48.0;
        let z = (statistic - mean) / var.sqrt();
        normal_two_sided(z)
    };
    Ok(TestResult { statistic, p_value, n })
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

// ---- distributions -------------------------------------------------------------------

/// `ln Γ(x)` for `x > 0` (Lanczos approximation, g = 7, nine coefficients).
fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = COEFFICIENTS[0];
    let t = x + 7.5;
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (modified Lentz).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let fix = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / fix(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// Regularized incomplete beta function `I_x(a, b)`.
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

/// `P(|T| ≥ |t|)` for Student's t with `df` degrees of freedom: `I_{df/(df+t²)}(df/2, 1/2)`.
fn student_t_two_sided(t: f64, df: f64) -> f64 {
    regularized_beta(df / (df + t * t), df / 2.0, 0.5)
}

/// The `q` quantile (`q > 0.5`) of Student's t, by bisection on the two-sided tail.
fn student_t_quantile(q: f64, df: f64) -> f64 {
    let target = 2.0 * (1.0 - q);
    let (mut lo, mut hi) = (0.0, 1.0);
    while student_t_two_sided(hi, df) > target {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_two_sided(mid, df) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Upper regularized incomplete gamma `Q(a, x)` (series below `a + 1`, continued fraction
/// above).
fn regularized_gamma_upper(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_front = -x + a * x.ln() - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * log_front.exp()
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        log_front.exp() * h
    }
}

/// `P(|Z| ≥ |z|)` for a standard normal: `erfc(|z|/√2) = Q(1/2, z²/2)`.
fn normal_two_sided(z: f64) -> f64 {
    regularized_gamma_upper(0.5, z * z / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: scipy.stats 1.17 (t.ppf, norm.sf, ttest_rel, wilcoxon).

    #[test]
    fn distributions_match_reference_values() {
        assert!((student_t_quantile(0.975, 10.0) - 2.228_138_851_986_274).abs() < 1e-9);
        assert!((student_t_quantile(0.975, 1.0) - 12.706_204_736_174_694).abs() < 1e-7);
        assert!((normal_two_sided(1.96) - 0.049_995_790_296_440_87).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

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
    fn group_means_by_user_group() {
        let g = group_means(&[1.0, 2.0, f64::NAN, 4.0], &[0, 1, 1, 0], 3).unwrap();
        assert_eq!(g, vec![(Some(2.5), 2), (Some(2.0), 1), (None, 0)]);
        assert!(group_means(&[1.0], &[3], 3).is_err());
    }
}
