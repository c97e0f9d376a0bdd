//! Fitting catalogued models and summarising their scores as report curves: the steps
//! shared by `recs run` and the paper reproductions.

use recs_core::{Interactions, ItemAttributes, Judgments, ParamValues, Recommender, TrainData};
use recs_metrics::Scored;

use crate::curves::ModelCurve;
use crate::error::{BenchError, Result};
use crate::plot::Chart;
use crate::report::CurveKind;
use crate::scoring::{ItemSource, score_judgments};

/// Fits the catalogued model `name` with text parameters on `train` (with `attributes`
/// for content models) and `seed`.
///
/// # Errors
/// An unknown model, an invalid parameter, or a fitting error — each naming the model.
pub fn fit(
    name: &str,
    params: &[(&str, String)],
    train: &Interactions,
    attributes: Option<&ItemAttributes>,
    seed: u64,
) -> Result<Box<dyn Recommender>> {
    let entry = crate::registry::find(name)?;
    let mut values = ParamValues::new();
    for (key, value) in params {
        values.set(*key, value.clone());
    }
    let unfitted = entry.build_checked(&values).map_err(|e| in_model(name, "parameters", e))?;
    let mut data = TrainData::new(train, seed);
    if let Some(attributes) = attributes {
        data = data.with_attributes(attributes)?;
    }
    unfitted.fit_dyn(&data).map_err(|e| in_model(name, "fitting", e))
}

fn in_model(name: &str, stage: &str, error: recs_core::RecsError) -> BenchError {
    BenchError::Experiment(format!("{stage} of `{name}`: {error}"))
}

/// The ROC and CROC curves of one model's scores, and the schein2005 §7.3 side metrics.
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// Pooled ROC curve.
    pub roc: ModelCurve,
    /// CROC curve.
    pub croc: ModelCurve,
    /// Mean absolute error of the raw scores against the 0/1 outcomes of every candidate
    /// (schein2005 eq. 11).
    pub mae: f64,
    /// Breese's half-life utility R with α = 5 (schein2005 eq. 12–13), 0–100; `None`
    /// when undefined.
    pub half_life: Option<f64>,
}

/// Scores `judgments` with `model` and summarises both curves; `steps` are the ROC and
/// CROC increments of the figure markers (0 for none).
///
/// # Errors
/// A scoring or metric error.
pub fn evaluate(
    label: &str,
    model: &dyn Recommender,
    judgments: &Judgments,
    source: ItemSource<'_>,
    steps: (f64, f64),
) -> Result<(Evaluated, Vec<f32>)> {
    let scores = score_judgments(model, judgments, source)
        .map_err(|e| BenchError::Experiment(format!("scoring {label}: {e}")))?;
    let evaluated = curves_of(label, judgments, &scores, steps)?;
    Ok((evaluated, scores))
}

/// Both curves of given scores (aligned with `judgments`); grade ≥ 1 is relevant.
///
/// # Errors
/// Scores of the wrong length, or judgments without positives or negatives.
pub fn curves_of(
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

/// The omniscient and random-expected reference curves of both kinds.
#[derive(Debug, Clone)]
pub struct References {
    /// ROC references.
    pub roc: Vec<ModelCurve>,
    /// CROC references.
    pub croc: Vec<ModelCurve>,
}

/// The references of `judgments` (grade ≥ `threshold` is relevant).
///
/// # Errors
/// Judgments without positives or negatives.
pub fn references(judgments: &Judgments, threshold: f32) -> Result<References> {
    let positives = judgments.n_relevant(threshold) as u64;
    let negatives = judgments.n_candidates() as u64 - positives;
    let omniscient_roc = recs_metrics::omniscient_roc(positives, negatives);
    let random_roc = recs_metrics::random_roc(positives, negatives);
    let omniscient_croc = recs_metrics::omniscient_croc(judgments, threshold)?;
    let random_croc = recs_metrics::random_croc(judgments, threshold)?;
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

/// A figure to write: the experiment it belongs to, its file name and the chart.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Experiment id the figure is shown under in `report.md`.
    pub experiment: String,
    /// File name (`<experiment>-roc.svg`).
    pub file: String,
    /// What to draw.
    pub chart: crate::plot::Figure,
}

/// A ROC and a CROC figure for one experiment, models over references.
pub fn roc_croc_figures(
    experiment: &str,
    title: &str,
    roc: &[ModelCurve],
    croc: &[ModelCurve],
    references: &References,
) -> Vec<Figure> {
    let line = |c: Chart| crate::plot::Figure::Lines(c);
    vec![
        Figure {
            experiment: experiment.to_string(),
            file: format!("{experiment}-roc.svg"),
            chart: line(crate::curves::figure(&format!("{title} — ROC"), roc, &references.roc)),
        },
        Figure {
            experiment: experiment.to_string(),
            file: format!("{experiment}-croc.svg"),
            chart: line(crate::curves::figure(&format!("{title} — CROC"), croc, &references.croc)),
        },
    ]
}
