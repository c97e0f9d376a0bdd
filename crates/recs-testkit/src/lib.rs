//! The conformance suite every `recs` model crate runs against its models.
//!
//! A model is only useful to the runner if it honours the contract of
//! [`recs_core::Recommender`]; this crate checks that contract on small synthetic data
//! with one call, so every model crate gets the same scrutiny (the habit comes from
//! linfa-nn, which runs one test suite against every index):
//!
//! - fitting succeeds on the synthetic data and reports its dimensions;
//! - every score is finite, for every user and item;
//! - the same seed gives bit-identical scores;
//! - scoring a subset of items in any order equals scoring all items and picking;
//! - [`Recommender::score_catalog`] equals `score` on every item, bit for bit, for every
//!   user;
//! - fitting and scoring in a one-thread and in a three-thread rayon pool give the same
//!   bits for every user and item;
//! - bad input (empty training data, a user or item out of range, a buffer of the wrong
//!   length) gives `Err`, never a panic;
//! - the optional capabilities, when offered, obey the same rules; a [`FoldInUser`]
//!   folding in a training user from that user's own training row gives its `score`,
//!   bit for bit unless the model declares a tolerance or an exemption with its reason
//!   ([`Options`], [`FoldInPromise`]).
//!
//! `Send + Sync` is checked at compile time by the bounds of [`check_model`].
//!
//! ```
//! use recs_core::{Fit, Recommender, Result, Shape, TrainData, check_score_args};
//!
//! /// Scores every item by its number of training events.
//! struct Popularity;
//! struct Fitted { n_users: usize, counts: Vec<u32> }
//!
//! impl Fit for Popularity {
//!     type Model = Fitted;
//!     fn fit(&self, data: &TrainData<'_>) -> Result<Fitted> {
//!         let events = data.interactions.require_events()?;
//!         Ok(Fitted { n_users: events.n_users(), counts: events.item_counts() })
//!     }
//! }
//! impl Recommender for Fitted {
//!     fn shape(&self) -> Shape { Shape::new(self.n_users, self.counts.len()) }
//!     fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
//!         check_score_args(self.n_users, self.counts.len(), user, items, out)?;
//!         for (o, &i) in out.iter_mut().zip(items) { *o = self.counts[i as usize] as f32; }
//!         Ok(())
//!     }
//! }
//!
//! recs_testkit::check_model(&Popularity).expect("popularity conforms");
//! ```
#![deny(missing_docs)]

pub mod bench;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use recs_core::{
    DuplicatePolicy, Event, FitDyn, FoldInUser, IdMap, Interactions, ItemAttributes, ModelEntry,
    NewItems, ParamValues, Recommender, Result, TrainData,
};

/// Number of users in the synthetic training data.
pub const N_USERS: usize = 12;
/// Number of items in the synthetic training data.
pub const N_ITEMS: usize = 10;
/// Number of attributes in the synthetic item attributes.
pub const N_ATTRIBUTES: usize = 4;

/// The folder of real datasets for integration tests: `RECS_DATA_DIR` when it is set and
/// not empty. Otherwise prints a notice (so a skipped test is visible in the output) and
/// returns `None`; the caller returns early.
pub fn real_data_dir() -> Option<std::path::PathBuf> {
    match std::env::var_os("RECS_DATA_DIR") {
        Some(dir) if !dir.is_empty() => Some(std::path::PathBuf::from(dir)),
        _ => {
            eprintln!("notice: RECS_DATA_DIR is not set; skipping the real-data tests");
            None
        }
    }
}

/// Runs `f` in a one-thread and in a three-thread rayon pool: the two results, for tests
/// that an outcome does not depend on the number of threads.
///
/// # Panics
/// When a pool cannot be built (a test helper: the test fails).
pub fn on_one_and_three_threads<T: Send>(f: impl Fn() -> T + Send + Sync) -> (T, T) {
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a thread pool");
    (pool(1).install(&f), pool(3).install(&f))
}

/// Interactions with one list of items per user (user `u` is `rows[u]`), every event of
/// value `value`.
///
/// # Panics
/// On an item `>= n_items` or an item listed twice in a row (a test helper).
pub fn interactions_from_rows(rows: &[&[u32]], n_items: usize, value: f32) -> Interactions {
    let events = rows
        .iter()
        .enumerate()
        .flat_map(|(u, items)| items.iter().map(move |&i| Event::new(u as u32, i, value)));
    Interactions::from_events(rows.len(), n_items, events, DuplicatePolicy::Error)
        .expect("valid rows")
}

/// Ratings written as a grid: one line per user, one whitespace-separated column per
/// item, `.` for no event. Hand-computed cases read as the matrices they are.
///
/// ```
/// let m = recs_testkit::ratings_grid("
///     5 3 .
///     . . 4
/// ");
/// assert_eq!((m.n_users(), m.n_items(), m.n_events()), (2, 3, 3));
/// assert_eq!(m.get(1, 2), Some(4.0));
/// ```
///
/// # Panics
/// On rows of different lengths or a cell that is neither `.` nor a number (a test
/// helper).
pub fn ratings_grid(grid: &str) -> Interactions {
    let rows: Vec<Vec<&str>> = grid
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    let n_items = rows.first().map_or(0, Vec::len);
    assert!(rows.iter().all(|r| r.len() == n_items), "rows of different lengths in {grid:?}");
    let events = rows.iter().enumerate().flat_map(|(u, row)| {
        row.iter().enumerate().filter(|(_, cell)| **cell != ".").map(move |(i, cell)| {
            let value = cell.parse().unwrap_or_else(|_| panic!("not a rating: {cell:?}"));
            Event::new(u as u32, i as u32, value)
        })
    });
    Interactions::from_events(rows.len(), n_items, events, DuplicatePolicy::Error)
        .expect("valid grid")
}

/// The synthetic training data of the suite: two groups of users, each preferring one
/// half of the items (ratings 1–5 from a fixed formula), one user with a single event,
/// and every item with at least one event. Items carry attributes that follow the halves.
pub fn synthetic_data() -> (Interactions, ItemAttributes) {
    let mut events = Vec::new();
    for user in 0..N_USERS as u32 - 1 {
        let group = user % 2;
        for item in 0..N_ITEMS as u32 {
            let liked = (item < N_ITEMS as u32 / 2) == (group == 0);
            // A deterministic, irregular pattern of observed pairs.
            if (user * 7 + item * 3) % 4 == 0 || (liked && (user + item) % 3 != 0) {
                let rating =
                    if liked { 4.0 + ((user + item) % 2) as f32 } else { 1.0 + (item % 3) as f32 };
                events.push(Event::at(user, item, rating, i64::from(user * 100 + item)));
            }
        }
    }
    events.push(Event::at(N_USERS as u32 - 1, 0, 5.0, 0));
    for item in 0..N_ITEMS as u32 {
        if !events.iter().any(|e| e.item == item) {
            events.push(Event::at(0, item, 3.0, 999));
        }
    }
    let interactions = Interactions::from_events(N_USERS, N_ITEMS, events, DuplicatePolicy::Error)
        .expect("synthetic events are valid");
    let vocabulary = IdMap::from_ids_sorted(["a0", "a1", "a2", "a3"]).expect("four ids");
    let pairs = (0..N_ITEMS as u32).flat_map(|item| {
        let half = u32::from(item >= N_ITEMS as u32 / 2);
        [(item, half, 1.0), (item, 2 + item % 2, 1.0)]
    });
    let attributes = ItemAttributes::from_pairs(N_ITEMS, vocabulary, pairs)
        .expect("synthetic attributes are valid");
    (interactions, attributes)
}

/// The checks that failed, one line each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failures(pub Vec<String>);

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} conformance check(s) failed:", self.0.len())?;
        for line in &self.0 {
            writeln!(f, "  - {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failures {}

/// Runs `f`, turning a panic into a failure line.
fn guarded<T>(what: &str, failures: &mut Vec<String>, f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Some(value),
        Err(_) => {
            failures.push(format!("{what}: panicked"));
            None
        }
    }
}

fn expect_err<T>(what: &str, failures: &mut Vec<String>, f: impl FnOnce() -> Result<T>) {
    if let Some(Ok(_)) = guarded(what, failures, f) {
        failures.push(format!("{what}: returned Ok, expected Err"));
    }
}

fn all_scores(model: &dyn Recommender, failures: &mut Vec<String>) -> Option<Vec<f32>> {
    let items: Vec<u32> = (0..N_ITEMS as u32).collect();
    let mut all = vec![0.0f32; N_USERS * N_ITEMS];
    for user in 0..N_USERS as u32 {
        let out = &mut all[user as usize * N_ITEMS..(user as usize + 1) * N_ITEMS];
        match guarded("score", failures, || model.score(user, &items, out))? {
            Ok(()) => {}
            Err(e) => {
                failures.push(format!("score(user {user}, all items) failed: {e}"));
                return None;
            }
        }
    }
    Some(all)
}

/// What a model declares about a promise of the suite that it keeps only in part, each
/// departure with its reason. The default holds the model to every promise exactly.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Options {
    /// How folding in a training user from its own row compares with its scores.
    pub fold_in: FoldInPromise,
}

impl Options {
    /// Folded-in training users' scores within `tolerance` of their trained scores (see
    /// [`FoldInPromise::Within`]), for the stated `reason`.
    pub const fn fold_in_within(tolerance: f64, reason: &'static str) -> Self {
        Options { fold_in: FoldInPromise::Within { tolerance, reason } }
    }

    /// Folding in training users is not compared with their scores, for the stated
    /// `reason`.
    pub const fn fold_in_exempt(reason: &'static str) -> Self {
        Options { fold_in: FoldInPromise::Exempt { reason } }
    }
}

/// What [`FoldInUser::score_history`] of a training user's own training row (its items
/// and values) promises against [`Recommender::score`] of that user, for every item.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FoldInPromise {
    /// The same bits: folding in computes what training computed.
    #[default]
    Exact,
    /// `|fold-in − score| ≤ tolerance × m` for every item, `m` the largest `|score|` of
    /// that user: for a fold-in that re-solves what training solved, and so rounds
    /// differently or stops at another iterate. Relative to the user's largest score so
    /// that a score near zero is not held to its own tiny magnitude.
    Within {
        /// The relative tolerance.
        tolerance: f64,
        /// Why the model cannot give the same bits.
        reason: &'static str,
    },
    /// Not compared: for a model whose fold-in deliberately differs from training.
    Exempt {
        /// Why the scores differ by design.
        reason: &'static str,
    },
}

/// Runs the whole suite against `params` with every promise held exactly, returning every
/// failed check: [`check_model_with`] and the default [`Options`].
///
/// # Errors
/// [`Failures`] listing every check that failed.
pub fn check_model(params: &dyn FitDyn) -> std::result::Result<(), Failures> {
    check_model_with(params, &Options::default())
}

/// Runs the whole suite against `params`, returning every failed check; `options` loosens
/// the promises the model declares it keeps only in part.
///
/// The model is fitted with seed 7 on [`synthetic_data`] (attributes attached), twice to
/// test determinism, once more in a one-thread and in a three-thread pool, and once on
/// data without events, which must be refused.
///
/// # Errors
/// [`Failures`] listing every check that failed.
pub fn check_model_with(
    params: &dyn FitDyn,
    options: &Options,
) -> std::result::Result<(), Failures> {
    let mut failures = Vec::new();
    let (interactions, attributes) = synthetic_data();
    let data = TrainData::new(&interactions, 7).with_attributes(&attributes).expect("same items");

    let fit = |failures: &mut Vec<String>| match guarded("fit", failures, || params.fit_dyn(&data))
    {
        Some(Ok(model)) => Some(model),
        Some(Err(e)) => {
            failures.push(format!("fit on synthetic data failed: {e}"));
            None
        }
        None => None,
    };
    let Some(model) = fit(&mut failures) else { return Err(Failures(failures)) };
    if (model.n_users(), model.n_items()) != (N_USERS, N_ITEMS) {
        failures.push(format!(
            "fitted dimensions {}×{} differ from the data's {N_USERS}×{N_ITEMS}",
            model.n_users(),
            model.n_items()
        ));
    }

    let model = model.as_ref();
    if let Some(scores) = all_scores(model, &mut failures) {
        if let Some(k) = scores.iter().position(|s| !s.is_finite()) {
            failures.push(format!(
                "score of user {} item {} is {} (scores must be finite)",
                k / N_ITEMS,
                k % N_ITEMS,
                scores[k]
            ));
        }
        if let Some(again) = fit(&mut failures).and_then(|m| all_scores(m.as_ref(), &mut failures))
        {
            let same = scores.iter().zip(&again).all(|(a, b)| a.to_bits() == b.to_bits());
            if !same {
                failures.push("two fits with the same seed gave different scores".to_string());
            }
        }
        check_subsets(model, &scores, &mut failures);
        check_catalog_blocks(model, &scores, &mut failures);
        if let Some(fold_in) = model.as_user_fold_in() {
            check_fold_in_of_training_users(
                fold_in,
                &interactions,
                &scores,
                options.fold_in,
                &mut failures,
            );
        }
    }
    check_thread_counts(params, &data, &mut failures);

    let items = [0u32, 1];
    let mut out = [0.0f32; 2];
    expect_err("score for user n_users", &mut failures, || {
        model.score(N_USERS as u32, &items, &mut out)
    });
    expect_err("score for item n_items", &mut failures, || {
        model.score(0, &[N_ITEMS as u32], &mut out[..1])
    });
    expect_err("score with a short buffer", &mut failures, || {
        model.score(0, &items, &mut out[..1])
    });
    check_capabilities(model, &interactions, &attributes, &mut failures);

    let empty = Interactions::from_events(N_USERS, N_ITEMS, [], DuplicatePolicy::Error)
        .expect("empty is valid");
    let empty_data = TrainData::new(&empty, 7).with_attributes(&attributes).expect("same items");
    expect_err("fit on data without events", &mut failures, || params.fit_dyn(&empty_data));

    if failures.is_empty() { Ok(()) } else { Err(Failures(failures)) }
}

/// Fitting and scoring every user and item in a one-thread and in a three-thread rayon
/// pool must give the same bits: a model's parallel sums may not depend on how the work
/// is split.
fn check_thread_counts(params: &dyn FitDyn, data: &TrainData<'_>, failures: &mut Vec<String>) {
    let (one, three) = on_one_and_three_threads(|| {
        let mut lines = Vec::new();
        let scores = match guarded("fit", &mut lines, || params.fit_dyn(data)) {
            Some(Ok(model)) => all_scores(model.as_ref(), &mut lines),
            Some(Err(e)) => {
                lines.push(format!("fit on synthetic data failed: {e}"));
                None
            }
            None => None,
        };
        scores.ok_or(lines)
    });
    match (one, three) {
        (Ok(one), Ok(three)) => {
            if let Some(k) = (0..one.len()).find(|&k| one[k].to_bits() != three[k].to_bits()) {
                failures.push(format!(
                    "scores depend on the number of threads: user {} item {}: {} on one \
                     thread, {} on three",
                    k / N_ITEMS,
                    k % N_ITEMS,
                    one[k],
                    three[k]
                ));
            }
        }
        (one, three) => {
            for (threads, lines) in [("one", one.err()), ("three", three.err())] {
                for line in lines.into_iter().flatten() {
                    failures.push(format!("on {threads} thread(s): {line}"));
                }
            }
        }
    }
}

/// Folding in each training user from that user's own training row must give the user's
/// scores, as `promise` states.
fn check_fold_in_of_training_users(
    fold_in: &dyn FoldInUser,
    interactions: &Interactions,
    scores: &[f32],
    promise: FoldInPromise,
    failures: &mut Vec<String>,
) {
    let tolerance = match promise {
        FoldInPromise::Exact => None,
        FoldInPromise::Within { tolerance, reason } => {
            if reason.trim().is_empty() || !(tolerance.is_finite() && tolerance >= 0.0) {
                failures.push(format!(
                    "fold-in tolerance {tolerance} needs a finite value ≥ 0 and a reason"
                ));
                return;
            }
            Some(tolerance)
        }
        FoldInPromise::Exempt { reason } => {
            if reason.trim().is_empty() {
                failures.push("a fold-in exemption needs a reason".to_string());
            }
            return;
        }
    };
    let items: Vec<u32> = (0..N_ITEMS as u32).collect();
    let mut out = vec![0.0f32; N_ITEMS];
    // The first item out of line, and the largest relative difference over all users.
    let mut first = None;
    let mut largest = 0.0f64;
    for user in 0..N_USERS as u32 {
        let row = interactions.user_row(user);
        match guarded("fold-in of a training user", failures, || {
            fold_in.score_history(row, &items, &mut out)
        }) {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                failures.push(format!("fold-in of training user {user} failed: {e}"));
                return;
            }
            None => return,
        }
        let trained = &scores[user as usize * N_ITEMS..][..N_ITEMS];
        let scale = trained.iter().fold(0.0f64, |m, &s| m.max(f64::from(s).abs()));
        for (item, (&folded, &score)) in out.iter().zip(trained).enumerate() {
            let difference = (f64::from(folded) - f64::from(score)).abs();
            let relative = if difference == 0.0 { 0.0 } else { difference / scale };
            let within = match tolerance {
                None => folded.to_bits() == score.to_bits(),
                Some(tolerance) => relative <= tolerance,
            };
            // A NaN difference is the largest there is (`f64::max` would drop it).
            largest = if largest.is_nan() || relative.is_nan() {
                f64::NAN
            } else {
                largest.max(relative)
            };
            if !within && first.is_none() {
                first = Some((user, item, folded, score));
            }
        }
    }
    if let Some((user, item, folded, score)) = first {
        let allowed = tolerance.map_or("the same bits".to_string(), |t| format!("within {t:e}"));
        failures.push(format!(
            "fold-in of training user {user} from its own row: item {item} scores {folded}, \
             score gives {score} (expected {allowed}; largest difference relative to the \
             user's largest score, over all users: {largest:e})"
        ));
    }
}

/// Scoring every item for a block of users (all of them, scrambled, one repeated) must
/// equal `score` on every item, bit for bit.
fn check_catalog_blocks(model: &dyn Recommender, scores: &[f32], failures: &mut Vec<String>) {
    let users: Vec<u32> = (0..N_USERS as u32).rev().chain([0]).collect();
    let mut out = vec![f32::NAN; users.len() * N_ITEMS];
    match guarded("score_catalog", failures, || model.score_catalog(&users, &mut out)) {
        Some(Ok(())) => {
            for (row, &user) in out.chunks(N_ITEMS).zip(&users) {
                let full = &scores[user as usize * N_ITEMS..][..N_ITEMS];
                if let Some(item) = (0..N_ITEMS).find(|&i| row[i].to_bits() != full[i].to_bits()) {
                    failures.push(format!(
                        "score_catalog differs from score: user {user} item {item}: \
                         score_catalog gives {}, score gives {}",
                        row[item], full[item]
                    ));
                    return;
                }
            }
        }
        Some(Err(e)) => failures.push(format!("score_catalog failed: {e}")),
        None => return,
    }
    expect_err("score_catalog with a short buffer", failures, || {
        model.score_catalog(&users, &mut out[1..])
    });
    expect_err("score_catalog for user n_users", failures, || {
        model.score_catalog(&[N_USERS as u32], &mut out[..N_ITEMS])
    });
}

/// Scoring items in a scrambled subset must equal picking from the full scores.
fn check_subsets(model: &dyn Recommender, scores: &[f32], failures: &mut Vec<String>) {
    for user in 0..N_USERS as u32 {
        let subset: Vec<u32> = (0..N_ITEMS as u32).rev().filter(|i| (i + user) % 3 != 1).collect();
        let mut out = vec![0.0f32; subset.len()];
        match guarded("score on a subset", failures, || model.score(user, &subset, &mut out)) {
            Some(Ok(())) => {
                for (&item, &s) in subset.iter().zip(&out) {
                    let full = scores[user as usize * N_ITEMS + item as usize];
                    if s.to_bits() != full.to_bits() {
                        failures.push(format!(
                            "user {user} item {item}: subset score {s} differs from full score {full}"
                        ));
                        return;
                    }
                }
            }
            Some(Err(e)) => failures.push(format!("score on a subset failed: {e}")),
            None => return,
        }
    }
}

fn check_capabilities(
    model: &dyn Recommender,
    interactions: &Interactions,
    attributes: &ItemAttributes,
    failures: &mut Vec<String>,
) {
    let items: Vec<u32> = (0..N_ITEMS as u32).collect();
    let mut out = vec![0.0f32; N_ITEMS];
    let finite =
        |what: &str, result: Option<Result<()>>, out: &[f32], failures: &mut Vec<String>| {
            match result {
                Some(Ok(())) if out.iter().all(|s| s.is_finite()) => {}
                Some(Ok(())) => failures.push(format!("{what}: non-finite output")),
                Some(Err(e)) => failures.push(format!("{what}: failed: {e}")),
                None => {}
            }
        };
    if let Some(predictor) = model.as_rating_predictor() {
        let r = guarded("predict", failures, || predictor.predict(1, &items, &mut out));
        finite("predict", r, &out, failures);
        expect_err("predict for user n_users", failures, || {
            predictor.predict(N_USERS as u32, &items, &mut out)
        });
        expect_err("predict with a short buffer", failures, || {
            predictor.predict(0, &items, &mut out[..1])
        });
    }
    if let Some(scorer) = model.as_new_item_scorer() {
        let r = guarded("score_new_items", failures, || {
            scorer.score_new_items(1, NewItems::new(attributes, &items)?, &mut out)
        });
        finite("score_new_items", r, &out, failures);
        expect_err("score_new_items for user n_users", failures, || {
            scorer.score_new_items(N_USERS as u32, NewItems::new(attributes, &items)?, &mut out)
        });
        expect_err("score_new_items with a short buffer", failures, || {
            scorer.score_new_items(1, NewItems::new(attributes, &items)?, &mut out[..1])
        });
    }
    if let Some(view) = model.as_factors() {
        check_factors(model, view, failures);
    }
    if let Some(fold_in) = model.as_user_fold_in() {
        let history = interactions.user_row(2);
        let r =
            guarded("score_history", failures, || fold_in.score_history(history, &items, &mut out));
        finite("score_history", r, &out, failures);
        expect_err("score_history for item n_items", failures, || {
            fold_in.score_history(history, &[N_ITEMS as u32], &mut out[..1])
        });
    }
}

/// A model's factors ([`Recommender::as_factors`]) have its shape and give every one of
/// its training users' scores, bit for bit.
fn check_factors(
    model: &dyn Recommender,
    view: recs_core::FactorView<'_>,
    failures: &mut Vec<String>,
) {
    let shape = model.shape();
    let rank = view.rank;
    if rank == 0
        || view.users.len() != shape.n_users * rank
        || view.items.len() != shape.n_items * rank
    {
        failures.push(format!(
            "as_factors: rank {rank}, {} user and {} item values for {} users × {} items",
            view.users.len(),
            view.items.len(),
            shape.n_users,
            shape.n_items
        ));
        return;
    }
    let items: Vec<u32> = (0..shape.n_items as u32).collect();
    let mut out = vec![0.0f32; shape.n_items];
    for user in 0..shape.n_users {
        if model.score(user as u32, &items, &mut out).is_err() {
            continue;
        }
        if let Some(i) =
            (0..shape.n_items).find(|&i| out[i].to_bits() != view.score(user, i).to_bits())
        {
            failures.push(format!(
                "as_factors: user {user}, item {i}: the factors give {}, score gives {}",
                view.score(user, i),
                out[i]
            ));
            return;
        }
    }
}

/// Runs [`check_model`] on every entry of a model crate's catalog, built from an empty
/// parameter list (so with the defaults the crate applies), and checks that the defaults
/// the catalog documents ([`ParamSpec::default`](recs_core::ParamSpec), given explicitly as
/// text) build a model with bit-identical scores: the documented defaults cannot drift
/// from the applied ones.
///
/// # Errors
/// [`Failures`] listing every failed check, each line starting with the model's name.
pub fn check_catalog(entries: &[ModelEntry]) -> std::result::Result<(), Failures> {
    check_catalog_with(entries, &[])
}

/// [`check_catalog`], each model named in `options` checked with its [`Options`] instead
/// of the defaults.
///
/// # Errors
/// [`Failures`] listing every failed check, each line starting with the model's name; a
/// name in `options` that the catalog does not have is a failure too, so that a loosened
/// promise cannot outlive its model.
pub fn check_catalog_with(
    entries: &[ModelEntry],
    options: &[(&str, Options)],
) -> std::result::Result<(), Failures> {
    let mut failures: Vec<String> = options
        .iter()
        .filter(|(name, _)| !entries.iter().any(|e| e.name == *name))
        .map(|(name, _)| format!("{name}: given options, but the catalog has no such model"))
        .collect();
    let (interactions, attributes) = synthetic_data();
    let data = TrainData::new(&interactions, 7).with_attributes(&attributes).expect("same items");
    for entry in entries {
        let name = entry.name;
        let implicit = match entry.build_checked(&ParamValues::new()) {
            Ok(built) => built,
            Err(e) => {
                failures.push(format!("{name}: building with no parameters failed: {e}"));
                continue;
            }
        };
        let model_options =
            options.iter().find(|(n, _)| *n == name).map_or_else(Options::default, |(_, o)| *o);
        if let Err(Failures(lines)) = check_model_with(implicit.as_ref(), &model_options) {
            failures.extend(lines.into_iter().map(|l| format!("{name}: {l}")));
            continue;
        }
        let documented =
            ParamValues::parse(entry.params.iter().map(|p| format!("{}={}", p.name, p.default)))
                .and_then(|values| entry.build_checked(&values));
        let explicit = match documented {
            Ok(built) => built,
            Err(e) => {
                failures.push(format!("{name}: its documented defaults are refused: {e}"));
                continue;
            }
        };
        let mut lines = Vec::new();
        let scores = |built: &dyn FitDyn, lines: &mut Vec<String>| {
            let model = guarded("fit", lines, || built.fit_dyn(&data))?.ok()?;
            all_scores(model.as_ref(), lines)
        };
        match (scores(implicit.as_ref(), &mut lines), scores(explicit.as_ref(), &mut lines)) {
            (Some(a), Some(b)) if a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) => {}
            (Some(_), Some(_)) => lines.push(
                "the documented defaults give other scores than the applied ones".to_string(),
            ),
            _ => lines.push("fitting with the documented defaults failed".to_string()),
        }
        failures.extend(lines.into_iter().map(|l| format!("{name}: {l}")));
    }
    if failures.is_empty() { Ok(()) } else { Err(Failures(failures)) }
}

/// Panics with the list of failed checks, if any (the body of the generated tests).
pub fn expect_conformance(outcome: std::result::Result<(), Failures>) {
    if let Err(failures) = outcome {
        panic!("{failures}");
    }
}

/// Generates a `#[test]` named `$name` that runs [`check_catalog`] on `$catalog` (a
/// crate's `catalog()`): every catalogued model conforms, and its documented defaults are
/// the ones it applies. Models that keep a promise only in part are listed after it with
/// their [`Options`] ([`check_catalog_with`]).
///
/// ```text
/// recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_baseline::catalog());
/// recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_foo::catalog(), [
///     "foo-als" => recs_testkit::Options::fold_in_within(1e-5, "re-solves the user's factors"),
/// ]);
/// ```
#[macro_export]
macro_rules! catalog_conformance_test {
    ($name:ident, $catalog:expr) => {
        #[test]
        fn $name() {
            $crate::expect_conformance($crate::check_catalog(&$catalog));
        }
    };
    ($name:ident, $catalog:expr, [$($model:literal => $options:expr),* $(,)?]) => {
        #[test]
        fn $name() {
            $crate::expect_conformance($crate::check_catalog_with(
                &$catalog,
                &[$(($model, $options)),*],
            ));
        }
    };
}

/// Generates a `#[test]` named `$name` that runs [`check_model`] on `$params` and fails
/// with the list of failed checks; with a third argument, [`check_model_with`] and those
/// [`Options`].
///
/// ```text
/// recs_testkit::conformance_test!(item_popularity_conforms, ItemPopularityParams::new());
/// recs_testkit::conformance_test!(
///     als_conforms,
///     AlsParams::new(),
///     recs_testkit::Options::fold_in_within(1e-5, "re-solves the user's factors")
/// );
/// ```
#[macro_export]
macro_rules! conformance_test {
    ($name:ident, $params:expr) => {
        #[test]
        fn $name() {
            $crate::expect_conformance($crate::check_model(&$params));
        }
    };
    ($name:ident, $params:expr, $options:expr $(,)?) => {
        #[test]
        fn $name() {
            $crate::expect_conformance($crate::check_model_with(&$params, &$options));
        }
    };
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
