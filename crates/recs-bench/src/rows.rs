//! A fitted model as the scorer of a catalog over score rows
//! (`recs_metrics::io::RowCatalog`): `recs eval --user-factors` evaluates factors handed
//! in through it, with the workspace's exact factor kernel
//! ([`models::latent::FactorModel`](crate::models::latent::FactorModel)).

use recs_core::Recommender;
use recs_metrics::io::RowScorer;

use crate::error::BenchError;

/// The scores of a model's users (the rows) against every item (the columns, in the
/// model's item order): full-catalog blocks through [`Recommender::score_catalog`], the
/// graded items of the pooled ROC's first pass one user at a time through
/// [`Recommender::score`] (the same bits for a factor model).
#[derive(Clone, Copy)]
pub struct ModelRows<'a>(pub &'a dyn Recommender);

impl std::fmt::Debug for ModelRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ModelRows").field(&self.0.shape()).finish()
    }
}

impl RowScorer for ModelRows<'_> {
    type Error = BenchError;

    fn score_rows(&self, rows: &[u32], out: &mut [f32]) -> Result<(), BenchError> {
        Ok(self.0.score_catalog(rows, out)?)
    }

    fn score_columns(
        &self,
        rows: &[u32],
        columns: &[&[u32]],
        _n_items: usize,
        out: &mut Vec<f32>,
    ) -> Result<(), BenchError> {
        for (&row, columns) in rows.iter().zip(columns) {
            let start = out.len();
            out.resize(start + columns.len(), 0.0);
            self.0.score(row, columns, &mut out[start..])?;
        }
        Ok(())
    }
}
