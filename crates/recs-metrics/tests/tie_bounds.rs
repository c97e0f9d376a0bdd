//! The extreme tie orders of the pooled ROC and of CROC: each bound equals the area of
//! the same scores with their ties broken by label (computed by the plain ROC and CROC
//! functions, an independent path), and every random order of the ties lands between them.

use proptest::prelude::*;
use recs_core::Judgments;
use recs_metrics::{Scored, croc, croc_tie_bounds, roc, roc_tie_bounds};

/// Users of `n_items` candidates each (at least one), every score one of three values (so
/// ties abound), grades 0 or 1.
fn case() -> impl Strategy<Value = (Vec<Vec<(u8, bool)>>, u64)> {
    let user = prop::collection::vec((0u8..3, any::<bool>()), 1..7);
    (prop::collection::vec(user, 1..6), any::<u64>())
}

fn judgments(users: &[Vec<(u8, bool)>]) -> Judgments {
    let n_items = users.iter().map(Vec::len).max().unwrap_or(1);
    let mut b = Judgments::builder(users.len(), n_items);
    for (u, cells) in users.iter().enumerate() {
        let items: Vec<u32> = (0..cells.len() as u32).collect();
        let grades: Vec<f32> = cells.iter().map(|&(_, g)| f32::from(u8::from(g))).collect();
        b.push_user(u as u32, &items, &grades).unwrap();
    }
    b.build().unwrap()
}

/// Each candidate's score, with ties broken by `offset(candidate)` in `[0, 1)`: scores
/// stay in their order, and inside a tie group the offsets decide.
fn with_offsets(users: &[Vec<(u8, bool)>], offset: impl Fn(usize, bool) -> f32) -> Vec<f32> {
    let mut i = 0;
    let mut out = Vec::new();
    for cells in users {
        for &(score, relevant) in cells {
            out.push(f32::from(score) * 2.0 + offset(i, relevant));
            i += 1;
        }
    }
    out
}

fn has_both(users: &[Vec<(u8, bool)>]) -> bool {
    let all: Vec<bool> = users.iter().flatten().map(|&(_, g)| g).collect();
    all.contains(&true) && all.contains(&false)
}

proptest! {
    #[test]
    fn the_bounds_are_the_label_broken_areas_and_contain_every_tie_order((users, seed) in case()) {
        prop_assume!(has_both(&users));
        let j = judgments(&users);
        let plain = with_offsets(&users, |_, _| 0.0);
        let scored = Scored::new(&j, &plain).unwrap();
        let (r, c) = (roc_tie_bounds(&scored, 1.0).unwrap(), croc_tie_bounds(&scored, 1.0).unwrap());
        let area = |scores: &[f32]| {
            let s = Scored::new(&j, scores).unwrap();
            (roc(&s, 1.0).unwrap().auc(), croc(&s, 1.0).unwrap().auc())
        };
        prop_assert!((r.expected - area(&plain).0).abs() < 1e-12);
        prop_assert!((c.expected - area(&plain).1).abs() < 1e-12);
        let best = area(&with_offsets(&users, |_, relevant| if relevant { 0.5 } else { 0.0 }));
        let worst = area(&with_offsets(&users, |_, relevant| if relevant { 0.0 } else { 0.5 }));
        prop_assert!((r.best - best.0).abs() < 1e-12 && (r.worst - worst.0).abs() < 1e-12,
            "ROC {r:?} against {best:?} {worst:?}");
        prop_assert!((c.best - best.1).abs() < 1e-12 && (c.worst - worst.1).abs() < 1e-12,
            "CROC {c:?} against {best:?} {worst:?}");
        // A random order of the ties (distinct offsets from the seed) lies between them.
        let random = with_offsets(&users, |i, _| {
            let h = recs_core::splitmix64(&mut (seed ^ i as u64));
            (h >> 41) as f32 / (1u64 << 23) as f32 * 0.99
        });
        let (roc_any, croc_any) = area(&random);
        prop_assert!(r.worst - 1e-12 <= roc_any && roc_any <= r.best + 1e-12);
        prop_assert!(c.worst - 1e-12 <= croc_any && croc_any <= c.best + 1e-12);
    }
}

/// A hand-computed case: two users, one tie group across them.
#[test]
fn a_tie_across_users_moves_the_pooled_area_by_half_its_pairs() {
    // User 0: (0.5, +), (0.5, −); user 1: (0.5, −), (0.2, +).
    let mut b = Judgments::builder(2, 2);
    b.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
    b.push_user(1, &[0, 1], &[0.0, 1.0]).unwrap();
    let j = b.build().unwrap();
    let scored = Scored::new(&j, &[0.5, 0.5, 0.5, 0.2]).unwrap();
    let r = roc_tie_bounds(&scored, 1.0).unwrap();
    // P = 2, N = 2. Pairs: the tied positive against both negatives (tied: 1/2 each), the
    // low positive below both: expected 1/4, tied pairs 2 of 4 move it by ±1/4.
    assert_eq!((r.worst, r.expected, r.best), (0.0, 0.25, 0.5));
    let c = croc_tie_bounds(&scored, 1.0).unwrap();
    // CROC: user 0's tie decides its first pick; user 1 has no tie.
    assert!(c.worst < c.expected && c.expected < c.best, "{c:?}");
}
