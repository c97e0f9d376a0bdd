//! The suite accepts a conforming model and catches each kind of misbehaving one.

use std::sync::atomic::{AtomicU32, Ordering};

use recs_core::{
    Fit, PredictRating, Recommender, RecsError, Result, Shape, TrainData, check_score_args,
};
use recs_testkit::check_model;

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
}

struct Params(Flaw);

struct Model {
    flaw: Flaw,
    n_users: usize,
    counts: Vec<f32>,
    jitter: f32,
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
        Ok(Model {
            flaw: self.0,
            n_users: data.interactions.n_users(),
            counts: data.interactions.item_counts().into_iter().map(|c| c as f32).collect(),
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
        for (k, (o, &i)) in out.iter_mut().zip(items).enumerate() {
            *o = match self.flaw {
                Flaw::NanScores if i == 3 => f32::NAN,
                Flaw::OrderDependent => k as f32,
                _ => self.counts[i as usize] + self.jitter + user as f32 * 0.01,
            };
        }
        Ok(())
    }
    fn as_rating_predictor(&self) -> Option<&dyn PredictRating> {
        Some(self)
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
    match check_model(&Params(flaw)) {
        Ok(()) => Vec::new(),
        Err(f) => f.0,
    }
}

fn assert_caught(flaw: Flaw, needle: &str) {
    let found = failures(flaw);
    assert!(
        found.iter().any(|f| f.contains(needle)),
        "expected a failure containing {needle:?}, got {found:?}"
    );
}

#[test]
fn a_conforming_model_passes() {
    assert_eq!(failures(Flaw::None), Vec::<String>::new());
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
fn synthetic_data_covers_every_item_and_user() {
    let (interactions, attributes) = recs_testkit::synthetic_data();
    assert!(interactions.item_counts().iter().all(|&c| c > 0));
    assert!(interactions.user_counts().iter().all(|&c| c > 0));
    assert_eq!(attributes.n_items(), interactions.n_items());
    assert!(interactions.has_timestamps());
}
