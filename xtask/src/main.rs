//! Project automation: `cargo xtask reproduce <paper>|all|--list`,
//! `cargo xtask check-report <paper> <report.json>` and `cargo xtask page <paper>`.
//!
//! One `match` dispatches the subcommands; each reproduction lives in its own module
//! under `reproduce/` and has a documentation page under `docs/reproductions/`.

mod page;
mod reproduce;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

/// The reproductions available, as (name, one-line description). Each must have a
/// `docs/reproductions/<name>.md` page.
const PAPERS: &[(&str, &str)] = &[
    (
        "schein2005",
        "Schein et al. 2005, CROC: ROC vs CROC on MS Web and MovieLens cold start (Figures 3-5, Theorem 1)",
    ),
    (
        "ignatov2010",
        "Ignatov et al. 2010, cross-validation with hidden items: kNN on MovieLens and synthetic blocks (Figures 2-5)",
    ),
    (
        "cremonesi2008",
        "Cremonesi et al. 2008, evaluation methodology: user groups, ROC1/ROC2 tuning of PureSVD and NBN, recall by group and popularity (Figures 4-6, Tables 1-2)",
    ),
    (
        "fastml2015",
        "FastML 2015, evaluating recommenders: RMSE vs ranking, weak vs strong generalization, NDCG@50 against L",
    ),
    (
        "krichene2020",
        "Krichene & Rendle 2020, sampled metrics: the toy example's exact and sampled metrics, Figure 2's orders, corrections",
    ),
];

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
        Some("check-report") => check_report(&args[1..]),
        Some("page") => page::command(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            println!("{}", usage());
            Ok(())
        }
        Some(other) => bail!("unknown task `{other}`\n\n{}", usage()),
    }
}

fn usage() -> &'static str {
    "usage: cargo xtask reproduce <paper>|all [--quick] [--out DIR] [--seed N] [--data-dir DIR]\n       \
     cargo xtask reproduce --list\n       \
     cargo xtask check-report <paper> <report.json>\n       \
     cargo xtask page <paper> [--report DIR | --check]   (docs/reproductions/<paper>.md from its full run)"
}

fn known() -> String {
    PAPERS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

fn reproduce(args: &[String]) -> Result<()> {
    let Some(paper) = args.first() else { bail!("missing paper name\n\n{}", usage()) };
    if paper == "--list" {
        for (name, description) in PAPERS {
            println!("{name:<14} {description}");
        }
        return Ok(());
    }
    let options = reproduce::Options::parse(&args[1..])?;
    match paper.as_str() {
        "schein2005" => reproduce::schein2005::run(&options),
        "ignatov2010" => reproduce::ignatov2010::run(&options),
        "fastml2015" => reproduce::fastml2015::run(&options),
        "cremonesi2008" => reproduce::cremonesi2008::run(&options),
        "krichene2020" => reproduce::krichene2020::run(&options),
        "all" => {
            reproduce::schein2005::run(&options)?;
            reproduce::ignatov2010::run(&options)?;
            reproduce::fastml2015::run(&options)?;
            reproduce::cremonesi2008::run(&options)?;
            reproduce::krichene2020::run(&options)
        }
        other => bail!("unknown paper `{other}` (known: {})", known()),
    }
}

fn check_report(args: &[String]) -> Result<()> {
    let [paper, path] = args else { bail!("expected <paper> <report.json>\n\n{}", usage()) };
    let text =
        std::fs::read_to_string(Path::new(path)).with_context(|| format!("reading {path}"))?;
    let report: recs_bench::report::Report = serde_json::from_str(&text)
        .with_context(|| format!("{path} does not follow the report contract"))?;
    let problems = check_paper(paper, &report)?;
    if problems.is_empty() {
        println!("{path}: report contract and {paper} expectations hold");
        Ok(())
    } else {
        bail!("{path}:\n  {}", problems.join("\n  "))
    }
}

/// The contract problems of `report` and its paper's expectations, one line each.
fn check_paper(paper: &str, report: &recs_bench::report::Report) -> Result<Vec<String>> {
    Ok(match paper {
        "schein2005" => reproduce::schein2005::check(report),
        "ignatov2010" => reproduce::ignatov2010::check(report),
        "fastml2015" => reproduce::fastml2015::check(report),
        "cremonesi2008" => reproduce::cremonesi2008::check(report),
        "krichene2020" => reproduce::krichene2020::check(report),
        other => bail!("unknown paper `{other}` (known: {})", known()),
    })
}
