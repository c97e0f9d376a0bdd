//! `recs eval` end to end on small files.

use assert_cmd::Command;

const QRELS: &str = "u1\ta\t1\nu1\tb\t0\nu1\tc\t0\nu2\ta\t0\nu2\tb\t2\n";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn json_of(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output).unwrap()
}

#[test]
fn json_output_has_the_documented_keys_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(&dir, "q.tsv", QRELS);
    // u1: a 0.9 (rel), b 0.5, c missing; u2: a 0.8, b 0.7 (rel). A line for an unknown
    // pair is ignored.
    let run = write(&dir, "r.tsv", "u1\ta\t0.9\nu1\tb\t0.5\nu2\ta\t0.8\nu2\tb\t0.7\nu3\ta\t1\n");
    let out = recs()
        .args(["eval", "--json", "--metrics", "roc,croc,p@1,r@1,map,mrr,ndcg@2"])
        .arg("--qrels")
        .arg(&qrels)
        .arg("--run")
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
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
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(&dir, "q.tsv", QRELS);
    let run = write(
        &dir,
        "r.trec",
        "u1 Q0 a 1 0.9 sys\nu1 Q0 b 2 0.5 sys\nu1 Q0 c 3 0.1 sys\nu2 Q0 a 1 0.8 sys\nu2 Q0 b 2 0.7 sys\n",
    );
    let curves = dir.path().join("curves");
    let out = recs()
        .args(["eval", "--json", "--metrics", "p@1", "--curves"])
        .arg(&curves)
        .arg("--qrels")
        .arg(&qrels)
        .arg("--run")
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out.stdout);
    assert!((v["roc_auc"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12);
    let roc = std::fs::read_to_string(curves.join("roc.csv")).unwrap();
    assert!(roc.starts_with("fpr,tpr\n0,0\n"));
    assert!(roc.trim_end().ends_with("1,1"));
    let croc = std::fs::read_to_string(curves.join("croc.csv")).unwrap();
    // k = 0..=3 for a user with 3 candidates: four points plus the header.
    assert_eq!(croc.lines().count(), 5);
}

#[test]
fn human_table_lists_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(&dir, "q.tsv", QRELS);
    let run = write(&dir, "r.tsv", "u1\ta\t0.9\nu1\tb\t0.5\nu1\tc\t0.1\nu2\ta\t0.8\nu2\tb\t0.7\n");
    let out = recs()
        .args(["eval", "--metrics", "map"])
        .arg("--qrels")
        .arg(&qrels)
        .arg("--run")
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("map"), "{text}");
    assert!(text.contains("0.750000"), "{text}");
}

#[test]
fn parse_errors_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(&dir, "q.tsv", QRELS);
    let run = write(&dir, "r.tsv", "u1\ta\t0.9\nu1\tb\toops\n");
    let out =
        recs().args(["eval"]).arg("--qrels").arg(&qrels).arg("--run").arg(&run).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("r.tsv:2:"), "{err}");
    let out = recs()
        .args(["eval", "--metrics", "ndcg@zero"])
        .arg("--qrels")
        .arg(&qrels)
        .arg("--run")
        .arg(&run)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown metric"));
}
