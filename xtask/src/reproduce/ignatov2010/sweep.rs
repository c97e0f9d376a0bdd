//! Sweeps: one experiment file run at several values of one setting (hidden columns,
//! neighbours, folds), each value a plan of its own, summarised as estimates with 95%
//! intervals over repetitions, as tables and as figures with bands.

use std::collections::BTreeMap;

use anyhow::{Result, ensure};
use recs_bench::report::{DatasetEntry, Effect, Table};
use recs_bench::{Figure, Line, Results};
use serde_json::{Value, json};

use super::hidden::{Keys, Length};

/// A mean with the half-width of its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Estimate {
    pub(crate) mean: f64,
    /// `None` with a single repetition (the `--quick` run).
    pub(crate) half_width: Option<f64>,
}

impl Estimate {
    /// `mean ± half-width` (or the mean alone), with three decimals.
    pub(crate) fn text(&self) -> String {
        match self.half_width {
            Some(h) => format!("{:.3} ± {h:.3}", self.mean),
            None => format!("{:.3}", self.mean),
        }
    }

    fn lower(&self) -> f64 {
        self.mean - self.half_width.unwrap_or(0.0)
    }

    fn upper(&self) -> f64 {
        self.mean + self.half_width.unwrap_or(0.0)
    }
}

/// The estimate from per-split values tagged with their repetition: each repetition's
/// folds are averaged first (its folds share the hidden columns and most training users,
/// so they are not independent), then the repetition means give the mean and a 95% t
/// interval (repetitions are independent draws). Undefined fold values are skipped;
/// `None` when every value is undefined.
pub(crate) fn estimate(values: &[(u32, Option<f64>)]) -> Option<Estimate> {
    let means: Vec<f64> = repetition_means(values).into_values().collect();
    if means.is_empty() {
        return None;
    }
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    let half_width = recs_metrics::t_interval(&means)
        .ok()
        .map(|interval| (interval.upper - interval.lower) / 2.0);
    Some(Estimate { mean, half_width })
}

/// The mean of each repetition's defined fold values, by repetition; a repetition without
/// a defined value is left out.
fn repetition_means(values: &[(u32, Option<f64>)]) -> BTreeMap<u32, f64> {
    let mut sums: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
    for &(repetition, value) in values {
        if let Some(v) = value {
            let entry = sums.entry(repetition).or_default();
            entry.0 += v;
            entry.1 += 1;
        }
    }
    sums.into_iter().map(|(r, (sum, n))| (r, sum / n as f64)).collect()
}

/// The estimate of report key `key` for model `label` in `results`.
pub(crate) fn estimate_of(results: &Results, label: &str, key: &str) -> Option<Estimate> {
    estimate(&by_repetition(results, results.per_split(label, key)?))
}

/// The number of repetitions in `results`.
pub(crate) fn repetitions(results: &Results) -> usize {
    results.split_ids().last().map_or(0, |id| id.repetition as usize + 1)
}

/// Per-split values tagged with their repetition.
fn by_repetition(results: &Results, values: Vec<Option<f64>>) -> Vec<(u32, Option<f64>)> {
    results.split_ids().iter().map(|id| id.repetition).zip(values).collect()
}

/// One value of the swept setting and what the run gave there.
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) results: Results,
}

/// One experiment file run at several values of one setting.
pub(crate) struct Sweep {
    /// Experiment id in the report.
    pub(crate) id: String,
    /// The experiment file's title, for figures.
    pub(crate) title: String,
    /// What the swept value is (an axis label).
    pub(crate) axis: String,
    /// The protocol of the first point in words, and what varies.
    pub(crate) protocol: String,
    /// Judged pairs and positives of the first split of the first point.
    pub(crate) candidates: u64,
    pub(crate) positives: u64,
    /// The dataset read.
    pub(crate) dataset: DatasetEntry,
    /// Model labels, in file order.
    pub(crate) labels: Vec<String>,
    /// The list length `n` of the paper's measures.
    pub(crate) list_length: usize,
    /// Every list length the paper's measures were computed at, [`Sweep::list_length`]
    /// first.
    pub(crate) list_lengths: Vec<Length>,
    pub(crate) points: Vec<Point>,
}

impl Sweep {
    /// The report keys of the paper's measures in this sweep.
    pub(crate) fn keys(&self) -> Keys {
        Keys::new(self.list_length)
    }

    /// `(x, estimate)` of `key` for model `label` at every point where it is defined.
    pub(crate) fn series(&self, label: &str, key: &str) -> Vec<(f64, Estimate)> {
        self.points
            .iter()
            .filter_map(|p| Some((p.x, estimate_of(&p.results, label, key)?)))
            .collect()
    }

    /// The results at the point `x`.
    fn at(&self, x: f64) -> Option<&Results> {
        self.points.iter().find(|p| p.x == x).map(|p| &p.results)
    }

    /// The difference of `key` between `labels[0]` and `labels[1]` at `x`, paired split by
    /// split ([`Results::paired_effect`]: over the repetitions' means when there are two or
    /// more, which are independent draws).
    pub(crate) fn difference(&self, labels: [&str; 2], key: &str, x: f64) -> Option<Effect> {
        self.at(x)?.paired_effect(labels[0], labels[1], key)
    }

    /// [`Sweep::difference`] as one of a family of `family` intervals that hold together
    /// with 95% confidence (Bonferroni, [`Effect::mean_of_simultaneous`]): for a claim
    /// judged at every point of a sweep, where one chance failure among many tests would
    /// otherwise decide. Over the repetitions' means of the split-by-split differences.
    pub(crate) fn difference_simultaneous(
        &self,
        labels: [&str; 2],
        key: &str,
        x: f64,
        family: usize,
    ) -> Option<Effect> {
        let results = self.at(x)?;
        let differences = results.split_differences((labels[0], key), (labels[1], key))?;
        let values = differences.into_iter().map(|d| (!d.is_nan()).then_some(d)).collect();
        let means: Vec<f64> =
            repetition_means(&by_repetition(results, values)).into_values().collect();
        Some(Effect::mean_of_simultaneous(&means, family))
    }

    /// The mean of `key` for `label` in each repetition (folds averaged) at every point,
    /// as `(x, value)` series by repetition; a point where a repetition has no defined
    /// value is left out of its series.
    pub(crate) fn repetition_series(
        &self,
        label: &str,
        key: &str,
    ) -> BTreeMap<u32, Vec<(f64, f64)>> {
        let mut series: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
        for point in &self.points {
            let Some(values) = point.results.per_split(label, key) else { continue };
            for (r, mean) in repetition_means(&by_repetition(&point.results, values)) {
                series.entry(r).or_default().push((point.x, mean));
            }
        }
        series
    }

    /// The change of `key` for `label` from the point `from` to the point `to` (`to`'s
    /// value minus `from`'s), paired repetition by repetition: each repetition's folds are
    /// averaged at both points, and the repetitions are independent draws (the points of
    /// one repetition share its draw, which the pairing uses). One repetition gives one
    /// draw, without an interval; `None` where either point is missing.
    pub(crate) fn change(&self, label: &str, key: &str, [from, to]: [f64; 2]) -> Option<Effect> {
        let means = |x: f64| -> Option<BTreeMap<u32, f64>> {
            let results = self.at(x)?;
            Some(repetition_means(&by_repetition(results, results.per_split(label, key)?)))
        };
        let (before, after) = (means(from)?, means(to)?);
        let (a, b): (Vec<f64>, Vec<f64>) =
            after.iter().filter_map(|(r, v)| Some((*v, *before.get(r)?))).unzip();
        Some(Effect::paired(&a, &b, true, false))
    }

    /// The difference `labels[0]` − `labels[1]` of `key` over the points `xs` as a whole:
    /// every repetition at every point is one paired draw (each repetition's folds
    /// averaged first). The draws are independent only when every point drew its own
    /// splits ([`Draws::Independent`](super::Draws)); `None` without a pair.
    pub(crate) fn pooled_difference(
        &self,
        labels: [&str; 2],
        key: &str,
        xs: &[f64],
    ) -> Option<Effect> {
        let (first, second) =
            (self.repetition_series(labels[0], key), self.repetition_series(labels[1], key));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (r, series) in &first {
            let Some(other) = second.get(r) else { continue };
            for &(x, value) in series.iter().filter(|p| xs.contains(&p.0)) {
                if let Some(&(_, o)) = other.iter().find(|p| p.0 == x) {
                    a.push(value);
                    b.push(o);
                }
            }
        }
        (!a.is_empty()).then(|| Effect::paired(&a, &b, true, false))
    }

    /// Whether every split gives `label` the same value of `key` at every point ([`same`]):
    /// the swept setting changes nothing for it.
    pub(crate) fn constant(&self, label: &str, key: &str) -> bool {
        let values = |p: &Point| p.results.per_split(label, key);
        let Some(first) = self.points.first().and_then(values) else { return false };
        self.points.iter().all(|p| {
            values(p).is_some_and(|v| {
                v.len() == first.len() && v.iter().zip(&first).all(|(a, b)| same(*a, *b))
            })
        })
    }

    /// Whether the two models of `labels` get the same value of `key` in every split at
    /// every point: nothing tells them apart.
    pub(crate) fn identical(&self, labels: [&str; 2], key: &str) -> bool {
        self.points.iter().all(|p| {
            let (a, b) = (p.results.per_split(labels[0], key), p.results.per_split(labels[1], key));
            a.zip(b).is_some_and(|(a, b)| {
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| same(*x, *y))
            })
        })
    }

    /// Repetitions of the cross-validation run at each point (the same everywhere).
    pub(crate) fn repetitions(&self) -> usize {
        self.points.first().map_or(0, |p| repetitions(&p.results))
    }

    /// One row per point and model: the swept value, the model, then each key's mean and
    /// 95% half-width (`null` where undefined or with one repetition).
    pub(crate) fn table(&self, name: &str, keys: &[&str]) -> Table {
        let mut columns = vec![self.axis.clone(), "model".to_string()];
        for key in keys {
            columns.push((*key).to_string());
            columns.push(format!("{key} ±95%"));
        }
        let mut rows = Vec::new();
        for point in &self.points {
            for label in &self.labels {
                let mut row = vec![json!(point.x), json!(label)];
                for key in keys {
                    let e = estimate_of(&point.results, label, key);
                    row.push(e.map_or(Value::Null, |e| json!(e.mean)));
                    row.push(e.and_then(|e| e.half_width).map_or(Value::Null, |h| json!(h)));
                }
                rows.push(row);
            }
        }
        Table { name: name.to_string(), columns, rows }
    }

    /// A figure of `key` against the swept value, shown under report experiment
    /// `experiment`: one line per model, with its 95% band.
    pub(crate) fn figure(&self, experiment: &str, file: &str, title: &str, key: &str) -> Figure {
        let lines: Vec<Line> =
            self.labels.iter().map(|label| line(label, &self.series(label, key))).collect();
        Figure::lines(experiment, file, title, [&self.axis, key], &lines)
    }
}

/// A figure line from a series of estimates of a measure in [0, 1]. Its band is drawn
/// clipped to [0, 1]: a t interval over few repetitions can reach beyond, which says only
/// that it is uninformative there (the tables keep the half-widths as computed).
pub(crate) fn line(label: &str, series: &[(f64, Estimate)]) -> Line {
    Line {
        label: label.to_string(),
        points: series.iter().map(|(x, e)| [*x, e.mean]).collect(),
        band: if series.iter().all(|(_, e)| e.half_width.is_some()) {
            series.iter().map(|(x, e)| [*x, e.lower().max(0.0), e.upper().min(1.0)]).collect()
        } else {
            Vec::new()
        },
        markers: Vec::new(),
    }
}

/// Checks that two keys agree at every point for every model (a cross-check of our own
/// computation against the metric crate's).
pub(crate) fn ensure_equal(sweep: &Sweep, ours: &str, theirs: &str) -> Result<()> {
    for point in &sweep.points {
        for label in &sweep.labels {
            let a = point.results.per_split(label, ours).unwrap_or_default();
            let b = point.results.per_split(label, theirs).unwrap_or_default();
            ensure!(a.len() == b.len() && !a.is_empty(), "{}: no `{ours}` or `{theirs}`", sweep.id);
            for (x, y) in a.iter().zip(&b) {
                ensure!(
                    same(*x, *y),
                    "{} at {}: {label} `{ours}` {x:?} differs from `{theirs}` {y:?}",
                    sweep.id,
                    point.x
                );
            }
        }
    }
    Ok(())
}

/// Whether two per-split values agree: both undefined, or within 1e-9.
fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9,
        (None, None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_are_averaged_within_a_repetition_first() {
        // Repetition 0: folds 0.2, 0.4 (mean 0.3); repetition 1: one defined fold, 0.5.
        let e = estimate(&[(0, Some(0.2)), (0, Some(0.4)), (1, None), (1, Some(0.5))]).unwrap();
        assert!((e.mean - 0.4).abs() < 1e-12);
        // Two repetition means 0.3 and 0.5: sd 0.1414, t(0.975, 1) = 12.706.
        let half = e.half_width.unwrap();
        assert!((half - 12.706_204_736 * 0.141_421_356_2 / 2f64.sqrt()).abs() < 1e-6, "{half}");
    }

    #[test]
    fn one_repetition_has_no_interval_and_nothing_defined_no_estimate() {
        let e = estimate(&[(0, Some(0.2)), (0, Some(0.6))]).unwrap();
        assert_eq!(e, Estimate { mean: 0.4, half_width: None });
        assert_eq!(estimate(&[(0, None), (1, None)]), None);
        assert_eq!(e.text(), "0.400");
        let d = Estimate { mean: -0.0125, half_width: Some(0.01) };
        assert_eq!(d.text(), "-0.013 ± 0.010");
    }

    #[test]
    fn bands_need_an_interval_at_every_point() {
        let with = |h: Option<f64>| Estimate { mean: 0.5, half_width: h };
        let full = line("m", &[(1.0, with(Some(0.25))), (2.0, with(Some(0.125)))]);
        assert_eq!(full.points, vec![[1.0, 0.5], [2.0, 0.5]]);
        assert_eq!(full.band, vec![[1.0, 0.25, 0.75], [2.0, 0.375, 0.625]]);
        assert!(line("m", &[(1.0, with(Some(0.25))), (2.0, with(None))]).band.is_empty());
        let wide = line("m", &[(1.0, with(Some(0.75))), (2.0, with(Some(0.75)))]);
        assert_eq!(wide.band, vec![[1.0, 0.0, 1.0], [2.0, 0.0, 1.0]]);
    }
}
