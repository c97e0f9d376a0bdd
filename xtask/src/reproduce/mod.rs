//! Shared machinery of the reproductions: options, data location, fitting models by
//! catalog name, turning scores into report curves and figures, writing the outputs.

pub(crate) mod schein2005;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use recs_bench::curves::ModelCurve;
use recs_bench::evaluation::Figure;
use recs_bench::report::Report;
use recs_core::Judgments;

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
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Self> {
        let mut options = Options {
            quick: false,
            out: PathBuf::from("target/reproduce"),
            seed: 42,
            data_dir: None,
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

    /// Where datasets are found: `--data-dir`, then `RECS_DATA_DIR`, then the user cache,
    /// then the official download (verified by sha256).
    pub(crate) fn resolver(&self) -> recs_data::Resolver {
        recs_data::Resolver::from_env().with_data_dir(self.data_dir.clone()).with_progress(true)
    }
}

/// Progress lines on standard error, with elapsed time.
pub(crate) struct Progress {
    start: Instant,
}

impl Progress {
    pub(crate) fn new() -> Self {
        Progress { start: Instant::now() }
    }

    pub(crate) fn say(&self, what: impl std::fmt::Display) {
        eprintln!("[{:>7.1}s] {what}", self.start.elapsed().as_secs_f64());
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

pub(crate) use recs_bench::evaluation::{Evaluated, References, evaluate, fit};

/// The omniscient and random references of both kinds (grade ≥ 1 is relevant).
pub(crate) fn references(judgments: &Judgments) -> Result<References> {
    Ok(recs_bench::evaluation::references(judgments, 1.0)?)
}

/// Writes `report.json`, one SVG per figure, the tables as CSV and `report.md` into `dir`.
pub(crate) fn write_outputs(
    dir: &Path,
    report: &Report,
    figures: &[Figure],
    extra_markdown: &str,
) -> Result<()> {
    let extras = recs_bench::output::Extras {
        figures: figures.to_vec(),
        notes: extra_markdown.to_string(),
        ..Default::default()
    };
    recs_bench::output::write_report(dir, report, &extras)
        .with_context(|| format!("writing {}", dir.display()))?;
    Ok(())
}

/// A ROC and a CROC figure for one experiment.
pub(crate) fn figures_for(
    experiment: &str,
    title: &str,
    models: &[&Evaluated],
    references: &References,
) -> Vec<Figure> {
    let roc: Vec<ModelCurve> = models.iter().map(|m| m.roc.clone()).collect();
    let croc: Vec<ModelCurve> = models.iter().map(|m| m.croc.clone()).collect();
    recs_bench::evaluation::roc_croc_figures(experiment, title, &roc, &croc, references)
}
