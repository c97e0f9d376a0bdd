//! The post's points as claims F1–F5 under the verdict model, each with the numeric
//! meaning of its words fixed here, before any result is seen. Every comparison is a paired
//! difference over the splits both sides saw, with its 95% interval; differences within
//! [`NOISE`] are not differences.
//!
//! - "reasonably well when ordering a user's held-out ratings" (F1): the RMSE-trained
//!   factorization's held-out NDCG@10 is not below [`CLOSE`] × the best model's and above
//!   item popularity's and the user mean rating's (a random order); "failed completely
//!   when choosing from all the available items": its all-items NDCG@10 and NDCG@50 are
//!   below item popularity's;
//! - "RMSE doesn't tell a true story" (F2): a reversal between rating predictors
//!   ([`f2_reversal`]), which the post does not claim, the reading fixed before; and, named
//!   after it had failed (post hoc), the post's argument: the rating predictor with the
//!   lowest RMSE ranks all items below the model that ranks them best ([`f2`]);
//! - "Normally ... the quality of recommendations should improve" (F3): NDCG@50 at the last L
//!   of every range of L is above NDCG@50 at L = 1 over the same users, those with a
//!   target at every L of the range, read for every personalised model ([`f3_fixed`]) and,
//!   post hoc, for most of them ([`f3_typical`]); the post fixes neither reading ([`open`]);
//! - "at some point the curves intersect" (F4): some pair of curves swaps order for good
//!   ([`super::curves::crossover`] on the means): the order at L = 1 holds there and the
//!   opposite order at every L from the crossover to the last;
//! - "people might say that matrix factorization models are unable to provide
//!   recommendations for new users. This is not quite true" (F5): each model of [`FOLDED`]
//!   (folded in by least squares) reaches at least [`FRACTION`] of its
//!   weak-generalization NDCG@50 under strong generalization.
//!
//! F2's reversal, F3's "most models" and F4 claim that *some* pair or set does something.
//! Such a claim is judged on its witness ([`witness`]): the first candidate whose verdict is
//! the best of all, so it holds when some candidate holds and fails only when every one
//! fails; every pair's verdict is listed in `measured`.
//!
//! Every reading records the choices it rests on ([`choices`]), each with who fixed it: the
//! post's words, its code (`zygmuntz/evaluating-recommenders`: `validate.py`,
//! `relevances.py`), or us. The code fixes the NDCG (gain = rating − 3, the ideal DCG from
//! the ratings above 3, a zero lower bound), the range of L and the 10-user minimum of a
//! point of the curve; everything else is ours: the thresholds [`CLOSE`] and [`FRACTION`],
//! the cut-off 10, the fixed populations of F3, what each claim compares, the models'
//! fits. No reading rests on the code and the text alone, so none is the paper's
//! ([`Reading::primary_if_fixed`] tags none); each claim's verdict is its readings' common
//! verdict, or "depends on reading". The earlier gain = rating is a reading beside each
//! ([`with_readings`]).
//!
//! Two readings were written after the results of the others were known, and are post hoc
//! (shown, never deciding): F2's lowest RMSE against the best ranking (the rules before it
//! tested only the reversal, which had failed) and F3's "most personalised models" (the
//! universal reading had failed on one model).
//!
//! Item popularity, which ranks by popularity alone and ignores a user's history, is the
//! placebo of F3 (more ratings cannot improve it) and F5 (there is nothing to fold in): it
//! runs through the same tests, and when it passes them the reading is untestable.

use std::collections::BTreeMap;

use recs_bench::report::{Choice, Claim, End, Placebo, Quote, Reading, Rule, Sensitivity, Test};
use recs_bench::verdict::{Effect, Verdict};

use super::curves::{Draws, crossover, curve, curve_mean, means};

/// The share of the best held-out NDCG@10 that is still "close to the best" (F1).
pub(crate) const CLOSE: f64 = 0.95;
/// The share of the weak-generalization NDCG@50 that fold-in must reach (F5).
pub(crate) const FRACTION: f64 = 0.9;
/// The tolerance of the strict comparisons (F1's "below", F2, F3, F4): a thousandth of
/// NDCG or RMSE, the last decimal the page reads these measures to, so smaller differences
/// are not read as differences.
pub(crate) const NOISE: f64 = 0.001;

/// Model labels, as in the experiment files.
pub(crate) const ALS: &str = "ALS (RMSE)";
pub(crate) const POPULARITY: &str = "item popularity";
pub(crate) const IALS: &str = "implicit ALS";
pub(crate) const USER_MEAN: &str = "user mean rating";
/// Models that give every candidate of a user one score: their ranking is a random order
/// (expected value under ties), so a comparison of their ranking is decided by that
/// construction, not by what they predict (F2).
pub(crate) const ONE_SCORE_PER_USER: [&str; 1] = [USER_MEAN];
/// Models shown beside the others but not among F2's rating predictors (item kNN ranked
/// by the numerator of its prediction, not by the prediction).
pub(crate) const NOT_RATING_RANKERS: [&str; 1] = ["item kNN (numerator)"];
/// The models folded in by a regularised least-squares solve (F5).
pub(crate) const FOLDED: [&str; 2] = [ALS, IALS];
/// ALS (RMSE) with a plain L2 penalty, λ = 10: the other end of ALS's regularisation (F1,
/// and F2's set of rating predictors), named after a referee's run had shown it beating
/// item popularity on all items.
pub(crate) const ALS_PLAIN: &str = "ALS (RMSE), plain L2 λ = 10";
/// [`ALS_PLAIN`] as the end of a choice, in words.
const PLAIN_END: &str = "ALS with a plain L2 penalty, λ = 10 (not weighted by the number of \
                         ratings; named after a referee's run)";
/// ALS (RMSE) folded in from the history's item ids alone, as the post's code gives a
/// recommender its history (F3).
pub(crate) const ALS_IDS: &str = "ALS (RMSE), folded in from ids";
/// Models run only as the end of a choice or as another reading: never among the models a
/// claim's own sets (the best model, the rating predictors, every personalised model) count.
pub(crate) const KNOB_ONLY: [&str; 2] = [ALS_PLAIN, ALS_IDS];

/// The choices the readings rest on, each with who fixed it: the post's words (quoted from
/// `seeds/fastml2015-evaluating-recommenders.txt`, by the post's section headings), its
/// code (`zygmuntz/evaluating-recommenders` at 38e4e0d, by file and line) or ours, and why.
pub(crate) mod choices {
    /// The name of F2's set of rating predictors (a knob run with a plain-L2 ALS too).
    pub(crate) const RATING_PREDICTORS: &str = "rating predictors";
    /// The name of ALS (RMSE)'s fit (a knob run at a plain L2 penalty too).
    pub(crate) const ALS_FIT: &str = "ALS (RMSE)'s fit";
    use recs_bench::report::{Choice, ChoiceKind};

    use super::{CLOSE, FRACTION};

    /// The NDCG of the post's code: gain = rating − 3, the ideal DCG from the ratings
    /// above 3, zero as the worst DCG.
    pub(crate) fn post_ndcg() -> Vec<Choice> {
        vec![
            Choice::code(
                ChoiceKind::Comparison,
                "NDCG's gain",
                "rating − 3 (`relevance_bias = 3.0`; one- and two-star movies count \
                 negatively), a movie the user did not rate 0 (relevances.py:4-10)",
                "validate.py",
                46,
            ),
            Choice::code(
                ChoiceKind::Comparison,
                "NDCG's ideal DCG",
                "from the user's test ratings above 3 (gain rating − 3), padded with zeros to K",
                "relevances.py",
                18,
            ),
            Choice::code(
                ChoiceKind::Comparison,
                "NDCG's lower bound",
                "zero: `worst_relevances = None`, so the worst DCG is taken as 0",
                "validate.py",
                89,
            ),
        ]
    }

    /// The earlier reading's NDCG: gain = rating.
    pub(crate) fn gain_rating() -> Vec<Choice> {
        vec![Choice::ours(
            ChoiceKind::Comparison,
            "NDCG's gain",
            "the rating (1 to 5), a movie the user did not rate 0; the ideal DCG from the \
             user's test ratings",
            "the first reading, fixed before the post's code was read: the text calls the \
             gain 'a relevance score, usually a non-negative number'",
        )]
    }

    /// The name of the choice of how far L runs.
    const L_RANGE: &str = "range of L";

    /// The post's code: L runs from 1 to 199, while the user has a rating left to test.
    pub(crate) fn post_l_range() -> Choice {
        Choice::code(
            ChoiceKind::Protocol,
            L_RANGE,
            "L = 1 up to 199 (`range(1, min(200, n))`), while the user has a rating left to \
             test",
            "validate.py",
            71,
        )
    }

    /// The earlier reading: L = 1..50.
    pub(crate) fn l_up_to_50() -> Choice {
        Choice::ours(
            ChoiceKind::Protocol,
            L_RANGE,
            "L = 1..50",
            "the first reading, before the post's code was read; the post's plot runs to \
             about 200",
        )
    }

    /// The post's code: a point of the curve needs at least 10 users.
    pub(crate) fn min_users() -> Choice {
        Choice::code(
            ChoiceKind::Population,
            "points of the curve",
            "a point averaged over fewer than 10 users is dropped (`min_users = 10`)",
            "validate.py",
            165,
        )
    }

    /// The post's code: each point of the curve is the mean over the users that still have
    /// a rating to test at that L.
    pub(crate) fn users_left() -> Choice {
        Choice::code(
            ChoiceKind::Population,
            "users at each L",
            "the users with a rating left to test at that L (a set that shrinks as L grows)",
            "validate.py",
            95,
        )
    }

    /// ALS (RMSE)'s fit: its size and regularisation.
    pub(crate) fn als_fit() -> Choice {
        Choice::ours(
            ChoiceKind::ModelFit,
            ALS_FIT,
            "10 factors, no bias terms; λ = 0.1 scaled by each user's and each item's number \
             of ratings (the count-weighted λ of ALS-WR, Zhou et al. 2008)",
            "the post names matrix factorization optimised for RMSE, but no solver for it \
             (ALS appears only in 'Handling new users', as a way to fold new users in), nor \
             its size or its regularisation ('Maybe some regularization would help'); the \
             count-weighted λ is our solver's default for explicit ALS; fixed in the \
             experiment files and not compared on a test protocol. F1 is also run with a \
             plain L2 penalty, λ = 10, named after a referee's run had shown it beating item \
             popularity on all items: an end named after a result can only weaken a verdict",
        )
    }

    /// Implicit ALS's fit: its confidence slope α.
    pub(crate) fn ials_fit() -> Choice {
        Choice::ours(
            ChoiceKind::ModelFit,
            "implicit ALS's fit",
            "20 factors, λ = 0.1; α chosen by validation inside the training data of the \
             all-items run from {1, 5, 40} (α = 1 on every split), then used everywhere",
            "the post names no implicit model; the validation sees no test data, but the grid \
             {1, 5, 40} is the one an earlier version compared on the test protocol after F3 \
             had failed at α = 40 (the page says so)",
        )
    }

    /// The holdout of `rmse-vs-ranking`.
    pub(crate) fn holdout() -> Choice {
        Choice::ours(
            ChoiceKind::Protocol,
            "held-out ratings",
            "20% of each user's ratings at random, 5 independent draws",
            "the post does not say how its held-out ratings were drawn",
        )
    }

    /// F1's two tasks, in the post's words.
    pub(crate) fn f1_candidates() -> Choice {
        Choice::text(
            ChoiceKind::Protocol,
            "candidates",
            "each user's held-out rated movies (\"ordering a user's held-out ratings\"), and \
             every movie not in the user's training data (\"all the available items\")",
            "Recommendation as ranking",
            "For us, matrix factorization optimized for RMSE did reasonably well when ordering \
             a user's held-out ratings, but failed completely when choosing recommendations \
             from all the available items.",
        )
    }

    /// F2's candidates: every item outside the training data.
    pub(crate) fn all_items() -> Choice {
        Choice::text(
            ChoiceKind::Protocol,
            "candidates",
            "every movie not in the user's training data",
            "Ranking metrics: NDCG",
            "It is important to note that for our experiments the test set consists of all \
             items outside the train, including those not ranked by the user",
        )
    }

    /// The cut-off of F1 and F2.
    pub(crate) fn cut_off_10(also_50: bool) -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            "NDCG's cut-off",
            if also_50 {
                "K = 10 on the held-out ratings; K = 10 and 50 on all items"
            } else {
                "K = 10"
            },
            "the post: 'values like 10 or 50 are common'; its code and curves use 50 \
             (validate.py:48), its RMSE discussion no K",
        )
    }

    /// F1's threshold: "close to the best".
    pub(crate) fn close() -> Choice {
        Choice::ours(
            ChoiceKind::Threshold,
            "close to the best",
            format!("{CLOSE} × the best model's held-out NDCG@10"),
            "'did reasonably well' gives no number; fixed with the claims, before the results",
        )
    }

    /// F1: what "reasonably well" and "failed completely" are compared with.
    pub(crate) fn f1_comparison() -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            "what F1 compares",
            "held-out NDCG@10 against the best model's, item popularity's and the user mean \
             rating's (a random order of a user's held-out movies); all-items NDCG@10 and \
             NDCG@50 against item popularity's",
            "the post names no baseline; item popularity is the order that ignores the user, \
             the user mean rating a random one. The two held-out baselines were added after \
             the first full run (the first rule alone was met by item popularity too); they \
             can only make the reading fail, never hold",
        )
    }

    /// The rating predictors F2 compares.
    pub(crate) fn rating_predictors() -> Choice {
        Choice::ours(
            ChoiceKind::Population,
            RATING_PREDICTORS,
            "the models with an RMSE, each ranked by its predicted rating (item kNN ranked by \
             its numerator left out); pairs with the user mean rating, which gives every \
             candidate of a user one score (a random ranking), not judged",
            "a ranking that is not the predicted rating says nothing about that rating's RMSE. \
             Named when an earlier run's reversal had held through item kNN's numerator \
             ranking and the user mean pair; the change can only remove pairs, never make the \
             reversal hold. The models are those run for F1, not chosen for F2; the reversal \
             is also judged with ALS at a plain L2 penalty among them, named after a referee's \
             run had found the reversal there: an end that can only weaken a verdict",
        )
    }

    /// The name of F2's comparison.
    const F2_COMPARES: &str = "what RMSE failing to tell is";

    /// F2's first reading: a reversal between rating predictors.
    pub(crate) fn reversal() -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            F2_COMPARES,
            "a reversal: some pair of rating predictors in which the lower RMSE goes with the \
             lower all-items NDCG@10",
            "the first reading of 'RMSE doesn't tell a true story', fixed with the claims; the \
             post does not claim a reversal",
        )
    }

    /// F2's second reading, named after the reversal had failed.
    pub(crate) fn lowest_rmse() -> Choice {
        Choice::post_hoc(
            ChoiceKind::Comparison,
            F2_COMPARES,
            "the rating predictor with the lowest RMSE against the model (of any kind) with the \
             best all-items NDCG@10",
            "the post's argument: the model RMSE rates best fails at choosing from all items",
            "the reversal between rating predictors had failed under both gains",
        )
    }

    /// The protocol of F3 and F4, in the post's words.
    pub(crate) fn given_l() -> Choice {
        Choice::text(
            ChoiceKind::Protocol,
            "a new user's history",
            "the first L of the user's ratings in a random order are given, the rest are its \
             targets, for L = 1, 2, …",
            "The more, the better",
            "we repeatedly compute recommendations and NDCG for a given user with one rating in \
             train and the rest in test, with two ratings in train and the rest in test, and \
             so on, up to a number (which we'll call L) or until there are no more ratings in \
             test",
        )
    }

    /// The measure of the curves, in the post's words.
    pub(crate) fn curve_measure() -> Choice {
        Choice::text(
            ChoiceKind::Comparison,
            "the curve's measure",
            "mean NDCG@50 across users at each L",
            "The more, the better",
            "On the X axis, the number of ratings in train (L). On the Y axis, mean NDCG@50 \
             across users.",
        )
    }

    /// What a new user's model receives: the history's ratings, not its ids.
    pub(crate) fn history_ratings() -> Choice {
        Choice::ours(
            ChoiceKind::Protocol,
            "what the model receives",
            "the history's ratings (ALS solves from them, implicit ALS takes them as \
             confidences, item kNN and PureSVD weigh by them)",
            "a stated departure: the post's code gives the recommender the history's item ids \
             only (validate.py:78), and the runner offers no binary history in this protocol",
        )
    }

    /// What the models receive when ALS is folded in from ids alone (F3's first reading).
    pub(crate) fn history_ids_for_als() -> Choice {
        Choice::ours(
            ChoiceKind::Protocol,
            "what the model receives",
            "ALS (RMSE): the history's item ids only, every value read as 1 (as the post's \
             code gives a recommender its history, validate.py:78); the other models: the \
             history's ratings",
            "the post's code passes item ids only; ALS, whose fold-in is a least-squares solve \
             on the values it is given, is run that way, the others still weigh by the \
             ratings (a departure for them)",
        )
    }

    /// F5's second reading, named after a referee's run.
    pub(crate) fn above_popularity() -> Choice {
        Choice::post_hoc(
            ChoiceKind::Comparison,
            "what working fold-in shows",
            "each folded-in model ranks above item popularity, which ignores the history, \
             under strong generalization",
            "a test a model that ignores the history cannot pass, where the 90% rule can",
            "a referee had run it, after item popularity had passed the 90% rule",
        )
    }

    /// F6's reading, named after the curves had been seen.
    pub(crate) fn hope() -> Choice {
        Choice::post_hoc(
            ChoiceKind::Comparison,
            "what \"there is hope\" means",
            "a folded-in model ranks above item popularity at some L below its number of \
             factors",
            "the post gives no measure; item popularity is what a new user gets without \
             fold-in",
            "the curves, which show PureSVD and implicit ALS overtaking item popularity at L = \
             3 and 4, had been seen, and a referee had pointed the claim out",
        )
    }

    /// The test users of the curves.
    pub(crate) fn test_users() -> Choice {
        Choice::ours(
            ChoiceKind::Population,
            "test users",
            "300 users of MovieLens 100K drawn and kept out of training per repetition",
            "the post's curve uses 'roughly 1000 users', every user of its file; MovieLens 100K \
             has 943",
        )
    }

    /// F3's fixed populations.
    pub(crate) fn fixed_populations() -> Choice {
        Choice::ours(
            ChoiceKind::Population,
            "users compared",
            "fixed sets: every test user up to the L every user reaches, and the users with \
             more than 50 and more than 199 ratings up to L = 50 and 199, each over the users \
             with a target at every L of its range",
            "the post's mean at each L is over the users still present, a set that shrinks \
             with L; comparing L = 1 with the last L over the same users separates the change \
             of L from the change of users",
        )
    }

    /// The name of F3's choice of models.
    const F3_MODELS: &str = "which models must rise";

    /// F3's first reading: every personalised model.
    pub(crate) fn every_model() -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            F3_MODELS,
            "every model but item popularity",
            "'a recommender will perform better' read for each recommender run; fixed with the \
             claims",
        )
    }

    /// F3's second reading, named after the first had failed.
    pub(crate) fn most_models() -> Choice {
        Choice::post_hoc(
            ChoiceKind::Comparison,
            F3_MODELS,
            "more than half of the models but item popularity",
            "'Normally' read as most recommenders",
            "the reading for every personalised model had failed on ALS (RMSE)",
        )
    }

    /// F3: what "improve" is.
    pub(crate) fn rise() -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            "what improving is",
            "NDCG@50 at the last L of the range above NDCG@50 at L = 1",
            "the post gives no test; the two ends of the range are the largest change of L; \
             fixed with the claims",
        )
    }

    /// F4: what a crossing is.
    pub(crate) fn swap() -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            "what crossing is",
            "some pair of the models run swaps order for good: the order at L = 1, and the \
             opposite order at every L from the crossover of the means to the last",
            "'after acquiring more feedback than the threshold, we switch to the other' read \
             as a lasting swap; the post's two curves are unnamed, so any pair of ours counts; \
             fixed with the claims",
        )
    }

    /// Who a curve's points come from: test users drawn and kept out of training, folded
    /// in from their history's ratings.
    pub(crate) fn fold_in_from_test_users() -> [Choice; 2] {
        [history_ratings(), test_users()]
    }

    /// F4's rule on fresh draws: fixed ranges of L, whose expected gap is not zero where
    /// the curves cross between them.
    pub(crate) fn fresh_swap(window: (f64, f64)) -> Choice {
        Choice::ours(
            ChoiceKind::Comparison,
            "what crossing is",
            format!(
                "some pair of the models run swaps order between two fixed ranges of L: one \
                 model ahead at L = 1, the other ahead on average over L = {}..{}",
                window.0, window.1
            ),
            "the rule that tests the order at the crossover L itself, where the expected gap \
             is zero, was seen on `more-is-better`'s five draws to be decided by the draw; \
             this rule, written then and before the fresh draws were run, tests two ranges \
             fixed in advance, whose expected gap is away from zero whenever two curves cross \
             between them; the range ends where every test user still has a target, so the \
             users are the same at every L of it",
        )
    }

    /// The draws F4's rule on fixed ranges is judged on.
    pub(crate) fn fresh_draws(repetitions: usize) -> Choice {
        Choice::ours(
            ChoiceKind::Population,
            "draws of the test users",
            format!(
                "{repetitions} new draws of 300 test users (`more-is-better-fresh`, a seed \
                 stream of its own), none of them seen when the rule was written"
            ),
            "a rule written after results judges only draws it was not written on; twenty, so \
             that simultaneous intervals over every pair of models can clear the tolerance",
        )
    }

    /// Simultaneous intervals over `pairs` (of models).
    pub(crate) fn simultaneous(pairs: &str) -> Choice {
        Choice::ours(
            ChoiceKind::Threshold,
            "confidence over the pairs",
            format!("simultaneous 95% over {pairs} (Bonferroni)"),
            "the claim holds when some pair swaps, and the pair shown is the one the results \
             pick: each pair's intervals are at 1 − 0.05 / pairs, so that a pair that does not \
             swap is declared swapped with probability at most 5% over the whole family",
        )
    }

    /// F5's protocol, in the post's words.
    pub(crate) fn weak_strong() -> Choice {
        Choice::text(
            ChoiceKind::Protocol,
            "weak and strong generalization",
            "the same folds of users and targets; a test user's 10 given ratings are training \
             data (weak) or the history it is folded in from (strong)",
            "Weak and strong generalization",
            "In case of weak generalization, each user is in the training set. We take some \
             ratings for training and leave the rest for testing. When assessing strong \
             generalization, a user is either in train or test.",
        )
    }

    /// F5's fold-in, in the post's words.
    pub(crate) fn fold_in() -> Choice {
        Choice::text(
            ChoiceKind::ModelFit,
            "fold-in",
            "a new user's factors from one regularised least-squares solve against the fixed \
             item factors (ALS (RMSE), implicit ALS)",
            "Handling new users",
            "we can take item factors and solve a system of linear equations to estimate user \
             factors. This amounts to fitting a linear regression model.",
        )
    }

    /// F5: what "not unable" is compared with.
    pub(crate) fn fraction() -> Choice {
        Choice::ours(
            ChoiceKind::Threshold,
            "share of the weak NDCG@50",
            format!("strong-generalization NDCG@50 not below {FRACTION} × the weak one"),
            "the post names no number, only that a new user's factors can be fitted; NDCG@50 \
             is its code's measure (validate.py:48); fixed with the claims",
        )
    }
}

/// One run's values as the claims read them: each model's values of each report key, one
/// per split in split order (`NaN` where undefined). Two runs that drew the same splits
/// pair up index by index.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Splits {
    /// Whether the splits are independent draws (one split per repetition) rather than
    /// the folds of one draw, whose interval is too narrow.
    pub(crate) independent: bool,
    labels: Vec<String>,
    values: BTreeMap<(String, String), Vec<f64>>,
}

impl Splits {
    /// No values yet; the splits are independent draws or folds of one.
    pub(crate) fn new(independent: bool) -> Splits {
        Splits { independent, ..Splits::default() }
    }

    /// Adds `label`'s values of `key` (a new label goes after the others).
    pub(crate) fn insert(&mut self, label: &str, key: &str, values: Vec<f64>) {
        if !self.labels.iter().any(|l| l == label) {
            self.labels.push(label.to_string());
        }
        self.values.insert((label.to_string(), key.to_string()), values);
    }

    /// The model labels, in the order they were added (file order), without the models
    /// run only as a choice's end ([`KNOB_ONLY`]).
    pub(crate) fn labels(&self) -> Vec<&String> {
        self.labels.iter().filter(|l| !KNOB_ONLY.contains(&l.as_str())).collect()
    }

    /// Whether `label` ran.
    pub(crate) fn has(&self, label: &str) -> bool {
        self.labels.iter().any(|l| l == label)
    }

    fn values(&self, label: &str, key: &str) -> Option<&[f64]> {
        self.values.get(&(label.to_string(), key.to_string())).map(Vec::as_slice)
    }

    /// The mean of `label`'s defined values of `key`; `None` when none is defined.
    pub(crate) fn mean(&self, label: &str, key: &str) -> Option<f64> {
        let defined: Vec<f64> =
            self.values(label, key)?.iter().copied().filter(|v| !v.is_nan()).collect();
        (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64)
    }

    /// `a − b` of `key`, paired split by split ([`paired`]).
    fn difference(&self, a: &str, b: &str, key: &str) -> Effect {
        paired(self.values(a, key), self.values(b, key), 1.0, self.independent)
    }

    /// [`Splits::difference`] as one of `family` simultaneous intervals
    /// ([`Effect::mean_of_simultaneous`]) when the splits are independent draws; folds of
    /// one split keep their plain interval (a family over them would still not hold the
    /// partition's variation).
    fn difference_among(&self, a: &str, b: &str, key: &str, family: usize) -> Effect {
        if self.independent {
            paired_among(self.values(a, key), self.values(b, key), family)
        } else {
            self.difference(a, b, key)
        }
    }

    /// How the splits stand behind an interval, for `measured`.
    fn kind(&self) -> String {
        let n = self.values.values().next().map_or(0, Vec::len);
        match (n, self.independent) {
            (1, _) => "one split, so no interval".into(),
            (n, true) => format!("{n} independent draws of the split"),
            (n, false) => format!("{n} folds of one split, not independent"),
        }
    }
}

/// A reading run at the `ends` of the choice `knob`, when there are any (a model that did
/// not run gives none).
trait WithEnds {
    fn with_ends(self, knob: &str, ends: Vec<End>) -> Self;
}

impl WithEnds for Reading {
    fn with_ends(self, knob: &str, ends: Vec<End>) -> Reading {
        if ends.is_empty() { self } else { self.with_sensitivity(Sensitivity::knob(knob, ends)) }
    }
}

/// `a − factor × b`, paired index by index, over splits that are `independent` draws or
/// not; undefined (inconclusive) when a side is missing or the sides differ in length.
fn paired(a: Option<&[f64]>, b: Option<&[f64]>, factor: f64, independent: bool) -> Effect {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => {
            let scaled: Vec<f64> = b.iter().map(|v| factor * v).collect();
            Effect::paired(a, &scaled, independent, false)
        }
        _ => Effect::mean_of(&[], independent, false),
    }
}

/// The number of pairs among `n` models, at least 1: the size of a family over every pair.
fn pairs_of(n: usize) -> usize {
    (n * n.saturating_sub(1) / 2).max(1)
}

/// `a − b`, paired index by index over independent draws, as one of `family` simultaneous
/// intervals ([`Effect::mean_of_simultaneous`]); undefined (inconclusive) when a side is
/// missing or the sides differ in length.
fn paired_among(a: Option<&[f64]>, b: Option<&[f64]>, family: usize) -> Effect {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => {
            let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
            Effect::mean_of_simultaneous(&d, family)
        }
        _ => Effect::mean_of(&[], true, false),
    }
}

/// A test that stands for something absent (a model, a curve): nothing was measured, so it
/// is inconclusive.
fn nothing(subject: String) -> Test {
    Test::new(subject, Rule::above(NOISE), Effect::mean_of(&[], true, false))
}

/// The witness of a claim that some candidate holds: the first candidate whose verdict
/// (all of its tests) is the best of all — holds, then inconclusive, then fails — so the
/// witness holds when some candidate holds and fails only when every one fails. Returns
/// it with every candidate's verdict in words.
fn witness(candidates: Vec<(String, Vec<Test>)>) -> (Option<(String, Vec<Test>)>, String) {
    let verdict = |tests: &[Test]| Verdict::all(tests.iter().map(|t| t.verdict));
    let rank = |tests: &[Test]| match verdict(tests) {
        Verdict::Holds => 0,
        Verdict::Inconclusive => 1,
        Verdict::Fails => 2,
        _ => 3,
    };
    let each: Vec<String> =
        candidates.iter().map(|(name, tests)| format!("{name} {}", verdict(tests))).collect();
    (candidates.into_iter().min_by_key(|(_, tests)| rank(tests)), each.join(", "))
}

fn text(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.4}"))
}

/// F1 from the two runs of `rmse-vs-ranking` (same splits).
/// F1's tests with `als` as the RMSE-trained factorization (ALS at the reading's fit, or
/// at an end of it): held-out NDCG@10 close to the best model's and above item
/// popularity's and a random order's; all-items NDCG@10 and @50 below item popularity's.
fn f1_tests(held_out: &Splits, all_items: &Splits, als: &str) -> (Vec<Test>, Vec<String>) {
    let best = best_by_mean(held_out, "ndcg@10");
    let close = match best {
        Some((_, label)) => Test::new(
            format!("held-out NDCG@10: {als} − {CLOSE} × {label} (the best by mean)"),
            Rule::not_below(0.0),
            paired(
                held_out.values(als, "ndcg@10"),
                held_out.values(label, "ndcg@10"),
                CLOSE,
                held_out.independent,
            ),
        ),
        None => nothing("held-out NDCG@10: no model".into()),
    };
    let mut tests = vec![close];
    // "Reasonably well" is more than close to the best: better than the non-personalised
    // order (item popularity) and than a random order (the user mean rating gives every
    // held-out movie of a user one score).
    for other in [POPULARITY, USER_MEAN] {
        if held_out.values(other, "ndcg@10").is_some() {
            tests.push(Test::new(
                format!("held-out NDCG@10: {als} − {other}"),
                Rule::above(NOISE),
                held_out.difference(als, other, "ndcg@10"),
            ));
        }
    }
    let mut parts = Vec::new();
    for key in ["ndcg@10", "ndcg@50"] {
        let name = key.to_uppercase();
        tests.push(Test::new(
            format!("all-items {name}: {als} − {POPULARITY}"),
            Rule::below(NOISE),
            all_items.difference(als, POPULARITY, key),
        ));
        parts.push(format!(
            "{name} {} vs {}",
            text(all_items.mean(als, key)),
            text(all_items.mean(POPULARITY, key))
        ));
    }
    (tests, parts)
}

/// The model with the best mean of `key` in `splits` (models run only as a choice's end
/// left out), with that mean.
fn best_by_mean<'a>(splits: &'a Splits, key: &str) -> Option<(f64, &'a str)> {
    splits.labels().into_iter().filter_map(|l| Some((splits.mean(l, key)?, l.as_str()))).fold(
        None,
        |a: Option<(f64, &str)>, b| match a {
            Some(a) if a.0 >= b.0 => Some(a),
            _ => Some(b),
        },
    )
}

pub(crate) fn f1(held_out: &Splits, all_items: &Splits) -> Claim {
    let best = best_by_mean(held_out, "ndcg@10");
    let als_held = held_out.mean(ALS, "ndcg@10");
    let (tests, parts) = f1_tests(held_out, all_items, ALS);
    // ALS's regularisation at its other end, when it ran: a plain L2 penalty.
    let plain_end: Vec<End> = (held_out.has(ALS_PLAIN) && all_items.has(ALS_PLAIN))
        .then(|| End::new(PLAIN_END, f1_tests(held_out, all_items, ALS_PLAIN).0))
        .into_iter()
        .collect();
    let ratio = match (als_held, best) {
        (Some(a), Some((b, _))) if b > 0.0 => format!("{:.3}", a / b),
        _ => "-".into(),
    };
    Claim::new(
        "F1",
        "The RMSE-trained factorization orders held-out ratings close to the best model but \
         chooses from all items worse than item popularity",
        Quote {
            section: "Recommendation as ranking".into(),
            words: "For us, matrix factorization optimized for RMSE did reasonably well when \
                    ordering a user's held-out ratings, but failed completely when choosing \
                    recommendations from all the available items."
                .into(),
        },
        format!(
            "held-out only, NDCG@10: {ALS} {}, best {} {} (ratio {ratio}, needs ≥ {CLOSE}), \
             {POPULARITY} {}, {USER_MEAN} {}; all items, {ALS} vs {POPULARITY}: {}; over {}",
            text(als_held),
            best.map_or("-", |b| b.1),
            text(best.map(|b| b.0)),
            text(held_out.mean(POPULARITY, "ndcg@10")),
            text(held_out.mean(USER_MEAN, "ndcg@10")),
            parts.join(", "),
            held_out.kind()
        ),
        vec![
            Reading::new(
                format!(
                    "held-out NDCG@10 not below {CLOSE} × the best model's and above \
                     {POPULARITY}'s and the {USER_MEAN}'s (a random order); all-items NDCG@10 \
                     and NDCG@50 below {POPULARITY}'s"
                ),
                tests,
            )
            .with_choices([
                choices::f1_candidates(),
                choices::holdout(),
                choices::cut_off_10(true),
                choices::f1_comparison(),
                choices::close(),
                choices::als_fit(),
            ])
            .with_ends(choices::ALS_FIT, plain_end),
        ],
    )
    .without_placebo(
        "the reading already compares ALS (RMSE) with the user mean rating, which orders a \
         user's held-out movies at random by construction, and with item popularity, which \
         ignores the user",
    )
}

/// The rating predictors of `held_out` (models with an RMSE, item kNN ranked by its
/// numerator left out): label, mean RMSE and mean all-items NDCG@10.
fn rating_predictors<'a>(
    held_out: &'a Splits,
    all_items: &Splits,
) -> Vec<(&'a str, f64, Option<f64>)> {
    held_out
        .labels()
        .iter()
        .filter(|l| !NOT_RATING_RANKERS.contains(&l.as_str()))
        .filter_map(|l| Some((l.as_str(), held_out.mean(l, "rmse")?, all_items.mean(l, "ndcg@10"))))
        .collect()
}

/// The rating predictors with their RMSE and all-items NDCG@10, for `measured`.
fn predictor_table(rated: &[(&str, f64, Option<f64>)]) -> String {
    let rows: Vec<String> = rated
        .iter()
        .map(|(l, rmse, ndcg)| format!("{l} RMSE {rmse:.4}, NDCG@10 {}", text(*ndcg)))
        .collect();
    rows.join("; ")
}

/// The words of F2, whatever the reading.
fn f2_claim(measured: String, reading: Reading) -> Claim {
    Claim::new(
        "F2",
        "RMSE does not tell which model ranks all items best",
        Quote {
            section: "Recommendation as ranking".into(),
            words: "There's only a small step from measuring results with RMSE to optimizing \
                    RMSE. In our (very limited) experiments, we found RMSE a poor loss function \
                    for ranking. [...] In other words, RMSE doesn't tell a true story, and we \
                    need metrics specifically crafted for ranking."
                .into(),
        },
        measured,
        vec![reading.with_choices([
            choices::all_items(),
            choices::holdout(),
            choices::cut_off_10(false),
            choices::rating_predictors(),
            choices::als_fit(),
        ])],
    )
    .without_placebo(
        "the claim is about the measure RMSE, not a signal a model carries; the user mean \
         rating, a random ranking by construction, is left out of the pairs",
    )
}

/// F2 as the post argues it: the model RMSE rates best (the lowest RMSE among the rating
/// predictors) chooses from all items worse than the model that does so best, which need
/// not predict ratings at all (item popularity, the models that rank).
pub(crate) fn f2(held_out: &Splits, all_items: &Splits) -> Claim {
    let rated = rating_predictors(held_out, all_items);
    let lowest = rated.iter().fold(None, |a: Option<&(&str, f64, Option<f64>)>, b| match a {
        Some(a) if a.1 <= b.1 => Some(a),
        _ => Some(b),
    });
    let best = all_items
        .labels()
        .iter()
        .filter_map(|l| Some((all_items.mean(l, "ndcg@10")?, l.as_str())))
        .fold(None, |a: Option<(f64, &str)>, b| match a {
            Some(a) if a.0 >= b.0 => Some(a),
            _ => Some(b),
        });
    let test = match (lowest, best) {
        (Some(&(a, _, _)), Some((_, b))) => Test::new(
            format!("all-items NDCG@10: {a} (lowest RMSE) − {b} (best by mean)"),
            Rule::below(NOISE),
            all_items.difference(a, b, "ndcg@10"),
        ),
        _ => nothing("no rating predictor, or no all-items NDCG@10".into()),
    };
    let measured = format!(
        "lowest RMSE: {}; best all-items NDCG@10: {}; rating predictors: {}; over {}",
        lowest.map_or("-".into(), |l| format!("{} ({:.4})", l.0, l.1)),
        best.map_or("-".into(), |b| format!("{} ({:.4})", b.1, b.0)),
        predictor_table(&rated),
        held_out.kind()
    );
    f2_claim(
        measured,
        Reading::new(
            "the model with the lowest RMSE among the rating predictors has an all-items \
             NDCG@10 below the best model's (any model, rating predictor or not; when the \
             best is item popularity this is F1's all-items test again)",
            vec![test],
        )
        .with_choices([choices::lowest_rmse()]),
    )
}

/// F2 read as a reversal between rating predictors: some pair of rating predictors, each
/// ranked by its predicted rating, that RMSE and all-items NDCG@10 order differently.
/// Pairs with a model that gives every candidate of a user one score
/// ([`ONE_SCORE_PER_USER`], a random ranking) are not judged.
pub(crate) fn f2_reversal(held_out: &Splits, all_items: &Splits) -> Claim {
    let rated = rating_predictors(held_out, all_items);
    let (tests, each, by_construction) = reversal_tests(held_out, all_items, &rated);
    // The set of rating predictors at its other end: widened by ALS with a plain L2
    // penalty, when it ran.
    let mut widened = rated.clone();
    if let (Some(rmse), true) = (held_out.mean(ALS_PLAIN, "rmse"), all_items.has(ALS_PLAIN)) {
        widened.push((ALS_PLAIN, rmse, all_items.mean(ALS_PLAIN, "ndcg@10")));
    }
    let ends: Vec<End> = (widened.len() > rated.len())
        .then(|| End::new(WIDENED_END, reversal_tests(held_out, all_items, &widened).0))
        .into_iter()
        .collect();
    let measured = format!(
        "{}; pairs (lower RMSE first): {}; not judged (one score per user, a random \
         ranking): {}; over {}",
        predictor_table(&widened),
        if each.is_empty() { "none" } else { &each },
        if by_construction.is_empty() { "none".into() } else { by_construction.join(", ") },
        held_out.kind()
    );
    f2_claim(
        measured,
        Reading::new(
            "a reversal between rating predictors, which the post does not claim: some pair, \
             each ranked by its predicted rating and neither giving every candidate of a user \
             one score, has the lower RMSE and the lower all-items NDCG@10 (shown: the first \
             pair with the best verdict; intervals simultaneous over the pairs judged)",
            tests,
        )
        .with_choices([
            choices::reversal(),
            choices::simultaneous("every pair of rating predictors judged"),
        ])
        .with_ends(choices::RATING_PREDICTORS, ends),
    )
}

/// [`ALS_PLAIN`] added to the rating predictors, in words.
const WIDENED_END: &str = "the rating predictors and ALS with a plain L2 penalty, λ = 10 \
                           (named after a referee's run)";

/// The reversal tests of F2 over the rating predictors `rated` (label, RMSE, all-items
/// NDCG@10): the witness pair's tests, every pair's verdict in words, and the pairs not
/// judged (with a model giving every candidate of a user one score).
fn reversal_tests(
    held_out: &Splits,
    all_items: &Splits,
    rated: &[(&str, f64, Option<f64>)],
) -> (Vec<Test>, String, Vec<String>) {
    let judged = |x: &str, y: &str| ![x, y].iter().any(|l| ONE_SCORE_PER_USER.contains(l));
    // The claim holds when some pair is reversed, and the pair shown is the one the
    // results pick: each interval is one of a family over every pair judged.
    let family = rated
        .iter()
        .enumerate()
        .map(|(i, x)| rated[i + 1..].iter().filter(|y| judged(x.0, y.0)).count())
        .sum::<usize>()
        .max(1);
    let mut pairs = Vec::new();
    let mut by_construction = Vec::new();
    for (i, x) in rated.iter().enumerate() {
        for y in &rated[i + 1..] {
            if !judged(x.0, y.0) {
                by_construction.push(format!("{} / {}", x.0, y.0));
                continue;
            }
            // `a` has the lower mean RMSE; the pair is reversed when it ranks worse too.
            let (a, b) = if y.1 < x.1 { (y.0, x.0) } else { (x.0, y.0) };
            let tests = [("RMSE", held_out, "rmse"), ("all-items NDCG@10", all_items, "ndcg@10")]
                .map(|(name, run, key)| {
                    Test::new(
                        format!("{name}: {a} − {b}"),
                        Rule::below(NOISE),
                        run.difference_among(a, b, key, family),
                    )
                })
                .to_vec();
            pairs.push((format!("{a} / {b}"), tests));
        }
    }
    let (witness, each) = witness(pairs);
    let tests =
        witness.map_or_else(|| vec![nothing("no pair of rating predictors".into())], |w| w.1);
    (tests, each, by_construction)
}

/// The draw of every repetition at `l`, if the model has that L.
fn at(draws: &Draws, l: f64) -> Option<&[f64]> {
    draws.iter().find(|(x, _)| *x == l).map(|(_, v)| v.as_slice())
}

/// The test of F3 on one model's curve: NDCG@50 at its last L above NDCG@50 at its first,
/// and the two points in words.
fn rise_test(label: &str, draws: &Draws) -> (Test, String) {
    let c = curve(draws);
    let (Some(first), Some(last)) = (c.first(), c.last()) else {
        return (nothing(format!("NDCG@50: {label} has no values")), format!("{label}: no values"));
    };
    (
        Test::new(
            format!("NDCG@50 at L = {} − at L = {}, {label}", last.0, first.0),
            Rule::above(NOISE),
            paired(at(draws, last.0), at(draws, first.0), 1.0, true),
        ),
        format!("{label}: L=1 {}, L={} {}", first.1.text(), last.0, last.1.text()),
    )
}

/// F3: every personalised model's NDCG@50 rises from L = 1 to its last L, over the users
/// left at each L (the post's code's mean); item popularity through the same test is the
/// placebo.
pub(crate) fn f3(models: &[(String, Draws)]) -> Claim {
    let mut tests = Vec::new();
    let mut parts = Vec::new();
    for (label, draws) in models.iter().filter(|(l, _)| l != POPULARITY) {
        let (test, said) = rise_test(label, draws);
        tests.push(test);
        parts.push(said);
    }
    if tests.is_empty() {
        tests.push(nothing("NDCG@50: no personalised model".into()));
    }
    let placebo =
        models.iter().find(|(l, _)| l == POPULARITY).map(|(l, d)| vec![rise_test(l, d).0]);
    let repetitions = models.first().and_then(|(_, d)| d.first()).map_or(0, |(_, v)| v.len());
    f3_claim(
        parts.join("; "),
        repetitions,
        "NDCG@50 at the largest L above NDCG@50 at L = 1, for every model but item popularity"
            .into(),
        tests,
        [choices::users_left(), choices::every_model()],
        placebo,
    )
}

/// Why item popularity cannot carry F3's signal.
const F3_PLACEBO: &str = "it scores a movie by its popularity alone and ignores the ratings \
                          given, so more of them cannot improve its ranking";

/// F3 with its words: `parts` the measured numbers, over `repetitions` draws, judged by
/// `tests` under the reading `reading`, which rests on `own` and the choices every F3
/// reading shares; `placebo` is item popularity's tests, when it ran.
fn f3_claim(
    parts: String,
    repetitions: usize,
    reading: String,
    tests: Vec<Test>,
    own: impl IntoIterator<Item = Choice>,
    placebo: Option<Vec<Test>>,
) -> Claim {
    let mut reading = Reading::new(reading, tests).with_choices(
        [
            choices::given_l(),
            choices::curve_measure(),
            choices::history_ratings(),
            choices::test_users(),
            choices::rise(),
            choices::als_fit(),
            choices::ials_fit(),
        ]
        .into_iter()
        .chain(own),
    );
    if let Some(tests) = placebo.clone() {
        reading = reading.with_placebo(Placebo::new(POPULARITY, F3_PLACEBO, tests));
    }
    let claim = Claim::new(
        "F3",
        "NDCG@50 rises with the number L of a new user's ratings",
        Quote {
            section: "The more, the better".into(),
            words: "Normally a recommender will perform better with more information - ideally \
                    the quality of recommendations should improve as a system sees more ratings \
                    from a given user."
                .into(),
        },
        format!(
            "{parts}; means ± 95% half-widths over {repetitions} independent draws of the test \
             users, differences paired by draw"
        ),
        vec![reading],
    );
    match placebo {
        Some(_) => claim,
        None => claim.without_placebo("item popularity, the placebo, is not among the models run"),
    }
}

/// One range of L over a fixed set of users: those present (with a target) at every L of
/// the range, and each model's draws over them.
#[derive(Debug, Clone)]
pub(crate) struct Population {
    /// The users, in words (`users with more than 50 ratings`).
    pub(crate) users: String,
    /// The last L of the range (it starts at L = 1).
    pub(crate) last: f64,
    /// Each model's draws over these users, in file order.
    pub(crate) models: Vec<(String, Draws)>,
}

/// Each model's tests over fixed populations (NDCG@50 at the range's last L above NDCG@50
/// at L = 1 over the same users, one test per range) and their numbers in words, in file
/// order.
fn per_model(populations: &[Population]) -> Vec<(String, Vec<Test>, Vec<String>)> {
    let mut out: Vec<(String, Vec<Test>, Vec<String>)> = Vec::new();
    for population in populations {
        for (label, draws) in &population.models {
            let c = curve(draws);
            let first = c.iter().find(|p| p.0 == 1.0);
            let last = c.iter().find(|p| p.0 == population.last);
            let (test, said) = match (first, last) {
                (Some(f), Some(l)) => (
                    Test::new(
                        format!(
                            "NDCG@50 at L = {} − at L = 1, {label}, {}",
                            population.last, population.users
                        ),
                        Rule::above(NOISE),
                        paired(at(draws, population.last), at(draws, 1.0), 1.0, true),
                    ),
                    format!(
                        "{}: L=1 {}, L={} {}",
                        population.users,
                        f.1.text(),
                        population.last,
                        l.1.text()
                    ),
                ),
                _ => (
                    nothing(format!("NDCG@50: {label} has no values, {}", population.users)),
                    format!("{}: no values", population.users),
                ),
            };
            match out.iter_mut().find(|(l, _, _)| l == label) {
                Some(entry) => {
                    entry.1.push(test);
                    entry.2.push(said);
                }
                None => out.push((label.clone(), vec![test], vec![said])),
            }
        }
    }
    out
}

/// The personalised models' tests of [`per_model`] (item popularity, which ignores the
/// history, left out), and every model's verdict and numbers in words (popularity's as a
/// reference).
/// The personalised models of [`per_model`], with their tests, and item popularity's
/// tests (the placebo: it ignores the history), if it ran.
type Personalised = (Vec<(String, Vec<Test>)>, Option<Vec<Test>>);

fn personalised(populations: &[Population]) -> (Personalised, String) {
    let mut judged = Vec::new();
    let mut placebo = None;
    let mut parts = Vec::new();
    for (label, tests, said) in per_model(populations) {
        let verdict = Verdict::all(tests.iter().map(|t| t.verdict));
        if label == POPULARITY {
            parts.push(format!(
                "{label} (ignores the history; the placebo, {verdict}): {}",
                said.join(", ")
            ));
            placebo = Some(tests);
        } else {
            parts.push(format!("{label} {verdict}: {}", said.join(", ")));
            judged.push((label, tests));
        }
    }
    ((judged, placebo), format!("per model: {}", parts.join("; ")))
}

/// The ranges of `populations` in words.
fn ranges(populations: &[Population]) -> String {
    let ranges: Vec<String> =
        populations.iter().map(|p| format!("L = 1..{} over {}", p.last, p.users)).collect();
    ranges.join("; ")
}

/// The repetitions behind `populations`.
fn repetitions(populations: &[Population]) -> usize {
    populations
        .first()
        .and_then(|p| p.models.first())
        .and_then(|(_, d)| d.first())
        .map_or(0, |(_, v)| v.len())
}

/// F3 over fixed populations, for every personalised model: on every range, NDCG@50 at
/// the range's last L above NDCG@50 at L = 1 over the same users; each model's verdict is
/// listed (item popularity, which ignores the history, is shown as a reference).
pub(crate) fn f3_fixed(populations: &[Population], history: Choice) -> Claim {
    let ((judged, placebo), parts) = personalised(populations);
    let mut tests: Vec<Test> = judged.into_iter().flat_map(|(_, t)| t).collect();
    if tests.is_empty() {
        tests.push(nothing("NDCG@50: no personalised model".into()));
    }
    f3_claim(
        parts,
        repetitions(populations),
        format!(
            "every personalised model: NDCG@50 at the last L of each range above NDCG@50 at \
             L = 1 over the same users, for every model but item popularity; ranges: {}",
            ranges(populations)
        ),
        tests,
        [choices::fixed_populations(), choices::every_model(), history],
        placebo,
    )
}

/// `populations` without the model `label`.
pub(crate) fn without(populations: &[Population], label: &str) -> Vec<Population> {
    populations
        .iter()
        .map(|p| Population {
            models: p.models.iter().filter(|(l, _)| l != label).cloned().collect(),
            ..p.clone()
        })
        .collect()
}

/// F3 over fixed populations, for most personalised models ("normally"): more than half
/// of them rise on every range as in [`f3_fixed`]. Judged on its witness: the first set of
/// that many models whose verdict is the best, so it holds when that many hold and fails
/// when half of them or more fail.
pub(crate) fn f3_typical(populations: &[Population]) -> Claim {
    let ((judged, placebo), _) = personalised(populations);
    let need = judged.len() / 2 + 1;
    let sets: Vec<(String, Vec<Test>)> = (0u32..1 << judged.len())
        .filter(|set| set.count_ones() as usize == need)
        .map(|set| {
            let members = judged.iter().enumerate().filter(|(i, _)| set & (1 << i) != 0);
            let names: Vec<&str> = members.clone().map(|(_, (l, _))| l.as_str()).collect();
            let tests = members.flat_map(|(_, (_, t))| t.iter().cloned()).collect();
            (names.join(" + "), tests)
        })
        .collect();
    let (witness, _) = witness(sets);
    let (shown, tests) = witness
        .unwrap_or_else(|| (String::new(), vec![nothing("NDCG@50: no personalised model".into())]));
    f3_claim(
        // Each model's numbers are in the measured text of `f3_fixed`, read beside this.
        format!(
            "sets of {need} personalised models, shown: {}",
            if shown.is_empty() { "none" } else { &shown }
        ),
        repetitions(populations),
        format!(
            "most personalised models ({need} of {}): NDCG@50 at the last L of each range above \
             NDCG@50 at L = 1 over the same users (shown: the first set of {need} with the best \
             verdict); ranges: {}",
            judged.len(),
            ranges(populations)
        ),
        tests,
        [choices::fixed_populations(), choices::most_models()],
        placebo,
    )
}

/// `claim` with none of its readings primary: the paper fixes none of them, so its verdict
/// is the readings' common one, or "depends on reading".
pub(crate) fn open(claim: Claim) -> Claim {
    claim.map_readings(|r| Reading { primary: false, ..r })
}

/// `claim` with every reading resting on `choices` too (those of a gain, a range of L).
pub(crate) fn resting_on(claim: Claim, choices: &[Choice]) -> Claim {
    claim.map_readings(|r| r.with_choices(choices.iter().cloned()))
}

/// A claim judged under several readings: `primary`'s readings (named `primary_name`,
/// the NDCG of the post's code) are tagged the paper's where the rules allow it
/// ([`Reading::primary_if_fixed`]: every choice the post's text or code, or ours and shown
/// not to move the verdict, and none post hoc); each `(name, claim)` of `named` adds its
/// readings under that name; `measured` says which numbers belong to which reading. The
/// claim says why no placebo applies only when none of its readings runs one.
pub(crate) fn with_readings(
    primary: Claim,
    primary_name: &str,
    named: Vec<(&str, Claim)>,
) -> Claim {
    let rename = |name: &str, reading: Reading| Reading {
        name: format!("{name}: {}", reading.name),
        ..reading
    };
    let mut no_placebo = primary.no_placebo;
    let mut readings: Vec<Reading> =
        primary.readings.into_iter().map(|r| rename(primary_name, r).primary_if_fixed()).collect();
    let mut measured = format!("{primary_name}: {}", primary.measured);
    for (name, claim) in named {
        readings.extend(claim.readings.into_iter().map(|r| rename(name, r)));
        measured.push_str(&format!(" || {name}: {}", claim.measured));
        no_placebo = no_placebo.or(claim.no_placebo);
    }
    let claim = Claim::new(primary.id, primary.statement, primary.paper, measured, readings);
    match no_placebo {
        Some(why) if claim.readings.iter().all(|r| r.placebo.is_none()) => {
            claim.without_placebo(why)
        }
        _ => claim,
    }
}

/// F4's tests of one pair: the order of `a` and `b` at the first L, and the opposite order
/// at every L from `from` to the last; each interval one of `family` simultaneous ones
/// (the pair shown is the one the results pick among every pair).
fn swap_tests(
    a: &(String, Draws),
    b: &(String, Draws),
    first: f64,
    ahead: bool,
    from: f64,
    family: usize,
) -> Vec<Test> {
    let rule = |above: bool| if above { Rule::above(NOISE) } else { Rule::below(NOISE) };
    let test = |l: f64, above: bool| {
        Test::new(
            format!("NDCG@50 at L = {l}: {} − {}", a.0, b.0),
            rule(above),
            paired_among(at(&a.1, l), at(&b.1, l), family),
        )
    };
    let after: Vec<Test> =
        a.1.iter()
            .map(|(l, _)| *l)
            .filter(|&l| l >= from && l > first)
            .map(|l| test(l, !ahead))
            .collect();
    let mut tests = vec![test(first, ahead)];
    if after.is_empty() {
        tests.push(nothing(format!("NDCG@50: {} / {} have no L after the first", a.0, b.0)));
    }
    tests.extend(after);
    tests
}

/// The best pair of personalised models among F4's `pairs`, with its verdict, in words:
/// with item popularity among the curves a swap is close to guaranteed (a personalised
/// model given one rating starts below it and overtakes it), so the pairs without it are
/// also judged alone.
fn best_personal_pair(pairs: &[(String, Vec<Test>)]) -> String {
    let personal: Vec<(String, Vec<Test>)> =
        pairs.iter().filter(|(name, _)| !name.contains(POPULARITY)).cloned().collect();
    match witness(personal) {
        (Some((name, tests)), _) => {
            format!("{name} {}", Verdict::all(tests.iter().map(|t| t.verdict)))
        }
        (None, _) => "no pair".into(),
    }
}

/// F4: the crossover L of every pair of curves, and each curve's mean over L
/// ([`curve_mean`]) over every L of the curves and over `L = 1..complete`, the L at which
/// every test user still has a target: only there is it the post's MANDCG.
pub(crate) fn f4(models: &[(String, Draws)], complete: f64) -> Claim {
    let curves: Vec<_> = models.iter().map(|(l, d)| (l, curve(d))).collect();
    let family = pairs_of(models.len());
    let mut crossings = Vec::new();
    let mut pairs = Vec::new();
    for (i, (a, ca)) in curves.iter().enumerate() {
        for (j, (b, cb)) in curves.iter().enumerate().skip(i + 1) {
            let at = crossover(&means(ca), &means(cb));
            crossings
                .push(format!("{a} / {b}: {}", at.map_or("none".into(), |l| format!("L={l}"))));
            let tests = match (ca.first(), ca.last(), cb.first()) {
                (Some(first), Some(last), Some(other)) => swap_tests(
                    &models[i],
                    &models[j],
                    first.0,
                    first.1.mean >= other.1.mean,
                    at.unwrap_or(last.0),
                    family,
                ),
                _ => vec![nothing(format!("NDCG@50: {a} / {b} without values"))],
            };
            pairs.push((format!("{a} / {b}"), tests));
        }
    }
    let personal = best_personal_pair(&pairs);
    let (witness, each) = witness(pairs);
    let tests = witness.map_or_else(|| vec![nothing("no pair of curves".into())], |w| w.1);
    let scores = |up_to: f64| -> String {
        let values: Vec<String> = curves
            .iter()
            .map(|(l, c)| {
                let head: Vec<_> = c.iter().filter(|p| p.0 <= up_to).copied().collect();
                format!("{l} {}", curve_mean(&head).map_or("-".into(), |m| format!("{m:.4}")))
            })
            .collect();
        values.join(", ")
    };
    let last = curves.iter().filter_map(|(_, c)| c.last()).map(|p| p.0).fold(0.0, f64::max);
    let complete = complete.min(last);
    Claim::new(
        "F4",
        "Some curves of NDCG@50 against L cross: the crossover L is the switch point of a hybrid",
        f4_quote(),
        format!(
            "crossover L of the means: {}; pairs: {each}; best pair without {POPULARITY}: \
             {personal}; mean of the curve over L = 1..{last} (not the post's MANDCG: a point \
             past L = {complete} averages only the users still present): {}; MANDCG over \
             L = 1..{complete} (every test user at every L, where it is the mean of the \
             curve): {}",
            crossings.join(", "),
            scores(last),
            scores(complete)
        ),
        vec![
            Reading::new(
                "some pair of curves swaps order for good: the order at L = 1, and the opposite \
             order at every L from the crossover of the means to the last (shown: the first \
             pair with the best verdict, its intervals simultaneous over every pair; a weak \
             test, since item popularity, which ignores the history, is nearly always \
             overtaken by a personalised model; the best pair without it is in the measured \
             text)",
                tests,
            )
            .with_choices([
                choices::given_l(),
                choices::curve_measure(),
                choices::users_left(),
                choices::history_ratings(),
                choices::test_users(),
                choices::swap(),
                choices::simultaneous(&format!("the {family} pairs")),
                choices::als_fit(),
                choices::ials_fit(),
            ]),
        ],
    )
    .without_placebo(F4_NO_PLACEBO)
}

/// The mean over the Ls of `window` (both ends included) of each draw's value, when every
/// L of the window is there with one value per draw.
fn window_means(draws: &Draws, window: (f64, f64)) -> Option<Vec<f64>> {
    let rows: Vec<&[f64]> = draws
        .iter()
        .filter(|(l, _)| *l >= window.0 && *l <= window.1)
        .map(|(_, v)| v.as_slice())
        .collect();
    let width = (window.1 - window.0).floor() as usize + 1;
    let n = rows.first()?.len();
    if rows.len() != width || rows.iter().any(|r| r.len() != n) {
        return None;
    }
    Some((0..n).map(|k| rows.iter().map(|r| r[k]).sum::<f64>() / width as f64).collect())
}

/// The mean of the draws at `l`, if there are any.
fn mean_at(draws: &Draws, l: f64) -> Option<f64> {
    let values = at(draws, l)?;
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// F4's tests of one pair on fixed ranges: the model ahead at L = 1 (by the means) is ahead
/// there beyond the tolerance, and the other is ahead on average over `window`; each
/// interval one of `family` simultaneous ones.
fn fixed_range_tests(
    a: &(String, Draws),
    b: &(String, Draws),
    window: (f64, f64),
    family: usize,
) -> Vec<Test> {
    let (Some(ma), Some(mb)) = (mean_at(&a.1, 1.0), mean_at(&b.1, 1.0)) else {
        return vec![nothing(format!("NDCG@50 at L = 1: {} / {} without values", a.0, b.0))];
    };
    let (lead, trail) = if ma >= mb { (a, b) } else { (b, a) };
    vec![
        Test::new(
            format!("NDCG@50 at L = 1: {} − {}", lead.0, trail.0),
            Rule::above(NOISE),
            paired_among(at(&lead.1, 1.0), at(&trail.1, 1.0), family),
        ),
        Test::new(
            format!("NDCG@50, mean over L = {}..{}: {} − {}", window.0, window.1, trail.0, lead.0),
            Rule::above(NOISE),
            paired_among(
                window_means(&trail.1, window).as_deref(),
                window_means(&lead.1, window).as_deref(),
                family,
            ),
        ),
    ]
}

/// F4 on fresh draws (`more-is-better-fresh`): some pair of curves swaps order between L = 1
/// and the range `window`, with simultaneous intervals over every pair.
pub(crate) fn f4_fresh(models: &[(String, Draws)], window: (f64, f64)) -> Claim {
    let family = pairs_of(models.len());
    let mut pairs = Vec::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            pairs.push((format!("{} / {}", a.0, b.0), fixed_range_tests(a, b, window, family)));
        }
    }
    let personal = best_personal_pair(&pairs);
    let (witness, each) = witness(pairs);
    let tests = witness.map_or_else(|| vec![nothing("no pair of curves".into())], |w| w.1);
    let repetitions = models.first().and_then(|(_, d)| d.first()).map_or(0, |(_, v)| v.len());
    Claim::new(
        "F4",
        "Some curves of NDCG@50 against L cross: the crossover L is the switch point of a hybrid",
        f4_quote(),
        format!(
            "{repetitions} fresh draws, L = 1 against the mean over L = {}..{}, simultaneous \
             over {family} pairs; pairs: {each}; best pair without {POPULARITY}: {personal}",
            window.0, window.1
        ),
        vec![
            Reading::new(
                format!(
                    "some pair of curves swaps order between fixed ranges of L: one model ahead \
                     at L = 1 and the other ahead on average over L = {}..{}, on draws the rule \
                     was not written on (shown: the first pair with the best verdict; item \
                     popularity, which ignores the history, is among the pairs, and the best \
                     pair without it is in the measured text)",
                    window.0, window.1
                ),
                tests,
            )
            .with_choices([choices::given_l(), choices::curve_measure()])
            .with_choices(choices::fold_in_from_test_users())
            .with_choices([
                choices::fresh_draws(repetitions),
                choices::fresh_swap(window),
                choices::simultaneous(&format!("the {family} pairs")),
                choices::als_fit(),
                choices::ials_fit(),
            ]),
        ],
    )
    .without_placebo(F4_NO_PLACEBO)
}

/// Why F4 runs no placebo.
const F4_NO_PLACEBO: &str = "a crossing is a property of two curves, and no model run is \
                             built so that its curve cannot cross another's; item \
                             popularity's, which ignores the history, is among the pairs, and \
                             the best pair without it is in the measured text";

/// F4's words.
fn f4_quote() -> Quote {
    Quote {
        section: "The more, the better".into(),
        words: "Either one is better than the other across the board, or at some point the \
                curves intersect. The intersection offers a possibility of using the \
                combination of the two systems. Initially we employ the first; after \
                acquiring more feedback than the threshold, we switch to the other."
            .into(),
    }
}

/// Why item popularity cannot carry F5's signal.
const F5_PLACEBO: &str = "it ranks by popularity alone and ignores a new user's ratings, so \
                          there is nothing to fold in";
/// Why F5 has no placebo when item popularity did not run.
const F5_NO_PLACEBO: &str = "item popularity, the placebo, is not among the models run";

/// F5: strong against weak NDCG@50 for the models folded in by least squares
/// ([`FOLDED`]), paired fold by fold; the other rows are reported beside them. Item
/// popularity, which ignores the history, runs through the same test as the placebo.
pub(crate) fn f5(weak: &Splits, strong: &Splits) -> Claim {
    let key = "ndcg@50";
    let tests = FOLDED
        .iter()
        .map(|label| {
            Test::new(
                format!("NDCG@50: strong − {FRACTION} × weak, {label}"),
                Rule::not_below(0.0),
                paired(
                    strong.values(label, key),
                    weak.values(label, key),
                    FRACTION,
                    weak.independent,
                ),
            )
        })
        .collect();
    let mut reading = Reading::new(
        format!(
            "strong-generalization NDCG@50 not below {FRACTION} × the weak one, {ALS} and {IALS}"
        ),
        tests,
    )
    .with_choices([
        choices::weak_strong(),
        choices::fold_in(),
        choices::fraction(),
        choices::als_fit(),
        choices::ials_fit(),
    ]);
    let placebo = match (strong.values(POPULARITY, key), weak.values(POPULARITY, key)) {
        (Some(s), Some(w)) => {
            let test = Test::new(
                format!("NDCG@50: strong − {FRACTION} × weak, {POPULARITY}"),
                Rule::not_below(0.0),
                paired(Some(s), Some(w), FRACTION, weak.independent),
            );
            reading = reading.with_placebo(Placebo::new(POPULARITY, F5_PLACEBO, vec![test]));
            true
        }
        _ => false,
    };
    let parts: Vec<String> = weak
        .labels()
        .iter()
        .map(|label| {
            let (w, s) = (weak.mean(label, key), strong.mean(label, key));
            let ratio = match (w, s) {
                (Some(w), Some(s)) if w > 0.0 => format!("{:.3}", s / w),
                _ => "-".into(),
            };
            format!("{label}: weak {}, strong {}, ratio {ratio}", text(w), text(s))
        })
        .collect();
    let claim = Claim::new(
        "F5",
        "Folded in by least squares, new users reach at least 90% of the weak-generalization \
         NDCG@50",
        Quote {
            section: "Handling new users".into(),
            words: "people might say that matrix factorization models are unable to provide \
                    recommendations for new users. This is not quite true. [...] At test time, \
                    when we have input from a new user, we could keep the item factors fixed \
                    and fit the user factors, then proceed with recommendations."
                .into(),
        },
        format!("{}; over {} (the same folds and targets in both)", parts.join("; "), weak.kind()),
        vec![reading, f5_against_popularity(strong)],
    );
    if placebo { claim } else { claim.without_placebo(F5_NO_PLACEBO) }
}

/// F5's post-hoc reading: folded in, each model ranks better than item popularity under
/// strong generalization (a test that a model ignoring the history cannot pass by
/// construction).
fn f5_against_popularity(strong: &Splits) -> Reading {
    let key = "ndcg@50";
    let tests = FOLDED
        .iter()
        .map(|label| {
            Test::new(
                format!("strong NDCG@50: {label} − {POPULARITY}"),
                Rule::above(NOISE),
                strong.difference(label, POPULARITY, key),
            )
        })
        .collect();
    Reading::new(
        format!("folded in, {ALS} and {IALS} rank above {POPULARITY} under strong generalization"),
        tests,
    )
    .with_choices([
        choices::weak_strong(),
        choices::fold_in(),
        choices::als_fit(),
        choices::ials_fit(),
        choices::above_popularity(),
    ])
}

/// The models folded in by a regularised least-squares solve and their number of factors
/// (as in `more-is-better.toml`), for F6.
pub(crate) const FOLDED_FACTORS: [(&str, u32); 2] = [(ALS, 10), (IALS, 20)];

/// F6: folded in by a regularised solve from fewer ratings than factors, a model can still
/// rank better than item popularity, which ignores the ratings. Judged on its witness (a
/// model and an L below its factors), as F2's reversal is; the reading was named after the
/// curves had been seen, so it is post hoc and nothing decides.
pub(crate) fn f6(models: &[(String, Draws)]) -> Claim {
    let popularity = models.iter().find(|(l, _)| l == POPULARITY).map(|(_, d)| d);
    let mut candidates = Vec::new();
    for (label, factors) in FOLDED_FACTORS {
        let Some((_, draws)) = models.iter().find(|(l, _)| l == label) else { continue };
        for l in 1..factors {
            let l = f64::from(l);
            let effect = paired(at(draws, l), popularity.and_then(|p| at(p, l)), 1.0, true);
            candidates.push((
                format!("{label} at L = {l}"),
                vec![Test::new(
                    format!("NDCG@50 at L = {l} (fewer ratings than its {factors} factors): {label} − {POPULARITY}"),
                    Rule::above(NOISE),
                    effect,
                )],
            ));
        }
    }
    let (witness, each) = witness(candidates);
    let tests = witness.map_or_else(
        || vec![nothing("NDCG@50: no folded-in model or no item popularity".into())],
        |w| w.1,
    );
    Claim::new(
        "F6",
        "Folded in from fewer ratings than it has factors, a regularised factorization still ranks better than item popularity",
        Quote {
            section: "Handling new users".into(),
            words: "We'd prefer the number of ratings (examples) be greater than the number of \
                    factors, but even when it's not there is hope, thanks to regularization."
                .into(),
        },
        format!("{POPULARITY} against each folded-in model at every L below its factors: {each}"),
        vec![
            Reading::new(
                "some model folded in by a regularised least-squares solve (ALS (RMSE), 10 \
                 factors; implicit ALS, 20) has NDCG@50 above item popularity's at some L \
                 below its number of factors (shown: the first with the best verdict)",
                tests,
            )
            .with_choices([
                choices::given_l(),
                choices::curve_measure(),
            ])
            .with_choices(choices::fold_in_from_test_users())
            .with_choices([
                choices::als_fit(),
                choices::ials_fit(),
                choices::hope(),
            ]),
        ],
    )
    .without_placebo(
        "item popularity, which ignores the ratings, is what the models are compared with",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::report::ChoiceKind;
    use recs_bench::verdict::IntervalKind;
    use recs_bench::verdict::Verdict::{DependsOnReading, Fails, Holds, Inconclusive};

    /// Five draws with mean `mean`: `mean + spread × (−2, −1, 0, 1, 2)`. Two models with the
    /// same spread differ by a constant; a spread on one side only widens the interval.
    fn five(mean: f64, spread: f64) -> Vec<f64> {
        [-2.0, -1.0, 0.0, 1.0, 2.0].iter().map(|d| mean + d * spread).collect()
    }

    /// A model's label with its values of each key.
    type Model<'a> = (&'a str, Vec<(&'a str, Vec<f64>)>);

    fn splits(independent: bool, models: &[Model]) -> Splits {
        let mut out = Splits::new(independent);
        for (label, keys) in models {
            for (key, values) in keys {
                out.insert(label, key, values.clone());
            }
        }
        out
    }

    /// The two runs of `rmse-vs-ranking`: ALS (RMSE) with `als_held` on the held-out
    /// ratings and `als_all` from all items; popularity and PureSVD fixed (the best
    /// held-out NDCG@10 is PureSVD's 0.90); models in reverse order when `reversed`.
    fn ranking(als_held: Vec<f64>, als_all: [f64; 2], reversed: bool) -> (Splits, Splits) {
        let mut held = vec![
            (ALS, vec![("ndcg@10", als_held)]),
            (POPULARITY, vec![("ndcg@10", five(0.80, 0.0))]),
            ("PureSVD", vec![("ndcg@10", five(0.90, 0.0))]),
        ];
        let mut all = vec![
            (ALS, vec![("ndcg@10", five(als_all[0], 0.0)), ("ndcg@50", five(als_all[1], 0.0))]),
            (POPULARITY, vec![("ndcg@10", five(0.20, 0.0)), ("ndcg@50", five(0.25, 0.0))]),
        ];
        if reversed {
            held.reverse();
            all.reverse();
        }
        (splits(true, &held), splits(true, &all))
    }

    #[test]
    fn f1_needs_the_rmse_model_close_on_held_out_and_below_popularity_on_all_items() {
        // (ALS held-out draws, ALS all items, expected): 0.95 × 0.90 = 0.855 is the bar.
        let cases = [
            (five(0.90, 0.001), [0.05, 0.10], Holds),
            (five(0.80, 0.001), [0.05, 0.10], Fails),
            (five(0.90, 0.001), [0.05, 0.30], Fails),
            // Straddles the bar: the interval of ALS − 0.855 contains 0.
            (five(0.855, 0.01), [0.05, 0.10], Inconclusive),
            // Within the noise floor of popularity on all items: not below it.
            (five(0.90, 0.001), [0.05, 0.2499], Fails),
        ];
        for (held_out, all_items, verdict) in cases {
            for reversed in [false, true] {
                let (h, a) = ranking(held_out.clone(), all_items, reversed);
                let claim = f1(&h, &a);
                assert_eq!(claim.verdict, verdict, "{held_out:?} {all_items:?} {reversed}");
                assert!(claim.problems().is_empty(), "{:?}", claim.problems());
            }
        }
        let (h, a) = ranking(five(0.89, 0.001), [0.05, 0.10], false);
        let claim = f1(&h, &a);
        assert!(claim.measured.contains("best PureSVD 0.9000 (ratio 0.989"), "{}", claim.measured);
        // One split decides nothing, however clear its numbers.
        let one = |s: &Splits| {
            let mut out = Splits::new(true);
            for label in s.labels() {
                for key in ["ndcg@10", "ndcg@50"] {
                    if let Some(v) = s.values(label, key) {
                        out.insert(label, key, v[..1].to_vec());
                    }
                }
            }
            out
        };
        let claim = f1(&one(&h), &one(&a));
        assert_eq!(claim.verdict, Inconclusive);
        assert_eq!(claim.readings[0].tests[1].effect.interval, IntervalKind::Single);
        // Without popularity there is nothing to hold.
        let no_popularity = splits(true, &[(ALS, vec![("ndcg@10", five(0.05, 0.0))])]);
        assert_eq!(f1(&h, &no_popularity).verdict, Inconclusive);
    }

    /// A rating predictor's label with its RMSE and all-items NDCG@10 draws.
    type Predictor<'a> = (&'a str, (Vec<f64>, Vec<f64>));

    #[test]
    fn f2_needs_two_rating_predictors_ordered_differently_by_rmse_and_ndcg() {
        let model = |rmse: f64, ndcg: Vec<f64>| (five(rmse, 0.0), ndcg);
        let a = ("a", model(0.90, five(0.05, 0.0)));
        let better = ("b", model(1.00, five(0.10, 0.0)));
        let worse = ("c", model(1.00, five(0.01, 0.0)));
        let close = ("e", model(1.00, five(0.06, 0.02)));
        let runs = |models: &[Predictor]| {
            let (mut held, mut all) = (Splits::new(true), Splits::new(true));
            for (label, (rmse, ndcg)) in models {
                held.insert(label, "rmse", rmse.clone());
                all.insert(label, "ndcg@10", ndcg.clone());
            }
            // A model without an RMSE is no rating predictor.
            held.insert("d", "rmse", vec![f64::NAN; 5]);
            all.insert("d", "ndcg@10", five(0.5, 0.0));
            (held, all)
        };
        for (models, verdict) in [
            (vec![a.clone(), better.clone()], Holds),
            (vec![better.clone(), a.clone()], Holds),
            (vec![a.clone(), worse.clone()], Fails),
            (vec![a.clone(), worse.clone(), better.clone()], Holds),
            (vec![a.clone(), close.clone()], Inconclusive),
            (vec![a.clone()], Inconclusive),
        ] {
            let (held, all) = runs(&models);
            let claim = f2_reversal(&held, &all);
            assert_eq!(claim.verdict, verdict, "{models:?}");
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        }
        let (held, all) = runs(&[better, worse, a]);
        let claim = f2_reversal(&held, &all);
        assert!(claim.measured.contains("a / b holds, a / c fails"), "{}", claim.measured);
        assert_eq!(claim.readings[0].tests[0].subject, "RMSE: a − b");
        // The pair shown is picked among three: each interval is one of three.
        let effect = claim.readings[0].tests[0].effect;
        assert_eq!(effect.interval, IntervalKind::Simultaneous { family: 3 });
    }

    /// Three repetitions at each L of `means`, spread by `spread` × (−1, 0, 1).
    fn draws(means: &[f64], spread: f64) -> Draws {
        means
            .iter()
            .enumerate()
            .map(|(i, &m)| (i as f64 + 1.0, vec![m - spread, m, m + spread]))
            .collect()
    }

    #[test]
    fn f3_needs_every_personalised_curve_to_rise_beyond_the_noise() {
        let pop = (POPULARITY.to_string(), draws(&[0.3, 0.2], 0.01));
        let up = ("a".to_string(), draws(&[0.1, 0.2], 0.01));
        assert_eq!(f3(&[pop.clone(), up.clone()]).verdict, Holds);
        // Popularity may fall; a personalised curve rising by less than the noise fails.
        let flat = ("b".to_string(), draws(&[0.1, 0.1002], 0.01));
        assert_eq!(f3(&[pop.clone(), up.clone(), flat]).verdict, Fails);
        // A rise whose draws disagree straddles the tolerance.
        let noisy =
            ("c".to_string(), vec![(1.0, vec![0.10, 0.10, 0.10]), (2.0, vec![0.08, 0.11, 0.14])]);
        let claim = f3(&[pop.clone(), up, noisy]);
        assert_eq!(claim.verdict, Inconclusive);
        assert_eq!(claim.readings[0].tests[1].effect.interval, IntervalKind::Independent);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert_eq!(f3(&[pop]).verdict, Inconclusive);
    }

    #[test]
    fn f3_over_fixed_populations_gives_each_model_its_verdict() {
        // Item popularity ends at `popularity` on the range's last L (it starts at 0.3).
        let population = |users: &str, last: f64, falling: f64, popularity: f64| Population {
            users: users.into(),
            last,
            models: vec![
                (POPULARITY.to_string(), draws(&[0.3, 0.3, popularity], 0.01)),
                ("a".to_string(), draws(&[0.1, 0.2, 0.3], 0.01)),
                (ALS.to_string(), draws(&[0.2, 0.2, falling], 0.01)),
            ],
        };
        let claim = f3_fixed(
            &[population("every test user", 2.0, 0.1, 0.35), population("heavy", 3.0, 0.1, 0.35)],
            choices::history_ratings(),
        );
        assert_eq!(claim.verdict, Fails);
        assert!(claim.measured.contains("a holds: every test user: L=1"), "{}", claim.measured);
        assert!(claim.measured.contains("ALS (RMSE) fails: every test user"), "{}", claim.measured);
        assert!(
            claim.measured.contains("item popularity (ignores the history; the placebo, fails)"),
            "{}",
            claim.measured
        );
        // A model rising on every range holds; popularity is the placebo, not judged.
        let claim = f3_fixed(&[population("heavy", 3.0, 0.4, 0.25)], choices::history_ratings());
        assert_eq!(claim.verdict, Holds, "{}", claim.measured);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
        assert_eq!(claim.readings[0].tests.len(), 2);
        assert_eq!(claim.readings[0].placebo.as_ref().unwrap().verdict, Fails);
        // Under readings: the fixed populations and the comparison are ours, so the reading
        // under the post's NDCG is not the paper's, and the readings' verdicts differ.
        let both = with_readings(
            resting_on(claim.clone(), &choices::post_ndcg()),
            "post",
            vec![("other", f3(&[]))],
        );
        assert_eq!(both.verdict, Verdict::DependsOnReading);
        assert!(both.readings.iter().all(|r| !r.primary));
        assert!(both.readings[1].name.starts_with("other: "));
        assert!(
            both.measured.starts_with("post: per model") && both.measured.contains(" || other: ")
        );
        assert!(both.problems().is_empty(), "{:?}", both.problems());
        // One reading runs a placebo, so the claim gives no reason why none applies.
        assert!(both.no_placebo.is_none());
        assert!(both.provenance_problems().is_empty(), "{:?}", both.provenance_problems());
    }

    #[test]
    fn f3_is_untestable_where_item_popularity_rises_too() {
        // Popularity, which ignores the history, rises as much as the personalised model:
        // the test cannot tell more information from a change of the targets.
        let models = |popularity: f64| {
            vec![
                (POPULARITY.to_string(), draws(&[0.2, popularity], 0.01)),
                ("a".to_string(), draws(&[0.1, 0.3], 0.01)),
            ]
        };
        let fixed =
            |popularity: f64| f3_fixed(&fixed_populations(popularity), choices::history_ratings());
        for claim in [fixed(0.4), f3_typical(&fixed_populations(0.4)), f3(&models(0.4))] {
            assert_eq!(claim.readings[0].verdict, Verdict::Untestable, "{}", claim.measured);
            assert!(claim.readings[0].reason().contains("placebo item popularity passes"));
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        }
        assert_eq!(fixed(0.2).verdict, Holds);
        assert_eq!(f3(&models(0.2)).verdict, Holds);
        // Without popularity there is no placebo, and the claim says so.
        let alone = f3(&models(0.4)[1..]);
        assert_eq!(alone.verdict, Holds);
        assert!(alone.no_placebo.is_some());
        assert!(alone.provenance_problems().is_empty(), "{:?}", alone.provenance_problems());
    }

    /// One fixed population, every test user up to L = 2, with item popularity ending at
    /// `popularity` and one model rising from 0.1 to 0.3.
    fn fixed_populations(popularity: f64) -> Vec<Population> {
        vec![Population {
            users: "every test user".into(),
            last: 2.0,
            models: vec![
                (POPULARITY.to_string(), draws(&[0.2, popularity], 0.01)),
                ("a".to_string(), draws(&[0.1, 0.3], 0.01)),
            ],
        }]
    }

    #[test]
    fn f2_leaves_out_one_score_per_user_models_and_numerator_rankings() {
        let (mut held, mut all) = (Splits::new(true), Splits::new(true));
        for (label, rmse, ndcg) in
            [(ALS, 0.9, 0.05), (USER_MEAN, 1.0, 0.10), (NOT_RATING_RANKERS[0], 0.95, 0.3)]
        {
            held.insert(label, "rmse", five(rmse, 0.0));
            all.insert(label, "ndcg@10", five(ndcg, 0.0));
        }
        let claim = f2_reversal(&held, &all);
        // The reversed pair with the user mean is not judged, and the numerator ranking is
        // no rating predictor: no pair is left.
        assert_eq!(claim.verdict, Inconclusive, "{}", claim.measured);
        assert!(
            claim.measured.contains(
                "not judged (one score per user, a random ranking): ALS (RMSE) / user mean rating"
            ),
            "{}",
            claim.measured
        );
        assert!(!claim.measured.contains("numerator"), "{}", claim.measured);
    }

    #[test]
    fn f2_compares_the_lowest_rmse_with_the_best_ranking_of_all_items() {
        // (label, RMSE, all-items NDCG@10); "pop" predicts no rating.
        let runs = |models: &[(&str, f64, f64)]| {
            let (mut held, mut all) = (Splits::new(true), Splits::new(true));
            for &(label, rmse, ndcg) in models {
                held.insert(label, "rmse", five(rmse, 0.0));
                all.insert(label, "ndcg@10", five(ndcg, 0.001));
            }
            held.insert("pop", "rmse", vec![f64::NAN; 5]);
            (held, all)
        };
        let with_pop = |pop: f64, models: &[(&str, f64, f64)]| {
            let (held, mut all) = runs(models);
            all.insert("pop", "ndcg@10", five(pop, 0.001));
            f2(&held, &all)
        };
        let verdict = |claim: Claim| claim.readings[0].verdict;
        // The lowest RMSE ranks below a model without one: the reading holds. It was named
        // after the reversal had failed: post hoc, it does not decide its claim alone.
        let claim = with_pop(0.2, &[("a", 0.9, 0.05), ("b", 1.0, 0.01)]);
        assert_eq!(claim.readings[0].verdict, Holds, "{}", claim.measured);
        assert!(claim.readings[0].post_hoc);
        assert_eq!(claim.verdict, Inconclusive);
        assert_eq!(
            claim.readings[0].tests[0].subject,
            "all-items NDCG@10: a (lowest RMSE) − pop (best by mean)"
        );
        assert!(claim.measured.starts_with("lowest RMSE: a (0.9000); best all-items NDCG@10: pop"));
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        // ... or below another rating predictor.
        assert_eq!(verdict(with_pop(0.0, &[("a", 0.9, 0.05), ("b", 1.0, 0.1)])), Holds);
        // The lowest RMSE is the best ranker too: the difference is zero, and it fails.
        assert_eq!(verdict(with_pop(0.04, &[("b", 1.0, 0.01), ("a", 0.9, 0.05)])), Fails);
        // A difference within the noise is none: fails. Draws straddling it: inconclusive.
        assert_eq!(verdict(with_pop(0.0502, &[("a", 0.9, 0.05)])), Fails);
        let (held, mut all) = runs(&[("a", 0.9, 0.05)]);
        all.insert("pop", "ndcg@10", vec![0.04, 0.07, 0.05, 0.06, 0.055]);
        assert_eq!(verdict(f2(&held, &all)), Inconclusive);
        let (held, all) = runs(&[]);
        assert_eq!(verdict(f2(&held, &all)), Inconclusive);
    }

    #[test]
    fn f2_is_decided_by_the_reversal_fixed_before_not_by_the_post_hoc_reading() {
        // ALS has the lowest RMSE and the best all-items NDCG@10 of the rating predictors
        // (no reversal), but ranks far below item popularity (the post-hoc reading holds).
        let (mut held, mut all) = (Splits::new(true), Splits::new(true));
        for (label, rmse, ndcg) in [(ALS, 0.9, 0.05), ("item mean rating", 1.0, 0.01)] {
            held.insert(label, "rmse", five(rmse, 0.001));
            all.insert(label, "ndcg@10", five(ndcg, 0.001));
        }
        held.insert(POPULARITY, "rmse", vec![f64::NAN; 5]);
        all.insert(POPULARITY, "ndcg@10", five(0.2, 0.001));
        let post = |claim| resting_on(claim, &choices::post_ndcg());
        let claim = with_readings(
            post(f2(&held, &all)),
            "post",
            vec![("post", post(f2_reversal(&held, &all)))],
        );
        assert_eq!(claim.readings[0].verdict, Holds);
        assert!(claim.readings[0].post_hoc && !claim.readings[0].primary);
        assert_eq!(claim.readings[1].verdict, Fails);
        assert!(!claim.readings[1].post_hoc && !claim.readings[1].primary);
        assert_eq!(claim.verdict, Fails);
        assert_eq!(claim.deciding().len(), 1);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
        assert!(claim.no_placebo.is_some());
    }

    #[test]
    fn f3_typical_needs_more_than_half_of_the_personalised_models() {
        let population = |models: &[(&str, f64)]| {
            let mut out = vec![(POPULARITY.to_string(), draws(&[0.3, 0.1], 0.01))];
            out.extend(models.iter().map(|&(l, end)| (l.to_string(), draws(&[0.2, end], 0.01))));
            vec![Population { users: "every test user".into(), last: 2.0, models: out }]
        };
        let (up, down, flat) = (0.4, 0.1, 0.2005);
        for (models, verdict) in [
            (vec![("a", up), ("b", up), ("c", up), ("d", down)], Holds),
            (vec![("d", down), ("a", up), ("b", up), ("c", up)], Holds),
            (vec![("a", up), ("b", up), ("c", down), ("d", down)], Fails),
            (vec![("a", up), ("b", up), ("c", flat)], Holds),
            (vec![("a", up), ("b", down), ("c", down)], Fails),
            (vec![("a", up)], Holds),
        ] {
            let claim = f3_typical(&population(&models));
            assert_eq!(claim.readings[0].verdict, verdict, "{models:?}: {}", claim.measured);
            // Named after "every model" had failed: post hoc, it decides nothing alone.
            assert!(claim.readings[0].post_hoc);
            assert_eq!(claim.verdict, Inconclusive);
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        }
        // Popularity, falling, is no member of any set.
        let claim = f3_typical(&population(&[("a", up), ("b", up), ("c", up), ("d", down)]));
        assert!(claim.measured.contains("shown: a + b + c"), "{}", claim.measured);
        assert!(claim.readings[0].name.starts_with("most personalised models (3 of 4)"));
        // Every model against most: the universal reading fails, the typical one holds but
        // is post hoc, so the reading fixed before decides: the claim fails.
        let models = population(&[("a", up), ("b", up), ("c", up), ("d", down)]);
        let claim = open(with_readings(
            f3_fixed(&models, choices::history_ratings()),
            "post",
            vec![("post", f3_typical(&models))],
        ));
        assert!(claim.readings.iter().all(|r| !r.primary));
        assert_eq!(claim.readings[0].verdict, Fails);
        assert_eq!(claim.readings[1].verdict, Holds);
        assert_eq!(claim.verdict, Fails);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
    }

    #[test]
    fn f4_holds_when_some_pair_swaps_whatever_the_order_of_the_models() {
        let a = ("a".to_string(), draws(&[0.3, 0.3, 0.3], 0.01));
        let b = ("b".to_string(), draws(&[0.1, 0.2, 0.4], 0.01));
        let c = ("c".to_string(), draws(&[0.0, 0.0, 0.0], 0.01));
        assert_eq!(f4(&[a.clone(), b.clone(), c.clone()], 2.0).verdict, Holds);
        assert_eq!(f4(&[c.clone(), b.clone(), a.clone()], 2.0).verdict, Holds);
        let claim = f4(&[a.clone(), b.clone()], 2.0);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert!(claim.measured.contains("a / b: L=3"), "{}", claim.measured);
        assert!(claim.measured.contains("present): a 0.3000, b 0.2333;"), "{}", claim.measured);
        assert!(claim.measured.contains("curve): a 0.3000, b 0.1500"), "{}", claim.measured);
        let subjects: Vec<&str> =
            claim.readings[0].tests.iter().map(|t| t.subject.as_str()).collect();
        assert_eq!(subjects, ["NDCG@50 at L = 1: a − b", "NDCG@50 at L = 3: a − b"]);
        // No pair swaps: every pair fails.
        assert_eq!(f4(&[a.clone(), c], 2.0).verdict, Fails);
        // The swap at the last L is within the draws' spread.
        let barely = ("b".to_string(), vec![(1.0, vec![0.1; 3]), (2.0, vec![0.29, 0.31, 0.33])]);
        let two = ("a".to_string(), draws(&[0.3, 0.3], 0.0));
        assert_eq!(f4(&[two, barely], 2.0).verdict, Inconclusive);
    }

    /// F4 on fresh draws: the order at L = 1 and the opposite order over a fixed range of L,
    /// each interval simultaneous over every pair; the crossover itself is never tested.
    #[test]
    fn f4_on_fixed_ranges_tests_l_1_and_the_range_with_simultaneous_intervals() {
        // Over L = 1..4, the range L = 3..4; b crosses a at L = 2, where the gap is zero.
        let a = ("a".to_string(), draws(&[0.3, 0.3, 0.3, 0.3], 0.01));
        let b = ("b".to_string(), draws(&[0.1, 0.3, 0.4, 0.5], 0.02));
        let c = ("c".to_string(), draws(&[0.0, 0.0, 0.0, 0.0], 0.01));
        let claim = f4_fresh(&[a.clone(), b.clone(), c.clone()], (3.0, 4.0));
        assert_eq!(claim.verdict, Holds);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        let tests = &claim.readings[0].tests;
        let subjects: Vec<&str> = tests.iter().map(|t| t.subject.as_str()).collect();
        assert_eq!(subjects, ["NDCG@50 at L = 1: a − b", "NDCG@50, mean over L = 3..4: b − a"]);
        // Three models, three pairs: each interval is one of three simultaneous ones.
        for t in tests {
            assert_eq!(t.effect.interval, IntervalKind::Simultaneous { family: 3 });
        }
        assert!((tests[1].effect.estimate - 0.15).abs() < 1e-12);
        // The same draws judged alone (one pair) give narrower intervals.
        let alone = f4_fresh(&[a.clone(), b.clone()], (3.0, 4.0));
        let width = |t: &Test| t.effect.high - t.effect.low;
        assert!(width(&alone.readings[0].tests[1]) < width(&tests[1]));
        // The models' order in the input changes nothing but the names.
        assert_eq!(f4_fresh(&[c.clone(), b.clone(), a.clone()], (3.0, 4.0)).verdict, Holds);
        // No swap: a stays ahead of c on the range, and the pair fails.
        assert_eq!(f4_fresh(&[a.clone(), c], (3.0, 4.0)).verdict, Fails);
        // A swap within the draws' spread over the range is inconclusive: its interval
        // straddles the tolerance.
        let barely = ("b".to_string(), vec![(1.0, vec![0.1; 3]), (2.0, vec![0.29, 0.31, 0.33])]);
        let two = ("a".to_string(), draws(&[0.3, 0.3], 0.0));
        assert_eq!(f4_fresh(&[two.clone(), barely], (2.0, 2.0)).verdict, Inconclusive);
        // A range the curves do not reach is not measured: inconclusive, not a failure.
        assert_eq!(f4_fresh(&[a, b], (3.0, 9.0)).verdict, Inconclusive);
    }

    /// ALS with a plain penalty, run as the end of ALS's fit: F1 flips to depends on
    /// reading when it beats item popularity on all items, and the models run only as an
    /// end never become "the best" of F1 or a rating predictor of F2's deciding reading.
    #[test]
    fn the_plain_penalty_is_an_end_and_never_a_member() {
        let (mut h, mut a) = ranking(five(0.90, 0.001), [0.05, 0.10], false);
        assert_eq!(f1(&h, &a).verdict, Holds);
        // The plain-penalty ALS: best on held-out by far, above popularity on all items.
        h.insert(ALS_PLAIN, "ndcg@10", five(0.99, 0.001));
        a.insert(ALS_PLAIN, "ndcg@10", five(0.30, 0.0));
        a.insert(ALS_PLAIN, "ndcg@50", five(0.35, 0.0));
        let claim = f1(&h, &a);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        let reading = &claim.readings[0];
        assert_eq!(Verdict::all(reading.tests.iter().map(|t| t.verdict)), Holds);
        assert!(!reading.tests[0].subject.contains(ALS_PLAIN), "{}", reading.tests[0].subject);
        assert_eq!(claim.verdict, DependsOnReading);
        assert_eq!(reading.sensitivity[1].knob, choices::ALS_FIT);
        // F2's reversal: ALS (lower RMSE) ranks better than the item mean; widened by the
        // plain-penalty ALS (higher RMSE, better ranking) a reversal appears.
        let held = splits(
            true,
            &[
                (ALS, vec![("rmse", five(0.92, 0.001))]),
                ("item mean rating", vec![("rmse", five(1.02, 0.001))]),
                (ALS_PLAIN, vec![("rmse", five(0.96, 0.001))]),
            ],
        );
        let all = splits(
            true,
            &[
                (ALS, vec![("ndcg@10", five(0.05, 0.001))]),
                ("item mean rating", vec![("ndcg@10", five(0.001, 0.0001))]),
                (ALS_PLAIN, vec![("ndcg@10", five(0.16, 0.001))]),
            ],
        );
        let claim = f2_reversal(&held, &all);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        let tests = &claim.readings[0].tests;
        assert_eq!(Verdict::all(tests.iter().map(|t| t.verdict)), Fails);
        assert_eq!(claim.verdict, DependsOnReading);
        assert!(!tests[0].subject.contains(ALS_PLAIN), "{}", tests[0].subject);
    }

    /// F6 holds on its witness when some folded-in model beats item popularity at an L
    /// below its factors; its one reading is post hoc, so nothing decides.
    #[test]
    fn f6_is_judged_on_a_witness_below_the_factors_and_decides_nothing() {
        let popularity = (POPULARITY.to_string(), draws(&[0.3; 19], 0.01));
        let mut ials_means = vec![0.1; 19];
        ials_means[3] = 0.5;
        let ials = (IALS.to_string(), draws(&ials_means, 0.01));
        let als = (ALS.to_string(), draws(&[0.1; 19], 0.01));
        let claim = f6(&[popularity.clone(), als.clone(), ials]);
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        let reading = &claim.readings[0];
        assert!(reading.post_hoc);
        assert_eq!(reading.verdict, Holds);
        assert!(reading.tests[0].subject.contains("L = 4"), "{}", reading.tests[0].subject);
        assert_eq!(claim.verdict, Inconclusive);
        let never = f6(&[popularity, als]);
        assert_eq!(never.readings[0].verdict, Fails);
    }

    #[test]
    fn f5_needs_every_least_squares_fold_in_at_the_fraction() {
        let weak = splits(
            false,
            &[
                (ALS, vec![("ndcg@50", five(0.2, 0.01))]),
                (IALS, vec![("ndcg@50", five(0.4, 0.01))]),
            ],
        );
        let strong = |als: Vec<f64>, ials: f64| {
            splits(
                false,
                &[
                    (ALS, vec![("ndcg@50", als)]),
                    ("PureSVD", vec![("ndcg@50", five(0.1, 0.0))]),
                    (IALS, vec![("ndcg@50", five(0.4 * ials, 0.01 * ials))]),
                ],
            )
        };
        let scaled = |ratio: f64| five(0.2 * ratio, 0.01 * ratio);
        for (als, ials, verdict) in [
            (scaled(0.95), 0.95, Holds),
            (scaled(0.85), 0.95, Fails),
            (scaled(1.2), 0.5, Fails),
            // 0.9 × weak plus draws that straddle it.
            (vec![0.16, 0.20, 0.18, 0.15, 0.21], 0.95, Inconclusive),
        ] {
            let claim = f5(&weak, &strong(als.clone(), ials));
            assert_eq!(claim.verdict, verdict, "{als:?} {ials}");
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        }
        // The folds of one split give a dependent interval, and say so.
        let claim = f5(&weak, &strong(scaled(0.95), 0.95));
        assert_eq!(claim.readings[0].tests[0].effect.interval, IntervalKind::Dependent);
        assert!(claim.measured.contains("5 folds of one split, not independent"));
        // A folded model missing decides nothing.
        let only_als = splits(false, &[(ALS, vec![("ndcg@50", scaled(0.95))])]);
        assert_eq!(f5(&weak, &only_als).verdict, Inconclusive);
        // Without item popularity there is no placebo, and the claim says why.
        assert_eq!(claim.no_placebo.as_deref(), Some(F5_NO_PLACEBO));
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
    }

    #[test]
    fn f5_is_untestable_where_item_popularity_reaches_the_same_ratio() {
        // Folded in, both models keep 95% of their weak NDCG@50; item popularity, which
        // ignores the history, keeps `popularity` of its own.
        let run = |popularity: f64| {
            let model = |label, mean: f64, ratio: f64| {
                (label, vec![("ndcg@50", five(mean * ratio, 0.01 * ratio))])
            };
            let weak = splits(
                false,
                &[model(ALS, 0.2, 1.0), model(IALS, 0.4, 1.0), model(POPULARITY, 0.3, 1.0)],
            );
            let strong = splits(
                false,
                &[
                    model(ALS, 0.2, 0.95),
                    model(IALS, 0.4, 0.95),
                    model(POPULARITY, 0.3, popularity),
                ],
            );
            f5(&weak, &strong)
        };
        let claim = run(1.0);
        let placebo = claim.readings[0].placebo.as_ref().unwrap();
        assert_eq!(placebo.model, POPULARITY);
        assert_eq!(placebo.tests[0].subject, "NDCG@50: strong − 0.9 × weak, item popularity");
        assert!(placebo.passes());
        assert_eq!(claim.readings[0].verdict, Verdict::Untestable);
        assert_eq!(claim.verdict, Verdict::Untestable);
        assert!(claim.reason().contains("placebo item popularity passes"), "{}", claim.reason());
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
        assert!(claim.no_placebo.is_none());
        // Where popularity loses more than the fraction, the test can tell, and decides.
        let claim = run(0.5);
        assert!(!claim.readings[0].placebo.as_ref().unwrap().passes());
        assert_eq!(claim.verdict, Holds);
    }

    #[test]
    fn every_reading_records_who_fixed_its_choices_and_none_is_the_papers() {
        let (h, a) = ranking(five(0.90, 0.001), [0.05, 0.10], false);
        let f1 = with_readings(
            resting_on(f1(&h, &a), &choices::post_ndcg()),
            "post",
            vec![("gain = rating", resting_on(f1(&h, &a), &choices::gain_rating()))],
        );
        assert_eq!(f1.verdict, Holds);
        assert!(f1.provenance_problems().is_empty(), "{:?}", f1.provenance_problems());
        let post = &f1.readings[0];
        // The post's code fixes the NDCG; the threshold 0.95 and ALS's fit are ours, with
        // no sensitivity: the reading is not the paper's.
        assert!(!post.primary);
        let by = |what: &str| {
            post.choices.iter().find(|c| c.what == what).map(|c| c.by.short()).unwrap()
        };
        assert_eq!(by("NDCG's gain"), "code validate.py:46");
        assert_eq!(by("NDCG's ideal DCG"), "code relevances.py:18");
        assert_eq!(by("NDCG's lower bound"), "code validate.py:89");
        assert_eq!(by("candidates"), "text Recommendation as ranking");
        assert_eq!(by("close to the best"), "ours");
        let fit = post.choices.iter().find(|c| c.what == "ALS (RMSE)'s fit").unwrap();
        assert_eq!((fit.kind, fit.by.short().as_str()), (ChoiceKind::ModelFit, "ours"));
        assert!(fit.value.contains("count-weighted"));
        assert_eq!(
            f1.readings[1].choices.iter().find(|c| c.what == "NDCG's gain").unwrap().by.short(),
            "ours"
        );
        // A reading resting on the post's code alone would be tagged the paper's.
        let test = Test::new("d", Rule::above(NOISE), Effect::exact(0.1));
        let bare = Claim::new(
            "F0",
            "s",
            Quote { section: "§".into(), words: "w".into() },
            "m",
            vec![Reading::new("r", vec![test])],
        );
        let tagged = with_readings(resting_on(bare, &choices::post_ndcg()), "post", vec![]);
        assert!(tagged.readings[0].primary);
    }
}
