//! What sampled against exact costs on a streamed full catalog: a fitted PureSVD's exact
//! evaluation (`user_auc,r@10,ndcg@10,map`), then, in the same process, every held-out
//! item placed among the user's full catalog alone, and among the full catalog and the
//! negatives of 5 seeds' uniform draws of 100, with the estimators of every metric and
//! correction built for the sizes the users need and their means taken.
//!
//! ```text
//! cargo run --release -p recs-bench --example sampled_scale             # MovieLens-20M shape
//! cargo run --release -p recs-bench --example sampled_scale -- 20000 6000 3000000 64
//! cargo run --release -p recs-bench --example sampled_scale -- sampled,rank-estimate
//! ```
//!
//! Arguments: users, items, events, rank (defaults 138,493 × 26,744, 20,000,263 events,
//! rank 64), and last the corrections (default
//! `sampled,rank-estimate,minimal-bias,monotone,bv:0.1`). The data are those of `catalog_scale` (synthetic events, seed 1, user
//! exponent 0.8; 20% of each user's events held out; every item the user has not rated
//! is a candidate). Prints each step's seconds, the sampled part's time against the
//! exact evaluation's, the sampled and corrected means against the exact ones, and the
//! process's peak memory.

use std::time::Instant;

use recs_bench::{CatalogMetrics, evaluate_catalog, sampled_instances};
use recs_metrics::{Metric, Options};
use recs_sampled::stream::SeededDraws;
use recs_sampled::versus::{EstimatorTable, run_values};
use recs_sampled::{Correction, RankMetric};
use recs_split::{NegativeSampling, SampleBy, SampledUser};

mod scale;

const EXACT: &str = "user_auc,r@10,ndcg@10,map";
const RANK_METRICS: &str = "auc,r@10,ndcg@10,ap";
const CORRECTIONS: &str = "sampled,rank-estimate,minimal-bias,monotone,bv:0.1";
const NEGATIVES: usize = 100;
const SEEDS: u64 = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // A last argument with a letter in it is the list of corrections.
    let corrections = match args.last() {
        Some(last) if last.chars().any(|c| c.is_ascii_alphabetic()) => {
            args.pop().unwrap_or_default()
        }
        _ => CORRECTIONS.to_string(),
    };
    let args = scale::Numbers::parse(args)?;
    let arg = |i: usize, default: usize| args.get(i, default);
    let (n_users, n_items, n_events, rank) =
        (arg(0, 138_493), arg(1, 26_744), arg(2, 20_000_263), arg(3, 64));
    let (split, catalog, model) = scale::fitted_split(n_users, n_items, n_events, rank)?;
    let budget = recs_bench::DEFAULT_MEMORY_BUDGET;

    let metrics = Metric::parse_list(EXACT)?;
    let settings = CatalogMetrics {
        metrics: &metrics,
        options: Options::default(),
        max_fpr: 1.0,
        memory_budget: budget,
    };
    let started = Instant::now();
    let report = evaluate_catalog(&model, &split, &catalog, settings, false)?;
    let exact_pass = started.elapsed().as_secs_f64();
    println!("exact evaluation ({EXACT}): {exact_pass:.1} s: {}", scale::shown(&report));

    // Each judged user's own stream, as the `sampled` candidate policy of a split draws.
    let users = catalog.users();
    let by_index = |samplings| SeededDraws {
        samplings,
        user: Box::new(|position: usize| SampledUser::Index(users[position])),
        popularity: Vec::new(),
        threshold: 1.0,
    };
    let placed_alone = by_index(Vec::new());
    let started = Instant::now();
    let alone = sampled_instances(&model, &split, &catalog, 1.0, &placed_alone, budget)?;
    let alone_pass = started.elapsed().as_secs_f64();
    println!(
        "placements among the full catalog alone: {alone_pass:.1} s ({} held-out items of {} users)",
        alone.instances.len(),
        alone.n_users
    );
    drop(alone);

    let samplings = (0..SEEDS)
        .map(|seed| NegativeSampling { negatives: NEGATIVES, by: SampleBy::Uniform, seed })
        .collect();
    let draws = by_index(samplings);
    let started = Instant::now();
    let placed = sampled_instances(&model, &split, &catalog, 1.0, &draws, budget)?;
    let placed_pass = started.elapsed().as_secs_f64();
    println!(
        "placements among the full catalog and {SEEDS} draws of {NEGATIVES}: {placed_pass:.1} s \
         ({} draws short)",
        placed.n_short
    );
    let rank_metrics: Vec<RankMetric> =
        RANK_METRICS.split(',').map(str::parse).collect::<Result<_, _>>()?;
    let corrections: Vec<Correction> =
        corrections.split(',').map(str::parse).collect::<Result<_, _>>()?;
    let started = Instant::now();
    let table = EstimatorTable::build(placed.sizes.clone(), &rank_metrics, &corrections)?;
    let table_time = started.elapsed().as_secs_f64();
    println!("estimators of {} catalog sizes (n, m): {table_time:.1} s", table.n_sizes());
    let started = Instant::now();
    let values =
        run_values(&placed.instances, &table, &rank_metrics, corrections.len(), SEEDS as usize);
    let values_time = started.elapsed().as_secs_f64();
    println!("means over the instances: {values_time:.1} s");
    for (k, metric) in rank_metrics.iter().enumerate() {
        let estimated: Vec<String> = corrections
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let per_seed = &values.estimated[c][k];
                format!("{name} {:.4}", per_seed.iter().sum::<f64>() / per_seed.len() as f64)
            })
            .collect();
        println!("  {metric}: exact {:.4}; {}", values.exact[k], estimated.join(", "));
    }
    let sampled_part = placed_pass - alone_pass + table_time + values_time;
    println!(
        "sampled part (draws and their placements, estimators, means): {sampled_part:.1} s = \
         {:.2} × the exact evaluation, {:.2} × the placements among the full catalog",
        sampled_part / exact_pass,
        sampled_part / alone_pass
    );
    if let Some(peak) = scale::peak_memory() {
        println!("peak memory of this process: {peak}");
    }
    Ok(())
}
