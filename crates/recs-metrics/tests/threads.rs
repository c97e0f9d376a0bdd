//! Every result is bit-identical for any number of threads, on inputs large enough to be
//! cut into many parts and buckets; the pooled AUC equals a plain sort-and-count.

use recs_core::Judgments;
use recs_metrics::{
    Metric, Options, Report, RocAccumulator, Scored, evaluate, roc, roc_auc, roc_summary,
};

mod support;

use support::Stream;

/// `users` users with 20..120 candidates each. Scores mix a continuous part (distinct
/// values), a coarse part (many ties across and within users), negative values, zeros of
/// both signs and missing (`NaN`) scores.
fn data(users: usize, seed: u64) -> (Judgments, Vec<f32>) {
    let mut s = Stream(seed);
    let n_items = 150;
    let mut builder = Judgments::builder(users, n_items);
    let mut scores = Vec::new();
    let mut rows = Vec::new();
    for u in 0..users {
        let len = 20 + (s.next() % 100) as usize;
        let mut items: Vec<u32> = (0..n_items as u32).collect();
        for i in 0..len {
            let j = i + (s.next() as usize % (n_items - i));
            items.swap(i, j);
        }
        let mut items = items[..len].to_vec();
        items.sort_unstable();
        let grades: Vec<f32> = (0..len)
            .map(|_| if s.next().is_multiple_of(5) { (1 + s.next() % 3) as f32 } else { 0.0 })
            .collect();
        let row: Vec<f32> = grades
            .iter()
            .map(|&g| {
                let signal = if g > 0.0 { 0.3 } else { 0.0 };
                match s.next() % 10 {
                    0 => (s.next() % 8) as f32 / 4.0 + signal,
                    1 => -(s.unit() * 1e3),
                    2 => 0.0,
                    3 => -0.0,
                    4 if s.next().is_multiple_of(4) => f32::NAN,
                    _ => s.unit() + signal,
                }
            })
            .collect();
        builder.push_user(u as u32, &items, &grades).unwrap();
        rows.push(row);
    }
    for row in rows {
        scores.extend(row);
    }
    (builder.build().unwrap(), scores)
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

fn bits(report: &Report) -> Vec<(String, Option<u64>)> {
    report.values.iter().map(|(k, v)| (k.clone(), v.map(f64::to_bits))).collect()
}

/// Mann–Whitney by a plain sort of all pairs, from the highest score down.
fn reference_auc(scores: &[f32], labels: &[bool]) -> f64 {
    let key = |s: f32| if s.is_nan() { f64::NEG_INFINITY } else { f64::from(s) + 0.0 };
    let mut pairs: Vec<(f64, bool)> =
        scores.iter().map(|&s| key(s)).zip(labels.iter().copied()).collect();
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (n_pos, n_neg) = (
        labels.iter().filter(|&&l| l).count() as u128,
        labels.iter().filter(|&&l| !l).count() as u128,
    );
    let (mut numerator, mut tp, mut i) = (0u128, 0u128, 0);
    while i < pairs.len() {
        let mut j = i;
        let (mut p, mut n) = (0u128, 0u128);
        while j < pairs.len() && pairs[j].0 == pairs[i].0 {
            if pairs[j].1 {
                p += 1
            } else {
                n += 1
            }
            j += 1;
        }
        numerator += n * (2 * tp + p);
        tp += p;
        i = j;
    }
    numerator as f64 / (2.0 * n_pos as f64 * n_neg as f64)
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let (judgments, scores) = data(4000, 0x5EED);
    assert!(judgments.n_candidates() > 200_000);
    let labels: Vec<bool> =
        judgments.iter().flat_map(|u| u.grades.iter().map(|&g| g >= 1.0)).collect();
    let metrics = Metric::parse_list(
        "roc,croc,user_auc,p@5,r@10,ndcg@10,map,mrr,hit@3,coverage@5,half_life@5",
    )
    .unwrap();
    let run = |threads: usize| {
        in_pool(threads, || {
            let scored = Scored::new(&judgments, &scores).unwrap();
            let summary = roc_summary(&scored, 1.0, 0.3).unwrap();
            let curve = roc(&scored, 1.0).unwrap();
            let flat = roc_auc(&scores, &labels).unwrap();
            let mut merged = RocAccumulator::new();
            for chunk in scores.chunks(7919).zip(labels.chunks(7919)) {
                let mut part = RocAccumulator::new();
                for (&s, &l) in chunk.0.iter().zip(chunk.1) {
                    part.push(s, l);
                }
                merged.merge(part);
            }
            let merged = merged.summary(0.3).unwrap();
            let report = evaluate(&scored, &metrics, &Options::default(), 0.3, true).unwrap();
            (summary, curve, flat, merged, bits(&report), report.croc)
        })
    };
    let one = run(1);
    for threads in [2, 3, 4] {
        let other = run(threads);
        assert_eq!(one.0.auc.to_bits(), other.0.auc.to_bits(), "{threads} threads");
        assert_eq!(one.0.partial_auc.to_bits(), other.0.partial_auc.to_bits());
        assert_eq!(one.1, other.1);
        assert_eq!(one.2.to_bits(), other.2.to_bits());
        assert_eq!(one.3.auc.to_bits(), other.3.auc.to_bits());
        assert_eq!(one.3.partial_auc.to_bits(), other.3.partial_auc.to_bits());
        assert_eq!(one.4, other.4);
        assert_eq!(one.5, other.5);
    }
    // The different routes agree with each other and with a plain sort.
    let expected = reference_auc(&scores, &labels);
    assert!((one.0.auc - expected).abs() < 1e-12, "{} vs {expected}", one.0.auc);
    assert_eq!(one.0.auc.to_bits(), one.2.to_bits());
    assert_eq!(one.0.auc.to_bits(), one.3.auc.to_bits());
    assert_eq!(one.0.partial_auc.to_bits(), one.3.partial_auc.to_bits());
    assert!((one.1.auc() - expected).abs() < 1e-12);
    assert!((one.1.partial_auc(0.3) - one.0.partial_auc).abs() < 1e-12);
    assert!(one.0.partial_auc > 0.0 && one.0.partial_auc < 0.3);
}

#[test]
fn pooled_auc_matches_a_plain_sort_on_dense_and_sparse_keys() {
    let mut s = Stream(42);
    // 300,000 pairs: a dense block of few distinct scores, a sparse spread, and negatives.
    let scores: Vec<f32> = (0..300_000)
        .map(|i| match i % 3 {
            0 => (s.next() % 1000) as f32 / 1000.0,
            1 => s.unit() * 1e6,
            _ => -s.unit(),
        })
        .collect();
    let labels: Vec<bool> =
        scores.iter().map(|&x| (s.next() % 100) as f32 / 100.0 < x.clamp(0.1, 0.9)).collect();
    let auc = roc_auc(&scores, &labels).unwrap();
    assert!((auc - reference_auc(&scores, &labels)).abs() < 1e-12);
    let single = in_pool(1, || roc_auc(&scores, &labels).unwrap());
    assert_eq!(auc.to_bits(), single.to_bits());
}
