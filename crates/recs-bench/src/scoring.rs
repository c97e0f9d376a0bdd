//! Scoring a fitted model on judgments: one flat buffer of scores aligned with the
//! judgments' candidates (users ascending, items ascending within a user), which is the
//! layout the metrics consume.
//!
//! Users are scored in parallel (rayon) into disjoint slices of the output, so the result
//! is identical whatever the number of threads.

use rayon::prelude::*;
use recs_core::{
    Interactions, ItemAttributes, Judgments, NewItems, Recommender, RecsError, Result,
};

/// How candidate items are scored.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ItemSource<'a> {
    /// Candidates are items the model was trained on (hot start): [`Recommender::score`].
    Trained,
    /// Candidates had no training events and are scored from these attribute rows (cold
    /// start): [`recs_core::ScoreNewItems::score_new_items`].
    NewFromAttributes(&'a ItemAttributes),
}

/// Scores every candidate of `judgments` with `model`; users with events in `history` (the fold-in part of a
/// strong-generalization split: users kept out of training) are scored from those events
/// through [`recs_core::FoldInUser`].
///
/// # Errors
/// A model error, or [`RecsError::Unsupported`] when cold-start scoring is asked of a model
/// that cannot score items unseen in training, or when a history user meets a
/// model that cannot fold users in, or cold-start items at the same time.
pub(crate) fn score_judgments_with_history(
    model: &dyn Recommender,
    judgments: &Judgments,
    source: ItemSource<'_>,
    history: Option<&Interactions>,
) -> Result<Vec<f32>> {
    let mut scores = vec![0.0f32; judgments.n_candidates()];
    // Split the flat buffer into one slice per judged user, in order.
    let mut slices: Vec<&mut [f32]> = Vec::with_capacity(judgments.n_judged_users());
    let mut rest = scores.as_mut_slice();
    for user in judgments.iter() {
        let (head, tail) = rest.split_at_mut(user.items.len());
        slices.push(head);
        rest = tail;
    }
    let users: Vec<_> = judgments.iter().collect();
    users.into_par_iter().zip(slices.into_par_iter()).try_for_each(|(user, out)| {
        score_user(model, user.user, user.items, out, source, history)
    })?;
    Ok(scores)
}

/// Scores `items` for `user` into `out`: from the model's training when the user has no
/// events in `history`, folded in from them otherwise; items from their attributes under
/// [`ItemSource::NewFromAttributes`].
///
/// # Errors
/// A model error, or [`RecsError::Unsupported`] when the model lacks the capability the
/// user or the items need.
pub(crate) fn score_user(
    model: &dyn Recommender,
    user: u32,
    items: &[u32],
    out: &mut [f32],
    source: ItemSource<'_>,
    history: Option<&Interactions>,
) -> Result<()> {
    let folded = history.filter(|h| has_history(h, user)).map(|h| h.user_row(user));
    match (folded, source) {
        (None, ItemSource::Trained) => model.score(user, items, out),
        (None, ItemSource::NewFromAttributes(attributes)) => model
            .as_new_item_scorer()
            .ok_or_else(|| {
                RecsError::Unsupported("the model cannot score items unseen in training".into())
            })?
            .score_new_items(user, NewItems::new(attributes, items)?, out),
        (Some(row), ItemSource::Trained) => model
            .as_user_fold_in()
            .ok_or_else(|| {
                RecsError::Unsupported(
                    "the model cannot fold in users unseen in training (the protocol \
                     keeps test users out of training)"
                        .into(),
                )
            })?
            .score_history_of(user, row, items, out),
        (Some(_), ItemSource::NewFromAttributes(_)) => Err(RecsError::Unsupported(
            "users unseen in training and items unseen in training at once".into(),
        )),
    }
}

/// Scores every item for each of `users` into `out` (`users.len() × n_items`, row-major),
/// row `r` exactly as [`score_user`] would score `users[r]`: in one blocked call
/// ([`Recommender::score_catalog`]) when no user of the block has a fold-in history, user
/// by user otherwise.
///
/// # Errors
/// As [`score_user`].
pub(crate) fn score_catalog_block(
    model: &dyn Recommender,
    users: &[u32],
    all_items: &[u32],
    out: &mut [f32],
    history: Option<&Interactions>,
) -> Result<()> {
    let folded = |user: u32| history.is_some_and(|h| has_history(h, user));
    if !users.iter().any(|&user| folded(user)) {
        return model.score_catalog(users, out);
    }
    for (&user, row) in users.iter().zip(out.chunks_mut(all_items.len().max(1))) {
        score_user(model, user, all_items, row, ItemSource::Trained, history)?;
    }
    Ok(())
}

/// Whether `user` has events in the fold-in part `history`.
fn has_history(history: &Interactions, user: u32) -> bool {
    (user as usize) < history.n_users() && !history.user_row(user).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{Shape, check_score_args};

    fn score_judgments(
        model: &dyn Recommender,
        judgments: &Judgments,
        source: ItemSource<'_>,
    ) -> Result<Vec<f32>> {
        score_judgments_with_history(model, judgments, source, None)
    }

    struct ByIndex;
    impl Recommender for ByIndex {
        fn shape(&self) -> Shape {
            Shape::new(3, 5)
        }
        fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
            check_score_args(3, 5, user, items, out)?;
            for (o, &i) in out.iter_mut().zip(items) {
                *o = (user * 10 + i) as f32;
            }
            Ok(())
        }
    }

    #[test]
    fn scores_follow_the_judgments_order() {
        let mut b = Judgments::builder(3, 5);
        b.push_user(2, &[4, 0], &[1.0, 0.0]).unwrap();
        b.push_user(0, &[3], &[1.0]).unwrap();
        let j = b.build().unwrap();
        let scores = score_judgments(&ByIndex, &j, ItemSource::Trained).unwrap();
        assert_eq!(scores, vec![3.0, 20.0, 24.0]);
    }

    struct FoldsIn;
    impl Recommender for FoldsIn {
        fn shape(&self) -> Shape {
            Shape::new(3, 5)
        }
        fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
            ByIndex.score(user, items, out)
        }
        fn as_user_fold_in(&self) -> Option<&dyn recs_core::FoldInUser> {
            Some(self)
        }
    }
    impl recs_core::FoldInUser for FoldsIn {
        fn score_history(
            &self,
            history: recs_core::UserRow<'_>,
            items: &[u32],
            out: &mut [f32],
        ) -> Result<()> {
            out.iter_mut()
                .zip(items)
                .for_each(|(o, &i)| *o = -((history.len() as u32 * 10 + i) as f32));
            Ok(())
        }
    }

    #[test]
    fn history_users_are_folded_in() {
        let mut b = Judgments::builder(3, 5);
        b.push_user(0, &[3], &[1.0]).unwrap();
        b.push_user(1, &[2, 4], &[1.0, 0.0]).unwrap();
        let j = b.build().unwrap();
        let events = [recs_core::Event::new(1, 0, 1.0), recs_core::Event::new(1, 1, 1.0)];
        let history =
            Interactions::from_events(3, 5, events, recs_core::DuplicatePolicy::Error).unwrap();
        let scores =
            score_judgments_with_history(&FoldsIn, &j, ItemSource::Trained, Some(&history))
                .unwrap();
        // User 0 has no history: trained scores; user 1 is scored from its two events.
        assert_eq!(scores, vec![3.0, -22.0, -24.0]);
        let err = score_judgments_with_history(&ByIndex, &j, ItemSource::Trained, Some(&history));
        assert!(matches!(err, Err(RecsError::Unsupported(_))));
    }

    #[test]
    fn cold_start_needs_the_capability() {
        let mut b = Judgments::builder(3, 5);
        b.push_user(0, &[3], &[1.0]).unwrap();
        let j = b.build().unwrap();
        let attrs = ItemAttributes::from_pairs(5, recs_core::IdMap::new(), []).unwrap();
        let err = score_judgments(&ByIndex, &j, ItemSource::NewFromAttributes(&attrs));
        assert!(matches!(err, Err(RecsError::Unsupported(_))));
    }
}
