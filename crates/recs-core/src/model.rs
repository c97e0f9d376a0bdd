//! The traits every recommender implements, in the spirit of linfa: validated
//! hyper-parameters [`Fit`] training data into a fitted [`Recommender`], which scores a
//! user's candidate items into a caller's buffer.
//!
//! Optional capabilities are separate traits reached through the `as_*` methods of
//! [`Recommender`], so a runner holding `Box<dyn Recommender>` can ask "can you predict
//! ratings?" and get an explicit `None` rather than a silent zero.

use crate::attributes::ItemAttributes;
use crate::error::{RecsError, Result, check_index, check_len};
use crate::interactions::{Interactions, UserRow};

/// Everything a model may learn from.
#[derive(Debug, Clone, Copy)]
pub struct TrainData<'a> {
    /// Training events (ratings or implicit 1.0).
    pub interactions: &'a Interactions,
    /// Item attributes over the same item index space, for content and cold-start models.
    pub attributes: Option<&'a ItemAttributes>,
    /// The seed of every random choice the fit makes. Same seed ⇒ same model.
    pub seed: u64,
}

impl<'a> TrainData<'a> {
    /// Training data without attributes.
    pub fn new(interactions: &'a Interactions, seed: u64) -> Self {
        TrainData { interactions, attributes: None, seed }
    }

    /// The same data with item attributes attached.
    ///
    /// # Errors
    /// [`RecsError::LengthMismatch`] when the attribute matrix covers another number of items.
    pub fn with_attributes(mut self, attributes: &'a ItemAttributes) -> Result<Self> {
        check_len("attribute rows (items)", self.interactions.n_items(), attributes.n_items())?;
        self.attributes = Some(attributes);
        Ok(self)
    }

    /// The attributes, or an error naming the model that needs them.
    ///
    /// # Errors
    /// [`RecsError::Unsupported`] when no attributes were given.
    pub fn require_attributes(&self, model: &str) -> Result<&'a ItemAttributes> {
        self.attributes
            .ok_or_else(|| RecsError::Unsupported(format!("{model} needs item attributes")))
    }
}

/// Validated hyper-parameters that can fit a model.
///
/// Implement this on the *validated* parameter type (`XValidParams` or a type whose
/// constructor validated), so that an invalid configuration cannot reach `fit`.
pub trait Fit {
    /// The fitted model.
    type Model: Recommender + 'static;

    /// Learns a model from `data`.
    ///
    /// # Errors
    /// Data the model cannot use (no events, missing attributes, ...).
    fn fit(&self, data: &TrainData<'_>) -> Result<Self::Model>;
}

/// Hyper-parameters that are validated before anything is fitted (linfa's `ParamGuard`):
/// [`check`](Self::check) turns them into their `Valid` form, the one that fits, and every
/// `CheckParams` type [`Fit`]s by checking first.
///
/// ```
/// use recs_core::{CheckParams, Fit, RecsError, Result, TrainData, Recommender};
/// # struct Model;
/// # impl Recommender for Model {
/// #     fn shape(&self) -> recs_core::Shape { recs_core::Shape::new(0, 0) }
/// #     fn score(&self, _: u32, _: &[u32], _: &mut [f32]) -> Result<()> { Ok(()) }
/// # }
/// struct Params { k: usize }
/// struct ValidParams { k: usize }
///
/// impl CheckParams for Params {
///     type Valid = ValidParams;
///     fn check(&self) -> Result<ValidParams> {
///         if self.k == 0 {
///             return Err(RecsError::invalid_parameter("k", self.k, "at least 1"));
///         }
///         Ok(ValidParams { k: self.k })
///     }
/// }
///
/// impl Fit for ValidParams {
///     type Model = Model;
///     fn fit(&self, _: &TrainData<'_>) -> Result<Model> { Ok(Model) }
/// }
///
/// assert!(Params { k: 0 }.check().is_err());
/// # let data = recs_core::Interactions::from_events(1, 1, [], recs_core::DuplicatePolicy::Error)?;
/// assert!(Params { k: 0 }.fit(&TrainData::new(&data, 0)).is_err());
/// assert!(Params { k: 2 }.fit(&TrainData::new(&data, 0)).is_ok());
/// # Ok::<(), RecsError>(())
/// ```
pub trait CheckParams {
    /// The validated parameters.
    type Valid: Fit;

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] (or the model's own error) naming what is wrong.
    fn check(&self) -> Result<Self::Valid>;
}

impl<P: CheckParams> Fit for P {
    type Model = <P::Valid as Fit>::Model;

    fn fit(&self, data: &TrainData<'_>) -> Result<Self::Model> {
        self.check()?.fit(data)
    }
}

/// Object-safe form of [`Fit`], so a runner can hold a list of differently typed models.
/// Every `Fit + Send + Sync` type implements it.
pub trait FitDyn: Send + Sync {
    /// Learns a model from `data`, boxed.
    ///
    /// # Errors
    /// As [`Fit::fit`].
    fn fit_dyn(&self, data: &TrainData<'_>) -> Result<Box<dyn Recommender>>;
}

impl<T: Fit + Send + Sync> FitDyn for T {
    fn fit_dyn(&self, data: &TrainData<'_>) -> Result<Box<dyn Recommender>> {
        Ok(Box::new(self.fit(data)?))
    }
}

/// The index space a model was trained in: users `0..n_users`, items `0..n_items`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// Number of users.
    pub n_users: usize,
    /// Number of items.
    pub n_items: usize,
}

impl Shape {
    /// `n_users` users by `n_items` items.
    pub const fn new(n_users: usize, n_items: usize) -> Self {
        Shape { n_users, n_items }
    }
}

/// A factor model's factors as its scores are computed from them: the score of (user
/// `u`, item `i`) is the dot product of `users[u · rank ..][..rank]` and
/// `items[i · rank ..][..rank]`, each `f32` product widened to `f64` (where it is exact)
/// and added from `+0.0` in dimension order, the sum rounded once to `f32`.
///
/// ```
/// use recs_core::FactorView;
/// let view = FactorView { rank: 2, users: &[1.0, 2.0], items: &[0.5, 0.25, 3.0, -1.0] };
/// assert_eq!(view.score(0, 0), 1.0);
/// assert_eq!(view.score(0, 1), 1.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FactorView<'a> {
    /// Dimensions.
    pub rank: usize,
    /// `n_users × rank`, row-major.
    pub users: &'a [f32],
    /// `n_items × rank`, row-major.
    pub items: &'a [f32],
}

impl FactorView<'_> {
    /// The score of (`user`, `item`) by the definition above.
    ///
    /// # Panics
    /// When `user` or `item` has no row.
    pub fn score(&self, user: usize, item: usize) -> f32 {
        let (u, v) = (
            &self.users[user * self.rank..][..self.rank],
            &self.items[item * self.rank..][..self.rank],
        );
        u.iter().zip(v).fold(0.0f64, |sum, (&x, &y)| sum + f64::from(x) * f64::from(y)) as f32
    }
}

/// A fitted model: scores candidate items for a user seen in training.
///
/// Larger scores mean "recommend sooner". Scores only need to order items within a user
/// for ranking metrics; pooled metrics (ROC over all users) also compare scores across
/// users, so models document whether their scores are comparable across users.
pub trait Recommender: Send + Sync {
    /// The training index space: the users and items [`score`](Self::score) accepts.
    fn shape(&self) -> Shape;

    /// Users in the training index space.
    fn n_users(&self) -> usize {
        self.shape().n_users
    }

    /// Items in the training index space.
    fn n_items(&self) -> usize {
        self.shape().n_items
    }

    /// Writes the score of each of `items` for `user` into `out` (same length).
    ///
    /// # Errors
    /// A user or item out of range, or `out.len() != items.len()`; use
    /// [`check_score_args`] to implement these checks uniformly.
    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()>;

    /// Writes the score of every item for each of `users` into `out` (`users.len() ×
    /// n_items`, row-major): row `r` equals [`score`](Self::score) of `users[r]` with
    /// items `0..n_items`, bit for bit. The default does exactly that; models with a
    /// faster blocked computation of the same numbers override it.
    ///
    /// # Errors
    /// As [`score`](Self::score), or `out.len() != users.len() × n_items`.
    fn score_catalog(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        let n_items = self.n_items();
        crate::check_len("catalog score buffer (users × items)", users.len() * n_items, out.len())?;
        let items: Vec<u32> = (0..n_items as u32).collect();
        for (&user, row) in users.iter().zip(out.chunks_mut(n_items.max(1))) {
            self.score(user, &items, row)?;
        }
        Ok(())
    }

    /// This model as a rating predictor, if it is one.
    fn as_rating_predictor(&self) -> Option<&dyn PredictRating> {
        None
    }

    /// This model as a scorer of items unseen in training, if it can score them.
    fn as_new_item_scorer(&self) -> Option<&dyn ScoreNewItems> {
        None
    }

    /// This model as a scorer for users unseen in training, if it can fold them in.
    fn as_user_fold_in(&self) -> Option<&dyn FoldInUser> {
        None
    }

    /// The factors this model's scores are computed from, if it is a factor model whose
    /// every [`score`](Self::score) of a training user is [`FactorView`]'s dot product:
    /// an evaluator may then compute the scores elsewhere (a GPU) and get the same bits.
    fn as_factors(&self) -> Option<FactorView<'_>> {
        None
    }

    /// How this model's scores read as probabilities, from any scoring path (trained
    /// items, new items, folded-in users). The default: they do not.
    fn score_scale(&self) -> ScoreScale {
        ScoreScale::Unstated
    }

    /// Numbers that say how the fit went (iterations run, what the fit gained over its
    /// start), as (name, value) pairs in a fixed order, for a run's report: a fit that
    /// stopped near its start shows it here rather than only in its scores. The default:
    /// none.
    fn fit_facts(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// How a model's scores read as the probability the model states for a candidate, for
/// measures that compare predictions with 0/1 outcomes (mean absolute error, calibration).
///
/// ```
/// use recs_core::ScoreScale;
/// assert_eq!(ScoreScale::LogOdds.probability(0.0), Some(0.5));
/// assert_eq!(ScoreScale::CountOutOf(4.0).probability(1.0), Some(0.25));
/// assert_eq!(ScoreScale::Probability.probability(1.2), Some(1.0));
/// assert_eq!(ScoreScale::Unstated.probability(0.3), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScoreScale {
    /// Scores only order candidates (a rating, a similarity sum, a latent product).
    Unstated,
    /// Scores are probabilities already: a share, `P(r ≥ t)`, a joint probability. A
    /// linear probability model's prediction can leave `[0, 1]`; it is clipped.
    Probability,
    /// Scores are log-odds: the probability is `σ(score)`.
    LogOdds,
    /// Scores are counts out of a total (events of an item out of the users): the
    /// probability is `score / total`.
    CountOutOf(f64),
}

impl ScoreScale {
    /// The probability a score states, or `None` for [`ScoreScale::Unstated`].
    pub fn probability(self, score: f32) -> Option<f64> {
        let s = f64::from(score);
        match self {
            ScoreScale::Unstated => None,
            ScoreScale::Probability => Some(s.clamp(0.0, 1.0)),
            ScoreScale::LogOdds => Some(1.0 / (1.0 + (-s).exp())),
            ScoreScale::CountOutOf(total) => Some((s / total).clamp(0.0, 1.0)),
        }
    }
}

/// Predicts ratings on the training scale (for MAE/RMSE and rating-threshold protocols).
pub trait PredictRating: Send + Sync {
    /// Writes the predicted rating of each of `items` for `user` into `out`.
    ///
    /// # Errors
    /// As [`Recommender::score`].
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()>;
}

/// Scores items that had no training events, from their attributes (cold start).
pub trait ScoreNewItems: Send + Sync {
    /// Writes into `out` the scores for `user` of the new `items`.
    ///
    /// # Errors
    /// A user out of range, an attribute vocabulary of another size than the fitted
    /// one, or `out.len() != items.len()` (see [`NewItems::check_args`]).
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()>;
}

/// Items unseen in training, to be scored from their attributes: an attribute table and the
/// rows of it to score, every row checked to be in range. The table must use the attribute
/// vocabulary the model was fitted with; its row indices need not be training item indices.
///
/// ```
/// use recs_core::{IdMap, ItemAttributes, NewItems};
/// let vocabulary = IdMap::from_ids_sorted(["Comedy", "Drama"])?;
/// let attributes = ItemAttributes::from_pairs(2, vocabulary, [(0, 1, 1.0), (1, 0, 1.0)])?;
/// let items = NewItems::new(&attributes, &[1, 0])?;
/// assert_eq!(items.rows(), &[1, 0]);
/// assert!(NewItems::new(&attributes, &[2]).is_err());
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NewItems<'a> {
    attributes: &'a ItemAttributes,
    rows: &'a [u32],
}

impl<'a> NewItems<'a> {
    /// The `rows` of `attributes`.
    ///
    /// # Errors
    /// [`RecsError::IndexOutOfRange`] for a row that `attributes` does not have.
    pub fn new(attributes: &'a ItemAttributes, rows: &'a [u32]) -> Result<Self> {
        if let Some(&row) = rows.iter().find(|&&r| r as usize >= attributes.n_items()) {
            return Err(RecsError::IndexOutOfRange {
                what: "new item row",
                index: row as usize,
                len: attributes.n_items(),
            });
        }
        Ok(NewItems { attributes, rows })
    }

    /// The attribute table.
    pub fn attributes(&self) -> &'a ItemAttributes {
        self.attributes
    }

    /// The rows of [`attributes`](Self::attributes) to score, in output order.
    pub fn rows(&self) -> &'a [u32] {
        self.rows
    }

    /// The argument checks of every [`ScoreNewItems::score_new_items`]: `user < n_users`
    /// and one output slot per item.
    ///
    /// # Errors
    /// The first violated check.
    pub fn check_args(&self, n_users: usize, user: u32, out: &[f32]) -> Result<()> {
        check_index("user", user as usize, n_users)?;
        check_items(self.attributes.n_items(), self.rows, out)
    }

    /// Checks that the table has the `fitted` number of attributes, for models that
    /// learned from attributes.
    ///
    /// # Errors
    /// [`RecsError::LengthMismatch`] for a vocabulary of another size.
    pub fn check_vocabulary(&self, fitted: usize) -> Result<()> {
        check_len("attribute vocabulary", fitted, self.attributes.n_attributes())
    }
}

/// Scores items for a user unseen in training, from that user's history, without refitting.
pub trait FoldInUser: Send + Sync {
    /// Writes into `out` the scores of `items` for a user whose known events are `history`.
    ///
    /// # Errors
    /// Items out of range or a length mismatch.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()>;

    /// As [`FoldInUser::score_history`], for the user the evaluation knows as `user` (its
    /// index in the evaluation's users, stable for a given dataset and split). A model
    /// whose scores depend only on the history, as most do, keeps this default; one that
    /// gives each user scores of its own (the random recommender) tells users with the same
    /// history apart by it.
    ///
    /// # Errors
    /// As [`FoldInUser::score_history`].
    fn score_history_of(
        &self,
        user: u32,
        history: UserRow<'_>,
        items: &[u32],
        out: &mut [f32],
    ) -> Result<()> {
        let _ = user;
        self.score_history(history, items, out)
    }
}

/// The argument checks every [`Recommender::score`] must make: `user < n_users`,
/// every item `< n_items`, and `out.len() == items.len()`.
///
/// # Errors
/// The first violated check.
pub fn check_score_args(
    n_users: usize,
    n_items: usize,
    user: u32,
    items: &[u32],
    out: &[f32],
) -> Result<()> {
    check_index("user", user as usize, n_users)?;
    check_items(n_items, items, out)
}

/// The item half of [`check_score_args`], for scorers without a user index.
///
/// # Errors
/// An item out of range or `out.len() != items.len()`.
pub fn check_items(n_items: usize, items: &[u32], out: &[f32]) -> Result<()> {
    check_len("score buffer", items.len(), out.len())?;
    if let Some(&item) = items.iter().find(|&&i| i as usize >= n_items) {
        return Err(RecsError::IndexOutOfRange {
            what: "item",
            index: item as usize,
            len: n_items,
        });
    }
    Ok(())
}

/// Declares the capabilities a model offers, inside its `impl Recommender` block: each of
/// `rating` ([`PredictRating`]), `new_items` ([`ScoreNewItems`]) and `fold_in`
/// ([`FoldInUser`]) becomes the `as_*` method returning `Some(self)`, and `scale(S)` the
/// [`score_scale`](Recommender::score_scale) returning [`ScoreScale::S`](ScoreScale). A
/// capability or scale that depends on the fitted model is written out by hand instead.
///
/// ```
/// use recs_core::{PredictRating, Recommender, Result, Shape, check_score_args};
///
/// struct Constant;
///
/// impl Recommender for Constant {
///     fn shape(&self) -> Shape { Shape::new(1, 2) }
///     fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
///         check_score_args(1, 2, user, items, out)?;
///         out.fill(3.0);
///         Ok(())
///     }
///     recs_core::capabilities!(rating, scale(Probability));
/// }
///
/// impl PredictRating for Constant {
///     fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
///         self.score(user, items, out)
///     }
/// }
///
/// assert!(Constant.as_rating_predictor().is_some());
/// assert!(Constant.as_user_fold_in().is_none());
/// assert_eq!(Constant.score_scale(), recs_core::ScoreScale::Probability);
/// ```
#[macro_export]
macro_rules! capabilities {
    ($($capability:ident $(($scale:ident))?),+ $(,)?) => {
        $( $crate::capabilities!(@one $capability $(($scale))?); )+
    };
    (@one scale($scale:ident)) => {
        fn score_scale(&self) -> $crate::ScoreScale {
            $crate::ScoreScale::$scale
        }
    };
    (@one rating) => {
        fn as_rating_predictor(&self) -> Option<&dyn $crate::PredictRating> {
            Some(self)
        }
    };
    (@one new_items) => {
        fn as_new_item_scorer(&self) -> Option<&dyn $crate::ScoreNewItems> {
            Some(self)
        }
    };
    (@one fold_in) => {
        fn as_user_fold_in(&self) -> Option<&dyn $crate::FoldInUser> {
            Some(self)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DuplicatePolicy, Event, IdMap};

    #[test]
    fn score_arguments_are_checked() {
        assert!(check_score_args(2, 3, 1, &[0, 2], &[0.0, 0.0]).is_ok());
        assert!(matches!(
            check_score_args(2, 3, 2, &[0], &[0.0]),
            Err(RecsError::IndexOutOfRange { what: "user", .. })
        ));
        assert!(matches!(
            check_score_args(2, 3, 0, &[3], &[0.0]),
            Err(RecsError::IndexOutOfRange { what: "item", index: 3, len: 3 })
        ));
        assert!(matches!(
            check_score_args(2, 3, 0, &[0, 1], &[0.0]),
            Err(RecsError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn new_item_arguments_are_checked() {
        let vocabulary = IdMap::from_ids_sorted(["a", "b"]).unwrap();
        let attributes = ItemAttributes::from_pairs(3, vocabulary, [(2, 1, 1.0)]).unwrap();
        assert!(matches!(
            NewItems::new(&attributes, &[0, 3]),
            Err(RecsError::IndexOutOfRange { what: "new item row", index: 3, len: 3 })
        ));
        let items = NewItems::new(&attributes, &[2, 0]).unwrap();
        assert!(items.check_args(4, 3, &[0.0, 0.0]).is_ok());
        assert!(items.check_args(4, 4, &[0.0, 0.0]).is_err());
        assert!(items.check_args(4, 0, &[0.0]).is_err());
        assert!(items.check_vocabulary(2).is_ok());
        assert!(matches!(
            items.check_vocabulary(3),
            Err(RecsError::LengthMismatch { expected: 3, found: 2, .. })
        ));
    }

    #[test]
    fn attributes_must_cover_the_training_items() {
        let train =
            Interactions::from_events(1, 2, [Event::new(0, 0, 1.0)], DuplicatePolicy::Error)
                .unwrap();
        let vocabulary = IdMap::from_ids_sorted(["a"]).unwrap();
        let three = ItemAttributes::from_pairs(3, vocabulary.clone(), [(0, 0, 1.0)]).unwrap();
        let two = ItemAttributes::from_pairs(2, vocabulary, [(0, 0, 1.0)]).unwrap();
        let data = TrainData::new(&train, 1);
        assert!(data.require_attributes("m").is_err());
        assert!(data.with_attributes(&three).is_err());
        let data = data.with_attributes(&two).unwrap();
        assert_eq!(data.require_attributes("m").unwrap().n_items(), 2);
    }
}
