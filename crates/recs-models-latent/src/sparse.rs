//! The training matrix as a linear operator whose products run in parallel and give the
//! same bits at any thread count, for the truncated SVD of PureSVD.
//!
//! faer's sparse products are sequential. `A·x` is a dot product per row, so rows can be
//! computed on any thread; `Aᵀ·y` is, in faer, a scatter over the rows of `A`, which
//! threads cannot share without changing the order of additions. Here `Aᵀ·y` uses a copy
//! of `A` stored by column, so that it too is a dot product per output element. Every
//! element is summed in the order faer sums it — `A·x` along the row, `Aᵀ·y` by
//! increasing row, each starting from zero — so the products, and the SVD built on
//! them, are bit-identical to faer's sequential ones, whatever the thread count.

use faer::dyn_stack::{MemStack, StackReq};
use faer::matrix_free::{BiLinOp, LinOp};
use faer::{MatMut, MatRef, Par};
use rayon::prelude::*;
use recs_core::Interactions;

/// Output elements computed by one parallel task.
const ROWS_PER_TASK: usize = 1024;

/// One orientation of the matrix: `starts[r]..starts[r + 1]` index the entries of row
/// `r` (of `A` or of `Aᵀ`) in `indices` and `values`, indices ascending.
#[derive(Debug)]
struct Compressed {
    starts: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f32>,
}

impl Compressed {
    /// `out[r] = Σ values · rhs[index]` for every row `r`, in parallel over rows; each
    /// row summed sequentially in stored order from zero.
    fn apply(&self, out: MatMut<'_, f64>, rhs: MatRef<'_, f64>) {
        for (mut column, x) in out.col_iter_mut().zip(rhs.col_iter()) {
            let dot = |r: usize| {
                let (lo, hi) = (self.starts[r], self.starts[r + 1]);
                let mut acc = 0.0f64;
                for (&i, &v) in self.indices[lo..hi].iter().zip(&self.values[lo..hi]) {
                    acc += f64::from(v) * x[i as usize];
                }
                acc
            };
            let mut owned: Vec<f64> = vec![0.0; column.nrows()];
            owned.par_chunks_mut(ROWS_PER_TASK).enumerate().for_each(|(c, chunk)| {
                for (k, o) in chunk.iter_mut().enumerate() {
                    *o = dot(c * ROWS_PER_TASK + k);
                }
            });
            for (r, value) in owned.into_iter().enumerate() {
                column[r] = value;
            }
        }
    }
}

/// The matrix `A` of `Interactions` (users × items, the events' values) stored both by
/// row and by column; see the module page.
#[derive(Debug)]
pub(crate) struct ParallelSparse {
    rows: Compressed,
    columns: Compressed,
    n_rows: usize,
    n_columns: usize,
}

impl ParallelSparse {
    /// The matrix of `train`, by row and by column.
    pub(crate) fn new(train: &Interactions) -> Self {
        let (n_rows, n_columns) = (train.n_users(), train.n_items());
        let csr = train.csr();
        let rows = Compressed {
            starts: csr.indptr().raw_storage().to_vec(),
            indices: csr.indices().to_vec(),
            values: csr.data().to_vec(),
        };
        // Column counts, then each row's entries in row order: row indices ascend.
        let mut starts = vec![0usize; n_columns + 1];
        for &i in &rows.indices {
            starts[i as usize + 1] += 1;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut next = starts.clone();
        let (mut indices, mut values) =
            (vec![0u32; rows.indices.len()], vec![0f32; rows.indices.len()]);
        for r in 0..n_rows {
            for k in rows.starts[r]..rows.starts[r + 1] {
                let slot = &mut next[rows.indices[k] as usize];
                indices[*slot] = r as u32;
                values[*slot] = rows.values[k];
                *slot += 1;
            }
        }
        ParallelSparse { rows, columns: Compressed { starts, indices, values }, n_rows, n_columns }
    }
}

impl LinOp<f64> for ParallelSparse {
    fn apply_scratch(&self, _rhs_ncols: usize, _par: Par) -> StackReq {
        StackReq::EMPTY
    }

    fn nrows(&self) -> usize {
        self.n_rows
    }

    fn ncols(&self) -> usize {
        self.n_columns
    }

    fn apply(&self, out: MatMut<'_, f64>, rhs: MatRef<'_, f64>, _par: Par, _stack: &mut MemStack) {
        self.rows.apply(out, rhs);
    }

    fn conj_apply(
        &self,
        out: MatMut<'_, f64>,
        rhs: MatRef<'_, f64>,
        _par: Par,
        _stack: &mut MemStack,
    ) {
        // A real matrix is its own conjugate.
        self.rows.apply(out, rhs);
    }
}

impl BiLinOp<f64> for ParallelSparse {
    fn transpose_apply_scratch(&self, _rhs_ncols: usize, _par: Par) -> StackReq {
        StackReq::EMPTY
    }

    fn transpose_apply(
        &self,
        out: MatMut<'_, f64>,
        rhs: MatRef<'_, f64>,
        _par: Par,
        _stack: &mut MemStack,
    ) {
        self.columns.apply(out, rhs);
    }

    fn adjoint_apply(
        &self,
        out: MatMut<'_, f64>,
        rhs: MatRef<'_, f64>,
        _par: Par,
        _stack: &mut MemStack,
    ) {
        self.columns.apply(out, rhs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseRowMatRef, SymbolicSparseRowMatRef};
    use faer::{Mat, dyn_stack::MemBuffer};
    use recs_core::{DuplicatePolicy, Event};

    #[test]
    fn products_equal_faers_bit_for_bit_at_any_thread_count() {
        // 3,000 × 700 with a few thousand events of irrational-looking values.
        let mut state = 5u64;
        let events: Vec<Event> = (0..20_000)
            .map(|_| {
                let x = recs_core::splitmix64(&mut state);
                let value = ((x >> 40) as f32 / (1u64 << 24) as f32) * 4.0 + 0.1;
                Event::new((x % 3_000) as u32, ((x >> 16) % 700) as u32, value)
            })
            .collect();
        let train = Interactions::from_events(3_000, 700, events, DuplicatePolicy::Sum).unwrap();
        let csr = train.csr();
        let indptr: Vec<usize> = csr.indptr().raw_storage().to_vec();
        let indices: Vec<usize> = csr.indices().iter().map(|&i| i as usize).collect();
        let values: Vec<f64> = csr.data().iter().map(|&v| f64::from(v)).collect();
        let symbolic = SymbolicSparseRowMatRef::new_checked(3_000, 700, &indptr, None, &indices);
        let faer = SparseRowMatRef::new(symbolic, &values);
        let ours = ParallelSparse::new(&train);
        let x = Mat::<f64>::from_fn(700, 2, |i, j| ((i * 7 + j) as f64).sin());
        let y = Mat::<f64>::from_fn(3_000, 2, |i, j| ((i * 3 + j) as f64).cos());
        let mut buffer = MemBuffer::new(StackReq::EMPTY);
        let stack = MemStack::new(&mut buffer);
        let (mut ax, mut aty) = (Mat::<f64>::zeros(3_000, 2), Mat::<f64>::zeros(700, 2));
        faer.apply(ax.as_mut(), x.as_ref(), Par::Seq, stack);
        faer.transpose_apply(aty.as_mut(), y.as_ref(), Par::Seq, stack);
        let bits = |m: &Mat<f64>| -> Vec<u64> {
            (0..m.ncols())
                .flat_map(|j| (0..m.nrows()).map(move |i| (i, j)))
                .map(|(i, j)| m[(i, j)].to_bits())
                .collect()
        };
        for threads in [1, 2, 5] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (mut ax2, mut aty2) = (Mat::<f64>::zeros(3_000, 2), Mat::<f64>::zeros(700, 2));
            pool.install(|| {
                ours.apply(ax2.as_mut(), x.as_ref(), Par::Seq, stack);
                ours.transpose_apply(aty2.as_mut(), y.as_ref(), Par::Seq, stack);
            });
            assert_eq!(bits(&ax2), bits(&ax), "A·x at {threads} threads");
            assert_eq!(bits(&aty2), bits(&aty), "Aᵀ·y at {threads} threads");
        }
    }
}
