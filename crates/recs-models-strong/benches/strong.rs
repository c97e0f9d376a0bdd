//! Fit benchmarks of the strong baselines at MovieLens 100K size (943 × 1,682, 10^5
//! events) and on a synthetic MovieLens-1M-size matrix (6,040 × 3,706, 10^6 events), the
//! matrices of `recs-models-latent`'s bench, and SLIM on MovieLens 100K itself when
//! `RECS_DATA_DIR` holds it.
//!
//! Run briefly with `cargo bench -p recs-models-strong -- --warm-up-time 1 --measurement-time 3`.
//! With `RECS_BENCH_EXPORT=DIR` set, the matrices are also written to `DIR` as
//! `<name>.tsv`, which `tools/bench_strong.py` uses to time numpy's closed form of EASE,
//! scikit-learn's elastic net per item (SLIM) and the `implicit` package's BPR on exactly
//! the same data in the same run. The measured figures are in `docs/architecture.md`
//! (Workstations, "The strong baselines against their peers").

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use recs_core::{Fit, Interactions, TrainData};
use recs_models_strong::{BprParams, EaseParams, Rp3BetaParams, SlimParams};
use recs_testkit::bench::{export, skewed};

fn bench_size(c: &mut Criterion, name: &str, train: &Interactions) {
    export(name, train);
    let data = TrainData::new(train, 1);
    let ease = EaseParams::new(500.0).expect("lambda");
    c.bench_function(&format!("{name}/ease-500/fit"), |b| {
        b.iter(|| black_box(ease.fit(&data).expect("fit")))
    });
    let walk = Rp3BetaParams::default();
    c.bench_function(&format!("{name}/rp3beta/fit"), |b| {
        b.iter(|| black_box(walk.fit(&data).expect("fit")))
    });
    // One epoch: as many sampled triples as training events, the unit `implicit` counts
    // its iterations in.
    let bpr = BprParams::new(
        BprParams::DEFAULT_FACTORS,
        BprParams::DEFAULT_LEARNING_RATE,
        BprParams::DEFAULT_LAMBDA,
        1,
        BprParams::DEFAULT_BIAS,
    )
    .expect("bpr");
    c.bench_function(&format!("{name}/bpr-64/fit-1-epoch"), |b| {
        b.iter(|| black_box(bpr.fit(&data).expect("fit")))
    });
}

fn movielens_100k_size(c: &mut Criterion) {
    bench_size(c, "ml100k-size", &skewed(943, 1682, 100_000, 1));
}

fn movielens_1m_size(c: &mut Criterion) {
    bench_size(c, "ml1m-size", &skewed(6040, 3706, 1_000_000, 2));
}

/// SLIM with its defaults on MovieLens 100K (every rating an event), as the peer script
/// runs scikit-learn on it; skipped without the data.
fn movielens_100k_slim(c: &mut Criterion) {
    let Some(root) = recs_testkit::real_data_dir() else {
        eprintln!("RECS_DATA_DIR is not set: the SLIM bench on MovieLens 100K is skipped");
        return;
    };
    let train =
        recs_data::load_movielens_100k(&root.join("ml-100k")).expect("MovieLens 100K").interactions;
    export("ml100k", &train);
    let data = TrainData::new(&train, 1);
    let slim =
        SlimParams::new(SlimParams::DEFAULT_ALPHA, SlimParams::DEFAULT_L1_RATIO).expect("slim");
    c.bench_function("ml100k/slim/fit", |b| b.iter(|| black_box(slim.fit(&data).expect("fit"))));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = movielens_100k_size, movielens_1m_size, movielens_100k_slim
}
criterion_main!(benches);
