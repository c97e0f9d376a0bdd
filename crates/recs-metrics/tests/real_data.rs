//! Metrics on MovieLens 100K (found through `RECS_DATA_DIR`): counts from the dataset's
//! documented facts, agreement between the independent code paths, and determinism
//! across thread counts.

use std::time::Instant;

use recs_core::Judgments;
use recs_metrics::{
    Metric, Options, Scored, croc, evaluate, omniscient_croc, random_croc, roc, roc_auc,
    roc_summary,
};

/// Every rated (user, item) pair is a candidate with its rating as grade; the score of a
/// pair is the item's mean rating (ties abound: many items share a mean).
fn movielens() -> Option<(Judgments, Vec<f32>, Vec<bool>)> {
    let dir = recs_testkit::real_data_dir()?;
    let text = std::fs::read_to_string(dir.join("ml-100k/u.data")).unwrap();
    let mut rows: Vec<(u32, u32, f32)> = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        rows.push((f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap()));
    }
    let n_users = rows.iter().map(|r| r.0).max().unwrap() as usize + 1;
    let n_items = rows.iter().map(|r| r.1).max().unwrap() as usize + 1;
    let mut sum = vec![0.0f64; n_items];
    let mut count = vec![0.0f64; n_items];
    for &(_, i, r) in &rows {
        sum[i as usize] += f64::from(r);
        count[i as usize] += 1.0;
    }
    rows.sort_by_key(|r| (r.0, r.1));
    let mut builder = Judgments::builder(n_users, n_items);
    let mut start = 0;
    while start < rows.len() {
        let user = rows[start].0;
        let end = start + rows[start..].iter().take_while(|r| r.0 == user).count();
        let items: Vec<u32> = rows[start..end].iter().map(|r| r.1).collect();
        let grades: Vec<f32> = rows[start..end].iter().map(|r| r.2).collect();
        builder.push_user(user, &items, &grades).unwrap();
        start = end;
    }
    let judgments = builder.build().unwrap();
    let mut scores = Vec::new();
    let mut labels = Vec::new();
    for user in judgments.iter() {
        for (&item, &grade) in user.items.iter().zip(user.grades) {
            scores.push((sum[item as usize] / count[item as usize]) as f32);
            labels.push(grade >= 4.0);
        }
    }
    Some((judgments, scores, labels))
}

#[test]
fn movielens_100k_roc_croc_and_ranking_metrics() {
    let Some((judgments, scores, labels)) = movielens() else { return };
    assert_eq!(judgments.n_candidates(), 100_000);
    assert_eq!(judgments.n_judged_users(), 943);
    // Documented fact: 55,375 ratings >= 4.
    assert_eq!(judgments.n_relevant(4.0), 55_375);
    let scored = Scored::new(&judgments, &scores).unwrap();

    let t = Instant::now();
    let summary = roc_summary(&scored, 4.0, 0.3).unwrap();
    let roc_time = t.elapsed();
    let curve = roc(&scored, 4.0).unwrap();
    let flat = roc_auc(&scores, &labels).unwrap();
    assert!((summary.auc - curve.auc()).abs() < 1e-12);
    assert_eq!(summary.auc, flat);
    assert!((summary.partial_auc - curve.partial_auc(0.3)).abs() < 1e-12);
    // Item mean rating predicts "rated >= 4" far better than chance.
    assert!(summary.auc > 0.7, "{}", summary.auc);

    let t = Instant::now();
    let croc_curve = croc(&scored, 4.0).unwrap();
    let croc_time = t.elapsed();
    let omniscient = omniscient_croc(&judgments, 4.0).unwrap();
    let random = random_croc(&judgments, 4.0).unwrap();
    assert!(croc_curve.auc() < omniscient.auc());
    assert!(croc_curve.auc() > random.auc());
    assert_eq!(croc_curve.points().last(), Some(&[1.0, 1.0]));
    assert_eq!(croc_curve.len(), judgments.max_candidates() + 1);

    let metrics =
        Metric::parse_list("roc,croc,p@10,r@10,ndcg@10,map,mrr,half_life@5,coverage@10").unwrap();
    let options = Options { threshold: 4.0, ..Options::default() };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let t = Instant::now();
    let a = one.install(|| evaluate(&scored, &metrics, &options, 0.3, true).unwrap());
    let eval_time = t.elapsed();
    let b = two.install(|| evaluate(&scored, &metrics, &options, 0.3, true).unwrap());
    // Bit-identical whatever the thread count.
    assert_eq!(a, b);
    for (key, value) in &a.values {
        let v = value.unwrap();
        assert!(v.is_finite(), "{key}");
    }
    eprintln!(
        "MovieLens 100K (item-mean scores, relevant = rating >= 4): roc_auc {:.6} ({roc_time:?}), \
         croc_auc {:.6} ({croc_time:?}), omniscient croc {:.6}, random croc {:.6}; all metrics {eval_time:?}: {:?}",
        summary.auc,
        croc_curve.auc(),
        omniscient.auc(),
        random.auc(),
        a.values
    );
}
