//! `cargo xtask check-report fastml2015`: the report contract and this paper's
//! expectations.

use recs_bench::report::Report;

use super::{CLAIMS, EXPERIMENTS};
use crate::reproduce::unevaluated_claims;

/// Checks a written report against the contract and this paper's expectations: every
/// experiment with a first table of at least two rows whose NDCG, MAP and AP columns are
/// numbers in [0, 1], every claim, and MovieLens 100K.
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    for id in EXPERIMENTS {
        let Some(e) = report.experiments.iter().find(|e| e.id == id) else {
            problems.push(format!("experiment {id} is missing"));
            continue;
        };
        let Some(table) = e.tables.first() else {
            problems.push(format!("{id}: no tables"));
            continue;
        };
        if table.rows.len() < 2 {
            problems.push(format!("{id}: `{}` has {} row(s)", table.name, table.rows.len()));
        }
        for (r, row) in table.rows.iter().enumerate() {
            for (c, column) in table.columns.iter().enumerate() {
                let measure = ["ndcg@", "map", "ap@"].iter().any(|m| column.contains(m));
                if !measure || column.ends_with("±95%") {
                    continue;
                }
                match row.get(c).and_then(serde_json::Value::as_f64) {
                    Some(v) if (0.0..=1.0).contains(&v) => {}
                    _ => problems.push(format!(
                        "{id}: row {r}: `{column}` is {:?}, expected a number in [0, 1]",
                        row.get(c)
                    )),
                }
            }
        }
    }
    problems.extend(unevaluated_claims(report, &CLAIMS));
    match report.datasets.iter().find(|d| d.name == "ml-100k") {
        None => problems.push("dataset ml-100k is missing".into()),
        Some(d) if [d.users, d.items, d.events] != [943, 1682, 100_000] => problems.push(format!(
            "dataset ml-100k: {} users, {} items, {} events",
            d.users, d.items, d.events
        )),
        Some(_) => {}
    }
    problems
}
