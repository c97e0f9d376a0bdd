//! How unequally a total is spread over a population: the Gini index and the Shannon
//! entropy of non-negative amounts (item popularity in the training data, item exposure
//! across recommendation lists).

/// Gini index of non-negative amounts `x_1 ≤ … ≤ x_n` (sorted ascending here):
/// `G = 2 Σ_i i·x_i / (n Σ_i x_i) − (n + 1) / n`. It is 0 when all amounts are equal and
/// `1 − 1/n` when one member holds everything; 0 when all amounts are 0 or there are none.
/// Sums run in ascending order of the amounts, so the value does not depend on the input
/// order.
///
/// ```
/// use recs_core::gini;
/// assert_eq!(gini(&[2.0, 2.0, 2.0]), 0.0);
/// assert!((gini(&[0.0, 0.0, 0.0, 8.0]) - 0.75).abs() < 1e-15);
/// ```
pub fn gini(amounts: &[f64]) -> f64 {
    let n = amounts.len();
    let mut sorted = amounts.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let total: f64 = sorted.iter().sum();
    if n == 0 || total == 0.0 {
        return 0.0;
    }
    let weighted: f64 = sorted.iter().enumerate().map(|(i, &x)| (i + 1) as f64 * x).sum();
    2.0 * weighted / (n as f64 * total) - (n as f64 + 1.0) / n as f64
}

/// Shannon entropy, in nats, of the distribution the non-negative amounts are proportional
/// to: `H = −Σ_i p_i ln p_i` with `p_i = x_i / Σ_j x_j`, members with `x_i = 0` adding
/// nothing (`0 ln 0 = 0`); 0 when all amounts are 0 or there are none. The maximum, `ln n`,
/// is reached when all `n` amounts are equal. Sums run in the order given.
///
/// ```
/// use recs_core::shannon_entropy;
/// assert!((shannon_entropy(&[1.0, 1.0, 0.0, 2.0]) - 1.5 * 2f64.ln()).abs() < 1e-15);
/// assert_eq!(shannon_entropy(&[0.0, 3.0]), 0.0);
/// ```
pub fn shannon_entropy(amounts: &[f64]) -> f64 {
    let total: f64 = amounts.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    // −Σ p ln p = ln T − Σ x ln x / T: one division, and exact 0 for a single member.
    let sum_x_ln_x: f64 = amounts.iter().filter(|&&x| x > 0.0).map(|&x| x * x.ln()).sum();
    let h = total.ln() - sum_x_ln_x / total;
    h.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn gini_hand_computed() {
        // Sorted 1, 2, 3, 4: 2·(1 + 4 + 9 + 16) / (4·10) − 5/4 = 1.5 − 1.25.
        assert!((gini(&[3.0, 1.0, 4.0, 2.0]) - 0.25).abs() < 1e-15);
        assert_eq!(gini(&[]), 0.0);
        assert_eq!(gini(&[0.0, 0.0]), 0.0);
    }

    #[test]
    fn entropy_hand_computed() {
        // p = 1/2, 1/4, 1/4: (1/2) ln 2 + 2 (1/4) ln 4 = 1.5 ln 2.
        assert!((shannon_entropy(&[2.0, 1.0, 1.0]) - 1.5 * 2f64.ln()).abs() < 1e-15);
        assert_eq!(shannon_entropy(&[]), 0.0);
        assert_eq!(shannon_entropy(&[5.0]), 0.0);
    }

    proptest! {
        #[test]
        fn gini_is_the_mean_absolute_difference_over_twice_the_mean(
            x in proptest::collection::vec(0.0f64..100.0, 1..30),
        ) {
            // G = Σ_i Σ_j |x_i − x_j| / (2 n² mean): the definition by pairs.
            let n = x.len() as f64;
            let total: f64 = x.iter().sum();
            prop_assume!(total > 0.0);
            let pairs: f64 = x.iter().flat_map(|a| x.iter().map(move |b| (a - b).abs())).sum();
            let by_pairs = pairs / (2.0 * n * total);
            prop_assert!((gini(&x) - by_pairs).abs() < 1e-12, "{} vs {}", gini(&x), by_pairs);
        }

        #[test]
        fn entropy_is_minus_sum_p_ln_p_and_at_most_ln_n(
            x in proptest::collection::vec(0.0f64..100.0, 1..30),
        ) {
            let total: f64 = x.iter().sum();
            prop_assume!(total > 0.0);
            let direct: f64 = x
                .iter()
                .filter(|&&v| v > 0.0)
                .map(|&v| -(v / total) * (v / total).ln())
                .sum();
            let h = shannon_entropy(&x);
            prop_assert!((h - direct).abs() < 1e-12, "{h} vs {direct}");
            prop_assert!(h <= (x.len() as f64).ln() + 1e-12);
        }
    }
}
