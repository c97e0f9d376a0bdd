//! The published facts of the real datasets, checked on the files found through
//! `RECS_DATA_DIR` (skipped with a notice when it is unset).

use std::collections::BTreeSet;
use std::path::PathBuf;

use recs_data::{
    AttributeFilter, CacheStatus, CaseIds, DatasetCache, MsWebOptions, Resolver, Stats, Vroots,
    load_cast, load_named, load_named_cached, load_named_with, popularity_head, profile_groups,
};
use recs_testkit::real_data_dir;

fn resolver(dir: PathBuf) -> Resolver {
    Resolver::new().with_env_dir(Some(dir)).with_download(false)
}

#[test]
fn movielens_100k_facts() {
    let Some(dir) = real_data_dir() else { return };
    let d = load_named("ml-100k", &resolver(dir)).unwrap();
    assert_eq!((d.n_users(), d.n_items(), d.n_events()), (943, 1682, 100_000));
    let at_least_4 = d.interactions.events().filter(|e| e.value >= 4.0).count();
    assert_eq!(at_least_4, 55_375);
    let stats = Stats::of(&d.interactions);
    assert!((1.0 - stats.density - 0.9370).abs() < 5e-5, "sparsity {}", 1.0 - stats.density);
    assert_eq!(stats.value_histogram.iter().map(|h| h.1).sum::<usize>(), 100_000);
    assert_eq!(stats.profile_lengths.min, 20);

    let attrs = d.item_attributes.as_ref().unwrap();
    let movie_1 = d.items.get("1").unwrap();
    let genres: Vec<&str> = attrs
        .item_attributes(movie_1)
        .iter()
        .map(|&g| attrs.vocabulary().external(g).unwrap())
        .collect();
    assert_eq!(genres, ["Animation", "Children's", "Comedy"]);
    let title = |id: &str| d.item_info[d.items.get(id).unwrap() as usize].title.clone().unwrap();
    assert_eq!(title("1"), "Toy Story (1995)");
    assert_eq!(title("543"), "Misérables, Les (1995)");
    assert_eq!(title("1633"), "Á köldum klaka (Cold Fever) (1994)");
    assert_eq!(
        d.user_info[d.users.get("1").unwrap() as usize].occupation.as_deref(),
        Some("technician")
    );
    assert!(d.interactions.has_timestamps());

    let groups = profile_groups(&d.interactions, &[1, 100, 200]).unwrap();
    let users: Vec<usize> = groups.iter().map(|g| g.n_users).collect();
    assert_eq!(users, [579, 215, 149]);
    let events: usize = groups.iter().map(|g| g.n_events).sum();
    assert_eq!(events, 100_000);
    let head = popularity_head(&d.interactions, 0.5).unwrap();
    assert!(head.share >= 0.5 && head.n_items < 1682);
    assert_eq!(d.sources.len(), 3);
}

#[test]
fn msweb_facts_under_both_readings() {
    let Some(dir) = real_data_dir() else { return };
    let r = resolver(dir);
    let same = load_named("msweb", &r).unwrap();
    let test = same.test.as_ref().unwrap();
    assert_eq!(same.n_events(), 98_654);
    assert_eq!(test.n_events(), 15_191);
    let train_users = same.interactions.user_counts().iter().filter(|&&c| c > 0).count();
    let test_users = test.user_counts().iter().filter(|&&c| c > 0).count();
    assert_eq!((train_users, test_users), (32_711, 5_000));
    // Test case ids 10001..15000 are training case ids: same people.
    assert_eq!(same.n_users(), 32_711);
    assert_eq!(same.n_items(), 286);
    let visited_in_training = same.interactions.item_counts().iter().filter(|&&c| c > 0).count();
    assert_eq!(visited_in_training, 285);
    // Candidate space of Schein et al. Figure 3: every (case, vroot) pair minus training.
    assert_eq!(same.n_users() * same.n_items() - same.n_events(), 9_256_692);
    let downloads = same.items.get("1008").unwrap();
    assert_eq!(same.item_info[downloads as usize].title.as_deref(), Some("Free Downloads"));
    assert_eq!(same.item_info[downloads as usize].url.as_deref(), Some("/msdownload"));
    assert_eq!(same.interactions.item_users(downloads).len(), 10_836);
    // Declared but never visited: not an item under the default reading.
    assert_eq!(same.items.get("1287"), None);

    let separate = MsWebOptions { case_ids: CaseIds::Separate, vroots: Vroots::Declared };
    let sep = load_named_with("msweb", &r, &separate).unwrap();
    assert_eq!((sep.n_users(), sep.n_items()), (37_711, 294));
    let autoroute = sep.items.get("1287").unwrap() as usize;
    assert_eq!(sep.item_info[autoroute].title.as_deref(), Some("International AutoRoute"));
    assert_eq!(sep.test.as_ref().unwrap().n_events(), 15_191);
    let test_rows: BTreeSet<u32> = sep.test.as_ref().unwrap().events().map(|e| e.user).collect();
    let train_rows: BTreeSet<u32> = sep.interactions.events().map(|e| e.user).collect();
    assert!(test_rows.is_disjoint(&train_rows));
}

#[test]
fn cast_file_facts_and_the_croc_filter() {
    let Some(dir) = real_data_dir() else { return };
    let r = resolver(dir);
    let ml = load_named("ml-100k", &r).unwrap();
    let all = load_cast(&r, &ml, &AttributeFilter::default()).unwrap();
    let movies_with_cast =
        (0..ml.n_items() as u32).filter(|&i| !all.item_attributes(i).is_empty()).count();
    assert_eq!(movies_with_cast, 1575);
    assert_eq!(all.csr().nnz(), 15_218);
    assert_eq!(all.n_attributes(), 9_296);
    let croc = load_cast(&r, &ml, &AttributeFilter { top_n: Some(10), min_items: 2 }).unwrap();
    assert_eq!(croc.n_attributes(), 2_490);
    let movies_kept =
        (0..ml.n_items() as u32).filter(|&i| !croc.item_attributes(i).is_empty()).count();
    let pairs_kept = croc.csr().nnz();
    // Measured on the shipped file and cross-checked with an independent awk count.
    assert_eq!((movies_kept, pairs_kept), (1_480, 8_412));
    let top3 = load_cast(&r, &ml, &AttributeFilter { top_n: Some(3), min_items: 1 }).unwrap();
    assert!((0..ml.n_items() as u32).all(|i| top3.item_attributes(i).len() <= 3));
}

#[test]
fn parsed_cache_hits_after_first_load() {
    let Some(dir) = real_data_dir() else { return };
    let cache_dir = tempfile::tempdir().unwrap();
    let r = resolver(dir);
    let cache = DatasetCache::new(cache_dir.path());
    let (a, first) = load_named_cached("ml-100k", &r, &MsWebOptions::default(), &cache).unwrap();
    let (b, second) = load_named_cached("ml-100k", &r, &MsWebOptions::default(), &cache).unwrap();
    assert_eq!((first, second), (CacheStatus::Miss, CacheStatus::Hit));
    assert_eq!(
        a.interactions.events().collect::<Vec<_>>(),
        b.interactions.events().collect::<Vec<_>>()
    );
    assert_eq!(a.item_info, b.item_info);
    assert_eq!(a.user_info, b.user_info);
    let (m, _) = load_named_cached("msweb", &r, &MsWebOptions::default(), &cache).unwrap();
    let (m2, status) = load_named_cached("msweb", &r, &MsWebOptions::default(), &cache).unwrap();
    assert_eq!(status, CacheStatus::Hit);
    assert_eq!(m.test.unwrap().n_events(), m2.test.unwrap().n_events());
}
