//! The shared vocabulary of the `recs` workspace: what every other crate speaks.
//!
//! Recommender evaluation moves a few kinds of data between loaders, splitters, models
//! and metrics. This crate defines them once, with their invariants checked at
//! construction, so that every later stage can rely on them:
//!
//! - [`IdMap`]: external ids found in files ↔ dense `u32` indices;
//! - [`Interactions`]: the sparse user × item matrix of events (CSR on [`sprs`]), with an
//!   explicit [`DuplicatePolicy`] and optional timestamps;
//! - [`ItemAttributes`]: the sparse item × attribute matrix with its vocabulary;
//! - [`Judgments`]: per user, candidate items and their grades — what metrics consume;
//! - the model traits [`Fit`], [`FitDyn`], [`Recommender`] and the capabilities
//!   [`PredictRating`], [`ScoreNewItems`], [`FoldInUser`];
//! - [`ModelEntry`]: how a model crate lists its models for the runner and the CLI;
//! - seeds: [`DEFAULT_SEED`] and [`mix64`], the one mixer streams are derived with;
//! - how unequally a total is spread: [`gini`] and [`shannon_entropy`] (item popularity in
//!   `recs-data`, item exposure in `recs-metrics`);
//! - one error type, [`RecsError`]. Nothing here panics on bad input;
//! - [`columnar`]: Parquet and Arrow IPC files read by column name, for every reader that
//!   takes them.
//!
//! The crate depends on no other `recs` crate, and on nothing heavy unless its `columnar`
//! feature (arrow and parquet) is on.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, IdMap, Interactions, Judgments};
//!
//! // Two users, three items, read from a file with external ids.
//! let mut users = IdMap::new();
//! let mut items = IdMap::new();
//! let mut events = Vec::new();
//! for (user, item, rating) in [("u1", "a", 4.0), ("u1", "b", 2.0), ("u2", "c", 5.0)] {
//!     events.push(Event::new(users.insert(user)?, items.insert(item)?, rating));
//! }
//! let train = Interactions::from_events(users.len(), items.len(), events, DuplicatePolicy::Error)?;
//! assert_eq!(train.user_items(0), &[0, 1]);
//!
//! // Judge user "u2" on two candidates; grade 0 means "not relevant".
//! let mut judgments = Judgments::builder(users.len(), items.len());
//! judgments.push_user(users.get("u2").unwrap(), &[0, 1], &[1.0, 0.0])?;
//! let judgments = judgments.build()?;
//! assert_eq!(judgments.n_relevant(1.0), 1);
//! # Ok::<(), recs_core::RecsError>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod attributes;
mod catalog;
pub mod columnar;
mod error;
mod ids;
mod inequality;
mod interactions;
mod judgments;
mod model;
mod seed;

pub use attributes::ItemAttributes;
pub use catalog::{ModelEntry, ParamSpec, ParamValues};
pub use error::{RecsError, Result, check_index, check_len};
pub use ids::IdMap;
pub use inequality::{gini, shannon_entropy};
pub use interactions::{DuplicatePolicy, Event, Interactions, RowsBuilder, UserRow};
pub use judgments::{Judgments, JudgmentsBuilder, UserJudgments};
pub use model::{
    CheckParams, FactorView, Fit, FitDyn, FoldInUser, NewItems, PredictRating, Recommender,
    ScoreNewItems, ScoreScale, Shape, TrainData, check_items, check_score_args,
};
pub use seed::{DEFAULT_SEED, GOLDEN_GAMMA, mix64, splitmix64};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
