//! Fitting item-kNN (and user-kNN) on MovieLens 100K (`RECS_DATA_DIR`) and on a synthetic
//! power-law set of about one million events (6,040 users × 3,706 items, the shape of
//! MovieLens 1M).
//!
//! Run with `cargo bench -p recs-models-knn -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use rand_core::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use recs_core::{DuplicatePolicy, Event, Fit, Interactions, TrainData};
use recs_models_knn::{ItemKnnParams, KnnParams, Similarity, UserKnnParams};

/// MovieLens 100K `u.data` (user, item, rating, time; tab-separated), if available.
fn movielens_100k() -> Option<Interactions> {
    let dir = std::env::var_os("RECS_DATA_DIR")?;
    let text = std::fs::read_to_string(PathBuf::from(dir).join("ml-100k/u.data")).ok()?;
    let mut events = Vec::new();
    for line in text.lines() {
        let mut fields = line.split('\t');
        let user: u32 = fields.next()?.parse().ok()?;
        let item: u32 = fields.next()?.parse().ok()?;
        let rating: f32 = fields.next()?.parse().ok()?;
        events.push(Event::new(user - 1, item - 1, rating));
    }
    Interactions::from_events(943, 1682, events, DuplicatePolicy::Error).ok()
}

fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// About `target` distinct events: item popularity ∝ 1/(rank+10)^0.9, user activity
/// ∝ 1/(rank+20)^0.7, at least 20 events per user; ratings 1–5.
fn synthetic(n_users: usize, n_items: usize, target: usize, seed: u64) -> Interactions {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cumulative = Vec::with_capacity(n_items);
    let mut total = 0.0;
    for i in 0..n_items {
        total += 1.0 / ((i + 10) as f64).powf(0.9);
        cumulative.push(total);
    }
    let activity: Vec<f64> = (0..n_users).map(|u| 1.0 / ((u + 20) as f64).powf(0.7)).collect();
    let activity_total: f64 = activity.iter().sum();
    let mut events = Vec::with_capacity(target + n_users * 20);
    let mut seen = vec![u32::MAX; n_items];
    for (user, weight) in activity.iter().enumerate() {
        let wanted = ((target as f64 * weight / activity_total) as usize).clamp(20, n_items / 2);
        let mut taken = 0;
        while taken < wanted {
            let x = uniform(&mut rng) * total;
            let item = cumulative.partition_point(|&c| c < x).min(n_items - 1);
            if seen[item] != user as u32 {
                seen[item] = user as u32;
                let rating = 1.0 + (rng.next_u64() % 5) as f32;
                events.push(Event::new(user as u32, item as u32, rating));
                taken += 1;
            }
        }
    }
    Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error)
        .expect("generated events are valid")
}

fn bench_fit(c: &mut Criterion) {
    let params = |similarity| KnnParams::new().k(20).similarity(similarity);
    let mut group = c.benchmark_group("fit");
    group.sample_size(10);
    if let Some(ml) = movielens_100k() {
        for similarity in [Similarity::Cosine, Similarity::Pearson] {
            let item = ItemKnnParams::new(params(similarity)).expect("valid");
            group.bench_function(format!("item-knn/{similarity}/ml-100k"), |b| {
                b.iter(|| black_box(item.fit(&TrainData::new(&ml, 1)).expect("fits")))
            });
        }
        let user = UserKnnParams::new(params(Similarity::Cosine)).expect("valid");
        group.bench_function("user-knn/cosine/ml-100k", |b| {
            b.iter(|| black_box(user.fit(&TrainData::new(&ml, 1)).expect("fits")))
        });
    } else {
        eprintln!("RECS_DATA_DIR is not set: skipping the MovieLens 100K benches");
    }
    let synthetic = synthetic(6040, 3706, 1_000_000, 7);
    let item = ItemKnnParams::new(params(Similarity::Cosine)).expect("valid");
    group.bench_function(format!("item-knn/cosine/synthetic-{}", synthetic.n_events()), |b| {
        b.iter(|| black_box(item.fit(&TrainData::new(&synthetic, 1)).expect("fits")))
    });
    group.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
