//! `recs run`: a whole experiment (dataset × protocol × models × metrics) from a TOML
//! configuration, written as a report folder. The keys: `docs/runner.md`; examples:
//! `examples/*.toml`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use recs_bench::{Config, Progress, RunOptions, Silent};

/// Run an experiment from a TOML configuration and write its report.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes to --out (default `recs-runs/<name>`): report.json (the report contract), report.md \
(tables, paired comparisons, figures, claims), one SVG per figure, tables/*.csv, \
timings.json (wall times of every fit and evaluation, kept out of the byte-identical \
report), and with `evaluation.save_scores = true`, scores/qrels.tsv and scores/<model>.tsv \
for `recs eval`. With a `[comparison]` section, the paired comparisons are printed after \
the results table.

Every file is written atomically; an interrupted run leaves the previous files intact.")]
pub(crate) struct Args {
    /// The experiment configuration (`examples/*.toml` show every section).
    config: PathBuf,
    /// Output folder.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of every random choice (replaces the configuration's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Only the first split (repetition 0, fold 0).
    #[arg(long)]
    quick: bool,
    /// Folder holding `<dataset>/` folders, searched before RECS_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Keep parsed registered datasets in the user cache (`<cache>/recs/parsed`), so the
    /// next run skips parsing (worth it from MovieLens 1M up).
    #[arg(long)]
    cache_parsed: bool,
    /// Memory of a streamed evaluation's block buffers, in MiB, shared by every thread
    /// (replaces the configuration's `evaluation.memory_budget_mib`; default 1024).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    memory_budget_mib: Option<u64>,
    /// Where streamed evaluations count: `cpu`, `cuda` (an NVIDIA GPU, in a build with
    /// the `cuda` feature) or `cuda-emulator` (the GPU's kernels compiled for the CPU, to
    /// check that path without a GPU); replaces the configuration's `evaluation.device`.
    /// The report is the same byte for byte.
    #[arg(long, value_name = "DEVICE")]
    device: Option<recs_bench::EvalDevice>,
    /// No progress bar and no summary on standard error.
    #[arg(long)]
    quiet: bool,
}

/// A progress bar on standard error.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn begin(&self, total: u64) {
        self.0.set_length(total);
    }

    fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
        self.0.inc(1);
    }
}

/// One line per finished fit on standard error, for logs (no terminal).
struct Lines;

impl Progress for Lines {
    fn step(&self, what: &str) {
        eprintln!("{what}");
    }
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut plan = Config::from_file(&args.config)?.check(&args.config.display().to_string())?;
    if let Some(seed) = args.seed {
        plan = plan.with_seed(seed);
    }
    if let Some(mib) = args.memory_budget_mib {
        plan = plan.with_memory_budget_mib(usize::try_from(mib).unwrap_or(usize::MAX));
    }
    if let Some(device) = args.device {
        plan = plan.with_device(device)?;
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("recs-runs").join(plan.name()));
    let terminal = std::io::stderr().is_terminal() && !args.quiet;
    let options = RunOptions {
        quick: args.quick,
        parsed_cache: args.cache_parsed,
        data_dir: args.data_dir.clone(),
        download_progress: if terminal { crate::data::DownloadBar::on_terminal() } else { None },
    };
    let outcome = if terminal {
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} fits  {msg}")
                .context("progress bar template")?
                .progress_chars("=> "),
        );
        let outcome = recs_bench::run(&plan, &options, &Bar(bar.clone()));
        bar.finish_and_clear();
        outcome?
    } else if args.quiet {
        recs_bench::run(&plan, &options, &Silent)?
    } else {
        recs_bench::run(&plan, &options, &Lines)?
    };
    recs_bench::write_report(&out, &outcome.report, &outcome.extras)
        .with_context(|| format!("writing the report into {}", out.display()))?;
    let mut timings = outcome.results.timings_json();
    if let (Some(peak), Some(object)) = (peak_resident_bytes(), timings.as_object_mut()) {
        object.insert("peak_resident_bytes".into(), peak.into());
    }
    let timings = serde_json::to_string_pretty(&timings)? + "\n";
    let timings_path = out.join("timings.json");
    recs_bench::report::write_atomic(&timings_path, timings.as_bytes())
        .with_context(|| format!("writing {}", timings_path.display()))?;
    if !args.quiet {
        eprintln!(
            "{}: {} split(s), {} model(s) in {:.1} s; report in {}",
            plan.name(),
            outcome.results.n_splits(),
            plan.model_labels().len(),
            start.elapsed().as_secs_f64(),
            out.display()
        );
        for claim in &outcome.report.claims {
            eprintln!("  {} {:<18} {}", claim.id, claim.verdict, claim.measured);
        }
    }
    print_results(&outcome.report);
    for comparison in &outcome.report.comparisons {
        print!("{}", comparison.to_markdown());
    }
    Ok(())
}

/// The results table on standard output.
fn print_results(report: &recs_bench::report::Report) {
    let Some(table) = report.experiments.first().and_then(|e| e.tables.first()) else { return };
    let widths: Vec<usize> = table
        .columns
        .iter()
        .enumerate()
        .map(|(c, name)| {
            table
                .rows
                .iter()
                .map(|r| render(&r[c]).chars().count())
                .max()
                .unwrap_or(0)
                .max(name.chars().count())
        })
        .collect();
    let line = |cells: Vec<String>| {
        let padded: Vec<String> =
            cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(table.columns.clone());
    for row in &table.rows {
        line(row.iter().map(render).collect());
    }
}

fn render(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Number(n) if n.is_f64() => {
            format!("{:.4}", n.as_f64().unwrap_or(f64::NAN))
        }
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".to_string(),
        other => other.to_string(),
    }
}

/// The process's peak resident memory so far, in bytes (`VmHWM` of `/proc/self/status`;
/// `None` where there is no such file).
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
