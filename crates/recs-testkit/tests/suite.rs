//! The suite accepts a conforming model and catches each kind of misbehaving one.

use std::sync::atomic::{AtomicU32, Ordering};

use recs_core::{
    Fit, FitDyn, FoldInUser, ModelEntry, ParamValues, PredictRating, Recommender, RecsError,
    Result, Shape, TrainData, UserRow, check_items, check_score_args,
};
use recs_testkit::{FoldInPromise, Options, check_catalog_with, check_model, check_model_with};

/// How the test model misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Flaw {
    None,
    NanScores,
    PanicsOnBadUser,
    IgnoresSeed,
    AcceptsEmptyData,
    OrderDependent,
    NanRatings,
    /// Folding in a training user gives twice its scores.
    FoldInDoubled,
    /// Folding in a training user gives its scores times `1 + 1e-6`.
    FoldInSlightlyOff,
    /// Scores move with the number of threads of the rayon pool they run in.
    ThreadDependent,
    /// `score_catalog` differs from `score` at user 5, item 4.
    CatalogDiffersAtOneItem,
}

struct Params(Flaw);

/// Scores `count of the item + jitter + the user's own value for the item (0 without
/// one)`: a model whose fold-in can give a training user's scores exactly.
struct Model {
    flaw: Flaw,
    n_users: usize,
    counts: Vec<f32>,
    /// `users × items`, the training values, 0 where there is no event.
    values: Vec<f32>,
    jitter: f32,
}

impl Model {
    fn score_of(&self, item: u32, own_value: f32) -> f32 {
        let score = self.counts[item as usize] + self.jitter + own_value;
        if self.flaw == Flaw::ThreadDependent {
            score + rayon::current_num_threads() as f32 * 1e-3
        } else {
            score
        }
    }
}

static FITS: AtomicU32 = AtomicU32::new(0);

impl Fit for Params {
    type Model = Model;
    fn fit(&self, data: &TrainData<'_>) -> Result<Model> {
        if data.interactions.n_events() == 0 && self.0 != Flaw::AcceptsEmptyData {
            return Err(RecsError::Empty { what: "training data" });
        }
        let jitter = if self.0 == Flaw::IgnoresSeed {
            FITS.fetch_add(1, Ordering::Relaxed) as f32
        } else {
            (data.seed % 3) as f32
        };
        let (n_users, n_items) = (data.interactions.n_users(), data.interactions.n_items());
        let mut values = vec![0.0; n_users * n_items];
        for event in data.interactions.events() {
            values[event.user as usize * n_items + event.item as usize] = event.value;
        }
        Ok(Model {
            flaw: self.0,
            n_users,
            counts: data.interactions.item_counts().into_iter().map(|c| c as f32).collect(),
            values,
            jitter,
        })
    }
}

impl Recommender for Model {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.counts.len())
    }
    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        if self.flaw == Flaw::PanicsOnBadUser {
            assert!((user as usize) < self.n_users, "user out of range");
        }
        check_score_args(self.n_users, self.counts.len(), user, items, out)?;
        let n_items = self.counts.len();
        for (k, (o, &i)) in out.iter_mut().zip(items).enumerate() {
            *o = match self.flaw {
                Flaw::NanScores if i == 3 => f32::NAN,
                Flaw::OrderDependent => k as f32,
                _ => self.score_of(i, self.values[user as usize * n_items + i as usize]),
            };
        }
        Ok(())
    }
    fn score_catalog(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        let n_items = self.counts.len();
        recs_core::check_len("catalog score buffer", users.len() * n_items, out.len())?;
        let items: Vec<u32> = (0..n_items as u32).collect();
        for (&user, row) in users.iter().zip(out.chunks_mut(n_items)) {
            self.score(user, &items, row)?;
            if self.flaw == Flaw::CatalogDiffersAtOneItem && user == 5 {
                row[4] += 1.0;
            }
        }
        Ok(())
    }
    fn as_rating_predictor(&self) -> Option<&dyn PredictRating> {
        Some(self)
    }
    fn as_user_fold_in(&self) -> Option<&dyn FoldInUser> {
        Some(self)
    }
}

impl FoldInUser for Model {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.counts.len(), items, out)?;
        for (o, &i) in out.iter_mut().zip(items) {
            let own = history.items.binary_search(&i).map_or(0.0, |k| history.values[k]);
            let score = self.score_of(i, own);
            *o = match self.flaw {
                Flaw::FoldInDoubled => 2.0 * score,
                Flaw::FoldInSlightlyOff => score * (1.0 + 1e-6),
                _ => score,
            };
        }
        Ok(())
    }
}

impl PredictRating for Model {
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.counts.len(), user, items, out)?;
        let value = if self.flaw == Flaw::NanRatings { f32::NAN } else { 3.0 };
        out.fill(value);
        Ok(())
    }
}

fn failures(flaw: Flaw) -> Vec<String> {
    failures_with(flaw, Options::default())
}

fn failures_with(flaw: Flaw, options: Options) -> Vec<String> {
    match check_model_with(&Params(flaw), &options) {
        Ok(()) => Vec::new(),
        Err(f) => f.0,
    }
}

fn assert_caught(flaw: Flaw, needle: &str) {
    assert_found(&failures(flaw), needle);
}

fn assert_found(found: &[String], needle: &str) {
    assert!(
        found.iter().any(|f| f.contains(needle)),
        "expected a failure containing {needle:?}, got {found:?}"
    );
}

#[test]
fn a_conforming_model_passes() {
    assert_eq!(failures(Flaw::None), Vec::<String>::new());
    assert_eq!(check_model(&Params(Flaw::None)), Ok(()));
}

#[test]
fn nan_scores_are_caught() {
    assert_caught(Flaw::NanScores, "must be finite");
}

#[test]
fn a_panic_on_bad_input_is_caught_not_propagated() {
    assert_caught(Flaw::PanicsOnBadUser, "score for user n_users: panicked");
}

#[test]
fn ignoring_the_seed_is_caught() {
    assert_caught(Flaw::IgnoresSeed, "same seed gave different scores");
}

#[test]
fn accepting_empty_training_data_is_caught() {
    assert_caught(Flaw::AcceptsEmptyData, "fit on data without events: returned Ok");
}

#[test]
fn order_dependent_scores_are_caught() {
    assert_caught(Flaw::OrderDependent, "differs from full score");
}

#[test]
fn capabilities_are_checked_too() {
    assert_caught(Flaw::NanRatings, "predict: non-finite output");
}

#[test]
fn a_fold_in_that_doubles_the_scores_is_caught() {
    let found = failures(Flaw::FoldInDoubled);
    // User 0's item 0: six events, jitter 7 % 3 = 1, its own rating 4.
    assert_found(
        &found,
        "fold-in of training user 0 from its own row: item 0 scores 22, score gives 11",
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn a_fold_in_within_a_declared_tolerance_passes_and_beyond_it_is_caught() {
    let reason = "re-solves the user's factors";
    assert_caught(Flaw::FoldInSlightlyOff, "fold-in of training user 0 from its own row");
    assert_eq!(
        failures_with(Flaw::FoldInSlightlyOff, Options::fold_in_within(1e-5, reason)),
        Vec::<String>::new()
    );
    let found = failures_with(Flaw::FoldInSlightlyOff, Options::fold_in_within(1e-8, reason));
    assert_found(&found, "fold-in of training user 0 from its own row");
    assert_found(&found, "expected within 1e-8");
    let doubled = failures_with(Flaw::FoldInDoubled, Options::fold_in_within(0.1, reason));
    assert_found(&doubled, "expected within 1e-1; largest difference relative to the user's");
}

#[test]
fn a_fold_in_exemption_needs_a_reason() {
    let exempt = Options::fold_in_exempt("by design: scores of its own");
    assert_eq!(failures_with(Flaw::FoldInDoubled, exempt), Vec::<String>::new());
    assert_caught_with(Flaw::None, Options::fold_in_exempt(" "), "needs a reason");
    let unreasoned = Options { fold_in: FoldInPromise::Within { tolerance: 1e-3, reason: "" } };
    assert_caught_with(Flaw::None, unreasoned, "needs a finite value ≥ 0 and a reason");
}

fn assert_caught_with(flaw: Flaw, options: Options, needle: &str) {
    assert_found(&failures_with(flaw, options), needle);
}

#[test]
fn scores_that_depend_on_the_thread_count_are_caught() {
    let found = failures(Flaw::ThreadDependent);
    assert_found(&found, "scores depend on the number of threads: user 0 item 0:");
    assert_found(&found, "on one thread,");
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn a_catalog_score_that_differs_at_one_item_is_caught() {
    let found = failures(Flaw::CatalogDiffersAtOneItem);
    assert_found(
        &found,
        // Item 4: five events, jitter 1, no rating of user 5's.
        "score_catalog differs from score: user 5 item 4: score_catalog gives 7, score gives 6",
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

fn build_doubling(_: &ParamValues) -> Result<Box<dyn FitDyn>> {
    Ok(Box::new(Params(Flaw::FoldInDoubled)))
}

const DOUBLING: ModelEntry = ModelEntry {
    name: "doubling",
    summary: "Folds users in at twice their scores.",
    params: &[],
    needs_attributes: false,
    build: build_doubling,
};

#[test]
fn catalog_options_apply_to_the_named_model_only() {
    let exempt = Options::fold_in_exempt("by design: scores of its own");
    assert_eq!(check_catalog_with(&[DOUBLING], &[("doubling", exempt)]), Ok(()));
    let found = check_catalog_with(&[DOUBLING], &[("other", exempt)]).unwrap_err().0;
    assert_found(&found, "other: given options, but the catalog has no such model");
    assert_found(&found, "doubling: fold-in of training user 0 from its own row");
}

recs_testkit::conformance_test!(
    the_macro_takes_options,
    Params(Flaw::FoldInSlightlyOff),
    Options::fold_in_within(1e-5, "rounds differently")
);
recs_testkit::catalog_conformance_test!(the_catalog_macro_takes_options, [DOUBLING], [
    "doubling" => Options::fold_in_exempt("by design: scores of its own"),
]);

#[test]
fn synthetic_data_covers_every_item_and_user() {
    let (interactions, attributes) = recs_testkit::synthetic_data();
    assert!(interactions.item_counts().iter().all(|&c| c > 0));
    assert!(interactions.user_counts().iter().all(|&c| c > 0));
    assert_eq!(attributes.n_items(), interactions.n_items());
    assert!(interactions.has_timestamps());
}
