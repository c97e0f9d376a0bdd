//! `recs eval`: evaluate a file of scores from any system against a qrels file.
//!
//! Definitions of every printed number: `docs/metrics.md`. File formats: the
//! `recs_metrics::io` documentation.

use std::path::PathBuf;

use anyhow::Context;
use recs_metrics::io::{RunFormat, read_qrels, read_run, write_points_csv};
use recs_metrics::{Metric, Options, Scored, TieBreak, ZeroPolicy, evaluate};
use serde_json::{Map, Value, json};

/// Evaluate scores (a run) against judgments (qrels) with exact, tie-aware metrics.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Qrels: `user<TAB>item<TAB>grade` per candidate (grade 0 = not relevant), or TREC
    /// `qid iter doc grade`.
    #[arg(long)]
    qrels: PathBuf,
    /// Run: `user<TAB>item<TAB>score`, or TREC `qid Q0 doc rank score tag`.
    #[arg(long)]
    run: PathBuf,
    /// Comma-separated metrics: roc, croc, user_auc, p@N, r@N, f1@N, hit@N, ndcg@K,
    /// ndcg_exp@K, ap@K, map, mrr, half_life@A, coverage@N.
    #[arg(long, default_value = "roc,croc,p@10,r@10,ndcg@10,map,mrr")]
    metrics: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Write the ROC and CROC curves as CSV (`roc.csv`, `croc.csv`) into this directory.
    #[arg(long)]
    curves: Option<PathBuf>,
    /// A candidate is relevant when its grade is at least this.
    #[arg(long, default_value_t = 1.0)]
    rel_threshold: f32,
    /// Run file format.
    #[arg(long, value_enum, default_value = "auto")]
    format: FormatArg,
    /// Order of equal scores: expected value over random orders, or by item id.
    #[arg(long, value_enum, default_value = "expected")]
    ties: TiesArg,
    /// Users without a relevant candidate: excluded from means, counted as 0, or the
    /// ignatov2010 conventions.
    #[arg(long, value_enum, default_value = "exclude")]
    zero: ZeroArg,
    /// Upper false-alarm rate of the partial AUCs.
    #[arg(long, default_value_t = 0.3)]
    max_fpr: f64,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Auto,
    Tsv,
    Trec,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum TiesArg {
    Expected,
    ItemAsc,
    ItemDesc,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ZeroArg {
    Exclude,
    Zero,
    Ignatov,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let mut metrics = Metric::parse_list(&args.metrics)?;
    if args.curves.is_some() {
        for m in [Metric::Roc, Metric::Croc] {
            if !metrics.contains(&m) {
                metrics.push(m);
            }
        }
    }
    let qrels = read_qrels(&args.qrels)?;
    let format = match args.format {
        FormatArg::Auto => RunFormat::Auto,
        FormatArg::Tsv => RunFormat::Tsv,
        FormatArg::Trec => RunFormat::Trec,
    };
    let run = read_run(&args.run, &qrels, format)?;
    let options = Options {
        threshold: args.rel_threshold,
        ties: match args.ties {
            TiesArg::Expected => TieBreak::Expected,
            TiesArg::ItemAsc => TieBreak::ItemAscending,
            TiesArg::ItemDesc => TieBreak::ItemDescending,
        },
        zero: match args.zero {
            ZeroArg::Exclude => ZeroPolicy::Exclude,
            ZeroArg::Zero => ZeroPolicy::Zero,
            ZeroArg::Ignatov => ZeroPolicy::Ignatov,
        },
        ..Options::default()
    };
    let scored = Scored::new(&qrels.judgments, &run.scores)?;
    let mut report = evaluate(&scored, &metrics, &options, args.max_fpr, args.curves.is_some())?;
    if run.n_ignored > 0 {
        report.warnings.push(format!(
            "{} lines of {} are not candidates in {} and were ignored",
            run.n_ignored,
            args.run.display(),
            args.qrels.display()
        ));
    }
    if let Some(dir) = &args.curves {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        if let Some(c) = &report.roc {
            write_points_csv(dir.join("roc.csv"), &c.points())?;
        }
        if let Some(c) = &report.croc {
            write_points_csv(dir.join("croc.csv"), &c.points())?;
        }
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        let mut map = Map::new();
        for (key, value) in &report.values {
            map.insert(key.clone(), value.map_or(Value::Null, |v| json!(v)));
        }
        map.insert("n_users".into(), json!(report.n_users));
        map.insert("n_candidates".into(), json!(report.n_candidates));
        map.insert("n_positives".into(), json!(report.n_positives));
        map.insert("n_users_without_relevant".into(), json!(report.n_users_without_relevant));
        map.insert("n_missing".into(), json!(report.n_missing));
        map.insert("n_ignored".into(), json!(run.n_ignored));
        map.insert("warnings".into(), json!(report.warnings));
        println!("{}", serde_json::to_string_pretty(&Value::Object(map))?);
    } else {
        let width = report.values.iter().map(|(k, _)| k.len()).max().unwrap_or(6).max(12);
        for (key, value) in &report.values {
            match value {
                Some(v) => println!("{key:<width$}  {v:.6}"),
                None => println!("{key:<width$}  undefined"),
            }
        }
        println!("{:<width$}  {}", "users", report.n_users);
        println!("{:<width$}  {}", "candidates", report.n_candidates);
        println!("{:<width$}  {}", "positives", report.n_positives);
    }
    Ok(())
}
