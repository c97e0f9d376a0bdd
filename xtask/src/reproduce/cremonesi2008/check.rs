//! `cargo xtask check-report cremonesi2008`: the report contract and this paper's
//! expectations.

use recs_bench::report::{Report, Table};

use super::{CLAIMS, EXPERIMENTS};
use crate::reproduce::{dataset_problems, experiment_problems, unevaluated_claims};

/// Checks a written report: the contract, every experiment with a first table of at
/// least one row whose rates and recalls are numbers in [0, 1] (or null where
/// undefined), every claim, MovieLens 100K as published, and the NewMovies substitute.
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    problems.extend(experiment_problems(report, &EXPERIMENTS, check_table));
    problems.extend(crate::reproduce::provenance_problems(report));
    problems.extend(unevaluated_claims(report, &CLAIMS));
    problems.extend(dataset_problems(report, &[("ml-100k", [943, 1682, 100_000])]));
    for name in [super::data::MSWEB, super::data::NEWMOVIES] {
        if !report.datasets.iter().any(|d| d.name == name) {
            problems.push(format!("dataset {name} is missing"));
        }
    }
    problems
}

/// A first table: at least one row; every rate or recall column a number in [0, 1] or
/// null.
fn check_table(id: &str, table: &Table) -> Vec<String> {
    let mut problems = Vec::new();
    if table.rows.is_empty() {
        problems.push(format!("{id}: `{}` has no rows", table.name));
    }
    for (r, row) in table.rows.iter().enumerate() {
        for (c, column) in table.columns.iter().enumerate() {
            let rate = ["tpr", "fpr", "recall", "share", "area"].iter().any(|m| column.contains(m));
            if !rate || column.contains(" sd") {
                continue;
            }
            match row.get(c) {
                Some(serde_json::Value::Null) => {}
                Some(v) if v.as_f64().is_some_and(|v| (0.0..=1.0).contains(&v)) => {}
                other => problems.push(format!(
                    "{id}: row {r}: `{column}` is {other:?}, expected a number in [0, 1]"
                )),
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::report::{Experiment, Report};
    use serde_json::json;

    #[test]
    fn check_reports_missing_parts_and_rates_out_of_range() {
        let problems = check(&Report::new("cremonesi2008", 0, true));
        assert!(problems.iter().any(|p| p.contains("experiment stats-groups is missing")));
        assert!(problems.iter().any(|p| p.contains("claim G1")));
        assert!(problems.iter().any(|p| p.contains("dataset ml-100k is missing")));
        assert!(problems.iter().any(|p| p.contains("dataset newmovies-synthetic is missing")));
        let table = Table {
            name: "t".into(),
            columns: vec!["model".into(), "tpr@5".into(), "tpr@20 sd over repetitions".into()],
            rows: vec![vec![json!("m"), json!(1.5), json!(3.0)]],
        };
        let report = Report {
            experiments: vec![Experiment {
                id: "fig6b-roc2-ml".into(),
                protocol: "p".into(),
                mode: "m".into(),
                candidates: 1,
                positives: 1,
                curves: vec![],
                tables: vec![table],
            }],
            ..Report::new("cremonesi2008", 0, true)
        };
        let problems = check(&report);
        assert!(
            problems.iter().any(|p| p.contains("`tpr@5` is Some(Number(1.5))")),
            "{problems:?}"
        );
        assert!(!problems.iter().any(|p| p.contains("sd over")));
    }
}
