//! Fit and scoring benchmarks at MovieLens 100K size (943 × 1,682, 10^5 events) and on a
//! synthetic MovieLens-1M-size matrix (6,040 × 3,706, 10^6 events).
//!
//! Run briefly with `cargo bench -p recs-models-latent -- --warm-up-time 1 --measurement-time 3`.
//! With `RECS_BENCH_EXPORT=DIR` set, the two matrices are also written to `DIR` as
//! `<name>.tsv`, which `tools/bench_latent.py` uses to time scipy's `svds` and the
//! `implicit` package on exactly the same data in the same run.
//!
//! # Measured
//!
//! On the 2-core development machine while other builds were running (load average 3–6,
//! so absolute times are noisy; ratios from one run are what matter), criterion means:
//!
//! | bench | ML-100K size | ML-1M size |
//! |---|---|---|
//! | `puresvd-50/fit` (faer's `partial_svd`, sequential; see below for today's solver) | 90–140 ms | 0.68–1.15 s |
//! | `puresvd-50/score-block-256-users` | 0.25 ms | 0.57 ms |
//! | `puresvd-50/score-one-user` | 0.14 ms | 0.31 ms |
//! | `ials-20/fit-3-sweeps` | 66–116 ms | 0.46–0.78 s |
//! | `als-20/fit-3-sweeps` | 52–62 ms | 0.35–0.39 s |
//! | `aspect-6/fit-20-iterations` | 65 ms | |
//! | `lpca-2/fit-5-sweeps-per-stage` | 1.5–2.2 s | |
//!
//! `python3 tools/bench_latent.py --target-dir $CARGO_TARGET_DIR` (numpy 2.4.6, scipy
//! 1.17.1, implicit 0.7.3 with single-threaded BLAS as it asks; the peers best of 3),
//! peer time / our time in two runs:
//!
//! | comparison | ML-100K size | ML-1M size |
//! |---|---|---|
//! | PureSVD rank 50 vs scipy `svds(k=50)` (ARPACK) | 3.25, 1.90 | 2.22, 1.36 |
//! | iALS 20 factors, 3 sweeps vs `implicit` ALS (3 conjugate-gradient steps per row) | 2.84, 2.43 | 1.38, 1.27 |
//! | iALS vs `implicit` ALS with exact Cholesky solves (`use_cg=False`), as ours | 2.41, 3.49 | 3.14, 3.34 |
//!
//! PureSVD now fits with its own restarted Lanczos solver (`src/lanczos.rs`), because
//! faer's could return a singular triplet twice. On the idle machine, three runs of the
//! script (criterion means; peers best of 3; 2 threads). The first two ran before the
//! solver ran inside a rayon scope: its passes, about ten per Lanczos step, were each
//! handed from the calling thread to the pool and waited for, and at ML-100K size those
//! handoffs took about 40% of a fit on one thread. The second also had the restart
//! rotation in register tiles.
//!
//! | comparison | peer | recs | peer / recs |
//! |---|---|---|---|
//! | ML-100K size: PureSVD rank 50 vs scipy `svds(k=50)` | 68, 64, 95 ms | 176, 161, 104 ms | 0.39, 0.40, 0.92 |
//! | ML-1M size: PureSVD rank 50 vs scipy `svds(k=50)` | 703, 708, 866 ms | 747, 643, 474 ms | 0.94, 1.10, 1.83 |
//! | ML-100K size: iALS vs `implicit` (conjugate gradients) | 38, 38, 42 ms | 48, 49, 40 ms | 0.78, 0.77, 1.05 |
//! | ML-1M size: iALS vs `implicit` (conjugate gradients) | 353, 351, 360 ms | 317, 315, 271 ms | 1.11, 1.12, 1.33 |
//!
//! The peers' times vary between runs by up to 40% (the iALS code did not change), so
//! read each run's ratio, not times across runs. On one thread, on a 943 × 1,682
//! power-law matrix, the solver takes 157 ms in a scope, 265 ms before.
//! At MovieLens-20M shape the new solver is 1.5× faster than faer's on two threads
//! (`docs/architecture.md`, "Workstations").
//!
//! Before the normal equations of a row were accumulated as one matrix product
//! (`Zᵀ Z` with faer's kernels) instead of one rank-one update per event, iALS took
//! 1.9 s on the ML-1M-size matrix: 0.57 of the speed of `implicit` with conjugate
//! gradients.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use recs_core::{Fit, Interactions, Recommender, TrainData};
use recs_models_latent::{AlsParams, AspectParams, LpcaParams, PureSvdParams};
use recs_testkit::bench::{export, skewed as synthetic};

fn bench_size(c: &mut Criterion, name: &str, train: &Interactions) {
    export(name, train);
    let data = TrainData::new(train, 1);
    let users: Vec<u32> = (0..256.min(train.n_users()) as u32).collect();
    let mut block = vec![0.0f32; users.len() * train.n_items()];
    let items: Vec<u32> = (0..train.n_items() as u32).collect();
    let mut row = vec![0.0f32; items.len()];

    let svd = PureSvdParams::new(50).expect("rank");
    c.bench_function(&format!("{name}/puresvd-50/fit"), |b| {
        b.iter(|| black_box(svd.fit(&data).expect("fit")))
    });
    let model = svd.fit(&data).expect("fit");
    c.bench_function(&format!("{name}/puresvd-50/score-block-256-users"), |b| {
        b.iter(|| model.score_block(black_box(&users), &mut block).expect("score"))
    });
    c.bench_function(&format!("{name}/puresvd-50/score-catalog-256-users"), |b| {
        b.iter(|| model.score_catalog(black_box(&users), &mut block).expect("score"))
    });
    c.bench_function(&format!("{name}/puresvd-50/score-one-user"), |b| {
        b.iter(|| model.score(black_box(7), &items, &mut row).expect("score"))
    });

    let als = AlsParams::implicit(20, 0.1, 40.0).and_then(|p| p.with_iterations(3)).expect("als");
    c.bench_function(&format!("{name}/ials-20/fit-3-sweeps"), |b| {
        b.iter(|| black_box(als.fit(&data).expect("fit")))
    });
    let explicit = AlsParams::explicit(20, 0.1).and_then(|p| p.with_iterations(3)).expect("als");
    c.bench_function(&format!("{name}/als-20/fit-3-sweeps"), |b| {
        b.iter(|| black_box(explicit.fit(&data).expect("fit")))
    });
}

fn movielens_100k_size(c: &mut Criterion) {
    let train = synthetic(943, 1682, 100_000, 1);
    bench_size(c, "ml100k-size", &train);
    let data = TrainData::new(&train, 1);
    let aspect = AspectParams::new(6)
        .and_then(|p| p.with_holdout(0.0))
        .and_then(|p| p.with_iterations(20, 0.0))
        .expect("aspect");
    c.bench_function("ml100k-size/aspect-6/fit-20-iterations", |b| {
        b.iter(|| black_box(aspect.fit(&data).expect("fit")))
    });
    let lpca = LpcaParams::new(2).with_iterations(5, 0.0).expect("lpca");
    c.bench_function("ml100k-size/lpca-2/fit-5-sweeps-per-stage", |b| {
        b.iter(|| black_box(lpca.fit(&data).expect("fit")))
    });
}

fn movielens_1m_size(c: &mut Criterion) {
    let train = synthetic(6040, 3706, 1_000_000, 2);
    bench_size(c, "ml1m-size", &train);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = movielens_100k_size, movielens_1m_size
}
criterion_main!(benches);
