//! `recs` metrics inside [Apache DataFusion](https://datafusion.apache.org): exact,
//! tie-aware evaluation of a run against qrels held in Parquet, planned and run by
//! DataFusion on every core, with the numbers of the in-process `recs eval`, bit for bit.
//!
//! Two functions are registered in the session:
//! - `recs_user_part(item, score, grade)`, an aggregate grouped by user: the user's
//!   candidates evaluated by [`recs_metrics::stream::Evaluator`] (every per-user metric,
//!   CROC counts, per-user AUC), returned as a serialised partial state. Its own partial
//!   state is the user's candidates, so partitions merge by concatenation;
//! - `recs_score_key(score)`, a scalar: the order-preserving key of a score. The pooled ROC
//!   is a `GROUP BY` on it — a per-score histogram of positives and negatives, exact in
//!   integers, read from the highest score down ([`recs_metrics::roc_summary_of_groups`]).
//!
//! The driver numbers users and items as the qrels reader does (two `DISTINCT` queries),
//! merges the users' parts in that order and assembles the report as the in-process
//! engine does, so neither the number of partitions nor the thread count moves a bit.
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

mod functions;

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Int64Type, UInt32Type};
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use recs_core::IdMap;
use recs_metrics::stream::{Evaluator, Part};
use recs_metrics::{Metric, Options, Report, TieBreak, roc_summary_of_groups};

use functions::{ScoreKey, UserPart, decode};

/// The result of [`evaluate_parquet`].
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The report, as the in-process engine gives it.
    pub report: Report,
    /// Run rows whose (user, item) is no qrels candidate (ignored).
    pub n_ignored: usize,
}

/// Evaluates the run in the Parquet file `run` (columns `user`, `item`, `score`) against
/// the qrels in `qrels` (columns `user`, `item`, `grade`) with DataFusion on
/// `partitions` partitions (default: one per core). Ids may be integers or strings.
///
/// # Errors
/// Unreadable files or missing columns, a pair listed twice, a grade below 0, options
/// the engine does not support (ties other than `expected`, a missing-score policy other
/// than `last`, coverage), and the errors of [`Evaluator::new`].
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
    runtime.block_on(evaluate(qrels, run, metrics, options, max_fpr, partitions))
}

fn external(e: recs_metrics::MetricsError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// The asynchronous body of [`evaluate_parquet`].
async fn evaluate(
    qrels: &Path,
    run: &Path,
    metrics: &[Metric],
    options: Options,
    max_fpr: f64,
    partitions: Option<usize>,
) -> Result<Evaluated> {
    if options.ties != TieBreak::Expected {
        return Err(DataFusionError::Plan(format!(
            "ties `{}`: the engine evaluates with expected-value ties only",
            options.ties
        )));
    }
    let mut config = SessionConfig::new();
    if let Some(n) = partitions {
        config = config.with_target_partitions(n.max(1));
    }
    let ctx = SessionContext::new_with_config(config);
    let path = |p: &Path| p.to_string_lossy().into_owned();
    ctx.register_parquet("qrels", &path(qrels), ParquetReadOptions::default()).await?;
    ctx.register_parquet("run", &path(run), ParquetReadOptions::default()).await?;

    // Users and items numbered as the qrels reader numbers them.
    let users = distinct_ids(&ctx, "user").await?;
    let items = Arc::new(distinct_ids(&ctx, "item").await?);
    // The parts are evaluated without the pooled ROC, which is a histogram query.
    let wants_roc = metrics.contains(&Metric::Roc);
    let per_user: Vec<Metric> = metrics.iter().copied().filter(|m| *m != Metric::Roc).collect();
    let part_evaluator = Arc::new(Evaluator::new(&per_user, options, max_fpr).map_err(external)?);
    let evaluator = Evaluator::new(metrics, options, max_fpr).map_err(external)?;
    ctx.register_udaf(AggregateUDF::new_from_impl(UserPart::new(items, part_evaluator)));
    ctx.register_udf(ScalarUDF::new_from_impl(ScoreKey::new()));

    let joined = "FROM qrels q LEFT JOIN run r \
         ON CAST(q.user AS VARCHAR) = CAST(r.user AS VARCHAR) \
         AND CAST(q.item AS VARCHAR) = CAST(r.item AS VARCHAR)";
    let sql = format!(
        "SELECT CAST(q.user AS VARCHAR) AS user_id, \
         recs_user_part(CAST(q.item AS VARCHAR), CAST(r.score AS FLOAT), CAST(q.grade AS FLOAT)) \
         {joined} GROUP BY CAST(q.user AS VARCHAR)"
    );
    let mut part = evaluator.part();
    for batch in ctx.sql(&sql).await?.collect().await? {
        merge_parts(&batch, &users, &mut part)?;
    }
    let n_ignored = count(&ctx, "SELECT COUNT(*) FROM run").await?
        - (part.n_candidates() - part.n_missing());
    let evaluated = |report| Evaluated { report, n_ignored: n_ignored as usize };
    if !wants_roc {
        return evaluator.finish(part, false).map(evaluated).map_err(external);
    }
    let threshold = options.threshold;
    let sql = format!(
        "SELECT recs_score_key(CAST(r.score AS FLOAT)) AS k, \
         SUM(CASE WHEN CAST(q.grade AS FLOAT) >= {threshold:?} THEN 1 ELSE 0 END) AS pos, \
         SUM(CASE WHEN CAST(q.grade AS FLOAT) >= {threshold:?} THEN 0 ELSE 1 END) AS neg \
         {joined} GROUP BY 1 ORDER BY 1 DESC"
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

/// The distinct ids of column `column` of the qrels, numbered canonically.
async fn distinct_ids(ctx: &SessionContext, column: &str) -> Result<IdMap> {
    let sql = format!("SELECT DISTINCT CAST({column} AS VARCHAR) FROM qrels");
    let mut ids = Vec::new();
    for batch in ctx.sql(&sql).await?.collect().await? {
        let column = datafusion::arrow::compute::cast(
            batch.column(0),
            &datafusion::arrow::datatypes::DataType::Utf8,
        )?;
        ids.extend(column.as_string::<i32>().iter().map(|id| id.unwrap_or_default().to_string()));
    }
    IdMap::from_ids_sorted(ids.iter()).map_err(|e| DataFusionError::External(Box::new(e)))
}

/// Adds the users' parts of `batch` (`user_id`, part) to `part`, numbered by `users`.
fn merge_parts(batch: &RecordBatch, users: &IdMap, part: &mut Part) -> Result<()> {
    let ids = datafusion::arrow::compute::cast(
        batch.column(0),
        &datafusion::arrow::datatypes::DataType::Utf8,
    )?;
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
