//! Evaluates a qrels and a run, both tab-separated, with `recs-metrics` alone: the example
//! of `crates/recs-metrics/README.md`, which a user copies.

use recs_metrics::io::{RunFormat, parse_qrels, parse_run};
use recs_metrics::{Metric, Options, Scored, evaluate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // user, item, grade: every candidate of a user is listed; grade 0 is not relevant.
    let qrels = "u1\ta\t1\nu1\tb\t0\nu1\tc\t0\nu2\ta\t0\nu2\tb\t1\nu2\tc\t0\n";
    // user, item, score. u2's relevant b ties with a at the top of its list.
    let run = "u1\ta\t0.9\nu1\tb\t0.5\nu1\tc\t0.5\nu2\ta\t0.8\nu2\tb\t0.8\nu2\tc\t0.1\n";

    let qrels = parse_qrels(qrels.as_bytes(), "qrels.tsv".as_ref())?;
    let run = parse_run(run.as_bytes(), "run.tsv".as_ref(), &qrels, RunFormat::Auto)?;
    let scored = Scored::new(&qrels.judgments, &run.scores)?;
    let metrics = Metric::parse_list("roc,mrr,ndcg@2")?;
    // Relevant from grade 1, partial AUC up to a false-alarm rate of 1, no curves kept.
    let report = evaluate(&scored, &metrics, &Options::default(), 1.0, false)?;
    for (name, value) in &report.values {
        println!("{name}\t{}", value.map_or("undefined".to_string(), |v| format!("{v:.6}")));
    }

    // Ties count at their expected value: u2's b is first or second with equal chance.
    // MRR = (1 + (1 + 1/2) / 2) / 2 = 0.875.
    assert_eq!(report.get("mrr"), Some(0.875));
    // Pooled ROC: u1's a beats all 4 negatives; u2's b beats 3 and ties 1: 7.5 / 8.
    assert_eq!(report.get("roc_auc"), Some(0.9375));
    // NDCG@2: u1's a is first (1); u2's b has expected gain (1 + 1/log2(3)) / 2 at an ideal 1.
    let ndcg_u2 = (1.0 + 1.0 / 3f64.log2()) / 2.0;
    assert!((report.get("ndcg@2").unwrap() - (1.0 + ndcg_u2) / 2.0).abs() < 1e-12);
    Ok(())
}
