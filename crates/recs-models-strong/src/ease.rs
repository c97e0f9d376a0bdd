//! EASE (Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019).
//!
//! The item-item weights `B` minimise `‖X − XB‖²_F + λ‖B‖²_F` subject to `diag(B) = 0`,
//! with `X` the binary users × items training matrix. The constraint's Lagrangian gives the
//! closed form `P = (XᵀX + λI)⁻¹`, `B = I − P·diagMat(1 ⊘ diag(P))`, that is `B_ij =
//! −P_ij / P_jj` off the diagonal. A user with history row `x` scores item `j` with
//! `(x·B)_j`, whether the user was in training or not.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{LltError, cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::matmul::triangular::{BlockStructure, matmul};
use faer::linalg::triangular_inverse::invert_lower_triangular;
use faer::{Accum, MatMut, MatRef, Par};
use recs_core::{
    FoldInUser, Interactions, Recommender, RecsError, Result, Shape, TrainData, UserRow,
    check_index, check_items, check_score_args,
};

/// Validated parameters of [`Ease`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EaseParams {
    lambda: f64,
}

impl EaseParams {
    /// The default L2 penalty, `λ = 500`: a starting point, to be tuned per dataset (a
    /// grid chosen by validation), since the best `λ` grows with the counts in `XᵀX`.
    pub const DEFAULT_LAMBDA: f64 = 500.0;

    /// EASE with L2 penalty `lambda` on the weights.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming `lambda` when it is not a finite value > 0
    /// (at 0, `XᵀX` is singular whenever two items have the same users or an item has
    /// none).
    pub fn new(lambda: f64) -> Result<Self> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(RecsError::invalid_parameter("lambda", lambda, "a finite value > 0"));
        }
        Ok(EaseParams { lambda })
    }

    /// The L2 penalty `λ`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
}

impl Default for EaseParams {
    fn default() -> Self {
        EaseParams { lambda: Self::DEFAULT_LAMBDA }
    }
}

impl recs_core::Fit for EaseParams {
    type Model = Ease;

    fn fit(&self, data: &TrainData<'_>) -> Result<Ease> {
        Ease::fit(self.lambda, data.interactions)
    }
}

/// A fitted EASE model: the items × items weights `B` and the training rows it scores.
///
/// Scores are `(x_u·B)_j`, summed in `f64` over the user's items in increasing index order
/// and rounded once to `f32`. They are comparable across users (entries of the
/// reconstruction `XB`).
#[derive(Debug, Clone)]
pub struct Ease {
    n_users: usize,
    n_items: usize,
    /// Where each training user's items start in `row_items`; `n_users + 1` offsets.
    row_starts: Vec<usize>,
    /// The training users' items, each row in increasing order.
    row_items: Vec<u32>,
    /// `B`, row-major: `weights[i · n_items + j] = B_ij`, so a user's items pick rows.
    weights: Vec<f64>,
}

/// A zeroed `len`-long buffer for an `n_items × n_items` matrix, or an error saying how
/// much memory it needed when it cannot be had.
fn square_buffer(n_items: usize) -> Result<Vec<f64>> {
    let too_large = || {
        let bytes = (n_items as f64).powi(2) * 8.0;
        RecsError::Unsupported(format!(
            "EASE: the {n_items} × {n_items} item matrix needs {:.1} GB, which could not be \
             allocated",
            bytes / 1e9
        ))
    };
    let len = n_items.checked_mul(n_items).ok_or_else(too_large)?;
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| too_large())?;
    buffer.resize(len, 0.0);
    Ok(buffer)
}

impl Ease {
    fn fit(lambda: f64, train: &Interactions) -> Result<Self> {
        let train = train.require_events()?;
        let (n_users, n) = (train.n_users(), train.n_items());

        // XᵀX + λI, lower triangle, column-major: entry (a, b) with a ≥ b at b·n + a. Each
        // entry is a count of users (exact in f64 whatever the order they are added in) plus λ.
        let mut matrix = square_buffer(n)?;
        let mut row_starts = Vec::with_capacity(n_users + 1);
        let mut row_items = Vec::with_capacity(train.n_events());
        row_starts.push(0);
        for user in 0..n_users as u32 {
            let items = train.user_row(user).items;
            for (k, &a) in items.iter().enumerate() {
                for &b in &items[..=k] {
                    matrix[b as usize * n + a as usize] += 1.0;
                }
            }
            row_items.extend_from_slice(items);
            row_starts.push(row_items.len());
        }
        for j in 0..n {
            matrix[j * n + j] += lambda;
        }

        // P = (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹, every step sequential so the bits do not depend on the
        // thread count. faer's `llt::inverse` would hold a third n × n matrix; here L⁻¹
        // is the only one beside the matrix, which receives P in place of L.
        let scratch = cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
        let mut buffer = MemBuffer::try_new(scratch).map_err(|_| {
            RecsError::Unsupported("EASE: no memory for the Cholesky scratch".into())
        })?;
        cholesky_in_place(
            MatMut::from_column_major_slice_mut(&mut matrix, n, n),
            Default::default(),
            Par::Seq,
            MemStack::new(&mut buffer),
            Default::default(),
        )
        .map_err(|LltError::NonPositivePivot { index }| {
            RecsError::Unsupported(format!(
                "EASE: XᵀX + λI is not numerically positive definite at item {index} \
                 (λ = {lambda}); a larger lambda makes it so"
            ))
        })?;
        let mut inverse_factor = square_buffer(n)?;
        invert_lower_triangular(
            MatMut::from_column_major_slice_mut(&mut inverse_factor, n, n),
            MatRef::from_column_major_slice(&matrix, n, n),
            Par::Seq,
        );
        let inverse_factor = MatRef::from_column_major_slice(&inverse_factor, n, n);
        matmul(
            MatMut::from_column_major_slice_mut(&mut matrix, n, n),
            BlockStructure::TriangularLower,
            Accum::Replace,
            inverse_factor.transpose(),
            BlockStructure::TriangularUpper,
            inverse_factor,
            BlockStructure::TriangularLower,
            1.0,
            Par::Seq,
        );

        let weights = weights_in_place(matrix, n);
        Ok(Ease { n_users, n_items: n, row_starts, row_items, weights })
    }

    /// `B` row-major, `n_items × n_items`: `weights()[i · n_items + j]` is `B_ij`, the
    /// weight item `i` of a history gives item `j`; the diagonal is 0.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// `x·B` over `items` for the history `history` (increasing, in range), in `f64`:
    /// every score sums its weights in the history's order, so scores of the same history
    /// are the same bits through every path.
    fn scores_of(&self, history: &[u32], items: &[u32], out: &mut [f32]) {
        let mut sums = vec![0.0f64; items.len()];
        for &i in history {
            let row = &self.weights[i as usize * self.n_items..][..self.n_items];
            for (sum, &j) in sums.iter_mut().zip(items) {
                *sum += row[j as usize];
            }
        }
        for (o, sum) in out.iter_mut().zip(sums) {
            *o = sum as f32;
        }
    }
}

/// Turns `P` (lower triangle, column-major, in `matrix`) into `B` row-major in the same
/// buffer. Entry `(p, q)` of the lower triangle, `p > q`, holds `P_pq = P_qp`; its place
/// `q·n + p` is `B_qp = −P_qp / P_pp` row-major, and the mirrored place `p·n + q` is
/// `B_pq = −P_pq / P_qq`. Tiles keep both places of a pass in cache.
fn weights_in_place(mut matrix: Vec<f64>, n: usize) -> Vec<f64> {
    const TILE: usize = 64;
    let diagonal: Vec<f64> = (0..n).map(|j| matrix[j * n + j]).collect();
    for q0 in (0..n).step_by(TILE) {
        for p0 in (q0..n).step_by(TILE) {
            for q in q0..(q0 + TILE).min(n) {
                for p in p0.max(q + 1)..(p0 + TILE).min(n) {
                    let value = matrix[q * n + p];
                    matrix[q * n + p] = -value / diagonal[p];
                    matrix[p * n + q] = -value / diagonal[q];
                }
            }
        }
    }
    for j in 0..n {
        matrix[j * n + j] = 0.0;
    }
    matrix
}

impl Recommender for Ease {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.n_items, user, items, out)?;
        let u = user as usize;
        let history = &self.row_items[self.row_starts[u]..self.row_starts[u + 1]];
        self.scores_of(history, items, out);
        Ok(())
    }

    recs_core::capabilities!(fold_in);
}

impl FoldInUser for Ease {
    /// `x·B` with `x` the indicator of the history's items: every event counts 1, as in
    /// training, so a training user's own row gives exactly its training scores.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items, items, out)?;
        for (k, &item) in history.items.iter().enumerate() {
            check_index("history item", item as usize, self.n_items)?;
            // A binary row lists an item once; increasing order also fixes the order of
            // additions, the same as for a training user.
            if k > 0 && history.items[k - 1] >= item {
                return Err(RecsError::InvalidValue {
                    what: "history item order",
                    value: f64::from(item),
                    expected: "item indices in strictly increasing order",
                });
            }
        }
        self.scores_of(history.items, items, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{all_scores, scattered};
    use recs_core::Fit;
    use recs_testkit::interactions_from_rows;

    fn fit(rows: &[&[u32]], n_items: usize, lambda: f64) -> Ease {
        let train = interactions_from_rows(rows, n_items, 1.0);
        EaseParams::new(lambda).unwrap().fit(&TrainData::new(&train, 0)).unwrap()
    }

    /// X = [1 0 0; 1 1 0; 0 1 1] and λ = 1: XᵀX + I = [3 1 0; 1 3 1; 0 1 2], determinant
    /// 13, adjugate [5 −2 1; −2 6 −3; 1 −3 8], so P = adj / 13 and B_ij = −P_ij / P_jj =
    /// −adj_ij / adj_jj.
    #[test]
    fn weights_and_scores_match_the_hand_computed_inverse() {
        let model = fit(&[&[0], &[0, 1], &[1, 2]], 3, 1.0);
        #[rustfmt::skip]
        let expected = [
            0.0,        1.0 / 3.0, -1.0 / 8.0,
            2.0 / 5.0,  0.0,        3.0 / 8.0,
            -1.0 / 5.0, 1.0 / 2.0,  0.0,
        ];
        for (k, (w, e)) in model.weights().iter().zip(expected).enumerate() {
            assert!((w - e).abs() < 1e-14, "B[{}][{}] = {w}, expected {e}", k / 3, k % 3);
        }
        // Rows of X times B: user 0 = row 0, user 1 = rows 0 + 1, user 2 = rows 1 + 2.
        let expected_scores = [
            [0.0, 1.0 / 3.0, -1.0 / 8.0],
            [2.0 / 5.0, 1.0 / 3.0, 1.0 / 4.0],
            [1.0 / 5.0, 1.0 / 2.0, 3.0 / 8.0],
        ];
        let mut scores = [0.0f32; 3];
        for (user, expected) in expected_scores.iter().enumerate() {
            model.score(user as u32, &[0, 1, 2], &mut scores).unwrap();
            for (s, e) in scores.iter().zip(expected) {
                assert!((f64::from(*s) - e).abs() < 1e-7, "user {user}: {scores:?}");
            }
        }
    }

    #[test]
    fn ratings_count_as_one_event_each() {
        let binary = fit(&[&[0], &[0, 1], &[1, 2]], 3, 1.0);
        let rated = recs_testkit::ratings_grid(
            "
            5 . .
            2 4 .
            . 1 3
            ",
        );
        let model = EaseParams::new(1.0).unwrap().fit(&TrainData::new(&rated, 0)).unwrap();
        assert_eq!(model.weights(), binary.weights());
    }

    #[test]
    fn the_diagonal_is_zero() {
        let model = fit(&[&[0, 1, 3], &[1, 2], &[0, 2, 3], &[3]], 4, 0.5);
        for j in 0..4 {
            assert_eq!(model.weights()[j * 4 + j], 0.0);
        }
    }

    #[test]
    fn an_invalid_lambda_is_an_error_naming_it() {
        for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            match EaseParams::new(lambda) {
                Err(RecsError::InvalidParameter { name, .. }) => assert_eq!(name, "lambda"),
                other => panic!("lambda = {lambda}: {other:?}"),
            }
        }
        assert!(EaseParams::new(1e-3).is_ok());
    }

    #[test]
    fn a_history_out_of_order_or_out_of_range_is_an_error() {
        let model = fit(&[&[0], &[0, 1], &[1, 2]], 3, 1.0);
        let mut out = [0.0f32; 3];
        let row = |items: &'static [u32]| UserRow {
            items,
            values: &[1.0, 1.0][..items.len()],
            timestamps: None,
        };
        assert!(model.score_history(row(&[1, 0]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[1, 1]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[3]), &[0, 1, 2], &mut out).is_err());
        assert!(model.score_history(row(&[]), &[0, 1, 2], &mut out).is_ok());
        assert_eq!(out, [0.0; 3]);
    }

    #[test]
    fn a_training_users_row_folded_in_gives_its_training_scores() {
        let train = scattered();
        let model = EaseParams::default().fit(&TrainData::new(&train, 0)).unwrap();
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
            let model = EaseParams::new(2.0).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
            (model.weights().to_vec(), all_scores(&model))
        };
        let ((w1, s1), (w3, s3)) = recs_testkit::on_one_and_three_threads(fit_all);
        assert!(w1.iter().zip(&w3).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(s1.iter().zip(&s3).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(s1.iter().any(|&s| s != 0.0));
    }

    /// The defining property of the closed form: the gradient of the Lagrangian vanishes
    /// off the diagonal, `(XᵀX + λI)(I − B)` is diagonal (it equals `diagMat(1 ⊘ diag P)`).
    #[test]
    fn the_weights_solve_the_constrained_least_squares_problem() {
        let train = scattered();
        let lambda = 2.0;
        let model = EaseParams::new(lambda).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        let n = 150;
        let mut gram = vec![0.0f64; n * n];
        for user in 0..240 {
            let items = train.user_row(user).items;
            for &a in items {
                for &b in items {
                    gram[a as usize * n + b as usize] += 1.0;
                }
            }
        }
        for j in 0..n {
            gram[j * n + j] += lambda;
        }
        let b = model.weights();
        let mut largest_off_diagonal = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                let identity_minus_b = |k: usize| f64::from(u8::from(k == j)) - b[k * n + j];
                let entry: f64 = (0..n).map(|k| gram[i * n + k] * identity_minus_b(k)).sum();
                if i == j {
                    assert!(entry > 0.0);
                } else {
                    largest_off_diagonal = largest_off_diagonal.max(entry.abs());
                }
            }
        }
        assert!(largest_off_diagonal < 1e-10, "{largest_off_diagonal}");
    }
}
