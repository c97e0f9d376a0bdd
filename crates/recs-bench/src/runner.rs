//! The experiment runner behind `recs run`: a [`Config`] in; a [`Report`] with tables,
//! figures and checked claims out.
//!
//! For each split (every fold of every repetition; only the first with `quick`), the
//! runner draws the split, builds the judgments of the test mode, and for each model:
//! chooses its parameters on validation data drawn inside the training part (when it has
//! a grid), fits it on the training part, scores every candidate (items unseen in training
//! from their attributes under a cold-start protocol; users kept out of training from
//! their history under strong generalization), and computes the metrics with
//! [`recs_metrics::evaluate`] — the same call `recs eval` makes, so saved scores evaluated
//! by `recs eval` give the same numbers. Splits run in parallel (rayon); every random
//! choice derives from the seed, so the report is byte-identical for any thread count.

use std::fmt::Write as _;
use std::path::PathBuf;

use rayon::prelude::*;
use recs_core::{ItemAttributes, Judgments, Recommender};
use recs_data::{AttributeFilter, Dataset, Resolver};
use recs_metrics::{Metric, Scored};
use recs_split::{Protocol, Split, SplitId};
use serde_json::{Value, json};

use crate::config::{AttributeSource, Config, ModelConfig, ProtocolConfig};
use crate::curves::ModelCurve;
use crate::error::{BenchError, Result};
use crate::evaluation::{Figure, fit, references, roc_croc_figures};
use crate::output::Extras;
use crate::plot::{BarChart, Chart, LineKind, Series};
use crate::report::{
    Claim, CurveKind, DatasetEntry, Experiment, FileEntry, Report, SCHEMA_VERSION, Table,
};
use crate::scoring::{ItemSource, score_judgments_with_history};

/// How a configuration is run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only the first split (repetition 0, fold 0).
    pub quick: bool,
    /// Replaces the configuration's seed.
    pub seed: Option<u64>,
    /// Folder searched first for registered datasets.
    pub data_dir: Option<PathBuf>,
    /// Show download progress bars (terminal front ends only).
    pub download_progress: bool,
}

/// Receives progress; the runner itself never prints.
pub trait Progress: Sync {
    /// The number of steps (model fits, including validation fits) is known.
    fn begin(&self, _total: u64) {}
    /// One step is done; `what` says which.
    fn step(&self, _what: &str) {}
}

/// Progress that goes nowhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

/// The result of a run: the report and what goes next to it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `report.json`.
    pub report: Report,
    /// Figures, intro, notes and saved scores.
    pub extras: Extras,
}

/// Runs `config`.
///
/// # Errors
/// Data that cannot be loaded, a protocol that does not fit the data, a model that
/// cannot be fitted or cannot score what the protocol asks, a metric error, or a report
/// that breaks its contract.
pub fn run(config: &Config, options: &RunOptions, progress: &dyn Progress) -> Result<Outcome> {
    let seed = options.seed.unwrap_or(config.seed);
    let resolver = Resolver::from_env()
        .with_data_dir(options.data_dir.clone())
        .with_progress(options.download_progress);
    let data = load(config, &resolver)?;
    let metrics = config.evaluation.parsed_metrics()?;
    let context = Context {
        config,
        data: &data,
        keys: config.evaluation.keys(&metrics),
        metrics,
        seed,
        progress,
    };
    let ids = split_ids(config, options.quick);
    let fits_per_split: usize = config
        .models
        .iter()
        .map(|m| {
            let n = m.combinations().len();
            if n > 1 { n + 1 } else { 1 }
        })
        .sum();
    progress.begin((ids.len() * fits_per_split) as u64);
    let splits: Vec<SplitResult> = ids
        .par_iter()
        .enumerate()
        .map(|(n, &id)| context.run_split(id, n == 0))
        .collect::<Result<_>>()?;
    let outcome = context.assemble(&splits, options.quick)?;
    let problems = outcome.report.validate();
    if !problems.is_empty() {
        return Err(BenchError::Contract(problems));
    }
    Ok(outcome)
}

/// The dataset with its item attributes.
struct Loaded {
    dataset: Dataset,
    attributes: Option<ItemAttributes>,
    attribute_note: Option<String>,
}

fn load(config: &Config, resolver: &Resolver) -> Result<Loaded> {
    let spec = &config.dataset;
    let dataset = if let Some(name) = &spec.name {
        recs_data::load_named(name, resolver)?
    } else {
        let file = config.resolve_path(spec.file.as_ref().expect("checked: name or file"));
        let format = crate::data::delimited_format(
            &spec.delimiter,
            spec.header,
            spec.implicit,
            spec.timestamps,
        )?;
        let train = recs_data::load_delimited(&file, &format)?;
        match &spec.test_file {
            None => train,
            Some(test) => {
                let test = recs_data::load_delimited(&config.resolve_path(test), &format)?;
                crate::data::join_predefined(train, test)?
            }
        }
    };
    let (attributes, attribute_note) = match spec.attributes {
        None => (None, None),
        Some(AttributeSource::Genres) => {
            let attributes = dataset.item_attributes.clone().ok_or_else(|| {
                BenchError::Experiment(format!(
                    "dataset.attributes = \"genres\": {} has no item attributes",
                    dataset.name
                ))
            })?;
            let note = format!("the dataset's {} genres", attributes.n_attributes());
            (Some(attributes), Some(note))
        }
        Some(AttributeSource::Cast) => {
            let filter = AttributeFilter { top_n: Some(10), min_items: 2 };
            let attributes = recs_data::load_cast(resolver, &dataset, &filter)?;
            let note = format!(
                "the top-10 billed actors of each movie, actors in at least two movies ({} actors)",
                attributes.n_attributes()
            );
            (Some(attributes), Some(note))
        }
    };
    Ok(Loaded { dataset, attributes, attribute_note })
}

/// The splits to run, in report order.
fn split_ids(config: &Config, quick: bool) -> Vec<SplitId> {
    let folds = match &config.protocol {
        ProtocolConfig::Predefined => return vec![SplitId::new(0, 0)],
        ProtocolConfig::Generated(p) => p.n_folds() as u32,
    };
    let repetitions = if quick { 1 } else { config.repetitions };
    let mut ids: Vec<SplitId> =
        (0..repetitions).flat_map(|r| (0..folds).map(move |f| SplitId::new(r, f))).collect();
    if quick {
        ids.truncate(1);
    }
    ids
}

/// A seed for one purpose of one split, mixed so that nearby inputs give unrelated
/// streams (splitmix64 finaliser).
fn derive_seed(seed: u64, id: SplitId, purpose: u64) -> u64 {
    let mut z = seed
        ^ (u64::from(id.repetition) << 40)
        ^ (u64::from(id.fold) << 20)
        ^ purpose.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Parameters as `(key, text value)` pairs, in grid order.
type Params = Vec<(String, String)>;

/// The validation value of each grid point.
type ValidationRows = Vec<(Params, Option<f64>)>;

const MODEL_SEED: u64 = 1;
const VALIDATION_SEED: u64 = 2;

/// What one model produced on one split.
struct ModelResult {
    /// The parameters used (chosen by validation when the model has a grid).
    params: Vec<(String, String)>,
    /// Metric values in the order of [`Context::keys`].
    values: Vec<Option<f64>>,
    /// Validation value of each grid combination (empty without a grid).
    validation: ValidationRows,
    /// Per user group: (sum of the group metric, users counted).
    groups: Vec<(f64, usize)>,
    /// How candidate items were scored.
    item_scoring: &'static str,
    /// ROC and CROC of the first split.
    curves: Option<(Option<ModelCurve>, Option<ModelCurve>)>,
    warnings: Vec<String>,
    /// `user<TAB>item<TAB>score` lines of the first split, when saving scores.
    saved: Option<String>,
}

/// What one split produced.
struct SplitResult {
    id: SplitId,
    train_events: usize,
    test_events: usize,
    judged_users: usize,
    candidates: usize,
    positives: usize,
    models: Vec<ModelResult>,
    /// References of the first split.
    references: Option<crate::evaluation::References>,
    /// qrels lines of the first split, when saving scores.
    qrels: Option<String>,
}

struct Context<'a> {
    config: &'a Config,
    data: &'a Loaded,
    metrics: Vec<Metric>,
    keys: Vec<String>,
    seed: u64,
    progress: &'a dyn Progress,
}

impl Context<'_> {
    fn draw(
        &self,
        protocol: &ProtocolConfig,
        data: &recs_core::Interactions,
        id: SplitId,
    ) -> Result<Split> {
        match protocol {
            ProtocolConfig::Predefined => {
                let test = self.data.dataset.test.clone().ok_or_else(|| {
                    BenchError::Experiment(format!(
                        "protocol `predefined`: {} has no test part (give dataset.test_file, \
                         or use a registered dataset that ships one, such as msweb)",
                        self.data.dataset.name
                    ))
                })?;
                Ok(Split::predefined(data.clone(), test)?)
            }
            ProtocolConfig::Generated(p) => Ok(p.split(data, self.seed, id)?),
        }
    }

    fn is_cold_start(protocol: &ProtocolConfig) -> bool {
        matches!(protocol, ProtocolConfig::Generated(Protocol::ColdStartItems { .. }))
    }

    fn run_split(&self, id: SplitId, first: bool) -> Result<SplitResult> {
        let config = self.config;
        let split = self.draw(&config.protocol, &self.data.dataset.interactions, id)?;
        let judging = config.judgments.options()?;
        let judgments = split.judgments(&judging)?;
        let threshold = config.evaluation.rel_threshold;
        if judgments.n_judged_users() == 0 {
            return Err(BenchError::Experiment(format!(
                "split {}/{}: no user is judged (mode `{}`)",
                id.repetition, id.fold, config.judgments.mode
            )));
        }
        let needs_validation = config.models.iter().any(|m| m.combinations().len() > 1);
        let validation = if needs_validation {
            let selection = config.selection.as_ref().expect("checked: grids need [selection]");
            let protocol = selection.protocol.as_ref().unwrap_or(&config.protocol);
            let ProtocolConfig::Generated(inner) = protocol else {
                unreachable!("checked: the validation protocol is generated")
            };
            let seed = derive_seed(self.seed, id, VALIDATION_SEED);
            let validation = split.validation(inner, seed, SplitId::new(0, 0))?;
            let judgments = validation.judgments(&judging)?;
            Some((validation, judgments, Self::is_cold_start(protocol)))
        } else {
            None
        };
        let groups = self.user_groups(&split, &judgments);
        let cold = Self::is_cold_start(&config.protocol);
        let curves_wanted =
            first && self.metrics.iter().any(|m| matches!(m, Metric::Roc | Metric::Croc));
        let mut models = Vec::with_capacity(config.models.len());
        for model in &config.models {
            let mut combinations = model.combinations();
            let (params, validation_rows) = match &validation {
                Some((split, judgments, cold)) if combinations.len() > 1 => {
                    self.select(model, combinations, split, judgments, *cold, id)?
                }
                _ => (combinations.swap_remove(0), Vec::new()),
            };
            let fitted = self.fit(model, &params, &split, id)?;
            let (source, item_scoring) = self.item_source(fitted.as_ref(), cold);
            let scores =
                score_judgments_with_history(fitted.as_ref(), &judgments, source, split.history())
                    .map_err(|e| {
                        BenchError::Experiment(format!("scoring `{}`: {e}", model.label()))
                    })?;
            let scored = Scored::new(&judgments, &scores)?;
            let options = config.evaluation.options();
            let report = recs_metrics::evaluate(
                &scored,
                &self.metrics,
                &options,
                config.evaluation.max_fpr,
                false,
            )?;
            let mut values: Vec<Option<f64>> = self.keys.iter().map(|k| report.get(k)).collect();
            if config.evaluation.rating_errors {
                let errors = Self::rating_errors(fitted.as_ref(), &split, cold)?;
                let n = values.len();
                values[n - 2] = errors.as_ref().map(|e| e.mae);
                values[n - 1] = errors.as_ref().map(|e| e.rmse);
            }
            let group_sums = match (&groups, &report.per_user) {
                (Some(groups), Some(per_user)) => self.group_sums(per_user, groups),
                _ => Vec::new(),
            };
            let curves =
                if curves_wanted { Some(self.curves(model.label(), &scored)?) } else { None };
            let saved = (first && config.evaluation.save_scores)
                .then(|| self.run_lines(&judgments, &scores));
            self.progress.step(&format!("split {}/{}: {}", id.repetition, id.fold, model.label()));
            models.push(ModelResult {
                params,
                values,
                validation: validation_rows,
                groups: group_sums,
                item_scoring,
                curves,
                warnings: report.warnings,
                saved,
            });
        }
        let references = if curves_wanted { references(&judgments, threshold).ok() } else { None };
        let qrels = (first && config.evaluation.save_scores).then(|| self.qrels_lines(&judgments));
        Ok(SplitResult {
            id,
            train_events: split.train().n_events(),
            test_events: split.test().n_events(),
            judged_users: judgments.n_judged_users(),
            candidates: judgments.n_candidates(),
            positives: judgments.n_relevant(threshold),
            models,
            references,
            qrels,
        })
    }

    /// MAE and RMSE of the model's predicted ratings on the test events of users with
    /// training events; `None` for a model that does not predict ratings, under a
    /// cold-start protocol, or without such events.
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

    fn fit(
        &self,
        model: &ModelConfig,
        params: &[(String, String)],
        split: &Split,
        id: SplitId,
    ) -> Result<Box<dyn Recommender>> {
        let params: Vec<(&str, String)> =
            params.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let seed = derive_seed(self.seed, id, MODEL_SEED);
        fit(&model.name, &params, split.train(), self.data.attributes.as_ref(), seed)
    }

    /// Under a cold-start protocol, models that can score items from their attributes do;
    /// the others score the (untrained) item indices as they are.
    fn item_source<'m>(
        &'m self,
        model: &dyn Recommender,
        cold: bool,
    ) -> (ItemSource<'m>, &'static str) {
        match (&self.data.attributes, cold) {
            (Some(attributes), true) if model.as_new_item_scorer().is_some() => {
                (ItemSource::NewFromAttributes(attributes), "from attributes")
            }
            _ => (ItemSource::Trained, "trained index"),
        }
    }

    /// Tries every grid combination of `model` on the validation split and keeps the one
    /// with the largest selection metric (the first on ties).
    fn select(
        &self,
        model: &ModelConfig,
        combinations: Vec<Params>,
        validation: &Split,
        judgments: &Judgments,
        cold: bool,
        id: SplitId,
    ) -> Result<(Params, ValidationRows)> {
        let selection = self.config.selection.as_ref().expect("checked");
        let metric = selection_metric(&selection.metric)?;
        let mut rows = Vec::new();
        let mut best: Option<(f64, usize)> = None;
        for (index, combination) in combinations.into_iter().enumerate() {
            let fitted = self.fit(model, &combination, validation, id)?;
            let (source, _) = self.item_source(fitted.as_ref(), cold);
            let scores = score_judgments_with_history(
                fitted.as_ref(),
                judgments,
                source,
                validation.history(),
            )
            .map_err(|e| BenchError::Experiment(format!("validating `{}`: {e}", model.label())))?;
            let scored = Scored::new(judgments, &scores)?;
            let report = recs_metrics::evaluate(
                &scored,
                &[metric],
                &self.config.evaluation.options(),
                self.config.evaluation.max_fpr,
                false,
            )?;
            let value = report.get(&selection.metric);
            if let Some(v) = value
                && best.is_none_or(|(b, _)| v > b)
            {
                best = Some((v, index));
            }
            self.progress.step(&format!(
                "split {}/{}: validating {} {}",
                id.repetition,
                id.fold,
                model.label(),
                params_text(&combination)
            ));
            rows.push((combination, value));
        }
        let Some((_, chosen)) = best else {
            return Err(BenchError::Experiment(format!(
                "`{}`: the validation {} is undefined for every grid value",
                model.label(),
                selection.metric
            )));
        };
        Ok((rows[chosen].0.clone(), rows))
    }

    /// The group of each judged user (by known events), or `None` without a breakdown.
    fn user_groups(&self, split: &Split, judgments: &Judgments) -> Option<Vec<Option<usize>>> {
        let bounds = &self.config.evaluation.user_groups;
        if bounds.is_empty() {
            return None;
        }
        let known = |u: u32| {
            let train = split.train().user_row(u).len();
            let history = split.history().map_or(0, |h| h.user_row(u).len());
            train + history
        };
        Some(
            judgments
                .users()
                .iter()
                .map(|&u| {
                    let n = known(u);
                    bounds.iter().rposition(|&b| n >= b)
                })
                .collect(),
        )
    }

    fn group_metric(&self) -> Metric {
        let per_user = self.config.per_user_keys(&self.metrics);
        let key =
            self.config.evaluation.group_metric.clone().unwrap_or_else(|| per_user[0].clone());
        key.parse().expect("checked: a per-user metric of the list")
    }

    /// Per group: (sum of the group metric over its users, users counted), from the
    /// per-user values the evaluation computed.
    fn group_sums(
        &self,
        per_user: &recs_metrics::PerUser,
        groups: &[Option<usize>],
    ) -> Vec<(f64, usize)> {
        let metric = self.group_metric();
        let column =
            per_user.metrics().iter().position(|m| *m == metric).expect("checked: in the list");
        let values = per_user.column(column);
        let mut sums = vec![(0.0, 0usize); self.config.evaluation.user_groups.len()];
        for (value, group) in values.iter().zip(groups) {
            if let Some(g) = group
                && !value.is_nan()
            {
                sums[*g].0 += value;
                sums[*g].1 += 1;
            }
        }
        sums
    }

    fn curves(
        &self,
        label: &str,
        scored: &Scored<'_>,
    ) -> Result<(Option<ModelCurve>, Option<ModelCurve>)> {
        let threshold = self.config.evaluation.rel_threshold;
        let [roc_step, croc_step] = self.config.evaluation.markers;
        let roc = if self.metrics.contains(&Metric::Roc) {
            let curve = recs_metrics::roc(scored, threshold)?;
            Some(ModelCurve::new(CurveKind::Roc, label, &curve, roc_step))
        } else {
            None
        };
        let croc = if self.metrics.contains(&Metric::Croc) {
            let curve = recs_metrics::croc(scored, threshold)?;
            Some(ModelCurve::new(CurveKind::Croc, label, &curve, croc_step))
        } else {
            None
        };
        Ok((roc, croc))
    }

    fn external_user(&self, u: u32) -> &str {
        self.data.dataset.users.external(u).unwrap_or("?")
    }

    fn external_item(&self, i: u32) -> &str {
        self.data.dataset.items.external(i).unwrap_or("?")
    }

    /// `user<TAB>item<TAB>score` for every candidate; `{}` prints the shortest text that
    /// reads back as the same `f32`.
    fn run_lines(&self, judgments: &Judgments, scores: &[f32]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for user in judgments.iter() {
            let u = self.external_user(user.user);
            for &item in user.items {
                // Writing into a String cannot fail.
                let _ = writeln!(out, "{u}\t{}\t{}", self.external_item(item), scores[at]);
                at += 1;
            }
        }
        out
    }

    fn qrels_lines(&self, judgments: &Judgments) -> String {
        let mut out = String::new();
        for user in judgments.iter() {
            let u = self.external_user(user.user);
            for (&item, &grade) in user.items.iter().zip(user.grades) {
                let _ = writeln!(out, "{u}\t{}\t{grade}", self.external_item(item));
            }
        }
        out
    }
}

/// The metric that produces a selection key.
fn selection_metric(key: &str) -> Result<Metric> {
    if key.starts_with("roc_") {
        return Ok(Metric::Roc);
    }
    if key.starts_with("croc_") {
        return Ok(Metric::Croc);
    }
    Ok(key.parse()?)
}

fn params_text(params: &[(String, String)]) -> String {
    params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

fn cell(value: Option<f64>) -> Value {
    value.map_or(Value::Null, |v| json!(v))
}

impl Context<'_> {
    fn assemble(&self, splits: &[SplitResult], quick: bool) -> Result<Outcome> {
        let config = self.config;
        let first = &splits[0];
        let dataset = &self.data.dataset;
        let mut tables = vec![
            self.results_table(splits),
            self.split_table(splits),
            self.per_split_table(splits),
        ];
        if let Some(t) = self.selection_table(splits) {
            tables.push(t);
        }
        if let Some(t) = self.groups_table(splits) {
            tables.push(t);
        }
        let mut curves = Vec::new();
        let (mut roc, mut croc) = (Vec::new(), Vec::new());
        for model in &first.models {
            if let Some((r, c)) = &model.curves {
                if let Some(r) = r {
                    curves.push(r.report.clone());
                    roc.push(r.clone());
                }
                if let Some(c) = c {
                    curves.push(c.report.clone());
                    croc.push(c.clone());
                }
            }
        }
        let mut figures = Vec::new();
        if let Some(references) = &first.references {
            let refs = crate::evaluation::References {
                roc: if roc.is_empty() { Vec::new() } else { references.roc.clone() },
                croc: if croc.is_empty() { Vec::new() } else { references.croc.clone() },
            };
            for r in refs.roc.iter().chain(&refs.croc) {
                curves.push(r.report.clone());
            }
            let title = format!("{}, split 0", config.name);
            figures.extend(
                roc_croc_figures(&config.name, &title, &roc, &croc, &refs).into_iter().filter(
                    |f| {
                        (f.file.ends_with("-roc.svg") && !roc.is_empty())
                            || (f.file.ends_with("-croc.svg") && !croc.is_empty())
                    },
                ),
            );
        }
        figures.extend(self.validation_figures(first));
        figures.extend(self.group_figure(splits));

        let protocol_text = match &config.protocol {
            ProtocolConfig::Predefined => {
                "predefined training/test parts of the dataset".to_string()
            }
            ProtocolConfig::Generated(p) => {
                format!("{}, {} split(s)", protocol_in_words(p), splits.len())
            }
        };
        let report = Report {
            schema_version: SCHEMA_VERSION,
            paper: config.name.clone(),
            seed: self.seed,
            quick,
            version: env!("CARGO_PKG_VERSION").to_string(),
            datasets: vec![dataset_entry(dataset)],
            experiments: vec![Experiment {
                id: config.name.clone(),
                protocol: protocol_text,
                mode: config.judgments.mode.clone(),
                candidates: first.candidates as u64,
                positives: first.positives as u64,
                curves,
                tables,
            }],
            claims: self.claims(splits),
        };
        let mut intro = String::new();
        if !config.description.trim().is_empty() {
            intro.push_str(config.description.trim());
            intro.push_str("\n\n");
        }
        intro.push_str(&format!(
            "Means over {} split(s) with 95% t intervals (± half-width; none with one split). \
             Curves and figures are of the first split. Metric definitions: docs/metrics.md.",
            splits.len()
        ));
        if let Some(note) = &self.data.attribute_note {
            intro.push_str(&format!("\n\nItem attributes: {note}."));
        }
        let mut notes = String::new();
        let mut warnings: Vec<String> = Vec::new();
        for split in splits {
            for (model, result) in config.models.iter().zip(&split.models) {
                for w in &result.warnings {
                    let line = format!("{}: {w}", model.label());
                    if !warnings.contains(&line) {
                        warnings.push(line);
                    }
                }
            }
        }
        if !warnings.is_empty() {
            notes.push_str("\n## Warnings\n\n");
            for w in &warnings {
                notes.push_str(&format!("- {w}\n"));
            }
        }
        let mut files = Vec::new();
        if let Some(qrels) = &first.qrels {
            files.push(("scores/qrels.tsv".to_string(), qrels.clone()));
            for (model, result) in config.models.iter().zip(&first.models) {
                if let Some(lines) = &result.saved {
                    files.push((format!("scores/{}.tsv", file_safe(model.label())), lines.clone()));
                }
            }
        }
        Ok(Outcome { report, extras: Extras { figures, intro, notes, files } })
    }

    /// Mean of each model's metric over splits, with the 95% t half-width.
    fn summary(
        &self,
        splits: &[SplitResult],
        model: usize,
        key: usize,
    ) -> (Option<f64>, Option<f64>) {
        let values: Vec<f64> = splits.iter().filter_map(|s| s.models[model].values[key]).collect();
        if values.is_empty() {
            return (None, None);
        }
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let half = recs_metrics::t_interval(&values).ok().map(|i| (i.upper - i.lower) / 2.0);
        (Some(mean), half)
    }

    fn results_table(&self, splits: &[SplitResult]) -> Table {
        let mut columns = vec!["model".to_string(), "params".to_string()];
        for key in &self.keys {
            columns.push(key.clone());
            columns.push(format!("{key} ±95%"));
        }
        let rows = self
            .config
            .models
            .iter()
            .enumerate()
            .map(|(m, model)| {
                let mut row = vec![json!(model.label()), json!(chosen_params(splits, m))];
                for k in 0..self.keys.len() {
                    let (mean, half) = self.summary(splits, m, k);
                    row.push(cell(mean));
                    row.push(cell(half));
                }
                row
            })
            .collect();
        Table {
            name: format!("Results: mean over {} split(s), 95% t half-width", splits.len()),
            columns,
            rows,
        }
    }

    fn split_table(&self, splits: &[SplitResult]) -> Table {
        Table {
            name: "Splits".to_string(),
            columns: [
                "repetition",
                "fold",
                "training events",
                "test events",
                "judged users",
                "candidates",
                "positives",
            ]
            .map(String::from)
            .to_vec(),
            rows: splits
                .iter()
                .map(|s| {
                    vec![
                        json!(s.id.repetition),
                        json!(s.id.fold),
                        json!(s.train_events),
                        json!(s.test_events),
                        json!(s.judged_users),
                        json!(s.candidates),
                        json!(s.positives),
                    ]
                })
                .collect(),
        }
    }

    fn per_split_table(&self, splits: &[SplitResult]) -> Table {
        let mut columns: Vec<String> =
            ["model", "repetition", "fold", "params", "items scored"].map(String::from).to_vec();
        columns.extend(self.keys.iter().cloned());
        let mut rows = Vec::new();
        for (m, model) in self.config.models.iter().enumerate() {
            for split in splits {
                let result = &split.models[m];
                let mut row = vec![
                    json!(model.label()),
                    json!(split.id.repetition),
                    json!(split.id.fold),
                    json!(params_text(&result.params)),
                    json!(result.item_scoring),
                ];
                row.extend(result.values.iter().map(|v| cell(*v)));
                rows.push(row);
            }
        }
        Table { name: "Per split".to_string(), columns, rows }
    }

    fn selection_table(&self, splits: &[SplitResult]) -> Option<Table> {
        let selection = self.config.selection.as_ref()?;
        let mut rows = Vec::new();
        for (m, model) in self.config.models.iter().enumerate() {
            for split in splits {
                let result = &split.models[m];
                for (params, value) in &result.validation {
                    rows.push(vec![
                        json!(model.label()),
                        json!(split.id.repetition),
                        json!(split.id.fold),
                        json!(params_text(params)),
                        cell(*value),
                        json!(*params == result.params),
                    ]);
                }
            }
        }
        if rows.is_empty() {
            return None;
        }
        Some(Table {
            name: format!(
                "Model selection by validation {} inside each training part",
                selection.metric
            ),
            columns: vec![
                "model".into(),
                "repetition".into(),
                "fold".into(),
                "params".into(),
                format!("validation {}", selection.metric),
                "chosen".into(),
            ],
            rows,
        })
    }

    fn group_labels(&self) -> Vec<String> {
        let bounds = &self.config.evaluation.user_groups;
        bounds
            .iter()
            .enumerate()
            .map(|(i, &lo)| match bounds.get(i + 1) {
                Some(&hi) if hi == lo + 1 => format!("{lo}"),
                Some(&hi) => format!("{lo}–{}", hi - 1),
                None => format!("{lo}+"),
            })
            .collect()
    }

    /// Per model and group: (mean of the group metric over every judged user of every
    /// split in the group, users counted).
    fn group_means(&self, splits: &[SplitResult], model: usize) -> Vec<(Option<f64>, usize)> {
        let n = self.config.evaluation.user_groups.len();
        (0..n)
            .map(|g| {
                let (sum, count) = splits
                    .iter()
                    .map(|s| s.models[model].groups[g])
                    .fold((0.0, 0), |(s, c), (s2, c2)| (s + s2, c + c2));
                ((count > 0).then(|| sum / count as f64), count)
            })
            .collect()
    }

    fn groups_table(&self, splits: &[SplitResult]) -> Option<Table> {
        if self.config.evaluation.user_groups.is_empty() {
            return None;
        }
        let metric = self.group_metric().to_string();
        let labels = self.group_labels();
        let mut rows = Vec::new();
        for (m, model) in self.config.models.iter().enumerate() {
            for (label, (mean, count)) in labels.iter().zip(self.group_means(splits, m)) {
                rows.push(vec![json!(model.label()), json!(label), json!(count), cell(mean)]);
            }
        }
        Some(Table {
            name: format!("{metric} by user group (known events per user; users of every split)"),
            columns: vec!["model".into(), "group".into(), "users".into(), metric],
            rows,
        })
    }

    fn group_figure(&self, splits: &[SplitResult]) -> Option<Figure> {
        if self.config.evaluation.user_groups.is_empty() {
            return None;
        }
        let metric = self.group_metric().to_string();
        let series = self
            .config
            .models
            .iter()
            .enumerate()
            .map(|(m, model)| {
                (
                    model.label().to_string(),
                    self.group_means(splits, m).into_iter().map(|g| g.0).collect(),
                )
            })
            .collect();
        Some(Figure {
            experiment: self.config.name.clone(),
            file: format!("{}-groups.svg", self.config.name),
            chart: crate::plot::Figure::Bars(BarChart {
                title: format!("{} — {metric} by user group", self.config.name),
                x_label: "known events per user".into(),
                y_label: metric,
                categories: self.group_labels(),
                series,
            }),
        })
    }

    /// Validation metric against the parameter, for models whose grid varies one numeric
    /// parameter (first split).
    fn validation_figures(&self, first: &SplitResult) -> Vec<Figure> {
        let Some(selection) = &self.config.selection else { return Vec::new() };
        let mut figures = Vec::new();
        for (model, result) in self.config.models.iter().zip(&first.models) {
            let varying: Vec<&String> =
                model.grid.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k).collect();
            let [key] = varying.as_slice() else { continue };
            let points: Option<Vec<[f64; 2]>> = result
                .validation
                .iter()
                .map(|(params, value)| {
                    let x = params.iter().find(|(k, _)| k == *key)?.1.parse::<f64>().ok()?;
                    Some([x, (*value)?])
                })
                .collect();
            let Some(mut points) = points else { continue };
            points.sort_by(|a, b| a[0].total_cmp(&b[0]));
            let (x0, x1) = (points[0][0], points[points.len() - 1][0]);
            let y_min = points.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
            let y_max = points.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
            if x0 >= x1 {
                continue;
            }
            let pad = ((y_max - y_min) * 0.1).max(1e-3);
            let chart = Chart {
                title: format!(
                    "{}: validation {} by {key} (split 0)",
                    model.label(),
                    selection.metric
                ),
                x_label: (*key).clone(),
                y_label: format!("validation {}", selection.metric),
                x_range: (x0, x1),
                y_range: (y_min - pad, y_max + pad),
                series: vec![Series {
                    label: model.label().to_string(),
                    markers: points.clone(),
                    points,
                    kind: LineKind::Model,
                }],
            };
            figures.push(Figure {
                experiment: self.config.name.clone(),
                file: format!("{}-validation-{}.svg", self.config.name, file_safe(model.label())),
                chart: crate::plot::Figure::Lines(chart),
            });
        }
        figures
    }

    fn claims(&self, splits: &[SplitResult]) -> Vec<Claim> {
        self.config
            .claims
            .iter()
            .map(|claim| {
                let key = self.keys.iter().position(|k| *k == claim.metric).expect("checked");
                let index = |label: &str| {
                    self.config.models.iter().position(|m| m.label() == label).expect("checked")
                };
                let (better, _) = self.summary(splits, index(&claim.better), key);
                let (worse, _) = self.summary(splits, index(&claim.worse), key);
                let show =
                    |v: Option<f64>| v.map_or("undefined".to_string(), |v| format!("{v:.4}"));
                let lower = crate::config::lower_is_better(&claim.metric);
                let holds = match (better, worse) {
                    (Some(b), Some(w)) if lower => w - b > claim.margin,
                    (Some(b), Some(w)) => b - w > claim.margin,
                    _ => false,
                };
                Claim {
                    id: claim.id.clone(),
                    statement: claim.statement.clone(),
                    paper: format!(
                        "mean {} of {} is {} that of {} by more than {}",
                        claim.metric,
                        claim.better,
                        if lower { "below" } else { "above" },
                        claim.worse,
                        claim.margin
                    ),
                    measured: format!(
                        "{} {} vs {} {} over {} split(s)",
                        claim.better,
                        show(better),
                        claim.worse,
                        show(worse),
                        splits.len()
                    ),
                    holds,
                }
            })
            .collect()
    }
}

/// `leave-k-out (k = fraction 0.2, min_train = 1)`: the protocol's name and parameters as
/// a configuration would write them.
fn protocol_in_words(protocol: &Protocol) -> String {
    fn value(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Object(map) => {
                map.iter().map(|(k, v)| format!("{k} {}", value(v))).collect::<Vec<_>>().join(" ")
            }
            other => other.to_string(),
        }
    }
    let params: Vec<String> = match serde_json::to_value(protocol) {
        Ok(Value::Object(map)) => map
            .iter()
            .filter(|(k, _)| *k != "protocol")
            .map(|(k, v)| format!("{k} = {}", value(v)))
            .collect(),
        _ => Vec::new(),
    };
    if params.is_empty() {
        protocol.name().to_string()
    } else {
        format!("{} ({})", protocol.name(), params.join(", "))
    }
}

/// The parameters a model used: the same on every split, or each choice with its count.
fn chosen_params(splits: &[SplitResult], model: usize) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for split in splits {
        let text = params_text(&split.models[model].params);
        match seen.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => seen.push((text, 1)),
        }
    }
    if seen.len() == 1 {
        return seen.swap_remove(0).0;
    }
    seen.iter().map(|(t, n)| format!("{t} ({n}×)")).collect::<Vec<_>>().join("; ")
}

/// Letters, digits, `-`, `_` and `.` kept; anything else becomes `_`.
fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect()
}

/// A dataset as recorded in a report: counts and the checksums of its files.
pub fn dataset_entry(dataset: &Dataset) -> DatasetEntry {
    DatasetEntry {
        name: dataset.name.clone(),
        users: dataset.interactions.n_users() as u64,
        items: dataset.interactions.n_items() as u64,
        events: dataset.interactions.n_events() as u64,
        files: dataset
            .sources
            .iter()
            .map(|s| FileEntry {
                path: s.path.file_name().map_or_else(
                    || s.path.display().to_string(),
                    |f| f.to_string_lossy().into_owned(),
                ),
                sha256: s.sha256.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_seeds_differ_by_split_and_purpose() {
        let a = derive_seed(42, SplitId::new(0, 0), MODEL_SEED);
        assert_ne!(a, derive_seed(42, SplitId::new(0, 1), MODEL_SEED));
        assert_ne!(a, derive_seed(42, SplitId::new(1, 0), MODEL_SEED));
        assert_ne!(a, derive_seed(42, SplitId::new(0, 0), VALIDATION_SEED));
        assert_ne!(a, derive_seed(43, SplitId::new(0, 0), MODEL_SEED));
        assert_eq!(a, derive_seed(42, SplitId::new(0, 0), MODEL_SEED));
    }

    #[test]
    fn protocols_read_as_configurations_write_them() {
        let p = Protocol::LeaveKOut { k: recs_split::Amount::Fraction(0.2), min_train: 1 };
        assert_eq!(protocol_in_words(&p), "leave-k-out (k = fraction 0.2, min_train = 1)");
        assert_eq!(protocol_in_words(&Protocol::LeaveOneOut), "leave-one-out");
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_safe("item-kNN k=20 / cos"), "item-kNN_k_20___cos");
    }
}
