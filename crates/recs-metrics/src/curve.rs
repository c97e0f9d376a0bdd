//! Curves as data: expected counts of true and false positives after k recommendations.

/// A ROC-family curve: after `k` recommendations, the (expected) number of false
/// positives `fp` and true positives `tp`; plotted as `(fp / negatives, tp / positives)`.
///
/// Points start at `(0, 0)` and end at `(1, 1)`. Between two stored points the curve is
/// the straight segment, which is exactly the expected curve under a random order of
/// tied scores. [`Curve::auc`] is the trapezoid area of exactly the stored points.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    k: Vec<f64>,
    fp: Vec<f64>,
    tp: Vec<f64>,
    n_positives: u64,
    n_negatives: u64,
}

impl Curve {
    /// A curve from cumulative counts; `k`, `fp` and `tp` are aligned and non-decreasing.
    pub(crate) fn from_counts(
        k: Vec<f64>,
        fp: Vec<f64>,
        tp: Vec<f64>,
        n_positives: u64,
        n_negatives: u64,
    ) -> Self {
        Curve { k, fp, tp, n_positives, n_negatives }
    }

    /// Total number of positive (relevant) pairs: the TPR denominator.
    pub fn n_positives(&self) -> u64 {
        self.n_positives
    }

    /// Total number of negative pairs: the FPR denominator.
    pub fn n_negatives(&self) -> u64 {
        self.n_negatives
    }

    /// Number of stored points.
    pub fn len(&self) -> usize {
        self.k.len()
    }

    /// True when no point is stored (never the case for a curve built by this crate).
    pub fn is_empty(&self) -> bool {
        self.k.is_empty()
    }

    /// The step coordinate of each point: number of pooled recommendations for ROC,
    /// recommendations per user for CROC.
    pub fn k(&self) -> &[f64] {
        &self.k
    }

    /// Expected false positives at each point.
    pub fn false_positives(&self) -> &[f64] {
        &self.fp
    }

    /// Expected true positives at each point.
    pub fn true_positives(&self) -> &[f64] {
        &self.tp
    }

    /// `(false-alarm rate, hit rate)` of every stored point.
    pub fn points(&self) -> Vec<[f64; 2]> {
        (0..self.len()).map(|i| self.point(i)).collect()
    }

    fn point(&self, i: usize) -> [f64; 2] {
        [self.fp[i] / self.n_negatives as f64, self.tp[i] / self.n_positives as f64]
    }

    /// Area under the curve: [`trapezoid`] of the stored points.
    pub fn auc(&self) -> f64 {
        trapezoid(&self.points())
    }

    /// Area under the curve for false-alarm rates in `[0, max_fpr]` (schein2005 §3.3:
    /// "truncated the curve at a low false-alarm rate such as 0.3"), not rescaled: divide
    /// by `max_fpr` for a value in `[0, 1]`. The segment crossing `max_fpr` is cut by
    /// linear interpolation ([`partial_trapezoid`] of the stored points).
    pub fn partial_auc(&self, max_fpr: f64) -> f64 {
        partial_trapezoid(&self.points(), max_fpr)
    }

    /// Points at `k = 0, step, 2·step, …` and at the last `k` (schein2005 §3.1: "incrementing
    /// k' by a fixed amount"), interpolated linearly between stored points. A `step` that
    /// is not positive or not finite gives the stored points.
    pub fn at_increments(&self, step: f64) -> Vec<[f64; 2]> {
        if !(step.is_finite() && step > 0.0) || self.is_empty() {
            return self.points();
        }
        let last = self.k[self.len() - 1];
        let mut out = Vec::new();
        let mut index = 0;
        let mut j = 0u64;
        loop {
            let target = step * j as f64;
            if target >= last {
                break;
            }
            while index + 1 < self.len() && self.k[index + 1] < target {
                index += 1;
            }
            out.push(self.interpolate(index, target));
            j += 1;
        }
        out.push(self.point(self.len() - 1));
        out
    }

    fn interpolate(&self, index: usize, target: f64) -> [f64; 2] {
        if index + 1 >= self.len() || self.k[index] >= target {
            return self.point(index);
        }
        let (k0, k1) = (self.k[index], self.k[index + 1]);
        let t = if k1 > k0 { (target - k0) / (k1 - k0) } else { 1.0 };
        let fp = self.fp[index] + t * (self.fp[index + 1] - self.fp[index]);
        let tp = self.tp[index] + t * (self.tp[index + 1] - self.tp[index]);
        [fp / self.n_negatives as f64, tp / self.n_positives as f64]
    }
}

/// The trapezoid area of the polyline through `points`, taken in the order given:
/// `Σ_i (x_{i+1} − x_i) · (y_i + y_{i+1}) / 2` over consecutive points, summed from the
/// first segment to the last. This is how every AUC of `docs/metrics.md` is defined on a
/// curve's points (the ROC and CROC `auc`, [`Curve::auc`]). Points are not sorted: a
/// segment that goes left (`x_{i+1} < x_i`) subtracts its area. Fewer than two points
/// give 0.
///
/// ```
/// use recs_metrics::trapezoid;
/// // The random-guess diagonal, and a curve through (0.25, 0.5).
/// assert_eq!(trapezoid(&[[0.0, 0.0], [1.0, 1.0]]), 0.5);
/// assert_eq!(trapezoid(&[[0.0, 0.0], [0.25, 0.5], [1.0, 1.0]]), 0.625);
/// ```
pub fn trapezoid(points: &[[f64; 2]]) -> f64 {
    points.windows(2).fold(0.0, |area, w| area + segment_area(w[0], w[1]))
}

/// The trapezoid area of the polyline through `points` for `x ≤ max_x`: the partial AUC
/// of `docs/metrics.md` (`roc_pauc@0.3`, `croc_pauc@0.3`, [`Curve::partial_auc`]), not
/// rescaled (divide by `max_x` for a value in `[0, 1]`).
///
/// Segments are summed in order as in [`trapezoid`] until the first that reaches beyond
/// `max_x`, which is cut there by linear interpolation; the sum stops at the first point
/// with `x ≥ max_x`. With every `x ≤ max_x` this is [`trapezoid`], bit for bit.
///
/// ```
/// use recs_metrics::partial_trapezoid;
/// // Up to 0.3 on the diagonal: 0.3 · 0.3 / 2.
/// assert!((partial_trapezoid(&[[0.0, 0.0], [1.0, 1.0]], 0.3) - 0.045).abs() < 1e-15);
/// // A perfect curve: the whole strip of width 0.3.
/// assert!((partial_trapezoid(&[[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]], 0.3) - 0.3).abs() < 1e-15);
/// ```
pub fn partial_trapezoid(points: &[[f64; 2]], max_x: f64) -> f64 {
    let mut area = 0.0;
    for w in points.windows(2) {
        let ([x0, y0], [x1, y1]) = (w[0], w[1]);
        if x0 >= max_x {
            break;
        }
        let end =
            if x1 <= max_x { w[1] } else { [max_x, y0 + (y1 - y0) * (max_x - x0) / (x1 - x0)] };
        area += segment_area(w[0], end);
    }
    area
}

/// The signed trapezoid area between `[x0, y0]` and `[x1, y1]` down to `y = 0`.
fn segment_area([x0, y0]: [f64; 2], [x1, y1]: [f64; 2]) -> f64 {
    (x1 - x0) * (y0 + y1) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_areas() {
        let c = Curve::from_counts(vec![0.0, 4.0], vec![0.0, 2.0], vec![0.0, 2.0], 2, 2);
        assert!((c.auc() - 0.5).abs() < 1e-15);
        assert!((c.partial_auc(0.3) - 0.045).abs() < 1e-15);
        assert_eq!(
            c.at_increments(1.0),
            vec![[0.0, 0.0], [0.25, 0.25], [0.5, 0.5], [0.75, 0.75], [1.0, 1.0]]
        );
    }

    /// Hand-computed areas: `(polyline, max_x, full area, area up to max_x)`.
    #[test]
    fn trapezoid_areas_of_hand_computed_polylines() {
        let cases: &[(&[[f64; 2]], f64, f64, f64)] = &[
            // No segment.
            (&[], 0.3, 0.0, 0.0),
            (&[[0.5, 0.5]], 0.3, 0.0, 0.0),
            // The diagonal: 1/2; up to 0.3: 0.3 · 0.3 / 2.
            (&[[0.0, 0.0], [1.0, 1.0]], 0.3, 0.5, 0.045),
            // The omniscient curve: the unit square; up to 0.3: the strip 0.3 × 1.
            (&[[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]], 0.3, 1.0, 0.3),
            // Through (0.25, 0.5): 0.25 · 0.5 / 2 + 0.75 · 1.5 / 2 = 0.0625 + 0.5625;
            // up to 0.5: 0.0625 + 0.25 · (0.5 + 2/3) / 2.
            (&[[0.0, 0.0], [0.25, 0.5], [1.0, 1.0]], 0.5, 0.625, 0.0625 + 0.25 * (7.0 / 6.0) / 2.0),
            // Cut exactly on a point: 0.3 · 0.6 / 2 (+ 0.7 · 1.6 / 2 for the whole).
            (&[[0.0, 0.0], [0.3, 0.6], [1.0, 1.0]], 0.3, 0.65, 0.09),
            // A vertical step in the middle: 0.5 · 0.2 + 0.5 · 1; up to 0.5: 0.1.
            (&[[0.0, 0.2], [0.5, 0.2], [0.5, 1.0], [1.0, 1.0]], 0.5, 0.6, 0.1),
            // A limit beyond the last point: the whole area.
            (&[[0.0, 0.0], [1.0, 1.0]], 2.0, 0.5, 0.5),
            // A limit at the first point: nothing.
            (&[[0.0, 0.0], [1.0, 1.0]], 0.0, 0.5, 0.0),
            // Taken in order: going back left subtracts: 1/2 − 1/2 · (1 + 1) / 2.
            (&[[0.0, 0.0], [1.0, 1.0], [0.5, 1.0]], 2.0, 0.0, 0.0),
        ];
        for &(points, max_x, full, partial) in cases {
            assert!((trapezoid(points) - full).abs() < 1e-15, "{points:?}");
            assert!((partial_trapezoid(points, max_x) - partial).abs() < 1e-15, "{points:?}");
            assert_eq!(
                partial_trapezoid(points, f64::INFINITY).to_bits(),
                trapezoid(points).to_bits(),
                "{points:?}"
            );
        }
    }
}
