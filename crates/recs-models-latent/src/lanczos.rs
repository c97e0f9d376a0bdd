//! Truncated SVD of a sparse matrix by thick-restart Lanczos bidiagonalisation, with
//! every dense pass over the tall bases split into fixed blocks of rows that run in
//! parallel and are added in block order: the result has the same bits at any thread
//! count, and its cost divides among the cores.
//!
//! The method is the augmented restarted bidiagonalisation of Baglama & Reichel (2005),
//! the one faer's `partial_svd` implements. Golub–Kahan steps build orthonormal bases
//! `P` (left, `m × d`) and `Q` (right, `n × (d + 1)`) and a small `d × d` matrix `B` with
//! `A Q_d = P_d B` and `Aᵀ P_d = Q_d Bᵀ + β q_{d+1} e_dᵀ`. The SVD `B = X Σ Yᵀ` gives
//! Ritz triplets `(σ_i, P_d x_i, Q_d y_i)` whose residual `‖Aᵀ P_d x_i − σ_i Q_d y_i‖` is
//! `|β X_{d,i}|`. The first `keep` of them and `q_{d+1}` start the next cycle, until
//! the wanted triplets' residuals are below the tolerance.
//!
//! Each new basis vector is orthogonalised against the whole basis by classical
//! Gram–Schmidt applied twice ("twice is enough"): two passes of `h = Pᵀw`, `w −= P h`.
//! faer repeats modified Gram–Schmidt one basis vector at a time (a sequential pass per
//! vector, and a norm per vector in the repeat), and at MovieLens-20M shape that pass was
//! the larger part of the fit and did not change with the thread count.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::{Mat, MatRef, Par};
use pulp::Arch;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use recs_core::{RecsError, Result};

use crate::common::uniform;
use crate::sparse::ParallelSparse;

/// Rows per block of every dense pass over a basis. Fixed, not derived from the thread
/// count: a block's partial sums are formed in one order and the blocks' sums added in
/// block order, so the bits do not depend on how blocks are spread over threads. 4,096
/// rows of a vector are 32 KiB, a level-1 or level-2 cache's worth.
const BLOCK_ROWS: usize = 4096;

/// Rows per parallel task of the passes whose every element is computed on its own
/// (updates, rotations, scaling): any split gives the same bits, so these tasks can be
/// finer than [`BLOCK_ROWS`] and keep many threads busy on a short side (26,744 items
/// are 7 blocks but 53 tasks).
const TASK_ROWS: usize = 512;

/// Basis vectors per parallel task of a projection: within a block each vector's dot
/// product is computed on its own, so a block's vectors can be split among threads.
const TASK_VECTORS: usize = 16;

/// Rows per slice of [`Basis::subtract_and_project`]: a multiple of 8 (see
/// [`accumulate`]) small enough that a slice of a 128-vector basis (256 KiB) stays in a
/// level-2 cache between its update and its projection.
const SLICE_ROWS: usize = 256;

/// A triplet has converged when its residual is at most this times the largest singular
/// value. Far below what `f32` factors resolve (a relative 6·10⁻⁸).
const TOLERANCE: f64 = 1e-12;

/// Restart cycles before giving up on the triplets that have not converged.
const MAX_RESTARTS: usize = 1000;

/// A new basis vector whose norm falls by more than this factor in its
/// orthogonalisation lies in the span of the basis (numerically): the Krylov space is
/// exhausted and a random direction continues it.
const BREAKDOWN: f64 = 1e-10;

/// The leading singular triplets of a sparse matrix.
#[derive(Debug, Clone)]
pub(crate) struct Truncated {
    /// Left singular vectors, `m × rank` row-major.
    pub(crate) left: Vec<f64>,
    /// Right singular vectors, `n × rank` row-major.
    pub(crate) right: Vec<f64>,
    /// Singular values, non-increasing.
    pub(crate) values: Vec<f64>,
    /// How many leading triplets met the tolerance (all `rank` unless the restarts ran
    /// out).
    pub(crate) converged: usize,
    /// Restart cycles run.
    pub(crate) restarts: usize,
}

/// Orthonormal vectors of one length stored one after another (column-major).
struct Basis {
    len: usize,
    data: Vec<f64>,
}

impl Basis {
    fn new(len: usize, capacity: usize) -> Self {
        Basis { len, data: vec![0.0; len * capacity] }
    }

    fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.len..(j + 1) * self.len]
    }

    fn col_mut(&mut self, j: usize) -> &mut [f64] {
        &mut self.data[j * self.len..(j + 1) * self.len]
    }

    fn blocks(&self) -> usize {
        self.len.div_ceil(BLOCK_ROWS)
    }

    /// `h_c = Σ_r basis[r, c] w[r]` for the first `cols` vectors.
    fn project(&self, cols: usize, w: &[f64]) -> Vec<f64> {
        let groups = cols.div_ceil(TASK_VECTORS);
        let dots: Vec<Vec<f64>> = (0..self.blocks() * groups)
            .into_par_iter()
            .map(|task| {
                let (b, g) = (task / groups, task % groups);
                let rows = b * BLOCK_ROWS..((b + 1) * BLOCK_ROWS).min(self.len);
                let vectors = g * TASK_VECTORS..((g + 1) * TASK_VECTORS).min(cols);
                let w = &w[rows.clone()];
                let dots = || vectors.map(|c| dot(&self.col(c)[rows.clone()], w)).collect();
                Arch::new().dispatch(dots)
            })
            .collect();
        let parts = dots.chunks(groups.max(1)).map(|block| block.concat()).collect();
        sum_in_order(parts, cols)
    }

    /// `w −= Σ_c h_c basis[·, c]`, each element updated in the order of `c`.
    fn subtract(&self, h: &[f64], w: &mut [f64]) {
        w.par_chunks_mut(TASK_ROWS).enumerate().for_each(|(t, w)| {
            let start = t * TASK_ROWS;
            Arch::new().dispatch(|| {
                for (c, &h) in h.iter().enumerate() {
                    let column = &self.col(c)[start..start + w.len()];
                    for (x, &p) in w.iter_mut().zip(column) {
                        *x -= h * p;
                    }
                }
            });
        });
    }

    /// `w −= Σ_c h_c basis[·, c]` and then `basis[·, ..h.len()]ᵀ w`, in one pass over the
    /// basis: each block of rows is updated and projected in slices of [`SLICE_ROWS`]
    /// rows, so the second read of a slice's basis rows comes from cache. Both results
    /// have the bits of [`Basis::subtract`] followed by [`Basis::project`]: the slices
    /// carry each dot product's eight partial sums across, in the order [`dot`] adds them.
    fn subtract_and_project(&self, h: &[f64], w: &mut [f64]) -> Vec<f64> {
        let cols = h.len();
        let parts: Vec<Vec<f64>> = w
            .par_chunks_mut(BLOCK_ROWS)
            .enumerate()
            .map(|(b, w)| {
                let start = b * BLOCK_ROWS;
                Arch::new().dispatch(|| {
                    let mut sums = vec![[0.0f64; 8]; cols];
                    for (slice, w) in w.chunks_mut(SLICE_ROWS).enumerate() {
                        let first = start + slice * SLICE_ROWS;
                        let rows = first..first + w.len();
                        for (c, &h) in h.iter().enumerate() {
                            for (x, &p) in w.iter_mut().zip(&self.col(c)[rows.clone()]) {
                                *x -= h * p;
                            }
                        }
                        for (c, sums) in sums.iter_mut().enumerate() {
                            accumulate(sums, &self.col(c)[rows.clone()], w);
                        }
                    }
                    sums.iter().map(combine).collect()
                })
            })
            .collect();
        sum_in_order(parts, cols)
    }

    /// Makes `w` orthogonal to the first `cols` vectors: classical Gram–Schmidt, twice.
    fn orthogonalise(&self, cols: usize, w: &mut [f64]) {
        if cols == 0 {
            return;
        }
        let first = self.project(cols, w);
        // The fused pass reads the basis once less but runs one task per block; with
        // fewer blocks than two per thread the separate passes keep more threads busy.
        // Both give the same bits.
        let second = if self.blocks() >= 2 * rayon::current_num_threads() {
            self.subtract_and_project(&first, w)
        } else {
            self.subtract(&first, w);
            self.project(cols, w)
        };
        self.subtract(&second, w);
    }

    /// Replaces the first `cols` vectors by `basis · mix[.., ..cols]`, `mix` being
    /// `d × cols` column-major over the first `d` vectors. Each element is summed in the
    /// order of the basis vectors.
    fn rotate(&mut self, d: usize, mix: &[f64], cols: usize) {
        let len = self.len;
        let blocks: Vec<Vec<f64>> = (0..len.div_ceil(TASK_ROWS))
            .into_par_iter()
            .map(|t| {
                let rows = t * TASK_ROWS..((t + 1) * TASK_ROWS).min(len);
                let height = rows.len();
                let mut out = vec![0.0f64; height * cols];
                let columns: Vec<&[f64]> = (0..d).map(|l| &self.col(l)[rows.clone()]).collect();
                Arch::new().dispatch(|| rotate_block(&columns, mix, cols, &mut out));
                out
            })
            .collect();
        for (t, block) in blocks.iter().enumerate() {
            let start = t * TASK_ROWS;
            let height = block.len() / cols.max(1);
            for c in 0..cols {
                self.data[c * len + start..c * len + start + height]
                    .copy_from_slice(&block[c * height..(c + 1) * height]);
            }
        }
    }

    /// The first `cols` vectors as a row-major `len × cols` matrix.
    fn row_major(&self, cols: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.len * cols];
        for c in 0..cols {
            for (r, &x) in self.col(c).iter().enumerate() {
                out[r * cols + c] = x;
            }
        }
        out
    }
}

/// `out[c·h + r] = Σ_l mix[c·d + l] · columns[l][r]` for the `cols` outputs of a block
/// of `h` rows (`d = columns.len()`). Tiles of 8 rows × 4 outputs are summed in
/// registers while the basis vectors stream past (their 8 rows stay in level-1 cache for
/// the next group of outputs). Each element adds its `d` products in basis order,
/// starting from zero, each product rounded before its addition (no fused
/// multiply-add), so the vector width the processor offers does not change a bit.
#[inline(always)]
fn rotate_block(columns: &[&[f64]], mix: &[f64], cols: usize, out: &mut [f64]) {
    let d = columns.len();
    let height = out.len() / cols.max(1);
    // mix by basis vector: the 4 coefficients a tile needs are side by side.
    let mut by_basis = vec![0.0f64; d * cols.next_multiple_of(4)];
    let stride = cols.next_multiple_of(4);
    for c in 0..cols {
        for l in 0..d {
            by_basis[l * stride + c] = mix[c * d + l];
        }
    }
    let full = height - height % 8;
    for r0 in (0..full).step_by(8) {
        for c0 in (0..cols).step_by(4) {
            let mut tile = [[0.0f64; 8]; 4];
            for (l, column) in columns.iter().enumerate() {
                let rows: &[f64; 8] = column[r0..r0 + 8].try_into().expect("8 rows");
                let x: &[f64; 4] = by_basis[l * stride + c0..][..4].try_into().expect("4");
                for k in 0..4 {
                    for i in 0..8 {
                        tile[k][i] += x[k] * rows[i];
                    }
                }
            }
            for (k, sums) in tile.iter().enumerate().take(cols - c0) {
                out[(c0 + k) * height + r0..][..8].copy_from_slice(sums);
            }
        }
    }
    for r in full..height {
        for c in 0..cols {
            let mut sum = 0.0f64;
            for (l, column) in columns.iter().enumerate() {
                sum += mix[c * d + l] * column[r];
            }
            out[c * height + r] = sum;
        }
    }
}

/// `Σ a_i b_i` with eight partial sums (element `i` goes to sum `i mod 8`) added in a
/// fixed order: the same bits on every machine, whatever the alignment of the slices.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sums = [0.0f64; 8];
    accumulate(&mut sums, a, b);
    combine(&sums)
}

/// Adds `a_i b_i` to `sums[i mod 8]` in order of `i`. Called on consecutive slices whose
/// lengths are multiples of 8 (all but the last), it adds in the same order as on their
/// concatenation.
#[inline(always)]
fn accumulate(sums: &mut [f64; 8], a: &[f64], b: &[f64]) {
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (a8.remainder(), b8.remainder());
    for (x, y) in a8.zip(b8) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    for (k, (x, y)) in ra.iter().zip(rb).enumerate() {
        sums[k] += x * y;
    }
}

/// The eight partial sums of [`accumulate`], added pairwise in a fixed order.
#[inline(always)]
fn combine(sums: &[f64; 8]) -> f64 {
    ((sums[0] + sums[4]) + (sums[2] + sums[6])) + ((sums[1] + sums[5]) + (sums[3] + sums[7]))
}

/// Adds per-block partial results element-wise in block order.
fn sum_in_order(parts: Vec<Vec<f64>>, len: usize) -> Vec<f64> {
    let mut total = vec![0.0f64; len];
    for part in parts {
        for (t, p) in total.iter_mut().zip(part) {
            *t += p;
        }
    }
    total
}

/// `‖w‖₂`, summed per block and the blocks in order.
fn norm(w: &[f64]) -> f64 {
    let parts: Vec<f64> = w.par_chunks(BLOCK_ROWS).map(|c| dot(c, c)).collect();
    parts.iter().fold(0.0, |acc, &p| acc + p).sqrt()
}

fn scale(w: &mut [f64], by: f64) {
    w.par_chunks_mut(TASK_ROWS).for_each(|c| c.iter_mut().for_each(|x| *x /= by));
}

/// Golub–Kahan state: bases, the projected matrix and scratch vectors.
struct Bidiagonal<'a> {
    matrix: &'a ParallelSparse,
    /// Left basis `P`, `m × d`.
    left: Basis,
    /// Right basis `Q`, `n × (d + 1)`.
    right: Basis,
    /// `B`, `d × (d + 1)` row-major: `B[j][j] = α_j`, `B[j][j + 1] = β_j`, and after a
    /// restart `B[i][keep] = ρ_i`.
    b: Vec<f64>,
    d: usize,
    rng: Xoshiro256PlusPlus,
}

impl Bidiagonal<'_> {
    fn b(&mut self, row: usize, col: usize) -> &mut f64 {
        &mut self.b[row * (self.d + 1) + col]
    }

    /// Steps `from..d`: computes `p_j` and `q_{j+1}` for each `j`, given `q_from`.
    fn extend(&mut self, from: usize, m_scratch: &mut [f64], n_scratch: &mut [f64]) {
        for j in from..self.d {
            self.matrix.mul(self.right.col(j), m_scratch);
            let alpha = next_vector(&self.left, j, m_scratch, &mut self.rng);
            self.left.col_mut(j).copy_from_slice(m_scratch);
            *self.b(j, j) = alpha;

            self.matrix.mul_transpose(self.left.col(j), n_scratch);
            let beta = next_vector(&self.right, j + 1, n_scratch, &mut self.rng);
            self.right.col_mut(j + 1).copy_from_slice(n_scratch);
            *self.b(j, j + 1) = beta;
        }
    }
}

/// Orthogonalises `w` against the first `cols` vectors of `basis` and normalises it,
/// returning its norm; a `w` in the span of the basis is replaced by a random unit
/// vector orthogonal to it, and the norm returned is 0.
fn next_vector(basis: &Basis, cols: usize, w: &mut [f64], rng: &mut Xoshiro256PlusPlus) -> f64 {
    let before = norm(w);
    basis.orthogonalise(cols, w);
    let after = norm(w);
    if after > BREAKDOWN * before && after > 0.0 {
        scale(w, after);
        return after;
    }
    loop {
        w.iter_mut().for_each(|x| *x = uniform(rng) - 0.5);
        basis.orthogonalise(cols, w);
        let length = norm(w);
        if length > 0.0 {
            scale(w, length);
            return 0.0;
        }
    }
}

/// The `rank` leading singular triplets of `matrix` from the start vector `start`
/// (length `n`, not zero), with search spaces of `d` vectors (`rank < d < min(m, n)`).
/// `rng` supplies random directions should the Krylov space be exhausted. Call it on a
/// rayon worker (in a scope, as PureSVD does): from another thread each of its many
/// short passes is handed to the pool and waited for.
///
/// # Errors
/// When the dense SVD of the projected matrix fails.
pub(crate) fn truncated_svd(
    matrix: &ParallelSparse,
    rank: usize,
    d: usize,
    start: &[f64],
    rng: Xoshiro256PlusPlus,
) -> Result<Truncated> {
    let (m, n) = (matrix.n_rows(), matrix.n_columns());
    assert!(0 < rank && rank < d && d < m.min(n), "rank {rank}, d {d}, {m} × {n}");
    assert_eq!(start.len(), n);
    let keep = rank + (d - rank) / 2;
    let mut state = Bidiagonal {
        matrix,
        left: Basis::new(m, d),
        right: Basis::new(n, d + 1),
        b: vec![0.0; d * (d + 1)],
        d,
        rng,
    };
    let (mut m_scratch, mut n_scratch) = (vec![0.0f64; m], vec![0.0f64; n]);
    n_scratch.copy_from_slice(start);
    let length = norm(&n_scratch);
    assert!(length > 0.0, "the start vector is zero");
    scale(&mut n_scratch, length);
    state.right.col_mut(0).copy_from_slice(&n_scratch);
    state.extend(0, &mut m_scratch, &mut n_scratch);

    let mut restarts = 0;
    loop {
        let (x, values, y) = small_svd(&state.b, d)?;
        let beta = state.b[(d - 1) * (d + 1) + d];
        let residual: Vec<f64> = (0..d).map(|i| beta * x[i * d + d - 1]).collect();
        let tolerance = TOLERANCE * values[0];
        let converged = residual[..rank].iter().take_while(|r| r.abs() <= tolerance).count();
        let done = converged == rank || restarts == MAX_RESTARTS;
        let cols = if done { rank } else { keep };
        state.left.rotate(d, &x, cols);
        state.right.rotate(d, &y, cols);
        if done {
            return Ok(Truncated {
                left: state.left.row_major(rank),
                right: state.right.row_major(rank),
                values: values[..rank].to_vec(),
                converged,
                restarts,
            });
        }
        // q_{d+1} continues the space; B restarts as diag(σ) with the residuals in
        // column `keep`.
        let next = state.right.col(d).to_vec();
        state.right.col_mut(keep).copy_from_slice(&next);
        state.b.fill(0.0);
        for i in 0..keep {
            *state.b(i, i) = values[i];
            *state.b(i, keep) = residual[i];
        }
        state.extend(keep, &mut m_scratch, &mut n_scratch);
        restarts += 1;
    }
}

/// SVD of the leading `d × d` block of the row-major `d × (d + 1)` matrix `b`: `X` and
/// `Y` column-major (`d × d`, column `i` is the `i`-th singular vector) and the singular
/// values, in non-increasing order (ties in the solver's order).
#[allow(clippy::type_complexity)]
fn small_svd(b: &[f64], d: usize) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let square = Mat::<f64>::from_fn(d, d, |i, j| b[i * (d + 1) + j]);
    let (u, s, v) = thin_svd(square.as_ref())?;
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&a, &b| s[b].total_cmp(&s[a]).then(a.cmp(&b)));
    let x = order.iter().flat_map(|&j| (0..d).map(move |i| (i, j))).map(|(i, j)| u[(i, j)]);
    let y = order.iter().flat_map(|&j| (0..d).map(move |i| (i, j))).map(|(i, j)| v[(i, j)]);
    let values = order.iter().map(|&j| s[j]).collect();
    Ok((x.collect(), values, y.collect()))
}

/// Thin dense SVD `a = U diag(s) Vᵀ` by faer, sequential (`Par::Seq`: its parallel path
/// rounds differently with the thread count).
pub(crate) fn thin_svd(a: MatRef<'_, f64>) -> Result<(Mat<f64>, Vec<f64>, Mat<f64>)> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let mut s = faer::diag::Diag::<f64>::zeros(k);
    let mut u = Mat::<f64>::zeros(m, k);
    let mut v = Mat::<f64>::zeros(n, k);
    let thin = faer::linalg::svd::ComputeSvdVectors::Thin;
    let req = faer::linalg::svd::svd_scratch::<f64>(m, n, thin, thin, Par::Seq, Default::default());
    let mut buffer = MemBuffer::new(req);
    faer::linalg::svd::svd(
        a,
        s.as_mut(),
        Some(u.as_mut()),
        Some(v.as_mut()),
        Par::Seq,
        MemStack::new(&mut buffer),
        Default::default(),
    )
    .map_err(|e| RecsError::Unsupported(format!("PureSVD: dense SVD failed: {e:?}")))?;
    Ok((u, (0..k).map(|j| s[j]).collect(), v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{Stream, rng};
    use recs_core::{DuplicatePolicy, Event, Interactions};

    /// A users × items matrix with power-law rows and columns and ratings 1 to 5.
    fn power_law(users: usize, items: usize, events: usize, seed: u64) -> Interactions {
        let mut state = seed;
        let mut draw = || (recs_core::splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
        let events: Vec<Event> = (0..events)
            .map(|_| {
                let (x, y, rating) = (draw(), draw(), draw());
                let user = (users as f64 * x * x) as u32;
                let item = (items as f64 * y * y * y) as u32;
                Event::new(user, item, 1.0 + (5.0 * rating).floor() as f32)
            })
            .collect();
        Interactions::from_events(users, items, events, DuplicatePolicy::Max).unwrap()
    }

    fn solve(train: &Interactions, rank: usize, d: usize, seed: u64) -> Truncated {
        let matrix = ParallelSparse::new(train);
        let mut stream = rng(seed, Stream::StartVector);
        let start: Vec<f64> = (0..train.n_items()).map(|_| uniform(&mut stream) - 0.5).collect();
        truncated_svd(&matrix, rank, d, &start, stream).unwrap()
    }

    fn dense(train: &Interactions) -> Mat<f64> {
        let mut a = Mat::<f64>::zeros(train.n_users(), train.n_items());
        for user in 0..train.n_users() {
            let row = train.user_row(user as u32);
            for (&item, &value) in row.items.iter().zip(row.values) {
                a[(user, item as usize)] = f64::from(value);
            }
        }
        a
    }

    /// Checks the triplets against `a` directly: `‖A v − σ u‖` and `‖Aᵀ u − σ v‖` small,
    /// the vectors orthonormal, and the values those of a dense SVD.
    fn check_against_dense(train: &Interactions, svd: &Truncated, rank: usize) {
        let a = dense(train);
        let (m, n) = (a.nrows(), a.ncols());
        let reference = a.thin_svd().unwrap();
        let s1 = reference.S()[0];
        for i in 0..rank {
            let (s, expected) = (svd.values[i], reference.S()[i]);
            assert!((s - expected).abs() <= 1e-11 * s1, "σ_{i}: {s} vs {expected}");
            let u: Vec<f64> = (0..m).map(|r| svd.left[r * rank + i]).collect();
            let v: Vec<f64> = (0..n).map(|c| svd.right[c * rank + i]).collect();
            let av: f64 = (0..m)
                .map(|r| ((0..n).map(|c| a[(r, c)] * v[c]).sum::<f64>() - s * u[r]).powi(2))
                .sum::<f64>()
                .sqrt();
            let atu: f64 = (0..n)
                .map(|c| ((0..m).map(|r| a[(r, c)] * u[r]).sum::<f64>() - s * v[c]).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(av <= 1e-10 * s1 && atu <= 1e-10 * s1, "triplet {i}: {av:e}, {atu:e}");
            for j in 0..=i {
                let uu: f64 = (0..m).map(|r| u[r] * svd.left[r * rank + j]).sum();
                let vv: f64 = (0..n).map(|c| v[c] * svd.right[c * rank + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((uu - want).abs() < 1e-12 && (vv - want).abs() < 1e-12, "{i}, {j}");
            }
        }
    }

    #[test]
    fn triplets_agree_with_a_dense_svd() {
        let train = power_law(700, 400, 12_000, 3);
        for (rank, d) in [(1, 64), (10, 64), (40, 80)] {
            let svd = solve(&train, rank, d, 5);
            assert_eq!(svd.converged, rank);
            assert!(svd.restarts < 100, "{} restarts", svd.restarts);
            check_against_dense(&train, &svd, rank);
        }
    }

    /// A matrix of rank 12 (every user repeats one of 12 rows): the Krylov space is
    /// exhausted long before the search space is full, and random directions continue it.
    #[test]
    fn a_low_rank_matrix_exhausts_the_krylov_space_and_still_converges() {
        let events = (0..600u32).flat_map(|u| {
            let pattern = u % 12;
            (0..8u32).map(move |k| Event::new(u, (pattern * 17 + k * 29) % 250, 1.0 + k as f32))
        });
        let train = Interactions::from_events(600, 250, events, DuplicatePolicy::Error).unwrap();
        let svd = solve(&train, 8, 64, 1);
        assert_eq!(svd.converged, 8);
        check_against_dense(&train, &svd, 8);
        // Asking for more triplets than the rank: the zero singular values converge too.
        let svd = solve(&train, 20, 64, 1);
        assert_eq!(svd.converged, 20);
        assert!(svd.values[12..].iter().all(|&s| s <= 1e-10 * svd.values[0]));
        assert!(svd.values[11] > 1.0);
    }

    #[test]
    fn the_same_bits_at_any_thread_count() {
        // More than one block of rows on both sides.
        let train = power_law(9_000, 4_500, 90_000, 9);
        let bits = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let svd = pool.install(|| solve(&train, 16, 64, 2));
            let all = svd.left.iter().chain(&svd.right).chain(&svd.values);
            all.map(|x| x.to_bits()).collect::<Vec<u64>>()
        };
        let one = bits(1);
        for threads in [2, 3, 8] {
            assert!(bits(threads) == one, "{threads} threads");
        }
    }

    /// The singular values faer's restarted solver finds, to the tolerance.
    #[test]
    fn agrees_with_faers_partial_svd() {
        use faer::matrix_free::eigen::{PartialEigenParams, partial_svd, partial_svd_scratch};
        let train = power_law(3_000, 1_200, 40_000, 4);
        let rank = 25;
        let ours = solve(&train, rank, 64, 6);
        let matrix = ParallelSparse::new(&train);
        let v0 = faer::Col::<f64>::from_fn(1_200, |i| ((i * 7 + 1) as f64).sin());
        let params = PartialEigenParams::default();
        let mut buffer =
            MemBuffer::new(partial_svd_scratch::<f64>(&matrix, rank, Par::Seq, params));
        let (mut u, mut v, mut s) =
            (Mat::<f64>::zeros(3_000, rank), Mat::<f64>::zeros(1_200, rank), vec![0.0; rank]);
        let info = partial_svd(
            u.as_mut(),
            v.as_mut(),
            &mut s,
            &matrix,
            v0.as_ref(),
            f64::EPSILON * 128.0,
            Par::Seq,
            MemStack::new(&mut buffer),
            params,
        );
        assert_eq!(info.n_converged_eigen, rank);
        for (i, (a, b)) in ours.values.iter().zip(&s).enumerate() {
            assert!((a - b.abs()).abs() <= 1e-11 * ours.values[0], "σ_{i}: {a} vs {b}");
            // The right vectors span the same line.
            let cosine: f64 = (0..1_200).map(|c| ours.right[c * rank + i] * v[(c, i)]).sum();
            assert!((cosine.abs() - 1.0).abs() < 1e-9, "v_{i}: |cos| = {}", cosine.abs());
        }
    }

    /// A basis of `cols` vectors of length `len` with values of many magnitudes.
    fn basis(len: usize, cols: usize) -> Basis {
        let mut basis = Basis::new(len, cols);
        for (i, x) in basis.data.iter_mut().enumerate() {
            *x = ((i as f64 * 0.7).sin() * 1e3).powi(3) / 1e6;
        }
        basis
    }

    #[test]
    fn the_fused_pass_has_the_bits_of_the_two_passes() {
        // Lengths across block, slice and 8-lane boundaries.
        for len in [5, 256, 1_003, BLOCK_ROWS + 777, 3 * BLOCK_ROWS] {
            let basis = basis(len, 9);
            let w: Vec<f64> = (0..len).map(|i| (i as f64 * 0.13).cos()).collect();
            let h = basis.project(9, &w);
            let mut two = w.clone();
            basis.subtract(&h, &mut two);
            let expected = basis.project(9, &two);
            let mut one = w.clone();
            let got = basis.subtract_and_project(&h, &mut one);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one), bits(&two), "len {len}");
            assert_eq!(bits(&got), bits(&expected), "len {len}");
        }
    }

    #[test]
    fn rotation_adds_in_basis_order() {
        let (len, d, cols) = (BLOCK_ROWS + 100, 7, 6);
        let mut rotated = basis(len, d);
        let original = basis(len, d);
        let mix: Vec<f64> = (0..d * cols).map(|i| (i as f64 * 1.9).sin()).collect();
        rotated.rotate(d, &mix, cols);
        for c in 0..cols {
            for r in 0..len {
                let mut expected = 0.0f64;
                for l in 0..d {
                    expected += mix[c * d + l] * original.col(l)[r];
                }
                assert_eq!(rotated.col(c)[r].to_bits(), expected.to_bits(), "({r}, {c})");
            }
        }
        // The vectors past `cols` are untouched.
        assert_eq!(rotated.col(cols), original.col(cols));
    }

    #[test]
    fn dot_products_do_not_depend_on_where_the_slices_start() {
        let a: Vec<f64> = (0..1_003).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
        let b: Vec<f64> = (0..1_003).map(|i| (i as f64 * 0.11).cos()).collect();
        let expected = dot(&a[1..], &b[1..]).to_bits();
        // The same values at another offset in memory.
        let (mut a2, mut b2) = (vec![0.0; 3], vec![0.0; 5]);
        a2.extend_from_slice(&a[1..]);
        b2.extend_from_slice(&b[1..]);
        assert_eq!(dot(&a2[3..], &b2[5..]).to_bits(), expected);
        let naive: f64 = a[1..].iter().zip(&b[1..]).map(|(x, y)| x * y).sum();
        assert!((f64::from_bits(expected) - naive).abs() <= 1e-9 * naive.abs());
    }
}
