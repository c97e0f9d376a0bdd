//! The randomised paired tests: Fisher's randomisation (sign-flip permutation) test and
//! the paired bootstrap. Both are seeded, draw in blocks with one stream per block
//! ([`crate::draws`]), and keep counts rather than draws, so memory does not grow with the
//! number of permutations or resamples.

use serde::{Deserialize, Serialize};

use crate::draws::{Draws, over_blocks};
use crate::error::Result;
use crate::input::{check_draws, check_level, paired_differences, rounding_slack};
use crate::select::{PassTally, Selection, quantile_ranks};

/// The result of Fisher's randomisation test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RandomisedTest {
    /// The observed mean difference `d̄`.
    pub statistic: f64,
    /// The two-sided p-value `(c + 1) / (P + 1)`.
    pub p_value: f64,
    /// The number of users.
    pub n: usize,
    /// `P`, the number of random permutations drawn.
    pub permutations: usize,
}

/// Fisher's randomisation test of `a − b` (paired permutation test), two-sided. Under the
/// null hypothesis each user's two values are exchangeable, so each difference keeps or
/// flips its sign with probability ½. Each of `permutations` draws flips the signs of the
/// differences at random and computes the mean `d̄*`; with `c` the number of draws with
/// `|d̄*| ≥ |d̄|`, `p = (c + 1) / (permutations + 1)` (the observed assignment counts as
/// one of the permutations, so `p > 0` and the test is exact at its level). Means are
/// compared as sums, and a draw within the rounding slack of the observed sum counts
/// (`2 n ε Σ|dᵢ|`, so that mathematically equal sums tie whatever their order).
///
/// Deterministic for a `seed`, at any thread count.
///
/// ```
/// let a = [0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.60];
/// let b = [0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70, 0.49, 0.58];
/// let test = recs_stats::fisher_randomisation(&a, &b, 10_000, 42)?;
/// assert!(test.p_value < 0.02);
/// assert_eq!(test, recs_stats::fisher_randomisation(&a, &b, 10_000, 42)?);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// The input errors of [`paired_t_test`](crate::paired_t_test), and
/// [`StatsError::NoDraws`](crate::StatsError::NoDraws) when `permutations == 0`.
pub fn fisher_randomisation(
    a: &[f64],
    b: &[f64],
    permutations: usize,
    seed: u64,
) -> Result<RandomisedTest> {
    let what = "Fisher's randomisation test";
    let d = paired_differences(what, a, b)?;
    check_draws(what, "permutation", permutations)?;
    let n = d.len();
    let observed: f64 = d.iter().sum();
    let magnitude: f64 = d.iter().map(|x| x.abs()).sum();
    let threshold = observed.abs() - rounding_slack(n, magnitude);
    let sums = SignedSums::new(&d);
    let count = over_blocks(
        seed,
        permutations,
        || 0usize,
        |extreme, draws, count| {
            for _ in 0..count {
                if sums.flipped_sum(draws).abs() >= threshold {
                    *extreme += 1;
                }
            }
        },
        |x, y| x + y,
    );
    Ok(RandomisedTest {
        statistic: observed / n as f64,
        p_value: (count + 1) as f64 / (permutations + 1) as f64,
        n,
        permutations,
    })
}

/// Users per entry of a [`SignedSums`] table: four random bits pick the entry.
const GROUP: usize = 4;
/// Entries per group: one per pattern of signs.
const PATTERNS: usize = 1 << GROUP;

/// The `2⁴` signed sums `Σ ±dᵢ` of each group of four consecutive differences, one per
/// pattern of signs, so that a permutation's sum takes one look-up per four users instead
/// of four additions (193 KB for 6,040 users, which stays in a core's cache; groups of
/// eight, 1.5 MB, were slower). 12.5 ms for 6,040 users and 10,000 permutations, where
/// adding every difference in one chain took 33 ms.
struct SignedSums {
    /// `table[g * 16 + b]`: group `g`'s sum with difference `4g + l` negated where bit `l`
    /// of `b` is set (missing users of the last group count 0).
    table: Vec<f64>,
}

impl SignedSums {
    fn new(d: &[f64]) -> Self {
        let mut table = Vec::with_capacity(d.len().div_ceil(GROUP) * PATTERNS);
        for group in d.chunks(GROUP) {
            for signs in 0..PATTERNS {
                let mut sum = 0.0;
                for (l, x) in group.iter().enumerate() {
                    sum += if signs >> l & 1 == 1 { -x } else { *x };
                }
                table.push(sum);
            }
        }
        SignedSums { table }
    }

    /// `Σ ±dᵢ` with independent fair signs: bit `i mod 64` of the `⌊i / 64⌋`-th draw of
    /// 64 bits negates difference `i`. Four accumulators take the groups in turn and are
    /// added in a fixed order: the same bits give the same sum on every machine, and
    /// another order of addition moves the sum by rounding only, which the test's slack
    /// absorbs.
    fn flipped_sum(&self, draws: &mut Draws) -> f64 {
        let mut lanes = [0.0f64; 4];
        for chunk in self.table.chunks(PATTERNS * 64 / GROUP) {
            let bits = draws.bits();
            for (g, group) in chunk.chunks_exact(PATTERNS).enumerate() {
                lanes[g % 4] += group[(bits >> (g * GROUP)) as usize & (PATTERNS - 1)];
            }
        }
        (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
    }
}

/// The result of the paired bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapTest {
    /// The observed mean difference `d̄`.
    pub mean: f64,
    /// The confidence level of the interval.
    pub level: f64,
    /// The lower end of the percentile interval.
    pub lower: f64,
    /// The upper end of the percentile interval.
    pub upper: f64,
    /// The two-sided p-value `(c + 1) / (B + 1)`.
    pub p_value: f64,
    /// The number of users.
    pub n: usize,
    /// `B`, the number of resamples drawn.
    pub resamples: usize,
}

/// The paired bootstrap of the mean difference of `a − b`. Each of `resamples` draws
/// resamples `n` users with replacement and computes their mean difference `d̄*`.
///
/// - Interval: the percentile interval, the `(1 − level)/2` and `(1 + level)/2`
///   quantiles of the `B` values `d̄*` by linear interpolation between order statistics
///   (numpy's default quantile). The order statistics are exact (those of a full sort)
///   but found without storing the `d̄*`: passes over the replayed, seeded resamples
///   narrow a histogram down to the wanted ranks (usually two passes; see
///   `docs/statistics.md`).
/// - p-value: the shift method — the null distribution of the mean is that of
///   `d̄* − d̄` (the bootstrap of the differences centred on 0) — so with `c` the number
///   of draws with `|d̄* − d̄| ≥ |d̄|`, `p = (c + 1)/(B + 1)`. Comparisons are made on sums
///   with the rounding slack `2 n ε · n max|dᵢ|`.
///
/// Deterministic for a `seed`, at any thread count.
///
/// ```
/// let a = [0.61, 0.52, 0.70, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.60];
/// let b = [0.57, 0.50, 0.64, 0.47, 0.51, 0.60, 0.45, 0.70, 0.49, 0.58];
/// let boot = recs_stats::paired_bootstrap(&a, &b, 10_000, 0.95, 42)?;
/// assert!(0.0 < boot.lower && boot.lower < boot.mean && boot.mean < boot.upper);
/// # Ok::<(), recs_stats::StatsError>(())
/// ```
///
/// # Errors
/// The input errors of [`paired_t_test`](crate::paired_t_test),
/// [`StatsError::InvalidLevel`](crate::StatsError::InvalidLevel) unless `0 < level < 1`,
/// and [`StatsError::NoDraws`](crate::StatsError::NoDraws) when `resamples == 0`.
pub fn paired_bootstrap(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Result<BootstrapTest> {
    let what = "the paired bootstrap";
    let d = paired_differences(what, a, b)?;
    check_draws(what, "resample", resamples)?;
    check_level(level)?;
    let n = d.len();
    let observed: f64 = d.iter().sum();
    let largest = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let threshold = observed.abs() - rounding_slack(n, n as f64 * largest);
    let (low_lo, low_hi, low_weight) = quantile_ranks(resamples, (1.0 - level) / 2.0);
    let (up_lo, up_hi, up_weight) = quantile_ranks(resamples, (1.0 + level) / 2.0);
    let min = d.iter().copied().fold(f64::INFINITY, f64::min) * n as f64;
    let max = d.iter().copied().fold(f64::NEG_INFINITY, f64::max) * n as f64;
    let mut selection = Selection::new(&[low_lo, low_hi, up_lo, up_hi], resamples, min, max);
    let mut count = None;
    while selection.pending() {
        let first = count.is_none();
        let (extreme, tally) = over_blocks(
            seed,
            resamples,
            || (0usize, selection.tally()),
            |(extreme, tally), draws, block_count| {
                for _ in 0..block_count {
                    let sum = resampled_sum(&d, draws);
                    if first && (sum - observed).abs() >= threshold {
                        *extreme += 1;
                    }
                    tally.observe(&selection, sum);
                }
            },
            |(c1, t1): (usize, PassTally), (c2, t2)| (c1 + c2, t1.merge(t2)),
        );
        count.get_or_insert(extreme);
        selection.advance(tally);
    }
    let sums = selection.values();
    let quantile = |lo: f64, hi: f64, weight: f64| {
        let (lo, hi) = (lo / n as f64, hi / n as f64);
        lo + weight * (hi - lo)
    };
    Ok(BootstrapTest {
        mean: observed / n as f64,
        level,
        lower: quantile(sums[0], sums[1], low_weight),
        upper: quantile(sums[2], sums[3], up_weight),
        p_value: (count.unwrap_or(0) + 1) as f64 / (resamples + 1) as f64,
        n,
        resamples,
    })
}

/// The sum of `n` differences drawn uniformly with replacement.
fn resampled_sum(d: &[f64], draws: &mut Draws) -> f64 {
    let mut sum = 0.0;
    for _ in 0..d.len() {
        sum += d[draws.below(d.len())];
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::StatsError;

    #[test]
    fn a_permutations_sum_from_the_table_is_the_sum_of_its_signed_differences() {
        // 133 users: a last group of one and a last draw of 5 bits.
        let d: Vec<f64> = (0..133).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
        let sums = SignedSums::new(&d);
        let slack = rounding_slack(d.len(), d.iter().map(|x| x.abs()).sum());
        let (mut from_table, mut direct) = (Draws::for_block(9, 3), Draws::for_block(9, 3));
        for _ in 0..50 {
            let got = sums.flipped_sum(&mut from_table);
            let mut want = 0.0;
            for chunk in d.chunks(64) {
                let bits = direct.bits();
                for (j, x) in chunk.iter().enumerate() {
                    want += if bits >> j & 1 == 1 { -x } else { *x };
                }
            }
            assert!((got - want).abs() <= slack, "{got} {want}");
        }
        // Both consumed one 64-bit draw per 64 users: the streams are still in step.
        assert_eq!(from_table.bits(), direct.bits());
    }

    /// The same bootstrap with every resampled sum stored and sorted: the reference the
    /// streamed selection must reproduce exactly.
    fn stored_bootstrap(d: &[f64], resamples: usize, level: f64, seed: u64) -> (f64, f64) {
        let n = d.len();
        let mut sums = over_blocks(
            seed,
            resamples,
            Vec::new,
            |sums: &mut Vec<f64>, draws, count| {
                sums.extend((0..count).map(|_| resampled_sum(d, draws)));
            },
            |mut x, y| {
                x.extend(y);
                x
            },
        );
        sums.sort_by(f64::total_cmp);
        let means: Vec<f64> = sums.iter().map(|s| s / n as f64).collect();
        let at = |q: f64| {
            let (lo, hi, w) = quantile_ranks(resamples, q);
            means[lo] + w * (means[hi] - means[lo])
        };
        (at((1.0 - level) / 2.0), at((1.0 + level) / 2.0))
    }

    fn synthetic(n: usize) -> (Vec<f64>, Vec<f64>) {
        let a: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
        let b: Vec<f64> = (0..n).map(|i| ((i * 53 + 3) % 13) as f64 / 12.0).collect();
        (a, b)
    }

    #[test]
    fn bootstrap_interval_equals_the_stored_sort() {
        for (n, resamples) in [(30, 999), (200, 20_000)] {
            let (a, b) = synthetic(n);
            let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            let boot = paired_bootstrap(&a, &b, resamples, 0.95, 11).unwrap();
            assert_eq!((boot.lower, boot.upper), stored_bootstrap(&d, resamples, 0.95, 11));
            assert_eq!(boot.resamples, resamples);
        }
    }

    #[test]
    fn fisher_by_enumeration_of_a_tiny_case() {
        // d = (1, 2, 3): the 8 sign patterns give sums ±6, ±4, ±2, ±0; |sum| ≥ 6 for 2 of
        // 8, so the test's p-value tends to (¼ P + 1)/(P + 1).
        let r = fisher_randomisation(&[1.0, 2.0, 3.0], &[0.0; 3], 40_000, 3).unwrap();
        assert_eq!((r.statistic, r.n, r.permutations), (2.0, 3, 40_000));
        // Monte Carlo standard error of the share: √(¼·¾/40000) ≈ 0.0022.
        assert!((r.p_value - 0.25).abs() < 4.0 * 0.0022, "{}", r.p_value);
    }

    #[test]
    fn identical_systems_give_p_one() {
        let a = [0.2, 0.5, 0.5, 0.9];
        assert_eq!(fisher_randomisation(&a, &a, 100, 1).unwrap().p_value, 1.0);
        let boot = paired_bootstrap(&a, &a, 100, 0.95, 1).unwrap();
        assert_eq!((boot.p_value, boot.lower, boot.upper, boot.mean), (1.0, 0.0, 0.0, 0.0));
    }

    #[test]
    fn zero_draws_are_refused() {
        let e = fisher_randomisation(&[1.0, 2.0], &[0.0, 0.0], 0, 1).unwrap_err();
        assert_eq!(
            e,
            StatsError::NoDraws { what: "Fisher's randomisation test", draws: "permutation" }
        );
        let e = paired_bootstrap(&[1.0, 2.0], &[0.0, 0.0], 0, 0.95, 1).unwrap_err();
        assert_eq!(e.to_string(), "the paired bootstrap needs at least 1 resample, got 0");
        assert!(paired_bootstrap(&[1.0, 2.0], &[0.0, 0.0], 10, 1.5, 1).is_err());
    }
}
