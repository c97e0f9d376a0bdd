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

/// Work of one parallel task: about this many stored entries, each row counting as one
/// more. Tasks of equal work, not of equal row counts: in the power-law matrix of
/// MovieLens-20M shape (`recs data synth`) the first 1,024 items hold 38% of the entries,
/// so tasks of 1,024 rows left one thread with most of `Aᵀ·y` (2.6× faster products at
/// 16 threads than at 1, against 11× now).
const WORK_PER_TASK: usize = 1 << 15;

/// One orientation of the matrix: `starts[r]..starts[r + 1]` index the entries of row
/// `r` (of `A` or of `Aᵀ`) in `indices` and `values`, indices ascending.
#[derive(Debug)]
struct Compressed {
    starts: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f32>,
    /// Rows `tasks[t]..tasks[t + 1]` make parallel task `t` (see [`task_bounds`]).
    tasks: Vec<usize>,
}

/// Bounds of consecutive row ranges, each holding about `work_per_task` entries and rows
/// (more when a single row has more entries), from 0 to the number of rows.
fn task_bounds(starts: &[usize], work_per_task: usize) -> Vec<usize> {
    let n_rows = starts.len() - 1;
    let mut bounds = vec![0];
    let mut first = 0;
    for r in 0..n_rows {
        if starts[r + 1] - starts[first] + (r + 1 - first) >= work_per_task {
            bounds.push(r + 1);
            first = r + 1;
        }
    }
    if first < n_rows {
        bounds.push(n_rows);
    }
    bounds
}

impl Compressed {
    fn new(starts: Vec<usize>, indices: Vec<u32>, values: Vec<f32>, work_per_task: usize) -> Self {
        let tasks = task_bounds(&starts, work_per_task);
        Compressed { starts, indices, values, tasks }
    }

    /// `out[r] = Σ values · x[index]` for every row `r`, in parallel over row ranges;
    /// each row summed sequentially in stored order from zero, so neither the ranges nor
    /// the thread count change a bit.
    fn apply_slice(&self, x: &[f64], out: &mut [f64]) {
        debug_assert_eq!(out.len() + 1, self.starts.len());
        let dot = |r: usize| {
            let (lo, hi) = (self.starts[r], self.starts[r + 1]);
            let mut acc = 0.0f64;
            for (&i, &v) in self.indices[lo..hi].iter().zip(&self.values[lo..hi]) {
                acc += f64::from(v) * x[i as usize];
            }
            acc
        };
        let mut parts = Vec::with_capacity(self.tasks.len());
        let mut rest = out;
        for bounds in self.tasks.windows(2) {
            let (part, tail) = rest.split_at_mut(bounds[1] - bounds[0]);
            parts.push((bounds[0], part));
            rest = tail;
        }
        parts.into_par_iter().for_each(|(first, part)| {
            for (k, o) in part.iter_mut().enumerate() {
                *o = dot(first + k);
            }
        });
    }

    /// [`Compressed::apply_slice`] for each column of `rhs`.
    fn apply(&self, out: MatMut<'_, f64>, rhs: MatRef<'_, f64>) {
        let mut x = vec![0.0f64; rhs.nrows()];
        let mut owned = vec![0.0f64; out.nrows()];
        for (mut column, rhs) in out.col_iter_mut().zip(rhs.col_iter()) {
            for (x, &r) in x.iter_mut().zip(rhs.iter()) {
                *x = r;
            }
            self.apply_slice(&x, &mut owned);
            for (r, &value) in owned.iter().enumerate() {
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
        Self::with_work_per_task(train, WORK_PER_TASK)
    }

    /// [`ParallelSparse::new`] with tasks of about `work_per_task` entries and rows.
    fn with_work_per_task(train: &Interactions, work_per_task: usize) -> Self {
        let (n_rows, n_columns) = (train.n_users(), train.n_items());
        let csr = train.csr();
        let rows = Compressed::new(
            csr.indptr().raw_storage().to_vec(),
            csr.indices().to_vec(),
            csr.data().to_vec(),
            work_per_task,
        );
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
        let columns = Compressed::new(starts, indices, values, work_per_task);
        ParallelSparse { rows, columns, n_rows, n_columns }
    }
}

impl ParallelSparse {
    /// Rows of `A` (users).
    pub(crate) fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Columns of `A` (items).
    pub(crate) fn n_columns(&self) -> usize {
        self.n_columns
    }

    /// `out = A·x`.
    pub(crate) fn mul(&self, x: &[f64], out: &mut [f64]) {
        assert_eq!((x.len(), out.len()), (self.n_columns, self.n_rows));
        self.rows.apply_slice(x, out);
    }

    /// `out = Aᵀ·y`.
    pub(crate) fn mul_transpose(&self, y: &[f64], out: &mut [f64]) {
        assert_eq!((y.len(), out.len()), (self.n_rows, self.n_columns));
        self.columns.apply_slice(y, out);
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
        // The default tasks (a single one at this size), tasks of a few rows, one row each.
        let ours = [
            ParallelSparse::new(&train),
            ParallelSparse::with_work_per_task(&train, 64),
            ParallelSparse::with_work_per_task(&train, 1),
        ];
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
        for (layout, ours) in ours.iter().enumerate() {
            for threads in [1, 2, 5] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let (mut ax2, mut aty2) = (Mat::<f64>::zeros(3_000, 2), Mat::<f64>::zeros(700, 2));
                pool.install(|| {
                    ours.apply(ax2.as_mut(), x.as_ref(), Par::Seq, stack);
                    ours.transpose_apply(aty2.as_mut(), y.as_ref(), Par::Seq, stack);
                });
                assert_eq!(bits(&ax2), bits(&ax), "A·x, tasks {layout}, {threads} threads");
                assert_eq!(bits(&aty2), bits(&aty), "Aᵀ·y, tasks {layout}, {threads} threads");
            }
        }
    }

    #[test]
    fn tasks_cover_every_row_once_with_bounded_work() {
        // Rows of 0, 5, 0, 40, 1, 1, 1, 0 entries.
        let starts = [0, 0, 5, 5, 45, 46, 47, 48, 48];
        assert_eq!(task_bounds(&starts, 10), [0, 4, 8]);
        assert_eq!(task_bounds(&starts, 8), [0, 3, 4, 8]);
        assert_eq!(task_bounds(&starts, 1), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(task_bounds(&starts, 1_000), [0, 8]);
        assert_eq!(task_bounds(&[0], 10), [0]);
        let work = |bounds: &[usize]| -> Vec<usize> {
            bounds.windows(2).map(|w| starts[w[1]] - starts[w[0]] + w[1] - w[0]).collect()
        };
        // A task ends as soon as it reaches the target, so only its last row can exceed it.
        assert_eq!(work(&task_bounds(&starts, 10)), [49, 7]);
        assert_eq!(work(&task_bounds(&starts, 8)), [8, 41, 7]);
    }
}
