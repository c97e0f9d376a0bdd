//! Evaluation on [Apache Ballista](https://datafusion.apache.org/ballista/): the same
//! plans, scheduled over executors. Every process that decodes a plan — the client, the
//! scheduler and each executor — registers this crate's functions
//! ([`crate::register_functions`]); `docs/scaling.md` shows how for a real cluster.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use recs_datafusion::Tables;
//! use recs_metrics::{Metric, Options};
//!
//! let ctx = recs_datafusion::ballista::standalone(2).await?;
//! recs_datafusion::register_tables(&ctx, "qrels.parquet".as_ref(), "run.parquet".as_ref())
//!     .await?;
//! let metrics = Metric::parse_list("roc,ndcg@10")?;
//! let evaluated = recs_datafusion::evaluate(&ctx, Tables::QrelsAndRun, &metrics, Options::default(), 0.3).await?;
//! println!("{:?}", evaluated.report.get("ndcg@10"));
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::common::Result;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::{functions, register_functions, session_state};

/// A scheduler's configuration whose sessions plan with this crate's functions; start it
/// with `ballista_scheduler::scheduler_process::start_server` (bind address and port in
/// the returned value's fields).
pub fn scheduler_config() -> SchedulerConfig {
    SchedulerConfig {
        override_session_builder: Some(Arc::new(|config| {
            let mut state = default_session_builder(config)?;
            register_functions(&mut state)?;
            Ok(state)
        })),
        ..SchedulerConfig::default()
    }
}

/// An executor's configuration whose function registry holds this crate's functions
/// beside DataFusion's; start it with
/// `ballista_executor::executor_process::start_executor_process` (scheduler address and
/// ports in the returned value's fields).
pub fn executor_config() -> ExecutorProcessConfig {
    let mut registry = BallistaFunctionRegistry::default();
    let (scalar, aggregate) = functions();
    registry.scalar_functions.insert(scalar.name().to_string(), scalar);
    registry.aggregate_functions.insert(aggregate.name().to_string(), aggregate);
    ExecutorProcessConfig {
        override_function_registry: Some(Arc::new(registry)),
        ..ExecutorProcessConfig::default()
    }
}

/// A Ballista client whose scheduler and executor run in this process on loopback
/// (`parallelism` task slots), both started from a state with this crate's functions.
///
/// # Errors
/// Those of Ballista's start-up (ports, gRPC).
pub async fn standalone(parallelism: usize) -> Result<SessionContext> {
    let config = SessionConfig::new_with_ballista()
        .with_ballista_standalone_parallelism(parallelism.max(1))
        .with_target_partitions(parallelism.max(1));
    let ctx = SessionContext::standalone_with_state(session_state(config)?).await?;
    with_functions(ctx)
}

/// `ctx` with this crate's functions registered again: Ballista's client state keeps
/// only its own list of functions.
fn with_functions(ctx: SessionContext) -> Result<SessionContext> {
    let (scalar, aggregate) = functions();
    ctx.register_udf(scalar.as_ref().clone());
    ctx.register_udaf(aggregate.as_ref().clone());
    Ok(ctx)
}

/// Evaluates the Parquet files `run` against `qrels` ([`crate::evaluate_parquet`]'s
/// columns) on the Ballista cluster whose scheduler is at `url`; every executor reads
/// the files at these paths.
///
/// # Errors
/// Those of [`remote`] and [`crate::evaluate`].
pub fn evaluate_parquet_remote(
    url: &str,
    qrels: &std::path::Path,
    run: &std::path::Path,
    metrics: &[recs_metrics::Metric],
    options: recs_metrics::Options,
    max_fpr: f64,
) -> Result<crate::Evaluated> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| datafusion::common::DataFusionError::External(Box::new(e)))?;
    runtime.block_on(async {
        let ctx = remote(url).await?;
        crate::register_tables(&ctx, qrels, run).await?;
        crate::evaluate(&ctx, crate::Tables::QrelsAndRun, metrics, options, max_fpr).await
    })
}

/// A client of the Ballista scheduler at `url` (`df://host:50050`). The scheduler and
/// its executors must have registered this crate's functions.
///
/// # Errors
/// Those of connecting to the scheduler.
pub async fn remote(url: &str) -> Result<SessionContext> {
    let state = session_state(SessionConfig::new_with_ballista())?;
    with_functions(SessionContext::remote_with_state(url, state).await?)
}
