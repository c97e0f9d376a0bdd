//! `cargo xtask page <paper> [--report DIR]`: a reproduction's page generated from its
//! report, so that the text and the report cannot drift.
//!
//! A page is `docs/reproductions/<paper>.md`, written from three files in
//! `docs/reproductions/<paper>/`: `page.md` (the text written by hand: what is run, the
//! discussion), and `report.json` and `report.md` of a full run (with the run's figures).
//! The page is the text, then the claims table and its evidence rendered from
//! `report.json`, then the run's `report.md`, then a line naming the commit the report
//! was written at. `--report DIR` first copies a run's report folder in.
//!
//! [`check`] is what the tests run on every page that has a report: the page is exactly
//! what the generator writes, the report meets its paper's contract, and every decimal
//! number the hand-written text quotes is a number of `report.json`, to the digits
//! quoted.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use recs_bench::report::{Report, claims_page_markdown, claims_summary_markdown};

/// The most a page may weigh: a reader reads it, the full results are in `report.md`.
const MAX_PAGE_BYTES: usize = 100_000;

/// `docs/reproductions/`.
pub(crate) fn pages_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reproductions")
}

/// The files a page is made from.
struct Sources {
    text: String,
    report: Report,
    report_json: serde_json::Value,
    report_md: String,
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

impl Sources {
    fn load(paper: &str) -> Result<Sources> {
        let dir = pages_dir().join(paper);
        let json = read(&dir.join("report.json"))?;
        Ok(Sources {
            text: read(&dir.join("page.md"))?,
            report: serde_json::from_str(&json).with_context(|| {
                format!("{paper}/report.json does not follow the report contract")
            })?,
            report_json: serde_json::from_str(&json)?,
            report_md: read(&dir.join("report.md"))?,
        })
    }
}

/// `cargo xtask page` with its arguments.
pub(crate) fn command(args: &[String]) -> Result<()> {
    let (paper, report_dir) = match args {
        [paper] => (paper, None),
        [paper, flag, dir] if flag == "--report" => (paper, Some(PathBuf::from(dir))),
        [paper, flag] if flag == "--check" => {
            let problems = check(paper)?;
            if !problems.is_empty() {
                bail!("{paper}:\n  {}", problems.join("\n  "));
            }
            println!(
                "docs/reproductions/{paper}.md is generated from its report and quotes only its numbers"
            );
            return Ok(());
        }
        _ => bail!("usage: cargo xtask page <paper> [--report DIR | --check]"),
    };
    let dir = pages_dir().join(paper);
    if let Some(from) = report_dir {
        copy_report(&from, &dir)?;
    }
    let sources = Sources::load(paper)?;
    let problems = check_sources(paper, &sources);
    if !problems.is_empty() {
        bail!("{paper}: the page cannot be generated:\n  {}", problems.join("\n  "));
    }
    let page = render(paper, &sources);
    let path = pages_dir().join(format!("{paper}.md"));
    recs_bench::report::write_atomic(&path, page.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Copies `report.json`, `report.md` and the figures of a run's report folder into the
/// page's folder, replacing the figures there.
fn copy_report(from: &Path, to: &Path) -> Result<()> {
    // Copying a folder onto itself would delete its figures and tables before reading them.
    if let (Ok(a), Ok(b)) = (from.canonicalize(), to.canonicalize())
        && a == b
    {
        bail!(
            "{} is the page's own folder: to regenerate the page from its committed report, \
             run `cargo xtask page <paper>` without --report",
            from.display()
        );
    }
    let report: Report = serde_json::from_str(&read(&from.join("report.json"))?)?;
    if report.quick {
        bail!("{}: a page is generated from a full run, not a quick one", from.display());
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(to)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "svg") {
            std::fs::remove_file(&path)?;
        }
    }
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name == "report.json" || name == "report.md" || name.ends_with(".svg") {
            std::fs::copy(&path, to.join(&name))
                .with_context(|| format!("copying {}", path.display()))?;
        }
    }
    let tables = to.join("tables");
    if tables.exists() {
        std::fs::remove_dir_all(&tables)?;
    }
    if from.join("tables").is_dir() {
        std::fs::create_dir_all(&tables)?;
        for entry in std::fs::read_dir(from.join("tables"))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "csv") {
                let name = path.file_name().context("a CSV without a name")?;
                std::fs::copy(&path, tables.join(name))
                    .with_context(|| format!("copying {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// The page: the title, a one-screen summary of the claims, the hand-written text, the
/// claims with one row per reading, the figures and a pointer to the full results (the
/// run's `report.md`, with the evidence test by test, and its tables as CSV), then the
/// commit line.
fn render(paper: &str, sources: &Sources) -> String {
    let mut page = format!(
        "<!-- Generated by `cargo xtask page {paper}` from {paper}/page.md and the full run's \
         {paper}/report.json and {paper}/report.md: edit those, not this file. -->\n\n"
    );
    let text = sources.text.trim_end();
    let (title, body) = match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("# ") => (first, rest.trim_start()),
        _ => ("", text),
    };
    if !title.is_empty() {
        page.push_str(title);
        page.push_str("\n\n");
    }
    page.push_str(&claims_summary_markdown(&sources.report.claims, "##"));
    page.push_str(&format!(
        "\nEach claim's reading, evidence and who chose what are below; every test is in \
         [the run's report]({paper}/report.md).\n\n"
    ));
    page.push_str(body);
    page.push_str("\n\n");
    page.push_str(&claims_page_markdown(&sources.report.claims, "##"));
    page.push_str(&format!(
        "\n## Results of a full run\n\nEvery result table, the evidence test by test (with \
         each end of a choice's range and each placebo) and every choice with its source are in \
         [{paper}/report.md]({paper}/report.md); each table is also a CSV file in \
         [{paper}/tables/]({paper}/tables/).\n"
    ));
    let figures: Vec<&str> =
        sources.report_md.lines().filter(|l| l.starts_with("![") && l.contains("](")).collect();
    if !figures.is_empty() {
        page.push_str("\n### Figures\n\n");
        for line in figures {
            let line = match line.find("](") {
                Some(at) => format!("{}]({paper}/{}", &line[..at], &line[at + 2..]),
                None => line.to_string(),
            };
            page.push_str(&line);
            page.push_str("\n\n");
        }
    }
    let commit =
        sources.report.commit.as_deref().unwrap_or("unknown (not written from a checkout)");
    page.push_str(&format!(
        "---\n\nClaims and results above are generated from the report of a full run (seed {}) \
         written at commit `{commit}`.\n",
        sources.report.seed
    ));
    page
}

/// Everything wrong with a paper's page sources, one line each.
fn check_sources(paper: &str, sources: &Sources) -> Vec<String> {
    let mut problems: Vec<String> =
        crate::check_paper(paper, &sources.report).unwrap_or_else(|e| vec![e.to_string()]);
    if sources.report.quick {
        problems.push(format!("{paper}/report.json is a quick run; a page shows a full run"));
    }
    let pool = report_numbers(&sources.report_json);
    for number in quoted_numbers(&sources.text) {
        if !number.found_in(&pool) {
            problems.push(format!(
                "{paper}/page.md line {}: {} is not a number of report.json",
                number.line, number.text
            ));
        }
    }
    problems
}

/// Every problem of the committed page of `paper`: its sources as [`check_sources`], and a
/// page that is not exactly what they generate.
pub(crate) fn check(paper: &str) -> Result<Vec<String>> {
    let sources = Sources::load(paper)?;
    let mut problems = check_sources(paper, &sources);
    let page = read(&pages_dir().join(format!("{paper}.md")))?;
    let rendered = render(paper, &sources);
    if rendered.len() > MAX_PAGE_BYTES {
        problems.push(format!(
            "docs/reproductions/{paper}.md is {} bytes, more than {MAX_PAGE_BYTES}: move detail to report.md",
            rendered.len()
        ));
    }
    if page != rendered {
        problems.push(format!(
            "docs/reproductions/{paper}.md is not what its sources generate: run `cargo xtask page {paper}`"
        ));
    }
    Ok(problems)
}

/// A decimal number quoted in a text.
#[derive(Debug, Clone, PartialEq)]
struct Quoted {
    /// As written (`0.9144`, `93.7%`).
    text: String,
    /// Its value (a percentage divided by 100).
    value: f64,
    /// Decimals written (of the percentage for a percentage, plus 2).
    decimals: i32,
    /// Line number in the text, from 1.
    line: usize,
}

impl Quoted {
    /// Whether some number of `pool` rounds to this one at the digits written (signs
    /// aside: a text writes "−0.014" or "0.014 below" alike).
    fn found_in(&self, pool: &[f64]) -> bool {
        let half = 0.5 * 10f64.powi(-self.decimals) + 1e-12;
        pool.iter().any(|x| (x.abs() - self.value.abs()).abs() <= half)
    }
}

/// The decimal numbers of `text` outside code spans and code blocks, and not section
/// numbers (`§6.1`) or versions (`0.1.0`).
fn quoted_numbers(text: &str) -> Vec<Quoted> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block || line.trim_start().starts_with("<!--") {
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut in_code = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '`' {
                in_code = !in_code;
                i += 1;
                continue;
            }
            let starts_number = c.is_ascii_digit()
                && (i == 0
                    || !(chars[i - 1].is_ascii_alphanumeric()
                        || matches!(chars[i - 1], '.' | '§' | '_' | ',')));
            if in_code || !starts_number {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let mut token: String = chars[start..i].iter().collect();
            while token.ends_with('.') {
                token.pop();
            }
            let followed_by_letter =
                i < chars.len() && (chars[i].is_alphabetic() && chars[i] != 'e');
            let dots = token.matches('.').count();
            if dots != 1 || followed_by_letter {
                continue;
            }
            let percent = chars.get(i) == Some(&'%');
            let decimals = token.len() - token.find('.').map_or(token.len(), |d| d + 1);
            let Ok(value) = token.parse::<f64>() else { continue };
            out.push(Quoted {
                text: if percent { format!("{token}%") } else { token },
                value: if percent { value / 100.0 } else { value },
                decimals: decimals as i32 + if percent { 2 } else { 0 },
                line: index + 1,
            });
        }
    }
    out
}

/// Every number of a report: its numeric values (curve points left out: there are so
/// many that any short decimal would match one) and the numbers written inside its texts.
fn report_numbers(report: &serde_json::Value) -> Vec<f64> {
    fn walk(value: &serde_json::Value, key: &str, out: &mut Vec<f64>) {
        match value {
            serde_json::Value::Number(n) => out.extend(n.as_f64()),
            serde_json::Value::String(s) => {
                out.extend(quoted_numbers(&s.replace('`', "")).iter().map(|q| q.value));
                out.extend(
                    s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
                        .filter_map(|t| t.parse::<f64>().ok()),
                );
            }
            serde_json::Value::Array(items) if key != "points" => {
                items.iter().for_each(|v| walk(v, key, out));
            }
            serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| walk(v, k, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(report, "", &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_numbers_skip_code_sections_versions_and_integers() {
        let text = "AUC 0.9144 vs 0.886 (§6.1, v0.1.0, 32,711 people, 93.7% of users)\n\
                    `given = 0.5` and\n```\n0.25\n```\nends at 0.57.";
        let numbers: Vec<String> = quoted_numbers(text).into_iter().map(|q| q.text).collect();
        assert_eq!(numbers, ["0.9144", "0.886", "93.7%", "0.57"]);
    }

    #[test]
    fn a_report_folder_is_not_copied_onto_itself() {
        let dir = std::env::temp_dir().join(format!("recs-page-self-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tables")).unwrap();
        std::fs::write(dir.join("figure.svg"), "<svg/>").unwrap();
        let error = copy_report(&dir, &dir.join("tables").join("..")).unwrap_err();
        assert!(error.to_string().contains("the page's own folder"), "{error}");
        assert!(dir.join("figure.svg").exists(), "nothing is deleted");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_quoted_number_is_found_at_the_digits_written() {
        let q = |t: &str| quoted_numbers(t).remove(0);
        let pool = [0.914_413, -0.014_2, 0.937_2];
        assert!(q("0.9144").found_in(&pool));
        assert!(q("0.914").found_in(&pool));
        assert!(!q("0.9145").found_in(&pool));
        assert!(q("−0.014").found_in(&pool), "signs aside");
        assert!(q("93.7%").found_in(&pool));
        assert!(!q("93.8%").found_in(&pool));
    }

    #[test]
    fn report_numbers_include_texts_but_not_curve_points() {
        let report = serde_json::json!({
            "auc": 0.75,
            "points": [[0.0, 0.0], [0.123, 0.456], [1.0, 1.0]],
            "measured": "CROC AUC 0.5713 vs 0.5265, tolerance 0.001",
        });
        let pool = report_numbers(&report);
        for v in [0.75, 0.5713, 0.5265, 0.001] {
            assert!(pool.contains(&v), "{v} in {pool:?}");
        }
        assert!(!pool.contains(&0.456));
    }

    /// Every page that has a report is generated from it, and its text quotes only the
    /// report's numbers.
    #[test]
    fn committed_pages_are_generated_from_their_reports() {
        for (paper, _) in crate::PAPERS {
            if !pages_dir().join(paper).join("page.md").exists() {
                continue;
            }
            let problems = check(paper).unwrap();
            assert!(problems.is_empty(), "{paper}:\n  {}", problems.join("\n  "));
        }
    }
}
