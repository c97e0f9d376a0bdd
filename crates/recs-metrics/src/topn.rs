//! Per-user ranking metrics: precision, recall, F1, hit rate, NDCG, AP, MRR, half-life
//! utility, catalog coverage and the popularity, novelty and exposure of the lists
//! ([`crate::beyond`]) — all as expected values under random tie order.
//!
//! Notation for one user: `n` candidates, `R` relevant ones (grade ≥ threshold), ranked
//! by decreasing score into tie groups; a group starts after `a` candidates, holds `g`
//! candidates, `s` of them relevant, and `t` relevant candidates rank above it. Under a
//! uniformly random order within the group, each of its positions holds a relevant
//! candidate with probability `s/g` and receives on average the group's mean gain.

use rayon::prelude::*;

use crate::beyond::{ItemFacts, Novelty};
use crate::calibration::Calibration;
use crate::diversity::Diversity;
use crate::error::{MetricsError, Result};
use crate::exposure::Exposure;
use crate::lists::{Listed, listed, log_discount};
use crate::names::named;
use crate::scored::{Missing, Ranking, Scored, TieBreak, score_key};
use crate::spec::Metric;

/// What to do with a user who has no relevant candidate (a zero denominator for recall,
/// AP, NDCG, MRR).
///
/// As text (`FromStr`, `Display`, serde, `recs eval --zero`): `exclude`, `zero` or
/// `ignatov`.
///
/// ```
/// use recs_metrics::ZeroPolicy;
/// assert_eq!("ignatov".parse::<ZeroPolicy>()?, ZeroPolicy::Ignatov);
/// assert_eq!(ZeroPolicy::default().to_string(), "exclude");
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZeroPolicy {
    /// `exclude`: leave the user out of every per-user mean and count it (the default).
    #[default]
    Exclude,
    /// `zero`: count every metric of that user as 0.
    Zero,
    /// `ignatov`: ignatov2010 §4: recall = 1; precision = 1 if nothing was recommended
    /// (no candidate) and 0 otherwise; the other metrics leave the user out.
    Ignatov,
}

named!(ZeroPolicy, "zero policy", [Exclude => "exclude", Zero => "zero", Ignatov => "ignatov"]);

/// Options of the per-user metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// A candidate is relevant when its grade is at least this (default 1).
    pub threshold: f32,
    /// How equal scores are ordered (default: expected value).
    pub ties: TieBreak,
    /// Users without relevant candidates (default: excluded).
    pub zero: ZeroPolicy,
    /// Neutral vote `d` of the half-life utility: gains are `max(grade − d, 0)`
    /// (default 0).
    pub neutral: f32,
    /// Candidates without a score (default: ranked last).
    pub missing: Missing,
    /// Gain offset `d` of linear NDCG (`ndcg@K`): a graded candidate (grade > 0) has gain
    /// `grade − d`, negative below `d`; an ungraded one has gain 0; the ideal DCG sums only
    /// the positive gains, the normalisation's lower bound is zero (the value can be
    /// negative), and a user whose ideal DCG is 0 scores 0 (fastml2015's code: gain =
    /// rating − 3). Default 0: gain = grade.
    pub gain_offset: f32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: 1.0,
            ties: TieBreak::Expected,
            zero: ZeroPolicy::Exclude,
            neutral: 0.0,
            missing: Missing::Last,
            gain_offset: 0.0,
        }
    }
}

impl Options {
    pub(crate) fn check(&self) -> Result<()> {
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err(MetricsError::InvalidArgument {
                name: "threshold",
                value: self.threshold.to_string(),
                expected: "a finite number > 0",
            });
        }
        if !(self.neutral.is_finite() && self.neutral >= 0.0) {
            return Err(MetricsError::InvalidArgument {
                name: "neutral",
                value: self.neutral.to_string(),
                expected: "a finite number >= 0",
            });
        }
        if !(self.gain_offset.is_finite() && self.gain_offset >= 0.0) {
            return Err(MetricsError::InvalidArgument {
                name: "gain_offset",
                value: self.gain_offset.to_string(),
                expected: "a finite number >= 0",
            });
        }
        Ok(())
    }
}

/// Per-user values of a list of metrics.
///
/// Equality compares values bit for bit, so `NaN` (a user left out of a metric) equals
/// itself and two results are equal exactly when they are bit-identical.
#[derive(Debug, Clone)]
pub struct PerUser {
    metrics: Vec<Metric>,
    users: Vec<u32>,
    /// Row-major `users × metrics`; `NaN` = user left out of that metric.
    values: Vec<f64>,
    /// Per user, `(R_p, R_p^max)` of each half-life metric, in metric order.
    half_life: Vec<[f64; 2]>,
    /// The pooled value of each exposure metric (coverage, Gini, entropy), in metric
    /// order.
    exposure: Vec<f64>,
    n_without_relevant: usize,
}

impl PartialEq for PerUser {
    fn eq(&self, other: &Self) -> bool {
        fn bits<'a>(values: impl Iterator<Item = &'a f64>) -> Vec<u64> {
            values.map(|v| v.to_bits()).collect()
        }
        self.metrics == other.metrics
            && self.users == other.users
            && self.n_without_relevant == other.n_without_relevant
            && bits(self.values.iter()) == bits(other.values.iter())
            && bits(self.half_life.iter().flatten()) == bits(other.half_life.iter().flatten())
            && bits(self.exposure.iter()) == bits(other.exposure.iter())
    }
}

/// Mean of one metric over users.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The mean (or the pooled value for half-life utility, coverage and the exposure Gini
    /// and entropy); `None` when no user counts.
    pub value: Option<f64>,
    /// Number of users in the mean.
    pub n_users: usize,
    /// Number of users left out.
    pub n_excluded: usize,
}

impl PerUser {
    /// The metrics, in column order.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// Judged users, in row order.
    pub fn users(&self) -> &[u32] {
        &self.users
    }

    /// Number of users without a relevant candidate.
    pub fn n_without_relevant(&self) -> usize {
        self.n_without_relevant
    }

    /// The values of metric column `column`, one per user (`NaN` = left out).
    pub fn column(&self, column: usize) -> Vec<f64> {
        let m = self.metrics.len();
        (0..self.users.len()).map(|u| self.values[u * m + column]).collect()
    }

    /// The summary of metric column `column`: the mean over users in user order, except
    /// half-life utility, `100 · Σ_p R_p / Σ_p R_p^max` (Breese et al., as in schein2005
    /// §7.3 eq. 12), and coverage and the exposure Gini and entropy, which are pooled over
    /// every user's list.
    pub fn summary(&self, column: usize) -> Summary {
        let metric = self.metrics[column];
        let m = self.metrics.len();
        let n = self.users.len();
        match metric {
            Metric::HalfLife(_) => {
                let slot = self.metrics[..column]
                    .iter()
                    .filter(|x| matches!(x, Metric::HalfLife(_)))
                    .count();
                let h = self.metrics.iter().filter(|x| matches!(x, Metric::HalfLife(_))).count();
                let (mut num, mut den, mut used) = (0.0, 0.0, 0);
                for u in 0..n {
                    let [r, rmax] = self.half_life[u * h + slot];
                    if rmax > 0.0 {
                        num += r;
                        den += rmax;
                        used += 1;
                    }
                }
                Summary {
                    value: (den > 0.0).then(|| 100.0 * num / den),
                    n_users: used,
                    n_excluded: n - used,
                }
            }
            Metric::Coverage(_)
            | Metric::Gini(_)
            | Metric::Entropy(_)
            | Metric::PopReo(_)
            | Metric::PopRsp(_) => {
                let slot = self.metrics[..column].iter().filter(|x| x.is_exposure()).count();
                // Undefined (a parity with no head or no tail item to list) is `None`.
                let value = Some(self.exposure[slot]).filter(|v| v.is_finite());
                Summary { value, n_users: n, n_excluded: 0 }
            }
            _ => {
                let (mut sum, mut used) = (0.0, 0);
                for u in 0..n {
                    let v = self.values[u * m + column];
                    if !v.is_nan() {
                        sum += v;
                        used += 1;
                    }
                }
                Summary {
                    value: (used > 0).then(|| sum / used as f64),
                    n_users: used,
                    n_excluded: n - used,
                }
            }
        }
    }
}

/// One user's computed values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct UserRow {
    pub(crate) values: Vec<f64>,
    pub(crate) half_life: Vec<[f64; 2]>,
    /// Per exposure metric ([`Metric::is_exposure`]): the items in the top N as `(item,
    /// taken, len)`, in the list with probability `taken / len` (a tie group of `len` the
    /// cut-off leaves `taken` slots to; `taken == len` when surely there). A streamed
    /// evaluation moves them into its [`Exposure`] at once and keeps these empty.
    pub(crate) covered: Vec<Vec<(u32, u32, u32)>>,
    /// Per exposure metric: for `popreo` and `poprsp`, the expected head and tail items of
    /// the list and the head and tail items that could be there (zeros for the others).
    pub(crate) parity: Vec<[f64; 4]>,
    pub(crate) without_relevant: bool,
}

/// Computes `metrics` (the per-user ones; ROC-family entries get `NaN` columns) for every
/// judged user, in parallel, in user order.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Metric, Options, Scored, per_user};
/// let mut builder = Judgments::builder(1, 4);
/// builder.push_user(0, &[0, 1, 2, 3], &[0.0, 1.0, 0.0, 1.0])?;
/// let judgments = builder.build()?;
/// let scored = Scored::new(&judgments, &[0.9, 0.8, 0.1, 0.0])?;
/// let values = per_user(&scored, &[Metric::Precision(2), Metric::Mrr], &Options::default())?;
/// assert_eq!(values.summary(0).value, Some(0.5));
/// assert_eq!(values.summary(1).value, Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`MetricsError::InvalidArgument`] for invalid options, or for a metric that needs the
/// items' popularity or attributes ([`Metric::needs_popularity`],
/// [`Metric::needs_attributes`]: use [`per_user_with`]).
pub fn per_user(scored: &Scored<'_>, metrics: &[Metric], options: &Options) -> Result<PerUser> {
    per_user_with(scored, metrics, options, ItemFacts::default())
}

/// [`per_user`] with what is known of the items ([`ItemFacts`]): their training
/// popularity, which the popularity, novelty and exposure metrics (`arp@N`, `epc@N`,
/// `gini@N`, ...) need, and their attributes, which intra-list diversity (`ild@N`) needs.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{HeadRule, ItemFacts, Metric, Options, Popularity, Scored, per_user_with};
/// let mut builder = Judgments::builder(1, 4);
/// builder.push_user(0, &[0, 1, 2, 3], &[0.0, 1.0, 0.0, 1.0])?;
/// let judgments = builder.build()?;
/// let scored = Scored::new(&judgments, &[0.9, 0.8, 0.1, 0.0])?;
/// // Items 0..4 have 4, 2, 1 and 1 training users out of 5.
/// let popularity = Popularity::new(vec![4, 2, 1, 1], &[], 5, HeadRule::Items(1))?;
/// let metrics = Metric::parse_list("arp@2,aplt@2")?;
/// let facts = ItemFacts::popularity(&popularity);
/// let values = per_user_with(&scored, &metrics, &Options::default(), facts)?;
/// // The top 2 are items 0 and 1: popularity (4 + 2) / 2; item 1 is in the long tail.
/// assert_eq!(values.summary(0).value, Some(3.0));
/// assert_eq!(values.summary(1).value, Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`per_user`]; a metric needs popularity or attributes and none is given, or they
/// describe another number of items than the judgments'.
pub fn per_user_with(
    scored: &Scored<'_>,
    metrics: &[Metric],
    options: &Options,
    facts: ItemFacts<'_>,
) -> Result<PerUser> {
    options.check()?;
    let n_items = scored.judgments().n_items();
    match (facts.diversity, metrics.iter().find(|m| m.is_diversity())) {
        (None, Some(m)) => {
            return Err(MetricsError::InvalidArgument {
                name: "metric",
                value: m.to_string(),
                expected: "a metric that does not need the items' attributes, or their \
                           attributes (an attribute file)",
            });
        }
        (Some(d), _) => crate::diversity::check_items(d, n_items)?,
        _ => {}
    }
    check_calibration(facts.calibration, metrics, scored.judgments())?;
    let novelty = match (facts.popularity, metrics.iter().find(|m| m.needs_popularity())) {
        (None, Some(m)) => {
            return Err(MetricsError::InvalidArgument {
                name: "metric",
                value: m.to_string(),
                expected: "a metric that does not need the items' training popularity, \
                           or their popularity (the training events)",
            });
        }
        (Some(p), _) if p.n_items() != n_items => {
            return Err(MetricsError::InvalidArgument {
                name: "popularity",
                value: format!("{} items", p.n_items()),
                expected: "the popularity of every item of the judgments",
            });
        }
        (Some(p), Some(_)) => p.novelty(),
        _ => Vec::new(),
    };
    let list_depth = metrics.iter().filter_map(Metric::list_depth).max();
    let exp_gains = metrics.iter().any(|m| matches!(m, Metric::NdcgExp(_)));
    let rows: Vec<UserRow> = (0..scored.n_users())
        .into_par_iter()
        .map_init(
            || Work { exp_gains, ..Work::default() },
            |work, position| {
                let (user, scores) = scored.user(position);
                let input = UserInput { items: user.items, grades: user.grades, scores };
                let lists = Lists {
                    depth: list_depth,
                    novelty: &novelty,
                    diversity: facts.diversity,
                    calibration: facts.calibration,
                    user: scored.judgments().users()[position],
                };
                user_row(work, input, metrics, options, lists)
            },
        )
        .collect();
    let mut held = vec![Exposure::default(); metrics.iter().filter(|m| m.is_exposure()).count()];
    for row in &rows {
        for (exposure, covered) in held.iter_mut().zip(&row.covered) {
            for &(item, taken, len) in covered {
                exposure.add(item, taken, len);
            }
        }
    }
    let exposure = pooled_exposures(metrics, &rows, &mut held, n_items);
    Ok(PerUser::from_rows(metrics, scored.judgments().users().to_vec(), rows, exposure))
}

/// Refuses `miscal@N` without a calibration, or with one for other items or fewer users
/// than the judgments'.
fn check_calibration(
    calibration: Option<&Calibration>,
    metrics: &[Metric],
    judgments: &recs_core::Judgments,
) -> Result<()> {
    let asked = metrics.iter().find(|m| m.needs_history());
    match (calibration, asked) {
        (None, Some(m)) => Err(MetricsError::InvalidArgument {
            name: "metric",
            value: m.to_string(),
            expected: "a metric that does not need the users' histories, or the items' \
                       attributes and the training events (a Calibration)",
        }),
        (Some(c), _) if c.n_items() != judgments.n_items() => Err(MetricsError::InvalidArgument {
            name: "calibration",
            value: format!("{} items", c.n_items()),
            expected: "the attribute distribution of every item of the judgments",
        }),
        (Some(c), _) if c.n_users() < judgments.n_users() => Err(MetricsError::InvalidArgument {
            name: "calibration",
            value: format!("{} users", c.n_users()),
            expected: "the history of every user of the judgments",
        }),
        _ => Ok(()),
    }
}

/// The pooled value of each exposure metric of `metrics` over every user's list: from
/// `held` (one per exposure metric) for coverage, the Gini index and entropy, from the
/// rows' parity sums (in user order) for PopREO and PopRSP.
pub(crate) fn pooled_exposures(
    metrics: &[Metric],
    rows: &[UserRow],
    held: &mut [Exposure],
    n_items: usize,
) -> Vec<f64> {
    metrics
        .iter()
        .filter(|m| m.is_exposure())
        .zip(held.iter_mut())
        .enumerate()
        .map(|(slot, (&metric, held))| pooled_exposure(metric, slot, rows, held, n_items))
        .collect()
}

/// The pooled value of exposure metric `metric`, the `slot`-th of its kind, over every
/// user's list.
fn pooled_exposure(
    metric: Metric,
    slot: usize,
    rows: &[UserRow],
    held: &mut Exposure,
    n_items: usize,
) -> f64 {
    if let Metric::PopReo(_) | Metric::PopRsp(_) = metric {
        // Head and tail: the expected listed items over the items that could be listed,
        // summed in user order; the parity is std / mean of the two rates.
        let mut sums = [0.0f64; 4];
        for row in rows {
            for (total, value) in sums.iter_mut().zip(row.parity[slot]) {
                *total += value;
            }
        }
        let (head, tail) = (sums[0] / sums[2], sums[1] / sums[3]);
        return (head - tail).abs() / (head + tail);
    }
    if let Metric::Coverage(_) = metric {
        return held.coverage(n_items);
    }
    // Expected exposure: the expected number of lists holding each item.
    let exposure = held.expected(n_items);
    match metric {
        Metric::Gini(_) => recs_core::gini(&exposure),
        _ => recs_core::shannon_entropy(&exposure),
    }
}

impl PerUser {
    /// The per-user values of `users` (ascending), one row each, with the pooled value of
    /// each exposure metric.
    pub(crate) fn from_rows(
        metrics: &[Metric],
        users: Vec<u32>,
        rows: Vec<UserRow>,
        exposure: Vec<f64>,
    ) -> PerUser {
        let mut out = PerUser {
            metrics: metrics.to_vec(),
            users,
            values: Vec::with_capacity(rows.len() * metrics.len()),
            half_life: Vec::new(),
            exposure,
            n_without_relevant: 0,
        };
        for row in rows {
            out.values.extend(row.values);
            out.half_life.extend(row.half_life);
            out.n_without_relevant += usize::from(row.without_relevant);
        }
        out
    }
}

/// Statistics of one tie group: its place among all of a user's candidates and sums over
/// its members.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Group {
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) relevant: usize,
    /// Relevant candidates ranked above the group.
    pub(crate) before: usize,
    /// Sum of the linear NDCG gains, `grade − gain_offset` ([`Options::gain_offset`]).
    pub(crate) gain: f64,
    /// Sum of `2^grade − 1` (left 0 unless [`Work::exp_gains`]).
    pub(crate) gain_exp: f64,
    /// Sum of `max(grade − neutral, 0)`.
    pub(crate) gain_half_life: f64,
}

impl Group {
    /// A group of `len` candidates from rank position `start`, after `before` relevant
    /// ones, with no member summed yet.
    pub(crate) fn new(start: usize, len: usize, before: usize) -> Self {
        Group { start, len, relevant: 0, before, gain: 0.0, gain_exp: 0.0, gain_half_life: 0.0 }
    }

    /// Adds a member with `grade` to the sums (the exponential gain only with `exp_gains`).
    pub(crate) fn add(&mut self, grade: f32, options: &Options, exp_gains: bool) {
        self.relevant += usize::from(grade >= options.threshold);
        self.gain += f64::from(grade) - f64::from(options.gain_offset);
        if exp_gains {
            self.gain_exp += f64::from(grade).exp2() - 1.0;
        }
        self.gain_half_life += f64::from((grade - options.neutral).max(0.0));
    }
}

/// Reused per-thread storage of the per-user work.
#[derive(Debug, Default)]
struct Work {
    /// Whether groups sum exponential gains (only `ndcg_exp` uses them).
    exp_gains: bool,
    /// Storage of the metrics that read the lists.
    list: ListWork,
    packed: Vec<u64>,
    /// The score part of `packed`, for counting under [`TieBreak::Expected`].
    rank_keys: Vec<u32>,
    graded: Vec<u64>,
    groups: Vec<Group>,
    gains: Vec<f64>,
    /// The positive grades of the user at hand.
    positive: Vec<f32>,
    /// The user's scored candidates, when [`Missing::Unranked`] leaves others out.
    ranked: RankedPart,
}

/// The scored candidates of a user and the positive grades of its unscored ones.
#[derive(Debug, Clone, Default)]
struct RankedPart {
    items: Vec<u32>,
    grades: Vec<f32>,
    scores: Vec<f32>,
    unranked_positive: Vec<f32>,
}

impl RankedPart {
    /// Keeps the scored candidates of `input` and the positive grades of the others.
    fn split(&mut self, input: UserInput<'_>) {
        self.items.clear();
        self.grades.clear();
        self.scores.clear();
        self.unranked_positive.clear();
        for ((&item, &grade), &score) in input.items.iter().zip(input.grades).zip(input.scores) {
            if score.is_nan() {
                if grade > 0.0 {
                    self.unranked_positive.push(grade);
                }
            } else {
                self.items.push(item);
                self.grades.push(grade);
                self.scores.push(score);
            }
        }
    }

    fn input(&self) -> UserInput<'_> {
        UserInput { items: &self.items, grades: &self.grades, scores: &self.scores }
    }
}

/// One user's candidates.
#[derive(Debug, Clone, Copy)]
struct UserInput<'a> {
    items: &'a [u32],
    grades: &'a [f32],
    scores: &'a [f32],
}

/// The tie groups that hold a candidate with a positive grade, in rank order, into
/// `work.groups`. A group's sums run over its members in rank order (ties by item index);
/// members with grade 0 add nothing to any sum and are not relevant (the threshold is
/// positive), so every per-user metric but coverage is computed from these groups alone,
/// without ranking the ungraded candidates.
///
/// With `count`, each group's place is found by counting the candidates ranked above it
/// and tied with it (`O(groups · n)`, for few graded candidates); otherwise all candidates
/// are sorted (`O(n log n)`). Both give the same groups.
fn graded_groups(work: &mut Work, grades: &[f32], scores: &[f32], options: &Options, count: bool) {
    let Work { exp_gains, packed, rank_keys, graded, groups, .. } = work;
    let exp_gains = *exp_gains;
    packed.clear();
    graded.clear();
    groups.clear();
    let descending_items = options.ties == TieBreak::ItemDescending;
    // Sort keys as in `Ranking::rank`: score (descending) in the high half, the item
    // position in the low half; `shift` keeps only the part that decides a group.
    packed.extend(scores.iter().enumerate().map(|(i, &s)| {
        let i = if descending_items { !(i as u32) } else { i as u32 };
        (u64::from(!score_key(s)) << 32) | u64::from(i)
    }));
    graded.extend(packed.iter().zip(grades).filter(|(_, g)| **g > 0.0).map(|(p, _)| *p));
    if graded.is_empty() {
        return;
    }
    let shift = if options.ties == TieBreak::Expected { 32 } else { 0 };
    let position = |p: u64| {
        let low = p as u32;
        (if descending_items { !low } else { low }) as usize
    };
    let n = packed.len();
    let mut before = 0;
    let mut push = |start: usize, len: usize, members: &mut dyn Iterator<Item = usize>| {
        let mut g = Group::new(start, len, before);
        for i in members {
            g.add(grades[i], options, exp_gains);
        }
        before += g.relevant;
        groups.push(g);
    };
    if count && n <= u32::MAX as usize {
        if shift == 32 {
            rank_keys.clear();
            rank_keys.extend(packed.iter().map(|&p| (p >> 32) as u32));
        }
        graded.sort_unstable();
        let mut i = 0;
        while i < graded.len() {
            let key = graded[i] >> shift;
            let mut j = i + 1;
            while j < graded.len() && graded[j] >> shift == key {
                j += 1;
            }
            let (above, tied) =
                if shift == 32 { place(rank_keys, key as u32) } else { place(packed, key) };
            push(above, tied, &mut graded[i..j].iter().map(|&p| position(p)));
            i = j;
        }
    } else {
        packed.sort_unstable();
        let mut start = 0;
        while start < n {
            let key = packed[start] >> shift;
            let mut end = start + 1;
            while end < n && packed[end] >> shift == key {
                end += 1;
            }
            let members = &packed[start..end];
            if members.iter().any(|&p| grades[position(p)] > 0.0) {
                let mut graded_members =
                    members.iter().map(|&p| position(p)).filter(|&i| grades[i] > 0.0);
                push(start, end - start, &mut graded_members);
            }
            start = end;
        }
    }
}

/// Numbers of `keys` below `key` and equal to it (`keys.len()` fits in `u32`; 32-bit
/// counters keep the loop wide on vector units).
fn place<K: Copy + Ord>(keys: &[K], key: K) -> (usize, usize) {
    let (mut below, mut equal) = (0u32, 0u32);
    for &k in keys {
        below += u32::from(k < key);
        equal += u32::from(k == key);
    }
    (below as usize, equal as usize)
}

/// Expected relevant candidates in the top `k`.
fn expected_hits(groups: &[Group], k: usize) -> f64 {
    let mut hits = 0.0;
    for g in groups {
        if g.start >= k {
            break;
        }
        let taken = (k - g.start).min(g.len);
        hits += g.relevant as f64 * taken as f64 / g.len as f64;
    }
    hits
}

/// Probability that the top `k` holds at least one relevant candidate.
fn hit_probability(groups: &[Group], k: usize) -> f64 {
    for g in groups {
        if g.start >= k {
            break;
        }
        if g.relevant == 0 {
            continue;
        }
        let taken = (k - g.start).min(g.len);
        if taken == g.len {
            return 1.0;
        }
        // 1 − C(g − s, c) / C(g, c): all `taken` slots drawn from the non-relevant ones.
        let mut none = 1.0;
        for i in 0..taken {
            let bad = (g.len - g.relevant) as f64 - i as f64;
            if bad <= 0.0 {
                return 1.0;
            }
            none *= bad / (g.len - i) as f64;
        }
        return 1.0 - none;
    }
    0.0
}

/// Expected `Σ_{ranks r ≤ k} gain(r) · weight(r)` where each position of a group gets the
/// group's mean gain.
fn expected_discounted(
    groups: &[Group],
    k: usize,
    gain: impl Fn(&Group) -> f64,
    weight: impl Fn(usize) -> f64,
) -> f64 {
    let mut total = 0.0;
    for g in groups {
        if g.start >= k {
            break;
        }
        let mean = gain(g) / g.len as f64;
        if mean == 0.0 {
            continue;
        }
        let end = (g.start + g.len).min(k);
        let w: f64 = (g.start + 1..=end).map(&weight).sum();
        total += mean * w;
    }
    total
}

/// Expected `Σ_{relevant at rank r ≤ k} precision@r` (McSherry & Najork's tie-aware AP
/// numerator): position `a + j` of a group is relevant with probability `s/g`, and then
/// holds on average `t + 1 + (j − 1)(s − 1)/(g − 1)` relevant candidates at or above it.
fn expected_ap_numerator(groups: &[Group], k: usize) -> f64 {
    let mut total = 0.0;
    for g in groups {
        if g.start >= k {
            break;
        }
        if g.relevant == 0 {
            continue;
        }
        let p = g.relevant as f64 / g.len as f64;
        let others = if g.len > 1 { (g.relevant - 1) as f64 / (g.len - 1) as f64 } else { 0.0 };
        let end = g.len.min(k - g.start);
        for j in 1..=end {
            let above = g.before as f64 + 1.0 + (j - 1) as f64 * others;
            total += p * above / (g.start + j) as f64;
        }
    }
    total
}

/// Expected reciprocal rank of the first relevant candidate.
fn expected_reciprocal_rank(groups: &[Group]) -> f64 {
    let Some(g) = groups.iter().find(|g| g.relevant > 0) else { return 0.0 };
    let (len, s) = (g.len, g.relevant);
    // P(J > j) = Π_{i<j} (len − s − i)/(len − i): the first j positions are non-relevant.
    let mut none_before = 1.0;
    let mut total = 0.0;
    for j in 1..=len - s + 1 {
        let none_through = if j <= len - s {
            none_before * (len - s - (j - 1)) as f64 / (len - (j - 1)) as f64
        } else {
            0.0
        };
        total += (none_before - none_through) / (g.start + j) as f64;
        none_before = none_through;
    }
    total
}

/// `Σ_{r ≤ k} gain_r · weight(r)` with gains sorted decreasingly: the ideal ranking.
fn ideal(gains: &mut [f64], k: usize, weight: impl Fn(usize) -> f64) -> f64 {
    let k = k.min(gains.len());
    if k == 0 {
        return 0.0;
    }
    if k < gains.len() {
        gains.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    }
    gains[..k].sort_unstable_by(|a, b| b.total_cmp(a));
    gains[..k].iter().enumerate().map(|(i, g)| g * weight(i + 1)).sum()
}

/// What the list-reading metrics share across users: the depth to rank to, and each
/// item's novelty values (empty when no metric needs them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lists<'a> {
    pub(crate) depth: Option<usize>,
    pub(crate) novelty: &'a [Novelty],
    pub(crate) diversity: Option<&'a Diversity>,
    pub(crate) calibration: Option<&'a Calibration>,
    /// The user whose list it is (for its history, in calibration).
    pub(crate) user: u32,
}

fn user_row(
    work: &mut Work,
    input: UserInput<'_>,
    metrics: &[Metric],
    options: &Options,
    lists: Lists<'_>,
) -> UserRow {
    let mut ranked = std::mem::take(&mut work.ranked);
    ranked.unranked_positive.clear();
    let input = if options.missing == Missing::Unranked && input.scores.iter().any(|s| s.is_nan()) {
        ranked.split(input);
        ranked.input()
    } else {
        input
    };
    let UserInput { items, grades, scores } = input;
    // Counting beats sorting while the graded candidates are few (about 2·log2 n).
    let graded = grades.iter().filter(|&&g| g > 0.0).count();
    let count = graded <= 4 + 2 * (usize::BITS - grades.len().leading_zeros()) as usize;
    graded_groups(work, grades, scores, options, count);
    if lists.depth.is_some() {
        work.list.ranking.rank(scores, lists.depth, options.ties);
    }
    let Work { groups, gains, positive, list, .. } = work;
    positive.clear();
    positive.extend(grades.iter().copied().filter(|&g| g > 0.0));
    positive.extend_from_slice(&ranked.unranked_positive);
    let shape = UserShape { n: grades.len(), positive_grades: positive };
    let mut row = row_from_groups(groups, gains, shape, metrics, options);
    list_values(list, items, grades, metrics, options, lists, &mut row);
    work.ranked = ranked;
    row
}

/// Reused storage of the metrics that read the lists.
#[derive(Debug, Default)]
pub(crate) struct ListWork {
    /// Ranking of the top candidates; [`list_values`] reads it.
    pub(crate) ranking: Ranking,
    /// The items of a user's top N.
    listed: Vec<Listed>,
    /// Storage of the diversity metrics.
    scratch: crate::diversity::Scratch,
    /// Storage of calibration: the list's mass on each attribute of the user's history.
    calibration: Vec<f64>,
}

/// Fills the columns of `row` of the metrics that read the lists' items, and its
/// exposure and parity entries, from `work.ranking` (ranked to the lists' depth) over the
/// candidates `items` (by position) with `grades`.
pub(crate) fn list_values(
    work: &mut ListWork,
    items: &[u32],
    grades: &[f32],
    metrics: &[Metric],
    options: &Options,
    lists: Lists<'_>,
    row: &mut UserRow,
) {
    let ListWork { ranking, listed: listed_items, scratch, calibration: calibration_scratch } =
        work;
    let n = items.len();
    for (column, &metric) in metrics.iter().enumerate() {
        let Some(k) = metric.list_depth() else { continue };
        if let Metric::PopReo(_) | Metric::PopRsp(_) = metric {
            listed(&ranking.order, &ranking.groups, k, listed_items);
            let equal_opportunity = matches!(metric, Metric::PopReo(_));
            let counted =
                |position: usize| !equal_opportunity || grades[position] >= options.threshold;
            let mut sums = [0.0; 4];
            for l in listed_items.iter().filter(|l| counted(l.position as usize)) {
                let tail = lists.novelty[items[l.position as usize] as usize].tail;
                sums[usize::from(tail == 1.0)] += l.probability;
            }
            for (_, &item) in items.iter().enumerate().filter(|&(p, _)| counted(p)) {
                sums[2 + usize::from(lists.novelty[item as usize].tail == 1.0)] += 1.0;
            }
            row.parity.push(sums);
            row.covered.push(Vec::new());
            continue;
        }
        if metric.is_exposure() {
            row.parity.push([0.0; 4]);
            let mut covered = Vec::new();
            for &(start, len) in &ranking.groups {
                if start >= k {
                    break;
                }
                let taken = (k - start).min(len);
                for &i in &ranking.order[start..start + len] {
                    covered.push((items[i as usize], taken as u32, len as u32));
                }
            }
            row.covered.push(covered);
            continue;
        }
        listed(&ranking.order, &ranking.groups, k, listed_items);
        if let (Metric::Miscal(_), Some(calibration)) = (metric, lists.calibration) {
            let q = &mut *calibration_scratch;
            row.values[column] = calibration.miscalibration(lists.user, listed_items, items, q);
            continue;
        }
        if let (Metric::Ild(_), Some(diversity)) = (metric, lists.diversity) {
            let length = k.min(n);
            row.values[column] = diversity.expected(listed_items, items, length, scratch);
            continue;
        }
        if let (Metric::IldDisc(_), Some(diversity)) = (metric, lists.diversity) {
            let length = k.min(n);
            row.values[column] =
                diversity.expected_discounted(listed_items, items, length, scratch);
            continue;
        }
        let list = ListView { listed: listed_items, items, grades, n };
        if let Some(value) = popularity_value(metric, k, list, lists.novelty, options) {
            row.values[column] = value;
        }
    }
}

/// One user's top-N list as the popularity metrics read it.
#[derive(Debug, Clone, Copy)]
struct ListView<'a> {
    listed: &'a [Listed],
    items: &'a [u32],
    grades: &'a [f32],
    /// Number of ranked candidates.
    n: usize,
}

/// The value of popularity metric `metric` at depth `k` for one user's list; `None` keeps
/// the value [`row_from_groups`] gave (EPC and EFD of a user without a relevant
/// candidate, under the zero policy).
fn popularity_value(
    metric: Metric,
    k: usize,
    list: ListView<'_>,
    novelty: &[Novelty],
    options: &Options,
) -> Option<f64> {
    let length = k.min(list.n);
    let of = |l: &Listed| &novelty[list.items[l.position as usize] as usize];
    let relevant = |l: &Listed| list.grades[l.position as usize] >= options.threshold;
    // Σ over the list of P(in list) · value(item), in rank order.
    let expected = |value: &dyn Fn(&Novelty) -> f64| -> f64 {
        list.listed.iter().map(|l| l.probability * value(of(l))).sum()
    };
    let mean = |value: &dyn Fn(&Novelty) -> f64| -> f64 {
        if length == 0 { f64::NAN } else { expected(value) / length as f64 }
    };
    // EPC and EFD: Σ over the relevant items of the list of weight · novelty, over the
    // list's total weight (Vargas & Castells 2011, `C = 1 / Σ disc`).
    let relevance_weighted = |value: &dyn Fn(&Novelty) -> f64, discounted: bool| -> Option<f64> {
        if !list.grades.iter().any(|&g| g >= options.threshold) {
            return None;
        }
        let weight = |l: &Listed| if discounted { l.discount } else { l.probability };
        let total: f64 =
            if discounted { (1..=length).map(log_discount).sum() } else { length as f64 };
        let sum: f64 =
            list.listed.iter().filter(|l| relevant(l)).map(|l| weight(l) * value(of(l))).sum();
        Some(if total > 0.0 { sum / total } else { 0.0 })
    };
    match metric {
        Metric::Arp(_) => Some(mean(&|n| n.users)),
        Metric::Aplt(_) => Some(mean(&|n| n.tail)),
        Metric::Aclt(_) => Some(expected(&|n| n.tail)),
        Metric::Miuf(_) => Some(mean(&|n| n.inverse_frequency)),
        Metric::Epc(_) => relevance_weighted(&|n| n.complement, true),
        Metric::EpcFlat(_) => relevance_weighted(&|n| n.complement, false),
        Metric::Efd(_) => relevance_weighted(&|n| n.free_discovery, true),
        Metric::EfdFlat(_) => relevance_weighted(&|n| n.free_discovery, false),
        Metric::Serendipity(_) => Some(if length == 0 {
            f64::NAN
        } else {
            // RecTools: Σ over the list of rel · max(p(r) − pu(i), 0) / |L|, with
            // p(r) = (n + 1 − r) / n; an item of a tie takes each of its ranks with
            // probability 1 / (its group's size).
            let n = novelty.len() as f64;
            let sum: f64 = list
                .listed
                .iter()
                .filter(|l| relevant(l))
                .map(|l| {
                    let pu = of(l).popularity_rank_probability;
                    let over: f64 = (l.ranks.0..=l.ranks.1)
                        .map(|r| ((n + 1.0 - r as f64) / n - pu).max(0.0))
                        .sum();
                    over / l.group as f64
                })
                .sum();
            sum / length as f64
        }),
        _ => None,
    }
}

/// What the metrics need of a user besides its tie groups: its number of candidates and
/// the grades of its candidates with a positive grade (in any order).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UserShape<'a> {
    pub(crate) n: usize,
    pub(crate) positive_grades: &'a [f32],
}

/// A user's per-user metric values (coverage aside) from its graded tie groups.
pub(crate) fn row_from_groups(
    groups: &[Group],
    gains: &mut Vec<f64>,
    shape: UserShape<'_>,
    metrics: &[Metric],
    options: &Options,
) -> UserRow {
    let UserShape { n, positive_grades: grades } = shape;
    let relevant = grades.iter().filter(|&&g| g >= options.threshold).count();
    let none = relevant == 0;
    let mut row = UserRow {
        values: Vec::with_capacity(metrics.len()),
        half_life: Vec::new(),
        covered: Vec::new(),
        parity: Vec::new(),
        without_relevant: none,
    };
    for &metric in metrics {
        let value =
            match metric {
                Metric::Roc | Metric::Croc | Metric::UserAuc => f64::NAN,
                Metric::Precision(k) => {
                    if none {
                        match options.zero {
                            ZeroPolicy::Exclude => f64::NAN,
                            ZeroPolicy::Zero => 0.0,
                            ZeroPolicy::Ignatov => {
                                if n.min(k) == 0 {
                                    1.0
                                } else {
                                    0.0
                                }
                            }
                        }
                    } else if options.zero == ZeroPolicy::Ignatov {
                        // ignatov2010 §4: denominator |r_n(u) ∩ I_hidden| = min(N, n).
                        expected_hits(groups, k) / k.min(n) as f64
                    } else {
                        expected_hits(groups, k) / k as f64
                    }
                }
                Metric::Recall(k) => {
                    if none {
                        match options.zero {
                            ZeroPolicy::Exclude => f64::NAN,
                            ZeroPolicy::Zero => 0.0,
                            ZeroPolicy::Ignatov => 1.0,
                        }
                    } else {
                        expected_hits(groups, k) / relevant as f64
                    }
                }
                _ if none => match options.zero {
                    ZeroPolicy::Zero => 0.0,
                    _ => f64::NAN,
                },
                Metric::F1(k) => 2.0 * expected_hits(groups, k) / (k + relevant) as f64,
                Metric::Hit(k) => hit_probability(groups, k),
                Metric::Ndcg(k) | Metric::NdcgExp(k) => {
                    let exp = matches!(metric, Metric::NdcgExp(_));
                    let dcg = expected_discounted(
                        groups,
                        k,
                        |g| if exp { g.gain_exp } else { g.gain },
                        log_discount,
                    );
                    gains.clear();
                    // Only positive gains enter the ideal ranking (with an offset, the grades
                    // above it).
                    let offset = if exp { 0.0 } else { f64::from(options.gain_offset) };
                    gains.extend(
                        grades
                            .iter()
                            .filter(|&&g| g > 0.0)
                            .map(|&g| {
                                if exp { f64::from(g).exp2() - 1.0 } else { f64::from(g) - offset }
                            })
                            .filter(|&gain| gain > 0.0),
                    );
                    let idcg = ideal(gains, k, log_discount);
                    // The user has a relevant candidate, so without an offset the ideal DCG is
                    // positive; with one, grades all at or below it leave nothing to normalise
                    // by, and the user scores 0.
                    if idcg > 0.0 { dcg / idcg } else { 0.0 }
                }
                Metric::Ap(k) => expected_ap_numerator(groups, k) / k.min(relevant) as f64,
                Metric::Map => expected_ap_numerator(groups, usize::MAX) / relevant as f64,
                Metric::Mrr => expected_reciprocal_rank(groups),
                // Read from the user's list by `user_row` (or pooled).
                Metric::HalfLife(_)
                | Metric::Coverage(_)
                | Metric::Arp(_)
                | Metric::Aplt(_)
                | Metric::Aclt(_)
                | Metric::Epc(_)
                | Metric::EpcFlat(_)
                | Metric::Efd(_)
                | Metric::EfdFlat(_)
                | Metric::Miuf(_)
                | Metric::Gini(_)
                | Metric::Entropy(_)
                | Metric::Ild(_)
                | Metric::IldDisc(_)
                | Metric::Serendipity(_)
                | Metric::PopReo(_)
                | Metric::PopRsp(_)
                | Metric::Miscal(_) => f64::NAN,
            };
        row.values.push(value);
        if let Metric::HalfLife(alpha) = metric {
            let weight = |rank: usize| (-((rank - 1) as f64) / (alpha - 1.0)).exp2();
            let r = expected_discounted(groups, usize::MAX, |g| g.gain_half_life, weight);
            gains.clear();
            gains.extend(
                grades
                    .iter()
                    .filter(|&&g| g > options.neutral)
                    .map(|&g| f64::from(g - options.neutral)),
            );
            let rmax = ideal(gains, n, weight);
            row.half_life.push([r, rmax]);
            if rmax > 0.0 {
                *row.values.last_mut().expect("pushed above") = r / rmax;
            }
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use recs_core::Judgments;

    fn one_user(grades: &[f32]) -> Judgments {
        let mut b = Judgments::builder(1, grades.len());
        let items: Vec<u32> = (0..grades.len() as u32).collect();
        b.push_user(0, &items, grades).unwrap();
        b.build().unwrap()
    }

    /// Table-driven check of one user's metric values.
    fn check(grades: &[f32], scores: &[f32], options: Options, cases: &[(&str, f64)]) {
        let j = one_user(grades);
        let scored = Scored::new(&j, scores).unwrap();
        let metrics: Vec<Metric> = cases.iter().map(|c| c.0.parse().unwrap()).collect();
        let values = per_user(&scored, &metrics, &options).unwrap();
        for (i, (name, expected)) in cases.iter().enumerate() {
            let got = values.summary(i).value.unwrap_or(f64::NAN);
            assert!(
                (got - expected).abs() < 1e-12 || (got.is_nan() && expected.is_nan()),
                "{name}: got {got}, expected {expected}"
            );
        }
    }

    #[test]
    fn untied_hand_computed() {
        // Ranking by score: items 0 (rel), 1, 2 (rel), 3, 4 (rel). R = 3.
        let grades = [1.0, 0.0, 2.0, 0.0, 1.0];
        let scores = [0.9, 0.8, 0.7, 0.6, 0.5];
        let idcg3 = 2.0 + 1.0 / 3f64.log2() + 1.0 / 2.0;
        let dcg3 = 1.0 + 2.0 / 2.0;
        let idcg3_exp = 3.0 + 1.0 / 3f64.log2() + 1.0 / 2.0;
        let dcg3_exp = 1.0 + 3.0 / 2.0;
        check(
            &grades,
            &scores,
            Options::default(),
            &[
                ("p@1", 1.0),
                ("p@3", 2.0 / 3.0),
                ("r@3", 2.0 / 3.0),
                ("f1@3", 2.0 * 2.0 / 6.0),
                ("hit@1", 1.0),
                ("ndcg@3", dcg3 / idcg3),
                ("ndcg_exp@3", dcg3_exp / idcg3_exp),
                ("ap@3", (1.0 + 2.0 / 3.0) / 3.0),
                ("ap@2", 1.0 / 2.0),
                ("map", (1.0 + 2.0 / 3.0 + 3.0 / 5.0) / 3.0),
                ("mrr", 1.0),
                ("p@10", 0.3),
            ],
        );
    }

    #[test]
    fn unranked_missing_candidates_count_in_denominators_only() {
        // Items 0 (rel, 0.9), 1 (0.8), 2 (rel, no score), 3 (no score). R = 2.
        let grades = [1.0, 0.0, 2.0, 0.0];
        let scores = [0.9, 0.8, f32::NAN, f32::NAN];
        let idcg = 2.0 + 1.0 / 3f64.log2();
        let unranked = Options { missing: Missing::Unranked, ..Options::default() };
        check(
            &grades,
            &scores,
            unranked,
            &[
                ("p@1", 1.0),
                ("p@10", 0.1),
                ("r@10", 0.5),
                ("f1@10", 2.0 / 12.0),
                ("ndcg@10", 1.0 / idcg),
                ("map", 0.5),
                ("ap@10", 0.5),
                ("mrr", 1.0),
            ],
        );
        // Ranked last instead, item 2 is found at rank 3 or 4 (tied with item 3).
        let (dcg_last, ap_last) = (
            1.0 + 2.0 * (0.5 / 2.0 + 0.5 / 5f64.log2()),
            (1.0 + 0.5 * (2.0 / 3.0 + 2.0 / 4.0)) / 2.0,
        );
        check(
            &grades,
            &scores,
            Options::default(),
            &[("r@10", 1.0), ("ndcg@10", dcg_last / idcg), ("map", ap_last)],
        );
    }

    #[test]
    fn missing_policies_have_names() {
        assert_eq!(Missing::ALL, &[Missing::Last, Missing::Unranked]);
        assert_eq!("last".parse::<Missing>().unwrap(), Missing::Last);
        let error = "ranked".parse::<Missing>().unwrap_err().to_string();
        assert!(error.contains("last") && error.contains("unranked"), "{error}");
    }

    #[test]
    fn half_life_hand_computed() {
        // α = 2: weights 1, 1/2, 1/4, 1/8. Ranked grades 0, 3, 5, 1 with d = 2:
        // gains 0, 1, 3, 0 → R = 1/2 + 3/4; ideal 3, 1 → 3 + 1/2.
        let options = Options { neutral: 2.0, ..Options::default() };
        check(
            &[0.0, 3.0, 5.0, 1.0],
            &[4.0, 3.0, 2.0, 1.0],
            options,
            &[("half_life@2", 100.0 * 1.25 / 3.5)],
        );
    }

    #[test]
    fn ndcg_with_a_gain_offset_hand_computed() {
        // fastml2015's gain = rating − 3: ratings 5, 2, 1, 4, 3 of ranks 2..6 and an
        // unrated candidate at rank 1 give gains 0, 2, −1, −2, 1, 0. DCG@6 =
        // 2/log2 3 − 1/2 − 2/log2 5 + 1/log2 6; the ideal DCG holds only the positive
        // gains 2, 1: 2 + 1/log2 3. NDCG@2 = (2/log2 3) / (2 + 1/log2 3).
        let options = Options { gain_offset: 3.0, ..Options::default() };
        let grades = [0.0, 5.0, 2.0, 1.0, 4.0, 3.0];
        let scores = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
        let l3 = 3f64.log2();
        let dcg = 2.0 / l3 - 0.5 - 2.0 / 5f64.log2() + 1.0 / 6f64.log2();
        let idcg = 2.0 + 1.0 / l3;
        check(&grades, &scores, options, &[("ndcg@6", dcg / idcg), ("ndcg@2", (2.0 / l3) / idcg)]);
        // Zero is the lower bound of the normalisation, not of the value: a one-star movie
        // first (gain −2), a five-star second (gain 2) give (−2 + 2/log2 3) / 2 < 0.
        let below = (-2.0 + 2.0 / l3) / 2.0;
        assert!(below < 0.0);
        check(&[1.0, 5.0], &[2.0, 1.0], options, &[("ndcg@2", below)]);
        // Every rating at or below the offset: no positive gain to normalise by, NDCG 0
        // (the user still counts).
        check(&[0.0, 3.0, 2.0], &[3.0, 2.0, 1.0], options, &[("ndcg@3", 0.0)]);
        // Ties count at expected value, negative gains included: the 1- and 5-star movies
        // tied on top share the mean gain 0 at ranks 1 and 2.
        check(&[1.0, 5.0, 0.0], &[1.0, 1.0, 0.0], options, &[("ndcg@2", 0.0)]);
        // The exponential gain ignores the offset; no offset is today's gain = grade.
        check(&grades, &scores, options, &[("ndcg_exp@1", 0.0)]);
        let plain = 5.0 / l3 + 1.0 + 1.0 / 5f64.log2() + 4.0 / 6f64.log2() + 3.0 / 7f64.log2();
        let plain_ideal: f64 = [5.0, 4.0, 3.0, 2.0, 1.0]
            .iter()
            .enumerate()
            .map(|(i, g)| g * log_discount(i + 1))
            .sum();
        check(&grades, &scores, Options::default(), &[("ndcg@6", plain / plain_ideal)]);
        let bad = Options { gain_offset: -1.0, ..Options::default() };
        let j = one_user(&[1.0]);
        assert!(per_user(&Scored::new(&j, &[1.0]).unwrap(), &[Metric::Ndcg(1)], &bad).is_err());
    }

    #[test]
    fn ties_count_at_expected_value() {
        // Scores: item 0 alone on top (not relevant), then items 1..4 tied with 2 relevant.
        let grades = [0.0, 1.0, 0.0, 1.0, 0.0];
        let scores = [1.0, 0.5, 0.5, 0.5, 0.5];
        // Top 2: the tied group gives 1 slot of 4 → 2 · 1/4 = 0.5 expected hits.
        // hit@2: 1 − P(slot non-relevant) = 1 − 2/4. MRR: first relevant at 1 + J,
        // P(J=1)=1/2, P(J=2)=1/3, P(J=3)=1/6 → 1/2·1/2 + 1/3·1/3 + 1/6·1/4.
        let mrr = 0.25 + 1.0 / 9.0 + 1.0 / 24.0;
        // AP: positions 2..5 each relevant w.p. 1/2; given relevant at position 1+j,
        // relevant at or above = 1 + (j−1)/3.
        let ap: f64 =
            (1..=4).map(|j| 0.5 * (1.0 + (j - 1) as f64 / 3.0) / (1 + j) as f64).sum::<f64>() / 2.0;
        check(
            &grades,
            &scores,
            Options::default(),
            &[
                ("p@2", 0.25),
                ("r@2", 0.25),
                ("hit@2", 0.5),
                ("mrr", mrr),
                ("map", ap),
                ("hit@5", 1.0),
            ],
        );
        // Deterministic tie-break: ascending item order puts item 1 (relevant) second.
        let options = Options { ties: TieBreak::ItemAscending, ..Options::default() };
        check(&grades, &scores, options, &[("p@2", 0.5), ("mrr", 0.5)]);
        let options = Options { ties: TieBreak::ItemDescending, ..Options::default() };
        check(&grades, &scores, options, &[("p@2", 0.0), ("mrr", 1.0 / 3.0)]);
    }

    #[test]
    fn zero_policies() {
        let grades = [0.0, 0.0];
        let scores = [1.0, 0.0];
        check(
            &grades,
            &scores,
            Options::default(),
            &[("p@1", f64::NAN), ("r@1", f64::NAN), ("ndcg@1", f64::NAN)],
        );
        let zero = Options { zero: ZeroPolicy::Zero, ..Options::default() };
        check(&grades, &scores, zero, &[("p@1", 0.0), ("r@1", 0.0), ("ndcg@1", 0.0), ("mrr", 0.0)]);
        let ignatov = Options { zero: ZeroPolicy::Ignatov, ..Options::default() };
        check(&grades, &scores, ignatov, &[("p@1", 0.0), ("r@1", 1.0), ("mrr", f64::NAN)]);
        // ignatov2010 precision denominator: recommended hidden items, min(N, n).
        check(&[1.0, 0.0], &scores, ignatov, &[("p@5", 0.5)]);
    }

    #[test]
    fn coverage_counts_fractional_items() {
        let mut b = Judgments::builder(2, 4);
        b.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
        b.push_user(1, &[1, 2], &[1.0, 0.0]).unwrap();
        let j = b.build().unwrap();
        // User 0 ranks item 0 first; user 1 ties items 1 and 2.
        let scored = Scored::new(&j, &[1.0, 0.0, 0.5, 0.5]).unwrap();
        let v = per_user(&scored, &[Metric::Coverage(1)], &Options::default()).unwrap();
        assert_eq!(v.summary(0).value, Some((1.0 + 0.5 + 0.5) / 4.0));
    }

    #[test]
    fn bad_options_are_errors() {
        let j = one_user(&[1.0]);
        let scored = Scored::new(&j, &[1.0]).unwrap();
        let bad = Options { threshold: 0.0, ..Options::default() };
        assert!(per_user(&scored, &[Metric::Map], &bad).is_err());
    }

    fn user() -> impl Strategy<Value = (Vec<f32>, Vec<f32>)> {
        proptest::collection::vec((0u8..4, 0u8..6), 1..30).prop_map(|v| {
            (v.iter().map(|p| f32::from(p.0)).collect(), v.iter().map(|p| f32::from(p.1)).collect())
        })
    }

    /// The groups of a full ranking (every candidate ranked, sums over all members)
    /// restricted to those holding a positive grade: what [`graded_groups`] must give.
    fn groups_of_full_ranking(grades: &[f32], scores: &[f32], options: &Options) -> Vec<Group> {
        let mut ranking = Ranking::default();
        ranking.rank(scores, None, options.ties);
        let mut before = 0;
        let mut out = Vec::new();
        for &(start, len) in &ranking.groups {
            let mut g = Group::new(start, len, before);
            let mut graded = false;
            for &i in &ranking.order[start..start + len] {
                let grade = grades[i as usize];
                graded |= grade > 0.0;
                g.add(grade, options, true);
            }
            before += g.relevant;
            if graded {
                out.push(g);
            }
        }
        out
    }

    proptest! {
        #[test]
        fn graded_groups_equal_the_full_ranking_by_both_methods(
            (grades, scores) in user(),
            ties in 0usize..3,
            threshold in 1u8..4,
            neutral in 0u8..3,
        ) {
            let options = Options {
                threshold: f32::from(threshold),
                ties: TieBreak::ALL[ties],
                neutral: f32::from(neutral),
                ..Options::default()
            };
            let expected = groups_of_full_ranking(&grades, &scores, &options);
            for count in [true, false] {
                let mut work = Work { exp_gains: true, ..Work::default() };
                graded_groups(&mut work, &grades, &scores, &options, count);
                prop_assert_eq!(&work.groups, &expected, "count: {}", count);
            }
        }

        #[test]
        fn metrics_within_bounds_and_recall_monotone((grades, scores) in user()) {
            let j = one_user(&grades);
            let scored = Scored::new(&j, &scores).unwrap();
            let metrics = Metric::parse_list("p@1,p@3,r@1,r@3,r@30,f1@3,hit@3,ndcg@3,ndcg_exp@3,ap@3,map,mrr,half_life@5").unwrap();
            let v = per_user(&scored, &metrics, &Options::default()).unwrap();
            let values: Vec<f64> = (0..metrics.len()).map(|i| v.column(i)[0]).collect();
            for (m, &x) in metrics.iter().zip(&values) {
                if !x.is_nan() {
                    // Every per-user value, half-life's R_p / R_p^max included, is in [0, 1].
                    prop_assert!((-1e-12..=1.0 + 1e-12).contains(&x), "{m}: {x}");
                }
            }
            if !values[2].is_nan() {
                prop_assert!(values[2] <= values[3] + 1e-12 && values[3] <= values[4] + 1e-12);
                prop_assert!((values[4] - 1.0).abs() < 1e-12);
            }
        }

        #[test]
        fn unranked_equals_leaving_unscored_negatives_out(
            (grades, scores) in user(),
            missing in proptest::collection::vec(any::<bool>(), 30),
        ) {
            // Unscored candidates that are not positive: `unranked` is the same as never
            // listing them. With no unscored candidate, both policies agree.
            let metrics = Metric::parse_list("p@3,r@3,f1@3,hit@2,ndcg@3,ndcg_exp@3,ap@3,map,mrr").unwrap();
            let unranked = Options { missing: Missing::Unranked, ..Options::default() };
            let scores_with_missing: Vec<f32> = scores
                .iter()
                .zip(&grades)
                .zip(&missing)
                .map(|((&s, &g), &m)| if m && g == 0.0 { f32::NAN } else { s })
                .collect();
            let j = one_user(&grades);
            let got = per_user(&Scored::new(&j, &scores_with_missing).unwrap(), &metrics, &unranked).unwrap();
            let kept: Vec<usize> = (0..grades.len()).filter(|&i| !scores_with_missing[i].is_nan()).collect();
            if !kept.is_empty() {
                let g2: Vec<f32> = kept.iter().map(|&i| grades[i]).collect();
                let s2: Vec<f32> = kept.iter().map(|&i| scores[i]).collect();
                let j2 = one_user(&g2);
                let want = per_user(&Scored::new(&j2, &s2).unwrap(), &metrics, &Options::default()).unwrap();
                prop_assert_eq!(&got, &want);
            }
            let last = per_user(&Scored::new(&j, &scores).unwrap(), &metrics, &Options::default()).unwrap();
            let unranked_all = per_user(&Scored::new(&j, &scores).unwrap(), &metrics, &unranked).unwrap();
            prop_assert_eq!(last, unranked_all);
        }

        #[test]
        fn input_order_does_not_matter((grades, scores) in user()) {
            let metrics = Metric::parse_list("p@3,r@3,hit@2,ndcg@3,ap@3,map,mrr,half_life@5").unwrap();
            let j = one_user(&grades);
            let a = per_user(&Scored::new(&j, &scores).unwrap(), &metrics, &Options::default()).unwrap();
            let g2: Vec<f32> = grades.iter().rev().copied().collect();
            let s2: Vec<f32> = scores.iter().rev().copied().collect();
            let j2 = one_user(&g2);
            let b = per_user(&Scored::new(&j2, &s2).unwrap(), &metrics, &Options::default()).unwrap();
            for i in 0..metrics.len() {
                let (x, y) = (a.column(i)[0], b.column(i)[0]);
                prop_assert!((x - y).abs() < 1e-12 || (x.is_nan() && y.is_nan()));
            }
        }

        #[test]
        fn expected_value_equals_average_over_tie_orders((grades, scores) in proptest::collection::vec((0u8..3, 0u8..3), 1..6).prop_map(|v| (v.iter().map(|p| f32::from(p.0)).collect::<Vec<f32>>(), v.iter().map(|p| f32::from(p.1)).collect::<Vec<f32>>()))) {
            // Brute force: average the deterministic value over every permutation of
            // the candidates used as tie-break order.
            let metrics = Metric::parse_list("p@2,hit@2,ndcg@2,ap@2,map,mrr").unwrap();
            let j = one_user(&grades);
            let expected = per_user(&Scored::new(&j, &scores).unwrap(), &metrics, &Options::default()).unwrap();
            let n = grades.len();
            let mut perm: Vec<usize> = (0..n).collect();
            let mut sums = vec![0.0; metrics.len()];
            let mut count = 0.0;
            let mut any_nan = false;
            permute(&mut perm, 0, &mut |p| {
                let g: Vec<f32> = p.iter().map(|&i| grades[i]).collect();
                let s: Vec<f32> = p.iter().map(|&i| scores[i]).collect();
                let j = one_user(&g);
                let opts = Options { ties: TieBreak::ItemAscending, ..Options::default() };
                let v = per_user(&Scored::new(&j, &s).unwrap(), &metrics, &opts).unwrap();
                for (i, sum) in sums.iter_mut().enumerate() {
                    let x = v.column(i)[0];
                    any_nan |= x.is_nan();
                    *sum += x;
                }
                count += 1.0;
            });
            if !any_nan {
                for i in 0..metrics.len() {
                    prop_assert!((sums[i] / count - expected.column(i)[0]).abs() < 1e-9, "{}", metrics[i]);
                }
            }
        }
    }

    fn permute(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for i in k..v.len() {
            v.swap(k, i);
            permute(v, k + 1, f);
            v.swap(k, i);
        }
    }
}
