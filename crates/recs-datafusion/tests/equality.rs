//! The DataFusion engine gives the in-process engine's numbers, bit for bit, whatever the
//! number of partitions: on generated data with ties, missing scores and ignored run
//! rows, and on MovieLens 100K (found through `RECS_DATA_DIR`).

mod common;

use std::path::Path;

use common::{METRICS, assert_same, generated, in_process, write};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use recs_datafusion::{Tables, evaluate, evaluate_parquet, session_state};
use recs_metrics::{Metric, Options};

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
    let (q, r) = generated(dir.path());
    check(&q, &r, Options::default());
}

#[test]
fn one_scored_table_gives_the_numbers_of_qrels_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let (q, r) = generated(dir.path());
    let options = Options { threshold: 3.0, ..Options::default() };
    let want = in_process(&q, &r, &options);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let got = runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(3);
        let ctx = SessionContext::new_with_state(session_state(config).unwrap());
        let path = dir.path().join("scored.parquet");
        ctx.register_parquet("scored", path.to_str().unwrap(), ParquetReadOptions::default())
            .await
            .unwrap();
        let metrics = Metric::parse_list(METRICS).unwrap();
        evaluate(&ctx, Tables::Scored, &metrics, options, 0.3).await.unwrap()
    });
    assert_same(&got.report, &want, "one scored table");
    assert_eq!(got.n_ignored, 0);
}

#[test]
fn movielens_100k_gives_the_in_process_numbers() {
    let Some(dir) = recs_testkit::real_data_dir() else { return };
    // Every rating is a candidate graded by it; the score is the item's mean rating
    // (many ties), relevant from 4 stars.
    let text = std::fs::read_to_string(dir.join("ml-100k/u.data")).unwrap();
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

#[test]
fn settings_that_are_not_a_literal_or_do_not_parse_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = generated(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let error = |settings: &str| {
        runtime.block_on(async {
            let ctx = SessionContext::new_with_state(session_state(SessionConfig::new()).unwrap());
            ctx.register_parquet("qrels", q.to_str().unwrap(), ParquetReadOptions::default())
                .await
                .unwrap();
            let sql = format!(
                "SELECT recs_user_part(CAST(item AS VARCHAR), grade, grade, {settings}) \
                 FROM qrels GROUP BY user"
            );
            let result = match ctx.sql(&sql).await {
                Ok(frame) => frame.collect().await.map(|_| ()),
                Err(e) => Err(e),
            };
            result.unwrap_err().to_string()
        })
    };
    assert!(error("CAST(item AS VARCHAR)").contains("settings string literal"), "column");
    assert!(error("'metrics=map'").contains("`threshold` is missing"), "incomplete");
}
