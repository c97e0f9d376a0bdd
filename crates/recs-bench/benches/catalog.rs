//! Full-catalog evaluation against its floor, on a MovieLens-20M-wide catalog (26,744
//! items) with fewer users so that criterion can repeat it: the streamed evaluation of a
//! fitted PureSVD (rank 64; roc, croc, ndcg@10, r@20, map), the bare exact scoring of the
//! same blocks of users (no metrics), and the same blocks as one `f32` matrix product.
//! The ratios of the three are what to watch; `examples/catalog_scale.rs` runs the full
//! MovieLens-20M shape once.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rayon::prelude::*;
use recs_bench::{CatalogMetrics, catalog_block_users, evaluate_catalog};
use recs_core::{Fit, Recommender, TrainData};
use recs_data::PowerLaw;
use recs_metrics::{Metric, Options};
use recs_models_latent::PureSvdParams;
use recs_split::{Amount, JudgmentOptions, Protocol, SplitId};

fn catalog(c: &mut Criterion) {
    let (n_users, n_items) = (2_000, 26_744);
    let data = PowerLaw {
        n_users,
        n_items,
        n_events: 300_000,
        seed: 1,
        user_exponent: 0.8,
        ..PowerLaw::default()
    }
    .generate()
    .expect("synthetic data");
    let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = protocol.split(&data.interactions, 1, SplitId::default()).expect("split");
    let judged = split
        .catalog_judgments(&JudgmentOptions::implicit())
        .expect("judgments")
        .expect("a full catalog");
    let model =
        PureSvdParams::new(64).and_then(|p| p.fit(&TrainData::new(split.train(), 1))).expect("fit");
    let metrics = Metric::parse_list("roc,croc,ndcg@10,r@20,map").expect("metrics");
    let metrics = CatalogMetrics {
        metrics: &metrics,
        options: Options::default(),
        max_fpr: 0.1,
        memory_budget: recs_bench::DEFAULT_MEMORY_BUDGET,
    };
    let block = catalog_block_users(n_items);
    // The same blocks as the evaluation, in parallel as it runs them, scored and dropped.
    let bare = |score: &BlockScorer<'_>| {
        judged.users().par_chunks(block).for_each_init(
            || vec![0.0f32; block * n_items],
            |buffer, chunk| {
                let out = &mut buffer[..chunk.len() * n_items];
                score(chunk, out).expect("score");
                black_box(out);
            },
        )
    };

    let mut group = c.benchmark_group("catalog-2000x26744-rank64");
    group.sample_size(10);
    group.bench_function("streamed-evaluation", |b| {
        b.iter(|| evaluate_catalog(&model, &split, &judged, metrics, false).expect("evaluate"))
    });
    group.bench_function("exact-scoring-same-blocks", |b| {
        b.iter(|| bare(&|chunk, out| model.score_catalog(chunk, out)))
    });
    group.bench_function("f32-gemm-same-blocks", |b| {
        b.iter(|| bare(&|chunk, out| model.score_block(chunk, out)))
    });
    group.finish();
}

/// Scores every item for a block of users into a buffer.
type BlockScorer<'a> = dyn Fn(&[u32], &mut [f32]) -> recs_core::Result<()> + Sync + 'a;

criterion_group!(benches, catalog);
criterion_main!(benches);
