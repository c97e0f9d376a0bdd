//! Every estimator and sampled-rank distribution against an independent numpy/scipy
//! computation of its equation (`tools/sampled_oracle.py`, committed fixture).

use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corrections.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn distributions_and_estimators_match_numpy() {
    let cases = fixture();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let (n, m) = (case["n"].as_u64().unwrap(), case["m"].as_u64().unwrap());
        let sampling = match case["sampling"].as_str().unwrap() {
            "with-replacement" => Sampling::WithReplacement,
            _ => Sampling::WithoutReplacement,
        };
        let metric: RankMetric = case["metric"].as_str().unwrap().parse().unwrap();
        let sampled = SampledRank::new(n, m, sampling).unwrap();
        for (r, want) in case["distributions"].as_object().unwrap() {
            let got = sampled.distribution(r.parse().unwrap()).unwrap();
            for (g, w) in got.iter().zip(numbers(want)) {
                assert!((g - w).abs() < 1e-13, "{metric} P(·|{r}): {g} vs {w}");
            }
        }
        // The bias objective Σ_r p(r) (E[M̂ | r] − M(r))² with the uniform prior.
        let objective = |values: &[f64]| -> f64 {
            (1..=n)
                .map(|r| {
                    let p = sampled.distribution(r).unwrap();
                    let mean: f64 = p.iter().zip(values).map(|(p, v)| p * v).sum();
                    (mean - metric.value(r, n)).powi(2) / n as f64
                })
                .sum()
        };
        for (name, want) in case["estimators"].as_object().unwrap() {
            let correction: Correction = name.parse().unwrap();
            let got = Estimator::new(metric, sampled, correction).unwrap();
            let want = numbers(want);
            let tolerance = match correction {
                // Least-squares problems: the minimiser to about 1e-7 (it is ill-conditioned),
                // its objective to 1e-12.
                Correction::MinimalBias | Correction::Monotone => 1e-6,
                _ => 1e-10,
            };
            for (j, (g, w)) in got.values().iter().zip(&want).enumerate() {
                assert!((g - w).abs() < tolerance, "{metric} {name} r̃ = {}: {g} vs {w}", j + 1);
            }
            let (ours, theirs) = (objective(got.values()), objective(&want));
            assert!(ours <= theirs + 1e-12, "{metric} {name}: objective {ours} vs {theirs}");
            let published = case["bias"][name].as_f64().unwrap();
            assert!((theirs - published).abs() < 1e-12);
        }
    }
}
