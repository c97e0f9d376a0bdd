//! Qrels and run text readers (TSV and TREC, scored lists and TREC candidates): any
//! bytes must give a located error or results that keep their invariants, never a panic.
//! The input is split at its first `0xFF` byte into a qrels part and a run part.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use recs_metrics::io::{RunFormat, parse_qrels, parse_run, parse_run_candidates};

fuzz_target!(|data: &[u8]| {
    let (qrels_bytes, run_bytes) = match data.iter().position(|&b| b == 0xFF) {
        Some(k) => (&data[..k], &data[k + 1..]),
        None => (data, &data[..0]),
    };
    let Ok(qrels) = parse_qrels(qrels_bytes, Path::new("q")) else { return };
    let n = qrels.judgments.n_candidates();
    for format in [RunFormat::Auto, RunFormat::Tsv, RunFormat::Trec] {
        if let Ok(run) = parse_run(run_bytes, Path::new("r"), &qrels, format) {
            assert_eq!(run.scores.len(), n);
        }
        if let Ok(c) = parse_run_candidates(run_bytes, Path::new("r"), &qrels, format) {
            assert_eq!(c.run.scores.len(), c.qrels.judgments.n_candidates());
        }
    }
});
