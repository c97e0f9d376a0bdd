//! The experiment runner of `recs`: it brings datasets, protocols, models and metrics
//! together, and it is the one place that knows every model crate.
//!
//! - [`registry`]: every catalogued model by name;
//! - [`scoring`]: a fitted model's scores for judgments, in the metrics' layout;
//! - [`curves`]: exact curves summarised for reports (thinning, increments, figures);
//! - [`report`]: the versioned `report.json` contract, its validation, `report.md`;
//! - [`plot`]: SVG figures with plotters.
//!
//! The design choice that shapes it: model crates know nothing of each other or of the
//! runner. Each exposes `catalog()` (names, parameters, a builder), and
//! [`registry`] concatenates them, so adding a model crate is one line here and every
//! front end (configs, `recs score`, `cargo xtask reproduce`) sees it at once.
//!
//! ```
//! use recs_bench::registry;
//! use recs_core::{DuplicatePolicy, Event, Interactions, ParamValues, TrainData};
//!
//! let events = [Event::new(0, 0, 1.0), Event::new(1, 0, 1.0), Event::new(1, 1, 1.0)];
//! let train = Interactions::from_events(2, 2, events, DuplicatePolicy::Error)?;
//! let entry = registry::find("item-pop")?;
//! let model = entry.build_checked(&ParamValues::new())?.fit_dyn(&TrainData::new(&train, 1))?;
//! let mut scores = [0.0f32; 2];
//! model.score(0, &[0, 1], &mut scores)?;
//! assert_eq!(scores, [2.0, 1.0]);
//! # Ok::<(), recs_core::RecsError>(())
//! ```
#![deny(missing_docs)]

pub mod config;
pub mod curves;
pub mod data;
mod error;
pub mod evaluation;
pub mod output;
pub mod plot;
pub mod registry;
pub mod report;
pub mod runner;
pub mod scoring;

pub use error::{BenchError, Result};
