//! SLIM (Ning & Karypis, "SLIM: Sparse Linear Methods for Top-N Recommender Systems",
//! ICDM 2011).
//!
//! SLIM learns a sparse, non-negative item-item matrix `W` that rebuilds the binary users ×
//! items training matrix `X` (an event with a value > 0 counts 1, any other is absent) from
//! itself. The paper's problem (its eq. 2) is
//!
//! ```text
//! minimise over W   ½‖X − XW‖²_F + (β/2)‖W‖²_F + λ‖W‖₁
//! subject to        W ≥ 0,  diag(W) = 0
//! ```
//!
//! and, since the Frobenius norm and the `ℓ1` norm add over columns, it splits into one
//! independent elastic-net regression per item `j` (its eq. 3):
//!
//! ```text
//! minimise over w_j   ½‖x_j − X w_j‖² + (β/2)‖w_j‖² + λ‖w_j‖₁
//! subject to          w_j ≥ 0,  w_jj = 0
//! ```
//!
//! with `x_j` column `j` of `X` and `w_j` column `j` of `W`. A user with history row `x_u`
//! scores item `j` with
//!
//! ```text
//! score(u, j) = (x_u·W)_j = Σ_i X_ui W_ij
//! ```
//!
//! an entry of the reconstruction `XW`, so scores are comparable across users. The
//! diagonal is 0, so an item in a history does not vote for itself.
//!
//! **Parameters.** The penalties are set as scikit-learn's `ElasticNet` sets them, so that
//! `ElasticNet(alpha, l1_ratio, positive=True, fit_intercept=False)` fitted on `X` with
//! column `j` zeroed solves column `j`. scikit-learn minimises `1/(2·n_users)‖x_j − X
//! w_j‖² + alpha·l1_ratio‖w_j‖₁ + ½·alpha·(1 − l1_ratio)‖w_j‖²`; multiplied by
//! `n_users`, that is the paper's problem with
//!
//! ```text
//! λ = alpha · l1_ratio · n_users          β = alpha · (1 − l1_ratio) · n_users
//! ```
//!
//! so the same `alpha` penalises a larger training set's columns more, in proportion to
//! the squared error they sum. Defaults, and who chose them:
//!
//! | parameter | default | chosen by |
//! |---|---|---|
//! | `alpha` | 0.1 | us: from a grid on MovieLens 100K (below) |
//! | `l1_ratio` | 0.03 | us, likewise |
//! | `tolerance` | 1e-4 | scikit-learn's default `tol`, applied to the coordinate changes only |
//! | `max_iterations` | 100 | us: passes per column (scikit-learn's default is 1,000) |
//! | `neighbours` | none | us: off, every candidate kept (the paper's SLIM, not fsSLIM) |
//!
//! On MovieLens 100K (943 users) the defaults are `λ = 2.829` and `β = 91.471`. We chose
//! them on splits that held out a fifth of each user's events (by a hash of user and
//! item), ranking every item the user had not rated in training and counting the held-out
//! events in the first 20 (recall@20). Sixteen settings, `alpha` from 0.001 to 1 and
//! `l1_ratio` from 0.001 to 0.5, ran on one split, and five of them, the best and sparser
//! ones near it, on two more. The defaults' recall@20 was 0.447, 0.452 and 0.449 on the
//! three splits; EASE with its default `λ = 500` had 0.446, 0.449 and 0.448, RP3β with its
//! defaults 0.399, 0.404 and 0.397. `l1_ratio = 0.01` was higher by about 0.002 with 2.4
//! times as many weights; `alpha = 0.001` (0.415 on the first split: too weak a penalty)
//! and `alpha = 1` (0.295: too strong) were worse. A starting point, to be tuned per
//! dataset.
//!
//! **The solver: cyclic coordinate descent.** Each column starts from `w_j = 0` and the
//! residual `r = x_j − X w_j = x_j`. A pass visits the candidate coordinates `i` of the
//! column in increasing item order; with `n_i = ‖x_i‖²` (item `i`'s number of users,
//! computed once) each coordinate takes the exact minimiser of the problem in that
//! coordinate alone, the soft threshold clipped at zero:
//!
//! ```text
//! ρ_i = x_iᵀ r + w_i · n_i
//! w_i ← max(ρ_i − λ, 0) / (n_i + β)
//! r   ← r − (w_i,new − w_i,old) · x_i       (only where the weight changed)
//! ```
//!
//! the update of scikit-learn's `enet_coordinate_descent` with `positive=True`. `x_iᵀ r`
//! sums `r` over the users of `i` and the residual is updated on those users only: a pass
//! costs the number of training events of the candidates. After a pass the column stops
//! when the largest change `max_i |w_i,new − w_i,old|` of that pass is `≤ tolerance ×
//! max_i w_i` (the largest weight after the pass), or when every weight is 0, or after
//! `max_iterations` passes. That is scikit-learn's first test without its second: it also
//! asks the duality gap to be `≤ tol·‖x_j‖²` and otherwise carries on, and it also skips
//! coordinates its gap-safe screening rules out; this solver does neither. A column that
//! stops at `max_iterations` is not an error; [`Recommender::fit_facts`] counts them.
//!
//! **Candidates.** Only items `i ≠ j` that share a user with `j` are coordinates of column
//! `j`. The others are 0 at every pass in exact arithmetic: on the users of such an item
//! `x_j` is 0 and `X w_j ≥ 0`, so `x_iᵀ r ≤ 0` and the clipped update keeps `w_i = 0`.
//! Skipping them changes the time, not the solution. With `neighbours = k` (optional, off
//! by default) column `j` keeps only the `k` items with the most users in common with `j`
//! (the smaller item index on a tie), in the spirit of the paper's fsSLIM (SLIM with
//! feature selection), which restricts each column to a few items chosen by an item-item
//! similarity; here the similarity is the count of common users (ours). It makes the fit
//! cheaper on large catalogs and changes the model.
//!
//! **Order of the arithmetic.** Each column is solved by one thread, always in the same
//! order (coordinates in increasing item order, `x_iᵀ r` summed over users in increasing
//! order); columns are solved in parallel with rayon, each independently, so the weights
//! are the same bits at any thread count. `W` is stored sparse (its non-zero weights, by
//! row). A score sums the weights of the user's items in increasing item order, in `f64`,
//! and rounds once to `f32`; a history folded in ([`FoldInUser`]) is summed the same way,
//! so a training user's own row gives its training scores bit for bit.
//!
//! **Memory and time.** The model holds the non-zero weights, 12 bytes each (84,446 on
//! MovieLens 100K with the defaults: 3% of items², 1 MB), and the training rows (4
//! bytes per event). The fit also holds `X` item-major (4 bytes per event), per thread a
//! residual (8 bytes per user) and a count per item, and at its peak the weights twice (by
//! column, then by row); no users × items or items × items matrix is materialised. A pass
//! of column `j` costs the training events of its candidates, at most all events, so the
//! fit's time grows as `n_items × events × passes`. With the defaults, the whole of
//! MovieLens 100K (943 × 1,682, 100,000 events) fits in about 6 s on 2 cores (optimised,
//! as the crate's tests build it; 5 to 7 s over several runs on cores shared with other
//! work, which left the fit about one core: its processor time was as long as its wall
//! time, so two idle cores would take about half as long). 182 of its 1,682 columns stop
//! at 100 passes; with `max_iterations = 1000` every column meets the tolerance (313
//! passes at most) in about 10% more time, and the held-out recall@20 of the first split
//! above is the same to four decimals.

use crate::graph::Graph;
use crate::item_item::ItemItem;
use rayon::prelude::*;
use recs_core::{
    FoldInUser, Interactions, Recommender, RecsError, Result, Shape, TrainData, UserRow,
};

/// Validated parameters of [`Slim`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlimParams {
    alpha: f64,
    l1_ratio: f64,
    tolerance: f64,
    max_iterations: usize,
    neighbours: Option<usize>,
}

impl SlimParams {
    /// The default overall penalty, `alpha = 0.1` in scikit-learn's scaling (ours: see
    /// the module's documentation).
    pub const DEFAULT_ALPHA: f64 = 0.1;
    /// The default share of the penalty that is `ℓ1`, `l1_ratio = 0.03` (ours).
    pub const DEFAULT_L1_RATIO: f64 = 0.03;
    /// The default stopping tolerance, relative to a column's largest weight: `1e-4`,
    /// scikit-learn's default `tol`.
    pub const DEFAULT_TOLERANCE: f64 = 1e-4;
    /// The default largest number of coordinate-descent passes per column, 100 (ours).
    pub const DEFAULT_MAX_ITERATIONS: usize = 100;
    /// By default every item sharing a user with `j` is a candidate of column `j` (no
    /// fsSLIM restriction; ours).
    pub const DEFAULT_NEIGHBOURS: Option<usize> = None;

    /// SLIM with overall penalty `alpha` and `ℓ1` share `l1_ratio`, in scikit-learn's
    /// scaling (the paper's `λ = alpha·l1_ratio·n_users`, `β = alpha·(1 −
    /// l1_ratio)·n_users`), and the default tolerance, passes and candidates.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming the parameter when `alpha` is not a finite
    /// value > 0 (at 0 the problem is unpenalised non-negative least squares, whose
    /// solution need not be unique: two items with the same users) or `l1_ratio` is not in
    /// `[0, 1]`.
    pub fn new(alpha: f64, l1_ratio: f64) -> Result<Self> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(RecsError::invalid_parameter("alpha", alpha, "a finite value > 0"));
        }
        if !(0.0..=1.0).contains(&l1_ratio) {
            return Err(RecsError::invalid_parameter("l1_ratio", l1_ratio, "a value in [0, 1]"));
        }
        Ok(SlimParams { alpha, l1_ratio, ..SlimParams::default() })
    }

    /// These parameters with a column stopping once a pass changes no weight by more than
    /// `tolerance` times the column's largest weight.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming `tolerance` when it is not a finite value
    /// ≥ 0 (at 0 a column runs until a pass changes nothing or `max_iterations`).
    pub fn with_tolerance(self, tolerance: f64) -> Result<Self> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(RecsError::invalid_parameter("tolerance", tolerance, "a finite value ≥ 0"));
        }
        Ok(SlimParams { tolerance, ..self })
    }

    /// These parameters with at most `max_iterations` passes per column.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming `max_iterations` when it is 0.
    pub fn with_max_iterations(self, max_iterations: usize) -> Result<Self> {
        if max_iterations == 0 {
            return Err(RecsError::invalid_parameter(
                "max_iterations",
                max_iterations,
                "an integer ≥ 1",
            ));
        }
        Ok(SlimParams { max_iterations, ..self })
    }

    /// These parameters with each column's candidates cut to the `k` items with the most
    /// users in common with its item (`Some(k)`, fsSLIM), or not cut (`None`).
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming `neighbours` for `Some(0)`.
    pub fn with_neighbours(self, neighbours: Option<usize>) -> Result<Self> {
        if neighbours == Some(0) {
            return Err(RecsError::invalid_parameter(
                "neighbours",
                0,
                "an integer ≥ 1, or none for every item sharing a user",
            ));
        }
        Ok(SlimParams { neighbours, ..self })
    }

    /// The overall penalty `alpha` (scikit-learn's scaling).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The share `l1_ratio` of the penalty that is `ℓ1`.
    pub fn l1_ratio(&self) -> f64 {
        self.l1_ratio
    }

    /// The stopping tolerance, relative to a column's largest weight.
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The largest number of passes per column.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    /// The number of candidates kept per column, if cut.
    pub fn neighbours(&self) -> Option<usize> {
        self.neighbours
    }

    /// The paper's `λ` (the `ℓ1` penalty) for `n_users` training users:
    /// `alpha · l1_ratio · n_users`, multiplied in that order, as scikit-learn does.
    pub fn l1_penalty(&self, n_users: usize) -> f64 {
        self.alpha * self.l1_ratio * n_users as f64
    }

    /// The paper's `β` (the squared `ℓ2` penalty) for `n_users` training users:
    /// `alpha · (1 − l1_ratio) · n_users`, multiplied in that order, as scikit-learn does.
    pub fn l2_penalty(&self, n_users: usize) -> f64 {
        self.alpha * (1.0 - self.l1_ratio) * n_users as f64
    }
}

impl Default for SlimParams {
    fn default() -> Self {
        SlimParams {
            alpha: Self::DEFAULT_ALPHA,
            l1_ratio: Self::DEFAULT_L1_RATIO,
            tolerance: Self::DEFAULT_TOLERANCE,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            neighbours: Self::DEFAULT_NEIGHBOURS,
        }
    }
}

impl recs_core::Fit for SlimParams {
    type Model = Slim;

    fn fit(&self, data: &TrainData<'_>) -> Result<Slim> {
        Slim::fit(self, data.interactions)
    }
}

/// A fitted SLIM model: the non-zero item-item weights `W`, sparse by row, and the
/// training rows it scores.
///
/// Scores are `Σ_i X_ui W_ij`, summed in `f64` over the user's items in increasing index
/// order and rounded once to `f32`: entries of the reconstruction `XW`, comparable across
/// users.
#[derive(Debug, Clone)]
pub struct Slim {
    /// The non-zero weights (every one > 0) and the training rows.
    w: ItemItem,
    /// The most passes any column took.
    most_passes: usize,
    /// Columns that stopped at `max_iterations` with their last change above the tolerance.
    unconverged: usize,
}

/// Per-thread scratch for one column of `W`.
struct ColumnScratch {
    /// Users in common with the column's item, per item; zero between columns.
    common: Vec<u32>,
    /// The items whose `common` count is non-zero, in the order first met.
    touched: Vec<u32>,
    /// The residual `x_j − X w_j`, one entry per user.
    residual: Vec<f64>,
}

impl ColumnScratch {
    fn new(n_users: usize, n_items: usize) -> ColumnScratch {
        ColumnScratch {
            common: vec![0; n_items],
            touched: Vec::new(),
            residual: vec![0.0; n_users],
        }
    }
}

/// One solved column of `W`: its non-zero weights by increasing item, and how the descent
/// went.
struct Column {
    items: Vec<u32>,
    weights: Vec<f64>,
    passes: usize,
    converged: bool,
}

/// What every column's descent shares: the penalties and the stopping rule.
struct Descent {
    l1: f64,
    l2: f64,
    tolerance: f64,
    max_iterations: usize,
    neighbours: Option<usize>,
}

impl Slim {
    fn fit(params: &SlimParams, train: &Interactions) -> Result<Self> {
        let train = train.require_events()?;
        let (n_users, n_items) = (train.n_users(), train.n_items());
        let graph = Graph::new(train);
        if graph.row_items.is_empty() {
            return Err(RecsError::Empty { what: "training events with a positive value" });
        }
        let descent = Descent {
            l1: params.l1_penalty(n_users),
            l2: params.l2_penalty(n_users),
            tolerance: params.tolerance,
            max_iterations: params.max_iterations,
            neighbours: params.neighbours,
        };

        let columns: Vec<Column> = (0..n_items)
            .into_par_iter()
            .map_init(
                || ColumnScratch::new(n_users, n_items),
                |scratch, j| solve_column(j, &graph, &descent, scratch),
            )
            .collect();

        // Columns to rows: a counting sort by row. Columns are visited in increasing `j`,
        // so each row lists its items in increasing order.
        let mut weight_starts = vec![0usize; n_items + 1];
        for column in &columns {
            for &i in &column.items {
                weight_starts[i as usize + 1] += 1;
            }
        }
        for i in 0..n_items {
            weight_starts[i + 1] += weight_starts[i];
        }
        let total = weight_starts[n_items];
        let mut next = weight_starts.clone();
        let (mut weight_items, mut weights) = (vec![0u32; total], vec![0.0f64; total]);
        for (j, column) in columns.iter().enumerate() {
            for (&i, &w) in column.items.iter().zip(&column.weights) {
                let at = next[i as usize];
                weight_items[at] = j as u32;
                weights[at] = w;
                next[i as usize] += 1;
            }
        }
        let most_passes = columns.iter().map(|c| c.passes).max().unwrap_or(0);
        let unconverged = columns.iter().filter(|c| !c.converged).count();
        Ok(Slim {
            w: ItemItem::new(graph, n_users, n_items, (weight_starts, weight_items, weights)),
            most_passes,
            unconverged,
        })
    }

    /// The non-zero weights of row `item` of `W`: the items `j` in increasing order and
    /// the weights `W_ij > 0` aligned with them (empty for an item out of range). The
    /// weights of items not listed are 0.
    pub fn weights_of(&self, item: u32) -> (&[u32], &[f64]) {
        self.w.weights_of(item)
    }

    /// The number of non-zero weights in `W`.
    pub fn n_weights(&self) -> usize {
        self.w.n_weights()
    }
}

/// The candidate coordinates of column `j`, in increasing item order: the items `i ≠ j`
/// sharing a user with `j`, cut to the `neighbours` with the most common users if asked.
fn candidates_of(
    j: usize,
    graph: &Graph,
    neighbours: Option<usize>,
    scratch: &mut ColumnScratch,
) -> Vec<u32> {
    let ColumnScratch { common, touched, .. } = scratch;
    touched.clear();
    for &u in graph.users_of(j) {
        for &i in graph.items_of(u as usize) {
            if i as usize == j {
                continue;
            }
            if common[i as usize] == 0 {
                touched.push(i);
            }
            common[i as usize] += 1;
        }
    }
    let mut counted: Vec<(u32, u32)> = touched
        .iter()
        .map(|&i| {
            let count = std::mem::take(&mut common[i as usize]);
            (i, count)
        })
        .collect();
    if let Some(k) = neighbours
        && counted.len() > k
    {
        // More common users first, then the smaller item: a total order, so the kept set
        // does not depend on the order the candidates were met in.
        let before = |a: &(u32, u32), b: &(u32, u32)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        counted.select_nth_unstable_by(k - 1, before);
        counted.truncate(k);
    }
    let mut items: Vec<u32> = counted.into_iter().map(|(i, _)| i).collect();
    items.sort_unstable();
    items
}

/// Column `j` of `W` by cyclic coordinate descent (see the module's documentation).
fn solve_column(j: usize, graph: &Graph, descent: &Descent, scratch: &mut ColumnScratch) -> Column {
    let candidates = candidates_of(j, graph, descent.neighbours, scratch);
    let residual = &mut scratch.residual;
    residual.fill(0.0);
    for &u in graph.users_of(j) {
        residual[u as usize] = 1.0;
    }
    let mut weights = vec![0.0f64; candidates.len()];
    let (mut passes, mut converged) = (0, false);
    while !converged && passes < descent.max_iterations {
        passes += 1;
        let (mut largest_change, mut largest_weight) = (0.0f64, 0.0f64);
        for (w, &i) in weights.iter_mut().zip(&candidates) {
            let users = graph.users_of(i as usize);
            let old = *w;
            let mut dot = 0.0f64;
            for &u in users {
                dot += residual[u as usize];
            }
            let rho = dot + old * users.len() as f64;
            let new = if rho > descent.l1 {
                (rho - descent.l1) / (users.len() as f64 + descent.l2)
            } else {
                0.0
            };
            if new != old {
                let change = new - old;
                for &u in users {
                    residual[u as usize] -= change;
                }
                *w = new;
                largest_change = largest_change.max(change.abs());
            }
            largest_weight = largest_weight.max(new);
        }
        converged = largest_weight == 0.0 || largest_change <= descent.tolerance * largest_weight;
    }
    let (items, weights): (Vec<u32>, Vec<f64>) =
        candidates.into_iter().zip(weights).filter(|&(_, w)| w > 0.0).unzip();
    Column { items, weights, passes, converged }
}

impl Recommender for Slim {
    fn shape(&self) -> Shape {
        Shape::new(self.w.n_users, self.w.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.w.score(user, items, out)
    }

    /// The most coordinate-descent passes a column took, the columns that stopped at
    /// `max_iterations` before meeting the tolerance, and the number of non-zero weights.
    fn fit_facts(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("coordinate-descent passes (most for one item)", self.most_passes as f64),
            ("items stopped at max_iterations", self.unconverged as f64),
            ("non-zero weights", self.w.n_weights() as f64),
        ]
    }

    recs_core::capabilities!(fold_in);
}

impl FoldInUser for Slim {
    /// `Σ_i x_i W_ij` with `x` the indicator of the history's items with a value > 0, as
    /// in training, so a training user's own row gives exactly its training scores.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.w.score_history(history, items, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{all_scores, scattered};
    use recs_core::{DuplicatePolicy, Event, Fit};
    use recs_testkit::interactions_from_rows;

    /// The hand-computed case: items 0 and 1 have the same users, item 2 shares one of them.
    ///
    /// ```text
    /// u0: {0, 1}    u1: {0, 1, 2}    u2: {2}    u3: {0, 1}
    /// x_0 = x_1 = (1, 1, 0, 1),  x_2 = (0, 1, 1, 0),  n_0 = n_1 = 3,  n_2 = 2
    /// ```
    ///
    /// With 4 users, `alpha = 0.05` and `l1_ratio = 0.5` give `λ = β = 0.1`.
    ///
    /// Column 1 (candidates 0 and 2): the first pass sets `w_0 = (3 − λ)/(3 + β) = 29/31`,
    /// leaving the residual `2/31` on u0, u1 and u3; then `ρ_2 = 2/31 < λ`, so `w_2 = 0`.
    /// The second pass finds `ρ_0 = 3·2/31 + 3·29/31 = 3` again: converged, `W_01 = 29/31`,
    /// `W_21 = 0`. Column 0 is the same with items 0 and 1 swapped.
    ///
    /// Column 2 (candidates 0 and 1): the first pass sets `w_0 = (1 − λ)/(3 + β) = 9/31`,
    /// then `ρ_1 = (−9 + 22 − 9)/31 = 4/31`, so `w_1 = (4/31 − 1/10)/(31/10) = 9/961`. The
    /// optimum is symmetric, `w_0 = w_1 = w` with `w = (1 − 3w − λ)/(3 + β)`, `w = 9/61`.
    const HAND: [&[u32]; 4] = [&[0, 1], &[0, 1, 2], &[2], &[0, 1]];

    fn fit(rows: &[&[u32]], n_items: usize, params: SlimParams) -> Slim {
        let train = interactions_from_rows(rows, n_items, 1.0);
        params.fit(&TrainData::new(&train, 0)).unwrap()
    }

    fn tight(alpha: f64, l1_ratio: f64) -> SlimParams {
        SlimParams::new(alpha, l1_ratio)
            .unwrap()
            .with_tolerance(1e-13)
            .unwrap()
            .with_max_iterations(100_000)
            .unwrap()
    }

    /// `W` as a dense row-major matrix.
    fn dense(model: &Slim) -> Vec<f64> {
        let n = model.n_items();
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            let (js, ws) = model.weights_of(i as u32);
            for (&j, &weight) in js.iter().zip(ws) {
                w[i * n + j as usize] = weight;
            }
        }
        w
    }

    fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64) {
        for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
            assert!((a - e).abs() <= tolerance, "entry {k}: {a}, expected {e}");
        }
    }

    #[test]
    fn weights_and_scores_match_the_hand_computed_case() {
        let model = fit(&HAND, 3, tight(0.05, 0.5));
        #[rustfmt::skip]
        let expected = [
            0.0,         29.0 / 31.0, 9.0 / 61.0,
            29.0 / 31.0, 0.0,         9.0 / 61.0,
            0.0,         0.0,         0.0,
        ];
        assert_close(&dense(&model), &expected, 1e-12);
        // Item 2's row is empty: its weight in columns 0 and 1 is exactly 0, not small.
        assert_eq!(model.weights_of(2), (&[][..], &[][..]));
        let (copy, with_2) = (29.0 / 31.0, 18.0 / 61.0);
        let expected_scores =
            [[copy, copy, with_2], [copy, copy, with_2], [0.0; 3], [copy, copy, with_2]];
        let mut scores = [0.0f32; 3];
        for (user, expected) in expected_scores.iter().enumerate() {
            model.score(user as u32, &[0, 1, 2], &mut scores).unwrap();
            for (s, e) in scores.iter().zip(expected) {
                assert!((f64::from(*s) - e).abs() < 1e-7, "user {user}: {scores:?}");
            }
        }
    }

    #[test]
    fn one_pass_gives_the_hand_computed_first_pass() {
        let params = tight(0.05, 0.5).with_max_iterations(1).unwrap();
        let model = fit(&HAND, 3, params);
        #[rustfmt::skip]
        let expected = [
            0.0,         29.0 / 31.0, 9.0 / 31.0,
            29.0 / 31.0, 0.0,         9.0 / 961.0,
            0.0,         0.0,         0.0,
        ];
        assert_close(&dense(&model), &expected, 1e-15);
        // Every column changed in its only pass, so none met the tolerance.
        assert_eq!(
            model.fit_facts(),
            [
                ("coordinate-descent passes (most for one item)", 1.0),
                ("items stopped at max_iterations", 3.0),
                ("non-zero weights", 4.0),
            ]
        );
    }

    /// Without the `ℓ1` penalty and with a tiny `β`, the copy of an item takes all the
    /// weight: `W_01 = 3/(3 + β)`, and item 2 only the crumbs that `β` leaves.
    #[test]
    fn an_exact_copy_takes_the_weight_without_l1_and_with_a_tiny_l2() {
        let model = fit(&HAND, 3, tight(1e-9, 0.0));
        let w = dense(&model);
        assert!((w[1] - 1.0).abs() < 1e-8, "W_01 = {}", w[1]);
        assert!((w[3] - 1.0).abs() < 1e-8, "W_10 = {}", w[3]);
        assert!(w[2 * 3] < 1e-8 && w[2 * 3 + 1] < 1e-8, "row 2: {:?}", &w[6..]);
    }

    /// The optimality conditions of each column's problem: with `g_i = x_iᵀ(x_j − X w_j) −
    /// β w_i`, `g_i = λ` where `w_i > 0` and `g_i ≤ λ` where `w_i = 0`, for every `i ≠ j`.
    #[test]
    fn the_weights_solve_each_columns_elastic_net() {
        let train = scattered();
        let params = tight(0.01, 0.1);
        let model = params.fit(&TrainData::new(&train, 0)).unwrap();
        let (n_users, n) = (240, 150);
        let (l1, l2) = (params.l1_penalty(n_users), params.l2_penalty(n_users));
        let w = dense(&model);
        let x: Vec<Vec<f64>> = (0..n_users as u32)
            .map(|u| {
                let mut row = vec![0.0; n];
                for &i in train.user_row(u).items {
                    row[i as usize] = 1.0;
                }
                row
            })
            .collect();
        let (mut active, mut largest_violation) = (0, 0.0f64);
        for j in 0..n {
            let residual: Vec<f64> = x
                .iter()
                .map(|row| row[j] - (0..n).map(|k| row[k] * w[k * n + j]).sum::<f64>())
                .collect();
            assert_eq!(w[j * n + j], 0.0);
            for i in (0..n).filter(|&i| i != j) {
                let weight = w[i * n + j];
                let gradient: f64 =
                    x.iter().zip(&residual).map(|(row, r)| row[i] * r).sum::<f64>() - l2 * weight;
                let violation =
                    if weight > 0.0 { (gradient - l1).abs() } else { (gradient - l1).max(0.0) };
                largest_violation = largest_violation.max(violation);
                active += usize::from(weight > 0.0);
            }
        }
        assert!(largest_violation < 1e-9, "{largest_violation}");
        // Neither all zero nor all non-zero: the ℓ1 penalty is doing its work.
        assert!(active > n && active < n * (n - 1) / 2, "{active}");
    }

    #[test]
    fn weights_are_positive_and_off_the_diagonal() {
        let model = SlimParams::default().fit(&TrainData::new(&scattered(), 0)).unwrap();
        assert!(model.n_weights() > 0);
        for i in 0..150 {
            let (js, ws) = model.weights_of(i);
            assert!(!js.contains(&i), "W[{i}][{i}] stored");
            assert!(ws.iter().all(|&w| w > 0.0), "row {i}: {ws:?}");
            assert!(js.windows(2).all(|p| p[0] < p[1]), "row {i} out of order");
        }
    }

    #[test]
    fn only_events_with_a_positive_value_count() {
        let binary = fit(&HAND, 3, SlimParams::default());
        // The same pairs, plus events worth 0 or less, which are not in X.
        let rated = recs_testkit::ratings_grid(
            "
            5  2  0
            1  4  3
            -1 .  3
            2  2  .
            ",
        );
        let model = SlimParams::default().fit(&TrainData::new(&rated, 0)).unwrap();
        for i in 0..3 {
            assert_eq!(model.weights_of(i), binary.weights_of(i));
        }
        let (mut a, mut b) = ([0.0f32; 3], [0.0f32; 3]);
        for user in 0..4 {
            model.score(user, &[0, 1, 2], &mut a).unwrap();
            binary.score(user, &[0, 1, 2], &mut b).unwrap();
            assert_eq!(a, b);
            model.score_history(rated.user_row(user), &[0, 1, 2], &mut a).unwrap();
            assert_eq!(a, b);
        }
        let no_positive = Interactions::from_events(
            2,
            2,
            [Event::new(0, 0, 0.0), Event::new(1, 1, -1.0)],
            DuplicatePolicy::Error,
        )
        .unwrap();
        assert!(matches!(
            SlimParams::default().fit(&TrainData::new(&no_positive, 0)),
            Err(RecsError::Empty { .. })
        ));
    }

    #[test]
    fn an_item_without_users_has_an_empty_row_and_column() {
        let model = fit(&[&[0, 1], &[1, 2], &[0, 1, 2]], 4, tight(0.01, 0.1));
        assert_eq!(model.weights_of(3), (&[][..], &[][..]));
        for i in 0..4 {
            assert!(!model.weights_of(i).0.contains(&3));
        }
        let mut scores = [1.0f32; 4];
        model.score(2, &[0, 1, 2, 3], &mut scores).unwrap();
        assert!(scores.iter().all(|s| s.is_finite()));
        assert_eq!(scores[3], 0.0);
    }

    /// Users in common with each item, as a dense items × items matrix.
    fn common_users(train: &Interactions, n: usize) -> Vec<u32> {
        let mut common = vec![0u32; n * n];
        for u in 0..train.n_users() as u32 {
            let items = train.user_row(u).items;
            for &a in items {
                for &b in items {
                    common[a as usize * n + b as usize] += 1;
                }
            }
        }
        common
    }

    #[test]
    fn neighbours_keep_each_columns_items_with_the_most_common_users() {
        let train = scattered();
        let n = 150;
        let common = common_users(&train, n);
        let k = 5;
        let cut = SlimParams::new(0.01, 0.1).unwrap().with_neighbours(Some(k)).unwrap();
        let w = dense(&cut.fit(&TrainData::new(&train, 0)).unwrap());
        for j in 0..n {
            // Column j's candidates by a direct sort: more common users, then smaller index.
            let mut order: Vec<usize> =
                (0..n).filter(|&i| i != j && common[i * n + j] > 0).collect();
            order.sort_by_key(|&i| (std::cmp::Reverse(common[i * n + j]), i));
            let kept = &order[..k.min(order.len())];
            let non_zero: Vec<usize> = (0..n).filter(|&i| w[i * n + j] > 0.0).collect();
            assert!(non_zero.iter().all(|i| kept.contains(i)), "column {j}: {non_zero:?}");
            assert!(!non_zero.is_empty(), "column {j}");
        }
        // A cut above every column's candidate count is no cut: the same bits as none.
        let all = SlimParams::new(0.01, 0.1).unwrap();
        let uncut = dense(&all.fit(&TrainData::new(&train, 0)).unwrap());
        let wide = all.with_neighbours(Some(n)).unwrap();
        let wide = dense(&wide.fit(&TrainData::new(&train, 0)).unwrap());
        assert!(uncut.iter().zip(&wide).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(uncut.iter().filter(|&&w| w > 0.0).count() > n * k);
    }

    #[test]
    fn invalid_parameters_are_errors_naming_them() {
        let name_of = |result: Result<SlimParams>| match result {
            Err(RecsError::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        for alpha in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(name_of(SlimParams::new(alpha, 0.1)), "alpha");
        }
        for l1_ratio in [-0.1, 1.1, f64::NAN, f64::INFINITY] {
            assert_eq!(name_of(SlimParams::new(0.1, l1_ratio)), "l1_ratio");
        }
        let valid = SlimParams::default();
        for tolerance in [-1e-4, f64::NAN, f64::INFINITY] {
            assert_eq!(name_of(valid.with_tolerance(tolerance)), "tolerance");
        }
        assert_eq!(name_of(valid.with_max_iterations(0)), "max_iterations");
        assert_eq!(name_of(valid.with_neighbours(Some(0))), "neighbours");
        assert!(SlimParams::new(1e-9, 0.0).is_ok());
        assert!(SlimParams::new(10.0, 1.0).is_ok());
        assert!(valid.with_tolerance(0.0).and_then(|p| p.with_max_iterations(1)).is_ok());
        assert!(valid.with_neighbours(Some(1)).and_then(|p| p.with_neighbours(None)).is_ok());
        assert_eq!(
            SlimParams::default(),
            SlimParams::new(SlimParams::DEFAULT_ALPHA, SlimParams::DEFAULT_L1_RATIO)
                .and_then(|p| p.with_tolerance(SlimParams::DEFAULT_TOLERANCE))
                .and_then(|p| p.with_max_iterations(SlimParams::DEFAULT_MAX_ITERATIONS))
                .and_then(|p| p.with_neighbours(SlimParams::DEFAULT_NEIGHBOURS))
                .unwrap()
        );
    }

    #[test]
    fn the_penalties_are_scikit_learns_times_the_number_of_users() {
        let params = SlimParams::new(0.1, 0.03).unwrap();
        assert_eq!(params.l1_penalty(943), 0.1 * 0.03 * 943.0);
        assert_eq!(params.l2_penalty(943), 0.1 * (1.0 - 0.03) * 943.0);
        assert!((params.l1_penalty(943) - 2.829).abs() < 1e-12);
        assert!((params.l2_penalty(943) - 91.471).abs() < 1e-12);
    }

    #[test]
    fn a_history_out_of_order_or_out_of_range_is_an_error() {
        let model = fit(&HAND, 3, SlimParams::default());
        let mut out = [0.0f32; 3];
        let row = |items: &'static [u32]| UserRow {
            items,
            values: &[1.0, 1.0][..items.len()],
            timestamps: None,
        };
        assert!(model.score_history(row(&[1, 0]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[1, 1]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[3]), &[0, 1, 2], &mut out).is_err());
        let short = UserRow { items: &[0, 1], values: &[1.0], timestamps: None };
        assert!(model.score_history(short, &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[]), &[0, 1, 2], &mut out).is_ok());
        assert_eq!(out, [0.0; 3]);
    }

    #[test]
    fn a_training_users_row_folded_in_gives_its_training_scores() {
        let train = scattered();
        let model = SlimParams::default().fit(&TrainData::new(&train, 0)).unwrap();
        let items: Vec<u32> = (0..150).rev().collect();
        let (mut trained, mut folded) = (vec![0.0f32; 150], vec![0.0f32; 150]);
        for user in 0..240 {
            model.score(user, &items, &mut trained).unwrap();
            model.score_history(train.user_row(user), &items, &mut folded).unwrap();
            let same = trained.iter().zip(&folded).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "user {user}: {trained:?} vs {folded:?}");
        }
    }

    fn all_weights(model: &Slim) -> Vec<(u32, u32, u64)> {
        (0..model.n_items() as u32)
            .flat_map(|i| {
                let (js, ws) = model.weights_of(i);
                js.iter().zip(ws).map(move |(&j, w)| (i, j, w.to_bits())).collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn weights_and_scores_are_the_same_bits_at_one_and_three_threads() {
        let train = scattered();
        for params in [
            SlimParams::default(),
            SlimParams::new(0.01, 0.1).unwrap().with_neighbours(Some(7)).unwrap(),
        ] {
            let fit_all = || {
                let model = params.fit(&TrainData::new(&train, 0)).unwrap();
                (all_weights(&model), all_scores(&model), model.fit_facts())
            };
            let ((w1, s1, f1), (w3, s3, f3)) = recs_testkit::on_one_and_three_threads(fit_all);
            assert_eq!(w1, w3);
            assert!(s1.iter().zip(&s3).all(|(a, b)| a.to_bits() == b.to_bits()));
            assert_eq!(f1, f3);
            assert!(!w1.is_empty());
        }
    }
}
