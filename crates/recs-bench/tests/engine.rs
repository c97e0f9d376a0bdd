//! The experiment engine end to end on MovieLens 100K: sessions of several plans, derived
//! seed streams, quick grids, measures and kept judgments — what the reproductions rely on.

use recs_bench::{Config, Measure, Plan, RunOptions, Session, Silent};

const TOPN: &str = r#"
name = "engine"
seed = 11
[dataset]
name = "ml-100k"
[protocol]
protocol = "leave-k-out"
k = "20%"
[evaluation]
metrics = ["ndcg@10", "croc"]
[selection]
metric = "ndcg@10"
[[models]]
name = "puresvd"
grid = { rank = [5, 10, 20] }
quick_grid = { rank = [5, 10] }
[[models]]
name = "random"
"#;

fn plan(text: &str) -> Plan {
    Config::from_toml(text, "engine.toml").unwrap().check("engine.toml").unwrap()
}

/// A quick session, when the real data is there (`RECS_DATA_DIR`); `None` skips the test.
fn session() -> Option<Session> {
    if std::env::var_os("RECS_DATA_DIR").is_none() {
        eprintln!("note: RECS_DATA_DIR unset; the engine tests on MovieLens 100K are skipped");
        return None;
    }
    Some(Session::new(&RunOptions { quick: true, ..RunOptions::default() }))
}

#[test]
fn adding_a_model_shifts_no_other_models_numbers() {
    let Some(session) = session() else { return };
    let alone = session.run(&plan(TOPN), &Silent).unwrap();
    let with_more = TOPN.replace(
        "[[models]]\nname = \"random\"",
        "[[models]]\nname = \"item-pop\"\n[[models]]\nname = \"random\"",
    );
    let more = session.run(&plan(&with_more), &Silent).unwrap();
    for label in ["puresvd", "random"] {
        for key in ["ndcg@10", "croc_auc"] {
            let (a, b) = (alone.results.mean(label, key), more.results.mean(label, key));
            assert!(a.is_some(), "{label} {key}");
            assert_eq!(a, b, "{label} {key}: another model moved the numbers");
        }
    }
    // The quick grid replaced the full one, and validation recorded every key of each.
    let svd = alone.results.model("puresvd").unwrap();
    let tried: Vec<&str> = svd
        .validation()
        .iter()
        .map(|(p, _)| p.iter().find(|(k, _)| k == "rank").unwrap().1.as_str())
        .collect();
    assert_eq!(tried, ["5", "10"]);
    assert!(svd.validation().iter().all(|(_, v)| v.len() == alone.results.keys().len()));
    assert!(["5", "10"].contains(&svd.param("rank").unwrap()));
}

#[test]
fn a_session_reports_several_plans_with_measures_and_judgments() {
    let Some(session) = session() else { return };
    let counted = Measure::new("candidates_scored", false, |judgments, scores| {
        assert_eq!(judgments.n_candidates(), scores.len());
        Ok(Some(scores.len() as f64))
    });
    let first = plan(TOPN).with_measure(counted).unwrap().keep_judgments();
    let second = plan(&TOPN.replace("name = \"engine\"", "name = \"engine-seed-5\"")).with_seed(5);
    let a = session.run(&first, &Silent).unwrap();
    let b = session.run(&second, &Silent).unwrap();
    let judgments = a.results.judgments().expect("kept");
    assert_eq!(
        a.results.mean("random", "candidates_scored"),
        Some(judgments.n_candidates() as f64)
    );
    assert!(b.results.judgments().is_none());
    assert_ne!(
        a.results.mean("puresvd", "ndcg@10"),
        b.results.mean("puresvd", "ndcg@10"),
        "another seed draws another split"
    );
    let (report, extras) = session.report("both", 11, vec![a, b], Vec::new(), "").unwrap();
    assert_eq!(report.datasets.len(), 1, "one dataset, listed once");
    let ids: Vec<&str> = report.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["engine", "engine-seed-5"]);
    assert!(extras.figures.iter().any(|f| f.file() == "engine-seed-5-croc.svg"));
    assert!(report.validate().is_empty());
}

#[test]
fn a_measure_key_cannot_shadow_a_metric() {
    let duplicate = Measure::new("ndcg@10", false, |_, _| Ok(None));
    assert!(plan(TOPN).with_measure(duplicate).is_err());
}
