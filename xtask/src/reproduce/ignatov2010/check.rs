//! `cargo xtask check-report ignatov2010`: the report contract and this paper's
//! expectations.

use recs_bench::report::{Report, Table};

use super::{CLAIMS, EXPERIMENTS};
use crate::reproduce::{dataset_problems, experiment_problems, unevaluated_claims};

/// Checks a written report against the contract, the provenance rules and this paper's
/// expectations: every experiment and claim, the datasets, and finite measures in [0, 1]
/// in every table (with 95% half-widths in a full run).
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    problems.extend(experiment_problems(report, &EXPERIMENTS, |id, table| {
        check_table(id, table, report.quick)
    }));
    problems.extend(crate::reproduce::provenance_problems(report));
    problems.extend(unevaluated_claims(report, &CLAIMS));
    problems.extend(dataset_problems(
        report,
        &[
            ("ml-100k", [943, 1682, 100_000]),
            ("ignatov-blocks", [20, 20, 100]),
            ("ignatov-blocks-overlapping", [20, 20, 100]),
        ],
    ));
    problems
}

/// The first table of an experiment: rows present, every measure a number in [0, 1],
/// every half-width a non-negative number (present in a full run).
fn check_table(id: &str, table: &Table, quick: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if table.rows.len() < 2 {
        problems.push(format!("{id}: `{}` has {} row(s)", table.name, table.rows.len()));
    }
    for (r, row) in table.rows.iter().enumerate() {
        for (c, column) in table.columns.iter().enumerate() {
            let Some(value) = row.get(c) else {
                problems.push(format!("{id}: row {r} has no `{column}`"));
                continue;
            };
            if let Some(key) = column.strip_suffix(" ±95%") {
                let plain = key.ends_with("plain");
                match value.as_f64() {
                    Some(h) if h >= 0.0 && h.is_finite() => {}
                    None if value.is_null() && (quick || plain) => {}
                    _ => problems.push(format!("{id}: row {r}: `{column}` is {value}")),
                }
            } else if column.contains('@') && !column.ends_with("plain") {
                match value.as_f64() {
                    Some(v) if (0.0..=1.0).contains(&v) => {}
                    _ => problems.push(format!(
                        "{id}: row {r}: `{column}` is {value}, expected a number in [0, 1]"
                    )),
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::report::DatasetEntry;
    use serde_json::json;

    fn report(quick: bool) -> Report {
        Report {
            datasets: vec![DatasetEntry {
                name: "ml-100k".into(),
                users: 943,
                items: 1682,
                events: 100_000,
                files: vec![],
            }],
            ..Report::new("ignatov2010", 0, quick)
        }
    }

    #[test]
    fn check_reports_missing_parts() {
        let problems = check(&report(true));
        assert!(problems.iter().any(|p| p.contains("experiment conventions is missing")));
        assert!(problems.iter().any(|p| p.contains("claim I5")));
        assert!(problems.iter().any(|p| p.contains("dataset ignatov-blocks is missing")));
        assert!(!problems.iter().any(|p| p.contains("dataset ml-100k")));
    }

    #[test]
    fn tables_need_measures_in_range_and_intervals_in_a_full_run() {
        let table = Table {
            name: "t".into(),
            columns: ["x", "model", "recall@10", "recall@10 ±95%"].map(String::from).to_vec(),
            rows: vec![
                vec![json!(1), json!("user-based"), json!(0.5), json!(null)],
                vec![json!(1), json!("item-based"), json!(1.5), json!(0.01)],
            ],
        };
        let quick = check_table("e", &table, true);
        assert_eq!(quick.len(), 1, "{quick:?}");
        assert!(quick[0].contains("1.5"));
        let full = check_table("e", &table, false);
        assert!(full.iter().any(|p| p.contains("±95%")), "{full:?}");
    }
}
