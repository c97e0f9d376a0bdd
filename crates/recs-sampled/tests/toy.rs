//! The toy example of Krichene & Rendle (2020): three recommenders, five instances each, a
//! catalog of 10,000 items. Its expected sampled metrics are deterministic given the
//! exact ranks, so the published table and the orderings of Figure 2 are reproduced
//! exactly (to the digits printed; the table's ± is the spread of its simulation).

use recs_sampled::{RankMetric, SampledRank, Sampling};

const N: u64 = 10_000;
const A: [u64; 5] = [100; 5];
const B: [u64; 5] = [40, 40, 8437, 9266, 4482];
const C: [u64; 5] = [212, 2, 743, 5342, 1548];

fn expected(m: u64, sampling: Sampling, metric: RankMetric, ranks: &[u64]) -> f64 {
    SampledRank::new(N, m, sampling).unwrap().expected_mean(metric, ranks).unwrap()
}

const AP: RankMetric = RankMetric::Ap;
const NDCG: RankMetric = RankMetric::Ndcg { cutoff: None };
const R10: RankMetric = RankMetric::Recall { k: 10 };

/// The sampled table (m = 99, means of a simulation): AP, NDCG and Recall@10 lie within
/// the table's printed ± of the exact expectations, and AUC equals its exact value.
#[test]
fn the_sampled_table_is_the_expectation() {
    let w = Sampling::WithReplacement;
    for (ranks, published) in [
        (&A, [(0.630, 0.129), (0.724, 0.097), (1.000, 0.000)]),
        (&B, [(0.336, 0.073), (0.444, 0.054), (0.400, 0.000)]),
        (&C, [(0.325, 0.050), (0.460, 0.039), (0.567, 0.092)]),
    ] {
        for (metric, (mean, spread)) in [AP, NDCG, R10].into_iter().zip(published) {
            let e = expected(99, w, metric, ranks);
            assert!((e - mean).abs() <= spread + 0.0005, "{metric} {ranks:?}: {e} vs {mean}");
        }
        let auc = expected(99, w, RankMetric::Auc, ranks);
        let exact: f64 = ranks.iter().map(|&r| RankMetric::Auc.value(r, N)).sum::<f64>() / 5.0;
        assert!((auc - exact).abs() < 1e-12, "sampled AUC is unbiased");
    }
    // The expectations to four digits, and without replacement within 0.001 of them.
    // Ten-thousandths, as integers.
    let four = |x: f64| (x * 1e4).round() as i64;
    assert_eq!(four(expected(99, w, AP, &A)), 6366);
    assert_eq!(four(expected(99, w, NDCG, &A)), 7290);
    assert_eq!(four(expected(99, w, AP, &B)), 3407);
    assert_eq!(four(expected(99, w, NDCG, &B)), 4473);
    assert_eq!(four(expected(99, w, AP, &C)), 3262);
    assert_eq!(four(expected(99, w, NDCG, &C)), 4600);
    assert_eq!(four(expected(99, w, R10, &C)), 5694);
    let without = expected(99, Sampling::WithoutReplacement, AP, &A);
    assert_eq!(four(without), 6358);
}

/// The order of the three recommenders by a metric, best first, as a string (`ACB`).
fn order(m: u64, metric: RankMetric) -> String {
    let mut named = [('A', &A), ('B', &B), ('C', &C)]
        .map(|(name, ranks)| (name, expected(m, Sampling::WithReplacement, metric, ranks)));
    named.sort_by(|x, y| y.1.total_cmp(&x.1));
    named.iter().map(|(name, _)| *name).collect()
}

/// The stretches of `m` in `1..=max` over which the order by `metric` stays the same, as
/// (first m, order).
fn stretches(metric: RankMetric, max: u64) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = Vec::new();
    for m in 1..=max {
        let here = order(m, metric);
        if out.last().is_none_or(|(_, last)| *last != here) {
            out.push((m, here));
        }
    }
    out
}

/// Figure 2: the order by expected sampled AP and NDCG changes with the number of samples.
/// The sequence of orders is the one the figure shows, and each change falls within a few
/// samples of where the figure's curves cross (read off it: about 80, 290, 440 and 960
/// for AP; about 700 for NDCG).
#[test]
fn figure_2_orders_change_with_the_sample_size() {
    let ap = stretches(AP, 1000);
    let orders: Vec<&str> = ap.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(orders, ["ACB", "ABC", "ACB", "CAB", "CBA"], "{ap:?}");
    for ((start, _), read) in ap.iter().skip(1).zip([80u64, 290, 440, 960]) {
        assert!(start.abs_diff(read) <= 10, "AP changes at {start}, the figure near {read}");
    }
    let ndcg = stretches(NDCG, 1000);
    let orders: Vec<&str> = ndcg.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(orders, ["ACB", "CAB"], "{ndcg:?}");
    assert!(ndcg[1].0.abs_diff(700) <= 25, "{ndcg:?}");
    // The exact orders, for comparison: C first by AP and NDCG, A first by AUC.
    let exact =
        |metric: RankMetric, ranks: &[u64]| ranks.iter().map(|&r| metric.value(r, N)).sum::<f64>();
    assert!(exact(AP, &C) > exact(AP, &A) && exact(NDCG, &C) > exact(NDCG, &A));
}

/// At m = 1 every metric is an affine function of AUC, so every order is AUC's, and a
/// recall at k ≥ 2 is 1 whatever the ranks.
#[test]
fn with_one_sample_every_metric_collapses_to_auc() {
    let auc = order(1, RankMetric::Auc);
    assert_eq!(auc, "ACB");
    assert_eq!(order(1, AP), auc);
    assert_eq!(order(1, NDCG), auc);
    for ranks in [&A, &B, &C] {
        let r2 = expected(1, Sampling::WithReplacement, RankMetric::Recall { k: 2 }, ranks);
        assert!((r2 - 1.0).abs() < 1e-12);
        assert!((expected(9, Sampling::WithReplacement, R10, ranks) - 1.0).abs() < 1e-12);
    }
}
