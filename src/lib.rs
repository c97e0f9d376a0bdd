//! `recs`: evaluate recommender systems properly.
//!
//! This is the facade of the `recs` workspace: one dependency that re-exports each
//! single-purpose crate behind a cargo feature (all on by default). Depend on a single
//! crate instead (most often `recs-metrics`) when that is all you need.
//!
//! | module | crate | feature |
//! |---|---|---|
//! | [`core`] | `recs-core` — ids, interactions, judgments, model traits | always |
//! | `data` | `recs-data` — loaders, registry, statistics, synthetic data | `data` |
//! | `split` | `recs-split` — train/test protocols and judgments | `split` |
//! | `metrics` | `recs-metrics` — exact, tie-aware ROC/CROC and ranking metrics | `metrics` |
//! | `models` | `recs-models-*` — baseline, Bayes, latent and kNN models | `models` |
//! | `bench` | `recs-bench` — experiment runner and reports | `bench` |
//!
//! ```
//! use recs::core::{DuplicatePolicy, Event, Interactions};
//! let train = Interactions::from_events(1, 2, [Event::new(0, 1, 1.0)], DuplicatePolicy::Error)?;
//! assert_eq!(train.n_events(), 1);
//! # Ok::<(), recs::core::RecsError>(())
//! ```
#![deny(missing_docs)]

pub use recs_core as core;

#[cfg(feature = "data")]
pub use recs_data as data;

#[cfg(feature = "split")]
pub use recs_split as split;

#[cfg(feature = "metrics")]
pub use recs_metrics as metrics;

#[cfg(feature = "bench")]
pub use recs_bench as bench;

/// The model crates, one module each.
#[cfg(feature = "models")]
pub mod models {
    pub use recs_models_baseline as baseline;
    pub use recs_models_bayes as bayes;
    pub use recs_models_knn as knn;
    pub use recs_models_latent as latent;
}
