//! What RP3β and SLIM fit alike: a sparse item–item matrix `W` and the binary training
//! rows it scores, `score(u, j) = Σ_i X_ui W_ij`.

use recs_core::{Result, UserRow, check_items, check_score_args};

use crate::graph::{Graph, check_history, positive_items};

/// A sparse `W` by row with the training rows of `X`. Scores are summed in `f64` over the
/// user's items in increasing index order and rounded once to `f32`, so a history gives
/// the same bits through every path (training user, fold-in, catalog).
#[derive(Debug, Clone)]
pub(crate) struct ItemItem {
    pub(crate) n_users: usize,
    pub(crate) n_items: usize,
    /// Where each training user's items start in `row_items`; `n_users + 1` offsets.
    row_starts: Vec<usize>,
    /// The training users' items with a positive value, each row in increasing order.
    row_items: Vec<u32>,
    /// Where each row `i` of `W` starts in `items`; `n_items + 1` offsets.
    starts: Vec<usize>,
    /// The `j` of each stored `W_ij` of row `i`, in increasing order.
    items: Vec<u32>,
    /// `W_ij`, aligned with `items`.
    weights: Vec<f64>,
}

impl ItemItem {
    /// `W` given by row (`starts`, `items`, `weights`) over the rows of `graph`.
    pub(crate) fn new(
        graph: Graph,
        n_users: usize,
        n_items: usize,
        (starts, items, weights): (Vec<usize>, Vec<u32>, Vec<f64>),
    ) -> ItemItem {
        let Graph { row_starts, row_items, .. } = graph;
        ItemItem { n_users, n_items, row_starts, row_items, starts, items, weights }
    }

    /// The stored weights of row `item` of `W`: the items `j` in increasing order and the
    /// weights `W_ij` aligned with them (empty for an item out of range).
    pub(crate) fn weights_of(&self, item: u32) -> (&[u32], &[f64]) {
        let i = item as usize;
        if i >= self.n_items {
            return (&[], &[]);
        }
        let range = self.starts[i]..self.starts[i + 1];
        (&self.items[range.clone()], &self.weights[range])
    }

    /// The number of stored weights.
    pub(crate) fn n_weights(&self) -> usize {
        self.weights.len()
    }

    /// A training user's scores of `items` (checked).
    pub(crate) fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.n_items, user, items, out)?;
        let u = user as usize;
        let history = &self.row_items[self.row_starts[u]..self.row_starts[u + 1]];
        self.scores_of(history.iter().copied(), items, out);
        Ok(())
    }

    /// `Σ_i x_i W_ij` with `x` the indicator of the history's items with a value > 0, as in
    /// training, so a training user's own row gives exactly its training scores.
    pub(crate) fn score_history(
        &self,
        history: UserRow<'_>,
        items: &[u32],
        out: &mut [f32],
    ) -> Result<()> {
        check_items(self.n_items, items, out)?;
        check_history(&history, self.n_items)?;
        self.scores_of(positive_items(history.items, history.values), items, out);
        Ok(())
    }

    /// `Σ_i X_ui W_ij` over `items` for `history` (positive items, increasing, in range),
    /// in `f64`, every score summing its weights in the history's order.
    fn scores_of(&self, history: impl Iterator<Item = u32>, items: &[u32], out: &mut [f32]) {
        let mut sums = vec![0.0f64; self.n_items];
        for i in history {
            let (js, weights) = self.weights_of(i);
            for (&j, &w) in js.iter().zip(weights) {
                sums[j as usize] += w;
            }
        }
        for (o, &j) in out.iter_mut().zip(items) {
            *o = sums[j as usize] as f32;
        }
    }
}
