//! From exact metric curves to report curves and figures.
//!
//! A pooled ROC curve over millions of candidates has up to one point per tie group —
//! millions of points, far more than a report or a figure needs. [`thin`] keeps a subset
//! whose trapezoid area differs from the exact area by at most a stated tolerance per
//! dropped stretch, and the exact AUC is reported next to the stored one, so the contract
//! ("`auc` is the trapezoid of exactly the stored points") holds without hiding the exact
//! value.

use recs_metrics::Curve as MetricCurve;

use crate::plot::{Chart, LineKind, Series};
use crate::report::{Curve, CurveKind};

/// Largest area (in units of the unit square) that one dropped stretch of points may
/// change. The stored AUC is therefore within `THIN_TOLERANCE` × (kept points) of the
/// exact one; on the schein2005 full run (up to 27,000 kept points) the largest difference
/// was 6.2e-6, on the noisy ROC curve of the random recommender.
pub const THIN_TOLERANCE: f64 = 2e-9;

/// A curve of one model, exact and as reported.
#[derive(Debug, Clone)]
pub struct ModelCurve {
    /// The report entry (thinned points, their trapezoid area).
    pub report: Curve,
    /// Exact AUC of the full-resolution curve.
    pub exact_auc: f64,
    /// Exact partial AUC up to false-alarm rate 0.3 (not divided by 0.3).
    pub exact_pauc: f64,
    /// Points at the paper's increments (figure markers).
    pub increments: Vec<[f64; 2]>,
}

impl ModelCurve {
    /// Summarises an exact curve for the report; `increment` is the spacing of the figure
    /// markers in curve steps (0 for no markers).
    ///
    /// Vertices inside a horizontal run (consecutive points of equal height) carry no
    /// shape and are dropped first, so a curve reports the same with or without them
    /// (the streamed ROC curve has none: see `recs_metrics::stream`).
    pub fn new(kind: CurveKind, model: &str, curve: &MetricCurve, increment: f64) -> Self {
        let points = without_flat_interiors(curve.points());
        ModelCurve {
            report: Curve::from_points(kind, model, thin(&points, THIN_TOLERANCE)),
            exact_auc: recs_metrics::trapezoid(&points),
            exact_pauc: recs_metrics::partial_trapezoid(&points, 0.3),
            increments: if increment > 0.0 { curve.at_increments(increment) } else { Vec::new() },
        }
    }

    /// The same, from raw points (reference curves given as points).
    pub fn from_points(kind: CurveKind, model: &str, points: Vec<[f64; 2]>) -> Self {
        let exact_auc = recs_metrics::trapezoid(&points);
        let exact_pauc = recs_metrics::partial_trapezoid(&points, 0.3);
        let thinned = thin(&points, THIN_TOLERANCE);
        ModelCurve {
            report: Curve::from_points(kind, model, thinned),
            exact_auc,
            exact_pauc,
            increments: Vec::new(),
        }
    }
}

/// The omniscient and random-expected reference curves of both kinds.
#[derive(Debug, Clone)]
pub(crate) struct References {
    /// ROC references.
    pub(crate) roc: Vec<ModelCurve>,
    /// CROC references.
    pub(crate) croc: Vec<ModelCurve>,
}

/// The reference curves of judged users given as (candidates, positives).
///
/// # Errors
/// No positive or no negative pair.
pub(crate) fn references(users: &[(usize, usize)]) -> crate::Result<References> {
    let positives: u64 = users.iter().map(|&(_, s)| s as u64).sum();
    let negatives = users.iter().map(|&(n, _)| n as u64).sum::<u64>() - positives;
    let omniscient_roc = recs_metrics::omniscient_roc(positives, negatives);
    let random_roc = recs_metrics::random_roc(positives, negatives);
    let omniscient_croc = recs_metrics::omniscient_croc_of(users.iter().copied())?;
    let random_croc = recs_metrics::random_croc_of(users.iter().copied())?;
    Ok(References {
        roc: vec![
            ModelCurve::new(CurveKind::Roc, "omniscient", &omniscient_roc, 0.0),
            ModelCurve::new(CurveKind::Roc, "random (expected)", &random_roc, 0.0),
        ],
        croc: vec![
            ModelCurve::new(CurveKind::Croc, "omniscient", &omniscient_croc, 0.0),
            ModelCurve::new(CurveKind::Croc, "random (expected)", &random_croc, 0.0),
        ],
    })
}

/// `points` less those strictly inside a run of equal heights.
fn without_flat_interiors(points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    let mut kept: Vec<[f64; 2]> = Vec::with_capacity(points.len());
    for (i, &p) in points.iter().enumerate() {
        let flat_before = kept.last().is_some_and(|q| q[1] == p[1]);
        let flat_after = points.get(i + 1).is_some_and(|q| q[1] == p[1]);
        if !(flat_before && flat_after) {
            kept.push(p);
        }
    }
    kept
}

/// Keeps the first and last point and every point needed so that replacing each dropped
/// stretch by a straight segment changes the area under it by at most `tolerance` and
/// moves no dropped point more than `sqrt(tolerance)` vertically from the segment.
pub(crate) fn thin(points: &[[f64; 2]], tolerance: f64) -> Vec<[f64; 2]> {
    if points.len() <= 2 {
        return points.to_vec();
    }
    // Prefix trapezoid areas: the polyline area between points a and b is
    // prefix[b] - prefix[a].
    let mut prefix = Vec::with_capacity(points.len());
    prefix.push(0.0);
    for w in points.windows(2) {
        let last = *prefix.last().unwrap_or(&0.0);
        prefix.push(last + (w[1][0] - w[0][0]) * (w[0][1] + w[1][1]) / 2.0);
    }
    let max_gap = tolerance.sqrt();
    let mut kept = vec![points[0]];
    let mut start = 0usize;
    let mut end = 1usize;
    while end < points.len() - 1 {
        let next = end + 1;
        let [xs, ys] = points[start];
        let [xn, yn] = points[next];
        let chord = (xn - xs) * (ys + yn) / 2.0;
        let polyline = prefix[next] - prefix[start];
        // A stretch on one vertical line has no area and no visible bend: drop freely.
        let [xe, ye] = points[end];
        let gap = if xn > xs { (ye - (ys + (yn - ys) * (xe - xs) / (xn - xs))).abs() } else { 0.0 };
        if (chord - polyline).abs() > tolerance || gap > max_gap {
            kept.push(points[end]);
            start = end;
        }
        end = next;
    }
    kept.push(points[points.len() - 1]);
    kept
}

/// A ROC-type figure of the given curves: models solid with increment markers, references
/// thin; the AUC in each legend entry. A model whose curve is exactly that of an earlier
/// model is drawn over it, so its legend entry says so (otherwise the earlier curve would
/// seem to be missing).
pub(crate) fn figure(title: &str, models: &[ModelCurve], references: &[ModelCurve]) -> Chart {
    let mut series = Vec::new();
    for (index, curve) in models.iter().enumerate() {
        let same_as = models[..index]
            .iter()
            .find(|earlier| earlier.report.points == curve.report.points)
            .map_or(String::new(), |earlier| format!("; covers {}", earlier.report.model));
        series.push(Series {
            label: format!("{} (AUC {:.3}{same_as})", curve.report.model, curve.exact_auc),
            points: curve.report.points.clone(),
            markers: curve.increments.clone(),
            band: Vec::new(),
            kind: LineKind::Model,
        });
    }
    for curve in references {
        // The omniscient ROC curve runs up the left edge and along the top: on the frame,
        // where the eye does not look for a curve.
        let place = if curve.report.kind == CurveKind::Roc && curve.exact_auc == 1.0 {
            "; along the left and top edges"
        } else {
            ""
        };
        series.push(Series {
            label: format!("{} (AUC {:.3}{place})", curve.report.model, curve.exact_auc),
            points: curve.report.points.clone(),
            markers: Vec::new(),
            band: Vec::new(),
            kind: LineKind::Reference,
        });
    }
    Chart::unit_square(title, series)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use recs_metrics::trapezoid;

    #[test]
    fn flat_interiors_are_dropped_and_nothing_else() {
        let points = vec![
            [0.0, 0.0],
            [0.1, 0.0],
            [0.2, 0.0],
            [0.2, 0.5],
            [0.4, 0.5],
            [0.6, 0.5],
            [1.0, 1.0],
        ];
        assert_eq!(
            without_flat_interiors(points),
            vec![[0.0, 0.0], [0.2, 0.0], [0.2, 0.5], [0.6, 0.5], [1.0, 1.0]]
        );
        let steep = vec![[0.0, 0.0], [0.0, 0.5], [0.0, 1.0], [1.0, 1.0]];
        assert_eq!(without_flat_interiors(steep.clone()), steep);
    }

    #[test]
    fn identical_curves_say_which_they_cover() {
        let a =
            ModelCurve::from_points(CurveKind::Croc, "a", vec![[0.0, 0.0], [0.2, 0.7], [1.0, 1.0]]);
        let b =
            ModelCurve::from_points(CurveKind::Croc, "b", vec![[0.0, 0.0], [0.2, 0.7], [1.0, 1.0]]);
        let c =
            ModelCurve::from_points(CurveKind::Croc, "c", vec![[0.0, 0.0], [0.3, 0.7], [1.0, 1.0]]);
        let chart = figure("t", &[a, b, c], &[]);
        let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["a (AUC 0.750)", "b (AUC 0.750; covers a)", "c (AUC 0.700)"]);
    }

    /// The omniscient ROC curve lies on the frame, so its legend entry says where; the
    /// models' markers take a different shape each, so coinciding curves stay apart.
    #[test]
    fn the_omniscient_roc_says_where_it_runs_and_models_get_their_own_markers() {
        let frame = vec![[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        let omniscient = ModelCurve::from_points(CurveKind::Roc, "omniscient", frame);
        let diagonal = vec![[0.0, 0.0], [1.0, 1.0]];
        let mut a = ModelCurve::from_points(CurveKind::Roc, "a", diagonal.clone());
        let mut b = ModelCurve::from_points(CurveKind::Roc, "b", diagonal);
        a.increments = vec![[0.5, 0.5]];
        b.increments = vec![[0.5, 0.5]];
        let chart = figure("t", &[a, b], &[omniscient]);
        assert_eq!(chart.series[2].label, "omniscient (AUC 1.000; along the left and top edges)");
        let svg = chart.to_svg().unwrap();
        // a: one circle marker; b: one triangle (a polygon), drawn over a wider line.
        assert_eq!(svg.matches("<circle").count(), 1);
        assert_eq!(svg.matches("<polygon").count(), 1);
        assert!(svg.contains("stroke-width=\"3\"") && svg.contains("stroke-width=\"2\""));
    }

    #[test]
    fn collinear_points_collapse() {
        let points: Vec<[f64; 2]> =
            (0..=100).map(|i| [i as f64 / 100.0, i as f64 / 100.0]).collect();
        assert_eq!(thin(&points, 1e-12), vec![[0.0, 0.0], [1.0, 1.0]]);
    }

    #[test]
    fn corners_are_kept() {
        let points = vec![[0.0, 0.0], [0.0, 0.5], [0.0, 1.0], [0.5, 1.0], [1.0, 1.0]];
        let thinned = thin(&points, 1e-12);
        assert_eq!(thinned, vec![[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
        assert_eq!(trapezoid(&thinned), 1.0);
    }

    proptest! {
        /// Thinning a monotone curve keeps its ends and changes the area by little.
        #[test]
        fn area_is_preserved(steps in proptest::collection::vec((0u8..5, 0u8..5), 1..400)) {
            let (mut x, mut y) = (0.0f64, 0.0f64);
            let mut raw = vec![[0.0, 0.0]];
            for (dx, dy) in &steps {
                x += f64::from(*dx);
                y += f64::from(*dy);
                raw.push([x, y]);
            }
            let (sx, sy) = (x.max(1.0), y.max(1.0));
            let mut points: Vec<[f64; 2]> = raw.iter().map(|p| [p[0] / sx, p[1] / sy]).collect();
            points.push([1.0, 1.0]);
            let thinned = thin(&points, THIN_TOLERANCE);
            prop_assert_eq!(thinned.first(), points.first());
            prop_assert_eq!(thinned.last(), points.last());
            let bound = THIN_TOLERANCE * thinned.len() as f64 + 1e-12;
            prop_assert!((trapezoid(&thinned) - trapezoid(&points)).abs() <= bound);
        }
    }
}
