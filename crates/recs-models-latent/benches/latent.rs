//! Fit and scoring benchmarks at MovieLens 100K size (943 × 1,682, 10^5 events) and on a
//! synthetic MovieLens-1M-size matrix (6,040 × 3,706, 10^6 events).
//!
//! Run briefly with `cargo bench -p recs-models-latent -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
use recs_models_latent::{AlsParams, AspectParams, LpcaParams, PureSvdParams};

/// A matrix with skewed user activity and item popularity (both roughly Zipf-like),
/// ratings 1–5, exactly `events` distinct pairs. Deterministic for a seed.
fn synthetic(users: usize, items: usize, events: usize, seed: u64) -> Interactions {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut seen = std::collections::HashSet::with_capacity(events);
    let mut list = Vec::with_capacity(events);
    while list.len() < events {
        // Inverse-power draws concentrate on small indices.
        let u = ((users as f64) * unit().powf(1.6)) as u32 % users as u32;
        let i = ((items as f64) * unit().powf(2.2)) as u32 % items as u32;
        if seen.insert((u, i)) {
            list.push(Event::new(u, i, 1.0 + (unit() * 5.0).floor().min(4.0) as f32));
        }
    }
    Interactions::from_events(users, items, list, DuplicatePolicy::Error).expect("valid events")
}

fn bench_size(c: &mut Criterion, name: &str, train: &Interactions) {
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
