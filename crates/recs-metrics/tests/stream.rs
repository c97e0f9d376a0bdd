//! The streamed full-catalog evaluation equals the in-memory one on the same candidates
//! listed explicitly, for every metric, tie policy and zero policy, whatever the split of
//! users into parts.

use proptest::prelude::*;
use recs_core::Judgments;
use recs_metrics::stream::{
    CatalogUser, CountedUser, Evaluator, GradedKeys, KeyCounts, NegativeCounts, Part,
    PositiveScores,
};
use recs_metrics::{Metric, Options, Report, Scored, TieBreak, ZeroPolicy, evaluate};

/// One user of a generated case: a score per item, training items, graded items.
#[derive(Debug, Clone)]
struct User {
    scores: Vec<f32>,
    excluded: Vec<u32>,
    graded: Vec<u32>,
    grades: Vec<f32>,
}

const METRICS: &str = "roc,croc,user_auc,p@3,r@5,f1@3,hit@2,ndcg@4,ndcg_exp@4,ap@5,map,mrr,\
                       half_life@3";

/// Users over `n_items` items: scores from few values (ties, some `NaN`), each item
/// excluded, graded (grades 1–5) or neither.
fn users(n_items: usize) -> impl Strategy<Value = Vec<User>> {
    let user = prop::collection::vec((0u8..6, 0u8..3, 1u8..6), n_items).prop_map(|cells| {
        let mut u = User {
            scores: Vec::new(),
            excluded: Vec::new(),
            graded: Vec::new(),
            grades: Vec::new(),
        };
        for (item, (score, role, grade)) in cells.into_iter().enumerate() {
            u.scores.push(if score == 0 { f32::NAN } else { f32::from(score) / 4.0 });
            match role {
                0 => u.excluded.push(item as u32),
                1 => {
                    u.graded.push(item as u32);
                    u.grades.push(f32::from(grade));
                }
                _ => {}
            }
        }
        u
    });
    prop::collection::vec(user, 1..8)
}

/// Every item but each user's excluded ones listed, with the user's grades and scores.
fn listed(users: &[User], n_items: usize) -> (Judgments, Vec<f32>) {
    let mut builder = Judgments::builder(users.len(), n_items);
    let mut scores = Vec::new();
    for (index, u) in users.iter().enumerate() {
        let (mut items, mut grades) = (Vec::new(), Vec::new());
        for item in 0..n_items as u32 {
            if u.excluded.binary_search(&item).is_ok() {
                continue;
            }
            items.push(item);
            grades.push(u.graded.binary_search(&item).map_or(0.0, |k| u.grades[k]));
            scores.push(u.scores[item as usize]);
        }
        builder.push_user(index as u32, &items, &grades).unwrap();
    }
    (builder.build().unwrap(), scores)
}

fn in_memory(users: &[User], n_items: usize, metrics: &[Metric], options: &Options) -> Report {
    let (judgments, scores) = listed(users, n_items);
    let scored = Scored::new(&judgments, &scores).unwrap();
    evaluate(&scored, metrics, options, 0.4, true).unwrap()
}

fn catalog(index: usize, u: &User) -> CatalogUser<'_> {
    CatalogUser {
        user: index as u32,
        scores: &u.scores,
        excluded: &u.excluded,
        graded: &u.graded,
        grades: &u.grades,
    }
}

/// An evaluator of `metrics` given the positives of `users`.
fn with_positives(users: &[User], metrics: &[Metric], options: &Options) -> Evaluator {
    let mut evaluator = Evaluator::new(metrics, *options, 0.4).unwrap();
    let mut positives = PositiveScores::new();
    for u in users {
        let scores: Vec<f32> = u.graded.iter().map(|&i| u.scores[i as usize]).collect();
        positives.push_user(&u.grades, &scores, options.threshold);
    }
    evaluator.set_positives(positives);
    evaluator
}

fn streamed(users: &[User], metrics: &[Metric], options: &Options, parts: usize) -> Report {
    dealt(&with_positives(users, metrics, options), users, parts, true)
}

/// Users dealt round-robin into parts, merged last part first.
fn dealt(evaluator: &Evaluator, users: &[User], parts: usize, keep_curves: bool) -> Report {
    let mut pieces: Vec<Part> = (0..parts).map(|_| evaluator.part()).collect();
    for (index, u) in users.iter().enumerate() {
        evaluator.push_user(&mut pieces[index % parts], &catalog(index, u)).unwrap();
    }
    let mut whole = pieces.pop().unwrap();
    while let Some(piece) = pieces.pop() {
        whole.merge(piece);
    }
    evaluator.finish(whole, keep_curves).unwrap()
}

fn assert_same(memory: &Report, stream: &Report) {
    assert_eq!(
        (memory.n_users, memory.n_candidates, memory.n_positives, memory.n_missing),
        (stream.n_users, stream.n_candidates, stream.n_positives, stream.n_missing)
    );
    assert_eq!(memory.n_users_without_relevant, stream.n_users_without_relevant);
    assert_eq!(memory.warnings, stream.warnings);
    assert_eq!(memory.per_user, stream.per_user);
    assert_eq!(memory.croc, stream.croc);
    for ((key, a), (key_b, b)) in memory.values.iter().zip(&stream.values) {
        assert_eq!(key, key_b);
        match (a, b) {
            (Some(a), Some(b)) if key.starts_with("roc_pauc") => {
                assert!((a - b).abs() < 1e-15, "{key}: {a} vs {b}")
            }
            (Some(a), Some(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{key}: {a} vs {b}"),
            _ => assert_eq!(a, b, "{key}"),
        }
    }
    assert_eq!(memory.values.len(), stream.values.len());
    if let (Some(a), Some(b)) = (&memory.roc, &stream.roc) {
        assert!((a.auc() - b.auc()).abs() < 1e-12);
    }
}

#[test]
fn a_hand_built_case_agrees() {
    let users = vec![
        User {
            scores: vec![0.9, 0.1, 0.5, 0.7, 0.5],
            excluded: vec![3],
            graded: vec![2, 4],
            grades: vec![1.0, 5.0],
        },
        User {
            scores: vec![0.3, 0.8, f32::NAN, 0.6, 0.3],
            excluded: vec![0],
            graded: vec![1],
            grades: vec![2.0],
        },
        User { scores: vec![0.2; 5], excluded: vec![], graded: vec![], grades: vec![] },
    ];
    let metrics = Metric::parse_list(METRICS).unwrap();
    let options = Options::default();
    let memory = in_memory(&users, 5, &metrics, &options);
    assert_same(&memory, &streamed(&users, &metrics, &options, 2));
    assert!(memory.get("roc_auc").is_some() && memory.get("croc_auc").is_some());
}

#[test]
fn malformed_users_and_coverage_are_refused() {
    let metrics = Metric::parse_list("p@1,coverage@2").unwrap();
    assert!(Evaluator::new(&metrics, Options::default(), 0.3).is_err());
    let evaluator =
        Evaluator::new(&Metric::parse_list("p@1").unwrap(), Options::default(), 0.3).unwrap();
    let mut part = evaluator.part();
    let scores = [0.1, 0.2, 0.3];
    let bad = [
        CatalogUser { user: 0, scores: &scores, excluded: &[1, 0], graded: &[], grades: &[] },
        CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &[3], grades: &[1.0] },
        CatalogUser { user: 0, scores: &scores, excluded: &[1], graded: &[1], grades: &[1.0] },
        CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &[1], grades: &[0.0] },
        CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &[1], grades: &[] },
    ];
    for user in &bad {
        assert!(evaluator.push_user(&mut part, user).is_err(), "{user:?}");
    }
    // The pooled ROC without the positives first is an error, not a wrong number.
    let roc = Evaluator::new(&[Metric::Roc], Options::default(), 0.3).unwrap();
    let mut part = roc.part();
    let user =
        CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &[1], grades: &[1.0] };
    assert!(roc.push_user(&mut part, &user).is_err());
}

#[test]
fn parts_serialise_and_merge_back() {
    let users = vec![
        User {
            scores: vec![0.9, 0.1, 0.5, 0.7],
            excluded: vec![3],
            graded: vec![2],
            grades: vec![1.0],
        },
        User {
            scores: vec![0.3, 0.8, 0.2, 0.6],
            excluded: vec![0],
            graded: vec![1],
            grades: vec![1.0],
        },
    ];
    let metrics = Metric::parse_list("croc,ndcg@2").unwrap();
    let evaluator = Evaluator::new(&metrics, Options::default(), 0.4).unwrap();
    let mut a = evaluator.part();
    let mut b = evaluator.part();
    for (index, (u, part)) in users.iter().zip([&mut a, &mut b]).enumerate() {
        let user = CatalogUser {
            user: index as u32,
            scores: &u.scores,
            excluded: &u.excluded,
            graded: &u.graded,
            grades: &u.grades,
        };
        evaluator.push_user(part, &user).unwrap();
    }
    let text = serde_json::to_string(&b).unwrap();
    let back: Part = serde_json::from_str(&text).unwrap();
    assert_eq!(back, b);
    a.merge(back);
    let report = evaluator.finish(a, true).unwrap();
    assert_eq!(report.n_users, 2);
    assert_same(&in_memory(&users, 4, &metrics, &Options::default()), &report);
}

proptest! {
    #[test]
    fn streamed_equals_in_memory(
        users in users(9),
        ties in 0usize..3,
        zero in 0usize..3,
        threshold in 1u8..4,
        neutral in 0u8..3,
        parts in 1usize..4,
    ) {
        let options = Options {
            threshold: f32::from(threshold),
            ties: [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending][ties],
            zero: [ZeroPolicy::Exclude, ZeroPolicy::Zero, ZeroPolicy::Ignatov][zero],
            neutral: f32::from(neutral),
            ..Options::default()
        };
        let metrics = Metric::parse_list(METRICS).unwrap();
        let memory = in_memory(&users, 9, &metrics, &options);
        assert_same(&memory, &streamed(&users, &metrics, &options, parts));
    }
}

/// As an engine grouping by user evaluates: each user alone into its own part (numbered
/// 0), the parts numbered once every user is known and merged in any order, the pooled
/// ROC from a per-score histogram of the candidates read from the highest score down.
fn by_user_with_histogram(users: &[User], metrics: &[Metric], options: &Options) -> Report {
    let per_user: Vec<Metric> = metrics.iter().copied().filter(|m| *m != Metric::Roc).collect();
    let part_evaluator = Evaluator::new(&per_user, *options, 0.4).unwrap();
    let mut parts: Vec<Part> = users
        .iter()
        .enumerate()
        .map(|(index, u)| {
            let mut part = part_evaluator.part();
            part_evaluator.push_user(&mut part, &catalog(0, u)).unwrap();
            part.number_user(index as u32).unwrap();
            part
        })
        .collect();
    parts.reverse();
    let mut whole = part_evaluator.part();
    for part in parts {
        whole.merge(part);
    }
    let mut histogram = std::collections::BTreeMap::<u32, (u64, u64)>::new();
    for u in users {
        for (item, &score) in u.scores.iter().enumerate() {
            let item = item as u32;
            if u.excluded.binary_search(&item).is_ok() {
                continue;
            }
            let grade = u.graded.binary_search(&item).map_or(0.0, |k| u.grades[k]);
            let counts = histogram.entry(recs_metrics::score_key(score)).or_default();
            if grade >= options.threshold { counts.0 += 1 } else { counts.1 += 1 }
        }
    }
    let groups = histogram.into_values().rev();
    let evaluator = Evaluator::new(metrics, *options, 0.4).unwrap();
    match recs_metrics::roc_summary_of_groups(groups, 0.4) {
        Ok(roc) => evaluator.finish_with_roc(whole, roc).unwrap(),
        // Without both classes the pooled ROC is undefined: finished without it, as
        // the in-memory report leaves it out with a warning.
        Err(_) => Evaluator::new(&per_user, *options, 0.4).unwrap().finish(whole, false).unwrap(),
    }
}

proptest! {
    #[test]
    fn parts_numbered_per_user_and_a_score_histogram_equal_in_memory(
        users in users(9),
        threshold in 1u8..4,
    ) {
        let options = Options { threshold: f32::from(threshold), ..Options::default() };
        let metrics = Metric::parse_list(METRICS).unwrap();
        let memory = in_memory(&users, 9, &metrics, &options);
        let got = by_user_with_histogram(&users, &metrics, &options);
        let defined = |r: &Report| r.get("roc_auc").is_some();
        prop_assume!(defined(&memory));
        let bits = |r: &Report| {
            r.values.iter().map(|(k, v)| (k.clone(), v.map(f64::to_bits))).collect::<Vec<_>>()
        };
        prop_assert_eq!(bits(&got), bits(&memory));
        prop_assert_eq!(got.per_user, memory.per_user);
        prop_assert_eq!((got.n_users, got.n_candidates, got.n_positives), (memory.n_users, memory.n_candidates, memory.n_positives));
    }
}

/// As a device counts: every candidate of every user placed against the user's graded
/// keys in each of the evaluator's key orders, and every negative against the pooled
/// ROC's thresholds through their index, by hand; only counts reach the evaluator.
fn counted_outside(users: &[User], metrics: &[Metric], options: &Options) -> Report {
    let evaluator = with_positives(users, metrics, options);
    let thresholds = evaluator.thresholds().unwrap();
    let (keys, (prefix, shift)) = (thresholds.keys(), thresholds.index());
    let (mut below, mut equal) = (vec![0u64; keys.len() + 1], vec![0u64; keys.len()]);
    let mut part = evaluator.part();
    for (index, u) in users.iter().enumerate() {
        let scores: Vec<f32> = u.graded.iter().map(|&i| u.scores[i as usize]).collect();
        let candidates: Vec<u32> =
            (0..u.scores.len() as u32).filter(|i| u.excluded.binary_search(i).is_err()).collect();
        let mut counted = Vec::new();
        for &order in evaluator.key_orders() {
            let graded = GradedKeys::new(order, &u.graded, &u.grades, &scores);
            let mut counts = KeyCounts::zeros(graded.keys().len());
            // Visited last item first: counts do not depend on the order.
            for &item in candidates.iter().rev() {
                counts.count(graded.keys(), order.key(u.scores[item as usize], item));
            }
            counted.push((graded, counts));
        }
        let missing = candidates.iter().filter(|&&i| u.scores[i as usize].is_nan()).count();
        let user = CountedUser {
            user: index as u32,
            n: candidates.len() as u64,
            missing: missing as u64,
            grades: &u.grades,
            counted: &counted,
        };
        evaluator.push_counted(&mut part, user).unwrap();
        for &item in &candidates {
            let grade = u.graded.binary_search(&item).map_or(0.0, |k| u.grades[k]);
            if grade >= options.threshold {
                continue;
            }
            let key = recs_metrics::score_key(u.scores[item as usize]);
            let cell = (key >> shift) as usize;
            let (lo, hi) = (prefix[cell] as usize, prefix[cell + 1] as usize);
            let j = lo + keys[lo..hi].partition_point(|&k| k < key);
            if j < hi && keys[j] == key { equal[j] += 1 } else { below[j] += 1 }
        }
    }
    part.add_negatives(NegativeCounts::from_cells(below, equal).unwrap()).unwrap();
    evaluator.finish(part, true).unwrap()
}

proptest! {
    #[test]
    fn counts_from_outside_give_the_streamed_report(
        users in users(9),
        ties in 0usize..3,
        threshold in 1u8..4,
    ) {
        let options = Options {
            threshold: f32::from(threshold),
            ties: [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending][ties],
            ..Options::default()
        };
        let metrics = Metric::parse_list(METRICS).unwrap();
        let expected = streamed(&users, &metrics, &options, 1);
        let got = counted_outside(&users, &metrics, &options);
        prop_assert_eq!(format!("{got:?}"), format!("{expected:?}"));
    }
}

#[test]
fn inconsistent_counts_are_refused() {
    let metrics = Metric::parse_list("croc,ndcg@2").unwrap();
    let options = Options { ties: TieBreak::ItemAscending, ..Options::default() };
    let evaluator = Evaluator::new(&metrics, options, 0.4).unwrap();
    // Item ties broken for NDCG, expected ties for CROC: two orders.
    assert_eq!(evaluator.key_orders().len(), 2);
    let orders = evaluator.key_orders().to_vec();
    let keyed: Vec<GradedKeys> =
        orders.iter().map(|&o| GradedKeys::new(o, &[1], &[1.0], &[0.5])).collect();
    let good = || -> Vec<(GradedKeys, KeyCounts)> {
        keyed.iter().map(|k| (k.clone(), KeyCounts { between: vec![1, 2], on: vec![1] })).collect()
    };
    fn user(counted: &[(GradedKeys, KeyCounts)]) -> CountedUser<'_> {
        CountedUser { user: 0, n: 4, missing: 0, grades: &[1.0], counted }
    }
    let mut part = evaluator.part();
    let fine = good();
    evaluator.push_counted(&mut part, user(&fine)).unwrap();
    let one_order = good()[..1].to_vec();
    let mut short = good();
    short[0].1.between.pop();
    let mut wrong_total = good();
    wrong_total[1].1.between[1] = 5;
    let mut empty_key = good();
    empty_key[0].1.on[0] = 0;
    empty_key[0].1.between[0] = 2;
    for bad in [one_order, short, wrong_total, empty_key] {
        assert!(evaluator.push_counted(&mut part, user(&bad)).is_err(), "{bad:?}");
    }
    let missing = CountedUser { missing: 5, ..user(&fine) };
    assert!(evaluator.push_counted(&mut part, missing).is_err());
    // Negative counts need a part with the pooled ROC, and the right length.
    let cells = NegativeCounts::from_cells(vec![0, 1], vec![0]).unwrap();
    assert!(part.add_negatives(cells).is_err());
    assert!(NegativeCounts::from_cells(vec![0], vec![0]).is_err());
}

/// Popularity, attributes and histories of `n_items` items for `n_users` users, drawn
/// from `seed`.
fn item_facts(
    n_items: usize,
    n_users: usize,
    seed: u64,
) -> (recs_metrics::Popularity, recs_metrics::Diversity, recs_metrics::Calibration) {
    use recs_core::{IdMap, ItemAttributes};
    let mut state = seed;
    let mut next = |m: u64| recs_core::splitmix64(&mut state) % m;
    let counts: Vec<u32> = (0..n_items).map(|_| next(4) as u32).collect();
    let popularity =
        recs_metrics::Popularity::new(counts, &[], 5, recs_metrics::HeadRule::default()).unwrap();
    let vocabulary = IdMap::from_ids_sorted(["a", "b", "c"]).unwrap();
    let pairs: Vec<(u32, u32, f32)> = (0..n_items as u32)
        .flat_map(|i| (0..3u32).map(move |g| (i, g)))
        .filter(|_| next(2) == 1)
        .map(|(i, g)| (i, g, 1.0))
        .collect();
    let attributes = ItemAttributes::from_pairs(n_items, vocabulary, pairs).unwrap();
    let diversity = recs_metrics::Diversity::new(&attributes, recs_metrics::Similarity::Cosine);
    let history: Vec<(u32, u32)> = (0..n_users as u32)
        .flat_map(|u| (0..n_items as u32).map(move |i| (u, i)))
        .filter(|_| next(3) == 0)
        .collect();
    let calibration =
        recs_metrics::Calibration::new(&attributes, &attributes, history, n_users, 0.01).unwrap();
    (popularity, diversity, calibration)
}

const LIST_METRICS: &str = "ndcg@3,coverage@3,arp@3,aplt@3,aclt@2,epc@3,efd_flat@2,miuf@3,\
                            serendipity@3,gini@3,entropy@2,poprsp@3,popreo@3,ild@3,miscal@3";

proptest! {
    #[test]
    fn list_metrics_streamed_equal_in_memory(
        users in users(9),
        ties in 0usize..3,
        parts in 1usize..4,
        seed in any::<u64>(),
    ) {
        let options = Options {
            ties: [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending][ties],
            ..Options::default()
        };
        let metrics = Metric::parse_list(LIST_METRICS).unwrap();
        let (popularity, diversity, calibration) = item_facts(9, users.len(), seed);
        let facts = recs_metrics::ItemFacts {
            popularity: Some(&popularity),
            diversity: Some(&diversity),
            calibration: Some(&calibration),
        };
        let (judgments, scores) = listed(&users, 9);
        let scored = Scored::new(&judgments, &scores).unwrap();
        let memory = recs_metrics::evaluate_with(&scored, &metrics, &options, 0.4, false, facts).unwrap();
        let evaluator = Evaluator::with_facts(&metrics, options, 0.4, facts).unwrap();
        let stream = dealt(&evaluator, &users, parts, false);
        prop_assert_eq!(memory.n_users, stream.n_users);
        prop_assert_eq!(&memory.per_user, &stream.per_user);
        for ((key, a), (key_b, b)) in memory.values.iter().zip(&stream.values) {
            prop_assert_eq!(key, key_b);
            prop_assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{}: {:?} {:?}", key, a, b);
        }
        prop_assert_eq!(memory.values.len(), stream.values.len());
    }
}

#[test]
fn list_metrics_need_their_facts_and_scores() {
    let metrics = Metric::parse_list("arp@3").unwrap();
    let facts = recs_metrics::ItemFacts::default();
    assert!(Evaluator::with_facts(&metrics, Options::default(), 0.3, facts).is_err());
    assert!(Evaluator::new(&metrics, Options::default(), 0.3).is_err());
    // Coverage needs no facts, but it needs the scores: counts are refused.
    let coverage = Metric::parse_list("coverage@2").unwrap();
    let evaluator = Evaluator::with_facts(&coverage, Options::default(), 0.3, facts).unwrap();
    let mut part = evaluator.part();
    let counted = CountedUser { user: 0, n: 0, missing: 0, grades: &[], counted: &[] };
    assert!(evaluator.push_counted(&mut part, counted).is_err());
}
