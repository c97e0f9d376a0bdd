//! `recs eval --user-factors U --item-factors V --train T --qrels Q`: the factors' scores
//! streamed over the full catalog give the `--json` of the same scores listed as a run
//! and evaluated with `--candidates catalog`, for every tie policy; mistakes are errors
//! naming the flag.

use std::path::Path;

use assert_cmd::Command;
use recs_bench::models::latent::FactorModel;
use recs_core::Recommender;

const METRICS: &str = "roc,croc,user_auc,p@5,r@10,ndcg@10,map,mrr,half_life@5";

/// NumPy's `.npy` bytes of a 2-D array: `float32` in C order, or `float64` in Fortran
/// order (column after column).
fn npy(rows: usize, columns: usize, values: &[f32], fortran: bool) -> Vec<u8> {
    let (descr, order) = if fortran { ("<f8", "True") } else { ("<f4", "False") };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({rows}, {columns}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    if fortran {
        for c in 0..columns {
            for r in 0..rows {
                bytes.extend(f64::from(values[r * columns + c]).to_le_bytes());
            }
        }
    } else {
        bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    }
    bytes
}

/// Factors with ties: multiples of 1/4 between -1 and 1.
fn factors(n: usize, salt: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7 + salt * 13) % 9) as f32 / 4.0 - 1.0).collect()
}

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }
}

/// 30 users, 40 items, rank 3: the factor files, the training and test files, and the
/// run listing the score of every candidate.
fn files() -> Files {
    let (n_users, n_items, rank) = (30, 40, 3);
    let dir = tempfile::tempdir().unwrap();
    let (users, items) = (factors(n_users * rank, 1), factors(n_items * rank, 2));
    std::fs::write(dir.path().join("U.npy"), npy(n_users, rank, &users, false)).unwrap();
    std::fs::write(dir.path().join("V.npy"), npy(n_items, rank, &items, true)).unwrap();
    let model = FactorModel::new(n_users, n_items, rank, users, items).unwrap();
    let (mut train, mut qrels, mut run) = (String::new(), String::new(), String::new());
    for u in 0..n_users {
        let known: Vec<usize> = (0..n_items).filter(|i| (i * 3 + u) % 7 == 0).collect();
        for &i in &known {
            train.push_str(&format!("{u}\t{i}\n"));
        }
        // Two graded items, one of them a training item (reported, not a candidate).
        let fresh = (0..n_items).map(|k| (u * 5 + 1 + k) % n_items).find(|i| !known.contains(i));
        for (i, grade) in [(fresh.unwrap(), 2), (known[0], 1)] {
            qrels.push_str(&format!("{u}\t{i}\t{grade}\n"));
        }
        for i in (0..n_items).filter(|i| !known.contains(i)) {
            let mut score = [0.0f32];
            model.score(u as u32, &[i as u32], &mut score).unwrap();
            run.push_str(&format!("{u}\t{i}\t{}\n", score[0]));
        }
    }
    for (name, text) in [("train.tsv", train), ("qrels.tsv", qrels), ("run.tsv", run)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    Files { dir }
}

fn recs(args: &[&str], paths: &[(&str, &Path)]) -> std::process::Output {
    let mut command = Command::cargo_bin("recs").unwrap();
    command.arg("eval");
    for (flag, path) in paths {
        command.arg(flag).arg(path);
    }
    command.args(args).output().unwrap()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `--json` of `args` on the listed run, and on the factor files `users` and `items`.
fn listed_and_streamed(
    f: &Files,
    args: &[&str],
    users: &Path,
    items: &Path,
) -> (serde_json::Value, serde_json::Value) {
    let (qrels, train, run) = (f.path("qrels.tsv"), f.path("train.tsv"), f.path("run.tsv"));
    let listed = recs(
        &[args, &["--candidates", "catalog"]].concat(),
        &[("--qrels", &qrels), ("--train", &train), ("--run", &run)],
    );
    let streamed = recs(
        args,
        &[
            ("--qrels", &qrels),
            ("--train", &train),
            ("--user-factors", users),
            ("--item-factors", items),
        ],
    );
    (json(&listed), json(&streamed))
}

#[test]
fn factors_give_the_json_of_their_scores_listed() {
    let f = files();
    let (users, items) = (f.path("U.npy"), f.path("V.npy"));
    for ties in ["expected", "item-ascending", "item-descending"] {
        let args = ["--metrics", METRICS, "--ties", ties, "--json", "--intervals"];
        let (listed, streamed) = listed_and_streamed(&f, &args, &users, &items);
        assert_eq!(listed, streamed, "ties {ties}");
        assert!(streamed["warnings"][0].as_str().unwrap().contains("30 graded pairs"));
    }
}

/// The metrics that read each user's top-N list (popularity, novelty, diversity,
/// calibration, exposure) streamed from factors equal those of the same scores listed,
/// under every tie policy (the factors' scores tie often).
#[test]
fn list_metrics_from_factors_equal_those_of_the_listed_scores() {
    let f = files();
    let mut attributes = String::from("item\trank\tattribute\n");
    // Items 35..39 have no attribute.
    for i in 0..35 {
        attributes.push_str(&format!("{i}\t1\tg{}\n", i % 4));
        if i % 3 == 0 {
            attributes.push_str(&format!("{i}\t2\th{}\n", i % 5));
        }
    }
    std::fs::write(f.path("attributes.tsv"), attributes).unwrap();
    let attributes = f.path("attributes.tsv");
    let attributes = attributes.to_str().unwrap();
    let (users, items) = (f.path("U.npy"), f.path("V.npy"));
    let metrics = "ndcg@10,coverage@5,arp@5,aplt@5,aclt@5,epc@5,efd_flat@5,miuf@5,\
                   serendipity@5,ild@5,ild_disc@5,miscal@5,gini@5,entropy@5,popreo@5,poprsp@5";
    for ties in ["expected", "item-ascending", "item-descending"] {
        let args = [
            "--metrics",
            metrics,
            "--ties",
            ties,
            "--attributes",
            attributes,
            "--head-items",
            "8",
            "--json",
        ];
        let (listed, streamed) = listed_and_streamed(&f, &args, &users, &items);
        assert_eq!(listed, streamed, "ties {ties}");
        for key in ["gini@5", "ild@5", "ild_disc@5", "miscal@5", "popreo@5"] {
            assert!(streamed[key].as_f64().is_some_and(f64::is_finite), "{key}: {streamed}");
        }
    }
    let paths = [
        ("--qrels", f.path("qrels.tsv")),
        ("--train", f.path("train.tsv")),
        ("--user-factors", users.clone()),
        ("--item-factors", items.clone()),
    ];
    let paths: Vec<(&str, &Path)> = paths.iter().map(|(k, p)| (*k, p.as_path())).collect();
    let out = recs(&["--metrics", "arp@5", "--device", "cuda"], &paths);
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && message.contains("arp@5 reads each user's top-N list"));
}

#[test]
fn mistakes_are_errors_naming_the_flag() {
    let f = files();
    let (qrels, train, users) = (f.path("qrels.tsv"), f.path("train.tsv"), f.path("U.npy"));
    let err = |paths: &[(&str, &Path)], args: &[&str]| {
        let out = recs(args, paths);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Rank 2 items against rank 3 users.
    std::fs::write(f.path("V2.npy"), npy(40, 2, &factors(80, 3), false)).unwrap();
    let base = [
        ("--qrels", qrels.as_path()),
        ("--train", train.as_path()),
        ("--user-factors", users.as_path()),
    ];
    let message =
        err(&[&base[..], &[("--item-factors", f.path("V2.npy").as_path())]].concat(), &[]);
    assert!(message.contains("same rank"), "{message}");
    // 20 item rows: the items 20..39 of the train and qrels files have none.
    std::fs::write(f.path("V20.npy"), npy(20, 3, &factors(60, 3), false)).unwrap();
    let message =
        err(&[&base[..], &[("--item-factors", f.path("V20.npy").as_path())]].concat(), &[]);
    assert!(
        message.contains("--train: item `") && message.contains("has no row in --item-factors"),
        "{message}"
    );
    let mut nan = factors(120, 2);
    nan[7] = f32::NAN;
    std::fs::write(f.path("Vnan.npy"), npy(40, 3, &nan, false)).unwrap();
    let message =
        err(&[&base[..], &[("--item-factors", f.path("Vnan.npy").as_path())]].concat(), &[]);
    assert!(
        message.contains("--item-factors") && message.contains("row 2, dimension 1 is NaN"),
        "{message}"
    );
    let items = f.path("V.npy");
    let with_items = [&base[..], &[("--item-factors", items.as_path())]].concat();
    let message = err(&with_items, &["--compare", "x"]);
    assert!(message.contains("does not take --compare"), "{message}");
}

/// `--device cuda` gives the CPU's JSON on a GPU, and otherwise says why it cannot (a
/// build without GPU support, or no driver or GPU on this machine).
#[test]
fn device_cuda_gives_the_cpu_json_or_says_why_not() {
    let f = files();
    let (qrels, train) = (f.path("qrels.tsv"), f.path("train.tsv"));
    let (users, items) = (f.path("U.npy"), f.path("V.npy"));
    let paths = [
        ("--qrels", qrels.as_path()),
        ("--train", train.as_path()),
        ("--user-factors", users.as_path()),
        ("--item-factors", items.as_path()),
    ];
    let args = ["--metrics", METRICS, "--json", "--ties", "item-descending"];
    let cpu = json(&recs(&args, &paths));
    let gpu = recs(&[&args[..], &["--device", "cuda"]].concat(), &paths);
    if gpu.status.success() {
        assert_eq!(json(&gpu), cpu);
    } else {
        let message = String::from_utf8_lossy(&gpu.stderr);
        assert!(
            message.contains("--device cuda")
                && (message.contains("without GPU support") || message.contains("no CUDA device")),
            "{message}"
        );
    }
    // The GPU's kernels compiled for the CPU: the GPU path, end to end, without a GPU.
    let emulated = recs(&[&args[..], &["--device", "cuda-emulator"]].concat(), &paths);
    if cfg!(feature = "cuda") {
        assert_eq!(json(&emulated), cpu, "the emulated GPU path");
    } else {
        let message = String::from_utf8_lossy(&emulated.stderr);
        assert!(message.contains("without GPU support"), "{message}");
    }
    let out = recs(&[&args[..], &["--device", "tpu"]].concat(), &paths);
    assert!(String::from_utf8_lossy(&out.stderr).contains("`cpu`, `cuda` or `cuda-emulator`"));
}

/// A Parquet file of factors (`rank` per row, row-major in `values`): a column `id` (named
/// so) with the rows in reverse order, and the factors as one list column (`as_list`) or as one
/// column per dimension.
fn parquet_factors(path: &Path, id: &str, rank: usize, values: &[f32], as_list: bool) {
    use arrow_array::builder::{Float32Builder, ListBuilder};
    use arrow_array::{ArrayRef, Float32Array, Int64Array, RecordBatch};
    use std::sync::Arc;

    let order: Vec<usize> = (0..values.len() / rank).rev().collect();
    let mut columns: Vec<(String, ArrayRef)> =
        vec![(id.into(), Arc::new(Int64Array::from_iter_values(order.iter().map(|&r| r as i64))))];
    if as_list {
        let mut lists = ListBuilder::new(Float32Builder::new());
        for &r in &order {
            lists.values().append_slice(&values[r * rank..(r + 1) * rank]);
            lists.append(true);
        }
        columns.push(("factors".into(), Arc::new(lists.finish())));
    } else {
        for d in 0..rank {
            let column =
                Float32Array::from_iter_values(order.iter().map(|&r| values[r * rank + d]));
            columns.push((format!("f{d}"), Arc::new(column)));
        }
    }
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn parquet_factors_name_their_rows_by_id() {
    let f = files();
    let (qrels, train) = (f.path("qrels.tsv"), f.path("train.tsv"));
    // The same factors as U.npy and V.npy: the users as a list column, the items as one
    // column per dimension, both in reverse row order.
    parquet_factors(&f.path("U.parquet"), "id", 3, &factors(30 * 3, 1), true);
    parquet_factors(&f.path("V.parquet"), "id", 3, &factors(40 * 3, 2), false);
    let args = ["--metrics", METRICS, "--json"];
    let (users, items) = (f.path("U.parquet"), f.path("V.parquet"));
    let (listed, streamed) = listed_and_streamed(&f, &args, &users, &items);
    assert_eq!(listed, streamed);
    // A file without the `id` column is refused, naming the flag and the columns it has.
    let bad = f.path("bad.parquet");
    parquet_factors(&bad, "item", 3, &factors(40 * 3, 2), false);
    let out = recs(
        &args,
        &[
            ("--qrels", &qrels),
            ("--train", &train),
            ("--user-factors", &users),
            ("--item-factors", &bad),
        ],
    );
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        message.contains("bad.parquet: no column `id` (columns: item, f0, f1, f2)"),
        "{message}"
    );
}

/// `--sampled-vs-exact` on factors streams the full catalog and gives the numbers, orders
/// and warnings of the same scores listed as a run, for uniform and popularity draws (the
/// factors' scores tie often, so the tie averages are exercised).
#[test]
fn sampled_vs_exact_from_factors_equals_that_of_the_listed_scores() {
    let f = files();
    let (users, items) = (f.path("U.npy"), f.path("V.npy"));
    for draw in ["4", "6:popularity"] {
        let args = ["--sampled-vs-exact", draw, "--seeds", "3", "--seed", "9", "--json"];
        let (qrels, train, run) = (f.path("qrels.tsv"), f.path("train.tsv"), f.path("run.tsv"));
        let listed =
            json(&recs(&args, &[("--qrels", &qrels), ("--train", &train), ("--run", &run)]));
        let streamed = json(&recs(
            &[&args[..], &["--memory-budget-mib", "1"]].concat(),
            &[
                ("--qrels", &qrels),
                ("--train", &train),
                ("--user-factors", &users),
                ("--item-factors", &items),
            ],
        ));
        let without_names = |mut v: serde_json::Value| {
            for run in v["runs"].as_array_mut().unwrap() {
                run.as_object_mut().unwrap().remove("run");
            }
            v
        };
        assert_eq!(streamed["n_instances"], 30, "{streamed}");
        assert_eq!(without_names(listed), without_names(streamed.clone()), "draw {draw}");
        let name = streamed["runs"][0]["run"].as_str().unwrap();
        assert!(name.contains("U.npy") && name.contains("V.npy"), "{name}");
    }
    let out = recs(
        &["--sampled-vs-exact", "4", "--device", "cuda"],
        &[
            ("--qrels", &f.path("qrels.tsv")),
            ("--train", &f.path("train.tsv")),
            ("--user-factors", &users),
            ("--item-factors", &items),
        ],
    );
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && message.contains("--device other than cpu"), "{message}");
}
