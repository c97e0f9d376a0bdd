//! Corrected sampled metrics: an estimator maps each possible sampled rank `r̃ = 1..=m + 1`
//! to a value, chosen so that its expectation over the sampling is close to the exact
//! metric (Krichene & Rendle 2020, §5; the definitions as `docs/metrics.md` gives them).

use std::fmt;
use std::str::FromStr;

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};

use crate::error::{Result, SampledError};
use crate::linalg::{Cholesky, PseudoInverse, nnls, thin_svd};
use crate::metric::RankMetric;
use crate::rank::SampledRank;

/// How a sampled rank is turned into a metric value.
///
/// As text (`FromStr`, `Display`): `sampled` (no correction), `rank-estimate`,
/// `minimal-bias`, `monotone`, and `bv:γ` (e.g. `bv:0.1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Correction {
    /// The metric of the sampled rank among `m + 1` items: `M̂(r̃) = M(r̃; m + 1)`.
    Sampled,
    /// The metric at the exact rank the sampled rank estimates:
    /// `M̂(r̃) = M(⌊1 + (n − 1)(r̃ − 1)/m⌋; n)`, since `(r̃ − 1)/m` is unbiased for
    /// `(r − 1)/(n − 1)`.
    RankEstimate,
    /// The least-squares minimiser of the bias over the prior of exact ranks,
    /// `Σ_r p(r) (E[M̂ | r] − M(r))²` (the minimum-norm solution: see `docs/metrics.md`).
    MinimalBias,
    /// [`Correction::MinimalBias`] constrained to values that do not increase with the
    /// sampled rank.
    Monotone,
    /// The bias–variance trade-off: minimises `Σ_r p(r) [(E[M̂ | r] − M(r))² + γ Var[M̂ |
    /// r]]`, `0 < γ ≤ 1`; `γ = 1` is the posterior mean of `M(r)` given `r̃`.
    BiasVariance {
        /// The weight of the variance.
        gamma: f64,
    },
}

impl fmt::Display for Correction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Correction::Sampled => write!(f, "sampled"),
            Correction::RankEstimate => write!(f, "rank-estimate"),
            Correction::MinimalBias => write!(f, "minimal-bias"),
            Correction::Monotone => write!(f, "monotone"),
            Correction::BiasVariance { gamma } => write!(f, "bv:{gamma}"),
        }
    }
}

impl FromStr for Correction {
    type Err = SampledError;

    fn from_str(text: &str) -> Result<Self> {
        let expected = "sampled, rank-estimate, minimal-bias, monotone or bv:γ with 0 < γ ≤ 1";
        match text {
            "sampled" => Ok(Correction::Sampled),
            "rank-estimate" => Ok(Correction::RankEstimate),
            "minimal-bias" => Ok(Correction::MinimalBias),
            "monotone" => Ok(Correction::Monotone),
            _ => match text.strip_prefix("bv:").map(str::parse::<f64>) {
                Some(Ok(gamma)) if gamma > 0.0 && gamma <= 1.0 => {
                    Ok(Correction::BiasVariance { gamma })
                }
                _ => Err(SampledError::invalid("correction", text, expected)),
            },
        }
    }
}

/// A corrected sampled metric: one value per sampled rank.
///
/// ```
/// use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};
/// let sampled = SampledRank::new(1000, 99, Sampling::WithReplacement)?;
/// let naive = Estimator::new(RankMetric::Recall { k: 10 }, sampled, Correction::Sampled)?;
/// // Ranked 50th of 1000: outside the top 10, but usually in the sampled top 10.
/// let (mean, _) = naive.moments(50)?;
/// assert!(mean > 0.9);
/// let corrected = Estimator::new(RankMetric::Recall { k: 10 }, sampled, "bv:0.1".parse()?)?;
/// assert!(corrected.moments(50)?.0 < 0.5);
/// # Ok::<(), recs_sampled::SampledError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Estimator {
    metric: RankMetric,
    sampled: SampledRank,
    correction: Correction,
    values: Vec<f64>,
}

impl Estimator {
    /// The estimator of `metric` under `correction`, with a uniform prior over exact ranks
    /// (the paper's choice: the true distribution is unknown).
    ///
    /// # Errors
    /// As [`Estimator::with_prior`].
    pub fn new(metric: RankMetric, sampled: SampledRank, correction: Correction) -> Result<Self> {
        let n = sampled.n() as usize;
        Estimator::with_prior(metric, sampled, correction, &vec![1.0 / n as f64; n])
    }

    /// The estimator with prior weights `prior[r − 1]` over exact ranks `r = 1..=n`
    /// (non-negative, not all zero; normalised here).
    ///
    /// # Errors
    /// [`SampledError::Invalid`] for a prior of the wrong length or with a negative, an
    /// infinite or only zero weights, or `γ` outside `(0, 1]`; [`SampledError::Numeric`]
    /// when a solve fails.
    pub fn with_prior(
        metric: RankMetric,
        sampled: SampledRank,
        correction: Correction,
        prior: &[f64],
    ) -> Result<Self> {
        let mut one = Estimator::several(&[metric], sampled, correction, prior)?;
        Ok(one.remove(0))
    }

    /// The estimators of several metrics under one correction, with a uniform prior: the
    /// values [`Estimator::new`] gives for each, bit for bit, with the work that does not
    /// depend on the metric (the distributions, the decomposition of the system) done
    /// once. That work is nearly all of it, so estimating many metrics for many catalog
    /// sizes (`recs eval --sampled-vs-exact`) costs about one estimator per size.
    ///
    /// ```
    /// use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};
    /// let sampled = SampledRank::new(300, 20, Sampling::WithoutReplacement)?;
    /// let metrics = [RankMetric::Ap, RankMetric::Recall { k: 10 }];
    /// let both = Estimator::for_metrics(&metrics, sampled, Correction::MinimalBias)?;
    /// assert_eq!(both[1], Estimator::new(metrics[1], sampled, Correction::MinimalBias)?);
    /// # Ok::<(), recs_sampled::SampledError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Estimator::with_prior`].
    pub fn for_metrics(
        metrics: &[RankMetric],
        sampled: SampledRank,
        correction: Correction,
    ) -> Result<Vec<Self>> {
        let n = sampled.n() as usize;
        Estimator::several(metrics, sampled, correction, &vec![1.0 / n as f64; n])
    }

    /// The estimators of several metrics under each of several corrections, with a
    /// uniform prior, by correction then metric: the values [`Estimator::for_metrics`]
    /// gives for each correction, bit for bit, with the system the least-squares
    /// corrections share (the distribution of the sampled rank at every exact rank, most
    /// of their cost) built once for all of them.
    ///
    /// ```
    /// use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};
    /// let sampled = SampledRank::new(300, 20, Sampling::WithoutReplacement)?;
    /// let metrics = [RankMetric::Ap];
    /// let corrections = [Correction::MinimalBias, Correction::BiasVariance { gamma: 0.1 }];
    /// let all = Estimator::for_corrections(&metrics, sampled, &corrections)?;
    /// assert_eq!(all[1], Estimator::for_metrics(&metrics, sampled, corrections[1])?);
    /// # Ok::<(), recs_sampled::SampledError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Estimator::with_prior`].
    pub fn for_corrections(
        metrics: &[RankMetric],
        sampled: SampledRank,
        corrections: &[Correction],
    ) -> Result<Vec<Vec<Self>>> {
        let n = sampled.n() as usize;
        let prior = vec![1.0 / n as f64; n];
        let mut design = None;
        corrections
            .iter()
            .map(|&c| {
                Estimator::several_with(metrics, sampled, c, &prior, &mut design).map_err(|e| {
                    match e {
                        SampledError::Numeric(text) => SampledError::Numeric(format!(
                            "the {c} estimator for n = {}, m = {}: {text}",
                            sampled.n(),
                            sampled.m()
                        )),
                        other => other,
                    }
                })
            })
            .collect()
    }

    /// The estimator of each of `metrics`, in order; every path goes through here, so
    /// one metric or many give the same values.
    fn several(
        metrics: &[RankMetric],
        sampled: SampledRank,
        correction: Correction,
        prior: &[f64],
    ) -> Result<Vec<Self>> {
        Estimator::several_with(metrics, sampled, correction, prior, &mut None)
    }

    /// [`Estimator::several`], with the least-squares system in `design` when it was built
    /// before for the same sampling and prior (and built there when it was not).
    fn several_with(
        metrics: &[RankMetric],
        sampled: SampledRank,
        correction: Correction,
        prior: &[f64],
        design: &mut Option<Design>,
    ) -> Result<Vec<Self>> {
        let (n, m) = (sampled.n(), sampled.m());
        if prior.len() as u64 != n {
            return Err(SampledError::invalid("prior", prior.len(), format!("{n} weights")));
        }
        let total: f64 = prior.iter().sum();
        if prior.iter().any(|p| !p.is_finite() || *p < 0.0) || total <= 0.0 {
            return Err(SampledError::invalid(
                "prior",
                "weights",
                "finite, non-negative weights, not all zero",
            ));
        }
        if let Correction::BiasVariance { gamma } = correction
            && !(gamma > 0.0 && gamma <= 1.0)
        {
            return Err(SampledError::invalid("γ", gamma, "a value in (0, 1]"));
        }
        let size = m + 1;
        let values: Vec<Vec<f64>> = match correction {
            Correction::Sampled => metrics
                .iter()
                .map(|metric| (1..=size).map(|j| metric.value(j, size)).collect())
                .collect(),
            Correction::RankEstimate => metrics
                .iter()
                .map(|metric| {
                    (1..=size)
                        .map(|j| {
                            let estimate =
                                1 + ((n - 1) as u128 * (j - 1) as u128 / m as u128) as u64;
                            metric.value(estimate, n)
                        })
                        .collect()
                })
                .collect(),
            Correction::MinimalBias => {
                let design = Design::shared(design, sampled, prior, total)?;
                let solver = PseudoInverse::new(design.weighted.as_ref())?;
                metrics.iter().map(|&metric| solver.solve(&design.target(metric))).collect()
            }
            Correction::Monotone => {
                let design = Design::shared(design, sampled, prior, total)?;
                let solver = Monotone::new(design)?;
                metrics
                    .iter()
                    .map(|&metric| solver.solve(&design.target(metric)))
                    .collect::<Result<_>>()?
            }
            Correction::BiasVariance { gamma } => {
                let design = Design::shared(design, sampled, prior, total)?;
                let solver = BiasVariance::new(design, gamma)?;
                metrics.iter().map(|&metric| solver.solve(&design.target(metric))).collect()
            }
        };
        Ok(metrics
            .iter()
            .zip(values)
            .map(|(&metric, values)| Estimator { metric, sampled, correction, values })
            .collect())
    }

    /// The metric estimated.
    pub fn metric(&self) -> RankMetric {
        self.metric
    }

    /// The correction.
    pub fn correction(&self) -> Correction {
        self.correction
    }

    /// The sampling it corrects.
    pub fn sampled(&self) -> SampledRank {
        self.sampled
    }

    /// The value for each sampled rank `r̃ = 1..=m + 1`, at index `r̃ − 1`.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value for the sampled rank `r̃`.
    ///
    /// # Errors
    /// [`SampledError::Invalid`] unless `1 ≤ r̃ ≤ m + 1`.
    pub fn estimate(&self, sampled_rank: u64) -> Result<f64> {
        let size = self.values.len() as u64;
        if sampled_rank == 0 || sampled_rank > size {
            return Err(SampledError::invalid(
                "sampled rank",
                sampled_rank,
                format!("a rank in 1..={size}"),
            ));
        }
        Ok(self.values[sampled_rank as usize - 1])
    }

    /// The mean estimate over instances, one sampled rank each.
    ///
    /// # Errors
    /// As [`Estimator::estimate`]; [`SampledError::Invalid`] for no instance.
    pub fn mean_estimate(&self, sampled_ranks: &[u64]) -> Result<f64> {
        if sampled_ranks.is_empty() {
            return Err(SampledError::invalid("sampled ranks", 0, "at least one"));
        }
        let sum: f64 = sampled_ranks.iter().map(|&r| self.estimate(r)).sum::<Result<f64>>()?;
        Ok(sum / sampled_ranks.len() as f64)
    }

    /// The estimator's expectation and variance over the sampling when the exact rank is
    /// `r`; its bias is the expectation minus `metric.value(r, n)`.
    ///
    /// # Errors
    /// As [`SampledRank::distribution`].
    pub fn moments(&self, r: u64) -> Result<(f64, f64)> {
        let p = self.sampled.distribution(r)?;
        let mean: f64 = p.iter().zip(&self.values).map(|(p, v)| p * v).sum();
        let second: f64 = p.iter().zip(&self.values).map(|(p, v)| p * v * v).sum();
        Ok((mean, (second - mean * mean).max(0.0)))
    }
}

/// The weighted bias objective's system, over the ranks with a positive prior: rows
/// `√p(r) P(· | r)`, and for a metric the targets `√p(r) M(r; n)`. It does not depend on
/// the metric, so it is built once for all of them.
struct Design {
    n: u64,
    /// The ranks with a positive prior, with their weights `√p(r)`.
    ranks: Vec<(u64, f64)>,
    weighted: Mat<f64>,
}

impl Design {
    fn new(sampled: SampledRank, prior: &[f64], total: f64) -> Result<Design> {
        let n = sampled.n();
        let ranks: Vec<(u64, f64)> = (1..=n)
            .filter(|&r| prior[r as usize - 1] > 0.0)
            .map(|r| (r, (prior[r as usize - 1] / total).sqrt()))
            .collect();
        let cols = sampled.m() as usize + 1;
        let mut weighted = Mat::<f64>::zeros(ranks.len(), cols);
        for (row, &(r, weight)) in ranks.iter().enumerate() {
            for (j, p) in sampled.distribution(r)?.into_iter().enumerate() {
                weighted[(row, j)] = weight * p;
            }
        }
        Ok(Design { n, ranks, weighted })
    }

    /// The design in `slot`, built there first when empty.
    fn shared<'a>(
        slot: &'a mut Option<Design>,
        sampled: SampledRank,
        prior: &[f64],
        total: f64,
    ) -> Result<&'a Design> {
        let design = match slot.take() {
            Some(design) => design,
            None => Design::new(sampled, prior, total)?,
        };
        Ok(slot.insert(design))
    }

    /// The targets `√p(r) M(r; n)` of `metric`.
    fn target(&self, metric: RankMetric) -> Vec<f64> {
        self.ranks.iter().map(|&(r, weight)| weight * metric.value(r, self.n)).collect()
    }
}

/// The bias–variance estimator, `((1 − γ) AᵀDA + γ diag(c))⁻¹ AᵀD b` with `A_{r,j} =
/// P(j | r)`, `D = diag(p)`, `b_r = M(r; n)` and `c_j = Σ_r p(r) P(j | r)`. With `W =
/// D^{1/2} A` (the design's rows) and `t = D^{1/2} b` (its targets), `AᵀDA = WᵀW`, `AᵀDb =
/// Wᵀt` and `c = Wᵀ √p`: the matrix and its factor do not depend on the metric.
struct BiasVariance {
    weighted_t: Mat<f64>,
    factor: Cholesky,
}

impl BiasVariance {
    fn new(design: &Design, gamma: f64) -> Result<BiasVariance> {
        let w = design.weighted.as_ref();
        let cols = w.ncols();
        let mut gram = Mat::<f64>::zeros(cols, cols);
        // Sequential: the values must not depend on the number of threads.
        matmul(gram.as_mut(), Accum::Replace, w.transpose(), w, 1.0 - gamma, Par::Seq);
        for j in 0..cols {
            let mass: f64 = design.ranks.iter().enumerate().map(|(r, &(_, s))| s * w[(r, j)]).sum();
            gram[(j, j)] += gamma * mass;
        }
        Ok(BiasVariance {
            weighted_t: w.transpose().to_owned(),
            factor: Cholesky::new(gram.as_ref())?,
        })
    }

    fn solve(&self, target: &[f64]) -> Vec<f64> {
        let w = self.weighted_t.as_ref();
        let rhs: Vec<f64> =
            (0..w.nrows()).map(|j| (0..w.ncols()).map(|r| w[(j, r)] * target[r]).sum()).collect();
        self.factor.solve(&rhs)
    }
}

/// The minimal-bias estimator constrained to `M̂_1 ≥ M̂_2 ≥ … ≥ M̂_{m+1}`: written as
/// `M̂_j = t + Σ_{i ≥ j} d_i` with `d_i ≥ 0` and `t` free, a non-negative least-squares
/// problem, solved on the design's SVD-reduced form (which does not depend on the
/// metric).
struct Monotone {
    /// `Σ Vᵀ` of the steps' SVD.
    reduced: Mat<f64>,
    /// `U` of the steps' SVD, which projects a target onto the reduced system.
    u: Mat<f64>,
}

impl Monotone {
    fn new(design: &Design) -> Result<Monotone> {
        let weighted = &design.weighted;
        let (rows, cols) = weighted.shape();
        let m = cols - 1;
        // Column i < m holds Σ_{j ≤ i} A[:, j] (the step d_i); the last, Σ_j A[:, j] (t).
        let mut steps = Mat::<f64>::zeros(rows, cols);
        for r in 0..rows {
            let mut running = 0.0;
            for j in 0..cols {
                running += weighted[(r, j)];
                if j < m {
                    steps[(r, j)] = running;
                }
            }
            steps[(r, m)] = running;
        }
        // ‖S z − b‖² = ‖Σ Vᵀ z − Uᵀ b‖² + a constant: the same problem on a cols × cols system.
        let (u, s, v) = thin_svd(steps.as_ref())?;
        let reduced = Mat::from_fn(s.len(), cols, |i, j| s[i] * v[(j, i)]);
        Ok(Monotone { reduced, u })
    }

    fn solve(&self, target: &[f64]) -> Result<Vec<f64>> {
        let (rows, k) = self.u.shape();
        let cols = self.reduced.ncols();
        let m = cols - 1;
        let projected: Vec<f64> =
            (0..k).map(|i| (0..rows).map(|r| self.u[(r, i)] * target[r]).sum()).collect();
        let mut free = vec![false; cols];
        free[m] = true;
        let z = nnls(self.reduced.as_ref(), &projected, &free)?;
        let mut values = vec![0.0f64; cols];
        let mut tail = z[m];
        for j in (0..cols).rev() {
            if j < m {
                tail += z[j];
            }
            values[j] = tail;
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::Sampling;

    fn small() -> SampledRank {
        SampledRank::new(60, 5, Sampling::WithReplacement).unwrap()
    }

    #[test]
    fn names_round_trip() {
        for text in ["sampled", "rank-estimate", "minimal-bias", "monotone", "bv:0.1", "bv:1"] {
            assert_eq!(text.parse::<Correction>().unwrap().to_string(), text);
        }
        for bad in ["bv:0", "bv:1.5", "bv:x", "none"] {
            assert!(bad.parse::<Correction>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_rank_estimate_maps_back_to_the_catalog() {
        let e = Estimator::new(RankMetric::Ap, small(), Correction::RankEstimate).unwrap();
        // r̃ = 1 → r = 1; r̃ = 6 → 1 + 59·5/5 = 60.
        assert_eq!(e.values()[0], 1.0);
        assert!((e.values()[5] - 1.0 / 60.0).abs() < 1e-15);
    }

    #[test]
    fn the_posterior_mean_is_bias_variance_at_one() {
        let s = small();
        let e = Estimator::new(RankMetric::Ap, s, Correction::BiasVariance { gamma: 1.0 }).unwrap();
        for j in 0..=5usize {
            let (mut num, mut den) = (0.0, 0.0);
            for r in 1..=60 {
                let p = s.distribution(r).unwrap()[j];
                num += p / r as f64;
                den += p;
            }
            assert!((e.values()[j] - num / den).abs() < 1e-12, "{j}");
        }
    }

    #[test]
    fn minimal_bias_has_less_bias_than_the_naive_estimate_and_monotone_does_not_increase() {
        let s = small();
        let squared_bias = |e: &Estimator| -> f64 {
            (1..=60)
                .map(|r| (e.moments(r).unwrap().0 - RankMetric::Ap.value(r, 60)).powi(2))
                .sum::<f64>()
        };
        let naive = Estimator::new(RankMetric::Ap, s, Correction::Sampled).unwrap();
        let least = Estimator::new(RankMetric::Ap, s, Correction::MinimalBias).unwrap();
        let mono = Estimator::new(RankMetric::Ap, s, Correction::Monotone).unwrap();
        assert!(squared_bias(&least) < squared_bias(&mono) + 1e-12);
        assert!(squared_bias(&mono) < squared_bias(&naive));
        assert!(mono.values().windows(2).all(|w| w[0] >= w[1] - 1e-12), "{:?}", mono.values());
        // On this case the unconstrained solution oscillates (the facts file's remark).
        assert!(least.values().iter().any(|&v| v < 0.0), "{:?}", least.values());
    }

    #[test]
    fn every_correction_is_exact_when_every_item_is_sampled() {
        let all = SampledRank::new(12, 11, Sampling::WithoutReplacement).unwrap();
        for correction in [
            Correction::Sampled,
            Correction::RankEstimate,
            Correction::MinimalBias,
            Correction::Monotone,
        ] {
            let e = Estimator::new(RankMetric::Ndcg { cutoff: Some(5) }, all, correction).unwrap();
            for r in 1..=12 {
                let want = RankMetric::Ndcg { cutoff: Some(5) }.value(r, 12);
                assert!((e.moments(r).unwrap().0 - want).abs() < 1e-9, "{correction} {r}");
            }
        }
    }

    #[test]
    fn priors_and_ranks_are_checked() {
        let s = small();
        assert!(Estimator::with_prior(RankMetric::Ap, s, Correction::Sampled, &[1.0; 3]).is_err());
        assert!(Estimator::with_prior(RankMetric::Ap, s, Correction::Sampled, &[0.0; 60]).is_err());
        let e = Estimator::new(RankMetric::Ap, s, Correction::Sampled).unwrap();
        assert!(e.estimate(0).is_err() && e.estimate(7).is_err());
        assert_eq!(e.mean_estimate(&[1, 2]).unwrap(), 0.75);
    }
}
