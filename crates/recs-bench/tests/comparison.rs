//! `[comparison]` end to end on MovieLens 100K (through `RECS_DATA_DIR`): the family in the
//! report is `recs_stats::family::compare` on the per-user values the run exposes, paired
//! over the users of each split; its means are the report's own metric values; item
//! popularity beats random; and the report folder is the same byte for byte at one thread
//! and at several.

use std::path::Path;

use recs_bench::report::{ComparisonFamily, Report};
use recs_bench::{Config, Outcome, Plan, RunOptions, Silent};
use recs_split::SplitId;
use recs_stats::family::{self, Cell, MetricValues, Pairs, Settings, Test};
use recs_testkit::real_data_dir;
use serde_json::{Value, json};

const CONFIG: &str = include_str!("configs/comparison.toml");

fn plan(text: &str) -> Plan {
    Config::from_toml(text, "comparison.toml").unwrap().check("comparison.toml").unwrap()
}

/// Runs `plan` on a pool of `threads` threads and writes its report folder into `dir`.
fn run_on(plan: &Plan, threads: usize, quick: bool, dir: &Path) -> Outcome {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let options = RunOptions { quick, ..RunOptions::default() };
    let outcome = pool.install(|| recs_bench::run(plan, &options, &Silent)).unwrap();
    recs_bench::write_report(dir, &outcome.report, &outcome.extras).unwrap();
    outcome
}

/// The family `recs_stats::family::compare` gives on the run's per-user values, paired
/// here (users with a value for every model), as the report's table: its columns and rows.
fn recomputed(
    outcome: &Outcome,
    family: &ComparisonFamily,
    pairs: Pairs,
    settings: &Settings,
) -> (Vec<String>, Vec<Vec<Value>>) {
    let results = &outcome.results;
    let models = results.models();
    let labels: Vec<&str> = models.iter().map(|m| m.label()).collect();
    let mut series: Vec<(SplitId, &str, Vec<Vec<f64>>)> = Vec::new();
    for (n, &id) in results.split_ids().iter().enumerate() {
        let users = models[0].user_values()[n].users();
        assert!(!users.is_empty());
        for metric in &family.metrics {
            let columns: Vec<&[f64]> = models
                .iter()
                .map(|m| {
                    assert_eq!(m.user_values()[n].users(), users, "the same users in every model");
                    m.user_values()[n].values(metric).unwrap()
                })
                .collect();
            let kept: Vec<usize> =
                (0..users.len()).filter(|&u| columns.iter().all(|c| !c[u].is_nan())).collect();
            let systems = columns.iter().map(|c| kept.iter().map(|&u| c[u]).collect()).collect();
            series.push((id, metric.as_str(), systems));
        }
    }
    let values: Vec<MetricValues<'_>> = series
        .iter()
        .map(|(_, metric, systems)| MetricValues { metric, systems, ..Default::default() })
        .collect();
    let f = family::compare(&values, &labels, pairs, settings).unwrap();
    let names: Vec<&str> = series.iter().map(|(_, metric, _)| *metric).collect();
    let mut columns = vec!["repetition".to_string(), "fold".to_string()];
    columns.extend(f.columns());
    let rows = f
        .comparisons
        .iter()
        .map(|c| {
            let id = series[c.metric].0;
            let mut row = vec![json!(id.repetition), json!(id.fold)];
            row.extend(f.row(c, &names, &labels).into_iter().map(|cell| match cell {
                Cell::Text(text) => json!(text),
                Cell::Count(n) => json!(n),
                Cell::Number(x) => json!(x),
                Cell::Missing => Value::Null,
            }));
            row
        })
        .collect();
    (columns, rows)
}

/// The cell of `row` under `column`.
fn at<'a>(family: &ComparisonFamily, row: &'a [Value], column: &str) -> &'a Value {
    &row[family.columns.iter().position(|c| c == column).unwrap()]
}

#[test]
fn the_report_compares_the_models_as_recs_stats_does_at_any_thread_count() {
    if real_data_dir().is_none() {
        return;
    }
    let plan = plan(CONFIG);
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let outcome = run_on(&plan, 1, false, &one);
    run_on(&plan, 2, false, &two);
    for file in ["report.json", "report.md", "tables/comparison-comparisons.csv"] {
        let read = |dir: &Path| std::fs::read(dir.join(file)).unwrap();
        assert_eq!(read(&one), read(&two), "{file} differs between 1 and 2 threads");
    }

    let report = &outcome.report;
    assert_eq!(report.comparisons.len(), 1);
    let family = &report.comparisons[0];
    assert_eq!(family.experiment, "comparison");
    assert_eq!(family.metrics, ["ndcg@10", "mrr"], "the per-user metrics; roc is pooled");
    assert_eq!(family.splits, [[0, 0], [1, 0]]);
    assert_eq!(family.family, "12 comparisons: 3 pairs × 2 metrics × 2 splits, Holm");
    assert_ne!(family.seed, plan.seed(), "the comparison's seed is derived for its purpose");

    // The table is the family `recs_stats` computes on the per-user values of the run.
    let settings = Settings {
        tests: vec![Test::T, Test::Wilcoxon, Test::Fisher],
        permutations: 2000,
        tukey: true,
        seed: family.seed,
        ..Settings::default()
    };
    let (columns, rows) = recomputed(&outcome, family, Pairs::All, &settings);
    assert_eq!(family.columns, columns);
    assert_eq!(family.rows, rows);

    // Each mean is the report's own value of the metric for the model on the split, and
    // users without a relevant test rating are left out, as from the metric.
    let results = &outcome.results;
    for row in &family.rows {
        let split = (at(family, row, "repetition").as_u64().unwrap()) as usize;
        let metric = at(family, row, "metric").as_str().unwrap();
        for (model, mean) in [("run_a", "mean_a"), ("run_b", "mean_b")] {
            let label = at(family, row, model).as_str().unwrap();
            let value = results.per_split(label, metric).unwrap()[split];
            assert_eq!(at(family, row, mean).as_f64(), value, "{label} {metric} split {split}");
        }
        let n = at(family, row, "n_users").as_u64().unwrap() as usize;
        let judged = results.models()[0].user_values()[split].users().len();
        assert!(n > 100 && n < judged, "{n} of {judged} users paired");
    }
    assert!(family.notes.iter().any(|n| n.contains("left out")), "{:?}", family.notes);

    // Item popularity beats random on every split and metric, by the Tukey HSD (which
    // marks) and by each test after Holm's adjustment.
    let pop_random: Vec<&Vec<Value>> = family
        .rows
        .iter()
        .filter(|r| at(family, r, "run_a") == "item-pop" && at(family, r, "run_b") == "random")
        .collect();
    assert_eq!(pop_random.len(), 4);
    for row in pop_random {
        assert_eq!(at(family, row, "better"), "item-pop", "{row:?}");
        for p in ["t_p_adjusted", "wilcoxon_p_adjusted", "fisher_p_adjusted", "tukey_p"] {
            assert!(at(family, row, p).as_f64().unwrap() < 0.01, "{p}: {row:?}");
        }
        assert!(at(family, row, "difference_lower").as_f64().unwrap() > 0.0);
    }

    // The folder: the family in report.json, a CSV of every row, a table in report.md.
    let text = std::fs::read_to_string(one.join("report.json")).unwrap();
    let back: Report = serde_json::from_str(&text).unwrap();
    assert!(back.validate().is_empty(), "{:?}", back.validate());
    assert_eq!(back.comparisons[0].rows.len(), 12);
    let csv = std::fs::read_to_string(one.join("tables/comparison-comparisons.csv")).unwrap();
    assert_eq!(csv.lines().count(), 13);
    assert_eq!(csv.lines().next().unwrap(), family.columns.join(","));
    let md = std::fs::read_to_string(one.join("report.md")).unwrap();
    assert!(md.contains("**Paired comparisons over users: 12 comparisons"), "{md}");
    assert!(md.contains("| 1/0 | mrr | item-pop − random |"), "{md}");
}

#[test]
fn a_baseline_compares_every_other_model_with_it() {
    if real_data_dir().is_none() {
        return;
    }
    let text = CONFIG.replace(
        "tests = [\"t\", \"wilcoxon\", \"fisher\"]\npermutations = 2000\ntukey = true",
        "tests = [\"sign\"]\nbaseline = \"random\"\nadjust = \"none\"\nseed = 5\nmetrics = [\"mrr\"]",
    );
    assert_ne!(text, CONFIG);
    let tmp = tempfile::tempdir().unwrap();
    let outcome = run_on(&plan(&text), 2, true, tmp.path());
    let family = &outcome.report.comparisons[0];
    assert_eq!(family.family, "2 comparisons: 2 pairs × 1 metric, unadjusted");
    assert_eq!((family.baseline.as_deref(), family.seed), (Some("random"), 5));
    let settings =
        Settings { tests: vec![Test::Sign], adjustment: None, seed: 5, ..Default::default() };
    let (columns, rows) = recomputed(&outcome, family, Pairs::Baseline(2), &settings);
    assert_eq!((&family.columns, &family.rows), (&columns, &rows));
    let pairs: Vec<(&Value, &Value)> =
        rows.iter().map(|r| (at(family, r, "run_a"), at(family, r, "run_b"))).collect();
    assert_eq!(
        pairs,
        [(&json!("item-pop"), &json!("random")), (&json!("item-knn"), &json!("random"))]
    );
    assert!(!family.columns.iter().any(|c| c == "tukey_p"));
}
