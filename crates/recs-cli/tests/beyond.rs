//! `recs eval` and `recs compare` with the popularity, novelty and exposure metrics:
//! hand-computed values with a tie at the cut-off, the head options, refusals, and
//! MovieLens 100K against a direct computation on untied lists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use recs_testkit::real_data_dir;
use serde_json::Value;

/// Training events: a by 3 users, b by 2, c by 1, z (not in the qrels) by 2; 4 users.
const TRAIN: &str = "user\titem\nu1\ta\nu2\ta\nu3\ta\nu1\tb\nu2\tb\nu3\tc\nu4\tz\nu3\tz\n";
/// Two users over a, b, c, d (d has no training user).
const QRELS: &str = "x\ta\t0\nx\tb\t1\nx\tc\t0\nx\td\t1\ny\ta\t1\ny\tb\t0\ny\tc\t0\ny\td\t0\n";
/// x ranks a first, then b, c, d tied; y ranks d, c, b, a.
const RUN: &str =
    "x\ta\t0.9\nx\tb\t0.5\nx\tc\t0.5\nx\td\t0.5\ny\ta\t0.1\ny\tb\t0.2\ny\tc\t0.3\ny\td\t0.4\n";

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn case() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("train.tsv", TRAIN), ("q.tsv", QRELS), ("r.tsv", RUN)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn run_in(dir: &Path, command: &str, args: &[&str], threads: Option<&str>) -> Output {
    let mut cmd = recs();
    if let Some(threads) = threads {
        cmd.env("RAYON_NUM_THREADS", threads);
    }
    cmd.current_dir(dir).arg(command).args(args).output().unwrap()
}

fn eval_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv", "--json"];
    all.extend_from_slice(args);
    let out = run_in(dir, "eval", &all, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn eval_err(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, "eval", args, None);
    assert!(!out.status.success(), "recs eval {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn close(v: &Value, key: &str, want: f64) {
    let got = v[key].as_f64().unwrap_or_else(|| panic!("{key}: {}", v[key]));
    assert!((got - want).abs() < 1e-12, "{key}: {got} against {want}");
}

#[test]
fn hand_computed_values_with_a_tie_at_the_cut_off() {
    let dir = case();
    let v = eval_json(dir.path(), &["--metrics", "arp@2,aplt@2,aclt@2,miuf@2,epc_flat@2,gini@2"]);
    // x's top 2: a, then b, c or d (1/3 each); y's: d, c. φ: a 3, b 2, c 1, d 0; 4 users.
    close(&v, "arp@2", ((3.0 + (2.0 + 1.0 + 0.0) / 3.0) / 2.0 + (0.0 + 1.0) / 2.0) / 2.0);
    // 8 training pairs (z's included); the head holds half: a (3), then b (2, ahead of
    // z's equal 2: the qrels' items rank first) make 5 ≥ 4, so the head is a and b.
    // x's tail: c or d with probability 2/3; y's: d, c.
    close(&v, "aplt@2", ((2.0 / 3.0) / 2.0 + 1.0) / 2.0);
    close(&v, "aclt@2", (2.0 / 3.0 + 2.0) / 2.0);
    let miuf = |users: f64| -(users.max(1.0) / 4.0).log2();
    let x = (miuf(3.0) + (miuf(2.0) + miuf(1.0) + miuf(0.0)) / 3.0) / 2.0;
    let y = (miuf(0.0) + miuf(1.0)) / 2.0;
    close(&v, "miuf@2", (x + y) / 2.0);
    // EPC without discount: x's relevant b and d at rank 2 with 1/3 each (complements
    // 1/2 and 1); y's relevant a is not in its top 2.
    close(&v, "epc_flat@2", (((0.5 + 1.0) / 3.0) / 2.0 + 0.0) / 2.0);
    // Exposure of a, b, c, d: 1, 1/3, 1/3 + 1, 1/3 + 1.
    let exposure = [1.0, 1.0 / 3.0, 4.0 / 3.0, 4.0 / 3.0];
    let mut sorted = exposure;
    sorted.sort_by(f64::total_cmp);
    let total: f64 = sorted.iter().sum();
    let weighted: f64 = sorted.iter().enumerate().map(|(i, x)| (i + 1) as f64 * x).sum();
    close(&v, "gini@2", 2.0 * weighted / (4.0 * total) - 5.0 / 4.0);
    assert_eq!(v["popularity"]["head"]["share"], 0.5);
    assert_eq!(v["popularity"]["n_head_items"], 2);
    assert_eq!(v["popularity"]["n_train_users"], 4);
    // By count: the single most popular item, a.
    let v = eval_json(dir.path(), &["--metrics", "aplt@2", "--head-items", "1"]);
    close(&v, "aplt@2", ((1.0 / 3.0 + 2.0 / 3.0) / 2.0 + 1.0) / 2.0);
    assert_eq!(v["popularity"]["head"]["items"], 1);
    // The text report names the head.
    let out = run_in(
        dir.path(),
        "eval",
        &["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv", "--metrics", "arp@2"],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("items holding 0.5 of the training events: 2 of the qrels' items"),
        "{text}"
    );
}

#[test]
fn intra_list_diversity_reads_an_attribute_file() {
    let dir = case();
    // z is not an item of the qrels; d has one attribute of its own.
    let attributes =
        "item\trank\tattribute\na\t1\tg1\nb\t1\tg1\nb\t2\tg2\nc\t1\tg2\nd\t1\tg3\nz\t1\tg1\n";
    std::fs::write(dir.path().join("attributes.tsv"), attributes).unwrap();
    let ild = |extra: &[&str]| -> Value {
        let mut args = vec!["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "ild@2", "--json"];
        args.extend_from_slice(&["--attributes", "attributes.tsv"]);
        args.extend_from_slice(extra);
        let out = run_in(dir.path(), "eval", &args, None);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // x: a and one of b, c, d (cosine 1/√2, 0, 0); y: d and c (0).
    close(&ild(&[]), "ild@2", (1.0 - 0.5f64.sqrt() / 3.0 + 1.0) / 2.0);
    let v = ild(&["--similarity", "jaccard"]);
    close(&v, "ild@2", (1.0 - 0.5 / 3.0 + 1.0) / 2.0);
    let e = eval_err(dir.path(), &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "ild@2"]);
    assert!(e.contains("ild@2 needs the items' attributes") && e.contains("--attributes"), "{e}");
    let e = eval_err(
        dir.path(),
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--metrics",
            "p@1",
            "--attributes",
            "attributes.tsv",
        ],
    );
    assert!(e.contains("--attributes is read by ild@N, ild_disc@N and miscal@N"), "{e}");
}

#[test]
fn calibration_reads_the_histories_and_the_attributes() {
    let dir = case();
    let attributes =
        "item\trank\tattribute\na\t1\tg1\nb\t1\tg1\nb\t2\tg2\nc\t1\tg2\nd\t1\tg3\nz\t1\tg1\n";
    std::fs::write(dir.path().join("attributes.tsv"), attributes).unwrap();
    // x trained on z (g1) and b (g1, g2): p = (3/4, 1/4, 0); y on d: p = (0, 0, 1); w is
    // not a user of the qrels.
    std::fs::write(dir.path().join("history.tsv"), "user\titem\nx\tz\nx\tb\ny\td\nw\ta\n").unwrap();
    let miscal = |extra: &[&str]| -> Value {
        let mut args = vec!["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "miscal@2"];
        args.extend_from_slice(&["--train", "history.tsv", "--attributes", "attributes.tsv"]);
        args.push("--json");
        args.extend_from_slice(extra);
        let out = run_in(dir.path(), "eval", &args, None);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // x's top 2: a, then b, c or d (1/3 each): expected genre mass g1 1 + 1/6, g2 1/6 +
    // 1/3, g3 1/3 over 2. y's: d and c, q = (0, 1/2, 1/2).
    let kl = |p: [f64; 3], q: [f64; 3], alpha: f64| -> f64 {
        (0..3)
            .filter(|&g| p[g] > 0.0)
            .map(|g| p[g] * (p[g] / ((1.0 - alpha) * q[g] + alpha * p[g])).ln())
            .sum()
    };
    let (px, qx) = ([0.75, 0.25, 0.0], [7.0 / 12.0, 0.25, 1.0 / 6.0]);
    let (py, qy) = ([0.0, 0.0, 1.0], [0.0, 0.5, 0.5]);
    close(&miscal(&[]), "miscal@2", (kl(px, qx, 0.01) + kl(py, qy, 0.01)) / 2.0);
    let v = miscal(&["--calibration-alpha", "0.5"]);
    close(&v, "miscal@2", (kl(px, qx, 0.5) + kl(py, qy, 0.5)) / 2.0);
    let base = ["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "miscal@2"];
    let e = eval_err(dir.path(), &[&base[..], &["--attributes", "attributes.tsv"]].concat());
    assert!(
        e.contains("miscal@2 needs each user's training items") && e.contains("--train"),
        "{e}"
    );
    let e = eval_err(dir.path(), &[&base[..], &["--train", "history.tsv"]].concat());
    assert!(e.contains("miscal@2 needs the items' attributes"), "{e}");
    let e = eval_err(
        dir.path(),
        &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "p@1", "--calibration-alpha", "0.1"],
    );
    assert!(e.contains("--calibration-alpha sets miscal@N's smoothing"), "{e}");
    let e = eval_err(
        dir.path(),
        &[
            &base[..],
            &["--train", "history.tsv", "--attributes", "attributes.tsv"],
            &["--calibration-alpha", "0"],
        ]
        .concat(),
    );
    assert!(e.contains("--calibration-alpha must be in (0, 1]"), "{e}");
}

#[test]
fn user_groups_break_every_per_user_mean_down_with_the_gap() {
    let dir = case();
    std::fs::write(dir.path().join("groups.tsv"), "user\tgroup\nx\tF\ny\tM\nz\tM\n").unwrap();
    let v = eval_json(dir.path(), &["--metrics", "arp@1,p@1", "--user-groups", "groups.tsv"]);
    // arp@1: x lists a (3 users), y lists d (0): F 3, M 0, MAD 3.
    let arp = &v["groups"]["arp@1"];
    assert_eq!(arp["groups"]["F"]["mean"], 3.0);
    assert_eq!(arp["groups"]["M"]["n_users"], 1);
    assert_eq!(arp["mad"], 3.0);
    // One user per group: every resample is the observed one.
    assert_eq!(arp["mad_ci95_bootstrap"], serde_json::json!([3.0, 3.0]));
    // p@1: x's a is not relevant (0), y's d is not (0): no gap.
    assert_eq!(v["groups"]["p@1"]["mad"], 0.0);
    std::fs::write(dir.path().join("bad.tsv"), "x\tF\ny\n").unwrap();
    let e = eval_err(
        dir.path(),
        &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "p@1", "--user-groups", "bad.tsv"],
    );
    assert!(e.contains("bad.tsv:2: expected `user<TAB>group`"), "{e}");
    std::fs::write(dir.path().join("twice.tsv"), "x\tF\nx\tM\n").unwrap();
    let e = eval_err(
        dir.path(),
        &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "p@1", "--user-groups", "twice.tsv"],
    );
    assert!(e.contains("twice.tsv:2: user x is in group F and in group M"), "{e}");
}

#[test]
fn item_groups_break_the_relevance_metrics_down_with_the_gap() {
    let dir = case();
    std::fs::write(dir.path().join("items.tsv"), "item\tgroup\na\tG1\nb\tG1\nd\tG2\n").unwrap();
    let v = eval_json(dir.path(), &["--metrics", "arp@1,r@2", "--item-groups", "items.tsv"]);
    // G1 = {a, b}: x's relevant b is in its top 2 with probability 1/3 (a first, then one
    // of b, c, d tied); y's relevant a is not in its top 2 (d, c): mean (1/3 + 0)/2.
    // G2 = {d}: x's d also 1/3; y has no relevant item of G2 and is left out.
    let recall = &v["item_groups"]["r@2"];
    let mean = |g: &str| recall["groups"][g]["mean"].as_f64().unwrap();
    assert!((mean("G1") - 1.0 / 6.0).abs() < 1e-12, "{recall}");
    assert!((mean("G2") - 1.0 / 3.0).abs() < 1e-12, "{recall}");
    assert_eq!(recall["groups"]["G1"]["n_users"], 2);
    assert_eq!(recall["groups"]["G2"]["n_users"], 1);
    assert!((recall["mad"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-12);
    // Resamples of the two users: {x, x} gives 0, {x, y} 1/6, {y, y} no G2.
    let [lo, hi] = [0, 1].map(|k| recall["mad_ci95_bootstrap"][k].as_f64().unwrap());
    assert!(0.0 <= lo && lo <= hi && hi <= 1.0 / 6.0 + 1e-12, "{recall}");
    // The overall value is untouched, arp (no relevance) is not broken down, and c, of no
    // group, is named in a warning.
    close(&v, "r@2", (2.0 / 3.0 / 2.0 + 0.0) / 2.0);
    assert!(v["item_groups"]["arp@1"].is_null(), "{v}");
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("1 of 4 items of the qrels have no group"), "{warnings}");
    std::fs::write(dir.path().join("twice.tsv"), "a\tG1\na\tG2\n").unwrap();
    let e = eval_err(
        dir.path(),
        &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "p@1", "--item-groups", "twice.tsv"],
    );
    assert!(e.contains("twice.tsv:2: item a is in group G1 and in group G2"), "{e}");
}

#[test]
fn intervals_and_paired_tests_apply_to_the_per_user_popularity_means() {
    let dir = case();
    std::fs::write(dir.path().join("r2.tsv"), RUN.replace("0.9", "0.05")).unwrap();
    let v =
        eval_json(dir.path(), &["--metrics", "arp@1,gini@1", "--intervals", "--compare", "r2.tsv"]);
    assert!(v["arp@1_ci95_t"].is_array(), "{v}");
    assert!(v.get("gini@1_ci95_t").is_none(), "gini is pooled: {v}");
    // x's top 1 moves from a (3 users) to the tie b, c, d (mean 1): 3 → 1.
    let compared = &v["compare"]["metrics"]["arp@1"];
    assert_eq!(compared["mean_run"], 1.5);
    assert_eq!(compared["mean_compare"], 0.5);
    // recs compare reads the same popularity.
    let out = run_in(
        dir.path(),
        "compare",
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "one=r.tsv",
            "--run",
            "two=r2.tsv",
            "--train",
            "train.tsv",
            "--metrics",
            "arp@1",
        ],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("arp@1"), "{text}");
}

#[test]
fn refusals_say_what_is_missing() {
    let dir = case();
    let at = dir.path();
    let e = eval_err(at, &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "arp@10"]);
    assert!(
        e.contains("arp@10 needs the items' training popularity") && e.contains("--train"),
        "{e}"
    );
    let e = eval_err(
        at,
        &["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv", "--metrics", "p@1"],
    );
    assert!(e.contains("none of which is asked for"), "{e}");
    let e = eval_err(
        at,
        &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "p@1", "--head-share", "0.3"],
    );
    assert!(e.contains("no popularity metric"), "{e}");
    let e = eval_err(
        at,
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--train",
            "train.tsv",
            "--metrics",
            "aplt@1",
            "--head-share",
            "1.5",
        ],
    );
    assert!(e.contains("head share") && e.contains("(0, 1]"), "{e}");
    let e = eval_err(
        at,
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--engine",
            "datafusion",
            "--train",
            "train.tsv",
            "--metrics",
            "arp@10",
        ],
    );
    assert!(e.contains("arp@10 reads each user's top-N list, which --engine datafusion"), "{e}");
    let e = eval_err(at, &["--qrels", "q.tsv", "--run", "r.tsv", "--metrics", "gini"]);
    assert!(e.contains("unknown metric") && e.contains("gini@N"), "{e}");
}

/// Per user, its items from a deterministic shuffle of its catalog, scored by position
/// (distinct scores: no ties).
/// MovieLens 100K split leave one out into `at` (`train.tsv`, `graded.tsv`: the relevant
/// test pairs) with a shuffled run over the full catalog (`run.tsv`): the graded lines,
/// and each user's ranking.
fn movielens_leave_one_out(data: &Path, at: &Path) -> (String, BTreeMap<u64, Vec<u64>>) {
    let split = recs()
        .current_dir(at)
        .args(["split", "--dataset", "ml-100k", "--data-dir", data.to_str().unwrap()])
        .args(["--protocol", "leave-one-out", "--seed", "0", "--judgments", "implicit"])
        .args(["--out", "."])
        .output()
        .unwrap();
    assert!(split.status.success(), "{}", String::from_utf8_lossy(&split.stderr));
    let listed = std::fs::read_to_string(at.join("qrels.tsv")).unwrap();
    let graded: String =
        listed.lines().filter(|l| !l.ends_with("\t0")).map(|l| format!("{l}\n")).collect();
    std::fs::write(at.join("graded.tsv"), &graded).unwrap();
    (graded, shuffled_run(at))
}

fn shuffled_run(at: &Path) -> BTreeMap<u64, Vec<u64>> {
    let train = std::fs::read_to_string(at.join("train.tsv")).unwrap();
    let qrels = std::fs::read_to_string(at.join("graded.tsv")).unwrap();
    let mut known: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    let mut catalog = BTreeSet::new();
    for line in train.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        let (user, item) = (f.next().unwrap(), f.next().unwrap());
        known.entry(user).or_default().insert(item);
        catalog.insert(item);
    }
    let mut users = BTreeSet::new();
    for line in qrels.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        users.insert(f.next().unwrap());
        catalog.insert(f.next().unwrap());
    }
    let mut run = String::new();
    let mut ranked = BTreeMap::new();
    for &user in &users {
        let own = known.get(&user).cloned().unwrap_or_default();
        let mut items: Vec<u64> = catalog.iter().copied().filter(|i| !own.contains(i)).collect();
        items.sort_by_key(|&i| recs_core::mix64(user.wrapping_mul(0x9E37_79B9) ^ i));
        for (position, &item) in items.iter().enumerate() {
            run.push_str(&format!("{user}\t{item}\t{}\n", items.len() - position));
        }
        ranked.insert(user, items);
    }
    std::fs::write(at.join("run.tsv"), run).unwrap();
    ranked
}

/// `recs eval` of [`movielens_leave_one_out`]'s files over the full catalog, JSON, by
/// `metrics`, with `extra` arguments.
fn catalog_args<'a>(metrics: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--qrels", "graded.tsv", "--run", "run.tsv", "--train", "train.tsv"];
    args.extend(["--candidates", "catalog", "--metrics", metrics, "--json"]);
    args.extend_from_slice(extra);
    args
}

/// MovieLens 100K, leave one out, a shuffled run over the full catalog, the items in two
/// groups by the parity of their id: each group's recall@10 is the share of the users
/// whose held-out item is of the group that find it in their top 10, from the files.
#[test]
fn movielens_item_groups_match_a_direct_computation() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let (graded, ranked) = movielens_leave_one_out(&data, at);
    let mut groups = String::from("item\tgroup\n");
    for item in 1..=1682 {
        groups.push_str(&format!("{item}\t{}\n", if item % 2 == 0 { "even" } else { "odd" }));
    }
    std::fs::write(at.join("items.tsv"), groups).unwrap();
    let args = catalog_args("r@10,arp@10", &["--item-groups", "items.tsv"]);
    let out = run_in(at, "eval", &args, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: BTreeMap<&str, (f64, u64)> = BTreeMap::new();
    for line in graded.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        let (user, item) = (f.next().unwrap(), f.next().unwrap());
        let group = if item % 2 == 0 { "even" } else { "odd" };
        let entry = found.entry(group).or_default();
        entry.0 += f64::from(u8::from(ranked[&user][..10].contains(&item)));
        entry.1 += 1;
    }
    let recall = &v["item_groups"]["r@10"];
    for (group, (hits, users)) in &found {
        let got = &recall["groups"][group];
        assert_eq!(got["n_users"].as_u64(), Some(*users), "{recall}");
        assert!((got["mean"].as_f64().unwrap() - hits / *users as f64).abs() < 1e-12, "{recall}");
    }
    let means: Vec<f64> = found.values().map(|(h, u)| h / *u as f64).collect();
    assert!((recall["mad"].as_f64().unwrap() - (means[0] - means[1]).abs()).abs() < 1e-12);
    assert!(v["item_groups"]["arp@10"].is_null());
}

/// MovieLens 100K, leave one out, a shuffled run over the full catalog: ARP, APLT, MIUF,
/// EPC and the exposure Gini from the files directly, by the definitions; the same bytes
/// on one thread.
#[test]
fn movielens_values_match_a_direct_computation() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let (graded, ranked) = movielens_leave_one_out(&data, at);
    let args = catalog_args("arp@10,aplt@10,miuf@10,epc@10,gini@10,coverage@10", &[]);
    let default = run_in(at, "eval", &args, None);
    assert!(default.status.success(), "{}", String::from_utf8_lossy(&default.stderr));
    let one = run_in(at, "eval", &args, Some("1"));
    assert_eq!(default.stdout, one.stdout, "one thread and the default");
    let v: Value = serde_json::from_slice(&default.stdout).unwrap();

    // By the definitions, from the files.
    let train = std::fs::read_to_string(at.join("train.tsv")).unwrap();
    let mut users_of: BTreeMap<u64, u64> = BTreeMap::new();
    let mut train_users = BTreeSet::new();
    for line in train.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        train_users.insert(f.next().unwrap());
        *users_of.entry(f.next().unwrap()).or_default() += 1;
    }
    let relevant: BTreeMap<u64, u64> = graded
        .lines()
        .map(|l| {
            let mut f = l.split('\t').map(|x| x.parse::<u64>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    let n_users = train_users.len() as f64;
    let phi = |i: u64| users_of.get(&i).copied().unwrap_or(0) as f64;
    // Head: most popular first until half the pairs, then every item as popular as the
    // last one taken.
    let pairs: f64 = users_of.values().map(|&c| c as f64).sum();
    let mut counts: Vec<u64> = users_of.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let (mut reached, mut last) = (0.0, 0);
    for &c in &counts {
        if reached >= 0.5 * pairs {
            break;
        }
        reached += c as f64;
        last = c;
    }
    let head: BTreeSet<u64> =
        users_of.iter().filter(|&(_, &c)| c >= last).map(|(&i, _)| i).collect();
    let (mut arp, mut aplt, mut miuf, mut epc) = (0.0, 0.0, 0.0, 0.0);
    let mut exposure: BTreeMap<u64, f64> = BTreeMap::new();
    for (user, items) in &ranked {
        let top = &items[..10];
        arp += top.iter().map(|&i| phi(i)).sum::<f64>() / 10.0;
        aplt += top.iter().filter(|i| !head.contains(i)).count() as f64 / 10.0;
        miuf += top.iter().map(|&i| -(phi(i).max(1.0) / n_users).log2()).sum::<f64>() / 10.0;
        let disc = |r: usize| 1.0 / ((r + 2) as f64).log2();
        let norm: f64 = (0..10).map(disc).sum();
        let found: f64 = top
            .iter()
            .enumerate()
            .filter(|(_, i)| relevant[user] == **i)
            .map(|(r, &i)| disc(r) * (1.0 - phi(i) / n_users))
            .sum();
        epc += found / norm;
        for &i in top {
            *exposure.entry(i).or_default() += 1.0;
        }
    }
    let n = ranked.len() as f64;
    for (key, want) in [("arp@10", arp / n), ("aplt@10", aplt / n), ("miuf@10", miuf / n)] {
        let got = v[key].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{key}: {got} against {want}");
    }
    let got = v["epc@10"].as_f64().unwrap();
    assert!((got - epc / n).abs() < 1e-12, "epc@10: {got} against {}", epc / n);
    // Gini over every catalog item, the unexposed ones at 0.
    let catalog: BTreeSet<u64> = ranked.values().flatten().copied().collect();
    let mut amounts: Vec<f64> =
        catalog.iter().map(|i| exposure.get(i).copied().unwrap_or(0.0)).collect();
    amounts.sort_by(f64::total_cmp);
    let total: f64 = amounts.iter().sum();
    let m = amounts.len() as f64;
    let weighted: f64 = amounts.iter().enumerate().map(|(i, x)| (i + 1) as f64 * x).sum();
    let gini = 2.0 * weighted / (m * total) - (m + 1.0) / m;
    let got = v["gini@10"].as_f64().unwrap();
    assert!((got - gini).abs() < 1e-12, "gini@10: {got} against {gini}");
    assert!(v["popularity"]["n_head_items"].as_u64().unwrap() == head.len() as u64);
}

/// MovieLens 100K, leave one out, a shuffled run over the full catalog, genres from
/// `u.item`: miscal@10 from the files directly, by Steck's definition (uniform over a
/// film's genres, every training item of the user and every listed item weighted 1,
/// α = 0.01).
#[test]
fn movielens_calibration_matches_a_direct_computation() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let (_, ranked) = movielens_leave_one_out(&data, at);
    // Genres: the 19 flags that end each line of u.item.
    let items = std::fs::read(data.join("ml-100k/u.item")).unwrap();
    let mut genres: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut file = String::from("item\trank\tattribute\n");
    for line in String::from_utf8_lossy(&items).lines() {
        let fields: Vec<&str> = line.split('|').collect();
        let item: u64 = fields[0].parse().unwrap();
        let flags = &fields[fields.len() - 19..];
        let of_item: Vec<usize> = (0..19).filter(|&g| flags[g] == "1").collect();
        for &g in &of_item {
            file.push_str(&format!("{item}\t1\tgenre{g:02}\n"));
        }
        genres.insert(item, of_item);
    }
    std::fs::write(at.join("genres.tsv"), file).unwrap();
    let args = [
        "--qrels",
        "graded.tsv",
        "--run",
        "run.tsv",
        "--train",
        "train.tsv",
        "--attributes",
        "genres.tsv",
        "--candidates",
        "catalog",
        "--metrics",
        "miscal@10",
        "--json",
    ];
    let out = run_in(at, "eval", &args, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();

    let distribution = |items: &mut dyn Iterator<Item = u64>| -> [f64; 19] {
        let (mut d, mut n) = ([0.0; 19], 0.0);
        for item in items {
            let of_item = &genres[&item];
            if of_item.is_empty() {
                continue;
            }
            n += 1.0;
            for &g in of_item {
                d[g] += 1.0 / of_item.len() as f64;
            }
        }
        d.map(|x| if n > 0.0 { x / n } else { 0.0 })
    };
    let train = std::fs::read_to_string(at.join("train.tsv")).unwrap();
    let mut history: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    for line in train.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        history.entry(f.next().unwrap()).or_default().insert(f.next().unwrap());
    }
    let (mut sum, mut users) = (0.0, 0.0);
    for (user, items) in &ranked {
        let p = distribution(&mut history[user].iter().copied());
        let q = distribution(&mut items[..10].iter().copied());
        sum += (0..19)
            .filter(|&g| p[g] > 0.0)
            .map(|g| p[g] * (p[g] / (0.99 * q[g] + 0.01 * p[g])).ln())
            .sum::<f64>();
        users += 1.0;
    }
    let got = v["miscal@10"].as_f64().unwrap();
    assert!((got - sum / users).abs() < 1e-12, "miscal@10: {got} against {}", sum / users);
}

/// `recs compare` marks the lower run as the better one where lower is better (`arp@N`,
/// `miscal@N`), and the higher one elsewhere: on MovieLens 100K, a shuffled run has a
/// lower ARP than item popularity and beats it there, while popularity beats it on NDCG.
#[test]
fn comparisons_mark_the_lower_run_where_lower_is_better() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let (_, ranked) = movielens_leave_one_out(&data, at);
    let train = std::fs::read_to_string(at.join("train.tsv")).unwrap();
    let mut count: BTreeMap<u64, u64> = BTreeMap::new();
    for line in train.lines() {
        *count.entry(line.split('\t').nth(1).unwrap().parse().unwrap()).or_default() += 1;
    }
    let mut popular = String::new();
    for (user, items) in &ranked {
        for item in items {
            let score = count.get(item).copied().unwrap_or(0);
            popular.push_str(&format!("{user}\t{item}\t{score}\n"));
        }
    }
    std::fs::write(at.join("pop.tsv"), popular).unwrap();
    let out = run_in(
        at,
        "compare",
        &[
            "--qrels",
            "graded.tsv",
            "--run",
            "shuffled=run.tsv",
            "--run",
            "pop=pop.tsv",
            "--train",
            "train.tsv",
            "--candidates",
            "catalog",
            "--metrics",
            "ndcg@10,arp@10",
            "--format",
            "json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let beats = |metric: &str| -> Value {
        let all = v["metrics"].as_array().unwrap();
        all.iter().find(|m| m["metric"] == metric).unwrap()["beats"].clone()
    };
    assert_eq!(beats("ndcg@10"), serde_json::json!([[], ["shuffled"]]), "{v}");
    assert_eq!(beats("arp@10"), serde_json::json!([["pop"], []]), "{v}");
}
