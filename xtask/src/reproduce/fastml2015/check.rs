//! `cargo xtask check-report fastml2015`: the report contract and this paper's
//! expectations.

use recs_bench::report::{Report, Table};

use super::{CLAIMS, EXPERIMENTS};
use crate::reproduce::{dataset_problems, experiment_problems, unevaluated_claims};

/// Checks a written report against the contract and this paper's expectations: every
/// experiment with a first table of at least two rows whose NDCG, MAP and AP columns are
/// numbers in range, every claim, and MovieLens 100K.
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    problems.extend(experiment_problems(report, &EXPERIMENTS, check_table));
    problems.extend(crate::reproduce::provenance_problems(report));
    problems.extend(unevaluated_claims(report, &CLAIMS));
    problems.extend(dataset_problems(report, &[("ml-100k", [943, 1682, 100_000])]));
    problems
}

/// The first table of an experiment: at least two rows, every measure (a column naming
/// NDCG, MAP or AP, not a half-width) a number in [0, 1] ([−1, 1] for NDCG, negative under
/// gain = rating − 3).
fn check_table(id: &str, table: &Table) -> Vec<String> {
    let mut problems = Vec::new();
    if table.rows.len() < 2 {
        problems.push(format!("{id}: `{}` has {} row(s)", table.name, table.rows.len()));
    }
    for (r, row) in table.rows.iter().enumerate() {
        for (c, column) in table.columns.iter().enumerate() {
            let measure = ["ndcg@", "map", "ap@"].iter().any(|m| column.contains(m));
            if !measure || column.ends_with("±95%") {
                continue;
            }
            // Under gain = rating − 3 a user's NDCG can be negative (one- and two-star movies
            // on top); a mean below −1 would still be wrong.
            let range = if column.contains("ndcg@") { -1.0..=1.0 } else { 0.0..=1.0 };
            match row.get(c).and_then(serde_json::Value::as_f64) {
                Some(v) if range.contains(&v) => {}
                _ => problems.push(format!(
                    "{id}: row {r}: `{column}` is {:?}, expected a number in [{}, 1]",
                    row.get(c),
                    range.start()
                )),
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

    #[test]
    fn check_reports_missing_parts_and_measures_out_of_range() {
        let report = Report {
            datasets: vec![DatasetEntry {
                name: "ml-100k".into(),
                users: 943,
                items: 1682,
                events: 99_999,
                files: vec![],
            }],
            ..Report::new("fastml2015", 0, true)
        };
        let problems = check(&report);
        assert!(problems.iter().any(|p| p.contains("experiment more-is-better is missing")));
        assert!(problems.iter().any(|p| p.contains("claim F5")));
        assert!(problems.iter().any(|p| p.contains("dataset ml-100k: 943 users")));
        let table = Table {
            name: "t".into(),
            columns: ["model", "RMSE", "all-items ndcg@10", "binary map", "ndcg@50 ±95%"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                vec![json!("a"), json!(1.2), json!(0.5), json!(0.1), json!(2.0)],
                vec![json!("b"), json!(0.9), json!(-1.5), json!(null), json!(null)],
                vec![json!("c"), json!(0.9), json!(-0.2), json!(0.2), json!(null)],
            ],
        };
        let problems = check_table("e", &table);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("all-items ndcg@10") && problems[1].contains("binary map"));
        assert_eq!(check_table("e", &Table { rows: vec![], ..table }).len(), 1);
    }
}
