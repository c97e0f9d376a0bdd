//! The §7.3 side metrics as the paper means them: mean absolute error (eq. 11) between a
//! model's *probability* of a candidate and its 0/1 outcome, and, for the conditional
//! experiment, between the predicted and the actual rating.
//!
//! Each model states how its scores read as probabilities ([`ScoreScale`]): LPCA's
//! log-odds through σ, item popularity's counts over the number of people, the aspect
//! model's joint `P(p, m)` as it is (the paper's example of an output MAE misjudges). A
//! model that states no probability (user mean rating) has no probability MAE.
//!
//! Eq. 11 averages over "the test set"; with implicit data that can be read as the test
//! events (every outcome 1) or as every candidate (almost every outcome 0). The two
//! readings reward opposite things — a high output or a low one — so both are reported,
//! separately.

use recs_bench::{BenchError, Measure, MeasureInput, Result};
use recs_core::ScoreScale;

/// Report key: MAE of the probability over the test events (outcome 1).
pub(super) const MAE_EVENTS: &str = "mae_p_events";
/// Report key: MAE of the probability over every candidate (outcome 1 or 0).
pub(super) const MAE_ALL: &str = "mae_p_all";
/// Report key: [`MAE_EVENTS`] of a constant output at the model's mean probability over
/// its candidates: an output of the same scale that carries no signal (E1's control).
pub(super) const MAE_EVENTS_CONSTANT: &str = "mae_p_events_constant";
/// Report key: [`MAE_ALL`] of that constant.
pub(super) const MAE_ALL_CONSTANT: &str = "mae_p_all_constant";
/// Report key: MAE of the predicted rating against the test rating of every candidate.
pub(super) const MAE_RATING: &str = "mae_rating";

/// The two probability MAEs, and those of the same-scale constant, for every experiment.
pub(super) fn probability_maes() -> [Measure; 4] {
    [
        probability_mae(MAE_EVENTS, true),
        probability_mae(MAE_ALL, false),
        Measure::with_input(MAE_EVENTS_CONSTANT, true, |input| constant_mae_of(input, true)),
        Measure::with_input(MAE_ALL_CONSTANT, true, |input| constant_mae_of(input, false)),
    ]
}

/// MAE of `|p − outcome|` over the positives (`events_only`) or over every candidate;
/// undefined for a model whose scores state no probability.
fn probability_mae(key: &'static str, events_only: bool) -> Measure {
    Measure::with_input(key, true, move |input| probability_mae_of(input, events_only))
}

fn probability_mae_of(input: &MeasureInput<'_>, events_only: bool) -> Result<Option<f64>> {
    let scale = input.model.score_scale();
    if scale == ScoreScale::Unstated {
        return Ok(None);
    }
    let mut scores = input.scores.iter();
    let (mut sum, mut count) = (0.0f64, 0u64);
    for user in input.judgments.iter() {
        for &grade in user.grades {
            let score = *scores.next().ok_or_else(|| mismatch("fewer scores than candidates"))?;
            let outcome = f64::from(u8::from(grade >= 1.0));
            if events_only && outcome == 0.0 {
                continue;
            }
            // In f64: a probability near 1/(|P|·|M|) keeps its digits.
            let p = scale.probability(score).ok_or_else(|| mismatch("no probability"))?;
            sum += (p - outcome).abs();
            count += 1;
        }
    }
    Ok((count > 0).then(|| sum / count as f64))
}

/// The MAE (over the test events, or over every candidate) of a constant output `c`, the
/// model's mean probability over its candidates: `1 − c` over the events, and over every
/// candidate the positives' share of `1 − c` plus the negatives' share of `c`. Undefined
/// for a model whose scores state no probability.
fn constant_mae_of(input: &MeasureInput<'_>, events_only: bool) -> Result<Option<f64>> {
    let scale = input.model.score_scale();
    if scale == ScoreScale::Unstated {
        return Ok(None);
    }
    let mut scores = input.scores.iter();
    let (mut sum, mut count, mut positives) = (0.0f64, 0u64, 0u64);
    for user in input.judgments.iter() {
        for &grade in user.grades {
            let score = *scores.next().ok_or_else(|| mismatch("fewer scores than candidates"))?;
            sum += scale.probability(score).ok_or_else(|| mismatch("no probability"))?;
            count += 1;
            positives += u64::from(grade >= 1.0);
        }
    }
    if count == 0 || (events_only && positives == 0) {
        return Ok(None);
    }
    let c = sum / count as f64;
    if events_only {
        return Ok(Some(1.0 - c));
    }
    let share = positives as f64 / count as f64;
    Ok(Some(share * (1.0 - c) + (1.0 - share) * c))
}

/// MAE of the model's predicted rating against the test rating of every candidate;
/// undefined for a model that predicts no rating.
pub(super) fn rating_mae() -> Measure {
    Measure::with_input(MAE_RATING, true, rating_mae_of)
}

fn rating_mae_of(input: &MeasureInput<'_>) -> Result<Option<f64>> {
    let Some(predictor) = input.model.as_rating_predictor() else {
        return Ok(None);
    };
    let test = input.split.test();
    let n = input.judgments.n_candidates();
    let (mut predicted, mut actual) = (vec![0.0f32; n], Vec::with_capacity(n));
    let mut start = 0;
    for user in input.judgments.iter() {
        let end = start + user.items.len();
        predictor.predict(user.user, user.items, &mut predicted[start..end])?;
        for &item in user.items {
            actual.push(test.get(user.user, item).ok_or_else(|| {
                mismatch(&format!("candidate ({}, {item}) has no test rating", user.user))
            })?);
        }
        start = end;
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(recs_metrics::rating_errors(&predicted, &actual)?.mae))
}

fn mismatch(what: &str) -> BenchError {
    BenchError::Experiment(format!("§7.3 MAE: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{
        DuplicatePolicy, Event, Interactions, Judgments, PredictRating, Recommender, Shape,
    };
    use recs_split::Split;

    /// Scores every candidate `score` on `scale`; predicts every rating as `rating`.
    struct Constant {
        score: f32,
        scale: ScoreScale,
        rating: Option<f32>,
    }

    impl Recommender for Constant {
        fn shape(&self) -> Shape {
            Shape::new(2, 3)
        }
        fn score(&self, _: u32, _: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
            out.fill(self.score);
            Ok(())
        }
        fn score_scale(&self) -> ScoreScale {
            self.scale
        }
        fn as_rating_predictor(&self) -> Option<&dyn PredictRating> {
            self.rating.is_some().then_some(self as &dyn PredictRating)
        }
    }

    impl PredictRating for Constant {
        fn predict(&self, _: u32, _: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
            out.fill(self.rating.unwrap_or(0.0));
            Ok(())
        }
    }

    /// User 0 rated item 2 with 5 and item 1 with 2 in the test part; user 1 item 0 with 4.
    fn split_and_judgments() -> (Split, Judgments) {
        let interactions = |events: &[(u32, u32, f32)]| {
            let events = events.iter().map(|&(u, i, r)| Event::new(u, i, r));
            Interactions::from_events(2, 3, events, DuplicatePolicy::Error).unwrap()
        };
        let train = interactions(&[(0, 0, 3.0), (1, 1, 1.0)]);
        let test = interactions(&[(0, 1, 2.0), (0, 2, 5.0), (1, 0, 4.0)]);
        let mut judgments = Judgments::builder(2, 3);
        judgments.push_user(0, &[1, 2], &[0.0, 1.0]).unwrap();
        judgments.push_user(1, &[0], &[1.0]).unwrap();
        (Split::predefined(train, test).unwrap(), judgments.build().unwrap())
    }

    fn measure(
        model: &Constant,
        f: impl Fn(&MeasureInput<'_>) -> Result<Option<f64>>,
    ) -> Option<f64> {
        let (split, judgments) = split_and_judgments();
        let scores = vec![model.score; judgments.n_candidates()];
        let input = MeasureInput { model, split: &split, judgments: &judgments, scores: &scores };
        f(&input).unwrap()
    }

    #[test]
    fn probability_mae_reads_scores_on_the_models_scale() {
        // Log-odds 0 is probability 1/2: off by 1/2 from every outcome.
        let logit = Constant { score: 0.0, scale: ScoreScale::LogOdds, rating: None };
        assert_eq!(measure(&logit, |i| probability_mae_of(i, true)), Some(0.5));
        assert_eq!(measure(&logit, |i| probability_mae_of(i, false)), Some(0.5));
        // A count of 1 out of 4 is 1/4: the two positives miss by 3/4, the negative by 1/4.
        let count = Constant { score: 1.0, scale: ScoreScale::CountOutOf(4.0), rating: None };
        assert_eq!(measure(&count, |i| probability_mae_of(i, true)), Some(0.75));
        assert_eq!(measure(&count, |i| probability_mae_of(i, false)), Some(1.75 / 3.0));
        // A model that states no probability has no MAE of it.
        let rating = Constant { score: 4.2, scale: ScoreScale::Unstated, rating: None };
        assert_eq!(measure(&rating, |i| probability_mae_of(i, false)), None);
    }

    /// Counts 1, 3 and 0 out of 4 are probabilities 1/4, 3/4 and 0, mean 1/3; the outcomes
    /// are 0, 1 and 1.
    #[test]
    fn the_constant_at_the_mean_probability_has_its_own_mae() {
        let (split, judgments) = split_and_judgments();
        let model = Constant { score: 0.0, scale: ScoreScale::CountOutOf(4.0), rating: None };
        let scores = [1.0f32, 3.0, 0.0];
        let input =
            MeasureInput { model: &model, split: &split, judgments: &judgments, scores: &scores };
        let close = |got: Option<f64>, want: f64| {
            assert!(got.is_some_and(|g| (g - want).abs() < 1e-12), "{got:?} vs {want}")
        };
        close(constant_mae_of(&input, true).unwrap(), 2.0 / 3.0);
        close(constant_mae_of(&input, false).unwrap(), 5.0 / 9.0);
        // The model's own MAE differs: 1/4, 1/4 and 1 over every candidate.
        close(probability_mae_of(&input, false).unwrap(), 0.5);
        let rating = Constant { score: 0.0, scale: ScoreScale::Unstated, rating: None };
        let input = MeasureInput { model: &rating, ..input };
        assert_eq!(constant_mae_of(&input, false).unwrap(), None);
    }

    #[test]
    fn rating_mae_compares_predictions_with_the_test_ratings() {
        // Predicting 3 misses 2, 5 and 4 by 1, 2 and 1.
        let model = Constant { score: 0.0, scale: ScoreScale::Unstated, rating: Some(3.0) };
        assert_eq!(measure(&model, rating_mae_of), Some(4.0 / 3.0));
        let none = Constant { score: 0.0, scale: ScoreScale::Unstated, rating: None };
        assert_eq!(measure(&none, rating_mae_of), None);
    }
}
