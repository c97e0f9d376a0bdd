//! The file readers of qrels and runs as `recs eval` calls them: format found from the
//! file's first bytes (Parquet, Arrow IPC, text), text read in parallel blocks. Any bytes
//! must give a located error or a result, never a panic. The input is split at its first
//! `0xFF 0xFE` pair into the qrels file and the run file, so the seeds can be real
//! Parquet and Arrow files. A panic of the Parquet or Arrow reader that the columnar
//! readers catch is an error, as in `recs eval`; any other panic reaches the fuzzer's
//! hook, which aborts: a crash.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use recs_metrics::io::{RunFormat, read_qrels, read_run, read_run_candidates};

fn scratch(name: &str) -> PathBuf {
    // One folder per process, so parallel fuzzing jobs do not share files.
    let dir = std::env::temp_dir().join(format!("recs-fuzz-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fuzz_target!(|data: &[u8]| {
    let (qrels_bytes, run_bytes) = match data.windows(2).position(|w| w == [0xFF, 0xFE]) {
        Some(k) => (&data[..k], &data[k + 2..]),
        None => (data, &data[..0]),
    };
    let (q, r) = (scratch("qrels"), scratch("run"));
    std::fs::write(&q, qrels_bytes).unwrap();
    std::fs::write(&r, run_bytes).unwrap();
    let Ok(qrels) = read_qrels(&q) else { return };
    if let Ok(run) = read_run(&r, &qrels, RunFormat::Auto) {
        assert_eq!(run.scores.len(), qrels.judgments.n_candidates());
    }
    if let Ok(c) = read_run_candidates(&r, &qrels, RunFormat::Auto) {
        assert_eq!(c.run.scores.len(), c.qrels.judgments.n_candidates());
    }
});
