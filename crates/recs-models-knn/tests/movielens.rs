//! MovieLens 100K (`RECS_DATA_DIR`): both models fit, are deterministic, and rank the
//! held-out items of a per-user 20% holdout better than item popularity by NDCG@10.
//!
//! The holdout and NDCG here are deliberately minimal and local to this test (binary
//! relevance, ties broken by item index), so the crate checks itself without depending on
//! the split and metrics crates; the workspace-level test repeats the comparison with them.

use rand_core::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use recs_core::{
    DuplicatePolicy, Event, Fit, Interactions, PredictRating, Recommender, Shape, TrainData,
};
use recs_models_knn::{ItemKnnParams, KnnParams, Similarity, UserKnnParams};

fn load() -> Option<Vec<Event>> {
    let path = recs_testkit::real_data_dir()?.join("ml-100k/u.data");
    let text = std::fs::read_to_string(&path).expect("u.data is readable");
    let events = text
        .lines()
        .enumerate()
        .map(|(n, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            let parse = |k: usize| -> u32 {
                fields[k].parse().unwrap_or_else(|_| panic!("{}:{}", path.display(), n + 1))
            };
            Event::new(parse(0) - 1, parse(1) - 1, parse(2) as f32)
        })
        .collect();
    Some(events)
}

/// Per user, a seeded random 20% of the events (rounded, at least one) go to the test side.
fn holdout(events: &[Event], seed: u64) -> (Interactions, Vec<Vec<u32>>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut by_user: Vec<Vec<Event>> = vec![Vec::new(); 943];
    for e in events {
        by_user[e.user as usize].push(*e);
    }
    let (mut train, mut test) = (Vec::new(), vec![Vec::new(); 943]);
    for (user, mut list) in by_user.into_iter().enumerate() {
        list.sort_by_key(|e| e.item);
        for k in (1..list.len()).rev() {
            list.swap(k, (rng.next_u64() % (k as u64 + 1)) as usize);
        }
        let n_test = ((list.len() as f64 * 0.2).round() as usize).max(1);
        test[user] = list[..n_test].iter().map(|e| e.item).collect();
        train.extend_from_slice(&list[n_test..]);
    }
    let train = Interactions::from_events(943, 1682, train, DuplicatePolicy::Error).unwrap();
    (train, test)
}

/// Mean NDCG@10 over users, candidates = every item not in the user's training row.
fn ndcg_at_10(model: &dyn Recommender, train: &Interactions, test: &[Vec<u32>]) -> f64 {
    let discount = |rank: usize| 1.0 / ((rank + 2) as f64).log2();
    let mut total = 0.0;
    for (user, relevant) in test.iter().enumerate() {
        let seen = train.user_items(user as u32);
        let candidates: Vec<u32> = (0..1682).filter(|i| seen.binary_search(i).is_err()).collect();
        let mut scores = vec![0.0; candidates.len()];
        model.score(user as u32, &candidates, &mut scores).unwrap();
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let dcg: f64 = order
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, k)| relevant.contains(&candidates[**k]))
            .map(|(rank, _)| discount(rank))
            .sum();
        let ideal: f64 = (0..relevant.len().min(10)).map(discount).sum();
        total += dcg / ideal;
    }
    total / test.len() as f64
}

/// Scores every item by its number of training events.
struct Popularity(Vec<u32>, usize);

impl Recommender for Popularity {
    fn shape(&self) -> Shape {
        Shape::new(self.1, self.0.len())
    }
    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
        recs_core::check_score_args(self.1, self.0.len(), user, items, out)?;
        for (o, &i) in out.iter_mut().zip(items) {
            *o = self.0[i as usize] as f32;
        }
        Ok(())
    }
}

#[test]
fn both_variants_beat_popularity_on_ndcg_at_10() {
    let Some(events) = load() else { return };
    assert_eq!(events.len(), 100_000);
    let (train, test) = holdout(&events, 42);
    let data = TrainData::new(&train, 42);
    let popularity = ndcg_at_10(&Popularity(train.item_counts(), 943), &train, &test);
    let params = KnnParams::new().k(20).similarity(Similarity::Cosine);
    let user = UserKnnParams::new(params).unwrap().fit(&data).unwrap();
    let item = ItemKnnParams::new(params).unwrap().fit(&data).unwrap();
    let user_ndcg = ndcg_at_10(&user, &train, &test);
    let item_ndcg = ndcg_at_10(&item, &train, &test);
    eprintln!(
        "NDCG@10: popularity {popularity:.4}, user-knn {user_ndcg:.4}, item-knn {item_ndcg:.4}"
    );
    assert!(user_ndcg > popularity, "user-knn {user_ndcg} <= popularity {popularity}");
    assert!(item_ndcg > popularity, "item-knn {item_ndcg} <= popularity {popularity}");
    if std::env::var_os("RECS_KNN_SWEEP").is_some() {
        for (similarity, support) in Similarity::ALL.iter().flat_map(|&s| [(s, 1), (s, 5)]) {
            let params = params.similarity(similarity).min_support(support);
            let user = UserKnnParams::new(params).unwrap().fit(&data).unwrap();
            let item = ItemKnnParams::new(params).unwrap().fit(&data).unwrap();
            eprintln!(
                "{similarity} min-support {support}: user-knn {:.4}, item-knn {:.4}",
                ndcg_at_10(&user, &train, &test),
                ndcg_at_10(&item, &train, &test)
            );
        }
    }

    // Rating prediction on the held-out pairs stays within the rating scale and beats the
    // global mean by MAE.
    let global =
        train.csr().data().iter().map(|&v| f64::from(v)).sum::<f64>() / train.n_events() as f64;
    let rating: std::collections::HashMap<(u32, u32), f32> =
        events.iter().map(|e| ((e.user, e.item), e.value)).collect();
    for (name, model) in [("user", &user as &dyn PredictRating), ("item", &item)] {
        let (mut mae, mut mae_global, mut n) = (0.0, 0.0, 0.0);
        for (u, items) in test.iter().enumerate() {
            let mut out = vec![0.0; items.len()];
            model.predict(u as u32, items, &mut out).unwrap();
            for (&i, &p) in items.iter().zip(&out) {
                assert!((1.0..=5.0).contains(&p), "{name}: prediction {p}");
                let truth = f64::from(rating[&(u as u32, i)]);
                mae += (f64::from(p) - truth).abs();
                mae_global += (global - truth).abs();
                n += 1.0;
            }
        }
        eprintln!("{name}-knn MAE {:.4} (global mean {:.4})", mae / n, mae_global / n);
        assert!(mae < mae_global, "{name}-knn MAE {mae} >= global-mean MAE {mae_global}");
    }
}

#[test]
fn fits_are_identical_with_one_and_many_threads() {
    let Some(events) = load() else { return };
    let train = Interactions::from_events(943, 1682, events, DuplicatePolicy::Error).unwrap();
    let params = ItemKnnParams::new(KnnParams::new().similarity(Similarity::Pearson)).unwrap();
    let fit = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| params.fit(&TrainData::new(&train, 1)).unwrap())
    };
    let (one, four) = (fit(1), fit(4));
    let (a, b) = (one.similarity_matrix(), four.similarity_matrix());
    assert_eq!(a.indptr().raw_storage(), b.indptr().raw_storage());
    assert_eq!(a.indices(), b.indices());
    assert!(a.data().iter().zip(b.data()).all(|(x, y)| x.to_bits() == y.to_bits()));
    assert!(a.nnz() >= 20 * 1600, "{}", a.nnz());
}
