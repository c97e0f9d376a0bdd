//! Shared pieces: seeded random numbers, small dense solves, and the factor scorer that
//! every factor model (PureSVD, ALS) scores with.

use std::sync::OnceLock;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{GOLDEN_GAMMA, RecsError, Result, check_index, check_len, splitmix64};

use crate::kernel::ItemPanels;

/// Purposes of random streams; each gets its own generator so that adding a random step
/// for one purpose does not shift another.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stream {
    /// Initial factors or probabilities.
    Init = 1,
    /// The held-out share of training events (aspect model).
    Holdout = 2,
    /// The start vector of the Lanczos SVD.
    #[cfg(feature = "fits")]
    StartVector = 3,
}

/// A generator for `seed` and `stream`: the stream id, spread by [`GOLDEN_GAMMA`], is
/// folded into the seed, and the generator's state is drawn from it with
/// [`recs_core::splitmix64`], the workspace's one seed mixer. This is the state
/// `Xoshiro256PlusPlus::seed_from_u64` draws, so the streams (and every fitted model) are
/// those of earlier versions.
pub(crate) fn rng(seed: u64, stream: Stream) -> Xoshiro256PlusPlus {
    let mut state = seed ^ (stream as u64).wrapping_mul(GOLDEN_GAMMA);
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// A uniform draw in `[0, 1)` with 53 random bits.
pub(crate) fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Solves `a x = b` for a symmetric positive definite `a` (row-major `k × k`) by Cholesky
/// factorisation, in place: `b` receives `x`. `a` is overwritten by its factor.
///
/// Returns `false` when `a` is not numerically positive definite (a pivot ≤ 0).
pub(crate) fn cholesky_solve(a: &mut [f64], b: &mut [f64], k: usize) -> bool {
    debug_assert_eq!(a.len(), k * k);
    debug_assert_eq!(b.len(), k);
    for j in 0..k {
        let mut diag = a[j * k + j];
        for p in 0..j {
            diag -= a[j * k + p] * a[j * k + p];
        }
        if diag.is_nan() || diag <= 0.0 {
            return false;
        }
        let diag = diag.sqrt();
        a[j * k + j] = diag;
        for i in j + 1..k {
            let mut value = a[i * k + j];
            for p in 0..j {
                value -= a[i * k + p] * a[j * k + p];
            }
            a[i * k + j] = value / diag;
        }
    }
    // Forward substitution with L, then backward with Lᵀ.
    for i in 0..k {
        let mut value = b[i];
        for p in 0..i {
            value -= a[i * k + p] * b[p];
        }
        b[i] = value / a[i * k + i];
    }
    for i in (0..k).rev() {
        let mut value = b[i];
        for p in i + 1..k {
            value -= a[p * k + i] * b[p];
        }
        b[i] = value / a[i * k + i];
    }
    true
}

#[cfg(feature = "fits")]
/// Dot product in a fixed order.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Dot product of two `f32` rows accumulated in `f64`, in a fixed order (from `+0.0`,
/// then each product in turn).
pub(crate) fn dot32(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).fold(0.0, |sum, (&x, &y)| sum + f64::from(x) * f64::from(y))
}

/// Items scored together by [`Factors::score_vector`]: independent sums that keep the
/// floating-point units busy, each still [`dot32`]'s sequence of operations.
const LANES: usize = 8;

/// User and item factors stored row-major in `f32`; the score of (user, item) is the dot
/// product of their rows, accumulated in `f64` in a fixed order.
#[derive(Debug, Clone)]
pub(crate) struct Factors {
    pub(crate) n_users: usize,
    pub(crate) n_items: usize,
    pub(crate) rank: usize,
    /// `n_users × rank`.
    pub(crate) users: Vec<f32>,
    /// `n_items × rank`.
    pub(crate) items: Vec<f32>,
    /// The item factors regrouped for full-catalog scoring, built on first use.
    pub(crate) panels: OnceLock<ItemPanels>,
}

impl Factors {
    #[cfg(feature = "fits")]
    pub(crate) fn from_f64(
        n_users: usize,
        n_items: usize,
        rank: usize,
        users: &[f64],
        items: &[f64],
    ) -> Self {
        Factors {
            n_users,
            n_items,
            rank,
            users: users.iter().map(|&x| x as f32).collect(),
            items: items.iter().map(|&x| x as f32).collect(),
            panels: OnceLock::new(),
        }
    }

    pub(crate) fn user(&self, user: usize) -> &[f32] {
        &self.users[user * self.rank..(user + 1) * self.rank]
    }

    pub(crate) fn item(&self, item: usize) -> &[f32] {
        &self.items[item * self.rank..(item + 1) * self.rank]
    }

    /// Scores `items` against an arbitrary user vector (already checked). Every score is
    /// [`dot32`] of the two rows, bit for bit; [`LANES`] items are summed side by side so
    /// that a full catalog is not bound by the latency of one long chain of additions.
    pub(crate) fn score_vector(&self, user_vector: &[f32], items: &[u32], out: &mut [f32]) {
        let mut chunks = items.chunks_exact(LANES);
        let mut outs = out.chunks_exact_mut(LANES);
        for (chunk, o) in (&mut chunks).zip(&mut outs) {
            let rows: [&[f32]; LANES] = std::array::from_fn(|l| self.item(chunk[l] as usize));
            let mut sums = [0.0f64; LANES];
            for (k, &u) in user_vector.iter().enumerate() {
                let u = f64::from(u);
                for l in 0..LANES {
                    sums[l] += u * f64::from(rows[l][k]);
                }
            }
            for l in 0..LANES {
                o[l] = sums[l] as f32;
            }
        }
        for (o, &item) in outs.into_remainder().iter_mut().zip(chunks.remainder()) {
            *o = dot32(user_vector, self.item(item as usize)) as f32;
        }
    }

    /// Scores `items` for a training user, with the argument checks of the trait.
    pub(crate) fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        recs_core::check_score_args(self.n_users, self.n_items, user, items, out)?;
        self.score_vector(self.user(user as usize), items, out);
        Ok(())
    }

    /// Scores every item for each of `users` into `out` (`users.len() × n_items`,
    /// row-major), each row equal bit for bit to [`Factors::score`] of every item.
    pub(crate) fn score_catalog(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        for &user in users {
            check_index("user", user as usize, self.n_users)?;
        }
        check_len("catalog score buffer (users × items)", users.len() * self.n_items, out.len())?;
        let panels =
            self.panels.get_or_init(|| ItemPanels::new(&self.items, self.n_items, self.rank));
        let rows: Vec<&[f32]> = users.iter().map(|&u| self.user(u as usize)).collect();
        panels.score(&rows, out);
        Ok(())
    }

    #[cfg(feature = "fits")]
    /// Scores every item for each of `users` into `out` (`users.len() × n_items`,
    /// row-major) with one matrix product. Values agree with [`Factors::score`] to within
    /// `f32` rounding (the product may sum in another order).
    pub(crate) fn score_block(&self, users: &[u32], out: &mut [f32]) -> Result<()> {
        for &user in users {
            check_index("user", user as usize, self.n_users)?;
        }
        check_len("block score buffer (users × items)", users.len() * self.n_items, out.len())?;
        let rank = self.rank;
        let left = faer::Mat::<f32>::from_fn(users.len(), rank, |r, c| {
            self.users[users[r] as usize * rank + c]
        });
        let right = faer::MatRef::from_row_major_slice(&self.items, self.n_items, rank);
        let product = faer::MatMut::from_row_major_slice_mut(out, users.len(), self.n_items);
        faer::linalg::matmul::matmul(
            product,
            faer::Accum::Replace,
            left.as_ref(),
            right.transpose(),
            1.0f32,
            faer::Par::Seq,
        );
        Ok(())
    }

    #[cfg(feature = "fits")]
    /// Checks the item half of the score arguments (for fold-in scorers).
    pub(crate) fn check_items(&self, items: &[u32], out: &[f32]) -> Result<()> {
        recs_core::check_items(self.n_items, items, out)
    }
}

/// Checks an iteration budget: at least one iteration, a finite tolerance ≥ 0.
pub(crate) fn check_iterations(iterations: usize, tolerance: f64) -> Result<()> {
    if iterations == 0 {
        return Err(RecsError::invalid_parameter("iterations", 0, "at least 1"));
    }
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(RecsError::invalid_parameter("tolerance", tolerance, "a value ≥ 0"));
    }
    Ok(())
}

/// Error for a history item outside the training item space.
pub(crate) fn check_history(items: &[u32], values: &[f32], n_items: usize) -> Result<()> {
    check_len("history values", items.len(), values.len())?;
    for &item in items {
        check_index("history item", item as usize, n_items)?;
    }
    if let Some(&v) = values.iter().find(|v| !v.is_finite()) {
        return Err(RecsError::InvalidValue {
            what: "history value",
            value: f64::from(v),
            expected: "a finite number",
        });
    }
    Ok(())
}

/// The [`Recommender`](recs_core::Recommender) methods of a model whose scores are the
/// dot products of its [`Factors`] (in a field named `factors`): one definition for
/// every such model, so none can drift from the others.
macro_rules! factor_scoring {
    () => {
        fn shape(&self) -> recs_core::Shape {
            recs_core::Shape::new(self.factors.n_users, self.factors.n_items)
        }

        fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
            self.factors.score(user, items, out)
        }

        fn score_catalog(&self, users: &[u32], out: &mut [f32]) -> recs_core::Result<()> {
            self.factors.score_catalog(users, out)
        }

        fn as_factors(&self) -> Option<recs_core::FactorView<'_>> {
            Some(recs_core::FactorView {
                rank: self.factors.rank,
                users: &self.factors.users,
                items: &self.factors.items,
            })
        }
    };
}
pub(crate) use factor_scoring;

// The tests use the fitted models' streams and factors.
#[cfg(all(test, feature = "fits"))]
mod tests {
    use super::*;

    /// Drawing the state through `recs_core::splitmix64` kept every stream, hence every
    /// fitted model, as it was with `Xoshiro256PlusPlus::seed_from_u64`.
    #[test]
    fn streams_are_those_of_seed_from_u64() {
        for seed in [0, 1, 42, u64::MAX] {
            for stream in [Stream::Init, Stream::Holdout, Stream::StartVector] {
                let before = seed ^ (stream as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut expected = Xoshiro256PlusPlus::seed_from_u64(before);
                let mut ours = rng(seed, stream);
                for _ in 0..4 {
                    assert_eq!(ours.next_u64(), expected.next_u64(), "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn cholesky_solves_a_hand_computed_system() {
        // [[4, 2], [2, 3]] x = [2, 1]  →  x = [0.5, 0].
        let mut a = vec![4.0, 2.0, 2.0, 3.0];
        let mut b = vec![2.0, 1.0];
        assert!(cholesky_solve(&mut a, &mut b, 2));
        assert!((b[0] - 0.5).abs() < 1e-12 && b[1].abs() < 1e-12);
        let mut singular = vec![1.0, 1.0, 1.0, 1.0];
        let mut b = vec![1.0, 1.0];
        assert!(!cholesky_solve(&mut singular, &mut b, 2));
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a = uniform(&mut rng(1, Stream::Init));
        let b = uniform(&mut rng(1, Stream::Holdout));
        assert_ne!(a, b);
        assert_eq!(a, uniform(&mut rng(1, Stream::Init)));
        assert!((0.0..1.0).contains(&a));
    }

    #[test]
    fn block_scores_match_single_scores() {
        let users: Vec<f64> = (0..6).map(|x| x as f64 * 0.5 - 1.0).collect();
        let items: Vec<f64> = (0..8).map(|x| (x as f64).sin()).collect();
        let factors = Factors::from_f64(3, 4, 2, &users, &items);
        let mut block = vec![0.0f32; 2 * 4];
        factors.score_block(&[2, 0], &mut block).unwrap();
        let mut single = vec![0.0f32; 4];
        factors.score(2, &[0, 1, 2, 3], &mut single).unwrap();
        for (a, b) in block[..4].iter().zip(&single) {
            assert!((a - b).abs() < 1e-6);
        }
        assert!(factors.score_block(&[3], &mut block[..4]).is_err());
        assert!(factors.score_block(&[0], &mut block).is_err());
    }
}
