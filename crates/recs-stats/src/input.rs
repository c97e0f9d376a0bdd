//! Checks shared by every statistic: equal lengths, at least two users, finite values.
//! Every public function runs its input through here first, so the statistics below
//! work on checked data only.

use crate::error::{Result, StatsError};

/// Fails on the first value of `values` that is `NaN` or infinite.
pub(crate) fn check_finite(which: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => {
            Err(StatsError::NonFinite { which: which.to_string(), index, value: values[index] })
        }
        None => Ok(()),
    }
}

/// The per-user differences `a[i] − b[i]` after every check: equal lengths, at least two
/// users, finite values, finite differences. `what` names the statistic in errors.
pub(crate) fn paired_differences(what: &'static str, a: &[f64], b: &[f64]) -> Result<Vec<f64>> {
    if a.len() != b.len() {
        return Err(StatsError::UnequalLengths {
            which: "b".to_string(),
            found: b.len(),
            reference: "a".to_string(),
            expected: a.len(),
        });
    }
    if a.len() < 2 {
        return Err(StatsError::TooFewUsers { what, found: a.len() });
    }
    check_finite("a", a)?;
    check_finite("b", b)?;
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(index, (x, y))| {
            let d = x - y;
            if d.is_finite() { Ok(d) } else { Err(StatsError::DifferenceOverflow { index }) }
        })
        .collect()
}

/// Fails unless `0 < level < 1`.
pub(crate) fn check_level(level: f64) -> Result<()> {
    if level > 0.0 && level < 1.0 { Ok(()) } else { Err(StatsError::InvalidLevel { level }) }
}

/// Fails when `count` random draws is zero.
pub(crate) fn check_draws(what: &'static str, draws: &'static str, count: usize) -> Result<()> {
    if count == 0 { Err(StatsError::NoDraws { what, draws }) } else { Ok(()) }
}

/// Sample mean and standard deviation (denominator `n − 1`) of at least two values.
/// When every value is the same, the mean is that value and the deviation exactly 0
/// (a two-pass formula would leave rounding noise of order `1e-17`).
pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.iter().all(|&v| v == values[0]) {
        return (values[0], 0.0);
    }
    let mean = values.iter().sum::<f64>() / n;
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    (mean, (squares / (n - 1.0)).sqrt())
}

/// A bound on the rounding error of comparing two sums of `n_terms` floating-point terms
/// whose absolute values add up to at most `magnitude`: `2 · n_terms · ε · magnitude`
/// (the classical bound `(n − 1) ε Σ|xᵢ|` of recursive summation, for each side).
/// Randomised statistics count a draw as "at least as extreme" when it falls short of the
/// observed value by less than this, so that mathematically equal values (ties, which
/// metric values on a grid make common) are counted whatever order they were summed in.
pub(crate) fn rounding_slack(n_terms: usize, magnitude: f64) -> f64 {
    2.0 * n_terms as f64 * f64::EPSILON * magnitude
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_argument_at_fault() {
        let e = paired_differences("t", &[1.0, 2.0], &[1.0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b has 1 values but a has 2: paired values need one value per user in each"
        );
        let e = paired_differences("the paired t-test", &[1.0], &[1.0]).unwrap_err();
        assert_eq!(e, StatsError::TooFewUsers { what: "the paired t-test", found: 1 });
        let e = paired_differences("t", &[1.0, f64::NAN], &[1.0, 2.0]).unwrap_err();
        assert_eq!(e.to_string(), "a[1] is NaN: every value must be a finite number");
        let e = paired_differences("t", &[1.0, 2.0], &[f64::INFINITY, 2.0]).unwrap_err();
        assert_eq!(e.to_string(), "b[0] is inf: every value must be a finite number");
        let e = paired_differences("t", &[f64::MAX, 0.0], &[-f64::MAX, 0.0]).unwrap_err();
        assert_eq!(e, StatsError::DifferenceOverflow { index: 0 });
        assert!(check_level(0.0).is_err() && check_level(1.0).is_err());
        assert!(check_level(f64::NAN).is_err() && check_level(0.95).is_ok());
        assert_eq!(
            check_draws("Fisher's randomisation test", "permutation", 0).unwrap_err().to_string(),
            "Fisher's randomisation test needs at least 1 permutation, got 0"
        );
    }

    #[test]
    fn mean_sd_by_hand_and_exactly_zero_for_constant_values() {
        let (mean, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(mean, 5.0);
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
        assert_eq!(mean_sd(&[0.1, 0.1, 0.1]), (0.1, 0.0));
    }
}
