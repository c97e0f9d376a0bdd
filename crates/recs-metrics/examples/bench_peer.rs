//! Times metrics on data written by `tools/bench_metrics.py`, for comparison with
//! scikit-learn and ranx on the same data in the same run.
//!
//! `bench_peer auc FILE` — FILE: `u64 n`, `n × f32` scores, `n × u8` labels.
//! `bench_peer ranking FILE` — FILE: `u64 users`, `u64 pairs`, `users × u32` lengths,
//! `pairs × f32` grades, `pairs × f32` scores.
//!
//! Prints one line of JSON: the best wall time of three runs (seconds) and the values.

use std::time::Instant;

use recs_core::Judgments;
use recs_metrics::{Metric, Options, Scored, evaluate, roc_auc};

fn u64_at(bytes: &[u8], at: usize) -> usize {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn best_of_three<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.unwrap())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        return Err("usage: bench_peer auc|ranking FILE".into());
    }
    let bytes = std::fs::read(&args[2])?;
    match args[1].as_str() {
        "auc" => {
            let n = u64_at(&bytes, 0);
            let scores = f32s(&bytes[8..8 + 4 * n]);
            let labels: Vec<bool> = bytes[8 + 4 * n..8 + 5 * n].iter().map(|&b| b != 0).collect();
            let (seconds, auc) = best_of_three(|| roc_auc(&scores, &labels).unwrap());
            println!("{{\"seconds\": {seconds}, \"roc_auc\": {auc}}}");
        }
        "ranking" => {
            let users = u64_at(&bytes, 0);
            let pairs = u64_at(&bytes, 8);
            let mut at = 16;
            let lengths: Vec<usize> = bytes[at..at + 4 * users]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize)
                .collect();
            at += 4 * users;
            let grades = f32s(&bytes[at..at + 4 * pairs]);
            at += 4 * pairs;
            let scores = f32s(&bytes[at..at + 4 * pairs]);
            let max_len = lengths.iter().copied().max().unwrap_or(0);
            let items: Vec<u32> = (0..max_len as u32).collect();
            let mut builder = Judgments::builder(users, max_len);
            let mut start = 0;
            for (u, &len) in lengths.iter().enumerate() {
                builder.push_user(u as u32, &items[..len], &grades[start..start + len])?;
                start += len;
            }
            let judgments = builder.build()?;
            let metrics = Metric::parse_list("p@10,r@10,ndcg@10,map,mrr")?;
            let (seconds, report) = best_of_three(|| {
                let scored = Scored::new(&judgments, &scores).unwrap();
                evaluate(&scored, &metrics, &Options::default(), 0.3, false).unwrap()
            });
            let values: Vec<String> = report
                .values
                .iter()
                .map(|(k, v)| format!("\"{k}\": {}", v.unwrap_or(f64::NAN)))
                .collect();
            println!("{{\"seconds\": {seconds}, {}}}", values.join(", "));
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    Ok(())
}
