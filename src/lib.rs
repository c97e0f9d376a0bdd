//! `recs-eval`: evaluate recommender systems properly.
//!
//! This is the facade of the `recs` workspace, published as `recs-eval`: one dependency that re-exports each
//! single-purpose crate behind a cargo feature (all on by default). Depend on a single
//! crate instead (most often `recs-metrics`) when that is all you need.
//!
//! | module | crate | feature |
//! |---|---|---|
//! | [`core`] | `recs-core` — ids, interactions, judgments, model traits | always |
//! | `data` | `recs-data` — loaders, registry, statistics, synthetic data | `data` |
//! | `split` | `recs-split` — train/test protocols and judgments | `split` |
//! | `metrics` | `recs-metrics` — exact, tie-aware ROC/CROC and ranking metrics | `metrics` |
//! | `sampled` | `recs-sampled` — sampled ranking metrics and their corrections | `sampled` |
//! | `models` | `recs-models-*` — baseline, Bayes, kNN and latent models, one module each | `models` (implies `bench`) |
//! | `bench` | `recs-bench` — experiment runner and reports | `bench` |
//!
//! ```
//! use recs_eval::core::{DuplicatePolicy, Event, Interactions};
//! let train = Interactions::from_events(1, 2, [Event::new(0, 1, 1.0)], DuplicatePolicy::Error)?;
//! assert_eq!(train.n_events(), 1);
//! # Ok::<(), recs_eval::core::RecsError>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub use recs_core as core;

#[cfg(feature = "data")]
pub use recs_data as data;

#[cfg(feature = "split")]
pub use recs_split as split;

#[cfg(feature = "metrics")]
pub use recs_metrics as metrics;

#[cfg(feature = "sampled")]
pub use recs_sampled as sampled;

#[cfg(feature = "bench")]
pub use recs_bench as bench;

// The model crates as `recs_eval::models::{baseline, bayes, knn, latent, ...}`: the list lives
// once, in recs-bench's registry, so a new model crate needs no line in the facade.
#[cfg(feature = "models")]
pub use recs_bench::registry::models;

// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
