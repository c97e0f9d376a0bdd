//! Both Bayesian models on MovieLens 100K with the IMDb cast file: naive Bayes on
//! actors predicts "rated 4 or higher" among held-out ratings better than chance
//! (schein2005 §6.3 setting), and the network ranks held-out movies better than chance.
//! Set `RECS_DATA_DIR` to run.

use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
use recs_data::{AttributeFilter, load_item_attributes, load_movielens_100k};
use recs_models_bayes::{NaiveBayesParams, NaiveBayesianNetworkParams};

/// Mann-Whitney AUC with ties counted 1/2 (a reference written for this test).
fn auc(scores: &[f32], positive: &[bool]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let (mut rank_sum, mut k) = (0.0f64, 0usize);
    while k < order.len() {
        let mut end = k;
        while end < order.len() && scores[order[end]] == scores[order[k]] {
            end += 1;
        }
        let mid_rank = (k + end + 1) as f64 / 2.0;
        rank_sum += order[k..end].iter().filter(|&&i| positive[i]).count() as f64 * mid_rank;
        k = end;
    }
    let n_pos = positive.iter().filter(|&&p| p).count() as f64;
    let n_neg = positive.len() as f64 - n_pos;
    (rank_sum - n_pos * (n_pos + 1.0) / 2.0) / (n_pos * n_neg)
}

/// Consecutive inputs give unrelated outputs (one SplitMix64 step).
fn mix(x: u64) -> u64 {
    recs_core::splitmix64(&mut { x })
}

#[test]
fn bayesian_models_beat_chance_on_movielens() -> Result<(), Box<dyn std::error::Error>> {
    let Some(root) = recs_testkit::real_data_dir() else { return Ok(()) };
    let data = load_movielens_100k(&root.join("ml-100k"))?;
    let filter = AttributeFilter { top_n: Some(10), min_items: 2 };
    let cast = load_item_attributes(&root.join("ml-100k-cast/cast.tsv"), &data.items, &filter)?;
    // A deterministic 80/20 holdout of events by a hash of the pair. A linear rule such as
    // `(7·user + 13·item) mod 5` would hold out one residue class of items per class of
    // users: a block pattern models learn from the training part.
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for e in data.interactions.events() {
        if mix((u64::from(e.user) << 32) | u64::from(e.item)).is_multiple_of(5) {
            test.push(e)
        } else {
            train.push(e)
        }
    }
    let (n_users, n_items) = (data.n_users(), data.n_items());
    let train_m = Interactions::from_events(n_users, n_items, train, DuplicatePolicy::Error)?;
    let fit_data = TrainData::new(&train_m, 1).with_attributes(&cast)?;

    // Conditional rating prediction: candidates are a user's held-out ratings; users with
    // at least 40 training ratings (schein2005 §6.3).
    let bayes = NaiveBayesParams::new().fit(&fit_data)?;
    let (mut s, mut positive) = (Vec::new(), Vec::new());
    let mut buffer = [0.0f32];
    for e in &test {
        if train_m.user_items(e.user).len() >= 40 {
            bayes.score(e.user, &[e.item], &mut buffer)?;
            s.push(buffer[0]);
            positive.push(e.value >= 4.0);
        }
    }
    let bayes_auc = auc(&s, &positive);
    println!(
        "ml-100k naive Bayes (actors) conditional ROC-4 AUC {bayes_auc:.4} on {} pairs",
        s.len()
    );
    assert!(bayes_auc > 0.55, "naive Bayes AUC {bayes_auc}");

    // Implicit: for a sample of users, held-out movies against unseen ones.
    let nbn = NaiveBayesianNetworkParams::new().fit(&TrainData::new(&train_m, 1))?;
    let test_m = Interactions::from_events(
        n_users,
        n_items,
        test.iter().map(|e| Event::new(e.user, e.item, 1.0)),
        DuplicatePolicy::Error,
    )?;
    let mut per_user = Vec::new();
    for user in (0..n_users as u32).step_by(9) {
        let candidates: Vec<u32> =
            (0..n_items as u32).filter(|&i| train_m.get(user, i).is_none()).collect();
        let labels: Vec<bool> = candidates.iter().map(|&i| test_m.get(user, i).is_some()).collect();
        if !labels.contains(&true) {
            continue;
        }
        let mut out = vec![0.0f32; candidates.len()];
        nbn.score(user, &candidates, &mut out)?;
        per_user.push(auc(&out, &labels));
    }
    let nbn_auc = per_user.iter().sum::<f64>() / per_user.len() as f64;
    println!("ml-100k NBN mean per-user AUC {nbn_auc:.4} over {} users", per_user.len());
    assert!(nbn_auc > 0.6, "NBN mean per-user AUC {nbn_auc}");
    Ok(())
}
