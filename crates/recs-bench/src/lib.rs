//! The experiment engine of `recs`: it brings datasets, protocols, models and metrics
//! together, and it is the one place that knows every model crate.
//!
//! An experiment is written as a [`Config`] (the TOML form `recs run` reads, or values
//! built in code), checked into a [`Plan`] — the only thing that runs — and run by a
//! [`Session`] (or [`run`] for a single plan). Every front end uses this one engine: `recs
//! run`, and each paper reproduction of `cargo xtask reproduce`, which adds only its
//! experiment list, its claims and its page. Results come back as numbers ([`Results`]),
//! a `report.json` entry ([`report`]) and figures, written by [`write_report`].
//!
//! The design choice that shapes it: parse, don't validate. Nothing unchecked reaches the
//! runner, so user input surfaces as a [`BenchError`] naming the key or file, never as a
//! panic. Model crates know nothing of each other or of the runner: each exposes
//! `catalog()`, and [`registry`] concatenates them.
//!
//! ```
//! use recs_bench::{Config, RunOptions, Silent};
//!
//! let plan = Config::from_toml(
//!     r#"
//!     name = "demo"
//!     [dataset]
//!     name = "ml-100k"
//!     [protocol]
//!     protocol = "leave-k-out"
//!     k = "20%"
//!     [evaluation]
//!     metrics = ["ndcg@10", "croc"]
//!     [[models]]
//!     name = "item-pop"
//!     [[models]]
//!     name = "random"
//!     "#,
//!     "demo.toml",
//! )?
//! .check("demo.toml")?;
//! # if std::env::var_os("RECS_DATA_DIR").is_none() { return Ok(()); }
//! let outcome = recs_bench::run(&plan, &RunOptions::default(), &Silent)?;
//! let pop = outcome.results.mean("item-pop", "ndcg@10").unwrap_or(0.0);
//! let random = outcome.results.mean("random", "ndcg@10").unwrap_or(0.0);
//! assert!(pop > random);
//! # Ok::<(), recs_bench::BenchError>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod comparisons;
mod config;
mod corrected;
mod curves;
mod error;
mod output;
mod plan;
mod plot;
pub mod provenance;
pub mod registry;
pub mod report;
mod runner;
mod scoring;
pub mod verdict;

pub use config::{
    ClaimConfig, ComparisonConfig, Config, DatasetConfig, EvaluationConfig, JudgedItems,
    JudgmentsConfig, ModelConfig, SelectionConfig,
};
pub use curves::{ModelCurve, THIN_TOLERANCE};
pub use error::{BenchError, Result};
pub use output::{Extras, Figure, Line, write_report};
pub use plan::SampledCandidates;
pub use plan::{
    AttributeSource, EvalDevice, GroupBy, Measure, MeasureInput, Params, Plan, ProtocolChoice,
    RATING_ERROR_KEYS, RankBy,
};
pub use plot::PlotError;
pub use recs_metrics::io::ModelRows;
pub use registry::models;
pub use runner::{
    CatalogMetrics, CatalogWorkers, DEFAULT_MEMORY_BUDGET, ExperimentRun, ModelResults, Outcome,
    Progress, Results, RunOptions, Session, Silent, Timing, UserValues, catalog_block_users,
    catalog_workers, dataset_entry, evaluate_catalog, evaluate_catalog_with, run,
    sampled_instances,
};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
