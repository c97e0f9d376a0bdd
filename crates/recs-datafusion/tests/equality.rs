//! The DataFusion engine gives the in-process engine's numbers, bit for bit, whatever the
//! number of partitions: on generated data with ties, missing scores and ignored run
//! rows, and on MovieLens 100K (found through `RECS_DATA_DIR`).

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float32Array, Int64Array, RecordBatch, StringArray};
use datafusion::parquet::arrow::ArrowWriter;
use recs_datafusion::evaluate_parquet;
use recs_metrics::io::{RunFormat, read_qrels, read_run};
use recs_metrics::{Metric, Options, Report, Scored, evaluate};

const METRICS: &str = "roc,croc,user_auc,p@5,r@10,ndcg@10,ndcg_exp@10,ap@10,map,mrr,hit@5";

/// Writes `(user, item, value)` rows as Parquet: users as integers, items as strings,
/// the value column named `value`.
fn write(path: &Path, rows: &[(i64, String, f32)], value: &str) {
    let users: ArrayRef = Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0)));
    let items: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.1)));
    let values: ArrayRef = Arc::new(Float32Array::from_iter_values(rows.iter().map(|r| r.2)));
    let batch = RecordBatch::try_from_iter([("user", users), ("item", items), (value, values)])
        .unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    // Small row groups: several files' worth of partitions to split.
    for start in (0..batch.num_rows()).step_by(997) {
        writer.write(&batch.slice(start, 997.min(batch.num_rows() - start))).unwrap();
    }
    writer.close().unwrap();
}

fn in_process(qrels: &Path, run: &Path, options: &Options) -> Report {
    let qrels = read_qrels(qrels).unwrap();
    let run = read_run(run, &qrels, RunFormat::Auto).unwrap();
    let scored = Scored::new(&qrels.judgments, &run.scores).unwrap();
    evaluate(&scored, &Metric::parse_list(METRICS).unwrap(), options, 0.3, false).unwrap()
}

/// Every value and count of two reports, bit for bit.
fn assert_same(a: &Report, b: &Report, what: &str) {
    let bits = |r: &Report| {
        r.values.iter().map(|(k, v)| (k.clone(), v.map(f64::to_bits))).collect::<Vec<_>>()
    };
    assert_eq!(bits(a), bits(b), "{what}");
    let counts = |r: &Report| {
        (r.n_users, r.n_candidates, r.n_positives, r.n_users_without_relevant, r.n_missing)
    };
    assert_eq!(counts(a), counts(b), "{what}");
}

fn check(qrels: &Path, run: &Path, options: Options) {
    let want = in_process(qrels, run, &options);
    for partitions in [1, 2, 7] {
        let metrics = Metric::parse_list(METRICS).unwrap();
        let got = evaluate_parquet(qrels, run, &metrics, options, 0.3, Some(partitions)).unwrap();
        assert_same(&got.report, &want, &format!("{partitions} partitions"));
    }
}

#[test]
fn generated_data_with_ties_gives_the_in_process_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (mut qrels, mut run) = (Vec::new(), Vec::new());
    // 300 users, 40 items; grades 0..=3; scores on a coarse grid (ties); some candidates
    // without a score, some run rows of items the qrels do not judge.
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
    let (q, r) = (dir.path().join("qrels.parquet"), dir.path().join("run.parquet"));
    write(&q, &qrels, "grade");
    write(&r, &run, "score");
    check(&q, &r, Options::default());
}

#[test]
fn movielens_100k_gives_the_in_process_numbers() {
    let Ok(dir) = std::env::var("RECS_DATA_DIR") else {
        eprintln!("RECS_DATA_DIR is not set: skipping the MovieLens 100K DataFusion test");
        return;
    };
    // Every rating is a candidate graded by it; the score is the item's mean rating
    // (many ties), relevant from 4 stars.
    let text = std::fs::read_to_string(Path::new(&dir).join("ml-100k/u.data")).unwrap();
    let rows: Vec<(i64, i64, f32)> = text
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    let mut sums = std::collections::HashMap::<i64, (f64, f64)>::new();
    for &(_, item, rating) in &rows {
        let s = sums.entry(item).or_default();
        *s = (s.0 + f64::from(rating), s.1 + 1.0);
    }
    let qrels: Vec<(i64, String, f32)> =
        rows.iter().map(|&(u, i, g)| (u, i.to_string(), g)).collect();
    let run: Vec<(i64, String, f32)> = rows
        .iter()
        .map(|&(u, i, _)| (u, i.to_string(), (sums[&i].0 / sums[&i].1) as f32))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let (q, r) = (tmp.path().join("qrels.parquet"), tmp.path().join("run.parquet"));
    write(&q, &qrels, "grade");
    write(&r, &run, "score");
    check(&q, &r, Options { threshold: 4.0, ..Options::default() });
}
