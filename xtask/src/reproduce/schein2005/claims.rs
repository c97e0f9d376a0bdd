//! The paper's claims under the verdict model: each a statement, the paper's words, and
//! tests whose effects are paired over the experiments' repetitions.
//!
//! Every rule and tolerance here was fixed before the results it judges were read: `TIE`
//! for every comparison of two areas, MAEs or R (differences below it are not
//! differences), and the tolerances REPRODUCTIONS.md gives for M1 (0.01), M2 (0.02), M3
//! (0.03) and C1 (0.02); S3's curve gap is allowed 0.01 in hit rate.

use anyhow::{Context, Result};
use recs_bench::Results;
use recs_bench::report::{Claim, Quote, Reading, Test, UntestableCause};
use recs_bench::verdict::{Effect, IntervalKind, Rule, Verdict};

use super::{
    ASPECT, ASPECT_ATTR, HALF_LIFE_KEY, LPCA, NAIVE_BAYES, RANDOM, REGRESSION, USER_MEAN, USER_POP,
    side,
};

/// Differences below this are ties wherever a claim compares two models (areas, MAE, R).
pub(super) const TIE: f64 = 0.001;
/// S3: the largest hit-rate gap two "identical" CROC curves may show.
const CURVE_GAP: f64 = 0.01;

const ROC: &str = "roc_auc";
const CROC: &str = "croc_auc";

/// MS Web's test cases under one reading, with the results of its run.
pub(super) struct MsWebReading<'a> {
    /// The reading's name (`same people`, `new people, all but 1 visible`).
    pub(super) name: &'static str,
    /// The reading the paper's candidate count shows it used.
    pub(super) primary: bool,
    /// Why the reading cannot test S4 (the regression against LPCA on ROC), if it cannot:
    /// all-but-1 gives every judged person exactly one positive, and given-k shows the
    /// regression every judged person with the same k visits.
    pub(super) s4_decided: Option<&'static str>,
    pub(super) results: &'a Results,
    /// The largest hit-rate gap between the CROC curves of LPCA and the regression on the
    /// first repetition, and whether LPCA chose |L| = 0 there (then both are deterministic).
    pub(super) croc_gap: (f64, bool),
}

/// What the cold-start claims read.
pub(super) struct ColdStart<'a> {
    pub(super) fig4: &'a Results,
    pub(super) fig5: &'a Results,
    /// Each simulated random recommender's CROC AUC on the first fig4 split (one random
    /// order of every user's candidates per run).
    pub(super) random_runs: &'a [f64],
    /// The exact expected random CROC AUC on the first fig5 split, and user mean rating's
    /// exact CROC AUC there.
    pub(super) conditional_random: (f64, f64),
}

fn quote(section: &str, words: &str) -> Quote {
    Quote { section: section.into(), words: words.into() }
}

/// `a − b` of one key, paired over the repetitions of `results`.
fn pair(results: &Results, a: &str, b: &str, key: &str) -> Result<Effect> {
    results.paired_effect(a, b, key).with_context(|| format!("no `{key}` for `{a}` and `{b}`"))
}

/// One model's CROC AUC minus its ROC AUC, paired over the repetitions.
fn croc_gain(results: &Results, label: &str) -> Result<Effect> {
    results
        .difference((label, CROC), (label, ROC))
        .with_context(|| format!("no areas of `{label}`"))
}

fn reading(r: &MsWebReading<'_>, tests: Vec<Test>) -> Reading {
    let reading = Reading::new(r.name, tests);
    if r.primary { reading.primary() } else { reading }
}

/// Every claim, sorted by id.
pub(super) fn claims(msweb: &[MsWebReading<'_>], cold: &ColdStart<'_>) -> Result<Vec<Claim>> {
    let same = msweb.iter().find(|r| r.primary).context("no primary MS Web reading")?;
    let mut out = vec![
        s1(msweb)?,
        s2(msweb)?,
        s3(msweb)?,
        s4(msweb)?,
        m1(cold)?,
        m2(cold)?,
        m3(cold)?,
        c1(cold),
        c2(cold)?,
        c3(cold)?,
        e1(same.results, cold.fig4)?,
        e2(&[same.results, cold.fig4, cold.fig5])?,
    ];
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// The four models of Figure 3 by their labels and short names.
const FIG3: [(&str, &str); 4] =
    [(LPCA, "lpca"), (ASPECT, "aspect"), (REGRESSION, "regression"), (RANDOM, "random")];

fn s1(msweb: &[MsWebReading<'_>]) -> Result<Claim> {
    let mut readings = Vec::new();
    for r in msweb {
        let mut tests = Vec::new();
        for (i, &(a, short_a)) in FIG3.iter().enumerate() {
            for &(b, short_b) in &FIG3[i + 1..] {
                let roc = pair(r.results, a, b, ROC)?;
                // The pair in its ROC order; CROC must not put it the other way round.
                let (first, second, sign) = if roc.estimate >= 0.0 {
                    (short_a, short_b, 1.0)
                } else {
                    (short_b, short_a, -1.0)
                };
                let croc = pair(r.results, a, b, CROC)?;
                let croc = if sign > 0.0 { croc } else { negate(croc) };
                let oriented = if sign > 0.0 { roc } else { negate(roc) };
                // Where ROC does not decide the order, the CROC difference "in the ROC
                // order" may take either sign: its interval is the union of both.
                let (croc, order) = if Rule::above(TIE).decide(&oriented) == Verdict::Holds {
                    (croc, format!("ROC: {first} − {second} {}", oriented.describe(4)))
                } else {
                    let order =
                        format!("ROC order undecided: {first} − {second} {}", oriented.describe(4));
                    (either_sign(croc), order)
                };
                tests.push(Test::new(
                    format!("CROC AUC {first} − {second} in the ROC order ({order})"),
                    Rule::not_below(TIE),
                    croc,
                ));
            }
        }
        readings.push(reading(r, tests));
    }
    Ok(Claim::new(
        "S1",
        "MS Web: no pair of the four methods is ordered one way by ROC AUC and the other way by CROC AUC",
        quote(
            "§6.1",
            "in the Microsoft evaluation the relative rank of the regression method, aspect model, LPCA and random recommender remains constant between both ROC and CROC metrics",
        ),
        "for each pair, the CROC difference in the pair's ROC order must not fall below −0.001; \
         where the ROC interval does not decide the order, either orientation counts",
        readings,
    ))
}

/// An effect whose sign is not known: the union of its interval and its mirror image. A
/// point (one draw, or an exact value) has no interval to widen and stays as it is.
fn either_sign(e: Effect) -> Effect {
    if matches!(e.interval, IntervalKind::Single | IntervalKind::Exact) {
        return e;
    }
    let reach = e.low.abs().max(e.high.abs());
    Effect { low: -reach, high: reach, ..e }
}

fn negate(e: Effect) -> Effect {
    Effect { estimate: -e.estimate, low: -e.high, high: -e.low, ..e }
}

fn s2(msweb: &[MsWebReading<'_>]) -> Result<Claim> {
    let mut readings = Vec::new();
    for r in msweb {
        let tests = FIG3[..3]
            .iter()
            .map(|&(label, short)| {
                Ok(Test::new(
                    format!("CROC AUC − ROC AUC, {short}"),
                    Rule::above(TIE),
                    croc_gain(r.results, label)?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        readings.push(reading(r, tests));
    }
    Ok(Claim::new(
        "S2",
        "MS Web: every method's CROC AUC is above its ROC AUC",
        quote("§6.1", "the CROC curve areas for all methods are greater than the ROC areas"),
        "each model's CROC AUC minus its ROC AUC; the pooled ROC counts tied pairs as half \
         (the expectation over tie orders), a choice the paper does not state",
        readings,
    ))
}

fn s3(msweb: &[MsWebReading<'_>]) -> Result<Claim> {
    let mut readings = Vec::new();
    for r in msweb {
        let (gap, deterministic) = r.croc_gap;
        let tests = vec![
            Test::new(
                "CROC AUC lpca − regression",
                Rule::within(TIE),
                pair(r.results, LPCA, REGRESSION, CROC)?,
            ),
            Test::new(
                "largest hit-rate gap between the two CROC curves, first repetition",
                Rule::not_above(CURVE_GAP),
                Effect::mean_of(&[gap], true, deterministic),
            ),
        ];
        readings.push(reading(r, tests));
    }
    Ok(Claim::new(
        "S3",
        "MS Web: LPCA (|L| = 0) and the user/item regression have the same CROC curve",
        quote(
            "§6.1",
            "The LPCA and user/item popularity recommender perform identically on the CROC curve",
        ),
        "LPCA's |L| is chosen by validation on each repetition (the per-split table lists it)",
        readings,
    ))
}

fn s4(msweb: &[MsWebReading<'_>]) -> Result<Claim> {
    let mut readings = Vec::new();
    for r in msweb {
        let test = Test::new(
            "ROC AUC regression − lpca",
            Rule::below(TIE),
            pair(r.results, REGRESSION, LPCA, ROC)?,
        );
        readings.push(match r.s4_decided {
            Some(why) => {
                Reading::untestable(r.name, UntestableCause::Construction, why, vec![test])
            }
            None => reading(r, vec![test]),
        });
    }
    Ok(Claim::new(
        "S4",
        "MS Web: on ROC the user/item regression is below LPCA",
        quote(
            "§6.1",
            "in the ROC curve the combined user/item popularity recommender is inferior to LPCA indicating overfitting on the part of the user/item popularity method",
        ),
        "ROC AUC of the regression minus LPCA's",
        readings,
    ))
}

fn m1(cold: &ColdStart<'_>) -> Result<Claim> {
    let expected = pair_with_constant(cold.fig4, USER_POP, CROC, 0.5)?;
    Ok(Claim::new(
        "M1",
        "MovieLens cold start: user popularity is a random recommender on CROC, with a CROC AUC within 0.01 of 0.5",
        quote(
            "§6.2",
            "The user popularity recommender becomes a random recommender in the CROC curve. Since this particular evaluation allows us to apply Theorem 1, the inclusion of the user popularity recommender in the CROC curve serves to test whether random performance is close to a forty-five degree line in practice",
        ),
        format!(
            "one random order of each user's tied candidates ({} simulated runs on the first \
             split): CROC AUC − 0.5 {}; expected over tie orders: {}",
            cold.random_runs.len(),
            Effect::range_of(cold.random_runs).minus(0.5).describe(4),
            expected.describe(4)
        ),
        vec![
            Reading::new(
                "one random order of each user's tied candidates, as a plotted curve shows it",
                vec![Test::new(
                    "CROC AUC − 0.5 of one random run (the range where one run falls)",
                    Rule::within(0.01),
                    Effect::range_of(cold.random_runs).minus(0.5),
                )],
            )
            .primary(),
            Reading::untestable(
                "expected over the orders of tied candidates",
                UntestableCause::Construction,
                "user popularity gives all of a user's candidates one score, so its expected \
                 CROC curve is the random one, which Theorem 1 makes the diagonal",
                vec![Test::new("CROC AUC − 0.5", Rule::within(0.01), expected)],
            ),
        ],
    ))
}

/// A model's value of `key` minus `constant`, over the repetitions.
fn pair_with_constant(results: &Results, label: &str, key: &str, constant: f64) -> Result<Effect> {
    Ok(results
        .effect(label, key)
        .with_context(|| format!("no `{key}` for `{label}`"))?
        .minus(constant))
}

/// A claim with one reading, as the paper describes it, judged by one test.
fn as_described([id, statement]: [&str; 2], paper: Quote, measured: &str, test: Test) -> Claim {
    Claim::new(
        id,
        statement,
        paper,
        measured,
        vec![Reading::new("as the paper describes", vec![test])],
    )
}

fn m2(cold: &ColdStart<'_>) -> Result<Claim> {
    Ok(as_described(
        [
            "M2",
            "MovieLens cold start: the aspect model's CROC AUC is above user popularity's by more than 0.02",
        ],
        quote(
            "§6.2",
            "the aspect model performs noticeably better than the user popularity recommender according to the CROC curve",
        ),
        "CROC AUC of the person/actor aspect model minus user popularity's",
        Test::new(
            "CROC AUC aspect − user popularity",
            Rule::above(0.02),
            pair(cold.fig4, ASPECT_ATTR, USER_POP, CROC)?,
        ),
    ))
}

fn m3(cold: &ColdStart<'_>) -> Result<Claim> {
    Ok(as_described(
        [
            "M3",
            "MovieLens cold start: the ROC AUCs of the aspect model and user popularity are within 0.03",
        ],
        quote(
            "§6.2",
            "the aspect model and popularity recommender have nearly identical performance characteristics in the ROC case",
        ),
        "ROC AUC of the person/actor aspect model minus user popularity's",
        Test::new(
            "ROC AUC aspect − user popularity",
            Rule::within(0.03),
            pair(cold.fig4, ASPECT_ATTR, USER_POP, ROC)?,
        ),
    ))
}

fn c1(cold: &ColdStart<'_>) -> Claim {
    let (random, user_mean) = cold.conditional_random;
    Claim::new(
        "C1",
        "Conditional rating: user mean rating is a random recommender on CROC",
        quote(
            "§6.3",
            "the mean rating popularity recommender reduces to a random recommender when switching to the CROC curve, though Theorem 1 does not apply to this evaluation",
        ),
        format!(
            "first split: CROC AUC {user_mean:.4}, the exact expected random CROC AUC {random:.4} \
             (users have different numbers of candidates, so it is not 0.5)"
        ),
        vec![Reading::untestable(
            "as the paper describes",
            UntestableCause::Construction,
            "user mean rating gives all of a user's candidates one score, so on CROC it is the \
             random recommender whatever the data",
            vec![Test::new(
                "CROC AUC − expected random CROC AUC, first split",
                Rule::within(0.02),
                Effect::exact(user_mean - random),
            )],
        )],
    )
}

fn c2(cold: &ColdStart<'_>) -> Result<Claim> {
    Ok(as_described(
        ["C2", "Conditional rating: naive Bayes' CROC AUC is above user mean rating's"],
        quote(
            "§6.3",
            "according to the CROC evaluation naïve Bayes method is superior to the random recommender (the popularity method)",
        ),
        "CROC AUC of naive Bayes minus user mean rating's",
        Test::new(
            "CROC AUC naive Bayes − user mean",
            Rule::above(TIE),
            pair(cold.fig5, NAIVE_BAYES, USER_MEAN, CROC)?,
        ),
    ))
}

fn c3(cold: &ColdStart<'_>) -> Result<Claim> {
    Ok(as_described(
        ["C3", "Conditional rating: on ROC user mean rating is at least as good as naive Bayes"],
        quote("§6.3", "The mean rating method outperforms all other methods by ROC standards"),
        "ROC AUC of user mean rating minus naive Bayes'",
        Test::new(
            "ROC AUC user mean − naive Bayes",
            Rule::not_below(TIE),
            pair(cold.fig5, USER_MEAN, NAIVE_BAYES, ROC)?,
        ),
    ))
}

/// E1 (§7.3): MAE misjudges the aspect models. Eq. 11's "test set" reads two ways on
/// implicit data (the test events, every outcome 1; or every candidate), and the paper
/// fixes neither.
fn e1(fig3: &Results, fig4: &Results) -> Result<Claim> {
    let mut readings = Vec::new();
    for (name, key) in [
        ("eq. 11 over the test events", side::MAE_EVENTS),
        ("eq. 11 over every candidate", side::MAE_ALL),
    ] {
        let mut tests = Vec::new();
        for (results, aspect, other) in [(fig3, ASPECT, RANDOM), (fig4, ASPECT_ATTR, USER_POP)] {
            tests.push(Test::new(
                format!("CROC AUC {aspect} − {other}"),
                Rule::above(TIE),
                pair(results, aspect, other, CROC)?,
            ));
            tests.push(Test::new(
                format!("MAE {aspect} − {other}"),
                Rule::above(TIE),
                pair(results, aspect, other, key)?,
            ));
        }
        readings.push(Reading::new(name, tests));
    }
    let mean = |results: &Results, label: &str, key: &str| {
        results.mean(label, key).with_context(|| format!("no `{key}` for `{label}`"))
    };
    Ok(Claim::new(
        "E1",
        "MAE (eq. 11, on the models' probabilities) ranks each aspect model below a model it beats on CROC",
        quote(
            "§7.3",
            "The aspect model is an example of a particular model that would incorrectly suffer from MAE evaluation; the outputs define a probability distribution over pairs (p, m) that sum to one",
        ),
        format!(
            "over the test events random's MAE ({:.4}) is also below LPCA's ({:.4}), so MAE \
             there misjudges every model with calibrated probabilities, not the aspect model \
             alone; over every candidate the aspect model has the lowest MAE ({:.4})",
            mean(fig3, RANDOM, side::MAE_EVENTS)?,
            mean(fig3, LPCA, side::MAE_EVENTS)?,
            mean(fig3, ASPECT, side::MAE_ALL)?
        ),
        readings,
    ))
}

/// Models that give every candidate of a user one score: on CROC, and on any per-user
/// measure such as R, they are the random recommender by construction.
const ONE_SCORE_PER_USER: [&str; 2] = [USER_POP, USER_MEAN];

/// E2 (§7.3): half-life utility R sides with CROC where ROC and CROC disagree.
fn e2(runs: &[&Results]) -> Result<Claim> {
    let mut tests = Vec::new();
    let mut all_against_random = true;
    for results in runs {
        let models = results.models();
        for (i, a) in models.iter().enumerate() {
            for b in &models[i + 1..] {
                let (Ok(roc), Ok(croc)) = (
                    pair(results, a.label(), b.label(), ROC),
                    pair(results, a.label(), b.label(), CROC),
                ) else {
                    continue;
                };
                let reversed = (roc.estimate > TIE && croc.estimate < -TIE)
                    || (roc.estimate < -TIE && croc.estimate > TIE);
                if !reversed {
                    continue;
                }
                all_against_random &= ONE_SCORE_PER_USER.contains(&a.label())
                    || ONE_SCORE_PER_USER.contains(&b.label());
                // R in the direction CROC orders the pair.
                let (first, second) = if croc.estimate > 0.0 {
                    (a.label(), b.label())
                } else {
                    (b.label(), a.label())
                };
                tests.push(Test::new(
                    format!("R (α = 5) {first} − {second}, the pair CROC puts {first} ahead of and ROC behind"),
                    Rule::above(TIE),
                    pair(results, first, second, HALF_LIFE_KEY)?,
                ));
            }
        }
    }
    let name = "pairs ordered oppositely by ROC and CROC AUC (estimates beyond TIE)";
    let reading = if tests.is_empty() {
        Reading::untestable(
            name,
            UntestableCause::Construction,
            "no pair of models is ordered oppositely by ROC and CROC",
            vec![],
        )
    } else if all_against_random {
        Reading::untestable(
            name,
            UntestableCause::Construction,
            "in every such pair one model gives all of a user's candidates one score, which R \
             and CROC both score as the random recommender: the test reduces to whether the \
             other model beats random, not to whether R agrees with CROC where the two could differ",
            tests,
        )
    } else {
        Reading::new(name, tests)
    };
    Ok(Claim::new(
        "E2",
        "Where ROC and CROC order two models oppositely, half-life utility R (α = 5) orders them as CROC does",
        quote(
            "§7.3",
            "The R statistic variant for implicit ratings bears similarities to the area under the CROC curve, essentially compressing the performance of all users into one value",
        ),
        "R differences of the pairs that ROC and CROC order oppositely",
        vec![reading],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_effect_of_unknown_sign_covers_both() {
        let e = Effect {
            estimate: 0.02,
            low: 0.01,
            high: 0.03,
            repetitions: 5,
            interval: IntervalKind::Independent,
        };
        let both = either_sign(e);
        assert_eq!((both.low, both.high), (-0.03, 0.03));
        assert_eq!(Rule::not_below(TIE).decide(&both), Verdict::Inconclusive);
        assert_eq!(Rule::not_below(TIE).decide(&either_sign(Effect::exact(0.0))), Verdict::Holds);
        // A point keeps its kind, so the report stays well formed.
        let one_draw = Effect::mean_of(&[0.02], true, false);
        assert!(either_sign(one_draw).problems().is_empty());
    }

    #[test]
    fn negating_an_effect_swaps_its_ends() {
        let e = Effect { estimate: 0.2, low: 0.1, high: 0.4, ..Effect::exact(0.0) };
        let n = negate(e);
        assert_eq!((n.estimate, n.low, n.high), (-0.2, -0.4, -0.1));
    }
}
