//! Sampled metrics against exact ones on real runs: every relevant item of a user is an
//! instance, ranked among the user's full-catalog negatives (its exact rank) and among
//! the negatives each seed drew (its sampled rank); each metric's exact mean and each
//! estimator's mean per seed follow, and how each estimator orders the runs against the
//! exact metric. `recs eval --sampled-vs-exact` and the krichene2020 reproduction are
//! built on it. Definitions: `docs/metrics.md`, "Sampled metrics".
//!
//! ```
//! use recs_sampled::versus::{EstimatorTable, UserLists, run_values, user_instances};
//! use recs_sampled::{Correction, RankMetric};
//!
//! // One user, items 0..5: item 0 is relevant, 1..5 are negatives, and one seed drew
//! // items 2 and 4. Keys order the scores (higher key, higher score).
//! let lists = UserLists { relevant: vec![0], negatives: vec![1, 2, 3, 4], drawn: vec![vec![2, 4]] };
//! let keys = [5, 9, 1, 7, 2];
//! let mut instances = Vec::new();
//! user_instances(&lists, &keys, &mut instances);
//! let metrics = [RankMetric::Ap];
//! let corrections = [Correction::Sampled];
//! let table = EstimatorTable::build(EstimatorTable::sizes_of(&instances), &metrics, &corrections)?;
//! let values = run_values(&instances, &table, &metrics, 1, 1);
//! assert_eq!(values.exact, [1.0 / 3.0]); // third of five
//! assert_eq!(values.estimated[0][0], [1.0]); // first among itself, 2 and 4
//! # Ok::<(), recs_sampled::SampledError>(())
//! ```

/// The estimators a comparison of sampled against exact metrics takes when none are named
/// (`recs eval --sampled-vs-exact`, `evaluation.sampled_vs_exact`), comma-separated.
pub const DEFAULT_CORRECTIONS: &str = "sampled,rank-estimate,minimal-bias,monotone,bv:0.1";

/// The metrics such a comparison takes when none are named, comma-separated.
pub const DEFAULT_METRICS: &str = "auc,r@10,ndcg@10,ap";

mod corrected;
mod estimates;
mod instances;
mod orders;

pub use corrected::{CorrectedEstimators, CorrectedMeans, CorrectedMetric, SampledUser};
pub use estimates::{EstimatorTable, RunValues, estimated_value, exact_value, run_values};
pub use instances::{Instance, Placement, UserLists, run_instances, user_instances};
pub use orders::{Orders, Spread, kendall_tau, orders, reverses, spread};
