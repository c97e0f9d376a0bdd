//! `recs compare`: several runs on the same qrels, compared the way a reviewer accepts —
//! paired over users, every comparison of the family adjusted, effects with intervals.
//!
//! The runs are read and their per-user metrics computed exactly as `recs eval` does
//! (`values`); the family of comparisons and all its statistics come from
//! `recs_stats::family` (`family` maps the flags onto it); `render` writes the report.
//! Definitions: `docs/statistics.md`; usage: `docs/cli.md`.

mod family;
mod render;
mod values;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use recs_metrics::io::RunFormat;
use recs_metrics::{Metric, TieBreak, ZeroPolicy};

use crate::candidates::Policy;
use crate::reading::Reading;
use family::{Adjust, Test};
use recs_stats::family::{MetricValues, Pairs, Settings};
use render::{OutputFormat, Report};
use values::{MissingRule, NamedRun, Request};

/// Compare several runs on the same qrels: paired tests over users, effect sizes with
/// 95% intervals, p-values adjusted over the family of comparisons, and a table with
/// significance marks.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Qrels, in any form `recs eval --qrels` reads.
    #[arg(long)]
    qrels: PathBuf,
    /// A run to compare, `NAME=PATH` (given at least twice); the file in any form `recs
    /// eval --run` reads. NAME names the run in the report.
    #[arg(long = "run", value_name = "NAME=PATH", value_parser = parse_named_run, required = true)]
    runs: Vec<NamedRun>,
    /// Comma-separated per-user metrics, as `recs eval` names them: p@N, r@N, f1@N,
    /// hit@N, ndcg@K, ndcg_exp@K, ap@K, map, mrr. Each one enlarges the family.
    #[arg(long, value_name = "LIST")]
    metrics: String,
    /// Compare the run named NAME with every other run, instead of all pairs.
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Comma-separated tests: `t` (Student's paired t), `wilcoxon` (signed-rank), `sign`,
    /// `fisher` (randomisation, --permutations), `bootstrap` (paired, --resamples). The
    /// first one marks significance (unless --tukey).
    #[arg(long, value_name = "LIST", value_enum, value_delimiter = ',', default_values = ["t", "fisher"])]
    tests: Vec<Test>,
    /// Sign-flip permutations of Fisher's randomisation test (and of --tukey).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    permutations: usize,
    /// Resamples of the paired bootstrap.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    resamples: usize,
    /// Seed of every randomised statistic (each comparison draws from the seed itself) and
    /// of the negatives of `--candidates sampled:N`.
    #[arg(long, default_value_t = recs_core::DEFAULT_SEED)]
    seed: u64,
    /// Adjustment of each test's p-values over the family of all (pair, metric)
    /// comparisons: `holm`, `bonferroni`, `bh` (Benjamini–Hochberg) or `none`.
    #[arg(long, value_enum, default_value_t = Adjust::Holm)]
    adjust: Adjust,
    /// All pairs only: the randomised Tukey HSD of each metric (--permutations, --seed),
    /// which then marks significance.
    #[arg(long, conflicts_with = "baseline")]
    tukey: bool,
    /// Significance level of the marks.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// A user of the qrels that a run does not score: `error`, or `zero` (scored 0 on
    /// every metric in that run, and said in the report).
    #[arg(long, value_enum, default_value_t = MissingRule::Error)]
    missing: MissingRule,
    /// Output format: `markdown`, `latex`, `csv` or `json`.
    #[arg(long, value_enum, default_value_t = OutputFormat::Markdown)]
    format: OutputFormat,
    /// Write the report to FILE (written beside it and renamed: whole or not at all)
    /// instead of standard output.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Run file format (`recs eval --format`): `auto`, `tsv` or `trec`.
    #[arg(long, default_value_t)]
    run_format: RunFormat,
    /// Which pairs are candidates, as `recs eval --candidates`: `qrels`, `run`, `catalog`,
    /// `sampled:N[:uniform|:popularity]` or `file:FILE` [default: `run` for TREC runs,
    /// `qrels` otherwise].
    #[arg(long, value_name = "POLICY")]
    candidates: Option<Policy>,
    /// The training events: the catalog of `--candidates catalog` and `sampled:N`, and the
    /// items' popularity of the popularity metrics (arp@N, epc@N, miuf@N, ...).
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    #[command(flatten)]
    head: crate::facts::HeadArgs,
    /// A candidate is relevant when its grade is at least this.
    #[arg(long, default_value_t = 1.0)]
    rel_threshold: f32,
    /// Order of equal scores, as `recs eval --ties`.
    #[arg(long, default_value_t)]
    ties: TieBreak,
    /// Users without a relevant candidate, as `recs eval --zero` [default: `zero` with
    /// `--candidates run`, `exclude` otherwise].
    #[arg(long)]
    zero: Option<ZeroPolicy>,
}

/// `NAME=PATH`.
fn parse_named_run(text: &str) -> Result<NamedRun, String> {
    match text.split_once('=') {
        Some((name, path)) if !name.trim().is_empty() && !path.is_empty() => {
            Ok(NamedRun { name: name.trim().to_string(), path: PathBuf::from(path) })
        }
        _ => Err(format!("{text:?}: expected NAME=PATH, a name for the run and its file")),
    }
}

/// The metrics of `--metrics`: per-user means, each once.
fn parse_metrics(text: &str) -> anyhow::Result<Vec<Metric>> {
    let metrics = Metric::parse_list(text)?;
    if metrics.is_empty() {
        anyhow::bail!("--metrics names no metric");
    }
    for (i, metric) in metrics.iter().enumerate() {
        if !metric.is_user_mean() {
            anyhow::bail!(
                "--metrics: {metric} is not a mean of per-user values, so it has no paired \
                 test; recs compare takes the per-user metrics ({})",
                Metric::USER_MEANS
            );
        }
        if metrics[..i].contains(metric) {
            anyhow::bail!("--metrics names {metric} twice");
        }
    }
    Ok(metrics)
}

/// The checks on the options that clap cannot make.
fn check(args: &Args) -> anyhow::Result<()> {
    if args.runs.len() < 2 {
        anyhow::bail!(
            "recs compare needs at least 2 runs (--run NAME=PATH), found {}",
            args.runs.len()
        );
    }
    for (i, run) in args.runs.iter().enumerate() {
        if let Some(first) = args.runs[..i].iter().find(|r| r.name == run.name) {
            anyhow::bail!(
                "two runs are named {:?} ({} and {}): each --run needs its own name",
                run.name,
                first.path.display(),
                run.path.display()
            );
        }
    }
    for (i, test) in args.tests.iter().enumerate() {
        if args.tests[..i].contains(test) {
            anyhow::bail!("--tests names {} twice", recs_stats::family::Test::from(*test));
        }
    }
    if args.permutations == 0 {
        anyhow::bail!("--permutations must be at least 1");
    }
    if args.resamples == 0 {
        anyhow::bail!("--resamples must be at least 1");
    }
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        anyhow::bail!("--alpha {} must lie strictly between 0 and 1", args.alpha);
    }
    Ok(())
}

/// The candidate policy every run is read under: the one asked for, or the one their
/// format implies, which must then be the same for all.
fn common_policy(reading: &Reading<'_>, runs: &[NamedRun]) -> anyhow::Result<Policy> {
    let first = reading.policy(&runs[0].path)?;
    for run in &runs[1..] {
        let policy = reading.policy(&run.path)?;
        if policy != first {
            anyhow::bail!(
                "runs {} and {} are read under different candidate policies ({first} and \
                 {policy}: one is a TREC run); give --candidates",
                runs[0].name,
                run.name
            );
        }
    }
    Ok(first)
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed over it.
fn write_whole(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let writing = || format!("writing {}", path.display());
    let mut file = tempfile::NamedTempFile::new_in(dir).with_context(writing)?;
    file.write_all(text.as_bytes()).with_context(writing)?;
    file.as_file().sync_all().with_context(writing)?;
    file.persist(path).map_err(|e| e.error).with_context(writing)?;
    Ok(())
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    check(&args)?;
    let metrics = parse_metrics(&args.metrics)?;
    let baseline = match &args.baseline {
        None => None,
        Some(name) => Some(args.runs.iter().position(|r| &r.name == name).with_context(|| {
            let names: Vec<&str> = args.runs.iter().map(|r| r.name.as_str()).collect();
            format!("--baseline {name:?} is not a run; the runs are {}", names.join(", "))
        })?),
    };
    let sources = crate::facts::Sources::read(&metrics, args.train.as_deref(), &args.head)?;
    let reading = Reading {
        qrels: &args.qrels,
        train: args.train.as_deref(),
        candidates: args.candidates.as_ref(),
        format: args.run_format,
        seed: args.seed,
        rel_threshold: args.rel_threshold,
        train_for_popularity: sources.reads_train(),
    };
    let policy = common_policy(&reading, &args.runs)?;
    let options = policy.reading().options(args.rel_threshold, args.ties, args.zero);
    let paired = values::paired_values(&Request {
        reading: &reading,
        policy: &policy,
        runs: &args.runs,
        metrics: &metrics,
        options: &options,
        missing: args.missing,
        sources: &sources,
    })?;
    let settings = Settings {
        tests: args.tests.iter().map(|&t| t.into()).collect(),
        adjustment: args.adjust.adjustment(),
        permutations: args.permutations,
        resamples: args.resamples,
        seed: args.seed,
        tukey: args.tukey,
        alpha: args.alpha,
    };
    let pairs = baseline.map_or(Pairs::All, Pairs::Baseline);
    let names: Vec<&str> = args.runs.iter().map(|r| r.name.as_str()).collect();
    let metric_names: Vec<String> = paired.metrics.iter().map(|v| v.metric.to_string()).collect();
    let values: Vec<MetricValues<'_>> = paired
        .metrics
        .iter()
        .zip(&metric_names)
        .map(|(v, name)| MetricValues {
            metric: name,
            systems: &v.systems,
            lower_is_better: v.metric.lower_is_better(),
        })
        .collect();
    let family = recs_stats::family::compare(&values, &names, pairs, &settings)?;
    for warning in paired.warnings.iter().chain(&family.warnings) {
        eprintln!("warning: {warning}");
    }
    let report = Report {
        qrels: &args.qrels,
        runs: &args.runs,
        baseline,
        policy: &policy,
        options: &options,
        missing: args.missing,
        settings: &settings,
        paired: &paired,
        family: &family,
    };
    let text = render::render(&report, args.format)?;
    match &args.output {
        Some(path) => write_whole(path, &text),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).context("writing to standard output")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_named_and_located() {
        let run = parse_named_run("bm25=runs/a=b.tsv").unwrap();
        assert_eq!((run.name.as_str(), run.path.as_path()), ("bm25", Path::new("runs/a=b.tsv")));
        for bad in ["runs/a.tsv", "=a.tsv", "bm25="] {
            assert!(parse_named_run(bad).unwrap_err().contains("NAME=PATH"), "{bad}");
        }
    }

    #[test]
    fn only_per_user_metrics_each_once() {
        assert_eq!(parse_metrics("ndcg@10, map").unwrap(), [Metric::Ndcg(10), Metric::Map]);
        let pooled = parse_metrics("roc").unwrap_err().to_string();
        assert!(pooled.contains("roc is not a mean of per-user values"), "{pooled}");
        assert!(parse_metrics("map,map").unwrap_err().to_string().contains("twice"));
        assert!(parse_metrics(" , ").unwrap_err().to_string().contains("no metric"));
    }
}
