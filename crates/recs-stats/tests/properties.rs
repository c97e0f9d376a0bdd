//! Invariants as properties: adjusted p-values are at least the raw ones, at most 1, and
//! (Holm, Benjamini–Hochberg) monotone in the raw order; two identical systems give
//! p = 1 and effect 0; swapping the systems negates every effect and keeps every
//! p-value; the randomised Tukey HSD ranks pairs by their observed difference.

use proptest::prelude::*;
use recs_stats::{
    Adjustment, WilcoxonMethod, adjust_p_values, cohens_dz, fisher_randomisation, mean_difference,
    paired_bootstrap, paired_t_test, randomised_tukey_hsd, sign_test, wilcoxon_signed_rank,
};

/// Per-user values on a grid of 1/8 (ties and zero differences are common) or
/// continuous ones.
fn values(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop_oneof![
        prop::collection::vec((0u8..=8).prop_map(|k| f64::from(k) / 8.0), n),
        prop::collection::vec(-1.0f64..1.0, n),
    ]
}

fn two_systems() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (2usize..40).prop_flat_map(|n| (values(n), values(n)))
}

fn p_values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            0.0f64..=1.0,
            Just(0.0),
            Just(1.0),
            (0u8..4).prop_map(|k| f64::from(k) / 100.0)
        ],
        0..30,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn adjusted_p_values_are_at_least_raw_at_most_one_and_monotone(p in p_values()) {
        let bonferroni = adjust_p_values(&p, Adjustment::Bonferroni).unwrap();
        let holm = adjust_p_values(&p, Adjustment::Holm).unwrap();
        let bh = adjust_p_values(&p, Adjustment::BenjaminiHochberg).unwrap();
        for adjusted in [&bonferroni, &holm, &bh] {
            prop_assert_eq!(adjusted.len(), p.len());
            for (q, raw) in adjusted.iter().zip(&p) {
                prop_assert!(*q >= *raw && *q <= 1.0, "{} from {}", q, raw);
            }
        }
        for i in 0..p.len() {
            // Benjamini–Hochberg ≤ Holm ≤ Bonferroni.
            prop_assert!(bh[i] <= holm[i] && holm[i] <= bonferroni[i]);
            for j in 0..p.len() {
                if p[i] <= p[j] {
                    prop_assert!(holm[i] <= holm[j]);
                    prop_assert!(bh[i] <= bh[j]);
                    prop_assert!(bonferroni[i] <= bonferroni[j]);
                }
            }
        }
    }

    #[test]
    fn identical_systems_give_p_one_and_no_effect(a in (2usize..40).prop_flat_map(values)) {
        let t = paired_t_test(&a, &a).unwrap();
        prop_assert_eq!((t.statistic, t.p_value), (0.0, 1.0));
        for method in [WilcoxonMethod::Auto, WilcoxonMethod::Exact, WilcoxonMethod::ExactIfUntied,
                       WilcoxonMethod::Normal { continuity_correction: true }] {
            let w = wilcoxon_signed_rank(&a, &a, method).unwrap();
            prop_assert_eq!((w.p_value, w.n), (1.0, 0));
        }
        prop_assert_eq!(sign_test(&a, &a).unwrap().p_value, 1.0);
        prop_assert_eq!(fisher_randomisation(&a, &a, 50, 3).unwrap().p_value, 1.0);
        let boot = paired_bootstrap(&a, &a, 50, 0.95, 3).unwrap();
        prop_assert_eq!((boot.p_value, boot.mean, boot.lower, boot.upper), (1.0, 0.0, 0.0, 0.0));
        let m = mean_difference(&a, &a, 0.95).unwrap();
        prop_assert_eq!((m.mean, m.lower, m.upper), (0.0, 0.0, 0.0));
        let dz = cohens_dz(&a, &a, 0.95).unwrap();
        prop_assert_eq!((dz.d_z, dz.lower, dz.upper), (0.0, 0.0, 0.0));
    }

    #[test]
    fn swapping_the_systems_negates_effects_and_keeps_p_values((a, b) in two_systems()) {
        let (t, t_swapped) = (paired_t_test(&a, &b).unwrap(), paired_t_test(&b, &a).unwrap());
        prop_assert_eq!(t.statistic, -t_swapped.statistic);
        prop_assert_eq!(t.p_value, t_swapped.p_value);
        let w = wilcoxon_signed_rank(&a, &b, WilcoxonMethod::Auto).unwrap();
        let w_swapped = wilcoxon_signed_rank(&b, &a, WilcoxonMethod::Auto).unwrap();
        prop_assert_eq!((w.statistic, w.p_value), (w_swapped.statistic, w_swapped.p_value));
        let s = sign_test(&a, &b).unwrap();
        let s_swapped = sign_test(&b, &a).unwrap();
        prop_assert_eq!(s.p_value, s_swapped.p_value);
        prop_assert_eq!(s.statistic + s_swapped.statistic, s.n as f64);
        let f = fisher_randomisation(&a, &b, 200, 5).unwrap();
        let f_swapped = fisher_randomisation(&b, &a, 200, 5).unwrap();
        prop_assert_eq!((f.statistic, f.p_value), (-f_swapped.statistic, f_swapped.p_value));
        let boot = paired_bootstrap(&a, &b, 200, 0.9, 5).unwrap();
        let boot_swapped = paired_bootstrap(&b, &a, 200, 0.9, 5).unwrap();
        prop_assert_eq!(boot.p_value, boot_swapped.p_value);
        prop_assert_eq!(boot.mean, -boot_swapped.mean);
        prop_assert!((boot.lower + boot_swapped.upper).abs() <= 1e-12);
        prop_assert!((boot.upper + boot_swapped.lower).abs() <= 1e-12);
        let m = mean_difference(&a, &b, 0.95).unwrap();
        let m_swapped = mean_difference(&b, &a, 0.95).unwrap();
        let mirrored = (-m_swapped.mean, -m_swapped.upper, -m_swapped.lower);
        prop_assert_eq!((m.mean, m.lower, m.upper), mirrored);
        // Cohen's d_z is undefined only for constant non-zero differences.
        if let (Ok(dz), Ok(dz_swapped)) = (cohens_dz(&a, &b, 0.95), cohens_dz(&b, &a, 0.95)) {
            let mirrored = (-dz_swapped.d_z, -dz_swapped.upper, -dz_swapped.lower);
            prop_assert_eq!((dz.d_z, dz.lower, dz.upper), mirrored);
            prop_assert!(dz.lower <= dz.d_z && dz.d_z <= dz.upper);
        }
    }

    #[test]
    fn randomised_p_values_are_proper_and_intervals_ordered((a, b) in two_systems()) {
        let permutations = 300;
        let f = fisher_randomisation(&a, &b, permutations, 1).unwrap();
        prop_assert!(f.p_value >= 1.0 / (permutations + 1) as f64 && f.p_value <= 1.0);
        let boot = paired_bootstrap(&a, &b, permutations, 0.95, 1).unwrap();
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let lo = d.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(lo - 1e-12 <= boot.lower && boot.lower <= boot.upper);
        prop_assert!(boot.upper <= hi + 1e-12);
        let m = mean_difference(&a, &b, 0.95).unwrap();
        prop_assert!(m.lower <= m.mean && m.mean <= m.upper);
    }

    #[test]
    fn tukey_p_values_fall_as_the_observed_difference_grows(
        systems in (2usize..6, 2usize..25)
            .prop_flat_map(|(k, n)| prop::collection::vec(values(n), k))
    ) {
        let hsd = randomised_tukey_hsd(&systems, 200, 2).unwrap();
        prop_assert_eq!(hsd.pairs.len(), systems.len() * (systems.len() - 1) / 2);
        for x in &hsd.pairs {
            prop_assert!(x.p_value > 0.0 && x.p_value <= 1.0);
            for y in &hsd.pairs {
                if x.mean_difference.abs() < y.mean_difference.abs() - 1e-9 {
                    prop_assert!(x.p_value >= y.p_value, "{:?} {:?}", x, y);
                }
            }
        }
        // Reversing the order of the systems negates every pair's difference.
        let reversed: Vec<Vec<f64>> = systems.iter().rev().cloned().collect();
        let hsd_reversed = randomised_tukey_hsd(&reversed, 200, 2).unwrap();
        let k = systems.len();
        for x in &hsd.pairs {
            let y = hsd_reversed.pair(k - 1 - x.first, k - 1 - x.second).unwrap();
            prop_assert!((x.mean_difference + y.mean_difference).abs() <= 1e-12);
        }
    }
}
