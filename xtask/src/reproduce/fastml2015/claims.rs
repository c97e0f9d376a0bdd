//! The post's points as claims F1–F5, each with the numeric meaning of its words fixed
//! here, before any result is seen:
//!
//! - "reasonably well when ordering a user's held-out ratings" (F1): the RMSE-trained
//!   factorization's held-out NDCG@10 is at least [`CLOSE`] × the best model's;
//!   "failed completely when choosing from all the available items": its all-items
//!   NDCG@10 and NDCG@50 are below item popularity's;
//! - "RMSE doesn't tell a true story" (F2): two models that predict ratings order one way
//!   by RMSE and the other way by all-items NDCG@10;
//! - "the more, the better" (F3): for every personalised model, NDCG@50 at the largest L
//!   exceeds NDCG@50 at L = 1 by more than the sum of their 95% half-widths;
//! - "at some point the curves intersect" (F4): some pair of curves swaps order for good
//!   ([`super::curves::crossover`]);
//! - "matrix factorization models are [not] unable to provide recommendations for new
//!   users" (F5): each model folded in by least squares reaches at least [`FRACTION`] of
//!   its weak-generalization NDCG@50 under strong generalization.

use recs_bench::Results;
use recs_bench::report::Claim;

use super::curves::{Curve, crossover, mandcg, means};
use crate::reproduce::claim;
use crate::reproduce::ignatov2010::claims::rises;

/// The share of the best held-out NDCG@10 that is still "close to the best" (F1).
pub(crate) const CLOSE: f64 = 0.95;
/// The share of the weak-generalization NDCG@50 that fold-in must reach (F5).
pub(crate) const FRACTION: f64 = 0.9;

/// Model labels, as in the experiment files.
pub(crate) const ALS: &str = "ALS (RMSE)";
pub(crate) const POPULARITY: &str = "item popularity";
pub(crate) const IALS: &str = "implicit ALS";

/// F1 from the two candidate sets of `rmse-vs-ranking`.
pub(crate) fn f1(held_out: &Results, all_items: &Results, labels: &[String]) -> Claim {
    let mean = |r: &Results, label: &str, key: &str| r.mean(label, key).unwrap_or(f64::NAN);
    let best = labels
        .iter()
        .map(|l| (mean(held_out, l, "ndcg@10"), l.as_str()))
        .filter(|(v, _)| v.is_finite())
        .fold((f64::NEG_INFINITY, ""), |a, b| if b.0 > a.0 { b } else { a });
    let als_held = mean(held_out, ALS, "ndcg@10");
    let close = als_held >= CLOSE * best.0;
    let below: Vec<(f64, f64)> = ["ndcg@10", "ndcg@50"]
        .iter()
        .map(|k| (mean(all_items, ALS, k), mean(all_items, POPULARITY, k)))
        .collect();
    let fails = below.iter().all(|(a, p)| a < p);
    claim(
        "F1",
        "The RMSE-trained factorization orders held-out ratings close to the best model but \
         chooses from all items worse than item popularity",
        "matrix factorization optimized for RMSE did reasonably well when ordering a user's \
         held-out ratings, but failed completely when choosing recommendations from all the \
         available items",
        format!(
            "held-out only, NDCG@10: {ALS} {als_held:.4}, best {} {:.4} (ratio {:.3}, needs ≥ \
             {CLOSE}); all items: {ALS} NDCG@10 {:.4} vs {POPULARITY} {:.4}, NDCG@50 {:.4} vs \
             {:.4}",
            best.1,
            best.0,
            als_held / best.0,
            below[0].0,
            below[0].1,
            below[1].0,
            below[1].1
        ),
        close && fails,
    )
}

/// F2: the pairs of rating predictors (models with an RMSE) that RMSE and all-items
/// NDCG@10 order differently.
pub(crate) fn f2(held_out: &Results, all_items: &Results, labels: &[String]) -> Claim {
    let rated: Vec<(&str, f64, f64)> = labels
        .iter()
        .filter_map(|l| {
            Some((l.as_str(), held_out.mean(l, "rmse")?, all_items.mean(l, "ndcg@10")?))
        })
        .collect();
    let mut reversed = Vec::new();
    for a in &rated {
        for b in &rated {
            if a.1 < b.1 && a.2 < b.2 {
                reversed.push(format!(
                    "{} has the lower RMSE ({:.4} < {:.4}) but the lower NDCG@10 ({:.4} < {:.4}) \
                     than {}",
                    a.0, a.1, b.1, a.2, b.2, b.0
                ));
            }
        }
    }
    let table: Vec<String> = rated
        .iter()
        .map(|(l, rmse, ndcg)| format!("{l} RMSE {rmse:.4}, NDCG@10 {ndcg:.4}"))
        .collect();
    claim(
        "F2",
        "A lower RMSE does not mean a better ranking of all items",
        "RMSE doesn't tell a true story, and we need metrics specifically crafted for ranking",
        format!(
            "{}; {}",
            table.join("; "),
            if reversed.is_empty() { "no pair reversed".into() } else { reversed.join("; ") }
        ),
        !reversed.is_empty(),
    )
}

/// F3: every personalised curve rises from L = 1 to its last L.
pub(crate) fn f3(curves: &[(String, Curve)]) -> Claim {
    let mut all = !curves.is_empty();
    let mut parts = Vec::new();
    for (label, curve) in curves.iter().filter(|(l, _)| l != POPULARITY) {
        let (Some(first), Some(last)) = (curve.first(), curve.last()) else {
            all = false;
            parts.push(format!("{label}: no values"));
            continue;
        };
        let up = rises(first.1, last.1);
        all &= up;
        parts.push(format!(
            "{label}: L=1 {}, L={} {}{}",
            first.1.text(),
            last.0,
            last.1.text(),
            if up { "" } else { " (no rise)" }
        ));
    }
    claim(
        "F3",
        "NDCG@50 rises with the number L of a new user's ratings, for every personalised model",
        "ideally the quality of recommendations should improve as a system sees more ratings \
         from a given user",
        parts.join("; "),
        all,
    )
}

/// F4: the crossover L of every pair of curves, and each curve's MANDCG.
pub(crate) fn f4(curves: &[(String, Curve)]) -> Claim {
    let mut crossings = Vec::new();
    let mut any = false;
    for (i, (a, ca)) in curves.iter().enumerate() {
        for (b, cb) in &curves[i + 1..] {
            let at = crossover(&means(ca), &means(cb));
            any |= at.is_some();
            crossings
                .push(format!("{a} / {b}: {}", at.map_or("none".into(), |l| format!("L={l}"))));
        }
    }
    let scores: Vec<String> = curves
        .iter()
        .map(|(l, c)| format!("{l} {}", mandcg(c).map_or("-".into(), |m| format!("{m:.4}"))))
        .collect();
    claim(
        "F4",
        "Some curves of NDCG@50 against L cross: the crossover L is the switch point of a hybrid",
        "Either one is better than the other across the board, or at some point the curves \
         intersect ... Initially we employ the first; after acquiring more feedback than the \
         threshold, we switch to the other",
        format!("crossover L: {}; MANDCG: {}", crossings.join(", "), scores.join(", ")),
        any,
    )
}

/// F5: strong over weak NDCG@50 for the models folded in by least squares.
pub(crate) fn f5(weak: &Results, strong: &Results) -> Claim {
    let mut all = true;
    let mut parts = Vec::new();
    for label in [ALS, IALS] {
        let (w, s) = (weak.mean(label, "ndcg@50"), strong.mean(label, "ndcg@50"));
        let ratio = match (w, s) {
            (Some(w), Some(s)) if w > 0.0 => Some(s / w),
            _ => None,
        };
        all &= ratio.is_some_and(|r| r >= FRACTION);
        parts.push(format!(
            "{label}: weak {}, strong {}, ratio {}",
            w.map_or("-".into(), |v| format!("{v:.4}")),
            s.map_or("-".into(), |v| format!("{v:.4}")),
            ratio.map_or("-".into(), |v| format!("{v:.3}"))
        ));
    }
    claim(
        "F5",
        "Folded in by least squares, new users reach at least 90% of the weak-generalization NDCG@50",
        "At test time, when we have input from a new user, we could keep the item factors \
         fixed and fit the user factors, then proceed with recommendations",
        parts.join("; "),
        all,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::ignatov2010::sweep::Estimate;

    fn curve(ys: &[f64]) -> Curve {
        ys.iter()
            .enumerate()
            .map(|(i, &y)| (i as f64 + 1.0, Estimate { mean: y, half_width: Some(0.01) }))
            .collect()
    }

    #[test]
    fn f3_needs_every_personalised_curve_to_rise_beyond_the_intervals() {
        let pop = (POPULARITY.to_string(), curve(&[0.3, 0.2]));
        let up = ("a".to_string(), curve(&[0.1, 0.2]));
        assert!(f3(&[pop.clone(), up.clone()]).holds);
        // Popularity may fall; a personalised curve rising by less than 0.02 does not count.
        let flat = ("b".to_string(), curve(&[0.1, 0.115]));
        assert!(!f3(&[pop, up, flat]).holds);
    }

    #[test]
    fn f4_holds_when_some_pair_swaps_whatever_the_order_of_the_models() {
        let a = ("a".to_string(), curve(&[0.3, 0.3, 0.3]));
        let b = ("b".to_string(), curve(&[0.1, 0.2, 0.4]));
        let c = ("c".to_string(), curve(&[0.0, 0.0, 0.0]));
        assert!(f4(&[a.clone(), b.clone(), c.clone()]).holds);
        assert!(f4(&[c.clone(), b.clone(), a.clone()]).holds);
        let claim = f4(&[a.clone(), b]);
        assert!(claim.measured.contains("a / b: L=3"), "{}", claim.measured);
        assert!(claim.measured.contains("MANDCG: a 0.3000, b 0.2333"), "{}", claim.measured);
        assert!(!f4(&[a, c]).holds);
    }
}
