//! The classical paired tests over per-user values: Student's paired t-test, the Wilcoxon
//! signed-rank test and the sign test, all two-sided, on the differences
//! `dᵢ = a[i] − b[i]`. Definitions with their formulas are in `docs/statistics.md`.

use serde::{Deserialize, Serialize};

use crate::distributions::{binomial_half_cdf, normal_two_sided, student_t_two_sided};
use crate::error::{Result, StatsError};
use crate::input::{mean_sd, paired_differences};

/// The result of a two-sided paired test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// The test statistic: `t` for the t-test, the number of users with `a > b` for the
    /// sign test.
    pub statistic: f64,
    /// The two-sided p-value.
    pub p_value: f64,
    /// The number of users the test used (the sign test drops zero differences).
    pub n: usize,
}

/// Student's paired t-test of `a − b`, two-sided: with `d̄` and `s` the mean and standard
/// deviation (denominator `n − 1`) of the differences, `t = d̄ / (s / √n)` and
/// `p = P(|T_{n−1}| ≥ |t|)`. The same as `scipy.stats.ttest_rel(a, b)`.
///
/// When every difference is the same value `c`, `s` is exactly 0: `c = 0` (the systems
/// agree on every user) gives `t = 0` and `p = 1` (scipy gives `NaN`); `c ≠ 0` gives
/// `t = ±∞` and `p = 0`, as scipy does.
///
/// ```
/// let a = [0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.60];
/// let b = [0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70, 0.49, 0.58];
/// let test = recs_stats::paired_t_test(&a, &b)?;
/// assert!((test.statistic - 3.971_892_281_653_051).abs() < 1e-9);
/// assert!(test.p_value < 0.01);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::UnequalLengths`], [`StatsError::TooFewUsers`] (fewer than 2),
/// [`StatsError::NonFinite`] and [`StatsError::DifferenceOverflow`].
pub fn paired_t_test(a: &[f64], b: &[f64]) -> Result<PairedTest> {
    let d = paired_differences("the paired t-test", a, b)?;
    let n = d.len();
    let (mean, sd) = mean_sd(&d);
    let (statistic, p_value) = if sd == 0.0 {
        if mean == 0.0 { (0.0, 1.0) } else { (mean.signum() * f64::INFINITY, 0.0) }
    } else {
        let t = mean / (sd / (n as f64).sqrt());
        (t, student_t_two_sided(t, (n - 1) as f64))
    };
    Ok(PairedTest { statistic, p_value, n })
}

/// The sign test of `a − b`, two-sided: zero differences are dropped, `k` users of the
/// remaining `n` have `a > b`, and under the null hypothesis `k ~ Binomial(n, ½)`, so
/// `p = min(1, 2 P(X ≤ min(k, n − k)))`, exactly. The same as
/// `scipy.stats.binomtest(k, n, 0.5)`. With no non-zero difference, `k = n = 0` and
/// `p = 1`.
///
/// # Errors
/// As [`paired_t_test`].
pub fn sign_test(a: &[f64], b: &[f64]) -> Result<PairedTest> {
    let d = paired_differences("the sign test", a, b)?;
    let positive = d.iter().filter(|&&x| x > 0.0).count() as u64;
    let negative = d.iter().filter(|&&x| x < 0.0).count() as u64;
    let n = positive + negative;
    let p_value = (2.0 * binomial_half_cdf(positive.min(negative), n)).min(1.0);
    Ok(PairedTest { statistic: positive as f64, p_value, n: n as usize })
}

/// How the Wilcoxon signed-rank test gets its p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum WilcoxonMethod {
    /// The choice of `scipy.stats.wilcoxon(method="auto")` (scipy 1.17), counting `n`
    /// with the zero differences: the normal approximation without continuity
    /// correction when `n > 50`; otherwise the exact distribution when no difference is
    /// zero and no two absolute differences tie, the exact conditional distribution
    /// (ties keep their average ranks) when `n ≤ 13`, and the normal approximation
    /// without continuity correction in between.
    #[default]
    Auto,
    /// The exact distribution of `W⁺` over the `2^n'` sign assignments of the `n'`
    /// non-zero differences, with tied absolute differences keeping their average ranks
    /// (the exact conditional distribution; the classical one when nothing ties). Costs
    /// `O(n'³)`; refused beyond [`WILCOXON_EXACT_MAX`] differences.
    Exact,
    /// The normal approximation of `W⁺` with the tie-corrected variance.
    Normal {
        /// Move `W⁺` half a unit toward its mean before standardising (scipy's
        /// `correction=True`).
        continuity_correction: bool,
    },
    /// The exact distribution when at most 50 differences are non-zero and no two of
    /// their absolute values tie; otherwise the normal approximation with the
    /// tie-corrected variance, without continuity correction. Unlike
    /// [`Auto`](Self::Auto), the zero differences play no part in the choice, and ties
    /// always get the normal approximation, never the exact conditional distribution.
    /// The rule of `recs_metrics::wilcoxon_signed_rank`.
    ExactIfUntied,
}

/// The largest number of non-zero differences [`WilcoxonMethod::Exact`] accepts.
pub const WILCOXON_EXACT_MAX: usize = 1_000;

/// The result of a Wilcoxon signed-rank test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WilcoxonTest {
    /// `min(W⁺, W⁻)`: the smaller of the rank sums of the positive and of the negative
    /// differences (scipy's two-sided statistic).
    pub statistic: f64,
    /// `W⁺`, the rank sum of the positive differences.
    pub w_plus: f64,
    /// The two-sided p-value.
    pub p_value: f64,
    /// The number of non-zero differences, `n'`.
    pub n: usize,
    /// The standardised statistic `(W⁺ − μ ∓ ½) / σ` when the normal approximation gave
    /// the p-value (the `∓ ½` only with continuity correction), `None` when the exact
    /// distribution did.
    pub z: Option<f64>,
}

/// The Wilcoxon signed-rank test of `a − b`, two-sided, with scipy's default treatment of
/// zeros (`zero_method="wilcox"`: zero differences are dropped before ranking). The `n'`
/// non-zero `|dᵢ|` are ranked from 1, ties taking their average rank; `W⁺` and `W⁻` are
/// the rank sums of the positive and negative differences. The normal approximation uses
/// `μ = n'(n' + 1)/4` and `σ² = n'(n' + 1)(2n' + 1)/24 − Σ(tⱼ³ − tⱼ)/48` over the tie
/// groups `tⱼ` of the non-zero differences, `z = (W⁺ − μ − c)/σ` with
/// `c = ½ sign(W⁺ − μ)` under continuity correction and 0 otherwise, and `p = P(|Z| ≥
/// |z|)`; the exact distributions give `p = min(1, 2 P(W⁺ ≤ min(W⁺, W⁻)))`. With no
/// non-zero difference, `W⁺ = W⁻ = 0`, `n = 0` and `p = 1` (scipy gives `NaN`).
///
/// # Errors
/// As [`paired_t_test`], and [`StatsError::ExactTooLarge`] for [`WilcoxonMethod::Exact`]
/// with more than [`WILCOXON_EXACT_MAX`] non-zero differences.
pub fn wilcoxon_signed_rank(a: &[f64], b: &[f64], method: WilcoxonMethod) -> Result<WilcoxonTest> {
    let d = paired_differences("the Wilcoxon signed-rank test", a, b)?;
    let n_pairs = d.len();
    let mut nonzero: Vec<f64> = d.into_iter().filter(|&x| x != 0.0).collect();
    let n = nonzero.len();
    let has_zeros = n < n_pairs;
    if n == 0 {
        return Ok(WilcoxonTest { statistic: 0.0, w_plus: 0.0, p_value: 1.0, n: 0, z: None });
    }
    nonzero.sort_by(|x, y| x.abs().total_cmp(&y.abs()));
    // Doubled ranks are integers: a tie group at sorted positions i..j (0-based) has the
    // average rank (i + 1 + j)/2.
    let mut doubled_ranks = Vec::with_capacity(n);
    let mut doubled_w_plus: u64 = 0;
    let mut tie_term = 0.0;
    let mut has_ties = false;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && nonzero[j].abs() == nonzero[i].abs() {
            j += 1;
        }
        let size = (j - i) as f64;
        if j - i > 1 {
            has_ties = true;
            tie_term += size * size * size - size;
        }
        let doubled = (i + 1 + j) as u64;
        for x in &nonzero[i..j] {
            doubled_ranks.push(doubled);
            if *x > 0.0 {
                doubled_w_plus += doubled;
            }
        }
        i = j;
    }
    let doubled_total = (n * (n + 1)) as u64;
    let w_plus = doubled_w_plus as f64 / 2.0;
    let statistic = doubled_w_plus.min(doubled_total - doubled_w_plus) as f64 / 2.0;
    let method = match method {
        WilcoxonMethod::Auto if n_pairs > 50 => {
            WilcoxonMethod::Normal { continuity_correction: false }
        }
        WilcoxonMethod::Auto if !(has_ties || has_zeros) || n_pairs <= 13 => WilcoxonMethod::Exact,
        WilcoxonMethod::Auto => WilcoxonMethod::Normal { continuity_correction: false },
        WilcoxonMethod::ExactIfUntied if n <= 50 && !has_ties => WilcoxonMethod::Exact,
        WilcoxonMethod::ExactIfUntied => WilcoxonMethod::Normal { continuity_correction: false },
        other => other,
    };
    match method {
        WilcoxonMethod::Normal { continuity_correction } => {
            let nf = n as f64;
            let mean = nf * (nf + 1.0) / 4.0;
            let sd = ((nf * (nf + 1.0) * (2.0 * nf + 1.0) - tie_term / 2.0) / 24.0).sqrt();
            let shift = if continuity_correction { 0.5 * (w_plus - mean).signum() } else { 0.0 };
            let z = (w_plus - mean - shift) / sd;
            Ok(WilcoxonTest { statistic, w_plus, p_value: normal_two_sided(z), n, z: Some(z) })
        }
        _ => {
            if n > WILCOXON_EXACT_MAX {
                return Err(StatsError::ExactTooLarge { n, max: WILCOXON_EXACT_MAX });
            }
            let low = doubled_w_plus.min(doubled_total - doubled_w_plus);
            let p_value = (2.0 * signed_rank_cdf(&doubled_ranks, low)).min(1.0);
            Ok(WilcoxonTest { statistic, w_plus, p_value, n, z: None })
        }
    }
}

/// `P(S ≤ limit)` for `S = Σ rᵢ εᵢ`, the `εᵢ` independent and 0 or 1 with probability ½
/// each (the signs of a signed-rank statistic), by dynamic programming over the integer
/// sums: `mass[s]` is `P(S = s)` after each rank is added.
fn signed_rank_cdf(ranks: &[u64], limit: u64) -> f64 {
    let total: u64 = ranks.iter().sum();
    let mut mass = vec![0.0f64; total as usize + 1];
    mass[0] = 1.0;
    let mut reach = 0usize;
    for &r in ranks {
        let r = r as usize;
        reach += r;
        for s in (0..=reach).rev() {
            let with = if s >= r { mass[s - r] } else { 0.0 };
            mass[s] = 0.5 * (mass[s] + with);
        }
    }
    mass[..=limit.min(total) as usize].iter().sum::<f64>().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zeros(n: usize) -> Vec<f64> {
        vec![0.0; n]
    }

    #[test]
    fn t_test_by_hand() {
        // d = (1, 2, 3, 4): mean 2.5, s² = 5/3, t = 2.5 / √(5/12).
        let r = paired_t_test(&[2.0, 4.0, 6.0, 8.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((r.statistic - 2.5 / (5.0f64 / 12.0).sqrt()).abs() < 1e-14);
        assert_eq!(r.n, 4);
        // Two users, d = (1, 3): t = 2 / (√2/√2) = 2 with 1 degree of freedom (Cauchy):
        // p = 1 − 2 atan(2)/π.
        let r = paired_t_test(&[1.0, 3.0], &[0.0, 0.0]).unwrap();
        assert!((r.statistic - 2.0).abs() < 1e-15);
        let cauchy = 1.0 - 2.0 * 2f64.atan() / std::f64::consts::PI;
        assert!((r.p_value - cauchy).abs() < 1e-14);
    }

    #[test]
    fn t_test_of_constant_differences() {
        let same = paired_t_test(&[0.3, 0.1, 0.7], &[0.3, 0.1, 0.7]).unwrap();
        assert_eq!((same.statistic, same.p_value), (0.0, 1.0));
        let shifted = paired_t_test(&[1.0, 2.0, 3.0], &[0.5, 1.5, 2.5]).unwrap();
        assert_eq!((shifted.statistic, shifted.p_value), (f64::INFINITY, 0.0));
    }

    #[test]
    fn sign_test_by_counting() {
        // 7 users better, 2 worse, 1 tied: n = 9, p = 2 (1 + 9 + 36) / 512.
        let a = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.5];
        let b = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5];
        let r = sign_test(&a, &b).unwrap();
        assert_eq!((r.statistic, r.n), (7.0, 9));
        assert!((r.p_value - 92.0 / 512.0).abs() < 1e-15);
        let balanced = sign_test(&[1.0, 0.0], &[0.0, 1.0]).unwrap();
        assert_eq!(balanced.p_value, 1.0);
        let none = sign_test(&[1.0, 2.0], &[1.0, 2.0]).unwrap();
        assert_eq!((none.n, none.p_value), (0, 1.0));
    }

    #[test]
    fn wilcoxon_exact_by_counting() {
        // d = (1, −2, 3): W⁺ = 4, W⁻ = 2; of the 8 sign patterns, W⁺ ≤ 2 for
        // {}, {1}, {2}: p = 2 · 3/8.
        let r = wilcoxon_signed_rank(&[1.0, -2.0, 3.0], &zeros(3), WilcoxonMethod::Auto).unwrap();
        assert_eq!((r.statistic, r.w_plus, r.n, r.z), (2.0, 4.0, 3, None));
        assert!((r.p_value - 0.75).abs() < 1e-15);
        // scipy.stats.wilcoxon([1, -2, 3, 4, 5, 6, 7, 8, -9, 10]): 11.0, 0.10546875.
        let d = [1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -9.0, 10.0];
        let r = wilcoxon_signed_rank(&d, &zeros(10), WilcoxonMethod::Auto).unwrap();
        assert_eq!(r.statistic, 11.0);
        assert!((r.p_value - 0.105_468_75).abs() < 1e-15);
    }

    #[test]
    fn wilcoxon_exact_with_ties_counts_average_ranks() {
        // d = (1, 1, −2): ranks 1.5, 1.5, 3; W⁺ = 3, W⁻ = 3: p = 1. d = (1, 1, 2, −1):
        // ranks 2, 2, 4, 2; W⁻ = 2, and P(W⁺ ≤ 2) = P(no sign or one of the three 2s) = 4/16.
        let r = wilcoxon_signed_rank(&[1.0, 1.0, -2.0], &zeros(3), WilcoxonMethod::Exact).unwrap();
        assert_eq!((r.statistic, r.p_value), (3.0, 1.0));
        let d = [1.0, 1.0, 2.0, -1.0];
        let r = wilcoxon_signed_rank(&d, &zeros(4), WilcoxonMethod::Exact).unwrap();
        assert_eq!(r.statistic, 2.0);
        assert!((r.p_value - 0.5).abs() < 1e-15);
    }

    #[test]
    fn wilcoxon_normal_by_hand() {
        // d = (1, 2, 3, −4): W⁺ = 6, μ = 5, σ² = 4·5·9/24 = 7.5.
        let d = [1.0, 2.0, 3.0, -4.0];
        let plain = WilcoxonMethod::Normal { continuity_correction: false };
        let r = wilcoxon_signed_rank(&d, &zeros(4), plain).unwrap();
        assert!((r.z.unwrap() - 1.0 / 7.5f64.sqrt()).abs() < 1e-15);
        let corrected = WilcoxonMethod::Normal { continuity_correction: true };
        let r = wilcoxon_signed_rank(&d, &zeros(4), corrected).unwrap();
        assert!((r.z.unwrap() - 0.5 / 7.5f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn wilcoxon_exact_if_untied_ignores_zeros_and_never_conditions_on_ties() {
        // 14 distinct non-zero differences and a zero: Auto counts 15 pairs with a zero
        // and approximates; ExactIfUntied counts the 14 and is exact.
        let mut d: Vec<f64> = (1..=14).map(f64::from).collect();
        d[2] = -3.0;
        d.push(0.0);
        let untied = wilcoxon_signed_rank(&d, &zeros(15), WilcoxonMethod::ExactIfUntied).unwrap();
        let exact = wilcoxon_signed_rank(&d, &zeros(15), WilcoxonMethod::Exact).unwrap();
        assert_eq!((untied, untied.n), (exact, 14));
        assert!(wilcoxon_signed_rank(&d, &zeros(15), WilcoxonMethod::Auto).unwrap().z.is_some());
        // d = (1, 2, 2, 3, −1, 4, 5): ranks 1.5 (twice), 3.5 (twice), 5, 6, 7; W⁻ = 1.5,
        // μ = 14, σ² = 7·8·15/24 − (6 + 6)/48 = 34.75. Auto is exact (conditional) here.
        let d = [1.0, 2.0, 2.0, 3.0, -1.0, 4.0, 5.0];
        let r = wilcoxon_signed_rank(&d, &zeros(7), WilcoxonMethod::ExactIfUntied).unwrap();
        let plain = WilcoxonMethod::Normal { continuity_correction: false };
        assert_eq!(r, wilcoxon_signed_rank(&d, &zeros(7), plain).unwrap());
        assert_eq!(r.statistic, 1.5);
        assert!((r.z.unwrap() - 12.5 / 34.75f64.sqrt()).abs() < 1e-15);
        assert!(wilcoxon_signed_rank(&d, &zeros(7), WilcoxonMethod::Auto).unwrap().z.is_none());
        // 51 distinct non-zero differences: the normal approximation.
        let d: Vec<f64> =
            (1..=51).map(|i| if i % 7 == 0 { -f64::from(i) } else { f64::from(i) }).collect();
        let r = wilcoxon_signed_rank(&d, &zeros(51), WilcoxonMethod::ExactIfUntied).unwrap();
        assert_eq!(r, wilcoxon_signed_rank(&d, &zeros(51), plain).unwrap());
    }

    #[test]
    fn wilcoxon_without_nonzero_difference_and_too_large_exact() {
        let r = wilcoxon_signed_rank(&[1.0, 2.0], &[1.0, 2.0], WilcoxonMethod::Auto).unwrap();
        assert_eq!((r.n, r.p_value, r.statistic), (0, 1.0, 0.0));
        let big: Vec<f64> = (1..=1_001).map(f64::from).collect();
        let e = wilcoxon_signed_rank(&big, &zeros(1_001), WilcoxonMethod::Exact).unwrap_err();
        assert_eq!(e, StatsError::ExactTooLarge { n: 1_001, max: WILCOXON_EXACT_MAX });
    }
}
