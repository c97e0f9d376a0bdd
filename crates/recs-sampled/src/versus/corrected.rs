//! Corrected sampled metrics as metric names (`ndcg@10~bv:0.1`), as `recs eval`, `recs
//! run` and the Python package compute them on a run's own sampled candidates: each
//! relevant item's sampled rank among its user's drawn negatives, mapped by the estimator
//! built for the user's full-catalog size and number of drawn negatives.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};

use super::estimates::{EstimatorTable, estimated_value};
use super::instances::Placement;
use crate::{Correction, Estimator, RankMetric, Result, SampledError};

/// A metric of one relevant item's rank, estimated from its sampled rank by a correction:
/// `metric~correction` as text, for example `ndcg@10~bv:0.1` or `ap~rank-estimate`.
///
/// ```
/// use recs_sampled::versus::CorrectedMetric;
/// let m: CorrectedMetric = "recall@10~bv:0.1".parse()?;
/// assert_eq!(m.to_string(), "r@10~bv:0.1");
/// # Ok::<(), recs_sampled::SampledError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectedMetric {
    /// The metric estimated.
    pub metric: RankMetric,
    /// The estimator.
    pub correction: Correction,
}

impl CorrectedMetric {
    /// Whether `name` is meant as a corrected metric (it holds a `~`).
    pub fn is_named(name: &str) -> bool {
        name.contains('~')
    }
}

impl fmt::Display for CorrectedMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}~{}", self.metric, self.correction)
    }
}

impl FromStr for CorrectedMetric {
    type Err = SampledError;

    fn from_str(text: &str) -> Result<Self> {
        let lower = text.to_ascii_lowercase();
        let (metric, correction) = lower
            .split_once('~')
            .ok_or_else(|| SampledError::invalid("corrected metric", text, "metric~estimator"))?;
        let metric = metric.parse::<RankMetric>().map_err(|_| {
            SampledError::invalid(
                "corrected metric",
                text,
                "before `~` a metric of one relevant item's rank (auc, r@k, recall@k, hit@k, \
                 p@k, ap, mrr, ndcg or ndcg@k)",
            )
        })?;
        let correction = correction.parse::<Correction>().map_err(|_| {
            SampledError::invalid(
                "corrected metric",
                text,
                "after `~` an estimator (sampled, rank-estimate, minimal-bias, monotone or \
                 bv:γ with 0 < γ ≤ 1)",
            )
        })?;
        Ok(CorrectedMetric { metric, correction })
    }
}

/// One judged user's sampled ranks: where each of its relevant items falls among its drawn
/// negatives, and its catalog size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampledUser {
    placements: Vec<Placement>,
    /// `(n, m)`: itself and its full-catalog negatives, and its drawn negatives.
    size: (u64, u64),
}

impl SampledUser {
    /// The user of relevant candidates of score keys `relevant` and drawn negatives of
    /// score keys `negatives` (any order; `recs_metrics::score_key` order, equal scores
    /// equal keys), with `catalog_negatives` negatives in its full catalog (its drawn
    /// ones among them). `None` when it has no relevant item or no drawn negative: a rank
    /// among nothing says nothing.
    pub fn new(relevant: &[u32], mut negatives: Vec<u32>, catalog_negatives: u64) -> Option<Self> {
        if relevant.is_empty() || negatives.is_empty() {
            return None;
        }
        negatives.sort_unstable();
        Some(SampledUser {
            placements: relevant.iter().map(|&key| Placement::among(&negatives, key)).collect(),
            size: (catalog_negatives.max(negatives.len() as u64) + 1, negatives.len() as u64),
        })
    }

    /// The user of one judged user's sampled candidates: their `grades` and score `keys`,
    /// aligned; a candidate graded at least `threshold` is relevant, the others are its
    /// drawn negatives. As [`SampledUser::new`] otherwise.
    pub fn from_candidates(
        grades: &[f32],
        keys: impl IntoIterator<Item = u32>,
        threshold: f32,
        catalog_negatives: u64,
    ) -> Option<Self> {
        let (mut relevant, mut negatives) = (Vec::new(), Vec::new());
        for (&grade, key) in grades.iter().zip(keys) {
            if grade >= threshold { &mut relevant } else { &mut negatives }.push(key);
        }
        SampledUser::new(&relevant, negatives, catalog_negatives)
    }
}

/// The corrected metrics of a run's sampled candidates: each asked metric's mean over the
/// users, and how many relevant items were left out.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectedMeans {
    /// `(name, mean)` of each asked metric, in order; `None` when no user has a value.
    pub values: Vec<(String, Option<f64>)>,
    /// Relevant items of users without a drawn negative, left out.
    pub n_left_out: usize,
}

impl CorrectedMeans {
    /// The warning about the relevant items left out, if any.
    pub fn warning(&self) -> Option<String> {
        (self.n_left_out > 0).then(|| {
            format!(
                "{} relevant items are left out of the corrected metrics: their users have no \
                 drawn negative to rank them against",
                self.n_left_out
            )
        })
    }
}

/// Built estimators by size: correction → metric.
type BySize = BTreeMap<(u64, u64), Arc<Vec<Vec<Estimator>>>>;

/// The estimators of some corrected metrics, built once per size `(n, m)` and kept across
/// calls (the splits and models of a run share them). Each is a pure function of its size,
/// so what is kept changes no number.
#[derive(Debug)]
pub struct CorrectedEstimators {
    /// The asked metrics' names.
    names: Vec<String>,
    metrics: Vec<RankMetric>,
    corrections: Vec<Correction>,
    /// Each asked metric's (correction, metric) position.
    asked: Vec<(usize, usize)>,
    built: Mutex<BySize>,
}

impl CorrectedEstimators {
    /// For the metrics `asked`, in that order.
    pub fn new(asked: &[CorrectedMetric]) -> Self {
        let (mut metrics, mut corrections): (Vec<RankMetric>, Vec<Correction>) = (vec![], vec![]);
        let mut positions = Vec::with_capacity(asked.len());
        for c in asked {
            let m = metrics.iter().position(|&x| x == c.metric).unwrap_or_else(|| {
                metrics.push(c.metric);
                metrics.len() - 1
            });
            let k = corrections.iter().position(|&x| x == c.correction).unwrap_or_else(|| {
                corrections.push(c.correction);
                corrections.len() - 1
            });
            positions.push((k, m));
        }
        CorrectedEstimators {
            names: asked.iter().map(ToString::to_string).collect(),
            metrics,
            corrections,
            asked: positions,
            built: Mutex::default(),
        }
    }

    /// The asked metrics of a run's sampled candidates, as every front end reports them:
    /// `users` gives each judged user as `(user, grades, score keys)` (aligned; graded at
    /// least `threshold` is relevant, the rest are its drawn negatives), and
    /// `catalog_negatives` each judged user's number of full-catalog negatives, as `(user,
    /// n)` ascending. A user's value is the mean over its relevant items; the reported
    /// value the mean over users with a relevant item and a drawn negative.
    ///
    /// # Errors
    /// [`SampledError::Invalid`] for a user without a catalog size; a failed estimator
    /// build.
    pub fn run_means<'a>(
        &self,
        users: impl IntoIterator<Item = (u32, &'a [f32], Vec<u32>)>,
        catalog_negatives: &[(u32, u64)],
        threshold: f32,
    ) -> Result<CorrectedMeans> {
        let mut sampled = Vec::new();
        let mut n_left_out = 0;
        for (user, grades, keys) in users {
            let Ok(at) = catalog_negatives.binary_search_by_key(&user, |&(u, _)| u) else {
                return Err(SampledError::invalid(
                    "judged user",
                    user,
                    "a user with a full-catalog size",
                ));
            };
            match SampledUser::from_candidates(grades, keys, threshold, catalog_negatives[at].1) {
                Some(u) => sampled.push(u),
                None => n_left_out += grades.iter().filter(|&&g| g >= threshold).count(),
            }
        }
        let means = self.means(&sampled)?;
        Ok(CorrectedMeans { values: self.names.iter().cloned().zip(means).collect(), n_left_out })
    }

    /// Each asked metric's mean over `users` of the user's mean over its relevant items of
    /// the estimator's value at the item's sampled rank (averaged over the ranks its tie
    /// allows); `None` when there is no user.
    ///
    /// # Errors
    /// A failed build of an estimator ([`EstimatorTable::build`]).
    pub fn means(&self, users: &[SampledUser]) -> Result<Vec<Option<f64>>> {
        let sizes: BTreeSet<(u64, u64)> = users.iter().map(|u| u.size).collect();
        let missing: BTreeSet<(u64, u64)> = {
            let built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
            sizes.iter().copied().filter(|s| !built.contains_key(s)).collect()
        };
        // Built outside the lock: the build is parallel, and a thread waiting for its
        // parallel work may run another caller that takes the lock.
        if !missing.is_empty() {
            let table = EstimatorTable::build(missing, &self.metrics, &self.corrections)?;
            let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
            for (size, estimators) in table.into_sizes() {
                built.entry(size).or_insert_with(|| Arc::new(estimators));
            }
        }
        let by_size: BTreeMap<(u64, u64), Arc<Vec<Vec<Estimator>>>> = {
            let built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
            sizes.iter().map(|s| (*s, Arc::clone(&built[s]))).collect()
        };
        Ok(self
            .asked
            .iter()
            .map(|&(k, m)| {
                let sum: f64 = users
                    .iter()
                    .map(|user| {
                        let estimator = &by_size[&user.size][k][m];
                        let total: f64 =
                            user.placements.iter().map(|&p| estimated_value(estimator, p)).sum();
                        total / user.placements.len() as f64
                    })
                    .sum();
                (!users.is_empty()).then(|| sum / users.len() as f64)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> CorrectedMetric {
        text.parse().unwrap()
    }

    #[test]
    fn run_means_split_candidates_by_grade_and_leave_out_users_without_negatives() {
        // User 0: relevant key 5 tied with drawn key 5 (1st or 2nd of 2); user 1: no drawn
        // negative; user 2: a candidate graded 0.5 is a negative at threshold 1, above its
        // relevant item (2nd of 2).
        let users: Vec<(u32, &[f32], Vec<u32>)> = vec![
            (0, &[1.0, 0.0, 0.0], vec![5, 5, 1]),
            (1, &[1.0], vec![9]),
            (2, &[2.0, 0.5], vec![2, 7]),
        ];
        let sizes = [(0, 4), (1, 3), (2, 3)];
        let estimators = CorrectedEstimators::new(&[parse("ap~sampled")]);
        let means = estimators.run_means(users.clone(), &sizes, 1.0).unwrap();
        assert_eq!(means.values, [("ap~sampled".to_string(), Some((0.75 + 0.5) / 2.0))]);
        assert_eq!(means.n_left_out, 1);
        assert!(means.warning().unwrap().starts_with("1 relevant items are left out"));
        let e = estimators.run_means(users, &sizes[..2], 1.0).unwrap_err();
        assert!(e.to_string().contains("judged user `2`"), "{e}");
    }

    #[test]
    fn names_round_trip_and_say_what_goes_where() {
        assert_eq!(parse("mrr~rank-estimate").to_string(), "ap~rank-estimate");
        assert_eq!(parse("NDCG@10~BV:0.1").to_string(), "ndcg@10~bv:0.1");
        let e = "map~monotone".parse::<CorrectedMetric>().unwrap_err().to_string();
        assert!(e.contains("before `~`") && e.contains("ndcg@k"), "{e}");
        let e = "ndcg@10~bv:2".parse::<CorrectedMetric>().unwrap_err().to_string();
        assert!(e.contains("after `~`") && e.contains("rank-estimate"), "{e}");
        assert!(CorrectedMetric::is_named("ap~sampled") && !CorrectedMetric::is_named("ap"));
    }

    /// Two users by hand. User 0: n = 4 catalog negatives, drawn keys 5 and 1, its relevant
    /// item at 5: sampled rank 1 or 2 of 3. User 1: n = 9, drawn key 1, relevant items at
    /// 8 and 0: sampled ranks 1 and 2 of 2. `ap~sampled` is then (1 + 1/2) / 2 for both.
    /// The rank estimate maps r̃ to ⌊1 + (n' − 1)(r̃ − 1)/m⌋ among n' = n + 1 items.
    #[test]
    fn means_by_hand_with_a_tie_and_two_relevant_items_and_kept_estimators() {
        let users = [
            SampledUser::new(&[5], vec![5, 1], 4).unwrap(),
            SampledUser::new(&[8, 0], vec![1], 9).unwrap(),
        ];
        let estimators =
            CorrectedEstimators::new(&[parse("ap~sampled"), parse("ap~rank-estimate")]);
        let first = estimators.means(&users).unwrap();
        assert_eq!(first[0], Some(0.75));
        // User 0: n' = 5, m = 2: r̃ = 1 → 1, r̃ = 2 → ⌊1 + 4/2⌋ = 3, so (1 + 1/3) / 2.
        // User 1: n' = 10, m = 1: r̃ = 1 → 1, r̃ = 2 → 10, so (1 + 1/10) / 2.
        let want = ((1.0 + 1.0 / 3.0) / 2.0 + (1.0 + 0.1) / 2.0) / 2.0;
        assert!((first[1].unwrap() - want).abs() < 1e-12, "{first:?}");
        // Kept estimators give the same bits.
        assert_eq!(estimators.means(&users).unwrap(), first);
        assert_eq!(estimators.means(&users[..1]).unwrap()[0], Some(0.75));
        assert_eq!(estimators.means(&[]).unwrap(), [None, None]);
        assert!(SampledUser::new(&[], vec![1], 3).is_none());
        // Grades split the candidates: the same user from its candidates.
        let from = SampledUser::from_candidates(&[0.0, 1.0, 2.0], [1, 8, 0], 1.0, 9);
        assert_eq!(from, Some(users[1].clone()));
        assert!(SampledUser::new(&[1], vec![], 3).is_none());
    }
}
