//! User × item popularity: the least-squares regression of schein2005 §4.4.

use recs_core::{
    Fit, FoldInUser, Recommender, Result, Shape, TrainData, UserRow, check_items, check_score_args,
};

/// Parameters of [`UserItemPopularity`]: none but the placebo switch
/// [`UserItemPopularityParams::with_users_shuffled`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserItemPopularityParams {
    shuffled_users: bool,
}

impl UserItemPopularityParams {
    /// The user × item popularity regression.
    pub fn new() -> Self {
        UserItemPopularityParams { shuffled_users: false }
    }

    /// A placebo of the regression: fitted as usual, but each training user is scored with
    /// the activity (user share) of another training user, drawn by a seeded permutation.
    /// Its user term then carries no information about the user scored, so a result it
    /// reproduces does not come from that information.
    pub fn with_users_shuffled(self) -> Self {
        UserItemPopularityParams { shuffled_users: true }
    }
}

/// `values` in place, permuted among the positions `at` by a Fisher–Yates shuffle seeded
/// with `seed`.
fn shuffle_among(values: &mut [f64], at: &[u32], seed: u64) {
    let mut state = seed ^ 0x5EED_0F05_E7E7_u64;
    let picked: Vec<f64> = at.iter().map(|&i| values[i as usize]).collect();
    let mut order: Vec<usize> = (0..picked.len()).collect();
    for i in (1..order.len()).rev() {
        let j = (recs_core::splitmix64(&mut state) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    for (&i, &from) in at.iter().zip(&order) {
        values[i as usize] = picked[from];
    }
}

/// Exponents (of the user share, of the item share) of the four regressors, in the order
/// of [`UserItemPopularity::coefficients`]: intercept, user share, item share, product.
const FEATURES: [(usize, usize); 4] = [(0, 0), (1, 0), (0, 1), (1, 1)];

impl Fit for UserItemPopularityParams {
    type Model = UserItemPopularity;

    fn fit(&self, data: &TrainData<'_>) -> Result<UserItemPopularity> {
        let interactions = data.interactions.require_events()?;
        let n_items = interactions.n_items();
        // Users without training events are kept out of training (to be folded in later):
        // they are not pairs of the regression.
        let trained: Vec<u32> = interactions.users_with_events().collect();
        let user_shares: Vec<f64> =
            interactions.user_counts().into_iter().map(|c| f64::from(c) / n_items as f64).collect();
        let item_shares: Vec<f64> = interactions
            .item_counts()
            .into_iter()
            .map(|c| f64::from(c) / trained.len() as f64)
            .collect();
        let power_sums = |shares: &mut dyn Iterator<Item = f64>| {
            let mut s = [0.0, 0.0, 0.0];
            for x in shares {
                s[0] += 1.0;
                s[1] += x;
                s[2] += x * x;
            }
            s
        };
        let s = power_sums(&mut trained.iter().map(|&u| user_shares[u as usize]));
        let t = power_sums(&mut item_shares.iter().copied());
        // Normal matrix over all |users| × |items| pairs: the regressors are monomials
        // a^p b^q, so Σ_{u,i} a_u^{p+p'} b_i^{q+q'} = S_{p+p'} · T_{q+q'}.
        let mut normal = [[0.0f64; 4]; 4];
        for (f, &(p, q)) in FEATURES.iter().enumerate() {
            for (g, &(p2, q2)) in FEATURES.iter().enumerate() {
                normal[f][g] = s[p + p2] * t[q + q2];
            }
        }
        // Right-hand side: the regressors summed over observed pairs only (y = 1 there).
        let mut rhs = [0.0f64; 4];
        for &user in &trained {
            let a = user_shares[user as usize];
            let (mut sum_b, mut count) = (0.0, 0.0);
            for &item in interactions.user_items(user) {
                sum_b += item_shares[item as usize];
                count += 1.0;
            }
            rhs[0] += count;
            rhs[1] += a * count;
            rhs[2] += sum_b;
            rhs[3] += a * sum_b;
        }
        let coefficients = solve_least_squares(normal, rhs);
        let mut user_shares = user_shares;
        if self.shuffled_users {
            shuffle_among(&mut user_shares, &trained, data.seed);
        }
        Ok(UserItemPopularity { coefficients, user_shares, item_shares })
    }
}

/// Least-squares regression of "observed or not" on popularity (schein2005 §4.4).
///
/// Over **all** user × item pairs of the training space (users with a training event:
/// users kept out of training, to be folded in, are not pairs), `y_ui = 1` when the pair
/// has a training event and `0` otherwise, and
///
/// ```text
/// ŷ_ui = β0 + β1·a_u + β2·b_i + β3·a_u·b_i
/// ```
///
/// where `a_u = n_u / |items|` is the user's share of items ("the percentage of URLs in
/// the data set the user visited"), `b_i = n_i / |users|` the item's share of users ("the
/// percentage of people who visited the URL"), and the product the interaction term.
/// (Shares rather than percentages: the coefficients scale, the scores do not change.)
///
/// Fitting never materialises the |users| × |items| rows: the normal matrix `XᵀX` is a
/// product of power sums `Σ_u a_u^k` and `Σ_i b_i^k` (k ≤ 2), and `Xᵀy` sums over the
/// observed pairs only, so the fit is O(events + users + items). The 4 × 4 system is
/// solved by a Jacobi eigen-decomposition of the diagonally scaled normal matrix with
/// a pseudo-inverse, so collinear regressors (e.g. every user equally active) still give
/// a least-squares fit instead of an error.
///
/// Scores are comparable across users (one pooled regression). Within one user the score
/// is affine in `b_i` with slope `β2 + β3·a_u`; when that slope is positive the user's
/// order is exactly item popularity — why the user information "disappears" under CROC
/// (schein2005 §6.1). Capabilities: [`FoldInUser`] (`a` from the history's length). No
/// score for items unseen in training: in cold start use [`UserPopularity`], to which
/// the paper says popularity reduces there (§4.4).
///
/// [`UserPopularity`]: crate::UserPopularity
#[derive(Debug, Clone)]
pub struct UserItemPopularity {
    coefficients: [f64; 4],
    user_shares: Vec<f64>,
    item_shares: Vec<f64>,
}

impl UserItemPopularity {
    /// `[β0, β1, β2, β3]`: intercept, user share, item share, their product.
    pub fn coefficients(&self) -> [f64; 4] {
        self.coefficients
    }

    fn predict(&self, a: f64, b: f64) -> f32 {
        let [b0, b1, b2, b3] = self.coefficients;
        (b0 + b1 * a + b2 * b + b3 * a * b) as f32
    }

    fn score_share(&self, a: f64, items: &[u32], out: &mut [f32]) {
        for (o, &i) in out.iter_mut().zip(items) {
            *o = self.predict(a, self.item_shares[i as usize]);
        }
    }
}

impl Recommender for UserItemPopularity {
    fn shape(&self) -> Shape {
        Shape::new(self.user_shares.len(), self.item_shares.len())
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        self.score_share(self.user_shares[user as usize], items, out);
        Ok(())
    }

    // Scores: a linear probability model: the predicted 0/1 outcome (clipped to `[0, 1]`).
    recs_core::capabilities!(fold_in, scale(Probability));
}

impl FoldInUser for UserItemPopularity {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        self.score_share(history.len() as f64 / self.n_items() as f64, items, out);
        Ok(())
    }
}

/// Eigenvalues and eigenvectors (columns of the second result) of a symmetric 4 × 4
/// matrix by cyclic Jacobi rotations.
fn symmetric_eigen(mut a: [[f64; 4]; 4]) -> ([f64; 4], [[f64; 4]; 4]) {
    let mut v = [[0.0f64; 4]; 4];
    for (k, row) in v.iter_mut().enumerate() {
        row[k] = 1.0;
    }
    let total: f64 = a.iter().flatten().map(|x| x * x).sum();
    for _sweep in 0..100 {
        let off: f64 = (0..4)
            .flat_map(|p| (p + 1..4).map(move |q| (p, q)))
            .map(|(p, q)| a[p][q] * a[p][q])
            .sum();
        if off <= 1e-30 * total {
            break;
        }
        for p in 0..4 {
            for q in p + 1..4 {
                if a[p][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (row_p, row_q) = (a[p], a[q]);
                a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
                a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
                for row in v.iter_mut() {
                    let (vkp, vkq) = (row[p], row[q]);
                    row[p] = c * vkp - s * vkq;
                    row[q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ([a[0][0], a[1][1], a[2][2], a[3][3]], v)
}

/// A least-squares solution of `normal · x = rhs` (`normal = XᵀX`, `rhs = Xᵀy`): scale to
/// unit diagonal, pseudo-invert by eigen-decomposition dropping eigenvalues below
/// `1e-12 · λ_max`, scale back.
fn solve_least_squares(normal: [[f64; 4]; 4], rhs: [f64; 4]) -> [f64; 4] {
    let scale: [f64; 4] =
        std::array::from_fn(|f| if normal[f][f] > 0.0 { normal[f][f].sqrt() } else { 1.0 });
    let scaled: [[f64; 4]; 4] =
        std::array::from_fn(|f| std::array::from_fn(|g| normal[f][g] / (scale[f] * scale[g])));
    let b: [f64; 4] = std::array::from_fn(|f| rhs[f] / scale[f]);
    let (values, vectors) = symmetric_eigen(scaled);
    let largest = values.iter().fold(0.0f64, |m, &x| m.max(x.abs()));
    let mut y = [0.0f64; 4];
    for k in 0..4 {
        if largest == 0.0 || values[k].abs() <= 1e-12 * largest {
            continue;
        }
        let projection: f64 = (0..4).map(|f| vectors[f][k] * b[f]).sum::<f64>() / values[k];
        for (f, yf) in y.iter_mut().enumerate() {
            *yf += projection * vectors[f][k];
        }
    }
    std::array::from_fn(|f| y[f] / scale[f])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use recs_core::Interactions;

    fn interactions(rows: &[&[u32]], n_items: usize) -> Interactions {
        recs_testkit::interactions_from_rows(rows, n_items, 1.0)
    }

    /// Every (user, item) row of the design matrix and its 0/1 target.
    /// The materialised rows: every (user with events) × item pair.
    fn design(m: &Interactions) -> (Vec<[f64; 4]>, Vec<f64>) {
        let (nu, ni) = (m.n_users(), m.n_items());
        let (uc, ic) = (m.user_counts(), m.item_counts());
        let trained = uc.iter().filter(|&&c| c > 0).count();
        let mut x = Vec::new();
        let mut y = Vec::new();
        for u in (0..nu as u32).filter(|&u| uc[u as usize] > 0) {
            for i in 0..ni as u32 {
                let a = f64::from(uc[u as usize]) / ni as f64;
                let b = f64::from(ic[i as usize]) / trained as f64;
                x.push([1.0, a, b, a * b]);
                y.push(if m.get(u, i).is_some() { 1.0 } else { 0.0 });
            }
        }
        (x, y)
    }

    /// An independent least-squares solve: Householder QR of the materialised design
    /// matrix, then back substitution.
    #[allow(clippy::needless_range_loop)]
    fn qr_least_squares(x: &[[f64; 4]], y: &[f64]) -> [f64; 4] {
        let n = x.len();
        let mut a: Vec<Vec<f64>> = x.iter().map(|r| r.to_vec()).collect();
        let mut b = y.to_vec();
        for k in 0..4 {
            let norm = (k..n).map(|r| a[r][k] * a[r][k]).sum::<f64>().sqrt();
            let alpha = if a[k][k] > 0.0 { -norm } else { norm };
            let mut v: Vec<f64> = (k..n).map(|r| a[r][k]).collect();
            v[0] -= alpha;
            let vv: f64 = v.iter().map(|e| e * e).sum();
            for c in k..4 {
                let dot: f64 = (k..n).map(|r| v[r - k] * a[r][c]).sum();
                for r in k..n {
                    a[r][c] -= 2.0 * dot / vv * v[r - k];
                }
            }
            let dot: f64 = (k..n).map(|r| v[r - k] * b[r]).sum();
            for r in k..n {
                b[r] -= 2.0 * dot / vv * v[r - k];
            }
        }
        let mut beta = [0.0; 4];
        for k in (0..4).rev() {
            let rest: f64 = (k + 1..4).map(|c| a[k][c] * beta[c]).sum();
            beta[k] = (b[k] - rest) / a[k][k];
        }
        beta
    }

    #[test]
    fn coefficients_match_an_independent_solve_on_3_by_4() {
        // a = (1/2, 1/4, 3/4), b = (2/3, 1, 1/3, 0).
        let m = interactions(&[&[0, 1], &[1], &[0, 1, 2]], 4);
        let model = UserItemPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        let (x, y) = design(&m);
        let reference = qr_least_squares(&x, &y);
        for (got, want) in model.coefficients().iter().zip(reference) {
            assert!((got - want).abs() < 1e-9, "{:?} vs {reference:?}", model.coefficients());
        }
        // The fitted values reproduce the materialised regression, pair by pair.
        let mut out = [0.0f32; 4];
        for u in 0..3u32 {
            model.score(u, &[0, 1, 2, 3], &mut out).unwrap();
            for i in 0..4 {
                let row = x[u as usize * 4 + i];
                let want: f64 = (0..4).map(|f| row[f] * reference[f]).sum();
                assert!((f64::from(out[i]) - want).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn collinear_regressors_still_fit() {
        // Every user visits two of four items: a is constant, collinear with the intercept.
        let m = interactions(&[&[0, 1], &[1, 2], &[0, 1]], 4);
        let model = UserItemPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
        assert!(model.coefficients().iter().all(|c| c.is_finite()));
        // Popular items still rank first: item 1 (3 visits) > item 0 (2) > item 2 (1) > 3.
        let mut out = [0.0f32; 4];
        model.score(0, &[0, 1, 2, 3], &mut out).unwrap();
        assert!(out[1] > out[0] && out[0] > out[2] && out[2] > out[3], "{out:?}");
    }

    #[test]
    fn eigen_decomposition_reconstructs_the_matrix() {
        let a = [
            [4.0, 1.0, 0.5, 0.0],
            [1.0, 3.0, 0.2, 0.1],
            [0.5, 0.2, 2.0, 0.3],
            [0.0, 0.1, 0.3, 1.0],
        ];
        let (values, v) = symmetric_eigen(a);
        for r in 0..4 {
            for c in 0..4 {
                let back: f64 = (0..4).map(|k| v[r][k] * values[k] * v[c][k]).sum();
                assert!((back - a[r][c]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_placebo_keeps_the_fit_and_scores_users_with_others_activity() {
        let rows: Vec<Vec<u32>> = (0..40u32).map(|u| (0..(u % 7 + 1)).collect()).collect();
        let refs: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
        let m = interactions(&refs, 8);
        let data = TrainData::new(&m, 3);
        let own = UserItemPopularityParams::new().fit(&data).unwrap();
        let placebo = UserItemPopularityParams::new().with_users_shuffled().fit(&data).unwrap();
        assert_eq!(own.coefficients(), placebo.coefficients());
        let mut own_shares = own.user_shares.clone();
        let mut placebo_shares = placebo.user_shares.clone();
        assert_ne!(own_shares, placebo_shares, "someone's activity moved");
        own_shares.sort_by(f64::total_cmp);
        placebo_shares.sort_by(f64::total_cmp);
        assert_eq!(own_shares, placebo_shares, "a permutation of the same activities");
        let again = UserItemPopularityParams::new().with_users_shuffled().fit(&data).unwrap();
        assert_eq!(again.user_shares, placebo.user_shares, "seeded");
    }

    #[test]
    fn users_without_training_events_are_not_pairs_of_the_regression() {
        let rows: [&[u32]; 3] = [&[0, 1], &[1], &[2, 0]];
        let m = interactions(&rows, 3);
        let events: Vec<recs_core::Event> = m.events().collect();
        let wider =
            Interactions::from_events(5, 3, events, recs_core::DuplicatePolicy::Error).unwrap();
        let fit = |m: &Interactions| UserItemPopularityParams::new().fit(&TrainData::new(m, 0));
        assert_eq!(fit(&m).unwrap().coefficients(), fit(&wider).unwrap().coefficients());
    }

    proptest! {
        /// The residual is orthogonal to every regressor (the normal equations hold on the
        /// materialised rows), whatever the data, collinear or not.
        #[test]
        fn residual_is_orthogonal_to_the_regressors(
            cells in proptest::collection::vec(proptest::bool::weighted(0.4), 30),
            n_users in 2usize..6,
            n_items in 2usize..6,
        ) {
            let rows: Vec<Vec<u32>> = (0..n_users)
                .map(|u| (0..n_items as u32).filter(|&i| cells[u * 5 + i as usize]).collect())
                .collect();
            prop_assume!(rows.iter().any(|r| !r.is_empty()));
            let refs: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
            let m = interactions(&refs, n_items);
            let model = UserItemPopularityParams::new().fit(&TrainData::new(&m, 0)).unwrap();
            let beta = model.coefficients();
            let (x, y) = design(&m);
            for f in 0..4 {
                let gradient: f64 = x.iter().zip(&y).map(|(row, &t)| {
                    let fitted: f64 = (0..4).map(|g| row[g] * beta[g]).sum();
                    row[f] * (t - fitted)
                }).sum();
                prop_assert!(gradient.abs() < 1e-8, "feature {f}: {gradient}");
            }
        }
    }
}
