//! PureSVD (Cremonesi, Koren & Turrin 2010; Cremonesi et al. 2008 §4.1).
//!
//! The rating matrix `R` (users × items, missing entries = 0, no normalisation) is
//! factorised by a truncated singular value decomposition `R ≈ U_L S_L V_Lᵀ`. The score of
//! item `i` for user `u` is `(r_u V_L V_Lᵀ)_i`: the user's rating row projected on the top
//! `L` right singular vectors. For a training user this equals row `u` of the rank-`L`
//! reconstruction `U_L S_L V_Lᵀ`; for a user unseen in training it is the fold-in that needs
//! no refit.

use faer::Mat;
use recs_core::{FoldInUser, Interactions, Recommender, RecsError, Result, TrainData, UserRow};

use crate::common::{Factors, Stream, check_history, rng, uniform};
use crate::lanczos::{thin_svd, truncated_svd};
use crate::sparse::ParallelSparse;

/// Which decomposition computes the truncated SVD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SvdSolver {
    /// Dense thin SVD when the smaller side has at most 256 rows or the rank asks for
    /// more than a third of it; the sparse Lanczos solver otherwise.
    #[default]
    Auto,
    /// Dense thin SVD of the whole matrix (memory `users × items`): the reference.
    Dense,
    /// Restarted Lanczos bidiagonalisation on the sparse matrix, memory
    /// `O((users + items) · L)`, parallel and the same at any thread count. Needs
    /// `min(users, items) > max(64, 2L)`; smaller problems fall back to the dense solver
    /// (the report says which ran).
    Lanczos,
}

/// Hyper-parameters of PureSVD, validated at construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PureSvdParams {
    rank: usize,
    solver: SvdSolver,
}

impl PureSvdParams {
    /// Default rank `L = 50` (Cremonesi, Koren & Turrin 2010 report PureSVD with 50 and
    /// 150 factors on MovieLens; cremonesi2008 uses 15 to 300).
    pub const DEFAULT_RANK: usize = 50;

    /// PureSVD with `rank` latent factors and the automatic solver.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] when `rank` is 0.
    pub fn new(rank: usize) -> Result<Self> {
        if rank == 0 {
            return Err(RecsError::invalid_parameter("rank", rank, "a rank of at least 1"));
        }
        Ok(PureSvdParams { rank, solver: SvdSolver::Auto })
    }

    /// The same parameters with another solver.
    pub fn with_solver(mut self, solver: SvdSolver) -> Self {
        self.solver = solver;
        self
    }

    /// The requested rank.
    pub fn rank(&self) -> usize {
        self.rank
    }
}

impl Default for PureSvdParams {
    fn default() -> Self {
        PureSvdParams { rank: Self::DEFAULT_RANK, solver: SvdSolver::Auto }
    }
}

/// How the decomposition went.
#[derive(Debug, Clone, PartialEq)]
pub struct SvdReport {
    /// The rank asked for.
    pub requested_rank: usize,
    /// The rank used: `min(requested, users, items, converged)`.
    pub rank: usize,
    /// Singular values `s_1 ≥ … ≥ s_L`.
    pub singular_values: Vec<f64>,
    /// True when the dense solver ran, false for the Lanczos solver.
    pub dense: bool,
    /// Number of singular triplets the Lanczos solver reported converged (all of them
    /// for the dense solver). Fewer than asked means the rank was cut to this number.
    pub converged: usize,
    /// Restart cycles of the Lanczos solver (0 for the dense solver).
    pub restarts: usize,
}

/// A fitted PureSVD model.
///
/// Scores are `r_u V_L V_Lᵀ`, comparable across users (they are entries of the rank-`L`
/// reconstruction of the rating matrix).
#[derive(Debug, Clone)]
pub struct PureSvd {
    /// Scoring factors: users = `R V_L` (`= U_L S_L`), items = `V_L`.
    factors: Factors,
    /// Left singular vectors `U_L`, `users × L` row-major.
    left: Vec<f64>,
    /// Right singular vectors `V_L`, `items × L` row-major.
    right: Vec<f64>,
    report: SvdReport,
}

/// How many of `counts` are not zero.
fn non_empty(counts: &[u32]) -> usize {
    counts.iter().filter(|&&c| c > 0).count()
}

impl recs_core::Fit for PureSvdParams {
    type Model = PureSvd;

    fn fit(&self, data: &TrainData<'_>) -> Result<PureSvd> {
        PureSvd::fit(self, data.interactions, data.seed)
    }
}

impl PureSvd {
    fn fit(params: &PureSvdParams, train: &Interactions, seed: u64) -> Result<Self> {
        train.require_events()?;
        let (m, n) = (train.n_users(), train.n_items());
        let k = m.min(n);
        let rank = params.rank.min(k);
        // faer's Lanczos solver needs a search space smaller than the matrix's dimension:
        // at least max(64, 2L) < min(users, items) counting only users and items with an
        // event (empty rows and columns bound the rank: asked for more triplets than the
        // rank, the restarts never converge). Below that the dense solver is used whatever
        // was asked.
        let effective = non_empty(&train.user_counts()).min(non_empty(&train.item_counts()));
        let lanczos_possible = effective > (2 * rank).max(64);
        let dense = match params.solver {
            SvdSolver::Dense => true,
            SvdSolver::Lanczos => !lanczos_possible,
            SvdSolver::Auto => !lanczos_possible || effective <= 256 || 3 * rank > effective,
        };
        let (mut left, mut right, values, converged, restarts) =
            if dense { dense_svd(train, rank)? } else { lanczos_svd(train, rank, seed)? };
        let rank = converged.min(rank);
        fix_signs(&mut left, &mut right, m, n, values.len(), rank);
        let left = take_columns(&left, m, values.len(), rank);
        let right = take_columns(&right, n, values.len(), rank);
        let singular_values = values[..rank].to_vec();
        if rank == 0 {
            return Err(RecsError::Unsupported(
                "PureSVD: the SVD solver returned no converged singular triplet".to_string(),
            ));
        }
        // User factors r_u V: exactly the projection used for users unseen in training.
        let mut users = vec![0.0f64; m * rank];
        for user in 0..m {
            let row = train.user_row(user as u32);
            project(
                row.items,
                row.values,
                &right,
                rank,
                &mut users[user * rank..(user + 1) * rank],
            );
        }
        let factors = Factors::from_f64(m, n, rank, &users, &right);
        let report = SvdReport {
            requested_rank: params.rank,
            rank,
            singular_values,
            dense,
            converged,
            restarts,
        };
        Ok(PureSvd { factors, left, right, report })
    }

    /// The decomposition report.
    pub fn report(&self) -> &SvdReport {
        &self.report
    }

    /// The rank `L` in use.
    pub fn rank(&self) -> usize {
        self.factors.rank
    }

    /// Singular values `s_1 ≥ … ≥ s_L`.
    pub fn singular_values(&self) -> &[f64] {
        &self.report.singular_values
    }

    /// Left singular vectors `U_L`, `users × L` row-major. Each column's sign is fixed so
    /// that the largest-magnitude entry of the matching right vector is positive.
    pub fn left_singular_vectors(&self) -> &[f64] {
        &self.left
    }

    /// Right singular vectors `V_L`, `items × L` row-major.
    pub fn right_singular_vectors(&self) -> &[f64] {
        &self.right
    }

    /// The user factors `U_L √S_L` (`users × L`, row-major) of cremonesi2008 §4.1.
    pub fn user_factors(&self) -> Vec<f64> {
        scale_columns(&self.left, self.rank(), &self.report.singular_values)
    }

    /// The item factors `V_L √S_L` (`items × L`, row-major): the rows of `√S_L V_Lᵀ`.
    pub fn item_factors(&self) -> Vec<f64> {
        scale_columns(&self.right, self.rank(), &self.report.singular_values)
    }

    /// Scores every item for each of `users` with one matrix product, into `out`
    /// (`users.len() × n_items`, row-major). Equal to [`Recommender::score`] up to `f32`
    /// rounding.
    ///
    /// # Errors
    /// A user out of range or a buffer of the wrong length.
    pub fn score_block(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        self.factors.score_block(users, out)
    }
}

fn scale_columns(matrix: &[f64], rank: usize, values: &[f64]) -> Vec<f64> {
    let roots: Vec<f64> = values.iter().map(|s| s.sqrt()).collect();
    matrix.chunks(rank).flat_map(|row| row.iter().zip(&roots).map(|(x, r)| x * r)).collect()
}

/// `out = Σ_k values_k · right[items_k, ·]`, in item order.
fn project(items: &[u32], values: &[f32], right: &[f64], rank: usize, out: &mut [f64]) {
    out.fill(0.0);
    for (&item, &value) in items.iter().zip(values) {
        let row = &right[item as usize * rank..(item as usize + 1) * rank];
        for (o, &v) in out.iter_mut().zip(row) {
            *o += f64::from(value) * v;
        }
    }
}

/// Keeps the first `keep` of `cols` columns of a row-major matrix with `rows` rows.
fn take_columns(matrix: &[f64], rows: usize, cols: usize, keep: usize) -> Vec<f64> {
    (0..rows).flat_map(|r| matrix[r * cols..r * cols + keep].iter().copied()).collect()
}

/// Makes the largest-magnitude entry (the first among equals) of each right singular
/// vector positive, flipping the left vector with it, so the factors do not depend on the
/// solver's arbitrary sign choice.
fn fix_signs(left: &mut [f64], right: &mut [f64], m: usize, n: usize, cols: usize, rank: usize) {
    for j in 0..rank {
        let mut best = 0.0f64;
        let mut sign = 1.0;
        for i in 0..n {
            let v = right[i * cols + j];
            if v.abs() > best {
                best = v.abs();
                sign = v.signum();
            }
        }
        if sign < 0.0 {
            for i in 0..n {
                right[i * cols + j] = -right[i * cols + j];
            }
            for i in 0..m {
                left[i * cols + j] = -left[i * cols + j];
            }
        }
    }
}

/// Left and right vectors (row-major), singular values, converged triplets, restarts.
type SvdParts = (Vec<f64>, Vec<f64>, Vec<f64>, usize, usize);

/// Dense thin SVD (reference path), returning row-major `U` (`m × k`), `V` (`n × k`), all
/// `k = min(m, n)` singular values, and `k`.
fn dense_svd(train: &Interactions, _rank: usize) -> Result<SvdParts> {
    let (m, n) = (train.n_users(), train.n_items());
    let mut dense = Mat::<f64>::zeros(m, n);
    for user in 0..m {
        let row = train.user_row(user as u32);
        for (&item, &value) in row.items.iter().zip(row.values) {
            dense[(user, item as usize)] = f64::from(value);
        }
    }
    let k = m.min(n);
    let (u, values, v) = thin_svd(dense.as_ref())?;
    let left = (0..m).flat_map(|i| (0..k).map(move |j| (i, j))).map(|(i, j)| u[(i, j)]).collect();
    let right = (0..n).flat_map(|i| (0..k).map(move |j| (i, j))).map(|(i, j)| v[(i, j)]).collect();
    Ok((left, right, values, k, 0))
}

/// Truncated SVD by restarted Lanczos bidiagonalisation on the sparse matrix
/// ([`crate::lanczos`]), with search spaces of `max(64, 2L)` vectors. Its sparse products
/// and its passes over the bases run in parallel with a fixed order of additions, so the
/// result does not depend on the thread count.
fn lanczos_svd(train: &Interactions, rank: usize, seed: u64) -> Result<SvdParts> {
    let n = train.n_items();
    let matrix = ParallelSparse::new(train);
    let mut stream = rng(seed, Stream::StartVector);
    let start: Vec<f64> = (0..n).map(|_| uniform(&mut stream) - 0.5).collect();
    let d = (2 * rank).max(64);
    // Each Lanczos step makes about ten parallel passes. Called from a thread outside
    // the pool, each would be handed to the pool and waited for (about 40% of a
    // MovieLens-100K-size fit on one thread); inside a scope the solver runs on a
    // worker, which starts its passes directly.
    let svd = rayon::scope(|_| truncated_svd(&matrix, rank, d, &start, stream))?;
    Ok((svd.left, svd.right, svd.values, svd.converged, svd.restarts))
}

impl Recommender for PureSvd {
    crate::common::factor_scoring!();

    recs_core::capabilities!(fold_in);
}

impl FoldInUser for PureSvd {
    /// Scores `r V_L V_Lᵀ` for the history's rating row `r`, exactly as for a training user.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        self.factors.check_items(items, out)?;
        check_history(history.items, history.values, self.factors.n_items)?;
        let rank = self.rank();
        let mut vector = vec![0.0f64; rank];
        project(history.items, history.values, &self.right, rank, &mut vector);
        let vector: Vec<f32> = vector.iter().map(|&x| x as f32).collect();
        self.factors.score_vector(&vector, items, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Fit};

    fn small() -> Interactions {
        let ratings = [
            [5.0, 3.0, 0.0, 1.0, 0.0],
            [4.0, 0.0, 0.0, 1.0, 2.0],
            [1.0, 1.0, 0.0, 5.0, 0.0],
            [0.0, 1.0, 5.0, 4.0, 0.0],
            [0.0, 0.0, 4.0, 0.0, 3.0],
            [2.0, 0.0, 1.0, 0.0, 5.0],
        ];
        let events = ratings.iter().enumerate().flat_map(|(u, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, r)| **r > 0.0)
                .map(move |(i, &r)| Event::new(u as u32, i as u32, r))
        });
        Interactions::from_events(6, 5, events, DuplicatePolicy::Error).unwrap()
    }

    fn dense_row(train: &Interactions, user: u32) -> Vec<f64> {
        let mut row = vec![0.0; train.n_items()];
        for (&i, &v) in train.user_items(user).iter().zip(train.user_values(user)) {
            row[i as usize] = f64::from(v);
        }
        row
    }

    #[test]
    fn the_sparse_solver_gives_the_same_bits_at_any_thread_count() {
        let mut state = 11u64;
        let events: Vec<Event> = (0..6_000)
            .map(|_| {
                let x = recs_core::splitmix64(&mut state);
                Event::new((x % 900) as u32, ((x >> 20) % 400) as u32, 1.0)
            })
            .collect();
        let train = Interactions::from_events(900, 400, events, DuplicatePolicy::Max).unwrap();
        let scores = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let params = PureSvdParams::new(12).unwrap().with_solver(SvdSolver::Lanczos);
            let model = pool.install(|| params.fit(&TrainData::new(&train, 3))).unwrap();
            let mut out = vec![0.0f32; 900 * 400];
            model.score_catalog(&(0..900).collect::<Vec<u32>>(), &mut out).unwrap();
            out.iter().map(|s| s.to_bits()).collect::<Vec<u32>>()
        };
        let one = scores(1);
        assert_eq!(scores(4), one);
    }

    /// The Lanczos factors at any thread count on a matrix large enough for the parallel
    /// products to split both sides into many tasks, with a power-law head that the task
    /// bounds must spread.
    #[test]
    fn lanczos_factors_are_bit_identical_at_any_thread_count_on_a_power_law_matrix() {
        let (n_users, n_items) = (20_000usize, 5_000usize);
        let mut state = 17u64;
        let mut uniform = || (recs_core::splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
        let events: Vec<Event> = (0..400_000)
            .map(|_| {
                let (x, y, rating) = (uniform(), uniform(), uniform());
                let user = (n_users as f64 * x * x) as u32;
                let item = (n_items as f64 * y * y * y) as u32;
                Event::new(user, item, 1.0 + (5.0 * rating).floor() as f32)
            })
            .collect();
        let train =
            Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Max).unwrap();
        let bits = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (left, right, values, converged, _) =
                pool.install(|| lanczos_svd(&train, 20, 7)).unwrap();
            assert_eq!(converged, 20);
            let all = left.iter().chain(&right).chain(&values);
            all.map(|x| x.to_bits()).collect::<Vec<u64>>()
        };
        let one = bits(1);
        for threads in [2, 3, 5, 8, 16] {
            assert!(bits(threads) == one, "{threads} threads");
        }
    }

    #[test]
    fn full_rank_reproduces_the_ratings() {
        let train = small();
        let model = PureSvdParams::new(5).unwrap().fit(&TrainData::new(&train, 1)).unwrap();
        assert_eq!(model.rank(), 5);
        let items: Vec<u32> = (0..5).collect();
        let mut out = vec![0.0f32; 5];
        for user in 0..6 {
            model.score(user, &items, &mut out).unwrap();
            for (s, r) in out.iter().zip(dense_row(&train, user)) {
                assert!((f64::from(*s) - r).abs() < 1e-5, "user {user}: {s} vs {r}");
            }
        }
    }

    #[test]
    fn projection_equals_the_truncated_reconstruction() {
        // r_u V Vᵀ must equal row u of U S Vᵀ at every rank.
        let train = small();
        for rank in 1..=4 {
            let model = PureSvdParams::new(rank).unwrap().fit(&TrainData::new(&train, 1)).unwrap();
            let (u, v, s) = (
                model.left_singular_vectors(),
                model.right_singular_vectors(),
                model.singular_values(),
            );
            let mut out = vec![0.0f32; 5];
            for user in 0..6u32 {
                model.score(user, &[0, 1, 2, 3, 4], &mut out).unwrap();
                for item in 0..5 {
                    let reconstructed: f64 = (0..rank)
                        .map(|l| u[user as usize * rank + l] * s[l] * v[item * rank + l])
                        .sum();
                    assert!((f64::from(out[item]) - reconstructed).abs() < 1e-5);
                }
            }
            // The factor form U√S (√S Vᵀ) gives the same product.
            let (pu, qi) = (model.user_factors(), model.item_factors());
            let x: f64 = (0..rank).map(|l| pu[2 * rank + l] * qi[3 * rank + l]).sum();
            let y: f64 = (0..rank).map(|l| u[2 * rank + l] * s[l] * v[3 * rank + l]).sum();
            assert!((x - y).abs() < 1e-9);
        }
    }

    #[test]
    fn lanczos_agrees_with_dense_and_fixes_signs() {
        // 150 × 90, 40% observed, ratings from a fixed hash (full rank, distinct values).
        let mut events = Vec::new();
        for u in 0..150u32 {
            for i in 0..90u32 {
                let hash = (u.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503)) % 1000;
                if hash < 400 {
                    let value = 1.0 + (hash % 5) as f32 + ((u % 3) * (i % 4)) as f32;
                    events.push(Event::new(u, i, value));
                }
            }
        }
        let train = Interactions::from_events(150, 90, events, DuplicatePolicy::Error).unwrap();
        let data = TrainData::new(&train, 3);
        let dense =
            PureSvdParams::new(6).unwrap().with_solver(SvdSolver::Dense).fit(&data).unwrap();
        let lanczos =
            PureSvdParams::new(6).unwrap().with_solver(SvdSolver::Lanczos).fit(&data).unwrap();
        assert!(!lanczos.report().dense && dense.report().dense);
        for (a, b) in dense.singular_values().iter().zip(lanczos.singular_values()) {
            assert!((a - b).abs() < 1e-8 * a.max(1.0), "{a} vs {b}");
        }
        // Signs are fixed, so the vectors agree too (singular values here are distinct).
        for (a, b) in dense.right_singular_vectors().iter().zip(lanczos.right_singular_vectors()) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
        let mut x = vec![0.0f32; 90];
        let mut y = vec![0.0f32; 90];
        let items: Vec<u32> = (0..90).collect();
        for user in [0, 17, 149] {
            dense.score(user, &items, &mut x).unwrap();
            lanczos.score(user, &items, &mut y).unwrap();
            for (a, b) in x.iter().zip(&y) {
                assert!((a - b).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn sign_flips_do_not_change_scores() {
        let train = small();
        let model = PureSvdParams::new(3).unwrap().fit(&TrainData::new(&train, 1)).unwrap();
        let mut flipped = model.clone();
        let rank = flipped.rank();
        for row in flipped.factors.items.chunks_mut(rank) {
            row[1] = -row[1];
        }
        for row in flipped.factors.users.chunks_mut(rank) {
            row[1] = -row[1];
        }
        let (mut a, mut b) = (vec![0.0f32; 5], vec![0.0f32; 5]);
        for user in 0..6 {
            model.score(user, &[0, 1, 2, 3, 4], &mut a).unwrap();
            flipped.score(user, &[0, 1, 2, 3, 4], &mut b).unwrap();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn fold_in_of_a_training_user_gives_its_scores() {
        let train = small();
        let model = PureSvdParams::new(2).unwrap().fit(&TrainData::new(&train, 1)).unwrap();
        let items: Vec<u32> = (0..5).collect();
        let (mut a, mut b) = (vec![0.0f32; 5], vec![0.0f32; 5]);
        for user in 0..6 {
            model.score(user, &items, &mut a).unwrap();
            model.score_history(train.user_row(user), &items, &mut b).unwrap();
            assert_eq!(a, b);
        }
        let bad = UserRow { items: &[9], values: &[1.0], timestamps: None };
        assert!(model.score_history(bad, &items, &mut b).is_err());
    }

    #[test]
    fn rank_zero_is_refused_and_large_ranks_are_cut() {
        assert!(PureSvdParams::new(0).is_err());
        let model = PureSvdParams::new(50).unwrap().fit(&TrainData::new(&small(), 1)).unwrap();
        assert_eq!((model.rank(), model.report().requested_rank), (5, 50));
    }

    #[test]
    fn small_problems_fall_back_to_the_dense_solver() {
        let params = PureSvdParams::new(2).unwrap().with_solver(SvdSolver::Lanczos);
        let model = params.fit(&TrainData::new(&small(), 1)).unwrap();
        assert!(model.report().dense);
    }

    /// Many users, few of them with events: the rank is bounded by the users with events,
    /// so a large rank takes the dense solver (Lanczos would restart without end).
    #[test]
    fn empty_rows_count_against_the_lanczos_search_space() {
        let events = (0..100u32).flat_map(|u| {
            (0..6u32).map(move |j| Event::new(u, (u * 7 + j * 13) % 400, 1.0 + (j % 3) as f32))
        });
        let train = Interactions::from_events(1000, 400, events, DuplicatePolicy::Error).unwrap();
        let fit = |rank| PureSvdParams::new(rank).unwrap().fit(&TrainData::new(&train, 1)).unwrap();
        // 100 users with events: 2 · 60 ≥ 100 leaves no room for the search space.
        assert!(fit(60).report().dense);
        // Rank 10 on 100 × 400: a third of 100 is above 10 but 100 ≤ 256, so dense too;
        // the choice never counts the 900 empty rows.
        assert!(fit(10).report().dense);
    }
}
