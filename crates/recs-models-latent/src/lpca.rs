//! Logistic principal component analysis (Schein, Saul & Ungar 2003), fitted as
//! schein2005 §4.1 describes: dimensions stagewise (fit dimension `k − 1`, fix it, then
//! fit dimension `k`), or all together as an option.
//!
//! Notation: binary `X` (persons × items, `X_nd = 1` when person `n` met item `d`),
//! `Q = 2X − 1`, `Θ_nd = Σ_l U_nl V_ld + Δ_d`, `P(X_nd = 1) = σ(Θ_nd)`; the log-likelihood
//! (schein2005 eq. 3) is `Σ log σ(Q_nd Θ_nd)`.
//!
//! Each block update maximises the Jaakkola–Jordan lower bound anchored at the current
//! `Θ`, `log σ(QΘ) ≥ log σ(Θ̂) + (QΘ − Θ̂)/2 − (T(Θ̂)/4)(Θ² − Θ̂²)` with
//! `T(x) = tanh(x/2)/x`, so the likelihood never decreases (a minorise–maximise step).
//! With `o_nd` the part of `Θ_nd` that the block keeps fixed:
//!
//! - rows of `U` (free dimensions `F`): `A u_n = b`, `A = Σ_d T_nd v_d v_dᵀ`,
//!   `b = Σ_d (Q_nd − T_nd o_nd) v_d`;
//! - columns `(v_d, Δ_d)` jointly, one `(|F| + 1)²` system per item with features
//!   `(u_n, 1)`, as the authors' code does.
//!
//! With `|L| = 0` the model is item popularity: `σ(Δ_d)` equals the share of persons who
//! met item `d` (schein2005 §6.1). Items met by nobody (or by everybody) have no finite
//! optimum; their `Δ_d` is clamped at `∓ logit(1 − 1/(2N))` and they take no part in the
//! updates.
//!
//! The work is dense in `persons × items` (time, not memory: `Θ` is recomputed row by row):
//! fine for MS Web (32,711 × 286) and MovieLens 100K (943 × 1,682). A sweep makes two
//! passes over the cells, one per block; each pass also yields the likelihood of the state
//! it starts from, so the history costs no pass of its own. `log σ(QΘ)` and `T(Θ)` share
//! one exponential per cell, and a row's likelihood takes one logarithm per 512 cells
//! (`ln Π (1 + e)`), so the exponential and the per-cell bookkeeping set the time, not
//! matrix products (`U V` has only `|L|` terms): |L| = 4 stagewise with 100 sweeps per
//! stage on three quarters of MS Web's visits takes about 36 s on two cores.

use rayon::prelude::*;
use recs_core::{
    FoldInUser, Interactions, Recommender, Result, Shape, TrainData, UserRow, check_items,
    check_score_args,
};

use crate::common::{Stream, check_history, check_iterations, cholesky_solve, rng, uniform};

/// How the latent dimensions are fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LpcaFit {
    /// One dimension at a time, earlier ones fixed (schein2005 §4.1).
    #[default]
    Stagewise,
    /// All dimensions together (the authors' public code).
    Joint,
}

/// Hyper-parameters of logistic PCA, validated at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LpcaParams {
    dims: usize,
    fit: LpcaFit,
    iterations: usize,
    tolerance: f64,
}

impl LpcaParams {
    /// Logistic PCA with `dims` latent dimensions (`0` is item popularity). Defaults
    /// (ours): stagewise, at most 100 sweeps per stage, relative tolerance 1e-5.
    pub fn new(dims: usize) -> Self {
        LpcaParams { dims, fit: LpcaFit::Stagewise, iterations: 100, tolerance: 1e-5 }
    }

    /// The same parameters with another fitting order.
    pub fn with_fit(mut self, fit: LpcaFit) -> Self {
        self.fit = fit;
        self
    }

    /// At most `iterations` sweeps (a `U` block then a `(V, Δ)` block) per stage, stopping
    /// when the relative likelihood gain of a sweep is below `tolerance` (never before 10
    /// sweeps, or `iterations` if smaller).
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`](recs_core::RecsError::InvalidParameter) for 0 iterations or a negative tolerance.
    pub fn with_iterations(mut self, iterations: usize, tolerance: f64) -> Result<Self> {
        check_iterations(iterations, tolerance)?;
        self.iterations = iterations;
        self.tolerance = tolerance;
        Ok(self)
    }

    /// Number of latent dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }
}

/// How the fit went.
#[derive(Debug, Clone, PartialEq)]
pub struct LpcaReport {
    /// The fitting order used.
    pub fit: LpcaFit,
    /// Log-likelihood `Σ log σ(QΘ)` at the start and after every block update
    /// (never decreasing up to rounding).
    pub log_likelihood: Vec<f64>,
    /// Sweeps run in each stage (one stage for the joint fit; none for `|L| = 0`).
    pub sweeps: Vec<usize>,
    /// True when every stage stopped on the tolerance rather than the sweep limit.
    pub converged: bool,
}

/// A fitted logistic PCA model. Scores are the natural parameters `Θ_nd` (a monotone
/// transform of `P(X_nd = 1)`), comparable across persons.
#[derive(Debug, Clone)]
pub struct Lpca {
    n_users: usize,
    n_items: usize,
    dims: usize,
    /// `users × dims`.
    u: Vec<f64>,
    /// `items × dims` (row `d` is `V_·d`).
    v: Vec<f64>,
    delta: Vec<f64>,
    /// Items with a finite optimum (met by some but not all persons).
    active: Vec<bool>,
    report: LpcaReport,
}

/// `T(x) = tanh(x/2) / x`, with the series `1/2 − x²/24` near 0.
fn t(x: f64) -> f64 {
    if x.abs() < 1e-4 { 0.5 - x * x / 24.0 } else { (x / 2.0).tanh() / x }
}

/// The terms of one cell for `q = ±1`, from one exponential: with `a = |θ|` and
/// `e = exp(−a)`, `log σ(qθ) = −ln(1 + e) − [qθ < 0] a` and
/// `T(θ) = tanh(a/2)/a = (1 − e)/((1 + e) a)` (`1 − e` from `expm1` when `a < 1`, where
/// the subtraction would cancel; the series `1/2 − a²/24` below 1e-4). Symmetric in the
/// sign of `θ`, so complementing the data mirrors the fit exactly.
#[derive(Debug, Clone, Copy)]
struct Cell {
    /// `1 + e`, in `(1, 2]`.
    one_plus_e: f64,
    /// `[qθ < 0] a`.
    penalty: f64,
    /// `T(θ)`.
    t: f64,
}

impl Cell {
    #[inline]
    fn new(theta: f64, q: f64) -> Cell {
        let a = theta.abs();
        let (e, one_minus_e) = if a < 1.0 {
            let m = (-a).exp_m1();
            (1.0 + m, -m)
        } else {
            let e = (-a).exp();
            (e, 1.0 - e)
        };
        let t = if a < 1e-4 { 0.5 - a * a / 24.0 } else { one_minus_e / ((1.0 + e) * a) };
        Cell { one_plus_e: 1.0 + e, penalty: if q * theta < 0.0 { a } else { 0.0 }, t }
    }

    /// `log σ(qθ)` of this cell alone.
    #[cfg(test)]
    fn log_sigma(self) -> f64 {
        -self.one_plus_e.ln() - self.penalty
    }
}

/// Factors `1 + e ≤ 2` multiplied before one logarithm is taken: 2^512 is far from
/// overflow.
const LOG_BLOCK: usize = 512;

/// A sum of `log σ(QΘ)` over cells in a fixed order, with one logarithm per
/// [`LOG_BLOCK`] cells instead of one per cell (`Σ ln(1 + e) = ln Π (1 + e)`); the
/// per-cell logarithm took about a quarter of the time of a pass.
#[derive(Debug, Default)]
struct LogLikelihood {
    logs: f64,
    product: f64,
    factors: usize,
    penalties: f64,
}

impl LogLikelihood {
    fn new() -> Self {
        LogLikelihood { logs: 0.0, product: 1.0, factors: 0, penalties: 0.0 }
    }

    #[inline]
    fn add(&mut self, cell: Cell) {
        self.penalties += cell.penalty;
        self.product *= cell.one_plus_e;
        self.factors += 1;
        if self.factors == LOG_BLOCK {
            self.logs += self.product.ln();
            (self.product, self.factors) = (1.0, 0);
        }
    }

    fn total(&self) -> f64 {
        -(self.logs + self.product.ln()) - self.penalties
    }
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

/// One row's terms as a block reads them: the row's coordinates on the block's free
/// axes (U block: `u_n` on the free dimensions; (V, Δ) block: those and a 1 for the bias),
/// the free columns of `V`, and `Θ`, `Q`, `T(Θ)` of every item.
struct RowTerms<'a> {
    coords: &'a [f64],
    v_free: &'a [f64],
    theta: &'a [f64],
    q: &'a [f64],
    t: &'a [f64],
}

/// One cell's share of a block's normal equations: `b += target · x` and the lower
/// triangle of `a += T x xᵀ` (row-major, `x.len()` square), in index order. Generic in
/// the width `W` (`0`: `x.len()`, known only at run time) so that the widths of the
/// stagewise fit (one free dimension; with the bias, two) compile to straight-line code
/// doing the same arithmetic in the same order.
#[inline(always)]
fn add_cell<const W: usize>(a: &mut [f64], b: &mut [f64], x: &[f64], target: f64, tnd: f64) {
    let w = if W == 0 { x.len() } else { W };
    let (a, b, x) = (&mut a[..w * w], &mut b[..w], &x[..w]);
    for i in 0..w {
        b[i] += target * x[i];
        let weighted = tnd * x[i];
        for j in 0..=i {
            a[i * w + j] += weighted * x[j];
        }
    }
}

/// Rows per chunk of the column pass: fixed, so the reduction order (and the result) does
/// not depend on the number of threads.
const CHUNK_ROWS: usize = 512;

/// Sweeps every stage runs before the tolerance may stop it: a fresh dimension starts near
/// a saddle point where the first gains are small.
const MIN_SWEEPS: usize = 10;

/// Most bound-maximising updates when folding in a person.
const FOLD_IN_ITERATIONS: usize = 2000;

struct Fitter<'a> {
    train: &'a Interactions,
    n: usize,
    d: usize,
    dims: usize,
    u: Vec<f64>,
    v: Vec<f64>,
    delta: Vec<f64>,
    active: Vec<bool>,
    /// Persons with training events. The others are users kept out of training (to be
    /// folded in later): they take no part in the fit, and their `u` stays 0.
    trained: Vec<bool>,
}

/// Per-thread buffers of one row's pass.
struct RowScratch {
    theta: Vec<f64>,
    q: Vec<f64>,
    /// `T(Θ_nd)`.
    t: Vec<f64>,
    a: Vec<f64>,
    /// The row's coordinates on the free dimensions.
    coords: Vec<f64>,
}

/// The U block's solutions for the free dimensions (`persons × |F|`), computed but not
/// yet applied, and the log-likelihood of the state they were computed from.
struct USolution {
    values: Vec<f64>,
    log_likelihood: f64,
}

impl Fitter<'_> {
    /// `Θ_n·` and `Q_n·` for row `n`.
    fn row(&self, n: usize, theta: &mut [f64], q: &mut [f64]) {
        let k = self.dims;
        let un = &self.u[n * k..(n + 1) * k];
        for d in 0..self.d {
            let vd = &self.v[d * k..(d + 1) * k];
            theta[d] = self.delta[d] + un.iter().zip(vd).map(|(a, b)| a * b).sum::<f64>();
        }
        q.fill(-1.0);
        for &item in self.train.user_items(n as u32) {
            q[item as usize] = 1.0;
        }
    }

    fn scratch(&self, f: usize) -> RowScratch {
        let row = vec![0.0; self.d];
        RowScratch {
            theta: row.clone(),
            q: row.clone(),
            t: row,
            a: vec![0.0; f * f],
            coords: vec![0.0; f],
        }
    }

    /// `Θ_n·`, `Q_n·` and `T(Θ_n·)` of row `n` into `scratch`; returns the row's
    /// log-likelihood (summed in item order).
    fn row_terms(&self, n: usize, scratch: &mut RowScratch) -> f64 {
        self.row(n, &mut scratch.theta, &mut scratch.q);
        let RowScratch { theta, q, t, .. } = scratch;
        let mut ll = LogLikelihood::new();
        for d in 0..theta.len() {
            let cell = Cell::new(theta[d], q[d]);
            t[d] = cell.t;
            ll.add(cell);
        }
        ll.total()
    }

    /// One pass over the rows: the U block's solutions for the free dimensions `free` at
    /// the current state, and that state's log-likelihood. Rows are independent; the
    /// per-row likelihoods are summed in row order, so the result does not depend on the
    /// number of threads.
    fn solve_u(&self, free: &[usize]) -> USolution {
        let (k, f) = (self.dims, free.len());
        let v_free = self.free_columns(free);
        let mut values = vec![0.0; self.n * f];
        let mut row_ll = vec![0.0; self.n];
        values.par_chunks_mut(f).zip(row_ll.par_iter_mut()).enumerate().for_each_init(
            || self.scratch(f),
            |scratch, (n, (b, ll))| {
                let un = &self.u[n * k..(n + 1) * k];
                if !self.trained[n] {
                    for (value, &l) in b.iter_mut().zip(free) {
                        *value = un[l];
                    }
                    return;
                }
                *ll = self.row_terms(n, scratch);
                let RowScratch { theta, q, t, a, coords } = scratch;
                a.fill(0.0);
                b.fill(0.0);
                for (c, &l) in coords.iter_mut().zip(free) {
                    *c = un[l];
                }
                let row = RowTerms { coords, v_free: &v_free, theta, q, t };
                match f {
                    1 => self.add_u_row::<1>(&row, a, b),
                    _ => self.add_u_row::<0>(&row, a, b),
                }
                for i in 0..f {
                    for j in 0..i {
                        a[j * f + i] = a[i * f + j];
                    }
                }
                if !cholesky_solve(a, b, f) {
                    for (value, &l) in b.iter_mut().zip(free) {
                        *value = un[l];
                    }
                }
            },
        );
        USolution { values, log_likelihood: row_ll.iter().sum() }
    }

    /// Adds every cell of a row to each item's (V, Δ) normal equations (width `W`: see
    /// [`add_cell`]).
    #[inline(always)]
    fn add_v_row<const W: usize>(&self, row: &RowTerms<'_>, a: &mut [f64], b: &mut [f64]) {
        let f = row.coords.len();
        let g = f - 1;
        for d in 0..self.d {
            if !self.active[d] {
                continue;
            }
            let tnd = row.t[d];
            let vd = &row.v_free[d * g..(d + 1) * g];
            let own: f64 =
                row.coords.iter().zip(vd).map(|(&u, &v)| u * v).sum::<f64>() + self.delta[d];
            let target = row.q[d] - tnd * (row.theta[d] - own);
            let (ad, bd) = (&mut a[d * f * f..(d + 1) * f * f], &mut b[d * f..(d + 1) * f]);
            add_cell::<W>(ad, bd, row.coords, target, tnd);
        }
    }

    /// Adds every cell of a row to the U block's normal equations of that row (width `W`:
    /// see [`add_cell`]).
    #[inline(always)]
    fn add_u_row<const W: usize>(&self, row: &RowTerms<'_>, a: &mut [f64], b: &mut [f64]) {
        let f = row.coords.len();
        for d in 0..self.d {
            if !self.active[d] {
                continue;
            }
            let tnd = row.t[d];
            let vd = &row.v_free[d * f..(d + 1) * f];
            let own: f64 = row.coords.iter().zip(vd).map(|(&u, &v)| u * v).sum();
            let target = row.q[d] - tnd * (row.theta[d] - own);
            add_cell::<W>(a, b, vd, target, tnd);
        }
    }

    /// The free dimensions' columns of `V`, item by item (`items × |F|`): gathered once
    /// per pass so the per-cell loops read them contiguously.
    fn free_columns(&self, free: &[usize]) -> Vec<f64> {
        let k = self.dims;
        (0..self.d).flat_map(|d| free.iter().map(move |&l| self.v[d * k + l])).collect()
    }

    fn apply_u(&mut self, free: &[usize], solution: &USolution) {
        let (k, f) = (self.dims, free.len());
        for (n, solved) in solution.values.chunks(f).enumerate() {
            for (&l, &value) in free.iter().zip(solved) {
                self.u[n * k + l] = value;
            }
        }
    }

    /// The (V, Δ) block for free dimensions `free`; returns the log-likelihood before it.
    fn update_v(&mut self, free: &[usize]) -> f64 {
        let (k, f, d_count) = (self.dims, free.len() + 1, self.d);
        let this = &*self;
        let v_free = self.free_columns(free);
        let chunks: Vec<(Vec<f64>, Vec<f64>, f64)> = (0..self.n.div_ceil(CHUNK_ROWS))
            .into_par_iter()
            .map(|chunk| {
                let mut a = vec![0.0; d_count * f * f];
                let mut b = vec![0.0; d_count * f];
                let mut ll = 0.0;
                let mut scratch = this.scratch(0);
                let mut feature = vec![0.0; f];
                for n in chunk * CHUNK_ROWS..((chunk + 1) * CHUNK_ROWS).min(this.n) {
                    if !this.trained[n] {
                        continue;
                    }
                    ll += this.row_terms(n, &mut scratch);
                    let RowScratch { theta, q, t, .. } = &scratch;
                    let un = &this.u[n * k..(n + 1) * k];
                    for (i, &l) in free.iter().enumerate() {
                        feature[i] = un[l];
                    }
                    feature[f - 1] = 1.0;
                    let row = RowTerms { coords: &feature, v_free: &v_free, theta, q, t };
                    match f {
                        2 => this.add_v_row::<2>(&row, &mut a, &mut b),
                        _ => this.add_v_row::<0>(&row, &mut a, &mut b),
                    }
                }
                (a, b, ll)
            })
            .collect();
        let mut a = vec![0.0; d_count * f * f];
        let mut b = vec![0.0; d_count * f];
        let mut total = 0.0;
        for (ca, cb, ll) in chunks {
            a.iter_mut().zip(&ca).for_each(|(x, y)| *x += y);
            b.iter_mut().zip(&cb).for_each(|(x, y)| *x += y);
            total += ll;
        }
        for d in 0..d_count {
            if !self.active[d] {
                continue;
            }
            let ad = &mut a[d * f * f..(d + 1) * f * f];
            for i in 0..f {
                for j in 0..i {
                    ad[j * f + i] = ad[i * f + j];
                }
            }
            let bd = &mut b[d * f..(d + 1) * f];
            if cholesky_solve(ad, bd, f) {
                for (i, &l) in free.iter().enumerate() {
                    self.v[d * k + l] = bd[i];
                }
                self.delta[d] = bd[f - 1];
            }
        }
        total
    }

    fn log_likelihood(&self) -> f64 {
        let mut lls = vec![0.0; self.n];
        lls.par_iter_mut().enumerate().for_each_init(
            || self.scratch(0),
            |scratch, (n, ll)| {
                if !self.trained[n] {
                    return;
                }
                self.row(n, &mut scratch.theta, &mut scratch.q);
                let mut sum = LogLikelihood::new();
                for (&theta, &q) in scratch.theta.iter().zip(&scratch.q) {
                    sum.add(Cell::new(theta, q));
                }
                *ll = sum.total();
            },
        );
        lls.iter().sum()
    }

    /// Runs sweeps on the free dimensions, appending to the history; returns
    /// (sweeps, converged).
    ///
    /// A sweep is a U block then a (V, Δ) block. Each block needs one pass over the
    /// rows at the current state, which also yields that state's likelihood, so the pass
    /// of the next sweep's U block provides the likelihood after this sweep: two passes
    /// per sweep. When the tolerance stops the stage, the U solutions of that last pass
    /// are discarded.
    fn run(
        &mut self,
        free: &[usize],
        params: &LpcaParams,
        history: &mut Vec<f64>,
    ) -> (usize, bool) {
        let mut solution = self.solve_u(free);
        if history.is_empty() {
            history.push(solution.log_likelihood);
        }
        let mut previous = *history.last().unwrap_or(&f64::NEG_INFINITY);
        for sweep in 1..=params.iterations {
            self.apply_u(free, &solution);
            let before_v = self.update_v(free);
            history.push(before_v);
            let after = if sweep < params.iterations {
                solution = self.solve_u(free);
                solution.log_likelihood
            } else {
                self.log_likelihood()
            };
            history.push(after);
            if sweep >= MIN_SWEEPS && after - previous <= params.tolerance * previous.abs() {
                return (sweep, true);
            }
            previous = after;
        }
        (params.iterations, false)
    }
}

impl recs_core::Fit for LpcaParams {
    type Model = Lpca;

    fn fit(&self, data: &TrainData<'_>) -> Result<Lpca> {
        let train = data.interactions;
        train.require_events()?;
        let (n, d, k) = (train.n_users(), train.n_items(), self.dims);
        let trained: Vec<bool> = (0..n as u32).map(|user| train.has_events(user)).collect();
        let persons = trained.iter().filter(|&&t| t).count();
        // |L| = 0 optimum: σ(Δ_d) = share of (trained) persons who met d.
        let counts = train.item_counts();
        let bound = logit(1.0 - 0.5 / persons as f64).max(1.0);
        let mut active = vec![true; d];
        let delta: Vec<f64> = counts
            .iter()
            .enumerate()
            .map(|(item, &c)| {
                if c == 0 || c as usize == persons {
                    active[item] = false;
                    if c == 0 { -bound } else { bound }
                } else {
                    logit(f64::from(c) / persons as f64)
                }
            })
            .collect();
        let mut init = rng(data.seed, Stream::Init);
        // U starts at 0, so the first block regresses on V's random axes and the path
        // of the fit is mirrored exactly when X is replaced by 1 − X.
        let u = vec![0.0; n * k];
        // V starts uniform in (−1, 1) (the authors' code uses (0, 1); signed axes leave
        // the saddle point faster and keep the mirror property).
        let mut v: Vec<f64> = (0..d * k).map(|_| 2.0 * uniform(&mut init) - 1.0).collect();
        for item in 0..d {
            if !active[item] {
                v[item * k..(item + 1) * k].fill(0.0);
            }
        }
        let mut fitter = Fitter { train, n, d, dims: k, u, v, delta, active, trained };
        let mut history = Vec::new();
        let mut sweeps = Vec::new();
        let mut converged = true;
        if k == 0 {
            history.push(fitter.log_likelihood());
        } else {
            match self.fit {
                LpcaFit::Joint => {
                    let free: Vec<usize> = (0..k).collect();
                    let (s, c) = fitter.run(&free, self, &mut history);
                    sweeps.push(s);
                    converged &= c;
                }
                LpcaFit::Stagewise => {
                    // Dimensions not fitted yet contribute nothing.
                    let saved_v = fitter.v.clone();
                    fitter.v.fill(0.0);
                    for stage in 0..k {
                        for item in 0..d {
                            fitter.v[item * k + stage] = saved_v[item * k + stage];
                        }
                        let (s, c) = fitter.run(&[stage], self, &mut history);
                        sweeps.push(s);
                        converged &= c;
                    }
                }
            }
        }
        let Fitter { u, v, delta, active, .. } = fitter;
        Ok(Lpca {
            n_users: n,
            n_items: d,
            dims: k,
            u,
            v,
            delta,
            active,
            report: LpcaReport { fit: self.fit, log_likelihood: history, sweeps, converged },
        })
    }
}

impl Lpca {
    /// The fit report.
    pub fn report(&self) -> &LpcaReport {
        &self.report
    }

    /// Number of latent dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The item biases `Δ`.
    pub fn bias(&self) -> &[f64] {
        &self.delta
    }

    /// Person coordinates `U` (`persons × dims`, row-major).
    pub fn coordinates(&self) -> &[f64] {
        &self.u
    }

    /// Axes `V` stored item by item (`items × dims`, row-major; row `d` is `V_·d`).
    pub fn axes(&self) -> &[f64] {
        &self.v
    }

    /// `Θ_nd` for every person and item (`persons × items`), for inspection on small data.
    pub fn natural_parameters(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.n_users * self.n_items];
        for n in 0..self.n_users {
            for d in 0..self.n_items {
                out[n * self.n_items + d] =
                    self.theta(&self.u[n * self.dims..(n + 1) * self.dims], d);
            }
        }
        out
    }

    fn theta(&self, un: &[f64], d: usize) -> f64 {
        let vd = &self.v[d * self.dims..(d + 1) * self.dims];
        self.delta[d] + un.iter().zip(vd).map(|(a, b)| a * b).sum::<f64>()
    }

    /// Coordinates of a person unseen in training, by bound-maximising updates of `u`
    /// with `V` and `Δ` fixed, from `u = 0` until no coordinate moves by 1e-12 (at most
    /// 2,000 updates).
    fn fold_in(&self, items: &[u32]) -> Vec<f64> {
        let k = self.dims;
        let mut u = vec![0.0; k];
        if k == 0 {
            return u;
        }
        let mut q = vec![-1.0; self.n_items];
        for &item in items {
            q[item as usize] = 1.0;
        }
        for _ in 0..FOLD_IN_ITERATIONS {
            let mut a = vec![0.0; k * k];
            let mut b = vec![0.0; k];
            for d in 0..self.n_items {
                if !self.active[d] {
                    continue;
                }
                let vd = &self.v[d * k..(d + 1) * k];
                let tnd = t(self.theta(&u, d));
                let target = q[d] - tnd * self.delta[d];
                for i in 0..k {
                    b[i] += target * vd[i];
                    for j in 0..k {
                        a[i * k + j] += tnd * vd[i] * vd[j];
                    }
                }
            }
            if !cholesky_solve(&mut a, &mut b, k) {
                break;
            }
            let change = u.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            u = b;
            if change < 1e-12 {
                break;
            }
        }
        u
    }
}

impl Recommender for Lpca {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.n_items, user, items, out)?;
        let un = &self.u[user as usize * self.dims..(user as usize + 1) * self.dims];
        for (o, &item) in out.iter_mut().zip(items) {
            *o = self.theta(un, item as usize) as f32;
        }
        Ok(())
    }

    // Scores: `Θ_nd`, the log-odds of `P(X_nd = 1)`.
    recs_core::capabilities!(fold_in, scale(LogOdds));
}

impl FoldInUser for Lpca {
    /// Places the person (every history item counts as `X = 1`) by bound-maximising
    /// updates of `u` with `V` and `Δ` fixed, then scores `Θ`.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items, items, out)?;
        check_history(history.items, history.values, self.n_items)?;
        let u = self.fold_in(history.items);
        for (o, &item) in out.iter_mut().zip(items) {
            *o = self.theta(&u, item as usize) as f32;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Fit};

    /// A block matrix: persons 0..15 meet items 0..6, persons 15..30 meet items 6..12,
    /// with a few exceptions in both directions.
    fn blocks(flip: bool) -> Interactions {
        let mut events = Vec::new();
        for p in 0..30u32 {
            for m in 0..12u32 {
                let inside = (p < 15) == (m < 6);
                let present = if inside { (p + m) % 7 != 0 } else { (p * 3 + m) % 13 == 0 };
                if present != flip {
                    events.push(Event::new(p, m, 1.0));
                }
            }
        }
        Interactions::from_events(30, 12, events, DuplicatePolicy::Error).unwrap()
    }

    #[test]
    fn persons_without_training_events_take_no_part_in_the_fit() {
        // The same 30 persons with 5 more kept out of training (no events).
        let train = blocks(false);
        let events: Vec<Event> = train.events().collect();
        let wider = Interactions::from_events(35, 12, events, DuplicatePolicy::Error).unwrap();
        let params = LpcaParams::new(2).with_iterations(20, 0.0).unwrap();
        let a = params.fit(&TrainData::new(&train, 4)).unwrap();
        let b = params.fit(&TrainData::new(&wider, 4)).unwrap();
        assert_eq!(a.bias(), b.bias());
        assert_eq!(a.axes(), b.axes());
        assert_eq!(a.coordinates(), &b.coordinates()[..30 * 2]);
        assert!(b.coordinates()[30 * 2..].iter().all(|&u| u == 0.0));
        assert_eq!(a.report().log_likelihood, b.report().log_likelihood);
    }

    #[test]
    fn zero_dimensions_is_item_popularity() {
        let train = blocks(false);
        let model = LpcaParams::new(0).fit(&TrainData::new(&train, 1)).unwrap();
        for (item, &count) in train.item_counts().iter().enumerate() {
            let sigma = 1.0 / (1.0 + (-model.bias()[item]).exp());
            assert!((sigma - f64::from(count) / 30.0).abs() < 1e-12);
        }
        // Scores then rank items by popularity for everyone, and read as probabilities
        // they are the items' shares.
        let mut out = vec![0.0f32; 12];
        model.score(4, &(0..12).collect::<Vec<_>>(), &mut out).unwrap();
        let counts = train.item_counts();
        for (&score, &count) in out.iter().zip(&counts) {
            let p = model.score_scale().probability(score).unwrap();
            assert!((p - f64::from(count) / 30.0).abs() < 1e-6, "{p} vs {count}/30");
        }
        for a in 0..12 {
            for b in 0..12 {
                if counts[a] > counts[b] {
                    assert!(out[a] > out[b]);
                }
            }
        }
    }

    #[test]
    fn likelihood_never_decreases_across_blocks() {
        let train = blocks(false);
        for fit in [LpcaFit::Stagewise, LpcaFit::Joint] {
            let params = LpcaParams::new(3).with_fit(fit).with_iterations(30, 0.0).unwrap();
            let model = params.fit(&TrainData::new(&train, 2)).unwrap();
            let history = &model.report().log_likelihood;
            assert!(history.len() > 20);
            for w in history.windows(2) {
                assert!(w[1] >= w[0] - 1e-9 * w[0].abs(), "{fit:?}: {} then {}", w[0], w[1]);
            }
            assert!(history.last().unwrap() > &history[0]);
        }
    }

    #[test]
    fn complementing_the_data_flips_the_sign_of_theta() {
        let (a, b) = (blocks(false), blocks(true));
        for fit in [LpcaFit::Stagewise, LpcaFit::Joint] {
            let params = LpcaParams::new(2).with_fit(fit).with_iterations(15, 0.0).unwrap();
            let ma = params.fit(&TrainData::new(&a, 3)).unwrap();
            let mb = params.fit(&TrainData::new(&b, 3)).unwrap();
            for (x, y) in ma.natural_parameters().iter().zip(mb.natural_parameters()) {
                assert!((x + y).abs() < 1e-6 * x.abs().max(1.0), "{fit:?}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn one_dimension_reconstructs_the_blocks_with_the_right_signs() {
        let train = blocks(false);
        let model = LpcaParams::new(1).fit(&TrainData::new(&train, 4)).unwrap();
        let theta = model.natural_parameters();
        let mut wrong = 0;
        for p in 0..30 {
            for m in 0..12 {
                let inside = (p < 15) == (m < 6);
                if (theta[p * 12 + m] > 0.0) != inside {
                    wrong += 1;
                }
            }
        }
        // Only the exceptions planted in the data may disagree.
        assert!(wrong <= 14, "{wrong} cells with the wrong sign: {theta:?} {:?}", model.report());
        // A second stage does not lower the likelihood reached by the first.
        let two = LpcaParams::new(2).fit(&TrainData::new(&train, 4)).unwrap();
        assert!(two.report().log_likelihood.last() >= model.report().log_likelihood.last());
    }

    #[test]
    fn fold_in_places_a_training_person_near_its_coordinates() {
        let train = blocks(false);
        let model = LpcaParams::new(1)
            .with_iterations(200, 1e-12)
            .unwrap()
            .fit(&TrainData::new(&train, 4))
            .unwrap();
        let items: Vec<u32> = (0..12).collect();
        let (mut a, mut b) = (vec![0.0f32; 12], vec![0.0f32; 12]);
        for person in [0u32, 20] {
            model.score(person, &items, &mut a).unwrap();
            model.score_history(train.user_row(person), &items, &mut b).unwrap();
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-2 * x.abs().max(1.0), "{x} vs {y}");
            }
        }
    }

    #[test]
    fn bound_function_is_smooth_at_zero() {
        assert!((t(0.0) - 0.5).abs() < 1e-15);
        assert!((t(1e-4 * 0.999) - t(1e-4 * 1.001)).abs() < 1e-9);
        assert!((t(2.0) - (1.0f64).tanh() / 2.0).abs() < 1e-15);
        // The fused terms agree with the direct formulas and are stable for large |θ|.
        for theta in
            [-800.0, -30.0, -2.0, -0.7, -1e-3, -1e-5, 0.0, 1e-5, 1e-3, 0.7, 2.0, 30.0, 800.0]
        {
            for q in [-1.0, 1.0] {
                let cell = Cell::new(theta, q);
                let (log_sigma, tt) = (cell.log_sigma(), cell.t);
                let x: f64 = q * theta;
                let direct = if x >= 0.0 { -(-x).exp().ln_1p() } else { x - x.exp().ln_1p() };
                assert!((log_sigma - direct).abs() <= 1e-15 * direct.abs().max(1.0), "{theta} {q}");
                assert!((tt - t(theta)).abs() <= 1e-14 * t(theta), "{theta}: {tt} vs {}", t(theta));
            }
        }
        assert!((Cell::new(-800.0, 1.0).log_sigma() + 800.0).abs() < 1e-9);
        assert!(Cell::new(800.0, 1.0).log_sigma().abs() < 1e-12);
    }

    #[test]
    fn blocked_logarithms_sum_the_cells() {
        // More cells than one block, with small and large |θ| of both signs.
        let cells: Vec<Cell> = (0..3 * LOG_BLOCK + 7)
            .map(|i| {
                let theta = ((i * 37) % 101) as f64 / 7.0 - 7.0;
                Cell::new(theta, if i % 3 == 0 { 1.0 } else { -1.0 })
            })
            .collect();
        let mut blocked = LogLikelihood::new();
        cells.iter().for_each(|&c| blocked.add(c));
        let direct: f64 = cells.iter().map(|c| c.log_sigma()).sum();
        assert!((blocked.total() - direct).abs() <= 1e-12 * direct.abs(), "{direct}");
    }

    #[test]
    fn same_seed_same_model_for_any_thread_count() {
        // More persons than one chunk of the column pass.
        let persons = 2 * CHUNK_ROWS as u32 + 100;
        let events = (0..persons).flat_map(|p| {
            (0..12u32)
                .filter(move |&m| ((p < persons / 2) == (m < 6)) != ((p * 7 + m * 5) % 11 == 0))
                .map(move |m| Event::new(p, m, 1.0))
        });
        let train = Interactions::from_events(persons as usize, 12, events, DuplicatePolicy::Error)
            .unwrap();
        let params = LpcaParams::new(2).with_iterations(4, 0.0).unwrap();
        let (a, b) = recs_testkit::on_one_and_three_threads(|| {
            params.fit(&TrainData::new(&train, 9)).unwrap()
        });
        assert_eq!(a.report(), b.report());
        assert_eq!(a.coordinates(), b.coordinates());
        assert_eq!(a.axes(), b.axes());
        assert_eq!(a.bias(), b.bias());
    }

    #[test]
    fn invalid_parameters_are_refused() {
        assert!(LpcaParams::new(2).with_iterations(0, 1e-3).is_err());
        assert!(LpcaParams::new(2).with_iterations(5, -1.0).is_err());
    }
}
