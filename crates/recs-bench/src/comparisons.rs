//! The paired comparisons of a report (`[comparison]` of a configuration): the
//! `report.json` form of a family computed by `recs_stats::family::compare`, its checks,
//! and its compact Markdown table. Re-exported from [`crate::report`].

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A family of paired comparisons of one experiment's models, as `report.json` holds it:
/// how the family was computed, and one row per comparison with every number.
///
/// Each comparison pairs two models over the judged users of one split that have a value
/// of the metric for every model; the family is every pair × metric × split, and each
/// test's p-values are adjusted over all of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonFamily {
    /// The experiment whose models are compared (its `id`).
    pub experiment: String,
    /// The family each test is adjusted over, in words: "8 comparisons: 2 pairs × 2
    /// metrics × 2 splits, Holm".
    pub family: String,
    /// The model every other one is compared with; `None`: all pairs.
    pub baseline: Option<String>,
    /// The per-user metrics compared.
    pub metrics: Vec<String>,
    /// The splits compared, `[repetition, fold]`, in order.
    pub splits: Vec<[u32; 2]>,
    /// The tests, as `recs compare --tests` names them (`t`, `fisher`, ...).
    pub tests: Vec<String>,
    /// The adjustment over the family: `holm`, `bonferroni`, `bh` or `none`.
    pub adjustment: String,
    /// Whether the randomised Tukey HSD of each metric on each split was run.
    pub tukey: bool,
    /// What decides `better`: the first test's name (its adjusted p-value), or `tukey`.
    pub marks: String,
    /// The significance level of `better`.
    pub alpha: f64,
    /// The confidence level of every interval.
    pub level: f64,
    /// Sign-flip permutations of Fisher's test and of the Tukey HSD.
    pub permutations: u64,
    /// Resamples of the paired bootstrap.
    pub resamples: u64,
    /// The seed of every randomised statistic (each comparison draws from it afresh).
    pub seed: u64,
    /// The columns of [`ComparisonFamily::rows`]: `repetition`, `fold`, then those of
    /// `recs compare --format csv` (`metric`, `run_a`, `run_b`, `n_users`, `mean_a`,
    /// `mean_b`, `difference` with its interval, `d_z` with its interval, per test its
    /// statistic, p-value and adjusted p-value, `tukey_p`, `adjustment`, `better`).
    pub columns: Vec<String>,
    /// One row per comparison, split by split and metric by metric; numbers in full
    /// precision, `null` where undefined (or not finite).
    pub rows: Vec<Vec<Value>>,
    /// Users left out of a comparison, and undefined effect sizes, one sentence each.
    pub notes: Vec<String>,
}

/// A p-value: four decimals, or two significant digits below 0.0001.
fn p_text(p: f64) -> String {
    if p >= 1e-4 || p == 0.0 { format!("{p:.4}") } else { format!("{p:.1e}") }
}

/// The adjustment in a column header or a sentence (`Holm`, `Benjamini–Hochberg`).
fn adjustment_title(key: &str) -> String {
    match recs_stats::family::parse_adjustment(key) {
        Ok(adjustment) => recs_stats::family::adjustment_title(adjustment).to_string(),
        Err(_) => key.to_string(),
    }
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

impl ComparisonFamily {
    /// Every way the family breaks the report contract, one line each: an experiment that
    /// is not the report's, a row without one cell per column, a level or `alpha` outside
    /// (0, 1).
    pub(crate) fn problems(&self, experiments: &[&str]) -> Vec<String> {
        let at = |what: String| format!("comparisons of {}: {what}", self.experiment);
        let mut out = Vec::new();
        if !experiments.contains(&self.experiment.as_str()) {
            out.push(at("no experiment has this id".into()));
        }
        for (name, value) in [("alpha", self.alpha), ("level", self.level)] {
            if !(value > 0.0 && value < 1.0) {
                out.push(at(format!("{name} {value} is not strictly between 0 and 1")));
            }
        }
        for (i, row) in self.rows.iter().enumerate() {
            if row.len() != self.columns.len() {
                out.push(at(format!(
                    "row {i} has {} cells for {} columns",
                    row.len(),
                    self.columns.len()
                )));
            }
        }
        out
    }

    /// The cell of `row` under column `name`, if the table has that column.
    fn cell<'a>(&self, row: &'a [Value], name: &str) -> Option<&'a Value> {
        row.get(self.columns.iter().position(|c| c == name)?)
    }

    fn number(&self, row: &[Value], name: &str) -> Option<f64> {
        self.cell(row, name).and_then(Value::as_f64)
    }

    fn text(&self, row: &[Value], name: &str) -> String {
        match self.cell(row, name) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => "–".to_string(),
        }
    }

    /// `0.1234 [0.1100, 0.1368]` from the columns `name`, `name_lower`, `name_upper`.
    fn interval(&self, row: &[Value], name: &str, decimals: usize) -> String {
        let [value, lower, upper] =
            [name.to_string(), format!("{name}_lower"), format!("{name}_upper")]
                .map(|column| self.number(row, &column));
        match (value, lower, upper) {
            (Some(v), Some(l), Some(u)) => {
                format!("{v:.decimals$} [{l:.decimals$}, {u:.decimals$}]")
            }
            (Some(v), _, _) => format!("{v:.decimals$}"),
            _ => "–".to_string(),
        }
    }

    /// The family as a compact Markdown table — one row per comparison: the split, the
    /// metric, the pair, the users paired, the mean difference and Cohen's `d_z` with
    /// their intervals, each test's (adjusted) p-value, the Tukey HSD's, and the model
    /// significantly better — with a sentence on how to read it and the notes.
    pub fn to_markdown(&self) -> String {
        let adjusted = self.adjustment != "none";
        let title = adjustment_title(&self.adjustment);
        let mut headers: Vec<String> =
            ["split", "metric", "a − b", "users", "difference [95% CI]", "d_z [95% CI]"]
                .map(String::from)
                .to_vec();
        let mut p_columns = Vec::new();
        for test in &self.tests {
            if adjusted {
                headers.push(format!("{test} p ({title})"));
                p_columns.push(format!("{test}_p_adjusted"));
            } else {
                headers.push(format!("{test} p"));
                p_columns.push(format!("{test}_p"));
            }
        }
        if self.tukey {
            headers.push("Tukey HSD p".to_string());
            p_columns.push("tukey_p".to_string());
        }
        headers.push("better".to_string());
        let mut md = String::new();
        let _ = writeln!(md, "\n**Paired comparisons over users: {}**\n", escape(&self.family));
        let _ = writeln!(md, "| {} |", headers.join(" | "));
        let _ = writeln!(md, "|---|---|---|{}---|", "---:|".repeat(headers.len() - 4));
        for row in &self.rows {
            let split = format!("{}/{}", self.text(row, "repetition"), self.text(row, "fold"));
            let pair = format!("{} − {}", self.text(row, "run_a"), self.text(row, "run_b"));
            let mut cells = vec![
                split,
                self.text(row, "metric"),
                pair,
                self.text(row, "n_users"),
                self.interval(row, "difference", 4),
                self.interval(row, "d_z", 3),
            ];
            cells.extend(
                p_columns.iter().map(|c| self.number(row, c).map_or("–".to_string(), p_text)),
            );
            cells.push(self.text(row, "better"));
            let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
            let _ = writeln!(md, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(md, "\n{}", self.reading());
        if !self.notes.is_empty() {
            md.push('\n');
        }
        for note in &self.notes {
            let _ = writeln!(md, "- {}", escape(note));
        }
        md
    }

    /// How to read the table, in a few sentences.
    fn reading(&self) -> String {
        let pairs = match &self.baseline {
            Some(b) => format!("Each model against {b}"),
            None => "All pairs of models".to_string(),
        };
        let marks = match self.marks.as_str() {
            "tukey" => format!(
                "by the randomised Tukey HSD of the metric on the split ({} permutations)",
                self.permutations
            ),
            key => {
                let test = key.parse::<recs_stats::family::Test>().map_or(key, |t| t.title());
                match self.adjustment.as_str() {
                    "none" => format!("by {test}, unadjusted"),
                    a => format!("by {test}, adjusted over the family ({})", adjustment_title(a)),
                }
            }
        };
        let mut draws = Vec::new();
        if self.tests.iter().any(|t| t == "fisher") || self.tukey {
            draws.push(format!("{} permutations", self.permutations));
        }
        if self.tests.iter().any(|t| t == "bootstrap") {
            draws.push(format!("{} bootstrap resamples", self.resamples));
        }
        let draws = if draws.is_empty() {
            String::new()
        } else {
            format!(" Randomised statistics: {}, seed {}.", draws.join(", "), self.seed)
        };
        format!(
            "{pairs}, paired over the judged users of each split with a value for every \
             model; a − b is the difference of the first model's mean and the second's, with \
             {:.0}% intervals. *better*: the model ahead at p < {} {marks}.{draws}",
            self.level * 100.0,
            self.alpha
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn family() -> ComparisonFamily {
        // The columns of a one-test family, as `recs_stats` lays them out.
        let systems = vec![vec![0.3, 0.5, 0.2], vec![0.1, 0.0, 0.2]];
        let values = [recs_stats::family::MetricValues {
            metric: "ndcg@10",
            systems: &systems,
            ..Default::default()
        }];
        let settings = recs_stats::family::Settings {
            tests: vec![recs_stats::family::Test::T],
            ..Default::default()
        };
        let f = recs_stats::family::compare(
            &values,
            &["pop", "random"],
            recs_stats::family::Pairs::All,
            &settings,
        )
        .unwrap();
        let mut columns = vec!["repetition".to_string(), "fold".to_string()];
        columns.extend(f.columns());
        let row = vec![
            json!(0),
            json!(1),
            json!("ndcg@10"),
            json!("pop"),
            json!("random"),
            json!(940),
            json!(0.3),
            json!(0.01),
            json!(0.29),
            json!(0.28),
            json!(0.3),
            json!(1.5),
            json!(1.4),
            json!(1.6),
            json!(40.0),
            json!(1e-200),
            json!(2e-200),
            json!("holm"),
            json!("pop"),
        ];
        ComparisonFamily {
            experiment: "demo".into(),
            family: "1 comparison: 1 pair × 1 metric, Holm".into(),
            baseline: None,
            metrics: vec!["ndcg@10".into()],
            splits: vec![[0, 1]],
            tests: vec!["t".into()],
            adjustment: "holm".into(),
            tukey: false,
            marks: "t".into(),
            alpha: 0.05,
            level: 0.95,
            permutations: 10_000,
            resamples: 10_000,
            seed: 7,
            columns,
            rows: vec![row],
            notes: vec!["a note".into()],
        }
    }

    #[test]
    fn the_markdown_table_has_a_row_per_comparison() {
        let md = family().to_markdown();
        assert!(md.contains("| split | metric | a − b | users | difference [95% CI] | d_z [95% CI] | t p (Holm) | better |"), "{md}");
        assert!(
            md.contains("| 0/1 | ndcg@10 | pop − random | 940 | 0.2900 [0.2800, 0.3000] | 1.500 [1.400, 1.600] | 2.0e-200 | pop |"),
            "{md}"
        );
        assert!(md.contains("All pairs of models, paired over the judged users"), "{md}");
        assert!(md.contains("by the paired t-test, adjusted over the family (Holm)"), "{md}");
        assert!(!md.contains("Randomised statistics"), "{md}");
        assert!(md.ends_with("- a note\n"), "{md}");
    }

    #[test]
    fn the_contract_needs_the_experiment_and_whole_rows() {
        let mut f = family();
        assert!(f.problems(&["demo"]).is_empty());
        assert_eq!(f.problems(&["other"]).len(), 1);
        f.rows[0].pop();
        f.alpha = 1.0;
        assert_eq!(f.problems(&["demo"]).len(), 2, "{:?}", f.problems(&["demo"]));
    }

    #[test]
    fn p_values_keep_two_significant_digits_when_small() {
        assert_eq!(p_text(0.03125), "0.0312");
        assert_eq!(p_text(1.23e-5), "1.2e-5");
    }
}
