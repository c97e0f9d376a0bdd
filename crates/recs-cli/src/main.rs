//! The `recs` command line: evaluate, score, split and run recommender experiments.
//!
//! Each subcommand lives in its own module (`eval.rs`, `score.rs`, ...) exposing an
//! `Args` struct (clap) and a `run(args) -> anyhow::Result<()>`; this file only
//! dispatches. Errors are printed once, here, with their chain of causes.

mod candidates;
mod compare;
mod corrected;
mod data;
mod eval;
mod factors;
mod facts;
mod format;
mod groups;
mod reading;
mod run;
mod sampled_vs_exact;
mod score;
mod split;

use std::process::ExitCode;

use clap::Parser;

/// Evaluate recommender systems properly: exact, tie-aware metrics, the protocols of the
/// classic evaluation papers, and the models they compare.
#[derive(Debug, Parser)]
#[command(name = "recs", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Print the version of this build.
    Version,
    /// Datasets: list, fetch (find or download, verify sha256), stats, synth.
    Data(data::Args),
    /// Evaluate a run (scores) against qrels (judgments) with exact, tie-aware metrics.
    Eval(eval::Args),
    /// Compare several runs on the same qrels: paired tests over users, effect sizes with
    /// intervals, p-values adjusted over the family, a table with significance marks.
    Compare(compare::Args),
    /// Split a dataset into training and test files with one protocol; optionally write qrels.
    Split(split::Args),
    /// Fit a model on a training file and write its scores (`user<TAB>item<TAB>score`).
    Score(score::Args),
    /// Run an experiment from a TOML configuration and write its report.
    Run(run::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Data(args) => data::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Split(args) => split::run(args),
        Command::Score(args) => score::run(args),
        Command::Run(args) => run::run(args),
        Command::Version => {
            println!("recs {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
