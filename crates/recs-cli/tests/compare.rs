//! `recs compare` end to end: the committed fixture (`tests/fixtures/compare`: qrels of
//! eight users and three runs, plus one that misses two users) checked against
//! `recs-stats` called directly on the per-user values and against values computed by
//! hand; MovieLens 100K through `RECS_DATA_DIR`.
//!
//! Per-user values of the fixture (u1..u7; u8 has no relevant item and is left out), from
//! the rank of item a, the only relevant item: MRR = 1/rank, a tie of a with b for ranks
//! 1–2 giving (1 + 1/2)/2.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use recs_metrics::io::{RunFormat, read_qrels, read_run};
use recs_metrics::{Metric, Options, Scored, per_user};
use recs_stats::{Adjustment, WilcoxonMethod};
use recs_testkit::real_data_dir;
use serde_json::Value;

const GOOD_MRR: [f64; 7] = [1.0, 1.0, 1.0, 0.5, 1.0, 1.0, 0.5];
const MID_MRR: [f64; 7] = [0.5, 1.0, 1.0 / 3.0, 0.5, 0.5, 1.0, 0.75];
const BAD_MRR: [f64; 7] = [0.25, 1.0 / 3.0, 1.0 / 3.0, 0.5, 0.25, 0.5, 1.0 / 3.0];

/// The three runs of the fixture, as `--run` arguments.
const RUNS: [&str; 6] = ["--run", "good=good.tsv", "--run", "mid=mid.tsv", "--run", "bad=bad.tsv"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare")
}

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

/// `recs compare --qrels qrels.tsv` with `args`, in the fixture folder.
fn compare(args: &[&str]) -> Output {
    recs()
        .current_dir(fixtures())
        .args(["compare", "--qrels", "qrels.tsv"])
        .args(args)
        .output()
        .unwrap()
}

fn compare_ok(args: &[&str]) -> Output {
    let out = compare(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn compare_err(args: &[&str]) -> String {
    let out = compare(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The three runs with `extra`, as JSON.
fn json(extra: &[&str]) -> Value {
    let args = [&RUNS[..], &["--format", "json"], extra].concat();
    serde_json::from_slice(&compare_ok(&args).stdout).unwrap()
}

fn text(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `got` is `want` up to serde_json's parsing of decimal text (within a few ulps).
fn same(got: &Value, want: f64, what: &str) {
    let got = got.as_f64().unwrap_or_else(|| panic!("{what}: {got} is not a number"));
    assert!(
        (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(f64::MIN_POSITIVE),
        "{what}: {got} vs {want}"
    );
}

/// `got` is `want` within `1e-12` (a value computed by hand).
fn near(got: &Value, want: f64, what: &str) {
    let got = got.as_f64().unwrap_or_else(|| panic!("{what}: {got} is not a number"));
    assert!((got - want).abs() < 1e-12, "{what}: {got} vs {want}");
}

/// The per-user values of `metric` for the run in `file`, computed by the library (not
/// the command), users without a value left out.
fn per_user_values(file: &str, metric: &str) -> Vec<f64> {
    let qrels = read_qrels(fixtures().join("qrels.tsv")).unwrap();
    let run = read_run(fixtures().join(file), &qrels, RunFormat::Auto).unwrap();
    let scored = Scored::new(&qrels.judgments, &run.scores).unwrap();
    let metric: Metric = metric.parse().unwrap();
    let values = per_user(&scored, &[metric], &Options::default()).unwrap();
    values.column(0).into_iter().filter(|v| !v.is_nan()).collect()
}

/// The comparison of `a − b` on `metric` in a JSON report.
fn comparison<'a>(v: &'a Value, metric: &str, a: &str, b: &str) -> &'a Value {
    v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == metric && c["a"] == a && c["b"] == b)
        .unwrap_or_else(|| panic!("no comparison {metric} {a} − {b}"))
}

#[test]
fn the_library_gives_the_hand_computed_per_user_values() {
    assert_eq!(per_user_values("good.tsv", "mrr"), GOOD_MRR);
    assert_eq!(per_user_values("mid.tsv", "mrr"), MID_MRR);
    assert_eq!(per_user_values("bad.tsv", "mrr"), BAD_MRR);
}

#[test]
fn every_number_is_recs_stats_on_the_per_user_values() {
    let all = ["--tests", "t,wilcoxon,sign,fisher,bootstrap", "--tukey"];
    let v = json(&[&["--metrics", "mrr,ndcg@10"], &all[..]].concat());
    let runs = ["good", "mid", "bad"];
    let files = ["good.tsv", "mid.tsv", "bad.tsv"];
    assert_eq!(v["family"]["n_comparisons"], 6);
    assert_eq!(v["family"]["description"], "6 comparisons: 3 pairs × 2 metrics, Holm");
    assert_eq!(v["marks"]["by"], "tukey");
    let mut raw: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut adjusted: Vec<Vec<&Value>> = vec![Vec::new(); 5];
    let keys = ["t", "wilcoxon", "sign", "fisher", "bootstrap"];
    for (m, metric) in ["mrr", "ndcg@10"].into_iter().enumerate() {
        let values: Vec<Vec<f64>> = files.iter().map(|f| per_user_values(f, metric)).collect();
        let hsd = recs_stats::randomised_tukey_hsd(&values, 10_000, 42).unwrap();
        for s in 0..3 {
            let mean = values[s].iter().sum::<f64>() / 7.0;
            same(&v["metrics"][m]["means"][s], mean, "mean");
        }
        assert_eq!(v["metrics"][m]["n_users"], 7);
        assert_eq!(v["metrics"][m]["n_left_out"], 1);
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let c = comparison(&v, metric, runs[a], runs[b]);
            let (x, y) = (&values[a], &values[b]);
            let what = |key: &str| format!("{metric} {} − {}: {key}", runs[a], runs[b]);
            assert_eq!(c["n_users"], 7);
            let d = recs_stats::mean_difference(x, y, 0.95).unwrap();
            same(&c["difference"]["mean"], d.mean, &what("difference"));
            same(&c["difference"]["sd"], d.sd, &what("sd"));
            same(&c["difference"]["lower"], d.lower, &what("difference lower"));
            same(&c["difference"]["upper"], d.upper, &what("difference upper"));
            let dz = recs_stats::cohens_dz(x, y, 0.95).unwrap();
            same(&c["cohens_dz"]["d_z"], dz.d_z, &what("d_z"));
            same(&c["cohens_dz"]["lower"], dz.lower, &what("d_z lower"));
            same(&c["cohens_dz"]["upper"], dz.upper, &what("d_z upper"));
            let t = recs_stats::paired_t_test(x, y).unwrap();
            let w = recs_stats::wilcoxon_signed_rank(x, y, WilcoxonMethod::Auto).unwrap();
            let sign = recs_stats::sign_test(x, y).unwrap();
            let fisher = recs_stats::fisher_randomisation(x, y, 10_000, 42).unwrap();
            let boot = recs_stats::paired_bootstrap(x, y, 10_000, 0.95, 42).unwrap();
            same(&c["tests"]["t"]["statistic"], t.statistic, &what("t"));
            same(&c["tests"]["wilcoxon"]["statistic"], w.statistic, &what("W"));
            same(&c["tests"]["wilcoxon"]["w_plus"], w.w_plus, &what("W+"));
            same(&c["tests"]["sign"]["statistic"], sign.statistic, &what("k"));
            same(&c["tests"]["fisher"]["statistic"], fisher.statistic, &what("fisher mean"));
            same(&c["tests"]["bootstrap"]["lower"], boot.lower, &what("bootstrap lower"));
            same(&c["tests"]["bootstrap"]["upper"], boot.upper, &what("bootstrap upper"));
            let p = [t.p_value, w.p_value, sign.p_value, fisher.p_value, boot.p_value];
            for (k, key) in keys.iter().enumerate() {
                same(&c["tests"][key]["p_value"], p[k], &what(key));
                raw[k].push(p[k]);
                adjusted[k].push(&c["tests"][key]["p_adjusted"]);
            }
            same(&c["tukey_p"], hsd.pair(a, b).unwrap().p_value, &what("Tukey"));
        }
    }
    // Each test adjusted over its family of six, in the report's order of comparisons.
    for k in 0..5 {
        let holm = recs_stats::adjust_p_values(&raw[k], Adjustment::Holm).unwrap();
        for (got, want) in adjusted[k].iter().zip(holm) {
            same(got, want, &format!("{} Holm", keys[k]));
        }
    }
}

#[test]
fn statistics_match_values_computed_by_hand() {
    let v = json(&["--metrics", "mrr", "--tests", "t,sign,wilcoxon,fisher"]);
    let means = &v["metrics"][0]["means"];
    near(&means[0], 6.0 / 7.0, "good");
    near(&means[1], (0.5 + 1.0 + 1.0 / 3.0 + 0.5 + 0.5 + 1.0 + 0.75) / 7.0, "mid");
    near(&means[2], 2.5 / 7.0, "bad");
    // good − bad: 3/4, 2/3, 2/3, 0, 3/4, 1/2, 1/6; mean 1/2; squared deviations sum to
    // 1/16 + 1/36 + 1/36 + 1/4 + 1/16 + 0 + 1/9 = 13/24, so s² = 13/144.
    let c = comparison(&v, "mrr", "good", "bad");
    let sd = (13.0f64 / 144.0).sqrt();
    near(&c["difference"]["mean"], 0.5, "d̄");
    assert!((c["difference"]["sd"].as_f64().unwrap() - sd).abs() < 1e-15);
    let t = 0.5 / (sd / 7f64.sqrt());
    assert!((c["tests"]["t"]["statistic"].as_f64().unwrap() - t).abs() < 1e-12);
    // t_{0.975, 6} = 2.446911851144969 (tables).
    let half = 2.446_911_851_144_969 * sd / 7f64.sqrt();
    assert!((c["difference"]["lower"].as_f64().unwrap() - (0.5 - half)).abs() < 1e-12);
    assert!((c["cohens_dz"]["d_z"].as_f64().unwrap() - 0.5 / sd).abs() < 1e-12);
    // Six positive differences and one zero: sign p = 2/2⁶; the exact Wilcoxon p is
    // 2 P(W⁺ = 0) = 2/2⁶ too, and Fisher's exact p is 2/2⁶ (only the two assignments of
    // one sign reach |Σd|), estimated from 10,000 permutations (sd ≈ 0.0017).
    near(&c["tests"]["sign"]["p_value"], 0.03125, "sign p");
    assert_eq!(c["tests"]["sign"]["statistic"], 6.0);
    near(&c["tests"]["wilcoxon"]["p_value"], 0.03125, "wilcoxon p");
    let fisher = c["tests"]["fisher"]["p_value"].as_f64().unwrap();
    assert!((fisher - 0.03125).abs() < 0.007, "Fisher {fisher}");
    // good − mid: 1/2, 0, 2/3, 0, 1/2, 0, −1/4: three positive of four, p = 2·5/16.
    let c = comparison(&v, "mrr", "good", "mid");
    near(&c["tests"]["sign"]["p_value"], 0.625, "sign p");
    // mid − bad: five positive, two zero: p = 2/2⁵; Holm multiplies the smallest of the
    // three sign p-values (1/32, 1/16, 5/8) by 3, the next by 2.
    let c = comparison(&v, "mrr", "mid", "bad");
    near(&c["tests"]["sign"]["p_value"], 0.0625, "sign p");
    near(&c["tests"]["sign"]["p_adjusted"], 0.125, "sign p, Holm");
    near(&comparison(&v, "mrr", "good", "bad")["tests"]["sign"]["p_adjusted"], 0.09375, "Holm");
}

#[test]
fn markdown_marks_the_runs_a_row_beats_with_legend_and_family() {
    let out = compare_ok(&[&RUNS[..], &["--metrics", "mrr,ndcg@10"]].concat());
    let table = text(&out);
    // The t-test, Holm over 6: only good − bad (p = 0.0046, 0.0045) is below 0.05 after
    // adjustment (mid − bad: 0.0196 raw, 0.0721 adjusted).
    let (good, bad) = (per_user_values("good.tsv", "mrr"), per_user_values("bad.tsv", "mrr"));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let row = format!("| a | good | {:.4}<sup>c</sup> |", mean(&good));
    assert!(table.contains(&row), "{row} in\n{table}");
    assert!(table.contains(&format!("| c | bad | {:.4} |", mean(&bad))), "{table}");
    assert!(!table.contains("| b | mid | 0.6548<sup>"), "{table}");
    assert!(table.contains("by the paired t-test"), "{table}");
    assert!(table.contains("6 comparisons: 3 pairs × 2 metrics, Holm"), "{table}");
    assert!(table.contains("Runs: good = `good.tsv`, mid = `mid.tsv`, bad = `bad.tsv`."));
    let d = recs_stats::mean_difference(&good, &bad, 0.95).unwrap();
    let dz = recs_stats::cohens_dz(&good, &bad, 0.95).unwrap();
    let t = recs_stats::paired_t_test(&good, &bad).unwrap();
    let cells = format!(
        "| mrr | good − bad | 7 | {:.4} [{:.4}, {:.4}] | {:.3} [{:.3}, {:.3}] | {:.4} |",
        d.mean, d.lower, d.upper, dz.d_z, dz.lower, dz.upper, t.p_value
    );
    assert!(table.contains(&cells), "{cells} in\n{table}");
    assert!(table.contains("| t p | t p (Holm) | fisher p | fisher p (Holm) |"), "{table}");
    assert!(table.contains("1 left out, having no value in some run"), "{table}");
    assert!(table.contains("10000 permutations, seed 42"), "{table}");
}

#[test]
fn a_baseline_is_compared_with_every_other_run_in_a_smaller_family() {
    let v = json(&["--metrics", "mrr", "--baseline", "bad", "--tests", "t"]);
    assert_eq!(v["mode"], "baseline");
    assert_eq!(v["baseline"], "bad");
    assert_eq!(v["family"]["description"], "2 comparisons: 2 pairs × 1 metric, Holm");
    let pairs: Vec<(&str, &str)> = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["a"].as_str().unwrap(), c["b"].as_str().unwrap()))
        .collect();
    assert_eq!(pairs, [("good", "bad"), ("mid", "bad")]);
    // Holm over two: mid − bad (0.0196) is significant here, not among all six pairs.
    assert_eq!(v["metrics"][0]["beats"], serde_json::json!([["bad"], ["bad"], []]));
    let p = recs_stats::paired_t_test(&MID_MRR, &BAD_MRR).unwrap().p_value;
    same(&comparison(&v, "mrr", "mid", "bad")["tests"]["t"]["p_adjusted"], p, "Holm's last");
    let table =
        text(&compare_ok(&[&RUNS[..], &["--metrics", "mrr", "--baseline", "bad"]].concat()));
    assert!(table.contains("<sup>c</sup> |\n| b | mid | 0.6548<sup>c</sup> |"), "{table}");
    assert!(table.contains("each run against the baseline bad"), "{table}");
    let err = compare_err(&[&RUNS[..], &["--metrics", "mrr", "--baseline", "best"]].concat());
    assert!(err.contains("--baseline \"best\" is not a run; the runs are good, mid, bad"), "{err}");
}

#[test]
fn each_adjustment_is_the_one_recs_stats_computes() {
    for (name, method, title) in [
        ("bonferroni", Some(Adjustment::Bonferroni), "Bonferroni"),
        ("bh", Some(Adjustment::BenjaminiHochberg), "Benjamini–Hochberg"),
        ("none", None, "unadjusted"),
    ] {
        let v = json(&["--metrics", "mrr,map", "--tests", "t,sign", "--adjust", name]);
        assert_eq!(v["family"]["adjustment"], name);
        let description = format!("6 comparisons: 3 pairs × 2 metrics, {title}");
        assert_eq!(v["family"]["description"], description.as_str());
        for key in ["t", "sign"] {
            let comparisons = v["comparisons"].as_array().unwrap();
            let raw: Vec<f64> =
                comparisons.iter().map(|c| c["tests"][key]["p_value"].as_f64().unwrap()).collect();
            let want = match method {
                Some(method) => recs_stats::adjust_p_values(&raw, method).unwrap(),
                None => raw.clone(),
            };
            for (c, want) in comparisons.iter().zip(want) {
                same(&c["tests"][key]["p_adjusted"], want, &format!("{name} {key}"));
            }
        }
    }
    let args = [&RUNS[..], &["--metrics", "mrr", "--adjust", "none"]].concat();
    let table = text(&compare_ok(&args));
    assert!(table.contains("| t p | fisher p |"), "{table}");
    assert!(table.contains("by the paired t-test, unadjusted."), "{table}");
    // Unadjusted, mid − bad (t p = 0.0196) is marked.
    assert!(table.contains("| b | mid | 0.6548<sup>c</sup> |"), "{table}");
}

#[test]
fn tukey_hsd_marks_all_pairs_and_refuses_a_baseline() {
    let v = json(&["--metrics", "mrr", "--tukey", "--permutations", "5000", "--seed", "7"]);
    assert_eq!(v["tukey"], true);
    assert_eq!(v["marks"]["by"], "tukey");
    let systems = [GOOD_MRR.to_vec(), MID_MRR.to_vec(), BAD_MRR.to_vec()];
    let hsd = recs_stats::randomised_tukey_hsd(&systems, 5000, 7).unwrap();
    for (a, b, names) in [(0, 1, ("good", "mid")), (0, 2, ("good", "bad")), (1, 2, ("mid", "bad"))]
    {
        let c = comparison(&v, "mrr", names.0, names.1);
        let p = hsd.pair(a, b).unwrap().p_value;
        same(&c["tukey_p"], p, "Tukey p");
        let better = if p < 0.05 { Value::from(names.0) } else { Value::Null };
        assert_eq!(c["better"], better, "{names:?}");
    }
    let table = text(&compare_ok(&[&RUNS[..], &["--metrics", "mrr", "--tukey"]].concat()));
    assert!(table.contains("by the randomised Tukey HSD (10000 permutations; 3 pairs of 3 runs"));
    assert!(table.contains("| Tukey HSD p |"), "{table}");
    let err =
        compare_err(&[&RUNS[..], &["--metrics", "mrr", "--tukey", "--baseline", "bad"]].concat());
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn alpha_sets_the_level_of_the_marks() {
    let beats =
        |alpha: &str| json(&["--metrics", "mrr", "--alpha", alpha])["metrics"][0]["beats"].clone();
    // Holm-adjusted t p-values over three: good − bad 0.0137, mid − bad 0.0393, good − mid
    // 0.1732.
    assert_eq!(beats("0.05"), serde_json::json!([["bad"], ["bad"], []]));
    assert_eq!(beats("0.01"), serde_json::json!([[], [], []]));
    assert_eq!(beats("0.5"), serde_json::json!([["bad", "mid"], ["bad"], []]));
    let err = compare_err(&[&RUNS[..], &["--metrics", "mrr", "--alpha", "1.5"]].concat());
    assert!(err.contains("--alpha 1.5 must lie strictly between 0 and 1"), "{err}");
}

#[test]
fn tests_are_the_ones_asked_for_with_their_draws() {
    let v = json(&["--metrics", "mrr", "--tests", "bootstrap,sign", "--resamples", "500"]);
    assert_eq!(v["tests"], serde_json::json!(["bootstrap", "sign"]));
    assert_eq!(v["marks"]["by"], "bootstrap");
    let c = comparison(&v, "mrr", "good", "bad");
    let keys: Vec<&String> = c["tests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["bootstrap", "sign"]);
    assert_eq!(c["tests"]["bootstrap"]["resamples"], 500);
    let boot = recs_stats::paired_bootstrap(&GOOD_MRR, &BAD_MRR, 500, 0.95, 42).unwrap();
    same(&c["tests"]["bootstrap"]["p_value"], boot.p_value, "bootstrap p");
    let v = json(&["--metrics", "mrr", "--tests", "fisher", "--permutations", "99"]);
    let c = comparison(&v, "mrr", "good", "mid");
    assert_eq!(c["tests"]["fisher"]["permutations"], 99);
    let fisher = recs_stats::fisher_randomisation(&GOOD_MRR, &MID_MRR, 99, 42).unwrap();
    same(&c["tests"]["fisher"]["p_value"], fisher.p_value, "Fisher p");
    // Aliases: student = t, randomisation = fisher.
    assert_eq!(
        json(&["--metrics", "mrr", "--tests", "student,randomisation"])["tests"],
        serde_json::json!(["t", "fisher"])
    );
}

#[test]
fn the_same_seed_gives_the_same_bytes_at_any_thread_count() {
    let args = [
        &RUNS[..],
        &["--metrics", "mrr,ndcg@10", "--format", "json", "--tukey"],
        &["--tests", "t,wilcoxon,sign,fisher,bootstrap"],
    ]
    .concat();
    let run = |threads: Option<&str>, seed: &str| {
        let mut command = recs();
        command.current_dir(fixtures()).args(["compare", "--qrels", "qrels.tsv"]).args(&args);
        command.args(["--seed", seed]);
        match threads {
            Some(n) => command.env("RAYON_NUM_THREADS", n),
            None => command.env_remove("RAYON_NUM_THREADS"),
        };
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let default = run(None, "42");
    assert_eq!(default, run(Some("1"), "42"), "one thread and the default");
    assert_eq!(default, run(Some("3"), "42"), "three threads and the default");
    // The default seed is the workspace's.
    let unseeded = compare_ok(&[&RUNS[..], &["--metrics", "mrr", "--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&unseeded.stdout).unwrap();
    assert_eq!(v["seed"], recs_core::DEFAULT_SEED);
    // Another seed draws other permutations.
    let other: Value = serde_json::from_slice(&run(None, "43")).unwrap();
    let first: Value = serde_json::from_slice(&default).unwrap();
    let fisher = |v: &Value| -> Vec<f64> {
        v["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["tests"]["fisher"]["p_value"].as_f64().unwrap())
            .collect()
    };
    assert_ne!(fisher(&first), fisher(&other));
}

#[test]
fn a_run_that_misses_users_is_an_error_or_scored_zero() {
    let runs = ["--run", "good=good.tsv", "--run", "partial=partial.tsv", "--metrics", "mrr"];
    let err = compare_err(&runs);
    for want in [
        "run partial (partial.tsv) scores no candidate of 2 of the 8 users of qrels.tsv",
        "(for example user u3)",
        "--missing zero",
    ] {
        assert!(err.contains(want), "{want:?} in {err}");
    }
    let out = compare_ok(&[&runs[..], &["--missing", "zero", "--format", "json"]].concat());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["missing"], "zero");
    assert_eq!(v["runs"][1]["missing_users"], 2);
    assert_eq!(v["runs"][0]["missing_users"], 0);
    // partial is bad.tsv without u3 and u5: their MRR is 0.
    let mut partial = BAD_MRR;
    (partial[2], partial[4]) = (0.0, 0.0);
    let c = comparison(&v, "mrr", "good", "partial");
    same(&c["mean_b"], partial.iter().sum::<f64>() / 7.0, "mean of partial");
    let t = recs_stats::paired_t_test(&GOOD_MRR, &partial).unwrap();
    same(&c["tests"]["t"]["p_value"], t.p_value, "t p");
    let table = text(&compare_ok(&[&runs[..], &["--missing", "zero"]].concat()));
    assert!(
        table.contains("Users missing from a run are scored 0 on every metric (--missing zero): partial misses 2 of 8."),
        "{table}"
    );
    let none = text(&compare_ok(&[&RUNS[..], &["--metrics", "mrr", "--missing", "zero"]].concat()));
    assert!(none.contains("--missing zero: no run misses a user."), "{none}");
}

/// The fixture's runs as TREC runs (`qid Q0 doc rank score tag`) in `dir`.
fn trec_runs(dir: &Path) {
    for name in ["good", "bad", "partial"] {
        let tsv = std::fs::read_to_string(fixtures().join(format!("{name}.tsv"))).unwrap();
        let mut lines: Vec<(String, String, String)> = tsv
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0].to_string(), f[1].to_string(), f[2].to_string())
            })
            .collect();
        let score = |x: &(String, String, String)| x.2.parse::<f64>().unwrap();
        lines.sort_by(|x, y| x.0.cmp(&y.0).then(score(y).total_cmp(&score(x))));
        let mut text = String::new();
        let mut rank = 0;
        for (i, (user, item, score)) in lines.iter().enumerate() {
            rank = if i > 0 && lines[i - 1].0 == *user { rank + 1 } else { 1 };
            text.push_str(&format!("{user} Q0 {item} {rank} {score} {name}\n"));
        }
        std::fs::write(dir.join(format!("{name}.trec")), text).unwrap();
    }
}

#[test]
fn trec_runs_are_read_as_recs_eval_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    trec_runs(dir.path());
    let qrels = fixtures().join("qrels.tsv");
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let run = |args: &[String]| {
        recs()
            .current_dir(dir.path())
            .arg("compare")
            .arg("--qrels")
            .arg(&qrels)
            .args(args)
            .output()
            .unwrap()
    };
    let args: Vec<String> = [
        "--run",
        "good=good.trec",
        "--run",
        "bad=bad.trec",
        "--metrics",
        "mrr,map",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec();
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // TREC's conventions: the run's items are the candidates, a user without a relevant
    // item counts as 0 (trec_eval), so u8 is paired: eight users.
    assert_eq!(v["candidates"], "run");
    assert_eq!(v["zero"], "zero");
    for (s, name) in ["good.trec", "bad.trec"].into_iter().enumerate() {
        let eval = recs()
            .args(["eval", "--qrels", qrels.to_str().unwrap(), "--run", &path(name)])
            .args(["--metrics", "mrr,map", "--json"])
            .output()
            .unwrap();
        let e: Value = serde_json::from_slice(&eval.stdout).unwrap();
        assert_eq!(v["metrics"][0]["n_users"], 8);
        same(&v["metrics"][0]["means"][s], e["mrr"].as_f64().unwrap(), name);
        same(&v["metrics"][1]["means"][s], e["map"].as_f64().unwrap(), name);
    }
    let missing = ["--run", "good=good.trec", "--run", "p=partial.trec", "--metrics", "mrr"]
        .map(String::from);
    let err = String::from_utf8_lossy(&run(&missing).stderr).into_owned();
    assert!(err.contains("run p (partial.trec) has no line for 2 of the 8 users"), "{err}");
    let zero =
        [&missing[..], &["--missing".into(), "zero".into(), "--format".into(), "csv".into()]]
            .concat();
    let out = run(&zero);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Users without a line are the missing users, not also a warning that they are left out.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not evaluated"));
    let mixed = [
        "--run",
        "good=good.trec",
        "--run",
        &format!("bad={}", fixtures().join("bad.tsv").display()),
        "--metrics",
        "mrr",
    ]
    .map(String::from);
    let err = String::from_utf8_lossy(&run(&mixed).stderr).into_owned();
    assert!(
        err.contains("different candidate policies") && err.contains("give --candidates"),
        "{err}"
    );
    // --run-format forces a layout: a TREC file read as tab-separated fails at line 1.
    let forced = [&args[..], &["--run-format".into(), "tsv".into()]].concat();
    let err = String::from_utf8_lossy(&run(&forced).stderr).into_owned();
    assert!(err.contains("good.trec:1"), "{err}");
}

#[test]
fn reading_options_give_the_means_recs_eval_gives() {
    let dir = tempfile::tempdir().unwrap();
    // Training events: u1 trained on e, u2 on f; the catalog is a..f.
    std::fs::write(dir.path().join("train.tsv"), "u1\te\nu2\tf\nu3\te\n").unwrap();
    let train = dir.path().join("train.tsv");
    let written = dir.path().join("candidates.tsv");
    let candidates_file = format!("file:{}", written.display());
    let cases: Vec<Vec<String>> = [
        vec![],
        vec!["--ties", "item-ascending"],
        vec!["--zero", "zero"],
        vec!["--rel-threshold", "2"],
        vec!["--candidates", "catalog", "--train", train.to_str().unwrap()],
        vec!["--candidates", "sampled:2", "--train", train.to_str().unwrap(), "--seed", "3"],
        vec!["--candidates", &candidates_file],
    ]
    .into_iter()
    .map(|case| case.into_iter().map(String::from).collect())
    .collect();
    for case in cases {
        let mut means = Vec::new();
        for file in ["good.tsv", "mid.tsv", "bad.tsv"] {
            let mut eval = recs();
            eval.current_dir(fixtures()).args(["eval", "--qrels", "qrels.tsv", "--run", file]);
            eval.args(["--metrics", "mrr,ndcg@10,p@1", "--json"]).args(&case);
            if case.iter().any(|a| a.starts_with("sampled")) {
                eval.arg("--write-candidates").arg(&written);
            }
            let out = eval.output().unwrap();
            assert!(out.status.success(), "{case:?}: {}", String::from_utf8_lossy(&out.stderr));
            means.push(serde_json::from_slice::<Value>(&out.stdout).unwrap());
        }
        let case: Vec<&str> = case.iter().map(String::as_str).collect();
        let v = json(&[&["--metrics", "mrr,ndcg@10,p@1"], &case[..]].concat());
        for (m, metric) in ["mrr", "ndcg@10", "p@1"].into_iter().enumerate() {
            for s in 0..3 {
                let want = means[s][metric].as_f64().unwrap();
                same(&v["metrics"][m]["means"][s], want, &format!("{case:?} {metric} run {s}"));
            }
        }
        let n_users = v["metrics"][0]["n_users"].as_u64().unwrap();
        match case.first().copied() {
            Some("--zero") => assert_eq!(n_users, 8, "u8 counts as 0"),
            Some("--rel-threshold") => assert_eq!(n_users, 2, "only u1 and u2 have grade 2"),
            _ => assert_eq!(n_users, 7),
        }
    }
    let err = compare_err(
        &[&RUNS[..], &["--metrics", "mrr", "--train", train.to_str().unwrap()]].concat(),
    );
    assert!(err.contains("--train is used by --candidates catalog and sampled:N"), "{err}");
}

#[test]
fn latex_csv_and_output_files() {
    let base = [&RUNS[..], &["--metrics", "mrr,ndcg_exp@3"]].concat();
    let latex = text(&compare_ok(&[&base[..], &["--format", "latex"]].concat()));
    assert!(latex.contains("a & good & 0.8571\\textsuperscript{c} & "), "{latex}");
    assert!(latex.contains("ndcg\\_exp@3"), "{latex}");
    assert!(latex.contains("6 comparisons: 3 pairs $\\times$ 2 metrics, Holm"), "{latex}");
    assert_eq!(latex.matches("\\begin{tabular}").count(), 2);

    let csv = text(&compare_ok(
        &[&base[..], &["--format", "csv", "--tests", "t,bootstrap", "--tukey"]].concat(),
    ));
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(lines.len(), 7, "a header and six comparisons");
    for key in
        ["t_p_adjusted", "bootstrap_lower", "bootstrap_upper", "tukey_p", "adjustment", "better"]
    {
        assert!(header.contains(&key), "{key} in {header:?}");
    }
    let row: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(row.len(), header.len());
    let cell = |key: &str| row[header.iter().position(|h| *h == key).unwrap()];
    assert_eq!((cell("metric"), cell("run_a"), cell("run_b")), ("mrr", "good", "bad"));
    // Full precision: the text reads back to the bits recs-stats gives.
    let t = recs_stats::paired_t_test(&GOOD_MRR, &BAD_MRR).unwrap();
    assert_eq!(cell("t_p").parse::<f64>().unwrap(), t.p_value);
    assert_eq!(cell("mean_a").parse::<f64>().unwrap(), GOOD_MRR.iter().sum::<f64>() / 7.0);
    assert_eq!((cell("adjustment"), cell("better")), ("holm", "good"));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.md");
    let out = compare_ok(&[&base[..], &["--output", file.to_str().unwrap()]].concat());
    assert!(out.stdout.is_empty());
    let to_stdout = compare_ok(&base);
    assert_eq!(std::fs::read(&file).unwrap(), to_stdout.stdout);
    let nowhere = dir.path().join("no/such/folder/report.md");
    let err = compare_err(&[&base[..], &["--output", nowhere.to_str().unwrap()]].concat());
    assert!(err.contains("writing") && err.contains("report.md"), "{err}");
    assert!(!nowhere.exists());
    // Nothing but the report is left in the folder (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn bad_input_is_refused_with_what_was_expected() {
    let mrr = ["--metrics", "mrr"];
    let err = |args: &[&str]| compare_err(&[args, &mrr[..]].concat());
    let contains = |e: String, want: &str| assert!(e.contains(want), "want {want:?} in: {e}");
    contains(err(&["--run", "good=good.tsv"]), "needs at least 2 runs (--run NAME=PATH), found 1");
    contains(
        err(&["--run", "good=good.tsv", "--run", "good=bad.tsv"]),
        "two runs are named \"good\"",
    );
    contains(err(&["--run", "good.tsv", "--run", "bad=bad.tsv"]), "expected NAME=PATH");
    contains(err(&[&RUNS[..], &["--tests", "t,welch"]].concat()), "invalid value 'welch'");
    contains(err(&[&RUNS[..], &["--tests", "t,t"]].concat()), "--tests names t twice");
    contains(
        err(&[&RUNS[..], &["--permutations", "0"]].concat()),
        "--permutations must be at least 1",
    );
    contains(err(&[&RUNS[..], &["--resamples", "0"]].concat()), "--resamples must be at least 1");
    contains(err(&[&RUNS[..], &["--missing", "skip"]].concat()), "invalid value 'skip'");
    contains(err(&[&RUNS[..], &["--format", "html"]].concat()), "invalid value 'html'");
    contains(
        compare_err(&[&RUNS[..], &["--metrics", "ndcg@10,roc"]].concat()),
        "roc is not a mean of per-user values",
    );
    contains(compare_err(&[&RUNS[..], &["--metrics", "ndcg@0"]].concat()), "unknown metric");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "u1\ta\t0.5\nu1\tb\tlots\n").unwrap();
    let run = format!("broken={}", bad.display());
    contains(
        err(&["--run", "good=good.tsv", "--run", &run]),
        "bad.tsv:2: score `lots` is not a number",
    );
    let qrels = dir.path().join("q.tsv");
    std::fs::write(&qrels, "u1\ta\t1\nu1\tb\n").unwrap();
    let out = recs()
        .current_dir(fixtures())
        .args(["compare", "--qrels", qrels.to_str().unwrap()])
        .args(RUNS)
        .args(mrr)
        .output()
        .unwrap();
    contains(String::from_utf8_lossy(&out.stderr).into_owned(), "q.tsv:2");
}

/// MovieLens 100K, leave one out, three runs made by `recs score`: random, item
/// popularity and item kNN. The means are `recs eval`'s (and, for item popularity,
/// numpy's exact values of `tests/fixtures/sampled_vs_exact/ml100k.json`); kNN beats
/// popularity beats random on every metric by every test; the same bytes on one thread.
#[test]
fn movielens_three_runs_compared() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let ok = |args: &[&str], threads: Option<&str>| {
        let mut command = recs();
        command.current_dir(at).args(args);
        if let Some(n) = threads {
            command.env("RAYON_NUM_THREADS", n);
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    ok(
        &[
            "split",
            "--dataset",
            "ml-100k",
            "--data-dir",
            data.to_str().unwrap(),
            "--protocol",
            "leave-one-out",
            "--seed",
            "0",
            "--judgments",
            "implicit",
            "--out",
            ".",
        ],
        None,
    );
    for model in ["random", "item-pop", "item-knn"] {
        let out = format!("{model}.tsv");
        ok(
            &[
                "score",
                "--train",
                "train.tsv",
                "--model",
                model,
                "--qrels",
                "qrels.tsv",
                "--out",
                &out,
            ],
            None,
        );
    }
    let args = [
        "compare",
        "--qrels",
        "qrels.tsv",
        "--run",
        "random=random.tsv",
        "--run",
        "pop=item-pop.tsv",
        "--run",
        "knn=item-knn.tsv",
        "--metrics",
        "ndcg@10,r@10,mrr",
        "--tests",
        "t,wilcoxon,sign,fisher,bootstrap",
        "--tukey",
        "--format",
        "json",
    ];
    let default = ok(&args, None);
    assert_eq!(default.stdout, ok(&args, Some("1")).stdout, "one thread and the default");
    let v: Value = serde_json::from_slice(&default.stdout).unwrap();
    assert_eq!(v["n_users"], 943);
    assert_eq!(v["family"]["description"], "9 comparisons: 3 pairs × 3 metrics, Holm");
    let numpy: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/sampled_vs_exact/ml100k.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for (m, (metric, numpy_key)) in
        [("ndcg@10", "ndcg@10"), ("r@10", "r@10"), ("mrr", "ap")].into_iter().enumerate()
    {
        assert_eq!(v["metrics"][m]["n_users"], 943);
        for (s, file) in ["random.tsv", "item-pop.tsv", "item-knn.tsv"].into_iter().enumerate() {
            let eval = ok(
                &["eval", "--qrels", "qrels.tsv", "--run", file, "--metrics", metric, "--json"],
                None,
            );
            let e: Value = serde_json::from_slice(&eval.stdout).unwrap();
            same(
                &v["metrics"][m]["means"][s],
                e[metric].as_f64().unwrap(),
                &format!("{file} {metric}"),
            );
        }
        let exact = numpy["runs"]["pop"][numpy_key]["exact"].as_f64().unwrap();
        let pop = v["metrics"][m]["means"][1].as_f64().unwrap();
        assert!((pop - exact).abs() < 1e-12, "{metric}: {pop} vs numpy {exact}");
        // knn beats pop and random, pop beats random, by every test and the Tukey HSD.
        let beats = &v["metrics"][m]["beats"];
        assert_eq!(*beats, serde_json::json!([[], ["random"], ["pop", "random"]]), "{metric}");
        for c in v["comparisons"].as_array().unwrap().iter().filter(|c| c["metric"] == metric) {
            for key in ["t", "wilcoxon", "sign", "fisher", "bootstrap"] {
                let p = c["tests"][key]["p_adjusted"].as_f64().unwrap();
                assert!(p < 0.01, "{metric} {} − {} {key}: {p}", c["a"], c["b"]);
            }
            assert!(c["tukey_p"].as_f64().unwrap() < 0.01);
            assert!(c["difference"]["upper"].as_f64().unwrap() < 0.0, "a − b with a worse");
        }
    }
    let baseline = ok(&[&args[..13], &["--baseline", "random", "--format", "json"]].concat(), None);
    let b: Value = serde_json::from_slice(&baseline.stdout).unwrap();
    assert_eq!(b["family"]["description"], "6 comparisons: 2 pairs × 3 metrics, Holm");
}
