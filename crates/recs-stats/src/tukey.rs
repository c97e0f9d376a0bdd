//! The randomised Tukey HSD test (Carterette 2012): all pairs of `k` systems evaluated on
//! the same users, with p-values adjusted for the whole family by the permutation
//! distribution of the range of the system means.

use serde::{Deserialize, Serialize};

use crate::draws::{ShufflePlan, over_blocks};
use crate::error::{Result, StatsError};
use crate::input::{check_draws, check_finite, rounding_slack};

/// One pair of systems in a [`TukeyHsd`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TukeyPair {
    /// Index of the first system.
    pub first: usize,
    /// Index of the second system (`first < second`).
    pub second: usize,
    /// `mean(first) − mean(second)` over the users.
    pub mean_difference: f64,
    /// The p-value adjusted for all `k(k − 1)/2` pairs.
    pub p_value: f64,
}

/// The result of the randomised Tukey HSD test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TukeyHsd {
    /// The mean of each system over the users.
    pub means: Vec<f64>,
    /// Every pair `(i, j)` with `i < j`, in the order `(0, 1), (0, 2), …, (1, 2), …`.
    pub pairs: Vec<TukeyPair>,
    /// The number of users.
    pub n_users: usize,
    /// The number of random permutations drawn.
    pub permutations: usize,
}

impl TukeyHsd {
    /// The pair of systems `i` and `j` (in either order; the pair stores `i < j`), if
    /// both are among the systems and distinct.
    pub fn pair(&self, i: usize, j: usize) -> Option<&TukeyPair> {
        let (first, second) = (i.min(j), i.max(j));
        let k = self.means.len();
        if first == second || second >= k {
            return None;
        }
        // Pairs before row `first`: Σ_{r < first} (k − 1 − r).
        let index = first * (2 * k - first - 1) / 2 + (second - first - 1);
        self.pairs.get(index)
    }
}

/// The randomised Tukey HSD test over `systems` (`k ≥ 2` slices, `systems[s][u]` the value
/// of system `s` for user `u`), following Carterette (2012, "Multiple testing in
/// statistical analysis of systems-based information retrieval experiments", ACM TOIS
/// 30(1), §4.2). Under the null hypothesis that all systems are equivalent, each user's
/// `k` values are exchangeable. Each of `permutations` draws shuffles every user's `k`
/// values across the systems (an independent uniform permutation per user) and records
/// the range `max_s m*_s − min_s m*_s` of the system means. With `cᵢⱼ` the number of
/// draws whose range is at least the observed `|mᵢ − mⱼ|`, the adjusted p-value of the
/// pair is `(cᵢⱼ + 1) / (permutations + 1)`. Means are compared as sums over users,
/// within the rounding slack `4 n ε · n max|x|`.
///
/// Memory does not grow with `permutations`: each thread keeps one count per pair (the
/// pairs sorted by observed difference, a draw adds one to the first pair its range does
/// not reach, and the counts are summed back from the largest). Deterministic for a
/// `seed`, at any thread count.
///
/// ```
/// let systems = [
///     vec![0.50, 0.61, 0.44, 0.72, 0.58, 0.66],
///     vec![0.48, 0.60, 0.45, 0.70, 0.55, 0.64],
///     vec![0.20, 0.31, 0.25, 0.40, 0.22, 0.35],
/// ];
/// let hsd = recs_stats::randomised_tukey_hsd(&systems, 10_000, 42)?;
/// assert!(hsd.pair(0, 1).unwrap().p_value > 0.5);  // close systems
/// assert!(hsd.pair(2, 0).unwrap().p_value < 0.05); // the third is far below
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// [`StatsError::TooFewSystems`] for fewer than 2 systems, [`StatsError::UnequalLengths`]
/// when a system does not have as many values as the first, [`StatsError::TooFewUsers`]
/// for fewer than 2 users, [`StatsError::NonFinite`] for a `NaN` or infinite value and
/// [`StatsError::NoDraws`] when `permutations == 0`.
pub fn randomised_tukey_hsd<S: AsRef<[f64]>>(
    systems: &[S],
    permutations: usize,
    seed: u64,
) -> Result<TukeyHsd> {
    let what = "the randomised Tukey HSD";
    let k = systems.len();
    if k < 2 {
        return Err(StatsError::TooFewSystems { found: k });
    }
    let n = systems[0].as_ref().len();
    for (s, values) in systems.iter().enumerate() {
        let values = values.as_ref();
        if values.len() != n {
            return Err(StatsError::UnequalLengths {
                which: format!("system {s}"),
                found: values.len(),
                reference: "system 0".to_string(),
                expected: n,
            });
        }
    }
    if n < 2 {
        return Err(StatsError::TooFewUsers { what, found: n });
    }
    for (s, values) in systems.iter().enumerate() {
        check_finite(&format!("system {s}"), values.as_ref())?;
    }
    check_draws(what, "permutation", permutations)?;

    // User-major rows: rows[u * k + s].
    let mut rows = vec![0.0; n * k];
    for (s, values) in systems.iter().enumerate() {
        for (u, &x) in values.as_ref().iter().enumerate() {
            rows[u * k + s] = x;
        }
    }
    let observed = column_sums(&rows, k);
    let largest = rows.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let slack = rounding_slack(n, 2.0 * n as f64 * largest);

    let mut pairs = Vec::with_capacity(k * (k - 1) / 2);
    for i in 0..k {
        for j in i + 1..k {
            pairs.push((i, j, (observed[i] - observed[j]).abs()));
        }
    }
    // The pairs by observed difference; a draw with range R reaches the pairs at sorted
    // positions below `reach(R)`.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&x, &y| pairs[x].2.total_cmp(&pairs[y].2));
    let sorted: Vec<f64> = order.iter().map(|&p| pairs[p].2).collect();

    let plan = ShufflePlan::new(k);
    let hits = over_blocks(
        seed,
        permutations,
        || vec![0usize; sorted.len() + 1],
        |hits, draws, count| {
            let mut sums = vec![0.0; k];
            let mut row = vec![0.0; k];
            for _ in 0..count {
                sums.iter_mut().for_each(|s| *s = 0.0);
                for user in rows.chunks_exact(k) {
                    row.copy_from_slice(user);
                    plan.shuffle(&mut row, draws);
                    for (s, x) in sums.iter_mut().zip(&row) {
                        *s += x;
                    }
                }
                let (min, max) =
                    sums.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                        (lo.min(s), hi.max(s))
                    });
                let range = max - min;
                hits[sorted.partition_point(|&o| o <= range + slack)] += 1;
            }
        },
        |mut x, y| {
            x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
            x
        },
    );
    // Pair at sorted position q is reached by the draws whose reach is above q.
    let mut reached = vec![0usize; sorted.len()];
    let mut running = 0;
    for q in (0..sorted.len()).rev() {
        running += hits[q + 1];
        reached[q] = running;
    }
    let mut p_values = vec![0.0; pairs.len()];
    for (q, &p) in order.iter().enumerate() {
        p_values[p] = (reached[q] + 1) as f64 / (permutations + 1) as f64;
    }
    let nf = n as f64;
    Ok(TukeyHsd {
        means: observed.iter().map(|s| s / nf).collect(),
        pairs: pairs
            .iter()
            .zip(p_values)
            .map(|(&(first, second, _), p_value)| TukeyPair {
                first,
                second,
                mean_difference: (observed[first] - observed[second]) / nf,
                p_value,
            })
            .collect(),
        n_users: n,
        permutations,
    })
}

/// The `k` column sums of user-major rows, summed in user order (the order the
/// permutations sum in, so that the identity permutation reproduces them exactly).
fn column_sums(rows: &[f64], k: usize) -> Vec<f64> {
    let mut sums = vec![0.0; k];
    for user in rows.chunks_exact(k) {
        for (s, x) in sums.iter_mut().zip(user) {
            *s += x;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact p-values of the test by enumerating all `(k!)^n` joint permutations.
    fn exact_p_values(systems: &[Vec<f64>]) -> Vec<f64> {
        let k = systems.len();
        let n = systems[0].len();
        let mut permutations_of_k: Vec<Vec<usize>> = vec![vec![]];
        for _ in 0..k {
            let mut longer = Vec::new();
            for p in &permutations_of_k {
                for i in (0..k).filter(|i| !p.contains(i)) {
                    let mut q = p.clone();
                    q.push(i);
                    longer.push(q);
                }
            }
            permutations_of_k = longer;
        }
        let means: Vec<f64> = systems.iter().map(|s| s.iter().sum::<f64>() / n as f64).collect();
        let rows: Vec<Vec<f64>> = (0..n).map(|u| systems.iter().map(|s| s[u]).collect()).collect();
        let total = permutations_of_k.len().pow(n as u32);
        let mut ranges = Vec::with_capacity(total);
        for code in 0..total {
            let mut c = code;
            let mut sums = vec![0.0; k];
            for row in &rows {
                let p = &permutations_of_k[c % permutations_of_k.len()];
                c /= permutations_of_k.len();
                for (sum, &source) in sums.iter_mut().zip(p) {
                    *sum += row[source];
                }
            }
            let max = sums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = sums.iter().copied().fold(f64::INFINITY, f64::min);
            ranges.push((max - min) / n as f64);
        }
        let mut p = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                let d = (means[i] - means[j]).abs();
                let hits = ranges.iter().filter(|&&r| r >= d - 1e-12).count();
                p.push(hits as f64 / total as f64);
            }
        }
        p
    }

    #[test]
    fn matches_exact_enumeration() {
        let systems = vec![
            vec![0.9, 0.4, 0.7, 0.8, 0.6],
            vec![0.5, 0.5, 0.3, 0.6, 0.2],
            vec![0.1, 0.2, 0.6, 0.3, 0.3],
        ];
        let exact = exact_p_values(&systems);
        let permutations = 40_000;
        let hsd = randomised_tukey_hsd(&systems, permutations, 9).unwrap();
        for (pair, p) in hsd.pairs.iter().zip(exact) {
            let se = (p * (1.0 - p) / permutations as f64).sqrt();
            let bound = 4.0 * se + 1.0 / (permutations + 1) as f64;
            assert!((pair.p_value - p).abs() <= bound, "{pair:?} exact {p}");
        }
    }

    #[test]
    fn pairs_by_hand_and_lookup() {
        let systems = [vec![1.0, 3.0], vec![0.0, 2.0], vec![1.0, 1.0]];
        let hsd = randomised_tukey_hsd(&systems, 50, 1).unwrap();
        assert_eq!(hsd.means, [2.0, 1.0, 1.0]);
        let pairs: Vec<(usize, usize, f64)> =
            hsd.pairs.iter().map(|p| (p.first, p.second, p.mean_difference)).collect();
        assert_eq!(pairs, [(0, 1, 1.0), (0, 2, 1.0), (1, 2, 0.0)]);
        assert_eq!(hsd.pair(2, 1).unwrap().second, 2);
        assert_eq!(hsd.pair(0, 2).unwrap().first, 0);
        assert!(hsd.pair(1, 1).is_none() && hsd.pair(0, 3).is_none());
        // Every range is at least 0: the pair with equal means has p = 1.
        assert_eq!(hsd.pair(1, 2).unwrap().p_value, 1.0);
    }

    #[test]
    fn bad_input_is_refused_with_its_name() {
        let one = [vec![1.0, 2.0]];
        assert_eq!(randomised_tukey_hsd(&one, 10, 1), Err(StatsError::TooFewSystems { found: 1 }));
        let uneven = [vec![1.0, 2.0], vec![1.0, 2.0], vec![1.0]];
        let e = randomised_tukey_hsd(&uneven, 10, 1).unwrap_err();
        let expected = "system 2 has 1 values but system 0 has 2: \
                        paired values need one value per user in each";
        assert_eq!(e.to_string(), expected);
        let short = [vec![1.0], vec![2.0]];
        assert!(matches!(randomised_tukey_hsd(&short, 10, 1), Err(StatsError::TooFewUsers { .. })));
        let nan = [vec![1.0, 2.0], vec![f64::NAN, 2.0]];
        let e = randomised_tukey_hsd(&nan, 10, 1).unwrap_err();
        assert_eq!(e.to_string(), "system 1[0] is NaN: every value must be a finite number");
        let fine = [vec![1.0, 2.0], vec![0.0, 2.0]];
        assert!(matches!(randomised_tukey_hsd(&fine, 0, 1), Err(StatsError::NoDraws { .. })));
    }
}
