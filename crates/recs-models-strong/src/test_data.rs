//! Data and helpers the models' unit tests share.

use recs_core::{Interactions, Recommender};
use recs_testkit::interactions_from_rows;

/// 240 users × 150 items, each pair present with probability about 1/8 by a hash: larger
/// than faer's block sizes (EASE's blocked factorisation and products run) and with rows
/// longer than a neighbour cut keeps (RP3β's selection runs).
pub(crate) fn scattered() -> Interactions {
    let rows: Vec<Vec<u32>> = (0..240u64)
        .map(|u| {
            (0..150u32)
                .filter(|&i| recs_core::mix64(u * 1000 + u64::from(i)).is_multiple_of(8))
                .collect()
        })
        .collect();
    let rows: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
    interactions_from_rows(&rows, 150, 1.0)
}

/// Every user's score of every item, by `score_catalog`.
pub(crate) fn all_scores(model: &dyn Recommender) -> Vec<f32> {
    let users: Vec<u32> = (0..model.n_users() as u32).collect();
    let mut out = vec![0.0f32; users.len() * model.n_items()];
    model.score_catalog(&users, &mut out).unwrap();
    out
}
