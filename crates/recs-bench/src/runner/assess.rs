//! One model on one split: choose its parameters, fit it, score every candidate and
//! compute the metrics.

use recs_core::{Interactions, ItemAttributes, Judgments, ParamValues, Recommender, TrainData};
use recs_metrics::{Metric, Scored};
use recs_split::{Split, SplitId};

use super::split::{Context, Judged, Purpose, combinations, derive_seed};
use crate::curves::ModelCurve;
use crate::error::{BenchError, Result};
use crate::plan::{ModelPlan, Params, Plan};
use crate::report::CurveKind;
use crate::scoring::{ItemSource, score_judgments_with_history};

/// What one model produced on one split.
#[derive(Debug)]
pub(crate) struct Assessment {
    /// The parameters used (chosen by validation when the model has a grid).
    pub(crate) params: Params,
    /// Values in the order of [`Plan::keys`].
    pub(crate) values: Vec<Option<f64>>,
    /// Every grid combination with its validation values (empty without a grid).
    pub(crate) validation: Vec<(Params, Vec<Option<f64>>)>,
    /// Per user group: (sum of the group metric, users counted).
    pub(crate) groups: Vec<(f64, usize)>,
    /// How candidate items were scored.
    pub(crate) item_scoring: &'static str,
    /// ROC and CROC of the first split.
    pub(crate) roc: Option<ModelCurve>,
    pub(crate) croc: Option<ModelCurve>,
    pub(crate) warnings: Vec<String>,
    /// `user<TAB>item<TAB>score` lines of the first split, when saving scores.
    pub(crate) saved: Option<String>,
}

/// Scores of one model on judged data, with what the metrics made of them.
pub(crate) struct Scores<'j> {
    pub(crate) judged: &'j Judged,
    pub(crate) scores: Vec<f32>,
    pub(crate) item_scoring: &'static str,
}

/// Fits and scores models on one split.
pub(crate) struct Scoring<'c, 'a> {
    pub(crate) context: &'c Context<'a>,
    pub(crate) id: SplitId,
    pub(crate) first: bool,
}

impl Scoring<'_, '_> {
    fn plan(&self) -> &Plan {
        self.context.plan
    }

    fn attributes(&self) -> Option<&ItemAttributes> {
        self.context.data.attributes.as_ref()
    }

    pub(crate) fn assess(
        &self,
        model: &ModelPlan,
        test: &Judged,
        validation: Option<&Judged>,
    ) -> Result<Assessment> {
        let plan = self.plan();
        let tried = combinations(model, self.context.quick);
        let (params, validation_rows) = match (validation, tried) {
            (_, [only]) => (only.clone(), Vec::new()),
            (Some(validation), _) => self.select(model, tried, validation)?,
            (None, _) => {
                return Err(BenchError::Experiment(format!(
                    "`{}` has a grid but the plan has no selection",
                    model.label
                )));
            }
        };
        let fitted = self.fit(model, &params, test.split.train())?;
        let scores = self.score(model, fitted.as_ref(), test)?;
        let scored = Scored::new(&test.judgments, &scores.scores)?;
        let report =
            recs_metrics::evaluate(&scored, &plan.metrics, &plan.options, plan.max_fpr, false)?;
        let values = self.values(&report, fitted.as_ref(), &scores)?;
        let groups = match &report.per_user {
            Some(per_user) => self.group_sums(per_user, &test.split, &test.judgments)?,
            None => Vec::new(),
        };
        let curves = self.first && plan.wants_curves();
        let curve = |metric: Metric| -> Result<Option<ModelCurve>> {
            if !curves || !plan.metrics.contains(&metric) {
                return Ok(None);
            }
            let threshold = plan.options.threshold;
            let [roc_step, croc_step] = plan.markers;
            Ok(Some(match metric {
                Metric::Roc => ModelCurve::new(
                    CurveKind::Roc,
                    &model.label,
                    &recs_metrics::roc(&scored, threshold)?,
                    roc_step,
                ),
                _ => ModelCurve::new(
                    CurveKind::Croc,
                    &model.label,
                    &recs_metrics::croc(&scored, threshold)?,
                    croc_step,
                ),
            }))
        };
        let (roc, croc) = (curve(Metric::Roc)?, curve(Metric::Croc)?);
        let saved = (self.first && plan.save_scores)
            .then(|| self.context.data.run_lines(&test.judgments, &scores.scores))
            .transpose()?;
        self.context.progress.step(&format!(
            "{} split {}/{}: {}",
            plan.name, self.id.repetition, self.id.fold, model.label
        ));
        Ok(Assessment {
            params,
            values,
            validation: validation_rows,
            groups,
            item_scoring: scores.item_scoring,
            roc,
            croc,
            warnings: report.warnings,
            saved,
        })
    }

    /// The value of every report key: the metrics, the rating errors, the measures.
    pub(crate) fn values(
        &self,
        report: &recs_metrics::Report,
        model: &dyn Recommender,
        scores: &Scores<'_>,
    ) -> Result<Vec<Option<f64>>> {
        let plan = self.plan();
        let mut values: Vec<Option<f64>> = crate::plan::metric_keys(&plan.metrics, plan.max_fpr)
            .iter()
            .map(|k| report.get(k))
            .collect();
        if plan.rating_errors {
            let errors = rating_errors(model, &scores.judged.split, scores.judged.cold)?;
            values.push(errors.as_ref().map(|e| e.mae));
            values.push(errors.as_ref().map(|e| e.rmse));
        }
        for measure in &plan.measures {
            values.push(measure.compute(
                &scores.judged.split,
                &scores.judged.judgments,
                &scores.scores,
            )?);
        }
        Ok(values)
    }

    /// Fits `model` with `params` on `train`, seeded for this split.
    pub(crate) fn fit(
        &self,
        model: &ModelPlan,
        params: &[(String, String)],
        train: &Interactions,
    ) -> Result<Box<dyn Recommender>> {
        let entry = crate::registry::find(&model.name)?;
        let mut values = ParamValues::new();
        for (key, value) in params {
            values.set(key, value.clone());
        }
        let in_model = |stage: &str, e: recs_core::RecsError| {
            BenchError::Experiment(format!("{stage} of `{}`: {e}", model.label))
        };
        let unfitted = entry.build_checked(&values).map_err(|e| in_model("parameters", e))?;
        let seed = derive_seed(self.plan().seed, self.id, Purpose::Model);
        let mut data = TrainData::new(train, seed);
        if let Some(attributes) = self.attributes() {
            data = data.with_attributes(attributes)?;
        }
        unfitted.fit_dyn(&data).map_err(|e| in_model("fitting", e))
    }

    /// Scores every candidate of `judged`: under a cold-start protocol, models that can
    /// score items from their attributes do; the others score the (untrained) item
    /// indices as they are. Users kept out of training are folded in from their history.
    pub(crate) fn score<'j>(
        &self,
        model: &ModelPlan,
        fitted: &dyn Recommender,
        judged: &'j Judged,
    ) -> Result<Scores<'j>> {
        let (source, item_scoring) = match (self.attributes(), judged.cold) {
            (Some(attributes), true) if fitted.as_new_item_scorer().is_some() => {
                (ItemSource::NewFromAttributes(attributes), "from attributes")
            }
            _ => (ItemSource::Trained, "trained index"),
        };
        let scores =
            score_judgments_with_history(fitted, &judged.judgments, source, judged.split.history())
                .map_err(|e| BenchError::Experiment(format!("scoring `{}`: {e}", model.label)))?;
        Ok(Scores { judged, scores, item_scoring })
    }

    /// Per group: (sum of the group metric over its users, users counted), from the
    /// per-user values the evaluation computed; empty without a breakdown.
    fn group_sums(
        &self,
        per_user: &recs_metrics::PerUser,
        split: &Split,
        judgments: &Judgments,
    ) -> Result<Vec<(f64, usize)>> {
        let plan = self.plan();
        let Some(metric) = plan.group_metric else { return Ok(Vec::new()) };
        let column = per_user.metrics().iter().position(|m| *m == metric).ok_or_else(|| {
            BenchError::Experiment(format!("no per-user values of {metric} were computed"))
        })?;
        let known = |u: u32| {
            let history = split.history().map_or(0, |h| h.user_row(u).len());
            split.train().user_row(u).len() + history
        };
        let mut sums = vec![(0.0, 0usize); plan.user_groups.len()];
        for (&user, value) in judgments.users().iter().zip(per_user.column(column)) {
            let n = known(user);
            if let Some(g) = plan.user_groups.iter().rposition(|&b| n >= b)
                && !value.is_nan()
            {
                sums[g].0 += value;
                sums[g].1 += 1;
            }
        }
        Ok(sums)
    }
}

/// MAE and RMSE of the model's predicted ratings on the test events of users with
/// training events; `None` for a model that does not predict ratings, under a cold-start
/// protocol, or without such events.
fn rating_errors(
    model: &dyn Recommender,
    split: &Split,
    cold: bool,
) -> Result<Option<recs_metrics::RatingErrors>> {
    let Some(predictor) = model.as_rating_predictor().filter(|_| !cold) else {
        return Ok(None);
    };
    let (train, test) = (split.train(), split.test());
    let (mut predicted, mut actual) = (Vec::new(), Vec::new());
    for user in 0..test.n_users() as u32 {
        let items = test.user_items(user);
        if items.is_empty() || train.user_row(user).is_empty() {
            continue;
        }
        let start = predicted.len();
        predicted.resize(start + items.len(), 0.0);
        predictor.predict(user, items, &mut predicted[start..])?;
        actual.extend_from_slice(test.user_values(user));
    }
    if predicted.is_empty() {
        return Ok(None);
    }
    Ok(Some(recs_metrics::rating_errors(&predicted, &actual)?))
}
