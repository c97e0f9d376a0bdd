//! Full-catalog evaluation at scale, against its own floor: the streamed evaluation of a
//! fitted PureSVD, the bare scoring of the same blocks of users with the same factors
//! (the exact kernel the evaluation scores with, no metrics), and the same blocks as one
//! `f32` matrix product (faer), all timed in one process.
//!
//! ```text
//! cargo run --release -p recs-bench --example catalog_scale                # MovieLens-20M shape
//! cargo run --release -p recs-bench --example catalog_scale -- 20000 6000 3000000 64
//! ```
//!
//! Arguments: users, items, events, rank (defaults 138,493 × 26,744, 20,000,263 events,
//! rank 64), then optionally the metrics (default `roc,croc,ndcg@10,r@20,map`). The
//! data are synthetic events (`recs data synth --seed 1 --user-exponent 0.8` with these
//! numbers and its other defaults: a heavier user tail than `tools/scaling.sh`'s data);
//! 20% of each user's events are held out; every test event is relevant and every item
//! the user has not rated is a candidate. `tools/bench_stream.sh` runs it and `recs run`
//! on the same shape for the whole-process memory.

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;
use recs_bench::{CatalogMetrics, evaluate_catalog};
use recs_core::Recommender;
use recs_metrics::{Metric, Options};

mod scale;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // A last argument with a letter in it is the metric list.
    let metrics = match args.last() {
        Some(last) if last.chars().any(|c| c.is_ascii_alphabetic()) => {
            args.pop().unwrap_or_default()
        }
        _ => "roc,croc,ndcg@10,r@20,map".to_string(),
    };
    let args = scale::Numbers::parse(args)?;
    let arg = |i: usize, default: usize| args.get(i, default);
    let (n_users, n_items, n_events, rank) =
        (arg(0, 138_493), arg(1, 26_744), arg(2, 20_000_263), arg(3, 64));

    let (split, catalog, model) = scale::fitted_split(n_users, n_items, n_events, rank)?;

    let metrics = Metric::parse_list(&metrics)?;
    let started = Instant::now();
    let report = evaluate_catalog(
        &model,
        &split,
        &catalog,
        CatalogMetrics {
            metrics: &metrics,
            options: Options::default(),
            max_fpr: 0.1,
            memory_budget: recs_bench::DEFAULT_MEMORY_BUDGET,
        },
        false,
    )?;
    let evaluation = started.elapsed().as_secs_f64();
    println!(
        "streamed evaluation: {evaluation:.1} s ({} candidates, {} positives): {}",
        report.n_candidates,
        report.n_positives,
        scale::shown(&report)
    );

    // The same blocks of users as the evaluation, scored and dropped.
    let users = catalog.users();
    let block = recs_bench::catalog_block_users(n_items);
    let bare = |score: &BlockScorer<'_>| {
        let started = Instant::now();
        users.par_chunks(block).try_for_each_init(
            || vec![0.0f32; block * n_items],
            |buffer, chunk| {
                let out = &mut buffer[..chunk.len() * n_items];
                score(chunk, out)?;
                black_box(out);
                Ok::<_, recs_core::RecsError>(())
            },
        )?;
        Ok::<_, recs_core::RecsError>(started.elapsed().as_secs_f64())
    };
    let kernel = bare(&|chunk, out| model.score_catalog(chunk, out))?;
    println!("bare exact scoring, same blocks: {kernel:.1} s");
    let gemm = bare(&|chunk, out| model.score_block(chunk, out))?;
    println!("bare f32 GEMM (faer), same blocks: {gemm:.1} s");
    println!(
        "ratios: evaluation / exact scoring = {:.2}, evaluation / GEMM = {:.2}, exact scoring / GEMM = {:.2}",
        evaluation / kernel,
        evaluation / gemm,
        kernel / gemm
    );
    if let Some(peak) = scale::peak_memory() {
        println!("peak memory of this process: {peak}");
    }
    Ok(())
}

/// Scores every item for a block of users into a buffer.
type BlockScorer<'a> = dyn Fn(&[u32], &mut [f32]) -> recs_core::Result<()> + Sync + 'a;
