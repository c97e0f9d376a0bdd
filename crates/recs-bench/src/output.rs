//! Writing a report folder: `report.json`, `report.md`, one SVG per figure and one CSV per
//! table and per family of paired comparisons. Every file is written atomically (a
//! temporary file renamed into place), so an interrupted run never leaves a half-written
//! file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::curves::ModelCurve;
use crate::error::{BenchError, Result};
use crate::report::{Report, Table, write_atomic};

/// A figure to write: the experiment it belongs to, its file name and the chart.
#[derive(Debug, Clone)]
pub struct Figure {
    experiment: String,
    file: String,
    chart: crate::plot::Figure,
}

impl Figure {
    pub(crate) fn new(experiment: &str, file: &str, chart: crate::plot::Figure) -> Self {
        Figure { experiment: experiment.to_string(), file: file.to_string(), chart }
    }

    /// A ROC-type figure shown under `experiment` and written to `file`: `models` solid
    /// with their increment markers, `references` thin, the AUC in each legend entry.
    pub fn curves(
        experiment: &str,
        file: &str,
        title: &str,
        models: &[ModelCurve],
        references: &[ModelCurve],
    ) -> Self {
        let chart = crate::curves::figure(title, models, references);
        Figure::new(experiment, file, crate::plot::Figure::Lines(chart))
    }

    /// A chart of metric values against a parameter, shown under `experiment` and written
    /// to `file`: each [`Line`] solid with its markers (a marker at each point unless it
    /// names some) and its band shaded behind it; the axes fit the points and bands.
    pub fn lines(
        experiment: &str,
        file: &str,
        title: &str,
        axes: [&str; 2],
        lines: &[Line],
    ) -> Self {
        let series = lines
            .iter()
            .map(|line| crate::plot::Series {
                label: line.label.clone(),
                points: line.points.clone(),
                markers: if line.markers.is_empty() {
                    line.points.clone()
                } else {
                    line.markers.clone()
                },
                band: line.band.clone(),
                kind: crate::plot::LineKind::Model,
            })
            .collect();
        let chart = crate::plot::Chart::fitted(title, axes[0], axes[1], series);
        Figure::new(experiment, file, crate::plot::Figure::Lines(chart))
    }

    /// The file name, relative to the report folder.
    pub fn file(&self) -> &str {
        &self.file
    }
}

/// One line of a [`Figure::lines`] chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Line {
    /// Legend text.
    pub label: String,
    /// `(x, y)` points in increasing `x`.
    pub points: Vec<[f64; 2]>,
    /// `(x, lower, upper)` in increasing `x`, shaded behind the line (e.g. the 95%
    /// interval of each point); empty for none.
    pub band: Vec<[f64; 3]>,
    /// The points to mark (e.g. a figure's marked list lengths); empty: every point.
    pub markers: Vec<[f64; 2]>,
}

/// Everything a report folder holds besides what `report.json` says.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// The figures, embedded in `report.md` under their experiment.
    pub figures: Vec<Figure>,
    /// Markdown under the title of `report.md`.
    pub intro: String,
    /// Markdown after the claims.
    pub notes: String,
    /// Further files, `(relative path, contents)` (e.g. saved scores).
    pub files: Vec<(String, String)>,
}

/// Writes `report` and `extras` into `dir` (created if needed) and returns the paths
/// written. The report is validated first; nothing is written if it breaks its contract.
///
/// # Errors
/// [`BenchError::Contract`] for an invalid report, [`BenchError::Plot`] when a figure
/// cannot be drawn, [`BenchError::Io`] when a file cannot be written.
pub fn write_report(dir: &Path, report: &Report, extras: &Extras) -> Result<Vec<PathBuf>> {
    let problems = report.validate();
    if !problems.is_empty() {
        return Err(BenchError::Contract(problems));
    }
    // Draw everything before writing anything.
    let mut svgs = Vec::with_capacity(extras.figures.len());
    for figure in &extras.figures {
        svgs.push(figure.chart.to_svg()?);
    }
    let mut written = Vec::new();
    let mut put = |relative: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(relative);
        write_atomic(&path, bytes).map_err(|e| BenchError::io(&path, e))?;
        written.push(path);
        Ok(())
    };
    let mut embedded: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (figure, svg) in extras.figures.iter().zip(&svgs) {
        put(&figure.file, svg.as_bytes())?;
        embedded.entry(figure.experiment.clone()).or_default().push(figure.file.clone());
    }
    for experiment in &report.experiments {
        for (index, table) in experiment.tables.iter().enumerate() {
            let name = format!("tables/{}-{}-{}.csv", experiment.id, index + 1, slug(&table.name));
            put(&name, &table_csv(table)?)?;
        }
    }
    for comparison in &report.comparisons {
        let name = format!("tables/{}-comparisons.csv", comparison.experiment);
        put(&name, &rows_csv(&name, &comparison.columns, &comparison.rows)?)?;
    }
    for (relative, contents) in &extras.files {
        put(relative, contents.as_bytes())?;
    }
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| BenchError::io(dir.join("report.json"), std::io::Error::other(e)))?;
    put("report.json", json.as_bytes())?;
    let mut md = report.to_markdown_with_intro(&embedded, &extras.intro);
    md.push_str(&extras.notes);
    put("report.md", md.as_bytes())?;
    Ok(written)
}

/// A table as CSV: a header row, then the cells (numbers in full precision, text as is).
///
/// # Errors
/// Only if the CSV writer fails in memory.
pub(crate) fn table_csv(table: &Table) -> Result<Vec<u8>> {
    rows_csv(&format!("<{}>", table.name), &table.columns, &table.rows)
}

/// `columns` and `rows` as CSV, as [`table_csv`]; `name` names them in errors.
fn rows_csv(name: &str, columns: &[String], rows: &[Vec<serde_json::Value>]) -> Result<Vec<u8>> {
    let to_io = |e: csv::Error| BenchError::io(name, e.into());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(columns).map_err(to_io)?;
    for row in rows {
        let cells = row.iter().map(|cell| match cell {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        });
        writer.write_record(cells).map_err(to_io)?;
    }
    writer.into_inner().map_err(|e| BenchError::io(name, e.into_error()))
}

/// A file-name fragment: lower-case ASCII letters and digits, words joined by `-`, whole
/// words up to about 32 characters.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        if !out.is_empty() && out.len() + word.len() >= 32 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Curve, CurveKind, Experiment};
    use serde_json::json;

    fn report(points: Vec<[f64; 2]>) -> Report {
        Report {
            experiments: vec![Experiment {
                id: "demo".into(),
                protocol: "p".into(),
                mode: "implicit".into(),
                candidates: 4,
                positives: 2,
                curves: vec![Curve::from_points(CurveKind::Roc, "m", points)],
                tables: vec![Table {
                    name: "Results: mean, 95% interval".into(),
                    columns: vec!["model".into(), "p@1".into(), "note".into()],
                    rows: vec![
                        vec![json!("m"), json!(0.5), json!("a, \"b\"")],
                        vec![json!("n"), json!(null), json!("")],
                    ],
                }],
            }],
            ..Report::new("demo", 1, true)
        }
    }

    #[test]
    fn a_report_folder_holds_json_markdown_and_csv() {
        let dir = tempfile::tempdir().unwrap();
        let extras = Extras {
            intro: "Intro text.".into(),
            files: vec![("scores/run.tsv".into(), "u\ti\t1\n".into())],
            ..Extras::default()
        };
        let written =
            write_report(dir.path(), &report(vec![[0.0, 0.0], [1.0, 1.0]]), &extras).unwrap();
        assert_eq!(written.len(), 4);
        let csv =
            std::fs::read_to_string(dir.path().join("tables/demo-1-results-mean-95-interval.csv"))
                .unwrap();
        assert_eq!(csv, "model,p@1,note\nm,0.5,\"a, \"\"b\"\"\"\nn,,\n");
        let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        assert!(md.starts_with("# demo — report\n\nIntro text.\n"), "{md}");
        let back: Report =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        assert_eq!(back, report(vec![[0.0, 0.0], [1.0, 1.0]]));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("scores/run.tsv")).unwrap(),
            "u\ti\t1\n"
        );
    }

    /// A line marks every point unless it names the points to mark.
    #[test]
    fn lines_mark_every_point_or_the_named_ones() {
        let circles = |markers: Vec<[f64; 2]>| {
            let line = Line {
                label: "m".into(),
                points: vec![[0.0, 0.1], [0.5, 0.4], [1.0, 0.9]],
                band: Vec::new(),
                markers,
            };
            let figure = Figure::lines("e", "e.svg", "t", ["x", "y"], &[line]);
            figure.chart.to_svg().unwrap().matches("<circle").count()
        };
        let (all, one) = (circles(Vec::new()), circles(vec![[0.5, 0.4]]));
        assert_eq!(all - one, 2, "{all} {one}");
    }

    #[test]
    fn a_broken_report_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let err =
            write_report(dir.path(), &report(vec![[0.0, 0.0], [0.5, 0.9]]), &Extras::default());
        assert!(matches!(err, Err(BenchError::Contract(_))));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn slugs_are_file_name_safe() {
        assert_eq!(slug("Results: mean ± 95% (t)"), "results-mean-95-t");
        assert_eq!(slug("Validation of puresvd `rank`"), "validation-of-puresvd-rank");
        assert_eq!(
            slug("Results: mean over 2 split(s), 95% t half-width"),
            "results-mean-over-2-split-s-95-t"
        );
    }
}
