//! Shared machinery of the reproductions: options, data location, fitting models by
//! catalog name, turning scores into report curves and figures, writing the outputs.

pub(crate) mod schein2005;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use recs_bench::curves::{ModelCurve, figure};
use recs_bench::report::{CurveKind, Report, write_atomic};
use recs_bench::scoring::{ItemSource, score_judgments};
use recs_core::{Interactions, ItemAttributes, Judgments, ParamValues, Recommender, TrainData};
use recs_metrics::Scored;

/// Command-line options shared by every reproduction.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// CI-sized run.
    pub(crate) quick: bool,
    /// Output root; each paper writes into `out/<paper>/`.
    pub(crate) out: PathBuf,
    /// Seed of every random choice.
    pub(crate) seed: u64,
    /// Explicit data folder (first in the resolution order).
    pub(crate) data_dir: Option<PathBuf>,
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Self> {
        let mut options = Options {
            quick: false,
            out: PathBuf::from("target/reproduce"),
            seed: 42,
            data_dir: None,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value =
                |name: &str| it.next().cloned().with_context(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--out" => options.out = PathBuf::from(value("--out")?),
                "--seed" => {
                    let text = value("--seed")?;
                    options.seed = text
                        .parse()
                        .with_context(|| format!("--seed {text}: expected an integer"))?;
                }
                "--data-dir" => options.data_dir = Some(PathBuf::from(value("--data-dir")?)),
                other => bail!(
                    "unknown option `{other}` (known: --quick, --out DIR, --seed N, --data-dir DIR)"
                ),
            }
        }
        Ok(options)
    }

    /// Where datasets are found: `--data-dir`, then `RECS_DATA_DIR`, then the user cache,
    /// then the official download (verified by sha256).
    pub(crate) fn resolver(&self) -> recs_data::Resolver {
        recs_data::Resolver::from_env().with_data_dir(self.data_dir.clone()).with_progress(true)
    }
}

/// Progress lines on standard error, with elapsed time.
pub(crate) struct Progress {
    start: Instant,
}

impl Progress {
    pub(crate) fn new() -> Self {
        Progress { start: Instant::now() }
    }

    pub(crate) fn say(&self, what: impl std::fmt::Display) {
        eprintln!("[{:>7.1}s] {what}", self.start.elapsed().as_secs_f64());
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// Fits the catalogued model `name` with text parameters.
pub(crate) fn fit(
    name: &str,
    params: &[(&str, String)],
    train: &Interactions,
    attributes: Option<&ItemAttributes>,
    seed: u64,
) -> Result<Box<dyn Recommender>> {
    let entry = recs_bench::registry::find(name)
        .with_context(|| format!("model `{name}` is not in the registry"))?;
    let mut values = ParamValues::new();
    for (k, v) in params {
        values.set(*k, v.clone());
    }
    let unfitted = entry.build_checked(&values).with_context(|| format!("parameters of {name}"))?;
    let mut data = TrainData::new(train, seed);
    if let Some(attributes) = attributes {
        data = data.with_attributes(attributes)?;
    }
    unfitted.fit_dyn(&data).with_context(|| format!("fitting {name}"))
}

/// The ROC and CROC curves of one model's scores, and the §7.3 side metrics.
pub(crate) struct Evaluated {
    pub(crate) roc: ModelCurve,
    pub(crate) croc: ModelCurve,
    /// Mean absolute error of the raw scores against the 0/1 outcomes of every candidate
    /// (schein2005 eq. 11).
    pub(crate) mae: f64,
    /// Breese's half-life utility R with α = 5 (schein2005 eq. 12–13), 0–100.
    pub(crate) half_life: Option<f64>,
}

/// Scores `judgments` with `model` and summarises both curves.
pub(crate) fn evaluate(
    label: &str,
    model: &dyn Recommender,
    judgments: &Judgments,
    source: ItemSource<'_>,
    steps: (f64, f64),
) -> Result<(Evaluated, Vec<f32>)> {
    let scores =
        score_judgments(model, judgments, source).with_context(|| format!("scoring {label}"))?;
    let evaluated = curves_of(label, judgments, &scores, steps)?;
    Ok((evaluated, scores))
}

/// Both curves of given scores (aligned with `judgments`); grade ≥ 1 is relevant.
pub(crate) fn curves_of(
    label: &str,
    judgments: &Judgments,
    scores: &[f32],
    steps: (f64, f64),
) -> Result<Evaluated> {
    let scored = Scored::new(judgments, scores)?;
    let roc = recs_metrics::roc(&scored, 1.0)?;
    let croc = recs_metrics::croc(&scored, 1.0)?;
    let outcomes: Vec<f32> = judgments
        .iter()
        .flat_map(|u| u.grades.iter().map(|&g| f32::from(u8::from(g >= 1.0))))
        .collect();
    let mae = recs_metrics::rating_errors(scores, &outcomes)?.mae;
    let side = recs_metrics::evaluate(
        &scored,
        &[recs_metrics::Metric::HalfLife(5.0)],
        &recs_metrics::Options::default(),
        0.3,
        false,
    )?;
    Ok(Evaluated {
        roc: ModelCurve::new(CurveKind::Roc, label, &roc, steps.0),
        croc: ModelCurve::new(CurveKind::Croc, label, &croc, steps.1),
        mae,
        half_life: side.get("half_life@5"),
    })
}

/// The omniscient and random references of both kinds.
pub(crate) struct References {
    pub(crate) roc: Vec<ModelCurve>,
    pub(crate) croc: Vec<ModelCurve>,
}

pub(crate) fn references(judgments: &Judgments) -> Result<References> {
    let positives = judgments.n_relevant(1.0) as u64;
    let negatives = judgments.n_candidates() as u64 - positives;
    let omniscient_roc = recs_metrics::omniscient_roc(positives, negatives);
    let random_roc = recs_metrics::random_roc(positives, negatives);
    let omniscient_croc = recs_metrics::omniscient_croc(judgments, 1.0)?;
    let random_croc = recs_metrics::random_croc(judgments, 1.0)?;
    Ok(References {
        roc: vec![
            ModelCurve::new(CurveKind::Roc, "omniscient", &omniscient_roc, 0.0),
            ModelCurve::new(CurveKind::Roc, "random (expected)", &random_roc, 0.0),
        ],
        croc: vec![
            ModelCurve::new(CurveKind::Croc, "omniscient", &omniscient_croc, 0.0),
            ModelCurve::new(CurveKind::Croc, "random (expected)", &random_croc, 0.0),
        ],
    })
}

/// Writes `report.json`, one SVG per figure and `report.md` into `dir`.
pub(crate) fn write_outputs(
    dir: &Path,
    report: &Report,
    figures: &[(String, String, recs_bench::plot::Chart)],
    extra_markdown: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut embedded: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (experiment, file, chart) in figures {
        let svg = chart.to_svg()?;
        write_atomic(&dir.join(file), svg.as_bytes())?;
        embedded.entry(experiment.clone()).or_default().push(file.clone());
    }
    report.write_json(&dir.join("report.json"))?;
    let mut md = report.to_markdown(&embedded);
    md.push_str(extra_markdown);
    write_atomic(&dir.join("report.md"), md.as_bytes())?;
    Ok(())
}

/// A ROC and a CROC figure for one experiment.
pub(crate) fn figures_for(
    experiment: &str,
    title: &str,
    models: &[&Evaluated],
    references: &References,
) -> Vec<(String, String, recs_bench::plot::Chart)> {
    let roc: Vec<ModelCurve> = models.iter().map(|m| m.roc.clone()).collect();
    let croc: Vec<ModelCurve> = models.iter().map(|m| m.croc.clone()).collect();
    vec![
        (
            experiment.to_string(),
            format!("{experiment}-roc.svg"),
            figure(&format!("{title} — ROC"), &roc, &references.roc),
        ),
        (
            experiment.to_string(),
            format!("{experiment}-croc.svg"),
            figure(&format!("{title} — CROC"), &croc, &references.croc),
        ),
    ]
}
