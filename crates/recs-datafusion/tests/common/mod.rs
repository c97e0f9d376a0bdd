//! What the equality tests share: Parquet files of generated data, the in-process
//! report, and a bit-for-bit comparison of reports.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float32Array, Int64Array, RecordBatch, StringArray};
use datafusion::parquet::arrow::ArrowWriter;
use recs_metrics::io::{RunFormat, read_qrels, read_run};
use recs_metrics::{Metric, Options, Report, Scored, evaluate};

pub(crate) const METRICS: &str =
    "roc,croc,user_auc,p@5,r@10,ndcg@10,ndcg_exp@10,ap@10,map,mrr,hit@5";

/// Writes `(user, item, value)` rows as Parquet: users as integers, items as strings,
/// the value column named `value`.
pub(crate) fn write(path: &Path, rows: &[(i64, String, f32)], value: &str) {
    let users: ArrayRef = Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0)));
    let items: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.1)));
    let values: ArrayRef = Arc::new(Float32Array::from_iter_values(rows.iter().map(|r| r.2)));
    let batch =
        RecordBatch::try_from_iter([("user", users), ("item", items), (value, values)]).unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    // Small row groups: several files' worth of partitions to split.
    for start in (0..batch.num_rows()).step_by(997) {
        writer.write(&batch.slice(start, 997.min(batch.num_rows() - start))).unwrap();
    }
    writer.close().unwrap();
}

pub(crate) fn in_process(qrels: &Path, run: &Path, options: &Options) -> Report {
    let qrels = read_qrels(qrels).unwrap();
    let run = read_run(run, &qrels, RunFormat::Auto).unwrap();
    let scored = Scored::new(&qrels.judgments, &run.scores).unwrap();
    evaluate(&scored, &Metric::parse_list(METRICS).unwrap(), options, 0.3, false).unwrap()
}

/// Every value and count of two reports, bit for bit.
pub(crate) fn assert_same(a: &Report, b: &Report, what: &str) {
    let bits = |r: &Report| {
        r.values.iter().map(|(k, v)| (k.clone(), v.map(f64::to_bits))).collect::<Vec<_>>()
    };
    assert_eq!(bits(a), bits(b), "{what}");
    let counts = |r: &Report| {
        (r.n_users, r.n_candidates, r.n_positives, r.n_users_without_relevant, r.n_missing)
    };
    assert_eq!(counts(a), counts(b), "{what}");
}

/// Qrels and a run of 300 users and 40 items in `dir`: grades 0..=3; scores on a coarse
/// grid (ties); some candidates without a score, one run row per user of an item the
/// qrels do not judge. Returns the qrels' and the run's paths; `scored.parquet` beside
/// them holds the same candidates as one table (`Tables::Scored`).
pub(crate) fn generated(dir: &Path) -> (PathBuf, PathBuf) {
    let (mut qrels, mut run) = (Vec::new(), Vec::new());
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    for user in 0..300i64 {
        for item in 0..40 {
            if next() % 3 == 0 {
                continue;
            }
            let grade = (next() % 4) as f32;
            qrels.push((user * 7, format!("i{item}"), grade));
            if next() % 10 != 0 {
                run.push((user * 7, format!("i{item}"), (next() % 8) as f32 / 4.0));
            }
        }
        run.push((user * 7, "unjudged".to_string(), 9.0));
    }
    let (q, r) = (dir.join("qrels.parquet"), dir.join("run.parquet"));
    write(&q, &qrels, "grade");
    write(&r, &run, "score");
    let scores: std::collections::HashMap<(i64, &str), f32> =
        run.iter().map(|(u, i, s)| ((*u, i.as_str()), *s)).collect();
    let scored: Vec<(i64, String, Option<f32>, f32)> = qrels
        .iter()
        .map(|(u, i, g)| (*u, i.clone(), scores.get(&(*u, i.as_str())).copied(), *g))
        .collect();
    write_scored(&dir.join("scored.parquet"), &scored);
    (q, r)
}

/// Writes `(user, item, score, grade)` rows as Parquet; a `None` score is `NULL`.
pub(crate) fn write_scored(path: &Path, rows: &[(i64, String, Option<f32>, f32)]) {
    let users: ArrayRef = Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0)));
    let items: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.1)));
    let scores: ArrayRef = Arc::new(Float32Array::from_iter(rows.iter().map(|r| r.2)));
    let grades: ArrayRef = Arc::new(Float32Array::from_iter_values(rows.iter().map(|r| r.3)));
    let batch = RecordBatch::try_from_iter([
        ("user", users),
        ("item", items),
        ("score", scores),
        ("grade", grades),
    ])
    .unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    for start in (0..batch.num_rows()).step_by(997) {
        writer.write(&batch.slice(start, 997.min(batch.num_rows() - start))).unwrap();
    }
    writer.close().unwrap();
}
