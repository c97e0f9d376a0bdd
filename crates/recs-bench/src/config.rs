//! Experiment configurations: the TOML files `recs run` reads.
//!
//! A configuration names a dataset, a protocol (with repetitions), a test mode, metrics
//! and models (fixed parameters or a grid chosen by validation), plus optional claims
//! checked on the results. Every key is documented in `docs/runner.md`; unknown keys and
//! bad values are errors that name the key path (`models[2].params.rank`) and, where the
//! values are a closed set, the allowed ones.
//!
//! ```
//! let config = recs_bench::config::Config::from_toml(
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
//! )?;
//! assert_eq!(config.models[0].label(), "item-pop");
//! # Ok::<(), recs_bench::BenchError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use recs_core::ParamValues;
use recs_metrics::Metric;
use recs_split::{Amount, GradeScale, JudgedUsers, JudgmentOptions, Protocol};
use serde::{Deserialize, Deserializer};

use crate::error::{BenchError, Result};

/// A whole experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Name of the experiment: the report's `paper` field and the experiment id.
    pub name: String,
    /// One or two sentences shown at the top of `report.md`.
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice (`--seed` overrides it).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Independent draws of the split; a k-fold protocol runs every fold of each.
    #[serde(default = "one_u32")]
    pub repetitions: u32,
    /// Where the events come from.
    pub dataset: DatasetConfig,
    /// How events are divided into training and test parts.
    pub protocol: ProtocolConfig,
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
    /// Folder against which relative paths are resolved (the configuration's folder).
    #[serde(skip)]
    pub base_dir: PathBuf,
}

fn default_seed() -> u64 {
    42
}

fn one_u32() -> u32 {
    1
}

/// The dataset: a registered name or a delimited file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetConfig {
    /// Registered dataset (`ml-100k`, `msweb`, `ml-1m`, ...), found through `--data-dir`,
    /// `RECS_DATA_DIR`, the cache, or downloaded and verified.
    pub name: Option<String>,
    /// A delimited interaction file instead (relative to the configuration's folder).
    pub file: Option<PathBuf>,
    /// With `file` and `protocol = "predefined"`: the test file, same format.
    pub test_file: Option<PathBuf>,
    /// Field delimiter of `file`: `tab`, `,`, `::`, ...
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// `file` starts with a header line.
    #[serde(default)]
    pub header: bool,
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
    "tab".to_string()
}

/// Where item attributes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttributeSource {
    /// The dataset's own item attributes (MovieLens genres).
    Genres,
    /// The MovieLens 100K cast file, top-10 billing, actors in at least two movies.
    Cast,
}

/// A protocol: `predefined` (the dataset's own test part) or any generated protocol of
/// [`recs_split::Protocol`].
#[derive(Debug, Clone, PartialEq)]
pub enum ProtocolConfig {
    /// The dataset's shipped training/test division (MS Web, or `dataset.test_file`).
    Predefined,
    /// A protocol drawn from the events.
    Generated(Protocol),
}

impl ProtocolConfig {
    /// The protocol's name as written in configurations.
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolConfig::Predefined => "predefined",
            ProtocolConfig::Generated(p) => p.name(),
        }
    }
}

/// Keys whose values are amounts (a count, a fraction or `"20%"`).
const AMOUNT_KEYS: [&str; 4] = ["k", "test_items", "test_users", "hidden"];

impl<'de> Deserialize<'de> for ProtocolConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(deserializer)?;
        let name = match table.get("protocol") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "`protocol` must be a protocol name, not {}",
                    other.type_str()
                )));
            }
            None => return Err(D::Error::custom(format!("missing `protocol`: {PROTOCOLS}"))),
        };
        if name == "predefined" {
            if let Some(key) = table.keys().find(|k| *k != "protocol") {
                return Err(D::Error::custom(format!(
                    "unknown key `{key}`: `predefined` takes no options"
                )));
            }
            return Ok(ProtocolConfig::Predefined);
        }
        let Some((_, keys)) = PROTOCOL_KEYS.iter().find(|(n, _)| *n == name) else {
            return Err(D::Error::custom(format!("unknown protocol `{name}`: {PROTOCOLS}")));
        };
        // A key the protocol does not read is an error, not a silent default.
        if let Some(key) =
            table.keys().find(|k| *k != "protocol" && !keys.iter().any(|(n, _)| n == k))
        {
            let names: Vec<&str> = keys.iter().map(|(n, _)| *n).collect();
            return Err(D::Error::custom(format!(
                "unknown key `{key}` for protocol `{name}` (its keys: {})",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )));
        }
        for (key, default) in *keys {
            match default {
                _ if table.contains_key(*key) => {}
                KeyDefault::Required => {
                    return Err(D::Error::custom(format!("protocol `{name}` needs `{key}`")));
                }
                KeyDefault::Int(v) => {
                    table.insert((*key).to_string(), toml::Value::Integer(*v));
                }
                KeyDefault::Text(v) => {
                    table.insert((*key).to_string(), toml::Value::String((*v).to_string()));
                }
            }
        }
        normalise_amounts(&mut table).map_err(D::Error::custom)?;
        let protocol = Protocol::deserialize(toml::Value::Table(table)).map_err(|e| {
            D::Error::custom(format!("protocol `{name}`: {}", e.message().trim_end()))
        })?;
        protocol.validate().map_err(|e| D::Error::custom(e.to_string()))?;
        Ok(ProtocolConfig::Generated(protocol))
    }
}

/// A protocol key's default.
#[derive(Debug, Clone, Copy)]
enum KeyDefault {
    /// The key must be given.
    Required,
    /// An integer default.
    Int(i64),
    /// A text default.
    Text(&'static str),
}

/// The keys of every generated protocol (as [`Protocol`] serialises them) and the
/// defaults of the optional ones.
const PROTOCOL_KEYS: &[(&str, &[(&str, KeyDefault)])] = &[
    ("holdout", &[("test_fraction", KeyDefault::Required)]),
    ("leave-k-out", &[("k", KeyDefault::Required), ("min_train", KeyDefault::Int(1))]),
    ("leave-one-out", &[]),
    ("kfold-events", &[("folds", KeyDefault::Int(5))]),
    (
        "kfold-users",
        &[
            ("folds", KeyDefault::Int(5)),
            ("given", KeyDefault::Required),
            ("generalization", KeyDefault::Text("weak")),
        ],
    ),
    (
        "hidden-items",
        &[
            ("folds", KeyDefault::Int(5)),
            ("hidden", KeyDefault::Required),
            ("generalization", KeyDefault::Text("weak")),
        ],
    ),
    (
        "cold-start-items",
        &[("test_items", KeyDefault::Required), ("min_item_events", KeyDefault::Int(0))],
    ),
    ("strong", &[("test_users", KeyDefault::Required), ("given", KeyDefault::Required)]),
    (
        "given-l",
        &[
            ("test_users", KeyDefault::Required),
            ("max_l", KeyDefault::Required),
            ("order", KeyDefault::Text("random")),
        ],
    ),
    ("temporal", &[("cut", KeyDefault::Required)]),
    ("temporal-last-n", &[("n", KeyDefault::Required), ("min_train", KeyDefault::Int(1))]),
];

const PROTOCOLS: &str = "one of holdout, leave-k-out, leave-one-out, kfold-events, \
                         kfold-users, hidden-items, cold-start-items, predefined, strong, \
                         given-l, temporal, temporal-last-n";

/// Amounts may be written `331`, `0.2` or `"20%"` (as on the command line); the protocol
/// types spell them `{ count = 331 }` / `{ fraction = 0.2 }`, also accepted. `given` may
/// be a count or a fraction, or `{ all-but = n }`.
fn normalise_amounts(table: &mut toml::Table) -> Result<(), String> {
    let amount_table = |key: &str, value: &toml::Value| -> Result<Option<toml::Value>, String> {
        let amount = match value {
            toml::Value::Integer(n) => {
                let n = usize::try_from(*n).map_err(|_| format!("`{key}` must not be negative"))?;
                Amount::Count(n)
            }
            toml::Value::Float(f) if (0.0..=1.0).contains(f) => Amount::Fraction(*f),
            toml::Value::Float(f) => {
                return Err(format!("`{key}` = {f}: a fraction must lie in [0, 1]"));
            }
            toml::Value::String(s) => s.parse::<Amount>().map_err(|e| format!("`{key}`: {e}"))?,
            _ => return Ok(None),
        };
        let mut t = toml::Table::new();
        match amount {
            Amount::Count(n) => t.insert("count".into(), toml::Value::Integer(n as i64)),
            Amount::Fraction(f) => t.insert("fraction".into(), toml::Value::Float(f)),
        };
        Ok(Some(toml::Value::Table(t)))
    };
    for key in AMOUNT_KEYS {
        if let Some(value) = table.get(key)
            && let Some(normalised) = amount_table(key, value)?
        {
            table.insert(key.to_string(), normalised);
        }
    }
    if let Some(value) = table.get("given")
        && let Some(toml::Value::Table(mut t)) = amount_table("given", value)?
    {
        if let Some(count) = t.remove("count") {
            t.insert("n".into(), count);
        }
        table.insert("given".into(), toml::Value::Table(t));
    }
    Ok(())
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
        }
    }
}

impl JudgmentsConfig {
    /// The judgment options these settings describe.
    ///
    /// # Errors
    /// An invalid mode.
    pub fn options(&self) -> recs_core::Result<JudgmentOptions> {
        Ok(JudgmentOptions::from_mode(&self.mode)?
            .users(self.users)
            .grade(self.grade)
            .min_known_events(self.min_known_events))
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
    pub ties: Ties,
    /// Users without a relevant candidate: `exclude`, `zero` or `ignatov`.
    #[serde(default)]
    pub zero: Zero,
    /// Upper false-alarm rate of the partial AUCs.
    #[serde(default = "default_max_fpr")]
    pub max_fpr: f64,
    /// Lower bounds of user groups by known (training + history) events, e.g.
    /// `[1, 100, 200]`; empty for no breakdown.
    #[serde(default)]
    pub user_groups: Vec<usize>,
    /// The per-user metric broken down by group (default: the first per-user metric).
    pub group_metric: Option<String>,
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
            ties: Ties::default(),
            zero: Zero::default(),
            max_fpr: default_max_fpr(),
            user_groups: Vec::new(),
            group_metric: None,
            save_scores: false,
            markers: [0.0, 0.0],
            rating_errors: false,
        }
    }
}

/// Tie handling (see `recs eval --ties`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ties {
    /// Expected value under a random order of equal scores.
    #[default]
    Expected,
    /// By increasing item index.
    ItemAscending,
    /// By decreasing item index (trec_eval).
    ItemDescending,
}

/// Users without relevant candidates (see `recs eval --zero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Zero {
    /// Left out of means (and counted).
    #[default]
    Exclude,
    /// Counted as 0.
    Zero,
    /// The ignatov2010 conventions.
    Ignatov,
}

impl EvaluationConfig {
    /// The parsed metric list.
    ///
    /// # Errors
    /// An unknown metric name.
    pub fn parsed_metrics(&self) -> Result<Vec<Metric>, recs_metrics::MetricsError> {
        self.metrics.iter().map(|m| m.parse()).collect()
    }

    /// The metric options.
    pub fn options(&self) -> recs_metrics::Options {
        recs_metrics::Options {
            threshold: self.rel_threshold,
            ties: match self.ties {
                Ties::Expected => recs_metrics::TieBreak::Expected,
                Ties::ItemAscending => recs_metrics::TieBreak::ItemAscending,
                Ties::ItemDescending => recs_metrics::TieBreak::ItemDescending,
            },
            zero: match self.zero {
                Zero::Exclude => recs_metrics::ZeroPolicy::Exclude,
                Zero::Zero => recs_metrics::ZeroPolicy::Zero,
                Zero::Ignatov => recs_metrics::ZeroPolicy::Ignatov,
            },
            ..recs_metrics::Options::default()
        }
    }

    /// The report keys the metrics produce, in order (`roc` gives `roc_auc` and
    /// `roc_pauc@0.3`, ...).
    pub fn keys(&self, metrics: &[Metric]) -> Vec<String> {
        let mut keys = Vec::new();
        for m in metrics {
            match m {
                Metric::Roc | Metric::Croc => {
                    keys.push(format!("{m}_auc"));
                    keys.push(format!("{m}_pauc@{}", self.max_fpr));
                }
                other => keys.push(other.to_string()),
            }
        }
        if self.rating_errors {
            keys.extend(RATING_ERROR_KEYS.map(String::from));
        }
        keys
    }
}

/// The keys of `evaluation.rating_errors`, last in [`EvaluationConfig::keys`]; lower is
/// better for them.
pub const RATING_ERROR_KEYS: [&str; 2] = ["mae", "rmse"];

/// Whether a smaller value of the report key `key` is better.
pub fn lower_is_better(key: &str) -> bool {
    RATING_ERROR_KEYS.contains(&key)
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
    pub protocol: Option<ProtocolConfig>,
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
}

impl ModelConfig {
    /// The label in tables and legends.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }

    /// Every parameter combination: the fixed parameters plus one grid point each, in
    /// the order of the grid keys (sorted) and values (as written).
    pub fn combinations(&self) -> Vec<Vec<(String, String)>> {
        let fixed: Vec<(String, String)> =
            self.params.iter().map(|(k, v)| (k.clone(), param_text(v))).collect();
        let mut all = vec![fixed];
        for (key, values) in &self.grid {
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

impl Config {
    /// Reads and checks a configuration file; relative paths in it are resolved against
    /// its folder.
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

    /// Parses and checks a configuration; `source_name` names it in errors.
    ///
    /// # Errors
    /// [`BenchError::Config`] naming the key path: TOML syntax, an unknown key, a value of
    /// the wrong type or outside the allowed set, an unknown model or metric, a parameter
    /// the model rejects, inconsistent selection or claims.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Config> {
        let deserializer = toml::Deserializer::parse(text)
            .map_err(|e| BenchError::config(source_name, "", e.to_string().trim_end()))?;
        let config: Config = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { String::new() } else { key };
            BenchError::config(source_name, key, e.into_inner().to_string().trim_end())
        })?;
        config.check(source_name)?;
        Ok(config)
    }

    /// Checks what serde cannot: names, parameters, metric keys, references between
    /// sections.
    fn check(&self, source: &str) -> Result<()> {
        let err = |key: String, message: String| Err(BenchError::config(source, key, message));
        if self.name.trim().is_empty() || self.name.contains(['/', '\\']) {
            return err("name".into(), "a non-empty name without path separators".into());
        }
        if self.repetitions == 0 {
            return err("repetitions".into(), "at least 1".into());
        }
        match (&self.dataset.name, &self.dataset.file) {
            (Some(_), Some(_)) => {
                return err("dataset".into(), "give `name` or `file`, not both".into());
            }
            (None, None) => return err("dataset".into(), "give `name` or `file`".into()),
            _ => {}
        }
        if self.dataset.test_file.is_some() && self.dataset.file.is_none() {
            return err("dataset.test_file".into(), "needs `file`".into());
        }
        if let Err(e) = JudgmentOptions::from_mode(&self.judgments.mode) {
            return err("judgments.mode".into(), e.to_string());
        }
        let metrics = match self.evaluation.parsed_metrics() {
            Ok(m) => m,
            Err(e) => {
                let at = self
                    .evaluation
                    .metrics
                    .iter()
                    .position(|m| m.parse::<Metric>().is_err())
                    .unwrap_or(0);
                return err(format!("evaluation.metrics[{at}]"), e.to_string());
            }
        };
        if metrics.is_empty() {
            return err("evaluation.metrics".into(), "at least one metric".into());
        }
        if !(self.evaluation.max_fpr > 0.0 && self.evaluation.max_fpr <= 1.0) {
            return err("evaluation.max_fpr".into(), "a rate in (0, 1]".into());
        }
        if self.evaluation.user_groups.windows(2).any(|w| w[0] >= w[1]) {
            return err("evaluation.user_groups".into(), "strictly increasing bounds".into());
        }
        let keys = self.evaluation.keys(&metrics);
        let per_user = self.per_user_keys(&metrics);
        if let Some(group_metric) = &self.evaluation.group_metric
            && !per_user.contains(group_metric)
        {
            return err(
                "evaluation.group_metric".into(),
                format!("a per-user metric of evaluation.metrics: {}", per_user.join(", ")),
            );
        }
        if !self.evaluation.user_groups.is_empty() && per_user.is_empty() {
            return err(
                "evaluation.user_groups".into(),
                "a per-user metric (p@N, ndcg@K, ...) in evaluation.metrics".into(),
            );
        }
        if self.models.is_empty() {
            return err("models".into(), "at least one [[models]] entry".into());
        }
        let mut labels: Vec<&str> = Vec::new();
        let mut has_grid = false;
        for (i, model) in self.models.iter().enumerate() {
            let entry = match crate::registry::find(&model.name) {
                Ok(e) => e,
                Err(e) => return err(format!("models[{i}].name"), e.to_string()),
            };
            if labels.contains(&model.label()) {
                return err(
                    format!("models[{i}]"),
                    format!("the label `{}` is used twice; give each a `label`", model.label()),
                );
            }
            labels.push(model.label());
            if let Some(key) = model.params.keys().find(|k| model.grid.contains_key(*k)) {
                return err(format!("models[{i}].grid.{key}"), "also in `params`".into());
            }
            for (key, value) in &model.params {
                if matches!(value, toml::Value::Array(_) | toml::Value::Table(_)) {
                    return err(
                        format!("models[{i}].params.{key}"),
                        "a single value (use `grid` to try several)".into(),
                    );
                }
            }
            if let Some((key, _)) = model.grid.iter().find(|(_, v)| v.is_empty()) {
                return err(format!("models[{i}].grid.{key}"), "at least one value".into());
            }
            has_grid |= model.grid.values().any(|v| v.len() > 1);
            for combination in model.combinations() {
                let mut values = ParamValues::new();
                for (k, v) in &combination {
                    values.set(k, v.clone());
                }
                if let Err(e) = entry.build_checked(&values) {
                    let key = combination
                        .iter()
                        .find(|(k, _)| e.to_string().contains(k.as_str()))
                        .map(|(k, _)| {
                            let section =
                                if model.grid.contains_key(k) { "grid" } else { "params" };
                            format!("models[{i}].{section}.{k}")
                        })
                        .unwrap_or_else(|| format!("models[{i}].params"));
                    return err(key, e.to_string());
                }
            }
        }
        match &self.selection {
            Some(selection) => {
                if lower_is_better(&selection.metric) {
                    return err(
                        "selection.metric".into(),
                        "a metric to maximise (ranking metrics or AUCs), not an error".into(),
                    );
                }
                if !keys.contains(&selection.metric) {
                    return err(
                        "selection.metric".into(),
                        format!("a key produced by evaluation.metrics: {}", keys.join(", ")),
                    );
                }
                if selection.protocol.is_none() && self.protocol == ProtocolConfig::Predefined {
                    return err(
                        "selection.protocol".into(),
                        "required with the `predefined` protocol (validation data is drawn \
                         inside the training part)"
                            .into(),
                    );
                }
                if selection.protocol == Some(ProtocolConfig::Predefined) {
                    return err(
                        "selection.protocol".into(),
                        "a generated protocol; `predefined` cannot be drawn inside training".into(),
                    );
                }
            }
            None if has_grid => {
                return err(
                    "selection".into(),
                    "a model has a grid: give [selection] with the metric to maximise".into(),
                );
            }
            None => {}
        }
        let mut ids: Vec<&str> = Vec::new();
        for (i, claim) in self.claims.iter().enumerate() {
            if ids.contains(&claim.id.as_str()) {
                return err(format!("claims[{i}].id"), format!("`{}` is used twice", claim.id));
            }
            ids.push(&claim.id);
            if !keys.contains(&claim.metric) {
                return err(
                    format!("claims[{i}].metric"),
                    format!("a key produced by evaluation.metrics: {}", keys.join(", ")),
                );
            }
            for (field, label) in [("better", &claim.better), ("worse", &claim.worse)] {
                if !labels.contains(&label.as_str()) {
                    return err(
                        format!("claims[{i}].{field}"),
                        format!("a model label: {}", labels.join(", ")),
                    );
                }
            }
        }
        Ok(())
    }

    /// The per-user metric keys (everything but the pooled curves).
    pub fn per_user_keys(&self, metrics: &[Metric]) -> Vec<String> {
        metrics
            .iter()
            .filter(|m| !matches!(m, Metric::Roc | Metric::Croc | Metric::UserAuc))
            .map(Metric::to_string)
            .collect()
    }

    /// A path of the configuration, resolved against its folder.
    pub fn resolve_path(&self, path: &Path) -> PathBuf {
        if path.is_absolute() { path.to_path_buf() } else { self.base_dir.join(path) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
name = "t"
[dataset]
name = "ml-100k"
[protocol]
protocol = "leave-k-out"
k = "20%"
min_train = 1
[[models]]
name = "item-pop"
"#;

    fn parse(text: &str) -> Result<Config> {
        Config::from_toml(text, "t.toml")
    }

    fn error_of(text: &str) -> (String, String) {
        match parse(text) {
            Err(BenchError::Config { key, message, .. }) => (key, message),
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }

    #[test]
    fn a_minimal_configuration_gets_the_defaults() {
        let config = parse(BASE).unwrap();
        assert_eq!(config.seed, 42);
        assert_eq!(config.repetitions, 1);
        assert_eq!(
            config.protocol,
            ProtocolConfig::Generated(Protocol::LeaveKOut {
                k: Amount::Fraction(0.2),
                min_train: 1
            })
        );
        assert_eq!(config.judgments.options().unwrap(), JudgmentOptions::implicit());
        assert_eq!(config.evaluation.metrics, default_metrics());
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
                ProtocolConfig::Generated(Protocol::LeaveKOut { k: amount, min_train: 1 }),
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
    fn the_protocol_key_table_matches_the_protocols() {
        let examples = [
            Protocol::Holdout { test_fraction: 0.2 },
            Protocol::LeaveKOut { k: Amount::Count(1), min_train: 1 },
            Protocol::LeaveOneOut,
            Protocol::KFoldEvents { folds: 5 },
            Protocol::KFoldUsers {
                folds: 5,
                given: recs_split::Given::N(1),
                generalization: recs_split::Generalization::Weak,
            },
            Protocol::HiddenItems {
                folds: 5,
                hidden: Amount::Count(1),
                generalization: recs_split::Generalization::Weak,
            },
            Protocol::ColdStartItems { test_items: Amount::Count(1), min_item_events: 0 },
            Protocol::Strong { test_users: Amount::Count(1), given: recs_split::Given::N(1) },
            Protocol::GivenL {
                test_users: Amount::Count(1),
                max_l: 2,
                order: recs_split::HistoryOrder::Random,
            },
            Protocol::TemporalCut { cut: recs_split::TimeCut::At(0) },
            Protocol::TemporalLastN { n: 1, min_train: 1 },
        ];
        assert_eq!(examples.len(), PROTOCOL_KEYS.len());
        for protocol in examples {
            let table = toml::Table::try_from(&protocol).unwrap();
            let mut serialised: Vec<&str> =
                table.keys().map(String::as_str).filter(|k| *k != "protocol").collect();
            let (_, keys) = PROTOCOL_KEYS.iter().find(|(n, _)| *n == protocol.name()).unwrap();
            let mut listed: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
            serialised.sort_unstable();
            listed.sort_unstable();
            assert_eq!(serialised, listed, "{}", protocol.name());
            // The defaults fill every optional key: only the required ones must be given.
            let mut minimal = toml::Table::new();
            minimal.insert("protocol".into(), protocol.name().into());
            for (key, default) in *keys {
                if matches!(default, KeyDefault::Required) {
                    minimal.insert((*key).to_string(), table[*key].clone());
                }
            }
            let parsed: ProtocolConfig = toml::Value::Table(minimal).try_into().unwrap();
            assert_eq!(parsed, ProtocolConfig::Generated(protocol));
        }
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
        let combos = good.models[1].combinations();
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
            .combinations()
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
    fn predefined_protocols_take_no_options_and_need_a_selection_protocol() {
        let predefined = BASE.replace(
            "protocol = \"leave-k-out\"\nk = \"20%\"\nmin_train = 1",
            "protocol = \"predefined\"",
        );
        assert_eq!(parse(&predefined).unwrap().protocol, ProtocolConfig::Predefined);
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
        let metrics = config.evaluation.parsed_metrics().unwrap();
        assert_eq!(config.evaluation.keys(&metrics), ["ndcg@10", "mae", "rmse"]);
        let grid = format!(
            "{with}\n[[models]]\nname = \"puresvd\"\ngrid = {{ rank = [5, 10] }}\n[selection]\nmetric = \"rmse\"\n"
        );
        assert_eq!(error_of(&grid).0, "selection.metric");
        assert!(lower_is_better("rmse") && !lower_is_better("ndcg@10"));
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

    #[test]
    fn syntax_errors_give_the_line() {
        match parse("name = \"t\"\n[dataset\n") {
            Err(BenchError::Config { message, .. }) => {
                assert!(message.contains("line 2"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
