//! Sampled ranking metrics and their corrections.
//!
//! Much of the recommender literature ranks each held-out item against a sample of `m`
//! negatives (often 99 or 100) instead of the whole catalog. Krichene & Rendle ("On
//! Sampled Metrics for Item Recommendation", KDD 2020) showed that such sampled metrics are
//! inconsistent with the exact ones, even in expectation, and proposed corrections. This
//! crate gives the mathematics, exactly:
//!
//! - [`SampledRank`]: the distribution of the sampled rank `r̃` given the exact rank `r`
//!   among `n` items, drawn [`Sampling::WithReplacement`] (binomial) or
//!   [`Sampling::WithoutReplacement`] (hypergeometric), and the expected sampled value of
//!   a [`RankMetric`];
//! - [`Estimator`]: a corrected metric, one value per sampled rank, for each
//!   [`Correction`]: none, the rank estimate, minimal bias, its monotone variant and the
//!   bias–variance trade-off `BV γ`;
//! - [`versus`]: sampled against exact on real runs, instance by instance, tie-aware;
//! - `stream` (feature `stream`): the same placements over a streamed full catalog,
//!   without listing a score.
//!
//! Every definition, with its equation, is in `docs/metrics.md` ("Sampled metrics").
//!
//! ```
//! use recs_sampled::{Correction, Estimator, RankMetric, SampledRank, Sampling};
//!
//! // Recommender A of the paper's toy example ranks every relevant item 100th of 10,000.
//! let sampled = SampledRank::new(10_000, 99, Sampling::WithReplacement)?;
//! let recall = RankMetric::Recall { k: 10 };
//! assert_eq!(recall.value(100, 10_000), 0.0); // exact: never in the top 10
//! assert!(sampled.expected(recall, 100)? > 0.999); // sampled: almost always
//! let bv = Estimator::new(recall, sampled, Correction::BiasVariance { gamma: 0.1 })?;
//! assert!(bv.moments(100)?.0 < 0.2); // corrected: close to the truth
//! # Ok::<(), recs_sampled::SampledError>(())
//! ```
#![deny(missing_docs)]

mod correct;
mod error;
mod linalg;
mod metric;
mod rank;
#[cfg(feature = "stream")]
pub mod stream;
pub mod versus;

pub use correct::{Correction, Estimator};
pub use error::{Result, SampledError};
pub use metric::RankMetric;
pub use rank::{SampledRank, Sampling};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
