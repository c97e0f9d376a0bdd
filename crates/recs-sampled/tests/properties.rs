//! Properties of the sampled rank that hold for every catalog, sample size and rank.

use proptest::prelude::*;
use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};

fn case() -> impl Strategy<Value = (u64, u64, u64, bool)> {
    (2u64..400).prop_flat_map(|n| (Just(n), 1u64..n, 1u64..=n, any::<bool>()))
}

proptest! {
    /// A distribution over 1..=m + 1 whose mean is `1 + m (r − 1)/(n − 1)` under either
    /// sampling, so that sampled AUC is exactly unbiased for the exact AUC.
    #[test]
    fn the_sampled_rank_is_unbiased_for_the_rank_and_auc((n, m, r, with) in case()) {
        let sampling = if with { Sampling::WithReplacement } else { Sampling::WithoutReplacement };
        let s = SampledRank::new(n, m, sampling).unwrap();
        let d = s.distribution(r).unwrap();
        prop_assert_eq!(d.len() as u64, m + 1);
        prop_assert!(d.iter().all(|&p| p >= 0.0));
        prop_assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mean: f64 = d.iter().enumerate().map(|(k, p)| (k + 1) as f64 * p).sum();
        let want = 1.0 + m as f64 * (r - 1) as f64 / (n - 1) as f64;
        prop_assert!((mean - want).abs() < 1e-9 * want, "{} vs {}", mean, want);
        let auc = s.expected(RankMetric::Auc, r).unwrap();
        prop_assert!((auc - RankMetric::Auc.value(r, n)).abs() < 1e-12);
    }

    /// Without replacement the sampled rank is at most the exact one (only items above it
    /// can be drawn above it), so sampled recall at k is never below the exact one. With
    /// replacement an item above can be drawn more than once, and it can be.
    #[test]
    fn sampled_recall_overstates_without_replacement((n, m, r, _) in case(), k in 1u64..20) {
        let s = SampledRank::new(n, m, Sampling::WithoutReplacement).unwrap();
        let recall = RankMetric::Recall { k };
        prop_assert!(s.expected(recall, r).unwrap() >= recall.value(r, n) - 1e-12);
        let d = s.distribution(r).unwrap();
        prop_assert!(d.iter().skip(r as usize).all(|&p| p == 0.0));
    }

    /// The posterior mean (BV at γ = 1) estimates within the metric's range.
    #[test]
    fn the_posterior_mean_stays_in_range(n in 3u64..120, m in 1u64..8) {
        let s = SampledRank::new(n, m.min(n - 1), Sampling::WithReplacement).unwrap();
        let e = Estimator::new(RankMetric::Ap, s, Correction::BiasVariance { gamma: 1.0 }).unwrap();
        prop_assert!(e.values().iter().all(|&v| (1.0 / n as f64 - 1e-12..=1.0 + 1e-12).contains(&v)));
    }
}
