//! The experiment runner behind `recs run` and `cargo xtask reproduce`: a checked
//! [`Plan`] in; results, a report entry and figures out.
//!
//! The modules follow the data:
//! - [`load`]: the dataset and its item attributes (loaded once per [`Session`]);
//! - [`split`]: every split of the plan (each fold of each repetition; only the first with
//!   `quick`), drawn with seeds derived per split and purpose, judged by the test mode;
//! - [`select`]: for a model with a grid, every combination fitted and scored on
//!   validation data drawn inside the training part, the best kept;
//! - [`assess`]: the chosen model fitted on the training part, every candidate scored
//!   (items unseen in training from their attributes under a cold-start protocol; users
//!   kept out of training from their history), the metrics computed with
//!   [`recs_metrics::evaluate`] — the same call `recs eval` makes;
//! - [`assemble`]: per-model [`Results`], tables, figures, claims and the report.
//!
//! Splits run in parallel (rayon); every random choice derives from the plan's seed, so
//! the report is byte-identical for any thread count. The runner never prints: progress
//! goes to a [`Progress`] the front end supplies.

mod assemble;
mod assess;
mod compare;
mod effects;
mod groups;
mod load;
mod select;
mod split;
mod stream;
mod versus;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use recs_core::Judgments;
use recs_data::Resolver;
use recs_split::SplitId;

use crate::curves::ModelCurve;
use crate::error::Result;
use crate::output::{Extras, Figure};
use crate::plan::{Params, Plan};
use crate::report::{Claim, ComparisonFamily, DatasetEntry, Experiment, Report};

pub use assemble::dataset_entry;
pub use compare::UserValues;
// The streaming driver and its memory budget belong to `recs_metrics::stream`; they are
// re-exported here because configurations and `recs run` speak of them.
pub use recs_metrics::stream::{
    CatalogMetrics, CatalogWorkers, DEFAULT_MEMORY_BUDGET, catalog_block_users, catalog_workers,
};
pub use stream::{evaluate_catalog, evaluate_catalog_with, sampled_instances};

/// How plans are run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Only the first split (repetition 0, fold 0), and each model's `quick_grid`.
    pub quick: bool,
    /// Folder searched first for registered datasets.
    pub data_dir: Option<PathBuf>,
    /// Keep parsed registered datasets in `<cache>/recs/parsed` (bincode, keyed by the
    /// sources' sha256 and the crate version), so the next run skips parsing.
    pub parsed_cache: bool,
    /// Where download progress goes (a front end's progress bar; nowhere when `None`).
    pub download_progress: Option<Arc<dyn recs_data::DownloadProgress>>,
}

/// Receives progress; the runner itself never prints.
pub trait Progress: Sync {
    /// The number of steps (model fits, including validation fits) of one plan is known.
    fn begin(&self, _total: u64) {}
    /// One step is done; `what` says which.
    fn step(&self, _what: &str) {}
}

/// Wall times of one model on one split: the fit with the chosen parameters (validation
/// fits not included) and the evaluation on the test candidates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Seconds to fit the model.
    pub fit_seconds: f64,
    /// Seconds to score the test candidates and compute the metrics.
    pub evaluation_seconds: f64,
    /// Whether the candidates were streamed (a full catalog) rather than listed.
    pub streamed: bool,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.streamed { "streamed" } else { "listed" };
        write!(
            f,
            "fit {:.1} s, {path} evaluation {:.1} s",
            self.fit_seconds, self.evaluation_seconds
        )
    }
}

/// Progress that goes nowhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

/// Runs plans that may share datasets: each dataset (with its attributes) is loaded once.
#[derive(Debug)]
pub struct Session {
    resolver: Resolver,
    parsed: Option<recs_data::DatasetCache>,
    quick: bool,
    loaded: Mutex<Vec<Arc<load::Loaded>>>,
}

/// What one plan produced: its report entry, figures, notes and the numbers behind them.
#[derive(Debug, Clone)]
pub struct ExperimentRun {
    /// The `report.json` entry (curves of the first split, tables).
    pub experiment: Experiment,
    /// The dataset read, with its file checksums.
    pub dataset: DatasetEntry,
    /// Figures of the experiment.
    pub figures: Vec<Figure>,
    /// Markdown describing the experiment (description, how to read the numbers).
    pub intro: String,
    /// Model warnings from the metrics, one line each (deduplicated).
    pub warnings: Vec<String>,
    /// Files to write next to the report (saved scores), `(relative path, contents)`.
    pub files: Vec<(String, String)>,
    /// Per-model numbers, for claims and tables computed by the caller.
    pub results: Results,
    /// The plan's own claims, checked on the results.
    pub claims: Vec<Claim>,
    /// The paired comparisons of the models (`[comparison]`), when the plan asks for them;
    /// [`Session::report`] files them under the experiment's id.
    pub comparison: Option<ComparisonFamily>,
}

/// Per-model numbers of a run.
#[derive(Debug, Clone)]
pub struct Results {
    keys: Vec<String>,
    models: Vec<ModelResults>,
    /// The splits run, in order (repetition-major).
    split_ids: Vec<SplitId>,
    judgments: Option<Judgments>,
}

/// One model's numbers over the splits of a run.
#[derive(Debug, Clone)]
pub struct ModelResults {
    label: String,
    /// Per split: the parameters used.
    params: Vec<Params>,
    /// Per split: the value of each report key.
    values: Vec<Vec<Option<f64>>>,
    /// Per split: every grid combination tried with the value of each report key on
    /// validation (empty without a grid).
    validation: Vec<Vec<(Params, Vec<Option<f64>>)>>,
    /// Per split: how candidate items were scored.
    item_scoring: Vec<&'static str>,
    /// Per split: the wall times of the final fit and evaluation.
    timings: Vec<Timing>,
    /// Per split: the fitted model's facts ([`recs_core::Recommender::fit_facts`]).
    fit_facts: Vec<Vec<(&'static str, f64)>>,
    /// Per split and user group: (sum of the group metric, users counted).
    groups: Vec<Vec<(f64, usize)>>,
    /// Per split: the per-user values of the compared metrics (empty without
    /// `[comparison]`).
    user_values: Vec<UserValues>,
    /// Per split: sampled against exact metrics (empty without
    /// `evaluation.sampled_vs_exact`).
    versus: Vec<recs_sampled::versus::RunValues>,
    roc: Option<ModelCurve>,
    croc: Option<ModelCurve>,
}

impl Results {
    /// The report keys, in column order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Every model, in plan order.
    pub fn models(&self) -> &[ModelResults] {
        &self.models
    }

    /// The model labelled `label`.
    pub fn model(&self, label: &str) -> Option<&ModelResults> {
        self.models.iter().find(|m| m.label == label)
    }

    /// Number of splits run.
    pub fn n_splits(&self) -> usize {
        self.split_ids.len()
    }

    /// The splits run, in the order of [`Results::per_split`] (repetition-major).
    pub fn split_ids(&self) -> &[SplitId] {
        &self.split_ids
    }

    /// The mean over splits of `key` for model `label` (`None` when undefined on every
    /// split, or for an unknown label or key).
    pub fn mean(&self, label: &str, key: &str) -> Option<f64> {
        let k = self.keys.iter().position(|x| x == key)?;
        self.model(label)?.summary(k).0
    }

    /// The value of `key` for model `label` on every split, in [`Results::split_ids`] order
    /// (`None` where undefined); `None` for an unknown label or key.
    pub fn per_split(&self, label: &str, key: &str) -> Option<Vec<Option<f64>>> {
        let k = self.keys.iter().position(|x| x == key)?;
        Some(self.model(label)?.values.iter().map(|v| v[k]).collect())
    }

    /// The first split's test judgments, when the plan asked to keep them.
    pub fn judgments(&self) -> Option<&Judgments> {
        self.judgments.as_ref()
    }

    /// Every model's [`Timing`] on every split, as `timings.json` holds them:
    /// `{"models": [{"label", "splits": [{"repetition", "fold", "fit_seconds",
    /// "evaluation_seconds", "streamed"}]}]}`.
    pub fn timings_json(&self) -> serde_json::Value {
        let models: Vec<serde_json::Value> = self
            .models
            .iter()
            .map(|m| {
                let splits: Vec<serde_json::Value> = self
                    .split_ids
                    .iter()
                    .zip(&m.timings)
                    .map(|(id, t)| {
                        serde_json::json!({
                            "repetition": id.repetition,
                            "fold": id.fold,
                            "fit_seconds": t.fit_seconds,
                            "evaluation_seconds": t.evaluation_seconds,
                            "streamed": t.streamed,
                        })
                    })
                    .collect();
                serde_json::json!({ "label": m.label, "splits": splits })
            })
            .collect();
        serde_json::json!({ "models": models })
    }
}

impl ModelResults {
    /// The model's label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Per split, in [`Results::split_ids`] order: the wall times of the final fit and of
    /// the evaluation (not in the report, which is byte-identical from run to run).
    pub fn timings(&self) -> &[Timing] {
        &self.timings
    }

    /// Per split, in [`Results::split_ids`] order: how the final fit went, as the fitted
    /// model states it ([`recs_core::Recommender::fit_facts`]; empty for models that state nothing).
    /// Deterministic, unlike the timings.
    pub fn fit_facts(&self) -> &[Vec<(&'static str, f64)>] {
        &self.fit_facts
    }

    /// Per split, in [`Results::split_ids`] order, and per user group of the plan
    /// (`evaluation.user_groups`): the sum of the group metric over the group's users with
    /// a value, and their number. Empty without a breakdown.
    pub fn groups(&self) -> &[Vec<(f64, usize)>] {
        &self.groups
    }

    /// Per split, in [`Results::split_ids`] order: the model's per-user values of the
    /// metrics `[comparison]` compares, which its paired tests take. Empty when the plan
    /// compares nothing.
    pub fn user_values(&self) -> &[UserValues] {
        &self.user_values
    }

    /// Per split, in [`Results::split_ids`] order: the means of the exact metric and of
    /// every estimator for each seed's draw (`evaluation.sampled_vs_exact`; empty without).
    pub fn sampled_vs_exact(&self) -> &[recs_sampled::versus::RunValues] {
        &self.versus
    }

    /// The parameters used on the first split.
    pub fn params(&self) -> &[(String, String)] {
        self.params.first().map_or(&[], Vec::as_slice)
    }

    /// The value of parameter `key` on every split, in [`Results::split_ids`] order (what
    /// validation chose on each).
    pub fn param_per_split(&self, key: &str) -> Vec<Option<&str>> {
        self.params
            .iter()
            .map(|p| p.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()))
            .collect()
    }

    /// The value of parameter `key` used on the first split.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params().iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The first split's validation: every grid combination with the value of each report
    /// key (empty without a grid).
    pub fn validation(&self) -> &[(Params, Vec<Option<f64>>)] {
        self.validation.first().map_or(&[], Vec::as_slice)
    }

    /// The first split's pooled ROC curve (when `roc` is a metric).
    pub fn roc(&self) -> Option<&ModelCurve> {
        self.roc.as_ref()
    }

    /// The first split's CROC curve (when `croc` is a metric).
    pub fn croc(&self) -> Option<&ModelCurve> {
        self.croc.as_ref()
    }

    /// Mean over splits of key number `key`, and the 95% t half-width (`None` with one
    /// defined value).
    fn summary(&self, key: usize) -> (Option<f64>, Option<f64>) {
        let values: Vec<f64> = self.values.iter().filter_map(|v| v[key]).collect();
        if values.is_empty() {
            return (None, None);
        }
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let half = recs_metrics::t_interval(&values).ok().map(|i| (i.upper - i.lower) / 2.0);
        (Some(mean), half)
    }
}

/// The result of [`run`]: the report and what goes next to it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `report.json`.
    pub report: Report,
    /// Figures, intro, notes and saved scores.
    pub extras: Extras,
    /// The numbers behind the report.
    pub results: Results,
}

/// Runs one plan and makes it a report of its own (the report's `paper` is the plan's
/// name; its claims are the plan's).
///
/// # Errors
/// As [`Session::run`], or a report that breaks its contract.
pub fn run(plan: &Plan, options: &RunOptions, progress: &dyn Progress) -> Result<Outcome> {
    let session = Session::new(options);
    let run = session.run(plan, progress)?;
    let results = run.results.clone();
    let claims = run.claims.clone();
    let (report, extras) = session.report(plan.name(), plan.seed(), vec![run], claims, "")?;
    Ok(Outcome { report, extras, results })
}

impl Session {
    /// A session reading datasets through `--data-dir`, `RECS_DATA_DIR`, the cache, or a
    /// verified download.
    pub fn new(options: &RunOptions) -> Self {
        let resolver = Resolver::from_env()
            .with_data_dir(options.data_dir.clone())
            .with_progress(options.download_progress.clone());
        let parsed = if options.parsed_cache {
            recs_data::DatasetCache::for_resolver(&resolver)
        } else {
            None
        };
        Session { resolver, parsed, quick: options.quick, loaded: Mutex::new(Vec::new()) }
    }

    /// Whether the session runs CI-sized plans.
    pub fn quick(&self) -> bool {
        self.quick
    }

    /// Runs `plan`: loads its dataset (once per session), runs every split in parallel and
    /// assembles tables, figures and the plan's claims.
    ///
    /// # Errors
    /// Data that cannot be loaded, a protocol that does not fit the data, a model that
    /// cannot be fitted or cannot score what the protocol asks, or a metric error.
    pub fn run(&self, plan: &Plan, progress: &dyn Progress) -> Result<ExperimentRun> {
        let data = self.load(plan)?;
        // The users' groups read a field the data must have: checked before any split.
        if plan.group_metric.is_some() {
            groups::UserGroups::new(plan, &data)?;
        }
        let ids = split::split_ids(plan, self.quick);
        let fits_per_split: usize = plan
            .models
            .iter()
            .map(|m| match split::combinations(m, self.quick).len() {
                1 => 1,
                n => n + 1,
            })
            .sum();
        progress.begin((ids.len() * fits_per_split) as u64);
        let context = split::Context { plan, data: &data, quick: self.quick, progress };
        let splits: Vec<assess::SplitResult> = ids
            .par_iter()
            .enumerate()
            .map(|(n, &id)| context.run_split(id, n == 0))
            .collect::<Result<_>>()?;
        assemble::experiment(plan, &data, splits)
    }

    /// A report of several runs: their experiments in order, each dataset once, and the
    /// given claims; `notes` is Markdown after the claims.
    ///
    /// # Errors
    /// A report that breaks its contract.
    pub fn report(
        &self,
        paper: &str,
        seed: u64,
        runs: Vec<ExperimentRun>,
        claims: Vec<Claim>,
        notes: &str,
    ) -> Result<(Report, Extras)> {
        assemble::report(paper, seed, self.quick, runs, claims, notes)
    }

    fn load(&self, plan: &Plan) -> Result<Arc<load::Loaded>> {
        let key = load::Key::of(plan);
        if let Some(found) = self.cached(&key) {
            return Ok(found);
        }
        let loaded = Arc::new(load::load(plan, &self.resolver, self.parsed.as_ref())?);
        if let Ok(mut cache) = self.loaded.lock() {
            cache.push(Arc::clone(&loaded));
        }
        Ok(loaded)
    }

    fn cached(&self, key: &load::Key) -> Option<Arc<load::Loaded>> {
        let cache = self.loaded.lock().ok()?;
        cache.iter().find(|l| l.key == *key).cloned()
    }
}
