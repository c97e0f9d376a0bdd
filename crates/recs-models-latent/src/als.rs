//! Matrix factorisation by alternating least squares: explicit ratings (the "MF trained
//! for RMSE" of fastml2015) and implicit feedback with confidence weights (Hu, Koren &
//! Volinsky 2008).
//!
//! Notation: user factors `x_u`, item factors `y_i` (both of length `k`), observed items
//! `I_u` of user `u` with values `r_ui`.
//!
//! - **Explicit**: minimise `Σ_(u,i) observed (r_ui − x_u·y_i)² + λ (Σ_u w_u |x_u|² +
//!   Σ_i w_i |y_i|²)`, with `w = n` (number of ratings, the "weighted-λ" of Zhou et al.
//!   2008, default) or `w = 1`. A user step solves `(Y_Iᵀ Y_I + λ w_u I) x_u = Y_Iᵀ r_I`.
//! - **Implicit** (Hu et al. §4): preference `p_ui = 1[r_ui > 0]`, confidence
//!   `c_ui = 1 + α r_ui`, loss `Σ_all (u,i) c_ui (p_ui − x_u·y_i)² + λ (|X|² + |Y|²)`;
//!   `x_u = (YᵀY + Yᵀ(C_u − I)Y + λI)⁻¹ Yᵀ C_u p_u`, with `YᵀY` computed once per sweep.
//!
//! Each sweep solves all items given the users, then all users given the items, so the
//! final user factors are exact solves against the final item factors: folding in a
//! training user (one regularised solve with item factors fixed, fastml2015 "handling new
//! users") reproduces its factors. Rows are solved in parallel, each independently, so the
//! result does not depend on the thread count. A row's term `Σ_j w_j y_j y_jᵀ` is one
//! matrix product `Zᵀ Z` (rows of `Z` are `√w_j y_j`) by faer's blocked kernels, run
//! sequentially inside the row.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;
use recs_core::{
    FoldInUser, Interactions, PredictRating, Recommender, RecsError, Result, TrainData, UserRow,
};

use crate::common::{Factors, Stream, check_history, cholesky_solve, dot, rng, uniform};

/// Which loss the factorisation minimises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlsLoss {
    /// Squared error on observed ratings. `weighted_lambda` scales each row's penalty by
    /// its number of ratings (Zhou et al. 2008).
    Explicit {
        /// Scale the penalty of each row by its number of observed entries.
        weighted_lambda: bool,
    },
    /// Confidence-weighted squared error over all pairs, `c = 1 + α r` (Hu et al. 2008).
    Implicit {
        /// The confidence slope α.
        alpha: f64,
    },
}

/// Hyper-parameters of ALS, validated at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlsParams {
    factors: usize,
    lambda: f64,
    loss: AlsLoss,
    iterations: usize,
    tolerance: f64,
    /// Fold a new user in from the history's item ids alone (every value 1), as a
    /// recommender that receives ids only would.
    ids_only_history: bool,
}

impl AlsParams {
    /// Explicit ALS with `factors` factors and penalty `lambda` (weighted by the number of
    /// ratings). Defaults: 15 sweeps at most, relative tolerance 1e-5 on the objective
    /// (ours).
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] for `factors == 0` or a `lambda` that is not
    /// finite and positive.
    pub fn explicit(factors: usize, lambda: f64) -> Result<Self> {
        Self::validate(factors, lambda)?;
        Ok(AlsParams {
            factors,
            lambda,
            loss: AlsLoss::Explicit { weighted_lambda: true },
            iterations: 15,
            tolerance: 1e-5,
            ids_only_history: false,
        })
    }

    /// The confidence slope of the catalog's `ials`: 1, as in the `implicit` package.
    /// Hu et al.'s best was `α = 40` (§4) on hours of watching; on 1–5 ratings the
    /// confidences `1 + 40 r` (up to 201) drown the unrated items' term, and on MovieLens
    /// 100K (20% of each user's ratings held out, every unrated item a candidate) the
    /// model then ranks below item popularity: NDCG@10 0.140 against 0.220, where
    /// `α = 1` gives 0.424 and `α = 5` 0.328.
    pub const DEFAULT_ALPHA: f64 = 1.0;

    /// Implicit ALS (Hu et al. 2008) with confidence slope `alpha` (the paper's best was
    /// `α = 40`, §4; see [`AlsParams::DEFAULT_ALPHA`]).
    ///
    /// # Errors
    /// As [`AlsParams::explicit`], and for an `alpha` that is not finite and ≥ 0.
    pub fn implicit(factors: usize, lambda: f64, alpha: f64) -> Result<Self> {
        Self::validate(factors, lambda)?;
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(RecsError::invalid_parameter("alpha", alpha, "a finite alpha ≥ 0"));
        }
        Ok(AlsParams {
            factors,
            lambda,
            loss: AlsLoss::Implicit { alpha },
            iterations: 15,
            tolerance: 1e-5,
            ids_only_history: false,
        })
    }

    fn validate(factors: usize, lambda: f64) -> Result<()> {
        if factors == 0 {
            return Err(RecsError::invalid_parameter("factors", factors, "at least 1 factor"));
        }
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(RecsError::invalid_parameter("lambda", lambda, "a finite lambda > 0"));
        }
        Ok(())
    }

    /// At most `iterations` sweeps (each: items, then users).
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] when `iterations` is 0.
    pub fn with_iterations(mut self, iterations: usize) -> Result<Self> {
        if iterations == 0 {
            return Err(RecsError::invalid_parameter("iterations", 0, "at least 1 sweep"));
        }
        self.iterations = iterations;
        Ok(self)
    }

    /// Stop when the objective changes by less than `tolerance` (relative); 0 runs every
    /// sweep.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] for a negative or non-finite tolerance.
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(RecsError::invalid_parameter("tolerance", tolerance, "a finite value ≥ 0"));
        }
        self.tolerance = tolerance;
        Ok(self)
    }

    /// Explicit ALS with a plain (unweighted) penalty `λ |x|²`.
    pub fn with_unweighted_lambda(mut self) -> Self {
        if let AlsLoss::Explicit { weighted_lambda } = &mut self.loss {
            *weighted_lambda = false;
        }
        self
    }

    /// Fold new users in from their history's item ids alone: every history value is
    /// read as 1. For explicit ALS the folded-in factors then scale with that constant,
    /// so any positive constant gives the same ranking.
    pub fn with_ids_only_history(mut self) -> Self {
        self.ids_only_history = true;
        self
    }

    /// The loss.
    pub fn loss(&self) -> AlsLoss {
        self.loss
    }
}

/// How the sweeps went.
#[derive(Debug, Clone, PartialEq)]
pub struct AlsReport {
    /// Sweeps run.
    pub iterations: usize,
    /// The objective after each sweep (non-increasing up to rounding: each half-step is
    /// an exact minimisation).
    pub objective: Vec<f64>,
    /// Root mean squared error on the training events after the last sweep (explicit
    /// loss; for the implicit loss, on the preferences `p = 1` of the events).
    pub train_rmse: f64,
    /// True when the relative change fell below the tolerance before the sweep limit.
    pub converged: bool,
}

/// A fitted ALS model. Scores are `x_u · y_i` (predicted ratings for the explicit loss,
/// predicted preferences for the implicit loss), comparable across users.
#[derive(Debug, Clone)]
pub struct Als {
    params: AlsParams,
    factors: Factors,
    users: Vec<f64>,
    items: Vec<f64>,
    report: AlsReport,
}

impl recs_core::Fit for AlsParams {
    type Model = Als;

    fn fit(&self, data: &TrainData<'_>) -> Result<Als> {
        Als::fit(*self, data.interactions, data.seed)
    }
}

/// Solves one row: `x = (base + Σ_j w_j y_j y_jᵀ + ridge I)⁻¹ Σ_j t_j y_j`.
struct RowSystem<'a> {
    k: usize,
    other: &'a [f64],
    /// `YᵀY` for the implicit loss.
    gram: Option<&'a [f64]>,
}

impl RowSystem<'_> {
    /// `scratch` holds the row's scaled factors `√w_j y_j` (`|I| × k`); it is reused
    /// across rows to avoid an allocation per row.
    fn solve(
        &self,
        loss: AlsLoss,
        lambda: f64,
        cols: &[u32],
        values: &[f32],
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        let k = self.k;
        let mut a = match self.gram {
            Some(gram) => gram.to_vec(),
            None => vec![0.0f64; k * k],
        };
        let mut b = vec![0.0f64; k];
        scratch.clear();
        for (&col, &value) in cols.iter().zip(values) {
            let y = &self.other[col as usize * k..(col as usize + 1) * k];
            let (weight, target) = match loss {
                AlsLoss::Explicit { .. } => (1.0, f64::from(value)),
                AlsLoss::Implicit { alpha } => {
                    let r = f64::from(value).max(0.0);
                    let confidence = 1.0 + alpha * r;
                    let preference = if r > 0.0 { 1.0 } else { 0.0 };
                    (confidence - 1.0, confidence * preference)
                }
            };
            for p in 0..k {
                b[p] += target * y[p];
            }
            let root = f64::sqrt(weight);
            scratch.extend(y.iter().map(|&v| root * v));
        }
        // Σ_j w_j y_j y_jᵀ = Zᵀ Z with the rows of Z the scaled factors: one matrix
        // product (faer's blocked kernels) instead of |I| rank-one updates. Sequential,
        // so the row's result does not depend on the thread count.
        if !cols.is_empty() {
            let transposed = MatRef::from_column_major_slice(scratch, k, cols.len());
            matmul(
                MatMut::from_column_major_slice_mut(&mut a, k, k),
                Accum::Add,
                transposed,
                transposed.transpose(),
                1.0,
                Par::Seq,
            );
        }
        let ridge = match loss {
            AlsLoss::Explicit { weighted_lambda: true } => lambda * cols.len() as f64,
            _ => lambda,
        };
        if ridge == 0.0 {
            out.fill(0.0);
            return;
        }
        for p in 0..k {
            a[p * k + p] += ridge;
            // Symmetric up to rounding: use the lower triangle, as the solver reads it.
            for q in 0..p {
                a[q * k + p] = a[p * k + q];
            }
        }
        if cholesky_solve(&mut a, &mut b, k) {
            out.copy_from_slice(&b);
        } else {
            out.fill(0.0);
        }
    }
}

fn gram(factors: &[f64], k: usize) -> Vec<f64> {
    let mut g = vec![0.0f64; k * k];
    for row in factors.chunks(k) {
        for p in 0..k {
            for q in 0..=p {
                g[p * k + q] += row[p] * row[q];
            }
        }
    }
    for p in 0..k {
        for q in 0..p {
            g[q * k + p] = g[p * k + q];
        }
    }
    g
}

impl Als {
    fn fit(params: AlsParams, train: &Interactions, seed: u64) -> Result<Self> {
        train.require_events()?;
        let (m, n, k) = (train.n_users(), train.n_items(), params.factors);
        let mut init = rng(seed, Stream::Init);
        let scale = 1.0 / (k as f64).sqrt();
        let mut users: Vec<f64> = (0..m * k).map(|_| uniform(&mut init) * scale).collect();
        let mut items = vec![0.0f64; n * k];
        let mut objective = Vec::new();
        let mut converged = false;
        for _ in 0..params.iterations {
            Self::half_step(&params, &users, &mut items, k, |i| {
                (train.item_users(i as u32), train.item_values(i as u32))
            });
            Self::half_step(&params, &items, &mut users, k, |u| {
                let row = train.user_row(u as u32);
                (row.items, row.values)
            });
            let value = Self::objective(&params, train, &users, &items);
            let previous = objective.last().copied();
            objective.push(value);
            if previous.is_some_and(|previous| {
                (previous - value).abs() <= params.tolerance * previous.abs().max(1e-300)
            }) {
                converged = true;
                break;
            }
        }
        let train_rmse = Self::rmse(&params, train, &users, &items);
        let report = AlsReport { iterations: objective.len(), objective, train_rmse, converged };
        let factors = Factors::from_f64(m, n, k, &users, &items);
        Ok(Als { params, factors, users, items, report })
    }

    fn half_step<'a>(
        params: &AlsParams,
        other: &[f64],
        out: &mut [f64],
        k: usize,
        row: impl Fn(usize) -> (&'a [u32], &'a [f32]) + Sync,
    ) {
        let gram_matrix = match params.loss {
            AlsLoss::Implicit { .. } => Some(gram(other, k)),
            AlsLoss::Explicit { .. } => None,
        };
        let system = RowSystem { k, other, gram: gram_matrix.as_deref() };
        out.par_chunks_mut(k).enumerate().for_each_init(Vec::new, |scratch, (index, x)| {
            let (cols, values) = row(index);
            system.solve(params.loss, params.lambda, cols, values, scratch, x);
        });
    }

    fn penalty(params: &AlsParams, factors: &[f64], counts: &[u32], k: usize) -> f64 {
        factors
            .chunks(k)
            .zip(counts)
            .map(|(row, &count)| {
                let weight = match params.loss {
                    AlsLoss::Explicit { weighted_lambda: true } => f64::from(count),
                    _ => 1.0,
                };
                weight * dot(row, row)
            })
            .sum::<f64>()
            * params.lambda
    }

    fn objective(params: &AlsParams, train: &Interactions, users: &[f64], items: &[f64]) -> f64 {
        let k = params.factors;
        let mut loss = 0.0;
        for (event, prediction) in Self::predictions(k, train, users, items) {
            match params.loss {
                AlsLoss::Explicit { .. } => loss += (f64::from(event.value) - prediction).powi(2),
                AlsLoss::Implicit { alpha } => {
                    let r = f64::from(event.value).max(0.0);
                    let confidence = 1.0 + alpha * r;
                    let preference = if r > 0.0 { 1.0 } else { 0.0 };
                    // Replace the unobserved term (p = 0, c = 1) counted in the sum below.
                    loss += confidence * (preference - prediction).powi(2) - prediction.powi(2);
                }
            }
        }
        if let AlsLoss::Implicit { .. } = params.loss {
            // Σ over all pairs of (x_u·y_i)² = Σ_pq (XᵀX)_pq (YᵀY)_pq.
            let (gx, gy) = (gram(users, k), gram(items, k));
            loss += dot(&gx, &gy);
        }
        loss + Self::penalty(params, users, &train.user_counts(), k)
            + Self::penalty(params, items, &train.item_counts(), k)
    }

    fn rmse(params: &AlsParams, train: &Interactions, users: &[f64], items: &[f64]) -> f64 {
        let mut total = 0.0;
        for (event, prediction) in Self::predictions(params.factors, train, users, items) {
            let target = match params.loss {
                AlsLoss::Explicit { .. } => f64::from(event.value),
                AlsLoss::Implicit { .. } => f64::from(u8::from(event.value > 0.0)),
            };
            total += (target - prediction).powi(2);
        }
        (total / train.n_events() as f64).sqrt()
    }

    /// Each training event with the factors' prediction `x_u · y_i` for it (`k` factors).
    fn predictions<'a>(
        k: usize,
        train: &'a Interactions,
        users: &'a [f64],
        items: &'a [f64],
    ) -> impl Iterator<Item = (recs_core::Event, f64)> + 'a {
        train.events().map(move |event| {
            let x = &users[event.user as usize * k..(event.user as usize + 1) * k];
            let y = &items[event.item as usize * k..(event.item as usize + 1) * k];
            (event, dot(x, y))
        })
    }

    /// The convergence report.
    pub fn report(&self) -> &AlsReport {
        &self.report
    }

    /// Number of factors `k`.
    pub fn n_factors(&self) -> usize {
        self.params.factors
    }

    /// User factors `X` (`users × k`, row-major).
    pub fn user_factors(&self) -> &[f64] {
        &self.users
    }

    /// Item factors `Y` (`items × k`, row-major).
    pub fn item_factors(&self) -> &[f64] {
        &self.items
    }

    /// The factors of a user unseen in training, from their events, by one regularised
    /// solve with the item factors fixed.
    ///
    /// # Errors
    /// A history item out of range, a non-finite value, or mismatched lengths.
    pub fn fold_in_factors(&self, history: UserRow<'_>) -> Result<Vec<f64>> {
        check_history(history.items, history.values, self.factors.n_items)?;
        let k = self.params.factors;
        let gram_matrix = match self.params.loss {
            AlsLoss::Implicit { .. } => Some(gram(&self.items, k)),
            AlsLoss::Explicit { .. } => None,
        };
        let system = RowSystem { k, other: &self.items, gram: gram_matrix.as_deref() };
        let ones;
        let values = if self.params.ids_only_history {
            ones = vec![1.0f32; history.items.len()];
            &ones[..]
        } else {
            history.values
        };
        let mut x = vec![0.0f64; k];
        let mut scratch = Vec::new();
        system.solve(
            self.params.loss,
            self.params.lambda,
            history.items,
            values,
            &mut scratch,
            &mut x,
        );
        Ok(x)
    }

    /// Scores every item for each of `users` with one matrix product, into `out`
    /// (`users.len() × n_items`, row-major), equal to [`Recommender::score`] up to `f32`
    /// rounding.
    ///
    /// # Errors
    /// A user out of range or a buffer of the wrong length.
    pub fn score_block(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        self.factors.score_block(users, out)
    }
}

impl Recommender for Als {
    crate::common::factor_scoring!();

    fn as_rating_predictor(&self) -> Option<&dyn PredictRating> {
        match self.params.loss {
            AlsLoss::Explicit { .. } => Some(self),
            AlsLoss::Implicit { .. } => None,
        }
    }

    recs_core::capabilities!(fold_in);
}

impl PredictRating for Als {
    /// The predicted rating `x_u · y_i` (explicit loss).
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.factors.score(user, items, out)
    }
}

impl FoldInUser for Als {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.factors.check_items(items, out)?;
        let x: Vec<f32> = self.fold_in_factors(history)?.iter().map(|&v| v as f32).collect();
        self.factors.score_vector(&x, items, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Fit};

    fn ratings() -> Interactions {
        let mut events = Vec::new();
        for u in 0..30u32 {
            for i in 0..20u32 {
                if (u * 7 + i * 11) % 3 != 0 {
                    let value = 1.0 + ((u % 4 + i % 3) % 5) as f32;
                    events.push(Event::new(u, i, value));
                }
            }
        }
        Interactions::from_events(30, 20, events, DuplicatePolicy::Error).unwrap()
    }

    fn converged(params: AlsParams, train: &Interactions) -> Als {
        params
            .with_iterations(200)
            .unwrap()
            .with_tolerance(0.0)
            .unwrap()
            .fit(&TrainData::new(train, 5))
            .unwrap()
    }

    #[test]
    fn fold_in_of_a_training_user_reproduces_its_factors() {
        let train = ratings();
        for params in [
            AlsParams::explicit(4, 0.1).unwrap(),
            AlsParams::explicit(4, 0.5).unwrap().with_unweighted_lambda(),
            AlsParams::implicit(4, 0.1, 10.0).unwrap(),
        ] {
            let model = converged(params, &train);
            let k = model.n_factors();
            for user in [0u32, 13, 29] {
                let folded = model.fold_in_factors(train.user_row(user)).unwrap();
                let fitted = &model.user_factors()[user as usize * k..(user as usize + 1) * k];
                for (a, b) in folded.iter().zip(fitted) {
                    assert!((a - b).abs() < 1e-9, "{params:?}: {a} vs {b}");
                }
            }
        }
    }

    /// Folded in from ids alone, a user's factors are those of the same history with every
    /// value 1, whatever its ratings; for explicit ALS any other constant gives the same
    /// ranking (the factors scale with it).
    #[test]
    fn an_ids_only_fold_in_reads_every_value_as_one() {
        let train = ratings();
        let params = AlsParams::explicit(4, 0.1).unwrap();
        let by_ratings = converged(params, &train);
        let by_ids = converged(params.with_ids_only_history(), &train);
        let row = train.user_row(13);
        let ones = vec![1.0f32; row.items.len()];
        let fives = vec![5.0f32; row.items.len()];
        let as_ones = UserRow { values: &ones, ..row };
        let as_fives = UserRow { values: &fives, ..row };
        let folded = by_ids.fold_in_factors(row).unwrap();
        assert_eq!(folded, by_ratings.fold_in_factors(as_ones).unwrap());
        assert_eq!(folded, by_ids.fold_in_factors(as_fives).unwrap());
        let scaled = by_ratings.fold_in_factors(as_fives).unwrap();
        for (a, b) in folded.iter().zip(&scaled) {
            assert!((5.0 * a - b).abs() < 1e-9, "{a} × 5 vs {b}");
        }
        // The history's ratings do move the factors when they are read.
        assert_ne!(folded, by_ratings.fold_in_factors(row).unwrap());
    }

    #[test]
    fn objective_never_increases() {
        let train = ratings();
        for params in
            [AlsParams::explicit(3, 0.1).unwrap(), AlsParams::implicit(3, 0.1, 5.0).unwrap()]
        {
            let model = params
                .with_iterations(20)
                .unwrap()
                .with_tolerance(0.0)
                .unwrap()
                .fit(&TrainData::new(&train, 2))
                .unwrap();
            let objective = &model.report().objective;
            assert_eq!(objective.len(), 20);
            for w in objective.windows(2) {
                assert!(w[1] <= w[0] * (1.0 + 1e-10), "{params:?}: {} then {}", w[0], w[1]);
            }
        }
    }

    #[test]
    fn implicit_objective_matches_a_brute_force_sum() {
        let train = ratings();
        let params = AlsParams::implicit(2, 0.3, 2.0).unwrap().with_iterations(2).unwrap();
        let model = params.fit(&TrainData::new(&train, 1)).unwrap();
        let k = 2;
        let (x, y) = (model.user_factors(), model.item_factors());
        let mut brute = 0.0;
        for u in 0..30u32 {
            for i in 0..20u32 {
                let r = train.get(u, i).map_or(0.0, f64::from);
                let c = 1.0 + 2.0 * r;
                let p = if r > 0.0 { 1.0 } else { 0.0 };
                let s = dot(
                    &x[u as usize * k..u as usize * k + k],
                    &y[i as usize * k..i as usize * k + k],
                );
                brute += c * (p - s).powi(2);
            }
        }
        brute += 0.3 * (dot(x, x) + dot(y, y));
        let reported = *model.report().objective.last().unwrap();
        assert!((brute - reported).abs() < 1e-8 * brute, "{brute} vs {reported}");
    }

    #[test]
    fn explicit_als_fits_a_rank_one_matrix() {
        // r_ui = a_u b_i, fully observed: rank 1 fits almost exactly with a small penalty.
        let events = (0..8u32).flat_map(|u| {
            (0..6u32).map(move |i| Event::new(u, i, (1 + u % 3) as f32 * (1 + i % 2) as f32))
        });
        let train = Interactions::from_events(8, 6, events, DuplicatePolicy::Error).unwrap();
        let model = converged(AlsParams::explicit(1, 1e-6).unwrap(), &train);
        assert!(model.report().train_rmse < 1e-3, "{:?}", model.report());
        let mut out = [0.0f32];
        model.predict(2, &[1], &mut out).unwrap();
        assert!((out[0] - 6.0).abs() < 1e-2);
    }

    #[test]
    fn invalid_parameters_are_refused() {
        assert!(AlsParams::explicit(0, 0.1).is_err());
        assert!(AlsParams::explicit(2, 0.0).is_err());
        assert!(AlsParams::explicit(2, f64::NAN).is_err());
        assert!(AlsParams::implicit(2, 0.1, -1.0).is_err());
        assert!(AlsParams::explicit(2, 0.1).unwrap().with_iterations(0).is_err());
        assert!(AlsParams::explicit(2, 0.1).unwrap().with_tolerance(-1.0).is_err());
    }

    #[test]
    fn same_seed_same_factors_for_any_thread_count() {
        let train = ratings();
        let params = AlsParams::implicit(3, 0.1, 4.0).unwrap();
        let (a, b) = recs_testkit::on_one_and_three_threads(|| {
            params.fit(&TrainData::new(&train, 9)).unwrap()
        });
        assert_eq!(a.user_factors(), b.user_factors());
        assert_eq!(a.item_factors(), b.item_factors());
    }
}
