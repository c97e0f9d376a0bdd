//! The small dense solves the corrections need: a minimum-norm least-squares solution by
//! SVD, a symmetric positive definite solve (each keeping its decomposition for several
//! right-hand sides), and non-negative least squares with free
//! variables (Lawson & Hanson 1974, ch. 23).

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::solvers::Solve;
use faer::linalg::svd::{ComputeSvdVectors, svd, svd_scratch};
use faer::{Mat, MatRef, Par, Side};

use crate::error::{Result, SampledError};

/// The thin SVD `a = U Σ Vᵀ` as `(U, σ, V)`, computed on the calling thread: faer's
/// default parallelism splits the work over rayon's threads, and the rounding of a badly
/// conditioned system (minimal bias's) would then depend on the thread count.
pub(crate) fn thin_svd(a: MatRef<'_, f64>) -> Result<(Mat<f64>, Vec<f64>, Mat<f64>)> {
    let (m, n) = a.shape();
    let size = m.min(n);
    let (mut u, mut v, mut sigma) = (Mat::zeros(m, size), Mat::zeros(n, size), Diag::zeros(size));
    let thin = ComputeSvdVectors::Thin;
    let mut buffer =
        MemBuffer::new(svd_scratch::<f64>(m, n, thin, thin, Par::Seq, Default::default()));
    svd(
        a,
        sigma.as_mut(),
        Some(u.as_mut()),
        Some(v.as_mut()),
        Par::Seq,
        MemStack::new(&mut buffer),
        Default::default(),
    )
    .map_err(|e| SampledError::Numeric(format!("the SVD did not converge: {e:?}")))?;
    let column = sigma.column_vector();
    let values = (0..size).map(|i| column[i]).collect();
    Ok((u, values, v))
}

/// The minimum-norm least-squares solution of `a x ≈ b`: `x = V Σ⁺ Uᵀ b`, with singular
/// values at or below `σ_max · ε · max(rows, cols)` treated as zero (numpy's `lstsq`
/// default), so that directions the data cannot determine contribute nothing.
pub(crate) fn lstsq(a: MatRef<'_, f64>, b: &[f64]) -> Result<Vec<f64>> {
    Ok(PseudoInverse::new(a)?.solve(b))
}

/// The SVD of a matrix `a`, kept to solve `a x ≈ b` for several `b` ([`lstsq`]'s
/// solution for each): the decomposition is most of the work and does not depend on `b`.
pub(crate) struct PseudoInverse {
    u: Mat<f64>,
    v: Mat<f64>,
    /// The singular values above the cutoff; the directions of the others are left out.
    kept: Vec<(usize, f64)>,
}

impl PseudoInverse {
    pub(crate) fn new(a: MatRef<'_, f64>) -> Result<PseudoInverse> {
        let (rows, cols) = a.shape();
        if cols == 0 {
            return Ok(PseudoInverse { u: Mat::zeros(rows, 0), v: Mat::zeros(0, 0), kept: vec![] });
        }
        let (u, s, v) = thin_svd(a)?;
        let top = s.iter().copied().fold(0.0f64, f64::max);
        let cutoff = top * f64::EPSILON * rows.max(cols) as f64;
        let kept =
            s.iter().enumerate().filter(|&(_, &x)| x > cutoff).map(|(i, &x)| (i, x)).collect();
        Ok(PseudoInverse { u, v, kept })
    }

    /// `V Σ⁺ Uᵀ b`.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let (rows, cols) = (self.u.nrows(), self.v.nrows());
        let mut x = vec![0.0f64; cols];
        for &(i, sigma) in &self.kept {
            let coefficient: f64 = (0..rows).map(|r| self.u[(r, i)] * b[r]).sum::<f64>() / sigma;
            for (c, xc) in x.iter_mut().enumerate() {
                *xc += coefficient * self.v[(c, i)];
            }
        }
        x
    }
}

/// The Cholesky factor of a symmetric positive definite matrix `g`, kept to solve `g x =
/// rhs` for several right-hand sides.
pub(crate) struct Cholesky(faer::linalg::solvers::Llt<f64>);

impl Cholesky {
    pub(crate) fn new(g: MatRef<'_, f64>) -> Result<Cholesky> {
        let llt = g.llt(Side::Lower).map_err(|e| {
            SampledError::Numeric(format!("the system is not positive definite: {e:?}"))
        })?;
        Ok(Cholesky(llt))
    }

    /// The solution of `g x = rhs`.
    pub(crate) fn solve(&self, rhs: &[f64]) -> Vec<f64> {
        let column = Mat::from_fn(rhs.len(), 1, |i, _| rhs[i]);
        let x = self.0.solve(&column);
        (0..rhs.len()).map(|i| x[(i, 0)]).collect()
    }
}

/// `argmin ‖a x − b‖` subject to `x_j ≥ 0` for every `j` with `free[j] == false`
/// (Lawson & Hanson's active-set algorithm, the free variables kept in the passive set).
pub(crate) fn nnls(a: MatRef<'_, f64>, b: &[f64], free: &[bool]) -> Result<Vec<f64>> {
    let (rows, cols) = a.shape();
    let scale = (0..cols)
        .map(|j| (0..rows).map(|i| a[(i, j)].abs()).fold(0.0f64, f64::max))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let tolerance = 1e-12 * scale * b.iter().map(|v| v.abs()).fold(1.0f64, f64::max);
    let mut passive: Vec<bool> = free.to_vec();
    let mut x = vec![0.0f64; cols];
    let solve_passive = |passive: &[bool]| -> Result<Vec<f64>> {
        let columns: Vec<usize> = (0..cols).filter(|&j| passive[j]).collect();
        let sub = Mat::from_fn(rows, columns.len(), |i, k| a[(i, columns[k])]);
        let z = lstsq(sub.as_ref(), b)?;
        let mut full = vec![0.0f64; cols];
        for (k, &j) in columns.iter().enumerate() {
            full[j] = z[k];
        }
        Ok(full)
    };
    if passive.iter().any(|&p| p) {
        x = solve_passive(&passive)?;
    }
    // Each pass moves one variable into the passive set; a variable can return, so the
    // bound is generous.
    for _ in 0..(3 * cols + 10) {
        let residual: Vec<f64> =
            (0..rows).map(|i| b[i] - (0..cols).map(|j| a[(i, j)] * x[j]).sum::<f64>()).collect();
        let gradient: Vec<f64> =
            (0..cols).map(|j| (0..rows).map(|i| a[(i, j)] * residual[i]).sum()).collect();
        let entering = (0..cols)
            .filter(|&j| !passive[j] && gradient[j] > tolerance)
            .max_by(|&p, &q| gradient[p].total_cmp(&gradient[q]));
        let Some(t) = entering else { return Ok(x) };
        passive[t] = true;
        loop {
            let z = solve_passive(&passive)?;
            let blocking: Vec<usize> =
                (0..cols).filter(|&j| passive[j] && !free[j] && z[j] <= 0.0).collect();
            if blocking.is_empty() {
                x = z;
                break;
            }
            let alpha =
                blocking.iter().map(|&j| x[j] / (x[j] - z[j])).fold(f64::INFINITY, f64::min);
            for j in 0..cols {
                x[j] += alpha * (z[j] - x[j]);
            }
            for j in 0..cols {
                if passive[j] && !free[j] && x[j] <= tolerance {
                    passive[j] = false;
                    x[j] = 0.0;
                }
            }
        }
    }
    Err(SampledError::Numeric("non-negative least squares did not converge".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_is_exact_on_a_consistent_system_and_minimum_norm_on_a_singular_one() {
        let a = Mat::from_fn(4, 2, |i, j| [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [2.0, -1.0]][i][j]);
        let b = [1.0, 4.0, 3.0, 0.0]; // x = (1, 2)
        let x = lstsq(a.as_ref(), &b).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12, "{x:?}");
        // Two equal columns: the minimum-norm solution splits the weight evenly.
        let twin = Mat::from_fn(3, 2, |i, _| (i + 1) as f64);
        let x = lstsq(twin.as_ref(), &[2.0, 4.0, 6.0]).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12, "{x:?}");
    }

    #[test]
    fn a_positive_definite_solve() {
        let g = Mat::from_fn(2, 2, |i, j| [[4.0, 1.0], [1.0, 3.0]][i][j]);
        let x = Cholesky::new(g.as_ref()).unwrap().solve(&[1.0, 2.0]);
        assert!((4.0 * x[0] + x[1] - 1.0).abs() < 1e-12 && (x[0] + 3.0 * x[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn nonnegative_least_squares_clips_and_keeps_free_variables_free() {
        // Unconstrained optimum (1, −1); with x₁ ≥ 0 the optimum is x₁ = 0 and x₀ fitted.
        let a = Mat::from_fn(3, 2, |i, j| [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]][i][j]);
        let b = [1.0, -1.0, 0.0];
        let x = nnls(a.as_ref(), &b, &[false, false]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1] == 0.0, "{x:?}");
        // x₁ free: the unconstrained optimum.
        let x = nnls(a.as_ref(), &b, &[false, true]).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] + 1.0).abs() < 1e-12, "{x:?}");
        // The KKT conditions hold on a random-looking case.
        let a = Mat::from_fn(6, 4, |i, j| ((i * 7 + j * 3) % 5) as f64 - 1.5);
        let b = [1.0, -2.0, 0.5, 3.0, -1.0, 2.0];
        let x = nnls(a.as_ref(), &b, &[false; 4]).unwrap();
        for j in 0..4 {
            let g: f64 = (0..6)
                .map(|i| a[(i, j)] * (b[i] - (0..4).map(|k| a[(i, k)] * x[k]).sum::<f64>()))
                .sum();
            assert!(x[j] >= 0.0);
            assert!(g <= 1e-9, "gradient {g} at {j}");
            assert!(x[j] == 0.0 || g.abs() < 1e-9, "complementarity at {j}");
        }
    }
}
