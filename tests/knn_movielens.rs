//! End to end through the facade: MovieLens 100K loaded by `recs_eval::data`, a per-user 20%
//! holdout from `recs_eval::split`, user- and item-kNN from `recs_eval::models::knn` (built from
//! text parameters through their catalog, as the runner does), and NDCG@10 from
//! `recs_eval::metrics`, against `ItemPopularity` from `recs_eval::models::baseline`.
//!
//! Needs `RECS_DATA_DIR`; without it the test prints a notice and returns.

use recs_eval::core::{FitDyn, Judgments, ParamValues, Recommender, TrainData};
use recs_eval::metrics::{Metric, Options, Scored, per_user};
use recs_eval::models::baseline::ItemPopularityParams;
use recs_eval::split::{Amount, JudgedUsers, JudgmentOptions, Protocol, SplitId};
use recs_testkit::real_data_dir;

mod support;
use support::score_judgments;

fn ndcg_at_10(model: &dyn Recommender, judgments: &Judgments) -> f64 {
    let scores = score_judgments(model, judgments);
    let scored = Scored::new(judgments, &scores).expect("aligned");
    let values = per_user(&scored, &[Metric::Ndcg(10)], &Options::default()).expect("ndcg");
    values.summary(0).value.expect("some user has a relevant item")
}

fn knn(name: &str, params: &[&str]) -> Box<dyn FitDyn> {
    let catalog = recs_eval::models::knn::catalog();
    let entry = catalog.iter().find(|e| e.name == name).expect("catalogued");
    entry.build_checked(&ParamValues::parse(params).expect("pairs")).expect("valid")
}

#[test]
fn user_and_item_knn_beat_item_popularity_on_movielens_100k() {
    let Some(dir) = real_data_dir() else { return };
    let dataset = recs_eval::data::load_movielens_100k(&dir.join("ml-100k")).expect("ml-100k");
    assert_eq!(dataset.n_events(), 100_000);
    let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = protocol.split(&dataset.interactions, 42, SplitId::default()).expect("split");
    let judgments = split
        .judgments(&JudgmentOptions::implicit().users(JudgedUsers::WithTestEvents))
        .expect("judgments");
    let data = TrainData::new(split.train(), 42);

    let popularity = ItemPopularityParams::new().fit_dyn(&data).expect("popularity fits");
    let baseline = ndcg_at_10(popularity.as_ref(), &judgments);
    for name in ["user-knn", "item-knn"] {
        let model = knn(name, &["k=20", "similarity=cosine"]).fit_dyn(&data).expect("fits");
        let ndcg = ndcg_at_10(model.as_ref(), &judgments);
        eprintln!("ml-100k leave-20%-out NDCG@10: {name} {ndcg:.4}, item popularity {baseline:.4}");
        assert!(ndcg > baseline, "{name}: NDCG@10 {ndcg} is not above popularity's {baseline}");
    }
}
