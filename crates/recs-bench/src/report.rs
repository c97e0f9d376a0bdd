//! The report contract: `report.json` (versioned), its validation, and `report.md`.
//!
//! Field names follow the contract of the design document; more fields may be added but
//! none renamed. [`Report::validate`] checks what a reader relies on: curves start at
//! (0, 0) and end at (1, 1), never go backwards, and `auc` is the trapezoid area of
//! exactly the stored points.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use recs_metrics::{partial_trapezoid, trapezoid};
use serde::{Deserialize, Serialize};

pub use crate::verdict::{Direction, Effect, IntervalKind, Rule, Verdict};

/// Version of the `report.json` layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// A whole reproduction or experiment report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Layout version, [`SCHEMA_VERSION`] when written by this crate.
    pub schema_version: u32,
    /// Paper or experiment name (`schein2005`, or a config's name).
    pub paper: String,
    /// The seed every random choice derived from.
    pub seed: u64,
    /// True for the CI-sized run.
    pub quick: bool,
    /// Version of the crates that wrote the report.
    pub version: String,
    /// The source commit that wrote the report, when it was written from a checkout
    /// (`git describe`'s hash, with `-modified` when tracked files differed from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The datasets read, with checksums of their files.
    pub datasets: Vec<DatasetEntry>,
    /// One entry per experiment (figure or table of the paper).
    pub experiments: Vec<Experiment>,
    /// The paper's claims, each evaluated on our results.
    pub claims: Vec<Claim>,
}

/// A dataset as used by a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetEntry {
    /// Registry name (`msweb`, `ml-100k`).
    pub name: String,
    /// Users in the loaded data.
    pub users: u64,
    /// Items in the loaded data.
    pub items: u64,
    /// Events in the loaded data.
    pub events: u64,
    /// The files read and their sha256.
    pub files: Vec<FileEntry>,
}

/// A file read for a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to the dataset folder.
    pub path: String,
    /// Lower-case hex sha256 of the file's bytes.
    pub sha256: String,
}

/// One experiment: a protocol, a test mode, and its results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Stable identifier (`fig3-msweb`).
    pub id: String,
    /// The protocol in words, with its parameters.
    pub protocol: String,
    /// Test mode (`implicit`, `rating:4`, `conditional:4`).
    pub mode: String,
    /// Number of judged (user, item) candidate pairs.
    pub candidates: u64,
    /// Number of relevant candidates.
    pub positives: u64,
    /// ROC and CROC curves of every model and reference.
    pub curves: Vec<Curve>,
    /// Tables of numbers (AUCs, validation scores, side metrics).
    pub tables: Vec<Table>,
}

/// Which curve a [`Curve`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CurveKind {
    /// The pooled ROC curve.
    Roc,
    /// The customer-constrained CROC curve.
    Croc,
}

/// One curve of one model (or reference) in one experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// ROC or CROC.
    pub kind: CurveKind,
    /// Model name, or `omniscient` / `random-expected` for references.
    pub model: String,
    /// Hyper-parameters as text.
    pub params: BTreeMap<String, String>,
    /// (false-alarm rate, hit rate) points from (0, 0) to (1, 1).
    pub points: Vec<[f64; 2]>,
    /// Trapezoid area under exactly `points`.
    pub auc: f64,
    /// Area up to false-alarm rate 0.3 (not divided by 0.3).
    pub pauc_0_3: f64,
}

/// A table of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Table name.
    pub name: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows of cells (numbers or text).
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A claim of the paper, judged on our results under the verdict model
/// ([`crate::verdict`]): its evidence is data, not prose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Stable identifier (`S1`).
    pub id: String,
    /// The claim in words, as we test it.
    pub statement: String,
    /// The paper's own words and where they are.
    pub paper: Quote,
    /// What we measured, in words; the numbers are in `readings`.
    pub measured: String,
    /// The readings the claim was judged under, each with its tests (at least one).
    pub readings: Vec<Reading>,
    /// The claim's verdict, from its readings ([`Claim::verdict_of`]).
    pub verdict: Verdict,
}

/// The paper's words behind a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// Section, figure or table (`§6.1`, `Figure 3`).
    pub section: String,
    /// The paper's words (quoted, or closely paraphrased where the claim is a figure).
    pub words: String,
}

/// One reading of a claim: a named choice the paper leaves open (or fixes), and the
/// tests that judge the claim under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The reading's name (`same people`, `gain = rating − 3`).
    pub name: String,
    /// Whether the paper's own text or code fixes this reading.
    pub primary: bool,
    /// The tests under this reading; every one must hold for the reading to hold.
    pub tests: Vec<Test>,
    /// Set when the reading cannot test the claim, and why; its tests are then evidence
    /// only.
    pub untestable: Option<Untestable>,
    /// The reading's verdict: untestable when `untestable` is set, otherwise
    /// [`Verdict::all`] of its tests.
    pub verdict: Verdict,
}

/// Why a reading cannot test its claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Untestable {
    /// A bound or a construction.
    pub cause: UntestableCause,
    /// Which bound, or which construction, in words.
    pub why: String,
}

/// The two causes of an untestable reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UntestableCause {
    /// The measure sits at a bound (recall 1 at every k, an area at 0).
    Bound,
    /// The set-up makes the claim true or false whatever the data.
    Construction,
}

/// One comparison: what is compared, the rule fixed before the result, the measured
/// effect, and the rule's verdict on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Test {
    /// What the effect is (`CROC AUC − ROC AUC, aspect`).
    pub subject: String,
    /// The decision rule.
    pub rule: Rule,
    /// The measured effect with its interval.
    pub effect: Effect,
    /// [`Rule::decide`] on `effect`.
    pub verdict: Verdict,
}

impl Test {
    /// A test of `effect` under `rule`; its verdict is the rule's.
    pub fn new(subject: impl Into<String>, rule: Rule, effect: Effect) -> Test {
        let verdict = rule.decide(&effect);
        Test { subject: subject.into(), rule, effect, verdict }
    }
}

impl Reading {
    /// A reading judged by `tests` (all must hold).
    pub fn new(name: impl Into<String>, tests: Vec<Test>) -> Reading {
        let verdict = Verdict::all(tests.iter().map(|t| t.verdict));
        Reading { name: name.into(), primary: false, tests, untestable: None, verdict }
    }

    /// A reading that cannot test the claim (`cause`, `why`); `tests` are kept as
    /// evidence.
    pub fn untestable(
        name: impl Into<String>,
        cause: UntestableCause,
        why: impl Into<String>,
        tests: Vec<Test>,
    ) -> Reading {
        Reading {
            name: name.into(),
            primary: false,
            tests,
            untestable: Some(Untestable { cause, why: why.into() }),
            verdict: Verdict::Untestable,
        }
    }

    /// The same reading, marked as the paper's own.
    pub fn primary(self) -> Reading {
        Reading { primary: true, ..self }
    }
}

impl Claim {
    /// A claim judged under `readings`; its verdict is [`Claim::verdict_of`] them.
    pub fn new(
        id: impl Into<String>,
        statement: impl Into<String>,
        paper: Quote,
        measured: impl Into<String>,
        readings: Vec<Reading>,
    ) -> Claim {
        let verdict = Claim::verdict_of(&readings);
        Claim {
            id: id.into(),
            statement: statement.into(),
            paper,
            measured: measured.into(),
            readings,
            verdict,
        }
    }

    /// A claim's verdict from its readings: the primary reading's when the paper fixes
    /// one; otherwise their common verdict, or [`Verdict::DependsOnReading`] when they
    /// differ.
    pub fn verdict_of(readings: &[Reading]) -> Verdict {
        if let Some(primary) = readings.iter().find(|r| r.primary) {
            return primary.verdict;
        }
        match readings.split_first() {
            None => Verdict::Untestable,
            Some((first, rest)) if rest.iter().all(|r| r.verdict == first.verdict) => first.verdict,
            Some(_) => Verdict::DependsOnReading,
        }
    }

    /// Every way the claim breaks the verdict model, one line each.
    pub fn problems(&self) -> Vec<String> {
        let at = |what: String| format!("claim {}: {what}", self.id);
        let mut out = Vec::new();
        for (field, text) in [
            ("statement", &self.statement),
            ("measured", &self.measured),
            ("paper.words", &self.paper.words),
            ("paper.section", &self.paper.section),
        ] {
            if text.trim().is_empty() {
                out.push(at(format!("{field} is empty")));
            }
        }
        if self.readings.is_empty() {
            out.push(at("no reading".into()));
        }
        if self.readings.iter().filter(|r| r.primary).count() > 1 {
            out.push(at("more than one primary reading".into()));
        }
        for reading in &self.readings {
            let at = |what: String| at(format!("reading `{}`: {what}", reading.name));
            if reading.name.trim().is_empty() {
                out.push(at("no name".into()));
            }
            match &reading.untestable {
                Some(u) if u.why.trim().is_empty() => {
                    out.push(at("untestable without saying why".into()));
                }
                Some(_) => {}
                None if reading.tests.is_empty() => out.push(at("no test".into())),
                None => {}
            }
            let expected = if reading.untestable.is_some() {
                Verdict::Untestable
            } else {
                Verdict::all(reading.tests.iter().map(|t| t.verdict))
            };
            if reading.verdict != expected {
                out.push(at(format!(
                    "verdict {} where its tests give {expected}",
                    reading.verdict
                )));
            }
            for test in &reading.tests {
                let at = |what: String| at(format!("test `{}`: {what}", test.subject));
                if test.subject.trim().is_empty() {
                    out.push(at("no subject".into()));
                }
                if !(test.rule.tolerance.is_finite() && test.rule.tolerance >= 0.0) {
                    out.push(at(format!(
                        "tolerance {} is not finite and ≥ 0",
                        test.rule.tolerance
                    )));
                }
                out.extend(test.effect.problems().into_iter().map(&at));
                let decided = test.rule.decide(&test.effect);
                if test.verdict != decided {
                    out.push(at(format!(
                        "verdict {} where the rule gives {decided}",
                        test.verdict
                    )));
                }
            }
        }
        let expected = Claim::verdict_of(&self.readings);
        if self.verdict != expected {
            out.push(at(format!("verdict {} where its readings give {expected}", self.verdict)));
        }
        out
    }
}

impl Curve {
    /// Builds a curve from its points, computing `auc` and `pauc_0_3` from them so the
    /// contract holds by construction.
    pub fn from_points(kind: CurveKind, model: impl Into<String>, points: Vec<[f64; 2]>) -> Self {
        let auc = trapezoid(&points);
        let pauc_0_3 = partial_trapezoid(&points, 0.3);
        Curve { kind, model: model.into(), params: BTreeMap::new(), points, auc, pauc_0_3 }
    }
}

impl Report {
    /// An empty report of `paper`, written by this version of the crates.
    pub fn new(paper: impl Into<String>, seed: u64, quick: bool) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            paper: paper.into(),
            seed,
            quick,
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: None,
            datasets: Vec::new(),
            experiments: Vec::new(),
            claims: Vec::new(),
        }
    }

    /// Every contract violation, one line each (empty when the report is well formed).
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.schema_version != SCHEMA_VERSION {
            problems
                .push(format!("schema_version {} is not {SCHEMA_VERSION}", self.schema_version));
        }
        for experiment in &self.experiments {
            for curve in &experiment.curves {
                let at = format!("{} {:?} {}", experiment.id, curve.kind, curve.model);
                let close = |p: &[f64; 2], q: [f64; 2]| {
                    (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9
                };
                match (curve.points.first(), curve.points.last()) {
                    (Some(first), Some(last)) => {
                        if !close(first, [0.0, 0.0]) {
                            problems.push(format!("{at}: first point {first:?} is not (0, 0)"));
                        }
                        if !close(last, [1.0, 1.0]) {
                            problems.push(format!("{at}: last point {last:?} is not (1, 1)"));
                        }
                    }
                    _ => problems.push(format!("{at}: no points")),
                }
                if curve
                    .points
                    .windows(2)
                    .any(|w| w[1][0] < w[0][0] - 1e-12 || w[1][1] < w[0][1] - 1e-12)
                {
                    problems.push(format!("{at}: points go backwards"));
                }
                if curve
                    .points
                    .iter()
                    .flatten()
                    .any(|v| !v.is_finite() || *v < -1e-12 || *v > 1.0 + 1e-12)
                {
                    problems.push(format!("{at}: a coordinate is outside [0, 1]"));
                }
                let area = trapezoid(&curve.points);
                if (area - curve.auc).abs() > 1e-9 {
                    problems
                        .push(format!("{at}: auc {} differs from the trapezoid {area}", curve.auc));
                }
                let partial = partial_trapezoid(&curve.points, 0.3);
                if (partial - curve.pauc_0_3).abs() > 1e-9 {
                    problems
                        .push(format!("{at}: pauc_0_3 {} differs from {partial}", curve.pauc_0_3));
                }
            }
        }
        let mut ids: Vec<&str> = self.claims.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            problems.push("claim ids are not unique".to_string());
        }
        for claim in &self.claims {
            problems.extend(claim.problems());
        }
        problems
    }

    /// Writes `report.json` to `path` atomically (a temporary file renamed into place).
    ///
    /// # Errors
    /// Any I/O error; the target is left untouched on failure.
    pub fn write_json(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        write_atomic(path, text.as_bytes())
    }

    /// The human report: datasets, experiments with their AUC tables and figures, claims.
    /// `figures` maps an experiment id to the SVG file names to embed.
    pub fn to_markdown(&self, figures: &BTreeMap<String, Vec<String>>) -> String {
        self.to_markdown_with_intro(figures, "")
    }

    /// As [`Report::to_markdown`], with `intro` (Markdown) under the title.
    pub fn to_markdown_with_intro(
        &self,
        figures: &BTreeMap<String, Vec<String>>,
        intro: &str,
    ) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# {} — report\n", self.paper);
        if !intro.trim().is_empty() {
            let _ = writeln!(md, "{}\n", intro.trim_end());
        }
        let _ = writeln!(
            md,
            "recs {}{} · seed {} · {} run\n",
            self.version,
            self.commit.as_ref().map_or(String::new(), |c| format!(" (commit {c})")),
            self.seed,
            if self.quick { "quick" } else { "full" }
        );
        let _ =
            writeln!(md, "## Datasets\n\n| name | users | items | events |\n|---|---:|---:|---:|");
        for d in &self.datasets {
            let _ = writeln!(md, "| {} | {} | {} | {} |", d.name, d.users, d.items, d.events);
        }
        for e in &self.experiments {
            let _ = writeln!(
                md,
                "\n## {}\n\n{} · mode `{}` · {} candidates, {} positives\n",
                e.id, e.protocol, e.mode, e.candidates, e.positives
            );
            if !e.curves.is_empty() {
                let _ = writeln!(
                    md,
                    "| curve | model | AUC | pAUC(FPR ≤ 0.3) | pAUC / 0.3 |\n|---|---|---:|---:|---:|"
                );
                for c in &e.curves {
                    let kind = match c.kind {
                        CurveKind::Roc => "ROC",
                        CurveKind::Croc => "CROC",
                    };
                    let _ = writeln!(
                        md,
                        "| {kind} | {} | {:.4} | {:.4} | {:.4} |",
                        escape(&c.model),
                        c.auc,
                        c.pauc_0_3,
                        c.pauc_0_3 / 0.3
                    );
                }
            }
            for t in &e.tables {
                let columns: Vec<String> = t.columns.iter().map(|c| escape(c)).collect();
                let _ = writeln!(
                    md,
                    "\n**{}**\n\n| {} |\n|{}",
                    escape(&t.name),
                    columns.join(" | "),
                    "---|".repeat(t.columns.len())
                );
                for row in &t.rows {
                    let cells: Vec<String> = row.iter().map(render_cell).collect();
                    let _ = writeln!(md, "| {} |", cells.join(" | "));
                }
            }
            for file in figures.get(&e.id).into_iter().flatten() {
                let _ = writeln!(md, "\n![{}]({file})", e.id);
            }
        }
        md.push('\n');
        md.push_str(&claims_markdown(&self.claims, "##"));
        md
    }
}

/// The claims as Markdown under a heading of level `level` (`##`): a summary table (claim,
/// the paper's words, what we measured, verdict) and an evidence table with one row per
/// test of every reading (rule, effect with its interval, the test's verdict and why).
pub fn claims_markdown(claims: &[Claim], level: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "{level} Claims\n\n| id | claim | the paper | measured | verdict |\n|---|---|---|---|---|"
    );
    for c in claims {
        let _ = writeln!(
            md,
            "| {} | {} | {}: {} | {} | **{}** |",
            c.id,
            escape(&c.statement),
            escape(&c.paper.section),
            escape(&c.paper.words),
            escape(&c.measured),
            c.verdict
        );
    }
    let _ = writeln!(
        md,
        "\n{level}# Evidence\n\nOne row per test; a reading holds when all its tests hold. The \
         rule is fixed before the result: the test holds when the whole 95% interval of the \
         effect lies on the claimed side of the tolerance, fails when it excludes the claimed \
         effect, and is inconclusive otherwise.\n\n\
         | claim | reading | test | rule | effect [95% interval] | test verdict | reading verdict |\n\
         |---|---|---|---|---|---|---|"
    );
    for c in claims {
        for r in &c.readings {
            let name = if r.primary { format!("{} (the paper's)", r.name) } else { r.name.clone() };
            let reading_verdict = match &r.untestable {
                Some(u) => format!(
                    "**untestable** ({}: {})",
                    match u.cause {
                        UntestableCause::Bound => "at a bound",
                        UntestableCause::Construction => "by construction",
                    },
                    escape(&u.why)
                ),
                None => format!("**{}**", r.verdict),
            };
            if r.tests.is_empty() {
                let _ = writeln!(
                    md,
                    "| {} | {} | – | – | – | – | {reading_verdict} |",
                    c.id,
                    escape(&name)
                );
            }
            for t in &r.tests {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} ({}) | {reading_verdict} |",
                    c.id,
                    escape(&name),
                    escape(&t.subject),
                    t.rule.short(),
                    t.effect.describe(4),
                    t.verdict,
                    t.rule.reason(&t.effect)
                );
            }
        }
    }
    md
}

/// Escapes the table separator so free text cannot break a Markdown table.
fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render_cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => format!("{f:.4}"),
            _ => n.to_string(),
        },
        serde_json::Value::String(s) => escape(s),
        serde_json::Value::Null => "–".to_string(),
        other => other.to_string(),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// a reader never sees a half-written file.
///
/// # Errors
/// Any I/O error; the temporary file is removed on failure.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().ok_or_else(|| io::Error::other("path has no file name"))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::tests::interval;

    fn claim_with(readings: Vec<Reading>) -> Claim {
        Claim::new("S1", "s", Quote { section: "§1".into(), words: "p".into() }, "m", readings)
    }

    fn report_with(points: Vec<[f64; 2]>) -> Report {
        Report {
            experiments: vec![Experiment {
                id: "e".into(),
                protocol: "p".into(),
                mode: "implicit".into(),
                candidates: 4,
                positives: 2,
                curves: vec![Curve::from_points(CurveKind::Roc, "m", points)],
                tables: vec![],
            }],
            claims: vec![claim_with(vec![
                Reading::new("r", vec![Test::new("a − b", Rule::above(0.01), Effect::exact(0.2))])
                    .primary(),
            ])],
            ..Report::new("test", 1, true)
        }
    }

    #[test]
    fn a_well_formed_report_validates_and_round_trips() {
        let report = report_with(vec![[0.0, 0.0], [0.25, 0.5], [1.0, 1.0]]);
        assert_eq!(report.validate(), Vec::<String>::new());
        let text = serde_json::to_string(&report).unwrap();
        assert!(text.contains("\"kind\":\"roc\""));
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn malformed_curves_are_reported() {
        let mut report = report_with(vec![[0.0, 0.1], [0.6, 0.5], [0.5, 0.9]]);
        report.experiments[0].curves[0].auc = 0.9;
        let problems = report.validate();
        assert!(problems.iter().any(|p| p.contains("is not (0, 0)")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("is not (1, 1)")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("backwards")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("differs from the trapezoid")), "{problems:?}");
    }

    #[test]
    fn markdown_lists_curves_and_claims() {
        let report = report_with(vec![[0.0, 0.0], [1.0, 1.0]]);
        let figures = BTreeMap::from([("e".to_string(), vec!["e-roc.svg".to_string()])]);
        let md = report.to_markdown(&figures);
        assert!(md.contains("| ROC | m | 0.5000 | 0.0450 | 0.1500 |"), "{md}");
        assert!(md.contains("![e](e-roc.svg)"));
        assert!(md.contains("| S1 | s | §1: p | m | **holds** |"), "{md}");
        assert!(
            md.contains("| S1 | r (the paper's) | a − b | above +0.01 | +0.2000 (exact) | holds"),
            "{md}"
        );
    }

    #[test]
    fn each_verdict_is_reachable_from_readings() {
        let test = |low, high| Test::new("d", Rule::above(0.01), interval(low, high));
        let holds = Reading::new("h", vec![test(0.02, 0.03)]);
        let fails = Reading::new("f", vec![test(-0.03, 0.0)]);
        let unsure = Reading::new("i", vec![test(0.0, 0.03)]);
        let bound =
            Reading::untestable("b", UntestableCause::Bound, "recall is 1 at every k", vec![]);
        assert_eq!(claim_with(vec![holds.clone()]).verdict, Verdict::Holds);
        assert_eq!(claim_with(vec![fails.clone()]).verdict, Verdict::Fails);
        assert_eq!(claim_with(vec![unsure.clone()]).verdict, Verdict::Inconclusive);
        assert_eq!(claim_with(vec![bound.clone()]).verdict, Verdict::Untestable);
        assert_eq!(
            claim_with(vec![holds.clone(), fails.clone()]).verdict,
            Verdict::DependsOnReading
        );
        // A reading the paper fixes decides; the others are sensitivity.
        assert_eq!(claim_with(vec![holds.clone(), fails.primary()]).verdict, Verdict::Fails);
        assert_eq!(claim_with(vec![holds.clone(), holds]).verdict, Verdict::Holds);
        for verdict in [unsure, bound] {
            assert!(claim_with(vec![verdict]).problems().is_empty());
        }
    }

    #[test]
    fn claims_without_their_evidence_are_refused() {
        let mut report = report_with(vec![[0.0, 0.0], [1.0, 1.0]]);
        report.claims[0].paper.section.clear();
        report.claims[0].readings[0].tests[0].verdict = Verdict::Fails;
        report.claims.push(claim_with(vec![]));
        report.claims[1].id = "S2".into();
        report.claims[1].verdict = Verdict::Holds;
        report.claims.push(claim_with(vec![Reading::untestable(
            "u",
            UntestableCause::Construction,
            " ",
            vec![],
        )]));
        report.claims[2].id = "S3".into();
        let problems = report.validate().join("\n");
        for needle in [
            "claim S1: paper.section is empty",
            "verdict fails where the rule gives holds",
            "claim S1: reading `r`: verdict holds where its tests give fails",
            "claim S2: no reading",
            "claim S2: verdict holds where its readings give untestable",
            "claim S3: reading `u`: untestable without saying why",
        ] {
            assert!(problems.contains(needle), "{needle} not in\n{problems}");
        }
    }

    #[test]
    fn atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out").join("report.json");
        report_with(vec![[0.0, 0.0], [1.0, 1.0]]).write_json(&path).unwrap();
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
    }
}
