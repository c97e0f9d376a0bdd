//! The choices schein2005's readings rest on, each with who fixed it: the paper's words
//! (quoted from the author's draft, `seeds/schein2005-croc.txt`) or ours, and why.

use recs_bench::report::{Choice, ChoiceKind};

/// The name of the pooled ROC's tie-order choice (a knob run at both extreme orders).
pub(super) const TIE_ORDER: &str = "tie order of the pooled ROC";
/// The name of the MS Web aspect model's fit (a knob run at both tempering ends).
pub(super) const ASPECT_FIT: &str = "aspect model fit";
/// The name of the person/actor aspect model's fit (a knob run at both tempering ends).
pub(super) const PERSON_ACTOR_FIT: &str = "person/actor aspect model fit";

/// The paper reads MS Web's test cases as the training people with the same case ids.
pub(super) fn same_people() -> Choice {
    Choice::text(
        ChoiceKind::Protocol,
        "MS Web's test cases",
        "the training people with the same case id (the paper counts 32,712 people, the \
         training file's; its ROC step of 156,898 predictions for 59 points fits the \
         9,256,692 candidates this gives, a count we derived)",
        "§5.2",
        "The Microsoft web log data set consists of 32,712 anonymous users and 286 vRoots \
         (URL prefixes). The data set comes with predetermined train/test splits of \
         98,655/15,192 positive events respectively.",
    )
}

/// A reading of ours: the test cases as new people, folded in from some of their visits.
pub(super) fn new_people(name: &str) -> Choice {
    Choice::ours(
        ChoiceKind::Protocol,
        "MS Web's test cases",
        name,
        "the UCI description calls the test cases separate users, and their visits overlap \
         the same-id training person's no more than a random person's",
    )
}

/// The implicit test set: every person × vroot not in training.
pub(super) fn msweb_candidates() -> Choice {
    Choice::text(
        ChoiceKind::Protocol,
        "candidates",
        "every person × vroot pair not visited in training",
        "§5.1",
        "Test set events are taken from the cross product of Person × vRoot minus those \
         events that occur in the training set",
    )
}

/// LPCA's dimensions: the paper's validation chose |L| = 0, and ours chooses it too.
pub(super) fn lpca_dims() -> Choice {
    Choice::text(
        ChoiceKind::ModelFit,
        "LPCA dimensions",
        "|L| chosen by validation on a partition of the training data; |L| = 0 on every \
         repetition, as the paper found",
        "§6.1",
        "The LPCA model tested has latent dimension |L| = 0 ... The size |L| = 0 was chosen \
         during cross-validation on a training set partition",
    )
}

/// The aspect model's fit on MS Web: class count and tempering.
pub(super) fn aspect_fit() -> Choice {
    Choice::ours(
        ChoiceKind::ModelFit,
        ASPECT_FIT,
        "classes chosen by validation CROC AUC on 25% of each person's training visits; \
         tempering β searched from 1 down by held-out likelihood on 10% of the training cells",
        "the paper names tempered EM (§4.2.1) and 4 classes (§6.1) but neither its validation \
         criterion nor its β; both ends of the tempering, β = 1 and β = 0.6, are also run at \
         the paper's 4 classes",
    )
}

/// The person/actor aspect model's fit on MovieLens.
pub(super) fn person_actor_fit() -> Choice {
    Choice::ours(
        ChoiceKind::ModelFit,
        PERSON_ACTOR_FIT,
        "classes chosen by validation CROC AUC on a cold-start split of the training movies; \
         tempering β searched from 1 down by held-out likelihood on 10% of the training cells",
        "the paper names tempered EM (§4.2.1) and 6 classes (§6.2) but neither its validation \
         criterion nor its β; both ends of the tempering, β = 1 and β = 0.6, are also run at \
         the paper's 6 classes",
    )
}

/// Tied pairs of the pooled ROC count half.
pub(super) fn tie_order() -> Choice {
    Choice::ours(
        ChoiceKind::TieOrder,
        TIE_ORDER,
        "a tied (positive, negative) pair counts half: the expectation over every order",
        "the paper does not say how it ordered pairs scored alike; the expectation is the \
         order-free value, and both extreme orders are run",
    )
}

/// The cold-start split: 331 of 1682 movies at random.
pub(super) fn cold_split() -> Choice {
    Choice::text(
        ChoiceKind::Protocol,
        "cold-start split",
        "331 of the 1682 movies drawn at random as test movies, all 943 users; each repetition \
         draws its own",
        "§5.2",
        "In order to evaluate recommender systems under a cold-start scenario we split the \
         movies into two groups: 1351/331 (training/test) movies.",
    )
}

/// The cast: top-10 billing, actors in at least two movies.
pub(super) fn cast() -> Choice {
    Choice::text(
        ChoiceKind::Population,
        "actors",
        "the top-10 billed actors of each movie, actors in at least two movies",
        "§5.2",
        "We sped up model fitting by considering only actors billed in the top ten and \
         eliminating actors who appear in only one movie.",
    )
}

/// The conditional task's users and positives.
pub(super) fn conditional_users() -> Choice {
    Choice::text(
        ChoiceKind::Population,
        "conditional users and positives",
        "users with at least 40 training ratings; a test rating of 4 or more is a positive",
        "§6.3",
        "we perform conditional rating prediction only for users who have rated forty or more \
         movies in the training set ... Here we predict that a user rates a movie 4 or higher",
    )
}

/// User mean rating's ties on ROC: the expectation, as its CROC is the random one.
pub(super) fn conditional_ties() -> Choice {
    Choice::text(
        ChoiceKind::TieOrder,
        "order of a user's tied candidates",
        "at random (the expectation over orders), on ROC as on CROC",
        "§6.3",
        "The popularity recommender is created by using the mean rating for each person i as \
         the predicted rating for (p_i, m_j), for all m_j ... the mean rating popularity \
         recommender reduces to a random recommender when switching to the CROC curve",
    )
}

/// M1: one random order, as a plotted curve shows.
pub(super) fn random_in_practice() -> Choice {
    Choice::text(
        ChoiceKind::Comparison,
        "what is tested",
        "one random order of each user's tied candidates: where one plotted run falls",
        "§6.2",
        "the inclusion of the user popularity recommender in the CROC curve serves to test \
         whether random performance is close to a forty-five degree line in practice",
    )
}

/// M3's second reading: the region of interest.
pub(super) fn left_hand_side() -> Choice {
    Choice::text(
        ChoiceKind::Comparison,
        "region compared",
        "the ROC area up to a false-alarm rate of 0.3, divided by 0.3",
        "§3.3, §6.2",
        "we might have truncated the curve at a low false-alarm rate such as 0.3 ... especially \
         in the region of interest (the far left-hand side of the graph)",
    )
}

/// E1's test set, as the paper defines it.
pub(super) fn mae_every_candidate() -> Choice {
    Choice::text(
        ChoiceKind::Protocol,
        "eq. 11's test set",
        "every candidate of the implicit task, each with its outcome 0 or 1",
        "§7.3, §5.1",
        "the error is calculated as the absolute difference between a prediction value and the \
         actual test value (zero or one) ... The remaining events in the cross-product Person × \
         Movie are included in the test set",
    )
}

/// E1's other reading: the test events alone.
pub(super) fn mae_test_events() -> Choice {
    Choice::ours(
        ChoiceKind::Protocol,
        "eq. 11's test set",
        "the test events alone (every outcome 1)",
        "the usual reading of MAE on held-out events; shown beside the paper's",
    )
}

/// E1's predictions: each model's own output.
pub(super) fn mae_outputs() -> Choice {
    Choice::text(
        ChoiceKind::ModelFit,
        "prediction values",
        "each model's output as a probability: LPCA's σ(Θ), the aspect model's joint P(p, m), \
         popularity's shares, random's uniform numbers",
        "§7.3",
        "the aspect model ... the outputs define a probability distribution over pairs (p, m) \
         that sum to one: each individual P(p_i, m_j) is relatively close to zero",
    )
}

/// E2's decay.
pub(super) fn half_life_alpha() -> Choice {
    Choice::ours(
        ChoiceKind::Comparison,
        "R's decay",
        "α = 5",
        "the paper leaves α open ('a tunable parameter'); 5 is Breese et al.'s value",
    )
}
