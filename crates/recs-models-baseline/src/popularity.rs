//! Counting models: item popularity, user popularity (schein2005 §4.4) and top rated.

use derive_setters::Setters;
use recs_core::{
    CheckParams, Fit, FoldInUser, Interactions, NewItems, Recommender, RecsError, Result,
    ScoreNewItems, ScoreScale, Shape, TrainData, UserRow, check_items, check_score_args,
};

/// Parameters of [`ItemPopularity`] (none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemPopularityParams;

impl ItemPopularityParams {
    /// Item popularity (no parameters).
    pub fn new() -> Self {
        ItemPopularityParams
    }
}

impl Fit for ItemPopularityParams {
    type Model = ItemPopularity;

    fn fit(&self, data: &TrainData<'_>) -> Result<ItemPopularity> {
        let interactions = data.interactions.require_events()?;
        let counts = interactions.item_counts().into_iter().map(|c| c as usize);
        Ok(ItemPopularity(ItemCounts::new(interactions, counts)))
    }
}

/// Scores item `i` by its number of training events `n_i`, the same list for everyone
/// (schein2005 §4.4, "the percentage of people who visited the URL", up to the constant
/// factor `1/|users|`).
///
/// Scores are comparable across users (pooled ROC is meaningful). An item without
/// training events scores 0 — it is in the index space and genuinely had no events.
/// Capabilities: [`FoldInUser`] (the list does not depend on the user). Items unseen in
/// training cannot be scored: no [`ScoreNewItems`].
#[derive(Debug, Clone)]
pub struct ItemPopularity(ItemCounts);

impl ItemPopularity {
    /// Training event count of every item.
    pub fn counts(&self) -> &[f32] {
        &self.0.counts
    }
}

/// What a model with one fixed score per item for every user holds: a count per item,
/// read against the users with training events.
#[derive(Debug, Clone)]
struct ItemCounts {
    n_users: usize,
    /// Users with training events (the others are kept out of training, for fold-in).
    trained_users: usize,
    counts: Vec<f32>,
}

impl ItemCounts {
    /// `counts` (one per item) of a model trained on `interactions`.
    fn new(interactions: &Interactions, counts: impl Iterator<Item = usize>) -> ItemCounts {
        ItemCounts {
            n_users: interactions.n_users(),
            trained_users: interactions.users_with_events().count(),
            counts: counts.map(|c| c as f32).collect(),
        }
    }
}

fn pick(values: &[f32], items: &[u32], out: &mut [f32]) {
    for (o, &i) in out.iter_mut().zip(items) {
        *o = values[i as usize];
    }
}

/// The scoring side of a model with one fixed score per item ([`ItemCounts`]) for every
/// user, seen in training or folded in: written once for [`ItemPopularity`] and
/// [`TopRated`].
macro_rules! fixed_item_scores {
    ($model:ty) => {
        impl Recommender for $model {
            fn shape(&self) -> Shape {
                Shape::new(self.0.n_users, self.0.counts.len())
            }

            fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
                let ItemCounts { n_users, counts, .. } = &self.0;
                check_score_args(*n_users, counts.len(), user, items, out)?;
                pick(counts, items, out);
                Ok(())
            }

            /// A count out of the users with training events: the share of them who met
            /// the item.
            fn score_scale(&self) -> ScoreScale {
                ScoreScale::CountOutOf(self.0.trained_users as f64)
            }

            recs_core::capabilities!(fold_in);
        }

        impl FoldInUser for $model {
            fn score_history(
                &self,
                _history: UserRow<'_>,
                items: &[u32],
                out: &mut [f32],
            ) -> Result<()> {
                check_items(self.0.counts.len(), items, out)?;
                pick(&self.0.counts, items, out);
                Ok(())
            }
        }
    };
}

fixed_item_scores!(ItemPopularity);

/// Parameters of [`UserPopularity`] (none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserPopularityParams;

impl UserPopularityParams {
    /// User popularity (no parameters).
    pub fn new() -> Self {
        UserPopularityParams
    }
}

impl Fit for UserPopularityParams {
    type Model = UserPopularity;

    fn fit(&self, data: &TrainData<'_>) -> Result<UserPopularity> {
        let interactions = data.interactions.require_events()?;
        let n_items = interactions.n_items();
        let shares =
            interactions.user_counts().into_iter().map(|c| share(c as usize, n_items)).collect();
        Ok(UserPopularity { n_items, shares })
    }
}

fn share(count: usize, of: usize) -> f32 {
    (count as f64 / of as f64) as f32
}

/// Scores every candidate of user `u` with `u`'s share of items, `n_u / |items|`
/// (schein2005 §4.4, "the percentage of URLs in the data set the user visited").
///
/// All of a user's candidates get **the same score**, so within a user every order is a
/// tie: under tie-aware metrics its CROC curve is exactly the random-expected one
/// (schein2005 §6.2, "the user popularity recommender becomes a random recommender in the
/// CROC curve"), while its pooled ROC rewards active users (§6.2 Figure 4a).
///
/// Capabilities: [`ScoreNewItems`] (the score ignores the item, so items unseen in
/// training get the same score — the cold-start popularity recommender of §4.4) and
/// [`FoldInUser`] (the history's length over `|items|`). No rating prediction.
#[derive(Debug, Clone)]
pub struct UserPopularity {
    n_items: usize,
    shares: Vec<f32>,
}

impl UserPopularity {
    /// Each user's share of items, `n_u / |items|`.
    pub fn shares(&self) -> &[f32] {
        &self.shares
    }
}

impl Recommender for UserPopularity {
    fn shape(&self) -> Shape {
        Shape::new(self.shares.len(), self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.shares.len(), self.n_items, user, items, out)?;
        out.fill(self.shares[user as usize]);
        Ok(())
    }

    // Scores: a share of the items: the probability that a given item is among the user's.
    recs_core::capabilities!(new_items, fold_in, scale(Probability));
}

impl ScoreNewItems for UserPopularity {
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()> {
        items.check_args(self.shares.len(), user, out)?;
        out.fill(self.shares[user as usize]);
        Ok(())
    }
}

impl FoldInUser for UserPopularity {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items, items, out)?;
        out.fill(share(history.len(), self.n_items));
        Ok(())
    }
}

/// Parameters of [`TopRated`].
#[derive(Debug, Clone, Copy, PartialEq, Setters)]
pub struct TopRatedParams {
    /// Counts ratings at or above `threshold`.
    threshold: f32,
}

impl Default for TopRatedParams {
    fn default() -> Self {
        Self::new()
    }
}

impl TopRatedParams {
    /// Defaults: `threshold = 4` (the "rated 4 or higher" relevance level of
    /// schein2005 §5.1 and cremonesi2008 §2.2; ours as a default).
    pub fn new() -> Self {
        TopRatedParams { threshold: 4.0 }
    }
}

impl CheckParams for TopRatedParams {
    type Valid = TopRatedValidParams;

    /// # Errors
    /// [`RecsError::InvalidParameter`] when `threshold` is not finite.
    fn check(&self) -> Result<TopRatedValidParams> {
        if !self.threshold.is_finite() {
            return Err(RecsError::invalid_parameter(
                "threshold",
                self.threshold,
                "a finite rating",
            ));
        }
        Ok(TopRatedValidParams { threshold: self.threshold })
    }
}

/// Validated parameters of [`TopRated`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopRatedValidParams {
    threshold: f32,
}

impl Fit for TopRatedValidParams {
    type Model = TopRated;

    fn fit(&self, data: &TrainData<'_>) -> Result<TopRated> {
        let interactions = data.interactions.require_events()?;
        let counts = (0..interactions.n_items() as u32)
            .map(|i| interactions.item_values(i).iter().filter(|&&v| v >= self.threshold).count());
        Ok(TopRated(ItemCounts::new(interactions, counts)))
    }
}

/// Scores item `i` by the number of training ratings of `i` at or above a threshold
/// (default 4): the "most rated highly" list, the same for everyone.
///
/// With a threshold at or below the bottom of the rating scale it counts every rating and
/// equals [`ItemPopularity`] ("most rated"); on implicit data (every value `1.0`) use
/// `threshold = 1`. Scores are comparable across users. Capabilities: [`FoldInUser`]
/// (the list does not depend on the user). No [`ScoreNewItems`].
#[derive(Debug, Clone)]
pub struct TopRated(ItemCounts);

impl TopRated {
    /// Number of training ratings at or above the threshold, per item.
    pub fn counts(&self) -> &[f32] {
        &self.0.counts
    }
}

fixed_item_scores!(TopRated);

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Interactions};

    /// Ratings: user 0: items 0 (5), 1 (3); user 1: items 0 (4), 2 (2); user 2: item 0 (1).
    fn train() -> Interactions {
        recs_testkit::ratings_grid(
            "
            5 3 . .
            4 . 2 .
            1 . . .
            ",
        )
    }

    fn scores(model: &dyn Recommender, user: u32) -> Vec<f32> {
        let items: Vec<u32> = (0..model.n_items() as u32).collect();
        let mut out = vec![0.0; items.len()];
        model.score(user, &items, &mut out).unwrap();
        out
    }

    #[test]
    fn item_popularity_counts_events() {
        let m = train();
        let model = ItemPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        assert_eq!(scores(&model, 2), [3.0, 1.0, 1.0, 0.0]);
        assert_eq!(scores(&model, 0), scores(&model, 1));
        // Read as probabilities, the counts are shares of the training users.
        let shares: Vec<Option<f64>> =
            scores(&model, 2).iter().map(|&s| model.score_scale().probability(s)).collect();
        let n = m.n_users() as f64;
        assert_eq!(shares, [3.0 / n, 1.0 / n, 1.0 / n, 0.0].map(Some));
    }

    #[test]
    fn user_popularity_is_constant_per_user() {
        let m = train();
        let model = UserPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        assert_eq!(scores(&model, 0), [0.5; 4]);
        assert_eq!(scores(&model, 2), [0.25; 4]);
        let history = UserRow { items: &[0, 1, 2], values: &[1.0; 3], timestamps: None };
        let mut out = [0.0; 2];
        model.score_history(history, &[0, 3], &mut out).unwrap();
        assert_eq!(out, [0.75; 2]);
    }

    #[test]
    fn top_rated_counts_ratings_at_or_above_threshold() {
        let m = train();
        let model = TopRatedParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        assert_eq!(scores(&model, 0), [2.0, 0.0, 0.0, 0.0]);
        let all = TopRatedParams::new().threshold(1.0).fit(&TrainData::new(&m, 0)).unwrap();
        assert_eq!(scores(&all, 0), [3.0, 1.0, 1.0, 0.0]);
    }

    proptest::proptest! {
        /// On any data, all of a user's candidates tie, so every within-user order (and
        /// hence the CROC curve under tie-aware metrics) is the random-expected one.
        #[test]
        fn user_popularity_ties_all_candidates_of_a_user(
            cells in proptest::collection::vec(proptest::bool::weighted(0.3), 48),
        ) {
            let events = cells.iter().enumerate().filter(|&(_, &on)| on)
                .map(|(k, _)| Event::new((k / 8) as u32, (k % 8) as u32, 1.0));
            let m = Interactions::from_events(6, 8, events, DuplicatePolicy::Error).unwrap();
            proptest::prop_assume!(m.n_events() > 0);
            let model = UserPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
            for user in 0..6 {
                let s = scores(&model, user);
                let expected = m.user_items(user).len() as f32 / 8.0;
                proptest::prop_assert!(s.iter().all(|&x| x == expected), "{s:?}");
            }
        }
    }

    #[test]
    fn top_rated_rejects_a_non_finite_threshold() {
        assert!(TopRatedParams::new().threshold(f32::NAN).check().is_err());
        assert!(TopRatedParams::new().threshold(f32::INFINITY).check().is_err());
    }
}
