//! Exact evaluation on a full catalog without listing the candidates: scores arrive a
//! user (or a block of users) at a time, feed mergeable partial states, and are dropped.
//!
//! The candidates of a user are every item but its training items ([`CatalogUser`]);
//! only the graded ones are stored. Memory grows with the users and the positives, never
//! with the number of (user, item) pairs:
//!
//! - per-user metrics (precision, recall, NDCG, AP, MRR, half-life, F1, hit rate, per-user
//!   AUC) are computed from the user's graded tie groups as in [`crate::per_user`], and
//!   kept per user (a few numbers each);
//! - the CROC curve is a [`crate::CrocAccumulator`] fed the same groups;
//! - the pooled ROC curve needs every user's positives before it can place a negative:
//!   a first pass collects [`PositiveScores`] (scoring only the graded candidates), and
//!   the main pass counts negatives against the resulting [`Thresholds`].
//!
//! Every partial state merges exactly (integer counts, per-user values kept apart), so
//! the result does not depend on how users were split into blocks or on thread count,
//! and equals [`crate::evaluate`] on the same candidates listed explicitly: bit for bit,
//! except the partial ROC area when its false-alarm limit falls inside a run of tied-free
//! negatives (within `1e-15`; see [`Thresholds::summary`]). Catalog coverage needs every
//! user's full ranking and is refused here.
//!
//! [`evaluate_catalog`] is the one driver of such an evaluation: it takes the users and
//! their scores from a [`CatalogSource`] (a split's model in `recs run`; the rows of score
//! matrices, [`crate::io::RowCatalog`]) block by block, with a fixed number of workers
//! bounded by a memory budget ([`catalog_workers`]).
//!
//! ```
//! use recs_metrics::stream::{CatalogUser, Evaluator, PositiveScores};
//! use recs_metrics::{Metric, Options};
//!
//! // Two users, four items; user 0 trained on item 3, user 1 on item 0.
//! let scores = [[0.9f32, 0.1, 0.5, 0.7], [0.3, 0.8, 0.2, 0.6]];
//! let users = [
//!     CatalogUser { user: 0, scores: &scores[0], excluded: &[3], graded: &[2], grades: &[1.0] },
//!     CatalogUser { user: 1, scores: &scores[1], excluded: &[0], graded: &[1], grades: &[1.0] },
//! ];
//! let metrics = Metric::parse_list("roc,croc,p@1,mrr")?;
//! let mut evaluator = Evaluator::new(&metrics, Options::default(), 0.3)?;
//! // First pass, for the pooled ROC: the positives' scores.
//! let mut positives = PositiveScores::new();
//! for u in &users {
//!     let graded: Vec<f32> = u.graded.iter().map(|&i| u.scores[i as usize]).collect();
//!     positives.push_user(u.grades, &graded, 1.0);
//! }
//! evaluator.set_positives(positives);
//! // Main pass: any split of the users into parts, merged in any order.
//! let mut part = evaluator.part();
//! for u in &users {
//!     evaluator.push_user(&mut part, u)?;
//! }
//! let report = evaluator.finish(part, false)?;
//! assert_eq!(report.get("p@1"), Some(0.5));
//! assert_eq!(report.get("mrr"), Some(0.75));
//! assert_eq!(report.n_candidates, 6);
//! # Ok::<(), recs_metrics::MetricsError>(())
//! ```

#[cfg(feature = "progress")]
mod bar;
mod counted;
mod driver;
mod pooled;
mod user;

use serde::{Deserialize, Serialize};

#[cfg(feature = "progress")]
pub use bar::TerminalProgress;
pub use counted::{CountedUser, GradedKeys, KeyCounts, KeyOrder};
pub use driver::{
    CatalogMetrics, CatalogSource, CatalogWorkers, DEFAULT_MEMORY_BUDGET, StreamProgress,
    catalog_block_users, catalog_workers, evaluate_catalog, evaluate_catalog_with, for_each_block,
};
pub use pooled::{NegativeCounts, PositiveScores, Thresholds};

use pooled::NegativeBatch;
pub use user::CatalogUser;

use crate::beyond::{ItemFacts, Novelty};
use crate::calibration::Calibration;
use crate::croc::CrocAccumulator;
use crate::diversity::Diversity;
use crate::error::{MetricsError, Result};
use crate::exposure::Exposure;
use crate::report::{Report, assemble, missing_warning};
use crate::roc::{RocSummary, check_max_fpr};
use crate::scored::{Missing, TieBreak, score_key};
use crate::spec::Metric;
use crate::topn::{
    Group, ListWork, Lists, Options, PerUser, UserRow, UserShape, list_values, pooled_exposures,
    row_from_groups,
};
use user::{count_row, for_each_candidate, user_auc};

/// Computes a list of metrics from users streamed one at a time; see the module page.
#[derive(Debug)]
pub struct Evaluator {
    metrics: Vec<Metric>,
    per_user_metrics: Vec<Metric>,
    options: Options,
    max_fpr: f64,
    exp_gains: bool,
    /// The orders a user's candidates are counted in ([`Evaluator::key_orders`]).
    orders: Vec<KeyOrder>,
    thresholds: Option<Thresholds>,
    /// What the metrics that read the lists' items need, when one is asked for.
    lists: Option<ListFacts>,
}

/// The facts of [`Evaluator::with_facts`], owned: each item's novelty, the attributes of
/// diversity, the histories of calibration, and the depth of the longest list.
#[derive(Debug)]
struct ListFacts {
    depth: usize,
    n_items: Option<usize>,
    novelty: Vec<Novelty>,
    diversity: Option<Diversity>,
    calibration: Option<Calibration>,
}

/// Reused storage of the per-user work.
#[derive(Debug, Default)]
struct Scratch {
    /// The scores of the user's graded candidates.
    scores: Vec<f32>,
    /// One `(keys, counts)` per key order.
    counted: Vec<(GradedKeys, KeyCounts)>,
    /// The user's candidates, their scores and grades, for the metrics that read the
    /// lists.
    candidates: Vec<u32>,
    candidate_scores: Vec<f32>,
    candidate_grades: Vec<f32>,
    list: ListWork,
}

/// The partial state of a part of the users: merge parts with [`Part::merge`] in any
/// order, then [`Evaluator::finish`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// `(user, per-user row)` of every user pushed.
    rows: Vec<(u32, UserRow)>,
    /// `(user, AUC)` of the users with both classes, when `user_auc` is asked for.
    user_aucs: Vec<(u32, f64)>,
    croc: Option<CrocAccumulator>,
    roc: Option<NegativeCounts>,
    n_candidates: u64,
    n_positives: u64,
    n_without_relevant: u64,
    n_missing: u64,
    /// Per exposure metric ([`Metric::is_exposure`]), the items' exposure over the lists.
    exposure: Vec<Exposure>,
    /// The number of items of the catalog (the longest score row pushed).
    n_items: usize,
    /// Storage for counting negatives in batches; empty between calls.
    #[serde(skip)]
    batch: NegativeBatch,
}

impl Part {
    /// Adds the users of `other` (no user may be in both).
    pub fn merge(&mut self, other: Part) {
        self.rows.extend(other.rows);
        self.user_aucs.extend(other.user_aucs);
        if let (Some(a), Some(b)) = (&mut self.croc, &other.croc) {
            a.merge(b);
        }
        if let (Some(a), Some(b)) = (&mut self.roc, &other.roc) {
            a.merge(b);
        }
        self.n_candidates += other.n_candidates;
        self.n_positives += other.n_positives;
        self.n_without_relevant += other.n_without_relevant;
        self.n_missing += other.n_missing;
        if self.exposure.len() < other.exposure.len() {
            self.exposure.resize_with(other.exposure.len(), Exposure::default);
        }
        for (a, b) in self.exposure.iter_mut().zip(&other.exposure) {
            a.merge(b);
        }
        self.n_items = self.n_items.max(other.n_items);
    }

    /// Adds negatives counted elsewhere (by a GPU, say) against the evaluator's
    /// [`Thresholds`] to the pooled ROC's counts.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] when this part counts no pooled ROC (it was
    /// made before the positives were set, or the ROC is not asked for), or the counts
    /// are for another number of thresholds.
    pub fn add_negatives(&mut self, counts: NegativeCounts) -> Result<()> {
        let Some(own) = &mut self.roc else {
            return Err(MetricsError::InvalidArgument {
                name: "negative counts",
                value: "a part without the pooled ROC".into(),
                expected: "a part made after Evaluator::set_positives, with the ROC asked for",
            });
        };
        if own.len() != counts.len() {
            return Err(MetricsError::InvalidArgument {
                name: "negative counts",
                value: format!("counts for {} thresholds", counts.len()),
                expected: "counts for the evaluator's thresholds",
            });
        }
        own.merge(&counts);
        Ok(())
    }

    /// Number of users pushed that had a candidate (the others are not judged).
    pub fn n_users(&self) -> usize {
        self.rows.len()
    }

    /// Number of (user, candidate) pairs pushed.
    pub fn n_candidates(&self) -> u64 {
        self.n_candidates
    }

    /// Number of candidates pushed without a score (`NaN`).
    pub fn n_missing(&self) -> u64 {
        self.n_missing
    }

    /// Numbers the users of this part `user`: for an engine that groups by external id
    /// and evaluates each user on its own, then numbers the users once every id is known
    /// (the order of [`crate::Report`]'s per-user means is the numbering's).
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] when the part holds more than one user.
    pub fn number_user(&mut self, user: u32) -> Result<()> {
        if self.rows.len() > 1 {
            return Err(MetricsError::InvalidArgument {
                name: "part",
                value: format!("{} users", self.rows.len()),
                expected: "a part of one user",
            });
        }
        for (u, _) in &mut self.rows {
            *u = user;
        }
        for (u, _) in &mut self.user_aucs {
            *u = user;
        }
        Ok(())
    }
}

impl Evaluator {
    /// An evaluator of `metrics` under `options`; partial ROC areas up to `max_fpr`.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] for invalid options or `max_fpr`, or for a metric
    /// that reads the items of the lists ([`Metric::list_depth`]: coverage and the
    /// popularity metrics).
    pub fn new(metrics: &[Metric], options: Options, max_fpr: f64) -> Result<Self> {
        Self::build(metrics, options, max_fpr, None)
    }

    /// An evaluator of `metrics` that may read the items of the lists (coverage, the
    /// popularity, novelty, diversity, calibration and exposure metrics) from `facts`, as
    /// [`crate::evaluate_with`] does: users must then come with their scores
    /// ([`Evaluator::push_user`]), whose top N it selects, and every item's facts must be
    /// given (one per score of a row).
    ///
    /// # Errors
    /// As [`Evaluator::new`], and a metric whose facts are not in `facts`.
    pub fn with_facts(
        metrics: &[Metric],
        options: Options,
        max_fpr: f64,
        facts: ItemFacts<'_>,
    ) -> Result<Self> {
        let Some(depth) = metrics.iter().filter_map(Metric::list_depth).max() else {
            return Self::build(metrics, options, max_fpr, None);
        };
        let missing = |m: &Metric, what: &'static str| {
            Err(MetricsError::InvalidArgument {
                name: "metric",
                value: m.to_string(),
                expected: what,
            })
        };
        let mut n_items = Vec::new();
        if let Some(m) = metrics.iter().find(|m| m.needs_popularity()) {
            match facts.popularity {
                Some(p) => n_items.push(p.n_items()),
                None => {
                    return missing(m, "the items' training popularity (ItemFacts::popularity)");
                }
            }
        }
        if let Some(m) = metrics.iter().find(|m| m.is_diversity()) {
            match facts.diversity {
                Some(d) => n_items.push(d.n_items()),
                None => return missing(m, "the items' attributes (ItemFacts::diversity)"),
            }
        }
        if let Some(m) = metrics.iter().find(|m| m.needs_history()) {
            match facts.calibration {
                Some(c) => n_items.push(c.n_items()),
                None => return missing(m, "the users' histories (ItemFacts::calibration)"),
            }
        }
        if n_items.windows(2).any(|w| w[0] != w[1]) {
            return Err(MetricsError::InvalidArgument {
                name: "item facts",
                value: format!("facts of {n_items:?} items"),
                expected: "popularity, attributes and histories of the same items",
            });
        }
        let wants = |f: fn(&Metric) -> bool| metrics.iter().any(f);
        let lists = ListFacts {
            depth,
            n_items: n_items.first().copied(),
            novelty: match facts.popularity {
                Some(p) if wants(Metric::needs_popularity) => p.novelty(),
                _ => Vec::new(),
            },
            diversity: facts.diversity.filter(|_| wants(|m| m.is_diversity())).cloned(),
            calibration: facts.calibration.filter(|_| wants(Metric::needs_history)).cloned(),
        };
        Self::build(metrics, options, max_fpr, Some(lists))
    }

    fn build(
        metrics: &[Metric],
        options: Options,
        max_fpr: f64,
        lists: Option<ListFacts>,
    ) -> Result<Self> {
        options.check()?;
        check_max_fpr(max_fpr)?;
        if options.missing != Missing::Last {
            // A streamed catalog is scored by a model for every item: nothing is unranked.
            return Err(MetricsError::InvalidArgument {
                name: "missing",
                value: options.missing.to_string(),
                expected: "`last` on a streamed full catalog",
            });
        }
        if let Some(m) =
            metrics.iter().find(|m| m.list_depth().is_some()).filter(|_| lists.is_none())
        {
            return Err(MetricsError::InvalidArgument {
                name: "metric",
                value: m.to_string(),
                expected: "a metric that does not read the items of the lists (coverage, \
                           popularity, novelty, exposure) on a streamed full catalog, or \
                           the items' facts (Evaluator::with_facts)",
            });
        }
        // CROC and the per-user AUC count ties at their expected value whatever `ties`.
        let wants_expected = metrics.iter().any(|m| matches!(m, Metric::Croc | Metric::UserAuc));
        let mut orders = vec![KeyOrder::of(options.ties)];
        if wants_expected && options.ties != TieBreak::Expected {
            orders.push(KeyOrder::of(TieBreak::Expected));
        }
        Ok(Evaluator {
            metrics: metrics.to_vec(),
            per_user_metrics: metrics
                .iter()
                .copied()
                .filter(|m| !matches!(m, Metric::Roc | Metric::Croc | Metric::UserAuc))
                .collect(),
            options,
            max_fpr,
            exp_gains: metrics.iter().any(|m| matches!(m, Metric::NdcgExp(_))),
            orders,
            thresholds: None,
            lists,
        })
    }

    /// The orders in which a user's candidates are counted for
    /// [`Evaluator::push_counted`]: that of the tie policy, then, when ties are broken by
    /// item and CROC or the per-user AUC is asked for (they count ties at their expected
    /// value), the order of [`TieBreak::Expected`].
    pub fn key_orders(&self) -> &[KeyOrder] {
        &self.orders
    }

    /// The pooled ROC's thresholds, once the positives are set: what negatives are
    /// counted against ([`Part::add_negatives`]).
    pub fn thresholds(&self) -> Option<&Thresholds> {
        self.thresholds.as_ref()
    }

    /// True when the pooled ROC is asked for: give the positives first
    /// ([`Evaluator::set_positives`]).
    pub fn needs_positives(&self) -> bool {
        self.metrics.contains(&Metric::Roc)
    }

    /// The positives of every user, collected in a first pass.
    pub fn set_positives(&mut self, positives: PositiveScores) {
        self.thresholds = Some(positives.thresholds());
    }

    /// An empty partial state.
    pub fn part(&self) -> Part {
        Part { roc: self.thresholds.as_ref().map(Thresholds::counts), ..self.part_without_counts() }
    }

    /// An empty partial state for users finished from counts ([`Evaluator::push_counted`]):
    /// without the pooled ROC's negative counts, which come once, for every user, through
    /// [`Part::add_negatives`] on the part the others merge into. It costs nothing to make,
    /// where [`Evaluator::part`] holds a count per positive score.
    pub fn per_user_part(&self) -> Part {
        Part { roc: None, ..self.part_without_counts() }
    }

    fn part_without_counts(&self) -> Part {
        Part {
            rows: Vec::new(),
            user_aucs: Vec::new(),
            croc: self.metrics.contains(&Metric::Croc).then(CrocAccumulator::new),
            roc: None,
            n_candidates: 0,
            n_positives: 0,
            n_without_relevant: 0,
            n_missing: 0,
            exposure: vec![
                Exposure::default();
                self.metrics.iter().filter(|m| m.is_exposure()).count()
            ],
            n_items: 0,
            batch: NegativeBatch::default(),
        }
    }

    /// Evaluates one user into `part`; see [`Evaluator::push_users`].
    ///
    /// # Errors
    /// As [`Evaluator::push_users`].
    pub fn push_user(&self, part: &mut Part, user: &CatalogUser<'_>) -> Result<()> {
        self.push_users(part, std::slice::from_ref(user))
    }

    /// Evaluates `users` into `part`. A block of users costs less than the same users one
    /// at a time: their negatives are counted for the pooled ROC together.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] when the pooled ROC is asked for and no
    /// positives were set, or for a malformed user: lists not strictly ascending, an
    /// item out of the catalog, a graded item excluded, a grade that is not positive.
    /// Users before the malformed one are in `part`.
    pub fn push_users(&self, part: &mut Part, users: &[CatalogUser<'_>]) -> Result<()> {
        if self.needs_positives() && self.thresholds.is_none() {
            return Err(MetricsError::InvalidArgument {
                name: "positives",
                value: "none".into(),
                expected: "the positives' scores (Evaluator::set_positives) before the pooled ROC",
            });
        }
        let mut scratch = Scratch::default();
        let mut result = Ok(());
        for user in users {
            result = self.push_one(part, user, &mut scratch);
            if result.is_err() {
                break;
            }
        }
        if let (Some(thresholds), Some(counts)) = (&self.thresholds, &mut part.roc) {
            thresholds.push_batch(counts, &mut part.batch);
        }
        result
    }

    /// One user's rows and counts into `part`, its negatives into `part.batch`.
    fn push_one(
        &self,
        part: &mut Part,
        user: &CatalogUser<'_>,
        scratch: &mut Scratch,
    ) -> Result<()> {
        check_user(user)?;
        if user.excluded.len() == user.scores.len() {
            // No candidate: not a judged user, as in `Judgments`.
            return Ok(());
        }
        let Scratch { scores, counted, .. } = scratch;
        scores.clear();
        scores.extend(user.graded.iter().map(|&i| user.scores[i as usize]));
        counted.resize_with(self.orders.len(), Default::default);
        let (mut n, mut missing) = (0, 0);
        for (&order, (keys, counts)) in self.orders.iter().zip(counted.iter_mut()) {
            keys.fill(order, user.graded, user.grades, scores);
            (n, missing) = count_row(user, order, keys.keys(), counts);
        }
        let counted = CountedUser { user: user.user, n, missing, grades: user.grades, counted };
        self.push_counted_row(part, counted)?;
        if let Some(lists) = &self.lists {
            self.push_lists(part, user, lists, scratch)?;
        }
        if part.roc.is_some() {
            let mut graded = user.graded.iter().zip(user.grades).peekable();
            let keys = &mut part.batch.keys;
            for_each_candidate(user, |item, score| {
                let mut relevant = false;
                if let Some(&(&i, &g)) = graded.peek()
                    && i == item
                {
                    relevant = g >= self.options.threshold;
                    graded.next();
                }
                if !relevant {
                    keys.push(score_key(score));
                }
            });
        }
        Ok(())
    }

    /// Evaluates one user from the counts of its candidates ([`CountedUser`]: counted by
    /// a GPU, say) into `part`: the same rows, CROC counts and per-user AUC as
    /// [`Evaluator::push_user`] on its scores. The pooled ROC's negatives are not in the
    /// counts: add them with [`Part::add_negatives`]. A user without a candidate
    /// (`n == 0`) is not judged and adds nothing.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] when the counts do not fit together: not one
    /// `(keys, counts)` per [`Evaluator::key_orders`], counts of another length than
    /// their keys, a total other than `n`, a graded key no candidate is on, more `NaN`
    /// scores than candidates.
    pub fn push_counted(&self, part: &mut Part, user: CountedUser<'_>) -> Result<()> {
        if let Some(m) = self.metrics.iter().find(|m| m.list_depth().is_some()) {
            return Err(MetricsError::InvalidArgument {
                name: "metric",
                value: m.to_string(),
                expected: "metrics that need no list's items from counts (push_user selects \
                           the lists from the scores)",
            });
        }
        self.push_counted_row(part, user)
    }

    /// The top N of `user` for the metrics that read the lists: its values into the row
    /// just pushed, its items into the part's exposure.
    fn push_lists(
        &self,
        part: &mut Part,
        user: &CatalogUser<'_>,
        lists: &ListFacts,
        scratch: &mut Scratch,
    ) -> Result<()> {
        if lists.n_items.is_some_and(|n| n != user.scores.len()) {
            return Err(MetricsError::InvalidArgument {
                name: "catalog user",
                value: format!("user {}: {} scores", user.user, user.scores.len()),
                expected: "one score per item the facts describe",
            });
        }
        let Scratch { candidates, candidate_scores, candidate_grades, list, .. } = scratch;
        candidates.clear();
        candidate_scores.clear();
        candidate_grades.clear();
        let mut graded = user.graded.iter().zip(user.grades).peekable();
        for_each_candidate(user, |item, score| {
            candidates.push(item);
            candidate_scores.push(score);
            let grade = match graded.peek() {
                Some(&(&i, &g)) if i == item => {
                    graded.next();
                    g
                }
                _ => 0.0,
            };
            candidate_grades.push(grade);
        });
        list.ranking.rank(candidate_scores, Some(lists.depth), self.options.ties);
        let Some((_, row)) = part.rows.last_mut() else { return Ok(()) };
        let view = Lists {
            depth: Some(lists.depth),
            novelty: &lists.novelty,
            diversity: lists.diversity.as_ref(),
            calibration: lists.calibration.as_ref(),
            user: user.user,
        };
        let metrics = &self.per_user_metrics;
        list_values(list, candidates, candidate_grades, metrics, &self.options, view, row);
        for (exposure, covered) in part.exposure.iter_mut().zip(row.covered.drain(..)) {
            for (item, taken, len) in covered {
                exposure.add(item, taken, len);
            }
        }
        part.n_items = part.n_items.max(user.scores.len());
        Ok(())
    }

    /// [`Evaluator::push_counted`] without its refusal of the list metrics (whose values
    /// [`Evaluator::push_lists`] adds).
    fn push_counted_row(&self, part: &mut Part, user: CountedUser<'_>) -> Result<()> {
        check_counted(&user, self.orders.len())?;
        if user.n == 0 {
            return Ok(());
        }
        let n = user.n as usize;
        let mut groups: Vec<Group> = Vec::new();
        let (keys, counts) = &user.counted[0];
        keys.groups(counts, &self.options, self.exp_gains, &mut groups);
        let shape = UserShape { n, positive_grades: user.grades };
        let row =
            row_from_groups(&groups, &mut Vec::new(), shape, &self.per_user_metrics, &self.options);
        let relevant = user.grades.iter().filter(|&&g| g >= self.options.threshold).count();
        part.n_candidates += user.n;
        part.n_positives += relevant as u64;
        part.n_without_relevant += u64::from(row.without_relevant);
        part.n_missing += user.missing;
        part.rows.push((user.user, row));
        // CROC and the per-user AUC count ties at their expected value whatever `ties`:
        // the last order is then `expected`.
        let wants_user_auc = self.metrics.contains(&Metric::UserAuc);
        if part.croc.is_some() || wants_user_auc {
            if user.counted.len() > 1 {
                let (keys, counts) = &user.counted[1];
                keys.groups(counts, &self.options, false, &mut groups);
            }
            if let Some(croc) = &mut part.croc {
                croc.push_groups(n, relevant, &groups);
            }
            if wants_user_auc && let Some(auc) = user_auc(&groups, n) {
                part.user_aucs.push((user.user, auc));
            }
        }
        Ok(())
    }

    /// The report of every user pushed into `part`: the same keys, values, counts and
    /// warnings as [`crate::evaluate`] on the listed candidates. With `keep_curves`, the
    /// ROC curve (without the collinear vertices inside negative runs) and the CROC
    /// curve.
    ///
    /// # Errors
    /// As [`Evaluator::new`]; undefined values are `None` with a warning, not errors.
    pub fn finish(&self, part: Part, keep_curves: bool) -> Result<Report> {
        self.finish_with(part, keep_curves, None)
    }

    /// As [`Evaluator::finish`], the pooled ROC's areas given (by
    /// [`crate::roc_summary_of_groups`], say) rather than counted in `part`; no ROC curve
    /// is kept. The evaluator needs no positives then.
    ///
    /// # Errors
    /// As [`Evaluator::finish`].
    pub fn finish_with_roc(&self, part: Part, roc: RocSummary) -> Result<Report> {
        self.finish_with(part, false, Some(roc))
    }

    fn finish_with(
        &self,
        mut part: Part,
        keep_curves: bool,
        pooled: Option<RocSummary>,
    ) -> Result<Report> {
        part.rows.sort_unstable_by_key(|&(user, _)| user);
        part.user_aucs.sort_unstable_by_key(|&(user, _)| user);
        let users: Vec<u32> = part.rows.iter().map(|&(u, _)| u).collect();
        let n_users = users.len();
        let n_items = self.lists.as_ref().and_then(|l| l.n_items).unwrap_or(part.n_items);
        let (metrics, held) = (&self.per_user_metrics, &mut part.exposure);
        let values = (!metrics.is_empty()).then(|| {
            let rows: Vec<UserRow> = part.rows.into_iter().map(|(_, row)| row).collect();
            let exposure = pooled_exposures(metrics, &rows, held, n_items);
            PerUser::from_rows(metrics, users, rows, exposure)
        });
        let report = Report {
            values: Vec::new(),
            n_users,
            n_candidates: part.n_candidates as usize,
            n_positives: part.n_positives as usize,
            n_users_without_relevant: part.n_without_relevant as usize,
            n_missing: part.n_missing as usize,
            warnings: missing_warning(
                part.n_missing as usize,
                part.n_candidates as usize,
                self.options.missing,
            ),
            roc: None,
            croc: None,
            per_user: None,
        };
        let roc = |curve: bool| -> Result<(f64, f64, Option<crate::Curve>)> {
            if let Some(s) = pooled {
                return Ok((s.auc, s.partial_auc, None));
            }
            let (thresholds, counts) = match (&self.thresholds, &part.roc) {
                (Some(t), Some(c)) => (t, c),
                _ => {
                    return Err(MetricsError::InvalidArgument {
                        name: "positives",
                        value: "none".into(),
                        expected: "the positives' scores before the pooled ROC",
                    });
                }
            };
            let s = thresholds.summary(counts, self.max_fpr)?;
            let kept = if curve { Some(thresholds.curve(counts)?) } else { None };
            Ok((s.auc, s.partial_auc, kept))
        };
        let croc = || match &part.croc {
            Some(acc) => acc.curve(),
            None => Err(MetricsError::Undefined { what: "CROC", reason: "not asked for" }),
        };
        let user_auc = || {
            let values: Vec<f64> = part.user_aucs.iter().map(|&(_, v)| v).collect();
            crate::roc::mean_user_auc(&values)
        };
        Ok(assemble(
            report,
            &self.metrics,
            &self.per_user_metrics,
            values,
            self.max_fpr,
            keep_curves,
            roc,
            croc,
            user_auc,
        ))
    }
}

/// The checks of [`Evaluator::push_user`] on one user.
fn check_user(user: &CatalogUser<'_>) -> Result<()> {
    check_lists(user.user, user.scores.len(), user.excluded, user.graded, user.grades)
}

/// The checks [`Evaluator::push_user`] makes of a user's lists, for a counter that reads
/// them itself (a GPU, whose indices must stay in bounds): `excluded` and `graded`
/// strictly ascending, below `n_items`, no graded item excluded, one finite positive
/// grade per graded item.
///
/// # Errors
/// [`MetricsError::InvalidArgument`] naming the user and what is wrong.
pub fn check_lists(
    user: u32,
    n_items: usize,
    excluded: &[u32],
    graded: &[u32],
    grades: &[f32],
) -> Result<()> {
    let invalid = |what: &str, expected: &'static str| MetricsError::InvalidArgument {
        name: "catalog user",
        value: format!("user {user}: {what}"),
        expected,
    };
    let ascending = |items: &[u32]| items.windows(2).all(|w| w[0] < w[1]);
    if !ascending(excluded) || !ascending(graded) {
        return Err(invalid("item lists", "strictly ascending excluded and graded items"));
    }
    let in_range = |items: &[u32]| items.last().is_none_or(|&i| (i as usize) < n_items);
    if !in_range(excluded) || !in_range(graded) {
        return Err(invalid("an item beyond the scores", "items below the number of scores"));
    }
    if grades.len() != graded.len() {
        return Err(invalid("grades", "one grade per graded item"));
    }
    if grades.iter().any(|g| !(g.is_finite() && *g > 0.0)) {
        return Err(invalid("a grade", "finite grades > 0 for the graded items"));
    }
    if graded.iter().any(|i| excluded.binary_search(i).is_ok()) {
        return Err(invalid("a graded item is excluded", "graded items among the candidates"));
    }
    Ok(())
}

/// The checks of [`Evaluator::push_counted`] on one user's counts.
fn check_counted(user: &CountedUser<'_>, orders: usize) -> Result<()> {
    let invalid = |what: String, expected: &'static str| MetricsError::InvalidArgument {
        name: "counted user",
        value: format!("user {}: {what}", user.user),
        expected,
    };
    if user.counted.len() != orders {
        return Err(invalid(
            format!("{} key orders", user.counted.len()),
            "one (keys, counts) per order of Evaluator::key_orders",
        ));
    }
    if user.missing > user.n {
        return Err(invalid(
            format!("{} missing of {} candidates", user.missing, user.n),
            "no more missing scores than candidates",
        ));
    }
    for (keys, counts) in user.counted {
        let k = keys.keys().len();
        if counts.between.len() != k + 1 || counts.on.len() != k {
            return Err(invalid(
                format!("{} and {} counts for {k} keys", counts.between.len(), counts.on.len()),
                "keys + 1 counts between keys and one on each key",
            ));
        }
        if counts.total() != user.n {
            return Err(invalid(
                format!("{} candidates counted of {}", counts.total(), user.n),
                "every candidate counted once",
            ));
        }
        if user.n > 0 && counts.on.contains(&0) {
            return Err(invalid(
                "a graded key with no candidate on it".into(),
                "graded keys among the counted candidates",
            ));
        }
    }
    Ok(())
}
