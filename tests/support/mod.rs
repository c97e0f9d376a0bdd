//! Helpers shared by the integration tests of the workspace (`mod support;` in each).

use recs_eval::core::{Judgments, Recommender};

/// The score `model` gives every candidate of `judgments`, user after user in the
/// judgments' order: the layout `recs_eval::metrics::Scored` reads.
pub(crate) fn score_judgments(model: &dyn Recommender, judgments: &Judgments) -> Vec<f32> {
    let mut scores = vec![0.0f32; judgments.n_candidates()];
    let mut start = 0;
    for user in judgments.iter() {
        let end = start + user.items.len();
        model.score(user.user, user.items, &mut scores[start..end]).expect("a judged user scores");
        start = end;
    }
    scores
}
