//! The `recs` command line: evaluate, score, split and run recommender experiments.
//!
//! Each subcommand lives in its own module (`eval.rs`, `score.rs`, ...) exposing an
//! `Args` struct (clap) and a `run(args) -> anyhow::Result<()>`; this file only
//! dispatches. Errors are printed once, here, with their chain of causes.

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
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
