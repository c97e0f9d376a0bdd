//! `cargo xtask check-report krichene2020`: the report contract and this paper's
//! expectations.

use recs_bench::report::{Report, Table};
use serde_json::Value;

use super::toy::{SAMPLED_TABLE, TABLE_1};
use super::{CLAIMS, EXPERIMENTS};
use crate::reproduce::{experiment_problems, provenance_problems, unevaluated_claims};

/// Checks a written report against the contract and this paper's expectations: both
/// experiments, every claim, the provenance rules, and the toy example's numbers against
/// the paper's: the exact metrics within rounding of Table 1, and the expected sampled
/// metrics within the sampled table's printed spread (its means come from a simulation).
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    problems.extend(experiment_problems(report, &EXPERIMENTS, |id, table| {
        if id == EXPERIMENTS[0] { table_1_problems(table) } else { Vec::new() }
    }));
    if let Some(toy) = report.experiments.iter().find(|e| e.id == EXPERIMENTS[0]) {
        match toy.tables.get(1) {
            Some(table) => problems.extend(sampled_table_problems(table)),
            None => problems.push(format!("{}: no sampled table", EXPERIMENTS[0])),
        }
    }
    problems.extend(provenance_problems(report));
    problems.extend(unevaluated_claims(report, &CLAIMS));
    problems
}

fn number(row: &[Value], column: usize) -> Option<f64> {
    row.get(column).and_then(Value::as_f64)
}

/// Table 1: three rows whose four metrics (columns 2–5) are the printed ones to ±0.0005.
fn table_1_problems(table: &Table) -> Vec<String> {
    if table.rows.len() != TABLE_1.len() {
        return vec![format!("`{}` has {} rows, expected 3", table.name, table.rows.len())];
    }
    let mut problems = Vec::new();
    for (row, printed) in table.rows.iter().zip(TABLE_1) {
        for (k, value) in printed.iter().enumerate() {
            match number(row, 2 + k) {
                Some(ours) if (ours - value).abs() <= 0.0005 => {}
                other => problems.push(format!(
                    "Table 1, {}: `{}` is {other:?}, the paper prints {value}",
                    row[0],
                    table.columns[2 + k]
                )),
            }
        }
    }
    problems
}

/// The sampled table: each expected value (every fourth column from 1) within the paper's
/// printed spread (+0.0005 of rounding) of its printed mean.
fn sampled_table_problems(table: &Table) -> Vec<String> {
    if table.rows.len() != SAMPLED_TABLE.len() {
        return vec![format!("`{}` has {} rows, expected 3", table.name, table.rows.len())];
    }
    let mut problems = Vec::new();
    for (row, printed) in table.rows.iter().zip(SAMPLED_TABLE) {
        for (k, (mean, spread)) in printed.iter().enumerate() {
            let column = 1 + 4 * k;
            match number(row, column) {
                Some(ours) if (ours - mean).abs() <= spread + 0.0005 => {}
                other => problems.push(format!(
                    "sampled table, {}: `{}` is {other:?}, the paper prints {mean} ± {spread}",
                    row[0],
                    table.columns.get(column).map_or("?", String::as_str)
                )),
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(rows: Vec<Vec<Value>>) -> Table {
        Table { name: "t".into(), columns: (0..17).map(|c| format!("c{c}")).collect(), rows }
    }

    #[test]
    fn table_1_problems_name_the_cell_that_differs() {
        let row = |name: &str, values: [f64; 4]| {
            let mut row = vec![json!(name), json!("ranks")];
            row.extend(values.iter().map(|v| json!(v)));
            row
        };
        let good = table(vec![row("A", TABLE_1[0]), row("B", TABLE_1[1]), row("C", TABLE_1[2])]);
        assert!(table_1_problems(&good).is_empty());
        let mut off = TABLE_1[2];
        off[1] = 0.2;
        let bad = table(vec![row("A", TABLE_1[0]), row("B", TABLE_1[1]), row("C", off)]);
        let problems = table_1_problems(&bad);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("\"C\"") && problems[0].contains("0.101"), "{problems:?}");
    }

    #[test]
    fn sampled_table_problems_allow_the_printed_spread() {
        let row = |name: &str, printed: [(f64, f64); 4], shift: f64| {
            let mut row = vec![json!(name)];
            for (mean, spread) in printed {
                row.extend([json!(mean + shift * spread), json!(0.0), json!(mean), json!(spread)]);
            }
            row
        };
        let within = table(SAMPLED_TABLE.iter().map(|p| row("X", *p, 0.9)).collect());
        assert!(sampled_table_problems(&within).is_empty());
        // A's AP half again its spread off.
        let beyond = table(SAMPLED_TABLE.iter().map(|p| row("X", *p, 1.5)).collect());
        let problems = sampled_table_problems(&beyond);
        assert!(problems.iter().any(|p| p.contains("0.63 ± 0.129")), "{problems:?}");
    }

    #[test]
    fn an_empty_report_misses_every_part() {
        let problems = check(&Report::new("krichene2020", 0, true));
        for part in ["experiment toy-example is missing", "claim K5 was not evaluated"] {
            assert!(problems.iter().any(|p| p.contains(part)), "{part}: {problems:?}");
        }
    }
}
