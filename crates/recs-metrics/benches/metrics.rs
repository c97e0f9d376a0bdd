//! Criterion benchmarks: pooled ROC AUC, CROC and per-user ranking metrics on
//! generated data (deterministic xorshift stream, so every run measures the same input).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use recs_core::Judgments;
use recs_metrics::{Metric, Options, Scored, croc, evaluate, roc_auc};

#[path = "../tests/support/mod.rs"]
mod support;

use support::Stream;

/// `users` users with 100 candidates each, 10% relevant, scores mildly informative.
fn ranking_data(users: usize) -> (Judgments, Vec<f32>) {
    let mut s = Stream(0x9E37_79B9_7F4A_7C15);
    let items: Vec<u32> = (0..100).collect();
    let mut builder = Judgments::builder(users, 100);
    let mut scores = Vec::with_capacity(users * 100);
    for u in 0..users {
        let grades: Vec<f32> = (0..100).map(|_| if s.unit() < 0.1 { 1.0 } else { 0.0 }).collect();
        scores.extend(grades.iter().map(|g| s.unit() + 0.3 * g));
        builder.push_user(u as u32, &items, &grades).unwrap();
    }
    (builder.build().unwrap(), scores)
}

fn benches(c: &mut Criterion) {
    let mut s = Stream(42);
    let n = 1_000_000;
    let labels: Vec<bool> = (0..n).map(|_| s.unit() < 0.2).collect();
    let scores: Vec<f32> = labels.iter().map(|&l| s.unit() + if l { 0.2 } else { 0.0 }).collect();
    c.bench_function("roc_auc 1e6 pairs", |b| {
        b.iter(|| roc_auc(black_box(&scores), black_box(&labels)).unwrap())
    });

    let (judgments, scores) = ranking_data(10_000);
    let scored = Scored::new(&judgments, &scores).unwrap();
    c.bench_function("croc 1e4 users x 100", |b| b.iter(|| croc(black_box(&scored), 1.0).unwrap()));
    let metrics = Metric::parse_list("p@10,r@10,ndcg@10,map,mrr").unwrap();
    c.bench_function("p,r,ndcg@10,map,mrr 1e4 users x 100", |b| {
        b.iter(|| evaluate(black_box(&scored), &metrics, &Options::default(), 0.3, false).unwrap())
    });
}

criterion_group!(metrics, benches);
criterion_main!(metrics);
