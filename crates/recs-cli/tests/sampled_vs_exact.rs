//! `recs eval --sampled-vs-exact`: hand-computed cases with ties on small files, errors,
//! and MovieLens 100K against an independent numpy computation
//! (`tools/sampled_vs_exact_oracle.py`, fixture `fixtures/sampled_vs_exact/ml100k.json`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use recs_testkit::real_data_dir;
use serde_json::Value;

/// The small case of `tests/sampled.rs`: every item a..h is trained by someone, i is in
/// the qrels only. Eligible: u1 d e f g h i, u2 b e f g h i, u3 b c d f g i, u4 b c d e i.
const TRAIN: &str = "user\titem\nu1\ta\nu1\tb\nu2\tc\nu2\td\nu3\ta\nu3\te\nu4\tf\nu4\tg\nu4\th\n";
const QRELS: &str = "u1\tc\t1\nu2\ta\t1\nu2\tb\t0\nu2\ti\t0\nu3\th\t2\nu4\ta\t1\n";
/// A score for every candidate, with ties: u1's c ties with i; u3's h with b, c and d;
/// u4's a with b and c.
const RUN: &str = "u1\tc\t0.6\nu1\td\t0.7\nu1\te\t0.7\nu1\tf\t0.1\nu1\tg\t0.2\nu1\th\t0.9\nu1\ti\t0.6\n\
                   u2\ta\t0.5\nu2\tb\t0.8\nu2\te\t0.1\nu2\tf\t0.3\nu2\tg\t0.6\nu2\th\t0.2\nu2\ti\t0.4\n\
                   u3\tb\t0.4\nu3\tc\t0.4\nu3\td\t0.4\nu3\tf\t0.9\nu3\tg\t0.1\nu3\th\t0.4\nu3\ti\t0.0\n\
                   u4\ta\t0.3\nu4\tb\t0.3\nu4\tc\t0.3\nu4\td\t0.2\nu4\te\t0.8\nu4\ti\t0.5\n";
const RELEVANT: [(&str, &str); 4] = [("u1", "c"), ("u2", "a"), ("u3", "h"), ("u4", "a")];

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn small_case() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("train.tsv", TRAIN), ("q.tsv", QRELS), ("r.tsv", RUN)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn eval_in(dir: &Path, args: &[&str], threads: Option<&str>) -> Output {
    let mut command = recs();
    if let Some(threads) = threads {
        command.env("RAYON_NUM_THREADS", threads);
    }
    command.current_dir(dir).arg("eval").args(args).output().unwrap()
}

fn eval_ok(dir: &Path, args: &[&str]) -> Output {
    let out = eval_in(dir, args, None);
    assert!(out.status.success(), "recs eval {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn eval_err(dir: &Path, args: &[&str]) -> String {
    let out = eval_in(dir, args, None);
    assert!(!out.status.success(), "recs eval {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `--sampled-vs-exact` on the small case with `extra` options, as JSON.
fn versus(dir: &Path, draw: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv"];
    args.extend(["--sampled-vs-exact", draw, "--json"]);
    args.extend_from_slice(extra);
    json(&eval_ok(dir, &args))
}

fn close(got: &Value, want: f64, what: &str) {
    let got = got.as_f64().unwrap_or_else(|| panic!("{what}: {got}"));
    assert!((got - want).abs() < 1e-12, "{what}: {got} vs {want}");
}

fn score(user: &str, item: &str) -> f64 {
    let line = RUN.lines().find(|l| l.starts_with(&format!("{user}\t{item}\t"))).unwrap();
    line.rsplit('\t').next().unwrap().parse().unwrap()
}

/// Exact ranks by hand (others, above, tied): u1's c is 4th or 5th of 7 (h, d, e above,
/// i tied); u2's a 3rd of 7 (b, g above; b and i graded 0 are negatives); u3's h 2nd to
/// 5th of 7 (f above, b c d tied); u4's a 3rd to 5th of 6 (e, i above, b c tied).
#[test]
fn exact_values_are_tie_averaged_by_hand() {
    let dir = small_case();
    let v = versus(dir.path(), "2", &["--metrics", "ap,auc,r@3", "--seeds", "1"]);
    let metrics = &v["runs"][0]["metrics"];
    let ap = (0.5 * (1.0 / 4.0 + 1.0 / 5.0)
        + 1.0 / 3.0
        + (1.0 / 2.0 + 1.0 / 3.0 + 1.0 / 4.0 + 1.0 / 5.0) / 4.0
        + (1.0 / 3.0 + 1.0 / 4.0 + 1.0 / 5.0) / 3.0)
        / 4.0;
    close(&metrics["ap"]["exact"], ap, "ap");
    let auc = (0.5 * (3.0 + 2.0) / 6.0
        + 4.0 / 6.0
        + (5.0 + 4.0 + 3.0 + 2.0) / 4.0 / 6.0
        + (3.0 + 2.0 + 1.0) / 3.0 / 5.0)
        / 4.0;
    close(&metrics["auc"]["exact"], auc, "auc");
    // r@3: u1 0, u2 1, u3 2 of its 4 positions, u4 1 of 3.
    close(&metrics["r@3"]["exact"], (0.0 + 1.0 + 0.5 + 1.0 / 3.0) / 4.0, "r@3");
    assert_eq!(v["n_instances"], 4);
    assert_eq!(v["seeds"], serde_json::json!([0]));
}

/// Draw s uses seed `--seed + s`, the draw of `--candidates sampled:N --seed S`: one
/// negative per user, read back from the written candidates, gives the sampled rank by
/// hand (1 or 2, both when tied), its AP and its rank estimate (`r̃ = 2` maps to `n`).
#[test]
fn sampled_values_and_corrections_follow_the_sampled_policys_draw_by_hand() {
    let dir = small_case();
    let v = versus(
        dir.path(),
        "1",
        &[
            "--metrics",
            "ap",
            "--seed",
            "3",
            "--seeds",
            "2",
            "--corrections",
            "sampled,rank-estimate",
        ],
    );
    let ap = &v["runs"][0]["metrics"]["ap"];
    for (index, seed) in ["3", "4"].into_iter().enumerate() {
        let args = [
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--train",
            "train.tsv",
            "--candidates",
            "sampled:1",
            "--seed",
            seed,
            "--write-candidates",
            "c.tsv",
            "--metrics",
            "mrr",
        ];
        eval_ok(dir.path(), &args);
        let text = std::fs::read_to_string(dir.path().join("c.tsv")).unwrap();
        let (mut sampled, mut estimated) = (0.0, 0.0);
        for (user, item) in RELEVANT {
            let negative = text
                .lines()
                .skip(1)
                .map(|l| l.split_once('\t').unwrap())
                .find(|(u, i)| *u == user && *i != item)
                .unwrap()
                .1;
            let n = if user == "u4" { 6.0 } else { 7.0 };
            let (target, other) = (score(user, item), score(user, negative));
            let (naive, estimate) = if other > target {
                (0.5, 1.0 / n)
            } else if other == target {
                (0.75, (1.0 + 1.0 / n) / 2.0)
            } else {
                (1.0, 1.0)
            };
            sampled += naive / 4.0;
            estimated += estimate / 4.0;
        }
        close(&ap["sampled"]["per_seed"][index], sampled, &format!("seed {seed} sampled"));
        close(&ap["rank-estimate"]["per_seed"][index], estimated, &format!("seed {seed} rank"));
    }
    let per_seed = |c: &str| -> Vec<f64> {
        ap[c]["per_seed"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
    };
    let s = per_seed("sampled");
    close(&ap["sampled"]["mean"], (s[0] + s[1]) / 2.0, "mean");
    close(&ap["sampled"]["sd"], (s[0] - s[1]).abs() / 2f64.sqrt(), "sd");
    close(&ap["sampled"]["error"], (s[0] + s[1]) / 2.0 - ap["exact"].as_f64().unwrap(), "error");
}

/// With N above every user's eligible count, every negative is drawn: the sampled rank
/// is the exact rank and every estimator gives the exact value; a warning counts the
/// short draws.
#[test]
fn drawing_every_negative_makes_every_estimator_exact() {
    let dir = small_case();
    let out = eval_ok(
        dir.path(),
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--train",
            "train.tsv",
            "--sampled-vs-exact",
            "10",
            "--seeds",
            "2",
            "--metrics",
            "auc,ap,ndcg,ndcg@2,r@1,p@2",
            "--json",
        ],
    );
    let v = json(&out);
    for (metric, entry) in v["runs"][0]["metrics"].as_object().unwrap() {
        let exact = entry["exact"].as_f64().unwrap();
        for correction in ["sampled", "rank-estimate", "minimal-bias", "monotone", "bv:0.1"] {
            for seed in 0..2 {
                let got = entry[correction]["per_seed"][seed].as_f64().unwrap();
                assert!((got - exact).abs() < 1e-8, "{metric} {correction}: {got} vs {exact}");
            }
        }
    }
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().starts_with("8 draws (a user and a seed)")),
        "{warnings:?}"
    );
}

/// Two runs: the reversal shares and τ agree with the per-seed values they come from; the
/// table prints the same numbers.
#[test]
fn orders_across_runs_come_from_the_per_seed_values() {
    let dir = small_case();
    let flipped: String = RUN
        .lines()
        .map(|l| {
            let (head, s) = l.rsplit_once('\t').unwrap();
            format!("{head}\t{}\n", 1.0 - s.parse::<f64>().unwrap())
        })
        .collect();
    std::fs::write(dir.path().join("flipped.tsv"), flipped).unwrap();
    let v =
        versus(dir.path(), "2", &["--run", "flipped.tsv", "--seeds", "4", "--metrics", "ap,auc"]);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["run"], "flipped.tsv");
    for metric in ["ap", "auc"] {
        let exact: Vec<f64> =
            runs.iter().map(|r| r["metrics"][metric]["exact"].as_f64().unwrap()).collect();
        for correction in ["sampled", "bv:0.1"] {
            let seeds: Vec<Vec<f64>> = runs
                .iter()
                .map(|r| {
                    let s = &r["metrics"][metric][correction]["per_seed"];
                    s.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
                })
                .collect();
            let o = &v["orders"][metric][correction];
            let truth = exact[0].partial_cmp(&exact[1]).unwrap();
            let reversed = (0..4)
                .filter(|&s| seeds[0][s].partial_cmp(&seeds[1][s]).unwrap() == truth.reverse())
                .count();
            close(&o["reversed"][0]["share"], reversed as f64 / 4.0, "share");
            for s in 0..4 {
                let agree = seeds[0][s].partial_cmp(&seeds[1][s]).unwrap() == truth;
                let tau = o["kendall_tau"][s].as_f64();
                let tied = seeds[0][s] == seeds[1][s];
                assert_eq!(tau, if tied { None } else { Some(if agree { 1.0 } else { -1.0 }) });
            }
        }
    }
    let table = eval_ok(
        dir.path(),
        &[
            "--qrels",
            "q.tsv",
            "--run",
            "r.tsv",
            "--run",
            "flipped.tsv",
            "--train",
            "train.tsv",
            "--sampled-vs-exact",
            "2",
            "--seeds",
            "4",
            "--metrics",
            "ap,auc",
        ],
    );
    let text = String::from_utf8(table.stdout).unwrap();
    let exact = runs[1]["metrics"]["ap"]["exact"].as_f64().unwrap();
    assert!(text.contains("run flipped.tsv") && text.contains(&format!("{exact:.6}")), "{text}");
    assert!(text.contains("r.tsv vs flipped.tsv"), "{text}");
}

#[test]
fn refusals_name_what_is_wrong() {
    let dir = small_case();
    let base = ["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv"];
    let err = |extra: &[&str]| eval_err(dir.path(), &[&base[..], extra].concat());
    let contains = |e: String, want: &str| assert!(e.contains(want), "want {want:?} in: {e}");
    contains(
        err(&["--sampled-vs-exact", "5", "--metrics", "ap,map"]),
        "\"map\" is not one: use auc, r@k (also recall@k, hit@k), p@k, ap (also mrr), ndcg or ndcg@k",
    );
    contains(
        err(&["--sampled-vs-exact", "5", "--corrections", "bv:3"]),
        "--corrections: invalid correction `bv:3`",
    );
    contains(err(&["--sampled-vs-exact", "0"]), "N >= 1");
    contains(err(&["--sampled-vs-exact", "5", "--ties", "item-ascending"]), "does not take --ties");
    contains(err(&["--sampled-vs-exact", "5", "--seeds", "0"]), "--seeds must be at least 1");
    contains(err(&["--sampled-vs-exact", "5", "--candidates", "catalog"]), "cannot be used with");
    contains(err(&["--run", "r.tsv"]), "--run is given once");
    contains(err(&["--seeds", "3"]), "--sampled-vs-exact");
    let no_train = ["--qrels", "q.tsv", "--run", "r.tsv", "--sampled-vs-exact", "5"];
    contains(eval_err(dir.path(), &no_train), "--train");
    std::fs::write(dir.path().join("bad.tsv"), "u1\tc\t0.5\nu1\td\tlots\n").unwrap();
    contains(err(&["--sampled-vs-exact", "5", "--run", "bad.tsv"]), "bad.tsv:2");
}

/// The runs of the fixture: the item's number of training events, and a formula of the
/// ids, for every catalog item the user has not trained on.
fn write_runs(at: &Path) {
    let train = std::fs::read_to_string(at.join("train.tsv")).unwrap();
    let mut known: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    let mut popularity: BTreeMap<u64, u64> = BTreeMap::new();
    for line in train.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        let (user, item) = (f.next().unwrap(), f.next().unwrap());
        known.entry(user).or_default().push(item);
        *popularity.entry(item).or_default() += 1;
    }
    let graded = std::fs::read_to_string(at.join("graded.tsv")).unwrap();
    let mut catalog: Vec<u64> = popularity.keys().copied().collect();
    let mut users: Vec<u64> = Vec::new();
    for line in graded.lines() {
        let mut f = line.split('\t').map(|x| x.parse::<u64>().unwrap());
        users.push(f.next().unwrap());
        catalog.push(f.next().unwrap());
    }
    catalog.sort_unstable();
    catalog.dedup();
    users.sort_unstable();
    users.dedup();
    let (mut pop, mut hash) = (String::new(), String::new());
    for &user in &users {
        let own = known.get(&user).cloned().unwrap_or_default();
        for &item in catalog.iter().filter(|i| !own.contains(i)) {
            let count = popularity.get(&item).copied().unwrap_or(0);
            pop.push_str(&format!("{user}\t{item}\t{count}\n"));
            hash.push_str(&format!("{user}\t{item}\t{}\n", (31 * user + 17 * item) % 101));
        }
    }
    std::fs::write(at.join("pop.tsv"), pop).unwrap();
    std::fs::write(at.join("hash.tsv"), hash).unwrap();
}

/// MovieLens 100K, leave one out: the exact means, the sampled means of two seeds and the
/// rank-estimate and BV (γ = 0.1) means of seed 0 equal numpy's; the same bytes on one
/// thread as on the default number.
#[test]
fn movielens_sampled_vs_exact_matches_numpy() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let split = recs()
        .current_dir(at)
        .args(["split", "--dataset", "ml-100k", "--data-dir", data.to_str().unwrap()])
        .args([
            "--protocol",
            "leave-one-out",
            "--seed",
            "0",
            "--judgments",
            "implicit",
            "--out",
            ".",
        ])
        .output()
        .unwrap();
    assert!(split.status.success(), "{}", String::from_utf8_lossy(&split.stderr));
    let listed = std::fs::read_to_string(at.join("qrels.tsv")).unwrap();
    let graded: String =
        listed.lines().filter(|l| !l.ends_with("\t0")).map(|l| format!("{l}\n")).collect();
    std::fs::write(at.join("graded.tsv"), graded).unwrap();
    write_runs(at);
    // The graded qrels and the training events every command below reads.
    let files = ["--qrels", "graded.tsv", "--train", "train.tsv"];
    let args = [
        files[0],
        files[1],
        files[2],
        files[3],
        "--run",
        "pop.tsv",
        "--run",
        "hash.tsv",
        "--sampled-vs-exact",
        "100",
        "--seeds",
        "2",
        "--corrections",
        "sampled,rank-estimate,bv:0.1",
        "--metrics",
        "auc,r@10,ndcg@10,ap",
        "--json",
    ];
    let default = eval_in(at, &args, None);
    assert!(default.status.success(), "{}", String::from_utf8_lossy(&default.stderr));
    let one = eval_in(at, &args, Some("1"));
    assert_eq!(default.stdout, one.stdout, "one thread and the default");
    let v = json(&default);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sampled_vs_exact/ml100k.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["n_instances"], fixture["n_instances"]);
    for (index, run) in ["pop", "hash"].into_iter().enumerate() {
        assert_eq!(v["runs"][index]["run"], format!("{run}.tsv"));
        for metric in ["auc", "r@10", "ndcg@10", "ap"] {
            let ours = &v["runs"][index]["metrics"][metric];
            let theirs = &fixture["runs"][run][metric];
            let what = |key: &str| format!("{run} {metric} {key}");
            close(&ours["exact"], theirs["exact"].as_f64().unwrap(), &what("exact"));
            for seed in 0..2 {
                let key = format!("sampled/{seed}");
                close(
                    &ours["sampled"]["per_seed"][seed],
                    theirs[&key].as_f64().unwrap(),
                    &what(&key),
                );
            }
            let rank = theirs["rank-estimate/0"].as_f64().unwrap();
            close(&ours["rank-estimate"]["per_seed"][0], rank, &what("rank-estimate"));
            // A linear solve each, in two libraries: agreement to 1e-9.
            let bv = ours["bv:0.1"]["per_seed"][0].as_f64().unwrap();
            let want = theirs["bv:0.1/0"].as_f64().unwrap();
            assert!((bv - want).abs() < 1e-9, "{}: {bv} vs {want}", what("bv:0.1"));
        }
    }
    // The same estimators as metric names under `--candidates sampled:100 --seed 0` (seed
    // 0's draw): one relevant item per user, so the user mean is the instance mean, and
    // numpy's numbers again; the uncorrected NDCG is the library's on those candidates.
    let mut asked = vec!["ndcg@10".to_string()];
    for metric in ["auc", "r@10", "ndcg@10", "ap"] {
        for estimator in ["sampled", "rank-estimate", "bv:0.1"] {
            asked.push(format!("{metric}~{estimator}"));
        }
    }
    let asked = asked.join(",");
    for run in ["pop", "hash"] {
        let file = format!("{run}.tsv");
        let args = [
            files[0],
            files[1],
            files[2],
            files[3],
            "--run",
            &file,
            "--candidates",
            "sampled:100",
            "--seed",
            "0",
            "--metrics",
            &asked,
            "--json",
        ];
        let out = eval_ok(at, &args);
        assert_eq!(out.stdout, eval_in(at, &args, Some("1")).stdout, "{run}: one thread");
        let v = json(&out);
        let theirs = &fixture["runs"][run];
        close(&v["ndcg@10~sampled"], v["ndcg@10"].as_f64().unwrap(), &format!("{run} library"));
        for metric in ["auc", "r@10", "ndcg@10", "ap"] {
            let what = |e: &str| format!("{run} {metric}~{e}");
            close(
                &v[format!("{metric}~sampled")],
                theirs[metric]["sampled/0"].as_f64().unwrap(),
                &what("sampled"),
            );
            let rank = theirs[metric]["rank-estimate/0"].as_f64().unwrap();
            close(&v[format!("{metric}~rank-estimate")], rank, &what("rank-estimate"));
            let bv = v[format!("{metric}~bv:0.1")].as_f64().unwrap();
            let want = theirs[metric]["bv:0.1/0"].as_f64().unwrap();
            assert!((bv - want).abs() < 1e-9, "{}: {bv} vs {want}", what("bv:0.1"));
        }
    }
}

/// Corrected sampled metrics are refused, saying why, where no sampled rank exists or the
/// estimators' uniform draw does not hold.
#[test]
fn corrected_metrics_need_uniform_sampled_candidates() {
    let dir = small_case();
    let at = dir.path();
    let base = ["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv"];
    let err = |candidates: &str, metrics: &str| {
        let mut args = base.to_vec();
        args.extend(["--candidates", candidates, "--metrics", metrics]);
        eval_err(at, &args)
    };
    let e = err("catalog", "ndcg@10~bv:0.1");
    assert!(
        e.contains("ndcg@10~bv:0.1 is a corrected sampled metric") && e.contains("catalog"),
        "{e}"
    );
    let e = err("sampled:2:popularity", "ap~monotone");
    assert!(e.contains("assume uniform draws"), "{e}");
    let e = err("sampled:2", "map~monotone");
    assert!(e.contains("before `~`"), "{e}");
    let e = err("sampled:2", "ap~bv:0");
    assert!(e.contains("after `~`"), "{e}");
    let mut args = base.to_vec();
    args.extend(["--candidates", "sampled:2", "--metrics", "ap~sampled,r@1~rank-estimate"]);
    let v = json(&eval_ok(at, &[args.as_slice(), &["--json"]].concat()));
    assert!(v["ap~sampled"].as_f64().is_some() && v["r@1~rank-estimate"].as_f64().is_some(), "{v}");
}

/// `recs run` with `evaluation.sampled_vs_exact` on MovieLens 100K: the first split's
/// scores are saved, so `recs eval --sampled-vs-exact` can read the same scores as runs.
fn versus_config(negatives: usize) -> String {
    format!(
        r#"
name = "versus"
seed = 3

[dataset]
name = "ml-100k"

[protocol]
protocol = "holdout"

[judgments]
mode = "implicit"

[evaluation]
metrics = ["ndcg@10", "arp@10"]
save_scores = true
sampled_vs_exact = {{ negatives = {negatives}, seeds = 2, metrics = ["auc", "r@10", "ndcg@10", "ap"], corrections = ["sampled", "rank-estimate"] }}

[[models]]
name = "item-pop"

[[models]]
name = "item-knn"
"#
    )
}

/// Runs `config` into `dir/out` with `threads` worker threads; the report's tables.
fn run_versus(dir: &Path, config: &str, threads: &str) -> Value {
    std::fs::write(dir.join("versus.toml"), config).unwrap();
    let out = recs()
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", threads)
        .args(["run", "versus.toml", "--out", "out", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "recs run: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(dir.join("out/report.json")).unwrap()).unwrap()
}

/// The rows of the report's table whose name starts with `prefix`.
fn table_rows<'a>(report: &'a Value, prefix: &str) -> &'a Vec<Value> {
    report["experiments"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no table {prefix:?}"))["rows"]
        .as_array()
        .unwrap()
}

#[test]
fn a_run_compares_sampled_with_exact_as_recs_eval_does_on_its_scores() {
    let Some(_) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    for negatives in [100, 5000] {
        let config = versus_config(negatives);
        let report = run_versus(dir.path(), &config, "2");
        // The same seed gives the same report at any thread count.
        let bytes = std::fs::read(dir.path().join("out/report.json")).unwrap();
        run_versus(dir.path(), &config, "1");
        assert_eq!(bytes, std::fs::read(dir.path().join("out/report.json")).unwrap());
        let rows = table_rows(&report, "sampled against exact (");
        assert_eq!(rows.len(), 2 * 4 * 2, "two models × four metrics × two estimators");
        // The exact means are those recs eval gives for the saved scores listed as runs.
        let scores = dir.path().join("out/scores");
        let mut args = vec![
            "--sampled-vs-exact".to_string(),
            negatives.to_string(),
            "--seeds".into(),
            "2".into(),
            "--metrics".into(),
            "auc,r@10,ndcg@10,ap".into(),
            "--corrections".into(),
            "sampled,rank-estimate".into(),
            "--qrels".into(),
            scores.join("qrels.tsv").display().to_string(),
            "--train".into(),
            scores.join("train.tsv").display().to_string(),
            "--json".into(),
        ];
        for model in ["item-pop", "item-knn"] {
            args.extend([
                "--run".into(),
                scores.join(format!("{model}.tsv")).display().to_string(),
            ]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let eval = json(&eval_ok(dir.path(), &args));
        for (r, model) in ["item-pop", "item-knn"].into_iter().enumerate() {
            let listed = &eval["runs"][r]["metrics"];
            for row in rows.iter().filter(|row| row[0] == model) {
                let (metric, estimator) = (row[1].as_str().unwrap(), row[2].as_str().unwrap());
                let exact = listed[metric]["exact"].as_f64().unwrap();
                let found = row[3].as_f64().unwrap();
                assert!((found - exact).abs() < 1e-12, "{model} {metric}: {found} vs {exact}");
                // Drawing more negatives than the catalog holds takes every one of them:
                // the sampled metric is then the exact one, in every draw.
                if negatives == 5000 && estimator == "sampled" {
                    assert!((row[4].as_f64().unwrap() - exact).abs() < 1e-12, "{row:?}");
                    assert_eq!(row[5].as_f64(), Some(0.0), "{row:?}");
                }
            }
        }
        let orders = table_rows(&report, "sampled against exact, the models' order");
        assert_eq!(orders.len(), 4 * 2, "one pair per metric and estimator");
        if negatives == 5000 {
            for row in orders.iter().filter(|row| row[1] == "sampled") {
                assert_eq!((row[2].as_f64(), row[4].as_f64()), (Some(1.0), Some(0.0)), "{row:?}");
            }
        }
    }
}

#[test]
fn a_run_refuses_sampled_against_exact_without_a_full_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let config = versus_config(100).replace("\"implicit\"", "\"conditional:4\"");
    std::fs::write(dir.path().join("versus.toml"), config).unwrap();
    let out =
        recs().current_dir(dir.path()).args(["run", "versus.toml", "--quiet"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("evaluation.sampled_vs_exact"), "{stderr}");
}
