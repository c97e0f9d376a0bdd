//! `recs eval` end to end on small files.

use std::path::{Path, PathBuf};
use std::process::Output;

use arrow_array::types::Float64Type;
use assert_cmd::Command;
use recs_testkit::real_data_dir;

const QRELS: &str = "u1\ta\t1\nu1\tb\t0\nu1\tc\t0\nu2\ta\t0\nu2\tb\t2\n";

/// A temporary directory holding the qrels `q.tsv` (`qrels`) and the run `run_name`
/// (`run`), with their paths; the files live as long as the directory.
fn inputs(qrels: &str, run_name: &str, run: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (qrels_path, run_path) = (dir.path().join("q.tsv"), dir.path().join(run_name));
    std::fs::write(&qrels_path, qrels).unwrap();
    std::fs::write(&run_path, run).unwrap();
    (dir, qrels_path, run_path)
}

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn json_of(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output).unwrap()
}

/// `recs eval --qrels Q --run R` with `extra` arguments.
fn eval(qrels: &Path, run: &Path, extra: &[&str]) -> Output {
    recs().arg("eval").arg("--qrels").arg(qrels).arg("--run").arg(run).args(extra).output().unwrap()
}

/// As [`eval`], failing the test with standard error when the command fails.
fn eval_ok(qrels: &Path, run: &Path, extra: &[&str]) -> Output {
    let out = eval(qrels, run, extra);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn json_output_has_the_documented_keys_and_values() {
    // u1: a 0.9 (rel), b 0.5, c missing; u2: a 0.8, b 0.7 (rel). A line for an unknown
    // pair is ignored.
    let run = "u1\ta\t0.9\nu1\tb\t0.5\nu2\ta\t0.8\nu2\tb\t0.7\nu3\ta\t1\n";
    let (_dir, qrels, run) = inputs(QRELS, "r.tsv", run);
    let out = eval_ok(&qrels, &run, &["--json", "--metrics", "roc,croc,p@1,r@1,map,mrr,ndcg@2"]);
    let v = json_of(&out.stdout);
    // Pooled: positives 0.9, 0.7; negatives 0.5, 0.8, missing → 5 of 6 pairs won.
    assert!((v["roc_auc"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12);
    assert!(v["roc_pauc@0.3"].is_f64());
    assert!(v["croc_auc"].is_f64());
    assert!(v["croc_pauc@0.3"].is_f64());
    assert_eq!(v["p@1"].as_f64(), Some(0.5));
    assert_eq!(v["r@1"].as_f64(), Some(0.5));
    assert_eq!(v["map"].as_f64(), Some(0.75));
    assert_eq!(v["mrr"].as_f64(), Some(0.75));
    assert!(v["ndcg@2"].is_f64());
    assert_eq!(v["n_users"].as_u64(), Some(2));
    assert_eq!(v["n_candidates"].as_u64(), Some(5));
    assert_eq!(v["n_positives"].as_u64(), Some(2));
    assert_eq!(v["n_missing"].as_u64(), Some(1));
    assert_eq!(v["warnings"].as_array().unwrap().len(), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: 1 of 5 candidates"));
}

#[test]
fn trec_run_and_curves() {
    let run = "u1 Q0 a 1 0.9 sys\nu1 Q0 b 2 0.5 sys\nu1 Q0 c 3 0.1 sys\nu2 Q0 a 1 0.8 sys\nu2 Q0 b 2 0.7 sys\n";
    let (dir, qrels, run) = inputs(QRELS, "r.trec", run);
    let curves = dir.path().join("curves");
    let out = eval_ok(
        &qrels,
        &run,
        &["--json", "--metrics", "p@1", "--curves", curves.to_str().unwrap()],
    );
    let v = json_of(&out.stdout);
    assert!((v["roc_auc"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12);
    let roc = std::fs::read_to_string(curves.join("roc.csv")).unwrap();
    assert!(roc.starts_with("fpr,tpr\n0,0\n"));
    assert!(roc.trim_end().ends_with("1,1"));
    let croc = std::fs::read_to_string(curves.join("croc.csv")).unwrap();
    // k = 0..=3 for a user with 3 candidates: four points plus the header.
    assert_eq!(croc.lines().count(), 5);
    // Forcing the format: `trec` reads the file, `tsv` refuses it naming the line.
    eval_ok(&qrels, &run, &["--format", "trec"]);
    let out = eval(&qrels, &run, &["--format", "tsv"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("r.trec:1:"));
}

#[test]
fn trec_runs_follow_trec_conventions() {
    // Only `a` is judged: `x` and `y`, retrieved above it, are not relevant.
    let run = "1 Q0 x 1 3 s\n1 Q0 y 2 2 s\n1 Q0 a 3 1 s\n";
    let (_dir, qrels, run) = inputs("1 0 a 1\n", "r.trec", run);
    let v = json_of(&eval_ok(&qrels, &run, &["--json", "--metrics", "ndcg@10,p@1"]).stdout);
    assert_eq!(v["candidates"], "run");
    assert_eq!(v["ndcg@10"].as_f64(), Some(0.5));
    assert_eq!(v["p@1"].as_f64(), Some(0.0));
    // The qrels as the full candidate list, asked for by name, keeps only `a`.
    let args = ["--json", "--metrics", "ndcg@10,p@1", "--candidates", "qrels"];
    let v = json_of(&eval_ok(&qrels, &run, &args).stdout);
    assert_eq!(v["candidates"], "qrels");
    assert_eq!((v["ndcg@10"].as_f64(), v["p@1"].as_f64()), (Some(1.0), Some(1.0)));
    assert_eq!(v["n_ignored"].as_u64(), Some(2));
}

#[test]
fn trec_files_give_trec_evals_numbers() {
    // Graded judgments, unjudged retrieved and unretrieved judged documents, queries in
    // one file only, no ties: values computed by trec_eval's code (tools/trec_oracle.py).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trec");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let metrics = "p@5,p@10,r@5,r@10,ndcg@5,ndcg@10,map,mrr";
    let out =
        eval_ok(&dir.join("qrels.txt"), &dir.join("run.txt"), &["--json", "--metrics", metrics]);
    let v = json_of(&out.stdout);
    assert_eq!(v["n_users"], expected["n_users"]);
    for key in metrics.split(',') {
        let (got, want) = (v[key].as_f64().unwrap(), expected[key].as_f64().unwrap());
        assert!((got - want).abs() < 1e-12, "{key}: recs eval {got}, trec_eval {want}");
    }
}

#[test]
fn human_table_lists_metrics() {
    let run = "u1\ta\t0.9\nu1\tb\t0.5\nu1\tc\t0.1\nu2\ta\t0.8\nu2\tb\t0.7\n";
    let (_dir, qrels, run) = inputs(QRELS, "r.tsv", run);
    let out = eval_ok(&qrels, &run, &["--metrics", "map"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("map"), "{text}");
    assert!(text.contains("0.750000"), "{text}");
}

#[test]
fn parse_errors_name_file_and_line() {
    let (_dir, qrels, run) = inputs(QRELS, "r.tsv", "u1\ta\t0.9\nu1\tb\toops\n");
    let out = eval(&qrels, &run, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("r.tsv:2:"), "{err}");
    let out = eval(&qrels, &run, &["--metrics", "ndcg@zero"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown metric"));
}

#[test]
fn tie_and_zero_policies_are_spelled_as_in_the_library() {
    // u1 ties its relevant a with b; u2 ranks its non-relevant a first; u3 has no
    // relevant candidate.
    let qrels = format!("{QRELS}u3\ta\t0\n");
    let run = "u1\ta\t0.5\nu1\tb\t0.5\nu1\tc\t0.1\nu2\ta\t0.8\nu2\tb\t0.7\nu3\ta\t1\n";
    let (_dir, qrels, run) = inputs(&qrels, "r.tsv", run);
    let p1 = |extra: &[&str]| {
        let mut args = vec!["--json", "--metrics", "p@1"];
        args.extend_from_slice(extra);
        json_of(&eval_ok(&qrels, &run, &args).stdout)["p@1"].as_f64().unwrap()
    };
    // p@1 of u1 is 1/2 in expectation, 1 with a (index 0) first, 0 with b first.
    assert_eq!(p1(&[]), 0.25);
    for (names, expected) in [
        (["expected", "expected"], 0.25),
        (["item-ascending", "item-asc"], 0.5),
        (["item-descending", "item-desc"], 0.0),
    ] {
        for name in names {
            assert_eq!(p1(&["--ties", name]), expected, "--ties {name}");
        }
    }
    // u3 is left out by default and counts as 0 with `--zero zero`.
    assert_eq!(p1(&["--zero", "exclude"]), 0.25);
    assert_eq!(p1(&["--zero", "zero"]), 0.5 / 3.0);
    // Every name the library prints is one the command line reads.
    for t in recs_metrics::TieBreak::ALL {
        eval_ok(&qrels, &run, &["--ties", &t.to_string()]);
    }
    for z in recs_metrics::ZeroPolicy::ALL {
        eval_ok(&qrels, &run, &["--zero", &z.to_string()]);
    }
    // An unknown name is refused with the allowed ones.
    let out = eval(&qrels, &run, &["--ties", "random"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected, item-ascending, item-descending"), "{err}");
    let out = eval(&qrels, &run, &["--zero", "none"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("exclude, zero, ignatov"));
    // The help shows the defaults by their names.
    let help = recs().args(["eval", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("[default: expected]"), "{help}");
    assert!(help.contains("[default: `zero` with `--candidates run`, `exclude` otherwise]"));
}

/// The committed fixture `tests/fixtures/eval/<name>`: six users with four candidates
/// each, item `a` the only relevant one; `better.tsv` ranks it at 1, 1, 1, 2, 2, 3 and
/// `worse.tsv` at 2, 3, 4, 3, 4, 4 (users u1..u6).
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eval").join(name)
}

fn eval_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    json_of(&eval_ok(&fixture("qrels.tsv"), &fixture("better.tsv"), &args).stdout)
}

fn pair(v: &serde_json::Value) -> [f64; 2] {
    let a = v.as_array().unwrap_or_else(|| panic!("not an interval: {v}"));
    assert_eq!(a.len(), 2);
    [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()]
}

#[test]
fn intervals_are_t_and_seeded_bootstrap_over_users() {
    let v =
        eval_json(&["--metrics", "mrr,roc", "--intervals", "--seed", "7", "--resamples", "500"]);
    // Reciprocal ranks of `better.tsv`: 1, 1, 1, 1/2, 1/2, 1/3.
    let rr = [1.0, 1.0, 1.0, 0.5, 0.5, 1.0 / 3.0];
    let mean = rr.iter().sum::<f64>() / 6.0;
    let sd = (rr.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 5.0).sqrt();
    // t_{0.975, 5} (scipy.stats.t.ppf(0.975, 5)).
    let half = 2.570_581_835_636_314_6 * sd / 6f64.sqrt();
    assert!((v["mrr"].as_f64().unwrap() - mean).abs() < 1e-12);
    let [lo, hi] = pair(&v["mrr_ci95_t"]);
    assert!((lo - (mean - half)).abs() < 1e-9 && (hi - (mean + half)).abs() < 1e-9, "{lo} {hi}");
    // scipy gives the same interval: 0.3965650847556936, 1.0478793596887508.
    assert!(
        (lo - 0.396_565_084_755_693_6).abs() < 1e-9 && (hi - 1.047_879_359_688_750_8).abs() < 1e-9
    );
    // The bootstrap interval is the library's for these values, resamples and seed.
    let b = recs_metrics::bootstrap_interval(&rr, 500, 7).unwrap();
    assert_eq!(pair(&v["mrr_ci95_bootstrap"]), [b.lower, b.upper]);
    assert!(b.lower >= 1.0 / 3.0 && b.upper <= 1.0 && b.lower < mean && mean < b.upper);
    assert_eq!(v["bootstrap_seed"].as_u64(), Some(7));
    // The pooled ROC AUC has no per-user interval.
    assert!(v.get("roc_auc_ci95_t").is_none());
    // Same seed, same output; the default seed is 0.
    let again =
        eval_json(&["--metrics", "mrr", "--intervals", "--seed", "7", "--resamples", "500"]);
    assert_eq!(again["mrr_ci95_bootstrap"], v["mrr_ci95_bootstrap"]);
    let seed0 = eval_json(&["--metrics", "mrr", "--intervals", "--resamples", "500"]);
    let b0 = recs_metrics::bootstrap_interval(&rr, 500, 0).unwrap();
    assert_eq!(pair(&seed0["mrr_ci95_bootstrap"]), [b0.lower, b0.upper]);
}

#[test]
fn compare_gives_both_means_and_paired_tests() {
    let path = fixture("worse.tsv");
    let v = eval_json(&["--metrics", "mrr,map,roc", "--compare", path.to_str().unwrap()]);
    let c = &v["compare"]["metrics"]["mrr"];
    // Reciprocal ranks: better 1, 1, 1, 1/2, 1/2, 1/3; worse 1/2, 1/3, 1/4, 1/3, 1/4, 1/4.
    assert!((c["mean_run"].as_f64().unwrap() - 13.0 / 18.0).abs() < 1e-12);
    let worse = [0.5, 1.0 / 3.0, 0.25, 1.0 / 3.0, 0.25, 0.25];
    assert!((c["mean_compare"].as_f64().unwrap() - worse.iter().sum::<f64>() / 6.0).abs() < 1e-12);
    assert_eq!(c["n_pairs"].as_u64(), Some(6));
    // `better` wins on every user by six distinct amounts, so W− = 0 and the exact
    // two-sided p-value is 2 · (1 / 2⁶) = 0.03125 (one sign pattern of 64 at each end;
    // scipy.stats.wilcoxon agrees).
    assert_eq!(c["wilcoxon_statistic"].as_f64(), Some(0.0));
    assert!((c["wilcoxon_p_value"].as_f64().unwrap() - 0.03125).abs() < 1e-15);
    assert_eq!(c["wilcoxon_n"].as_u64(), Some(6));
    // Paired t-test of the differences 1/2, 2/3, 3/4, 1/6, 1/4, 1/12 (t with 5 degrees of
    // freedom); reference: scipy.stats.ttest_rel = (3.575074127231151, 0.015957769568558804).
    assert!((c["t_statistic"].as_f64().unwrap() - 3.575_074_127_231_151).abs() < 1e-9);
    assert!((c["t_p_value"].as_f64().unwrap() - 0.015_957_769_568_558_804).abs() < 1e-9);
    // One relevant candidate per user: MAP equals MRR.
    assert_eq!(v["compare"]["metrics"]["map"], v["compare"]["metrics"]["mrr"]);
    assert!(v["compare"]["metrics"].get("roc").is_none());
    assert!(v["compare"]["run"].as_str().unwrap().ends_with("worse.tsv"));
    // Swapping the runs flips the t statistic and keeps the p-values.
    let out = eval_ok(
        &fixture("qrels.tsv"),
        &fixture("worse.tsv"),
        &["--json", "--metrics", "mrr", "--compare", fixture("better.tsv").to_str().unwrap()],
    );
    let w = json_of(&out.stdout);
    let d = &w["compare"]["metrics"]["mrr"];
    assert!((d["t_statistic"].as_f64().unwrap() + 3.575_074_127_231_151).abs() < 1e-9);
    assert_eq!(d["wilcoxon_p_value"], c["wilcoxon_p_value"]);
    // The table names both runs and the p-values.
    let out = eval_ok(
        &fixture("qrels.tsv"),
        &fixture("better.tsv"),
        &["--metrics", "mrr", "--compare", fixture("worse.tsv").to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("wilcoxon p") && text.contains("0.031250"), "{text}");
}

#[test]
fn cremonesi_roc2_and_roc1_by_name() {
    let v = eval_json(&["--metrics", "roc2@1,roc1@0.9"]);
    // Top 1 of each user: a for u1..u3 (TP 3), b for u4..u6 (FP 3); 6 relevant and 18
    // non-relevant candidates in all.
    assert_eq!(v["roc2_tpr@1"].as_f64(), Some(0.5));
    assert!((v["roc2_fpr@1"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-15);
    // Per user: TPR 1, 1, 1, 0, 0, 0 and FPR 0, 0, 0, 1/3, 1/3, 1/3.
    assert_eq!(v["roc2_user_tpr@1"].as_f64(), Some(0.5));
    assert!((v["roc2_user_fpr@1"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-15);
    // ROC1 at t = 0.9: "score >= 0.9" recommends a for u1..u3 and b for everyone;
    // "grade >= 0.9" holds for the six a's: TP 3, FN 3, FP 6, TN 12.
    assert_eq!(v["roc1_tpr@0.9"].as_f64(), Some(0.5));
    assert!((v["roc1_fpr@0.9"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-15);
    let out = eval(&fixture("qrels.tsv"), &fixture("better.tsv"), &["--metrics", "roc2@0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("roc2@N"));
}

/// `recs` with `args`, failing the test with standard error when it fails.
fn recs_ok(args: &[&str]) -> Output {
    let out = recs().args(args).output().unwrap();
    assert!(out.status.success(), "recs {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn catalog_candidates_equal_a_fully_listed_qrels_on_msweb() {
    let Some(data) = real_data_dir() else { return };
    let data = data.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let out = path("");
    recs_ok(&[
        "split",
        "--dataset",
        "msweb",
        "--data-dir",
        data,
        "--protocol",
        "predefined",
        "--judgments",
        "implicit",
        "--judge-users",
        "test",
        "--out",
        &out,
    ]);
    // The graded pairs only, and one line of grade 0 for a judged user without any.
    let listed = std::fs::read_to_string(path("qrels.tsv")).unwrap();
    let mut graded = String::new();
    let mut first_line: Vec<(&str, &str)> = Vec::new();
    let mut positive = std::collections::HashSet::new();
    for line in listed.lines() {
        let user = line.split('\t').next().unwrap();
        if line.split('\t').nth(2) != Some("0") {
            graded.push_str(line);
            graded.push('\n');
            positive.insert(user);
        } else if first_line.last().is_none_or(|(u, _)| *u != user) {
            first_line.push((user, line));
        }
    }
    for (user, line) in first_line {
        if !positive.contains(user) {
            graded.push_str(line);
            graded.push('\n');
        }
    }
    std::fs::write(path("graded.tsv"), &graded).unwrap();
    assert!(graded.len() * 50 < listed.len(), "{} vs {} bytes", graded.len(), listed.len());
    let metrics = "roc,croc,user_auc,ndcg@10,r@20,p@5,hit@3,ap@10,map,mrr";
    // Item popularity ties many scores; PureSVD gives distinct ones.
    for (model, params) in [("item-pop", vec![]), ("puresvd", vec!["--param", "rank=8"])] {
        let run = path(&format!("{model}.tsv"));
        let train = path("train.tsv");
        let mut args = vec!["score", "--train", &train, "--model", model, "--qrels"];
        let qrels = path("qrels.tsv");
        args.extend([qrels.as_str(), "--out", &run]);
        args.extend(params.iter().copied());
        recs_ok(&args);
        let eval = |extra: &[&str]| {
            let mut args = vec!["eval", "--run", &run, "--metrics", metrics, "--json"];
            args.extend_from_slice(extra);
            let mut v = json_of(&recs_ok(&args).stdout);
            v.as_object_mut().unwrap().remove("candidates");
            v
        };
        let full = eval(&["--qrels", &qrels]);
        let graded = path("graded.tsv");
        let catalog = eval(&["--qrels", &graded, "--candidates", "catalog", "--train", &train]);
        assert_eq!(full, catalog, "{model}");
        assert_eq!(full["n_candidates"].as_u64(), Some(1_414_706));
    }
}

/// Writes the `user<TAB>item<TAB>value` lines of `rows` as Parquet, the ids as text and
/// the values as a column `value` of Arrow type `T` (`Float32Type`, `Float64Type`), as a
/// system that keeps its qrels or runs in Parquet would.
fn write_parquet<T>(path: &Path, rows: &str, value: &str)
where
    T: arrow_array::ArrowPrimitiveType,
    T::Native: std::str::FromStr<Err: std::fmt::Debug>,
{
    use std::sync::Arc;

    use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, StringArray};
    let fields: Vec<Vec<&str>> = rows.lines().map(|l| l.split('\t').collect()).collect();
    let column = |k: usize| fields.iter().map(move |f| f[k]);
    let values = PrimitiveArray::<T>::from_iter_values(column(2).map(|v| v.parse().unwrap()));
    let batch = RecordBatch::try_from_iter([
        ("user", Arc::new(StringArray::from_iter_values(column(0))) as ArrayRef),
        ("item", Arc::new(StringArray::from_iter_values(column(1))) as ArrayRef),
        (value, Arc::new(values) as ArrayRef),
    ])
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Parquet qrels and runs (columns `user`, `item`, `grade` / `score`) give the numbers of
/// the same rows in tab-separated files.
#[test]
fn parquet_files_give_the_numbers_of_their_text_equivalents() {
    let run = "u1\ta\t0.9\nu1\tb\t0.4\nu1\tc\t0.4\nu2\ta\t0.8\nu2\tb\t0.3\n";
    let (dir, qrels_tsv, run_tsv) = inputs(QRELS, "r.tsv", run);
    let (qrels_pq, run_pq) = (dir.path().join("q.parquet"), dir.path().join("r.parquet"));
    write_parquet::<Float64Type>(&qrels_pq, QRELS, "grade");
    write_parquet::<Float64Type>(&run_pq, run, "score");
    let metrics = ["--metrics", "roc,croc,ndcg@10,map,p@1", "--json"];
    let text = json_of(&eval_ok(&qrels_tsv, &run_tsv, &metrics).stdout);
    let parquet = json_of(&eval_ok(&qrels_pq, &run_pq, &metrics).stdout);
    assert_eq!(parquet["roc_auc"], text["roc_auc"]);
    for key in ["croc_auc", "ndcg@10", "map", "p@1"] {
        assert_eq!(parquet[key], text[key], "{key}");
    }
    // A wrongly named column is an error naming the file and the columns it has.
    write_parquet::<Float64Type>(&run_pq, run, "rank");
    let output = eval(&qrels_pq, &run_pq, &[]);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && err.contains("r.parquet: no column `score`"), "{err}");
}

#[cfg(feature = "datafusion")]
#[test]
fn the_datafusion_engine_prints_the_in_process_report_on_msweb() {
    let Some(data) = real_data_dir() else { return };
    let data = data.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let split = ["split", "--dataset", "msweb", "--data-dir", data, "--protocol", "predefined"];
    recs_ok(
        &[&split[..], &["--judgments", "implicit", "--out", dir.path().to_str().unwrap()]].concat(),
    );
    let (train, qrels) = (path("train.tsv"), path("qrels.tsv"));
    let run = path("pop.parquet");
    recs_ok(&[
        "score",
        "--train",
        train.to_str().unwrap(),
        "--model",
        "item-pop",
        "--qrels",
        qrels.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
    ]);
    let qrels_text = std::fs::read_to_string(&qrels).unwrap();
    write_parquet::<arrow_array::types::Float32Type>(&path("qrels.parquet"), &qrels_text, "grade");
    // Every metric the engine computes: the pooled ROC, CROC and the per-user metrics.
    let metrics = ["--metrics", "roc,croc,user_auc,p@5,r@10,ndcg@10,ap@10,map,mrr,hit@5"];
    let args = [&metrics[..], &["--json"]].concat();
    let in_process = eval(&path("qrels.parquet"), &run, &args);
    let engine =
        eval(&path("qrels.parquet"), &run, &[&args[..], &["--engine", "datafusion"]].concat());
    for out in [&in_process, &engine] {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // The full catalog of every MS Web user: 9,256,692 candidates.
    assert!(String::from_utf8_lossy(&in_process.stdout).contains("9256692"));
    assert_eq!(
        String::from_utf8(engine.stdout).unwrap(),
        String::from_utf8(in_process.stdout).unwrap(),
        "the engines' --json reports"
    );
}

#[cfg(feature = "datafusion")]
#[test]
fn the_datafusion_engine_refuses_what_it_does_not_compute_and_names_the_flag() {
    let (_dir, q, r) = inputs(QRELS, "r.tsv", "u1\ta\t0.5\n");
    let refused = |extra: &[&str], flag: &str| {
        let out = eval(&q, &r, &[&["--metrics", "map"], extra].concat());
        assert!(!out.status.success(), "{extra:?} should fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{extra:?}: {stderr}");
    };
    refused(&["--engine", "datafusion", "--intervals"], "--intervals");
    refused(&["--engine", "datafusion", "--ties", "item-ascending"], "--ties");
    refused(&["--ballista", "df://localhost:50050"], "--engine datafusion");
}

/// Built without the `datafusion` feature, `recs` refuses the engine and its cluster mode
/// with the command that builds them in; the flags parse as in a build with the feature.
#[cfg(not(feature = "datafusion"))]
#[test]
fn without_the_datafusion_feature_the_engine_is_refused_with_how_to_build_it() {
    let (_dir, q, r) = inputs(QRELS, "r.tsv", "u1\ta\t0.5\n");
    let refused = |extra: &[&str], message: &str| {
        let out = eval(&q, &r, extra);
        assert!(!out.status.success(), "{extra:?} should fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
    };
    refused(
        &["--engine", "datafusion"],
        "--engine datafusion: this `recs` was built without Apache DataFusion; build it with \
         `cargo build --release -p recs-cli --features datafusion`",
    );
    refused(
        &["--engine", "datafusion", "--ballista", "df://localhost:50050"],
        "`cargo build --release -p recs-cli --features ballista`",
    );
    refused(&["--ballista", "df://localhost:50050"], "add --engine datafusion");
    refused(&["--engine", "spark"], "invalid value 'spark' for '--engine <ENGINE>'");
}
