//! Mean-rating models: the user's mean (schein2005 §6.3) and the item's mean, the
//! "Average Recommender" of cremonesi2008 §5.2.

use derive_setters::Setters;
use recs_core::{
    CheckParams, Fit, FoldInUser, NewItems, PredictRating, Recommender, RecsError, Result,
    ScoreNewItems, Shape, TrainData, UserRow, check_items, check_score_args,
};

use crate::common::{Along, damped_means, mean};

/// Parameters of [`UserMeanRating`] (none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserMeanRatingParams;

impl UserMeanRatingParams {
    /// The user-mean recommender (no parameters).
    pub fn new() -> Self {
        UserMeanRatingParams
    }
}

impl Fit for UserMeanRatingParams {
    type Model = UserMeanRating;

    fn fit(&self, data: &TrainData<'_>) -> Result<UserMeanRating> {
        let interactions = data.interactions.require_events()?;
        let (global, means) = damped_means(interactions, Along::Users, 0.0);
        Ok(UserMeanRating { n_items: interactions.n_items(), global: global as f32, means })
    }
}

/// Predicts every item of user `u` at `u`'s mean training rating (schein2005 §6.3: "the
/// mean rating for each person i as the predicted rating for (p_i, m_j), for all m_j").
/// A user without training ratings gets the global mean rating.
///
/// Like [`UserPopularity`](crate::UserPopularity) it gives all of a user's candidates the
/// same score, so it is random under CROC and strong under pooled ROC (§6.3).
/// Capabilities: [`PredictRating`] (the same value), [`ScoreNewItems`] (the score ignores
/// the item) and [`FoldInUser`] (the history's mean; the global mean for an empty one).
#[derive(Debug, Clone)]
pub struct UserMeanRating {
    n_items: usize,
    global: f32,
    means: Vec<f32>,
}

impl UserMeanRating {
    /// Mean training rating of each user (global mean for users without ratings).
    pub fn means(&self) -> &[f32] {
        &self.means
    }
}

impl Recommender for UserMeanRating {
    fn shape(&self) -> Shape {
        Shape::new(self.means.len(), self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.means.len(), self.n_items, user, items, out)?;
        out.fill(self.means[user as usize]);
        Ok(())
    }

    recs_core::capabilities!(rating, new_items, fold_in);
}

impl PredictRating for UserMeanRating {
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.score(user, items, out)
    }
}

impl ScoreNewItems for UserMeanRating {
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()> {
        items.check_args(self.means.len(), user, out)?;
        out.fill(self.means[user as usize]);
        Ok(())
    }
}

impl FoldInUser for UserMeanRating {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items, items, out)?;
        out.fill(mean(history.values).map_or(self.global, |m| m as f32));
        Ok(())
    }
}

/// Parameters of [`ItemMeanRating`].
#[derive(Debug, Clone, Copy, PartialEq, Setters)]
pub struct ItemMeanRatingParams {
    /// Shrinks each item's mean towards the global mean as if `damping` extra ratings at
    /// the global mean had been observed (ours; 0 disables it).
    damping: f64,
}

impl Default for ItemMeanRatingParams {
    fn default() -> Self {
        Self::new()
    }
}

impl ItemMeanRatingParams {
    /// Defaults: `damping = 0`, the plain mean of cremonesi2008 §5.2.
    pub fn new() -> Self {
        ItemMeanRatingParams { damping: 0.0 }
    }
}

impl CheckParams for ItemMeanRatingParams {
    type Valid = ItemMeanRatingValidParams;

    /// # Errors
    /// [`RecsError::InvalidParameter`] when `damping` is negative or not finite.
    fn check(&self) -> Result<ItemMeanRatingValidParams> {
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return Err(RecsError::invalid_parameter(
                "damping",
                self.damping,
                "a finite number >= 0",
            ));
        }
        Ok(ItemMeanRatingValidParams { damping: self.damping })
    }
}

/// Validated parameters of [`ItemMeanRating`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemMeanRatingValidParams {
    damping: f64,
}

impl Fit for ItemMeanRatingValidParams {
    type Model = ItemMeanRating;

    fn fit(&self, data: &TrainData<'_>) -> Result<ItemMeanRating> {
        let interactions = data.interactions.require_events()?;
        let (_, means) = damped_means(interactions, Along::Items, self.damping);
        Ok(ItemMeanRating { n_users: interactions.n_users(), means })
    }
}

/// Predicts every user's rating of item `i` as `i`'s mean training rating, and ranks by
/// it: the "Average Recommender" of cremonesi2008 §5.2 ("computes, for each item, the mean
/// of all its ratings ... This list is used for the recommendation to all users").
///
/// ```text
/// score(u, i) = (Σ_{v rated i} r_vi + d·μ) / (n_i + d)
/// ```
///
/// with `μ` the global mean rating and `d` the damping (default 0: the paper's plain
/// mean). An item without training ratings gets `μ`. Scores are comparable across users.
/// Capabilities: [`PredictRating`] (the same value) and [`FoldInUser`] (the list does not
/// depend on the user). No [`ScoreNewItems`].
#[derive(Debug, Clone)]
pub struct ItemMeanRating {
    n_users: usize,
    means: Vec<f32>,
}

impl ItemMeanRating {
    /// The (damped) mean training rating of each item.
    pub fn means(&self) -> &[f32] {
        &self.means
    }

    fn pick(&self, items: &[u32], out: &mut [f32]) {
        for (o, &i) in out.iter_mut().zip(items) {
            *o = self.means[i as usize];
        }
    }
}

impl Recommender for ItemMeanRating {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.means.len())
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.means.len(), user, items, out)?;
        self.pick(items, out);
        Ok(())
    }

    recs_core::capabilities!(rating, fold_in);
}

impl PredictRating for ItemMeanRating {
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.score(user, items, out)
    }
}

impl FoldInUser for ItemMeanRating {
    fn score_history(&self, _history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.means.len(), items, out)?;
        self.pick(items, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Interactions};

    /// user 0: items 0 (5), 1 (3); user 1: item 0 (4); user 2: nothing. Global mean 4.
    fn train() -> Interactions {
        let events = [Event::new(0, 0, 5.0), Event::new(0, 1, 3.0), Event::new(1, 0, 4.0)];
        Interactions::from_events(3, 3, events, DuplicatePolicy::Error).unwrap()
    }

    #[test]
    fn user_mean_by_hand() {
        let m = train();
        let model = UserMeanRatingParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        assert_eq!(model.means(), [4.0, 4.0, 4.0]);
        let mut out = [0.0; 2];
        model.predict(0, &[1, 2], &mut out).unwrap();
        assert_eq!(out, [4.0, 4.0]);
        let history = UserRow { items: &[0, 2], values: &[1.0, 2.0], timestamps: None };
        model.score_history(history, &[1, 2], &mut out).unwrap();
        assert_eq!(out, [1.5, 1.5]);
        let empty = UserRow { items: &[], values: &[], timestamps: None };
        model.score_history(empty, &[1, 2], &mut out).unwrap();
        assert_eq!(out, [4.0, 4.0]);
    }

    #[test]
    fn item_mean_by_hand() {
        let m = train();
        let plain = ItemMeanRatingParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        // Item 0: (5 + 4) / 2; item 1: 3; item 2 unrated: the global mean 4.
        assert_eq!(plain.means(), [4.5, 3.0, 4.0]);
        let damped = ItemMeanRatingParams::new().damping(2.0).fit(&TrainData::new(&m, 0)).unwrap();
        // Item 0: (9 + 2·4) / 4 = 4.25; item 1: (3 + 8) / 3.
        assert_eq!(damped.means()[0], 4.25);
        assert!((damped.means()[1] - 11.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn item_mean_rejects_bad_damping() {
        assert!(ItemMeanRatingParams::new().damping(-1.0).check().is_err());
        assert!(ItemMeanRatingParams::new().damping(f64::NAN).check().is_err());
    }
}
