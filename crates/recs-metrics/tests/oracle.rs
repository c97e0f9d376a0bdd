//! Agreement with independent implementations (scikit-learn, ranx, an exact rational
//! CROC) on the fixtures written by `tools/metrics_oracle.py`.

use std::path::PathBuf;

use recs_metrics::io::{RunFormat, read_qrels, read_run};
use recs_metrics::{Metric, Options, Scored, evaluate};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn expected() -> serde_like::Object {
    serde_like::parse(&std::fs::read_to_string(fixture("expected.json")).unwrap())
}

/// Computes `keys` on fixture set `set` with relevance `threshold`; returns the values.
fn compute(set: &str, keys: &[&str], threshold: f32) -> Vec<f64> {
    let qrels = read_qrels(fixture(&format!("{set}.qrels.tsv"))).unwrap();
    let run = read_run(fixture(&format!("{set}.run.tsv")), &qrels, RunFormat::Tsv).unwrap();
    assert_eq!(run.n_missing, 0);
    let scored = Scored::new(&qrels.judgments, &run.scores).unwrap();
    let mut metrics: Vec<Metric> = Vec::new();
    for key in keys {
        let m: Metric = match *key {
            "roc_auc" => Metric::Roc,
            "croc_auc" => Metric::Croc,
            other => other.parse().unwrap(),
        };
        if !metrics.contains(&m) {
            metrics.push(m);
        }
    }
    let options = Options { threshold, ..Options::default() };
    let report = evaluate(&scored, &metrics, &options, 0.3, false).unwrap();
    keys.iter().map(|k| report.get(k).unwrap()).collect()
}

#[test]
fn pooled_auc_matches_scikit_learn_with_ties_and_croc_matches_exact_rationals() {
    let e = expected();
    let got = compute("ties", &["roc_auc", "croc_auc"], 1.0);
    assert!((got[0] - e.get("ties", "roc_auc")).abs() < 1e-9, "{got:?}");
    assert!((got[1] - e.get("ties", "croc_auc")).abs() < 1e-9, "{got:?}");
    let got = compute("ties", &["roc_auc"], 2.0);
    assert!((got[0] - e.get("ties", "roc_auc_threshold_2")).abs() < 1e-9);
}

#[test]
fn ranking_metrics_match_ranx() {
    let e = expected();
    let keys = [
        "p@5",
        "r@5",
        "r@10",
        "ndcg@5",
        "ndcg@10",
        "ndcg_exp@5",
        "map",
        "mrr",
        "hit@3",
        "roc_auc",
        "croc_auc",
    ];
    let got = compute("ranx", &keys, 1.0);
    for (key, value) in keys.iter().zip(&got) {
        let want = e.get("ranx", key);
        assert!((value - want).abs() < 1e-9, "{key}: ours {value}, oracle {want}");
    }
}

/// A minimal reader for the two-level JSON object of numbers that the oracle writes
/// (keeps this crate free of a JSON dependency).
mod serde_like {
    use std::collections::HashMap;

    pub(crate) struct Object(HashMap<(String, String), f64>);

    impl Object {
        pub(crate) fn get(&self, set: &str, key: &str) -> f64 {
            *self
                .0
                .get(&(set.to_string(), key.to_string()))
                .unwrap_or_else(|| panic!("{set}.{key}"))
        }
    }

    pub(crate) fn parse(text: &str) -> Object {
        let mut map = HashMap::new();
        let mut set = String::new();
        for line in text.lines() {
            let line = line.trim().trim_end_matches(',');
            if let Some((k, v)) = line.split_once(':') {
                let k = k.trim().trim_matches('"').to_string();
                let v = v.trim();
                if v == "{" {
                    set = k;
                } else {
                    map.insert((set.clone(), k), v.parse().unwrap());
                }
            }
        }
        Object(map)
    }
}
