//! The paper's claims I1–I5, each with the numeric meaning of its words fixed here, before
//! any result is seen, and evaluated on the paper's own measures (with its conventions).
//!
//! - "slightly above" (I1): above at every number of hidden columns from 1 to 10, and by
//!   at most [`SLIGHTLY`] anywhere there;
//! - "better near 1%, degrades, stays stable" (I2): at 1% hidden the item-based recall is
//!   above the user-based one; from 1% to 20% it drops by more than [`STABLE`]; the
//!   user-based recall moves within a range of at most [`STABLE`] over 1%..20%;
//! - "rise" (I3, I5): the value at the end of the range exceeds the value at its start by
//!   more than the sum of their 95% half-widths (by more than 0 with one repetition);
//! - "fewer neighbours for the same quality" (I4): with `q` = [`SAME_QUALITY`] × the
//!   smaller of the two models' best values over k, the smallest k reaching `q` is
//!   strictly smaller for the user-based model, for recall and for precision.

use anyhow::{Context, Result};
use recs_bench::report::Claim;

use super::sweep::{Estimate, Sweep};
use crate::reproduce::unconverted_claim;

/// Largest difference that is still "slight" (absolute, on a 0..1 measure).
pub(crate) const SLIGHTLY: f64 = 0.05;
/// Largest range over the hidden fractions that is still "stable"; a larger drop is a
/// degradation.
pub(crate) const STABLE: f64 = 0.05;
/// The share of the best value that counts as "the same quality".
pub(crate) const SAME_QUALITY: f64 = 0.95;

/// The labels of the two models every claim compares.
pub(crate) const USER: &str = "user-based";
pub(crate) const ITEM: &str = "item-based";

/// I1: whether every difference is positive and none exceeds [`SLIGHTLY`].
pub(crate) fn slightly_above(differences: &[f64]) -> bool {
    !differences.is_empty() && differences.iter().all(|&d| d > 0.0 && d <= SLIGHTLY)
}

/// I3, I5: whether `last` exceeds `first` by more than their two half-widths.
pub(crate) fn rises(first: Estimate, last: Estimate) -> bool {
    let margin = first.half_width.unwrap_or(0.0) + last.half_width.unwrap_or(0.0);
    last.mean - first.mean > margin
}

/// I4: the smallest x at which each series reaches [`SAME_QUALITY`] × the smaller of the
/// two maxima, as `(user, item)`.
pub(crate) fn first_reaching(
    user: &[(f64, f64)],
    item: &[(f64, f64)],
) -> (Option<f64>, Option<f64>) {
    let best = |s: &[(f64, f64)]| s.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let target = SAME_QUALITY * best(user).min(best(item));
    let first = |s: &[(f64, f64)]| s.iter().find(|p| p.1 >= target).map(|p| p.0);
    (first(user), first(item))
}

/// I4: the user-based model reaches the target strictly earlier (or the item-based one
/// never does).
pub(crate) fn fewer(reached: (Option<f64>, Option<f64>)) -> bool {
    match reached {
        (Some(u), Some(i)) => u < i,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The measure keys the claims read.
pub(crate) struct ClaimKeys<'a> {
    /// Recall and precision of the MovieLens lists (top 10).
    pub(crate) recall: &'a str,
    pub(crate) plain_recall: &'a str,
    /// Recall and precision of the synthetic lists.
    pub(crate) synthetic: [&'a str; 2],
}

/// Every claim, in id order.
pub(crate) fn claims(
    hidden_count: &Sweep,
    hidden_fraction: &Sweep,
    neighbours: &Sweep,
    test_size: &Sweep,
    keys: &ClaimKeys<'_>,
) -> Result<Vec<Claim>> {
    Ok(vec![
        i1(hidden_count, keys)?,
        i2(hidden_fraction, keys)?,
        rising_claim(
            neighbours,
            keys,
            [
                "I3",
                "Synthetic data: precision and recall rise with the number of neighbours",
                "precision and recall increase while the number of neighbours grows (§5, Figures 4-5)",
                "rise",
            ],
            |k| format!("k={k}"),
        )?,
        i4(neighbours, keys)?,
        rising_claim(
            test_size,
            keys,
            [
                "I5",
                "Synthetic data: a larger test set gives better quality",
                "the larger test size the better quality of prediction (§5)",
                "better",
            ],
            |x| format!("{x:.0}%"),
        )?,
    ])
}

fn i1(sweep: &Sweep, keys: &ClaimKeys<'_>) -> Result<Claim> {
    let mut differences = Vec::new();
    let (mut parts, mut plain) = (Vec::new(), Vec::new());
    for point in sweep.points.iter().filter(|p| (1.0..=10.0).contains(&p.x)) {
        let difference = |key: &str| {
            sweep
                .difference([USER, ITEM], key, point.x)
                .with_context(|| format!("I1: no {key} difference at {}", point.x))
        };
        let d = difference(keys.recall)?;
        differences.push(d.mean);
        parts.push(format!("{}: {}", point.x, d.signed_text(4)));
        plain.push(difference(keys.plain_recall)?.signed_text(4));
    }
    Ok(unconverted_claim(
        "I1",
        "MovieLens: user-based recall is slightly above item-based for 1 to 10 hidden items",
        "almost identical, the user-based recall a bit higher from 1 to 10 hidden items (§5, Figure 2)",
        format!(
            "user − item recall@10 by hidden columns, paired 95% intervals: {}; without the \
             conventions: {} (holds when the mean is above at every point and by at most {SLIGHTLY})",
            parts.join(", "),
            plain.join(", ")
        ),
        slightly_above(&differences),
    ))
}

fn i2(sweep: &Sweep, keys: &ClaimKeys<'_>) -> Result<Claim> {
    let user = sweep.series(USER, keys.recall);
    let item = sweep.series(ITEM, keys.recall);
    let (Some(&(x0, u0)), Some(&(_, i0))) = (user.first(), item.first()) else {
        anyhow::bail!("I2: no recall series");
    };
    let (Some(&(x1, _)), Some(&(_, i1))) = (user.last(), item.last()) else {
        anyhow::bail!("I2: no recall series");
    };
    let means: Vec<f64> = user.iter().map(|(_, e)| e.mean).collect();
    let user_range = means.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b))
        - means.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    let item_better = i0.mean > u0.mean;
    let paired = sweep
        .difference([ITEM, USER], keys.recall, x0)
        .with_context(|| format!("I2: no recall difference at {x0}%"))?;
    let item_drop = i0.mean - i1.mean;
    Ok(unconverted_claim(
        "I2",
        "MovieLens: item-based is better near 1% hidden and degrades as the fraction grows, while user-based stays stable",
        "item-based better at about 1% hidden; its quality drastically decreases for more; user-based quite stable (§5)",
        format!(
            "recall@10 at {x0}%: item {} vs user {} (item − user, paired: {}); item from {x0}% to \
             {x1}%: {} → {} (drop {item_drop:.4}); user range over {x0}%..{x1}%: {user_range:.4} \
             (stable: at most {STABLE}; degrades: a drop above {STABLE})",
            i0.text(),
            u0.text(),
            paired.signed_text(4),
            i0.text(),
            i1.text()
        ),
        item_better && item_drop > STABLE && user_range <= STABLE,
    ))
}

/// For both models and both synthetic measures, the first and last points of the series
/// (their x written by `at`), and whether every one of them rises.
fn every_series_rises(
    sweep: &Sweep,
    keys: &ClaimKeys<'_>,
    id: &str,
    at: impl Fn(f64) -> String,
) -> Result<(String, bool)> {
    let mut parts = Vec::new();
    let mut all = true;
    for label in [USER, ITEM] {
        for key in keys.synthetic {
            let series = sweep.series(label, key);
            let (Some(&(x0, first)), Some(&(x1, last))) = (series.first(), series.last()) else {
                anyhow::bail!("{id}: no {key} series for {label}");
            };
            all &= rises(first, last);
            parts.push(format!(
                "{label} {key}: {} {} → {} {}",
                at(x0),
                first.text(),
                at(x1),
                last.text()
            ));
        }
    }
    Ok((parts.join("; "), all))
}

/// A claim that every synthetic series rises from its first point to its last (`at`
/// writes the swept value).
fn rising_claim(
    sweep: &Sweep,
    keys: &ClaimKeys<'_>,
    [id, title, quote, rise]: [&str; 4],
    at: impl Fn(f64) -> String,
) -> Result<Claim> {
    let (measured, holds) = every_series_rises(sweep, keys, id, at)?;
    Ok(unconverted_claim(
        id,
        title,
        quote,
        format!(
            "{measured} ({rise}: the last point above the first by more than both 95% half-widths)"
        ),
        holds,
    ))
}

fn i4(sweep: &Sweep, keys: &ClaimKeys<'_>) -> Result<Claim> {
    let mut parts = Vec::new();
    let mut all = true;
    for key in keys.synthetic {
        let means = |label: &str| -> Vec<(f64, f64)> {
            sweep.series(label, key).iter().map(|(x, e)| (*x, e.mean)).collect()
        };
        let reached = first_reaching(&means(USER), &means(ITEM));
        all &= fewer(reached);
        let show = |k: Option<f64>| k.map_or("never".to_string(), |k| format!("k={k}"));
        parts.push(format!(
            "{key}: user-based {}, item-based {}",
            show(reached.0),
            show(reached.1)
        ));
    }
    Ok(unconverted_claim(
        "I4",
        "Synthetic data: user-based needs fewer neighbours than item-based for the same quality",
        "the user-based method needs less neighbours than item-based for gaining the same quality (§5)",
        format!(
            "first k reaching {SAME_QUALITY} × the smaller of the two best values: {}",
            parts.join("; ")
        ),
        all,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(mean: f64, half: Option<f64>) -> Estimate {
        Estimate { mean, half_width: half }
    }

    #[test]
    fn slightly_above_needs_every_difference_small_and_positive() {
        assert!(slightly_above(&[0.01, 0.04, 0.05]));
        assert!(!slightly_above(&[0.01, 0.0]));
        assert!(!slightly_above(&[0.01, 0.06]));
        assert!(!slightly_above(&[]));
    }

    #[test]
    fn a_rise_must_clear_both_intervals() {
        assert!(rises(e(0.5, Some(0.02)), e(0.55, Some(0.02))));
        assert!(!rises(e(0.5, Some(0.03)), e(0.55, Some(0.03))));
        assert!(rises(e(0.5, None), e(0.51, None)));
        assert!(!rises(e(0.5, None), e(0.5, None)));
    }

    #[test]
    fn fewer_neighbours_compares_where_each_reaches_the_common_target() {
        let user = [(1.0, 0.5), (2.0, 0.9), (3.0, 1.0)];
        let item = [(1.0, 0.3), (2.0, 0.6), (3.0, 0.8), (4.0, 0.9)];
        // Target 0.95 × min(1.0, 0.9) = 0.855: user at k = 2, item at k = 4.
        assert_eq!(first_reaching(&user, &item), (Some(2.0), Some(4.0)));
        assert!(fewer(first_reaching(&user, &item)));
        // Flat curves reach it at once: not fewer.
        let flat = [(1.0, 0.7), (2.0, 0.7)];
        assert!(!fewer(first_reaching(&flat, &flat)));
        assert!(fewer((Some(3.0), None)) && !fewer((None, Some(1.0))));
    }
}
