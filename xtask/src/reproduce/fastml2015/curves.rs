//! "The more, the better": mean NDCG@50 against the history length L, its mean over L
//! (MANDCG where every user is present), and the L at which two curves swap order (the
//! switch point of a hybrid).

use recs_bench::{ModelResults, Results};

use crate::reproduce::ignatov2010::sweep::{Estimate, estimate};

/// One model's curve: `(L, estimate over repetitions)` for every L where it is defined.
pub(crate) type Curve = Vec<(f64, Estimate)>;

/// One model's values against L: for every L, one value per repetition, indexed by
/// repetition (`NaN` where that split has no value), so that draws at two L, or of two
/// models at one L, pair up repetition by repetition.
pub(crate) type Draws = Vec<(f64, Vec<f64>)>;

/// Per-split values of a `given-l` run laid out by L: split fold `f` is `L = f + 1`, one
/// split per repetition and L; `NaN` where a split has no value.
fn by_l(results: &Results, values: impl Iterator<Item = f64>) -> Draws {
    let ids = results.split_ids();
    let max_fold = ids.iter().map(|id| id.fold).max().unwrap_or(0);
    let repetitions = ids.iter().map(|id| id.repetition as usize + 1).max().unwrap_or(0);
    let mut out: Draws =
        (0..=max_fold).map(|fold| (f64::from(fold) + 1.0, vec![f64::NAN; repetitions])).collect();
    for (id, value) in ids.iter().zip(values) {
        out[id.fold as usize].1[id.repetition as usize] = value;
    }
    out
}

/// The draws of report key `key` for model `label` in a `given-l` run.
pub(crate) fn draws(results: &Results, label: &str, key: &str) -> Draws {
    let Some(values) = results.per_split(label, key) else { return Vec::new() };
    by_l(results, values.into_iter().map(|v| v.unwrap_or(f64::NAN)))
}

/// The draws of the group metric of `model` in a `given-l` run over the users of the
/// user groups `groups`: per split, the sum over those groups divided by their users;
/// `NaN` where fewer than `min_users` users count.
pub(crate) fn group_draws(
    results: &Results,
    model: &ModelResults,
    groups: &[usize],
    min_users: usize,
) -> Draws {
    let values = model.groups().iter().map(|split| {
        let (sum, users) = groups
            .iter()
            .filter_map(|&g| split.get(g))
            .fold((0.0, 0), |(s, n), (s2, n2)| (s + s2, n + n2));
        if users >= min_users.max(1) { sum / users as f64 } else { f64::NAN }
    });
    by_l(results, values)
}

/// The curve of `draws`: at every L with a value, the mean over repetitions with its 95%
/// t interval.
pub(crate) fn curve(draws: &[(f64, Vec<f64>)]) -> Curve {
    draws
        .iter()
        .filter_map(|(l, values)| {
            let tagged: Vec<(u32, Option<f64>)> = (0u32..)
                .zip(values)
                .map(|(repetition, v)| (repetition, (!v.is_nan()).then_some(*v)))
                .collect();
            Some((*l, estimate(&tagged)?))
        })
        .collect()
}

/// The average of the curve's means over its L (proportional to the area under the
/// curve); `None` for an empty curve. It is the post's MANDCG (the mean over users of each
/// user's average over L) only over L at which every user has a value: further on, each
/// point averages fewer users.
pub(crate) fn curve_mean(curve: &[(f64, Estimate)]) -> Option<f64> {
    (!curve.is_empty()).then(|| curve.iter().map(|(_, e)| e.mean).sum::<f64>() / curve.len() as f64)
}

/// Where two curves swap order for good: the smallest L from which `a − b` has, at every
/// L up to the end, the strict sign opposite to its sign at the first L. `None` when the
/// first L is a tie, when the order at the end is the order at the start, or when the
/// curves do not share their L. Symmetric in `a` and `b`.
pub(crate) fn crossover(a: &[(f64, f64)], b: &[(f64, f64)]) -> Option<f64> {
    if a.len() != b.len() || a.iter().zip(b).any(|(p, q)| p.0 != q.0) {
        return None;
    }
    let signs: Vec<f64> = a.iter().zip(b).map(|(p, q)| sign(p.1 - q.1)).collect();
    let first = *signs.first()?;
    if first == 0.0 {
        return None;
    }
    let swapped = signs.iter().rev().take_while(|&&s| s == -first).count();
    (swapped > 0).then(|| a[a.len() - swapped].0)
}

fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// The means of a curve, for [`crossover`].
pub(crate) fn means(curve: &[(f64, Estimate)]) -> Vec<(f64, f64)> {
    curve.iter().map(|(x, e)| (*x, e.mean)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(mean: f64) -> (f64, Estimate) {
        (0.0, Estimate { mean, half_width: None })
    }

    #[test]
    fn curve_mean_is_the_mean_over_l() {
        let curve: Vec<_> = [0.1, 0.2, 0.6].iter().map(|&m| e(m)).collect();
        assert!((curve_mean(&curve).unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(curve_mean(&[]), None);
    }

    #[test]
    fn a_crossover_is_where_the_order_swaps_for_good() {
        let xs = |ys: &[f64]| -> Vec<(f64, f64)> {
            ys.iter().enumerate().map(|(i, &y)| (i as f64 + 1.0, y)).collect()
        };
        let blue = xs(&[0.30, 0.32, 0.33, 0.33, 0.33]);
        // Green passes blue at L = 3, falls back at 4, passes again at 5: the swap that
        // lasts starts at 5.
        let green = xs(&[0.20, 0.30, 0.34, 0.32, 0.35]);
        assert_eq!(crossover(&blue, &green), Some(5.0));
        assert_eq!(crossover(&green, &blue), Some(5.0));
        // Ahead everywhere, or a tie at the end: no crossover.
        assert_eq!(crossover(&blue, &xs(&[0.1, 0.1, 0.1, 0.1, 0.1])), None);
        assert_eq!(crossover(&blue, &xs(&[0.2, 0.4, 0.4, 0.4, 0.33])), None);
        // A tie at the first L has no order to swap.
        assert_eq!(crossover(&blue, &xs(&[0.30, 0.4, 0.4, 0.4, 0.4])), None);
        // Curves on different L are not compared.
        assert_eq!(crossover(&blue, &blue[..4]), None);
    }
}
