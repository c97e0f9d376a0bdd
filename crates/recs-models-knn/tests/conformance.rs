//! The shared conformance suite, run on both models under every similarity measure and
//! both tie policies.

use recs_models_knn::{ItemKnnParams, KnnParams, Neighbourhood, Similarity, Ties, UserKnnParams};
use recs_testkit::Options;

/// User-kNN folds a user in as one unseen in training: its neighbours are searched among
/// all training users (the crate's tests check it equals fitting with the user). A
/// training user's own row finds that very user, similarity maximal, which training
/// keeps out of the user's own neighbourhood, so its own ratings add to its scores.
const USER_KNN: Options = Options::fold_in_exempt(
    "by design: a training user's row folded in meets that user among its own neighbours",
);

fn params(similarity: Similarity, ties: Ties) -> KnnParams {
    KnnParams::new().k(3).similarity(similarity).ties(ties)
}

recs_testkit::conformance_test!(
    user_knn_conforms,
    UserKnnParams::new(KnnParams::new()).expect("defaults are valid"),
    USER_KNN
);
recs_testkit::conformance_test!(
    item_knn_conforms,
    ItemKnnParams::new(KnnParams::new()).expect("defaults are valid")
);
recs_testkit::conformance_test!(
    item_knn_history_neighbourhoods_conform,
    ItemKnnParams::new(KnnParams::new().neighbourhood(Neighbourhood::History)).expect("valid")
);
recs_testkit::conformance_test!(
    item_knn_history_all_conforms,
    ItemKnnParams::new(KnnParams::new().neighbourhood(Neighbourhood::HistoryAll)).expect("valid")
);

#[test]
fn every_similarity_and_tie_policy_conforms() {
    for similarity in Similarity::ALL {
        for ties in [Ties::Extend, Ties::Cut] {
            let user = UserKnnParams::new(params(similarity, ties)).expect("valid");
            if let Err(failures) = recs_testkit::check_model_with(&user, &USER_KNN) {
                panic!("user-knn {similarity} {ties}: {failures}");
            }
            let item =
                ItemKnnParams::new(params(similarity, ties).positive_only(false)).expect("valid");
            if let Err(failures) = recs_testkit::check_model(&item) {
                panic!("item-knn {similarity} {ties}: {failures}");
            }
        }
    }
}

#[test]
fn catalog_builds_both_models_and_refuses_bad_values() {
    let catalog = recs_models_knn::catalog();
    let names: Vec<&str> = catalog.iter().map(|e| e.name).collect();
    assert_eq!(names, ["user-knn", "item-knn"]);
    for entry in &catalog {
        assert!(!entry.needs_attributes);
        for similarity in Similarity::NAMES {
            let values = recs_core::ParamValues::parse([
                "k=4".to_string(),
                format!("similarity={similarity}"),
                "ties=cut".to_string(),
                "seed=3".to_string(),
            ])
            .expect("pairs");
            entry.build_checked(&values).expect("valid parameters build");
        }
        for bad in [
            "k=0",
            "min-support=-1",
            "alpha=2",
            "similarity=dice",
            "ties=x",
            "min-similarity=inf",
            "q=1",
        ] {
            let values = recs_core::ParamValues::parse([bad]).expect("pair");
            assert!(entry.build_checked(&values).is_err(), "{} accepted {bad}", entry.name);
        }
    }
}

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_knn::catalog(), [
    "user-knn" => USER_KNN,
]);
