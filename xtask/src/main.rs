//! Project automation: `cargo xtask reproduce <paper>|all|--list`.
//!
//! One `match` dispatches the subcommands; each reproduction lives in its own module
//! under `reproduce/` and has a documentation page under `docs/reproductions/`.

use std::process::ExitCode;

use anyhow::{Result, bail};

/// The reproductions available, as (name, one-line description). Empty until a
/// reproduction lands; each entry must have a `docs/reproductions/<name>.md` page.
const PAPERS: &[(&str, &str)] = &[];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("reproduce") => reproduce(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            println!("{}", usage());
            Ok(())
        }
        Some(other) => bail!("unknown task `{other}`\n\n{}", usage()),
    }
}

fn usage() -> &'static str {
    "usage: cargo xtask reproduce <paper>|all [--quick] [--out DIR] [--seed N] [--data-dir DIR]\n       cargo xtask reproduce --list"
}

fn reproduce(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("--list") => {
            if PAPERS.is_empty() {
                println!("no reproductions are available yet");
            }
            for (name, description) in PAPERS {
                println!("{name:<14} {description}");
            }
            Ok(())
        }
        Some(paper) => {
            let known: Vec<&str> = PAPERS.iter().map(|(name, _)| *name).collect();
            let known = if known.is_empty() { "none yet".to_string() } else { known.join(", ") };
            bail!("unknown paper `{paper}` (known: {known})")
        }
        None => bail!("missing paper name\n\n{}", usage()),
    }
}
