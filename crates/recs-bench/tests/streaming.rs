//! On real data, the streamed full-catalog evaluation (graded items only, every user's
//! scores for the whole catalog arriving in parts) equals the in-memory evaluation of
//! the listed candidates: every metric, for real models, on MovieLens 100K and MS Web.

use std::path::PathBuf;

use rayon::prelude::*;
use recs_core::{Interactions, ParamValues, Recommender, TrainData};
use recs_data::{Resolver, load_named};
use recs_metrics::stream::{CatalogUser, Evaluator, Part, PositiveScores};
use recs_metrics::{Metric, Options, Report, Scored, evaluate};
use recs_split::{Amount, GradeScale, JudgmentOptions, Protocol, Split, SplitId};
use recs_testkit::real_data_dir;

const METRICS: &str = "roc,croc,user_auc,p@10,r@20,ndcg@10,map,mrr,half_life@5";
const MAX_FPR: f64 = 0.3;

fn load(dir: PathBuf, name: &str) -> recs_data::Dataset {
    load_named(name, &Resolver::new().with_env_dir(Some(dir)).with_download(false)).unwrap()
}

fn fit(name: &str, params: &[(&str, &str)], train: &Interactions) -> Box<dyn Recommender> {
    let entry = recs_bench::registry::find(name).unwrap();
    let mut values = ParamValues::new();
    for (k, v) in params {
        values.set(*k, *v);
    }
    entry.build_checked(&values).unwrap().fit_dyn(&TrainData::new(train, 7)).unwrap()
}

fn in_memory(model: &dyn Recommender, split: &Split, judging: &JudgmentOptions) -> Report {
    let judgments = split.judgments(judging).unwrap();
    let mut scores = vec![0.0f32; judgments.n_candidates()];
    let mut start = 0;
    for user in judgments.iter() {
        let end = start + user.items.len();
        model.score(user.user, user.items, &mut scores[start..end]).unwrap();
        start = end;
    }
    let scored = Scored::new(&judgments, &scores).unwrap();
    let metrics = Metric::parse_list(METRICS).unwrap();
    evaluate(&scored, &metrics, &Options::default(), MAX_FPR, false).unwrap()
}

fn streamed(model: &dyn Recommender, split: &Split, judging: &JudgmentOptions) -> Report {
    let catalog = split.catalog_judgments(judging).unwrap().expect("a full catalog");
    let metrics = Metric::parse_list(METRICS).unwrap();
    // Relevant = graded: binary grades, or ratings of at least 4 as grades.
    let options = Options::default();
    let mut evaluator = Evaluator::new(&metrics, options, MAX_FPR).unwrap();
    let positions: Vec<usize> = (0..catalog.users().len()).collect();
    // First pass: the graded items' scores only.
    let mut positives = PositiveScores::new();
    for &p in &positions {
        let (items, grades) = catalog.graded(p);
        let mut scores = vec![0.0; items.len()];
        model.score(catalog.users()[p], items, &mut scores).unwrap();
        positives.push_user(grades, &scores, options.threshold);
    }
    evaluator.set_positives(positives);
    // Main pass: every item of every judged user, in parallel parts.
    let all_items: Vec<u32> = (0..catalog.n_items() as u32).collect();
    let part = positions
        .par_chunks(97)
        .map(|chunk| {
            let mut part = evaluator.part();
            let mut row = vec![0.0f32; all_items.len()];
            for &p in chunk {
                let user = catalog.users()[p];
                model.score(user, &all_items, &mut row).unwrap();
                let known = split.known_items(user);
                let (graded, grades) = catalog.graded(p);
                let catalog_user =
                    CatalogUser { user, scores: &row, excluded: &known, graded, grades };
                evaluator.push_user(&mut part, &catalog_user).unwrap();
            }
            part
        })
        .reduce(
            || evaluator.part(),
            |mut a: Part, b| {
                a.merge(b);
                a
            },
        );
    evaluator.finish(part, false).unwrap()
}

fn assert_same(case: &str, memory: &Report, stream: &Report) {
    assert_eq!(memory.n_candidates, stream.n_candidates, "{case}");
    assert_eq!(memory.n_positives, stream.n_positives, "{case}");
    assert_eq!(memory.per_user, stream.per_user, "{case}: per-user values");
    for ((key, a), (_, b)) in memory.values.iter().zip(&stream.values) {
        let (a, b) = (a.unwrap(), b.unwrap());
        if key.starts_with("roc_pauc") {
            assert!((a - b).abs() < 1e-15, "{case} {key}: {a} vs {b}");
        } else {
            assert_eq!(a.to_bits(), b.to_bits(), "{case} {key}: {a} vs {b}");
        }
    }
    assert_eq!(memory.warnings, stream.warnings, "{case}");
}

#[test]
fn movielens_streamed_equals_in_memory() {
    let Some(dir) = real_data_dir() else { return };
    let data = load(dir, "ml-100k").interactions;
    let holdout = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = holdout.split(&data, 42, SplitId::default()).unwrap();
    let graded = JudgmentOptions::rating(4.0).grade(GradeScale::Rating);
    for (name, params) in [("item-pop", &[][..]), ("puresvd", &[("rank", "20")][..])] {
        let model = fit(name, params, split.train());
        for (mode, judging) in
            [("implicit", JudgmentOptions::implicit()), ("rating", graded.clone())]
        {
            let memory = in_memory(model.as_ref(), &split, &judging);
            assert!(memory.n_candidates > 1_000_000);
            let case = format!("ml-100k {name} {mode}");
            assert_same(&case, &memory, &streamed(model.as_ref(), &split, &judging));
        }
    }
}

#[test]
fn msweb_streamed_equals_in_memory() {
    let Some(dir) = real_data_dir() else { return };
    let data = load(dir, "msweb");
    let test = data.test.clone().unwrap();
    let split = Split::predefined(data.interactions, test).unwrap();
    let model = fit("item-pop", &[], split.train());
    let judging = JudgmentOptions::implicit();
    let memory = in_memory(model.as_ref(), &split, &judging);
    // schein2005's MS Web: 9.26 M candidates, 13,194 positives.
    assert_eq!((memory.n_candidates, memory.n_positives), (9_256_692, 13_194));
    assert_same("msweb item-pop", &memory, &streamed(model.as_ref(), &split, &judging));
}

const RUN: &str = include_str!("configs/streaming.toml");

/// The runner streams a full catalog (no measure, no saved scores, no kept judgments)
/// and reports what it reports with the candidates listed: every key of every model, and
/// the same ROC and CROC curves' areas.
#[test]
fn the_runner_streams_a_full_catalog_and_reports_the_same() {
    if real_data_dir().is_none() {
        return;
    }
    let plan_of = |text: &str| {
        recs_bench::Config::from_toml(text, "streaming.toml")
            .unwrap()
            .check("streaming.toml")
            .unwrap()
    };
    let plan = || plan_of(RUN);
    let session = recs_bench::Session::new(&recs_bench::RunOptions {
        quick: true,
        ..recs_bench::RunOptions::default()
    });
    let streamed = session.run(&plan(), &recs_bench::Silent).unwrap().results;
    let listed = session.run(&plan().keep_judgments(), &recs_bench::Silent).unwrap().results;
    assert!(streamed.judgments().is_none() && listed.judgments().is_some());
    // `streaming = false` lists the candidates too, with the same numbers.
    let off = plan_of(&RUN.replace("[evaluation]", "[evaluation]\nstreaming = false"));
    let off = session.run(&off, &recs_bench::Silent).unwrap().results;
    for model in listed.models() {
        for key in listed.keys() {
            let label = model.label();
            assert_eq!(listed.mean(label, key), off.mean(label, key), "{label} {key}");
        }
    }
    for model in listed.models() {
        let label = model.label();
        for key in listed.keys() {
            let (a, b) = (listed.mean(label, key).unwrap(), streamed.mean(label, key).unwrap());
            if key.starts_with("roc_pauc") {
                assert!((a - b).abs() < 1e-15, "{label} {key}: {a} vs {b}");
            } else {
                assert_eq!(a.to_bits(), b.to_bits(), "{label} {key}: {a} vs {b}");
            }
        }
        let streamed_model = streamed.model(label).unwrap();
        let (croc, streamed_croc) = (model.croc().unwrap(), streamed_model.croc().unwrap());
        assert_eq!(croc.report, streamed_croc.report, "{label}: CROC curve");
        let (roc, streamed_roc) = (model.roc().unwrap(), streamed_model.roc().unwrap());
        assert!((roc.exact_auc - streamed_roc.exact_auc).abs() < 1e-12, "{label}: ROC area");
    }
}

/// The metrics that read the lists (popularity, novelty, genre diversity and calibration,
/// exposure) streamed by the runner equal those of the candidates listed, bit for bit:
/// the beyond-accuracy example without its saved scores, against the same with
/// `streaming = false`.
#[test]
fn the_runner_streams_the_list_metrics_and_reports_the_same() {
    if real_data_dir().is_none() {
        return;
    }
    let example = include_str!("../../../examples/ml100k-beyond.toml")
        .replace("save_scores = true", "")
        .replace("repetitions = 2", "repetitions = 1");
    let plan_of = |text: &str| {
        recs_bench::Config::from_toml(text, "beyond.toml").unwrap().check("beyond.toml").unwrap()
    };
    let session = recs_bench::Session::new(&recs_bench::RunOptions::default());
    let streamed = session.run(&plan_of(&example), &recs_bench::Silent).unwrap();
    let off = example.replace("[evaluation]", "[evaluation]\nstreaming = false");
    let listed = session.run(&plan_of(&off), &recs_bench::Silent).unwrap();
    let (streamed, listed) = (streamed.results, listed.results);
    let paths = |results: &recs_bench::Results| -> Vec<bool> {
        results.models().iter().flat_map(|m| m.timings().iter().map(|t| t.streamed)).collect()
    };
    assert!(paths(&streamed).iter().all(|&s| s), "the example streamed");
    assert!(paths(&listed).iter().all(|&s| !s), "listed with streaming = false");
    assert!(listed.keys().iter().any(|k| k == "miscal@10"));
    for model in listed.models() {
        let label = model.label();
        for key in listed.keys() {
            let (a, b) = (listed.mean(label, key), streamed.mean(label, key));
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{label} {key}: {a:?} vs {b:?}");
        }
    }
}
