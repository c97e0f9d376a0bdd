//! Effect sizes of a paired comparison, each with a confidence interval: the mean
//! difference (Student t interval) and the standardised mean difference Cohen's `d_z`
//! (exact interval by inverting the noncentral t distribution); and the Student t
//! interval of the mean of one sample, which the mean difference is of the differences.

use serde::{Deserialize, Serialize};

use crate::distributions::{noncentral_t_noncentrality, student_t_quantile};
use crate::error::{Result, StatsError};
use crate::input::{check_finite, check_level, mean_sd, paired_differences};

/// The mean of a sample with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanInterval {
    /// The sample mean.
    pub mean: f64,
    /// The sample standard deviation (denominator `n − 1`).
    pub sd: f64,
    /// The sample size.
    pub n: usize,
    /// The confidence level of the interval (0.95 for a 95% interval).
    pub level: f64,
    /// The lower end of the interval.
    pub lower: f64,
    /// The upper end of the interval.
    pub upper: f64,
}

/// The mean paired difference with its confidence interval: the [`MeanInterval`] of the
/// differences `a[i] − b[i]`, so `mean` is `d̄`, `sd` is `s`, the standard deviation of
/// the differences, and `n` the number of users.
pub type MeanDifference = MeanInterval;

/// The mean `x̄` of one sample (the per-user values of one system, a metric over folds)
/// and its Student t interval `x̄ ± t_{(1 + level)/2, n−1} · s / √n`, with `s` the
/// standard deviation (denominator `n − 1`): the interval of
/// `scipy.stats.ttest_1samp(x, 0).confidence_interval(level)`. When every value is the
/// same, `s = 0` exactly and the interval is that value.
///
/// ```
/// let interval = recs_stats::mean_interval(&[0.61, 0.52, 0.70, 0.44, 0.58], 0.95)?;
/// assert!((interval.mean - 0.57).abs() < 1e-12);
/// // t_{0.975, 4} = 2.776445105197793 (scipy.stats.t.ppf).
/// let half = 2.776_445_105_197_793 * interval.sd / 5f64.sqrt();
/// assert!((interval.upper - (interval.mean + half)).abs() < 1e-12);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::InvalidLevel`] unless `0 < level < 1`, [`StatsError::TooFewUsers`]
/// with fewer than 2 values and [`StatsError::NonFinite`] for a `NaN` or infinite one.
pub fn mean_interval(values: &[f64], level: f64) -> Result<MeanInterval> {
    check_level(level)?;
    if values.len() < 2 {
        return Err(StatsError::TooFewUsers { what: "the mean interval", found: values.len() });
    }
    check_finite("values", values)?;
    Ok(t_interval(values, level))
}

/// The mean difference `d̄` of `a − b` and its Student t interval
/// `d̄ ± t_{(1 + level)/2, n−1} · s / √n`: [`mean_interval`] of the differences, the
/// interval of `scipy.stats.ttest_rel(a, b).confidence_interval(level)`.
///
/// ```
/// let effect = recs_stats::mean_difference(&[0.5, 0.7, 0.6], &[0.4, 0.5, 0.6], 0.95)?;
/// assert!((effect.mean - 0.1).abs() < 1e-12);
/// assert!(effect.lower < 0.0 && effect.upper > 0.2);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::InvalidLevel`] unless `0 < level < 1`, and the input errors of
/// [`paired_t_test`](crate::paired_t_test).
pub fn mean_difference(a: &[f64], b: &[f64], level: f64) -> Result<MeanDifference> {
    check_level(level)?;
    let d = paired_differences("the mean difference", a, b)?;
    Ok(t_interval(&d, level))
}

/// The Student t interval of the mean of at least two checked values.
fn t_interval(values: &[f64], level: f64) -> MeanInterval {
    let n = values.len();
    let (mean, sd) = mean_sd(values);
    let half = student_t_quantile((1.0 + level) / 2.0, (n - 1) as f64) * sd / (n as f64).sqrt();
    MeanInterval { mean, sd, n, level, lower: mean - half, upper: mean + half }
}

/// Cohen's `d_z` with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CohensDz {
    /// `d_z = d̄ / s`.
    pub d_z: f64,
    /// The number of users.
    pub n: usize,
    /// The confidence level of the interval.
    pub level: f64,
    /// The lower end of the interval.
    pub lower: f64,
    /// The upper end of the interval.
    pub upper: f64,
}

/// Cohen's `d_z = d̄ / s`, the mean paired difference in units of the standard deviation
/// of the differences, with its exact confidence interval: `t = d_z √n` follows the
/// noncentral t distribution with `n − 1` degrees of freedom and noncentrality `δ √n`
/// (`δ` the population `d_z`), so the interval is `[δ_L, δ_U] / √n` where
/// `F(t; n − 1, δ_L) = (1 + level)/2` and `F(t; n − 1, δ_U) = (1 − level)/2` (the
/// noncentral-t method; Cumming & Finch 2001, Goulet-Pelletier & Cousineau 2018). For
/// `t < 0` the interval is the mirror image of that of `−t`, so swapping `a` and `b`
/// negates `d_z` and the interval exactly.
///
/// When every difference is zero, `d_z = 0` and the interval is `[0, 0]`: the systems
/// agree on every user.
///
/// ```
/// let a = [0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.60];
/// let b = [0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70, 0.49, 0.58];
/// let effect = recs_stats::cohens_dz(&a, &b, 0.95)?;
/// assert!(effect.lower > 0.0 && effect.lower < effect.d_z && effect.d_z < effect.upper);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// As [`mean_difference`], and [`StatsError::Undefined`] when every difference is the
/// same non-zero value (`s = 0`, so `d_z` would be infinite).
pub fn cohens_dz(a: &[f64], b: &[f64], level: f64) -> Result<CohensDz> {
    check_level(level)?;
    let d = paired_differences("Cohen's d_z", a, b)?;
    let n = d.len();
    let (mean, sd) = mean_sd(&d);
    if sd == 0.0 {
        if mean == 0.0 {
            return Ok(CohensDz { d_z: 0.0, n, level, lower: 0.0, upper: 0.0 });
        }
        return Err(StatsError::Undefined {
            what: "Cohen's d_z",
            reason: "every difference is the same non-zero value, so their standard deviation is 0",
        });
    }
    let d_z = mean / sd;
    let root_n = (n as f64).sqrt();
    let t = d_z.abs() * root_n;
    let df = (n - 1) as f64;
    let high = noncentral_t_noncentrality(t, df, (1.0 - level) / 2.0) / root_n;
    // At t = 0 the interval is symmetric (F(0; ν, δ) = Φ(−δ)): make it so exactly.
    let low = if t == 0.0 {
        -high
    } else {
        noncentral_t_noncentrality(t, df, (1.0 + level) / 2.0) / root_n
    };
    let (lower, upper) = if d_z < 0.0 { (-high, -low) } else { (low, high) };
    Ok(CohensDz { d_z, n, level, lower, upper })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_difference_by_hand() {
        // d = (1, 2, 3, 4, 5): mean 3, s = √2.5, t_{0.975, 4} = 2.776445105197793.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let r = mean_difference(&a, &[0.0; 5], 0.95).unwrap();
        let half = 2.776_445_105_197_793 * 2.5f64.sqrt() / 5f64.sqrt();
        assert_eq!((r.mean, r.n), (3.0, 5));
        assert!((r.lower - (3.0 - half)).abs() < 1e-13 && (r.upper - (3.0 + half)).abs() < 1e-13);
        assert!(mean_difference(&a, &a, 1.0).is_err());
    }

    #[test]
    fn mean_interval_is_the_mean_difference_from_zero() {
        let x = [0.61, 0.52, 0.70, 0.44, 0.58];
        let r = mean_interval(&x, 0.9).unwrap();
        assert_eq!(r, mean_difference(&x, &[0.0; 5], 0.9).unwrap());
        assert_eq!(mean_interval(&[0.3, 0.3, 0.3], 0.95).unwrap().upper, 0.3);
        let e = mean_interval(&[1.0], 0.95).unwrap_err();
        assert_eq!(e, StatsError::TooFewUsers { what: "the mean interval", found: 1 });
        let e = mean_interval(&[1.0, f64::INFINITY], 0.95).unwrap_err();
        assert_eq!(e.to_string(), "values[1] is inf: every value must be a finite number");
        assert!(mean_interval(&x, 0.0).is_err());
    }

    #[test]
    fn cohens_dz_interval_covers_and_mirrors() {
        let a = [0.9, 0.4, 0.7, 0.8, 0.3, 0.6];
        let b = [0.5, 0.5, 0.4, 0.6, 0.2, 0.5];
        let r = cohens_dz(&a, &b, 0.95).unwrap();
        let (mean, sd) = mean_sd(&[0.4, -0.1, 0.3, 0.2, 0.1, 0.1]);
        assert!((r.d_z - mean / sd).abs() < 1e-12);
        assert!(r.lower < r.d_z && r.d_z < r.upper);
        let swapped = cohens_dz(&b, &a, 0.95).unwrap();
        assert_eq!((swapped.d_z, swapped.lower, swapped.upper), (-r.d_z, -r.upper, -r.lower));
        // A wider level gives a wider interval.
        let wide = cohens_dz(&a, &b, 0.99).unwrap();
        assert!(wide.lower < r.lower && wide.upper > r.upper);
    }

    #[test]
    fn cohens_dz_of_constant_differences() {
        let same = cohens_dz(&[0.2, 0.4], &[0.2, 0.4], 0.95).unwrap();
        assert_eq!((same.d_z, same.lower, same.upper), (0.0, 0.0, 0.0));
        let shifted = cohens_dz(&[1.0, 2.0], &[0.0, 1.0], 0.95).unwrap_err();
        assert!(matches!(shifted, StatsError::Undefined { what: "Cohen's d_z", .. }));
    }
}
