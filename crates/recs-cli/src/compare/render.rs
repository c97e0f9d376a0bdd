//! The report of `recs compare` as Markdown (the default), LaTeX, CSV or JSON.
//!
//! Markdown and LaTeX give the ranx-style table — one row per run, one column per metric,
//! each mean followed by the superscript letters of the runs it beats significantly —
//! with its legend and family, then a table of every comparison. CSV gives one line per
//! comparison with every number; JSON gives everything, every number at full precision.

use std::fmt::Write as _;
use std::path::Path;

use recs_metrics::Options;
use serde_json::{Map, Value, json};

use super::values::{MissingRule, NamedRun, Paired};
use crate::candidates::Policy;
use recs_stats::family::{
    Cell, Comparison, Detail, Family, LEVEL, Marks, Outcome, Settings, Test, adjustment_key,
    adjustment_title,
};

/// The version of the JSON report's layout.
const SCHEMA: u32 = 1;

/// An output format, as `--format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// A Markdown table with significance marks, its legend, and every comparison.
    Markdown,
    /// The same tables as LaTeX `tabular`s.
    Latex,
    /// One line per comparison with every number.
    Csv,
    /// Everything, every number at full precision.
    Json,
}

/// Everything a report shows.
pub(crate) struct Report<'a> {
    pub(crate) qrels: &'a Path,
    pub(crate) runs: &'a [NamedRun],
    pub(crate) baseline: Option<usize>,
    pub(crate) policy: &'a Policy,
    pub(crate) options: &'a Options,
    pub(crate) missing: MissingRule,
    pub(crate) settings: &'a Settings,
    pub(crate) paired: &'a Paired,
    pub(crate) family: &'a Family,
}

/// The report in `format`.
pub(crate) fn render(report: &Report<'_>, format: OutputFormat) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Markdown => markdown(report),
        OutputFormat::Latex => latex(report),
        OutputFormat::Csv => csv(report),
        OutputFormat::Json => format!("{}\n", serde_json::to_string_pretty(&json_value(report))?),
    })
}

/// The letter of run `s`: `a`…`z`, then `aa`, `ab`, … (as spreadsheet columns).
pub(crate) fn letter(s: usize) -> String {
    let mut n = s + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The letters of the runs run `s` beats significantly on metric `m`, in run order;
/// comma-separated when there are more runs than single letters.
fn beaten(report: &Report<'_>, m: usize, s: usize) -> String {
    let mut losers: Vec<usize> = report
        .family
        .comparisons
        .iter()
        .filter(|c| c.metric == m && c.better == Some(s))
        .map(|c| if c.a == s { c.b } else { c.a })
        .collect();
    losers.sort_unstable();
    let letters: Vec<String> = losers.into_iter().map(letter).collect();
    letters.join(if report.runs.len() > 26 { "," } else { "" })
}

fn mean_text(x: f64) -> String {
    format!("{x:.4}")
}

/// A p-value: four decimals, or two significant digits below 0.0001.
fn p_text(p: f64) -> String {
    if p >= 1e-4 || p == 0.0 { format!("{p:.4}") } else { format!("{p:.1e}") }
}

fn interval_text(value: f64, lower: f64, upper: f64, decimals: usize) -> String {
    format!("{value:.decimals$} [{lower:.decimals$}, {upper:.decimals$}]")
}

/// The sentence that says what the marks mean.
fn marks_sentence(report: &Report<'_>) -> String {
    let lower: Vec<String> = report
        .paired
        .metrics
        .iter()
        .filter(|v| v.metric.lower_is_better())
        .map(|v| v.metric.to_string())
        .collect();
    let direction = if lower.is_empty() {
        String::new()
    } else {
        format!(" Lower is better for {}; higher for the others.", lower.join(", "))
    };
    format!("{}{direction}", marks_rule(report))
}

/// What decides a mark.
fn marks_rule(report: &Report<'_>) -> String {
    let alpha = report.settings.alpha;
    match report.family.marks {
        Marks::Test(test) => {
            let adjusted = match report.family.adjustment {
                None => "unadjusted".to_string(),
                Some(_) => format!("adjusted over the family ({})", report.family.describe()),
            };
            format!(
                "A superscript names each run that the row's run beats at p < {alpha} by {}, \
                 {adjusted}.",
                test.title()
            )
        }
        Marks::Tukey => format!(
            "A superscript names each run that the row's run beats at p < {alpha} by the \
             randomised Tukey HSD ({} permutations; {}).",
            report.settings.permutations,
            report.family.describe_tukey()
        ),
    }
}

/// The sentences under the tables: the setup, the draws, users left out or missing.
fn notes(report: &Report<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    let mode = match report.baseline {
        Some(b) => format!("each run against the baseline {}", report.runs[b].name),
        None => "all pairs".to_string(),
    };
    notes.push(format!(
        "{} runs on the {} users of {}; {mode}. Candidates {}, ties {}, users without a \
         relevant candidate: {}.",
        report.runs.len(),
        report.paired.n_users,
        report.qrels.display(),
        report.policy,
        report.options.ties,
        report.options.zero
    ));
    let mut draws = Vec::new();
    let tests = &report.settings.tests;
    if tests.contains(&Test::Fisher) || report.settings.tukey {
        draws.push(format!("{} permutations", report.settings.permutations));
    }
    if tests.contains(&Test::Bootstrap) {
        draws.push(format!("{} bootstrap resamples", report.settings.resamples));
    }
    if !draws.is_empty() {
        notes.push(format!(
            "Randomised statistics: {}, seed {}.",
            draws.join(", "),
            report.settings.seed
        ));
    }
    for values in &report.paired.metrics {
        if values.n_left_out > 0 {
            notes.push(format!(
                "{}: {} users paired; {} left out, having no value in some run (no relevant \
                 candidate, under --zero {}).",
                values.metric,
                values.n_users(),
                values.n_left_out,
                report.options.zero
            ));
        }
    }
    if report.missing == MissingRule::Zero {
        let missing: Vec<String> = report
            .runs
            .iter()
            .zip(&report.paired.missing)
            .filter(|(_, n)| **n > 0)
            .map(|(run, n)| format!("{} misses {n} of {}", run.name, report.paired.n_users))
            .collect();
        notes.push(if missing.is_empty() {
            "--missing zero: no run misses a user.".to_string()
        } else {
            format!(
                "Users missing from a run are scored 0 on every metric (--missing zero): {}.",
                missing.join(", ")
            )
        });
    }
    notes
}

/// The headers of the comparison table's test columns.
fn test_headers(report: &Report<'_>) -> Vec<String> {
    let adjustment = report.family.adjustment;
    let mut headers = Vec::new();
    for test in &report.settings.tests {
        headers.push(format!("{} p", test.key()));
        if adjustment.is_some() {
            headers.push(format!("{} p ({})", test.key(), adjustment_title(adjustment)));
        }
        if *test == Test::Bootstrap {
            headers.push(format!("bootstrap {:.0}% CI", LEVEL * 100.0));
        }
    }
    if report.settings.tukey {
        headers.push("Tukey HSD p".to_string());
    }
    headers
}

/// The cells of one comparison, under [`test_headers`] after its first four columns.
fn comparison_cells(report: &Report<'_>, c: &Comparison) -> Vec<String> {
    let names = |s: usize| report.runs[s].name.as_str();
    let metric = report.paired.metrics[c.metric].metric.to_string();
    let d = &c.difference;
    let mut cells = vec![
        metric,
        format!("{} − {}", names(c.a), names(c.b)),
        c.n_users.to_string(),
        interval_text(d.mean, d.lower, d.upper, 4),
        c.dz.map_or_else(|| "undefined".into(), |z| interval_text(z.d_z, z.lower, z.upper, 3)),
    ];
    for outcome in &c.tests {
        cells.push(p_text(outcome.p_value));
        if report.family.adjustment.is_some() {
            cells.push(p_text(outcome.p_adjusted));
        }
        if let Detail::Bootstrap { lower, upper, .. } = outcome.detail {
            cells.push(format!("[{lower:.4}, {upper:.4}]"));
        }
    }
    if let Some(p) = c.tukey {
        cells.push(p_text(p));
    }
    cells
}

const COMPARISON_HEADERS: [&str; 5] =
    ["metric", "a − b", "users", "difference [95% CI]", "d_z [95% CI]"];

/// Markdown: `|` in names escaped.
fn md(text: &str) -> String {
    text.replace('|', "\\|")
}

fn markdown(report: &Report<'_>) -> String {
    let mut out = String::new();
    let metrics = &report.paired.metrics;
    let mut header = vec!["".to_string(), "run".to_string()];
    header.extend(metrics.iter().map(|v| md(&v.metric.to_string())));
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---:|".repeat(metrics.len()));
    for (s, run) in report.runs.iter().enumerate() {
        let mut row = vec![letter(s), md(&run.name)];
        for (m, values) in metrics.iter().enumerate() {
            let marks = beaten(report, m, s);
            let sup = if marks.is_empty() { String::new() } else { format!("<sup>{marks}</sup>") };
            row.push(format!("{}{sup}", mean_text(values.mean(s))));
        }
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", marks_sentence(report));
    let files: Vec<String> =
        report.runs.iter().map(|r| format!("{} = `{}`", md(&r.name), r.path.display())).collect();
    let _ = writeln!(out, "Runs: {}.", files.join(", "));
    let _ = writeln!(out);
    let _ = writeln!(out, "Comparisons (family of each test: {}):", report.family.describe());
    let _ = writeln!(out);
    let mut headers: Vec<String> = COMPARISON_HEADERS.iter().map(|h| h.to_string()).collect();
    headers.extend(test_headers(report));
    let _ = writeln!(out, "| {} |", headers.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---:|".repeat(headers.len() - 2));
    for c in &report.family.comparisons {
        let cells: Vec<String> = comparison_cells(report, c).iter().map(|x| md(x)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(out);
    for note in notes(report) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// LaTeX: special characters escaped, and the few non-ASCII signs of the text as LaTeX.
fn tex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '×' => out.push_str("$\\times$"),
            '−' => out.push_str("$-$"),
            '–' => out.push_str("--"),
            '<' => out.push_str("$<$"),
            _ => out.push(ch),
        }
    }
    out
}

fn latex(report: &Report<'_>) -> String {
    let mut out = String::new();
    let metrics = &report.paired.metrics;
    let _ = writeln!(out, "% recs compare: {}", tex(&report.family.describe()));
    let _ = writeln!(out, "\\begin{{table}}");
    let _ = writeln!(out, "\\centering");
    let _ = writeln!(out, "\\begin{{tabular}}{{ll{}}}", "r".repeat(metrics.len()));
    let _ = writeln!(out, "\\hline");
    let mut header = vec!["".to_string(), "Run".to_string()];
    header.extend(metrics.iter().map(|v| tex(&v.metric.to_string())));
    let _ = writeln!(out, "{} \\\\", header.join(" & "));
    let _ = writeln!(out, "\\hline");
    for (s, run) in report.runs.iter().enumerate() {
        let mut row = vec![letter(s), tex(&run.name)];
        for (m, values) in metrics.iter().enumerate() {
            let marks = beaten(report, m, s);
            let sup = if marks.is_empty() {
                String::new()
            } else {
                format!("\\textsuperscript{{{marks}}}")
            };
            row.push(format!("{}{sup}", mean_text(values.mean(s))));
        }
        let _ = writeln!(out, "{} \\\\", row.join(" & "));
    }
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "\\end{{tabular}}");
    let _ = writeln!(out, "\\caption{{{}}}", tex(&marks_sentence(report)));
    let _ = writeln!(out, "\\end{{table}}");
    let _ = writeln!(out);
    let mut headers: Vec<String> = COMPARISON_HEADERS.iter().map(|h| tex(h)).collect();
    headers.extend(test_headers(report).iter().map(|h| tex(h)));
    let _ = writeln!(out, "\\begin{{table}}");
    let _ = writeln!(out, "\\centering");
    let _ = writeln!(out, "\\begin{{tabular}}{{ll{}}}", "r".repeat(headers.len() - 2));
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "{} \\\\", headers.join(" & "));
    let _ = writeln!(out, "\\hline");
    for c in &report.family.comparisons {
        let cells: Vec<String> = comparison_cells(report, c).iter().map(|x| tex(x)).collect();
        let _ = writeln!(out, "{} \\\\", cells.join(" & "));
    }
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "\\end{{tabular}}");
    let caption = format!("Family of each test: {}. {}", report.family.describe(), {
        notes(report).join(" ")
    });
    let _ = writeln!(out, "\\caption{{{}}}", tex(&caption));
    let _ = writeln!(out, "\\end{{table}}");
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A number at full precision (the shortest text that reads back to the same bits).
fn full(x: f64) -> String {
    format!("{x}")
}

fn csv(report: &Report<'_>) -> String {
    let family = report.family;
    let mut out = family.columns().join(",");
    out.push('\n');
    let metrics: Vec<String> = report.paired.metrics.iter().map(|v| v.metric.to_string()).collect();
    let metrics: Vec<&str> = metrics.iter().map(String::as_str).collect();
    let names: Vec<&str> = report.runs.iter().map(|r| r.name.as_str()).collect();
    for c in &family.comparisons {
        let row: Vec<String> = family
            .row(c, &metrics, &names)
            .into_iter()
            .map(|cell| match cell {
                Cell::Text(text) => csv_field(text),
                Cell::Count(n) => n.to_string(),
                Cell::Number(x) => full(x),
                Cell::Missing => String::new(),
            })
            .collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// A number, or `null` when it is not finite (`t = ±∞` when every difference is the same
/// non-zero value).
fn number(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

fn outcome_json(outcome: &Outcome) -> Value {
    let mut map = Map::new();
    map.insert("statistic".into(), number(outcome.statistic));
    map.insert("p_value".into(), number(outcome.p_value));
    map.insert("p_adjusted".into(), number(outcome.p_adjusted));
    match outcome.detail {
        Detail::T { n } | Detail::Sign { n } => {
            map.insert("n".into(), json!(n));
        }
        Detail::Wilcoxon { w_plus, n, z } => {
            map.insert("w_plus".into(), number(w_plus));
            map.insert("n".into(), json!(n));
            map.insert("z".into(), z.map_or(Value::Null, number));
        }
        Detail::Fisher { permutations } => {
            map.insert("permutations".into(), json!(permutations));
        }
        Detail::Bootstrap { lower, upper, resamples } => {
            map.insert("lower".into(), number(lower));
            map.insert("upper".into(), number(upper));
            map.insert("resamples".into(), json!(resamples));
        }
        _ => {}
    }
    Value::Object(map)
}

fn json_value(report: &Report<'_>) -> Value {
    let settings = report.settings;
    let runs: Vec<Value> = report
        .runs
        .iter()
        .enumerate()
        .map(|(s, run)| {
            json!({
                "name": run.name,
                "path": run.path.display().to_string(),
                "letter": letter(s),
                "missing_users": report.paired.missing[s],
            })
        })
        .collect();
    let metrics: Vec<Value> = report
        .paired
        .metrics
        .iter()
        .enumerate()
        .map(|(m, values)| {
            let means: Vec<Value> =
                (0..report.runs.len()).map(|s| number(values.mean(s))).collect();
            let beats: Vec<Value> = (0..report.runs.len())
                .map(|s| {
                    let mut beaten: Vec<&str> = report
                        .family
                        .comparisons
                        .iter()
                        .filter(|c| c.metric == m && c.better == Some(s))
                        .map(|c| report.runs[if c.a == s { c.b } else { c.a }].name.as_str())
                        .collect();
                    beaten.sort_unstable();
                    json!(beaten)
                })
                .collect();
            json!({
                "metric": values.metric.to_string(),
                "n_users": values.n_users(),
                "n_left_out": values.n_left_out,
                "means": means,
                "beats": beats,
            })
        })
        .collect();
    let comparisons: Vec<Value> = report
        .family
        .comparisons
        .iter()
        .map(|c| {
            let d = &c.difference;
            let mut tests = Map::new();
            for outcome in &c.tests {
                tests.insert(outcome.test.key().into(), outcome_json(outcome));
            }
            json!({
                "metric": report.paired.metrics[c.metric].metric.to_string(),
                "a": report.runs[c.a].name,
                "b": report.runs[c.b].name,
                "n_users": c.n_users,
                "mean_a": number(c.mean_a),
                "mean_b": number(c.mean_b),
                "difference": {
                    "mean": number(d.mean),
                    "sd": number(d.sd),
                    "lower": number(d.lower),
                    "upper": number(d.upper),
                },
                "cohens_dz": c.dz.map_or(Value::Null, |z| json!({
                    "d_z": number(z.d_z),
                    "lower": number(z.lower),
                    "upper": number(z.upper),
                })),
                "tests": Value::Object(tests),
                "tukey_p": c.tukey.map_or(Value::Null, number),
                "better": c.better.map_or(Value::Null, |s| json!(report.runs[s].name)),
            })
        })
        .collect();
    let marks = report.family.marks.key();
    let mut warnings = report.paired.warnings.clone();
    warnings.extend(report.family.warnings.iter().cloned());
    json!({
        "schema": SCHEMA,
        "qrels": report.qrels.display().to_string(),
        "n_users": report.paired.n_users,
        "candidates": report.policy.to_string(),
        "ties": report.options.ties.to_string(),
        "zero": report.options.zero.to_string(),
        "rel_threshold": report.options.threshold,
        "missing": report.missing.key(),
        "mode": if report.baseline.is_some() { "baseline" } else { "all-pairs" },
        "baseline": report.baseline.map_or(Value::Null, |b| json!(report.runs[b].name)),
        "runs": runs,
        "metrics": metrics,
        "tests": settings.tests.iter().map(|t| t.key()).collect::<Vec<_>>(),
        "family": {
            "n_comparisons": report.family.comparisons.len(),
            "n_pairs": report.family.n_pairs,
            "n_metrics": report.family.n_metrics,
            "adjustment": adjustment_key(report.family.adjustment),
            "description": report.family.describe(),
        },
        "tukey": settings.tukey,
        "marks": { "by": marks, "alpha": settings.alpha },
        "level": LEVEL,
        "seed": settings.seed,
        "permutations": settings.permutations,
        "resamples": settings.resamples,
        "comparisons": comparisons,
        "warnings": warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_run_as_spreadsheet_columns() {
        let got: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702].map(letter).to_vec();
        assert_eq!(got, ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]);
    }

    #[test]
    fn small_p_values_keep_two_significant_digits() {
        assert_eq!(p_text(0.03125), "0.0312");
        assert_eq!(p_text(0.0000123), "1.2e-5");
        assert_eq!(p_text(1.0), "1.0000");
    }

    #[test]
    fn latex_and_csv_escape_what_they_must() {
        assert_eq!(tex("a_b & 50% − c × d"), "a\\_b \\& 50\\% $-$ c $\\times$ d");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
