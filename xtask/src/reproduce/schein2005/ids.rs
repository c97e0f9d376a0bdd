//! Does an MS Web test case's id name its training person? The facts S4 rests on.
//!
//! Under the paper's reading a test case is the training person with the same case id,
//! and the regression's user term is that person's training activity. If the ids named
//! the same people, a case's test visits would overlap that person's training visits more
//! than a random person's, and its activity would say something about its test visits.
//! This module counts both against random pairings of the ids: the overlap of each test
//! case's visits with the training visits of the same-id person (the visits the judgments
//! drop as known), the same overlap when each case is paired with a training person drawn
//! at random (a seeded permutation of the people, per draw), and the correlation between a
//! case's number of test visits and its same-id person's training activity.

use anyhow::{Context, Result};
use recs_bench::report::{Effect, Table};
use recs_core::Interactions;
use serde_json::json;

/// Random pairings drawn.
pub(super) const DRAWS: usize = 200;

/// What the ids show.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct IdFacts {
    /// Test cases (people with a test visit).
    pub(super) cases: usize,
    /// Test visits already among the same-id person's training visits.
    pub(super) shared: usize,
    /// The same count when each case is paired with a random training person: where one
    /// pairing falls (central 95% of [`DRAWS`] draws).
    pub(super) random: Effect,
    /// Pearson correlation, over the cases, of their test visits and their same-id
    /// person's training visits.
    pub(super) correlation: f64,
    /// The regression's smallest slope in an item's share (`β2 + β3·a`) over every share of
    /// visits `a` a judged person can show it under any reading (0 to the largest share of
    /// a training person or a test case), and that largest share.
    /// `None` until measured ([`ms_web`] measures it).
    pub(super) slope: Option<(f64, f64)>,
}

/// The facts of `train` and `test` (the same user index space: the paper's reading).
pub(super) fn id_facts(train: &Interactions, test: &Interactions, seed: u64) -> IdFacts {
    let cases: Vec<u32> =
        (0..test.n_users() as u32).filter(|&u| !test.user_items(u).is_empty()).collect();
    let people = train.n_users();
    let overlap = |case: u32, person: u32| -> usize {
        if person as usize >= people {
            return 0;
        }
        let known = train.user_items(person);
        test.user_items(case).iter().filter(|i| known.binary_search(i).is_ok()).count()
    };
    let shared = cases.iter().map(|&u| overlap(u, u)).sum();
    let mut state = seed ^ 0x0001_D50F_CA5E;
    let mut draws = Vec::with_capacity(DRAWS);
    for _ in 0..DRAWS {
        // A random training person for each case: a uniform draw with replacement is what
        // "a random pairing" of one case means; people are drawn independently per case.
        let total: usize = cases
            .iter()
            .map(|&u| {
                let person = (recs_core::splitmix64(&mut state) % people as u64) as u32;
                overlap(u, person)
            })
            .sum();
        draws.push(total as f64);
    }
    let xs: Vec<f64> = cases.iter().map(|&u| test.user_items(u).len() as f64).collect();
    let ys: Vec<f64> = cases
        .iter()
        .map(|&u| if (u as usize) < people { train.user_items(u).len() as f64 } else { 0.0 })
        .collect();
    IdFacts {
        cases: cases.len(),
        shared,
        random: Effect::range_of(&draws),
        correlation: pearson(&xs, &ys),
        slope: None,
    }
}

/// The regression's (§4.4) smallest slope in an item's share over the shares of visits a
/// judged person can have, and the largest such share. Within one person the regression
/// is affine in the item's share with slope `β2 + β3·a` (`a` the person's share of visits);
/// where that slope is positive the person's candidates are ordered as item popularity
/// orders them. The slope is affine in `a`, so its smallest value over `[0, a_max]` is at
/// an end; `a_max` is the largest share of a training person, or of a test case with all
/// its visits visible (no reading shows a case more).
fn regression_slope(train: &Interactions, test: &Interactions) -> Result<(f64, f64)> {
    use recs_bench::models::baseline::UserItemPopularityParams;
    use recs_core::{Fit, TrainData};
    let model = UserItemPopularityParams::new().fit(&TrainData::new(train, 1))?;
    let [_, _, b2, b3] = model.coefficients();
    let items = train.n_items() as f64;
    let longest = (0..train.n_users() as u32)
        .map(|u| train.user_items(u).len())
        .chain((0..test.n_users() as u32).map(|u| test.user_items(u).len()))
        .max()
        .unwrap_or(0);
    let a_max = longest as f64 / items;
    Ok((b2.min(b2 + b3 * a_max), a_max))
}

/// The Pearson correlation of `xs` and `ys` (NaN when either is constant).
fn pearson(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    sxy / (sxx * syy).sqrt()
}

/// The facts of MS Web as the paper reads it, loaded through `resolver`.
pub(super) fn ms_web(resolver: &recs_data::Resolver, seed: u64) -> Result<IdFacts> {
    let data = recs_data::load_named("msweb", resolver)?;
    let test = data.test.as_ref().context("MS Web has no test part")?;
    let slope = regression_slope(&data.interactions, test)?;
    Ok(IdFacts { slope: Some(slope), ..id_facts(&data.interactions, test, seed) })
}

/// The facts as a table.
pub(super) fn table(facts: &IdFacts) -> Table {
    Table {
        name: format!(
            "MS Web's test case ids read as the training people: test visits already among the \
             same-id person's training visits, against a random training person for each case \
             (central 95% of {DRAWS} draws), and the correlation of a case's test visits with \
             its same-id person's training activity; and the regression's smallest slope in an \
             item's share (S3)"
        ),
        columns: [
            "quantity",
            "value",
            "random pairing: mean",
            "random pairing: low",
            "random pairing: high",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![
            vec![json!("test cases"), json!(facts.cases), json!(null), json!(null), json!(null)],
            vec![
                json!("test visits among the same-id person's training visits"),
                json!(facts.shared),
                json!(facts.random.estimate),
                json!(facts.random.low),
                json!(facts.random.high),
            ],
            vec![
                json!("correlation: test visits and the same-id person's training visits"),
                json!(facts.correlation),
                json!(null),
                json!(null),
                json!(null),
            ],
            vec![
                json!(format!(
                    "the regression's smallest slope in an item's share, over a person's share \
                     of visits from 0 to {:.4}",
                    facts.slope.map_or(f64::NAN, |s| s.1)
                )),
                json!(facts.slope.map(|s| s.0)),
                json!(null),
                json!(null),
                json!(null),
            ],
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event};

    fn interactions(rows: &[&[u32]], n_items: usize) -> Interactions {
        let events = rows.iter().enumerate().flat_map(|(u, items)| {
            items.iter().map(move |&i| Event {
                user: u as u32,
                item: i,
                value: 1.0,
                timestamp: None,
            })
        });
        Interactions::from_events(rows.len(), n_items, events, DuplicatePolicy::Error).unwrap()
    }

    #[test]
    fn shared_visits_count_the_same_id_person_and_random_pairings_scatter() {
        // Person 0 visited 0 and 1, person 1 visited 2; cases 0 and 1 repeat them.
        let train = interactions(&[&[0, 1], &[2], &[3]], 5);
        let test = interactions(&[&[0, 4], &[2], &[]], 5);
        let facts = id_facts(&train, &test, 7);
        assert_eq!((facts.cases, facts.shared), (2, 2));
        assert!(facts.random.estimate < 2.0, "{:?}", facts.random);
        assert_eq!(facts.random.repetitions, DRAWS);
        // Test visits 2 and 1 against training activity 2 and 1: correlation 1.
        assert!((facts.correlation - 1.0).abs() < 1e-12);
        assert_eq!(id_facts(&train, &test, 7), facts, "seeded");
    }

    #[test]
    fn the_smallest_slope_is_taken_at_an_end_of_the_shares() {
        use recs_bench::models::baseline::UserItemPopularityParams;
        use recs_core::{Fit, TrainData};
        // The longest history is the test case's 3 visits of 5 items: shares 0 to 0.6.
        let train = interactions(&[&[0, 1], &[0], &[0, 2], &[1]], 5);
        let test = interactions(&[&[2, 3, 4], &[], &[], &[]], 5);
        let (slope, largest) = regression_slope(&train, &test).unwrap();
        assert!((largest - 0.6).abs() < 1e-12);
        let model = UserItemPopularityParams::new().fit(&TrainData::new(&train, 1)).unwrap();
        let [_, _, b2, b3] = model.coefficients();
        let ends = [b2, b2 + b3 * 0.6];
        assert_eq!(slope, ends[0].min(ends[1]));
        // Every share in between has a slope at least the smallest.
        for k in 0..=6 {
            assert!(b2 + b3 * f64::from(k) / 10.0 >= slope - 1e-12);
        }
    }
}
