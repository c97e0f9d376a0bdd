//! What the metrics of the lists' items cost on a streamed full catalog: a fitted
//! PureSVD evaluated with accuracy metrics only (`roc,ndcg@10,map`), and with ARP, APLT,
//! EPC, intra-list diversity over 20 genres, coverage and the exposure Gini added, timed
//! alternately (A B A B ...) in one process.
//!
//! ```text
//! cargo run --release -p recs-bench --example list_metrics_scale             # MovieLens-20M shape
//! cargo run --release -p recs-bench --example list_metrics_scale -- 20000 6000 3000000 64 3
//! ```
//!
//! Arguments: users, items, events, rank, rounds (defaults 138,493 × 26,744, 20,000,263
//! events, rank 64, 2 rounds). The data are those of `catalog_scale` (synthetic events,
//! seed 1, user exponent 0.8; 20% of each user's events held out; every item the user has
//! not rated is a candidate). The genres are synthetic too: each item has one to three of
//! 20, drawn from a hash of its index (no real data has this shape's items).
//! Prints each evaluation's seconds, the median ratio of the two, and the process's peak
//! memory (data, fit and both evaluations).

use std::time::Instant;

use recs_bench::{CatalogMetrics, evaluate_catalog_with};
use recs_core::{IdMap, ItemAttributes};
use recs_metrics::{Diversity, HeadRule, ItemFacts, Metric, Options, Popularity, Similarity};

mod scale;

const ACCURACY: &str = "roc,ndcg@10,map";
const LISTS: &str = "arp@10,aplt@10,epc@10,ild@10,coverage@10,gini@10";
const N_GENRES: u32 = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = scale::Numbers::parse(std::env::args().skip(1))?;
    let arg = |i: usize, default: usize| args.get(i, default);
    let (n_users, n_items, n_events, rank, rounds) =
        (arg(0, 138_493), arg(1, 26_744), arg(2, 20_000_263), arg(3, 64), arg(4, 2));

    let (split, catalog, model) = scale::fitted_split(n_users, n_items, n_events, rank)?;

    let popularity = Popularity::of_interactions(split.train(), HeadRule::default())?;
    let genres = synthetic_genres(catalog.n_items())?;
    let diversity = Diversity::new(&genres, Similarity::Cosine);
    let facts =
        ItemFacts { popularity: Some(&popularity), diversity: Some(&diversity), calibration: None };
    let accuracy = Metric::parse_list(ACCURACY)?;
    let with_lists = Metric::parse_list(&format!("{ACCURACY},{LISTS}"))?;
    let evaluate = |metrics: &[Metric]| -> Result<f64, Box<dyn std::error::Error>> {
        let settings = CatalogMetrics {
            metrics,
            options: Options::default(),
            max_fpr: 0.1,
            memory_budget: recs_bench::DEFAULT_MEMORY_BUDGET,
        };
        let started = Instant::now();
        let report = evaluate_catalog_with(&model, &split, &catalog, settings, facts, false)?;
        let seconds = started.elapsed().as_secs_f64();
        println!("  {seconds:.2} s: {}", scale::shown(&report));
        Ok(seconds)
    };
    let mut ratios = Vec::new();
    for round in 1..=rounds {
        println!("round {round}: accuracy only ({ACCURACY})");
        let a = evaluate(&accuracy)?;
        println!("round {round}: with the list metrics ({LISTS})");
        let b = evaluate(&with_lists)?;
        ratios.push(b / a);
    }
    ratios.sort_by(f64::total_cmp);
    let median = if ratios.len() % 2 == 1 {
        ratios[ratios.len() / 2]
    } else {
        (ratios[ratios.len() / 2 - 1] + ratios[ratios.len() / 2]) / 2.0
    };
    println!("time with the list metrics / accuracy only: median {median:.3} over {rounds} rounds");
    if let Some(peak) = scale::peak_memory() {
        println!("peak memory of this process: {peak}");
    }
    Ok(())
}

/// One to three of [`N_GENRES`] genres per item, from a hash of its index.
fn synthetic_genres(n_items: usize) -> Result<ItemAttributes, recs_core::RecsError> {
    let names: Vec<String> = (0..N_GENRES).map(|g| format!("genre{g}")).collect();
    let vocabulary = IdMap::from_ids_sorted(names.iter().map(String::as_str))?;
    let mut pairs = Vec::new();
    for item in 0..n_items as u32 {
        let h = u64::from(item).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let count = 1 + (h >> 62) as u32 % 3;
        let mut genres: Vec<u32> =
            (0..count).map(|k| ((h >> (8 * k)) % u64::from(N_GENRES)) as u32).collect();
        genres.sort_unstable();
        genres.dedup();
        pairs.extend(genres.into_iter().map(|g| (item, g, 1.0)));
    }
    ItemAttributes::from_pairs(n_items, vocabulary, pairs)
}
