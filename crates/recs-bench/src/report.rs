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

/// Version of the `report.json` layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

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

/// A claim of the paper, evaluated on our results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Stable identifier (`S1`).
    pub id: String,
    /// The claim in words.
    pub statement: String,
    /// What the paper reports.
    pub paper: String,
    /// What we measured.
    pub measured: String,
    /// Whether the claim holds on our results.
    pub holds: bool,
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
            "recs {} · seed {} · {} run\n",
            self.version,
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
        let _ = writeln!(
            md,
            "\n## Claims\n\n| id | claim | paper | measured | holds |\n|---|---|---|---|---|"
        );
        for c in &self.claims {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                c.id,
                escape(&c.statement),
                escape(&c.paper),
                escape(&c.measured),
                if c.holds { "yes" } else { "**no**" }
            );
        }
        md
    }
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
            claims: vec![Claim {
                id: "S1".into(),
                statement: "s".into(),
                paper: "p".into(),
                measured: "m".into(),
                holds: true,
            }],
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
        assert!(md.contains("| S1 | s | p | m | yes |"));
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
