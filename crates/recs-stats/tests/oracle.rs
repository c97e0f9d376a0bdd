//! Agreement with scipy.stats and statsmodels on the fixture written by
//! `tools/stats_oracle.py` (`tests/fixtures/oracle.json`; its header names the versions
//! and the data). Deterministic statistics agree to `1e-10` (relative to the value's size
//! when it exceeds 1), and their p-values also to `1e-8` relatively; Cohen's `d_z`
//! interval, found by inverting a distribution function on both sides, to `1e-9`;
//! Fisher's randomisation test, with [`PERMUTATIONS`] permutations, within four Monte
//! Carlo standard errors of scipy's `permutation_test` (plus the `+1` of both estimates
//! and scipy's own Monte Carlo error when it did not enumerate).

use recs_stats::{
    Adjustment, WilcoxonMethod, adjust_p_values, cohens_dz, fisher_randomisation, mean_difference,
    paired_t_test, sign_test, wilcoxon_signed_rank,
};
use serde_json::Value;

/// Permutations of Fisher's randomisation test in the comparison with scipy.
const PERMUTATIONS: usize = 20_000;

fn fixture() -> Value {
    let text = include_str!("fixtures/oracle.json");
    serde_json::from_str(text).expect("the fixture parses")
}

fn number(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} is a number in {v}"))
}

/// Input vectors are written as decimal strings, parsed here with correct rounding.
fn vector(v: &Value, key: &str) -> Vec<f64> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is an array"))
        .iter()
        .map(|x| x.as_str().expect("a decimal string").parse().expect("a number"))
        .collect()
}

/// A p-value: within `1e-10` absolutely, and within `1e-8` relatively, so that tiny
/// p-values are checked too.
#[track_caller]
fn close_p(found: f64, expected: f64, what: &str) {
    close(found, expected, 1e-10, what);
    assert!(
        (found - expected).abs() <= 1e-8 * expected,
        "{what}: found {found:e}, scipy {expected:e}, relative difference {:e}",
        (found - expected).abs() / expected
    );
}

fn pair(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

#[track_caller]
fn close(found: f64, expected: f64, tolerance: f64, what: &str) {
    let bound = tolerance * expected.abs().max(1.0);
    assert!(
        (found - expected).abs() <= bound,
        "{what}: found {found:e}, scipy {expected:e}, difference {:e}",
        (found - expected).abs()
    );
}

fn paired_cases() -> Vec<Value> {
    let cases = fixture()["paired"].as_array().unwrap().clone();
    assert!(cases.len() >= 25, "a few dozen cases: {}", cases.len());
    cases
}

#[test]
fn paired_t_test_and_mean_interval_match_scipy_ttest_rel() {
    for case in paired_cases() {
        let name = case["name"].as_str().unwrap();
        let (a, b) = (vector(&case, "a"), vector(&case, "b"));
        let expected = &case["t"];
        let t = paired_t_test(&a, &b).unwrap();
        assert_eq!(t.n, a.len());
        close(t.statistic, number(expected, "statistic"), 1e-10, &format!("{name} t"));
        close_p(t.p_value, number(expected, "p_value"), &format!("{name} p"));
        for (level, key) in [(0.95, "ci95"), (0.90, "ci90")] {
            let m = mean_difference(&a, &b, level).unwrap();
            let (lower, upper) = pair(&expected[key]);
            close(m.mean, number(expected, "mean"), 1e-12, &format!("{name} mean"));
            close(m.lower, lower, 1e-10, &format!("{name} {key} lower"));
            close(m.upper, upper, 1e-10, &format!("{name} {key} upper"));
        }
    }
}

#[test]
fn wilcoxon_matches_scipy_in_every_method() {
    let mut exact_cases = 0;
    for case in paired_cases() {
        let name = case["name"].as_str().unwrap();
        let (a, b) = (vector(&case, "a"), vector(&case, "b"));
        let expected = &case["wilcoxon"];
        let auto = wilcoxon_signed_rank(&a, &b, WilcoxonMethod::Auto).unwrap();
        assert_eq!(auto.n as f64, number(expected, "n"), "{name}");
        assert_eq!(auto.statistic, number(expected, "statistic"), "{name}");
        close_p(auto.p_value, number(expected, "p_auto"), &format!("{name} auto"));
        for (correction, key) in [(false, "p_normal"), (true, "p_normal_corrected")] {
            let method = WilcoxonMethod::Normal { continuity_correction: correction };
            let normal = wilcoxon_signed_rank(&a, &b, method).unwrap();
            close_p(normal.p_value, number(expected, key), &format!("{name} {key}"));
        }
        if expected.get("p_exact").is_some() {
            exact_cases += 1;
            let exact = wilcoxon_signed_rank(&a, &b, WilcoxonMethod::Exact).unwrap();
            close_p(exact.p_value, number(expected, "p_exact"), &format!("{name} exact"));
        }
    }
    assert!(exact_cases >= 10, "{exact_cases}");
}

#[test]
fn sign_test_matches_scipy_binomtest() {
    for case in paired_cases() {
        let name = case["name"].as_str().unwrap();
        let (a, b) = (vector(&case, "a"), vector(&case, "b"));
        let expected = &case["sign"];
        let s = sign_test(&a, &b).unwrap();
        assert_eq!((s.statistic, s.n as f64), (number(expected, "k"), number(expected, "n")));
        close_p(s.p_value, number(expected, "p_value"), name);
    }
}

#[test]
fn cohens_dz_interval_matches_the_inverted_scipy_nct() {
    for case in paired_cases() {
        let name = case["name"].as_str().unwrap();
        let (a, b) = (vector(&case, "a"), vector(&case, "b"));
        let expected = &case["cohens_dz"];
        let effect = cohens_dz(&a, &b, 0.95).unwrap();
        close(effect.d_z, number(expected, "d_z"), 1e-12, &format!("{name} d_z"));
        let (lower, upper) = pair(&expected["ci95"]);
        close(effect.lower, lower, 1e-9, &format!("{name} lower"));
        close(effect.upper, upper, 1e-9, &format!("{name} upper"));
    }
}

#[test]
fn fisher_randomisation_agrees_with_scipy_permutation_test() {
    for (index, case) in paired_cases().iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let (a, b) = (vector(case, "a"), vector(case, "b"));
        let expected = &case["permutation"];
        let p = number(expected, "p_value");
        let resamples = number(expected, "resamples");
        let test = fisher_randomisation(&a, &b, PERMUTATIONS, index as u64).unwrap();
        let ours = (p * (1.0 - p) / PERMUTATIONS as f64).sqrt();
        let theirs = if resamples > 0.0 { (p * (1.0 - p) / resamples).sqrt() } else { 0.0 };
        let plus_one = 1.0 / (PERMUTATIONS + 1) as f64
            + if resamples > 0.0 { 2.0 / (resamples + 1.0) } else { 0.0 };
        let bound = 4.0 * (ours + theirs) + plus_one;
        assert!(
            (test.p_value - p).abs() <= bound,
            "{name}: ours {} scipy {p} bound {bound}",
            test.p_value
        );
    }
}

#[test]
fn adjustments_match_statsmodels_multipletests() {
    let fixture = fixture();
    let families = fixture["adjustments"].as_array().unwrap();
    assert!(families.len() >= 8);
    for family in families {
        let name = family["name"].as_str().unwrap();
        let p: Vec<f64> =
            family["p"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        for (method, key) in [
            (Adjustment::Bonferroni, "bonferroni"),
            (Adjustment::Holm, "holm"),
            (Adjustment::BenjaminiHochberg, "fdr_bh"),
        ] {
            let ours = adjust_p_values(&p, method).unwrap();
            let theirs = family[key].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len());
            for (i, (x, y)) in ours.iter().zip(theirs).enumerate() {
                close(*x, y.as_f64().unwrap(), 1e-10, &format!("{name} {key} [{i}]"));
            }
        }
    }
}

#[test]
fn the_fixture_holds_a_real_data_case() {
    let header = &fixture()["header"];
    let data = header["data"].as_str().unwrap();
    assert!(data.contains("movielens100k"), "{data}");
    let real = paired_cases()
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("movielens100k"))
        .expect("the real-data case");
    assert!(vector(&real, "a").len() > 900);
}
