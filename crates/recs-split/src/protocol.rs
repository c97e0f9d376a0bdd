//! The protocols: how the events of one data set are divided into training and test parts.

use recs_core::{Interactions, RecsError, Result};
use serde::{Deserialize, Serialize};

use crate::rng::{Purpose, choose_front, choose_items, shuffle, stream};
use crate::split::{Part, Split};

/// A number of things to take: an absolute count or a fraction of those available.
///
/// A fraction `f` of `n` resolves to `round(f · n)` (halves away from zero).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Amount {
    /// Exactly this many.
    Count(usize),
    /// This fraction, in `[0, 1]`.
    Fraction(f64),
}

impl Amount {
    fn validate(&self, name: &str) -> Result<()> {
        match *self {
            Amount::Fraction(f) if !(0.0..=1.0).contains(&f) => {
                Err(RecsError::invalid_parameter(name, f, "a fraction in [0, 1]"))
            }
            _ => Ok(()),
        }
    }

    /// The number taken out of `n`, clamped to `n`.
    pub fn of(&self, n: usize) -> usize {
        match *self {
            Amount::Count(c) => c.min(n),
            Amount::Fraction(f) => ((f * n as f64).round() as usize).min(n),
        }
    }

    /// The number taken out of `n`; a count above `n` is an error.
    fn of_strict(&self, name: &str, n: usize) -> Result<usize> {
        match *self {
            Amount::Count(c) if c > n => Err(RecsError::invalid_parameter(
                name,
                c,
                format!("at most {n} (the number available)"),
            )),
            _ => Ok(self.of(n)),
        }
    }
}

impl std::str::FromStr for Amount {
    type Err = RecsError;

    /// `331` is a count, `0.2` a fraction, `20%` a percentage (a fraction of 0.2).
    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        let invalid = || {
            RecsError::invalid_parameter(
                "amount",
                text,
                "a count, a fraction in [0, 1] or a percentage",
            )
        };
        if let Some(percent) = text.strip_suffix('%') {
            let value: f64 = percent.trim().parse().map_err(|_| invalid())?;
            let amount = Amount::Fraction(value / 100.0);
            amount.validate("amount").map_err(|_| invalid())?;
            return Ok(amount);
        }
        if let Ok(count) = text.parse::<usize>() {
            return Ok(Amount::Count(count));
        }
        match text.parse::<f64>() {
            Ok(value) if (0.0..=1.0).contains(&value) => Ok(Amount::Fraction(value)),
            _ => Err(invalid()),
        }
    }
}

/// How many of a test user's events stay visible as history; the rest are targets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Given {
    /// *Given-n*: `n` events visible (all of them when the user has fewer).
    N(usize),
    /// This fraction of the user's events visible, rounded as in [`Amount`].
    Fraction(f64),
    /// *All-but-n*: every event visible except `n` targets (none visible when the user
    /// has `n` or fewer).
    AllBut(usize),
}

impl Given {
    pub(crate) fn validate(&self) -> Result<()> {
        match *self {
            Given::Fraction(f) if !(0.0..=1.0).contains(&f) => {
                Err(RecsError::invalid_parameter("given", f, "a fraction in [0, 1]"))
            }
            _ => Ok(()),
        }
    }

    /// Visible events for a user with `len` events.
    pub fn visible(&self, len: usize) -> usize {
        match *self {
            Given::N(n) => n.min(len),
            Given::Fraction(f) => ((f * len as f64).round() as usize).min(len),
            Given::AllBut(n) => len.saturating_sub(n),
        }
    }
}

/// Where the visible events of test users go (fastml2015, "weak and strong
/// generalization").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generalization {
    /// Into training: every test user is also a training user (weak generalization).
    #[default]
    Weak,
    /// Into [`Split::history`]: test users are absent from training and are folded in
    /// from their history at scoring time (strong generalization).
    Strong,
}

/// The order in which a test user's events become history in [`Protocol::GivenL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryOrder {
    /// A seeded random permutation per user.
    #[default]
    Random,
    /// Increasing timestamp (ties by item index): the first `L` events in time.
    Timestamp,
}

/// Where a global time cut falls.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeCut {
    /// Events at or after this timestamp are test events.
    At(i64),
    /// The cut is the timestamp of the event at sorted position `n − round(f · n)`: about the
    /// latest fraction `f` of events are test events (more when events tie at the cut,
    /// since a cut never separates equal timestamps).
    Fraction(f64),
}

/// Which split of a repeated or cross-validated protocol: repetition `r` draws anew;
/// `fold` selects the test fold within it (or `L − 1` for [`Protocol::GivenL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash, Serialize)]
pub struct SplitId {
    /// Repetition index, from 0.
    pub repetition: u32,
    /// Fold index, from 0, below [`Protocol::n_folds`].
    pub fold: u32,
}

impl SplitId {
    /// Repetition `repetition`, fold `fold`.
    pub fn new(repetition: u32, fold: u32) -> Self {
        SplitId { repetition, fold }
    }
}

/// Every train/test protocol of the four source papers.
///
/// Each split is a pure function of `(protocol, data, seed, SplitId)`: no global state,
/// no hash-map iteration, no dependence on thread count. Random choices use separate
/// streams per purpose (which events, which users, which items) and, for per-user draws,
/// per user, so the draw of one user never depends on the users before it.
///
/// Users "with events" below are users with at least one input event; users without any
/// are never test users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "protocol")]
#[non_exhaustive]
pub enum Protocol {
    /// Random holdout (cremonesi2008 §2.1): exactly `round(test_fraction · n_events)`
    /// events drawn uniformly without replacement go to test (Sarwar et al.'s 80/20 is
    /// `0.2`). A user may lose all training events; use [`Protocol::LeaveKOut`] with a
    /// fraction and `min_train ≥ 1` when every user must stay in training.
    Holdout {
        /// Fraction of all events held out, in `[0, 1]`.
        test_fraction: f64,
    },
    /// Per-user leave-k-out (cremonesi2008 §2.1): each user holds out `k` of its events
    /// (a count or a fraction of its own events), drawn uniformly, but never so many that
    /// fewer than `min_train` stay in training.
    LeaveKOut {
        /// Events held out per user.
        k: Amount,
        /// Minimum events kept in training per user (weak generalization when ≥ 1).
        min_train: usize,
    },
    /// Leave-one-out as in Karypis et al. (cremonesi2008 §2.1): one random event per user
    /// with at least two events goes to test.
    LeaveOneOut,
    /// m-fold cross-validation over events (cremonesi2008 §2.1): events are dealt at random
    /// into `folds` disjoint folds of sizes differing by at most one; fold `f` is the test
    /// part of split `f`.
    #[serde(rename = "kfold-events")]
    KFoldEvents {
        /// Number of folds, at least 2.
        folds: usize,
    },
    /// m-fold cross-validation over users: users with events are dealt at random into
    /// `folds` folds; each user of the test fold keeps `given` events visible (drawn at
    /// random) and the rest are targets. Test users are those with at least one target.
    #[serde(rename = "kfold-users")]
    KFoldUsers {
        /// Number of folds, at least 2.
        folds: usize,
        /// Visible events per test user (given-n, a fraction, or all-but-n).
        given: Given,
        /// Whether visible events go into training or into the history part.
        generalization: Generalization,
    },
    /// ignatov2010 §4: users are dealt into `folds` folds **and** `hidden` item columns
    /// are drawn per repetition among items with events. A test user exposes only its
    /// events on visible columns; its events on hidden columns are the targets, and only
    /// hidden columns are judged (`candidate_items` = hidden items). Every user of the test
    /// fold is a test user, even without a hidden event (ignatov2010 defines recall = 1
    /// for such a user).
    HiddenItems {
        /// Number of user folds, at least 2.
        folds: usize,
        /// Hidden columns: a count or a fraction of the items with events.
        hidden: Amount,
        /// Whether visible events of test users go into training or into the history part.
        generalization: Generalization,
    },
    /// Item cold start (schein2005 §5): `test_items` items are drawn among the items with at
    /// least `min_item_events` events; every event of a test item goes to test, so no test
    /// item occurs in training. Judging is restricted to the test items.
    ColdStartItems {
        /// Number or fraction of eligible items moved to test (schein2005 uses 331 of 1682).
        test_items: Amount,
        /// Minimum number of events for an item to be eligible (0: every item).
        min_item_events: usize,
    },
    /// Strong generalization (fastml2015): `test_users` users with events are drawn; all
    /// their events leave training, `given` of them (drawn at random) become the fold-in
    /// history and the rest are targets.
    Strong {
        /// Number or fraction of users with events moved to test.
        test_users: Amount,
        /// Visible history events per test user.
        given: Given,
    },
    /// The "given L" series of fastml2015 ("the more, the better"): `test_users` users with
    /// at least two events are drawn and leave training; for `L = 1..=max_l` (split fold
    /// `L − 1`), the first `L` events of each test user in a fixed per-user order are its
    /// history and the rest its targets. Histories are nested across `L`. A user with `L`
    /// events or fewer has no target at that `L` and is not a test user there (all its
    /// events are history).
    GivenL {
        /// Number or fraction of eligible users moved to test.
        test_users: Amount,
        /// Largest history length `L`, at least 1.
        max_l: usize,
        /// Order in which events become history.
        order: HistoryOrder,
    },
    /// A global time cut: events at or after the cut are test events. Needs timestamps;
    /// involves no randomness.
    #[serde(rename = "temporal")]
    TemporalCut {
        /// Where the cut falls.
        cut: TimeCut,
    },
    /// Per-user last-n: each user's `n` latest events (ties by item index) are test events,
    /// keeping at least `min_train` in training. Needs timestamps; involves no randomness.
    TemporalLastN {
        /// Events held out per user.
        n: usize,
        /// Minimum events kept in training per user.
        min_train: usize,
    },
}

impl Protocol {
    /// The name used on the command line and in `split.json`.
    pub fn name(&self) -> &'static str {
        match self {
            Protocol::Holdout { .. } => "holdout",
            Protocol::LeaveKOut { .. } => "leave-k-out",
            Protocol::LeaveOneOut => "leave-one-out",
            Protocol::KFoldEvents { .. } => "kfold-events",
            Protocol::KFoldUsers { .. } => "kfold-users",
            Protocol::HiddenItems { .. } => "hidden-items",
            Protocol::ColdStartItems { .. } => "cold-start-items",
            Protocol::Strong { .. } => "strong",
            Protocol::GivenL { .. } => "given-l",
            Protocol::TemporalCut { .. } => "temporal",
            Protocol::TemporalLastN { .. } => "temporal-last-n",
        }
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming the first offending parameter.
    pub fn validate(&self) -> Result<()> {
        let folds_ok = |folds: usize| {
            if folds < 2 || folds > u32::MAX as usize {
                Err(RecsError::invalid_parameter("folds", folds, "at least 2"))
            } else {
                Ok(())
            }
        };
        match *self {
            Protocol::Holdout { test_fraction } => {
                Amount::Fraction(test_fraction).validate("test_fraction")
            }
            Protocol::LeaveKOut { k, .. } => k.validate("k"),
            Protocol::LeaveOneOut => Ok(()),
            Protocol::KFoldEvents { folds } => folds_ok(folds),
            Protocol::KFoldUsers { folds, given, .. } => {
                folds_ok(folds)?;
                given.validate()
            }
            Protocol::HiddenItems { folds, hidden, .. } => {
                folds_ok(folds)?;
                hidden.validate("hidden")
            }
            Protocol::ColdStartItems { test_items, .. } => test_items.validate("test_items"),
            Protocol::Strong { test_users, given } => {
                test_users.validate("test_users")?;
                given.validate()
            }
            Protocol::GivenL { test_users, max_l, .. } => {
                test_users.validate("test_users")?;
                if max_l == 0 || max_l > u32::MAX as usize {
                    return Err(RecsError::invalid_parameter("max_l", max_l, "at least 1"));
                }
                Ok(())
            }
            Protocol::TemporalCut { cut } => match cut {
                TimeCut::At(_) => Ok(()),
                TimeCut::Fraction(f) => Amount::Fraction(f).validate("cut"),
            },
            Protocol::TemporalLastN { .. } => Ok(()),
        }
    }

    /// Number of splits per repetition: the folds of a cross-validation, `max_l` for
    /// [`Protocol::GivenL`], 1 otherwise.
    pub fn n_folds(&self) -> usize {
        match *self {
            Protocol::KFoldEvents { folds }
            | Protocol::KFoldUsers { folds, .. }
            | Protocol::HiddenItems { folds, .. } => folds,
            Protocol::GivenL { max_l, .. } => max_l,
            _ => 1,
        }
    }

    /// Every [`SplitId`] of `repetitions` repetitions, repetition-major.
    pub fn split_ids(&self, repetitions: u32) -> impl Iterator<Item = SplitId> + use<> {
        let folds = self.n_folds() as u32;
        (0..repetitions).flat_map(move |r| (0..folds).map(move |f| SplitId::new(r, f)))
    }

    /// Every split of `repetitions` repetitions, lazily, in [`Protocol::split_ids`] order.
    pub fn splits<'a>(
        &'a self,
        data: &'a Interactions,
        seed: u64,
        repetitions: u32,
    ) -> impl Iterator<Item = (SplitId, Result<Split>)> + 'a {
        self.split_ids(repetitions).map(move |id| (id, self.split(data, seed, id)))
    }

    /// The split `id` of `data` for `seed`.
    ///
    /// # Errors
    /// An invalid parameter, a fold index not below [`Protocol::n_folds`], an amount larger
    /// than what is available, or a temporal protocol on data without timestamps.
    pub fn split(&self, data: &Interactions, seed: u64, id: SplitId) -> Result<Split> {
        self.validate()?;
        if id.fold as usize >= self.n_folds() {
            return Err(RecsError::IndexOutOfRange {
                what: "fold",
                index: id.fold as usize,
                len: self.n_folds(),
            });
        }
        let rep = u64::from(id.repetition);
        let offsets = row_offsets(data);
        let n_events = data.n_events();
        match *self {
            Protocol::Holdout { test_fraction } => {
                let n_test = Amount::Fraction(test_fraction).of(n_events);
                let mut positions: Vec<usize> = (0..n_events).collect();
                let mut rng = stream(seed, Purpose::Events, &[rep]);
                let mut parts = vec![Part::Train; n_events];
                for &p in choose_front(&mut rng, &mut positions, n_test) {
                    parts[p] = Part::Test;
                }
                Split::assemble(data, &parts, false, None, None)
            }
            Protocol::LeaveKOut { k, min_train } => {
                leave_k_out(data, &offsets, seed, rep, |len| k.of(len), min_train)
            }
            Protocol::LeaveOneOut => leave_k_out(data, &offsets, seed, rep, |_| 1, 1),
            Protocol::KFoldEvents { folds } => {
                let mut positions: Vec<usize> = (0..n_events).collect();
                shuffle(&mut stream(seed, Purpose::Events, &[rep]), &mut positions);
                let mut parts = vec![Part::Train; n_events];
                for (rank, &p) in positions.iter().enumerate() {
                    if rank % folds == id.fold as usize {
                        parts[p] = Part::Test;
                    }
                }
                Split::assemble(data, &parts, false, None, None)
            }
            Protocol::KFoldUsers { folds, given, generalization } => {
                let fold_users = users_of_fold(data, seed, rep, folds, id.fold as usize);
                let mut parts = vec![Part::Train; n_events];
                let given_events = GivenEvents { offsets: &offsets, seed, rep, given };
                let test_users =
                    given_events.mark(&fold_users, history_part(generalization), &mut parts);
                let with_history = generalization == Generalization::Strong;
                Split::assemble(data, &parts, with_history, Some(test_users), None)
            }
            Protocol::HiddenItems { folds, hidden, generalization } => {
                let counts = data.item_counts();
                let mut items: Vec<u32> =
                    (0..data.n_items() as u32).filter(|&i| counts[i as usize] > 0).collect();
                let n_hidden = hidden.of_strict("hidden", items.len())?;
                let mut rng = stream(seed, Purpose::HiddenItems, &[rep]);
                let (hidden_items, is_hidden) =
                    choose_items(&mut rng, &mut items, n_hidden, data.n_items());
                let fold_users = users_of_fold(data, seed, rep, folds, id.fold as usize);
                let visible_part = history_part(generalization);
                let mut parts = vec![Part::Train; n_events];
                for &user in &fold_users {
                    let start = offsets[user as usize];
                    for (k, &item) in data.user_items(user).iter().enumerate() {
                        parts[start + k] =
                            if is_hidden[item as usize] { Part::Test } else { visible_part };
                    }
                }
                let with_history = generalization == Generalization::Strong;
                Split::assemble(data, &parts, with_history, Some(fold_users), Some(hidden_items))
            }
            Protocol::ColdStartItems { test_items, min_item_events } => {
                let counts = data.item_counts();
                let mut items: Vec<u32> = (0..data.n_items() as u32)
                    .filter(|&i| counts[i as usize] as usize >= min_item_events)
                    .collect();
                let n_test = test_items.of_strict("test_items", items.len())?;
                let mut rng = stream(seed, Purpose::ColdItems, &[rep]);
                let (chosen, is_test) = choose_items(&mut rng, &mut items, n_test, data.n_items());
                let parts: Vec<Part> = data
                    .events()
                    .map(|e| if is_test[e.item as usize] { Part::Test } else { Part::Train })
                    .collect();
                Split::assemble(data, &parts, false, None, Some(chosen))
            }
            Protocol::Strong { test_users, given } => {
                let chosen = draw_users(data, seed, rep, test_users, 1)?;
                let mut parts = vec![Part::Train; n_events];
                let given_events = GivenEvents { offsets: &offsets, seed, rep, given };
                let judged = given_events.mark(&chosen, Part::History, &mut parts);
                Split::assemble(data, &parts, true, Some(judged), None)
            }
            Protocol::GivenL { test_users, order, .. } => {
                if order == HistoryOrder::Timestamp && !data.has_timestamps() {
                    return Err(no_timestamps("given-l with timestamp order"));
                }
                let l = id.fold as usize + 1;
                let chosen = draw_users(data, seed, rep, test_users, 2)?;
                let mut parts = vec![Part::Train; n_events];
                let mut judged = Vec::new();
                for &user in &chosen {
                    let start = offsets[user as usize];
                    let row = data.user_row(user);
                    let mut local: Vec<usize> = (0..row.len()).collect();
                    match (order, row.timestamps) {
                        (HistoryOrder::Timestamp, Some(times)) => {
                            local.sort_by_key(|&k| (times[k], row.items[k]));
                        }
                        _ => {
                            let path = [rep, u64::from(user)];
                            shuffle(&mut stream(seed, Purpose::UserEvents, &path), &mut local);
                        }
                    }
                    for (rank, &k) in local.iter().enumerate() {
                        parts[start + k] = if rank < l { Part::History } else { Part::Test };
                    }
                    if row.len() > l {
                        judged.push(user);
                    }
                }
                Split::assemble(data, &parts, true, Some(judged), None)
            }
            Protocol::TemporalCut { cut } => {
                let times = all_timestamps(data, "temporal cut")?;
                // `None`: nothing is held out.
                let cut = match cut {
                    TimeCut::At(t) => Some(t),
                    TimeCut::Fraction(f) => {
                        let n_test = Amount::Fraction(f).of(n_events);
                        let mut sorted = times.clone();
                        sorted.sort_unstable();
                        (n_test > 0).then(|| sorted[n_events - n_test])
                    }
                };
                let parts: Vec<Part> = times
                    .iter()
                    .map(|&t| if cut.is_some_and(|c| t >= c) { Part::Test } else { Part::Train })
                    .collect();
                Split::assemble(data, &parts, false, None, None)
            }
            Protocol::TemporalLastN { n, min_train } => {
                if !data.has_timestamps() {
                    return Err(no_timestamps("temporal last-n"));
                }
                let mut parts = vec![Part::Train; n_events];
                for user in 0..data.n_users() as u32 {
                    let row = data.user_row(user);
                    let Some(times) = row.timestamps else { continue };
                    let n_test = n.min(row.len().saturating_sub(min_train));
                    let mut local: Vec<usize> = (0..row.len()).collect();
                    local.sort_by_key(|&k| (times[k], row.items[k]));
                    let start = offsets[user as usize];
                    for &k in &local[row.len() - n_test..] {
                        parts[start + k] = Part::Test;
                    }
                }
                Split::assemble(data, &parts, false, None, None)
            }
        }
    }
}

fn no_timestamps(what: &str) -> RecsError {
    RecsError::Unsupported(format!("{what} needs timestamps and the data has none"))
}

fn all_timestamps(data: &Interactions, what: &str) -> Result<Vec<i64>> {
    if !data.has_timestamps() {
        return Err(no_timestamps(what));
    }
    Ok(data.events().map(|e| e.timestamp.unwrap_or(i64::MIN)).collect())
}

/// Given-n / all-but-n over users' events: each user's events are shuffled by the user's
/// own stream and the first `given.visible(n)` are shown.
struct GivenEvents<'a> {
    offsets: &'a [usize],
    seed: u64,
    rep: u64,
    given: Given,
}

impl GivenEvents<'_> {
    /// Marks each user's visible events `visible_part` and the others test events; returns
    /// the users left with a test event.
    fn mark(&self, users: &[u32], visible_part: Part, parts: &mut [Part]) -> Vec<u32> {
        let mut tested = Vec::new();
        for &user in users {
            let range = self.offsets[user as usize]..self.offsets[user as usize + 1];
            let visible = self.given.visible(range.len());
            let mut local: Vec<usize> = range.clone().collect();
            let mut rng = stream(self.seed, Purpose::UserEvents, &[self.rep, u64::from(user)]);
            choose_front(&mut rng, &mut local, visible);
            for (k, &p) in local.iter().enumerate() {
                parts[p] = if k < visible { visible_part } else { Part::Test };
            }
            if visible < range.len() {
                tested.push(user);
            }
        }
        tested
    }
}

impl Split {
    /// A split given by the data source whose test users are new people (their ids are
    /// not training users'): [`Split::predefined`], except that each test user's events are
    /// dealt by `given` into a history part (what a model folds the user in from, never
    /// fits on) and targets, exactly as [`Protocol::Strong`] deals them. Breese et al.
    /// (1998)'s *all-but-1* on MS Web is `Given::AllBut(1)`. The test users are those left
    /// with a target and at least one visible event (nothing else can be folded in); `seed`
    /// and `repetition` draw which events stay visible: each repetition is an independent
    /// draw of the same shipped parts.
    ///
    /// ```
    /// use recs_core::{DuplicatePolicy, Event, Interactions};
    /// use recs_split::{Given, Split};
    /// let m = |e: &[(u32, u32)]| {
    ///     let events = e.iter().map(|&(u, i)| Event::new(u, i, 1.0));
    ///     Interactions::from_events(3, 4, events, DuplicatePolicy::Error)
    /// };
    /// // Users 0 and 1 train; user 2 is a new person with three visits.
    /// let split = Split::predefined_new_users(
    ///     m(&[(0, 0), (1, 1)])?,
    ///     m(&[(2, 0), (2, 1), (2, 3)])?,
    ///     Given::AllBut(1),
    ///     7,
    ///     0,
    /// )?;
    /// assert_eq!(split.history().map(|h| h.n_events()), Some(2));
    /// assert_eq!(split.test().n_events(), 1);
    /// assert_eq!(split.test_users(), Some(&[2][..]));
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Split::predefined`], an invalid `given`, or a test user with training events
    /// (then it is not a new person).
    pub fn predefined_new_users(
        train: Interactions,
        test: Interactions,
        given: Given,
        seed: u64,
        repetition: u32,
    ) -> Result<Split> {
        given.validate()?;
        let shaped = Split::predefined(train, test)?;
        let (train, test) = (shaped.train(), shaped.test());
        let users: Vec<u32> = test.users_with_events().collect();
        if let Some(&user) = users.iter().find(|&&u| train.has_events(u)) {
            return Err(RecsError::invalid_parameter(
                "test user",
                user,
                "a new person: the test part's users must have no training events",
            ));
        }
        let offsets = row_offsets(test);
        let mut parts = vec![Part::Test; test.n_events()];
        let given_events =
            GivenEvents { offsets: &offsets, seed, rep: u64::from(repetition), given };
        let mut tested = given_events.mark(&users, Part::History, &mut parts);
        // A new person with nothing visible cannot be folded in, so is not judged.
        tested.retain(|&u| given.visible(test.user_items(u).len()) > 0);
        let dealt = Split::assemble(test, &parts, true, Some(tested), None)?;
        Ok(dealt.with_train(shaped.into_train()))
    }
}

fn history_part(generalization: Generalization) -> Part {
    match generalization {
        Generalization::Weak => Part::Train,
        Generalization::Strong => Part::History,
    }
}

/// Start of each user's events in the user-major event order, plus the total at the end.
fn row_offsets(data: &Interactions) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(data.n_users() + 1);
    offsets.push(0);
    let mut total = 0;
    for count in data.user_counts() {
        total += count as usize;
        offsets.push(total);
    }
    offsets
}

fn leave_k_out(
    data: &Interactions,
    offsets: &[usize],
    seed: u64,
    rep: u64,
    k_of: impl Fn(usize) -> usize,
    min_train: usize,
) -> Result<Split> {
    let mut parts = vec![Part::Train; data.n_events()];
    for user in 0..data.n_users() {
        let range = offsets[user]..offsets[user + 1];
        let len = range.len();
        let k = k_of(len).min(len.saturating_sub(min_train));
        if k == 0 {
            continue;
        }
        let mut local: Vec<usize> = range.collect();
        let mut rng = stream(seed, Purpose::UserEvents, &[rep, user as u64]);
        for &p in choose_front(&mut rng, &mut local, k) {
            parts[p] = Part::Test;
        }
    }
    Split::assemble(data, &parts, false, None, None)
}

/// The users with events dealt into `folds` folds by a seeded shuffle; those of `fold`,
/// increasing.
fn users_of_fold(data: &Interactions, seed: u64, rep: u64, folds: usize, fold: usize) -> Vec<u32> {
    let counts = data.user_counts();
    let mut users: Vec<u32> =
        (0..data.n_users() as u32).filter(|&u| counts[u as usize] > 0).collect();
    shuffle(&mut stream(seed, Purpose::Users, &[rep]), &mut users);
    let mut chosen: Vec<u32> = users
        .iter()
        .enumerate()
        .filter(|(rank, _)| rank % folds == fold)
        .map(|(_, &u)| u)
        .collect();
    chosen.sort_unstable();
    chosen
}

/// `amount` of the users with at least `min_events` events, drawn uniformly, increasing.
fn draw_users(
    data: &Interactions,
    seed: u64,
    rep: u64,
    amount: Amount,
    min_events: u32,
) -> Result<Vec<u32>> {
    let counts = data.user_counts();
    let mut users: Vec<u32> =
        (0..data.n_users() as u32).filter(|&u| counts[u as usize] >= min_events).collect();
    let n = amount.of_strict("test_users", users.len())?;
    let mut rng = stream(seed, Purpose::Users, &[rep]);
    let mut chosen = choose_front(&mut rng, &mut users, n).to_vec();
    chosen.sort_unstable();
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event};

    #[test]
    fn new_users_of_a_predefined_split_are_folded_in_from_their_own_events() {
        let m = |e: &[(u32, u32)]| {
            let events = e.iter().map(|&(u, i)| Event::new(u, i, 1.0));
            Interactions::from_events(4, 5, events, DuplicatePolicy::Error).unwrap()
        };
        let train = m(&[(0, 0), (0, 1), (1, 2)]);
        // User 2 has four visits, user 3 one: all-but-1 leaves user 3 nothing to fold in.
        let test = m(&[(2, 0), (2, 1), (2, 2), (2, 4), (3, 3)]);
        let split =
            Split::predefined_new_users(train.clone(), test.clone(), Given::AllBut(1), 3, 0)
                .unwrap();
        assert_eq!(split.train().n_events(), 3);
        let history = split.history().unwrap();
        assert_eq!((history.user_items(2).len(), split.test().user_items(2).len()), (3, 1));
        assert_eq!(split.test_users(), Some(&[2][..]));
        // Every test event is in exactly one of history and targets.
        assert_eq!(history.n_events() + split.test().n_events(), test.n_events());
        // The same seed deals the same way; a test user with training events is refused.
        let again =
            Split::predefined_new_users(train.clone(), test.clone(), Given::AllBut(1), 3, 0)
                .unwrap();
        assert_eq!(again.test().user_items(2), split.test().user_items(2));
        // Another repetition is another draw: some of them hold out another visit.
        let held_out = |rep| {
            let s =
                Split::predefined_new_users(train.clone(), test.clone(), Given::AllBut(1), 3, rep);
            s.unwrap().test().user_items(2).to_vec()
        };
        assert!((1..20).any(|rep| held_out(rep) != held_out(0)));
        let known = m(&[(1, 3)]);
        assert!(Split::predefined_new_users(train, known, Given::N(1), 3, 0).is_err());
    }

    /// Two users; user 0 has items 0..4 at times 10, 40, 20, 30; user 1 has item 1 at 5.
    fn timed() -> Interactions {
        let events = [
            Event::at(0, 0, 1.0, 10),
            Event::at(0, 1, 2.0, 40),
            Event::at(0, 2, 3.0, 20),
            Event::at(0, 3, 4.0, 30),
            Event::at(1, 1, 5.0, 5),
        ];
        Interactions::from_events(2, 4, events, DuplicatePolicy::Error).unwrap()
    }

    fn test_pairs(split: &Split) -> Vec<(u32, u32)> {
        split.test().events().map(|e| (e.user, e.item)).collect()
    }

    #[test]
    fn amounts_resolve_as_documented() {
        assert_eq!(Amount::Fraction(0.2).of(10), 2);
        assert_eq!(Amount::Fraction(0.25).of(10), 3); // 2.5 rounds away from zero
        assert_eq!(Amount::Count(7).of(3), 3);
        assert!(Amount::Count(7).of_strict("x", 3).is_err());
        assert_eq!(Given::N(3).visible(2), 2);
        assert_eq!(Given::AllBut(3).visible(2), 0);
        assert_eq!(Given::AllBut(1).visible(5), 4);
        assert_eq!(Given::Fraction(0.5).visible(5), 3);
    }

    #[test]
    fn each_validation_rule_is_enforced() {
        let data = timed();
        let bad = [
            Protocol::Holdout { test_fraction: 1.5 },
            Protocol::LeaveKOut { k: Amount::Fraction(-0.1), min_train: 0 },
            Protocol::KFoldEvents { folds: 1 },
            Protocol::KFoldUsers {
                folds: 3,
                given: Given::Fraction(2.0),
                generalization: Generalization::Weak,
            },
            Protocol::HiddenItems {
                folds: 0,
                hidden: Amount::Count(1),
                generalization: Generalization::Weak,
            },
            Protocol::ColdStartItems { test_items: Amount::Fraction(f64::NAN), min_item_events: 0 },
            Protocol::Strong { test_users: Amount::Fraction(1.1), given: Given::N(1) },
            Protocol::GivenL {
                test_users: Amount::Count(1),
                max_l: 0,
                order: HistoryOrder::Random,
            },
            Protocol::TemporalCut { cut: TimeCut::Fraction(-1.0) },
        ];
        for protocol in bad {
            assert!(protocol.validate().is_err(), "{protocol:?}");
            assert!(protocol.split(&data, 0, SplitId::default()).is_err(), "{protocol:?}");
        }
        // Counts above what is available.
        let too_many =
            Protocol::ColdStartItems { test_items: Amount::Count(5), min_item_events: 0 };
        assert!(too_many.split(&data, 0, SplitId::default()).is_err());
        let too_many = Protocol::Strong { test_users: Amount::Count(3), given: Given::N(1) };
        assert!(too_many.split(&data, 0, SplitId::default()).is_err());
        // A fold index beyond the folds.
        let kfold = Protocol::KFoldEvents { folds: 2 };
        assert!(kfold.split(&data, 0, SplitId::new(0, 2)).is_err());
    }

    #[test]
    fn temporal_protocols_need_timestamps() {
        let data = Interactions::from_events(1, 2, [Event::new(0, 0, 1.0)], DuplicatePolicy::Error)
            .unwrap();
        for protocol in [
            Protocol::TemporalCut { cut: TimeCut::At(0) },
            Protocol::TemporalLastN { n: 1, min_train: 0 },
            Protocol::GivenL {
                test_users: Amount::Count(0),
                max_l: 1,
                order: HistoryOrder::Timestamp,
            },
        ] {
            assert!(protocol.split(&data, 0, SplitId::default()).is_err());
        }
    }

    #[test]
    fn temporal_cut_holds_out_the_latest_events() {
        let at = Protocol::TemporalCut { cut: TimeCut::At(30) };
        assert_eq!(
            test_pairs(&at.split(&timed(), 0, SplitId::default()).unwrap()),
            [(0, 1), (0, 3)]
        );
        // 40% of 5 events = 2: the cut falls at the 4th smallest timestamp, 30.
        let fraction = Protocol::TemporalCut { cut: TimeCut::Fraction(0.4) };
        let split = fraction.split(&timed(), 0, SplitId::default()).unwrap();
        assert_eq!(test_pairs(&split), [(0, 1), (0, 3)]);
        let none = Protocol::TemporalCut { cut: TimeCut::Fraction(0.0) };
        assert_eq!(none.split(&timed(), 0, SplitId::default()).unwrap().test().n_events(), 0);
    }

    #[test]
    fn temporal_last_n_keeps_the_minimum_in_training() {
        let protocol = Protocol::TemporalLastN { n: 2, min_train: 1 };
        let split = protocol.split(&timed(), 0, SplitId::default()).unwrap();
        // User 0's two latest events are items 1 (t=40) and 3 (t=30); user 1 keeps its only one.
        assert_eq!(test_pairs(&split), [(0, 1), (0, 3)]);
    }

    #[test]
    fn given_l_by_time_takes_the_earliest_events_as_history() {
        let protocol = Protocol::GivenL {
            test_users: Amount::Count(1),
            max_l: 2,
            order: HistoryOrder::Timestamp,
        };
        // Only user 0 has at least two events, so it is the one test user.
        let split = protocol.split(&timed(), 0, SplitId::new(0, 1)).unwrap();
        let history: Vec<u32> = split.history().unwrap().user_items(0).to_vec();
        assert_eq!(history, [0, 2]); // times 10 and 20
        assert_eq!(test_pairs(&split), [(0, 1), (0, 3)]);
        assert_eq!(split.test_users(), Some(&[0][..]));
        assert_eq!(split.train().user_items(1), &[1]);
    }

    #[test]
    fn leave_one_out_spares_single_event_users() {
        let split = Protocol::LeaveOneOut.split(&timed(), 0, SplitId::default()).unwrap();
        assert_eq!(split.test().user_items(0).len(), 1);
        assert!(split.test().user_items(1).is_empty());
    }

    #[test]
    fn amounts_parse_as_counts_fractions_and_percentages() {
        assert_eq!("331".parse::<Amount>().unwrap(), Amount::Count(331));
        assert_eq!("0.2".parse::<Amount>().unwrap(), Amount::Fraction(0.2));
        assert_eq!(" 20% ".parse::<Amount>().unwrap(), Amount::Fraction(0.2));
        for bad in ["", "-1", "1.5", "120%", "x%", "abc"] {
            assert!(bad.parse::<Amount>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn protocols_round_trip_through_serde() {
        let protocol = Protocol::KFoldUsers {
            folds: 5,
            given: Given::AllBut(2),
            generalization: Generalization::Strong,
        };
        let json = serde_json::to_string(&protocol).unwrap();
        assert_eq!(
            json,
            r#"{"protocol":"kfold-users","folds":5,"given":{"all-but":2},"generalization":"strong"}"#
        );
        assert_eq!(serde_json::from_str::<Protocol>(&json).unwrap(), protocol);
        assert_eq!(protocol.name(), "kfold-users");
        assert_eq!(protocol.split_ids(2).count(), 10);
    }
}
