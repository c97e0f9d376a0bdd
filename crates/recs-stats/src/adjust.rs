//! Adjustments of a family of `m` p-values for multiple comparisons: Bonferroni and Holm
//! (family-wise error rate) and Benjamini–Hochberg (false discovery rate). Each returns
//! the adjusted p-values in the input order, capped at 1, as
//! `statsmodels.stats.multitest.multipletests` does with `bonferroni`, `holm` and
//! `fdr_bh`.

use serde::{Deserialize, Serialize};

use crate::error::{Result, StatsError};

/// A multiple-comparison adjustment of p-values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Adjustment {
    /// `p̃ᵢ = min(1, m pᵢ)`.
    Bonferroni,
    /// Holm's step-down method (Holm 1979): with `p₍₁₎ ≤ … ≤ p₍ₘ₎` the sorted p-values,
    /// `p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1) p₍ⱼ₎)`.
    Holm,
    /// The step-up method of Benjamini & Hochberg (1995), controlling the false discovery
    /// rate: `p̃₍ᵢ₎ = min_{j ≥ i} min(1, m p₍ⱼ₎ / j)`.
    BenjaminiHochberg,
}

/// The adjusted p-values of a family, in the order of `p_values`. Tied p-values get the
/// same adjusted value whatever their order. An empty family gives an empty result.
///
/// ```
/// use recs_stats::{Adjustment, adjust_p_values};
/// let p = [0.01, 0.04, 0.03, 0.20];
/// assert_eq!(adjust_p_values(&p, Adjustment::Bonferroni)?, [0.04, 0.16, 0.12, 0.80]);
/// let holm = adjust_p_values(&p, Adjustment::Holm)?;
/// assert!((holm[1] - 0.09).abs() < 1e-15); // max(0.04, 3·0.03, 2·0.04)
/// let bh = adjust_p_values(&p, Adjustment::BenjaminiHochberg)?;
/// assert!((bh[2] - 0.0533).abs() < 1e-4); // min(4·0.03/2, 4·0.04/3, 4·0.2/4)
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::InvalidPValue`] for a value that is `NaN` or outside `[0, 1]`.
pub fn adjust_p_values(p_values: &[f64], method: Adjustment) -> Result<Vec<f64>> {
    if let Some(index) = p_values.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(StatsError::InvalidPValue { index, value: p_values[index] });
    }
    let m = p_values.len();
    let mf = m as f64;
    if method == Adjustment::Bonferroni {
        return Ok(p_values.iter().map(|p| (mf * p).min(1.0)).collect());
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p_values[i].total_cmp(&p_values[j]));
    let mut adjusted = vec![0.0; m];
    match method {
        Adjustment::Holm => {
            let mut running = 0.0f64;
            for (rank, &index) in order.iter().enumerate() {
                running = running.max(((mf - rank as f64) * p_values[index]).min(1.0));
                adjusted[index] = running;
            }
        }
        _ => {
            let mut running = 1.0f64;
            for (rank, &index) in order.iter().enumerate().rev() {
                // p · (m/j) rather than m·p/j: the factor m/j rounds to at least 1 (and to
                // at most m − j + 1), so p̃ ≥ p (and ≤ Holm's) holds in floating point.
                let factor = mf / (rank + 1) as f64;
                running = running.min((p_values[index] * factor).min(1.0));
                adjusted[index] = running;
            }
        }
    }
    Ok(adjusted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(x: &[f64], y: &[f64]) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-15)
    }

    #[test]
    fn adjustments_by_hand() {
        let p = [0.02, 0.001, 0.5, 0.03];
        let bonferroni = adjust_p_values(&p, Adjustment::Bonferroni).unwrap();
        assert!(close(&bonferroni, &[0.08, 0.004, 1.0, 0.12]));
        // Sorted: 0.001, 0.02, 0.03, 0.5 → 4·0.001, 3·0.02, max(0.06, 2·0.03), max(., 0.5).
        let holm = adjust_p_values(&p, Adjustment::Holm).unwrap();
        assert!(close(&holm, &[0.06, 0.004, 0.5, 0.06]));
        // → min over j ≥ i of 4·p₍ⱼ₎/j: 0.5, 0.04, 0.04, 0.004.
        let bh = adjust_p_values(&p, Adjustment::BenjaminiHochberg).unwrap();
        assert!(close(&bh, &[0.04, 0.004, 0.5, 0.04]));
    }

    #[test]
    fn ties_get_equal_adjusted_values_and_bad_input_is_refused() {
        for method in [Adjustment::Holm, Adjustment::BenjaminiHochberg] {
            let r = adjust_p_values(&[0.01, 0.04, 0.01, 0.04], method).unwrap();
            assert_eq!((r[0], r[1]), (r[2], r[3]), "{method:?}");
        }
        assert_eq!(adjust_p_values(&[], Adjustment::Holm).unwrap(), Vec::<f64>::new());
        let e = adjust_p_values(&[0.1, f64::NAN], Adjustment::Holm).unwrap_err();
        assert_eq!(e.to_string(), "p-value 1 is NaN: p-values must lie in [0, 1]");
        assert!(adjust_p_values(&[1.5], Adjustment::Bonferroni).is_err());
        assert!(adjust_p_values(&[-0.1], Adjustment::BenjaminiHochberg).is_err());
    }
}
