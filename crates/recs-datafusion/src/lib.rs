//! `recs` metrics inside [Apache DataFusion](https://datafusion.apache.org): exact,
//! tie-aware evaluation of a run against qrels held in Parquet, planned and run by
//! DataFusion on every core — or by a Ballista cluster (feature `ballista`) — with the
//! numbers of the in-process `recs eval`, bit for bit.
//!
//! Two functions are registered in the session ([`register_functions`]):
//! - `recs_user_part(item, score, grade, settings)`, an aggregate grouped by user: the
//!   user's candidates evaluated by [`recs_metrics::stream::Evaluator`] (every per-user
//!   metric, CROC counts, per-user AUC), returned as a serialised partial state. Its own
//!   partial state is the user's candidates, so partitions merge by concatenation.
//!   `settings` is a string literal ([`Settings`]), so the function keeps no state and
//!   an executor that registered it once evaluates any plan;
//! - `recs_score_key(score)`, a scalar: the order-preserving key of a score. The pooled ROC
//!   is a `GROUP BY` on it — a per-score histogram of positives and negatives, exact in
//!   integers, read from the highest score down ([`recs_metrics::roc_summary_of_groups`]).
//!
//! The driver numbers users as the qrels reader does (a `DISTINCT` query), merges the
//! users' parts in that order and assembles the report as the in-process engine does, so
//! neither the number of partitions nor the thread count moves a bit.
//!
//! The candidates are the qrels' (`--candidates qrels`): every qrels row is a candidate,
//! scored by the run row with the same user and item (none: missing, ranked last); run
//! rows of other pairs are ignored.
//!
//! ```no_run
//! use recs_datafusion::evaluate_parquet;
//! use recs_metrics::{Metric, Options};
//!
//! let metrics = Metric::parse_list("roc,croc,ndcg@10,map")?;
//! let evaluated = evaluate_parquet(
//!     "qrels.parquet".as_ref(),
//!     "run.parquet".as_ref(),
//!     &metrics,
//!     Options::default(),
//!     0.3,
//!     None,
//! )?;
//! println!("ROC AUC {:?}", evaluated.report.get("roc_auc"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod functions;
mod settings;

#[cfg(feature = "ballista")]
pub mod ballista;

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Int64Type, UInt32Type};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{FunctionRegistry, SessionState, SessionStateBuilder};
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use futures::StreamExt;
use recs_core::IdMap;
use recs_metrics::stream::{Evaluator, Part};
use recs_metrics::{Metric, Options, Report, TieBreak, roc_summary_of_groups};

use functions::{ScoreKey, UserPart, decode};
pub use settings::Settings;

/// The result of [`evaluate`] and [`evaluate_parquet`].
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The report, as the in-process engine gives it.
    pub report: Report,
    /// Run rows whose (user, item) is no qrels candidate (ignored).
    pub n_ignored: usize,
}

/// Registers `recs_user_part` and `recs_score_key` in `registry` — a session's state,
/// or the function registry a Ballista executor is started with.
///
/// # Errors
/// Those of the registry.
pub fn register_functions(registry: &mut dyn FunctionRegistry) -> Result<()> {
    let (scalar, aggregate) = functions();
    registry.register_udaf(aggregate)?;
    registry.register_udf(scalar)?;
    Ok(())
}

/// `recs_score_key` and `recs_user_part`.
fn functions() -> (Arc<ScalarUDF>, Arc<AggregateUDF>) {
    (
        Arc::new(ScalarUDF::new_from_impl(ScoreKey::new())),
        Arc::new(AggregateUDF::new_from_impl(UserPart::new())),
    )
}

/// A session state with DataFusion's default features and this crate's functions.
///
/// # Errors
/// Those of [`register_functions`].
pub fn session_state(config: SessionConfig) -> Result<SessionState> {
    let mut state = SessionStateBuilder::new().with_config(config).with_default_features().build();
    register_functions(&mut state)?;
    Ok(state)
}

/// Registers the Parquet files `qrels` and `run` as the tables [`evaluate`] reads.
///
/// # Errors
/// Unreadable files.
pub async fn register_tables(ctx: &SessionContext, qrels: &Path, run: &Path) -> Result<()> {
    let path = |p: &Path| p.to_string_lossy().into_owned();
    ctx.register_parquet("qrels", &path(qrels), ParquetReadOptions::default()).await?;
    ctx.register_parquet("run", &path(run), ParquetReadOptions::default()).await
}

/// Evaluates the run in the Parquet file `run` (columns `user`, `item`, `score`) against
/// the qrels in `qrels` (columns `user`, `item`, `grade`) with DataFusion on this
/// machine, on `partitions` partitions (default: one per core). Ids may be integers or
/// strings.
///
/// # Errors
/// Those of [`evaluate`], and unreadable files.
pub fn evaluate_parquet(
    qrels: &Path,
    run: &Path,
    metrics: &[Metric],
    options: Options,
    max_fpr: f64,
    partitions: Option<usize>,
) -> Result<Evaluated> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    runtime.block_on(async {
        let mut config = SessionConfig::new();
        if let Some(n) = partitions {
            config = config.with_target_partitions(n.max(1));
        }
        let ctx = SessionContext::new_with_state(session_state(config)?);
        register_tables(&ctx, qrels, run).await?;
        evaluate(&ctx, Tables::QrelsAndRun, metrics, options, max_fpr).await
    })
}

fn external(e: recs_metrics::MetricsError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// The tables an evaluation reads its candidates from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tables {
    /// `qrels` (columns `user`, `item`, `grade`) and `run` (`user`, `item`, `score`):
    /// every qrels row is a candidate, scored by the run row of the same pair (none:
    /// missing); run rows of other pairs are ignored.
    QrelsAndRun,
    /// One table `scored` (`user`, `item`, `score`, `grade`): every row is a candidate,
    /// scored and graded (a `NULL` score is missing) — what a scoring job writes when it
    /// attaches the grades itself, with no join to plan.
    Scored,
}

impl Tables {
    /// The `FROM` clause; its rows have `q.user`, `q.item`, `q.grade` and the score.
    fn sql_from(self) -> &'static str {
        match self {
            Tables::QrelsAndRun => {
                "FROM qrels q LEFT JOIN run r \
                 ON CAST(q.user AS VARCHAR) = CAST(r.user AS VARCHAR) \
                 AND CAST(q.item AS VARCHAR) = CAST(r.item AS VARCHAR)"
            }
            Tables::Scored => "FROM scored q",
        }
    }

    /// The score's column in [`Tables::sql_from`].
    fn score(self) -> &'static str {
        match self {
            Tables::QrelsAndRun => "r.score",
            Tables::Scored => "q.score",
        }
    }

    /// The table holding every candidate.
    fn candidates(self) -> &'static str {
        match self {
            Tables::QrelsAndRun => "qrels",
            Tables::Scored => "scored",
        }
    }
}

/// Evaluates the candidates of `tables` in `ctx`, whose session has this crate's
/// functions ([`register_functions`]); `ctx` may be local or a Ballista client. Results
/// stream back user by user, so the driver holds one batch of parts at a time.
///
/// # Errors
/// Missing tables or columns, a pair listed twice, a grade below 0, options the engine
/// does not support (ties other than `expected`, a missing-score policy other than
/// `last`, coverage), and the errors of [`Evaluator::new`].
pub async fn evaluate(
    ctx: &SessionContext,
    tables: Tables,
    metrics: &[Metric],
    options: Options,
    max_fpr: f64,
) -> Result<Evaluated> {
    if options.ties != TieBreak::Expected {
        return Err(DataFusionError::Plan(format!(
            "ties `{}`: the engine evaluates with expected-value ties only",
            options.ties
        )));
    }
    let table = tables.candidates();
    // Users and items numbered as the qrels reader numbers them.
    let users = IdMap::from_ids_sorted(distinct_ids(ctx, table, "user").await?)
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    let numeric_items =
        distinct_ids(ctx, table, "item").await?.iter().all(|id| id.parse::<i64>().is_ok());
    // The parts are evaluated without the pooled ROC, which is a histogram query.
    let wants_roc = metrics.contains(&Metric::Roc);
    let per_user: Vec<Metric> = metrics.iter().copied().filter(|m| *m != Metric::Roc).collect();
    let settings = Settings { metrics: per_user, options, max_fpr, numeric_items };
    let evaluator = Evaluator::new(metrics, options, max_fpr).map_err(external)?;

    let (from, score) = (tables.sql_from(), tables.score());
    let sql = format!(
        "SELECT CAST(q.user AS VARCHAR) AS user_id, \
         recs_user_part(CAST(q.item AS VARCHAR), CAST({score} AS FLOAT), \
         CAST(q.grade AS FLOAT), {}) \
         {from} GROUP BY CAST(q.user AS VARCHAR)",
        settings.to_sql_literal()
    );
    let mut part = evaluator.part();
    let mut batches = ctx.sql(&sql).await?.execute_stream().await?;
    while let Some(batch) = batches.next().await {
        merge_parts(&batch?, &users, &mut part)?;
    }
    let n_ignored = match tables {
        Tables::QrelsAndRun => {
            count(ctx, "SELECT COUNT(*) FROM run").await? - (part.n_candidates() - part.n_missing())
        }
        Tables::Scored => 0,
    };
    let evaluated = |report| Evaluated { report, n_ignored: n_ignored as usize };
    if !wants_roc {
        return evaluator.finish(part, false).map(evaluated).map_err(external);
    }
    let threshold = options.threshold;
    let sql = format!(
        "SELECT recs_score_key(CAST({score} AS FLOAT)) AS k, \
         SUM(CASE WHEN CAST(q.grade AS FLOAT) >= {threshold:?} THEN 1 ELSE 0 END) AS pos, \
         SUM(CASE WHEN CAST(q.grade AS FLOAT) >= {threshold:?} THEN 0 ELSE 1 END) AS neg \
         {from} GROUP BY 1 ORDER BY 1 DESC"
    );
    let mut groups = Vec::new();
    for batch in ctx.sql(&sql).await?.collect().await? {
        let counts = |k: usize| batch.column(k).as_primitive::<Int64Type>().clone();
        let (pos, neg) = (counts(1), counts(2));
        let keys = batch.column(0).as_primitive::<UInt32Type>();
        for r in 0..batch.num_rows() {
            debug_assert!(!keys.is_null(r));
            groups.push((pos.value(r) as u64, neg.value(r) as u64));
        }
    }
    let roc = roc_summary_of_groups(groups, max_fpr).map_err(external)?;
    evaluator.finish_with_roc(part, roc).map(evaluated).map_err(external)
}

/// The single count a query returns.
async fn count(ctx: &SessionContext, sql: &str) -> Result<u64> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let value = batches
        .first()
        .filter(|b| b.num_rows() == 1)
        .map(|b| b.column(0).as_primitive::<Int64Type>().value(0));
    value.map(|v| v as u64).ok_or_else(|| DataFusionError::Execution(format!("no count: {sql}")))
}

/// `column` as `Utf8`: SQL's `VARCHAR` may arrive as a string view.
fn as_utf8(column: &ArrayRef) -> Result<ArrayRef> {
    Ok(datafusion::arrow::compute::cast(column, &datafusion::arrow::datatypes::DataType::Utf8)?)
}

/// The distinct ids of column `column` of `table`, as text.
async fn distinct_ids(ctx: &SessionContext, table: &str, column: &str) -> Result<Vec<String>> {
    let sql = format!("SELECT DISTINCT CAST({column} AS VARCHAR) FROM {table}");
    let mut ids = Vec::new();
    for batch in ctx.sql(&sql).await?.collect().await? {
        let column = as_utf8(batch.column(0))?;
        ids.extend(column.as_string::<i32>().iter().map(|id| id.unwrap_or_default().to_string()));
    }
    Ok(ids)
}

/// Adds the users' parts of `batch` (`user_id`, part) to `part`, numbered by `users`.
fn merge_parts(batch: &RecordBatch, users: &IdMap, part: &mut Part) -> Result<()> {
    let ids = as_utf8(batch.column(0))?;
    let ids = ids.as_string::<i32>();
    let parts = batch.column(1).as_binary::<i32>();
    for r in 0..batch.num_rows() {
        let id = ids.value(r);
        let user = users
            .get(id)
            .ok_or_else(|| DataFusionError::Execution(format!("user `{id}` not numbered")))?;
        let mut user_part: Part = decode(parts.value(r))?;
        user_part.number_user(user).map_err(external)?;
        part.merge(user_part);
    }
    Ok(())
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
