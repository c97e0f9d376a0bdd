//! `recs run` end to end: every shipped example on the real data (through
//! `RECS_DATA_DIR`), checked against the report contract; `recs run` and `recs eval`
//! agreeing on saved scores; determinism across thread counts; configuration errors.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use recs_bench::report::{CurveKind, Report};
use recs_metrics::trapezoid;
use recs_testkit::real_data_dir;
use serde_json::Value;

fn recs() -> Command {
    Command::cargo_bin("recs").unwrap()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_path_buf()
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Runs `recs run config --out out [extra]`, failing the test with stderr on error.
fn run(config: &Path, out: &Path, extra: &[&str]) {
    let output = recs()
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        config.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Polylines drawn in a colour: the curves (axes and ticks are black).
fn coloured_polylines(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("an SVG that parses as XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter(|n| n.attribute("stroke").is_some_and(|s| s != "#000000"))
        .count()
}

/// The contract a reader relies on, checked independently of `Report::validate`.
fn check_contract(name: &str, dir: &Path) -> Report {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let raw: Value = serde_json::from_str(&text).unwrap();
    for claim in raw["claims"].as_array().unwrap() {
        let verdict = claim["verdict"].as_str().unwrap_or_default();
        assert!(
            ["holds", "fails", "inconclusive", "untestable", "depends-on-reading"]
                .contains(&verdict),
            "{name}: claim without one of the five verdicts: {claim}"
        );
        assert!(claim["readings"][0]["tests"][0]["effect"]["low"].is_number(), "{name}: {claim}");
    }
    let report: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(report.validate(), Vec::<String>::new(), "{name}");
    assert_eq!(report.paper, name);
    // Wall times beside the report: one entry per model and split.
    let timings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("timings.json")).unwrap()).unwrap();
    let models = timings["models"].as_array().unwrap();
    assert!(!models.is_empty(), "{name}: timings without models");
    for model in models {
        let splits = model["splits"].as_array().unwrap();
        assert!(!splits.is_empty(), "{name}: no timed split for {}", model["label"]);
        for split in splits {
            for key in ["fit_seconds", "evaluation_seconds"] {
                assert!(split[key].as_f64().unwrap() >= 0.0, "{name}: {key} in {split}");
            }
            assert!(split["streamed"].is_boolean());
        }
    }
    let experiment = &report.experiments[0];
    for curve in &experiment.curves {
        let first = curve.points.first().unwrap();
        let last = curve.points.last().unwrap();
        assert_eq!(*first, [0.0, 0.0], "{name} {}: first point", curve.model);
        assert!(
            (last[0] - 1.0).abs() < 1e-12 && (last[1] - 1.0).abs() < 1e-12,
            "{name} {}: last point {last:?}",
            curve.model
        );
        assert!(
            (trapezoid(&curve.points) - curve.auc).abs() < 1e-12,
            "{name} {}: auc {} is not the trapezoid of its points",
            curve.model,
            curve.auc
        );
    }
    // One coloured polyline per curve in each ROC/CROC figure.
    for (kind, suffix) in [(CurveKind::Roc, "roc"), (CurveKind::Croc, "croc")] {
        let n = experiment.curves.iter().filter(|c| c.kind == kind).count();
        let svg = dir.join(format!("{name}-{suffix}.svg"));
        if n == 0 {
            assert!(!svg.exists(), "{name}: {suffix} figure without curves");
            continue;
        }
        let svg = std::fs::read_to_string(svg).unwrap();
        assert_eq!(coloured_polylines(&svg), n, "{name}: {suffix} figure");
    }
    // Every other figure parses; every table has its CSV.
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
    let csvs = std::fs::read_dir(dir.join("tables")).unwrap().count();
    let families = report.comparisons.iter().filter(|c| c.experiment == experiment.id).count();
    assert_eq!(csvs, experiment.tables.len() + families, "{name}: one CSV per table");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.starts_with(&format!("# {name} — report")), "{name}: report.md");
    report
}

/// Values of `model` on the first split, from the per-split table.
fn first_split_values(report: &Report, model: &str) -> Vec<(String, Value)> {
    let table = report.experiments[0].tables.iter().find(|t| t.name == "Per split").unwrap();
    let row = table.rows.iter().find(|r| r[0] == model && r[1] == 0 && r[2] == 0).unwrap();
    table.columns.iter().cloned().zip(row.iter().cloned()).skip(5).collect()
}

#[test]
fn every_example_runs_and_meets_the_report_contract() {
    if real_data_dir().is_none() {
        return;
    }
    let examples = examples();
    assert!(examples.len() >= 4, "examples/*.toml: {examples:?}");
    let tmp = tempfile::tempdir().unwrap();
    for config in &examples {
        let name = config.file_stem().unwrap().to_str().unwrap();
        let out = tmp.path().join(name);
        let start = std::time::Instant::now();
        run(config, &out, &[]);
        eprintln!("{name}: {:.1} s", start.elapsed().as_secs_f64());
        let report = check_contract(name, &out);
        assert!(!report.experiments[0].tables.is_empty());
        assert!(!report.quick);

        // Saved scores give the same numbers through `recs eval`.
        if out.join("scores/qrels.tsv").exists() {
            let metrics = report_metrics(config);
            let models = saved_models(&out);
            assert!(!models.is_empty());
            for model in models {
                let mut eval = recs();
                eval.args(["eval", "--json", "--metrics", &metrics])
                    .arg("--qrels")
                    .arg(out.join("scores/qrels.tsv"))
                    .arg("--run")
                    .arg(out.join(format!("scores/{model}.tsv")));
                // The training events the popularity metrics read, saved beside them.
                if out.join("scores/train.tsv").exists() {
                    eval.arg("--train").arg(out.join("scores/train.tsv"));
                }
                // And the item attributes intra-list diversity reads.
                if out.join("scores/attributes.tsv").exists() {
                    eval.arg("--attributes").arg(out.join("scores/attributes.tsv"));
                }
                let output = eval.output().unwrap();
                assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
                let eval: Value = serde_json::from_slice(&output.stdout).unwrap();
                for (key, value) in first_split_values(&report, &model) {
                    assert_eq!(eval[&key], value, "{name} {model} {key}: recs eval vs recs run");
                }
            }
        }
    }
}

/// The `evaluation.metrics` of a configuration, comma-joined.
fn report_metrics(config: &Path) -> String {
    let parsed = recs_bench::Config::from_file(config).unwrap();
    parsed.evaluation.metrics.join(",")
}

fn saved_models(out: &Path) -> Vec<String> {
    let mut models: Vec<String> = std::fs::read_dir(out.join("scores"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_str().unwrap().to_string())
        .filter(|m| !["qrels", "train", "attributes"].contains(&m.as_str()))
        .collect();
    models.sort();
    models
}

/// `examples/ml100k-strong.toml`, when the real data it reads is present.
fn ml100k_strong_example() -> Option<PathBuf> {
    real_data_dir()?;
    Some(workspace_root().join("examples/ml100k-strong.toml"))
}

#[test]
fn reports_are_byte_identical_for_any_thread_count() {
    let Some(config) = ml100k_strong_example() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one");
    let many = tmp.path().join("many");
    let output = recs()
        .env("RAYON_NUM_THREADS", "1")
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&one)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    run(&config, &many, &["--seed", "7"]);
    let read = |dir: &Path| std::fs::read(dir.join("report.json")).unwrap();
    assert_eq!(read(&one), read(&many), "report.json differs between 1 and many threads");
    // A different seed draws other splits.
    let other = tmp.path().join("other");
    run(&config, &other, &["--seed", "8", "--quick"]);
    let report: Report = serde_json::from_slice(&read(&other)).unwrap();
    assert_eq!(report.seed, 8);
    assert!(report.quick);
    assert_eq!(report.experiments[0].tables[1].rows.len(), 1, "--quick runs one split");
}

/// `--device cuda-emulator` (the GPU path, its kernels compiled for the CPU) writes the
/// report of the CPU, byte for byte: on MovieLens 100K's ratings example (PureSVD and ALS
/// scored from their factors, the other models' scores from the host) and its strong
/// generalization example (test users folded in: every model's scores from the host). A
/// build without GPU support refuses it before any work.
#[test]
fn the_emulated_gpu_path_writes_the_cpu_report() {
    let Some(strong) = ml100k_strong_example() else { return };
    let ratings = workspace_root().join("examples/ml100k-ratings.toml");
    let tmp = tempfile::tempdir().unwrap();
    for (k, config) in [strong, ratings].iter().enumerate() {
        let (cpu, gpu) = (tmp.path().join(format!("cpu{k}")), tmp.path().join(format!("gpu{k}")));
        run(config, &cpu, &["--quick"]);
        let args = ["--quick", "--device", "cuda-emulator"];
        if cfg!(feature = "cuda") {
            run(config, &gpu, &args);
            let read = |dir: &Path| std::fs::read(dir.join("report.json")).unwrap();
            assert_eq!(read(&cpu), read(&gpu), "{}: report.json differs", config.display());
        } else {
            let output =
                recs().arg("run").arg(config).arg("--out").arg(&gpu).args(args).output().unwrap();
            assert!(!output.status.success());
            assert!(String::from_utf8_lossy(&output.stderr).contains("no GPU support"));
        }
    }
}

fn failing_run(config_text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("bad.toml");
    std::fs::write(&config, config_text).unwrap();
    let output =
        recs().arg("run").arg(&config).arg("--out").arg(tmp.path().join("out")).output().unwrap();
    assert!(!output.status.success());
    assert!(!tmp.path().join("out").exists(), "nothing is written on error");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const GOOD: &str = include_str!("configs/good.toml");

#[test]
fn configuration_errors_name_the_file_and_key() {
    let stderr = failing_run(&GOOD.replace("rank = 10", "rank = 0"));
    assert!(stderr.contains("bad.toml") && stderr.contains("models[0].params.rank"), "{stderr}");
    let stderr = failing_run(&GOOD.replace("test_fraction", "test_fractoin"));
    assert!(stderr.contains("`protocol`") && stderr.contains("test_fractoin"), "{stderr}");
    assert!(stderr.contains("test_fraction"), "the allowed key is named: {stderr}");
    let stderr = failing_run(&GOOD.replace("[dataset]", "[dataset]\nformat = \"csv\""));
    assert!(stderr.contains("dataset.format") && stderr.contains("delimiter"), "{stderr}");
    let stderr = failing_run(&format!("{GOOD}\n[judgments]\nmode = \"ratings:4\"\n"));
    assert!(stderr.contains("judgments.mode") && stderr.contains("conditional:T"), "{stderr}");
    // A comparison is checked with the rest, before any data is read or model fitted.
    let two = format!("{GOOD}[[models]]\nname = \"random\"\n[comparison]\n");
    let stderr = failing_run(&format!("{two}baseline = \"pop\"\n"));
    assert!(
        stderr.contains("`comparison.baseline`") && stderr.contains("puresvd, random"),
        "{stderr}"
    );
    let stderr = failing_run(&format!("{two}tests = [\"t\", \"welch\"]\n"));
    assert!(stderr.contains("`comparison.tests[1]`") && stderr.contains("wilcoxon"), "{stderr}");
    let stderr = failing_run(&format!("{two}metrics = [\"roc\"]\n"));
    assert!(stderr.contains("`comparison.metrics[0]`") && stderr.contains("no paired"), "{stderr}");
}

/// Three fast models, compared with item popularity over the users of each split.
const COMPARED: &str = r#"
name = "compared"
[dataset]
name = "ml-100k"
[protocol]
protocol = "leave-k-out"
k = "20%"
[evaluation]
metrics = ["roc", "ndcg@10"]
[[models]]
name = "item-pop"
[[models]]
name = "item-knn"
params = { k = 20, similarity = "cosine" }
[[models]]
name = "random"
[comparison]
baseline = "item-pop"
permutations = 1000
"#;

#[test]
fn a_comparison_is_printed_and_written_with_the_report() {
    if real_data_dir().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("compared.toml");
    std::fs::write(&config, COMPARED).unwrap();
    let out = tmp.path().join("compared");
    let output =
        recs().arg("run").arg(&config).arg("--out").arg(&out).arg("--quiet").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let heading = "**Paired comparisons over users: 2 comparisons: 2 pairs × 1 metric, Holm**";
    assert!(stdout.contains(heading), "{stdout}");
    assert!(stdout.contains("| 0/0 | ndcg@10 | random − item-pop |"), "{stdout}");
    let report = check_contract("compared", &out);
    let family = &report.comparisons[0];
    assert_eq!((family.experiment.as_str(), family.rows.len()), ("compared", 2));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(heading), "{md}");
    let csv = std::fs::read_to_string(out.join("tables/compared-comparisons.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn a_delimited_file_runs_without_registered_data() {
    let tmp = tempfile::tempdir().unwrap();
    // 30 users × 12 items, each user rating 8 items; items of low index are popular.
    let mut lines = String::from("user,item,rating\n");
    for u in 0..30 {
        for k in 0..8 {
            let item = (u * 7 + k * k) % 12;
            if !lines.contains(&format!("\nu{u},i{item},")) {
                lines.push_str(&format!("u{u},i{item},{}\n", 1 + (u + k) % 5));
            }
        }
    }
    std::fs::write(tmp.path().join("ratings.csv"), &lines).unwrap();
    let config = tmp.path().join("small.toml");
    std::fs::write(
        &config,
        r#"
name = "small"
repetitions = 3
[dataset]
file = "ratings.csv"
delimiter = ","
header = true
[protocol]
protocol = "leave-k-out"
k = 2
[judgments]
mode = "rating:3"
[evaluation]
metrics = ["roc", "p@3", "ndcg@3"]
[[models]]
name = "item-pop"
[[models]]
name = "random"
"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    run(&config, &out, &[]);
    let report = check_contract("small", &out);
    let splits = &report.experiments[0].tables[1];
    assert_eq!(splits.rows.len(), 3, "three repetitions");
    // Every user holds out exactly two ratings.
    for row in &splits.rows {
        assert_eq!(row[3], 60, "test events of {row:?}");
    }
    let results = &report.experiments[0].tables[0];
    assert_eq!(results.rows.len(), 2);
    // Three splits give a t interval for every defined metric.
    assert!(results.rows.iter().all(|r| r[3].is_number()), "{results:?}");
}

#[test]
fn a_parsed_dataset_cache_is_written_and_gives_the_same_report() {
    let Some(config) = ml100k_strong_example() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let report = |out: &Path| {
        let output = recs()
            .env("XDG_CACHE_HOME", &cache)
            .args(["run", "--quiet", "--quick", "--cache-parsed"])
            .arg(&config)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        std::fs::read(out.join("report.json")).unwrap()
    };
    let first = report(&tmp.path().join("first"));
    let stored: Vec<_> = std::fs::read_dir(cache.join("recs/parsed")).unwrap().collect();
    assert_eq!(stored.len(), 1, "one parsed dataset stored");
    let second = report(&tmp.path().join("second"));
    assert_eq!(first, second, "the cached dataset gives the same report");
}

/// Memory a streamed run holds besides its evaluation's block buffers, at this test's
/// size: the binary, the data and split, the model, per-user results, with room for the
/// allocator. Measured (release build): 72 MiB at one thread and 73 MiB at sixteen with
/// the 32 MiB budget; 90 MiB and 458 MiB before the budget, when every rayon task of
/// the evaluation kept its own block buffers and partial state.
const BASE_MEMORY_MIB: u64 = 150;

#[test]
fn a_streamed_run_on_sixteen_threads_stays_within_its_memory_budget() {
    // 400,000 power-law events on 4,000 users × 20,000 items: 8·10^7 candidates streamed.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("events.tsv");
    let output = recs()
        .args(["data", "synth", "--users", "4000", "--items", "20000", "--events", "400000"])
        .args(["--seed", "1", "--out"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let config = tmp.path().join("stream.toml");
    let budget_mib = 32;
    std::fs::write(
        &config,
        format!(
            "name = \"budget\"\n[dataset]\nfile = \"events.tsv\"\n\
             [protocol]\nprotocol = \"leave-k-out\"\nk = \"20%\"\n\
             [evaluation]\nmetrics = [\"roc\", \"ndcg@10\"]\nmemory_budget_mib = {budget_mib}\n\
             [[models]]\nname = \"puresvd\"\nparams = {{ rank = 16 }}\n"
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let output = recs()
        .env("RAYON_NUM_THREADS", "16")
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let timings: Value =
        serde_json::from_slice(&std::fs::read(out.join("timings.json")).unwrap()).unwrap();
    assert_eq!(timings["models"][0]["splits"][0]["streamed"], true);
    // Linux only: the peak resident size comes from /proc/self/status.
    let Some(peak) = timings["peak_resident_bytes"].as_u64() else { return };
    let peak_mib = peak >> 20;
    eprintln!("peak resident memory at 16 threads: {peak_mib} MiB");
    assert!(
        peak_mib <= BASE_MEMORY_MIB + budget_mib,
        "peak {peak_mib} MiB above the budget {budget_mib} MiB + base {BASE_MEMORY_MIB} MiB"
    );
}
