//! The two-way aspect model (probabilistic latent semantic analysis) fitted by tempered EM
//! (Hofmann 1999; Hofmann & Puzicha 1999), as schein2005 §4.2 uses it for recommendation.
//!
//! Notation (schein2005 Table 2): person `p`, movie (item) `m`, actor (attribute) `a`,
//! latent class `z`, co-occurrence counts `n(p, x)` where `x` is an item or an attribute.
//!
//! - Symmetric form: `P(p, x) = Σ_z P(z) P(p|z) P(x|z)`.
//! - Asymmetric form (schein2005 eq. 5): `P(p, x) = P(p) Σ_z P(z|p) P(x|z)`.
//! - Log-likelihood `Σ n(p, x) log P(p, x)`.
//! - Tempered E-step: `P_β(z|p, x) ∝ P(z) [P(p|z) P(x|z)]^β` (symmetric) or
//!   `[P(z|p) P(x|z)]^β` (asymmetric); the M-step re-normalises the expected counts
//!   `n(p, x) P_β(z|p, x)`; β = 1 is plain EM.
//! - Schedule (Hofmann 1999 §3.6): a share of the training cells is held out; EM runs at
//!   β = 1 while the held-out likelihood improves (a phase ends after 25 iterations
//!   without a gain), then at β ← η β, η² β, … down to the smallest β allowed, each phase
//!   starting from the best model so far. The path of β values that led to the best
//!   held-out likelihood — ending at the last β whose lowering still helped — is then
//!   replayed from the same start on all training cells. Every β down to the floor is
//!   tried because one step of η is too small to judge: on MS Web EM over-fits at β = 1
//!   from the first iteration and the held-out gain appears only near β ≈ 0.6.
//! - Person/attribute model (schein2005 §4.2.2, eq. 6): each (person, item) event becomes
//!   one (person, attribute) event per attribute of the item; items are placed in the
//!   latent space by folding in (§4.2.3, eqs. 7–8) from their attributes, with every fitted
//!   parameter fixed: `P(z|a, m) ∝ P(a|z) P(z|m)`, `P(z|m) ∝ Σ_a n(a, m) P(z|a, m)`.
//!   Scores are `P(p|m) = Σ_z P(p|z) P(z|m)` (eq. 9; a uniform prior over items).

use std::borrow::Cow;

use rayon::prelude::*;
use recs_core::{
    FoldInUser, Interactions, ItemAttributes, NewItems, Recommender, RecsError, Result,
    ScoreNewItems, Shape, TrainData, UserRow, check_index, check_items, check_len,
    check_score_args,
};

use crate::common::{Stream, check_history, check_iterations, rng, uniform};

/// Which parametrisation of the aspect model EM fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AspectForm {
    /// `P(z) P(p|z) P(x|z)`.
    #[default]
    Symmetric,
    /// `P(p) P(z|p) P(x|z)` with `P(p)` the empirical share of the person's events.
    Asymmetric,
}

impl AspectForm {
    /// The parameter value naming this form.
    pub fn name(self) -> &'static str {
        match self {
            AspectForm::Symmetric => "symmetric",
            AspectForm::Asymmetric => "asymmetric",
        }
    }
}

impl std::fmt::Display for AspectForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for AspectForm {
    type Err = RecsError;

    /// `symmetric` or `asymmetric`.
    fn from_str(text: &str) -> Result<Self> {
        [AspectForm::Symmetric, AspectForm::Asymmetric]
            .into_iter()
            .find(|f| f.name() == text)
            .ok_or_else(|| RecsError::invalid_parameter("form", text, "symmetric or asymmetric"))
    }
}

/// Hyper-parameters of the aspect model, validated at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AspectParams {
    classes: usize,
    form: AspectForm,
    holdout: f64,
    beta_decay: f64,
    min_beta: f64,
    /// A single β for the whole fit instead of the schedule search.
    fixed_beta: Option<f64>,
    max_iterations: usize,
    tolerance: f64,
}

impl AspectParams {
    /// An aspect model with `classes` latent classes. Defaults (ours, following Hofmann
    /// 1999): symmetric form, 10% of the training cells held out for the schedule, η =
    /// 0.95, β ≥ 0.5, at most 300 EM iterations per β, relative tolerance 1e-5.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] when `classes` is 0.
    pub fn new(classes: usize) -> Result<Self> {
        if classes == 0 {
            return Err(RecsError::invalid_parameter("classes", 0, "at least 1 latent class"));
        }
        Ok(AspectParams {
            classes,
            form: AspectForm::Symmetric,
            holdout: 0.1,
            beta_decay: 0.95,
            min_beta: 0.5,
            fixed_beta: None,
            max_iterations: 300,
            tolerance: 1e-5,
        })
    }

    /// The same parameters with another form.
    pub fn with_form(mut self, form: AspectForm) -> Self {
        self.form = form;
        self
    }

    /// Share of training cells held out to pick the tempering schedule; 0 disables the
    /// schedule and runs EM at the fixed β (plain EM, β = 1, without one) until the
    /// training likelihood has moved by less than the tolerance for 25 iterations in a
    /// row.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] unless `0 ≤ share < 1`.
    pub fn with_holdout(mut self, share: f64) -> Result<Self> {
        if !(0.0..1.0).contains(&share) {
            return Err(RecsError::invalid_parameter("holdout", share, "a share in [0, 1)"));
        }
        self.holdout = share;
        Ok(self)
    }

    /// The tempering factor η (β ← η β) and the smallest β tried.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] unless `0 < decay < 1` and `0 < min_beta ≤ 1`.
    pub fn with_beta_schedule(mut self, decay: f64, min_beta: f64) -> Result<Self> {
        if !(decay > 0.0 && decay < 1.0) {
            return Err(RecsError::invalid_parameter("beta_decay", decay, "a factor in (0, 1)"));
        }
        if !(min_beta > 0.0 && min_beta <= 1.0) {
            return Err(RecsError::invalid_parameter("min_beta", min_beta, "a value in (0, 1]"));
        }
        self.beta_decay = decay;
        self.min_beta = min_beta;
        Ok(self)
    }

    /// Tempered EM at `beta` alone (β = 1 is plain EM), stopped when the held-out cells
    /// (see [`AspectParams::with_holdout`]) stop gaining, instead of the schedule search.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] unless `0 < beta ≤ 1`.
    pub fn with_fixed_beta(mut self, beta: f64) -> Result<Self> {
        if !(beta > 0.0 && beta <= 1.0) {
            return Err(RecsError::invalid_parameter("beta", beta, "a value in (0, 1]"));
        }
        self.fixed_beta = Some(beta);
        Ok(self)
    }

    /// At most `iterations` EM iterations per β value, and the relative tolerance that
    /// ends a phase.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] for 0 iterations or a negative tolerance.
    pub fn with_iterations(mut self, iterations: usize, tolerance: f64) -> Result<Self> {
        check_iterations(iterations, tolerance)?;
        self.max_iterations = iterations;
        self.tolerance = tolerance;
        Ok(self)
    }

    /// Number of latent classes.
    pub fn classes(&self) -> usize {
        self.classes
    }
}

/// How the fit went.
#[derive(Debug, Clone, PartialEq)]
pub struct AspectReport {
    /// The β of each EM iteration of the final fit (all 1 without tempering).
    pub betas: Vec<f64>,
    /// Training log-likelihood `Σ n log P(p, x)` (at β = 1) after each iteration of the
    /// final fit.
    pub log_likelihood: Vec<f64>,
    /// Held-out log-likelihood after each iteration of the schedule search (empty without
    /// a held-out share).
    pub heldout_log_likelihood: Vec<f64>,
    /// Number of held-out cells used by the schedule search.
    pub heldout_cells: usize,
    /// Events (the sum of the counts) in those held-out cells.
    pub heldout_events: f64,
    /// Held-out log-likelihood of the independence model `P(p) P(x)` with the marginals
    /// of the cells the search fitted on (`None` without a held-out share): a fit whose
    /// best held-out likelihood is not above it has learnt nothing its start did not know.
    pub heldout_independence_log_likelihood: Option<f64>,
    /// Events (the sum of the counts) the final fit was trained on.
    pub events: f64,
    /// Training log-likelihood of the independence model `P(p) P(x)` (training
    /// marginals): [`log_likelihood`](Self::log_likelihood)'s last value minus this,
    /// divided by [`events`](Self::events), is what the classes add, in nats per event.
    pub independence_log_likelihood: f64,
    /// True when the final fit stopped because the likelihood gain fell below the
    /// tolerance (plain EM) or replayed a schedule whose every phase stopped early.
    pub converged: bool,
}

impl AspectReport {
    /// What the classes add to the independence model `P(p) P(x)` on the training cells,
    /// in nats per event: near 0 for a fit that stayed near its start.
    pub fn gain_over_independence(&self) -> Option<f64> {
        let last = *self.log_likelihood.last()?;
        (self.events > 0.0).then(|| (last - self.independence_log_likelihood) / self.events)
    }

    /// The schedule search's best held-out log-likelihood minus the independence model's,
    /// in nats per held-out event (`None` without held-out cells): at most 0 when the
    /// classes never predicted the held-out cells better than the marginals alone.
    pub fn heldout_gain_over_independence(&self) -> Option<f64> {
        let independence = self.heldout_independence_log_likelihood?;
        let best = self.heldout_log_likelihood.iter().copied().reduce(f64::max)?;
        (self.heldout_events > 0.0).then(|| (best - independence) / self.heldout_events)
    }

    /// The fit's facts for a run's report (see [`recs_core::Recommender::fit_facts`]).
    pub fn facts(&self) -> Vec<(&'static str, f64)> {
        let mut facts = vec![("EM iterations", self.betas.len() as f64)];
        if let Some(&beta) = self.betas.last() {
            facts.push(("final β", beta));
        }
        if let Some(gain) = self.gain_over_independence() {
            facts.push(("training gain over independence (nats per event)", gain));
        }
        if let Some(gain) = self.heldout_gain_over_independence() {
            facts.push(("held-out gain over independence (nats per event)", gain));
        }
        facts
    }
}

/// Rows per chunk of the parallel EM passes: fixed, so the order in which partial sums are
/// added (and so the result) does not depend on the number of threads.
const CHUNK_ROWS: usize = 256;

/// A sparse count matrix: rows = persons, columns = items or attributes.
#[derive(Debug, Clone)]
struct Counts {
    rows: usize,
    cols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl Counts {
    fn from_interactions(train: &Interactions) -> Self {
        let csr = train.csr();
        Counts {
            rows: train.n_users(),
            cols: train.n_items(),
            indptr: csr.indptr().raw_storage().to_vec(),
            indices: csr.indices().to_vec(),
            // Counts are the event values when positive: 1.0 for implicit data; a
            // rating counts as one event.
            values: csr.data().iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect(),
        }
    }

    /// Expands each (person, item) event into (person, attribute) events with the
    /// attribute weights (schein2005 §4.2.2).
    fn expand(train: &Interactions, attributes: &ItemAttributes) -> Self {
        let cols = attributes.n_attributes();
        let mut dense = vec![0.0f64; cols];
        let mut touched: Vec<u32> = Vec::new();
        let mut indptr = vec![0usize];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for user in 0..train.n_users() as u32 {
            let row = train.user_row(user);
            for (&item, &value) in row.items.iter().zip(row.values) {
                if value <= 0.0 {
                    continue;
                }
                let (attrs, weights) =
                    (attributes.item_attributes(item), attributes.item_weights(item));
                for (&a, &w) in attrs.iter().zip(weights) {
                    if w > 0.0 {
                        if dense[a as usize] == 0.0 {
                            touched.push(a);
                        }
                        dense[a as usize] += f64::from(w);
                    }
                }
            }
            touched.sort_unstable();
            for &a in &touched {
                indices.push(a);
                values.push(dense[a as usize]);
                dense[a as usize] = 0.0;
            }
            touched.clear();
            indptr.push(indices.len());
        }
        Counts { rows: train.n_users(), cols, indptr, indices, values }
    }

    fn total(&self) -> f64 {
        self.values.iter().sum()
    }

    fn row_totals(&self) -> Vec<f64> {
        self.indptr.windows(2).map(|w| self.values[w[0]..w[1]].iter().sum()).collect()
    }

    fn col_totals(&self) -> Vec<f64> {
        let mut totals = vec![0.0; self.cols];
        for (&c, &v) in self.indices.iter().zip(&self.values) {
            totals[c as usize] += v;
        }
        totals
    }

    /// `Σ n log P(p) P(x)` over the cells of `cells`, with the marginals `P(p)`, `P(x)` of
    /// `self`: the likelihood of the independence model, which every aspect model starts
    /// near and which its classes have to beat. A cell whose person or column `self` never
    /// saw gets the floor the aspect model's likelihood uses (10⁻³⁰⁰), as the aspect model
    /// gives it.
    fn independence_log_likelihood(&self, cells: &Counts) -> f64 {
        let total = self.total().max(f64::MIN_POSITIVE);
        let (rows, cols) = (self.row_totals(), self.col_totals());
        let mut sum = 0.0;
        for r in 0..cells.rows {
            for j in cells.indptr[r]..cells.indptr[r + 1] {
                let p = rows[r] / total * (cols[cells.indices[j] as usize] / total);
                sum += cells.values[j] * p.max(1e-300).ln();
            }
        }
        sum
    }

    /// Splits off a share of the cells, keeping at least one cell in every row and column.
    fn split(&self, share: f64, seed: u64) -> (Counts, Counts) {
        let nnz = self.indices.len();
        let target = (share * nnz as f64).round() as usize;
        let mut order: Vec<usize> = (0..nnz).collect();
        let mut random = rng(seed, Stream::Holdout);
        for i in (1..nnz).rev() {
            let j = (uniform(&mut random) * (i + 1) as f64) as usize;
            order.swap(i, j.min(i));
        }
        let mut row_left: Vec<usize> = self.indptr.windows(2).map(|w| w[1] - w[0]).collect();
        let mut col_left = vec![0usize; self.cols];
        for &c in &self.indices {
            col_left[c as usize] += 1;
        }
        let mut row_of = vec![0usize; nnz];
        for r in 0..self.rows {
            row_of[self.indptr[r]..self.indptr[r + 1]].fill(r);
        }
        let mut held = vec![false; nnz];
        let mut count = 0;
        for &k in &order {
            if count == target {
                break;
            }
            let (r, c) = (row_of[k], self.indices[k] as usize);
            if row_left[r] > 1 && col_left[c] > 1 {
                held[k] = true;
                row_left[r] -= 1;
                col_left[c] -= 1;
                count += 1;
            }
        }
        let part = |keep: bool| {
            let mut indptr = vec![0usize];
            let (mut indices, mut values) = (Vec::new(), Vec::new());
            for r in 0..self.rows {
                for k in self.indptr[r]..self.indptr[r + 1] {
                    if held[k] != keep {
                        indices.push(self.indices[k]);
                        values.push(self.values[k]);
                    }
                }
                indptr.push(indices.len());
            }
            Counts { rows: self.rows, cols: self.cols, indptr, indices, values }
        };
        (part(true), part(false))
    }
}

/// Parameters of a fitted aspect model in the symmetric form (the asymmetric fit is
/// converted): `P(z)`, `P(p|z)` (`rows × K`), `P(x|z)` (`cols × K`).
#[derive(Debug, Clone)]
struct Parameters {
    k: usize,
    class: Vec<f64>,
    row_given_class: Vec<f64>,
    col_given_class: Vec<f64>,
}

/// EM state in the fitted form.
#[derive(Debug, Clone)]
struct State {
    form: AspectForm,
    k: usize,
    /// P(z) (symmetric only).
    class: Vec<f64>,
    /// Symmetric: P(p|z), columns sum to 1. Asymmetric: P(z|p), rows sum to 1.
    rows: Vec<f64>,
    /// P(x|z), columns sum to 1.
    cols: Vec<f64>,
    /// Asymmetric: the empirical P(p).
    row_prior: Vec<f64>,
}

fn normalise_columns(matrix: &mut [f64], k: usize) {
    let mut sums = vec![0.0f64; k];
    for row in matrix.chunks(k) {
        for (s, v) in sums.iter_mut().zip(row) {
            *s += v;
        }
    }
    for row in matrix.chunks_mut(k) {
        for (v, s) in row.iter_mut().zip(&sums) {
            *v = if *s > 0.0 { *v / s } else { 0.0 };
        }
    }
}

fn normalise(vector: &mut [f64]) {
    let sum: f64 = vector.iter().sum();
    if sum > 0.0 {
        vector.iter_mut().for_each(|v| *v /= sum);
    }
}

impl State {
    fn init(form: AspectForm, k: usize, counts: &Counts, seed: u64) -> Self {
        let mut random = rng(seed, Stream::Init);
        let mut draw =
            |n: usize| -> Vec<f64> { (0..n).map(|_| 0.5 + uniform(&mut random)).collect() };
        let mut cols = draw(counts.cols * k);
        normalise_columns(&mut cols, k);
        let mut rows = draw(counts.rows * k);
        let mut class = vec![1.0 / k as f64; k];
        match form {
            AspectForm::Symmetric => normalise_columns(&mut rows, k),
            AspectForm::Asymmetric => {
                rows.chunks_mut(k).for_each(normalise);
                class.clear();
            }
        }
        let total = counts.total().max(f64::MIN_POSITIVE);
        let row_prior = counts.row_totals().iter().map(|n| n / total).collect();
        State { form, k, class, rows, cols, row_prior }
    }

    /// The (unnormalised, β = 1) joint `P(p, x)` for one cell.
    fn joint(&self, r: usize, c: usize) -> f64 {
        let k = self.k;
        let (row, col) = (&self.rows[r * k..(r + 1) * k], &self.cols[c * k..(c + 1) * k]);
        match self.form {
            AspectForm::Symmetric => (0..k).map(|z| self.class[z] * row[z] * col[z]).sum(),
            AspectForm::Asymmetric => {
                self.row_prior[r] * (0..k).map(|z| row[z] * col[z]).sum::<f64>()
            }
        }
    }

    /// `Σ n log P(p, x)` over the cells of `counts`: rows in fixed chunks, in parallel,
    /// the chunk sums added in order.
    fn log_likelihood(&self, counts: &Counts) -> f64 {
        let chunks = counts.rows.div_ceil(CHUNK_ROWS);
        let sums: Vec<f64> = (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let mut total = 0.0;
                for r in chunk * CHUNK_ROWS..((chunk + 1) * CHUNK_ROWS).min(counts.rows) {
                    for j in counts.indptr[r]..counts.indptr[r + 1] {
                        let p = self.joint(r, counts.indices[j] as usize);
                        total += counts.values[j] * p.max(1e-300).ln();
                    }
                }
                total
            })
            .collect();
        sums.iter().sum()
    }

    /// One tempered EM iteration on `counts`.
    ///
    /// `[a b]^β = a^β b^β`, so the tempered factors are raised to β once per person and
    /// column (`O((rows + cols) K)` powers) instead of once per cell and class.
    fn step(&mut self, counts: &Counts, beta: f64) {
        let k = self.k;
        let temper = |values: &[f64]| -> Vec<f64> {
            if beta == 1.0 {
                values.to_vec()
            } else {
                values.iter().map(|v| v.powf(beta)).collect()
            }
        };
        let mut tempered_rows = temper(&self.rows);
        let tempered_cols = temper(&self.cols);
        if self.form == AspectForm::Symmetric {
            // P(z) is not tempered: fold it into the person factor.
            for row in tempered_rows.chunks_mut(k) {
                for z in 0..k {
                    row[z] *= self.class[z];
                }
            }
        }
        // Rows in fixed chunks, in parallel: each chunk writes its own rows and returns
        // its column and class sums, added in chunk order, so the result does not depend
        // on the number of threads.
        let mut new_rows = vec![0.0f64; counts.rows * k];
        let partial: Vec<(Vec<f64>, Vec<f64>)> = new_rows
            .par_chunks_mut(CHUNK_ROWS * k)
            .enumerate()
            .map(|(chunk, rows_out)| {
                let mut cols_sum = vec![0.0f64; counts.cols * k];
                let mut class_sum = vec![0.0f64; k];
                let mut posterior = vec![0.0f64; k];
                let first = chunk * CHUNK_ROWS;
                for (offset, row_out) in rows_out.chunks_mut(k).enumerate() {
                    let r = first + offset;
                    let row = &tempered_rows[r * k..(r + 1) * k];
                    for j in counts.indptr[r]..counts.indptr[r + 1] {
                        let c = counts.indices[j] as usize;
                        let col = &tempered_cols[c * k..(c + 1) * k];
                        for z in 0..k {
                            posterior[z] = row[z] * col[z];
                        }
                        let sum: f64 = posterior.iter().sum();
                        if sum <= 0.0 {
                            continue;
                        }
                        let scale = counts.values[j] / sum;
                        for z in 0..k {
                            let expected = posterior[z] * scale;
                            row_out[z] += expected;
                            cols_sum[c * k + z] += expected;
                            class_sum[z] += expected;
                        }
                    }
                }
                (cols_sum, class_sum)
            })
            .collect();
        let mut new_cols = vec![0.0f64; counts.cols * k];
        let mut new_class = vec![0.0f64; k];
        for (cols_sum, class_sum) in &partial {
            new_cols.iter_mut().zip(cols_sum).for_each(|(a, b)| *a += b);
            new_class.iter_mut().zip(class_sum).for_each(|(a, b)| *a += b);
        }
        normalise_columns(&mut new_cols, k);
        match self.form {
            AspectForm::Symmetric => {
                normalise_columns(&mut new_rows, k);
                normalise(&mut new_class);
                self.class = new_class;
            }
            AspectForm::Asymmetric => {
                // Persons without cells keep their previous P(z|p).
                for (r, row) in new_rows.chunks_mut(k).enumerate() {
                    if row.iter().sum::<f64>() > 0.0 {
                        normalise(row);
                    } else {
                        row.copy_from_slice(&self.rows[r * k..(r + 1) * k]);
                    }
                }
            }
        }
        self.rows = new_rows;
        self.cols = new_cols;
    }

    fn into_parameters(self) -> Parameters {
        let k = self.k;
        match self.form {
            AspectForm::Symmetric => Parameters {
                k,
                class: self.class,
                row_given_class: self.rows,
                col_given_class: self.cols,
            },
            AspectForm::Asymmetric => {
                // P(z) = Σ_p P(p) P(z|p); P(p|z) = P(p) P(z|p) / P(z).
                let mut class = vec![0.0f64; k];
                for (row, prior) in self.rows.chunks(k).zip(&self.row_prior) {
                    for z in 0..k {
                        class[z] += prior * row[z];
                    }
                }
                let mut rows = self.rows;
                for (row, prior) in rows.chunks_mut(k).zip(&self.row_prior) {
                    for z in 0..k {
                        row[z] = if class[z] > 0.0 { prior * row[z] / class[z] } else { 0.0 };
                    }
                }
                Parameters { k, class, row_given_class: rows, col_given_class: self.cols }
            }
        }
    }
}

/// Iterations without held-out gain that end a phase of the schedule search: EM from a
/// random start often crosses a plateau (even a dip) before the classes separate.
const PATIENCE: usize = 25;

/// The outcome of the held-out schedule search.
#[derive(Debug)]
struct Search {
    /// The β of each iteration on the path to the best held-out likelihood.
    schedule: Vec<f64>,
    /// Held-out log-likelihood after every iteration tried, kept or not.
    history: Vec<f64>,
    /// True when every phase stopped for lack of held-out gain rather than at the
    /// iteration limit.
    converged: bool,
}

/// The tempered-EM schedule search (Hofmann 1999 §3.6) on `fit_part`, judged on `held`.
///
/// Phases run at β = 1, η, η², … down to `min_beta`. Each phase continues from the best
/// model so far and runs tempered EM until the held-out likelihood has not gained for
/// [`PATIENCE`] iterations (or the iteration limit); the best model of all phases is kept,
/// with the path of β values that led to it. The schedule therefore ends at the last β
/// whose phase still improved the held-out likelihood; smaller β values that did not
/// help are tried and discarded.
///
/// Every β down to `min_beta` is tried rather than stopping at the first β that does not
/// help: one step of η is too small to judge. On data with few events per person (MS Web:
/// about three) EM at β = 1 over-fits `P(p|z)` from the first iteration, and a few steps
/// of η = 0.95 do not help either; the gain appears only near β ≈ 0.6–0.7, which a rule
/// that stops at the first unhelpful β never reaches (it returned the one-iteration,
/// near-independence model).
fn search_schedule(params: &AspectParams, fit_part: &Counts, held: &Counts, seed: u64) -> Search {
    let tolerance = params.tolerance;
    let gained = |new: f64, old: f64| new - old > tolerance * old.abs();
    let mut state = State::init(params.form, params.classes, fit_part, seed);
    let mut best_state = state.clone();
    let (mut best, mut best_len) = (f64::NEG_INFINITY, 0usize);
    let mut schedule = Vec::new();
    let mut history = Vec::new();
    let mut converged = true;
    let (mut beta, min_beta) = match params.fixed_beta {
        Some(beta) => (beta, beta),
        None => (1.0, params.min_beta),
    };
    while beta >= min_beta {
        let mut phase_best = f64::NEG_INFINITY;
        let mut stopped_early = false;
        let mut stale = 0;
        for _ in 0..params.max_iterations {
            state.step(fit_part, beta);
            schedule.push(beta);
            let value = state.log_likelihood(held);
            history.push(value);
            if value > best {
                best = value;
                best_len = schedule.len();
                best_state = state.clone();
            }
            if phase_best == f64::NEG_INFINITY || gained(value, phase_best) {
                stale = 0;
            } else {
                stale += 1;
                if stale == PATIENCE {
                    stopped_early = true;
                    break;
                }
            }
            phase_best = phase_best.max(value);
        }
        converged &= stopped_early;
        // The next phase continues from the best model so far (Hofmann 1999 §3.6), so the
        // schedule stays a single path that the replay can follow.
        state = best_state.clone();
        schedule.truncate(best_len);
        beta *= params.beta_decay;
    }
    Search { schedule, history, converged }
}

/// Fits the engine on `counts` with the held-out schedule search; returns the parameters
/// and the report.
fn fit_counts(params: &AspectParams, counts: &Counts, seed: u64) -> (Parameters, AspectReport) {
    let k = params.classes;
    let tolerance = params.tolerance;
    let gained = |new: f64, old: f64| new - old > tolerance * old.abs();
    let mut heldout_history = Vec::new();
    let (mut heldout_cells, mut heldout_events) = (0, 0.0);
    let mut heldout_independence_log_likelihood = None;
    let mut converged = true;
    let schedule: Option<Vec<f64>> = (params.holdout > 0.0)
        .then(|| counts.split(params.holdout, seed))
        .filter(|(_, held)| !held.indices.is_empty())
        .map(|(fit_part, held)| {
            heldout_cells = held.indices.len();
            heldout_events = held.total();
            heldout_independence_log_likelihood = Some(fit_part.independence_log_likelihood(&held));
            let search = search_schedule(params, &fit_part, &held, seed);
            heldout_history = search.history;
            converged = search.converged;
            search.schedule
        });

    let mut state = State::init(params.form, k, counts, seed);
    let mut betas = Vec::new();
    let mut log_likelihood = Vec::new();
    match schedule {
        Some(schedule) => {
            for beta in schedule {
                state.step(counts, beta);
                betas.push(beta);
                log_likelihood.push(state.log_likelihood(counts));
            }
        }
        None => {
            converged = false;
            let beta = params.fixed_beta.unwrap_or(1.0);
            let mut previous = state.log_likelihood(counts);
            // Converged when the likelihood has moved by less than the tolerance for
            // PATIENCE iterations in a row. One small step is not enough: below β = 1
            // tempered EM moves the likelihood very little in its first iterations from a
            // near-uniform start, and a single-step test stopped it there.
            let mut still = 0;
            for _ in 0..params.max_iterations {
                state.step(counts, beta);
                betas.push(beta);
                let value = state.log_likelihood(counts);
                log_likelihood.push(value);
                still =
                    if gained(value, previous) || gained(previous, value) { 0 } else { still + 1 };
                if still == PATIENCE {
                    converged = true;
                    break;
                }
                previous = value;
            }
        }
    }
    let report = AspectReport {
        betas,
        log_likelihood,
        heldout_log_likelihood: heldout_history,
        heldout_cells,
        heldout_events,
        heldout_independence_log_likelihood,
        events: counts.total(),
        independence_log_likelihood: counts.independence_log_likelihood(counts),
        converged,
    };
    (state.into_parameters(), report)
}

/// Folding-in (schein2005 §4.2.3, eqs. 7–8): EM over `P(z|new)` for a new object seen with
/// columns `cols` (counts `counts`) of the fitted `P(x|z)`, everything else fixed. The
/// start is `P(z)`, so an object without evidence gets the class prior. At most
/// `iterations` EM steps; it stops sooner once no class probability moves by 10⁻¹³.
fn fold_in(
    parameters: &Parameters,
    given_class: &[f64],
    cols: &[u32],
    counts: &[f64],
    iterations: usize,
) -> Vec<f64> {
    const FLOOR: f64 = 1e-12;
    let k = parameters.k;
    let mut current = parameters.class.clone();
    let total: f64 = counts.iter().sum();
    if cols.is_empty() || total <= 0.0 {
        return current;
    }
    let mut next = vec![0.0f64; k];
    let mut posterior = vec![0.0f64; k];
    for _ in 0..iterations {
        next.fill(0.0);
        for (&c, &n) in cols.iter().zip(counts) {
            let col = &given_class[c as usize * k..(c as usize + 1) * k];
            for z in 0..k {
                posterior[z] = col[z].max(FLOOR) * current[z];
            }
            let sum: f64 = posterior.iter().sum();
            if sum > 0.0 {
                for z in 0..k {
                    next[z] += n * posterior[z] / sum;
                }
            }
        }
        normalise(&mut next);
        let change = next.iter().zip(&current).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        std::mem::swap(&mut current, &mut next);
        if change < 1e-13 {
            break;
        }
    }
    current
}

/// A fitted person/item aspect model (schein2005 §4.2.1).
///
/// Scores are the joint probabilities `P(p, m) = Σ_z P(z) P(p|z) P(m|z)`, comparable
/// across persons.
#[derive(Debug, Clone)]
pub struct Aspect {
    parameters: Parameters,
    n_events: f64,
    report: AspectReport,
}

impl recs_core::Fit for AspectParams {
    type Model = Aspect;

    fn fit(&self, data: &TrainData<'_>) -> Result<Aspect> {
        data.interactions.require_events()?;
        let counts = Counts::from_interactions(data.interactions);
        let n_events = counts.total();
        if n_events <= 0.0 {
            return Err(RecsError::Empty { what: "training events with a positive value" });
        }
        let (parameters, report) = fit_counts(self, &counts, data.seed);
        Ok(Aspect { parameters, n_events, report })
    }
}

impl Aspect {
    /// The fit report.
    pub fn report(&self) -> &AspectReport {
        &self.report
    }

    /// Number of latent classes `K`.
    pub fn n_classes(&self) -> usize {
        self.parameters.k
    }

    /// `P(z)`.
    pub fn class_probabilities(&self) -> &[f64] {
        &self.parameters.class
    }

    /// `P(p|z)`, `persons × K` row-major (each column sums to 1).
    pub fn person_given_class(&self) -> &[f64] {
        &self.parameters.row_given_class
    }

    /// `P(m|z)`, `items × K` row-major (each column sums to 1).
    pub fn item_given_class(&self) -> &[f64] {
        &self.parameters.col_given_class
    }

    /// The fitted `P(z|m) ∝ P(z) P(m|z)` of a training item.
    ///
    /// # Errors
    /// An item out of range.
    pub fn class_given_item(&self, item: u32) -> Result<Vec<f64>> {
        let k = self.parameters.k;
        check_index("item", item as usize, self.n_items())?;
        let col = &self.parameters.col_given_class[item as usize * k..(item as usize + 1) * k];
        let mut out: Vec<f64> = (0..k).map(|z| self.parameters.class[z] * col[z]).collect();
        normalise(&mut out);
        Ok(out)
    }

    /// Folds in an item from the persons who met it (counts per person), with `P(p|z)`
    /// fixed (eqs. 7–8 with persons in the role of actors). For a training item this
    /// recovers its fitted `P(z|m)` at convergence.
    ///
    /// # Errors
    /// A person out of range or mismatched lengths.
    pub fn fold_in_item(&self, persons: &[u32], counts: &[f64]) -> Result<Vec<f64>> {
        check_len("fold-in counts", persons.len(), counts.len())?;
        for &p in persons {
            check_index("person", p as usize, self.n_users())?;
        }
        Ok(fold_in(
            &self.parameters,
            &self.parameters.row_given_class,
            persons,
            counts,
            FOLD_IN_ITERATIONS,
        ))
    }
}

impl Recommender for Aspect {
    fn fit_facts(&self) -> Vec<(&'static str, f64)> {
        self.report.facts()
    }

    fn shape(&self) -> Shape {
        Shape::new(
            self.parameters.row_given_class.len() / self.parameters.k,
            self.parameters.col_given_class.len() / self.parameters.k,
        )
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        let k = self.parameters.k;
        let row = &self.parameters.row_given_class[user as usize * k..(user as usize + 1) * k];
        let weights: Vec<f64> = (0..k).map(|z| self.parameters.class[z] * row[z]).collect();
        for (o, &item) in out.iter_mut().zip(items) {
            let col = &self.parameters.col_given_class[item as usize * k..(item as usize + 1) * k];
            *o = (0..k).map(|z| weights[z] * col[z]).sum::<f64>() as f32;
        }
        Ok(())
    }

    // Scores: the joint `P(p, m)`: a probability over all (person, item) pairs, near
    // `1/(|P|·|M|)` even for likely pairs (schein2005 §7.3).
    recs_core::capabilities!(fold_in, scale(Probability));
}

impl FoldInUser for Aspect {
    /// Folds the person in from the history (each positive event counts once) with `P(m|z)`
    /// fixed, then scores `P(p, m) = P(p) Σ_z P(z|p) P(m|z)` with `P(p)` = history length /
    /// training events, the same scale as training persons.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        check_history(history.items, history.values, self.n_items())?;
        let counts: Vec<f64> =
            history.values.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect();
        let given = fold_in(
            &self.parameters,
            &self.parameters.col_given_class,
            history.items,
            &counts,
            FOLD_IN_ITERATIONS,
        );
        let prior = counts.iter().sum::<f64>() / self.n_events;
        let k = self.parameters.k;
        for (o, &item) in out.iter_mut().zip(items) {
            let col = &self.parameters.col_given_class[item as usize * k..(item as usize + 1) * k];
            *o = (prior * (0..k).map(|z| given[z] * col[z]).sum::<f64>()) as f32;
        }
        Ok(())
    }
}

/// Hyper-parameters of the person/attribute aspect model (schein2005 §4.2.2): the aspect
/// model fitted on (person, attribute) counts, items folded in from their attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AspectAttrParams {
    aspect: AspectParams,
    fold_in_iterations: usize,
}

impl AspectAttrParams {
    /// The person/attribute model with the given aspect-model parameters; items are
    /// folded in for at most [`FOLD_IN_ITERATIONS`] EM steps (to convergence).
    pub fn new(aspect: AspectParams) -> Self {
        AspectAttrParams { aspect, fold_in_iterations: FOLD_IN_ITERATIONS }
    }

    /// At most `iterations` EM steps when an item is folded in from its attributes
    /// (schein2005 eqs. 7–8 do not say how long they run); 1 is a single step from the
    /// class prior.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] for 0 iterations.
    pub fn with_fold_in_iterations(mut self, iterations: usize) -> Result<Self> {
        if iterations == 0 {
            return Err(RecsError::invalid_parameter(
                "fold_in_iterations",
                iterations,
                "at least one EM step",
            ));
        }
        self.fold_in_iterations = iterations;
        Ok(self)
    }
}

/// The most EM steps of a folding-in (it stops sooner once no class probability moves by
/// 10⁻¹³): enough to reach the fixed point eqs. 7–8 define.
pub const FOLD_IN_ITERATIONS: usize = 500;

/// A fitted person/attribute aspect model. Scores are `P(p|m) = Σ_z P(p|z) P(z|m)`
/// (schein2005 eq. 9), comparable across persons; items unseen in training are scored
/// from their attributes (cold start).
#[derive(Debug, Clone)]
pub struct AspectAttr {
    parameters: Parameters,
    n_items: usize,
    /// The most EM steps of a folding-in.
    fold_in_iterations: usize,
    /// `P(z|m)` of every training item, folded in from its attributes (`items × K`).
    item_classes: Vec<f64>,
    /// The attribute table the items were folded in from: new items read from this same
    /// table reuse `item_classes` instead of folding in again for every person.
    attributes: ItemAttributes,
    report: AspectReport,
}

impl recs_core::Fit for AspectAttrParams {
    type Model = AspectAttr;

    fn fit(&self, data: &TrainData<'_>) -> Result<AspectAttr> {
        data.interactions.require_events()?;
        let attributes = data.require_attributes("aspect-attr")?;
        if attributes.n_attributes() == 0 {
            return Err(RecsError::Empty { what: "attribute vocabulary" });
        }
        let counts = Counts::expand(data.interactions, attributes);
        if counts.total() <= 0.0 {
            return Err(RecsError::Empty {
                what: "(person, attribute) events: no training item has an attribute",
            });
        }
        let (parameters, report) = fit_counts(&self.aspect, &counts, data.seed);
        let n_items = data.interactions.n_items();
        let mut item_classes = Vec::with_capacity(n_items * parameters.k);
        for item in 0..n_items as u32 {
            item_classes.extend(fold_in_attributes(
                &parameters,
                attributes,
                item,
                self.fold_in_iterations,
            ));
        }
        Ok(AspectAttr {
            parameters,
            n_items,
            fold_in_iterations: self.fold_in_iterations,
            item_classes,
            attributes: attributes.clone(),
            report,
        })
    }
}

fn fold_in_attributes(
    parameters: &Parameters,
    attributes: &ItemAttributes,
    row: u32,
    iterations: usize,
) -> Vec<f64> {
    let counts: Vec<f64> =
        attributes.item_weights(row).iter().map(|&w| f64::from(w.max(0.0))).collect();
    let cols = attributes.item_attributes(row);
    fold_in(parameters, &parameters.col_given_class, cols, &counts, iterations)
}

impl AspectAttr {
    /// The fit report.
    pub fn report(&self) -> &AspectReport {
        &self.report
    }

    /// `P(z|m)` of a training item, folded in from its attributes.
    ///
    /// # Errors
    /// An item out of range.
    pub fn class_given_item(&self, item: u32) -> Result<&[f64]> {
        check_index("item", item as usize, self.n_items)?;
        let k = self.parameters.k;
        Ok(&self.item_classes[item as usize * k..(item as usize + 1) * k])
    }

    /// `P(a|z)`, `attributes × K` row-major.
    pub fn attribute_given_class(&self) -> &[f64] {
        &self.parameters.col_given_class
    }

    /// Scores of `items` (checked) from their `P(z|m)` placed at fit.
    fn score_placed(&self, user: u32, items: &[u32], out: &mut [f32]) {
        let k = self.parameters.k;
        let placed = |j: usize| {
            let item = items[j] as usize;
            Cow::Borrowed(&self.item_classes[item * k..(item + 1) * k])
        };
        self.score_with(user, placed, out);
    }

    /// `P(p|m)` of each output slot `j` from `P(z|m)` = `classes(j)`: borrowed for items
    /// already placed in the latent space, computed for items folded in now.
    fn score_with<'c>(
        &self,
        user: u32,
        classes: impl Fn(usize) -> Cow<'c, [f64]>,
        out: &mut [f32],
    ) {
        let k = self.parameters.k;
        let row = &self.parameters.row_given_class[user as usize * k..(user as usize + 1) * k];
        for (index, o) in out.iter_mut().enumerate() {
            let given = classes(index);
            *o = (0..k).map(|z| row[z] * given[z]).sum::<f64>() as f32;
        }
    }
}

impl Recommender for AspectAttr {
    fn fit_facts(&self) -> Vec<(&'static str, f64)> {
        self.report.facts()
    }

    fn shape(&self) -> Shape {
        Shape::new(self.parameters.row_given_class.len() / self.parameters.k, self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items, user, items, out)?;
        self.score_placed(user, items, out);
        Ok(())
    }

    // Scores: `P(p|m)`, a distribution over persons for each item (eq. 9).
    recs_core::capabilities!(new_items, scale(Probability));
}

impl ScoreNewItems for AspectAttr {
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()> {
        items.check_args(self.n_users(), user, out)?;
        items.check_vocabulary(self.parameters.col_given_class.len() / self.parameters.k)?;
        let (attributes, rows) = (items.attributes(), items.rows());
        if *attributes == self.attributes {
            // The same fold-in, already done once per item at fit.
            self.score_placed(user, rows, out);
        } else {
            let iterations = self.fold_in_iterations;
            let fold_in = |j: usize| {
                Cow::Owned(fold_in_attributes(&self.parameters, attributes, rows[j], iterations))
            };
            self.score_with(user, fold_in, out);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Fit, IdMap};

    /// Without held-out cells, a fit stops only after the likelihood has stayed within
    /// the tolerance for PATIENCE iterations in a row, at every β: a single small step
    /// (tempered EM's first steps from a near-uniform start) does not end it.
    #[test]
    fn converged_fits_run_until_the_likelihood_stays_still() {
        let data = blocks();
        for beta in [1.0, 0.6] {
            let params = AspectParams::new(2)
                .unwrap()
                .with_fixed_beta(beta)
                .unwrap()
                .with_holdout(0.0)
                .unwrap();
            let model = params.fit(&TrainData::new(&data, 1)).unwrap();
            let report = model.report();
            assert!(report.converged, "β = {beta}");
            let ll = &report.log_likelihood;
            assert!(ll.len() > PATIENCE, "β = {beta}: {} iterations", ll.len());
            let still = ll
                .windows(2)
                .rev()
                .take(PATIENCE)
                .all(|w| (w[1] - w[0]).abs() <= 1e-5 * w[0].abs());
            assert!(still, "β = {beta}: the last {PATIENCE} steps moved the likelihood");
        }
    }

    /// Two blocks of persons × items with some cross-block noise.
    fn blocks() -> Interactions {
        let mut events = Vec::new();
        for p in 0..40u32 {
            for m in 0..16u32 {
                let same = (p < 20) == (m < 8);
                if (same && (p * 5 + m * 3) % 4 != 0) || (!same && (p + m * 7) % 11 == 0) {
                    events.push(Event::new(p, m, 1.0));
                }
            }
        }
        Interactions::from_events(40, 16, events, DuplicatePolicy::Error).unwrap()
    }

    fn plain(classes: usize, form: AspectForm) -> AspectParams {
        AspectParams::new(classes)
            .unwrap()
            .with_form(form)
            .with_holdout(0.0)
            .unwrap()
            .with_iterations(2000, 1e-12)
            .unwrap()
    }

    fn sums_to_one(values: &[f64]) -> bool {
        (values.iter().sum::<f64>() - 1.0).abs() < 1e-9
    }

    fn column(matrix: &[f64], k: usize, z: usize) -> Vec<f64> {
        matrix.chunks(k).map(|row| row[z]).collect()
    }

    #[test]
    fn conditionals_sum_to_one_and_likelihood_never_drops() {
        let train = blocks();
        for form in [AspectForm::Symmetric, AspectForm::Asymmetric] {
            let model = plain(3, form).fit(&TrainData::new(&train, 4)).unwrap();
            let k = model.n_classes();
            assert!(sums_to_one(model.class_probabilities()));
            for z in 0..k {
                assert!(sums_to_one(&column(model.person_given_class(), k, z)));
                assert!(sums_to_one(&column(model.item_given_class(), k, z)));
            }
            for m in 0..16 {
                assert!(sums_to_one(&model.class_given_item(m).unwrap()));
            }
            let history = &model.report().log_likelihood;
            assert!(history.len() > 5);
            for w in history.windows(2) {
                assert!(w[1] >= w[0] - 1e-9 * w[0].abs(), "{form:?}: {} then {}", w[0], w[1]);
            }
            // The joint sums to one over all pairs.
            let mut total = 0.0;
            let items: Vec<u32> = (0..16).collect();
            let mut out = vec![0.0f32; 16];
            for p in 0..40 {
                model.score(p, &items, &mut out).unwrap();
                total += out.iter().map(|&x| f64::from(x)).sum::<f64>();
            }
            assert!((total - 1.0).abs() < 1e-5, "{total}");
        }
    }

    #[test]
    fn one_class_gives_item_popularity() {
        let train = blocks();
        let model = plain(1, AspectForm::Symmetric).fit(&TrainData::new(&train, 1)).unwrap();
        let counts = train.item_counts();
        let total: u32 = counts.iter().sum();
        for (m, &count) in counts.iter().enumerate() {
            let expected = f64::from(count) / f64::from(total);
            assert!((model.item_given_class()[m] - expected).abs() < 1e-12);
        }
    }

    #[test]
    fn one_class_is_the_independence_model_and_two_classes_gain_on_it() {
        let train = blocks();
        let data = TrainData::new(&train, 1);
        let one = plain(1, AspectForm::Symmetric).fit(&data).unwrap();
        let gain = one.report().gain_over_independence().unwrap();
        assert!(gain.abs() < 1e-9, "one class gains {gain} nats per event");
        // Two blocks of 20 persons × 8 items with about 11% of the events across blocks:
        // knowing an event's block is worth ln 2 − H(0.11) ≈ 0.35 nats, at most ln 2.
        let two = plain(2, AspectForm::Symmetric).fit(&data).unwrap();
        let gain = two.report().gain_over_independence().unwrap();
        assert!(gain > 0.3 && gain < std::f64::consts::LN_2, "two classes gain {gain}");
        assert_eq!(two.report().heldout_gain_over_independence(), None);
        let names: Vec<&str> = two.fit_facts().iter().map(|(name, _)| *name).collect();
        assert_eq!(names[..2], ["EM iterations", "final β"]);
        assert_eq!(names.len(), 3, "no held-out fact without held-out cells: {names:?}");
    }

    #[test]
    fn the_schedule_search_reports_its_held_out_gain_over_independence() {
        let train = blocks();
        let data = TrainData::new(&train, 4);
        let model = AspectParams::new(2).unwrap().fit(&data).unwrap();
        let report = model.report();
        assert!(report.heldout_events > 0.0 && report.heldout_cells > 0);
        let gain = report.heldout_gain_over_independence().unwrap();
        assert!(gain > 0.1, "held-out gain {gain}");
        // One EM iteration from the random start stays near independence.
        let early = AspectParams::new(2).unwrap().with_iterations(1, 0.0).unwrap();
        let early = early.with_beta_schedule(0.95, 1.0).unwrap().fit(&data).unwrap();
        let first = early.report().heldout_gain_over_independence().unwrap();
        assert!(first < gain / 4.0, "one iteration gains {first}, the search {gain}");
        assert_eq!(model.fit_facts().len(), 4);
    }

    #[test]
    fn folding_in_a_training_item_recovers_its_fitted_classes() {
        let train = blocks();
        let model = plain(2, AspectForm::Symmetric).fit(&TrainData::new(&train, 2)).unwrap();
        assert!(model.report().converged, "{:?}", model.report().log_likelihood.len());
        for m in 0..16u32 {
            let persons = train.item_users(m);
            let counts = vec![1.0; persons.len()];
            let folded = model.fold_in_item(persons, &counts).unwrap();
            let fitted = model.class_given_item(m).unwrap();
            for (a, b) in folded.iter().zip(&fitted) {
                assert!((a - b).abs() < 1e-3, "item {m}: {folded:?} vs {fitted:?}");
            }
        }
    }

    /// 300 persons in 3 groups with only 2–4 training events each (as on MS Web, about
    /// three per person); 85% of a person's events fall in the group's block of 10 items
    /// (popularity decaying within the block), the rest anywhere. One further event per
    /// person, drawn the same way, is returned as a test pair.
    fn sparse_groups() -> (Interactions, Vec<(u32, u32)>) {
        sparse_groups_of(300)
    }

    fn sparse_groups_of(persons: u32) -> (Interactions, Vec<(u32, u32)>) {
        let mut random = rng(17, Stream::Init);
        let (mut events, mut test) = (Vec::new(), Vec::new());
        for p in 0..persons {
            let group = p % 3;
            let n = 2 + (uniform(&mut random) * 3.0) as usize;
            let mut items: Vec<u32> = Vec::new();
            while items.len() < n + 1 {
                let item = if uniform(&mut random) < 0.85 {
                    let offset = (-3.0 * (1.0 - uniform(&mut random)).ln()) as u32;
                    group * 10 + offset.min(9)
                } else {
                    (uniform(&mut random) * 30.0) as u32
                };
                if !items.contains(&item) {
                    items.push(item);
                }
            }
            test.push((p, items[n]));
            events.extend(items[..n].iter().map(|&m| Event::new(p, m, 1.0)));
        }
        let train = Interactions::from_events(persons as usize, 30, events, DuplicatePolicy::Error)
            .unwrap();
        assert!(train.item_counts().iter().all(|&c| c > 0));
        (train, test)
    }

    #[test]
    fn same_seed_same_model_for_any_thread_count() {
        // More persons than one chunk of the parallel passes.
        let (train, _) = sparse_groups_of(2 * CHUNK_ROWS as u32 + 100);
        let params = AspectParams::new(3).unwrap().with_beta_schedule(0.8, 0.6).unwrap();
        let (a, b) = recs_testkit::on_one_and_three_threads(|| {
            params.fit(&TrainData::new(&train, 9)).unwrap()
        });
        assert_eq!(a.report(), b.report());
        assert_eq!(a.person_given_class(), b.person_given_class());
        assert_eq!(a.item_given_class(), b.item_given_class());
        assert_eq!(a.class_probabilities(), b.class_probabilities());
    }

    #[test]
    fn tempered_schedule_continues_past_an_overfitting_first_iteration() {
        let (train, test) = sparse_groups();
        let (params, seed) = (AspectParams::new(3).unwrap(), 11);
        let counts = Counts::from_interactions(&train);
        let (fit_part, held) = counts.split(params.holdout, seed);
        // At β = 1 the held-out likelihood is best after the first iteration and then
        // falls (P(p|z) over-fits 2–4 events per person): lowering β must take over.
        let at_beta_one: Vec<f64> = {
            let mut state = State::init(params.form, 3, &fit_part, seed);
            (0..30)
                .map(|_| {
                    state.step(&fit_part, 1.0);
                    state.log_likelihood(&held)
                })
                .collect()
        };
        assert!(at_beta_one.iter().all(|&v| v <= at_beta_one[0]), "{at_beta_one:?}");
        let search = search_schedule(&params, &fit_part, &held, seed);
        let schedule = &search.schedule;
        assert!(schedule.len() > 1, "{schedule:?}");
        assert!(*schedule.last().unwrap() < 1.0 && *schedule.last().unwrap() >= 0.5);
        assert!(schedule.windows(2).all(|w| w[1] <= w[0]));
        // The model the schedule leads to (replayed on the fitting part) beats the model
        // after the first iteration on the held-out cells, and it is the best one tried.
        let mut chosen = State::init(params.form, 3, &fit_part, seed);
        for &beta in schedule {
            chosen.step(&fit_part, beta);
        }
        let chosen_heldout = chosen.log_likelihood(&held);
        let first = at_beta_one[0];
        assert!(chosen_heldout > first + 1e-3 * first.abs(), "{chosen_heldout} vs {first}");
        let best_tried = search.history.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!((chosen_heldout - best_tried).abs() <= 1e-9 * best_tried.abs());

        // The returned model (the schedule replayed on every training cell) predicts the
        // test events better than one EM iteration from the same start.
        let data = TrainData::new(&train, seed);
        let model = params.fit(&data).unwrap();
        assert_eq!(model.report().betas, *schedule);
        let one_iteration =
            params.with_holdout(0.0).unwrap().with_iterations(1, 0.0).unwrap().fit(&data).unwrap();
        let test_log_likelihood = |model: &Aspect| -> f64 {
            let mut out = [0.0f32];
            test.iter()
                .map(|&(p, m)| {
                    model.score(p, &[m], &mut out).unwrap();
                    f64::from(out[0]).ln()
                })
                .sum()
        };
        let (fitted, one) = (test_log_likelihood(&model), test_log_likelihood(&one_iteration));
        assert!(fitted > one + 1e-3 * one.abs(), "test log-likelihood {fitted} vs {one}");
    }

    #[test]
    fn two_classes_separate_the_blocks() {
        let train = blocks();
        let items: Vec<u32> = (0..16).collect();
        let mut out = vec![0.0f32; 16];
        // The tempered schedule (the default) picks β < 1 on this small set, which shrinks
        // P(p, m) toward independence: the blocks separate in every person's ranking.
        let model = AspectParams::new(2).unwrap().fit(&TrainData::new(&train, 3)).unwrap();
        for p in 0..40 {
            model.score(p, &items, &mut out).unwrap();
            let (own, other) = if p < 20 { out.split_at(8) } else { (&out[8..], &out[..8]) };
            let lowest_own = own.iter().copied().fold(f32::INFINITY, f32::min);
            let highest_other = other.iter().copied().fold(0.0, f32::max);
            assert!(lowest_own > highest_other, "person {p}: {out:?}");
        }
        let report = model.report();
        assert!(report.heldout_cells > 0 && !report.heldout_log_likelihood.is_empty());
        assert!(report.betas.iter().all(|&b| b > 0.0 && b <= 1.0));
        // Plain EM (β = 1) separates them sharply.
        let sharp = plain(2, AspectForm::Symmetric).fit(&TrainData::new(&train, 3)).unwrap();
        sharp.score(3, &items, &mut out).unwrap();
        let inside: f32 = out[..8].iter().sum();
        let outside: f32 = out[8..].iter().sum();
        assert!(inside > 3.0 * outside, "{inside} vs {outside}");
    }

    #[test]
    fn tempered_schedule_lowers_beta_only_while_it_helps() {
        let train = blocks();
        let params = AspectParams::new(4).unwrap().with_beta_schedule(0.8, 0.3).unwrap();
        let model = params.fit(&TrainData::new(&train, 5)).unwrap();
        let report = model.report();
        let betas = &report.betas;
        assert_eq!(betas[0], 1.0);
        assert!(betas.windows(2).all(|w| w[1] <= w[0]));
        assert!(*betas.last().unwrap() >= 0.3);
        // Every β down to the floor was tried: 1, 0.8, 0.64, 0.512, 0.4096, 0.32768, each
        // phase at least `PATIENCE` + 1 iterations unless it hit the iteration limit.
        assert!(report.heldout_log_likelihood.len() >= 6 * (PATIENCE + 1));
    }

    #[test]
    fn fold_in_of_a_training_person_scores_like_the_person() {
        let train = blocks();
        let model = plain(2, AspectForm::Symmetric).fit(&TrainData::new(&train, 2)).unwrap();
        let items: Vec<u32> = (0..16).collect();
        let (mut a, mut b) = (vec![0.0f32; 16], vec![0.0f32; 16]);
        model.score(5, &items, &mut a).unwrap();
        model.score_history(train.user_row(5), &items, &mut b).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-3 * x.abs().max(1e-6), "{x} vs {y}");
        }
    }

    fn actors() -> ItemAttributes {
        // Items 0..8 share actors 0..3, items 8..16 share actors 3..6 (actor 3 in both).
        let vocabulary = IdMap::from_ids_sorted((0..6).map(|a| format!("a{a}"))).unwrap();
        let pairs = (0..16u32).flat_map(|m| {
            let base = if m < 8 { 0 } else { 3 };
            [(m, base + m % 3, 1.0f32), (m, 3, 1.0)]
                .into_iter()
                .filter(move |&(_, a, _)| !(a == 3 && base + m % 3 == 3))
        });
        ItemAttributes::from_pairs(16, vocabulary, pairs).unwrap()
    }

    #[test]
    fn person_attribute_model_recommends_the_right_block_and_folds_in_new_items() {
        let train = blocks();
        let attributes = actors();
        let data = TrainData::new(&train, 3).with_attributes(&attributes).unwrap();
        let params = AspectAttrParams::new(plain(2, AspectForm::Symmetric));
        let model = params.fit(&data).unwrap();
        for m in 0..16 {
            assert!(sums_to_one(model.class_given_item(m).unwrap()));
        }
        // A new item with the first block's actors ranks like the first block for person 0.
        let vocabulary = attributes.vocabulary().clone();
        let new_items = ItemAttributes::from_pairs(
            2,
            vocabulary,
            [(0, 0, 1.0), (0, 1, 1.0), (1, 4, 1.0), (1, 5, 1.0)],
        )
        .unwrap();
        let mut out = [0.0f32; 2];
        model.score_new_items(0, NewItems::new(&new_items, &[0, 1]).unwrap(), &mut out).unwrap();
        assert!(out[0] > out[1], "{out:?}");
        model.score_new_items(30, NewItems::new(&new_items, &[0, 1]).unwrap(), &mut out).unwrap();
        assert!(out[1] > out[0], "{out:?}");
        // Scoring a training item through folding-in equals the precomputed score.
        let (mut a, mut b) = ([0.0f32; 1], [0.0f32; 1]);
        model.score(7, &[5], &mut a).unwrap();
        model.score_new_items(7, NewItems::new(&attributes, &[5]).unwrap(), &mut b).unwrap();
        assert_eq!(a, b);
        // The fit's own table reuses the items' fold-in; any other table folds in afresh,
        // to the same scores.
        let pairs = (0..16u32).flat_map(|m| {
            attributes.item_attributes(m).iter().map(move |&a| (m, a, 1.0f32)).collect::<Vec<_>>()
        });
        let longer =
            ItemAttributes::from_pairs(17, attributes.vocabulary().clone(), pairs).unwrap();
        assert!(longer != attributes);
        let items: Vec<u32> = (0..16).collect();
        let (mut reused, mut afresh) = ([0.0f32; 16], [0.0f32; 16]);
        model.score_new_items(7, NewItems::new(&attributes, &items).unwrap(), &mut reused).unwrap();
        model.score_new_items(7, NewItems::new(&longer, &items).unwrap(), &mut afresh).unwrap();
        assert_eq!(reused, afresh);
        let wrong =
            ItemAttributes::from_pairs(1, IdMap::from_ids_sorted(["x"]).unwrap(), [(0, 0, 1.0)])
                .unwrap();
        assert!(model.score_new_items(0, NewItems::new(&wrong, &[0]).unwrap(), &mut a).is_err());
        let without = TrainData::new(&train, 3);
        assert!(params.fit(&without).is_err());
    }

    #[test]
    fn invalid_parameters_are_refused() {
        assert!(AspectParams::new(0).is_err());
        assert!(AspectParams::new(2).unwrap().with_holdout(1.0).is_err());
        assert!(AspectParams::new(2).unwrap().with_holdout(-0.1).is_err());
        assert!(AspectParams::new(2).unwrap().with_beta_schedule(1.0, 0.5).is_err());
        assert!(AspectParams::new(2).unwrap().with_beta_schedule(0.9, 0.0).is_err());
        assert!(AspectParams::new(2).unwrap().with_iterations(0, 1e-3).is_err());
    }
}
