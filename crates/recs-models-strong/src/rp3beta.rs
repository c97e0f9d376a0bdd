//! RP3β (Paudel, Christoffel, Newell & Bernstein, "Updatable, accurate, diverse, and
//! scalable recommendations for interactive applications", ACM TiiS 7(1), 2017).
//!
//! A random walk on the bipartite graph of users and items: from user `u` to one of its
//! items, from that item to one of its users, from that user to one of its items. With
//! the binary training matrix `X` (an event with a value > 0 counts 1, any other is not
//! an edge), `deg(u) = Σ_j X_uj` the items of user `u` and `pop(i) = Σ_u X_ui` the users
//! of item `i`, the one-step transition probabilities are
//!
//! ```text
//! P_ui = X_ui / deg(u)      (user → item)
//! P_iu = X_ui / pop(i)      (item → user)
//! ```
//!
//! each raised to the power `α` elementwise before use, as in P³α (Cooper, Lee, Radzik &
//! Siantos 2014), one of the walks the paper builds on; `α = 1` is the plain three-step
//! walk P³. RP3β ranks the items of user `u` by the three-step probability divided by the
//! item's popularity to the power `β`:
//!
//! ```text
//! p̃_uj = (Σ_i Σ_v P_ui^α P_iv^α P_vj^α) / pop(j)^β  =  Σ_i P_ui^α W_ij
//!
//! W_ij = (Σ_v P_iv^α P_vj^α) / pop(j)^β   for i ≠ j,     W_ii = 0
//! ```
//!
//! Every item `i` of `u` has the same `P_ui^α = deg(u)^−α`, so this model scores item `j`
//! for user `u` with
//!
//! ```text
//! score(u, j) = Σ_i X_ui W_ij
//! ```
//!
//! the paper's `p̃_uj` times `deg(u)^α`, a positive factor per user: each user's ranking
//! is the paper's. An item without users (`pop = 0`) has an empty row and column in `W`
//! (no division by zero), and so scores 0. The diagonal is 0, so an item in a history
//! does not vote for itself.
//!
//! Two steps follow the equation, as in the usual item-item form of RP3β. They are not in
//! the equation above: `neighbours` ≥ the number of items turns the first off, `normalize
//! = false` the second:
//!
//! 1. **Neighbours.** Each row `i` keeps only its `neighbours` largest `W_ij`; among
//!    equal weights at the cut the smaller item index `j` is kept. Equal means the same
//!    `f64`: weights that are equal in exact arithmetic but were summed along different
//!    users can differ in their last bit, and the larger one is then kept.
//! 2. **Normalisation.** With `normalize`, each kept row is divided by its sum (added in
//!    increasing `j`), so it sums to 1; a row of zeros stays zero.
//!
//! Defaults, and who chose them:
//!
//! | parameter | default | chosen by |
//! |---|---|---|
//! | `alpha` | 1 | us: the plain walk P³ |
//! | `beta` | 0.5 | us: a starting point, to be tuned per dataset (`β = 0` is no penalty) |
//! | `neighbours` | 100 | us; common item-item implementations of RP3β default to 100 too |
//! | `normalize` | true | us; so do those implementations |
//!
//! **Order of the arithmetic.** Row `i` of `W` is computed by one thread, always the
//! same way: `W_ij` sums `pop(i)^−α · deg(v)^−α` over the users `v` of both items in
//! increasing order, then divides by `pop(j)^β` (`x^−α` is computed as `(1/x)^α`). Rows
//! are computed in parallel with rayon, each independently, so the weights are the same
//! bits at any thread count. A score sums the user's kept weights in increasing order of
//! the history's items, in `f64`, and rounds once to `f32`; a history folded in
//! ([`FoldInUser`]) is summed the same way, so a training user's own row gives its
//! training scores bit for bit.
//!
//! **Memory and time.** The model holds the kept weights, at most `n_items ×
//! min(neighbours, n_items − 1)` pairs of 12 bytes (26,744 items × 100 neighbours: 32
//! MB), and the training rows (4 bytes per event). The fit also holds `X` item-major (4
//! bytes per event), per thread a dense row of sums and the row's candidates (at most 29
//! bytes per item), and at its peak the kept weights twice (the rows as computed, then
//! joined). No users × items or items × items matrix is materialised. The fit's time
//! grows as `Σ_v deg(v)²` (every pair of items of every user, once from each side) plus
//! a selection per row; a score costs the history's length times the kept row length,
//! plus `n_items` to clear its buffer.

use crate::graph::Graph;
use crate::item_item::ItemItem;
use rayon::prelude::*;
use recs_core::{
    FoldInUser, Interactions, Recommender, RecsError, Result, Shape, TrainData, UserRow,
};

/// Validated parameters of [`Rp3Beta`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rp3BetaParams {
    alpha: f64,
    beta: f64,
    neighbours: usize,
    normalize: bool,
}

impl Rp3BetaParams {
    /// The default exponent of the transition probabilities, `α = 1`: the plain
    /// three-step walk P³ (ours).
    pub const DEFAULT_ALPHA: f64 = 1.0;
    /// The default popularity penalty, `β = 0.5` (ours): to be tuned per dataset.
    pub const DEFAULT_BETA: f64 = 0.5;
    /// The default number of weights kept per item, 100 (ours).
    pub const DEFAULT_NEIGHBOURS: usize = 100;
    /// By default each kept row is normalised to sum 1 (ours).
    pub const DEFAULT_NORMALIZE: bool = true;

    /// RP3β with exponent `alpha` on the transition probabilities, popularity penalty
    /// `beta`, `neighbours` weights kept per item and, with `normalize`, kept rows
    /// normalised to sum 1.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming the parameter when `alpha` is not a finite
    /// value > 0 (at 0 every edge would weigh the same and `0^0` would join unconnected
    /// pairs), `beta` is not a finite value ≥ 0, or `neighbours` is 0.
    pub fn new(alpha: f64, beta: f64, neighbours: usize, normalize: bool) -> Result<Self> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(RecsError::invalid_parameter("alpha", alpha, "a finite value > 0"));
        }
        if !(beta.is_finite() && beta >= 0.0) {
            return Err(RecsError::invalid_parameter("beta", beta, "a finite value ≥ 0"));
        }
        if neighbours == 0 {
            return Err(RecsError::invalid_parameter("neighbours", neighbours, "an integer ≥ 1"));
        }
        Ok(Rp3BetaParams { alpha, beta, neighbours, normalize })
    }

    /// The exponent `α` of the transition probabilities.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The popularity penalty `β`.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The number of weights kept per item.
    pub fn neighbours(&self) -> usize {
        self.neighbours
    }

    /// Whether each kept row is normalised to sum 1.
    pub fn normalize(&self) -> bool {
        self.normalize
    }
}

impl Default for Rp3BetaParams {
    fn default() -> Self {
        Rp3BetaParams {
            alpha: Self::DEFAULT_ALPHA,
            beta: Self::DEFAULT_BETA,
            neighbours: Self::DEFAULT_NEIGHBOURS,
            normalize: Self::DEFAULT_NORMALIZE,
        }
    }
}

impl recs_core::Fit for Rp3BetaParams {
    type Model = Rp3Beta;

    fn fit(&self, data: &TrainData<'_>) -> Result<Rp3Beta> {
        Rp3Beta::fit(self, data.interactions)
    }
}

/// A fitted RP3β model: the kept item-item weights `W`, sparse by row, and the training
/// rows it scores.
///
/// Scores are `Σ_i X_ui W_ij`, summed in `f64` over the user's items in increasing index
/// order and rounded once to `f32`. They are comparable across users only up to the
/// user's `deg(u)^α` (see the module's equation); within a user they rank as the paper's.
#[derive(Debug, Clone)]
pub struct Rp3Beta {
    /// The kept weights, at most `neighbours` per row, and the training rows.
    w: ItemItem,
}

/// `(1/count)^α`, the probability of one edge out of a node with `count` edges raised to
/// `α`; 0 for a node without edges, which no walk leaves.
fn step(count: usize, alpha: f64) -> f64 {
    if count == 0 { 0.0 } else { (1.0 / count as f64).powf(alpha) }
}

/// Per-thread scratch for one row of `W`: the dense sums and which of them were touched.
struct RowScratch {
    sums: Vec<f64>,
    touched: Vec<bool>,
    order: Vec<u32>,
}

impl RowScratch {
    fn new(n_items: usize) -> RowScratch {
        RowScratch { sums: vec![0.0; n_items], touched: vec![false; n_items], order: Vec::new() }
    }
}

impl Rp3Beta {
    fn fit(params: &Rp3BetaParams, train: &Interactions) -> Result<Self> {
        let train = train.require_events()?;
        let (n_users, n_items) = (train.n_users(), train.n_items());
        let graph = Graph::new(train);
        if graph.row_items.is_empty() {
            return Err(RecsError::Empty { what: "training events with a positive value" });
        }
        let user_step: Vec<f64> =
            (0..n_users).map(|u| step(graph.items_of(u).len(), params.alpha)).collect();
        let item_step: Vec<f64> =
            (0..n_items).map(|i| step(graph.users_of(i).len(), params.alpha)).collect();
        let penalty: Vec<f64> =
            (0..n_items).map(|j| (graph.users_of(j).len() as f64).powf(params.beta)).collect();

        let rows: Vec<(Vec<u32>, Vec<f64>)> = (0..n_items)
            .into_par_iter()
            .map_init(
                || RowScratch::new(n_items),
                |scratch, i| {
                    row_of_w(i, &graph, &user_step, item_step[i], &penalty, params, scratch)
                },
            )
            .collect();

        let mut kept_starts = Vec::with_capacity(n_items + 1);
        kept_starts.push(0);
        let total: usize = rows.iter().map(|(items, _)| items.len()).sum();
        let (mut kept_items, mut kept_weights) =
            (Vec::with_capacity(total), Vec::with_capacity(total));
        for (items, weights) in rows {
            kept_items.extend_from_slice(&items);
            kept_weights.extend_from_slice(&weights);
            kept_starts.push(kept_items.len());
        }
        Ok(Rp3Beta {
            w: ItemItem::new(graph, n_users, n_items, (kept_starts, kept_items, kept_weights)),
        })
    }

    /// The kept weights of row `item` of `W`: the items `j` in increasing order and the
    /// weights `W_ij` aligned with them (empty for an item out of range). The weights of
    /// items not listed are 0.
    pub fn weights_of(&self, item: u32) -> (&[u32], &[f64]) {
        self.w.weights_of(item)
    }
}

/// Row `i` of `W`, cut to the largest `neighbours` weights and normalised as `params`
/// say: the kept items in increasing order and their weights.
fn row_of_w(
    i: usize,
    graph: &Graph,
    user_step: &[f64],
    item_step: f64,
    penalty: &[f64],
    params: &Rp3BetaParams,
    scratch: &mut RowScratch,
) -> (Vec<u32>, Vec<f64>) {
    let RowScratch { sums, touched, order } = scratch;
    order.clear();
    // Σ_v P_iv^α P_vj^α over the users v of item i in increasing order: the same sequence
    // of additions for every j, whichever thread runs the row.
    for &v in graph.users_of(i) {
        let term = item_step * user_step[v as usize];
        for &j in graph.items_of(v as usize) {
            if j as usize == i {
                continue;
            }
            if !touched[j as usize] {
                touched[j as usize] = true;
                order.push(j);
            }
            sums[j as usize] += term;
        }
    }
    let mut candidates: Vec<(u32, f64)> = order
        .iter()
        .map(|&j| {
            let at = j as usize;
            let weight = sums[at] / penalty[at];
            sums[at] = 0.0;
            touched[at] = false;
            (j, weight)
        })
        .collect();

    // Larger weight first, then the smaller item: a total order, so the kept set does
    // not depend on how the candidates were found.
    let before = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if candidates.len() > params.neighbours {
        candidates.select_nth_unstable_by(params.neighbours - 1, before);
        candidates.truncate(params.neighbours);
    }
    candidates.sort_unstable_by_key(|&(j, _)| j);
    let (items, mut weights): (Vec<u32>, Vec<f64>) = candidates.into_iter().unzip();
    if params.normalize {
        let sum: f64 = weights.iter().sum();
        if sum > 0.0 {
            for w in &mut weights {
                *w /= sum;
            }
        }
    }
    (items, weights)
}

impl Recommender for Rp3Beta {
    fn shape(&self) -> Shape {
        Shape::new(self.w.n_users, self.w.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.w.score(user, items, out)
    }

    recs_core::capabilities!(fold_in);
}

impl FoldInUser for Rp3Beta {
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

    /// The hand-computed case. Users and their items:
    ///
    /// ```text
    /// u0: {0, 1}      deg 2          pop(0) = 2  (u0, u1)
    /// u1: {0, 1, 2}   deg 3          pop(1) = 3  (u0, u1, u2)
    /// u2: {1, 2, 3}   deg 3          pop(2) = 2  (u1, u2)
    /// u3: {3}         deg 1          pop(3) = 2  (u2, u3)
    /// ```
    ///
    /// With α = 1, `W_ij = Σ_v 1/deg(v)` over the common users `v`, divided by `pop(i)`
    /// and by `pop(j)^β`; with β = 1 the divisor is `pop(i)·pop(j)`:
    ///
    /// ```text
    /// Σ_v 1/deg(v):  row 0: j1 u0,u1 1/2+1/3 = 5/6   j2 u1 1/3
    ///                row 1: j0 5/6   j2 u1,u2 2/3    j3 u2 1/3
    ///                row 2: j0 1/3   j1 2/3          j3 u2 1/3
    ///                row 3: j1 u2 1/3   j2 u2 1/3    (u3 adds nothing: j = i)
    ///
    /// W (÷ pop(i)·pop(j)):
    ///   row 0: [0,     5/36, 1/12, 0   ]    5/6 / (2·3),  1/3 / (2·2)
    ///   row 1: [5/36,  0,    1/9,  1/18]    5/6 / (3·2),  2/3 / (3·2),  1/3 / (3·2)
    ///   row 2: [1/12,  1/9,  0,    1/12]    1/3 / (2·2),  2/3 / (2·3),  1/3 / (2·2)
    ///   row 3: [0,     1/18, 1/12, 0   ]    1/3 / (2·3),  1/3 / (2·2)
    /// ```
    ///
    /// With 2 neighbours, row 1 drops j3 (1/18, its smallest) and row 2 holds a tie at the
    /// cut, 1/12 at j0 and at j3, the same bits (each one term `(1/2)·(1/3)`, then the same
    /// divisor): the smaller index, j0, is kept. Normalised, the kept rows are
    ///
    /// ```text
    ///   row 0: 5/36 + 1/12 = 8/36  → [0,   5/8, 3/8, 0]
    ///   row 1: 5/36 + 1/9  = 9/36  → [5/9, 0,   4/9, 0]
    ///   row 2: 1/12 + 1/9  = 7/36  → [3/7, 4/7, 0,   0]
    ///   row 3: 1/18 + 1/12 = 5/36  → [0,   2/5, 3/5, 0]
    /// ```
    ///
    /// and a user's scores are the sum of the rows of its items:
    ///
    /// ```text
    ///   u0 = rows 0+1:   [5/9,       5/8,       3/8+4/9 = 59/72, 0]
    ///   u1 = rows 0+1+2: [5/9+3/7 = 62/63, 5/8+4/7 = 67/56, 59/72, 0]
    ///   u2 = rows 1+2+3: [62/63,     4/7+2/5 = 34/35, 4/9+3/5 = 47/45, 0]
    ///   u3 = row 3:      [0,         2/5,       3/5,       0]
    /// ```
    const HAND: [&[u32]; 4] = [&[0, 1], &[0, 1, 2], &[1, 2, 3], &[3]];

    fn fit(rows: &[&[u32]], n_items: usize, params: Rp3BetaParams) -> Rp3Beta {
        let train = interactions_from_rows(rows, n_items, 1.0);
        params.fit(&TrainData::new(&train, 0)).unwrap()
    }

    /// Row `i` of `W` as a dense vector.
    fn dense_row(model: &Rp3Beta, i: u32) -> Vec<f64> {
        let mut row = vec![0.0; model.n_items()];
        let (js, weights) = model.weights_of(i);
        for (&j, &w) in js.iter().zip(weights) {
            row[j as usize] = w;
        }
        row
    }

    fn assert_rows(model: &Rp3Beta, expected: &[[f64; 4]]) {
        for (i, expected) in expected.iter().enumerate() {
            let row = dense_row(model, i as u32);
            for (j, (w, e)) in row.iter().zip(expected).enumerate() {
                assert!((w - e).abs() < 1e-15, "W[{i}][{j}] = {w}, expected {e}");
            }
        }
    }

    #[test]
    fn weights_before_the_cut_and_the_normalisation_match_the_hand_computed_case() {
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1.0, 100, false).unwrap());
        assert_rows(
            &model,
            &[
                [0.0, 5.0 / 36.0, 1.0 / 12.0, 0.0],
                [5.0 / 36.0, 0.0, 1.0 / 9.0, 1.0 / 18.0],
                [1.0 / 12.0, 1.0 / 9.0, 0.0, 1.0 / 12.0],
                [0.0, 1.0 / 18.0, 1.0 / 12.0, 0.0],
            ],
        );
    }

    #[test]
    fn the_cut_keeps_the_largest_weights_and_the_smaller_index_on_a_tie() {
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1.0, 2, false).unwrap());
        assert_rows(
            &model,
            &[
                [0.0, 5.0 / 36.0, 1.0 / 12.0, 0.0],
                [5.0 / 36.0, 0.0, 1.0 / 9.0, 0.0],
                [1.0 / 12.0, 1.0 / 9.0, 0.0, 0.0],
                [0.0, 1.0 / 18.0, 1.0 / 12.0, 0.0],
            ],
        );
        assert_eq!(model.weights_of(2).0, [0, 1]);
        // One neighbour: the largest of each row (row 3: 1/12 at j2 over 1/18 at j1).
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1.0, 1, false).unwrap());
        let kept: Vec<&[u32]> = (0..4).map(|i| model.weights_of(i).0).collect();
        assert_eq!(kept, [&[1][..], &[0], &[1], &[2]]);
    }

    #[test]
    fn normalised_kept_rows_and_scores_match_the_hand_computed_case() {
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1.0, 2, true).unwrap());
        assert_rows(
            &model,
            &[
                [0.0, 5.0 / 8.0, 3.0 / 8.0, 0.0],
                [5.0 / 9.0, 0.0, 4.0 / 9.0, 0.0],
                [3.0 / 7.0, 4.0 / 7.0, 0.0, 0.0],
                [0.0, 2.0 / 5.0, 3.0 / 5.0, 0.0],
            ],
        );
        let expected_scores = [
            [5.0 / 9.0, 5.0 / 8.0, 59.0 / 72.0, 0.0],
            [62.0 / 63.0, 67.0 / 56.0, 59.0 / 72.0, 0.0],
            [62.0 / 63.0, 34.0 / 35.0, 47.0 / 45.0, 0.0],
            [0.0, 2.0 / 5.0, 3.0 / 5.0, 0.0],
        ];
        let mut scores = [0.0f32; 4];
        for (user, expected) in expected_scores.iter().enumerate() {
            model.score(user as u32, &[0, 1, 2, 3], &mut scores).unwrap();
            for (s, e) in scores.iter().zip(expected) {
                assert!((f64::from(*s) - e).abs() < 1e-7, "user {user}: {scores:?}");
            }
        }
        // Without the cut, rows 1 and 2 keep their third weight:
        // row 1: 5/36 + 4/36 + 2/36 = 11/36, row 2: 3/36 + 4/36 + 3/36 = 10/36.
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1.0, 3, true).unwrap());
        assert_rows(
            &model,
            &[
                [0.0, 5.0 / 8.0, 3.0 / 8.0, 0.0],
                [5.0 / 11.0, 0.0, 4.0 / 11.0, 2.0 / 11.0],
                [3.0 / 10.0, 4.0 / 10.0, 0.0, 3.0 / 10.0],
                [0.0, 2.0 / 5.0, 3.0 / 5.0, 0.0],
            ],
        );
    }

    /// α = 2, β = 0: every step probability squared. Row 0: `(1/2)²·((1/2)² + (1/3)²) =
    /// 13/144` at j1 (users u0, u1), `(1/2)²·(1/3)² = 1/36` at j2 (u1).
    #[test]
    fn alpha_raises_every_step_probability_and_beta_zero_leaves_popularity_alone() {
        let model = fit(&HAND, 4, Rp3BetaParams::new(2.0, 0.0, 100, false).unwrap());
        let row = dense_row(&model, 0);
        assert!((row[1] - 13.0 / 144.0).abs() < 1e-16, "{row:?}");
        assert!((row[2] - 1.0 / 36.0).abs() < 1e-16, "{row:?}");
        assert_eq!((row[0], row[3]), (0.0, 0.0));
    }

    #[test]
    fn an_item_without_users_has_an_empty_row_and_column() {
        let model = fit(&[&[0, 1], &[1, 2]], 4, Rp3BetaParams::default());
        assert_eq!(model.weights_of(3), (&[][..], &[][..]));
        for i in 0..4 {
            assert!(!model.weights_of(i).0.contains(&3));
        }
        let mut scores = [1.0f32; 4];
        model.score(0, &[0, 1, 2, 3], &mut scores).unwrap();
        assert!(scores.iter().all(|s| s.is_finite()));
        assert_eq!(scores[3], 0.0);
    }

    #[test]
    fn a_row_of_zeros_stays_zero_when_normalised() {
        // β so large that pop(j)^β is infinite: every weight is 0, and no NaN appears.
        let model = fit(&HAND, 4, Rp3BetaParams::new(1.0, 1e308, 100, true).unwrap());
        for i in 0..4 {
            assert!(model.weights_of(i).1.iter().all(|&w| w == 0.0), "row {i}");
        }
    }

    #[test]
    fn only_events_with_a_positive_value_are_edges() {
        let binary = fit(&HAND, 4, Rp3BetaParams::default());
        // The same pairs, plus events worth 0 or less, which the walk does not take.
        let rated = recs_testkit::ratings_grid(
            "
            5  2  0  .
            1  4  3  -1
            .  1  3  2
            -2 .  .  4
            ",
        );
        let model = Rp3BetaParams::default().fit(&TrainData::new(&rated, 0)).unwrap();
        for i in 0..4 {
            assert_eq!(model.weights_of(i), binary.weights_of(i));
        }
        let (mut a, mut b) = ([0.0f32; 4], [0.0f32; 4]);
        for user in 0..4 {
            model.score(user, &[0, 1, 2, 3], &mut a).unwrap();
            binary.score(user, &[0, 1, 2, 3], &mut b).unwrap();
            assert_eq!(a, b);
            model.score_history(rated.user_row(user), &[0, 1, 2, 3], &mut a).unwrap();
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
            Rp3BetaParams::default().fit(&TrainData::new(&no_positive, 0)),
            Err(RecsError::Empty { .. })
        ));
    }

    #[test]
    fn invalid_parameters_are_errors_naming_them() {
        let name_of = |result: Result<Rp3BetaParams>| match result {
            Err(RecsError::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        for alpha in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(name_of(Rp3BetaParams::new(alpha, 0.5, 100, true)), "alpha");
        }
        for beta in [-0.1, f64::NAN, f64::INFINITY] {
            assert_eq!(name_of(Rp3BetaParams::new(1.0, beta, 100, true)), "beta");
        }
        assert_eq!(name_of(Rp3BetaParams::new(1.0, 0.5, 0, true)), "neighbours");
        assert!(Rp3BetaParams::new(1e-3, 0.0, 1, false).is_ok());
        assert_eq!(
            Rp3BetaParams::default(),
            Rp3BetaParams::new(
                Rp3BetaParams::DEFAULT_ALPHA,
                Rp3BetaParams::DEFAULT_BETA,
                Rp3BetaParams::DEFAULT_NEIGHBOURS,
                Rp3BetaParams::DEFAULT_NORMALIZE
            )
            .unwrap()
        );
    }

    #[test]
    fn a_history_out_of_order_or_out_of_range_is_an_error() {
        let model = fit(&HAND, 4, Rp3BetaParams::default());
        let mut out = [0.0f32; 3];
        let row = |items: &'static [u32]| UserRow {
            items,
            values: &[1.0, 1.0][..items.len()],
            timestamps: None,
        };
        assert!(model.score_history(row(&[1, 0]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[1, 1]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[4]), &[0, 1, 2], &mut out).is_err());
        let short = UserRow { items: &[0, 1], values: &[1.0], timestamps: None };
        assert!(model.score_history(short, &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[]), &[0, 1, 2], &mut out).is_ok());
        assert_eq!(out, [0.0; 3]);
    }

    fn all_weights(model: &Rp3Beta) -> Vec<(u32, u32, u64)> {
        (0..model.n_items() as u32)
            .flat_map(|i| {
                let (js, ws) = model.weights_of(i);
                js.iter().zip(ws).map(move |(&j, w)| (i, j, w.to_bits())).collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn a_training_users_row_folded_in_gives_its_training_scores() {
        let train = scattered();
        let model = Rp3BetaParams::new(0.8, 0.4, 20, true)
            .unwrap()
            .fit(&TrainData::new(&train, 0))
            .unwrap();
        let items: Vec<u32> = (0..150).rev().collect();
        let (mut trained, mut folded) = (vec![0.0f32; 150], vec![0.0f32; 150]);
        for user in 0..240 {
            model.score(user, &items, &mut trained).unwrap();
            model.score_history(train.user_row(user), &items, &mut folded).unwrap();
            let same = trained.iter().zip(&folded).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "user {user}: {trained:?} vs {folded:?}");
        }
    }

    #[test]
    fn weights_and_scores_are_the_same_bits_at_one_and_three_threads() {
        let train = scattered();
        let fit_all = || {
            let params = Rp3BetaParams::new(0.7, 0.6, 15, true).unwrap();
            let model = params.fit(&TrainData::new(&train, 0)).unwrap();
            (all_weights(&model), all_scores(&model))
        };
        let ((w1, s1), (w3, s3)) = recs_testkit::on_one_and_three_threads(fit_all);
        assert_eq!(w1, w3);
        assert!(s1.iter().zip(&s3).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(s1.iter().any(|&s| s != 0.0));
        // The cut is active: every item has more than 15 co-occurring items here.
        assert_eq!(w1.len(), 150 * 15);
    }

    /// The kept set against a direct computation: every kept weight is at least every
    /// dropped one of its row, and kept rows sum to 1.
    #[test]
    fn kept_weights_dominate_the_dropped_ones_and_sum_to_one() {
        let train = scattered();
        let full = Rp3BetaParams::new(1.0, 0.5, 1000, false).unwrap();
        let full = full.fit(&TrainData::new(&train, 0)).unwrap();
        let cut = Rp3BetaParams::new(1.0, 0.5, 10, true).unwrap();
        let cut = cut.fit(&TrainData::new(&train, 0)).unwrap();
        for i in 0..150 {
            let row = dense_row(&full, i);
            let (kept, weights) = cut.weights_of(i);
            assert_eq!(kept.len(), 10);
            let smallest_kept = kept.iter().map(|&j| row[j as usize]).fold(f64::INFINITY, f64::min);
            for (j, &w) in row.iter().enumerate() {
                if !kept.contains(&(j as u32)) {
                    assert!(w <= smallest_kept, "row {i}: dropped {j} ({w}) > {smallest_kept}");
                }
            }
            let sum: f64 = kept.iter().map(|&j| row[j as usize]).sum();
            for (&j, &w) in kept.iter().zip(weights) {
                assert!((w - row[j as usize] / sum).abs() < 1e-15);
            }
            assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
    }
}
