//! Factors handed in (`recs_models_latent::FactorModel` over a `RowCatalog`), evaluated on
//! a full catalog by the streaming driver, equal the same scores listed for every
//! candidate and evaluated in memory (`recs eval --candidates catalog`): every metric,
//! tie policy and zero policy, on MovieLens 100K and MS Web, at any thread count and
//! block size.

use std::path::{Path, PathBuf};

use recs_bench::ModelRows;
use recs_bench::models::latent::FactorModel;
use recs_core::Recommender;
use recs_data::{Resolver, load_named};
use recs_metrics::io::{
    Candidates, Qrels, RowCatalog, RowNames, catalog_candidates, qrels_from_rows,
};
use recs_metrics::stream::{CatalogMetrics, DEFAULT_MEMORY_BUDGET, evaluate_catalog_with};
use recs_metrics::{
    Calibration, DEFAULT_CALIBRATION_SMOOTHING, Diversity, HeadRule, ItemFacts, Metric, Popularity,
    Report, Scored, Similarity, TieBreak, ZeroPolicy, evaluate_with,
};
use recs_split::{Amount, Protocol, Split, SplitId};
use recs_testkit::real_data_dir;

const METRICS: &str =
    "roc,croc,user_auc,p@5,r@20,f1@5,hit@5,ndcg@10,ndcg_exp@10,ap@10,map,mrr,half_life@5";
const MAX_FPR: f64 = 0.3;
const NAMES: RowNames<'static> =
    RowNames { qrels: "qrels", train: "train", users: "users", items: "items" };

fn load(dir: PathBuf, name: &str) -> recs_data::Dataset {
    load_named(name, &Resolver::new().with_env_dir(Some(dir)).with_download(false)).unwrap()
}

/// A split as ids: training pairs, graded test rows, and the ids of the user and item
/// rows (items in reverse canonical order, so that columns must be reordered).
struct Case {
    train: Vec<(String, String)>,
    qrels: Qrels,
    user_ids: Vec<String>,
    item_ids: Vec<String>,
}

fn case(split: &Split, users: &recs_core::IdMap, items: &recs_core::IdMap, grade: bool) -> Case {
    let id = |map: &recs_core::IdMap, i: u32| map.external(i).unwrap().to_string();
    let train = split.train().events().map(|e| (id(users, e.user), id(items, e.item))).collect();
    let rows: Vec<(String, String, f32)> = split
        .test()
        .events()
        .map(|e| (id(users, e.user), id(items, e.item), if grade { e.value } else { 1.0 }))
        .collect();
    let qrels =
        qrels_from_rows(rows.iter().map(|(u, i, g)| (u.as_str(), i.as_str(), *g)), Path::new("q"))
            .unwrap();
    let user_ids = users.iter().map(str::to_string).collect();
    let mut item_ids: Vec<String> = items.iter().map(str::to_string).collect();
    item_ids.reverse();
    Case { train, qrels, user_ids, item_ids }
}

/// Factors with many exact ties: small multiples of 1/2 on `rank` dimensions.
fn factors(n_rows: usize, rank: usize, salt: u64) -> Vec<f32> {
    (0..n_rows * rank)
        .map(|i| {
            let h = (i as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59;
            (h as f32 - 16.0) / 8.0
        })
        .collect()
}

/// The model over the item rows as given, and the same model with its item rows in the
/// catalog's column order.
fn models(c: &Case, catalog: &RowCatalog, rank: usize) -> (FactorModel, FactorModel) {
    let (n_users, n_items) = (c.user_ids.len(), c.item_ids.len());
    let (users, items) = (factors(n_users, rank, 1), factors(n_items, rank, 2));
    let columns: Vec<f32> = catalog
        .item_rows()
        .iter()
        .flat_map(|&r| items[r as usize * rank..(r as usize + 1) * rank].to_vec())
        .collect();
    (
        FactorModel::new(n_users, n_items, rank, users.clone(), items).unwrap(),
        FactorModel::new(n_users, n_items, rank, users, columns).unwrap(),
    )
}

/// Every candidate listed with its score, evaluated in memory, as `recs eval
/// --candidates catalog` does.
fn listed(c: &Case, model: &FactorModel, options: recs_metrics::Options) -> Report {
    let metrics = Metric::parse_list(METRICS).unwrap();
    listed_with(c, model, options, &metrics, ItemFacts::default())
}

fn listed_with(
    c: &Case,
    model: &FactorModel,
    options: recs_metrics::Options,
    metrics: &[Metric],
    facts: ItemFacts<'_>,
) -> Report {
    let pairs = c.train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    let catalog = catalog_candidates(&c.qrels, pairs).unwrap();
    let row_of = |ids: &[String], id: &str| ids.iter().position(|x| x == id).unwrap() as u32;
    let item_rows: Vec<u32> =
        catalog.qrels.items.iter().map(|id| row_of(&c.item_ids, id)).collect();
    let mut scores = Vec::new();
    for user in catalog.qrels.judgments.iter() {
        let row = row_of(&c.user_ids, catalog.qrels.users.external(user.user).unwrap());
        let items: Vec<u32> = user.items.iter().map(|&i| item_rows[i as usize]).collect();
        let start = scores.len();
        scores.resize(start + items.len(), 0.0);
        model.score(row, &items, &mut scores[start..]).unwrap();
    }
    let scored = Scored::new(&catalog.qrels.judgments, &scores).unwrap();
    let mut report = evaluate_with(&scored, metrics, &options, MAX_FPR, false, facts).unwrap();
    report.warnings.extend(catalog.warning("qrels", "train"));
    report
}

fn streamed(
    catalog: &RowCatalog,
    model: &FactorModel,
    options: recs_metrics::Options,
    threads: usize,
    memory_budget: usize,
) -> Report {
    let metrics = Metric::parse_list(METRICS).unwrap();
    let streaming = Streaming { threads, memory_budget };
    streamed_with(catalog, model, options, &metrics, ItemFacts::default(), streaming)
}

/// The threads and memory budget of a streamed evaluation.
#[derive(Clone, Copy)]
struct Streaming {
    threads: usize,
    memory_budget: usize,
}

fn streamed_with(
    catalog: &RowCatalog,
    model: &FactorModel,
    options: recs_metrics::Options,
    metrics: &[Metric],
    facts: ItemFacts<'_>,
    Streaming { threads, memory_budget }: Streaming,
) -> Report {
    let settings = CatalogMetrics { metrics, options, max_fpr: MAX_FPR, memory_budget };
    let source = catalog.source(ModelRows(model));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let evaluated = pool.install(|| evaluate_catalog_with(&source, settings, facts, false, &()));
    let mut report = evaluated.unwrap();
    report.warnings.extend(catalog.warning("qrels", "train"));
    report
}

fn assert_same(case: &str, memory: &Report, stream: &Report) {
    assert_eq!(memory.n_users, stream.n_users, "{case}");
    assert_eq!(memory.n_candidates, stream.n_candidates, "{case}");
    assert_eq!(memory.n_positives, stream.n_positives, "{case}");
    assert_eq!(memory.n_users_without_relevant, stream.n_users_without_relevant, "{case}");
    assert_eq!(memory.per_user, stream.per_user, "{case}: per-user values");
    assert_eq!(memory.values.len(), stream.values.len(), "{case}");
    for ((key, a), (key_b, b)) in memory.values.iter().zip(&stream.values) {
        assert_eq!(key, key_b, "{case}");
        match (a, b) {
            // The documented exception (`docs/metrics.md`): the partial ROC area when its
            // bound falls inside a run of negatives.
            (Some(a), Some(b)) if key.starts_with("roc_pauc") => {
                assert!((a - b).abs() < 1e-15, "{case} {key}: {a} vs {b}")
            }
            (Some(a), Some(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{case} {key}: {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{case} {key}"),
        }
    }
    assert_eq!(memory.warnings, stream.warnings, "{case}");
}

fn row_catalog(c: &Case) -> RowCatalog {
    let train = c.train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    RowCatalog::new(&c.qrels, train, &c.user_ids, &c.item_ids, NAMES).unwrap()
}

/// MovieLens 100K (when the real data is there) and a 20% holdout of `seed`, graded 1.
fn movielens_holdout(seed: u64) -> Option<(recs_data::Dataset, Case)> {
    let data = load(real_data_dir()?, "ml-100k");
    let holdout = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = holdout.split(&data.interactions, seed, SplitId::default()).unwrap();
    let c = case(&split, &data.users, &data.items, false);
    Some((data, c))
}

/// Every tie and zero policy, then other thread counts and block sizes.
fn check(name: &str, c: &Case, threshold: f32) {
    let catalog = row_catalog(c);
    let (given, columns) = models(c, &catalog, 4);
    for ties in [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending] {
        for zero in [ZeroPolicy::Exclude, ZeroPolicy::Zero, ZeroPolicy::Ignatov] {
            let options = Candidates::Catalog.options(threshold, ties, Some(zero));
            let memory = listed(c, &given, options);
            let stream = streamed(&catalog, &columns, options, 2, DEFAULT_MEMORY_BUDGET);
            assert_same(&format!("{name} {ties} {zero}"), &memory, &stream);
        }
    }
    let options = Candidates::Catalog.options(threshold, TieBreak::Expected, None);
    let reference =
        format!("{:?}", streamed(&catalog, &columns, options, 1, DEFAULT_MEMORY_BUDGET));
    for (threads, budget) in [(3, 1), (4, 300_000), (7, 3_000_000)] {
        let other = format!("{:?}", streamed(&catalog, &columns, options, threads, budget));
        assert_eq!(other, reference, "{name}: {threads} threads, budget {budget}");
    }
}

#[test]
fn movielens_factors_equal_listed_scores() {
    let Some(dir) = real_data_dir() else { return };
    let data = load(dir, "ml-100k");
    let holdout = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = holdout.split(&data.interactions, 42, SplitId::default()).unwrap();
    check("ml-100k implicit", &case(&split, &data.users, &data.items, false), 1.0);
    check("ml-100k ratings >= 4", &case(&split, &data.users, &data.items, true), 4.0);
}

/// The metrics that read the lists (popularity, novelty, genre diversity, calibration
/// to the genres of each user's training items, exposure) streamed from factors with many
/// ties equal those of the listed scores, bit for bit, under every tie policy, at any
/// thread count and block size.
#[test]
fn movielens_list_metrics_streamed_equal_listed() {
    let Some((data, c)) = movielens_holdout(7) else { return };
    let catalog = row_catalog(&c);
    // The catalog numbers users as the qrels do and items in their ids' canonical order,
    // as the listed evaluation does: one set of facts serves both.
    let pairs = c.train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    let popularity =
        Popularity::of_item_pairs(catalog.items(), catalog.n_items(), pairs, HeadRule::default())
            .unwrap();
    let genres = data.item_attributes.as_ref().expect("MovieLens 100K's genres");
    let mut pairs = Vec::new();
    for (column, id) in catalog.items().iter().enumerate() {
        let item = data.items.get(id).unwrap();
        let (ids, weights) = (genres.item_attributes(item), genres.item_weights(item));
        pairs.extend(ids.iter().zip(weights).map(|(&a, &w)| (column as u32, a, w)));
    }
    let attributes = recs_core::ItemAttributes::from_pairs(
        catalog.n_items(),
        genres.vocabulary().clone(),
        pairs,
    )
    .unwrap();
    let history: Vec<(u32, u32)> = c
        .train
        .iter()
        .filter_map(|(u, i)| Some((c.qrels.users.get(u)?, data.items.get(i).unwrap())))
        .collect();
    let n_users = c.qrels.judgments.n_users();
    let calibration =
        Calibration::new(&attributes, genres, history, n_users, DEFAULT_CALIBRATION_SMOOTHING)
            .unwrap();
    let diversity = Diversity::new(&attributes, Similarity::Cosine);
    let facts = ItemFacts {
        popularity: Some(&popularity),
        diversity: Some(&diversity),
        calibration: Some(&calibration),
    };
    let metrics = Metric::parse_list(
        "ndcg@10,coverage@10,arp@10,aplt@10,aclt@10,epc@10,efd@10,miuf@10,serendipity@10,\
         ild@10,miscal@10,gini@10,entropy@10,popreo@10,poprsp@10",
    )
    .unwrap();
    let (given, columns) = models(&c, &catalog, 4);
    let two = Streaming { threads: 2, memory_budget: DEFAULT_MEMORY_BUDGET };
    for ties in [TieBreak::Expected, TieBreak::ItemAscending, TieBreak::ItemDescending] {
        let options = Candidates::Catalog.options(1.0, ties, None);
        let memory = listed_with(&c, &given, options, &metrics, facts);
        let stream = streamed_with(&catalog, &columns, options, &metrics, facts, two);
        assert_same(&format!("ml-100k lists {ties}"), &memory, &stream);
        let value = |key: &str| stream.values.iter().find(|(k, _)| k == key).unwrap().1.unwrap();
        assert!(value("ild@10") > 0.0 && value("miscal@10") > 0.0 && value("gini@10") > 0.0);
    }
    let options = Candidates::Catalog.options(1.0, TieBreak::Expected, None);
    let one = Streaming { threads: 1, memory_budget: DEFAULT_MEMORY_BUDGET };
    let reference = streamed_with(&catalog, &columns, options, &metrics, facts, one);
    for (threads, memory_budget) in [(3, 1), (4, 300_000)] {
        let streaming = Streaming { threads, memory_budget };
        let other = streamed_with(&catalog, &columns, options, &metrics, facts, streaming);
        assert_eq!(format!("{other:?}"), format!("{reference:?}"), "{threads} threads");
    }
}

#[test]
fn msweb_factors_equal_listed_scores() {
    let Some(dir) = real_data_dir() else { return };
    let data = load(dir, "msweb");
    let test = data.test.clone().unwrap();
    let split = Split::predefined(data.interactions, test).unwrap();
    let c = case(&split, &data.users, &data.items, false);
    let catalog = row_catalog(&c);
    assert_eq!(catalog.n_graded(), 13_194, "schein2005's MS Web positives");
    check("msweb", &c, 1.0);
}

/// Sampled against exact streamed from factors with many ties places every relevant item
/// of MovieLens 100K as the listed scores do (among the full catalog and each seed's
/// draw), at any thread count and block size.
#[test]
fn movielens_sampled_placements_streamed_equal_listed() {
    use recs_sampled::stream::stream_instances;
    use recs_sampled::versus::{UserLists, run_instances};
    let Some((_, c)) = movielens_holdout(11) else { return };
    let catalog = row_catalog(&c);
    let (given, columns) = models(&c, &catalog, 4);
    let samplings: Vec<recs_split::NegativeSampling> = (0..3)
        .map(|seed| recs_split::NegativeSampling {
            negatives: 50,
            by: recs_split::SampleBy::Uniform,
            seed,
        })
        .collect();
    // Listed: every candidate's score, each user's lists from its row.
    let pairs = c.train.iter().map(|(u, i)| (u.as_str(), i.as_str()));
    let listed = catalog_candidates(&c.qrels, pairs).unwrap();
    let row_of = |ids: &[String], id: &str| ids.iter().position(|x| x == id).unwrap() as u32;
    let item_rows: Vec<u32> = listed.qrels.items.iter().map(|id| row_of(&c.item_ids, id)).collect();
    let mut users = Vec::new();
    let mut scores: Vec<Vec<f32>> = Vec::new();
    let mut ids = Vec::new();
    for row in listed.qrels.judgments.iter() {
        let id = listed.qrels.users.external(row.user).unwrap();
        let user = recs_split::SampledUser::Id(id);
        let draws: Vec<_> = samplings
            .iter()
            .map(|s| s.sample(user, row.items, row.grades, |g| g >= 1.0, &[]))
            .collect();
        let draws: Vec<(&[u32], &[f32])> =
            draws.iter().map(|d| (&d.items[..], &d.grades[..])).collect();
        users.push(UserLists::from_rows(row.items, row.grades, |g| g >= 1.0, &draws));
        let items: Vec<u32> = row.items.iter().map(|&i| item_rows[i as usize]).collect();
        let mut out = vec![0.0; items.len()];
        given.score(row_of(&c.user_ids, id), &items, &mut out).unwrap();
        scores.push(out);
        ids.push(id);
    }
    let want = run_instances(&users, |p, keys| {
        keys.extend(scores[p].iter().map(|&s| recs_metrics::score_key(s)));
    });
    let tied = want.iter().filter(|i| i.exact.tied > 0).count();
    assert!(want.len() > 15_000 && tied > 1_000, "{} instances, {tied} tied", want.len());
    // Each user's id stream, as `recs eval --candidates sampled:N` draws.
    let draws = recs_sampled::stream::SeededDraws {
        samplings,
        user: Box::new(|position: usize| recs_split::SampledUser::Id(ids[position])),
        popularity: Vec::new(),
        threshold: 1.0,
    };
    let source = catalog.source(ModelRows(&columns));
    for (threads, budget) in [(1, DEFAULT_MEMORY_BUDGET), (2, DEFAULT_MEMORY_BUDGET), (3, 1)] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let streamed =
            pool.install(|| stream_instances(&source, |g| g >= 1.0, &draws, budget, &())).unwrap();
        assert_eq!(streamed.instances, want, "{threads} threads, budget {budget}");
        assert_eq!(streamed.n_users, users.iter().filter(|u| u.has_instances()).count());
        let n = |u: &UserLists| u.negatives.len() as u64 + 1;
        let sizes: std::collections::BTreeSet<(u64, u64)> = users
            .iter()
            .filter(|u| u.has_instances())
            .flat_map(|u| u.drawn.iter().map(move |d| (n(u), d.len() as u64)))
            .collect();
        assert_eq!(streamed.sizes, sizes);
        assert_eq!((streamed.n_short, streamed.n_left_out), (0, 0));
    }
}
