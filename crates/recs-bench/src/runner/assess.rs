//! One model on one split: choose its parameters, fit it, score every candidate and
//! compute the metrics.

use std::time::Instant;

use recs_core::{Interactions, ItemAttributes, Judgments, ParamValues, Recommender, TrainData};
use recs_metrics::{
    Calibration, DEFAULT_CALIBRATION_SMOOTHING, Diversity, ItemFacts, Metric, Popularity, Scored,
};
use recs_split::{Split, SplitId};

use super::split::{Candidates, Context, Judged, Purpose, combinations, derive_seed};
use super::versus::SplitVersus;
use super::{Timing, UserValues};
use crate::curves::{ModelCurve, References};
use crate::error::{BenchError, Result};
use crate::plan::{MeasureInput, ModelPlan, Params, Plan};
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
    /// The per-user values of the compared metrics, with `[comparison]`.
    pub(crate) user_values: Option<UserValues>,
    /// How candidate items were scored.
    pub(crate) item_scoring: &'static str,
    /// ROC and CROC of the first split.
    pub(crate) roc: Option<ModelCurve>,
    pub(crate) croc: Option<ModelCurve>,
    pub(crate) warnings: Vec<String>,
    /// `user<TAB>item<TAB>score` lines of the first split, when saving scores.
    pub(crate) saved: Option<String>,
    pub(crate) timing: Timing,
    /// The fitted model's [`Recommender::fit_facts`].
    pub(crate) fit_facts: Vec<(&'static str, f64)>,
    /// Sampled against exact metrics (`evaluation.sampled_vs_exact`).
    pub(crate) versus: Option<recs_sampled::versus::RunValues>,
}

/// What one split produced.
#[derive(Debug)]
pub(crate) struct SplitResult {
    pub(crate) id: SplitId,
    pub(crate) train_events: usize,
    pub(crate) test_events: usize,
    pub(crate) judged_users: usize,
    pub(crate) candidates: usize,
    pub(crate) positives: usize,
    /// One assessment per model, in plan order.
    pub(crate) models: Vec<Assessment>,
    /// References of the first split (when curves are computed).
    pub(crate) references: Option<References>,
    /// qrels lines of the first split, when saving scores.
    pub(crate) qrels: Option<String>,
    /// Training events of the first split, when saving scores for popularity metrics
    /// (the `--train` that `recs eval` needs to give the same numbers).
    pub(crate) train: Option<String>,
    /// The item attributes, when saving scores for intra-list diversity (`--attributes`).
    pub(crate) attributes: Option<String>,
    /// The first split's judgments, when the plan keeps them.
    pub(crate) judgments: Option<Judgments>,
}

impl Context<'_> {
    /// Draws and judges split `id` and assesses every model of the plan on it.
    pub(crate) fn run_split(&self, id: SplitId, first: bool) -> Result<SplitResult> {
        let plan = self.plan;
        let test = self.judged(id)?;
        let validation = self.validation(&test.split, id)?;
        let versus = match &plan.sampled_vs_exact {
            Some(versus) => Some(SplitVersus::new(plan, versus, &test.split, id)?),
            None => None,
        };
        let scoring = Scoring { context: self, id, first, versus: versus.as_ref() };
        let models = plan
            .models
            .iter()
            .map(|model| scoring.assess(model, &test, validation.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        let threshold = plan.options.threshold;
        let curves = first && plan.wants_curves();
        let references = if curves {
            Some(crate::curves::references(&test.candidates.shapes(threshold))?)
        } else {
            None
        };
        let qrels = match test.candidates.listed() {
            Some(judgments) if first && plan.save_scores => Some(self.data.qrels_lines(judgments)?),
            _ => None,
        };
        let train = match &qrels {
            Some(_) if plan.metrics.iter().any(|m| m.needs_popularity() || m.needs_history()) => {
                Some(self.data.train_lines(test.split.train())?)
            }
            _ => None,
        };
        let attributes = match &qrels {
            Some(_) if plan.metrics.iter().any(Metric::needs_attributes) => {
                self.data.attribute_lines()?
            }
            _ => None,
        };
        let shapes = test.candidates.shapes(threshold);
        let Judged { split, candidates, .. } = test;
        Ok(SplitResult {
            id,
            train_events: split.train().n_events(),
            test_events: split.test().n_events(),
            judged_users: candidates.n_judged_users(),
            candidates: candidates.n_candidates(),
            positives: shapes.iter().map(|&(_, s)| s).sum(),
            models,
            references,
            qrels,
            train,
            attributes,
            judgments: match candidates {
                Candidates::Listed(judgments) if first && plan.keep_judgments => Some(judgments),
                _ => None,
            },
        })
    }
}

/// The facts of [`ItemFacts`], owned.
struct ListFacts {
    popularity: Option<Popularity>,
    diversity: Option<Diversity>,
    calibration: Option<Calibration>,
}

impl ListFacts {
    fn facts(&self) -> ItemFacts<'_> {
        ItemFacts {
            popularity: self.popularity.as_ref(),
            diversity: self.diversity.as_ref(),
            calibration: self.calibration.as_ref(),
        }
    }
}

/// Scores of one model on listed candidates, one per candidate in the judgments' order.
pub(crate) struct Scores {
    pub(crate) scores: Vec<f32>,
    pub(crate) item_scoring: &'static str,
}

/// Fits and scores models on one split.
pub(crate) struct Scoring<'c, 'a> {
    pub(crate) context: &'c Context<'a>,
    pub(crate) id: SplitId,
    pub(crate) first: bool,
    /// The split's comparison of sampled against exact metrics, when the plan asks.
    pub(crate) versus: Option<&'c SplitVersus>,
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
        let started = Instant::now();
        let fitted = self.fit(model, &params, test.split.train())?;
        let fitting = started.elapsed();
        let curves = self.first && plan.wants_curves();
        let (report, scores) = self.evaluate(model, fitted.as_ref(), test, curves)?;
        let evaluating = started.elapsed() - fitting;
        let versus = match (&plan.sampled_vs_exact, self.versus) {
            (Some(asked), Some(split)) => {
                Some(split.values(plan, asked, &test.split, fitted.as_ref(), &model.label)?)
            }
            _ => None,
        };
        let values = self.values(&report, fitted.as_ref(), test, scores.as_ref())?;
        let groups = match &report.per_user {
            Some(per_user) => self.group_sums(per_user, &test.split)?,
            None => Vec::new(),
        };
        let user_values = match &plan.comparison {
            Some(comparison) => {
                Some(UserValues::of(report.per_user.as_ref(), &comparison.metrics)?)
            }
            None => None,
        };
        let [roc_step, croc_step] = plan.markers;
        let roc =
            report.roc.as_ref().map(|c| ModelCurve::new(CurveKind::Roc, &model.label, c, roc_step));
        let croc = report
            .croc
            .as_ref()
            .map(|c| ModelCurve::new(CurveKind::Croc, &model.label, c, croc_step));
        let saved = match (&scores, test.candidates.listed()) {
            (Some(scores), Some(judgments)) if self.first && plan.save_scores => {
                Some(self.context.data.run_lines(judgments, &scores.scores)?)
            }
            _ => None,
        };
        let item_scoring = scores.as_ref().map_or("trained index", |s| s.item_scoring);
        // Wall times stay out of the report, which is byte-identical from run to run.
        let timing = Timing {
            fit_seconds: fitting.as_secs_f64(),
            evaluation_seconds: evaluating.as_secs_f64(),
            streamed: test.candidates.listed().is_none(),
        };
        self.context.progress.step(&format!(
            "{} split {}/{}: {} ({timing})",
            plan.name, self.id.repetition, self.id.fold, model.label,
        ));
        Ok(Assessment {
            params,
            values,
            validation: validation_rows,
            groups,
            user_values,
            item_scoring,
            roc,
            croc,
            warnings: report.warnings,
            saved,
            timing,
            fit_facts: fitted.fit_facts(),
            versus,
        })
    }

    /// Scores `judged` with `fitted` and computes the plan's metrics (with the curves
    /// when `keep_curves`): listed candidates in memory (their scores are returned, for
    /// measures and saved scores), a full catalog streamed.
    pub(crate) fn evaluate(
        &self,
        model: &ModelPlan,
        fitted: &dyn Recommender,
        judged: &Judged,
        keep_curves: bool,
    ) -> Result<(recs_metrics::Report, Option<Scores>)> {
        let plan = self.plan();
        match &judged.candidates {
            Candidates::Listed(judgments) => {
                let scores = self.score(model, fitted, judged, judgments)?;
                let scored = Scored::new(judgments, &scores.scores)?;
                let known = self.list_facts(judged)?;
                let report = recs_metrics::evaluate_with(
                    &scored,
                    &plan.metrics,
                    &plan.options,
                    plan.max_fpr,
                    keep_curves,
                    known.facts(),
                )?;
                Ok((report, Some(scores)))
            }
            Candidates::Catalog(catalog) => {
                let known = self.list_facts(judged)?;
                let (split, facts) = (&judged.split, known.facts());
                let report =
                    super::stream::evaluate(plan, fitted, split, catalog, facts, keep_curves)
                        .map_err(|e| {
                            BenchError::Experiment(format!("scoring `{}`: {e}", model.label))
                        })?;
                Ok((report, None))
            }
        }
    }

    /// What the plan's metrics that read the lists need of the items, in the split's
    /// item and user numbering (that of listed judgments and of a streamed catalog alike).
    fn list_facts(&self, judged: &Judged) -> Result<ListFacts> {
        let plan = self.plan();
        // The popularity metrics read the items' popularity in this split's training
        // events.
        let popularity = plan
            .metrics
            .iter()
            .any(Metric::needs_popularity)
            .then(|| Popularity::of_interactions(judged.split.train(), plan.head))
            .transpose()?;
        // Intra-list diversity reads the dataset's item attributes.
        let diversity = match self.attributes() {
            Some(a) if plan.metrics.iter().any(|m| m.is_diversity()) => {
                Some(Diversity::new(a, plan.similarity))
            }
            _ => None,
        };
        // Calibration reads the same attributes and each user's training items.
        let calibration = match self.attributes() {
            Some(a) if plan.metrics.iter().any(Metric::needs_history) => {
                let train = judged.split.train();
                let history = train.events().map(|e| (e.user, e.item));
                let n_users = train.n_users();
                let alpha = DEFAULT_CALIBRATION_SMOOTHING;
                Some(Calibration::new(a, a, history, n_users, alpha)?)
            }
            _ => None,
        };
        Ok(ListFacts { popularity, diversity, calibration })
    }

    /// The value of every report key: the metrics, the rating errors, the measures.
    pub(crate) fn values(
        &self,
        report: &recs_metrics::Report,
        model: &dyn Recommender,
        judged: &Judged,
        scores: Option<&Scores>,
    ) -> Result<Vec<Option<f64>>> {
        let plan = self.plan();
        let mut values: Vec<Option<f64>> = crate::plan::metric_keys(&plan.metrics, plan.max_fpr)
            .iter()
            .map(|k| report.get(k))
            .collect();
        if plan.rating_errors {
            let errors = rating_errors(model, &judged.split, judged.cold)?;
            values.push(errors.as_ref().map(|e| e.mae));
            values.push(errors.as_ref().map(|e| e.rmse));
        }
        if !plan.measures.is_empty() {
            let (Some(scores), Some(judgments)) = (scores, judged.candidates.listed()) else {
                return Err(BenchError::Experiment(
                    "measures need every candidate's score (listed candidates)".into(),
                ));
            };
            let input =
                MeasureInput { model, split: &judged.split, judgments, scores: &scores.scores };
            for measure in &plan.measures {
                values.push(measure.compute(&input)?);
            }
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
        let fitted = unfitted.fit_dyn(&data).map_err(|e| in_model("fitting", e))?;
        match model.rank {
            crate::plan::RankBy::Score => Ok(fitted),
            crate::plan::RankBy::Rating if fitted.as_rating_predictor().is_some() => {
                Ok(Box::new(ByRating(fitted)))
            }
            crate::plan::RankBy::Rating => Err(BenchError::Experiment(format!(
                "`{}` ranks by its predicted rating but predicts none",
                model.label
            ))),
        }
    }

    /// Scores every candidate of `judged`: under a cold-start protocol, models that can
    /// score items from their attributes do; the others score the (untrained) item
    /// indices as they are. Users kept out of training are folded in from their history.
    pub(crate) fn score(
        &self,
        model: &ModelPlan,
        fitted: &dyn Recommender,
        judged: &Judged,
        judgments: &Judgments,
    ) -> Result<Scores> {
        let (source, item_scoring) = match (self.attributes(), judged.cold) {
            (Some(attributes), true) if fitted.as_new_item_scorer().is_some() => {
                (ItemSource::NewFromAttributes(attributes), "from attributes")
            }
            _ => (ItemSource::Trained, "trained index"),
        };
        let scores =
            score_judgments_with_history(fitted, judgments, source, judged.split.history())
                .map_err(|e| BenchError::Experiment(format!("scoring `{}`: {e}", model.label)))?;
        Ok(Scores { scores, item_scoring })
    }

    /// Per group: (sum of the group metric over its users, users counted), from the
    /// per-user values the evaluation computed; empty without a breakdown.
    fn group_sums(
        &self,
        per_user: &recs_metrics::PerUser,
        split: &Split,
    ) -> Result<Vec<(f64, usize)>> {
        let plan = self.plan();
        let Some(metric) = plan.group_metric else { return Ok(Vec::new()) };
        let column = per_user.metrics().iter().position(|m| *m == metric).ok_or_else(|| {
            BenchError::Experiment(format!("no per-user values of {metric} were computed"))
        })?;
        let groups = super::groups::UserGroups::new(plan, self.context.data)?;
        let mut sums = vec![(0.0, 0usize); groups.labels().len()];
        for (&user, value) in per_user.users().iter().zip(per_user.column(column)) {
            if let Some(g) = groups.of(user, split)
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

/// A rating predictor whose ranking score is its predicted rating (`rank = "rating"`).
/// It offers no fold-in, so a user kept out of training is scored as the model's unknown
/// user.
struct ByRating(Box<dyn Recommender>);

impl Recommender for ByRating {
    fn shape(&self) -> recs_core::Shape {
        self.0.shape()
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
        match self.0.as_rating_predictor() {
            Some(predictor) => predictor.predict(user, items, out),
            None => self.0.score(user, items, out),
        }
    }

    fn as_rating_predictor(&self) -> Option<&dyn recs_core::PredictRating> {
        self.0.as_rating_predictor()
    }

    fn fit_facts(&self) -> Vec<(&'static str, f64)> {
        self.0.fit_facts()
    }
}
