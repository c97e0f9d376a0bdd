//! How an estimator orders runs against how the exact metric orders them: Kendall's τ
//! over all runs, and for each pair of runs the share of seeds that reverse it.

use std::cmp::Ordering;

/// The order of two values; equal values (and a `NaN`) are a tie.
fn order(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// Kendall's τ-b between `x` and `y` (same length): `(C − D) / √((P − Tx)(P − Ty))` over
/// the `P` pairs, `C` concordant, `D` discordant, `Tx` and `Ty` tied in `x` and in `y`
/// (scipy's `kendalltau`); `None` when every pair ties in one of them.
pub fn kendall_tau(x: &[f64], y: &[f64]) -> Option<f64> {
    let (mut concordant, mut discordant, mut tied_x, mut tied_y, mut pairs) = (0u64, 0u64, 0, 0, 0);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            pairs += 1;
            match (order(x[i], x[j]), order(y[i], y[j])) {
                (Ordering::Equal, Ordering::Equal) => {
                    tied_x += 1;
                    tied_y += 1;
                }
                (Ordering::Equal, _) => tied_x += 1,
                (_, Ordering::Equal) => tied_y += 1,
                (a, b) if a == b => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let denominator = (((pairs - tied_x) * (pairs - tied_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant as f64 - discordant as f64) / denominator)
}

/// Whether the estimated values of runs `a` and `b` order them the other way round from
/// their exact values (`None` when the exact values tie: there is no order to reverse).
pub fn reverses(exact: (f64, f64), estimated: (f64, f64)) -> Option<bool> {
    let truth = order(exact.0, exact.1);
    (truth != Ordering::Equal).then(|| order(estimated.0, estimated.1) == truth.reverse())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tau_counts_concordant_and_discordant_pairs() {
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[0.1, 0.2, 0.3]), Some(1.0));
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[0.3, 0.2, 0.1]), Some(-1.0));
        // (1, 2) and (1, 3) concordant, (2, 3) discordant.
        let third = kendall_tau(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]).unwrap();
        assert!((third - 1.0 / 3.0).abs() < 1e-15);
        // C = 3, D = 1, one pair tied in each of six: 2/5, as scipy.stats.kendalltau([1,
        // 2, 2, 3], [1, 3, 2, 2]) gives.
        let tied = kendall_tau(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 2.0]).unwrap();
        assert!((tied - 0.4).abs() < 1e-15, "{tied}");
        assert_eq!(kendall_tau(&[1.0, 1.0], &[0.0, 1.0]), None);
        assert_eq!(kendall_tau(&[1.0, 2.0], &[0.5, 0.4]), Some(-1.0));
    }

    #[test]
    fn a_reversal_is_an_opposite_strict_order() {
        assert_eq!(reverses((0.2, 0.1), (0.5, 0.6)), Some(true));
        assert_eq!(reverses((0.2, 0.1), (0.6, 0.5)), Some(false));
        assert_eq!(reverses((0.2, 0.1), (0.5, 0.5)), Some(false));
        assert_eq!(reverses((0.1, 0.1), (0.5, 0.6)), None);
    }
}
