//! Sampled metrics against the exact ones in a run (`evaluation.sampled_vs_exact`).
//!
//! On each split every judged user's relevant items are placed among the user's
//! full-catalog negatives (the exact rank) and among each seed's draw of negatives (the
//! sampled rank), streamed ([`recs_sampled::stream::stream_instances`]: no users × items), and
//! each estimator's mean follows per model, as `recs eval --sampled-vs-exact` gives it for
//! a run. Over the splits, [`assemble`](super::assemble) averages them and orders the
//! models. Definitions: `docs/metrics.md`, "Sampled metrics".

use std::sync::OnceLock;

use recs_core::Recommender;
use recs_sampled::versus::{EstimatorTable, RunValues, orders, run_values, spread};
use recs_split::{CatalogJudgments, NegativeSampling, SampleBy, SampledUser, Split, SplitId};
use serde_json::json;

use super::split::{Purpose, derive_seed};
use crate::error::{BenchError, Result};
use crate::plan::{Plan, SampledVsExact};
use crate::report::{Table, cell};
use recs_sampled::stream::SeededDraws;

/// One split's comparison: its full-catalog judgments and draws, and the estimators'
/// table, built from the first model's placements (the catalog sizes do not depend on the
/// model) and shared by the others.
pub(crate) struct SplitVersus {
    catalog: CatalogJudgments,
    draws: SeededDraws<'static>,
    table: OnceLock<EstimatorTable>,
}

impl SplitVersus {
    /// The comparison of split `id`; seed `s` of `versus.seeds` is the split's own
    /// derived seed plus `s`.
    ///
    /// # Errors
    /// A split whose candidates are not a full catalog (a protocol that designates
    /// candidate items).
    pub(crate) fn new(
        plan: &Plan,
        versus: &SampledVsExact,
        split: &Split,
        id: SplitId,
    ) -> Result<Self> {
        let catalog = split.catalog_judgments(&plan.judging)?.ok_or_else(|| {
            BenchError::Experiment(format!(
                "evaluation.sampled_vs_exact ranks every item a user does not know, and the \
                 protocol `{}` designates candidate items; use judgments.items = \"all\" or \
                 another protocol",
                plan.protocol.name()
            ))
        })?;
        let first = derive_seed(plan.seed, id, Purpose::SampledVsExact);
        let samplings = (0..versus.seeds as u64)
            .map(|s| NegativeSampling {
                negatives: versus.negatives,
                by: versus.by,
                seed: first.wrapping_add(s),
            })
            .collect();
        let popularity = match versus.by {
            SampleBy::Uniform => Vec::new(),
            SampleBy::Popularity => split.train().item_counts(),
        };
        // Users drawn by index, as `judgments.sampled` draws them.
        let users = catalog.users().to_vec();
        let user = Box::new(move |position: usize| SampledUser::Index(users[position]));
        let draws = SeededDraws { samplings, user, popularity, threshold: plan.options.threshold };
        Ok(SplitVersus { catalog, draws, table: OnceLock::new() })
    }

    /// The means of the exact metric and of every estimator for each seed, for the fitted
    /// model labelled `label`.
    ///
    /// # Errors
    /// A model that fails to score, a split without a relevant item to place, or an
    /// estimator that cannot be built for a catalog size.
    pub(crate) fn values(
        &self,
        plan: &Plan,
        versus: &SampledVsExact,
        split: &Split,
        model: &dyn Recommender,
        label: &str,
    ) -> Result<RunValues> {
        let threshold = plan.options.threshold;
        let placed = super::stream::sampled_instances(
            model,
            split,
            &self.catalog,
            threshold,
            &self.draws,
            plan.memory_budget,
        )
        .map_err(|e| BenchError::Experiment(format!("sampled against exact, `{label}`: {e}")))?;
        if placed.instances.is_empty() {
            return Err(BenchError::Experiment(format!(
                "evaluation.sampled_vs_exact: no relevant item (grade at least {threshold}) of a \
                 user with negatives to rank it against"
            )));
        }
        let table = match self.table.get() {
            Some(table) => table,
            None => {
                let built =
                    EstimatorTable::build(placed.sizes, &versus.metrics, &versus.corrections)
                        .map_err(|e| {
                            BenchError::Experiment(format!("sampled against exact: {e}"))
                        })?;
                self.table.get_or_init(|| built)
            }
        };
        Ok(run_values(
            &placed.instances,
            table,
            &versus.metrics,
            versus.corrections.len(),
            versus.seeds,
        ))
    }
}

/// The means over splits of one model's values (each seed's values averaged over the
/// splits, seed by seed).
fn mean_over_splits(per_split: &[RunValues]) -> Option<RunValues> {
    let first = per_split.first()?;
    let n = per_split.len() as f64;
    let mut mean = RunValues {
        exact: vec![0.0; first.exact.len()],
        estimated: first
            .estimated
            .iter()
            .map(|metrics| metrics.iter().map(|seeds| vec![0.0; seeds.len()]).collect())
            .collect(),
    };
    for values in per_split {
        for (sum, v) in mean.exact.iter_mut().zip(&values.exact) {
            *sum += v / n;
        }
        for (sums, metrics) in mean.estimated.iter_mut().zip(&values.estimated) {
            for (sums, seeds) in sums.iter_mut().zip(metrics) {
                for (sum, v) in sums.iter_mut().zip(seeds) {
                    *sum += v / n;
                }
            }
        }
    }
    Some(mean)
}

/// The tables of `evaluation.sampled_vs_exact`: each model's exact and estimated means
/// with their errors, and, with two models or more, how each estimator orders them.
pub(super) fn tables(plan: &Plan, results: &super::Results) -> Vec<Table> {
    let Some(versus) = &plan.sampled_vs_exact else { return Vec::new() };
    let means: Vec<(&str, RunValues)> = results
        .models()
        .iter()
        .filter_map(|m| Some((m.label(), mean_over_splits(m.sampled_vs_exact())?)))
        .collect();
    let metrics: Vec<String> = versus.metrics.iter().map(ToString::to_string).collect();
    let corrections: Vec<String> = versus.corrections.iter().map(ToString::to_string).collect();
    let setup = format!(
        "{} draw(s) of {} negatives {} per split, means over {} split(s)",
        versus.seeds,
        versus.negatives,
        match versus.by {
            SampleBy::Uniform => "uniformly",
            SampleBy::Popularity => "by popularity",
        },
        results.n_splits()
    );
    let mut rows = Vec::new();
    for (label, values) in &means {
        for (k, metric) in metrics.iter().enumerate() {
            for (c, correction) in corrections.iter().enumerate() {
                let s = spread(&values.estimated[c][k], values.exact[k]);
                rows.push(vec![
                    json!(label),
                    json!(metric),
                    json!(correction),
                    json!(values.exact[k]),
                    json!(s.mean),
                    cell(s.sd),
                    json!(s.error),
                    json!(s.rmse),
                ]);
            }
        }
    }
    let columns = ["model", "metric", "estimator", "exact", "estimate", "sd", "error", "rmse"];
    let mut tables = vec![Table {
        name: format!(
            "sampled against exact ({setup}; estimate: mean over the draws, sd: their standard \
             deviation, error: estimate − exact, rmse: over the draws)"
        ),
        columns: columns.map(String::from).to_vec(),
        rows,
    }];
    if means.len() >= 2 {
        let runs: Vec<&RunValues> = means.iter().map(|(_, v)| v).collect();
        let mut rows = Vec::new();
        for (k, metric) in metrics.iter().enumerate() {
            for (c, correction) in corrections.iter().enumerate() {
                let o = orders(&runs, c, k, versus.seeds);
                for &(a, b, share) in &o.reversed {
                    rows.push(vec![
                        json!(metric),
                        json!(correction),
                        cell(o.tau_mean),
                        json!(format!("{} vs {}", means[a].0, means[b].0)),
                        cell(share),
                    ]);
                }
            }
        }
        let columns = ["metric", "estimator", "kendall tau", "models", "reversed"];
        tables.push(Table {
            name: format!(
                "sampled against exact, the models' order ({setup}; kendall tau: between the \
                 estimator's order of the models and the exact one, mean over the draws; \
                 reversed: the share of draws whose estimate orders the pair against the exact \
                 values, empty when these tie)"
            ),
            columns: columns.map(String::from).to_vec(),
            rows,
        });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_averaged_seed_by_seed() {
        let a = RunValues {
            exact: vec![0.2, 0.4],
            estimated: vec![vec![vec![0.1, 0.3], vec![0.5, 0.7]]],
        };
        let b = RunValues {
            exact: vec![0.4, 0.0],
            estimated: vec![vec![vec![0.3, 0.1], vec![0.1, 0.1]]],
        };
        let mean = mean_over_splits(&[a, b]).unwrap();
        let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(x, y)| (x - y).abs() < 1e-15);
        assert!(close(&mean.exact, &[0.3, 0.2]));
        assert!(close(&mean.estimated[0][0], &[0.2, 0.2]));
        assert!(close(&mean.estimated[0][1], &[0.3, 0.4]));
        assert!(mean_over_splits(&[]).is_none());
    }
}
