//! Properties every protocol must hold, on random data.

use std::collections::BTreeSet;

use proptest::prelude::*;
use recs_core::{DuplicatePolicy, Event, Interactions};
use recs_split::{
    Amount, Generalization, Given, HistoryOrder, JudgedUsers, JudgmentOptions, Protocol, Split,
    SplitId, TimeCut,
};

type Key = (u32, u32, u32, i64);

fn keys(m: &Interactions) -> Vec<Key> {
    m.events().map(|e| (e.user, e.item, e.value.to_bits(), e.timestamp.unwrap_or(-1))).collect()
}

fn arb_data() -> impl Strategy<Value = Interactions> {
    (1usize..10, 1usize..12).prop_flat_map(|(n_users, n_items)| {
        proptest::collection::btree_map(
            (0..n_users as u32, 0..n_items as u32),
            (1u8..=5, 0i64..40),
            0..(n_users * n_items).min(60),
        )
        .prop_map(move |pairs| {
            let events = pairs.into_iter().map(|((u, i), (r, t))| Event::at(u, i, f32::from(r), t));
            Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error).unwrap()
        })
    })
}

fn arb_amount() -> impl Strategy<Value = Amount> {
    prop_oneof![(0usize..4).prop_map(Amount::Count), (0.0f64..=1.0).prop_map(Amount::Fraction)]
}

fn arb_given() -> impl Strategy<Value = Given> {
    prop_oneof![
        (0usize..4).prop_map(Given::N),
        (0.0f64..=1.0).prop_map(Given::Fraction),
        (0usize..4).prop_map(Given::AllBut),
    ]
}

fn arb_generalization() -> impl Strategy<Value = Generalization> {
    prop_oneof![Just(Generalization::Weak), Just(Generalization::Strong)]
}

fn arb_protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![
        (0.0f64..=1.0).prop_map(|test_fraction| Protocol::Holdout { test_fraction }),
        (arb_amount(), 0usize..3).prop_map(|(k, min_train)| Protocol::LeaveKOut { k, min_train }),
        Just(Protocol::LeaveOneOut),
        (2usize..5).prop_map(|folds| Protocol::KFoldEvents { folds }),
        (2usize..4, arb_given(), arb_generalization()).prop_map(
            |(folds, given, generalization)| {
                Protocol::KFoldUsers { folds, given, generalization }
            }
        ),
        (2usize..4, (0.0f64..=1.0).prop_map(Amount::Fraction), arb_generalization()).prop_map(
            |(folds, hidden, generalization)| Protocol::HiddenItems {
                folds,
                hidden,
                generalization
            }
        ),
        ((0.0f64..=1.0).prop_map(Amount::Fraction), 0usize..3).prop_map(
            |(test_items, min_item_events)| Protocol::ColdStartItems {
                test_items,
                min_item_events
            }
        ),
        ((0.0f64..=1.0).prop_map(Amount::Fraction), arb_given())
            .prop_map(|(test_users, given)| Protocol::Strong { test_users, given }),
        ((0.0f64..=1.0).prop_map(Amount::Fraction), 1usize..4, any::<bool>()).prop_map(
            |(test_users, max_l, by_time)| Protocol::GivenL {
                test_users,
                max_l,
                order: if by_time { HistoryOrder::Timestamp } else { HistoryOrder::Random },
            }
        ),
        prop_oneof![(0i64..45).prop_map(TimeCut::At), (0.0f64..=1.0).prop_map(TimeCut::Fraction)]
            .prop_map(|cut| Protocol::TemporalCut { cut }),
        (0usize..4, 0usize..3).prop_map(|(n, min_train)| Protocol::TemporalLastN { n, min_train }),
    ]
}

/// The invariants every split of every protocol holds.
fn check_split(
    data: &Interactions,
    protocol: &Protocol,
    split: &Split,
) -> Result<(), TestCaseError> {
    for part in [Some(split.train()), Some(split.test()), split.history()].into_iter().flatten() {
        prop_assert_eq!(part.n_users(), data.n_users());
        prop_assert_eq!(part.n_items(), data.n_items());
    }
    // Disjoint and complete: the parts together are exactly the input events.
    let mut all = keys(split.train());
    all.extend(keys(split.test()));
    if let Some(history) = split.history() {
        all.extend(keys(history));
    }
    all.sort_unstable();
    prop_assert_eq!(all, keys(data));
    // No user's test item is known for that user.
    for user in 0..data.n_users() as u32 {
        let known = split.known_items(user);
        for item in split.test().user_items(user) {
            prop_assert!(known.binary_search(item).is_err());
        }
    }
    // Users who have history (strong generalization) are absent from training.
    if let Some(history) = split.history() {
        for user in 0..data.n_users() as u32 {
            if !history.user_items(user).is_empty() {
                prop_assert!(split.train().user_items(user).is_empty());
            }
        }
    }
    if let Some(users) = split.test_users() {
        prop_assert!(users.windows(2).all(|w| w[0] < w[1]));
    }
    match protocol {
        Protocol::ColdStartItems { .. } => {
            let items = split.candidate_items().unwrap();
            for &item in items {
                prop_assert!(split.train().item_users(item).is_empty());
                prop_assert_eq!(split.test().item_users(item), data.item_users(item));
            }
        }
        Protocol::HiddenItems { .. } => {
            let hidden: BTreeSet<u32> = split.candidate_items().unwrap().iter().copied().collect();
            for e in split.test().events() {
                prop_assert!(hidden.contains(&e.item));
            }
            // Training users keep every column; test users keep only visible ones.
            let test_users: BTreeSet<u32> = split.test_users().unwrap().iter().copied().collect();
            for e in split.train().events() {
                prop_assert!(!test_users.contains(&e.user) || !hidden.contains(&e.item));
            }
        }
        Protocol::Strong { .. } | Protocol::GivenL { .. } => {
            for &user in split.test_users().unwrap() {
                prop_assert!(split.train().user_items(user).is_empty());
                prop_assert!(!split.test().user_items(user).is_empty());
            }
        }
        Protocol::LeaveKOut { min_train, .. } | Protocol::TemporalLastN { min_train, .. } => {
            for user in 0..data.n_users() as u32 {
                let kept = split.train().user_items(user).len();
                prop_assert!(kept >= (*min_train).min(data.user_items(user).len()));
            }
        }
        Protocol::TemporalCut { .. } => {
            let latest_train = split.train().events().filter_map(|e| e.timestamp).max();
            let earliest_test = split.test().events().filter_map(|e| e.timestamp).min();
            if let (Some(a), Some(b)) = (latest_train, earliest_test) {
                prop_assert!(a < b);
            }
        }
        _ => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_protocol_gives_disjoint_complete_parts(
        data in arb_data(),
        protocol in arb_protocol(),
        seed in any::<u64>(),
    ) {
        for (id, split) in protocol.splits(&data, seed, 2) {
            let split = match split {
                Ok(split) => split,
                // Counts above what is available are refused, never clamped silently.
                Err(_) => continue,
            };
            check_split(&data, &protocol, &split)?;
            // Same seed, same split.
            let again = protocol.split(&data, seed, id).unwrap();
            prop_assert_eq!(keys(split.train()), keys(again.train()));
            prop_assert_eq!(keys(split.test()), keys(again.test()));
            prop_assert_eq!(split.test_users(), again.test_users());
            prop_assert_eq!(split.candidate_items(), again.candidate_items());
        }
    }

    /// The folds of a cross-validation over events partition the events.
    #[test]
    fn kfold_events_folds_partition_the_data(data in arb_data(), folds in 2usize..6, seed in any::<u64>()) {
        let protocol = Protocol::KFoldEvents { folds };
        let mut tests: Vec<Key> = Vec::new();
        let mut sizes = Vec::new();
        for (_, split) in protocol.splits(&data, seed, 1) {
            let split = split.unwrap();
            sizes.push(split.test().n_events());
            tests.extend(keys(split.test()));
        }
        tests.sort_unstable();
        prop_assert_eq!(tests, keys(&data));
        prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
    }

    /// The user folds of a cross-validation over users are disjoint and cover every user
    /// that has a target.
    #[test]
    fn kfold_users_folds_are_disjoint(data in arb_data(), folds in 2usize..5, seed in any::<u64>()) {
        let protocol = Protocol::KFoldUsers { folds, given: Given::N(1), generalization: Generalization::Strong };
        let mut seen = BTreeSet::new();
        for (_, split) in protocol.splits(&data, seed, 1) {
            for &user in split.unwrap().test_users().unwrap() {
                prop_assert!(seen.insert(user));
            }
        }
        let expected: BTreeSet<u32> =
            (0..data.n_users() as u32).filter(|&u| data.user_items(u).len() > 1).collect();
        prop_assert_eq!(seen, expected);
    }

    /// Given-L histories are nested: the history at L is contained in the one at L + 1.
    #[test]
    fn given_l_histories_are_nested(data in arb_data(), seed in any::<u64>(), by_time in any::<bool>()) {
        // Empty data carries no timestamps.
        let by_time = by_time && data.has_timestamps();
        let order = if by_time { HistoryOrder::Timestamp } else { HistoryOrder::Random };
        let protocol = Protocol::GivenL { test_users: Amount::Fraction(1.0), max_l: 4, order };
        let splits: Vec<Split> = protocol.splits(&data, seed, 1).map(|(_, s)| s.unwrap()).collect();
        for pair in splits.windows(2) {
            let small: BTreeSet<Key> = keys(pair[0].history().unwrap()).into_iter().collect();
            let large: BTreeSet<Key> = keys(pair[1].history().unwrap()).into_iter().collect();
            prop_assert!(small.is_subset(&large));
        }
        for (l, split) in splits.iter().enumerate() {
            for &user in split.test_users().unwrap() {
                prop_assert_eq!(split.history().unwrap().user_items(user).len(), l + 1);
            }
        }
    }

    /// Judgments follow schein2005 Figure 2 exactly.
    #[test]
    fn judgments_follow_the_three_modes(
        data in arb_data(),
        protocol in arb_protocol(),
        seed in any::<u64>(),
        threshold in 1u8..=5,
    ) {
        let Ok(split) = protocol.split(&data, seed, SplitId::default()) else { return Ok(()); };
        let t = f32::from(threshold);
        let implicit = split.judgments(&JudgmentOptions::implicit()).unwrap();
        let rating = split.judgments(&JudgmentOptions::rating(t)).unwrap();
        let conditional = split.judgments(&JudgmentOptions::conditional(t)).unwrap();
        let users: Vec<u32> = match split.test_users() {
            Some(users) => users.to_vec(),
            None => (0..data.n_users() as u32).collect(),
        };
        let allowed = |item: u32| split.candidate_items().is_none_or(|c| c.binary_search(&item).is_ok());
        let (mut n_candidates, mut n_positive, mut n_rated, mut n_high) = (0, 0, 0, 0);
        for &user in &users {
            let known = split.known_items(user);
            let candidates: Vec<u32> = (0..data.n_items() as u32)
                .filter(|&i| allowed(i) && known.binary_search(&i).is_err())
                .collect();
            n_candidates += candidates.len();
            let row = split.test().user_row(user);
            for (&item, &value) in row.items.iter().zip(row.values) {
                if allowed(item) {
                    n_positive += 1;
                    n_rated += 1;
                    n_high += usize::from(value >= t);
                }
            }
            if let Some(judged) = implicit.get(user) {
                prop_assert_eq!(judged.items, &candidates[..]);
                prop_assert_eq!(rating.get(user).unwrap().items, &candidates[..]);
            } else {
                prop_assert!(candidates.is_empty());
            }
        }
        prop_assert_eq!(implicit.n_candidates(), n_candidates);
        prop_assert_eq!(rating.n_candidates(), n_candidates);
        prop_assert_eq!(implicit.n_relevant(1.0), n_positive);
        prop_assert_eq!(rating.n_relevant(1.0), n_high);
        prop_assert_eq!(conditional.n_candidates(), n_rated);
        prop_assert_eq!(conditional.n_relevant(1.0), n_high);
    }
}

fn sample_data() -> Interactions {
    // 40 users × 30 items, deterministic pseudo-random pattern.
    let mut events = Vec::new();
    for user in 0..40u32 {
        for item in 0..30u32 {
            let h = (user * 31 + item * 17 + user * item) % 7;
            if h < 3 {
                events.push(Event::at(user, item, (1 + h * 2) as f32, i64::from(user + item)));
            }
        }
    }
    Interactions::from_events(40, 30, events, DuplicatePolicy::Error).unwrap()
}

fn all_protocols() -> Vec<Protocol> {
    vec![
        Protocol::Holdout { test_fraction: 0.2 },
        Protocol::LeaveKOut { k: Amount::Fraction(0.3), min_train: 1 },
        Protocol::LeaveOneOut,
        Protocol::KFoldEvents { folds: 5 },
        Protocol::KFoldUsers { folds: 5, given: Given::N(2), generalization: Generalization::Weak },
        Protocol::HiddenItems {
            folds: 5,
            hidden: Amount::Fraction(0.2),
            generalization: Generalization::Strong,
        },
        Protocol::ColdStartItems { test_items: Amount::Count(6), min_item_events: 1 },
        Protocol::Strong { test_users: Amount::Fraction(0.25), given: Given::AllBut(2) },
        Protocol::GivenL { test_users: Amount::Count(10), max_l: 3, order: HistoryOrder::Random },
    ]
}

/// The serialized tag is the protocol's name, for every protocol, and every protocol is
/// in the key table front ends read.
#[test]
fn every_protocol_is_named_and_in_the_key_table() {
    let temporal = [
        Protocol::TemporalCut { cut: TimeCut::At(0) },
        Protocol::TemporalLastN { n: 1, min_train: 1 },
    ];
    for p in all_protocols().into_iter().chain(temporal) {
        let value = serde_json::to_value(&p).unwrap();
        assert_eq!(value["protocol"], p.name());
        assert!(recs_split::protocol_keys(p.name()).is_some(), "{} has no key table", p.name());
    }
}

#[test]
fn another_seed_gives_another_split() {
    let data = sample_data();
    for protocol in all_protocols() {
        let a = protocol.split(&data, 1, SplitId::default()).unwrap();
        let b = protocol.split(&data, 2, SplitId::default()).unwrap();
        let c = protocol.split(&data, 1, SplitId::new(1, 0)).unwrap();
        assert_ne!(keys(a.test()), keys(b.test()), "{protocol:?}");
        assert_ne!(keys(a.test()), keys(c.test()), "repetition of {protocol:?}");
    }
}

#[test]
fn splits_do_not_depend_on_the_thread_or_the_input_order() {
    let data = sample_data();
    // The same events given in reverse order build the same matrix, hence the same split.
    let mut reversed: Vec<Event> = data.events().collect();
    reversed.reverse();
    let reversed = Interactions::from_events(40, 30, reversed, DuplicatePolicy::Error).unwrap();
    for protocol in all_protocols() {
        let here = protocol.split(&data, 9, SplitId::default()).unwrap();
        let there = std::thread::scope(|scope| {
            scope
                .spawn(|| protocol.split(&reversed, 9, SplitId::default()).unwrap())
                .join()
                .unwrap()
        });
        assert_eq!(keys(here.train()), keys(there.train()));
        assert_eq!(keys(here.test()), keys(there.test()));
    }
}

#[test]
fn judged_users_option_selects_users_with_test_events() {
    let data = sample_data();
    let split = Protocol::LeaveOneOut.split(&data, 3, SplitId::default()).unwrap();
    let all = split.judgments(&JudgmentOptions::implicit()).unwrap();
    let some =
        split.judgments(&JudgmentOptions::implicit().users(JudgedUsers::WithTestEvents)).unwrap();
    assert_eq!(all.n_judged_users(), 40);
    assert_eq!(some.n_judged_users(), split.summary().test_users);
    assert_eq!(all.n_relevant(1.0), some.n_relevant(1.0));
}

#[test]
fn validation_split_lies_inside_training() {
    let data = sample_data();
    let outer =
        Protocol::Holdout { test_fraction: 0.2 }.split(&data, 5, SplitId::default()).unwrap();
    let inner = outer
        .validation(&Protocol::Holdout { test_fraction: 0.25 }, 5, SplitId::default())
        .unwrap();
    let mut inner_all = keys(inner.train());
    inner_all.extend(keys(inner.test()));
    inner_all.sort_unstable();
    assert_eq!(inner_all, keys(outer.train()));
    assert_eq!(inner.test().n_events(), (outer.train().n_events() as f64 * 0.25).round() as usize);
}

/// Each event is held out with probability `f` over seeds: the draws are unbiased.
#[test]
fn holdout_and_cold_start_draws_are_uniform() {
    let events = (0..20u32).map(|k| Event::new(k % 4, k, 1.0));
    let data = Interactions::from_events(4, 20, events, DuplicatePolicy::Error).unwrap();
    let holdout = Protocol::Holdout { test_fraction: 0.25 };
    let cold = Protocol::ColdStartItems { test_items: Amount::Count(5), min_item_events: 0 };
    for protocol in [holdout, cold] {
        let mut counts = [0u32; 20];
        for seed in 0..4000 {
            let split = protocol.split(&data, seed, SplitId::default()).unwrap();
            assert_eq!(split.test().n_events(), 5);
            for e in split.test().events() {
                counts[e.item as usize] += 1;
            }
        }
        // Expected 1000 each; the standard deviation is about 27, so 5 of them is 137.
        assert!(counts.iter().all(|&c| (863..=1137).contains(&c)), "{protocol:?}: {counts:?}");
    }
}
