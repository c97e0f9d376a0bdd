//! Exact, tie-aware evaluation metrics for recommender systems.
//!
//! Metrics consume [`recs_core::Judgments`] (per user, the candidate items and their
//! grades) and one `f32` score per candidate, laid out in the judgments' own order
//! (users ascending, candidates ascending within a user): a runner fills one flat buffer
//! and wraps both in a [`Scored`]. A `NaN` score marks a missing candidate, which ranks
//! below every scored one.
//!
//! The design choice that shapes everything: **ties count at their expected value**
//! under a uniformly random order within each group of equal scores, so no result
//! depends on input order, and a tie group cut by a top-k boundary contributes
//! fractionally. Curves are returned as data ([`Curve`]: expected true and false
//! positives at each step, plus AUC and partial AUC), never as pictures.
//!
//! - [`roc`] / [`roc_summary`]: the pooled ROC curve (schein2005 §3.1); AUC equals the
//!   Mann–Whitney statistic with ties counting 1/2.
//! - [`croc`]: the customer ROC curve (schein2005 §3.2), with the reference curves
//!   [`omniscient_croc`], [`random_croc`] (exact expectation) and [`simulated_croc`].
//! - [`per_user`]: precision, recall, F1, hit rate, NDCG (linear and exponential gain),
//!   AP, MAP, MRR, half-life utility and coverage, named by [`Metric`] (`p@10`, `map`,
//!   ...); [`evaluate`] computes any list of metrics into a [`Report`].
//! - [`per_user_with`] and [`evaluate_with`]: beyond accuracy, from the items' training
//!   [`Popularity`]: average recommendation popularity, long-tail share and count, EPC and
//!   EFD novelty (rank-discounted or flat), mean inverse user frequency, and the Gini index
//!   and entropy of the items' exposure (`arp@10`, `epc@10`, `gini@10`, ...); and from the
//!   items' attributes ([`Diversity`]), intra-list diversity (`ild@10`), cosine or Jaccard.
//! - cremonesi2008's [`roc1`], [`roc2`] and [`withheld_ranks`]; [`rating_errors`]
//!   (MAE, MSE, RMSE).
//! - [`t_interval`], [`bootstrap_interval`], [`paired_t_test`],
//!   [`wilcoxon_signed_rank`], [`group_means`], [`group_gap`]: aggregation over users or
//!   folds, and the gap between user groups with its interval (the
//!   statistics of `recs-stats`, with missing values left out).
//! - [`trapezoid`] / [`partial_trapezoid`]: the area under a polyline that every AUC
//!   and partial AUC of a curve's points is.
//! - [`stream`]: the same metrics on a full catalog streamed a user at a time, in memory
//!   that grows with users and positives, not with candidates.
//! - [`io`]: qrels and run files (tab-separated or TREC) with external ids, read and
//!   written.
//!
//! Every definition, with its tie, empty-user and zero-denominator rules, is written
//! in `docs/metrics.md`.
//!
//! Accumulators ([`RocAccumulator`], [`CrocAccumulator`]) merge exactly, so per-user work
//! runs in parallel and results are bit-identical for any thread count.
//!
//! ```
//! use recs_core::Judgments;
//! use recs_metrics::{Scored, croc, roc_summary};
//!
//! let mut builder = Judgments::builder(2, 4);
//! builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0])?;
//! builder.push_user(1, &[1, 3], &[0.0, 1.0])?;
//! let judgments = builder.build()?;
//! let scores = [0.9, 0.3, 0.3, 0.2, 0.3];
//! let scored = Scored::new(&judgments, &scores)?;
//! let roc = roc_summary(&scored, 1.0, 0.3)?;
//! // The tied positive (0.3) beats one negative and ties two: (3 + 1 + 2 / 2) / 6.
//! assert!((roc.auc - 5.0 / 6.0).abs() < 1e-12);
//! let croc = croc(&scored, 1.0)?;
//! assert_eq!(croc.points().last(), Some(&[1.0, 1.0]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod aggregate;
mod beyond;
mod calibration;
mod cremonesi;
mod croc;
mod curve;
mod diversity;
mod error;
mod exposure;
pub mod io;
mod lists;
mod names;
mod radix;
mod report;
mod roc;
mod scored;
mod spec;
pub mod stream;
mod topn;

pub use aggregate::{
    GroupBreakdown, GroupGap, Interval, TestResult, bootstrap_interval, group_breakdown, group_gap,
    group_means, item_group_breakdown, mean_absolute_difference, paired_t_test, t_interval,
    wilcoxon_signed_rank,
};
pub use beyond::{HeadRule, ItemFacts, KnownFacts, Popularity};
pub use calibration::{Calibration, DEFAULT_CALIBRATION_SMOOTHING};
pub use cremonesi::{
    Confusion, RatingErrors, Roc1Point, Roc2Point, WithheldRank, rating_errors, recall_from_ranks,
    roc1, roc2, top_n_confusion, top_n_confusions, withheld_ranks,
};
pub use croc::{
    CrocAccumulator, SimulatedCroc, croc, croc_accumulator, croc_tie_bounds, omniscient_croc,
    omniscient_croc_of, random_croc, random_croc_of, simulated_croc,
};
pub use curve::{Curve, partial_trapezoid, trapezoid};
pub use diversity::{Diversity, Similarity};
pub use error::{MetricsError, Result};
pub use report::{Report, evaluate, evaluate_with};
pub use roc::{
    RocAccumulator, RocSummary, TieBounds, omniscient_roc, random_roc, roc, roc_auc, roc_summary,
    roc_summary_of_groups, roc_tie_bounds, user_averaged_auc,
};
pub use scored::{Missing, Scored, TieBreak, score_key};
pub use spec::Metric;
pub use topn::{Options, PerUser, Summary, ZeroPolicy, per_user, per_user_with};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
