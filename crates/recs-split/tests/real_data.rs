//! The protocols on the real data sets of the source papers (MovieLens 100K, UCI MS Web),
//! found through `RECS_DATA_DIR`.

//!
//! The two files are read by small parsers local to this test, so that the split crate's
//! tests stand on their own; the loaders proper live in `recs-data` and are tested there.

use std::collections::BTreeSet;
use std::path::Path;

use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};
use recs_split::{
    Amount, Generalization, Given, HistoryOrder, JudgedUsers, JudgmentOptions, Protocol, Split,
    SplitId, TimeCut,
};
use recs_testkit::real_data_dir;

/// MovieLens 100K `u.data`: `user<TAB>item<TAB>rating<TAB>timestamp`, ids in numeric order.
fn movielens_100k(dir: &Path) -> Interactions {
    let text = std::fs::read_to_string(dir.join("u.data")).unwrap();
    let rows: Vec<[i64; 4]> = text
        .lines()
        .map(|line| {
            let f: Vec<i64> = line.split('\t').map(|x| x.parse().unwrap()).collect();
            [f[0], f[1], f[2], f[3]]
        })
        .collect();
    let users = IdMap::from_ids_sorted(rows.iter().map(|r| r[0].to_string())).unwrap();
    let items = IdMap::from_ids_sorted(rows.iter().map(|r| r[1].to_string())).unwrap();
    let events = rows.iter().map(|r| {
        let user = users.get(&r[0].to_string()).unwrap();
        let item = items.get(&r[1].to_string()).unwrap();
        Event::at(user, item, r[2] as f32, r[3])
    });
    Interactions::from_events(users.len(), items.len(), events, DuplicatePolicy::Error).unwrap()
}

/// The (case id, vroot id) visits of one MS Web file (`C,"id",id` then `V,vroot,1` lines).
fn msweb_visits(path: &Path) -> Vec<(u32, u32)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut case = 0;
    let mut visits = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.trim_end().split(',').collect();
        match fields[0] {
            "C" => case = fields[2].parse().unwrap(),
            "V" => visits.push((case, fields[1].parse().unwrap())),
            _ => {}
        }
    }
    visits
}

/// MS Web training and test files in one index space: users are the training cases (a
/// test case id is the same person as the equal training case id), items the vroots
/// visited in either file, both in numeric order.
fn msweb(dir: &Path) -> (Interactions, Interactions) {
    let train = msweb_visits(&dir.join("anonymous-msweb.data"));
    let test = msweb_visits(&dir.join("anonymous-msweb.test"));
    let cases: BTreeSet<u32> = train.iter().chain(&test).map(|v| v.0).collect();
    let vroots: BTreeSet<u32> = train.iter().chain(&test).map(|v| v.1).collect();
    let users = IdMap::from_ids_sorted(cases.iter().map(u32::to_string)).unwrap();
    let items = IdMap::from_ids_sorted(vroots.iter().map(u32::to_string)).unwrap();
    let build = |visits: &[(u32, u32)]| {
        let events = visits.iter().map(|&(c, v)| {
            Event::new(users.get(&c.to_string()).unwrap(), items.get(&v.to_string()).unwrap(), 1.0)
        });
        Interactions::from_events(users.len(), items.len(), events, DuplicatePolicy::Error).unwrap()
    };
    (build(&train), build(&test))
}

/// schein2005 §5: 1351/331 training/test movies; every one of the 943 users is judged on
/// every test movie, none of which occurs in training: 943 × 331 = 312,133 candidates.
#[test]
fn movielens_cold_start_has_the_papers_candidate_space() {
    let Some(dir) = real_data_dir() else { return };
    let data = movielens_100k(&dir.join("ml-100k"));
    assert_eq!((data.n_users(), data.n_items(), data.n_events()), (943, 1682, 100_000));
    let protocol = Protocol::ColdStartItems { test_items: Amount::Count(331), min_item_events: 0 };
    let split = protocol.split(&data, 0, SplitId::default()).unwrap();
    let test_items = split.candidate_items().unwrap();
    assert_eq!(test_items.len(), 331);
    for &item in test_items {
        assert!(split.train().item_users(item).is_empty());
    }

    let implicit = split.judgments(&JudgmentOptions::implicit()).unwrap();
    assert_eq!(implicit.n_judged_users(), 943);
    assert_eq!(implicit.n_candidates(), 943 * 331);
    assert_eq!(implicit.n_candidates(), 312_133);

    // Observed test events and those rated 4 or higher, for seed 0. The paper's own random
    // split had 19,192 and 10,640; a random 331 of 1682 movies holds 19,679 ratings on
    // average (100,000 × 331 / 1682), 55.4% of them >= 4 over the whole data set.
    let observed = implicit.n_relevant(1.0);
    let rating = split.judgments(&JudgmentOptions::rating(4.0)).unwrap();
    let high = rating.n_relevant(1.0);
    assert_eq!(observed, split.test().n_events());
    assert_eq!(observed + split.train().n_events(), 100_000);
    assert_eq!((observed, high), (17_823, 9_991));
    assert_eq!(rating.n_candidates(), 312_133);

    // Conditional mode judges exactly the observed test events.
    let conditional = split.judgments(&JudgmentOptions::conditional(4.0)).unwrap();
    assert_eq!(conditional.n_candidates(), observed);
    assert_eq!(conditional.n_relevant(1.0), high);
    // schein2005 §6.3 keeps users with at least 40 training ratings.
    let forty = split.judgments(&JudgmentOptions::conditional(4.0).min_known_events(40)).unwrap();
    for user in forty.users() {
        assert!(split.train().user_items(*user).len() >= 40);
    }
    assert!(forty.n_judged_users() < conditional.n_judged_users());
    // The users below 40 (§6.3's sparse users): the two populations split the judged ones.
    let mut below = JudgmentOptions::conditional(4.0);
    below.max_known_events = Some(39);
    let below = split.judgments(&below).unwrap();
    for user in below.users() {
        assert!(split.train().user_items(*user).len() < 40);
    }
    assert_eq!(below.n_judged_users() + forty.n_judged_users(), conditional.n_judged_users());
    assert_eq!(below.n_candidates() + forty.n_candidates(), conditional.n_candidates());
}

/// schein2005 §5 on MS Web: the given training/test files, test case ids read as the same
/// people; candidates are every (training case, vroot) pair minus the training visits.
#[test]
fn msweb_predefined_has_the_papers_candidate_space() {
    let Some(dir) = real_data_dir() else { return };
    let (train, test) = msweb(&dir.join("msweb"));
    assert_eq!((train.n_users(), train.n_items(), train.n_events()), (32_711, 286, 98_654));
    assert_eq!(test.n_events(), 15_191);
    let split = Split::predefined(train, test).unwrap();
    let summary = split.summary();

    let implicit = split.judgments(&JudgmentOptions::implicit()).unwrap();
    assert_eq!(implicit.n_candidates(), 32_711 * 286 - 98_654);
    assert_eq!(implicit.n_candidates(), 9_256_692);
    // Test case 10001 is training case 10001, so some test visits repeat training visits of
    // the same person; those pairs are known and never candidates. The positives are the
    // test visits that are not training visits.
    let positives = implicit.n_relevant(1.0);
    assert_eq!(positives, 15_191 - summary.overlapping_test_events);
    assert_eq!((positives, summary.overlapping_test_events), (POSITIVES, OVERLAP));
    assert_eq!(summary.test_users, 5_000);

    // Judging only the 5,000 test cases keeps the same positives.
    let test_only =
        split.judgments(&JudgmentOptions::implicit().users(JudgedUsers::WithTestEvents)).unwrap();
    assert_eq!(test_only.n_relevant(1.0), positives);
    assert_eq!(test_only.n_judged_users(), 5_000);
}

const POSITIVES: usize = 13_194;
const OVERLAP: usize = 1_997;

/// Every protocol on MovieLens 100K: the parts are disjoint and complete, no test pair is
/// known, and the protocol-specific counts come out as specified.
#[test]
fn every_protocol_partitions_movielens() {
    let Some(dir) = real_data_dir() else { return };
    let data = movielens_100k(&dir.join("ml-100k"));
    let mut all: Vec<(u32, u32)> = data.events().map(|e| (e.user, e.item)).collect();
    all.sort_unstable();
    let protocols = [
        Protocol::Holdout { test_fraction: 0.2 },
        Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 },
        Protocol::LeaveOneOut,
        Protocol::KFoldEvents { folds: 10 },
        Protocol::KFoldUsers {
            folds: 10,
            given: Given::N(5),
            generalization: Generalization::Weak,
        },
        Protocol::HiddenItems {
            folds: 10,
            hidden: Amount::Count(10),
            generalization: Generalization::Strong,
        },
        Protocol::ColdStartItems { test_items: Amount::Count(331), min_item_events: 0 },
        Protocol::Strong { test_users: Amount::Fraction(0.1), given: Given::AllBut(5) },
        Protocol::GivenL {
            test_users: Amount::Count(100),
            max_l: 20,
            order: HistoryOrder::Timestamp,
        },
        Protocol::TemporalCut { cut: TimeCut::Fraction(0.2) },
        Protocol::TemporalLastN { n: 5, min_train: 1 },
    ];
    for protocol in protocols {
        let split = protocol.split(&data, 0, SplitId::default()).unwrap();
        let mut parts: Vec<(u32, u32)> = split.train().events().map(|e| (e.user, e.item)).collect();
        parts.extend(split.test().events().map(|e| (e.user, e.item)));
        if let Some(history) = split.history() {
            parts.extend(history.events().map(|e| (e.user, e.item)));
        }
        parts.sort_unstable();
        assert_eq!(parts, all, "{protocol:?}");
        let summary = split.summary();
        assert_eq!(summary.overlapping_test_events, 0, "{protocol:?}");
        let test = summary.test_events;
        match protocol {
            Protocol::Holdout { .. } => assert_eq!(test, 20_000),
            // Every MovieLens 100K user has at least 20 ratings, so none is spared.
            Protocol::LeaveOneOut => assert_eq!(test, 943),
            Protocol::KFoldEvents { .. } => assert_eq!(test, 10_000),
            Protocol::KFoldUsers { .. } => {
                let users = split.test_users().unwrap();
                assert!((94..=95).contains(&users.len()));
                for &user in users {
                    assert_eq!(split.train().user_items(user).len(), 5);
                }
            }
            Protocol::HiddenItems { .. } => {
                assert_eq!(split.candidate_items().unwrap().len(), 10);
                let judgments = split.judgments(&JudgmentOptions::implicit()).unwrap();
                assert!(judgments.n_candidates() <= split.test_users().unwrap().len() * 10);
                assert_eq!(judgments.n_relevant(1.0), test);
            }
            Protocol::Strong { .. } => {
                assert_eq!(split.test_users().unwrap().len(), 94);
                assert_eq!(test, 94 * 5);
            }
            Protocol::TemporalCut { .. } => assert!(test >= 20_000),
            Protocol::TemporalLastN { .. } => assert_eq!(test, 943 * 5),
            _ => {}
        }
    }
}
