//! `recs eval --candidates sampled:N`, `--write-candidates` and `--candidates file:FILE`
//! end to end: small files always, MovieLens 100K through `RECS_DATA_DIR`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use recs_testkit::real_data_dir;
use serde_json::Value;

/// Training events: every item a..h is trained by someone (item i, in the qrels only,
/// has no training event), so the catalog does not change when u3 leaves the qrels.
const TRAIN: &str = "user\titem\n\
                     u1\ta\nu1\tb\n\
                     u2\tc\nu2\td\n\
                     u3\ta\nu3\te\n\
                     u4\tf\nu4\tg\nu4\th\n";

/// One relevant item per user, and two pairs graded 0 (u2's b and i, eligible negatives).
/// Eligible: u1 d e f g h i, u2 b e f g h i, u3 b c d f g i, u4 b c d e i.
const QRELS: &str = "u1\tc\t1\nu2\ta\t1\nu2\tb\t0\nu2\ti\t0\nu3\th\t2\nu4\ta\t1\n";

/// A score for every (user, item) pair that is not a training event, with ties: u1's d
/// and e tie, u3's b, c and d tie, u4's b and c tie with its relevant item a.
const RUN: &str = "u1\tc\t0.6\nu1\td\t0.7\nu1\te\t0.7\nu1\tf\t0.1\nu1\tg\t0.2\nu1\th\t0.9\nu1\ti\t0.6\n\
                   u2\ta\t0.5\nu2\tb\t0.8\nu2\te\t0.1\nu2\tf\t0.3\nu2\tg\t0.6\nu2\th\t0.2\nu2\ti\t0.4\n\
                   u3\tb\t0.4\nu3\tc\t0.4\nu3\td\t0.4\nu3\tf\t0.9\nu3\tg\t0.1\nu3\th\t0.4\nu3\ti\t0.0\n\
                   u4\ta\t0.3\nu4\tb\t0.3\nu4\tc\t0.3\nu4\td\t0.2\nu4\te\t0.8\nu4\ti\t0.5\n";

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

/// A temporary directory holding `files` (name, contents).
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// The small case's files: `train.tsv`, `q.tsv`, `r.tsv`.
fn small_case() -> tempfile::TempDir {
    folder(&[("train.tsv", TRAIN), ("q.tsv", QRELS), ("r.tsv", RUN)])
}

/// `recs eval` in `dir` with `args`.
fn eval_in(dir: &Path, args: &[&str]) -> Output {
    recs().current_dir(dir).arg("eval").args(args).output().unwrap()
}

/// As [`eval_in`], failing the test with standard error when the command fails.
fn eval_ok(dir: &Path, args: &[&str]) -> Output {
    let out = eval_in(dir, args);
    assert!(out.status.success(), "recs eval {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// As [`eval_in`], failing the test when the command succeeds: its standard error.
fn eval_err(dir: &Path, args: &[&str]) -> String {
    let out = eval_in(dir, args);
    assert!(!out.status.success(), "recs eval {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `recs eval --qrels q.tsv --run r.tsv` with `options` in `dir`, which must fail: its
/// standard error.
fn option_err(dir: &Path, options: &[&str]) -> String {
    let mut args = vec!["--qrels", "q.tsv", "--run", "r.tsv"];
    args.extend_from_slice(options);
    eval_err(dir, &args)
}

/// The `--json` report's numbers, without the keys that name the policy or hold text.
fn numbers(out: &Output) -> BTreeMap<String, Value> {
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut map: BTreeMap<String, Value> = value.as_object().unwrap().clone().into_iter().collect();
    for key in ["candidates", "sampling_seed", "warnings"] {
        map.remove(key);
    }
    map
}

fn warnings(out: &Output) -> Vec<String> {
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    value["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().into()).collect()
}

const METRICS: &str = "roc,croc,user_auc,p@1,r@2,ndcg@3,map,mrr";

/// The arguments of a sampled evaluation of the small case.
fn sampled_args<'a>(policy: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--qrels", "q.tsv", "--run", "r.tsv", "--train", "train.tsv"];
    args.extend(["--candidates", policy, "--metrics", METRICS, "--json"]);
    args.extend_from_slice(extra);
    args
}

/// A candidate file's pairs by user, after checking its header and order.
fn read_candidates(path: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("user\titem"));
    let pairs: Vec<(String, String)> = lines
        .map(|l| {
            let (u, i) = l.split_once('\t').unwrap();
            (u.to_string(), i.to_string())
        })
        .collect();
    assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted by user, then item");
    let mut by_user: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (u, i) in pairs {
        by_user.entry(u).or_default().push(i);
    }
    by_user
}

#[test]
fn each_user_gets_its_relevant_items_and_n_eligible_negatives() {
    let dir = small_case();
    let out = eval_ok(dir.path(), &sampled_args("sampled:2", &["--write-candidates", "c.tsv"]));
    let candidates = read_candidates(&dir.path().join("c.tsv"));
    let known: BTreeSet<(&str, &str)> =
        TRAIN.lines().skip(1).map(|l| l.split_once('\t').unwrap()).collect();
    let relevant = [("u1", "c"), ("u2", "a"), ("u3", "h"), ("u4", "a")];
    assert_eq!(candidates.len(), 4);
    for (user, item) in relevant {
        let items = &candidates[user];
        assert_eq!(items.len(), 3, "{user}: its relevant item and 2 negatives: {items:?}");
        assert!(items.iter().any(|i| i == item), "{user} keeps {item}");
        assert!(items.iter().all(|i| !known.contains(&(user, i.as_str()))), "{user}: {items:?}");
    }
    let v = numbers(&out);
    assert_eq!(v["n_candidates"], 12);
    assert_eq!(v["n_positives"], 4);
    // Sampled and popularity-sampled policies name themselves and their seed.
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["candidates"].as_str(), json["sampling_seed"].as_u64()),
        (Some("sampled:2:uniform"), Some(0))
    );
    let out = eval_ok(dir.path(), &sampled_args("sampled:1:popularity", &["--seed", "3"]));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["candidates"], "sampled:1:popularity");
    assert_eq!(json["sampling_seed"], 3);
    let table = eval_ok(dir.path(), &sampled_args("sampled:2", &[])[..10]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("sampled:2:uniform (seed 0)"));
}

/// Drawing by popularity never draws an item without training events (i, eligible for
/// every user): u4, with four trained eligible items, gets exactly those.
#[test]
fn popularity_draws_only_trained_items() {
    let dir = small_case();
    for seed in ["0", "1", "2", "3"] {
        let extra = ["--seed", seed, "--write-candidates", "c.tsv"];
        eval_ok(dir.path(), &sampled_args("sampled:4:popularity", &extra));
        let candidates = read_candidates(&dir.path().join("c.tsv"));
        assert_eq!(candidates["u4"], ["a", "b", "c", "d", "e"], "seed {seed}");
        assert!(candidates.values().flatten().all(|i| i != "i"), "seed {seed}: {candidates:?}");
        // Uniformly, i is as likely as any other item.
        eval_ok(dir.path(), &sampled_args("sampled:5", &extra));
        let candidates = read_candidates(&dir.path().join("c.tsv"));
        assert!(candidates["u4"].iter().any(|i| i == "i"), "seed {seed}: {candidates:?}");
    }
}

/// The same seed writes the same bytes: on one thread or four, and whatever the order of
/// the lines of the qrels and of the training file; another seed draws other negatives,
/// and a user draws the same negatives when another user leaves the qrels.
#[test]
fn the_draw_depends_on_the_seed_and_the_user_only() {
    let dir = small_case();
    let run = |dir: &Path, seed: &str, threads: &str| {
        let args = sampled_args("sampled:3", &["--seed", seed, "--write-candidates", "c.tsv"]);
        let out = recs()
            .current_dir(dir)
            .env("RAYON_NUM_THREADS", threads)
            .arg("eval")
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (out.stdout, std::fs::read(dir.join("c.tsv")).unwrap())
    };
    let first = run(dir.path(), "7", "1");
    assert_eq!(first, run(dir.path(), "7", "4"), "one thread and four");
    let reversed = |text: &str, header: bool| {
        let lines: Vec<&str> = text.lines().collect();
        let (head, body) = lines.split_at(usize::from(header));
        let mut out: Vec<&str> = head.to_vec();
        out.extend(body.iter().rev());
        out.join("\n") + "\n"
    };
    let shuffled = folder(&[
        ("train.tsv", &reversed(TRAIN, true)),
        ("q.tsv", &reversed(QRELS, false)),
        ("r.tsv", &reversed(RUN, false)),
    ]);
    assert_eq!(first, run(shuffled.path(), "7", "2"), "lines in reverse order");
    let other = run(dir.path(), "8", "1");
    assert_ne!(first.1, other.1, "another seed draws other negatives");
    // Without u3 in the qrels (every item of u3's is still in training: the same
    // catalog), the other users keep their negatives.
    run(dir.path(), "7", "1");
    let mut all = read_candidates(&dir.path().join("c.tsv"));
    all.remove("u3");
    let without_u3: String =
        QRELS.lines().filter(|l| !l.starts_with("u3")).map(|l| format!("{l}\n")).collect();
    let fewer = folder(&[("train.tsv", TRAIN), ("q.tsv", &without_u3), ("r.tsv", RUN)]);
    run(fewer.path(), "7", "1");
    assert_eq!(read_candidates(&fewer.path().join("c.tsv")), all);
}

/// The expected reciprocal rank of a relevant item with `above` candidates scored higher
/// and `tied` others scored equal, over the random orders of the tie.
fn expected_reciprocal_rank(above: usize, tied: usize) -> f64 {
    (1..=tied + 1).map(|j| 1.0 / (above + j) as f64).sum::<f64>() / (tied + 1) as f64
}

/// Hand-computed metrics of the written candidates equal the sampled evaluation's: per
/// user, the relevant item's AUC among its negatives (a tie counts one half), its
/// expected reciprocal rank, and the pooled AUC over every relevant–negative pair.
#[test]
fn sampled_metrics_are_the_metrics_of_the_written_candidates() {
    let dir = small_case();
    for policy in ["sampled:2", "sampled:3:uniform", "sampled:2:popularity"] {
        for seed in ["0", "5"] {
            let args = sampled_args(policy, &["--seed", seed, "--write-candidates", "c.tsv"]);
            let v = numbers(&eval_ok(dir.path(), &args));
            let candidates = read_candidates(&dir.path().join("c.tsv"));
            let score = |user: &str, item: &str| -> f64 {
                let line = RUN.lines().find(|l| l.starts_with(&format!("{user}\t{item}\t")));
                line.unwrap().rsplit('\t').next().unwrap().parse().unwrap()
            };
            let relevant: BTreeMap<&str, &str> =
                [("u1", "c"), ("u2", "a"), ("u3", "h"), ("u4", "a")].into_iter().collect();
            let (mut user_auc, mut rr) = (0.0, 0.0);
            let (mut positives, mut negatives) = (Vec::new(), Vec::new());
            for (user, items) in &candidates {
                let target = score(user, relevant[user.as_str()]);
                let others: Vec<f64> = items
                    .iter()
                    .filter(|i| *i != relevant[user.as_str()])
                    .map(|i| score(user, i))
                    .collect();
                let above = others.iter().filter(|&&s| s > target).count();
                let tied = others.iter().filter(|&&s| s == target).count();
                let below = others.len() - above - tied;
                user_auc += (below as f64 + 0.5 * tied as f64) / others.len() as f64;
                rr += expected_reciprocal_rank(above, tied);
                positives.push(target);
                negatives.extend(others);
            }
            let pairs = (positives.len() * negatives.len()) as f64;
            let won: f64 = positives
                .iter()
                .flat_map(|p| negatives.iter().map(move |n| (p, n)))
                .map(|(p, n)| {
                    if p > n {
                        1.0
                    } else if p == n {
                        0.5
                    } else {
                        0.0
                    }
                })
                .sum();
            let close = |key: &str, want: f64| {
                let got = v[key].as_f64().unwrap();
                assert!((got - want).abs() < 1e-12, "{policy} seed {seed}: {key} {got} vs {want}");
            };
            close("user_auc", user_auc / 4.0);
            close("mrr", rr / 4.0);
            close("roc_auc", won / pairs);
        }
    }
}

/// `--write-candidates` then `--candidates file:` gives the numbers of the policy that
/// wrote the file, under every tie order, for sampled, catalog and qrels candidates; a
/// qrels file listing the written candidates gives them too.
#[test]
fn written_candidates_read_back_give_identical_metrics() {
    let dir = small_case();
    let qrels_listing = |dir: &Path| {
        // The written pairs, graded from the qrels (0 when not graded).
        let grades: BTreeMap<(&str, &str), &str> = QRELS
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                ((f[0], f[1]), f[2])
            })
            .collect();
        let text = std::fs::read_to_string(dir.join("c.tsv")).unwrap();
        let listed: String = text
            .lines()
            .skip(1)
            .map(|l| {
                let (u, i) = l.split_once('\t').unwrap();
                format!("{u}\t{i}\t{}\n", grades.get(&(u, i)).unwrap_or(&"0"))
            })
            .collect();
        std::fs::write(dir.join("listed.tsv"), listed).unwrap();
    };
    for policy in ["sampled:2", "sampled:2:popularity", "sampled:4", "catalog", "qrels"] {
        for ties in ["expected", "item-ascending", "item-descending"] {
            let mut args = sampled_args(policy, &["--ties", ties, "--write-candidates", "c.tsv"]);
            if policy == "qrels" {
                args.drain(4..6); // no --train
            }
            let drawn = numbers(&eval_ok(dir.path(), &args));
            let file = ["--qrels", "q.tsv", "--run", "r.tsv", "--candidates", "file:c.tsv"];
            let read = numbers(&eval_ok(
                dir.path(),
                &[&file[..], &["--metrics", METRICS, "--json", "--ties", ties]].concat(),
            ));
            assert_eq!(drawn, read, "{policy}, ties {ties}");
            // Rewriting the file it read writes the same bytes.
            let before = std::fs::read(dir.path().join("c.tsv")).unwrap();
            eval_ok(dir.path(), &[&file[..], &["--write-candidates", "c.tsv"]].concat());
            assert_eq!(before, std::fs::read(dir.path().join("c.tsv")).unwrap());
            if ties == "expected" {
                qrels_listing(dir.path());
                let listed = ["--qrels", "listed.tsv", "--run", "r.tsv", "--candidates", "qrels"];
                let listed = numbers(&eval_ok(
                    dir.path(),
                    &[&listed[..], &["--metrics", METRICS, "--json"]].concat(),
                ));
                assert_eq!(drawn, listed, "{policy} as a qrels listing");
            }
        }
    }
    // Nothing but the file is left in the folder (the temporary file was renamed).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["c.tsv", "listed.tsv", "q.tsv", "r.tsv", "train.tsv"]);
}

/// With N above every user's eligible count, each user gets all its eligible items: the
/// full catalog's numbers, and a warning counting the users short of N.
#[test]
fn n_larger_than_the_eligible_set_takes_them_all_and_warns() {
    let dir = small_case();
    let sampled = eval_ok(dir.path(), &sampled_args("sampled:1000", &[]));
    let catalog = eval_ok(dir.path(), &sampled_args("catalog", &[]));
    assert_eq!(numbers(&sampled), numbers(&catalog));
    let warned = warnings(&sampled);
    assert!(
        warned.iter().any(|w| w.starts_with("4 users have fewer than 1000 eligible items")),
        "{warned:?}"
    );
    // u4 has five eligible items, the others six.
    let enough = eval_ok(dir.path(), &sampled_args("sampled:5", &[]));
    assert!(!warnings(&enough).iter().any(|w| w.contains("fewer than")), "{:?}", warnings(&enough));
    let short = eval_ok(dir.path(), &sampled_args("sampled:6", &[]));
    assert!(warnings(&short).iter().any(|w| w.starts_with("1 users have fewer than 6")));
}

/// A run without a score for some sampled candidates ranks them last and says how many,
/// as under every listed policy: the numbers of the same candidates listed as qrels.
#[test]
fn sampled_candidates_without_a_score_rank_last_as_under_other_policies() {
    let dir = small_case();
    eval_ok(dir.path(), &sampled_args("sampled:3", &["--write-candidates", "c.tsv"]));
    // Drop u1's and u4's scores of their first negative in the written file.
    let candidates = read_candidates(&dir.path().join("c.tsv"));
    let dropped: Vec<(String, String)> = ["u1", "u4"]
        .iter()
        .map(|u| {
            let relevant = if *u == "u1" { "c" } else { "a" };
            let item = candidates[*u].iter().find(|i| *i != relevant).unwrap();
            (u.to_string(), item.clone())
        })
        .collect();
    let partial: String = RUN
        .lines()
        .filter(|l| !dropped.iter().any(|(u, i)| l.starts_with(&format!("{u}\t{i}\t"))))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("partial.tsv"), partial).unwrap();
    let mut args = sampled_args("sampled:3", &[]);
    args[3] = "partial.tsv";
    let out = eval_ok(dir.path(), &args);
    assert_eq!(numbers(&out)["n_missing"], 2);
    assert!(
        warnings(&out)
            .iter()
            .any(|w| w.starts_with("2 of 16 candidates have no score and rank lowest"))
    );
    let file = ["--qrels", "q.tsv", "--run", "partial.tsv", "--candidates", "file:c.tsv"];
    let read = eval_ok(dir.path(), &[&file[..], &["--metrics", METRICS, "--json"]].concat());
    assert_eq!(numbers(&out), numbers(&read));
}

#[test]
fn bad_candidate_files_and_options_are_errors_that_say_where_and_what() {
    let dir = small_case();
    let with_file = |text: &str| {
        std::fs::write(dir.path().join("c.tsv"), text).unwrap();
        option_err(dir.path(), &["--candidates", "file:c.tsv"])
    };
    let contains = |err: String, want: &str| assert!(err.contains(want), "want {want:?} in: {err}");
    contains(with_file("u1\tc\n"), "c.tsv:1: expected the header `user<TAB>item`");
    contains(
        with_file("user\titem\nu1\tc\nu1\tc\td\n"),
        "c.tsv:3: expected `user<TAB>item` (two non-empty fields), found \"u1\\tc\\td\"",
    );
    contains(with_file("user\titem\nu1\tc\n\tc\n"), "c.tsv:3: expected `user<TAB>item`");
    contains(with_file("user\titem\n"), "c.tsv: a candidate file with no candidate line");
    contains(
        with_file("user\titem\nu1\tc\nu2\ta\nu1\tc\n"),
        "c.tsv:4: the pair of line 2 again (user u1, item c)",
    );
    // u3's relevant h is not among its candidates: the file belongs to other qrels.
    contains(
        with_file("user\titem\nu1\tc\nu2\ta\nu3\tb\nu4\ta\n"),
        "c.tsv: user u3 has the relevant item h (grade 2 in q.tsv) among no candidate of the file",
    );
    let err = option_err(dir.path(), &["--candidates", "file:nowhere.tsv"]);
    contains(err, "opening candidate file nowhere.tsv");
    // A user of the file that the qrels do not judge is a warning, and not evaluated.
    std::fs::write(
        dir.path().join("c.tsv"),
        "user\titem\nu1\tc\nu1\td\nu2\ta\nu3\th\nu4\ta\nu9\ta\n",
    )
    .unwrap();
    let out = eval_ok(
        dir.path(),
        &["--qrels", "q.tsv", "--run", "r.tsv", "--candidates", "file:c.tsv", "--json"],
    );
    let warned = warnings(&out);
    assert!(
        warned.iter().any(|w| w
            == "1 users of c.tsv are not judged in q.tsv and are not evaluated (the first: u9)"),
        "{warned:?}"
    );
    assert_eq!(numbers(&out)["n_users"], 4);
    // Options.
    contains(
        option_err(dir.path(), &["--candidates", "sampled:3"]),
        "--candidates sampled:3:uniform needs --train FILE",
    );
    contains(
        option_err(dir.path(), &["--candidates", "file:c.tsv", "--train", "train.tsv"]),
        "--train is used by --candidates catalog and sampled:N, not file:c.tsv",
    );
    contains(option_err(dir.path(), &["--candidates", "sampled:0"]), "N >= 1");
    contains(
        option_err(dir.path(), &["--candidates", "sampled:2:pop"]),
        "`uniform` or `popularity`",
    );
    contains(
        option_err(
            dir.path(),
            &[
                "--candidates",
                "sampled:2",
                "--train",
                "train.tsv",
                "--write-candidates",
                "no/such/dir/c.tsv",
            ],
        ),
        "writing candidate file no/such/dir/c.tsv",
    );
}

/// `recs` with `args` in `dir`, failing the test with standard error when it fails.
fn recs_ok(dir: &Path, args: &[&str]) -> Output {
    let out = recs().current_dir(dir).args(args).output().unwrap();
    assert!(out.status.success(), "recs {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// MovieLens 100K, leave one out, item popularity (many ties): 100 sampled negatives per
/// user; the written set read back gives the same report; the same bytes on one thread;
/// the mean per-user AUC on uniform samples estimates the full catalog's without bias,
/// and popularity-sampled negatives, being popular, make item popularity look worse.
#[test]
fn movielens_sampled_candidates() {
    let Some(data) = real_data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    recs_ok(
        at,
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
    );
    recs_ok(
        at,
        &[
            "score",
            "--train",
            "train.tsv",
            "--model",
            "item-pop",
            "--qrels",
            "qrels.tsv",
            "--out",
            "run.tsv",
        ],
    );
    let listed = std::fs::read_to_string(at.join("qrels.tsv")).unwrap();
    let graded: String =
        listed.lines().filter(|l| !l.ends_with("\t0")).map(|l| format!("{l}\n")).collect();
    std::fs::write(at.join("graded.tsv"), graded).unwrap();
    let metrics = "roc,user_auc,ndcg@10,r@10,mrr";
    let eval = |policy: &str, extra: &[&str], threads: &str| {
        let mut args =
            vec!["eval", "--qrels", "graded.tsv", "--run", "run.tsv", "--train", "train.tsv"];
        args.extend(["--candidates", policy, "--metrics", metrics, "--json", "--seed", "11"]);
        args.extend_from_slice(extra);
        let out =
            recs().current_dir(at).env("RAYON_NUM_THREADS", threads).args(&args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let uniform = eval("sampled:100", &["--write-candidates", "c.tsv"], "2");
    let v = numbers(&uniform);
    assert_eq!((v["n_users"].as_u64(), v["n_positives"].as_u64()), (Some(943), Some(943)));
    assert_eq!(v["n_candidates"].as_u64(), Some(943 * 101));
    assert!(!warnings(&uniform).iter().any(|w| w.contains("fewer than")));
    let written = std::fs::read(at.join("c.tsv")).unwrap();
    let one_thread = eval("sampled:100", &["--write-candidates", "c1.tsv"], "1");
    assert_eq!(uniform.stdout, one_thread.stdout);
    assert_eq!(written, std::fs::read(at.join("c1.tsv")).unwrap());
    let args = [
        "eval",
        "--qrels",
        "graded.tsv",
        "--run",
        "run.tsv",
        "--candidates",
        "file:c.tsv",
        "--metrics",
        metrics,
        "--json",
    ];
    assert_eq!(numbers(&recs_ok(at, &args)), v);
    let catalog = numbers(&eval("catalog", &[], "2"));
    let auc = |v: &BTreeMap<String, Value>| v["user_auc"].as_f64().unwrap();
    // Each user's sampled AUC has a standard deviation below 0.05; their mean over 943
    // users below 0.0017: 0.01 is six of them.
    assert!(
        (auc(&v) - auc(&catalog)).abs() < 0.01,
        "sampled {} vs catalog {}",
        auc(&v),
        auc(&catalog)
    );
    let popular = numbers(&eval("sampled:100:popularity", &[], "2"));
    assert!(
        auc(&popular) < auc(&v) - 0.05,
        "popularity-sampled {} vs uniform {}",
        auc(&popular),
        auc(&v)
    );
}
