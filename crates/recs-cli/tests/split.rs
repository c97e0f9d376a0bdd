//! `recs split` end to end: small files always, the real datasets through `RECS_DATA_DIR`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use recs_testkit::real_data_dir;

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&dir.join("split.json"))).unwrap()
}

/// The numbers at `section.key` paths of a split report.
fn numbers(json: &serde_json::Value, paths: &[&str]) -> Vec<u64> {
    let at = |path: &&str| {
        let (section, key) = path.split_once('.').unwrap();
        json[section][key].as_u64().unwrap_or_else(|| panic!("no number at {path}"))
    };
    paths.iter().map(at).collect()
}

fn line_count(path: &Path) -> usize {
    read(path).lines().count()
}

/// Runs `recs split` with `args` (paths and their flags) and the whitespace-separated
/// options `words` into `out`, failing the test with stderr on error.
fn split(args: &[&str], words: &str, out: &Path) {
    let output = recs()
        .arg("split")
        .args(args)
        .args(words.split_whitespace())
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

const SMALL: &str = "u1\ta\t5\t10\nu1\tb\t3\t20\nu1\tc\t4\t30\nu2\ta\t1\t15\nu2\tc\t5\t25\n\
u3\tb\t2\t12\nu3\td\t4\t40\nu4\ta\t3\t5\nu4\td\t5\t50\nu4\tb\t4\t45\n";

/// A temporary folder holding [`SMALL`] as `events.tsv`, and that file's path.
fn small_input() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.tsv");
    std::fs::write(&path, SMALL).unwrap();
    (dir, path.to_str().unwrap().to_string())
}

/// Splits [`SMALL`] with the options `words`; returns the temporary folder (to keep it
/// alive) and the output folder in it.
fn split_small(words: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, file) = small_input();
    let out = dir.path().join("out");
    split(&["--file", &file], words, &out);
    (dir, out)
}

#[test]
fn holdout_on_a_file_writes_every_part_with_original_ids() {
    let words = "--timestamps --protocol holdout --test-fraction 0.3 --judgments implicit";
    let (_dir, out) = split_small(words);
    let json = report(&out);
    assert_eq!(numbers(&json, &["counts.train_events", "counts.test_events"]), [7, 3]);
    assert_eq!(json["protocol"]["protocol"], "holdout");
    // Every input line is in exactly one part, unchanged.
    let mut lines: Vec<String> = read(&out.join("train.tsv")).lines().map(str::to_string).collect();
    lines.extend(read(&out.join("test.tsv")).lines().map(str::to_string));
    lines.sort();
    let mut expected: Vec<String> = SMALL.lines().map(str::to_string).collect();
    expected.sort();
    assert_eq!(lines, expected);
    // Implicit qrels: all 4 users × 4 items minus the 7 training pairs.
    assert_eq!(line_count(&out.join("qrels.tsv")), 16 - 7);
    assert_eq!(numbers(&json, &["judgments.candidates", "judgments.positives"]), [9, 3]);
}

#[test]
fn same_seed_same_bytes_other_seed_other_split() {
    let (dir, file) = small_input();
    let run = |seed: &str, name: &str| {
        let out = dir.path().join(name);
        split(&["--file", &file, "--seed", seed], "--protocol leave-one-out", &out);
        read(&out.join("test.tsv"))
    };
    let a = run("7", "a");
    assert_eq!(a, run("7", "b"));
    let others: Vec<String> = (0..8).map(|s| run(&s.to_string(), &format!("s{s}"))).collect();
    assert!(others.iter().any(|o| *o != a));
}

#[test]
fn predefined_files_share_one_index_space() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.tsv");
    let test = dir.path().join("test.tsv");
    std::fs::write(&train, "1\t10\t1\n1\t20\t1\n2\t20\t1\n").unwrap();
    // User 3 and item 30 occur only in the test file; (1, 20) repeats a training pair.
    std::fs::write(&test, "1\t20\t1\n1\t30\t1\n3\t10\t1\n").unwrap();
    let out = dir.path().join("out");
    let (train, test) = (train.to_str().unwrap(), test.to_str().unwrap());
    split(
        &["--file", train, "--test-file", test],
        "--protocol predefined --judgments implicit",
        &out,
    );
    let json = report(&out);
    let paths = ["counts.users", "counts.items", "counts.overlapping_test_events"];
    assert_eq!(numbers(&json, &paths), [3, 3, 1]);
    // 3 users × 3 items − 3 training pairs; the repeated pair is not a candidate.
    assert_eq!(numbers(&json, &["judgments.candidates", "judgments.positives"]), [6, 2]);
}

#[test]
fn bad_options_are_reported() {
    let (dir, file) = small_input();
    let out = dir.path().join("out");
    for (args, message) in [
        (vec!["--protocol", "nonsense"], "unknown protocol"),
        (
            vec!["--protocol", "cold-start-items", "--test-items", "many"],
            "value many for parameter `test_items`",
        ),
        (vec!["--protocol", "cold-start-items", "--test-items", "9"], "at most 4"),
        (vec!["--protocol", "holdout", "--judgments", "rating"], "--judgments rating"),
        (vec!["--protocol", "predefined"], "no predefined test part"),
        (vec!["--protocol", "temporal"], "--cut"),
        (vec!["--protocol", "given-l", "--l", "3", "--max-l", "2"], "--l 3"),
        (vec!["--protocol", "kfold-users", "--folds", "2", "--fold", "2"], "fold index 2"),
        (vec!["--protocol", "temporal", "--last-n", "1"], "needs timestamps"),
    ] {
        let output = recs()
            .arg("split")
            .args(["--file", file.as_str()])
            .args(&args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn movielens_cold_start_writes_the_papers_candidates() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let words = "--dataset ml-100k --protocol cold-start-items --test-items 331 --seed 0 \
                 --judgments implicit";
    split(&["--data-dir", data.to_str().unwrap()], words, &out);
    let json = report(&out);
    let paths = ["judgments.candidates", "judgments.judged_users", "counts.test_items"];
    assert_eq!(numbers(&json, &paths), [312_133, 943, 331]);
    assert_eq!(json["counts"]["test_events"], json["judgments"]["positives"]);
    assert_eq!(line_count(&out.join("qrels.tsv")), 312_133);
    assert_eq!(line_count(&out.join("train.tsv")) + line_count(&out.join("test.tsv")), 100_000);
}

#[test]
fn movielens_holdout_holds_out_a_fifth() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let words = "--dataset ml-100k --protocol holdout --test-fraction 0.2 --seed 0";
    split(&["--data-dir", data.to_str().unwrap()], words, &out);
    let json = report(&out);
    assert_eq!(numbers(&json, &["counts.test_events", "counts.train_events"]), [20_000, 80_000]);
    // Timestamps travel with the events.
    let first = read(&out.join("test.tsv")).lines().next().unwrap().to_string();
    assert_eq!(first.split('\t').count(), 4);
}

#[test]
fn msweb_predefined_writes_the_papers_candidates() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let words = "--dataset msweb --protocol predefined --judgments implicit";
    split(&["--data-dir", data.to_str().unwrap()], words, &out);
    let json = report(&out);
    let paths = ["counts.users", "counts.items", "judgments.candidates"];
    assert_eq!(numbers(&json, &paths), [32_711, 286, 9_256_692]);
    // The 15,191 test visits less the 1,997 that repeat a training visit of the same case.
    let paths = ["judgments.positives", "counts.overlapping_test_events"];
    assert_eq!(numbers(&json, &paths), [13_194, 1_997]);
}

#[test]
fn temporal_last_n_holds_out_each_users_latest_events() {
    let (_dir, out) = split_small("--timestamps --protocol temporal --last-n 1");
    // Each user keeps at least one event (--min-train 1): all four lose their latest one.
    assert_eq!(
        read(&out.join("test.tsv")),
        "u1\tc\t4\t30\nu2\tc\t5\t25\nu3\td\t4\t40\nu4\td\t5\t50\n"
    );
}

#[test]
fn strong_generalization_writes_histories_apart_from_training() {
    let words = "--protocol strong --test-users 2 --given 1 --judgments conditional:4";
    let (_dir, out) = split_small(words);
    let json = report(&out);
    assert_eq!(json["counts"]["history_events"], 2);
    let user_of = |line: &str| line.split('\t').next().unwrap().to_string();
    let history: Vec<String> = read(&out.join("history.tsv")).lines().map(user_of).collect();
    let train: Vec<String> = read(&out.join("train.tsv")).lines().map(user_of).collect();
    assert_eq!(history.len(), 2);
    assert!(history.iter().all(|u| !train.contains(u)));
    assert_eq!(
        json["files"],
        serde_json::json!(["train.tsv", "test.tsv", "history.tsv", "qrels.tsv", "split.json"])
    );
}
