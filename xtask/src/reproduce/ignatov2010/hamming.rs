//! Figure 1 of the paper (§3): the distance-based similarity `s = 1 / (1 + d)` against the
//! Hamming distance `d` of two binary vectors, computed by the kNN models' own `hamming`
//! similarity (not by the formula), so that the figure shows what the models use.

use anyhow::{Context, Result, bail};
use recs_bench::models::knn::{ItemKnnParams, KnnParams, Similarity};
use recs_bench::report::{
    Choice, ChoiceKind, Claim, Effect, Quote, Reading, Rule, Table, Test, UntestableCause,
};
use recs_bench::{Figure, Line};
use recs_core::{DuplicatePolicy, Event, Fit, Interactions, TrainData};
use serde_json::json;

/// The largest Hamming distance of the figure.
pub(super) const MAX_DISTANCE: u32 = 10;

/// Tolerance of I10: the models store similarities as `f32`.
const F32_ROUNDING: f64 = 1e-6;

/// `(d, s)` for `d = 0..=max`: the similarity the item-kNN model keeps between a reference
/// item column and a column at Hamming distance `d` from it.
///
/// Over `max + 1` users, the reference item was taken by every user, and the item of
/// distance `d` by all but the last `d` users (so it differs in `d` entries and always has
/// an event: a column without events is never a neighbour).
pub(super) fn curve(max: u32) -> Result<Vec<(u32, f64)>> {
    let n_users = max + 1;
    let mut events = Vec::new();
    for d in 0..=max {
        for user in 0..n_users - d {
            // Item 0 is the reference; item d + 1 lies at distance d.
            events.push(Event::new(user, d + 1, 1.0));
        }
    }
    events.extend((0..n_users).map(|user| Event::new(user, 0, 1.0)));
    let items = max as usize + 2;
    let data = Interactions::from_events(n_users as usize, items, events, DuplicatePolicy::Error)?;
    let params = KnnParams::new().k(items).similarity(Similarity::Hamming);
    let model = ItemKnnParams::new(params)?.fit(&TrainData::new(&data, 0))?;
    let (neighbours, similarities) = model.neighbours(0);
    (0..=max)
        .map(|d| {
            let at = neighbours.binary_search(&(d + 1)).ok().with_context(|| {
                format!("Figure 1: the column at Hamming distance {d} is not a neighbour")
            })?;
            Ok((d, f64::from(similarities[at])))
        })
        .collect()
}

/// The table of Figure 1: the models' similarity beside `1 / (1 + d)`.
pub(super) fn table(curve: &[(u32, f64)]) -> Table {
    Table {
        name: "Figure 1: similarity against Hamming distance, as item-kNN's `hamming` \
               similarity computes it, beside 1 / (1 + d)"
            .into(),
        columns: ["Hamming distance d", "similarity (model)", "1 / (1 + d)"]
            .map(String::from)
            .to_vec(),
        rows: curve
            .iter()
            .map(|&(d, s)| vec![json!(d), json!(s), json!(1.0 / (1.0 + f64::from(d)))])
            .collect(),
    }
}

/// The figure itself, shown under the `similarities` experiment.
pub(super) fn figure(curve: &[(u32, f64)]) -> Figure {
    let line = Line {
        label: "hamming similarity".into(),
        points: curve.iter().map(|&(d, s)| [f64::from(d), s]).collect(),
        band: Vec::new(),
        markers: Vec::new(),
    };
    Figure::lines(
        "similarities",
        "fig1-hamming.svg",
        "Figure 1: similarity versus Hamming distance",
        ["Hamming distance", "similarity"],
        &[line],
    )
}

/// Why I10 cannot fail: it is arithmetic on §3's own formula.
const BY_DEFINITION: &str = "s = 1 / (1 + d) gives s(1) = 1/2, and its steps s(d) − s(d + 1) \
     = 1 / ((d + 1)(d + 2)) shrink with d, so the first is the largest: the claim follows from \
     §3's formula whatever the data, and the tests only check that the models compute that \
     formula";

/// The similarity §3 states, which the models' `hamming` similarity implements.
fn formula() -> Choice {
    Choice::text(
        ChoiceKind::ModelFit,
        "similarity from a Hamming distance",
        "s = 1 / (1 + d), the kNN models' `hamming` similarity",
        "§3",
        "The simplest way to calculate the similarity then is to apply the following formula \
         $s(x, y) = \\frac{1}{1+d(x,y)}$",
    )
}

/// I10: at Hamming distance 1 the similarity is already 1/2 (exact: fixed vectors, no
/// random choice), and the step from d = 0 to d = 1 is the largest of the curve. Both hold
/// by the definition s = 1 / (1 + d), so the reading is untestable by construction, its
/// tests kept as evidence that the models compute §3's formula.
pub(super) fn claim(curve: &[(u32, f64)]) -> Result<Claim> {
    let at = |d: u32| curve.iter().find(|p| p.0 == d).map(|p| p.1);
    let (Some(s0), Some(s1)) = (at(0), at(1)) else { bail!("I10: no similarity at d = 0, 1") };
    let largest_later_step =
        curve.windows(2).skip(1).map(|w| w[0].1 - w[1].1).fold(f64::NEG_INFINITY, f64::max);
    let tests = vec![
        Test::new("s(1) − 1/2", Rule::within(F32_ROUNDING), Effect::exact(s1 - 0.5)),
        Test::new(
            "(s(0) − s(1)) − the largest later step s(d) − s(d + 1)",
            Rule::above(F32_ROUNDING),
            Effect::exact((s0 - s1) - largest_later_step),
        ),
    ];
    Ok(Claim::new(
        "I10",
        "Figure 1: one differing component halves the Hamming similarity",
        Quote {
            section: "§3, Figure 1".into(),
            words: "for the next value d = 1 the similarity s is equal to 1/2 ... This rough \
                    character of s values can be easily seen in figure 1"
                .into(),
        },
        format!(
            "s(0) = {s0:.4}, s(1) = {s1:.4}, s({MAX_DISTANCE}) = {:.4}; the largest later \
             step is {largest_later_step:.4} (exact: fixed vectors, the models' own \
             similarity)",
            at(MAX_DISTANCE).unwrap_or(f64::NAN)
        ),
        vec![
            Reading::untestable(
                "the models' hamming similarity, s = 1 / (1 + d)",
                UntestableCause::Construction,
                BY_DEFINITION,
                tests,
            )
            .with_choices([formula()]),
        ],
    )
    .without_placebo("its only reading is untestable by construction already"))
}

#[cfg(test)]
mod tests {
    use recs_bench::report::Verdict;

    use super::*;

    #[test]
    fn the_models_similarity_is_one_over_one_plus_the_distance() {
        let curve = curve(MAX_DISTANCE).unwrap();
        assert_eq!(curve.len(), MAX_DISTANCE as usize + 1);
        for (d, s) in &curve {
            let expected = 1.0 / (1.0 + f64::from(*d));
            assert!((s - expected).abs() < 1e-7, "d = {d}: {s} against {expected}");
        }
        assert_eq!(table(&curve).rows.len(), curve.len());
    }

    #[test]
    fn figure_1_holds_by_definition_so_it_is_untestable_with_its_tests_as_evidence() {
        let claim = claim(&curve(MAX_DISTANCE).unwrap()).unwrap();
        assert_eq!(claim.verdict, Verdict::Untestable);
        let reading = &claim.readings[0];
        assert!(reading.reason().starts_with("by construction"), "{}", reading.reason());
        // The tests still show that the models compute §3's formula.
        assert!(reading.tests.iter().all(|t| t.verdict == Verdict::Holds));
        assert!(reading.choices.iter().all(|c| c.by.is_paper()));
        assert!(claim.provenance_problems().is_empty(), "{:?}", claim.provenance_problems());
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
    }
}
