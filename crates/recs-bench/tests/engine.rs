//! The experiment engine end to end on MovieLens 100K: sessions of several plans, derived
//! seed streams, quick grids, measures and kept judgments — what the reproductions rely on.

use recs_bench::{Config, Measure, Plan, RunOptions, Session, Silent};

const TOPN: &str = include_str!("configs/engine-topn.toml");

fn plan(text: &str) -> Plan {
    Config::from_toml(text, "engine.toml").unwrap().check("engine.toml").unwrap()
}

/// A quick session, when the real data is there (`RECS_DATA_DIR`); `None` skips the test.
fn session() -> Option<Session> {
    recs_testkit::real_data_dir()?;
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

/// ignatov2010's protocol on its synthetic data (no files needed): 4 hidden columns, 5
/// folds of 4 users, test users folded in from their visible events.
const HIDDEN: &str = include_str!("configs/engine-hidden.toml");

#[test]
fn all_items_are_judged_while_measures_see_the_hidden_columns() {
    let seen = Measure::with_split("hidden columns", false, |split, judgments, scores| {
        let hidden = split.candidate_items().expect("hidden-items designates its columns");
        let history = split.history().expect("strong generalization keeps a history");
        // Every item a judged user has not shown is a candidate, hidden or not.
        for user in judgments.iter() {
            assert_eq!(user.items.len() + history.user_row(user.user).len(), 20);
        }
        assert_eq!(judgments.n_candidates(), scores.len());
        Ok(Some(hidden.len() as f64))
    });
    let session = Session::new(&RunOptions::default());
    let all = session.run(&plan(HIDDEN).with_measure(seen).unwrap(), &Silent).unwrap();
    assert_eq!(all.results.mean("user-knn", "hidden columns"), Some(4.0));
    let repetitions: Vec<u32> = all.results.split_ids().iter().map(|id| id.repetition).collect();
    assert_eq!(repetitions, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    let recalls = all.results.per_split("user-knn", "r@5").unwrap();
    assert_eq!(recalls.len(), 10);
    assert!(all.results.per_split("user-knn", "ndcg@10").is_none());

    // By default only the protocol's columns are candidates: 4 users × 4 hidden columns.
    let restricted = HIDDEN.replace("items = \"all\"", "items = \"protocol\"");
    let run = session.run(&plan(&restricted), &Silent).unwrap();
    assert_eq!(run.experiment.candidates, 16);
    assert!(all.experiment.candidates > 16);
}

#[test]
fn binary_datasets_read_every_event_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratings.tsv");
    std::fs::write(&file, "1\t1\t5\n1\t2\t3\n2\t1\t1\n2\t3\t4\n3\t2\t2\n3\t3\t5\n").unwrap();
    let text = format!(
        "name = \"binary\"\n[dataset]\nfile = {:?}\nbinary = true\n[protocol]\nprotocol = \"leave-one-out\"\n\
         [evaluation]\nmetrics = [\"r@1\"]\n[[models]]\nname = \"item-pop\"\n",
        file.display().to_string()
    );
    let values = Measure::with_split("largest training value", false, |split, _, _| {
        let train = split.train();
        let largest = (0..train.n_users() as u32)
            .flat_map(|u| train.user_values(u).to_vec())
            .fold(0.0f32, f32::max);
        Ok(Some(f64::from(largest)))
    });
    let run = Session::new(&RunOptions::default())
        .run(&plan(&text).with_measure(values).unwrap(), &Silent)
        .unwrap();
    assert_eq!(run.results.mean("item-pop", "largest training value"), Some(1.0));
}

#[test]
fn implicit_als_with_its_defaults_ranks_above_item_popularity_on_ratings() {
    // The confidence slope's default suits 1–5 ratings (`AlsParams::DEFAULT_ALPHA`).
    let Some(session) = session() else { return };
    let config = r#"
name = "ials-defaults"
seed = 42
[dataset]
name = "ml-100k"
[protocol]
protocol = "leave-k-out"
k = "20%"
[judgments]
mode = "implicit"
[evaluation]
metrics = ["ndcg@10"]
[[models]]
name = "item-pop"
[[models]]
name = "ials"
"#;
    let run = session.run(&plan(config), &Silent).unwrap();
    let (pop, ials) =
        (run.results.mean("item-pop", "ndcg@10"), run.results.mean("ials", "ndcg@10"));
    let (pop, ials) = (pop.unwrap(), ials.unwrap());
    assert!(ials > pop + 0.1, "ials {ials} vs item popularity {pop}");
}

/// Sampled candidates: each judged user's relevant items and 99 negatives, the same draw
/// for every model of the run; the sampled NDCG overstates the full catalog's.
#[test]
fn sampled_candidates_judge_the_relevant_items_among_drawn_negatives() {
    let Some(session) = session() else { return };
    let sampled =
        TOPN.replace("[evaluation]", "[judgments]\nsampled = { negatives = 99 }\n\n[evaluation]");
    assert_ne!(sampled, TOPN, "the configuration has an [evaluation] table");
    let run = session.run(&plan(&sampled).keep_judgments(), &Silent).unwrap();
    let judgments = run.results.judgments().expect("kept");
    for user in judgments.iter() {
        let relevant = user.grades.iter().filter(|&&g| g > 0.0).count();
        assert!(relevant >= 1);
        assert!(user.items.len() <= relevant + 99, "user {}", user.user);
    }
    assert!(
        judgments
            .iter()
            .filter(|u| u.items.len() == u.grades.iter().filter(|&&g| g > 0.0).count() + 99)
            .count()
            > 900
    );
    let exact = session.run(&plan(TOPN), &Silent).unwrap();
    let (s, e) = (
        run.results.mean("puresvd", "ndcg@10").unwrap(),
        exact.results.mean("puresvd", "ndcg@10").unwrap(),
    );
    assert!(s > e, "sampled {s} against exact {e}");
    // The same seed draws the same candidates.
    let again = session.run(&plan(&sampled).keep_judgments(), &Silent).unwrap();
    assert_eq!(again.results.judgments(), run.results.judgments());
}

/// Corrected sampled metrics as metric names: with one held-out item per user, the
/// uncorrected estimator is the library's metric on the same sampled candidates, and on
/// item popularity the BV correction comes far closer to the full catalog's recall than
/// the sampled one. Outside uniform sampled candidates they are refused.
#[test]
fn corrected_sampled_metrics_are_metric_names_of_a_run() {
    let Some(session) = session() else { return };
    let config = |judgments: &str| {
        format!(
            r#"
name = "corrected"
seed = 5
[dataset]
name = "ml-100k"
[protocol]
protocol = "leave-one-out"
[judgments]
mode = "implicit"
{judgments}
[evaluation]
metrics = ["ndcg@10", "mrr", "r@10", "ndcg@10~sampled", "ap~sampled", "r@10~bv:0.1"]
[[models]]
name = "item-pop"
"#
        )
    };
    let sampled = session.run(&plan(&config("sampled = { negatives = 99 }")), &Silent).unwrap();
    let mean = |key: &str| sampled.results.mean("item-pop", key).unwrap();
    assert!((mean("ndcg@10~sampled") - mean("ndcg@10")).abs() < 1e-12);
    assert!((mean("ap~sampled") - mean("mrr")).abs() < 1e-12);
    let exact = session
        .run(
            &plan(
                &config("").replace(", \"ndcg@10~sampled\", \"ap~sampled\", \"r@10~bv:0.1\"", ""),
            ),
            &Silent,
        )
        .unwrap();
    let exact = exact.results.mean("item-pop", "r@10").unwrap();
    let (sampled_error, corrected_error) =
        ((mean("r@10") - exact).abs(), (mean("r@10~bv:0.1") - exact).abs());
    assert!(corrected_error < sampled_error / 4.0, "{corrected_error} vs {sampled_error}");
    let refused = |judgments: &str| {
        let text = config(judgments);
        let e = Config::from_toml(&text, "c.toml").unwrap().check("c.toml").unwrap_err();
        e.to_string()
    };
    let e = refused("");
    assert!(e.contains("evaluation.metrics[3]") && e.contains("judgments] sampled"), "{e}");
    let e = refused("sampled = { negatives = 9, by = \"popularity\" }");
    assert!(e.contains("uniform draws"), "{e}");
}
