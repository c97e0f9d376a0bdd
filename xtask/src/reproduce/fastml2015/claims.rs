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
//! - "people might say that matrix factorization models are unable to provide
//!   recommendations for new users. This is not quite true" (F5): each model of [`FOLDED`]
//!   (folded in by least squares) reaches at least [`FRACTION`] of its
//!   weak-generalization NDCG@50 under strong generalization.

use recs_bench::report::Claim;

use super::curves::{Curve, crossover, mandcg, means};
use crate::reproduce::ignatov2010::claims::rises;
use crate::reproduce::unconverted_claim;

/// The share of the best held-out NDCG@10 that is still "close to the best" (F1).
pub(crate) const CLOSE: f64 = 0.95;
/// The share of the weak-generalization NDCG@50 that fold-in must reach (F5).
pub(crate) const FRACTION: f64 = 0.9;

/// Model labels, as in the experiment files.
pub(crate) const ALS: &str = "ALS (RMSE)";
pub(crate) const POPULARITY: &str = "item popularity";
pub(crate) const IALS: &str = "implicit ALS";
/// The models folded in by a regularised least-squares solve (F5).
pub(crate) const FOLDED: [&str; 2] = [ALS, IALS];

/// One model of `rmse-vs-ranking`: its RMSE (for a rating predictor) and graded NDCG
/// when ranking the held-out ratings only and when choosing from all items.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RankingRow {
    pub(crate) label: String,
    pub(crate) rmse: Option<f64>,
    pub(crate) held_out: [Option<f64>; 2],
    pub(crate) all_items: [Option<f64>; 2],
}

/// One model's NDCG@50 under weak and under strong generalization.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Generalization {
    pub(crate) label: String,
    pub(crate) weak: Option<f64>,
    pub(crate) strong: Option<f64>,
}

fn text(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.4}"))
}

/// F1 from the rows of `rmse-vs-ranking`: index 0 of `held_out` and `all_items` is
/// NDCG@10, index 1 NDCG@50.
pub(crate) fn f1(rows: &[RankingRow]) -> Claim {
    let row = |label: &str| rows.iter().find(|r| r.label == label);
    let best = rows.iter().filter_map(|r| r.held_out[0].map(|v| (v, r.label.as_str()))).fold(
        None,
        |a: Option<(f64, &str)>, b| match a {
            Some(a) if a.0 >= b.0 => Some(a),
            _ => Some(b),
        },
    );
    let als = row(ALS);
    let popularity = row(POPULARITY);
    let als_held = als.and_then(|r| r.held_out[0]);
    let close = match (als_held, best) {
        (Some(a), Some((b, _))) => a >= CLOSE * b,
        _ => false,
    };
    let pairs: Vec<(Option<f64>, Option<f64>)> = (0..2)
        .map(|k| (als.and_then(|r| r.all_items[k]), popularity.and_then(|r| r.all_items[k])))
        .collect();
    let fails = pairs.iter().all(|p| matches!(p, (Some(a), Some(p)) if a < p));
    let ratio = match (als_held, best) {
        (Some(a), Some((b, _))) if b > 0.0 => format!("{:.3}", a / b),
        _ => "-".into(),
    };
    unconverted_claim(
        "F1",
        "The RMSE-trained factorization orders held-out ratings close to the best model but \
         chooses from all items worse than item popularity",
        "matrix factorization optimized for RMSE did reasonably well when ordering a user's \
         held-out ratings, but failed completely when choosing recommendations from all the \
         available items",
        format!(
            "held-out only, NDCG@10: {ALS} {}, best {} {} (ratio {ratio}, needs ≥ {CLOSE}); all \
             items: {ALS} NDCG@10 {} vs {POPULARITY} {}, NDCG@50 {} vs {}",
            text(als_held),
            best.map_or("-", |b| b.1),
            text(best.map(|b| b.0)),
            text(pairs[0].0),
            text(pairs[0].1),
            text(pairs[1].0),
            text(pairs[1].1)
        ),
        close && fails,
    )
}

/// F2: the pairs of rating predictors (rows with an RMSE) that RMSE and all-items
/// NDCG@10 order differently.
pub(crate) fn f2(rows: &[RankingRow]) -> Claim {
    let rated: Vec<(&str, f64, f64)> =
        rows.iter().filter_map(|r| Some((r.label.as_str(), r.rmse?, r.all_items[0]?))).collect();
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
    unconverted_claim(
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
    unconverted_claim(
        "F3",
        "NDCG@50 rises with the number L of a new user's ratings, for every personalised model",
        "ideally the quality of recommendations should improve as a system sees more ratings \
         from a given user",
        parts.join("; "),
        all,
    )
}

/// F4: the crossover L of every pair of curves, and each curve's MANDCG.
/// MANDCG is given over every L of the curves and over `L = 1..complete`, the L at
/// which every test user still has a target: there the average over L of the mean over
/// users is the post's mean over users of each user's average over L.
pub(crate) fn f4(curves: &[(String, Curve)], complete: f64) -> Claim {
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
    let scores = |up_to: f64| -> String {
        let values: Vec<String> = curves
            .iter()
            .map(|(l, c)| {
                let head: Vec<_> = c.iter().filter(|p| p.0 <= up_to).copied().collect();
                format!("{l} {}", mandcg(&head).map_or("-".into(), |m| format!("{m:.4}")))
            })
            .collect();
        values.join(", ")
    };
    let last = curves.iter().filter_map(|(_, c)| c.last()).map(|p| p.0).fold(0.0, f64::max);
    let complete = complete.min(last);
    unconverted_claim(
        "F4",
        "Some curves of NDCG@50 against L cross: the crossover L is the switch point of a hybrid",
        "Either one is better than the other across the board, or at some point the curves \
         intersect ... Initially we employ the first; after acquiring more feedback than the \
         threshold, we switch to the other",
        format!(
            "crossover L: {}; MANDCG over L = 1..{last}: {}; over L = 1..{complete} (every test \
             user at every L): {}",
            crossings.join(", "),
            scores(last),
            scores(complete)
        ),
        any,
    )
}

/// F5: strong over weak NDCG@50 for the models folded in by least squares ([`FOLDED`]);
/// the other rows are reported beside them.
pub(crate) fn f5(rows: &[Generalization]) -> Claim {
    let mut all = FOLDED.iter().all(|l| rows.iter().any(|r| r.label == *l));
    let mut parts = Vec::new();
    for row in rows {
        let ratio = match (row.weak, row.strong) {
            (Some(w), Some(s)) if w > 0.0 => Some(s / w),
            _ => None,
        };
        if FOLDED.contains(&row.label.as_str()) {
            all &= ratio.is_some_and(|r| r >= FRACTION);
        }
        parts.push(format!(
            "{}: weak {}, strong {}, ratio {}",
            row.label,
            text(row.weak),
            text(row.strong),
            ratio.map_or("-".into(), |v| format!("{v:.3}"))
        ));
    }
    unconverted_claim(
        "F5",
        "Folded in by least squares, new users reach at least 90% of the weak-generalization \
         NDCG@50",
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

    fn row(label: &str, rmse: Option<f64>, held_out: f64, all_items: [f64; 2]) -> RankingRow {
        RankingRow {
            label: label.into(),
            rmse,
            held_out: [Some(held_out), Some(held_out)],
            all_items: all_items.map(Some),
        }
    }

    #[test]
    fn f1_needs_the_rmse_model_close_on_held_out_and_below_popularity_on_all_items() {
        // (ALS held-out, ALS all items, expected); the best held-out is 0.90, popularity
        // chooses 0.20 / 0.25 from all items.
        let cases = [
            (0.90, [0.05, 0.10], true),
            (0.86, [0.05, 0.10], true),
            (0.85, [0.05, 0.10], false),
            (0.90, [0.20, 0.10], false),
            (0.90, [0.05, 0.30], false),
        ];
        for (held_out, all_items, holds) in cases {
            let rows = vec![
                row(ALS, Some(0.9), held_out, all_items),
                row(POPULARITY, None, 0.88, [0.20, 0.25]),
                row("PureSVD", None, 0.90, [0.40, 0.45]),
            ];
            assert_eq!(
                f1(&rows).verdict == recs_bench::verdict::Verdict::Holds,
                holds,
                "{held_out} {all_items:?}"
            );
            let mut reversed = rows.clone();
            reversed.reverse();
            assert_eq!(
                f1(&reversed).verdict == recs_bench::verdict::Verdict::Holds,
                holds,
                "reversed: {held_out} {all_items:?}"
            );
        }
        // Without the RMSE model or popularity there is nothing to hold.
        assert!(
            f1(&[row(POPULARITY, None, 0.88, [0.20, 0.25])]).verdict
                != recs_bench::verdict::Verdict::Holds
        );
    }

    #[test]
    fn f2_needs_two_rating_predictors_ordered_differently_by_rmse_and_ndcg() {
        let a = row("a", Some(0.90), 0.9, [0.05, 0.1]);
        let better = row("b", Some(1.00), 0.9, [0.10, 0.1]);
        let worse = row("c", Some(1.00), 0.9, [0.01, 0.1]);
        let unrated = row("d", None, 0.9, [0.50, 0.5]);
        for (rows, holds) in [
            (vec![a.clone(), better.clone()], true),
            (vec![better.clone(), a.clone()], true),
            (vec![a.clone(), worse.clone()], false),
            (vec![a.clone(), worse, unrated], false),
            (vec![a], false),
        ] {
            assert_eq!(f2(&rows).verdict == recs_bench::verdict::Verdict::Holds, holds, "{rows:?}");
        }
        assert!(f2(&[better, row("a", Some(0.9), 0.9, [0.05, 0.1])]).measured.contains(
            "a has the lower RMSE (0.9000 < 1.0000) but the lower NDCG@10 (0.0500 < 0.1000) than b"
        ));
    }

    #[test]
    fn f5_needs_every_least_squares_fold_in_at_the_fraction() {
        let g = |label: &str, weak: f64, strong: f64| Generalization {
            label: label.into(),
            weak: Some(weak),
            strong: Some(strong),
        };
        let others = g("PureSVD", 0.5, 0.1);
        for (als, ials, holds) in [(0.91, 0.95, true), (0.89, 0.95, false), (1.2, 0.5, false)] {
            let rows = [g(ALS, 0.2, 0.2 * als), others.clone(), g(IALS, 0.4, 0.4 * ials)];
            assert_eq!(
                f5(&rows).verdict == recs_bench::verdict::Verdict::Holds,
                holds,
                "{als} {ials}"
            );
        }
        // A folded model missing, or undefined, fails.
        assert!(f5(&[g(ALS, 0.2, 0.2)]).verdict != recs_bench::verdict::Verdict::Holds);
        let undefined = Generalization { label: IALS.into(), weak: Some(0.0), strong: Some(0.1) };
        assert!(f5(&[g(ALS, 0.2, 0.2), undefined]).verdict != recs_bench::verdict::Verdict::Holds);
    }

    #[test]
    fn f3_needs_every_personalised_curve_to_rise_beyond_the_intervals() {
        let pop = (POPULARITY.to_string(), curve(&[0.3, 0.2]));
        let up = ("a".to_string(), curve(&[0.1, 0.2]));
        assert!(f3(&[pop.clone(), up.clone()]).verdict == recs_bench::verdict::Verdict::Holds);
        // Popularity may fall; a personalised curve rising by less than 0.02 does not count.
        let flat = ("b".to_string(), curve(&[0.1, 0.115]));
        assert!(f3(&[pop, up, flat]).verdict != recs_bench::verdict::Verdict::Holds);
    }

    #[test]
    fn f4_holds_when_some_pair_swaps_whatever_the_order_of_the_models() {
        let a = ("a".to_string(), curve(&[0.3, 0.3, 0.3]));
        let b = ("b".to_string(), curve(&[0.1, 0.2, 0.4]));
        let c = ("c".to_string(), curve(&[0.0, 0.0, 0.0]));
        assert!(
            f4(&[a.clone(), b.clone(), c.clone()], 2.0).verdict
                == recs_bench::verdict::Verdict::Holds
        );
        assert!(
            f4(&[c.clone(), b.clone(), a.clone()], 2.0).verdict
                == recs_bench::verdict::Verdict::Holds
        );
        let claim = f4(&[a.clone(), b], 2.0);
        assert!(claim.measured.contains("a / b: L=3"), "{}", claim.measured);
        assert!(claim.measured.contains("1..3: a 0.3000, b 0.2333;"), "{}", claim.measured);
        assert!(claim.measured.contains("L): a 0.3000, b 0.1500"), "{}", claim.measured);
        assert!(f4(&[a, c], 2.0).verdict != recs_bench::verdict::Verdict::Holds);
    }
}
