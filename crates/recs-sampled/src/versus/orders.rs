//! An estimator's values over the seeds against the exact value ([`spread`]), and how an
//! estimator orders runs against how the exact metric orders them ([`orders`]): Kendall's
//! τ over all runs, and for each pair of runs the share of seeds that reverse it.

use std::cmp::Ordering;

use super::RunValues;

/// An estimator's values over the seeds against the exact value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The mean over seeds.
    pub mean: f64,
    /// The sample standard deviation over seeds; `None` for one seed.
    pub sd: Option<f64>,
    /// `mean − exact`.
    pub error: f64,
    /// `√(mean over seeds of (value − exact)²)`.
    pub rmse: f64,
}

/// The [`Spread`] of `per_seed` (at least one value) around `exact`.
pub fn spread(per_seed: &[f64], exact: f64) -> Spread {
    let k = per_seed.len() as f64;
    let mean = per_seed.iter().sum::<f64>() / k;
    let sd = (per_seed.len() > 1)
        .then(|| (per_seed.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt());
    let rmse = (per_seed.iter().map(|v| (v - exact).powi(2)).sum::<f64>() / k).sqrt();
    Spread { mean, sd, error: mean - exact, rmse }
}

/// How one estimator orders the runs, for one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Orders {
    /// Kendall's τ between the estimator's order of the runs and the exact one, per seed.
    pub tau: Vec<Option<f64>>,
    /// The mean over the seeds where τ is defined.
    pub tau_mean: Option<f64>,
    /// Each pair of runs `(a, b)` (indices, `a < b`) and the share of seeds that reverse
    /// its exact order (`None` when the exact values tie).
    pub reversed: Vec<(usize, usize, Option<f64>)>,
}

/// How estimator `correction` orders `runs` on metric `metric` (indices into
/// [`RunValues::estimated`] and [`RunValues::exact`]) over `n_seeds` seeds.
pub fn orders(runs: &[&RunValues], correction: usize, metric: usize, n_seeds: usize) -> Orders {
    let exact: Vec<f64> = runs.iter().map(|r| r.exact[metric]).collect();
    let estimated = |run: &RunValues, seed: usize| run.estimated[correction][metric][seed];
    let tau: Vec<Option<f64>> = (0..n_seeds)
        .map(|seed| {
            let y: Vec<f64> = runs.iter().map(|r| estimated(r, seed)).collect();
            kendall_tau(&exact, &y)
        })
        .collect();
    let defined: Vec<f64> = tau.iter().flatten().copied().collect();
    let tau_mean =
        (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
    let mut reversed = Vec::new();
    for a in 0..runs.len() {
        for b in a + 1..runs.len() {
            let shares: Option<usize> = (0..n_seeds)
                .map(|seed| {
                    let pair = (estimated(runs[a], seed), estimated(runs[b], seed));
                    reverses((exact[a], exact[b]), pair).map(usize::from)
                })
                .sum();
            reversed.push((a, b, shares.map(|count| count as f64 / n_seeds as f64)));
        }
    }
    Orders { tau, tau_mean, reversed }
}

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
    fn spreads_over_seeds() {
        let s = spread(&[0.3, 0.5], 0.2);
        assert!((s.mean - 0.4).abs() < 1e-15);
        assert!((s.sd.unwrap() - 0.02f64.sqrt()).abs() < 1e-15);
        assert!((s.error - 0.2).abs() < 1e-15);
        assert!((s.rmse - ((0.01 + 0.09) / 2.0f64).sqrt()).abs() < 1e-15);
        assert_eq!(spread(&[0.3], 0.3).sd, None);
    }

    #[test]
    fn orders_count_reversals_per_pair() {
        // Three runs, exact a > b > c; seed 0 keeps the order, seed 1 swaps a and b.
        let run = |exact: f64, seeds: [f64; 2]| RunValues {
            exact: vec![exact],
            estimated: vec![vec![seeds.to_vec()]],
        };
        let runs = [run(0.3, [0.9, 0.7]), run(0.2, [0.8, 0.8]), run(0.1, [0.1, 0.1])];
        let o = orders(&runs.iter().collect::<Vec<_>>(), 0, 0, 2);
        assert_eq!(o.tau, [Some(1.0), Some(1.0 / 3.0)]);
        assert!((o.tau_mean.unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(o.reversed, [(0, 1, Some(0.5)), (0, 2, Some(0.0)), (1, 2, Some(0.0))]);
    }

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
