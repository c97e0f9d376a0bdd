//! The comparison of a whole experiment: 20 systems × 6,040 users (MovieLens 1M's user
//! count) on synthetic, seeded per-user values; the randomised Tukey HSD with 10,000
//! permutations plus a paired t-test on each of the 190 pairs; and one pair's Fisher
//! randomisation test with 10,000 permutations (a whole table runs it per pair and metric).
//!
//! `cargo bench -p recs-stats --bench compare`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const SYSTEMS: usize = 20;
const USERS: usize = 6_040;
const PERMUTATIONS: usize = 10_000;

/// Per-user values in `[0, 1]` on a grid of 1/1000 (so with ties): a user effect, a
/// system effect and noise.
fn synthetic(seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut uniform = move || (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let users: Vec<f64> = (0..USERS).map(|_| uniform()).collect();
    (0..SYSTEMS)
        .map(|s| {
            let system = 0.01 * s as f64;
            users
                .iter()
                .map(|u| {
                    let x = 0.5 * u + system + 0.3 * uniform();
                    (x.clamp(0.0, 1.0) * 1_000.0).round() / 1_000.0
                })
                .collect()
        })
        .collect()
}

fn compare(c: &mut Criterion) {
    let systems = synthetic(42);
    let mut group = c.benchmark_group("compare");
    group.sample_size(10).measurement_time(Duration::from_secs(30));
    group.bench_function("tukey_hsd_20x6040_10000_and_190_t_tests", |bench| {
        bench.iter(|| {
            let hsd = recs_stats::randomised_tukey_hsd(&systems, PERMUTATIONS, 7).unwrap();
            let mut t_tests = Vec::with_capacity(SYSTEMS * (SYSTEMS - 1) / 2);
            for i in 0..SYSTEMS {
                for j in i + 1..SYSTEMS {
                    t_tests.push(recs_stats::paired_t_test(&systems[i], &systems[j]).unwrap());
                }
            }
            black_box((hsd, t_tests))
        });
    });
    group.bench_function("fisher_6040_10000", |bench| {
        bench.iter(|| {
            black_box(recs_stats::fisher_randomisation(&systems[0], &systems[1], PERMUTATIONS, 7))
        });
    });
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
