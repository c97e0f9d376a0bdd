//! The popularity, novelty and exposure metrics: against RecTools and Elliot's definitions
//! (`tools/beyond_oracle.py`), by hand, and against brute force over every order of a tie.

use std::path::PathBuf;

use proptest::prelude::*;
use recs_core::{IdMap, ItemAttributes, Judgments};
use recs_metrics::{
    Diversity, HeadRule, ItemFacts, Metric, Options, Popularity, Scored, Similarity, TieBreak,
    ZeroPolicy, per_user, per_user_with,
};

mod ties;
use ties::orders_of;

const ALL: [&str; 13] = [
    "arp",
    "aplt",
    "aclt",
    "epc",
    "epc_flat",
    "efd",
    "efd_flat",
    "miuf",
    "gini",
    "entropy",
    "serendipity",
    "popreo",
    "poprsp",
];

fn metrics_at(k: usize) -> Vec<Metric> {
    ALL.iter().map(|name| format!("{name}@{k}").parse().unwrap()).collect()
}

#[test]
fn every_metric_matches_rectools_and_elliots_definitions_on_untied_lists() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/beyond.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let n_items = fixture["n_items"].as_u64().unwrap() as usize;
    let mut counts = vec![0u32; n_items];
    let mut train_users = std::collections::BTreeSet::new();
    for pair in fixture["train"].as_array().unwrap() {
        train_users.insert(pair[0].as_u64().unwrap());
        counts[pair[1].as_u64().unwrap() as usize] += 1;
    }
    let users = fixture["users"].as_array().unwrap();
    let mut builder = Judgments::builder(users.len(), n_items);
    let mut scores = Vec::new();
    for entry in users {
        let floats = |key: &str| -> Vec<f64> {
            entry[key].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
        };
        let items: Vec<u32> =
            entry["items"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        let grades: Vec<f32> = floats("grades").iter().map(|&g| g as f32).collect();
        builder.push_user(entry["user"].as_u64().unwrap() as u32, &items, &grades).unwrap();
        scores.extend(floats("scores").iter().map(|&s| s as f32));
    }
    let judgments = builder.build().unwrap();
    let scored = Scored::new(&judgments, &scores).unwrap();
    let share = fixture["head_share"].as_f64().unwrap();
    let popularity =
        Popularity::new(counts, &[], train_users.len(), HeadRule::Share(share)).unwrap();
    let expected = &fixture["expected"];
    let mut checked = 0;
    for k in fixture["depths"].as_array().unwrap() {
        let k = k.as_u64().unwrap() as usize;
        let metrics = metrics_at(k);
        let values = per_user_with(
            &scored,
            &metrics,
            &Options::default(),
            ItemFacts::popularity(&popularity),
        )
        .unwrap();
        for (column, metric) in metrics.iter().enumerate() {
            let want = expected[metric.to_string()].as_f64().unwrap();
            let got = values.summary(column).value.unwrap();
            assert!((got - want).abs() < 1e-12, "{metric}: {got} against {want}");
            checked += 1;
        }
    }
    assert_eq!(checked, 39);
    // Intra-list diversity against scipy's pdist (cosine and Jaccard distances).
    let sets: Vec<Vec<u32>> = fixture["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_array().unwrap().iter().map(|a| a.as_u64().unwrap() as u32).collect())
        .collect();
    let attributes = binary_attributes(&sets, 8);
    for similarity in [Similarity::Cosine, Similarity::Jaccard] {
        let diversity = Diversity::new(&attributes, similarity);
        let facts = ItemFacts { diversity: Some(&diversity), ..ItemFacts::default() };
        for k in [5, 10] {
            let values = per_user_with(&scored, &[Metric::Ild(k)], &Options::default(), facts);
            let got = values.unwrap().summary(0).value.unwrap();
            let want = expected[format!("ild_{similarity}@{k}")].as_f64().unwrap();
            assert!((got - want).abs() < 1e-12, "ild {similarity}@{k}: {got} against {want}");
        }
    }
    // The rank-discounted one against RankSys's EILD formula in numpy and scipy's cdist
    // (`tools/ild_disc_oracle.py`), on the same lists.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ild_disc.json");
    let discounted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut compared = 0;
    for similarity in [Similarity::Cosine, Similarity::Jaccard] {
        let diversity = Diversity::new(&attributes, similarity);
        let facts = ItemFacts { diversity: Some(&diversity), ..ItemFacts::default() };
        for k in [5, 10] {
            let values = per_user_with(&scored, &[Metric::IldDisc(k)], &Options::default(), facts);
            let got = values.unwrap().summary(0).value.unwrap();
            let key = format!("ild_disc_{similarity}@{k}");
            let want = discounted["expected"][&key].as_f64().unwrap();
            assert!((got - want).abs() < 1e-12, "{key}: {got} against {want}");
            compared += 1;
        }
    }
    assert_eq!(compared, 4);
}

/// RankSys's EILD of one untied list with every relevance 1 and logarithmic discounts,
/// `distance(a, b)` between the items at 0-based ranks `a` and `b`.
fn ranksys_eild(length: usize, distance: impl Fn(usize, usize) -> f64) -> f64 {
    let disc = |k: usize| 1.0 / ((k + 2) as f64).log2();
    let (mut value, mut norm) = (0.0, 0.0);
    for k in 0..length {
        let (mut inner, mut weights) = (0.0, 0.0);
        for l in (0..length).filter(|&l| l != k) {
            let w = disc((l as i64 - k as i64 - 1).max(0) as usize);
            inner += w * distance(k, l);
            weights += w;
        }
        value += disc(k) * inner / weights;
        norm += disc(k);
    }
    value / norm
}

/// Items 0..4 with attribute sets {0}, {0, 1}, {1}, {2}.
fn tied_sets() -> Vec<Vec<u32>> {
    vec![vec![0], vec![0, 1], vec![1], vec![2]]
}

/// `metric` of one user whose candidates 0..4 ([`tied_sets`]) score 0.9 | 0.5 0.5 0.5.
fn tied_list_value(metric: Metric, similarity: Similarity) -> Option<f64> {
    let attributes = binary_attributes(&tied_sets(), 3);
    let mut builder = Judgments::builder(1, 4);
    builder.push_user(0, &[0, 1, 2, 3], &[1.0, 0.0, 0.0, 0.0]).unwrap();
    let judgments = builder.build().unwrap();
    let scored = Scored::new(&judgments, &[0.9, 0.5, 0.5, 0.5]).unwrap();
    let diversity = Diversity::new(&attributes, similarity);
    let facts = ItemFacts { diversity: Some(&diversity), ..ItemFacts::default() };
    per_user_with(&scored, &[metric], &Options::default(), facts).unwrap().summary(0).value
}

#[test]
fn discounted_intra_list_diversity_by_hand_with_a_tie_at_the_cut_off() {
    let sets = tied_sets();
    let value = |k| tied_list_value(Metric::IldDisc(k), Similarity::Jaccard);
    // Top 2: two ranks, each weighing the other fully (gap weight disc(1) = 1 at 0-based
    // gap 0), so the value is the list's one distance: 1 − J(0, x), x one of 1, 2, 3
    // (J(0, 1) = 1/2, the others 0).
    let want = (0.5 + 1.0 + 1.0) / 3.0;
    assert!((value(2).unwrap() - want).abs() < 1e-15);
    // Top 3, item 0 first and two of the three tied after it: rank 1 weighs rank 2 by 1
    // and rank 3 by 1/log2(3); ranks 2 and 3 weigh each other and rank 1 by 1. By hand
    // for the list (0, a, b): (d0a + d0b/log2 3)/(1 + 1/log2 3) at weight 1, (d0a + dab)/2
    // at weight 1/log2 3, (d0b + dab)/2 at weight 1/2, over 1 + 1/log2 3 + 1/2.
    let d = |a: usize, b: usize| {
        let (x, y) = (&sets[a], &sets[b]);
        let shared = x.iter().filter(|v| y.contains(v)).count() as f64;
        1.0 - shared / ((x.len() + y.len()) as f64 - shared)
    };
    let l3 = 1.0 / 3f64.log2();
    let of_list = |a: usize, b: usize| {
        let first = (d(0, a) + d(0, b) * l3) / (1.0 + l3);
        (first + l3 * (d(0, a) + d(a, b)) / 2.0 + 0.5 * (d(0, b) + d(a, b)) / 2.0)
            / (1.0 + l3 + 0.5)
    };
    let pairs = [(1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)];
    let want: f64 = pairs.iter().map(|&(a, b)| of_list(a, b)).sum::<f64>() / 6.0;
    assert!((value(3).unwrap() - want).abs() < 1e-15, "{:?} against {want}", value(3));
    // The by-hand formula of one order is RankSys's.
    let eild = ranksys_eild(3, |x, y| d([0, 1, 2][x], [0, 1, 2][y]));
    assert!((of_list(1, 2) - eild).abs() < 1e-15);
    // A list of one item has no pair: the user is left out.
    assert_eq!(value(1), None);
}

/// Attributes of weight 1: item `i` holds `sets[i]`, of `n` attributes.
fn binary_attributes(sets: &[Vec<u32>], n: usize) -> ItemAttributes {
    let names: Vec<String> = (0..n).map(|a| format!("a{a:03}")).collect();
    let vocabulary = IdMap::from_ids_sorted(names.iter().map(String::as_str)).unwrap();
    let pairs =
        sets.iter().enumerate().flat_map(|(i, set)| set.iter().map(move |&a| (i as u32, a, 1.0)));
    ItemAttributes::from_pairs(sets.len(), vocabulary, pairs).unwrap()
}

/// Cosine and Jaccard similarity of two attribute sets, by their definitions.
fn set_similarity(a: &[u32], b: &[u32], similarity: Similarity) -> f64 {
    let shared = a.iter().filter(|x| b.contains(x)).count() as f64;
    match similarity {
        Similarity::Jaccard => {
            let either = (a.len() + b.len()) as f64 - shared;
            if either == 0.0 { 0.0 } else { shared / either }
        }
        _ => {
            if a.is_empty() || b.is_empty() {
                0.0
            } else {
                shared / ((a.len() * b.len()) as f64).sqrt()
            }
        }
    }
}

#[test]
fn intra_list_diversity_by_hand_with_a_tie_at_the_cut_off() {
    // The top 2 is item 0 and one of 1, 2, 3 (1/3 each).
    let value = |similarity, k| tied_list_value(Metric::Ild(k), similarity);
    // Cosine: sim(0, 1) = 1/√2, sim(0, 2) = sim(0, 3) = 0; one pair.
    let want = 1.0 - (0.5f64.sqrt()) / 3.0;
    assert!((value(Similarity::Cosine, 2).unwrap() - want).abs() < 1e-15);
    // Jaccard: J(0, 1) = 1/2.
    assert!((value(Similarity::Jaccard, 2).unwrap() - (1.0 - 0.5 / 3.0)).abs() < 1e-15);
    // Top 3: item 0 and two of the three tied (each pair of them with probability 1/3).
    // Pairs with 0: (2/3)(1/√2 + 0 + 0); pairs within: (1/3)(sim12 + sim13 + sim23),
    // sim(1, 2) = 1/√2, the others 0; three pairs in all.
    let similar = (2.0 / 3.0) * 0.5f64.sqrt() + (1.0 / 3.0) * 0.5f64.sqrt();
    assert!((value(Similarity::Cosine, 3).unwrap() - (1.0 - similar / 3.0)).abs() < 1e-15);
    // A list of one item has no pair: the user is left out.
    assert_eq!(value(Similarity::Cosine, 1), None);
    // Without attributes, both diversities are refused.
    let mut builder = Judgments::builder(1, 2);
    builder.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
    let judgments = builder.build().unwrap();
    let scored = Scored::new(&judgments, &[0.9, 0.5]).unwrap();
    for metric in [Metric::Ild(2), Metric::IldDisc(2)] {
        let error = per_user(&scored, &[metric], &Options::default()).unwrap_err();
        assert!(error.to_string().contains("attributes"), "{metric}: {error}");
    }
}

/// One user: candidates 0..5 with scores 0.9, 0.5, 0.5, 0.5, 0.1 (items 1, 2, 3 tied) and
/// item popularity φ = 6, 3, 1, 0, 2 out of 6 training users (12 pairs).
fn tied_user(grades: &[f32]) -> (Judgments, Vec<f32>, Popularity) {
    let mut builder = Judgments::builder(1, 5);
    builder.push_user(0, &[0, 1, 2, 3, 4], grades).unwrap();
    let popularity = Popularity::new(vec![6, 3, 1, 0, 2], &[], 6, HeadRule::Items(1)).unwrap();
    (builder.build().unwrap(), vec![0.9, 0.5, 0.5, 0.5, 0.1], popularity)
}

fn value(metric: &str, grades: &[f32], options: Options) -> Option<f64> {
    let (judgments, scores, popularity) = tied_user(grades);
    let scored = Scored::new(&judgments, &scores).unwrap();
    let metrics = [metric.parse::<Metric>().unwrap()];
    per_user_with(&scored, &metrics, &options, ItemFacts::popularity(&popularity))
        .unwrap()
        .summary(0)
        .value
}

#[test]
fn hand_computed_with_a_tie_at_the_cut_off() {
    let grades = [0.0, 1.0, 0.0, 1.0, 0.0];
    let expected = Options::default();
    let close = |metric: &str, want: f64| {
        let got = value(metric, &grades, expected).unwrap();
        assert!((got - want).abs() < 1e-12, "{metric}: {got} against {want}");
    };
    // Top 2: item 0, then one of 1, 2, 3 (1/3 each). ARP = (6 + (3 + 1 + 0)/3) / 2.
    close("arp@2", (6.0 + 4.0 / 3.0) / 2.0);
    // Head: item 0 alone. Tail items in the list: 1 in expectation, of 2.
    close("aplt@2", 0.5);
    close("aclt@2", 1.0);
    // MIUF: −log2(φ/6), item 3 counting as one user: (0 + (1 + log2 6 + log2 6)/3) / 2.
    close("miuf@2", (1.0 + 2.0 * 6f64.log2()) / 3.0 / 2.0);
    // EPC: relevant items 1 and 3, each at rank 2 with probability 1/3; complements 1/2
    // and 1; disc(2) = 1/log2 3; normalised by 1 + 1/log2 3.
    let d2 = 1.0 / 3f64.log2();
    close("epc@2", (d2 / 3.0) * (0.5 + 1.0) / (1.0 + d2));
    close("epc_flat@2", (0.5 + 1.0) / 3.0 / 2.0);
    // EFD: −log2(φ/12); item 3 is cold and takes the least popular item's (φ = 1): log2 12.
    close("efd@2", (d2 / 3.0) * (2.0 + 12f64.log2()) / (1.0 + d2));
    // Top 4 takes the whole tie: item 1 at rank 2, 3 or 4 with probability 1/3 each.
    let d = |r: f64| 1.0 / (r + 1.0).log2();
    let mean_d = (d(2.0) + d(3.0) + d(4.0)) / 3.0;
    let norm = d(1.0) + d(2.0) + d(3.0) + d(4.0);
    close("epc@4", mean_d * (0.5 + 1.0) / norm);
    close("arp@4", (6.0 + 3.0 + 1.0 + 0.0) / 4.0);
    // Item order instead of the expectation: ties by ascending index put item 1 second.
    let first = Options { ties: TieBreak::ItemAscending, ..Options::default() };
    let got = value("arp@2", &grades, first).unwrap();
    assert_eq!(got, (6.0 + 3.0) / 2.0);
    let last = Options { ties: TieBreak::ItemDescending, ..Options::default() };
    assert_eq!(value("arp@2", &grades, last).unwrap(), 3.0);
}

#[test]
fn users_without_a_relevant_item_follow_the_zero_policy_for_epc_and_efd_only() {
    let none = [0.0; 5];
    assert_eq!(value("epc@2", &none, Options::default()), None);
    assert_eq!(value("efd_flat@2", &none, Options::default()), None);
    let zero = Options { zero: ZeroPolicy::Zero, ..Options::default() };
    assert_eq!(value("epc@2", &none, zero), Some(0.0));
    // The list's popularity does not depend on relevance.
    assert_eq!(value("aclt@2", &none, Options::default()), Some(1.0));
    assert!(value("arp@2", &none, Options::default()).is_some());
}

/// Two users over four items, each with one relevant item (0 for user 0, 1 for user 1),
/// scored by [`TWO_USERS_SCORES`]: user 0's top 1 is item 0, user 1's a tie of 0 and 1.
fn two_users() -> Judgments {
    let mut builder = Judgments::builder(2, 4);
    builder.push_user(0, &[0, 1, 2, 3], &[1.0, 0.0, 0.0, 0.0]).unwrap();
    builder.push_user(1, &[0, 1, 2, 3], &[0.0, 1.0, 0.0, 0.0]).unwrap();
    builder.build().unwrap()
}

const TWO_USERS_SCORES: [f32; 8] = [0.9, 0.1, 0.1, 0.1, 0.5, 0.5, 0.2, 0.1];

#[test]
fn exposure_pools_the_lists_of_every_user() {
    // Two users over four items; top 1 of each: user 0 item 0, user 1 a tie of items 0
    // and 1. Expected exposure 1.5, 0.5, 0, 0.
    let judgments = two_users();
    let scored = Scored::new(&judgments, &TWO_USERS_SCORES).unwrap();
    let popularity = Popularity::new(vec![1, 1, 1, 1], &[], 2, HeadRule::default()).unwrap();
    let metrics = Metric::parse_list("gini@1,entropy@1,coverage@1").unwrap();
    let values =
        per_user_with(&scored, &metrics, &Options::default(), ItemFacts::popularity(&popularity))
            .unwrap();
    // Gini of 0, 0, 0.5, 1.5: 2·(3·0.5 + 4·1.5)/(4·2) − 5/4 = 0.625.
    assert!((values.summary(0).value.unwrap() - 0.625).abs() < 1e-15);
    let h = -(0.75f64 * 0.75f64.ln() + 0.25 * 0.25f64.ln());
    assert!((values.summary(1).value.unwrap() - h).abs() < 1e-15);
    // Coverage: item 0 surely, item 1 with probability 1/2, of 4.
    assert!((values.summary(2).value.unwrap() - 1.5 / 4.0).abs() < 1e-15);
}

#[test]
fn popularity_parity_pools_expected_head_and_tail_counts() {
    // Head: item 0 alone. User 0 lists item 0; user 1 a tie of items 0 and 1 (1/2 each).
    let judgments = two_users();
    let scored = Scored::new(&judgments, &TWO_USERS_SCORES).unwrap();
    let popularity = Popularity::new(vec![3, 1, 1, 1], &[], 3, HeadRule::Items(1)).unwrap();
    let metrics = Metric::parse_list("poprsp@1,popreo@1").unwrap();
    let facts = ItemFacts::popularity(&popularity);
    let values = per_user_with(&scored, &metrics, &Options::default(), facts).unwrap();
    // RSP: head 1.5 listed of 2 candidates, tail 0.5 of 6: |0.75 − 1/12| / (0.75 + 1/12).
    let (head, tail) = (0.75, 1.0 / 12.0);
    assert!((values.summary(0).value.unwrap() - (head - tail) / (head + tail)).abs() < 1e-15);
    // REO: relevant head items listed 1 of 1, relevant tail items 0.5 of 1: 0.5 / 1.5.
    assert!((values.summary(1).value.unwrap() - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn popularity_metrics_without_popularity_or_for_other_items_are_refused() {
    let (judgments, scores, _) = tied_user(&[1.0; 5]);
    let scored = Scored::new(&judgments, &scores).unwrap();
    let metrics = [Metric::Arp(2)];
    let error = per_user(&scored, &metrics, &Options::default()).unwrap_err().to_string();
    assert!(error.contains("arp@2") && error.contains("popularity"), "{error}");
    let other = Popularity::new(vec![1, 1], &[], 2, HeadRule::default()).unwrap();
    let error =
        per_user_with(&scored, &metrics, &Options::default(), ItemFacts::popularity(&other))
            .unwrap_err()
            .to_string();
    assert!(error.contains("2 items"), "{error}");
    // Coverage needs no popularity.
    assert!(per_user(&scored, &[Metric::Coverage(2)], &Options::default()).is_ok());
}

/// Every metric of one user's list in the order `order` (candidate positions), computed
/// directly from the definitions.
fn direct(
    order: &[usize],
    k: usize,
    grades: &[f32],
    users: &[u32],
    n_users: usize,
    head: &[bool],
) -> [f64; 9] {
    let list = &order[..k.min(order.len())];
    let length = list.len() as f64;
    let pairs: f64 = users.iter().map(|&u| f64::from(u)).sum();
    let least = users.iter().copied().filter(|&u| u > 0).min().unwrap();
    let phi = |i: usize| f64::from(users[i]);
    let tail = |i: usize| if head[i] { 0.0 } else { 1.0 };
    let miuf = |i: usize| -(phi(i).max(1.0) / n_users as f64).log2();
    let epc = |i: usize| 1.0 - phi(i) / n_users as f64;
    let efd = |i: usize| {
        let u = if users[i] > 0 { phi(i) } else { f64::from(least) };
        -(u / pairs).log2()
    };
    let disc = |r: usize| 1.0 / ((r + 2) as f64).log2();
    // Serendipity (RecTools): p(r) = (n + 1 − r)/n against pu(i) = (n + 1 − dense rank of
    // φ(i))/n, 0 for an item without training users.
    let n = users.len() as f64;
    let mut distinct: Vec<u32> = users.iter().copied().filter(|&u| u > 0).collect();
    distinct.sort_unstable_by(|a, b| b.cmp(a));
    distinct.dedup();
    let pu = |i: usize| match distinct.iter().position(|&d| d == users[i]) {
        Some(at) if users[i] > 0 => (n + 1.0 - (at + 1) as f64) / n,
        _ => 0.0,
    };
    let serendipity: f64 = list
        .iter()
        .enumerate()
        .filter(|&(_, &i)| grades[i] >= 1.0)
        .map(|(r, &i)| ((n + 1.0 - (r + 1) as f64) / n - pu(i)).max(0.0))
        .sum::<f64>()
        / length;
    let weighted = |nov: &dyn Fn(usize) -> f64, flat: bool| {
        let (mut sum, mut norm) = (0.0, 0.0);
        for (r, &i) in list.iter().enumerate() {
            let w = if flat { 1.0 } else { disc(r) };
            if grades[i] >= 1.0 {
                sum += w * nov(i);
            }
            norm += w;
        }
        sum / norm
    };
    [
        list.iter().map(|&i| phi(i)).sum::<f64>() / length,
        list.iter().map(|&i| tail(i)).sum::<f64>() / length,
        list.iter().map(|&i| tail(i)).sum::<f64>(),
        weighted(&epc, false),
        weighted(&epc, true),
        weighted(&efd, false),
        weighted(&efd, true),
        list.iter().map(|&i| miuf(i)).sum::<f64>() / length,
        serendipity,
    ]
}

proptest! {
    #[test]
    fn intra_list_diversity_is_the_mean_over_a_ties_orders(
        n in 2usize..7,
        k in 2usize..6,
        seed in any::<u64>(),
    ) {
        let mut state = seed;
        let mut next = |m: u64| recs_core::splitmix64(&mut state) % m;
        let scores: Vec<f32> = (0..n).map(|_| next(3) as f32).collect();
        let sets: Vec<Vec<u32>> = (0..n)
            .map(|_| (0..4u32).filter(|_| next(2) == 1).collect())
            .collect();
        let attributes = binary_attributes(&sets, 4);
        let mut builder = Judgments::builder(1, n);
        let items: Vec<u32> = (0..n as u32).collect();
        builder.push_user(0, &items, &vec![1.0; n]).unwrap();
        let judgments = builder.build().unwrap();
        let scored = Scored::new(&judgments, &scores).unwrap();
        let orders = orders_of(&scores);
        for similarity in [Similarity::Cosine, Similarity::Jaccard] {
            let diversity = Diversity::new(&attributes, similarity);
            let facts = ItemFacts { diversity: Some(&diversity), ..ItemFacts::default() };
            let got = per_user_with(&scored, &[Metric::Ild(k)], &Options::default(), facts)
                .unwrap()
                .summary(0)
                .value
                .unwrap();
            let mut want = 0.0;
            for order in &orders {
                let list = &order[..k.min(n)];
                let mut distance = 0.0;
                let mut pairs = 0.0;
                for (x, &a) in list.iter().enumerate() {
                    for &b in &list[x + 1..] {
                        distance += 1.0 - set_similarity(&sets[a], &sets[b], similarity);
                        pairs += 1.0;
                    }
                }
                want += distance / pairs / orders.len() as f64;
            }
            prop_assert!((got - want).abs() < 1e-12, "{}: {} against {}", similarity, got, want);
            // The rank-discounted one: the mean over the orders of RankSys's EILD.
            let got = per_user_with(&scored, &[Metric::IldDisc(k)], &Options::default(), facts)
                .unwrap()
                .summary(0)
                .value
                .unwrap();
            let want: f64 = orders
                .iter()
                .map(|order| {
                    let list = &order[..k.min(n)];
                    ranksys_eild(list.len(), |x, y| {
                        1.0 - set_similarity(&sets[list[x]], &sets[list[y]], similarity)
                    })
                })
                .sum::<f64>()
                / orders.len() as f64;
            prop_assert!((got - want).abs() < 1e-12, "disc {}: {} against {}", similarity, got, want);
        }
    }

    #[test]
    fn the_expectation_over_a_ties_orders_is_exact(
        n in 2usize..7,
        k in 1usize..6,
        seed in any::<u64>(),
    ) {
        let mut state = seed;
        let mut next = |m: u64| recs_core::splitmix64(&mut state) % m;
        let scores: Vec<f32> = (0..n).map(|_| next(3) as f32).collect();
        let mut grades: Vec<f32> = (0..n).map(|_| next(3) as f32).collect();
        grades[0] = 1.0;
        let n_users = 8usize;
        let users: Vec<u32> = (0..n).map(|i| if i == 1 { 0 } else { 1 + next(8) as u32 }).collect();
        let popularity =
            Popularity::new(users.clone(), &[], n_users, HeadRule::Share(0.4)).unwrap();
        let head: Vec<bool> = (0..n as u32).map(|i| popularity.is_head(i)).collect();
        let mut builder = Judgments::builder(1, n);
        let items: Vec<u32> = (0..n as u32).collect();
        builder.push_user(0, &items, &grades).unwrap();
        let judgments = builder.build().unwrap();
        let scored = Scored::new(&judgments, &scores).unwrap();
        let mut metrics: Vec<Metric> = metrics_at(k).into_iter().take(8).collect();
        metrics.push(Metric::Serendipity(k));
        let got = per_user_with(&scored, &metrics, &Options::default(), ItemFacts::popularity(&popularity)).unwrap();
        let orders = orders_of(&scores);
        let mut mean = [0.0; 9];
        for order in &orders {
            let values = direct(order, k, &grades, &users, n_users, &head);
            for (m, v) in mean.iter_mut().zip(values) {
                *m += v / orders.len() as f64;
            }
        }
        for (column, want) in mean.iter().enumerate() {
            let value = got.summary(column).value.unwrap();
            prop_assert!((value - want).abs() < 1e-12, "{}: {} against {}", metrics[column], value, want);
        }
        // Breaking ties by ascending index is the first of those orders, sorted.
        let mut ascending = (0..n).collect::<Vec<_>>();
        ascending.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let first = Options { ties: TieBreak::ItemAscending, ..Options::default() };
        let got = per_user_with(&scored, &metrics, &first, ItemFacts::popularity(&popularity)).unwrap();
        let want = direct(&ascending, k, &grades, &users, n_users, &head);
        for (column, want) in want.iter().enumerate() {
            let value = got.summary(column).value.unwrap();
            prop_assert!((value - want).abs() < 1e-12, "{} first: {} against {}", metrics[column], value, want);
        }
    }
}
