//! Every baseline passes the shared conformance suite of `recs-testkit`.

use recs_core::Judgments;
use recs_models_baseline::{
    ItemMeanRatingParams, ItemPopularityParams, OracleParams, RandomParams, TopRatedParams,
    UserItemPopularityParams, UserMeanRatingParams, UserPopularityParams,
};
use recs_testkit::{N_ITEMS, N_USERS, Options, conformance_test};

/// The random recommender gives a folded-in user random scores of its own, from a stream
/// apart from the training users' (a history is keyed by its items), as it gives every
/// user: a training user's row folded in is another user, so its scores differ by design.
const RANDOM: Options = Options::fold_in_exempt(
    "by design: a folded-in history draws its own random scores, not a training user's",
);

conformance_test!(random_conforms, RandomParams::new(), RANDOM);
conformance_test!(item_popularity_conforms, ItemPopularityParams::new());
conformance_test!(user_popularity_conforms, UserPopularityParams::new());
conformance_test!(user_item_popularity_conforms, UserItemPopularityParams::new());
conformance_test!(user_mean_rating_conforms, UserMeanRatingParams::new());
conformance_test!(item_mean_rating_conforms, ItemMeanRatingParams::new());
conformance_test!(item_mean_rating_damped_conforms, ItemMeanRatingParams::new().damping(3.0));
conformance_test!(top_rated_conforms, TopRatedParams::new());
conformance_test!(oracle_conforms, OracleParams::new(synthetic_judgments()));

/// Judgments over the suite's index space: every user judges the items of the other
/// parity, grade = item index modulo 3.
fn synthetic_judgments() -> Judgments {
    let mut builder = Judgments::builder(N_USERS, N_ITEMS);
    for user in 0..N_USERS as u32 {
        let items: Vec<u32> = (0..N_ITEMS as u32).filter(|i| (i + user) % 2 == 1).collect();
        let grades: Vec<f32> = items.iter().map(|i| (i % 3) as f32).collect();
        builder.push_user(user, &items, &grades).expect("valid judgments");
    }
    builder.build().expect("valid judgments")
}

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_baseline::catalog(), [
    "random" => RANDOM,
]);
