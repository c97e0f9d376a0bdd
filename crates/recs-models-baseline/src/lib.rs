//! Baseline recommenders: the floor and the ceiling every other model is judged against.
//!
//! The evaluation papers this workspace reproduces keep showing that trivial models win
//! under some metrics: user popularity matches the aspect model under ROC on MovieLens
//! (schein2005 §6.2), a user's mean rating "outperforms all other methods by ROC
//! standards" in conditional rating prediction (§6.3), and the item-mean "Average
//! Recommender" is the reference line of cremonesi2008 §5.2. So the baselines are
//! first-class models here, tested as carefully as the others:
//!
//! | model | catalog name | score of (user u, item i) |
//! |---|---|---|
//! | [`Random`] | `random` | a seeded hash of (u, i), uniform in [0, 1) |
//! | [`Oracle`] | (`oracle`, needs judgments) | the test grade of (u, i): **a reference only** |
//! | [`ItemPopularity`] | `item-pop` | number of training events of i |
//! | [`UserPopularity`] | `user-pop` | u's share of items (same for all of u's candidates) |
//! | [`UserItemPopularity`] | `user-item-pop` | least-squares fit on user share, item share, product (schein2005 §4.4) |
//! | [`UserMeanRating`] | `user-mean` | u's mean rating (schein2005 §6.3) |
//! | [`ItemMeanRating`] | `item-mean` | i's mean rating (cremonesi2008 "Average Recommender") |
//! | [`TopRated`] | `top-rated` | number of ratings of i at or above a threshold |
//!
//! The design choice that shapes the crate: **capabilities are explicit**. Each model
//! implements [`recs_core::PredictRating`], [`recs_core::ScoreNewItems`] (cold-start
//! items) or [`recs_core::FoldInUser`] only when it truly can, and says so in its docs;
//! a model that cannot score an item unseen in training does not invent a zero for it.
//!
//! | model | predict rating | new items | fold in a user |
//! |---|---|---|---|
//! | `Random` | – | yes (separate random stream) | yes |
//! | `Oracle` | – | – | – |
//! | `ItemPopularity`, `TopRated` | – | – | yes |
//! | `UserPopularity` | – | yes | yes |
//! | `UserItemPopularity` | – | – | yes |
//! | `UserMeanRating` | yes | yes | yes |
//! | `ItemMeanRating` | yes | – | yes |
//!
//! Each model comes as `XParams` (unfitted; validated by `check()` where there is
//! something to validate) implementing [`recs_core::Fit`], and a fitted `X` implementing
//! [`recs_core::Recommender`]. [`catalog`] lists them for the runner and the command line.
//! Errors are [`recs_core::RecsError`]: these models have no failure of their own.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_baseline::{ItemPopularityParams, UserItemPopularityParams};
//!
//! let events = [Event::new(0, 0, 1.0), Event::new(0, 1, 1.0), Event::new(1, 1, 1.0)];
//! let train = Interactions::from_events(2, 3, events, DuplicatePolicy::Error)?;
//! let data = TrainData::new(&train, 42);
//!
//! let popularity = ItemPopularityParams::new().fit(&data)?;
//! let mut scores = [0.0f32; 3];
//! popularity.score(1, &[0, 1, 2], &mut scores)?;
//! assert_eq!(scores, [1.0, 2.0, 0.0]);
//!
//! let regression = UserItemPopularityParams::new().fit(&data)?;
//! regression.score(1, &[0, 2], &mut scores[..2])?;
//! assert!(scores[0] > scores[1]); // an item with a visit beats one without
//! # Ok::<(), recs_core::RecsError>(())
//! ```
#![deny(missing_docs)]

mod common;
mod mean;
mod oracle;
mod popularity;
mod random;
mod regression;

use recs_core::{CheckParams, FitDyn, ModelEntry, ParamSpec, ParamValues, Result};

pub use mean::{
    ItemMeanRating, ItemMeanRatingParams, ItemMeanRatingValidParams, UserMeanRating,
    UserMeanRatingParams,
};
pub use oracle::{Oracle, OracleParams};
pub use popularity::{
    ItemPopularity, ItemPopularityParams, TopRated, TopRatedParams, TopRatedValidParams,
    UserPopularity, UserPopularityParams,
};
pub use random::{Random, RandomParams};
pub use regression::{UserItemPopularity, UserItemPopularityParams};

/// The catalog name of [`Oracle`]. It is not in [`catalog`]: it cannot be built from text
/// parameters alone, it needs the test judgments (see [`OracleParams`]).
pub const ORACLE_NAME: &str = "oracle";

/// Every model of this crate that can be built from text parameters, for the runner and
/// the command line (`recs score --list`). The [`Oracle`] is absent: see [`ORACLE_NAME`].
pub fn catalog() -> Vec<ModelEntry> {
    fn boxed<F: FitDyn + 'static>(fit: F) -> Result<Box<dyn FitDyn>> {
        Ok(Box::new(fit))
    }
    vec![
        ModelEntry {
            name: "random",
            summary: "Random scores from a hash of (seed, user, item); the floor to beat.",
            params: &[],
            needs_attributes: false,
            build: |_| boxed(RandomParams::new()),
        },
        ModelEntry {
            name: "item-pop",
            summary: "Item popularity: number of training events of the item (schein2005 §4.4).",
            params: &[],
            needs_attributes: false,
            build: |_| boxed(ItemPopularityParams::new()),
        },
        ModelEntry {
            name: "user-pop",
            summary: "User popularity: the user's share of items, equal for all of a user's \
                      candidates (schein2005 §4.4).",
            params: &[],
            needs_attributes: false,
            build: |_| boxed(UserPopularityParams::new()),
        },
        ModelEntry {
            name: "user-item-pop",
            summary: "Least-squares regression of observed-or-not on user share, item share \
                      and their product (schein2005 §4.4).",
            params: &[ParamSpec {
                name: "user_term",
                default: "own",
                help: "`own`, or `shuffled`: a placebo whose user term is another training \
                       user's activity (a seeded permutation), fitted as usual",
            }],
            needs_attributes: false,
            build: |values| match values.raw("user_term") {
                None | Some("own") => boxed(UserItemPopularityParams::new()),
                Some("shuffled") => boxed(UserItemPopularityParams::new().with_users_shuffled()),
                Some(other) => Err(recs_core::RecsError::invalid_parameter(
                    "user_term",
                    other,
                    "own or shuffled",
                )),
            },
        },
        ModelEntry {
            name: "user-mean",
            summary: "The user's mean training rating for every item (schein2005 §6.3).",
            params: &[],
            needs_attributes: false,
            build: |_| boxed(UserMeanRatingParams::new()),
        },
        ModelEntry {
            name: "item-mean",
            summary: "The item's mean training rating, the Average Recommender \
                      (cremonesi2008 §5.2).",
            params: &[ParamSpec {
                name: "damping",
                default: "0",
                help: "pseudo-ratings at the global mean added to each item, >= 0 \
                       (0 = the paper's plain mean; ours)",
            }],
            needs_attributes: false,
            build: |values: &ParamValues| {
                let damping = values.get_or("damping", 0.0f64)?;
                boxed(ItemMeanRatingParams::new().damping(damping).check()?)
            },
        },
        ModelEntry {
            name: "top-rated",
            summary: "Number of training ratings of the item at or above a threshold.",
            params: &[ParamSpec {
                name: "threshold",
                default: "4",
                help: "count ratings >= threshold; at the scale's bottom this is item-pop \
                       (ours)",
            }],
            needs_attributes: false,
            build: |values: &ParamValues| {
                let threshold = values.get_or("threshold", 4.0f32)?;
                boxed(TopRatedParams::new().threshold(threshold).check()?)
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_unique_and_build_with_defaults() {
        let entries = catalog();
        let mut names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), entries.len());
        assert!(!names.contains(&ORACLE_NAME));
        for entry in &entries {
            assert!(entry.build_checked(&ParamValues::new()).is_ok(), "{}", entry.name);
        }
    }

    #[test]
    fn catalog_validates_parameters() {
        let entries = catalog();
        let find = |name: &str| entries.iter().find(|e| e.name == name).unwrap();
        let bad = ParamValues::parse(["damping=-2"]).unwrap();
        assert!(find("item-mean").build_checked(&bad).is_err());
        let unknown = ParamValues::parse(["k=3"]).unwrap();
        assert!(find("item-pop").build_checked(&unknown).is_err());
        let good = ParamValues::parse(["threshold=3.5"]).unwrap();
        assert!(find("top-rated").build_checked(&good).is_ok());
    }
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
