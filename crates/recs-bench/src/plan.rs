//! A checked experiment: the only thing the runner runs.
//!
//! A [`Plan`] is what a [`Config`](crate::Config) becomes once every name, key and value
//! has been parsed and cross-checked ([`Config::check`](crate::Config::check)): protocols
//! are [`recs_split::Protocol`] values, the test mode a [`JudgmentOptions`], metrics are
//! [`Metric`]s, model parameters have been validated by the model's own catalog entry, and
//! claims point at model and metric positions. Its fields are private, so a plan cannot be
//! built around the checks, and the runner needs no `expect("checked")`.
//!
//! Programmatic front ends (the paper reproductions) add what a text file cannot say:
//! [`Measure`]s, extra numbers computed from each model's test scores.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use recs_core::{Judgments, Recommender};
use recs_data::DelimitedFormat;
use recs_metrics::{Metric, Options};
use recs_split::{Given, JudgmentOptions, Protocol, Split};
use recs_stats::family::{Pairs, Settings};

use crate::error::{BenchError, Result};

/// Parameters of one fit as `(key, text value)` pairs, in grid order.
pub type Params = Vec<(String, String)>;

/// Where the events come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DatasetSource {
    /// A registered dataset, found by the resolver.
    Named(String, recs_data::CaseIds),
    /// Delimited files (the test file, when given, is the predefined test part).
    Files { train: PathBuf, test: Option<PathBuf>, format: DelimitedFormat },
    /// A generated dataset.
    Synthetic(Synthetic),
}

/// The generators a configuration can name (`dataset.synthetic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Synthetic {
    /// `ignatov-blocks`: [`recs_data::ignatov_blocks`].
    IgnatovBlocks,
    /// `ignatov-blocks-overlapping`: [`recs_data::ignatov_blocks_overlapping`].
    IgnatovBlocksOverlapping,
}

/// Where item attributes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttributeSource {
    /// The dataset's own item attributes (MovieLens genres).
    Genres,
    /// The MovieLens 100K cast file, top-10 billing, actors in at least two movies.
    Cast,
}

/// How events are divided into training and test parts.
#[derive(Debug, Clone, PartialEq)]
pub enum ProtocolChoice {
    /// The dataset's shipped training/test division (MS Web, or `dataset.test_file`).
    Predefined,
    /// The shipped division with the test part's users read as new people: each is
    /// folded in from the events `given` leaves visible and judged on the rest
    /// ([`Split::predefined_new_users`]).
    PredefinedNewUsers(Given),
    /// A protocol drawn from the events.
    Generated(Protocol),
}

impl ProtocolChoice {
    /// The protocol's name as written in configurations.
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolChoice::Predefined | ProtocolChoice::PredefinedNewUsers(_) => "predefined",
            ProtocolChoice::Generated(p) => p.name(),
        }
    }

    /// Whether test items are kept out of training (scored from attributes when the model
    /// can).
    pub(crate) fn is_cold_start(&self) -> bool {
        matches!(self, ProtocolChoice::Generated(Protocol::ColdStartItems { .. }))
    }
}

/// Model selection for models with a grid.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    /// The report key maximised.
    pub(crate) key: String,
    /// The protocol drawing validation data inside each training part.
    pub(crate) protocol: Protocol,
}

/// One model of the experiment with every parameter combination to try.
#[derive(Debug, Clone)]
pub(crate) struct ModelPlan {
    /// Catalog name.
    pub(crate) name: String,
    /// Unique label in tables and legends.
    pub(crate) label: String,
    /// Every combination (one without a grid), validated by the catalog entry.
    pub(crate) combinations: Vec<Params>,
    /// The same with `quick_grid` applied (for `--quick` runs).
    pub(crate) quick_combinations: Vec<Params>,
    /// What orders the candidates.
    pub(crate) rank: RankBy,
    /// The one grid key with several values, when there is exactly one (validation figure).
    pub(crate) varying: Option<String>,
    /// Whether its curves are drawn and stored.
    pub(crate) figure: bool,
}

/// A statement checked on the results: the mean of key `key` of model `better` beats that
/// of `worse` by more than `margin`.
#[derive(Debug, Clone)]
pub(crate) struct ClaimPlan {
    pub(crate) id: String,
    pub(crate) statement: String,
    pub(crate) key: usize,
    pub(crate) better: usize,
    pub(crate) worse: usize,
    pub(crate) margin: f64,
}

/// The paired comparisons of a plan (`[comparison]`): what
/// [`recs_stats::family::compare`] is asked, on every split's per-user values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparisonPlan {
    /// Tests, adjustment, draws, Tukey HSD and level; the seed a run uses is
    /// [`ComparisonPlan::settings`]'s.
    pub(crate) settings: Settings,
    /// The seed the configuration gives (`None`: derived from the run's seed).
    pub(crate) seed: Option<u64>,
    /// All pairs of models, or every model against one.
    pub(crate) pairs: Pairs,
    /// The per-user metrics compared, in order (each one of the plan's metrics).
    pub(crate) metrics: Vec<Metric>,
}

impl ComparisonPlan {
    /// The settings of a run whose derived comparison seed is `derived`: the
    /// configuration's seed when it gives one.
    pub(crate) fn settings(&self, derived: u64) -> Settings {
        Settings { seed: self.seed.unwrap_or(derived), ..self.settings.clone() }
    }
}

/// The signature of a [`Measure`]'s computation.
type MeasureFn = dyn Fn(&MeasureInput<'_>) -> Result<Option<f64>> + Send + Sync;

/// What a [`Measure`] sees of one model's evaluation on one split.
#[derive(Clone, Copy)]
pub struct MeasureInput<'a> {
    /// The fitted model: its [`score_scale`](recs_core::Recommender::score_scale) and
    /// capabilities (a rating predictor, for instance).
    pub model: &'a dyn Recommender,
    /// The split the judgments come from: what the protocol designates
    /// ([`Split::candidate_items`], [`Split::test_users`]) and its parts.
    pub split: &'a Split,
    /// The judged candidates.
    pub judgments: &'a Judgments,
    /// The model's score of every candidate, in the order of `judgments`.
    pub scores: &'a [f32],
}

/// A number computed from a model's test scores by the caller's code: a paper's side
/// metric the metric crate does not define. It appears as one more report key (a column
/// of the results tables, usable in claims, never a selection metric).
#[derive(Clone)]
pub struct Measure {
    key: String,
    lower_is_better: bool,
    compute: Arc<MeasureFn>,
}

impl fmt::Debug for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Measure")
            .field("key", &self.key)
            .field("lower_is_better", &self.lower_is_better)
            .finish_non_exhaustive()
    }
}

impl Measure {
    /// A measure reported under `key`; `compute` receives the judgments and the scores
    /// aligned with them, and returns `None` when the measure is undefined.
    pub fn new(
        key: impl Into<String>,
        lower_is_better: bool,
        compute: impl Fn(&Judgments, &[f32]) -> Result<Option<f64>> + Send + Sync + 'static,
    ) -> Self {
        Measure::with_input(key, lower_is_better, move |input| {
            compute(input.judgments, input.scores)
        })
    }

    /// A measure that also sees the split the judgments come from.
    pub fn with_split(
        key: impl Into<String>,
        lower_is_better: bool,
        compute: impl Fn(&Split, &Judgments, &[f32]) -> Result<Option<f64>> + Send + Sync + 'static,
    ) -> Self {
        Measure::with_input(key, lower_is_better, move |input| {
            compute(input.split, input.judgments, input.scores)
        })
    }

    /// A measure that sees everything of the evaluation ([`MeasureInput`]), the fitted
    /// model included.
    pub fn with_input(
        key: impl Into<String>,
        lower_is_better: bool,
        compute: impl Fn(&MeasureInput<'_>) -> Result<Option<f64>> + Send + Sync + 'static,
    ) -> Self {
        Measure { key: key.into(), lower_is_better, compute: Arc::new(compute) }
    }

    pub(crate) fn compute(&self, input: &MeasureInput<'_>) -> Result<Option<f64>> {
        (self.compute)(input)
    }
}

/// The sampled-candidates policy of a configuration (`judgments.sampled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledCandidates {
    /// Negatives drawn per judged user (at least 1).
    pub negatives: usize,
    /// How they are drawn.
    #[serde(default)]
    pub by: recs_split::SampleBy,
}

/// A checked experiment, ready to run. Built by [`Config::check`](crate::Config::check).
#[derive(Debug, Clone)]
pub struct Plan {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) seed: u64,
    pub(crate) repetitions: u32,
    pub(crate) dataset: DatasetSource,
    /// Every event read as a 1.
    pub(crate) binary: bool,
    pub(crate) attributes: Option<AttributeSource>,
    pub(crate) protocol: ProtocolChoice,
    pub(crate) judging: JudgmentOptions,
    /// Judge every item, not only those the protocol designates (`judgments.items`).
    pub(crate) judge_all_items: bool,
    /// Sampled candidates instead of the full catalog (`judgments.sampled`).
    pub(crate) sampled: Option<SampledCandidates>,
    pub(crate) mode: String,
    pub(crate) metrics: Vec<Metric>,
    pub(crate) options: Options,
    /// The popularity head of `aplt@N` and `aclt@N`.
    pub(crate) head: recs_metrics::HeadRule,
    /// How `ild@N` compares two items' attributes.
    pub(crate) similarity: recs_metrics::Similarity,
    pub(crate) max_fpr: f64,
    pub(crate) rating_errors: bool,
    pub(crate) user_groups: Vec<usize>,
    /// The per-user metric broken down by group (present when users are grouped).
    pub(crate) group_metric: Option<Metric>,
    /// What the user groups count.
    pub(crate) group_by: GroupBy,
    /// Whether the report gives the gap between the user groups.
    pub(crate) group_gap: bool,
    pub(crate) save_scores: bool,
    /// Full-catalog splits may be evaluated without listing their candidates.
    pub(crate) streaming: bool,
    /// Bytes of a streamed evaluation's block buffers, shared by every thread.
    pub(crate) memory_budget: usize,
    /// Where a streamed evaluation counts.
    pub(crate) device: EvalDevice,
    pub(crate) markers: [f64; 2],
    pub(crate) selection: Option<Selection>,
    pub(crate) models: Vec<ModelPlan>,
    pub(crate) claims: Vec<ClaimPlan>,
    pub(crate) measures: Vec<Measure>,
    pub(crate) keep_judgments: bool,
    /// Paired comparisons of the models over users (`[comparison]`).
    pub(crate) comparison: Option<ComparisonPlan>,
    /// Sampled metrics against the exact ones (`evaluation.sampled_vs_exact`).
    pub(crate) sampled_vs_exact: Option<SampledVsExact>,
}

/// What `evaluation.sampled_vs_exact` compares, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SampledVsExact {
    /// Negatives drawn per judged user.
    pub(crate) negatives: usize,
    /// How they are drawn.
    pub(crate) by: recs_split::SampleBy,
    /// Draws per split.
    pub(crate) seeds: usize,
    /// Metrics of one relevant item's rank.
    pub(crate) metrics: Vec<recs_sampled::RankMetric>,
    /// Estimators: the uncorrected sampled metric and its corrections.
    pub(crate) corrections: Vec<recs_sampled::Correction>,
}

/// Where a streamed full-catalog evaluation counts its candidates.
///
/// As text (`FromStr`, `Display`, serde, `recs run --device`): `cpu`, `cuda` or
/// `cuda-emulator`.
///
/// ```
/// use recs_bench::EvalDevice;
/// assert_eq!("cuda".parse::<EvalDevice>()?, EvalDevice::Cuda);
/// assert_eq!("cuda-emulator".parse::<EvalDevice>()?.to_string(), "cuda-emulator");
/// assert_eq!(EvalDevice::default().to_string(), "cpu");
/// assert!("gpu".parse::<EvalDevice>().is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalDevice {
    /// The host's cores.
    #[default]
    Cpu,
    /// The first NVIDIA GPU (`recs-cuda`): scores and counts there, the report finished
    /// on the host.
    Cuda,
    /// The GPU's kernels compiled for the CPU by the machine's C++ compiler
    /// (`recs_cuda::Emulator`): the GPU path's report on a machine without a GPU, slowly;
    /// for checking that path.
    CudaEmulator,
}

impl EvalDevice {
    /// True for the GPU path, real or emulated.
    pub fn is_cuda(self) -> bool {
        self != EvalDevice::Cpu
    }
}

impl std::str::FromStr for EvalDevice {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "cpu" => Ok(EvalDevice::Cpu),
            "cuda" => Ok(EvalDevice::Cuda),
            "cuda-emulator" => Ok(EvalDevice::CudaEmulator),
            _ => Err(format!("unknown device `{s}`: expected `cpu`, `cuda` or `cuda-emulator`")),
        }
    }
}

impl std::fmt::Display for EvalDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EvalDevice::Cpu => "cpu",
            EvalDevice::Cuda => "cuda",
            EvalDevice::CudaEmulator => "cuda-emulator",
        })
    }
}

/// `mib` MiB in bytes (saturating).
pub(crate) fn mib_bytes(mib: usize) -> usize {
    mib.saturating_mul(1 << 20)
}

/// The report keys of the rating errors (`evaluation.rating_errors`); lower is better.
pub const RATING_ERROR_KEYS: [&str; 2] = ["mae", "rmse"];

impl Plan {
    /// The experiment's name (its id in the report).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The seed every random choice derives from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Model labels, in report order.
    pub fn model_labels(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.label.as_str()).collect()
    }

    /// Replaces the seed (a command line's `--seed`).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Replaces the memory budget of streamed evaluations, in MiB (a command line's
    /// `--memory-budget-mib`; `evaluation.memory_budget_mib`).
    #[must_use]
    pub fn with_memory_budget_mib(mut self, mib: usize) -> Self {
        self.memory_budget = mib_bytes(mib);
        self
    }

    /// Counts streamed evaluations on `device` (replaces `evaluation.device`).
    ///
    /// # Errors
    /// [`BenchError::Config`] for `cuda` in a build without the `cuda` feature.
    pub fn with_device(mut self, device: EvalDevice) -> Result<Self> {
        if device.is_cuda() && !cfg!(feature = "cuda") {
            return Err(BenchError::config(
                "--device",
                "",
                format!(
                    "{device}: this build has no GPU support (build recs with `--features cuda`)"
                ),
            ));
        }
        self.device = device;
        Ok(self)
    }

    /// Keeps the first split's test judgments in the run's
    /// [`Results`](crate::Results), for computations beyond the report.
    #[must_use]
    pub fn keep_judgments(mut self) -> Self {
        self.keep_judgments = true;
        self
    }

    /// Adds a measure computed from every model's test scores.
    ///
    /// # Errors
    /// A key that another metric or measure already produces.
    pub fn with_measure(mut self, measure: Measure) -> Result<Self> {
        if self.keys().contains(&measure.key) {
            return Err(BenchError::Experiment(format!(
                "{}: the measure key `{}` is already a report key",
                self.name, measure.key
            )));
        }
        self.measures.push(measure);
        Ok(self)
    }

    /// The report keys, in order: the metrics' keys (`roc` gives `roc_auc` and
    /// `roc_pauc@0.3`), then the rating errors when asked, then the measures.
    pub fn keys(&self) -> Vec<String> {
        let mut keys = metric_keys(&self.metrics, self.max_fpr);
        if self.rating_errors {
            keys.extend(RATING_ERROR_KEYS.map(String::from));
        }
        keys.extend(self.measures.iter().map(|m| m.key.clone()));
        keys
    }

    /// Whether a smaller value of report key `key` is better.
    pub fn lower_is_better(&self, key: &str) -> bool {
        RATING_ERROR_KEYS.contains(&key)
            || self.measures.iter().any(|m| m.key == key && m.lower_is_better)
    }

    /// True when a full-catalog split may be evaluated without listing its candidates:
    /// nothing needs every candidate's score (measures, saved scores, kept judgments), and
    /// the metrics that read the lists' items are evaluated on the host (a GPU counts
    /// without selecting lists).
    pub(crate) fn can_stream(&self) -> bool {
        let reads_lists = self.metrics.iter().any(|m| m.list_depth().is_some());
        self.streaming
            && self.measures.is_empty()
            && !self.save_scores
            && !self.keep_judgments
            && !(reads_lists && self.device.is_cuda())
    }

    /// Whether the ROC or CROC curves are computed (and drawn).
    pub(crate) fn wants_curves(&self) -> bool {
        self.metrics.iter().any(|m| matches!(m, Metric::Roc | Metric::Croc))
    }
}

/// The keys `metrics` produce, in order.
pub(crate) fn metric_keys(metrics: &[Metric], max_fpr: f64) -> Vec<String> {
    let mut keys = Vec::new();
    for m in metrics {
        match m {
            Metric::Roc | Metric::Croc => {
                keys.push(format!("{m}_auc"));
                keys.push(format!("{m}_pauc@{max_fpr}"));
            }
            other => keys.push(other.to_string()),
        }
    }
    keys
}

/// The per-user metrics of a list (everything but the pooled curves and per-user AUC).
pub(crate) fn per_user_metrics(metrics: &[Metric]) -> Vec<Metric> {
    metrics
        .iter()
        .filter(|m| !matches!(m, Metric::Roc | Metric::Croc | Metric::UserAuc))
        .copied()
        .collect()
}

/// What [`EvaluationConfig::user_groups`](crate::EvaluationConfig::user_groups) groups users by: a
/// count of their events or their age (ranges from its bounds), or a demographic field's
/// values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    /// Known events: training + history.
    #[default]
    Known,
    /// Every event of the user in the split: known + test (a user's profile, the same at
    /// every history length of a `given-l` series).
    Events,
    /// The user's age, as the dataset records it (MovieLens `u.user`), in ranges from the
    /// bounds.
    Age,
    /// The user's gender, one group per value (no bounds).
    Gender,
    /// The user's occupation, one group per value (no bounds).
    Occupation,
}

impl GroupBy {
    /// Whether the groups are the values of a field rather than ranges from bounds.
    pub fn is_categorical(self) -> bool {
        matches!(self, GroupBy::Gender | GroupBy::Occupation)
    }

    /// What the groups are of, in words.
    pub(crate) fn axis(self) -> &'static str {
        match self {
            GroupBy::Known => "known events",
            GroupBy::Events => "events in the split",
            GroupBy::Age => "age",
            GroupBy::Gender => "gender",
            GroupBy::Occupation => "occupation",
        }
    }
}

/// How a model's candidates are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// The model's ranking score (the default).
    #[default]
    Score,
    /// The model's predicted rating (for a rating predictor whose ranking score is
    /// something else, e.g. item kNN's numerator).
    Rating,
}
