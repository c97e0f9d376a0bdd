//! `cv-intervals`: the partitioning advice of §2.1 (holdout, leave-k-out, m-fold
//! cross-validation) shown on one metric of one model, with mean, standard deviation (the
//! square root of §2.1's variance, readable at four decimals) and a 95% confidence
//! interval over the splits.

use anyhow::Result;
use recs_bench::report::Table;
use recs_core::Interactions;
use recs_metrics::t_interval;
use recs_split::{Amount, Protocol, SplitId};
use serde_json::json;

use super::roc::{Model, pool, roc2_per_user};

/// The list length of the headline metric: the pooled hit rate of every user's top 20.
pub(crate) const HEADLINE_N: usize = 20;

/// The three partitionings, with the number of splits of a full run.
fn partitionings() -> [(&'static str, Protocol, u32); 3] {
    [
        ("holdout 20% of the ratings, repeated", Protocol::Holdout { test_fraction: 0.2 }, 10),
        (
            "leave-k-out, 25% of each user's ratings, repeated",
            Protocol::LeaveKOut { k: Amount::Fraction(0.25), min_train: 1 },
            10,
        ),
        ("10-fold cross-validation over ratings", Protocol::KFoldEvents { folds: 10 }, 10),
    ]
}

/// One row: the partitioning, its values, and their t interval.
pub(crate) struct Row {
    pub(crate) partitioning: &'static str,
    pub(crate) values: Vec<f64>,
}

/// TPR@20 of `model` under each partitioning of `data`, `splits` splits each (the full
/// number when `None`): repetitions of holdout and leave-k-out, folds of the
/// cross-validation.
pub(crate) fn run(
    data: &Interactions,
    model: &Model,
    seed: u64,
    splits: Option<u32>,
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (partitioning, protocol, full) in partitionings() {
        let n = splits.unwrap_or(full).min(full);
        let mut values = Vec::with_capacity(n as usize);
        for k in 0..n {
            let id = if protocol.n_folds() > 1 { SplitId::new(0, k) } else { SplitId::new(k, 0) };
            let split = protocol.split(data, seed, id)?;
            let fitted = model.fit(split.train(), seed)?;
            let users: Vec<u32> = (0..data.n_users() as u32).collect();
            let per_user = roc2_per_user(fitted.as_ref(), &split, &users)?;
            values.push(pool(&per_user, |_| true)[HEADLINE_N - 1].tpr());
        }
        rows.push(Row { partitioning, values });
    }
    Ok(rows)
}

/// The `cv-intervals` table.
pub(crate) fn table(rows: &[Row]) -> Result<Table> {
    let mut out = Vec::new();
    for row in rows {
        let interval = t_interval(&row.values)?;
        out.push(vec![
            json!(row.partitioning),
            json!(row.values.len()),
            json!(interval.mean),
            json!(interval.sd),
            json!(interval.lower),
            json!(interval.upper),
        ]);
    }
    Ok(Table {
        name: format!(
            "PureSVD L=15 on MovieLens 100K: pooled TPR@{HEADLINE_N} over the splits (the \
             intervals are Student t; the ten folds of one partition are dependent, so \
             theirs understates the spread)"
        ),
        columns: ["partitioning", "splits", "mean", "standard deviation", "95% lower", "95% upper"]
            .map(String::from)
            .to_vec(),
        rows: out,
    })
}
