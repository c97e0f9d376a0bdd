//! MS Web (UCI "Anonymous Microsoft Web Data"): the popularity recommenders of
//! schein2005 §4.4 against random, by pooled ROC and per-user CROC on the test visits.
//!
//! Training file for fitting; test file for judging (test case ids merged with the
//! training case ids, as in schein2005 §5.1). Candidates: every vroot a judged user has no
//! training visit to; positives: the test visits. Set `RECS_DATA_DIR` to run it.

use recs_eval::core::{Fit, Recommender, TrainData};
use recs_eval::data::{MsWebOptions, load_msweb};
use recs_eval::metrics::{Scored, croc, random_croc, roc};
use recs_eval::models::baseline::{
    ItemPopularityParams, RandomParams, UserItemPopularityParams, UserPopularityParams,
};
use recs_eval::split::{JudgedUsers, JudgmentOptions, Split};
use recs_testkit::real_data_dir;

mod support;
use support::score_judgments;

#[test]
fn popularity_beats_random_on_msweb_by_roc_and_croc() -> Result<(), Box<dyn std::error::Error>> {
    let Some(root) = real_data_dir() else { return Ok(()) };
    let dir = root.join("msweb");
    let data = load_msweb(
        &dir.join("anonymous-msweb.data"),
        &dir.join("anonymous-msweb.test"),
        &MsWebOptions::default(),
    )?;
    let train = data.interactions.clone();
    let test = data.test.clone().expect("MS Web ships a test file");
    let split = Split::predefined(train.clone(), test)?;
    let judgments =
        split.judgments(&JudgmentOptions::implicit().users(JudgedUsers::WithTestEvents))?;
    assert!(judgments.n_relevant(1.0) > 0);

    let fit_data = TrainData::new(&train, 2005);
    let models: Vec<(&str, Box<dyn Recommender>)> = vec![
        ("random", Box::new(RandomParams::new().fit(&fit_data)?)),
        ("item-pop", Box::new(ItemPopularityParams::new().fit(&fit_data)?)),
        ("user-item-pop", Box::new(UserItemPopularityParams::new().fit(&fit_data)?)),
        ("user-pop", Box::new(UserPopularityParams::new().fit(&fit_data)?)),
    ];
    let mut auc = std::collections::BTreeMap::new();
    for (name, model) in &models {
        let s = score_judgments(model.as_ref(), &judgments);
        let scored = Scored::new(&judgments, &s)?;
        let (roc_auc, croc_auc) = (roc(&scored, 1.0)?.auc(), croc(&scored, 1.0)?.auc());
        println!("msweb {name:<14} ROC AUC {roc_auc:.4}  CROC AUC {croc_auc:.4}");
        auc.insert(*name, (roc_auc, croc_auc));
    }
    println!(
        "msweb: {} judged users, {} candidates, {} positives",
        judgments.n_judged_users(),
        judgments.n_candidates(),
        judgments.n_relevant(1.0)
    );
    let random = auc["random"];
    assert!((random.0 - 0.5).abs() < 0.02, "random ROC AUC {}", random.0);
    for name in ["item-pop", "user-item-pop"] {
        let (r, c) = auc[name];
        assert!(r > random.0 + 0.2, "{name} ROC AUC {r} vs random {}", random.0);
        assert!(c > random.1 + 0.2, "{name} CROC AUC {c} vs random {}", random.1);
    }
    // schein2005 §6.1: the user × item regression and item popularity "perform
    // identically on the CROC curve" (the user term vanishes within a user), while by ROC
    // the regression is inferior.
    let (item_pop, user_item_pop) = (auc["item-pop"], auc["user-item-pop"]);
    assert!((item_pop.1 - user_item_pop.1).abs() < 1e-9, "{item_pop:?} {user_item_pop:?}");
    assert!(user_item_pop.0 < item_pop.0, "{item_pop:?} {user_item_pop:?}");
    // User popularity ties all of a user's candidates: its CROC is exactly the
    // random-expected one (schein2005 §6.2).
    let expected = random_croc(&judgments, 1.0)?.auc();
    let user_pop = auc["user-pop"].1;
    assert!((user_pop - expected).abs() < 1e-9, "user-pop CROC {user_pop} vs {expected}");
    Ok(())
}
