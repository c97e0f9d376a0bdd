//! `cargo xtask reproduce fastml2015`: Zygmunt Z., "Evaluating recommender systems" (FastML,
//! 2015), end to end on MovieLens 100K. The post makes its points with plots and no table;
//! each point becomes a measured claim ([`claims`]). Experiments (ids as in `report.json`),
//! each from runner configurations in `xtask/experiments/fastml2015/`:
//! - `rmse-vs-ranking` — ALS trained for RMSE, the item and user mean ratings, item kNN,
//!   item popularity, implicit ALS and PureSVD on the same splits, by RMSE (the rating
//!   predictors) and by graded NDCG@10/@50 when ranking only each user's held-out ratings
//!   (`rmse-vs-ranking-held-out`) or every item not in training
//!   (`rmse-vs-ranking-all-items`);
//! - `weak-vs-strong` — the same folds and targets with the test users' given ratings in
//!   training (`weak`) or folded in at test time (`strong`);
//! - `more-is-better` — NDCG@50 against the number L of a new user's ratings (`given-l`),
//!   with 95% bands over repetitions, MANDCG and crossovers ([`curves`]);
//! - `binary-vs-graded` — MAP, AP@50 and NDCG@50 with every held-out rating relevant
//!   (`relevance-binary`) beside NDCG@50 with the rating as gain (the all-items run).

mod check;
mod claims;
mod curves;

use std::collections::BTreeSet;

use anyhow::{Result, bail, ensure};
use recs_bench::report::Table;
use recs_bench::{Config, ExperimentRun, Figure, ProtocolChoice, Results, Session};
use recs_split::{Amount, Protocol};
use serde_json::{Value, json};

pub(crate) use self::check::check;
use self::curves::{Curve, Draws};
use super::ignatov2010::sweep::line;
use super::{Lines, Options, finish};

/// The paper's name, as `cargo xtask reproduce` takes it.
const PAPER: &str = "fastml2015";
/// The experiment ids of the report, in order.
const EXPERIMENTS: [&str; 4] =
    ["rmse-vs-ranking", "weak-vs-strong", "more-is-better", "binary-vs-graded"];
/// The claim ids of the report.
const CLAIMS: [&str; 5] = ["F1", "F2", "F3", "F4", "F5"];
/// `more-is-better` in a `--quick` run: repetitions, largest L, test users.
const QUICK_GIVEN_L: (u32, usize, usize) = (3, 5, 100);
/// The metric of `more-is-better`.
const CURVE_KEY: &str = "ndcg@50";

pub(crate) fn run(options: &Options) -> Result<()> {
    let lines = Lines::new();
    let session = options.session();
    let run = |session: &Session, name: &str, config: Option<Config>| -> Result<ExperimentRun> {
        let plan = match config {
            Some(config) => options.checked(&config, name)?,
            None => options.plan(PAPER, name)?,
        };
        lines.say(format!("{name}: running"));
        let run = session.run(&plan, &lines)?;
        for model in run.results.models() {
            let values: Vec<String> = run
                .results
                .keys()
                .iter()
                .filter_map(|k| Some(format!("{k} {:.4}", run.results.mean(model.label(), k)?)))
                .collect();
            lines.say(format!("{name}: {}: {}", model.label(), values.join(", ")));
        }
        Ok(run)
    };
    let mut held_out = run(&session, "rmse-vs-ranking-held-out", None)?;
    let all_items = run(&session, "rmse-vs-ranking-all-items", None)?;
    let mut weak = run(&session, "weak", None)?;
    let strong = run(&session, "strong", None)?;
    // A quick run shortens `more-is-better` itself and runs every split of that.
    let more_config = if options.quick {
        let (config, _) = options.config(PAPER, "more-is-better")?;
        Some(quick_given_l(config)?)
    } else {
        None
    };
    let mut more = run(&options.session_with(false), "more-is-better", more_config)?;
    let mut binary = run(&session, "relevance-binary", None)?;
    for (a, b) in [(&held_out, &all_items), (&weak, &strong), (&binary, &all_items)] {
        ensure!(
            a.results.split_ids() == b.results.split_ids(),
            "{} and {} ran different splits",
            a.experiment.id,
            b.experiment.id
        );
    }

    let (held_out_splits, all_items_splits) =
        (splits_of(&held_out.results)?, splits_of(&all_items.results)?);
    let (weak_splits, strong_splits) = (splits_of(&weak.results)?, splits_of(&strong.results)?);
    let models: Vec<(String, Draws)> = labels_of(&more.results)
        .into_iter()
        .map(|l| {
            let d = curves::draws(&more.results, &l, CURVE_KEY);
            (l, d)
        })
        .collect();
    let curves: Vec<(String, Curve)> =
        models.iter().map(|(l, d)| (l.clone(), curves::curve(d))).collect();
    let claims = vec![
        claims::f1(&held_out_splits, &all_items_splits),
        claims::f2(&held_out_splits, &all_items_splits),
        claims::f3(&models),
        claims::f4(&models, complete_l(options)?),
        claims::f5(&weak_splits, &strong_splits),
    ];

    let rmse_table = rmse_vs_ranking_table(&held_out.results, &all_items.results);
    merge(
        &mut held_out,
        "rmse-vs-ranking",
        all_items.clone(),
        "All items as candidates",
        rmse_table,
    );
    let weak_table = weak_vs_strong_table(&weak.results, &strong.results);
    merge(&mut weak, "weak-vs-strong", strong, "Strong generalization", weak_table);
    let relevance = relevance_table(&binary.results, &all_items.results);
    merge(&mut binary, "binary-vs-graded", all_items, "Graded relevance", relevance);
    more.experiment.tables.insert(0, curve_table(&curves));
    more.figures = vec![Figure::lines(
        "more-is-better",
        "more-is-better.svg",
        "Mean NDCG@50 against the ratings given, L (95% band over repetitions)",
        ["ratings given, L", "mean NDCG@50"],
        &curves.iter().map(|(l, c)| line(l, c)).collect::<Vec<_>>(),
    )];

    let (repetitions, max_l, users) = QUICK_GIVEN_L;
    let shortened = format!(
        " The quick run shortens `more-is-better` to {repetitions} repetitions, L = 1..{max_l} \
         and {users} test users; every other experiment runs its first split only."
    );
    let notes = format!(
        "\n## Run\n\nWall time {:.1} s ({} run, seed {}).{}\n",
        lines.seconds(),
        if options.quick { "quick" } else { "full" },
        options.seed,
        if options.quick { shortened.as_str() } else { "" }
    );
    let runs = vec![held_out, weak, more, binary];
    let (report, extras) = session.report(PAPER, options.seed, runs, claims, &notes)?;
    finish(options, &report, &extras, &check(&report), &lines)
}

/// The largest L at which every user of MovieLens 100K keeps a rating to predict: one
/// less than the shortest profile.
fn complete_l(options: &Options) -> Result<f64> {
    let ratings = recs_data::load_named("ml-100k", &options.resolver())?.interactions;
    let shortest = ratings.user_counts().into_iter().min().unwrap_or(0);
    ensure!(shortest > 1, "ml-100k: a user with {shortest} rating(s)");
    Ok(f64::from(shortest - 1))
}

/// `more-is-better` shortened for a `--quick` run ([`QUICK_GIVEN_L`]).
fn quick_given_l(mut config: Config) -> Result<Config> {
    let (repetitions, l, users) = QUICK_GIVEN_L;
    config.repetitions = repetitions;
    match &mut config.protocol {
        ProtocolChoice::Generated(Protocol::GivenL { test_users, max_l, .. }) => {
            *test_users = Amount::Count(users);
            *max_l = l;
        }
        _ => bail!("more-is-better: expected the given-l protocol"),
    }
    Ok(config)
}

/// Model labels of a run, in file order.
fn labels_of(results: &Results) -> Vec<String> {
    results.models().iter().map(|m| m.label().to_string()).collect()
}

/// Makes `run` the report entry `id`, with `other`'s tables (named after `what`) and
/// description (its intro's first paragraph, after `run`'s), and `table` first; the
/// runner's own figures of both are dropped.
fn merge(run: &mut ExperimentRun, id: &str, other: ExperimentRun, what: &str, table: Table) {
    run.experiment.id = id.to_string();
    run.experiment.mode = format!("{} | {}", run.experiment.mode, other.experiment.mode);
    run.experiment.tables.insert(0, table);
    for mut t in other.experiment.tables {
        t.name = format!("{what}: {}", t.name);
        run.experiment.tables.push(t);
    }
    let (description, rest) = run.intro.split_once("\n\n").unwrap_or((&run.intro, ""));
    let other_description = other.intro.split("\n\n").next().unwrap_or("").trim_end();
    run.intro = format!("{description}\n\n{other_description}\n\n{}", rest.trim_end());
    run.figures.clear();
}

fn number(value: Option<f64>) -> Value {
    value.map_or(Value::Null, |v| json!(v))
}

/// The per-split values of `results` for the claims: independent draws when every split
/// is a repetition of its own, dependent when they are the folds of one repetition (the
/// claims pair splits index by index, so no other shape is read).
fn splits_of(results: &Results) -> Result<claims::Splits> {
    let ids = results.split_ids();
    let repetitions = ids.iter().map(|id| id.repetition).collect::<BTreeSet<_>>().len();
    ensure!(
        repetitions == ids.len() || repetitions == 1,
        "{} splits in {repetitions} repetitions: expected one split per repetition or one \
         repetition",
        ids.len()
    );
    let mut splits = claims::Splits::new(repetitions > 1);
    for label in labels_of(results) {
        for key in results.keys() {
            if let Some(values) = results.per_split(&label, key) {
                splits.insert(&label, key, values.iter().map(|v| v.unwrap_or(f64::NAN)).collect());
            }
        }
    }
    Ok(splits)
}

/// RMSE beside graded NDCG@10/@50 on the held-out ratings only and on all items, one row
/// per model in file order.
fn rmse_vs_ranking_table(held_out: &Results, all_items: &Results) -> Table {
    side_by_side(
        "RMSE beside graded NDCG on the held-out ratings only and on all items",
        &labels_of(held_out),
        &[
            ("RMSE", held_out, "rmse"),
            ("held-out ndcg@10", held_out, "ndcg@10"),
            ("held-out ndcg@50", held_out, "ndcg@50"),
            ("all-items ndcg@10", all_items, "ndcg@10"),
            ("all-items ndcg@50", all_items, "ndcg@50"),
        ],
    )
}

/// One row per model of `labels`; after the model, each column `(name, results, key)`
/// holds the mean of `key` in `results`.
fn side_by_side(name: &str, labels: &[String], columns: &[(&str, &Results, &str)]) -> Table {
    let mut names = vec!["model".to_string()];
    names.extend(columns.iter().map(|c| c.0.to_string()));
    Table {
        name: name.into(),
        columns: names,
        rows: labels
            .iter()
            .map(|l| {
                let mut row = vec![json!(l)];
                row.extend(columns.iter().map(|(_, r, key)| number(r.mean(l, key))));
                row
            })
            .collect(),
    }
}

fn weak_vs_strong_table(weak: &Results, strong: &Results) -> Table {
    side_by_side(
        "Graded NDCG, weak beside strong generalization (same folds and targets)",
        &labels_of(weak),
        &[
            ("weak ndcg@10", weak, "ndcg@10"),
            ("strong ndcg@10", strong, "ndcg@10"),
            ("weak ndcg@50", weak, "ndcg@50"),
            ("strong ndcg@50", strong, "ndcg@50"),
        ],
    )
}

fn relevance_table(binary: &Results, graded: &Results) -> Table {
    side_by_side(
        "Binary relevance (every held-out rating relevant) beside graded (gain = rating)",
        &labels_of(binary),
        &[
            ("binary map", binary, "map"),
            ("binary ap@50", binary, "ap@50"),
            ("binary ndcg@50", binary, "ndcg@50"),
            ("graded ndcg@50", graded, "ndcg@50"),
        ],
    )
}

/// Mean NDCG@50 at every L with its 95% half-width, one column pair per model.
fn curve_table(curves: &[(String, Curve)]) -> Table {
    let mut columns = vec!["L".to_string()];
    for (label, _) in curves {
        columns.push(format!("{label} {CURVE_KEY}"));
        columns.push(format!("{label} {CURVE_KEY} ±95%"));
    }
    let ls: Vec<f64> =
        curves.first().map(|(_, c)| c.iter().map(|p| p.0).collect()).unwrap_or_default();
    let rows = ls
        .iter()
        .map(|&l| {
            let mut row = vec![json!(l)];
            for (_, c) in curves {
                let at = c.iter().find(|p| p.0 == l).map(|p| p.1);
                row.push(number(at.map(|e| e.mean)));
                row.push(number(at.and_then(|e| e.half_width)));
            }
            row
        })
        .collect();
    Table {
        name: "Mean NDCG@50 against L (95% t intervals over repetitions)".into(),
        columns,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::Silent;

    fn quick() -> Options {
        Options::parse(&["--quick".to_string()]).unwrap()
    }

    #[test]
    fn every_experiment_file_checks_and_the_quick_curve_shortens() {
        let options = quick();
        for name in [
            "rmse-vs-ranking-held-out",
            "rmse-vs-ranking-all-items",
            "weak",
            "strong",
            "more-is-better",
            "relevance-binary",
        ] {
            options.plan(PAPER, name).unwrap();
        }
        let (config, _) = options.config(PAPER, "more-is-better").unwrap();
        let shortened = quick_given_l(config).unwrap();
        assert_eq!(shortened.repetitions, QUICK_GIVEN_L.0);
        let (other, _) = options.config(PAPER, "weak").unwrap();
        assert!(quick_given_l(other).is_err());
    }

    /// On MovieLens 100K (`RECS_DATA_DIR`): more candidates can only push a user's
    /// held-out movies down, and the ideal DCG is the same, so on the same split every
    /// model's all-items NDCG is at most its held-out-only NDCG.
    #[test]
    fn all_items_ndcg_never_exceeds_held_out_ndcg_on_movielens() {
        if std::env::var_os("RECS_DATA_DIR").is_none() {
            eprintln!("note: RECS_DATA_DIR unset; the MovieLens 100K test is skipped");
            return;
        }
        let options = quick();
        let session = options.session();
        let run = |name: &str| session.run(&options.plan(PAPER, name).unwrap(), &Silent).unwrap();
        let (held_out, all_items) =
            (run("rmse-vs-ranking-held-out"), run("rmse-vs-ranking-all-items"));
        assert_eq!(held_out.results.split_ids(), all_items.results.split_ids());
        let labels = labels_of(&held_out.results);
        assert_eq!(labels.len(), 7);
        for label in &labels {
            for k in ["ndcg@10", "ndcg@50"] {
                let h = held_out.results.mean(label, k).unwrap();
                let a = all_items.results.mean(label, k).unwrap();
                assert!(a <= h + 1e-12, "{label}: all items {a} > held out {h}");
            }
            assert_eq!(
                held_out.results.mean(label, "rmse").is_some(),
                held_out.results.mean(label, "mae").is_some()
            );
        }
    }
}
