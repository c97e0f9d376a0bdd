//! Latent factor recommenders: PureSVD, logistic PCA, the aspect model with folding-in,
//! and alternating least squares — the factor models that the evaluation papers compare.
//!
//! | model | type | paper | scores |
//! |---|---|---|---|
//! | `puresvd` | [`PureSvdParams`] → [`PureSvd`] | Cremonesi et al. 2008 §4.1 / 2010 | `r_u V_L V_Lᵀ` |
//! | `lpca` | [`LpcaParams`] → [`Lpca`] | Schein, Saul & Ungar 2003; schein2005 §4.1 | `Θ = UV + Δ` |
//! | `aspect` | [`AspectParams`] → [`Aspect`] | Hofmann 1999; schein2005 §4.2.1 | `P(p, m)` |
//! | `aspect-attr` | [`AspectAttrParams`] → [`AspectAttr`] | schein2005 §4.2.2–4.2.3 | `P(p|m)` |
//! | `als` / `ials` | [`AlsParams`] → [`Als`] | fastml2015; Hu, Koren & Volinsky 2008 | `x_u · y_i` |
//! | — | [`FactorModel`] (factors fitted elsewhere, handed in) | | `x_u · y_i` |
//!
//! The design choice that shapes the crate: **every fit is a deterministic function of
//! the data and the seed, whatever the thread count**. Random draws come from seeded
//! `Xoshiro256PlusPlus` streams (one per purpose); faer runs with `Par::Seq`; parallel
//! loops only solve independent rows, and reductions over rows run in fixed chunks summed
//! in a fixed order; singular vectors have their signs fixed. Fits that iterate return
//! their convergence report with the model ([`SvdReport`], [`LpcaReport`],
//! [`AspectReport`], [`AlsReport`]) — "not converged" is information, not an error.
//!
//! Every model scores users seen in training through [`recs_core::Recommender`] and folds
//! in users unseen in training ([`recs_core::FoldInUser`]): PureSVD by projection, ALS by
//! one regularised solve, LPCA by bound-maximising updates, the aspect model by EM over
//! `P(z|p)`. The person/attribute aspect model scores items unseen in training from their
//! attributes ([`recs_core::ScoreNewItems`]). Factor models also score blocks of users
//! with one matrix product ([`PureSvd::score_block`], [`Als::score_block`]).
//!
//! Timings, and ratios against scipy's `svds` and the `implicit` package measured by
//! `tools/bench_latent.py`, are recorded in the doc comment of `benches/latent.rs`.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_latent::PureSvdParams;
//!
//! let events = [
//!     Event::new(0, 0, 5.0), Event::new(0, 1, 4.0),
//!     Event::new(1, 0, 4.0), Event::new(1, 2, 1.0),
//!     Event::new(2, 1, 5.0), Event::new(2, 2, 2.0),
//! ];
//! let train = Interactions::from_events(3, 3, events, DuplicatePolicy::Error)?;
//! let model = PureSvdParams::new(3)?.fit(&TrainData::new(&train, 42))?;
//! // At full rank the scores reproduce the rating matrix (missing = 0).
//! let mut scores = [0.0f32; 3];
//! model.score(1, &[0, 1, 2], &mut scores)?;
//! assert!((scores[0] - 4.0).abs() < 1e-4 && scores[1].abs() < 1e-4);
//! # Ok::<(), recs_core::RecsError>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// The crate's documentation describes every model; without `fits` some are not built.
#![cfg_attr(not(feature = "fits"), allow(rustdoc::broken_intra_doc_links))]
// The numeric kernels index several parallel arrays with one loop variable, as the
// papers' formulas do; iterator chains would hide the correspondence.
#![allow(clippy::needless_range_loop)]

#[cfg(feature = "fits")]
mod als;
mod aspect;
#[cfg(feature = "fits")]
mod catalog;
mod common;
mod given;
mod kernel;
#[cfg(feature = "fits")]
mod lanczos;
mod lpca;
#[cfg(feature = "fits")]
mod puresvd;
#[cfg(feature = "fits")]
mod sparse;

#[cfg(feature = "fits")]
pub use als::{Als, AlsLoss, AlsParams, AlsReport};
pub use aspect::{
    Aspect, AspectAttr, AspectAttrParams, AspectForm, AspectParams, AspectReport,
    FOLD_IN_ITERATIONS,
};
#[cfg(feature = "fits")]
pub use catalog::catalog;
pub use given::FactorModel;
pub use lpca::{Lpca, LpcaFit, LpcaParams, LpcaReport};
#[cfg(feature = "fits")]
pub use puresvd::{PureSvd, PureSvdParams, SvdReport, SvdSolver};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
