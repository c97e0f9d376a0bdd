//! The values: each instance's exact metric and each estimator's value of its sampled
//! rank, both averaged over the positions of its tie group, and their means over the
//! instances of a run.
//!
//! An [`Estimator`] is built for one catalog size `n`, while the instances have as many
//! sizes as users have training profiles: one is built per distinct `(n, m)` (`m` the
//! user's number of drawn negatives, `N` unless it has fewer eligible items), for every
//! metric and correction at once, and shared by all runs and seeds. Each assumes the
//! negatives drawn uniformly without replacement.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::instances::{Instance, Placement};
use crate::{Correction, Estimator, RankMetric, Result, SampledRank, Sampling};

/// `M(r; others + 1)` averaged over the ranks `r` the item can take in its tie.
pub fn exact_value(metric: RankMetric, p: Placement) -> f64 {
    let size = p.others + 1;
    let sum: f64 = (p.above + 1..=p.above + p.tied + 1).map(|r| metric.value(r, size)).sum();
    sum / (p.tied + 1) as f64
}

/// The estimator's value averaged over the sampled ranks the item can take in its tie.
pub fn estimated_value(estimator: &Estimator, p: Placement) -> f64 {
    let values = &estimator.values()[p.above as usize..=(p.above + p.tied) as usize];
    values.iter().sum::<f64>() / values.len() as f64
}

/// The estimators of every metric under every correction, for each `(n, m)` the
/// instances need.
pub struct EstimatorTable {
    /// `(n, m)` → correction → metric.
    by_size: BTreeMap<(u64, u64), Vec<Vec<Estimator>>>,
}

impl EstimatorTable {
    /// Builds them in parallel; each is computed on its own, so the table does not
    /// depend on the number of threads.
    ///
    /// # Errors
    /// [`SampledError::Invalid`](crate::SampledError::Invalid) for a size the sampling
    /// cannot have (`m ≥ n`, `m = 0`), and a failed solve as
    /// [`SampledError::Numeric`](crate::SampledError::Numeric), naming the correction and
    /// size.
    pub fn build(
        sizes: BTreeSet<(u64, u64)>,
        metrics: &[RankMetric],
        corrections: &[Correction],
    ) -> Result<EstimatorTable> {
        let sizes: Vec<(u64, u64)> = sizes.into_iter().collect();
        let built: Vec<Vec<Vec<Estimator>>> = sizes
            .par_iter()
            .map(|&(n, m)| -> Result<Vec<Vec<Estimator>>> {
                let sampled = SampledRank::new(n, m, Sampling::WithoutReplacement)?;
                Estimator::for_corrections(metrics, sampled, corrections)
            })
            .collect::<Result<_>>()?;
        Ok(EstimatorTable { by_size: sizes.into_iter().zip(built).collect() })
    }

    /// The estimators by size: `(n, m)` → correction → metric.
    pub(super) fn into_sizes(self) -> BTreeMap<(u64, u64), Vec<Vec<Estimator>>> {
        self.by_size
    }

    /// How many catalog sizes `(n, m)` the table holds.
    pub fn n_sizes(&self) -> usize {
        self.by_size.len()
    }

    /// The `(n, m)` of every instance and seed: the sizes a table must hold to serve them.
    pub fn sizes_of(instances: &[Instance]) -> BTreeSet<(u64, u64)> {
        instances
            .iter()
            .flat_map(|i| i.sampled.iter().map(|s| (i.exact.others + 1, s.others)))
            .collect()
    }

    /// The estimators of size `(n, m)`, by correction then metric.
    ///
    /// # Panics
    /// When the table was not built for that size (built from the very instances it
    /// serves, see [`EstimatorTable::sizes_of`], it holds every one they need).
    pub fn get(&self, n: u64, m: u64) -> &[Vec<Estimator>] {
        &self.by_size[&(n, m)]
    }
}

/// One run's means over its instances.
#[derive(Debug, Clone, PartialEq)]
pub struct RunValues {
    /// Per metric.
    pub exact: Vec<f64>,
    /// Per correction, metric and seed.
    pub estimated: Vec<Vec<Vec<f64>>>,
}

/// The means over `instances` (at least one) of the exact value and of each estimator's.
///
/// # Panics
/// When `table` lacks a size of `instances` (see [`EstimatorTable::get`]).
pub fn run_values(
    instances: &[Instance],
    table: &EstimatorTable,
    metrics: &[RankMetric],
    n_corrections: usize,
    n_seeds: usize,
) -> RunValues {
    let mut exact = vec![0.0; metrics.len()];
    let mut estimated = vec![vec![vec![0.0; n_seeds]; metrics.len()]; n_corrections];
    for instance in instances {
        let n = instance.exact.others + 1;
        for (sum, &metric) in exact.iter_mut().zip(metrics) {
            *sum += exact_value(metric, instance.exact);
        }
        for (seed, &placement) in instance.sampled.iter().enumerate() {
            for (c, by_metric) in table.get(n, placement.others).iter().enumerate() {
                for (k, estimator) in by_metric.iter().enumerate() {
                    estimated[c][k][seed] += estimated_value(estimator, placement);
                }
            }
        }
    }
    let count = instances.len() as f64;
    exact.iter_mut().for_each(|v| *v /= count);
    estimated.iter_mut().flatten().flatten().for_each(|v| *v /= count);
    RunValues { exact, estimated }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(others: u64, above: u64, tied: u64) -> Placement {
        Placement { others, above, tied }
    }

    #[test]
    fn exact_values_average_the_positions_of_the_tie() {
        // Ranked 2nd, 3rd or 4th of 6.
        let p = placement(5, 1, 2);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        close(exact_value(RankMetric::Ap, p), (1.0 / 2.0 + 1.0 / 3.0 + 1.0 / 4.0) / 3.0);
        close(exact_value(RankMetric::Auc, p), (4.0 / 5.0 + 3.0 / 5.0 + 2.0 / 5.0) / 3.0);
        close(exact_value(RankMetric::Recall { k: 3 }, p), 2.0 / 3.0);
        let ndcg = RankMetric::Ndcg { cutoff: Some(2) };
        close(exact_value(ndcg, p), 1.0 / 3f64.log2() / 3.0);
        close(exact_value(RankMetric::Ap, placement(5, 0, 0)), 1.0);
    }

    #[test]
    fn estimated_values_average_the_sampled_ranks_of_the_tie() {
        // n = 5, m = 2: the rank estimate maps r̃ = 1, 2, 3 to r = 1, 1 + 4/2 = 3, 5.
        let sampled = SampledRank::new(5, 2, Sampling::WithoutReplacement).unwrap();
        let rank = Estimator::new(RankMetric::Ap, sampled, Correction::RankEstimate).unwrap();
        assert_eq!(rank.values(), [1.0, 1.0 / 3.0, 1.0 / 5.0]);
        let tied = placement(2, 0, 1); // r̃ = 1 or 2
        assert!((estimated_value(&rank, tied) - 2.0 / 3.0).abs() < 1e-15);
        let naive = Estimator::new(RankMetric::Ap, sampled, Correction::Sampled).unwrap();
        assert_eq!(estimated_value(&naive, tied), 0.75);
        assert_eq!(estimated_value(&naive, placement(2, 2, 0)), 1.0 / 3.0);
    }

    #[test]
    fn a_run_averages_over_instances_per_seed_and_every_negative_drawn_is_exact() {
        // Two instances of a user with 4 negatives; seed 0 draws all four (m = 4 = n − 1,
        // where every correction is exact), seed 1 two of them.
        let instances = [
            Instance {
                exact: placement(4, 1, 0),
                sampled: vec![placement(4, 1, 0), placement(2, 0, 0)],
            },
            Instance {
                exact: placement(4, 2, 2),
                sampled: vec![placement(4, 2, 2), placement(2, 1, 1)],
            },
        ];
        let metrics = [RankMetric::Ap, RankMetric::Recall { k: 2 }];
        let corrections = [Correction::Sampled, Correction::MinimalBias];
        let table =
            EstimatorTable::build(EstimatorTable::sizes_of(&instances), &metrics, &corrections)
                .unwrap();
        assert_eq!(table.n_sizes(), 2);
        let v = run_values(&instances, &table, &metrics, 2, 2);
        // AP: ranks 2, and 3..5 (mean 47/180); recall@2: 1 and 0.
        let ap = (0.5 + (1.0 / 3.0 + 0.25 + 0.2) / 3.0) / 2.0;
        assert!((v.exact[0] - ap).abs() < 1e-15);
        assert_eq!(v.exact[1], 0.5);
        for c in 0..2 {
            assert!((v.estimated[c][0][0] - ap).abs() < 1e-9, "{c}: {v:?}");
            assert!((v.estimated[c][1][0] - 0.5).abs() < 1e-9, "{c}: {v:?}");
        }
        // Seed 1, uncorrected: AP of r̃ = 1 among 3, and of r̃ = 2 or 3.
        let want = (1.0 + (0.5 + 1.0 / 3.0) / 2.0) / 2.0;
        assert!((v.estimated[0][0][1] - want).abs() < 1e-15);
        assert_eq!(v.estimated[0][1][1], (1.0 + 0.5) / 2.0);
    }
}
