//! Experiment configurations: the TOML files `recs run` reads, in their serde form.
//!
//! A [`Config`] is the text as written: public fields, defaults filled, nothing
//! cross-checked. [`Config::check`] parses and checks it into a [`Plan`], the only thing
//! the runner runs. A configuration names a dataset, a protocol (with repetitions), a test
//! mode, metrics and models (fixed parameters or a grid chosen by validation), plus
//! optional claims checked on the results and paired comparisons of the models. Every key
//! is documented in `docs/runner.md`; unknown keys and bad values are errors that name the
//! key path (`models[2].params.rank`) and, where the values are a closed set, the allowed
//! ones.
//!
//! ```
//! let plan = recs_bench::Config::from_toml(
//!     r#"
//!     name = "demo"
//!     [dataset]
//!     name = "ml-100k"
//!     [protocol]
//!     protocol = "leave-k-out"
//!     k = "20%"
//!     [[models]]
//!     name = "item-pop"
//!     "#,
//!     "demo.toml",
//! )?
//! .check("demo.toml")?;
//! assert_eq!(plan.model_labels(), ["item-pop"]);
//! # Ok::<(), recs_bench::BenchError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use recs_core::ParamValues;
use recs_metrics::Metric;
use recs_split::{GradeScale, JudgedUsers, JudgmentOptions, Protocol};
use recs_stats::family::{Pairs, Settings, Test, adjustment_key, parse_adjustment};
use serde::{Deserialize, Deserializer};

use crate::error::{BenchError, Result};
use crate::plan::{
    AttributeSource, ClaimPlan, ComparisonPlan, DatasetSource, EvalDevice, GroupBy, ModelPlan,
    Plan, ProtocolChoice, RankBy, SampledCandidates, SampledVsExact, Selection, Synthetic,
    metric_keys, mib_bytes, per_user_metrics,
};

/// A whole experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Name of the experiment: the report's `paper` field and the experiment id.
    pub name: String,
    /// One or two sentences shown at the top of `report.md`.
    #[serde(default)]
    pub description: String,
    /// Title of the figures (default: the name).
    pub title: Option<String>,
    /// Seed of every random choice (`--seed` overrides it).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Independent draws of the split; a k-fold protocol runs every fold of each.
    #[serde(default = "one_u32")]
    pub repetitions: u32,
    /// Where the events come from.
    pub dataset: DatasetConfig,
    /// How events are divided into training and test parts.
    pub protocol: ProtocolChoice,
    /// Which candidates are judged and what is relevant.
    #[serde(default)]
    pub judgments: JudgmentsConfig,
    /// Metrics and their options.
    #[serde(default)]
    pub evaluation: EvaluationConfig,
    /// How models with a grid choose their parameters.
    #[serde(default)]
    pub selection: Option<SelectionConfig>,
    /// The models, in report order.
    pub models: Vec<ModelConfig>,
    /// Statements checked on the results.
    #[serde(default)]
    pub claims: Vec<ClaimConfig>,
    /// Paired comparisons of the models over users, as `recs compare` makes them.
    #[serde(default)]
    pub comparison: Option<ComparisonConfig>,
    /// Folder against which relative paths are resolved (the configuration's folder).
    #[serde(skip)]
    pub base_dir: PathBuf,
}

fn default_seed() -> u64 {
    recs_core::DEFAULT_SEED
}

fn one_u32() -> u32 {
    1
}

/// The dataset: a registered name, a delimited file or a synthetic generator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetConfig {
    /// Registered dataset (`ml-100k`, `msweb`, `ml-1m`, ...), found through `--data-dir`,
    /// `RECS_DATA_DIR`, the cache, or downloaded and verified.
    pub name: Option<String>,
    /// A delimited interaction file instead (relative to the configuration's folder).
    pub file: Option<PathBuf>,
    /// A generated dataset instead: `ignatov-blocks` (ignatov2010 §5: 20 users × 20 items
    /// with four 5 × 5 blocks of ones) or `ignatov-blocks-overlapping` (the same rectangles
    /// placed so that neighbouring ones share two item columns).
    pub synthetic: Option<String>,
    /// Read every event as a 1 whatever its value (ratings become binary events).
    #[serde(default)]
    pub binary: bool,
    /// With `file` and `protocol = "predefined"`: the test file, same format.
    pub test_file: Option<PathBuf>,
    /// MS Web only: whether a test case id names the training case of the same id
    /// (`same`, the default, as schein2005 read it) or another person (`separate`, as
    /// the UCI description says; such cases get the ids `test:<id>`).
    pub case_ids: Option<String>,
    /// Field delimiter of `file`: `auto` (found from its first line, the default), `tab`,
    /// `,`, `::`, ...
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// Whether `file` starts with a header line (absent: found from its first two lines).
    #[serde(default)]
    pub header: Option<bool>,
    /// `file` has no rating column (each line is one event of value 1).
    #[serde(default)]
    pub implicit: bool,
    /// `file` has a timestamp column after the rating (after the item when implicit).
    #[serde(default)]
    pub timestamps: bool,
    /// Item attributes for content models and cold start: `genres` (MovieLens 100K's
    /// `u.item`) or `cast` (the top-10 billed actors of `ml-100k-cast`, actors in at least
    /// two movies).
    pub attributes: Option<AttributeSource>,
}

fn default_delimiter() -> String {
    recs_data::AUTO_DELIMITER.to_string()
}

impl<'de> Deserialize<'de> for ProtocolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let table = toml::Table::deserialize(deserializer)?;
        let name = match table.get("protocol") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "`protocol` must be a protocol name, not {}",
                    other.type_str()
                )));
            }
            None => {
                return Err(D::Error::custom(format!(
                    "missing `protocol`: one of predefined, {}",
                    recs_split::protocol_names()
                )));
            }
        };
        if name == "predefined" {
            if let Some(key) = table.keys().find(|k| *k != "protocol" && *k != "given") {
                return Err(D::Error::custom(format!(
                    "unknown key `{key}`: `predefined` takes only `given` (the test part's \
                     users are then new people, folded in from that many of their events)"
                )));
            }
            return match table.get("given") {
                None => Ok(ProtocolChoice::Predefined),
                Some(value) => {
                    let text = value_text(value)
                        .ok_or_else(|| D::Error::custom("`given`: a number or a text"))?;
                    let given = recs_split::Given::from_text(&text)
                        .map_err(|e| D::Error::custom(e.to_string()))?;
                    Ok(ProtocolChoice::PredefinedNewUsers(given))
                }
            };
        }
        let mut values = Vec::with_capacity(table.len());
        for (key, value) in table.iter().filter(|(k, _)| *k != "protocol") {
            let mut text = value_text(value).ok_or_else(|| {
                D::Error::custom(format!("`{key}`: a number, a text or a one-key table"))
            })?;
            if key == "cut"
                && let toml::Value::Table(t) = value
                && t.contains_key("fraction")
            {
                text = format!("fraction:{text}");
            }
            values.push((key.clone(), text));
        }
        let protocol = Protocol::from_keys(&name, &values).map_err(|e| {
            let message = e.to_string();
            let predefined = if message.contains("one of ") { "predefined, " } else { "" };
            D::Error::custom(message.replacen("one of ", &format!("one of {predefined}"), 1))
        })?;
        Ok(ProtocolChoice::Generated(protocol))
    }
}

/// A protocol value as the text [`Protocol::from_keys`] reads: numbers and texts as
/// written; the table spellings `{ count = 331 }`, `{ fraction = 0.2 }`,
/// `{ all-but = 3 }`, `{ at = T }` as `331`, `0.2`, `all-but:3`, `at:T` (`cut` takes
/// `fraction:F` for `{ fraction = F }`).
fn value_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(n) => Some(n.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Table(t) if t.len() == 1 => {
            let (key, inner) = t.iter().next()?;
            let inner = value_text(inner)?;
            Some(match key.as_str() {
                "count" | "n" => inner,
                "fraction" if !inner.contains(':') => inner,
                other => format!("{other}:{inner}"),
            })
        }
        _ => None,
    }
}

/// The test mode and which users are judged.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgmentsConfig {
    /// `implicit`, `rating:T` or `conditional:T` (schein2005 §5).
    #[serde(default = "default_mode")]
    pub mode: String,
    /// Judged users when the protocol designates none: `all` (every user) or
    /// `with-test-events`.
    #[serde(default)]
    pub users: JudgedUsers,
    /// Grade of a positive: `binary` (1) or `rating` (the test rating, for graded NDCG).
    #[serde(default)]
    pub grade: GradeScale,
    /// Users with fewer known events are not judged.
    #[serde(default)]
    pub min_known_events: usize,
    /// Users with more known events are not judged either (none by default).
    #[serde(default)]
    pub max_known_events: Option<usize>,
    /// Which items may be candidates: `protocol` (the protocol's restriction, such as
    /// hidden columns or cold-start test items, when it has one) or `all`.
    #[serde(default)]
    pub items: JudgedItems,
    /// Sampled candidates instead of the full catalog: each judged user's relevant items
    /// and `negatives` items drawn (without replacement, seeded per split and user) from
    /// those it neither knows nor finds relevant, `by = "uniform"` (default) or
    /// `"popularity"`. `recs_sampled` says how far such metrics are from the exact ones.
    #[serde(default)]
    pub sampled: Option<SampledCandidates>,
}

/// Which items may be candidates (`judgments.items`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JudgedItems {
    /// The items the protocol designates ([`recs_split::Split::candidate_items`]), or
    /// every item when it designates none.
    #[default]
    Protocol,
    /// Every item not known for the user, whatever the protocol designates. The
    /// protocol's items stay available to measures ([`crate::Measure::with_split`]):
    /// ignatov2010 §4 ranks every unseen item and counts only the hidden columns.
    All,
}

fn default_mode() -> String {
    "implicit".to_string()
}

impl Default for JudgmentsConfig {
    fn default() -> Self {
        JudgmentsConfig {
            mode: default_mode(),
            users: JudgedUsers::default(),
            grade: GradeScale::default(),
            min_known_events: 0,
            max_known_events: None,
            items: JudgedItems::default(),
            sampled: None,
        }
    }
}

impl JudgmentsConfig {
    /// The judgment options these settings describe.
    ///
    /// # Errors
    /// An invalid mode.
    pub fn options(&self) -> recs_core::Result<JudgmentOptions> {
        let mut options = JudgmentOptions::from_mode(&self.mode)?
            .users(self.users)
            .grade(self.grade)
            .min_known_events(self.min_known_events);
        options.max_known_events = self.max_known_events;
        Ok(options)
    }
}

/// Metrics and how they are computed (definitions: `docs/metrics.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationConfig {
    /// Metric names as `recs eval --metrics` takes them.
    #[serde(default = "default_metrics")]
    pub metrics: Vec<String>,
    /// A candidate is relevant when its grade is at least this.
    #[serde(default = "one_f32")]
    pub rel_threshold: f32,
    /// Equal scores: `expected` (random order, expected value), `item-ascending`,
    /// `item-descending`.
    #[serde(default)]
    pub ties: recs_metrics::TieBreak,
    /// Users without a relevant candidate: `exclude`, `zero` or `ignatov`.
    #[serde(default)]
    pub zero: recs_metrics::ZeroPolicy,
    /// Upper false-alarm rate of the partial AUCs.
    #[serde(default = "default_max_fpr")]
    pub max_fpr: f64,
    /// Lower bounds of user groups by known (training + history) events, e.g.
    /// `[1, 100, 200]`; empty for no breakdown.
    #[serde(default)]
    pub user_groups: Vec<usize>,
    /// The per-user metric broken down by group (default: the first per-user metric).
    pub group_metric: Option<String>,
    /// What users are grouped by: with `user_groups` as lower bounds, `known` events
    /// (training + history, the default), all its `events` in the split (known + test) or
    /// its `age`; without bounds, one group per value of its `gender` or `occupation`
    /// (the dataset's demographics, MovieLens `u.user`).
    #[serde(default)]
    pub group_by: GroupBy,
    /// Also report, per model, the gap between the user groups: the mean absolute
    /// difference of the group means of `group_metric` in each split, its mean over the
    /// splits and a 95% t interval over them (needs two or more `user_groups`).
    #[serde(default)]
    pub group_gap: bool,
    /// Gain offset `d` of linear NDCG: a graded candidate's gain is `grade − d`, the ideal
    /// DCG sums the positive gains only (default 0: gain = grade; see `docs/metrics.md`).
    #[serde(default)]
    pub gain_offset: f32,
    /// Write the first split's judgments and every model's scores as `recs eval` input.
    #[serde(default)]
    pub save_scores: bool,
    /// Marker increments on the ROC and CROC figures (`[roc, croc]`, 0 for none).
    #[serde(default)]
    pub markers: [f64; 2],
    /// Also report `mae` and `rmse` of predicted against actual test ratings, for models
    /// that predict ratings (over the test events of users with training events).
    #[serde(default)]
    pub rating_errors: bool,
    /// Evaluate a full catalog streaming, without listing its candidates, whenever
    /// nothing needs every score (default `true`); `false` lists every candidate (the
    /// same numbers, in memory that grows with users × items).
    #[serde(default = "yes")]
    pub streaming: bool,
    /// Where a streamed evaluation counts: `"cpu"` (default) or `"cuda"`, an NVIDIA GPU
    /// (recs built with the `cuda` feature); the report is the same byte for byte.
    #[serde(default)]
    pub device: EvalDevice,
    /// Memory of a streamed evaluation's block buffers and partial states, in MiB, shared
    /// by every thread (default 1024): more threads share it, they do not multiply it.
    #[serde(default = "default_memory_budget_mib")]
    pub memory_budget_mib: usize,
    /// The popularity head of `aplt@N` and `aclt@N`: the fewest most popular training
    /// items holding this share of the training events (default 0.5, cremonesi2008).
    pub head_share: Option<f64>,
    /// The popularity head as this many most popular training items instead.
    pub head_items: Option<usize>,
    /// How `ild@N` compares two items' attributes (`[dataset] attributes`): `cosine`
    /// (default) or `jaccard`.
    #[serde(default)]
    pub similarity: recs_metrics::Similarity,
    /// Sampled metrics against the exact ones, side by side: for each model and metric,
    /// the exact value over the full catalog, and the value of each estimator (the
    /// uncorrected sampled metric and its corrections) for each seed's draw of negatives,
    /// with their errors; across models, Kendall's τ and the reversed pairs
    /// (`docs/metrics.md`, "Sampled metrics").
    pub sampled_vs_exact: Option<SampledVsExactConfig>,
}

/// `evaluation.sampled_vs_exact`: what `recs eval --sampled-vs-exact` compares, in a
/// configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampledVsExactConfig {
    /// Negatives drawn per judged user (at least 1).
    pub negatives: usize,
    /// How they are drawn: `uniform` (default) or `popularity`.
    #[serde(default)]
    pub by: recs_split::SampleBy,
    /// Draws per split, each with a seed of its own (default 5).
    #[serde(default = "default_versus_seeds")]
    pub seeds: usize,
    /// Metrics of one relevant item's rank (default `auc`, `r@10`, `ndcg@10`, `ap`).
    #[serde(default = "default_versus_metrics")]
    pub metrics: Vec<String>,
    /// Estimators (default `sampled`, `rank-estimate`, `minimal-bias`, `monotone`,
    /// `bv:0.1`).
    #[serde(default = "default_versus_corrections")]
    pub corrections: Vec<String>,
}

fn default_versus_seeds() -> usize {
    5
}

fn default_versus_metrics() -> Vec<String> {
    recs_sampled::versus::DEFAULT_METRICS.split(',').map(String::from).collect()
}

fn default_versus_corrections() -> Vec<String> {
    recs_sampled::versus::DEFAULT_CORRECTIONS.split(',').map(String::from).collect()
}

/// `evaluation.sampled_vs_exact` checked: `Err((key, what was expected))`.
fn check_versus(
    versus: &SampledVsExactConfig,
    judging: &JudgmentOptions,
) -> std::result::Result<SampledVsExact, (String, String)> {
    let key = |k: &str| format!("evaluation.sampled_vs_exact.{k}");
    if versus.negatives == 0 {
        return Err((key("negatives"), "at least 1".into()));
    }
    if versus.seeds == 0 {
        return Err((key("seeds"), "at least 1".into()));
    }
    if judging.candidates != recs_split::CandidateSet::FullCatalog {
        return Err((
            "evaluation.sampled_vs_exact".into(),
            "a full-catalog mode (implicit or rating:T): the exact metric ranks every item".into(),
        ));
    }
    let mut metrics = Vec::new();
    for (at, name) in versus.metrics.iter().enumerate() {
        let metric: recs_sampled::RankMetric = name.to_ascii_lowercase().parse().map_err(|_| {
            (
                key(&format!("metrics[{at}]")),
                format!(
                    "a metric of one relevant item's rank (auc, r@k, p@k, ap, ndcg or \
                     ndcg@k), not {name:?}"
                ),
            )
        })?;
        if !metrics.contains(&metric) {
            metrics.push(metric);
        }
    }
    let mut corrections = Vec::new();
    for (at, name) in versus.corrections.iter().enumerate() {
        let correction: recs_sampled::Correction =
            name.parse().map_err(|e| (key(&format!("corrections[{at}]")), format!("{e}")))?;
        if !corrections.contains(&correction) {
            corrections.push(correction);
        }
    }
    if metrics.is_empty() {
        return Err((key("metrics"), "at least one metric".into()));
    }
    if corrections.is_empty() {
        return Err((key("corrections"), "at least one estimator".into()));
    }
    Ok(SampledVsExact {
        negatives: versus.negatives,
        by: versus.by,
        seeds: versus.seeds,
        metrics,
        corrections,
    })
}

fn default_memory_budget_mib() -> usize {
    crate::runner::DEFAULT_MEMORY_BUDGET >> 20
}

fn yes() -> bool {
    true
}

fn default_metrics() -> Vec<String> {
    ["roc", "croc", "p@10", "r@10", "ndcg@10", "map", "mrr"].map(String::from).to_vec()
}

fn one_f32() -> f32 {
    1.0
}

fn default_max_fpr() -> f64 {
    0.3
}

impl Default for EvaluationConfig {
    fn default() -> Self {
        EvaluationConfig {
            metrics: default_metrics(),
            rel_threshold: 1.0,
            ties: recs_metrics::TieBreak::default(),
            zero: recs_metrics::ZeroPolicy::default(),
            max_fpr: default_max_fpr(),
            user_groups: Vec::new(),
            group_metric: None,
            group_by: GroupBy::default(),
            group_gap: false,
            gain_offset: 0.0,
            save_scores: false,
            markers: [0.0, 0.0],
            rating_errors: false,
            streaming: true,
            device: EvalDevice::Cpu,
            memory_budget_mib: default_memory_budget_mib(),
            head_share: None,
            head_items: None,
            similarity: recs_metrics::Similarity::default(),
            sampled_vs_exact: None,
        }
    }
}

impl EvaluationConfig {
    /// The metric options.
    fn options(&self) -> recs_metrics::Options {
        recs_metrics::Options {
            threshold: self.rel_threshold,
            ties: self.ties,
            zero: self.zero,
            gain_offset: self.gain_offset,
            ..recs_metrics::Options::default()
        }
    }
}

/// Model selection for models with a grid.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionConfig {
    /// The report key maximised on validation (`ndcg@10`, `croc_auc`, ...); it must be
    /// produced by `evaluation.metrics`.
    pub metric: String,
    /// The protocol drawing validation data inside each training part (default: the
    /// experiment's own protocol; required when that is `predefined`).
    pub protocol: Option<ProtocolChoice>,
}

/// One model of the experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Catalog name (`recs score --list` lists them).
    pub name: String,
    /// Name in tables and legends (default: `name`); must be unique.
    pub label: Option<String>,
    /// Fixed parameters.
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    /// Parameters to choose by validation: every combination is tried.
    #[serde(default)]
    pub grid: BTreeMap<String, Vec<toml::Value>>,
    /// A smaller grid for `--quick` runs (keys it gives replace those of `grid`).
    #[serde(default)]
    pub quick_grid: BTreeMap<String, Vec<toml::Value>>,
    /// Order candidates by the ranking score (`score`, the default) or by the predicted
    /// rating (`rating`, for models that predict ratings; users kept out of training are
    /// then scored without their history).
    #[serde(default)]
    pub rank: RankBy,
    /// Draw the model's curves in the figures and store them in `report.json` (default);
    /// `false` for a model that only checks another (a sensitivity variant, a placebo):
    /// its values are in every table, its curves nowhere.
    #[serde(default = "yes")]
    pub figure: bool,
}

impl ModelConfig {
    /// The label in tables and legends.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }

    /// Every parameter combination: the fixed parameters plus one grid point each, in
    /// the order of the grid keys (sorted) and values (as written). With `quick`, the keys
    /// of `quick_grid` replace those of `grid`.
    pub fn combinations(&self, quick: bool) -> Vec<Vec<(String, String)>> {
        let mut grid = self.grid.clone();
        if quick {
            grid.extend(self.quick_grid.clone());
        }
        let fixed: Vec<(String, String)> =
            self.params.iter().map(|(k, v)| (k.clone(), param_text(v))).collect();
        let mut all = vec![fixed];
        for (key, values) in &grid {
            all = all
                .into_iter()
                .flat_map(|base| {
                    values.iter().map(move |v| {
                        let mut next = base.clone();
                        next.push((key.clone(), param_text(v)));
                        next
                    })
                })
                .collect();
        }
        all
    }
}

/// A parameter value as the catalog reads it (text).
fn param_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A statement checked on the results: `better` has a higher mean `metric` than `worse`
/// by more than `margin` (for `mae` and `rmse`, a lower mean by more than `margin`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimConfig {
    /// Short identifier.
    pub id: String,
    /// The statement in words.
    pub statement: String,
    /// Report key compared (`ndcg@10`, `croc_auc`, ...).
    pub metric: String,
    /// Model label expected to score higher.
    pub better: String,
    /// Model label expected to score lower.
    pub worse: String,
    /// Required difference of the means.
    #[serde(default)]
    pub margin: f64,
}

/// Paired comparisons of the models over the users of each split: the family of
/// `recs compare` (`recs_stats::family`), its keys and defaults those of `recs compare`'s
/// flags (`docs/runner.md`, `[comparison]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComparisonConfig {
    /// The paired tests, as `recs compare --tests` names them: `t`, `wilcoxon`, `sign`,
    /// `fisher`, `bootstrap`. The first marks significance (unless `tukey`).
    #[serde(default = "default_tests")]
    pub tests: Vec<String>,
    /// The adjustment of each test's p-values over the whole family: `holm`,
    /// `bonferroni`, `bh` (Benjamini–Hochberg) or `none`.
    #[serde(default = "default_adjust")]
    pub adjust: String,
    /// A model label: every other model against it, instead of all pairs.
    pub baseline: Option<String>,
    /// The randomised Tukey HSD of each metric on each split (all pairs only); it then
    /// marks significance.
    #[serde(default)]
    pub tukey: bool,
    /// Sign-flip permutations of Fisher's randomisation test and of the Tukey HSD.
    #[serde(default = "default_permutations")]
    pub permutations: usize,
    /// Resamples of the paired bootstrap.
    #[serde(default = "default_resamples")]
    pub resamples: usize,
    /// Seed of every randomised statistic (default: derived from the run's seed).
    pub seed: Option<u64>,
    /// Significance level of the `better` column.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// The per-user metrics compared (default: every per-user mean of
    /// `evaluation.metrics`, in its order).
    pub metrics: Option<Vec<String>>,
}

fn default_tests() -> Vec<String> {
    Settings::default().tests.iter().map(|t| t.key().to_string()).collect()
}

fn default_adjust() -> String {
    adjustment_key(Settings::default().adjustment).to_string()
}

fn default_permutations() -> usize {
    Settings::default().permutations
}

fn default_resamples() -> usize {
    Settings::default().resamples
}

fn default_alpha() -> f64 {
    Settings::default().alpha
}

impl Default for ComparisonConfig {
    /// `recs compare`'s defaults: the t-test and Fisher's randomisation test, Holm, all
    /// pairs, 10,000 permutations and resamples, no Tukey HSD, `alpha = 0.05`, the seed
    /// derived from the run's, every per-user metric.
    fn default() -> Self {
        ComparisonConfig {
            tests: default_tests(),
            adjust: default_adjust(),
            baseline: None,
            tukey: false,
            permutations: default_permutations(),
            resamples: default_resamples(),
            seed: None,
            alpha: default_alpha(),
            metrics: None,
        }
    }
}

impl ComparisonConfig {
    /// The checked comparison among the models labelled `labels`, on the per-user means of
    /// `metrics` (the evaluation's), or the offending key and what it allows.
    fn check(
        &self,
        metrics: &[Metric],
        labels: &[&str],
    ) -> Result<ComparisonPlan, (String, String)> {
        let at = |key: &str, message: String| Err((format!("comparison{key}"), message));
        if labels.len() < 2 {
            return at("", format!("at least 2 models to compare, found {}", labels.len()));
        }
        if self.tests.is_empty() {
            let allowed: Vec<&str> = Test::ALL.iter().map(|t| t.key()).collect();
            return at(".tests", format!("at least one test: {}", allowed.join(", ")));
        }
        let mut tests: Vec<Test> = Vec::with_capacity(self.tests.len());
        for (i, name) in self.tests.iter().enumerate() {
            let test: Test = match name.parse() {
                Ok(test) => test,
                Err(e) => return at(&format!(".tests[{i}]"), e.to_string()),
            };
            if tests.contains(&test) {
                return at(&format!(".tests[{i}]"), format!("the test {test} is named twice"));
            }
            tests.push(test);
        }
        let adjustment = match parse_adjustment(&self.adjust) {
            Ok(adjustment) => adjustment,
            Err(e) => return at(".adjust", e.to_string()),
        };
        let pairs = match &self.baseline {
            None => Pairs::All,
            Some(label) => match labels.iter().position(|l| l == label) {
                Some(b) => Pairs::Baseline(b),
                None => {
                    return at(
                        ".baseline",
                        format!("`{label}` is not a model label: {}", labels.join(", ")),
                    );
                }
            },
        };
        if self.tukey && pairs != Pairs::All {
            return at(
                ".tukey",
                "the randomised Tukey HSD compares all pairs: drop `baseline`, or set \
                 `tukey = false`"
                    .into(),
            );
        }
        if self.permutations == 0 {
            return at(".permutations", "at least 1".into());
        }
        if self.resamples == 0 {
            return at(".resamples", "at least 1".into());
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return at(".alpha", format!("a level strictly between 0 and 1, not {}", self.alpha));
        }
        let computed: Vec<Metric> = metrics.iter().copied().filter(Metric::is_user_mean).collect();
        let names: Vec<String> = computed.iter().map(Metric::to_string).collect();
        let compared = match &self.metrics {
            None if computed.is_empty() => {
                return at(
                    ".metrics",
                    format!(
                        "evaluation.metrics has no per-user metric ({}) to compare",
                        Metric::USER_MEANS
                    ),
                );
            }
            None => computed,
            Some(list) if list.is_empty() => {
                return at(".metrics", format!("at least one of {}", names.join(", ")));
            }
            Some(list) => {
                let mut compared: Vec<Metric> = Vec::with_capacity(list.len());
                for (i, name) in list.iter().enumerate() {
                    let key = format!(".metrics[{i}]");
                    let metric: Metric = match name.parse() {
                        Ok(metric) => metric,
                        Err(e) => return at(&key, e.to_string()),
                    };
                    let which = if names.is_empty() {
                        format!("none is a per-user metric ({})", Metric::USER_MEANS)
                    } else {
                        format!("the per-user ones are {}", names.join(", "))
                    };
                    if !metric.is_user_mean() {
                        return at(
                            &key,
                            format!(
                                "{metric} is not a mean of per-user values, so it has no paired \
                                 test; of evaluation.metrics, {which}"
                            ),
                        );
                    }
                    if !computed.contains(&metric) {
                        return at(
                            &key,
                            format!("{metric} is not in evaluation.metrics; of those, {which}"),
                        );
                    }
                    if compared.contains(&metric) {
                        return at(&key, format!("{metric} is named twice"));
                    }
                    compared.push(metric);
                }
                compared
            }
        };
        let settings = Settings {
            tests,
            adjustment,
            permutations: self.permutations,
            resamples: self.resamples,
            seed: self.seed.unwrap_or(0),
            tukey: self.tukey,
            alpha: self.alpha,
        };
        if let Err(e) = settings.check(pairs) {
            return at("", e.to_string());
        }
        Ok(ComparisonPlan { settings, seed: self.seed, pairs, metrics: compared })
    }
}

impl Config {
    /// Reads a configuration file; relative paths in it are resolved against its folder.
    ///
    /// # Errors
    /// An unreadable file, or as [`Config::from_toml`].
    pub fn from_file(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            BenchError::config(path.display().to_string(), "", format!("cannot read: {e}"))
        })?;
        let mut config = Config::from_toml(&text, &path.display().to_string())?;
        config.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(config)
    }

    /// Parses a configuration; `source_name` names it in errors. Nothing is cross-checked
    /// yet: [`Config::check`] does that.
    ///
    /// # Errors
    /// [`BenchError::Config`] naming the key path: TOML syntax, an unknown key, a value of
    /// the wrong type or outside the allowed set.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Config> {
        let deserializer = toml::Deserializer::parse(text)
            .map_err(|e| BenchError::config(source_name, "", e.to_string().trim_end()))?;
        serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { String::new() } else { key };
            BenchError::config(source_name, key, e.into_inner().to_string().trim_end())
        })
    }

    /// Checks everything serde cannot — names, parameters, metric keys, references between
    /// sections — and returns the checked [`Plan`]; `source` names the configuration in
    /// errors.
    ///
    /// # Errors
    /// [`BenchError::Config`] naming the key path: an unknown model or metric, a parameter
    /// the model rejects, inconsistent selection or claims, a dataset given twice or not
    /// at all.
    pub fn check(&self, source: &str) -> Result<Plan> {
        let err = |key: &str, message: String| BenchError::config(source, key, message);
        if self.name.trim().is_empty() || self.name.contains(['/', '\\']) {
            return Err(err("name", "a non-empty name without path separators".into()));
        }
        if self.repetitions == 0 {
            return Err(err("repetitions", "at least 1".into()));
        }
        let dataset = self.dataset_source().map_err(|(key, message)| err(key, message))?;
        let mut judging = JudgmentOptions::from_mode(&self.judgments.mode)
            .map_err(|e| err("judgments.mode", e.to_string()))?
            .users(self.judgments.users)
            .grade(self.judgments.grade)
            .min_known_events(self.judgments.min_known_events);
        judging.max_known_events = self.judgments.max_known_events;
        if self.judgments.max_known_events.is_some_and(|max| max < self.judgments.min_known_events)
        {
            return Err(err(
                "judgments.max_known_events",
                format!("at least min_known_events ({})", self.judgments.min_known_events),
            ));
        }
        if let Some(sampled) = self.judgments.sampled {
            if sampled.negatives == 0 {
                return Err(err("judgments.sampled.negatives", "at least 1".into()));
            }
            if judging.candidates != recs_split::CandidateSet::FullCatalog {
                return Err(err(
                    "judgments.sampled",
                    "a full-catalog mode (implicit or rating:T) to sample negatives from".into(),
                ));
            }
        }
        let evaluation = &self.evaluation;
        let mut metrics = Vec::with_capacity(evaluation.metrics.len());
        let mut corrected = Vec::new();
        for (at, name) in evaluation.metrics.iter().enumerate() {
            let key = format!("evaluation.metrics[{at}]");
            if crate::corrected::is_corrected(name) {
                let threshold = evaluation.options().threshold;
                let measure =
                    crate::corrected::measure(name, self.judgments.sampled, &judging, threshold)
                        .map_err(|message| err(&key, message))?;
                corrected.push(measure);
                continue;
            }
            let metric: Metric =
                name.parse().map_err(|e: recs_metrics::MetricsError| err(&key, e.to_string()))?;
            metrics.push(metric);
        }
        if metrics.is_empty() {
            return Err(err(
                "evaluation.metrics",
                "at least one metric besides the corrected sampled ones".into(),
            ));
        }
        if !(evaluation.max_fpr > 0.0 && evaluation.max_fpr <= 1.0) {
            return Err(err("evaluation.max_fpr", "a rate in (0, 1]".into()));
        }
        if !(evaluation.gain_offset.is_finite() && evaluation.gain_offset >= 0.0) {
            return Err(err("evaluation.gain_offset", "a finite number >= 0".into()));
        }
        if evaluation.device.is_cuda() && !cfg!(feature = "cuda") {
            return Err(err(
                "evaluation.device",
                "\"cpu\": this build has no GPU support (build recs with `--features cuda`)".into(),
            ));
        }
        let head = match (evaluation.head_share, evaluation.head_items) {
            (Some(_), Some(_)) => {
                return Err(err(
                    "evaluation.head_items",
                    "absent when evaluation.head_share is given (one head rule)".into(),
                ));
            }
            (Some(share), None) if !(share > 0.0 && share <= 1.0) => {
                return Err(err("evaluation.head_share", "a share in (0, 1]".into()));
            }
            (Some(share), None) => recs_metrics::HeadRule::Share(share),
            (None, Some(0)) => return Err(err("evaluation.head_items", "at least 1".into())),
            (None, Some(n)) => recs_metrics::HeadRule::Items(n),
            (None, None) => recs_metrics::HeadRule::default(),
        };
        if let Some(m) = metrics.iter().find(|m| m.needs_attributes())
            && self.dataset.attributes.is_none()
        {
            return Err(err(
                "dataset.attributes",
                format!("the item attributes {m} reads (\"genres\" or \"cast\")"),
            ));
        }
        if evaluation.memory_budget_mib == 0 {
            return Err(err("evaluation.memory_budget_mib", "at least 1 (MiB)".into()));
        }
        if evaluation.user_groups.windows(2).any(|w| w[0] >= w[1]) {
            return Err(err("evaluation.user_groups", "strictly increasing bounds".into()));
        }
        let per_user = per_user_metrics(&metrics);
        let per_user_names: Vec<String> = per_user.iter().map(Metric::to_string).collect();
        let group_metric = match &evaluation.group_metric {
            Some(name) => match per_user.iter().find(|m| m.to_string() == *name) {
                Some(m) => Some(*m),
                None => {
                    return Err(err(
                        "evaluation.group_metric",
                        format!(
                            "a per-user metric of evaluation.metrics: {}",
                            per_user_names.join(", ")
                        ),
                    ));
                }
            },
            None => per_user.first().copied(),
        };
        let categorical = evaluation.group_by.is_categorical();
        if categorical && !evaluation.user_groups.is_empty() {
            return Err(err(
                "evaluation.user_groups",
                format!(
                    "none: group_by = \"{}\" groups users by its values",
                    evaluation.group_by.axis()
                ),
            ));
        }
        if evaluation.group_by == GroupBy::Age && evaluation.user_groups.is_empty() {
            return Err(err(
                "evaluation.group_by",
                "\"age\" with evaluation.user_groups, the lower bounds of the age groups".into(),
            ));
        }
        let grouped = categorical || !evaluation.user_groups.is_empty();
        if evaluation.group_gap && !categorical && evaluation.user_groups.len() < 2 {
            return Err(err(
                "evaluation.group_gap",
                "two or more groups in evaluation.user_groups, whose gap it measures".into(),
            ));
        }
        if grouped && group_metric.is_none() {
            return Err(err(
                "evaluation.user_groups",
                "a per-user metric (p@N, ndcg@K, ...) in evaluation.metrics".into(),
            ));
        }
        let sampled_vs_exact = match &evaluation.sampled_vs_exact {
            Some(versus) => Some(check_versus(versus, &judging).map_err(|(k, m)| err(&k, m))?),
            None => None,
        };
        let mut plan = Plan {
            name: self.name.clone(),
            title: self.title.clone().unwrap_or_else(|| self.name.clone()),
            description: self.description.clone(),
            seed: self.seed,
            repetitions: self.repetitions,
            dataset,
            binary: self.dataset.binary,
            attributes: self.dataset.attributes,
            protocol: self.protocol.clone(),
            judging,
            judge_all_items: self.judgments.items == JudgedItems::All,
            sampled: self.judgments.sampled,
            mode: match self.judgments.sampled {
                None => self.judgments.mode.clone(),
                Some(s) => format!(
                    "{}, sampled candidates: relevant items and {} negatives drawn {}",
                    self.judgments.mode,
                    s.negatives,
                    match s.by {
                        recs_split::SampleBy::Uniform => "uniformly",
                        recs_split::SampleBy::Popularity => "by popularity",
                    }
                ),
            },
            metrics,
            options: evaluation.options(),
            head,
            similarity: evaluation.similarity,
            max_fpr: evaluation.max_fpr,
            rating_errors: evaluation.rating_errors,
            user_groups: evaluation.user_groups.clone(),
            group_metric: group_metric.filter(|_| grouped),
            group_by: evaluation.group_by,
            group_gap: evaluation.group_gap,
            save_scores: evaluation.save_scores,
            streaming: evaluation.streaming,
            memory_budget: mib_bytes(evaluation.memory_budget_mib),
            device: evaluation.device,
            markers: evaluation.markers,
            selection: None,
            models: Vec::with_capacity(self.models.len()),
            claims: Vec::with_capacity(self.claims.len()),
            measures: Vec::new(),
            keep_judgments: false,
            comparison: None,
            sampled_vs_exact,
        };
        for measure in corrected {
            plan = plan.with_measure(measure).map_err(|_| {
                err("evaluation.metrics", "a corrected sampled metric named twice".into())
            })?;
        }
        let keys = plan.keys();
        if self.models.is_empty() {
            return Err(err("models", "at least one [[models]] entry".into()));
        }
        let mut has_grid = false;
        for (i, model) in self.models.iter().enumerate() {
            let checked = check_model(model, i).map_err(|(key, message)| err(&key, message))?;
            if plan.models.iter().any(|m| m.label == checked.label) {
                return Err(err(
                    &format!("models[{i}]"),
                    format!("the label `{}` is used twice; give each a `label`", checked.label),
                ));
            }
            has_grid |= checked.combinations.len() > 1 || checked.quick_combinations.len() > 1;
            plan.models.push(checked);
        }
        plan.selection = match &self.selection {
            Some(selection) => {
                if plan.lower_is_better(&selection.metric) {
                    return Err(err(
                        "selection.metric",
                        "a metric to maximise (ranking metrics or AUCs), not an error".into(),
                    ));
                }
                if !metric_keys(&plan.metrics, plan.max_fpr).contains(&selection.metric) {
                    return Err(err(
                        "selection.metric",
                        format!("a key produced by evaluation.metrics: {}", keys.join(", ")),
                    ));
                }
                let protocol = match (&selection.protocol, &self.protocol) {
                    (Some(ProtocolChoice::Generated(p)), _)
                    | (None, ProtocolChoice::Generated(p)) => p.clone(),
                    (
                        Some(ProtocolChoice::Predefined | ProtocolChoice::PredefinedNewUsers(_)),
                        _,
                    ) => {
                        return Err(err(
                            "selection.protocol",
                            "a generated protocol; `predefined` cannot be drawn inside training"
                                .into(),
                        ));
                    }
                    (None, ProtocolChoice::Predefined | ProtocolChoice::PredefinedNewUsers(_)) => {
                        return Err(err(
                            "selection.protocol",
                            "required with the `predefined` protocol (validation data is drawn \
                             inside the training part)"
                                .into(),
                        ));
                    }
                };
                Some(Selection { key: selection.metric.clone(), protocol })
            }
            None if has_grid => {
                return Err(err(
                    "selection",
                    "a model has a grid: give [selection] with the metric to maximise".into(),
                ));
            }
            None => None,
        };
        let labels = plan.model_labels().join(", ");
        for (i, claim) in self.claims.iter().enumerate() {
            if plan.claims.iter().any(|c| c.id == claim.id) {
                return Err(err(
                    &format!("claims[{i}].id"),
                    format!("`{}` is used twice", claim.id),
                ));
            }
            let key = keys.iter().position(|k| *k == claim.metric).ok_or_else(|| {
                err(
                    &format!("claims[{i}].metric"),
                    format!("a key produced by evaluation.metrics: {}", keys.join(", ")),
                )
            })?;
            let model = |field: &str, label: &str| {
                plan.models.iter().position(|m| m.label == label).ok_or_else(|| {
                    err(&format!("claims[{i}].{field}"), format!("a model label: {labels}"))
                })
            };
            let better = model("better", &claim.better)?;
            let worse = model("worse", &claim.worse)?;
            plan.claims.push(ClaimPlan {
                id: claim.id.clone(),
                statement: claim.statement.clone(),
                key,
                better,
                worse,
                margin: claim.margin,
            });
        }
        if let Some(comparison) = &self.comparison {
            let labels = plan.model_labels();
            let checked = comparison
                .check(&plan.metrics, &labels)
                .map_err(|(key, message)| err(&key, message))?;
            plan.comparison = Some(checked);
        }
        Ok(plan)
    }

    /// The dataset section as a source, or the offending key and what is expected.
    fn dataset_source(&self) -> Result<DatasetSource, (&'static str, String)> {
        let spec = &self.dataset;
        let given = [spec.name.is_some(), spec.file.is_some(), spec.synthetic.is_some()];
        match given.iter().filter(|&&g| g).count() {
            0 => return Err(("dataset", "give `name`, `file` or `synthetic`".into())),
            1 => {}
            _ => return Err(("dataset", "give one of `name`, `file` and `synthetic`".into())),
        }
        if spec.file.is_none() && spec.test_file.is_some() {
            return Err(("dataset.test_file", "needs `file`".into()));
        }
        if spec.name.is_none() && spec.case_ids.is_some() {
            return Err(("dataset.case_ids", "needs `name = \"msweb\"`".into()));
        }
        if let Some(generator) = &spec.synthetic {
            return match generator.as_str() {
                "ignatov-blocks" => Ok(DatasetSource::Synthetic(Synthetic::IgnatovBlocks)),
                "ignatov-blocks-overlapping" => {
                    Ok(DatasetSource::Synthetic(Synthetic::IgnatovBlocksOverlapping))
                }
                other => Err((
                    "dataset.synthetic",
                    format!(
                        "unknown generator `{other}` (known: ignatov-blocks, \
                         ignatov-blocks-overlapping)"
                    ),
                )),
            };
        }
        match (&spec.name, &spec.file) {
            (Some(name), _) => {
                let case_ids = match spec.case_ids.as_deref() {
                    None => recs_data::CaseIds::default(),
                    Some(text) => {
                        let case_ids = text
                            .parse::<recs_data::CaseIds>()
                            .map_err(|e| ("dataset.case_ids", format!("{e} (an msweb reading)")))?;
                        if name != "msweb" && case_ids != recs_data::CaseIds::default() {
                            return Err((
                                "dataset.case_ids",
                                format!("`separate` reads msweb only, not `{name}`"),
                            ));
                        }
                        case_ids
                    }
                };
                Ok(DatasetSource::Named(name.clone(), case_ids))
            }
            (None, None) => Err(("dataset", "give `name`, `file` or `synthetic`".into())),
            (None, Some(file)) => {
                let format = recs_data::DelimitedFormat::from_options(
                    &spec.delimiter,
                    spec.header,
                    spec.implicit,
                    spec.timestamps,
                )
                .map_err(|e| ("dataset.delimiter", e.to_string()))?;
                Ok(DatasetSource::Files {
                    train: self.resolve_path(file),
                    test: spec.test_file.as_ref().map(|t| self.resolve_path(t)),
                    format,
                })
            }
        }
    }

    /// A path of the configuration, resolved against its folder.
    fn resolve_path(&self, path: &Path) -> PathBuf {
        if path.is_absolute() { path.to_path_buf() } else { self.base_dir.join(path) }
    }
}

/// Checks one model entry: its name, label, parameters and grid, every combination
/// validated by the model's catalog entry. Errors give the key path and the message.
fn check_model(model: &ModelConfig, i: usize) -> Result<ModelPlan, (String, String)> {
    let entry = crate::registry::find(&model.name)
        .map_err(|e| (format!("models[{i}].name"), e.to_string()))?;
    for (section, grid) in [("grid", &model.grid), ("quick_grid", &model.quick_grid)] {
        if let Some(key) = grid.keys().find(|k| model.params.contains_key(*k)) {
            return Err((format!("models[{i}].{section}.{key}"), "also in `params`".into()));
        }
        if let Some((key, _)) = grid.iter().find(|(_, v)| v.is_empty()) {
            return Err((format!("models[{i}].{section}.{key}"), "at least one value".into()));
        }
    }
    for (key, value) in &model.params {
        if matches!(value, toml::Value::Array(_) | toml::Value::Table(_)) {
            return Err((
                format!("models[{i}].params.{key}"),
                "a single value (use `grid` to try several)".into(),
            ));
        }
    }
    let combinations = model.combinations(false);
    let quick_combinations = model.combinations(true);
    for combination in combinations.iter().chain(&quick_combinations) {
        let mut values = ParamValues::new();
        for (k, v) in combination {
            values.set(k, v.clone());
        }
        if let Err(e) = entry.build_checked(&values) {
            let message = e.to_string();
            let key = combination
                .iter()
                .find(|(k, _)| message.contains(k.as_str()))
                .map(|(k, _)| {
                    let section = if model.quick_grid.contains_key(k) && !model.grid.contains_key(k)
                    {
                        "quick_grid"
                    } else if model.grid.contains_key(k) {
                        "grid"
                    } else {
                        "params"
                    };
                    format!("models[{i}].{section}.{k}")
                })
                .unwrap_or_else(|| format!("models[{i}].params"));
            return Err((key, message));
        }
    }
    let mut varying: Vec<&String> =
        model.grid.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k).collect();
    varying.dedup();
    Ok(ModelPlan {
        name: model.name.clone(),
        label: model.label().to_string(),
        combinations,
        quick_combinations,
        rank: model.rank,
        figure: model.figure,
        varying: match varying.as_slice() {
            [key] => Some((*key).clone()),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_split::Amount;

    const BASE: &str = include_str!("../tests/configs/config-base.toml");

    fn parse(text: &str) -> Result<Plan> {
        Config::from_toml(text, "t.toml")?.check("t.toml")
    }

    fn error_of(text: &str) -> (String, String) {
        match parse(text) {
            Err(BenchError::Config { key, message, .. }) => (key, message),
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }

    #[test]
    fn sampled_candidates_are_checked_and_named_in_the_mode() {
        let with = |table: &str| format!("{BASE}[judgments]\nsampled = {table}\n");
        let plan = parse(&with("{ negatives = 99 }")).unwrap();
        assert_eq!(
            plan.sampled,
            Some(SampledCandidates { negatives: 99, by: recs_split::SampleBy::Uniform })
        );
        assert!(plan.mode.contains("99 negatives drawn uniformly"), "{}", plan.mode);
        let by_pop = parse(&with("{ negatives = 5, by = \"popularity\" }")).unwrap();
        assert!(by_pop.mode.contains("by popularity"), "{}", by_pop.mode);
        assert_eq!(error_of(&with("{ negatives = 0 }")).0, "judgments.sampled.negatives");
        let conditional =
            format!("{BASE}[judgments]\nmode = \"conditional:4\"\nsampled = {{ negatives = 5 }}\n");
        assert_eq!(error_of(&conditional).0, "judgments.sampled");
        assert!(Config::from_toml(&with("{ negatives = 5, seed = 3 }"), "t.toml").is_err());
    }

    #[test]
    fn sampled_against_exact_is_checked_with_its_defaults() {
        let with = |table: &str| format!("{BASE}[evaluation]\nsampled_vs_exact = {table}\n");
        let plan = parse(&with("{ negatives = 100 }")).unwrap();
        let versus = plan.sampled_vs_exact.unwrap();
        assert_eq!(
            (versus.negatives, versus.by, versus.seeds),
            (100, recs_split::SampleBy::Uniform, 5)
        );
        let names = |v: &[String]| v.join(",");
        let metrics: Vec<String> = versus.metrics.iter().map(ToString::to_string).collect();
        assert_eq!(names(&metrics), recs_sampled::versus::DEFAULT_METRICS);
        let corrections: Vec<String> = versus.corrections.iter().map(ToString::to_string).collect();
        assert_eq!(names(&corrections), recs_sampled::versus::DEFAULT_CORRECTIONS);
        let key = "evaluation.sampled_vs_exact";
        assert_eq!(error_of(&with("{ negatives = 0 }")).0, format!("{key}.negatives"));
        assert_eq!(error_of(&with("{ negatives = 5, seeds = 0 }")).0, format!("{key}.seeds"));
        let (at, message) = error_of(&with("{ negatives = 5, metrics = [\"auc\", \"map\"] }"));
        assert_eq!(at, format!("{key}.metrics[1]"));
        assert!(message.contains("\"map\""), "{message}");
        let (at, message) = error_of(&with("{ negatives = 5, corrections = [\"bv:2\"] }"));
        assert_eq!(at, format!("{key}.corrections[0]"));
        assert!(message.contains("bv:2"), "{message}");
        let conditional = with("{ negatives = 5 }")
            .replace("[evaluation]", "[judgments]\nmode = \"conditional:4\"\n\n[evaluation]");
        assert_eq!(error_of(&conditional).0, key);
    }

    #[test]
    fn a_minimal_configuration_gets_the_defaults() {
        let config = parse(BASE).unwrap();
        assert_eq!(config.seed, 42);
        assert_eq!(config.repetitions, 1);
        assert_eq!(
            config.protocol,
            ProtocolChoice::Generated(Protocol::LeaveKOut {
                k: Amount::Fraction(0.2),
                min_train: 1
            })
        );
        assert_eq!(config.judging, JudgmentOptions::implicit());
        let defaults: Vec<String> = config.metrics.iter().map(Metric::to_string).collect();
        assert_eq!(defaults, default_metrics());
        assert!(config.selection.is_none());
    }

    #[test]
    fn amounts_take_every_spelling() {
        for (text, amount) in [
            ("k = 3", Amount::Count(3)),
            ("k = 0.25", Amount::Fraction(0.25)),
            ("k = \"25%\"", Amount::Fraction(0.25)),
            ("k = { fraction = 0.5 }", Amount::Fraction(0.5)),
        ] {
            let config = parse(&BASE.replace("k = \"20%\"", text)).unwrap();
            assert_eq!(
                config.protocol,
                ProtocolChoice::Generated(Protocol::LeaveKOut { k: amount, min_train: 1 }),
                "{text}"
            );
        }
    }

    #[test]
    fn unknown_keys_name_their_path_and_the_allowed_keys() {
        let (key, message) = error_of(&format!("{BASE}\n[evaluation]\nmetric = [\"p@1\"]\n"));
        assert_eq!(key, "evaluation.metric");
        assert!(
            message.contains("unknown field `metric`") && message.contains("metrics"),
            "{message}"
        );

        let (key, message) = error_of(&BASE.replace("min_train = 1", "min_tran = 1"));
        assert_eq!(key, "protocol");
        assert!(message.contains("min_tran") && message.contains("min_train"), "{message}");

        let (key, message) = error_of(&BASE.replace("leave-k-out", "leave-some-out"));
        assert_eq!(key, "protocol");
        assert!(
            message.contains("leave-some-out") && message.contains("kfold-events"),
            "{message}"
        );

        let (key, message) = error_of(&format!(
            "{BASE}\n[[models]]\nname = \"item-pop\"\nlabel = \"b\"\nparms = {{}}\n"
        ));
        assert_eq!(key, "models[1].parms");
        assert!(message.contains("parms") && message.contains("grid"), "{message}");
    }

    #[test]
    fn bad_values_name_their_path() {
        let (key, message) = error_of(&format!("{BASE}\n[judgments]\nusers = \"some\"\n"));
        assert_eq!(key, "judgments.users");
        assert!(message.contains("with-test-events"), "{message}");

        let (key, _) = error_of(&format!("{BASE}\n[judgments]\nmode = \"rating\"\n"));
        assert_eq!(key, "judgments.mode");

        let (key, message) =
            error_of(&format!("{BASE}\n[evaluation]\nmetrics = [\"roc\", \"ndgc@10\"]\n"));
        assert_eq!(key, "evaluation.metrics[1]");
        assert!(message.contains("ndgc@10"), "{message}");

        let (key, message) = error_of(&BASE.replace("name = \"item-pop\"", "name = \"itempop\""));
        assert_eq!(key, "models[0].name");
        assert!(message.contains("item-pop"), "{message}");

        let (key, _) = error_of(&BASE.replace("k = \"20%\"", "k = 1.5"));
        assert_eq!(key, "protocol");

        let (key, _) = error_of(&BASE.replace("name = \"t\"", "name = \"t\"\nrepetitions = -1"));
        assert_eq!(key, "repetitions");
    }

    #[test]
    fn a_dataset_comes_from_exactly_one_source() {
        let synthetic =
            BASE.replace("name = \"ml-100k\"", "synthetic = \"ignatov-blocks\"\nbinary = true");
        let plan = parse(&synthetic).unwrap();
        assert_eq!(plan.dataset, DatasetSource::Synthetic(Synthetic::IgnatovBlocks));
        assert!(plan.binary);
        assert!(!parse(BASE).unwrap().binary);
        let overlapping =
            BASE.replace("name = \"ml-100k\"", "synthetic = \"ignatov-blocks-overlapping\"");
        assert_eq!(
            parse(&overlapping).unwrap().dataset,
            DatasetSource::Synthetic(Synthetic::IgnatovBlocksOverlapping)
        );

        let (key, message) =
            error_of(&BASE.replace("name = \"ml-100k\"", "synthetic = \"blocks\""));
        assert_eq!(key, "dataset.synthetic");
        assert!(message.contains("ignatov-blocks"), "{message}");
        let both = BASE
            .replace("name = \"ml-100k\"", "name = \"ml-100k\"\nsynthetic = \"ignatov-blocks\"");
        let (key, message) = error_of(&both);
        assert_eq!(key, "dataset");
        assert!(message.contains("synthetic"), "{message}");
        let (key, _) = error_of(&BASE.replace("name = \"ml-100k\"", "test_file = \"t.tsv\""));
        assert_eq!(key, "dataset");
    }

    #[test]
    fn judged_items_follow_the_protocol_unless_all_are_asked() {
        assert!(!parse(BASE).unwrap().judge_all_items);
        let all = parse(&format!("{BASE}\n[judgments]\nitems = \"all\"\n")).unwrap();
        assert!(all.judge_all_items);
        let (key, message) = error_of(&format!("{BASE}\n[judgments]\nitems = \"hidden\"\n"));
        assert_eq!(key, "judgments.items");
        assert!(message.contains("protocol") && message.contains("all"), "{message}");
    }

    #[test]
    fn model_parameters_are_checked_by_the_model() {
        let text = format!("{BASE}\n[[models]]\nname = \"puresvd\"\nparams = {{ rank = 0 }}\n");
        let (key, message) = error_of(&text);
        assert_eq!(key, "models[1].params.rank", "{message}");
        let text = format!(
            "{BASE}\n[selection]\nmetric = \"ndcg@10\"\n[[models]]\nname = \"puresvd\"\ngrid = {{ rank = [5, 0] }}\n"
        );
        let (key, _) = error_of(&text);
        assert_eq!(key, "models[1].grid.rank");
    }

    #[test]
    fn grids_need_a_selection_metric_that_is_computed() {
        let grid = format!("{BASE}\n[[models]]\nname = \"puresvd\"\ngrid = {{ rank = [5, 10] }}\n");
        assert_eq!(error_of(&grid).0, "selection");
        let wrong = format!("{grid}\n[selection]\nmetric = \"ndcg@5\"\n");
        assert_eq!(error_of(&wrong).0, "selection.metric");
        let good = parse(&format!("{grid}\n[selection]\nmetric = \"croc_auc\"\n")).unwrap();
        let combos = good.models[1].combinations.clone();
        assert_eq!(
            combos,
            vec![
                vec![("rank".to_string(), "5".to_string())],
                vec![("rank".to_string(), "10".to_string())]
            ]
        );
    }

    #[test]
    fn grids_combine_in_key_order_with_fixed_parameters() {
        let model: ModelConfig = toml::from_str(
            "name = \"als\"\nparams = { lambda = 0.1 }\ngrid = { factors = [8, 16], seed = [1, 2] }",
        )
        .unwrap();
        let combos: Vec<String> = model
            .combinations(false)
            .iter()
            .map(|c| c.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","))
            .collect();
        assert_eq!(
            combos,
            [
                "lambda=0.1,factors=8,seed=1",
                "lambda=0.1,factors=8,seed=2",
                "lambda=0.1,factors=16,seed=1",
                "lambda=0.1,factors=16,seed=2"
            ]
        );
    }

    #[test]
    fn predefined_with_given_reads_the_test_users_as_new_people() {
        let with = |given: &str| {
            BASE.replace(
                "protocol = \"leave-k-out\"\nk = \"20%\"\nmin_train = 1",
                &format!("protocol = \"predefined\"\ngiven = {given}"),
            )
        };
        let plan = parse(&with("\"all-but:1\"")).unwrap();
        assert_eq!(plan.protocol, ProtocolChoice::PredefinedNewUsers(recs_split::Given::AllBut(1)));
        let table = parse(&with("{ all-but = 2 }")).unwrap();
        assert_eq!(
            table.protocol,
            ProtocolChoice::PredefinedNewUsers(recs_split::Given::AllBut(2))
        );
        let (key, message) = error_of(&with("\"all-but:x\""));
        assert_eq!(key, "protocol");
        assert!(message.contains("all-but:N"), "{message}");
    }

    #[test]
    fn case_ids_are_an_msweb_reading() {
        let msweb = BASE.replace("name = \"ml-100k\"", "name = \"msweb\"\ncase_ids = \"separate\"");
        assert!(matches!(
            parse(&msweb).unwrap().dataset,
            DatasetSource::Named(_, recs_data::CaseIds::Separate)
        ));
        let other =
            BASE.replace("name = \"ml-100k\"", "name = \"ml-100k\"\ncase_ids = \"separate\"");
        let (key, message) = error_of(&other);
        assert_eq!(key, "dataset.case_ids");
        assert!(message.contains("msweb only"), "{message}");
        let unknown = BASE.replace("name = \"ml-100k\"", "name = \"msweb\"\ncase_ids = \"other\"");
        let (key, message) = error_of(&unknown);
        assert_eq!(key, "dataset.case_ids");
        assert!(message.contains("`same` or `separate`"), "{message}");
        let file = BASE.replace("name = \"ml-100k\"", "file = \"u.data\"\ncase_ids = \"same\"");
        assert_eq!(error_of(&file).0, "dataset.case_ids");
    }

    #[test]
    fn predefined_protocols_take_no_options_and_need_a_selection_protocol() {
        let predefined = BASE.replace(
            "protocol = \"leave-k-out\"\nk = \"20%\"\nmin_train = 1",
            "protocol = \"predefined\"",
        );
        assert_eq!(parse(&predefined).unwrap().protocol, ProtocolChoice::Predefined);
        let (key, message) =
            error_of(&predefined.replace("\"predefined\"", "\"predefined\"\nk = 1"));
        assert_eq!(key, "protocol");
        assert!(message.contains("`k`"), "{message}");
        let grid = format!(
            "{predefined}\n[[models]]\nname = \"puresvd\"\ngrid = {{ rank = [5, 10] }}\n[selection]\nmetric = \"croc_auc\"\n"
        );
        assert_eq!(error_of(&grid).0, "selection.protocol");
    }

    #[test]
    fn rating_errors_add_keys_that_cannot_be_maximised() {
        let with = format!("{BASE}\n[evaluation]\nmetrics = [\"ndcg@10\"]\nrating_errors = true\n");
        let config = parse(&with).unwrap();
        assert_eq!(config.keys(), ["ndcg@10", "mae", "rmse"]);
        let grid = format!(
            "{with}\n[[models]]\nname = \"puresvd\"\ngrid = {{ rank = [5, 10] }}\n[selection]\nmetric = \"rmse\"\n"
        );
        assert_eq!(error_of(&grid).0, "selection.metric");
        assert!(config.lower_is_better("rmse") && !config.lower_is_better("ndcg@10"));
    }

    #[test]
    fn claims_refer_to_models_and_metrics() {
        let two = format!("{BASE}\n[[models]]\nname = \"random\"\n");
        let claim = |better: &str, metric: &str| {
            format!(
                "{two}\n[[claims]]\nid = \"c\"\nstatement = \"s\"\nmetric = \"{metric}\"\nbetter = \"{better}\"\nworse = \"random\"\n"
            )
        };
        assert!(parse(&claim("item-pop", "roc_auc")).is_ok());
        assert_eq!(error_of(&claim("itempop", "roc_auc")).0, "claims[0].better");
        assert_eq!(error_of(&claim("item-pop", "ndcg@3")).0, "claims[0].metric");
        let dup = format!("{BASE}\n[[models]]\nname = \"item-pop\"\n");
        assert_eq!(error_of(&dup).0, "models[1]");
    }

    /// Two models, for comparisons.
    fn two_models() -> String {
        format!("{BASE}\n[[models]]\nname = \"random\"\n")
    }

    #[test]
    fn a_comparison_takes_the_defaults_of_recs_compare() {
        assert!(parse(&two_models()).unwrap().comparison.is_none());
        let plan = parse(&format!("{}[comparison]\n", two_models())).unwrap();
        let c = plan.comparison.unwrap();
        assert_eq!(c.settings(7), Settings { seed: 7, ..Settings::default() });
        assert_eq!((c.seed, c.pairs), (None, Pairs::All));
        // Every per-user mean of the default metrics, in their order; roc and croc are
        // pooled.
        let metrics: Vec<String> = c.metrics.iter().map(Metric::to_string).collect();
        assert_eq!(metrics, ["p@10", "r@10", "ndcg@10", "map", "mrr"]);
        assert_eq!(Config::from_toml(BASE, "t").unwrap().comparison, None);
        let defaults = Config::from_toml(&format!("{BASE}[comparison]\n"), "t").unwrap();
        assert_eq!(defaults.comparison, Some(ComparisonConfig::default()));
    }

    #[test]
    fn every_comparison_key_is_read() {
        let text = format!(
            "{}[comparison]\ntests = [\"wilcoxon\", \"student\", \"bootstrap\"]\n\
             adjust = \"bh\"\nbaseline = \"random\"\npermutations = 500\nresamples = 200\n\
             seed = 3\nalpha = 0.01\nmetrics = [\"mrr\", \"ndcg@10\"]\n",
            two_models()
        );
        let c = parse(&text).unwrap().comparison.unwrap();
        let want = Settings {
            tests: vec![Test::Wilcoxon, Test::T, Test::Bootstrap],
            adjustment: Some(recs_stats::Adjustment::BenjaminiHochberg),
            permutations: 500,
            resamples: 200,
            seed: 3,
            tukey: false,
            alpha: 0.01,
        };
        assert_eq!(c.settings(99), want, "a given seed is kept");
        assert_eq!((c.seed, c.pairs), (Some(3), Pairs::Baseline(1)));
        assert_eq!(c.metrics, [Metric::Mrr, Metric::Ndcg(10)]);
        let tukey =
            parse(&format!("{}[comparison]\ntukey = true\nadjust = \"none\"\n", two_models()));
        let tukey = tukey.unwrap().comparison.unwrap();
        assert!(tukey.settings.tukey && tukey.settings.adjustment.is_none());
    }

    #[test]
    fn comparison_refusals_name_the_key_and_what_is_allowed() {
        let with = |section: &str| format!("{}[comparison]\n{section}\n", two_models());
        let refused = [
            (
                "tests = [\"welch\"]",
                "comparison.tests[0]",
                "allowed: t, wilcoxon, sign, fisher, bootstrap",
            ),
            ("tests = []", "comparison.tests", "at least one test: t, wilcoxon"),
            ("tests = [\"t\", \"student\"]", "comparison.tests[1]", "the test t is named twice"),
            ("adjust = \"fdr\"", "comparison.adjust", "allowed: holm, bonferroni, bh, none"),
            (
                "baseline = \"pop\"",
                "comparison.baseline",
                "`pop` is not a model label: item-pop, random",
            ),
            ("baseline = \"random\"\ntukey = true", "comparison.tukey", "compares all pairs"),
            ("permutations = 0", "comparison.permutations", "at least 1"),
            ("resamples = 0", "comparison.resamples", "at least 1"),
            ("alpha = 1.0", "comparison.alpha", "strictly between 0 and 1"),
            ("alpha = 0.0", "comparison.alpha", "strictly between 0 and 1"),
            (
                "metrics = [\"roc\"]",
                "comparison.metrics[0]",
                "roc is not a mean of per-user values",
            ),
            ("metrics = [\"user_auc\"]", "comparison.metrics[0]", "no paired test"),
            (
                "metrics = [\"ndcg@5\"]",
                "comparison.metrics[0]",
                "ndcg@5 is not in evaluation.metrics",
            ),
            ("metrics = [\"ndgc@10\"]", "comparison.metrics[0]", "ndgc@10"),
            ("metrics = [\"map\", \"map\"]", "comparison.metrics[1]", "map is named twice"),
            ("metrics = []", "comparison.metrics", "at least one of p@10, r@10, ndcg@10, map, mrr"),
            ("adjustment = \"holm\"", "comparison.adjustment", "unknown field `adjustment`"),
            ("seed = -1", "comparison.seed", ""),
            ("permutations = \"many\"", "comparison.permutations", ""),
        ];
        for (section, key, words) in refused {
            let (got, message) = error_of(&with(section));
            assert_eq!(got, key, "{section}: {message}");
            assert!(message.contains(words), "{section}: {message}");
        }
        // A listed metric that is pooled names the per-user ones there are.
        let (_, message) = error_of(&with("metrics = [\"croc\"]"));
        assert!(
            message.contains("the per-user ones are p@10, r@10, ndcg@10, map, mrr"),
            "{message}"
        );
        // Nothing to compare: one model, or no per-user metric.
        let (key, message) = error_of(&format!("{BASE}[comparison]\n"));
        assert_eq!(key, "comparison");
        assert!(message.contains("at least 2 models to compare, found 1"), "{message}");
        let pooled = format!("{}[evaluation]\nmetrics = [\"roc\"]\n[comparison]\n", two_models());
        let (key, message) = error_of(&pooled);
        assert_eq!(key, "comparison.metrics");
        assert!(message.contains("no per-user metric (p, r, f1, hit, ndcg"), "{message}");
    }

    #[test]
    fn syntax_errors_give_the_line() {
        match parse("name = \"t\"\n[dataset\n") {
            Err(BenchError::Config { message, .. }) => {
                assert!(message.contains("line 2"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// A configuration built in code skips the parser: `check` must still turn every
    /// inconsistency into an error naming the key, never a panic.
    #[test]
    fn unchecked_configurations_built_in_code_give_errors() {
        let base = || Config::from_toml(BASE, "t.toml").unwrap();
        let key_of = |config: Config| match config.check("t.toml") {
            Err(BenchError::Config { key, .. }) => key,
            other => panic!("expected a configuration error, got {other:?}"),
        };
        let mut c = base();
        c.dataset.name = None;
        assert_eq!(key_of(c), "dataset");
        let mut c = base();
        c.dataset.file = Some("x.tsv".into());
        assert_eq!(key_of(c), "dataset");
        let mut c = base();
        c.dataset.test_file = Some("t.tsv".into());
        assert_eq!(key_of(c), "dataset.test_file");
        let mut c = base();
        c.models.clear();
        assert_eq!(key_of(c), "models");
        let mut c = base();
        c.repetitions = 0;
        assert_eq!(key_of(c), "repetitions");
        let mut c = base();
        c.name = "a/b".into();
        assert_eq!(key_of(c), "name");
        let mut c = base();
        c.evaluation.metrics = vec!["ndcg@10".into(), "bogus".into()];
        assert_eq!(key_of(c), "evaluation.metrics[1]");
        let mut c = base();
        c.evaluation.metrics.clear();
        assert_eq!(key_of(c), "evaluation.metrics");
        let mut c = base();
        c.evaluation.max_fpr = f64::NAN;
        assert_eq!(key_of(c), "evaluation.max_fpr");
        let mut c = base();
        c.evaluation.gain_offset = -1.0;
        assert_eq!(key_of(c), "evaluation.gain_offset");
        let mut c = base();
        c.evaluation.gain_offset = 3.0;
        c.evaluation.group_by = GroupBy::Events;
        c.models[0].rank = RankBy::Rating;
        let plan = c.check("t").unwrap();
        assert_eq!(plan.options.gain_offset, 3.0);
        assert_eq!((plan.group_by, plan.models[0].rank), (GroupBy::Events, RankBy::Rating));
        let mut c = base();
        c.evaluation.memory_budget_mib = 0;
        assert_eq!(key_of(c), "evaluation.memory_budget_mib");
        // A GPU needs a build with GPU support; the check says so before any work.
        let mut c = base();
        c.evaluation.device = EvalDevice::Cuda;
        if cfg!(feature = "cuda") {
            assert_eq!(c.check("t").unwrap().device, EvalDevice::Cuda);
        } else {
            assert_eq!(key_of(c), "evaluation.device");
        }
        let mut c = base();
        c.evaluation.user_groups = vec![5, 5];
        assert_eq!(key_of(c), "evaluation.user_groups");
        let mut c = base();
        c.evaluation.metrics = vec!["roc".into()];
        c.evaluation.user_groups = vec![1, 5];
        assert_eq!(key_of(c), "evaluation.user_groups");
        let mut c = base();
        c.evaluation.group_metric = Some("roc".into());
        assert_eq!(key_of(c), "evaluation.group_metric");
        let mut c = base();
        c.models[0].grid.insert("rank".into(), vec![]);
        assert_eq!(key_of(c), "models[0].grid.rank");
        let mut c = base();
        c.models[0].name = "puresvd".into();
        c.models[0]
            .quick_grid
            .insert("rank".into(), vec![toml::Value::Integer(2), toml::Value::Integer(4)]);
        assert_eq!(key_of(c), "selection");
        let mut c = base();
        c.selection = Some(SelectionConfig {
            metric: "ndcg@10".into(),
            protocol: Some(ProtocolChoice::Predefined),
        });
        assert_eq!(key_of(c), "selection.protocol");
        let mut c = base();
        c.protocol = ProtocolChoice::Predefined;
        c.selection = Some(SelectionConfig { metric: "ndcg@10".into(), protocol: None });
        assert_eq!(key_of(c), "selection.protocol");
        let mut c = base();
        c.claims.push(ClaimConfig {
            id: "c".into(),
            statement: "s".into(),
            metric: "roc_auc".into(),
            better: "item-pop".into(),
            worse: "nobody".into(),
            margin: 0.0,
        });
        assert_eq!(key_of(c), "claims[0].worse");
        let mut c = base();
        c.models.push(ModelConfig { name: "random".into(), ..c.models[0].clone() });
        c.comparison = Some(ComparisonConfig { tests: Vec::new(), ..ComparisonConfig::default() });
        assert_eq!(key_of(c), "comparison.tests");
        let mut c = base();
        c.comparison = Some(ComparisonConfig::default());
        assert_eq!(key_of(c), "comparison");
    }

    proptest::proptest! {
        /// Any text, and any mangling of a valid configuration, parses and checks into a
        /// value or an error: nothing on the user-input path panics.
        #[test]
        fn mangled_configurations_never_panic(
            line in 0usize..12,
            replacement in "[a-z_=\\[\\]\"0-9.%{}, -]{0,24}",
        ) {
            let mut lines: Vec<&str> = BASE.lines().collect();
            let at = line % lines.len();
            lines[at] = &replacement;
            let text = lines.join("\n");
            let _ = Config::from_toml(&text, "t.toml").and_then(|c| c.check("t.toml"));
            let _ = Config::from_toml(&replacement, "t.toml").and_then(|c| c.check("t.toml"));
        }
    }
}
