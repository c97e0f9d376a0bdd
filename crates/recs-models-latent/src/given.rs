//! A factor model fitted elsewhere (PyTorch, JAX, implicit, LightFM, a file): its user
//! and item factors handed in, scored by the exact kernel every factor model of this
//! crate scores with, so that the scores of given factors are those `recs run` computes
//! for the same factors, bit for bit.

use std::sync::OnceLock;

use recs_core::{RecsError, Result};

use crate::common::{Factors, factor_scoring};

/// A model whose score of (user, item) is the dot product of the user's and the item's
/// factor rows: `f32` products summed in `f64` from `+0.0` in the order of the
/// dimensions, then rounded to `f32` — what [`crate::PureSvd`] and [`crate::Als`] score
/// with, through the same code. Full-catalog blocks
/// ([`Recommender::score_catalog`](recs_core::Recommender::score_catalog)) use the blocked
/// kernel, equal to the single scores bit for bit.
///
/// ```
/// use recs_core::Recommender;
/// use recs_models_latent::FactorModel;
///
/// // Two users and three items of rank 2, row-major.
/// let users = vec![1.0, 0.0, 0.5, 0.5];
/// let items = vec![0.2, 0.1, 0.4, 0.9, 0.0, 1.0];
/// let model = FactorModel::new(2, 3, 2, users, items)?;
/// let mut scores = [0.0f32; 3];
/// model.score(1, &[0, 1, 2], &mut scores)?;
/// assert_eq!(scores, [0.15, 0.65, 0.5]);
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FactorModel {
    factors: Factors,
}

impl FactorModel {
    /// A model of `n_users` user rows and `n_items` item rows of `rank` dimensions:
    /// `users` is `n_users × rank` and `items` `n_items × rank`, row-major.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] when a length does not match the shape or a
    /// factor is not finite (the message names the matrix, the row and the dimension).
    pub fn new(
        n_users: usize,
        n_items: usize,
        rank: usize,
        users: Vec<f32>,
        items: Vec<f32>,
    ) -> Result<Self> {
        check_matrix("user factors", &users, n_users, rank)?;
        check_matrix("item factors", &items, n_items, rank)?;
        Ok(FactorModel {
            factors: Factors { n_users, n_items, rank, users, items, panels: OnceLock::new() },
        })
    }

    /// Number of dimensions of a factor row.
    pub fn rank(&self) -> usize {
        self.factors.rank
    }
}

/// Checks that `values` is a finite `rows × rank` matrix.
fn check_matrix(what: &'static str, values: &[f32], rows: usize, rank: usize) -> Result<()> {
    let expected = rows.checked_mul(rank);
    if expected != Some(values.len()) {
        return Err(RecsError::invalid_parameter(
            what,
            format!("{} values", values.len()),
            format!("{rows} rows × {rank} dimensions"),
        ));
    }
    if let Some(at) = values.iter().position(|v| !v.is_finite()) {
        return Err(RecsError::invalid_parameter(
            what,
            format!("{} at row {}, dimension {}", values[at], at / rank, at % rank),
            "finite factors",
        ));
    }
    Ok(())
}

impl recs_core::Recommender for FactorModel {
    factor_scoring!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::Recommender;

    #[test]
    fn shapes_and_values_are_checked() {
        assert!(FactorModel::new(2, 1, 2, vec![0.0; 3], vec![0.0; 2]).is_err());
        let error = FactorModel::new(1, 2, 2, vec![0.0; 2], vec![0.0, 1.0, f32::NAN, 0.0])
            .unwrap_err()
            .to_string();
        assert!(error.contains("item factors") && error.contains("row 1, dimension 0"), "{error}");
    }

    #[test]
    fn catalog_blocks_equal_single_scores_bit_for_bit() {
        let (n_users, n_items, rank) = (5, 13, 7);
        let value = |i: usize| ((i * 2_654_435_761) % 1000) as f32 / 97.0 - 5.0;
        let users: Vec<f32> = (0..n_users * rank).map(value).collect();
        let items: Vec<f32> = (0..n_items * rank).map(|i| value(i + 11)).collect();
        let model = FactorModel::new(n_users, n_items, rank, users, items).unwrap();
        let all: Vec<u32> = (0..n_items as u32).collect();
        let rows = [4u32, 0, 2];
        let mut block = vec![0.0f32; rows.len() * n_items];
        model.score_catalog(&rows, &mut block).unwrap();
        for (&user, row) in rows.iter().zip(block.chunks(n_items)) {
            let mut single = vec![0.0f32; n_items];
            model.score(user, &all, &mut single).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(row), bits(&single));
        }
    }
}
