//! Every train/test protocol of the four source papers, and the judgments they define.
//!
//! A *protocol* ([`Protocol`]) divides the events of one [`Interactions`] matrix into a
//! training part, a test part and, for strong generalization, a history part of fold-in
//! events; the result is a [`Split`]. A split then yields the [`Judgments`] the metrics
//! consume, for one of the three test modes of schein2005 §5 (implicit, rating ≥ t,
//! conditional rating), built by [`Split::judgments`] from [`JudgmentOptions`].
//!
//! | protocol | source |
//! |---|---|
//! | [`Protocol::Holdout`], [`Protocol::LeaveKOut`], [`Protocol::LeaveOneOut`], [`Protocol::KFoldEvents`] | cremonesi2008 §2.1 |
//! | [`Protocol::KFoldUsers`] (given-n, all-but-n) | cremonesi2008 §2.1, §3 |
//! | [`Protocol::HiddenItems`] | ignatov2010 §4 |
//! | [`Protocol::ColdStartItems`], [`Split::predefined`] | schein2005 §5 |
//! | [`Protocol::Strong`], [`Protocol::GivenL`], [`Generalization`] | fastml2015 |
//! | [`Protocol::TemporalCut`], [`Protocol::TemporalLastN`] | common practice |
//!
//! The design choice that shapes the crate: **a split is a pure function of
//! `(protocol, data, seed, split id)`**. Randomness comes from
//! `rand_xoshiro::Xoshiro256PlusPlus` streams derived from the seed per purpose (which
//! events, which users, which items) and per user, so that adding a random step somewhere
//! never shifts the others, and nothing depends on hash-map order or thread count.
//! Every protocol assigns each input event to exactly one part, which makes the parts
//! disjoint and complete by construction; the property tests check it anyway. Repetitions
//! and folds are enumerated uniformly by [`SplitId`] ([`Protocol::splits`]); a validation
//! split inside a training set uses the same API ([`Split::validation`]).
//!
//! Errors are [`recs_core::RecsError`]: bad parameters are refused, nothing panics.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Interactions};
//! use recs_split::{Amount, JudgmentOptions, Protocol, SplitId};
//!
//! // Three users, four items, ratings 1-5.
//! let events = [(0, 0, 5.0), (0, 1, 3.0), (1, 1, 4.0), (1, 2, 2.0), (2, 3, 5.0), (2, 0, 1.0)]
//!     .map(|(u, i, r)| Event::new(u, i, r));
//! let data = Interactions::from_events(3, 4, events, DuplicatePolicy::Error)?;
//!
//! // Item cold start (schein2005 §5): one item leaves training entirely.
//! let protocol = Protocol::ColdStartItems { test_items: Amount::Count(1), min_item_events: 0 };
//! let split = protocol.split(&data, 42, SplitId::default())?;
//! let test_item = split.candidate_items().unwrap()[0];
//! assert!(split.train().item_users(test_item).is_empty());
//! assert_eq!(split.train().n_events() + split.test().n_events(), 6);
//!
//! // Implicit mode: every user × the test item, positives are its test events.
//! let judgments = split.judgments(&JudgmentOptions::implicit())?;
//! assert_eq!(judgments.n_candidates(), 3);
//! assert_eq!(judgments.n_relevant(1.0), split.test().n_events());
//! # Ok::<(), recs_core::RecsError>(())
//! ```
//!
//! [`Interactions`]: recs_core::Interactions
//! [`Judgments`]: recs_core::Judgments
#![deny(missing_docs)]

mod judge;
mod keys;
mod protocol;
mod rng;
mod sampled;
mod split;

pub use judge::{
    CandidateSet, CatalogJudgments, GradeScale, JudgedUsers, JudgmentOptions, Relevance,
};
pub use keys::{PROTOCOL_KEYS, ProtocolKey, protocol_keys, protocol_names};
pub use protocol::{Amount, Generalization, Given, HistoryOrder, Protocol, SplitId, TimeCut};
pub use sampled::{NegativeSampling, SampleBy, SampledCandidates, SampledUser};
pub use split::{Split, SplitSummary};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
