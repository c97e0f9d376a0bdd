//! Fits an item-based kNN model on a tiny matrix and scores a user's unseen items, with
//! `recs-core` and `recs-models-knn` alone: the example of
//! `crates/recs-models-knn/README.md`, which a user copies.

use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
use recs_models_knn::{ItemKnnParams, KnnParams, Similarity};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Users 0 and 1 took items 0 and 1, user 1 also item 2; user 2 took item 0 only.
    let events = [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0)]
        .map(|(u, i)| Event::new(u, i, 1.0));
    let train = Interactions::from_events(3, 3, events, DuplicatePolicy::Error)?;
    let params = ItemKnnParams::new(KnnParams::new().k(2).similarity(Similarity::Jaccard))?;
    let model = params.fit(&TrainData::new(&train, 42))?;

    // A candidate sums its similarity to the user's items among its 2 nearest, times the
    // rating (1). User 2 has item 0, in the neighbourhoods of items 1 and 2:
    // Jaccard(0, 1) = |users {0, 1}| / |users {0, 1, 2}| = 2/3, Jaccard(0, 2) = 1/3.
    let mut scores = [0.0f32; 2];
    model.score(2, &[1, 2], &mut scores)?;
    assert!((scores[0] - 2.0 / 3.0).abs() < 1e-6);
    assert!((scores[1] - 1.0 / 3.0).abs() < 1e-6);
    Ok(())
}
