//! On Ballista — a scheduler and an executor started in this process, talking gRPC and
//! Arrow Flight on loopback — the evaluation gives the in-process engine's numbers, bit
//! for bit: the functions travel as names, their settings as a literal in the plan.

#![cfg(feature = "ballista")]

mod common;

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use common::{METRICS, assert_same, generated, in_process};
use datafusion::prelude::SessionContext;
use recs_datafusion::Tables;
use recs_metrics::{Metric, Options};

/// How long one cluster may take to start and answer: a failure that shows, where a
/// cluster waiting for an executor that never came would wait for ever.
const CLUSTER_LIMIT: Duration = Duration::from_secs(300);

/// The two clusters one at a time: each binds loopback ports, and a port taken by the
/// other between [`free_port`] and its bind would leave a server that never started.
static ONE_CLUSTER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `cluster` on a runtime of its own, within [`CLUSTER_LIMIT`].
fn run_cluster(what: &str, cluster: impl Future<Output = ()>) {
    let _one = ONE_CLUSTER_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        if tokio::time::timeout(CLUSTER_LIMIT, cluster).await.is_err() {
            panic!("{what}: no answer within {} s", CLUSTER_LIMIT.as_secs());
        }
    });
    // The servers' tasks run for ever; the runtime is not waited for.
    runtime.shutdown_background();
}

#[test]
fn a_standalone_ballista_cluster_gives_the_in_process_numbers() {
    run_cluster("Ballista standalone", standalone_cluster());
}

/// Evaluates the generated qrels and run in `dir` through `ctx` and checks the report
/// against the in-process engine's, bit for bit.
async fn check(ctx: &SessionContext, dir: &Path, options: Options, what: &str) {
    let (q, r) = generated(dir);
    let want = in_process(&q, &r, &options);
    recs_datafusion::register_tables(ctx, &q, &r).await.unwrap();
    let metrics = Metric::parse_list(METRICS).unwrap();
    let got =
        recs_datafusion::evaluate(ctx, Tables::QrelsAndRun, &metrics, options, 0.3).await.unwrap();
    assert_same(&got.report, &want, what);
    assert_eq!(got.n_ignored, 300, "{what}: one unjudged run row per user");
}

async fn standalone_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = recs_datafusion::ballista::standalone(2).await.unwrap();
    let options = Options { threshold: 2.0, ..Options::default() };
    check(&ctx, dir.path(), options, "Ballista standalone").await;
}

/// A free loopback port (another process may take it before it is bound again; the
/// window is short).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn a_scheduler_and_an_executor_as_a_cluster_runs_them_give_the_in_process_numbers() {
    run_cluster("Ballista scheduler and executor", cluster());
}

/// The scheduler and the executor started from the configurations a cluster's binaries
/// use ([`recs_datafusion::ballista::scheduler_config`], [`executor_config`]), each
/// serving on its own loopback ports; the client connects as to a remote cluster.
///
/// [`executor_config`]: recs_datafusion::ballista::executor_config
async fn cluster() {
    use ballista_scheduler::cluster::BallistaCluster;
    use ballista_scheduler::scheduler_process::start_server;
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let scheduler_port = free_port();
    let mut scheduler = recs_datafusion::ballista::scheduler_config();
    scheduler.bind_host = "127.0.0.1".into();
    scheduler.external_host = "127.0.0.1".into();
    scheduler.bind_port = scheduler_port;
    let cluster = BallistaCluster::new_from_config(&scheduler).await.unwrap();
    let address = format!("127.0.0.1:{scheduler_port}").parse().unwrap();
    let mut scheduler = tokio::spawn(start_server(cluster, address, Arc::new(scheduler)));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(address).is_err() {
        assert!(!scheduler.is_finished(), "the scheduler stopped: {:?}", (&mut scheduler).await);
        assert!(started.elapsed().as_secs() < 30, "the scheduler did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let mut executor = recs_datafusion::ballista::executor_config();
    executor.external_host = Some("127.0.0.1".into());
    executor.port = free_port();
    executor.grpc_port = free_port();
    executor.scheduler_host = "127.0.0.1".into();
    executor.scheduler_port = scheduler_port;
    executor.vcores = 2;
    // Any non-zero value makes the executor retry its connection every 500 ms instead of
    // giving up after one attempt (Ballista 55 measures the wait from `Instant::now()` on
    // each pass, so it retries without a bound: CLUSTER_LIMIT is the bound).
    executor.scheduler_connect_timeout_seconds = 30;
    executor.work_dir = Some(dir.path().join("executor").to_str().unwrap().to_string());
    std::fs::create_dir(dir.path().join("executor")).unwrap();
    let mut executor = tokio::spawn(ballista_executor::executor_process::start_executor_process(
        Arc::new(executor),
    ));

    // A server that stops ends the test with its error, instead of leaving the job to wait
    // for an executor that is gone.
    let evaluated = async {
        let ctx = recs_datafusion::ballista::remote(&format!("df://127.0.0.1:{scheduler_port}"))
            .await
            .unwrap();
        check(&ctx, dir.path(), Options::default(), "Ballista scheduler and executor").await;
    };
    tokio::select! {
        () = evaluated => {}
        stopped = &mut scheduler => panic!("the scheduler stopped: {stopped:?}"),
        stopped = &mut executor => panic!("the executor stopped: {stopped:?}"),
    }
}
