//! The paper's toy example (Table 1): three recommenders A, B and C, each ranking the one
//! relevant item of five instances among n = 10,000 items. Every number here is an exact
//! expectation over the sampling, computed from those fifteen ranks by `recs-sampled`: no
//! random draw enters, so the same ranks give the same numbers on any machine.

use anyhow::Result;
use rayon::prelude::*;
use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};

/// The catalog of the toy example.
pub(super) const N: u64 = 10_000;

/// A recommender of Table 1: its name and the exact ranks of the five relevant items.
#[derive(Debug, Clone, Copy)]
pub(super) struct Recommender {
    pub(super) name: &'static str,
    pub(super) ranks: [u64; 5],
}

/// Table 1's recommenders.
pub(super) const RECOMMENDERS: [Recommender; 3] = [
    Recommender { name: "A", ranks: [100, 100, 100, 100, 100] },
    Recommender { name: "B", ranks: [40, 40, 8437, 9266, 4482] },
    Recommender { name: "C", ranks: [212, 2, 743, 5342, 1548] },
];

/// The metrics of Table 1, in its column order, with their names.
pub(super) const METRICS: [(&str, RankMetric); 4] = [
    ("AUC", RankMetric::Auc),
    ("AP", RankMetric::Ap),
    ("NDCG", RankMetric::Ndcg { cutoff: None }),
    ("Recall@10", RankMetric::Recall { k: 10 }),
];

/// Table 1 as printed: each recommender's AUC, AP, NDCG and Recall@10 (three decimals).
pub(super) const TABLE_1: [[f64; 4]; 3] =
    [[0.990, 0.010, 0.150, 0.000], [0.555, 0.010, 0.122, 0.000], [0.843, 0.101, 0.208, 0.200]];

/// The sampled table as printed: each recommender's mean and spread (±) of AUC, AP, NDCG
/// and Recall@10 over the paper's repeated samples.
pub(super) const SAMPLED_TABLE: [[(f64, f64); 4]; 3] = [
    [(0.990, 0.004), (0.630, 0.129), (0.724, 0.097), (1.000, 0.000)],
    [(0.555, 0.014), (0.336, 0.073), (0.444, 0.054), (0.400, 0.000)],
    [(0.843, 0.014), (0.325, 0.050), (0.460, 0.039), (0.567, 0.092)],
];

/// How the negatives of an instance are drawn: their number and the law of the draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Draw {
    pub(super) m: u64,
    pub(super) sampling: Sampling,
}

impl Draw {
    pub(super) fn with_replacement(m: u64) -> Draw {
        Draw { m, sampling: Sampling::WithReplacement }
    }

    pub(super) fn without_replacement(m: u64) -> Draw {
        Draw { m, sampling: Sampling::WithoutReplacement }
    }

    /// `m = 99, with replacement`, as a table shows it.
    pub(super) fn describe(self) -> String {
        let how = match self.sampling {
            Sampling::WithReplacement => "with replacement",
            Sampling::WithoutReplacement => "without replacement",
        };
        format!("m = {}, {how}", self.m)
    }

    fn law(self) -> Result<SampledRank> {
        Ok(SampledRank::new(N, self.m, self.sampling)?)
    }
}

/// The exact metric of a recommender: the mean over its instances.
pub(super) fn exact(metric: RankMetric, ranks: &[u64]) -> f64 {
    ranks.iter().map(|&r| metric.value(r, N)).sum::<f64>() / ranks.len() as f64
}

/// A recommender's expected sampled value of each metric of `METRICS` under `draw`, and
/// the standard deviation of its mean over the five instances (what a table's ± over
/// repeated samples estimates). One distribution per instance serves every metric.
#[cfg(test)]
pub(super) fn expected(draw: Draw, ranks: &[u64]) -> Result<[(f64, f64); 4]> {
    expected_with(draw, &sampled_values(draw), ranks)
}

/// Each metric of `METRICS` at every sampled rank `1..=m + 1` of `draw`: what
/// the expected sampled metrics weigh, the same for every exact rank and recommender.
fn sampled_values(draw: Draw) -> [Vec<f64>; 4] {
    let size = draw.m + 1;
    METRICS.map(|(_, metric)| (1..=size).map(|j| metric.value(j, size)).collect())
}

/// A recommender's expected sampled metrics and their spread (as `expected`), with the
/// metrics' values at each sampled rank given (`sampled_values`).
fn expected_with(draw: Draw, values: &[Vec<f64>; 4], ranks: &[u64]) -> Result<[(f64, f64); 4]> {
    let law = draw.law()?;
    let mut means = [0.0f64; 4];
    let mut variances = [0.0f64; 4];
    for &r in ranks {
        let p = law.distribution(r)?;
        for (k, values) in values.iter().enumerate() {
            let (mut first, mut second) = (0.0f64, 0.0f64);
            for (pj, &v) in p.iter().zip(values) {
                first += pj * v;
                second += pj * v * v;
            }
            means[k] += first;
            variances[k] += (second - first * first).max(0.0);
        }
    }
    let count = ranks.len() as f64;
    Ok(std::array::from_fn(|k| (means[k] / count, variances[k].sqrt() / count)))
}

/// Each recommender's expected sampled metrics under `draw`, in `RECOMMENDERS` order.
pub(super) fn expected_all(draw: Draw) -> Result<Vec<[(f64, f64); 4]>> {
    let values = sampled_values(draw);
    RECOMMENDERS.iter().map(|rec| expected_with(draw, &values, &rec.ranks)).collect()
}

/// The expected sampled value of every metric for every recommender at each `m` of `ms`
/// (drawn by `sampling`): `[m][recommender][metric]`.
pub(super) fn sweep(ms: &[u64], sampling: Sampling) -> Result<Vec<Vec<[f64; 4]>>> {
    // Each m on its own, collected in order: the same values at any thread count.
    ms.par_iter()
        .map(|&m| {
            let all = expected_all(Draw { m, sampling })?;
            Ok(all.iter().map(|values| values.map(|(mean, _)| mean)).collect())
        })
        .collect()
}

/// The order of the three recommenders by `values` (one per recommender), best first, as
/// their names, with `=` between recommenders whose values are equal but for rounding
/// (12 decimals): `ACB`, `A=B=C` (every recall at 1 when m < 10).
pub(super) fn order(values: &[f64]) -> String {
    let rounded: Vec<f64> = values.iter().map(|v| (v * 1e12).round() / 1e12).collect();
    let mut named: Vec<(&str, f64)> =
        RECOMMENDERS.iter().map(|r| r.name).zip(rounded.iter().copied()).collect();
    named.sort_by(|x, y| y.1.total_cmp(&x.1));
    let mut out = String::new();
    for (i, (name, value)) in named.iter().enumerate() {
        if i > 0 && *value == named[i - 1].1 {
            out.push('=');
        }
        out.push_str(name);
    }
    out
}

/// The pairs `reference` orders by more than `tau`, as `(i, j, reference[i] − reference[j])`.
fn ordered_pairs(reference: &[f64], tau: f64) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
    (0..reference.len()).flat_map(move |i| {
        (i + 1..reference.len()).filter_map(move |j| {
            let lead = reference[i] - reference[j];
            (lead.abs() > tau).then_some((i, j, lead))
        })
    })
}

/// How many of the pairs `reference` orders by more than `tau` `values` does not order
/// the same way by more than `tau` (a tie within `tau` counts).
pub(super) fn not_kept(values: &[f64], reference: &[f64], tau: f64) -> usize {
    ordered_pairs(reference, tau)
        .filter(|&(i, j, lead)| (values[i] - values[j]) * lead.signum() <= tau)
        .count()
}

/// How many of the pairs `reference` orders by more than `tau` `values` orders the other
/// way by more than `tau`.
pub(super) fn reversed(values: &[f64], reference: &[f64], tau: f64) -> usize {
    ordered_pairs(reference, tau)
        .filter(|&(i, j, lead)| (values[i] - values[j]) * lead.signum() < -tau)
        .count()
}

/// The stretches of `ms` over which the order of `values[m]` stays the same: (first m,
/// last m, order).
pub(super) fn stretches(ms: &[u64], values: &[Vec<f64>]) -> Vec<(u64, u64, String)> {
    let mut out: Vec<(u64, u64, String)> = Vec::new();
    for (&m, here) in ms.iter().zip(values) {
        let here = order(here);
        match out.last_mut() {
            Some((_, last, o)) if *o == here => *last = m,
            _ => out.push((m, m, here)),
        }
    }
    out
}

/// The largest reversal of a pair across `values` (one row per sample size, one value
/// per recommender): over the pairs, the smaller of the pair's largest lead either way;
/// positive when some pair leads one way at one size and the other way at another.
pub(super) fn largest_reversal(values: &[Vec<f64>]) -> (f64, String) {
    let mut best = (f64::NEG_INFINITY, String::new());
    for i in 0..RECOMMENDERS.len() {
        for j in i + 1..RECOMMENDERS.len() {
            let leads = values.iter().map(|v| v[i] - v[j]);
            let (most, least) = leads
                .fold((f64::NEG_INFINITY, f64::INFINITY), |(hi, lo), d| (hi.max(d), lo.min(d)));
            let reversal = most.min(-least);
            if reversal > best.0 {
                best = (reversal, format!("{} and {}", RECOMMENDERS[i].name, RECOMMENDERS[j].name));
            }
        }
    }
    best
}

/// A corrected estimator's expectation for each recommender, from the exact ranks, and
/// the standard deviation of its five-instance mean over samples.
pub(super) fn corrected(estimator: &Estimator) -> Result<Vec<(f64, f64)>> {
    RECOMMENDERS
        .iter()
        .map(|rec| {
            let (mut mean, mut variance) = (0.0f64, 0.0f64);
            for &r in &rec.ranks {
                let (m, v) = estimator.moments(r)?;
                mean += m;
                variance += v;
            }
            let count = rec.ranks.len() as f64;
            Ok((mean / count, variance.sqrt() / count))
        })
        .collect()
}

/// The estimators of `metrics` under each of `corrections` for `draw` (uniform prior over
/// exact ranks), by correction then metric; the least-squares ones share their system.
pub(super) fn estimators(
    metrics: &[RankMetric],
    draw: Draw,
    corrections: &[Correction],
) -> Result<Vec<Vec<Estimator>>> {
    Ok(Estimator::for_corrections(metrics, draw.law()?, corrections)?)
}

/// The value of the estimator that ignores the sampled rank: the prior mean of the metric
/// over exact ranks (uniform), `Σ_r M(r; n) / n`. It cannot carry any recommender's
/// signal, so it is the placebo of a claim that a correction improves the estimate.
pub(super) fn constant(metric: RankMetric) -> f64 {
    (1..=N).map(|r| metric.value(r, N)).sum::<f64>() / N as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact metrics are Table 1's to its printed digits.
    #[test]
    fn exact_metrics_are_table_1() {
        for (rec, printed) in RECOMMENDERS.iter().zip(TABLE_1) {
            for ((_, metric), value) in METRICS.iter().zip(printed) {
                assert!((exact(*metric, &rec.ranks) - value).abs() <= 0.0005, "{}", rec.name);
            }
        }
    }

    /// The spread of the five-instance mean by hand for A at m = 1: each instance's
    /// sampled rank is 1 or 2 with P(2) = 99/9999, so AP's variance is p(1 − p)/4.
    #[test]
    fn spread_is_that_of_the_five_instance_mean() {
        let values = expected(Draw::with_replacement(1), &[100; 5]).unwrap();
        let p = 99.0 / 9999.0;
        let (mean, spread) = values[1];
        assert!((mean - (1.0 - p / 2.0)).abs() < 1e-12);
        assert!((spread - (p * (1.0 - p) / 4.0 / 5.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn orders_and_discordant_pairs() {
        assert_eq!(order(&[0.1, 0.3, 0.2]), "BCA");
        assert_eq!(order(&[0.1, 0.1, 0.2]), "CA=B");
        assert_eq!(order(&[1.0 - 1e-16, 1.0, 1.0 - 2e-16]), "A=B=C");
        assert_eq!(not_kept(&[0.3, 0.2, 0.1], &[0.1, 0.2, 0.3], 0.01), 3);
        assert_eq!(reversed(&[0.3, 0.2, 0.1], &[0.1, 0.2, 0.3], 0.01), 3);
        // A tie within τ in the reference counts nothing; a tie within τ against an order
        // is not kept, and not reversed.
        assert_eq!(not_kept(&[0.3, 0.205, 0.2], &[0.0, 0.005, 0.2], 0.01), 2);
        assert_eq!(reversed(&[0.3, 0.205, 0.2], &[0.0, 0.005, 0.2], 0.01), 1);
        let stretches =
            stretches(&[1, 2, 3], &[vec![3.0, 2.0, 1.0], vec![3.0, 2.0, 1.0], vec![1.0, 2.0, 3.0]]);
        assert_eq!(stretches, vec![(1, 2, "ABC".to_string()), (3, 3, "CBA".to_string())]);
        let (reversal, pair) = largest_reversal(&[vec![0.5, 0.0, 0.1], vec![0.2, 0.0, 0.6]]);
        assert!((reversal - 0.4).abs() < 1e-12 && pair == "A and C", "{reversal} {pair}");
    }

    /// The placebo's AP is the harmonic number over n.
    #[test]
    fn constant_estimator_is_the_prior_mean() {
        let harmonic: f64 = (1..=N).map(|r| 1.0 / r as f64).sum();
        assert!((constant(RankMetric::Ap) - harmonic / N as f64).abs() < 1e-15);
        assert!((constant(RankMetric::Recall { k: 10 }) - 0.001).abs() < 1e-15);
    }
}
