//! What every reproduction shares: options, progress lines, reading a paper's experiment
//! files, and writing the report folder. Loading, splitting, model selection, scoring,
//! evaluation, figures and report assembly are the runner's (`recs_bench`); a paper
//! module holds only its experiment list, its own tables and claims, and its check.

pub(crate) mod cremonesi2008;
pub(crate) mod fastml2015;
pub(crate) mod ignatov2010;
pub(crate) mod krichene2020;
pub(crate) mod schein2005;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use recs_bench::report::{Report, Table};
use recs_bench::{Config, Extras, Plan, RunOptions, Session};

/// Command-line options shared by every reproduction.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// CI-sized run.
    pub(crate) quick: bool,
    /// Output root; each paper writes into `out/<paper>/`.
    pub(crate) out: PathBuf,
    /// Seed of every random choice.
    pub(crate) seed: u64,
    /// Explicit data folder (first in the resolution order).
    pub(crate) data_dir: Option<PathBuf>,
    /// The commit the run starts from ([`source_commit`]), read before any work so that
    /// files edited while a long run goes on do not mark its report.
    pub(crate) commit: Option<String>,
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Self> {
        let mut options = Options {
            quick: false,
            out: PathBuf::from("target/reproduce"),
            seed: recs_core::DEFAULT_SEED,
            data_dir: None,
            commit: source_commit(),
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value =
                |name: &str| it.next().cloned().with_context(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--out" => options.out = PathBuf::from(value("--out")?),
                "--seed" => {
                    let text = value("--seed")?;
                    options.seed = text
                        .parse()
                        .with_context(|| format!("--seed {text}: expected an integer"))?;
                }
                "--data-dir" => options.data_dir = Some(PathBuf::from(value("--data-dir")?)),
                other => bail!(
                    "unknown option `{other}` (known: --quick, --out DIR, --seed N, --data-dir DIR)"
                ),
            }
        }
        Ok(options)
    }

    /// A runner session: datasets from `--data-dir`, then `RECS_DATA_DIR`, then the user
    /// cache, then the official download (verified by sha256).
    pub(crate) fn session(&self) -> Session {
        self.session_with(self.quick)
    }

    /// A runner session that runs every split (`quick = false`) or only the first, whatever
    /// `--quick` says: for a paper whose quick run shortens an experiment itself.
    pub(crate) fn session_with(&self, quick: bool) -> Session {
        Session::new(&RunOptions {
            quick,
            data_dir: self.data_dir.clone(),
            download_progress: Some(std::sync::Arc::new(DownloadLines)),
            ..RunOptions::default()
        })
    }

    /// The same resolution order, for reading a dataset outside a runner session.
    pub(crate) fn resolver(&self) -> recs_data::Resolver {
        recs_data::Resolver::from_env().with_data_dir(self.data_dir.clone())
    }

    /// The experiment `xtask/experiments/<paper>/<name>.toml`, checked, with this run's
    /// seed.
    pub(crate) fn plan(&self, paper: &str, name: &str) -> Result<Plan> {
        let (config, source) = self.config(paper, name)?;
        self.checked(&config, &source)
    }

    /// The experiment file unchecked, with its path for errors: for a paper that varies
    /// one of its settings before checking it ([`Options::checked`]).
    pub(crate) fn config(&self, paper: &str, name: &str) -> Result<(Config, String)> {
        let path = experiments_dir().join(paper).join(format!("{name}.toml"));
        Ok((Config::from_file(&path)?, path.display().to_string()))
    }

    /// `config` checked (errors name `source`), with this run's seed.
    pub(crate) fn checked(&self, config: &Config, source: &str) -> Result<Plan> {
        Ok(config.check(source)?.with_seed(self.seed))
    }
}

/// `xtask/experiments/`: each paper's experiments as `recs run` configurations.
fn experiments_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments")
}

/// Downloads announced on standard error (a reproduction's log, not a terminal bar).
#[derive(Debug)]
struct DownloadLines;

impl recs_data::DownloadProgress for DownloadLines {
    fn start(&self, name: &str, total_bytes: Option<u64>) {
        let size = total_bytes.map_or(String::new(), |b| format!(" ({:.1} MB)", b as f64 / 1e6));
        eprintln!("downloading {name}{size}");
    }

    fn advance(&self, _bytes: u64) {}

    fn finish(&self) {
        eprintln!("download finished");
    }
}

/// Progress lines on standard error, with elapsed time.
pub(crate) struct Lines {
    start: Instant,
}

impl Lines {
    pub(crate) fn new() -> Self {
        Lines { start: Instant::now() }
    }

    pub(crate) fn say(&self, what: impl std::fmt::Display) {
        eprintln!("[{:>7.1}s] {what}", self.start.elapsed().as_secs_f64());
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

impl recs_bench::Progress for Lines {
    fn step(&self, what: &str) {
        self.say(what);
    }
}

/// One problem line per claim of `ids` that `report` does not evaluate (for a paper's
/// `check`).
pub(crate) fn unevaluated_claims(report: &Report, ids: &[&str]) -> Vec<String> {
    ids.iter()
        .filter(|id| !report.claims.iter().any(|c| c.id == **id))
        .map(|id| format!("claim {id} was not evaluated"))
        .collect()
}

/// Every claim of `report` that breaks the provenance rules: a reading without its
/// choices, a "the paper's" tag without the paper's text or code behind every choice that
/// matters, a post-hoc reading tagged the paper's, a claim without a placebo or a reason
/// why none applies ([`recs_bench::report::Claim::provenance_problems`]).
pub(crate) fn provenance_problems(report: &Report) -> Vec<String> {
    report.claims.iter().flat_map(|c| c.provenance_problems()).collect()
}

/// One problem line per dataset of `expected` (`(name, [users, items, events])`) that
/// `report` lacks or reads with other counts (for a paper's `check`).
pub(crate) fn dataset_problems(report: &Report, expected: &[(&str, [u64; 3])]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, counts) in expected {
        match report.datasets.iter().find(|d| d.name == *name) {
            None => problems.push(format!("dataset {name} is missing")),
            Some(d) if [d.users, d.items, d.events] != *counts => problems.push(format!(
                "dataset {name}: {} users, {} items, {} events; expected {counts:?}",
                d.users, d.items, d.events
            )),
            Some(_) => {}
        }
    }
    problems
}

/// Refuses a report with `problems` (its paper's check); otherwise writes the report
/// folder `out/<paper>/`, prints the claims and says where the folder is.
pub(crate) fn finish(
    options: &Options,
    report: &Report,
    extras: &Extras,
    problems: &[String],
    lines: &Lines,
) -> Result<()> {
    ensure!(problems.is_empty(), "the report breaks its contract:\n  {}", problems.join("\n  "));
    let dir = options.out.join(&report.paper);
    let report = Report { commit: options.commit.clone(), ..report.clone() };
    write_outputs(&dir, &report, extras)?;
    lines.say(format!("wrote {}", dir.display()));
    Ok(())
}

/// One problem line per experiment of `ids` that `report` lacks or that has no table,
/// then `first_table`'s problems with the first table of each (for a paper's `check`).
pub(crate) fn experiment_problems(
    report: &Report,
    ids: &[&str],
    first_table: impl Fn(&str, &Table) -> Vec<String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for id in ids {
        match report.experiments.iter().find(|e| e.id == *id) {
            None => problems.push(format!("experiment {id} is missing")),
            Some(e) if e.tables.is_empty() => problems.push(format!("{id}: no tables")),
            Some(e) => problems.extend(first_table(id, &e.tables[0])),
        }
    }
    problems
}

/// The commit of the checkout the reproduction runs from (`-modified` when tracked files
/// differ from it), or `None` outside a git checkout.
pub(crate) fn source_commit() -> Option<String> {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"])?;
    let modified = git(&["status", "--porcelain", "--untracked-files=no"])?;
    Some(if modified.is_empty() { hash } else { format!("{hash}-modified") })
}

/// Writes the report folder `dir` and prints the claims.
fn write_outputs(dir: &Path, report: &Report, extras: &Extras) -> Result<()> {
    recs_bench::write_report(dir, report, extras)
        .with_context(|| format!("writing {}", dir.display()))?;
    for claim in &report.claims {
        eprintln!("  {} {:<18} {}", claim.id, claim.verdict, claim.measured);
    }
    Ok(())
}
