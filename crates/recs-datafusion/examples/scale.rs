//! The scale run of `docs/scaling.md`: synthetic `(user, item, score, grade)` rows written
//! as Parquet in chunks, evaluated by DataFusion under a memory limit, and checked against
//! a streaming in-process evaluation of the same rows (generated again, never stored).
//!
//! ```text
//! cargo run --release -p recs-datafusion --example scale -- \
//!     --rows 1000000000 --users 1000000 --dir /tmp/recs-scale --memory-limit-mib 4096
//! ```
//!
//! Each user has `rows / users` candidates among 20,000 items; scores lie on a grid of
//! 2^16 values (ties across and within users); about 1.2% of candidates are relevant,
//! more often at high scores, with grades 1 to 3. Everything follows from the row's
//! (user, item) through `recs_core::mix64`, so both evaluations see the same rows.
//! Prints the phases' wall times and whether every reported number is equal.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{ArrayRef, Float32Array, Int64Array, RecordBatch};
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use recs_core::mix64;
use recs_datafusion::{Tables, evaluate, register_functions};
use recs_metrics::stream::{CatalogUser, Evaluator, Part, PositiveScores};
use recs_metrics::{Metric, Options, Report};

const ITEMS: u64 = 20_000;
const METRICS: &str = "roc,croc,user_auc,p@10,r@20,ndcg@10,map,mrr";
/// Rows per Parquet file (each file holds whole users).
const FILE_ROWS: u64 = 10_000_000;

struct Args {
    rows: u64,
    users: u64,
    dir: PathBuf,
    memory_limit_mib: usize,
    partitions: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        rows: 1_000_000_000,
        users: 1_000_000,
        dir: std::env::temp_dir().join("recs-scale"),
        memory_limit_mib: 4096,
        partitions: std::thread::available_parallelism().map_or(2, |n| n.get()),
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let value = words.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--rows" => args.rows = number()?,
            "--users" => args.users = number()?,
            "--dir" => args.dir = PathBuf::from(&value),
            "--memory-limit-mib" => args.memory_limit_mib = number()? as usize,
            "--partitions" => args.partitions = number()? as usize,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.users == 0 || !args.rows.is_multiple_of(args.users) || args.rows / args.users > ITEMS {
        return Err(format!("--rows must be a multiple of --users, at most {ITEMS} per user"));
    }
    Ok(args)
}

/// The `k`-th candidate of `user`: its item, score and grade.
fn row(user: u64, k: u64) -> (u64, f32, f32) {
    // 7919 and 13 are prime to ITEMS: a user's candidates are distinct items.
    let item = (user * 7919 + k * 13) % ITEMS;
    let h = mix64((user << 20) ^ item);
    let score = (h >> 48) as f32 / 65536.0;
    let g = mix64(h);
    let relevant = ((g >> 11) as f64 / (1u64 << 53) as f64) < 0.002 + 0.02 * f64::from(score);
    let grade = if relevant { 1 + (g % 3) as u32 } else { 0 };
    (item, score, grade as f32)
}

/// Writes users `first..last` as one Parquet file.
fn write_file(path: &Path, first: u64, last: u64, per_user: u64) -> std::io::Result<()> {
    let n = ((last - first) * per_user) as usize;
    let (mut users, mut items) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut scores, mut grades) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for user in first..last {
        for k in 0..per_user {
            let (item, score, grade) = row(user, k);
            users.push(user as i64);
            items.push(item as i64);
            scores.push(score);
            grades.push(grade);
        }
    }
    let column = |values: Vec<i64>| Arc::new(Int64Array::from(values)) as ArrayRef;
    let float = |values: Vec<f32>| Arc::new(Float32Array::from(values)) as ArrayRef;
    let batch = RecordBatch::try_from_iter([
        ("user", column(users)),
        ("item", column(items)),
        ("score", float(scores)),
        ("grade", float(grades)),
    ])
    .map_err(std::io::Error::other)?;
    let partial = path.with_extension("partial");
    let mut writer = ArrowWriter::try_new(std::fs::File::create(&partial)?, batch.schema(), None)
        .map_err(std::io::Error::other)?;
    writer.write(&batch).map_err(std::io::Error::other)?;
    writer.close().map_err(std::io::Error::other)?;
    std::fs::rename(partial, path)
}

/// Writes every missing file of the run (a file is complete once renamed into place).
fn write_files(args: &Args) -> std::io::Result<()> {
    std::fs::create_dir_all(&args.dir)?;
    let per_user = args.rows / args.users;
    let users_per_file = (FILE_ROWS / per_user).max(1);
    let chunks: Vec<(u64, u64)> = (0..args.users)
        .step_by(users_per_file as usize)
        .map(|first| (first, (first + users_per_file).min(args.users)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.partitions.max(1))
            .map(|_| {
                scope.spawn(|| -> std::io::Result<()> {
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(first, last)) = chunks.get(k) else { return Ok(()) };
                        let path = args.dir.join(format!("part-{k:05}.parquet"));
                        if !path.exists() {
                            write_file(&path, first, last, per_user)?;
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().expect("a writer panicked"))
    })
}

/// The rows evaluated by DataFusion under the memory limit.
async fn on_datafusion(args: &Args, metrics: &[Metric]) -> datafusion::common::Result<Report> {
    let runtime = RuntimeEnvBuilder::new()
        // Shared fairly between the operators that can spill, which spill past their share.
        .with_memory_pool(Arc::new(FairSpillPool::new(args.memory_limit_mib << 20)))
        .with_disk_manager_builder(
            DiskManagerBuilder::default()
                .with_mode(DiskManagerMode::Directories(vec![args.dir.join("spill")])),
        )
        .build_arc()?;
    let config = SessionConfig::new().with_target_partitions(args.partitions);
    let mut state = SessionStateBuilder::new()
        .with_config(config)
        .with_runtime_env(runtime)
        .with_default_features()
        .build();
    register_functions(&mut state)?;
    let ctx = SessionContext::new_with_state(state);
    let files = args.dir.to_string_lossy().into_owned();
    ctx.register_parquet("scored", &files, ParquetReadOptions::default()).await?;
    let evaluated = evaluate(&ctx, Tables::Scored, metrics, Options::default(), 0.3).await?;
    Ok(evaluated.report)
}

/// The same rows generated again and evaluated streaming, in process: a first pass for
/// the positives of the pooled ROC, then every user's candidates in item order.
fn in_process(args: &Args, metrics: &[Metric]) -> recs_metrics::Result<Report> {
    let per_user = args.rows / args.users;
    let mut evaluator = Evaluator::new(metrics, Options::default(), 0.3)?;
    let user_rows = |user: u64| {
        let mut rows: Vec<(u64, f32, f32)> = (0..per_user).map(|k| row(user, k)).collect();
        rows.sort_unstable_by_key(|r| r.0);
        rows
    };
    let threads = args.partitions.max(1) as u64;
    let ranges: Vec<(u64, u64)> =
        (0..threads).map(|t| (args.users * t / threads, args.users * (t + 1) / threads)).collect();
    let positives = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&(first, last)| {
                scope.spawn(move || {
                    let mut positives = PositiveScores::new();
                    for user in first..last {
                        let rows = user_rows(user);
                        let graded: Vec<&(u64, f32, f32)> =
                            rows.iter().filter(|r| r.2 > 0.0).collect();
                        let grades: Vec<f32> = graded.iter().map(|r| r.2).collect();
                        let scores: Vec<f32> = graded.iter().map(|r| r.1).collect();
                        positives.push_user(&grades, &scores, 1.0);
                    }
                    positives
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a pass panicked")).reduce(|mut a, b| {
            a.merge(b);
            a
        })
    });
    evaluator.set_positives(positives.unwrap_or_default());
    let evaluator = &evaluator;
    let parts: Vec<recs_metrics::Result<Part>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&(first, last)| {
                scope.spawn(move || {
                    let mut part = evaluator.part();
                    for user in first..last {
                        let rows = user_rows(user);
                        let scores: Vec<f32> = rows.iter().map(|r| r.1).collect();
                        let graded: Vec<u32> =
                            (0..rows.len() as u32).filter(|&k| rows[k as usize].2 > 0.0).collect();
                        let grades: Vec<f32> = graded.iter().map(|&k| rows[k as usize].2).collect();
                        let candidate = CatalogUser {
                            user: user as u32,
                            scores: &scores,
                            excluded: &[],
                            graded: &graded,
                            grades: &grades,
                        };
                        evaluator.push_user(&mut part, &candidate)?;
                    }
                    Ok(part)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a pass panicked")).collect()
    });
    let mut all = evaluator.part();
    for part in parts {
        all.merge(part?);
    }
    evaluator.finish(all, false)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let metrics = Metric::parse_list(METRICS)?;
    let started = Instant::now();
    write_files(&args)?;
    println!("rows written: {} ({:.1} s)", args.rows, started.elapsed().as_secs_f64());

    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let engine = runtime.block_on(on_datafusion(&args, &metrics))?;
    println!(
        "DataFusion: {:.1} s, {} partitions, memory limit {} MiB",
        started.elapsed().as_secs_f64(),
        args.partitions,
        args.memory_limit_mib
    );

    let started = Instant::now();
    let streaming = in_process(&args, &metrics)?;
    println!("in-process streaming: {:.1} s", started.elapsed().as_secs_f64());

    println!(
        "users {}, candidates {}, positives {}",
        engine.n_users, engine.n_candidates, engine.n_positives
    );
    let mut equal = engine.n_candidates == streaming.n_candidates
        && engine.n_users == streaming.n_users
        && engine.n_positives == streaming.n_positives;
    for (key, value) in &engine.values {
        let other = streaming.get(key);
        let same = value.map(f64::to_bits) == other.map(f64::to_bits);
        println!("{key:>16} {value:?} {}", if same { "equal" } else { "DIFFERS" });
        if !same {
            println!("{:>16} {other:?} (in-process streaming)", "");
            equal = false;
        }
    }
    println!("every number equal: {equal}");
    if !equal {
        return Err("the engines differ".into());
    }
    Ok(())
}
