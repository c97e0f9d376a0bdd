//! `miscal@N` (Steck 2018) against an independent computation in numpy and scipy
//! (`tools/calibration_oracle.py`, fixture `tests/fixtures/calibration.json`) and, under
//! ties, against the list's expected attribute distribution over every order of the tie.

use std::path::PathBuf;

use proptest::prelude::*;
use recs_core::{IdMap, ItemAttributes, Judgments};
use recs_metrics::{Calibration, ItemFacts, Metric, Options, Scored, per_user_with};

mod ties;
use ties::orders_of;

fn attributes_of(rows: &[Vec<(u32, f32)>], n_attributes: usize) -> ItemAttributes {
    let vocabulary = IdMap::from_ids_sorted((0..n_attributes).map(|g| g.to_string())).unwrap();
    let pairs = rows
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().map(move |&(g, w)| (i as u32, g, w)));
    ItemAttributes::from_pairs(rows.len(), vocabulary, pairs).unwrap()
}

#[test]
fn equals_numpy_and_scipy_on_untied_lists() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/calibration.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let n_items = fixture["n_items"].as_u64().unwrap() as usize;
    let n_users = fixture["n_users"].as_u64().unwrap() as usize;
    let rows: Vec<Vec<(u32, f32)>> = fixture["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_f64().unwrap() as f32))
                .collect()
        })
        .collect();
    let attributes = attributes_of(&rows, fixture["n_attributes"].as_u64().unwrap() as usize);
    let train: Vec<(u32, u32)> = fixture["train"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32))
        .collect();
    let mut builder = Judgments::builder(n_users, n_items);
    let mut scores = Vec::new();
    let users = fixture["users"].as_array().unwrap();
    for entry in users {
        let items: Vec<u32> =
            entry["items"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        let grades: Vec<f32> = entry["grades"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        builder.push_user(entry["user"].as_u64().unwrap() as u32, &items, &grades).unwrap();
        scores
            .extend(entry["scores"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32));
    }
    let judgments = builder.build().unwrap();
    let scored = Scored::new(&judgments, &scores).unwrap();
    let mut checked = 0;
    for alpha in fixture["alphas"].as_array().unwrap() {
        let alpha = alpha.as_f64().unwrap();
        let calibration =
            Calibration::new(&attributes, &attributes, train.iter().copied(), n_users, alpha)
                .unwrap();
        let facts = ItemFacts { calibration: Some(&calibration), ..ItemFacts::default() };
        for k in fixture["depths"].as_array().unwrap() {
            let k = k.as_u64().unwrap() as usize;
            let values = per_user_with(&scored, &[Metric::Miscal(k)], &Options::default(), facts)
                .unwrap()
                .column(0);
            let expected = fixture["expected"][format!("{alpha}/miscal@{k}")].as_array().unwrap();
            assert_eq!(values.len(), expected.len());
            for (user, (got, want)) in values.iter().zip(expected).enumerate() {
                match want.as_f64() {
                    None => assert!(got.is_nan(), "user {user}, α {alpha}, @{k}: {got}"),
                    Some(want) => {
                        assert!(
                            (got - want).abs() < 1e-12,
                            "user {user}, α {alpha}, @{k}: {got} {want}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    // Every user but the one without an attributed history, at every α and depth.
    assert_eq!(checked, (users.len() - 1) * 6);
}

#[test]
fn is_refused_without_its_facts() {
    let mut builder = Judgments::builder(1, 2);
    builder.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
    let judgments = builder.build().unwrap();
    let scored = Scored::new(&judgments, &[0.5, 0.1]).unwrap();
    let facts = ItemFacts::default();
    let error = per_user_with(&scored, &[Metric::Miscal(1)], &Options::default(), facts);
    assert!(error.unwrap_err().to_string().contains("miscal@1"));
    // A calibration of other items is refused too.
    let attributes = attributes_of(&vec![vec![(0, 1.0)]; 3], 1);
    let calibration = Calibration::new(&attributes, &attributes, [(0, 0)], 1, 0.01).unwrap();
    let facts = ItemFacts { calibration: Some(&calibration), ..ItemFacts::default() };
    assert!(per_user_with(&scored, &[Metric::Miscal(1)], &Options::default(), facts).is_err());
}

proptest! {
    #[test]
    fn under_ties_it_is_the_divergence_of_the_expected_list(
        n in 2usize..7,
        k in 1usize..6,
        alpha in 0.001f64..1.0,
        seed in any::<u64>(),
    ) {
        let mut state = seed;
        let mut next = |m: u64| recs_core::splitmix64(&mut state) % m;
        // Every item has an attribute, so every list's distribution has the same weight.
        let rows: Vec<Vec<(u32, f32)>> = (0..n)
            .map(|_| {
                let first = next(4) as u32;
                let mut row = vec![(first, 1.0 + next(3) as f32)];
                let second = next(4) as u32;
                if second != first {
                    row.push((second, 1.0));
                }
                row.sort_by_key(|&(g, _)| g);
                row
            })
            .collect();
        let attributes = attributes_of(&rows, 4);
        let history: Vec<(u32, u32)> =
            (0..n as u32).filter(|_| next(2) == 1).map(|i| (0, i)).chain([(0, 0)]).collect();
        let calibration = Calibration::new(&attributes, &attributes, history, 1, alpha).unwrap();
        let scores: Vec<f32> = (0..n).map(|_| next(3) as f32).collect();
        let mut builder = Judgments::builder(1, n);
        let items: Vec<u32> = (0..n as u32).collect();
        builder.push_user(0, &items, &vec![1.0; n]).unwrap();
        let judgments = builder.build().unwrap();
        let scored = Scored::new(&judgments, &scores).unwrap();
        let facts = ItemFacts { calibration: Some(&calibration), ..ItemFacts::default() };
        let got = per_user_with(&scored, &[Metric::Miscal(k)], &Options::default(), facts)
            .unwrap()
            .summary(0)
            .value
            .unwrap();
        // The mean over the tie's orders of each order's list distribution.
        let distribution = |item: usize| {
            let total: f64 = rows[item].iter().map(|&(_, w)| f64::from(w)).sum();
            let mut d = [0.0f64; 4];
            for &(g, w) in &rows[item] {
                d[g as usize] = f64::from(w) / total;
            }
            d
        };
        let orders = orders_of(&scores);
        let mut q = [0.0f64; 4];
        for order in &orders {
            let list = &order[..k.min(n)];
            for &item in list {
                for (g, v) in distribution(item).iter().enumerate() {
                    q[g] += v / list.len() as f64 / orders.len() as f64;
                }
            }
        }
        let p = calibration.history(0);
        let want: f64 = p
            .iter()
            .map(|&(g, pg)| pg * (pg / ((1.0 - alpha) * q[g as usize] + alpha * pg)).ln())
            .sum();
        prop_assert!((got - want).abs() < 1e-12, "{} against {}", got, want);
    }
}
