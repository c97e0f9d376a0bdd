//! End-to-end checks of `recs score`: every catalogued model runs from the command line,
//! scores are the model's, and output is deterministic.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Training ratings: u1 rated a (5), b (3); u2 rated a (4), c (2); u3 rated a (1).
const TRAIN: &str = "u1\ta\t5\nu1\tb\t3\nu2\ta\t4\nu2\tc\t2\nu3\ta\t1\n";
/// Candidates: u1 on c and d (d is in no training event); u3 on b and c; u4 (no training
/// event) on a and b.
const QRELS: &str = "u1\tc\t1\nu1\td\t0\nu3\tb\t0\nu3\tc\t1\nu4\ta\t1\nu4\tb\t0\n";
/// Cast-style attributes for a, b, c, d.
const CAST: &str = "movie_id\tbilling\tactor\na\t1\tAnn\nb\t1\tBob\nc\t1\tAnn\nd\t1\tCid\n";

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("train.tsv"), TRAIN).unwrap();
        std::fs::write(dir.path().join("qrels.tsv"), QRELS).unwrap();
        std::fs::write(dir.path().join("cast.tsv"), CAST).unwrap();
        Files { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

fn recs(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("recs").unwrap().args(args).output().unwrap()
}

/// `recs score` of `model` trained on `train.tsv` with seed 7, writing `out`, plus `extra`.
fn score(files: &Files, model: &str, extra: &[&str], out: &str) -> std::process::Output {
    score_from(files, "train.tsv", model, Some("7"), extra, out)
}

/// `recs score` of `model` trained on the file `train` of `files` with `seed` (no
/// `--seed` flag when `None`), writing `out`, plus `extra`.
fn score_from(
    files: &Files,
    train: &str,
    model: &str,
    seed: Option<&str>,
    extra: &[&str],
    out: &str,
) -> std::process::Output {
    let (train, out) = (files.path(train), files.path(out));
    let mut args = vec!["score", "--train", train.to_str().unwrap(), "--model", model];
    if let Some(seed) = seed {
        args.extend(["--seed", seed]);
    }
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    recs(&args)
}

fn read_scores(path: &Path) -> Vec<(String, String, f32)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 3, "{line}");
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect()
}

fn assert_success(out: &std::process::Output) {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn list_names_every_model_with_its_parameters() {
    let out = recs(&["score", "--list"]);
    assert_success(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "random",
        "oracle",
        "item-pop",
        "user-pop",
        "user-item-pop",
        "user-mean",
        "item-mean",
        "top-rated",
        "naive-bayes",
        "nbn",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing from:\n{text}");
    }
    assert!(text.contains("--param damping=<0>"), "{text}");
}

#[test]
fn item_popularity_scores_the_qrels_candidates() {
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    let out = score(&files, "item-pop", &["--qrels", qrels.to_str().unwrap()], "run.tsv");
    assert_success(&out);
    let got = read_scores(&files.path("run.tsv"));
    let want = [
        ("u1", "c", 1.0),
        ("u1", "d", 0.0),
        ("u3", "b", 1.0),
        ("u3", "c", 1.0),
        ("u4", "a", 3.0),
        ("u4", "b", 1.0),
    ];
    let want: Vec<(String, String, f32)> =
        want.iter().map(|(u, i, s)| (u.to_string(), i.to_string(), *s)).collect();
    assert_eq!(got, want);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 candidates name items without training events"), "{stderr}");
    // The run pairs with `recs eval`.
    let run = files.path("run.tsv");
    let eval = recs(&["eval", "--qrels", qrels.to_str().unwrap(), "--run", run.to_str().unwrap()]);
    assert_success(&eval);
}

#[test]
fn oracle_scores_are_the_grades() {
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    assert_success(&score(&files, "oracle", &["--qrels", qrels.to_str().unwrap()], "o.tsv"));
    let grades: Vec<f32> = read_scores(&files.path("o.tsv")).iter().map(|r| r.2).collect();
    assert_eq!(grades, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
    // Without judgments there is no oracle.
    let out = score(&files, "oracle", &["--top", "2"], "o2.tsv");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--qrels"));
}

#[test]
fn top_n_skips_training_items_and_breaks_ties_by_item() {
    let files = Files::new();
    assert_success(&score(&files, "item-pop", &["--top", "2"], "top.tsv"));
    let got: Vec<String> = read_scores(&files.path("top.tsv"))
        .into_iter()
        .map(|(u, i, s)| format!("{u} {i} {s}"))
        .collect();
    // u1 saw a, b: only c is left. u2 saw a, c: b. u3 saw a: b and c tie at 1, b first.
    assert_eq!(got, ["u1 c 1", "u2 b 1", "u3 b 1", "u3 c 1"]);
}

#[test]
fn same_seed_gives_identical_bytes_and_another_seed_differs() {
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    let q = ["--qrels", qrels.to_str().unwrap()];
    assert_success(&score(&files, "random", &q, "r1.tsv"));
    assert_success(&score(&files, "random", &q, "r2.tsv"));
    let a = std::fs::read(files.path("r1.tsv")).unwrap();
    assert_eq!(a, std::fs::read(files.path("r2.tsv")).unwrap());
    assert_success(&score_from(&files, "train.tsv", "random", Some("8"), &q, "r3.tsv"));
    assert_ne!(a, std::fs::read(files.path("r3.tsv")).unwrap());
}

#[test]
fn naive_bayes_uses_attributes_and_is_uninformed_for_new_users() {
    let files = Files::new();
    let (qrels, cast) = (files.path("qrels.tsv"), files.path("cast.tsv"));
    let args = [
        "--qrels",
        qrels.to_str().unwrap(),
        "--attributes",
        cast.to_str().unwrap(),
        "--param",
        "classes=1,2,3,4,5",
    ];
    assert_success(&score(&files, "naive-bayes", &args, "nb.tsv"));
    let got = read_scores(&files.path("nb.tsv"));
    // u4 has no training rating: P(r >= 4) = 2/5 for every candidate.
    for row in got.iter().filter(|r| r.0 == "u4") {
        assert!((row.2 - 0.4).abs() < 1e-6, "{row:?}");
    }
    // u1 rated Ann's film a 5 and Bob's film b 3: Ann's film c beats Cid's film d.
    assert!(got[0].2 > got[1].2, "{got:?}");
    // Without attributes the model refuses to run.
    let out = score(&files, "naive-bayes", &args[..2], "nb2.tsv");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--attributes"));
}

#[test]
fn every_catalogued_model_runs_with_defaults() {
    let files = Files::new();
    let (qrels, cast) = (files.path("qrels.tsv"), files.path("cast.tsv"));
    for model in ["user-pop", "user-item-pop", "user-mean", "item-mean", "top-rated", "nbn"] {
        let out = score(
            &files,
            model,
            &["--qrels", qrels.to_str().unwrap(), "--attributes", cast.to_str().unwrap()],
            "any.tsv",
        );
        assert_success(&out);
        let rows = read_scores(&files.path("any.tsv"));
        assert_eq!(rows.len(), 6, "{model}");
        assert!(rows.iter().all(|r| r.2.is_finite()), "{model}: {rows:?}");
    }
}

#[test]
fn bad_input_is_an_error_naming_the_problem() {
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    let q = ["--qrels", qrels.to_str().unwrap()];
    let out = score(&files, "no-such-model", &q, "x.tsv");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("item-pop"));
    let out = score(&files, "item-mean", &["--param", "damping=-1", q[0], q[1]], "x.tsv");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("damping"));
    std::fs::write(files.path("bad.tsv"), "u1\ta\t5\nu1\tb\n").unwrap();
    let out = score_from(&files, "bad.tsv", "item-pop", Some("1"), &["--top", "3"], "x.tsv");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.tsv") && stderr.contains('2'), "{stderr}");
}

#[test]
fn the_seed_defaults_to_the_one_of_recs_split() {
    // A random model shows the seed: no `--seed` scores as `--seed 42` does, not as 7.
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    let extra = ["--qrels", qrels.to_str().unwrap()];
    let with = |seed: Option<&str>, out: &str| {
        assert_success(&score_from(&files, "train.tsv", "random", seed, &extra, out));
        read_scores(&files.path(out))
    };
    let default = with(None, "default.tsv");
    assert_eq!(default, with(Some("42"), "42.tsv"));
    assert_ne!(default, with(Some("7"), "7.tsv"));
}

/// The `(user, item, score)` rows of a Parquet run written by `recs score`.
fn read_parquet_scores(path: &Path) -> Vec<(String, String, f32)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float32Type;
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let (users, items) =
            (batch.column(0).as_string::<i32>(), batch.column(1).as_string::<i32>());
        let scores = batch.column(2).as_primitive::<Float32Type>();
        for k in 0..batch.num_rows() {
            rows.push((users.value(k).to_string(), items.value(k).to_string(), scores.value(k)));
        }
    }
    rows
}

#[test]
fn parquet_output_holds_the_rows_of_the_text_output_and_evaluates_the_same() {
    let files = Files::new();
    let qrels = files.path("qrels.tsv");
    let q = ["--qrels", qrels.to_str().unwrap()];
    assert_success(&score(&files, "item-mean", &q, "run.tsv"));
    // By extension, and by flag whatever the extension.
    assert_success(&score(&files, "item-mean", &q, "run.parquet"));
    let flag = ["--qrels", q[1], "--out-format", "parquet"];
    assert_success(&score(&files, "item-mean", &flag, "run.out"));
    let text = read_scores(&files.path("run.tsv"));
    assert_eq!(read_parquet_scores(&files.path("run.parquet")), text);
    assert_eq!(read_parquet_scores(&files.path("run.out")), text);
    let eval = |run: &str| {
        let run = files.path(run);
        let out = recs(&["eval", "--qrels", q[1], "--run", run.to_str().unwrap(), "--json"]);
        assert_success(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(eval("run.parquet"), eval("run.tsv"));
    // Top-N lists too.
    assert_success(&score(&files, "item-pop", &["--top", "2"], "top.tsv"));
    assert_success(&score(
        &files,
        "item-pop",
        &["--top", "2", "--out-format", "parquet"],
        "top.pq",
    ));
    assert_eq!(read_parquet_scores(&files.path("top.pq")), read_scores(&files.path("top.tsv")));
}

#[test]
fn a_failed_run_leaves_no_output_behind() {
    let files = Files::new();
    // The output folder does not exist: an error naming it, and nothing written.
    let out = score(&files, "item-pop", &["--top", "2"], "missing/top.tsv");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
    // A failed run leaves an earlier output untouched, and no temporary file.
    std::fs::write(files.path("keep.tsv"), "old\n").unwrap();
    let out = score(&files, "oracle", &["--top", "2"], "keep.tsv");
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(files.path("keep.tsv")).unwrap(), "old\n");
    let leftovers: Vec<_> = std::fs::read_dir(files.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
