//! The rank of a relevant item among sampled negatives: its distribution given the exact
//! rank, and the expected value of a metric of it.

use crate::error::{Result, SampledError};
use crate::metric::RankMetric;

/// How the `m` negatives are drawn from the catalog's other items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Sampling {
    /// Uniformly and independently, with replacement (the reading of Krichene & Rendle
    /// 2020 that their published note follows): the number of sampled items above the
    /// relevant one is binomial.
    #[default]
    WithReplacement,
    /// Uniformly without replacement (`m ≤ n − 1`): the number above is hypergeometric.
    WithoutReplacement,
}

impl Sampling {
    /// The convention's name: `with-replacement` or `without-replacement`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sampling::WithReplacement => "with-replacement",
            Sampling::WithoutReplacement => "without-replacement",
        }
    }
}

/// One relevant item ranked among `n` items (itself and `n − 1` irrelevant ones), and the
/// same item ranked among itself and `m` of the irrelevant ones drawn by `sampling`.
///
/// With exact rank `r` (1 is best), `r − 1` of the other `n − 1` items rank above it; each
/// sampled item is one of those with probability `(r − 1)/(n − 1)`. The sampled rank is
/// `r̃ = 1 + X`, where `X` counts the sampled items above it: `X ~ Binomial(m, (r − 1)/(n −
/// 1))` with replacement, `X ~ Hypergeometric(n − 1, r − 1, m)` without.
///
/// ```
/// use recs_sampled::{SampledRank, Sampling};
/// // Ranked 3rd of 5: with 2 samples, P(r̃ = 1, 2, 3) = (1/4, 1/2, 1/4) with replacement.
/// let s = SampledRank::new(5, 2, Sampling::WithReplacement)?;
/// assert_eq!(s.distribution(3)?, vec![0.25, 0.5, 0.25]);
/// # Ok::<(), recs_sampled::SampledError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledRank {
    n: u64,
    m: u64,
    sampling: Sampling,
}

impl SampledRank {
    /// `m` negatives drawn by `sampling` for an item ranked among `n`.
    ///
    /// # Errors
    /// [`SampledError::Invalid`] when `n < 2`, `m = 0`, or `m > n − 1` without replacement.
    pub fn new(n: u64, m: u64, sampling: Sampling) -> Result<SampledRank> {
        if n < 2 {
            return Err(SampledError::invalid("n", n, "at least 2 items"));
        }
        if m == 0 {
            return Err(SampledError::invalid("m", m, "at least 1 sampled item"));
        }
        if sampling == Sampling::WithoutReplacement && m > n - 1 {
            return Err(SampledError::invalid(
                "m",
                m,
                format!("at most n − 1 = {} without replacement", n - 1),
            ));
        }
        Ok(SampledRank { n, m, sampling })
    }

    /// The number of items the exact rank is among.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The number of sampled negatives.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// How the negatives are drawn.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// `P(r̃ = j | r)` for `j = 1..=m + 1`, at index `j − 1`. Computed in log space by the
    /// ratio of successive probabilities and normalised, so nothing underflows on the way
    /// and the probabilities sum to 1 to rounding.
    ///
    /// # Errors
    /// [`SampledError::Invalid`] unless `1 ≤ r ≤ n`.
    pub fn distribution(&self, r: u64) -> Result<Vec<f64>> {
        if r == 0 || r > self.n {
            return Err(SampledError::invalid("r", r, format!("a rank in 1..={}", self.n)));
        }
        let m = self.m as usize;
        let mut out = vec![0.0f64; m + 1];
        match self.sampling {
            Sampling::WithReplacement => {
                let p = (r - 1) as f64 / (self.n - 1) as f64;
                if p == 0.0 {
                    out[0] = 1.0;
                    return Ok(out);
                }
                if p == 1.0 {
                    out[m] = 1.0;
                    return Ok(out);
                }
                // log P(X = k + 1) − log P(X = k) = ln((m − k)/(k + 1)) + ln(p/(1 − p)).
                let odds = (p / (1.0 - p)).ln();
                let logs: Vec<f64> = (0..=m)
                    .scan(0.0f64, |log, k| {
                        let here = *log;
                        *log += ((m - k) as f64 / (k + 1) as f64).ln() + odds;
                        Some(here)
                    })
                    .collect();
                normalise_logs(&logs, &mut out);
            }
            Sampling::WithoutReplacement => {
                // Population n − 1, of which K = r − 1 rank above; m drawn.
                let (population, above) = ((self.n - 1) as f64, (r - 1) as f64);
                let mf = self.m as f64;
                let low = (mf - (population - above)).max(0.0) as usize;
                let high = (above.min(mf)) as usize;
                // log P(k + 1) − log P(k) = ln((K − k)(m − k) / ((k + 1)(N − K − m + k + 1))).
                let mut logs = vec![f64::NEG_INFINITY; m + 1];
                let mut log = 0.0f64;
                for (k, slot) in logs.iter_mut().enumerate().take(high + 1).skip(low) {
                    *slot = log;
                    let kf = k as f64;
                    log += ((above - kf) * (mf - kf)).ln()
                        - ((kf + 1.0) * (population - above - mf + kf + 1.0)).ln();
                }
                normalise_logs(&logs, &mut out);
            }
        }
        Ok(out)
    }

    /// `E[M(r̃) | r]`: the expected value of `metric` of the sampled rank (among `m + 1`
    /// items) when the exact rank is `r`.
    ///
    /// # Errors
    /// As [`SampledRank::distribution`].
    pub fn expected(&self, metric: RankMetric, r: u64) -> Result<f64> {
        let size = self.m + 1;
        Ok(self
            .distribution(r)?
            .iter()
            .enumerate()
            .map(|(j, p)| p * metric.value(j as u64 + 1, size))
            .sum())
    }

    /// The mean over `ranks` of [`SampledRank::expected`]: a recommender's expected
    /// sampled metric, from the exact ranks of its relevant items.
    ///
    /// # Errors
    /// As [`SampledRank::distribution`]; [`SampledError::Invalid`] for no rank.
    pub fn expected_mean(&self, metric: RankMetric, ranks: &[u64]) -> Result<f64> {
        if ranks.is_empty() {
            return Err(SampledError::invalid("ranks", 0, "at least one rank"));
        }
        let sum: f64 = ranks.iter().map(|&r| self.expected(metric, r)).sum::<Result<f64>>()?;
        Ok(sum / ranks.len() as f64)
    }
}

/// `out[k] = exp(logs[k]) / Σ exp(logs)`, from the largest term so nothing overflows.
fn normalise_logs(logs: &[f64], out: &mut [f64]) {
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (o, &l) in out.iter_mut().zip(logs) {
        *o = (l - top).exp();
    }
    let total: f64 = out.iter().sum();
    for o in out.iter_mut() {
        *o /= total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn small_cases_match_the_closed_forms() {
        // With replacement: n = 11, r = 4 → p = 0.3; m = 4.
        let s = SampledRank::new(11, 4, Sampling::WithReplacement).unwrap();
        let d = s.distribution(4).unwrap();
        for (k, &pk) in d.iter().enumerate() {
            let want = choose(4, k as u64) * 0.3f64.powi(k as i32) * 0.7f64.powi(4 - k as i32);
            assert!((pk - want).abs() < 1e-14, "{k}: {pk} vs {want}");
        }
        // Without: population 10, 3 above, 4 drawn.
        let s = SampledRank::new(11, 4, Sampling::WithoutReplacement).unwrap();
        let d = s.distribution(4).unwrap();
        for (k, &pk) in d.iter().enumerate() {
            let k = k as u64;
            let want = if k <= 3 { choose(3, k) * choose(7, 4 - k) / choose(10, 4) } else { 0.0 };
            assert!((pk - want).abs() < 1e-14, "{k}: {pk} vs {want}");
        }
    }

    #[test]
    fn the_best_and_worst_ranks_are_certain_and_sampling_everything_is_exact() {
        for sampling in [Sampling::WithReplacement, Sampling::WithoutReplacement] {
            let s = SampledRank::new(50, 9, sampling).unwrap();
            assert_eq!(s.distribution(1).unwrap()[0], 1.0);
            assert_eq!(s.distribution(50).unwrap()[9], 1.0);
        }
        // Every negative drawn without replacement: the sampled rank is the exact rank.
        let all = SampledRank::new(30, 29, Sampling::WithoutReplacement).unwrap();
        for r in 1..=30 {
            let d = all.distribution(r).unwrap();
            assert!((d[r as usize - 1] - 1.0).abs() < 1e-12, "{r}");
            let ndcg = RankMetric::Ndcg { cutoff: None };
            assert!((all.expected(ndcg, r).unwrap() - ndcg.value(r, 30)).abs() < 1e-12);
        }
    }

    #[test]
    fn a_large_catalog_does_not_underflow() {
        let s = SampledRank::new(27_278, 1_000, Sampling::WithReplacement).unwrap();
        for r in [2, 100, 13_000, 27_277] {
            let d = s.distribution(r).unwrap();
            assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let mean: f64 = d.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
            let want = 1_000.0 * (r - 1) as f64 / 27_277.0;
            assert!((mean - want).abs() < 1e-8, "{r}: {mean} vs {want}");
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert!(SampledRank::new(1, 1, Sampling::WithReplacement).is_err());
        assert!(SampledRank::new(10, 0, Sampling::WithReplacement).is_err());
        assert!(SampledRank::new(10, 10, Sampling::WithoutReplacement).is_err());
        assert!(SampledRank::new(10, 10, Sampling::WithReplacement).is_ok());
        let s = SampledRank::new(10, 3, Sampling::WithReplacement).unwrap();
        assert!(s.distribution(0).is_err() && s.distribution(11).is_err());
        assert!(s.expected_mean(RankMetric::Auc, &[]).is_err());
    }
}
