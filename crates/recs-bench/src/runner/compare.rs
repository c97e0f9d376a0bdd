//! The paired comparisons of a run (`[comparison]`): each model's per-user values on each
//! split, paired over the split's users, go to [`recs_stats::family::compare`] as one
//! family — which pairs, the tests, the adjustment and the marks are all decided there,
//! as for `recs compare` — and come back as the report's [`ComparisonFamily`].
//!
//! A comparison pairs two models over the users of one split, never over users pooled
//! across splits: a user judged on several splits (every fold of a k-fold protocol, every
//! repetition) would be paired with itself, and the paired tests assume independent
//! users. Each (split, metric) is therefore one "metric" of the family, so each test's
//! p-values are adjusted over pairs × metrics × splits.

use recs_metrics::{Metric, PerUser};
use recs_split::SplitId;
use recs_stats::family::{self, Cell, Family, LEVEL, MetricValues, Pairs};
use serde_json::{Value, json};

use super::Results;
use super::split::{Purpose, derive_seed};
use crate::error::{BenchError, Result};
use crate::plan::Plan;
use crate::report::ComparisonFamily;

/// One model's per-user values on one split, for the metrics `[comparison]` compares.
///
/// Kept only when the plan compares models: 4 bytes per judged user for the user ids and
/// 8 per user and compared metric, for every model and split of the run.
#[derive(Debug, Clone)]
pub struct UserValues {
    users: Vec<u32>,
    metrics: Vec<Metric>,
    /// One column per metric, one value per user; `NaN`: the user has no value.
    columns: Vec<Vec<f64>>,
}

impl UserValues {
    /// The columns of `metrics` in `per_user` (the evaluation's per-user values).
    pub(crate) fn of(per_user: Option<&PerUser>, metrics: &[Metric]) -> Result<UserValues> {
        let missing = |what: String| {
            BenchError::Experiment(format!("[comparison]: no per-user values{what} were computed"))
        };
        let per_user = per_user.ok_or_else(|| missing(String::new()))?;
        let columns = metrics
            .iter()
            .map(|metric| {
                let column = per_user.metrics().iter().position(|m| m == metric);
                column.map(|c| per_user.column(c)).ok_or_else(|| missing(format!(" of {metric}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(UserValues { users: per_user.users().to_vec(), metrics: metrics.to_vec(), columns })
    }

    /// The judged users of the split (indices of the dataset's users), in the order of the
    /// evaluation's per-user values.
    pub fn users(&self) -> &[u32] {
        &self.users
    }

    /// The value of `metric` (`ndcg@10`) for each of [`UserValues::users`], `NaN` where the
    /// user has none (no relevant candidate, under `evaluation.zero = "exclude"`); `None`
    /// for a metric that is not compared.
    pub fn values(&self, metric: &str) -> Option<&[f64]> {
        let at = self.metrics.iter().position(|m| m.to_string() == metric)?;
        Some(&self.columns[at])
    }
}

/// The values of one metric on one split, paired over the users with a value for every
/// model.
struct Paired {
    id: SplitId,
    metric: Metric,
    systems: Vec<Vec<f64>>,
    n_users: usize,
}

/// Every split's values of every compared metric, split by split.
fn paired(plan: &Plan, results: &Results, metrics: &[Metric]) -> Result<Vec<Paired>> {
    let mut out = Vec::with_capacity(results.split_ids.len() * metrics.len());
    for (n, &id) in results.split_ids.iter().enumerate() {
        let values: Vec<&UserValues> =
            results.models.iter().filter_map(|m| m.user_values.get(n)).collect();
        if values.len() != results.models.len() {
            return Err(BenchError::Experiment(format!(
                "{}: split {}/{} has no per-user values of every model",
                plan.name, id.repetition, id.fold
            )));
        }
        let users = values[0].users();
        if values.iter().any(|v| v.users() != users) {
            return Err(BenchError::Experiment(format!(
                "{}: split {}/{}: the models were judged on different users",
                plan.name, id.repetition, id.fold
            )));
        }
        for (m, &metric) in metrics.iter().enumerate() {
            let kept: Vec<usize> = (0..users.len())
                .filter(|&u| values.iter().all(|v| !v.columns[m][u].is_nan()))
                .collect();
            let systems =
                values.iter().map(|v| kept.iter().map(|&u| v.columns[m][u]).collect()).collect();
            out.push(Paired { id, metric, systems, n_users: users.len() });
        }
    }
    Ok(out)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The family each test is adjusted over: [`Family::describe`] on one split, "8
/// comparisons: 2 pairs × 2 metrics × 2 splits, Holm" on several.
fn describe(family: &Family, n_metrics: usize, n_splits: usize) -> String {
    if n_splits == 1 {
        return family.describe();
    }
    format!(
        "{}: {} × {} × {}, {}",
        plural(family.comparisons.len(), "comparison", "comparisons"),
        plural(family.n_pairs, "pair", "pairs"),
        plural(n_metrics, "metric", "metrics"),
        plural(n_splits, "split", "splits"),
        family::adjustment_title(family.adjustment)
    )
}

/// A cell of the family's table as `report.json` holds it (a number that is not finite,
/// such as `t` when every difference is the same, is `null`).
fn cell(cell: Cell<'_>) -> Value {
    match cell {
        Cell::Text(text) => json!(text),
        Cell::Count(n) => json!(n),
        Cell::Number(x) => json!(x),
        Cell::Missing => Value::Null,
    }
}

/// The error of a statistic with its causes, on one line.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The paired comparisons of a run, when its plan asks for them.
///
/// # Errors
/// A split without per-user values for every model, or an input a statistic refuses
/// (fewer than 2 users with a value for every model), naming the metric, split and pair.
pub(crate) fn family(plan: &Plan, results: &Results) -> Result<Option<ComparisonFamily>> {
    let Some(comparison) = &plan.comparison else { return Ok(None) };
    let seed = derive_seed(plan.seed, SplitId::new(0, 0), Purpose::Comparison);
    let settings = comparison.settings(seed);
    let paired = paired(plan, results, &comparison.metrics)?;
    let labels: Vec<&str> = results.models.iter().map(|m| m.label.as_str()).collect();
    // Each (split, metric) is one metric of the family: named with its split in errors
    // and warnings, by the metric alone in the table (whose first columns give the split).
    let long: Vec<String> = paired
        .iter()
        .map(|p| format!("{} on split {}/{}", p.metric, p.id.repetition, p.id.fold))
        .collect();
    let short: Vec<String> = paired.iter().map(|p| p.metric.to_string()).collect();
    let short: Vec<&str> = short.iter().map(String::as_str).collect();
    let values: Vec<MetricValues<'_>> = paired
        .iter()
        .zip(&long)
        .map(|(p, name)| MetricValues {
            metric: name,
            systems: &p.systems,
            lower_is_better: p.metric.lower_is_better(),
        })
        .collect();
    let family = family::compare(&values, &labels, comparison.pairs, &settings)
        .map_err(|e| BenchError::Experiment(format!("[comparison]: {}", with_causes(&e))))?;
    let mut columns = vec!["repetition".to_string(), "fold".to_string()];
    columns.extend(family.columns());
    let rows = family
        .comparisons
        .iter()
        .map(|c| {
            let id = paired[c.metric].id;
            let mut row = vec![json!(id.repetition), json!(id.fold)];
            row.extend(family.row(c, &short, &labels).into_iter().map(cell));
            row
        })
        .collect();
    let mut notes: Vec<String> = paired
        .iter()
        .filter(|p| p.systems[0].len() < p.n_users)
        .map(|p| {
            format!(
                "{} on split {}/{}: {} of the {} judged users are left out, without a value \
                 for every model (no relevant candidate, under evaluation.zero = \"{}\")",
                p.metric,
                p.id.repetition,
                p.id.fold,
                p.n_users - p.systems[0].len(),
                p.n_users,
                plan.options.zero
            )
        })
        .collect();
    notes.extend(family.warnings.iter().cloned());
    Ok(Some(ComparisonFamily {
        experiment: plan.name.clone(),
        family: describe(&family, comparison.metrics.len(), results.split_ids.len()),
        baseline: match comparison.pairs {
            Pairs::Baseline(b) => Some(labels[b].to_string()),
            Pairs::All => None,
        },
        metrics: comparison.metrics.iter().map(Metric::to_string).collect(),
        splits: results.split_ids.iter().map(|id| [id.repetition, id.fold]).collect(),
        tests: settings.tests.iter().map(|t| t.key().to_string()).collect(),
        adjustment: family::adjustment_key(settings.adjustment).to_string(),
        tukey: settings.tukey,
        marks: family.marks.key().to_string(),
        alpha: settings.alpha,
        level: LEVEL,
        permutations: settings.permutations as u64,
        resamples: settings.resamples as u64,
        seed: settings.seed,
        columns,
        rows,
        notes,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_over_several_splits_names_them() {
        let values = vec![vec![0.5, 0.6, 0.7], vec![0.4, 0.6, 0.5]];
        let metrics = [
            MetricValues { metric: "ndcg@10 on split 0/0", systems: &values, ..Default::default() },
            MetricValues { metric: "ndcg@10 on split 0/1", systems: &values, ..Default::default() },
        ];
        let settings = recs_stats::family::Settings {
            tests: vec![recs_stats::family::Test::T],
            ..Default::default()
        };
        let f = family::compare(&metrics, &["a", "b"], Pairs::All, &settings).unwrap();
        assert_eq!(describe(&f, 1, 1), f.describe());
        assert_eq!(describe(&f, 1, 2), "2 comparisons: 1 pair × 1 metric × 2 splits, Holm");
    }

    #[test]
    fn cells_that_are_not_finite_numbers_are_null() {
        assert_eq!(cell(Cell::Number(f64::INFINITY)), Value::Null);
        assert_eq!(cell(Cell::Number(0.25)), json!(0.25));
        assert_eq!(cell(Cell::Count(3)), json!(3));
        assert_eq!(cell(Cell::Missing), Value::Null);
        assert_eq!(cell(Cell::Text("a")), json!("a"));
    }
}
