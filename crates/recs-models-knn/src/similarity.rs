//! Sparse similarity computation and bounded top-k neighbourhoods.
//!
//! The vectors being compared are the rows of a sparse matrix (users for user-kNN, items
//! for item-kNN); the other axis is the dimensions. For one query row `a`, walking its
//! entries `(d, a_d)` and, for each, the rows `b` that also have dimension `d` visits
//! exactly the pairs that co-occur, accumulating the co-rated sums each measure needs
//! into a dense per-thread accumulator. Per-row statistics (entry count, sum, sum of
//! squares over the full vector) complete the formulas of [`Similarity`].
//!
//! Determinism: each query row is processed sequentially in increasing dimension order,
//! so the floating-point sums of a pair do not depend on the thread that computes them;
//! rows are independent and collected in row order.

use rayon::prelude::*;
use recs_core::Interactions;
use sprs::CsMatI;

use crate::params::{KnnValidParams, Similarity, Ties};

/// Relative tolerance under which a variance counts as zero (a constant vector).
const CONSTANT_TOLERANCE: f64 = 1e-10;

/// Which axis of the interaction matrix holds the vectors compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Axis {
    /// Rows are users, dimensions are items.
    Users,
    /// Rows are items, dimensions are users.
    Items,
}

/// Full-vector statistics of one row (missing entries are 0).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct RowStats {
    /// Number of entries `|A|`.
    pub(crate) count: f64,
    /// `Σ a_d` over the entries.
    pub(crate) sum: f64,
    /// `Σ a_d²` over the entries.
    pub(crate) sum_sq: f64,
}

impl RowStats {
    pub(crate) fn of(values: &[f64]) -> Self {
        let mut stats = RowStats { count: values.len() as f64, ..RowStats::default() };
        for &x in values {
            stats.sum += x;
            stats.sum_sq += x * x;
        }
        stats
    }
}

/// Co-rated sums of one pair (query row `a`, other row `b`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PairSums {
    /// `|C|`, the number of co-rated dimensions.
    n: u32,
    /// `Σ_C a b`.
    dot: f64,
    /// `Σ_C a`.
    sum_a: f64,
    /// `Σ_C b`.
    sum_b: f64,
    /// `Σ_C a²`.
    sq_a: f64,
    /// `Σ_C b²`.
    sq_b: f64,
}

/// A compressed sparse matrix with `f64` values (row pointer, column indices, values).
#[derive(Debug, Clone, Default)]
pub(crate) struct Sparse {
    ptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl Sparse {
    fn from_rows<'a>(n_rows: usize, row: impl Fn(u32) -> (&'a [u32], &'a [f32])) -> Self {
        let mut sparse = Sparse { ptr: Vec::with_capacity(n_rows + 1), ..Sparse::default() };
        sparse.ptr.push(0);
        for r in 0..n_rows as u32 {
            let (indices, values) = row(r);
            sparse.indices.extend_from_slice(indices);
            sparse.values.extend(values.iter().map(|&v| f64::from(v)));
            sparse.ptr.push(sparse.indices.len());
        }
        sparse
    }

    fn n_rows(&self) -> usize {
        self.ptr.len() - 1
    }

    pub(crate) fn row(&self, r: u32) -> (&[u32], &[f64]) {
        let range = self.ptr[r as usize]..self.ptr[r as usize + 1];
        (&self.indices[range.clone()], &self.values[range])
    }
}

/// The vectors of one axis, prepared for one similarity measure.
#[derive(Debug, Clone)]
pub(crate) struct Vectors {
    similarity: Similarity,
    alpha: f64,
    /// Rows: the vectors compared (values transformed for the measure).
    rows: Sparse,
    /// Dimensions: for each dimension, the rows having it (same transformed values).
    dims: Sparse,
    /// Full-vector statistics of each row (transformed values).
    stats: Vec<RowStats>,
    /// Mean raw value of each dimension (0 for an empty one), the centring of
    /// [`Similarity::AdjustedCosine`].
    dim_means: Vec<f64>,
    /// The `D` of the untrimmed Pearson correlation: every item when users are compared;
    /// when items are, the users with a training event. A user without one (a test user
    /// of a strong-generalization split, folded in later) is no observation of any item:
    /// counting it as a row of zeros would move every item's mean.
    pearson_dims: usize,
}

impl Vectors {
    /// Prepares the rows of `axis` of `data` for `similarity`.
    pub(crate) fn new(data: &Interactions, axis: Axis, similarity: Similarity, alpha: f64) -> Self {
        let (mut rows, mut dims) = match axis {
            Axis::Users => (
                Sparse::from_rows(data.n_users(), |u| (data.user_items(u), data.user_values(u))),
                Sparse::from_rows(data.n_items(), |i| (data.item_users(i), data.item_values(i))),
            ),
            Axis::Items => (
                Sparse::from_rows(data.n_items(), |i| (data.item_users(i), data.item_values(i))),
                Sparse::from_rows(data.n_users(), |u| (data.user_items(u), data.user_values(u))),
            ),
        };
        let dim_means: Vec<f64> = (0..dims.n_rows() as u32)
            .map(|d| {
                let (_, values) = dims.row(d);
                if values.is_empty() {
                    0.0
                } else {
                    values.iter().sum::<f64>() / values.len() as f64
                }
            })
            .collect();
        if similarity == Similarity::AdjustedCosine {
            for r in 0..rows.n_rows() {
                for k in rows.ptr[r]..rows.ptr[r + 1] {
                    rows.values[k] -= dim_means[rows.indices[k] as usize];
                }
            }
            for (d, &mean) in dim_means.iter().enumerate() {
                for k in dims.ptr[d]..dims.ptr[d + 1] {
                    dims.values[k] -= mean;
                }
            }
        }
        let stats = (0..rows.n_rows() as u32).map(|r| RowStats::of(rows.row(r).1)).collect();
        let pearson_dims = match axis {
            Axis::Users => dims.n_rows(),
            Axis::Items => (0..dims.n_rows() as u32).filter(|&d| !dims.row(d).0.is_empty()).count(),
        };
        Vectors { similarity, alpha, rows, dims, stats, dim_means, pearson_dims }
    }

    /// Number of rows.
    pub(crate) fn n_rows(&self) -> usize {
        self.rows.n_rows()
    }

    /// A query vector from raw `(dimensions, values)`, transformed like the rows.
    pub(crate) fn query(&self, dims: &[u32], values: &[f32]) -> Vec<f64> {
        dims.iter()
            .zip(values)
            .map(|(&d, &v)| match self.similarity {
                Similarity::AdjustedCosine => f64::from(v) - self.dim_means[d as usize],
                _ => f64::from(v),
            })
            .collect()
    }

    /// Adds the co-rated sums of `query` with every row that shares a dimension into
    /// `scratch` (zero on entry for untouched rows); `scratch.touched` receives each row on
    /// its first visit.
    fn accumulate(&self, query: (&[u32], &[f64]), scratch: &mut Scratch) {
        let Scratch { counts, dots, moments, touched } = scratch;
        let with_moments =
            matches!(self.similarity, Similarity::Pearson | Similarity::AdjustedCosine);
        if with_moments && moments.len() != counts.len() {
            *moments = vec![[0.0; 4]; counts.len()];
        }
        for (&d, &a) in query.0.iter().zip(query.1) {
            let (others, values) = self.dims.row(d);
            for (&b, &x) in others.iter().zip(values) {
                let slot = b as usize;
                if counts[slot] == 0 {
                    touched.push(b);
                }
                counts[slot] += 1;
                dots[slot] += a * x;
                if with_moments {
                    let m = &mut moments[slot];
                    m[0] += a;
                    m[1] += x;
                    m[2] += a * a;
                    m[3] += x * x;
                }
            }
        }
    }

    /// The similarity of row `b` for the query with statistics `a`, from their co-rated
    /// sums; `None` when the measure is undefined for the pair.
    fn finish(&self, pair: &PairSums, a: &RowStats, b: &RowStats) -> Option<f64> {
        let n = f64::from(pair.n);
        let value = match self.similarity {
            Similarity::Cosine => {
                let norm = (a.sum_sq * b.sum_sq).sqrt();
                (norm > 0.0).then(|| (pair.dot / norm).clamp(-1.0, 1.0))?
            }
            Similarity::AdjustedCosine => {
                let norm = (pair.sq_a * pair.sq_b).sqrt();
                (norm > 0.0).then(|| (pair.dot / norm).clamp(-1.0, 1.0))?
            }
            Similarity::Pearson => pearson(pair, a, b, self.pearson_dims as f64)?,
            Similarity::Jaccard => n / (a.count + b.count - n),
            Similarity::Tanimoto => {
                let denominator = a.sum_sq + b.sum_sq - pair.dot;
                (denominator > 0.0).then(|| pair.dot / denominator)?
            }
            Similarity::Euclidean => {
                let squared = (a.sum_sq + b.sum_sq - 2.0 * pair.dot).max(0.0);
                1.0 / (1.0 + squared.sqrt())
            }
            Similarity::Hamming => 1.0 / (1.0 + a.count + b.count - 2.0 * n),
            Similarity::Conditional => n / (b.count * a.count.powf(self.alpha)),
        };
        value.is_finite().then_some(value)
    }

    /// The neighbourhood of a query vector: `(row, similarity)` pairs sorted by row index.
    /// Row `skip` (the query's own row, when it is one) is never its own neighbour.
    ///
    /// `scratch` must hold `n_rows` zeroed slots and is left zeroed.
    pub(crate) fn neighbours_of(
        &self,
        query: (&[u32], &[f64]),
        skip: Option<u32>,
        params: &KnnValidParams,
        scratch: &mut Scratch,
    ) -> Vec<(u32, f32)> {
        let mut candidates = self.admitted_of(query, skip, params, scratch);
        select_top_k(&mut candidates, params.k(), params.ties());
        candidates
    }

    /// Every row the query may have as a neighbour, before the top-k selection: the rows
    /// sharing at least `min_support` dimensions with it (every row when it is 0) whose
    /// similarity is defined and admitted by `params`, as `(row, similarity)`: the rows
    /// sharing a dimension in the order first visited, then the others by index.
    fn admitted_of(
        &self,
        query: (&[u32], &[f64]),
        skip: Option<u32>,
        params: &KnnValidParams,
        scratch: &mut Scratch,
    ) -> Vec<(u32, f32)> {
        let stats = RowStats::of(query.1);
        self.accumulate(query, scratch);
        let mut candidates = Vec::with_capacity(scratch.touched.len());
        for t in 0..scratch.touched.len() {
            let b = scratch.touched[t];
            let pair = scratch.take(b);
            if Some(b) == skip || (pair.n as usize) < params.min_support() {
                continue;
            }
            if let Some(s) = self.finish(&pair, &stats, &self.stats[b as usize]) {
                // One f32 value per similarity: ties are equal f32 values; -0 becomes +0.
                let s = s as f32 + 0.0;
                if params.admits(s) {
                    candidates.push((b, s));
                }
            }
        }
        if params.min_support() == 0 {
            // Every row may be a neighbour, those sharing no dimension with the query too:
            // their similarity comes from the two rows' own statistics (a zero dot).
            let mut shared = vec![false; self.n_rows()];
            for &b in &scratch.touched {
                shared[b as usize] = true;
            }
            for b in 0..self.n_rows() as u32 {
                if shared[b as usize] || Some(b) == skip {
                    continue;
                }
                if let Some(s) = self.finish(&PairSums::default(), &stats, &self.stats[b as usize])
                {
                    let s = s as f32 + 0.0;
                    if params.admits(s) {
                        candidates.push((b, s));
                    }
                }
            }
        }
        scratch.touched.clear();
        candidates
    }

    /// The neighbourhood of every row (self excluded), computed in parallel, as a sparse
    /// row × row matrix of similarities.
    pub(crate) fn all_neighbours(&self, params: &KnnValidParams) -> CsMatI<f32, u32, usize> {
        self.row_matrix(|a, scratch| self.neighbours_of(self.rows.row(a), Some(a), params, scratch))
    }

    /// The neighbourhood of every row, as [`Vectors::all_neighbours`], and every admitted
    /// similarity of every row without the top-k selection: each row's similarities are
    /// computed once for both.
    pub(crate) fn neighbours_and_admitted(
        &self,
        params: &KnnValidParams,
    ) -> (CsMatI<f32, u32, usize>, CsMatI<f32, u32, usize>) {
        let n_rows = self.n_rows();
        let (neighbours, admitted): (Vec<_>, Vec<_>) = (0..n_rows as u32)
            .into_par_iter()
            .map_init(
                || Scratch::new(n_rows),
                |scratch, a| {
                    let mut all = self.admitted_of(self.rows.row(a), Some(a), params, scratch);
                    let mut kept = all.clone();
                    select_top_k(&mut kept, params.k(), params.ties());
                    all.sort_unstable_by_key(|&(b, _)| b);
                    (kept, all)
                },
            )
            .unzip();
        (assemble(n_rows, neighbours), assemble(n_rows, admitted))
    }

    /// The sparse row × row matrix whose row `a` is `row_of(a)` (sorted by column), the
    /// rows computed in parallel, each thread with its own [`Scratch`].
    fn row_matrix(
        &self,
        row_of: impl Fn(u32, &mut Scratch) -> Vec<(u32, f32)> + Sync,
    ) -> CsMatI<f32, u32, usize> {
        let n_rows = self.n_rows();
        let per_row: Vec<Vec<(u32, f32)>> = (0..n_rows as u32)
            .into_par_iter()
            .map_init(|| Scratch::new(n_rows), |scratch, a| row_of(a, scratch))
            .collect();
        assemble(n_rows, per_row)
    }
}

/// The sparse `n_rows` × `n_rows` matrix of `per_row` (each row sorted by column).
fn assemble(n_rows: usize, per_row: Vec<Vec<(u32, f32)>>) -> CsMatI<f32, u32, usize> {
    let mut indptr = Vec::with_capacity(n_rows + 1);
    indptr.push(0usize);
    let total = per_row.iter().map(Vec::len).sum();
    let mut indices = Vec::with_capacity(total);
    let mut data = Vec::with_capacity(total);
    for row in per_row {
        for (b, s) in row {
            indices.push(b);
            data.push(s);
        }
        indptr.push(indices.len());
    }
    CsMatI::new((n_rows, n_rows), indptr, indices, data)
}

/// Per-thread accumulator over rows (structure of arrays, so that the common measures
/// touch only a count and a dot product per visit), and the list of visited rows.
#[derive(Debug)]
pub(crate) struct Scratch {
    counts: Vec<u32>,
    dots: Vec<f64>,
    /// `Σ_C a, Σ_C b, Σ_C a², Σ_C b²`, allocated on first use by a measure that needs them.
    moments: Vec<[f64; 4]>,
    touched: Vec<u32>,
}

impl Scratch {
    pub(crate) fn new(n_rows: usize) -> Self {
        Scratch {
            counts: vec![0; n_rows],
            dots: vec![0.0; n_rows],
            moments: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// The sums of row `b`, leaving its slots zeroed.
    fn take(&mut self, b: u32) -> PairSums {
        let slot = b as usize;
        let [sum_a, sum_b, sq_a, sq_b] =
            self.moments.get_mut(slot).map_or([0.0; 4], std::mem::take);
        PairSums {
            n: std::mem::take(&mut self.counts[slot]),
            dot: std::mem::take(&mut self.dots[slot]),
            sum_a,
            sum_b,
            sq_a,
            sq_b,
        }
    }
}

fn is_constant(variance: f64, sum_sq: f64) -> bool {
    variance <= CONSTANT_TOLERANCE * sum_sq
}

/// Pearson over co-rated entries, falling back to the untrimmed vectors (see
/// [`Similarity::Pearson`]).
fn pearson(pair: &PairSums, a: &RowStats, b: &RowStats, n_dims: f64) -> Option<f64> {
    let n = f64::from(pair.n);
    if pair.n >= 2 {
        let var_a = pair.sq_a - pair.sum_a * pair.sum_a / n;
        let var_b = pair.sq_b - pair.sum_b * pair.sum_b / n;
        if !is_constant(var_a, pair.sq_a) && !is_constant(var_b, pair.sq_b) {
            let covariance = pair.dot - pair.sum_a * pair.sum_b / n;
            return Some((covariance / (var_a * var_b).sqrt()).clamp(-1.0, 1.0));
        }
    }
    let var_a = a.sum_sq - a.sum * a.sum / n_dims;
    let var_b = b.sum_sq - b.sum * b.sum / n_dims;
    if is_constant(var_a, a.sum_sq) || is_constant(var_b, b.sum_sq) {
        return None;
    }
    let covariance = pair.dot - a.sum * b.sum / n_dims;
    Some((covariance / (var_a * var_b).sqrt()).clamp(-1.0, 1.0))
}

/// Keeps the `k` most similar candidates (larger similarity first, then smaller index),
/// plus, under [`Ties::Extend`], every further candidate whose similarity equals the
/// `k`-th's; leaves them sorted by index. The result is a function of the candidate set,
/// not of its order.
pub(crate) fn select_top_k(candidates: &mut Vec<(u32, f32)>, k: usize, ties: Ties) {
    if candidates.len() > k && k > 0 {
        let by_rank = |x: &(u32, f32), y: &(u32, f32)| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0));
        candidates.select_nth_unstable_by(k - 1, by_rank);
        let kth = candidates[k - 1].1;
        let mut keep = k;
        if ties == Ties::Extend {
            for index in k..candidates.len() {
                if candidates[index].1 == kth {
                    candidates.swap(keep, index);
                    keep += 1;
                }
            }
        }
        candidates.truncate(keep);
    }
    candidates.sort_unstable_by_key(|&(b, _)| b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::KnnParams;
    use proptest::prelude::*;
    use recs_core::{DuplicatePolicy, Event};

    /// Rows given densely; `0.0` means "no entry".
    fn matrix(rows: &[&[f32]]) -> Interactions {
        let n_dims = rows[0].len();
        let events = rows.iter().enumerate().flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, v)| **v != 0.0)
                .map(move |(d, &v)| Event::new(r as u32, d as u32, v))
        });
        Interactions::from_events(rows.len(), n_dims, events, DuplicatePolicy::Error).unwrap()
    }

    /// Similarity of user 1 for user 0 under `similarity`, from the sparse kernel.
    fn sim(rows: &[&[f32]], similarity: Similarity, alpha: f64) -> Option<f64> {
        let data = matrix(rows);
        let vectors = Vectors::new(&data, Axis::Users, similarity, alpha);
        let mut scratch = Scratch::new(vectors.n_rows());
        let stats = vectors.stats[0];
        vectors.accumulate(vectors.rows.row(0), &mut scratch);
        let pair = scratch.take(1);
        if pair.n == 0 {
            return None;
        }
        vectors.finish(&pair, &stats, &vectors.stats[1])
    }

    fn close(found: Option<f64>, expected: f64) {
        let found = found.expect("defined");
        assert!((found - expected).abs() < 1e-12, "found {found}, expected {expected}");
    }

    const A: &[f32] = &[0.0, 5.0, 5.0, 4.0];
    const B: &[f32] = &[0.0, 4.0, 5.0, 0.0];

    #[test]
    fn cosine_by_hand() {
        // a·b = 20 + 25 = 45, ‖a‖² = 66, ‖b‖² = 41.
        close(sim(&[A, B], Similarity::Cosine, 0.5), 45.0 / (66.0f64 * 41.0).sqrt());
    }

    /// Items compared over the users with a training event: users without one (test users
    /// of a strong-generalization split) are not rows of zeros. Binary columns over three
    /// training users, (1, 1, 0) and (1, 0, 1): the phi coefficient −1/2; counting two
    /// empty user rows as zeros would give +1/6.
    #[test]
    fn item_pearson_ignores_users_without_training_events() {
        let item_sim = |rows: &[&[f32]]| {
            let data = matrix(rows);
            let vectors = Vectors::new(&data, Axis::Items, Similarity::Pearson, 0.5);
            let mut scratch = Scratch::new(vectors.n_rows());
            vectors.accumulate(vectors.rows.row(0), &mut scratch);
            let pair = scratch.take(1);
            vectors.finish(&pair, &vectors.stats[0], &vectors.stats[1])
        };
        let users: [&[f32]; 3] = [&[1.0, 1.0], &[1.0, 0.0], &[0.0, 1.0]];
        close(item_sim(&users), -0.5);
        let with_empty: [&[f32]; 5] = [&[0.0, 0.0], users[0], users[1], &[0.0, 0.0], users[2]];
        close(item_sim(&with_empty), -0.5);
        // Users are still compared over every item, the empty ones included.
        let (a, b): (&[f32], &[f32]) = (&[1.0, 1.0, 0.0, 0.0], &[1.0, 0.0, 0.0, 0.0]);
        close(sim(&[a, b], Similarity::Pearson, 0.5), 1.0 / 3f64.sqrt());
    }

    #[test]
    fn pearson_trimmed_by_hand() {
        // Co-rated: (5, 4, 3) and (1, 2, 4): means 4 and 7/3.
        // Σ dx dy = 1·(−4/3) + 0 + (−1)(5/3) = −3; Σ dx² = 2; Σ dy² = 42/9.
        let a: &[f32] = &[5.0, 4.0, 3.0, 1.0];
        let b: &[f32] = &[1.0, 2.0, 4.0, 0.0];
        close(sim(&[a, b], Similarity::Pearson, 0.5), -3.0 / (2.0f64 * 42.0 / 9.0).sqrt());
    }

    #[test]
    fn pearson_on_the_ignatov_constant_example_uses_untrimmed_vectors() {
        // ignatov2010 §3: trimmed to (5,5) and (4,5) the correlation is undefined.
        // Untrimmed, means 3.5 and 2.25: Σ dx dy = 13.5, Σ dx² = 17, Σ dy² = 20.75.
        close(sim(&[A, B], Similarity::Pearson, 0.5), 13.5 / (17.0f64 * 20.75).sqrt());
    }

    #[test]
    fn pearson_on_vectors_constant_everywhere_is_undefined() {
        let a: &[f32] = &[4.0, 4.0, 4.0];
        let b: &[f32] = &[4.0, 2.0, 0.0];
        assert_eq!(sim(&[a, b], Similarity::Pearson, 0.5), None);
    }

    #[test]
    fn adjusted_cosine_by_hand() {
        // Rows are users here, so entries are centred by their item (column) means.
        // Column means over both users: (4.5, 3, 2) ; user 0 = (5, 4, 3) -> (0.5, 1, 1),
        // user 1 = (4, 2, 1) -> (-0.5, -1, -1): perfectly anti-aligned.
        let a: &[f32] = &[5.0, 4.0, 3.0];
        let b: &[f32] = &[4.0, 2.0, 1.0];
        close(sim(&[a, b], Similarity::AdjustedCosine, 0.5), -1.0);
        // A third user changes the means: (4, 3, 3); centred rows (1, 1, 0), (0, -1, -2):
        // co-rated sums Σ a'b' = -1, Σ a'² = 2, Σ b'² = 5.
        let c: &[f32] = &[3.0, 3.0, 5.0];
        close(sim(&[a, b, c], Similarity::AdjustedCosine, 0.5), -1.0 / 10.0f64.sqrt());
    }

    #[test]
    fn jaccard_by_hand() {
        // Entries {1,2,3} and {1,2}: 2 / 3.
        close(sim(&[A, B], Similarity::Jaccard, 0.5), 2.0 / 3.0);
    }

    #[test]
    fn tanimoto_by_hand() {
        // 45 / (66 + 41 − 45).
        close(sim(&[A, B], Similarity::Tanimoto, 0.5), 45.0 / 62.0);
        // Binary vectors: equals Jaccard.
        let a: &[f32] = &[1.0, 1.0, 1.0, 0.0];
        let b: &[f32] = &[0.0, 1.0, 1.0, 1.0];
        close(sim(&[a, b], Similarity::Tanimoto, 0.5), 0.5);
    }

    #[test]
    fn euclidean_by_hand() {
        // Differences (0, 1, 0, 4): d = √17.
        close(sim(&[A, B], Similarity::Euclidean, 0.5), 1.0 / (1.0 + 17.0f64.sqrt()));
    }

    #[test]
    fn hamming_by_hand() {
        // Presence (0,1,1,1) vs (0,1,1,0): one position differs, s = 1/2 (ignatov2010 §3).
        close(sim(&[A, B], Similarity::Hamming, 0.5), 0.5);
    }

    #[test]
    fn conditional_by_hand() {
        // Row a has 3 entries, b has 2, 2 shared: P(a|b) = 2/2, damped by 3^α.
        close(sim(&[A, B], Similarity::Conditional, 0.5), 1.0 / 3.0f64.sqrt());
        close(sim(&[A, B], Similarity::Conditional, 0.0), 1.0);
        // Reversed roles: P(b|a) = 2/3, damped by 2^α.
        close(sim(&[B, A], Similarity::Conditional, 1.0), (2.0 / 3.0) / 2.0);
    }

    #[test]
    fn pairs_without_common_dimension_are_never_neighbours() {
        let a: &[f32] = &[1.0, 0.0];
        let b: &[f32] = &[0.0, 1.0];
        for similarity in Similarity::ALL {
            assert_eq!(sim(&[a, b], similarity, 0.5), None, "{similarity}");
        }
    }

    fn ranked(candidates: &[(u32, f32)], k: usize, ties: Ties) -> Vec<u32> {
        let mut candidates = candidates.to_vec();
        select_top_k(&mut candidates, k, ties);
        candidates.iter().map(|c| c.0).collect()
    }

    #[test]
    fn tie_extended_neighbourhood_by_hand() {
        // Similarities by row: 9 → 0.9, 3 → 0.5, 4 → 0.5, 7 → 0.5, 1 → 0.2.
        let candidates = [(7, 0.5), (1, 0.2), (9, 0.9), (4, 0.5), (3, 0.5)];
        assert_eq!(ranked(&candidates, 2, Ties::Extend), [3, 4, 7, 9]);
        assert_eq!(ranked(&candidates, 2, Ties::Cut), [3, 9]);
        assert_eq!(ranked(&candidates, 4, Ties::Extend), [3, 4, 7, 9]);
        assert_eq!(ranked(&candidates, 1, Ties::Extend), [9]);
        assert_eq!(ranked(&candidates, 5, Ties::Cut), [1, 3, 4, 7, 9]);
        assert_eq!(ranked(&candidates, 9, Ties::Extend), [1, 3, 4, 7, 9]);
    }

    /// The brute-force reference: every pair through dense vectors and the textbook formula.
    fn dense_reference(
        rows: &[Vec<f32>],
        a: usize,
        b: usize,
        similarity: Similarity,
    ) -> Option<f64> {
        let n_dims = rows[0].len();
        let x: Vec<f64> = rows[a].iter().map(|&v| f64::from(v)).collect();
        let y: Vec<f64> = rows[b].iter().map(|&v| f64::from(v)).collect();
        let co: Vec<usize> = (0..n_dims).filter(|&d| x[d] != 0.0 && y[d] != 0.0).collect();
        if co.is_empty() {
            return None;
        }
        let dot: f64 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
        let nx: f64 = x.iter().map(|p| p * p).sum();
        let ny: f64 = y.iter().map(|q| q * q).sum();
        let cx = x.iter().filter(|p| **p != 0.0).count() as f64;
        let cy = y.iter().filter(|q| **q != 0.0).count() as f64;
        let corr = |xs: &[f64], ys: &[f64]| {
            let m = xs.len() as f64;
            let (mx, my) = (xs.iter().sum::<f64>() / m, ys.iter().sum::<f64>() / m);
            let sxy: f64 = xs.iter().zip(ys).map(|(p, q)| (p - mx) * (q - my)).sum();
            let sxx: f64 = xs.iter().map(|p| (p - mx) * (p - mx)).sum();
            let syy: f64 = ys.iter().map(|q| (q - my) * (q - my)).sum();
            (sxx > 1e-9 && syy > 1e-9).then(|| sxy / (sxx * syy).sqrt())
        };
        let value = match similarity {
            Similarity::Cosine => dot / (nx * ny).sqrt(),
            Similarity::AdjustedCosine => {
                let mean = |d: usize| {
                    let present: Vec<f64> =
                        rows.iter().map(|r| f64::from(r[d])).filter(|v| *v != 0.0).collect();
                    present.iter().sum::<f64>() / present.len() as f64
                };
                let xs: Vec<f64> = co.iter().map(|&d| x[d] - mean(d)).collect();
                let ys: Vec<f64> = co.iter().map(|&d| y[d] - mean(d)).collect();
                let num: f64 = xs.iter().zip(&ys).map(|(p, q)| p * q).sum();
                let den = (xs.iter().map(|p| p * p).sum::<f64>()
                    * ys.iter().map(|q| q * q).sum::<f64>())
                .sqrt();
                if den <= 1e-9 {
                    return None;
                }
                num / den
            }
            Similarity::Pearson => {
                let xs: Vec<f64> = co.iter().map(|&d| x[d]).collect();
                let ys: Vec<f64> = co.iter().map(|&d| y[d]).collect();
                match (co.len() >= 2).then(|| corr(&xs, &ys)).flatten() {
                    Some(r) => r,
                    None => corr(&x, &y)?,
                }
            }
            Similarity::Jaccard => co.len() as f64 / (cx + cy - co.len() as f64),
            Similarity::Tanimoto => dot / (nx + ny - dot),
            Similarity::Euclidean => {
                1.0 / (1.0 + x.iter().zip(&y).map(|(p, q)| (p - q) * (p - q)).sum::<f64>().sqrt())
            }
            Similarity::Hamming => 1.0 / (1.0 + cx + cy - 2.0 * co.len() as f64),
            Similarity::Conditional => co.len() as f64 / (cy * cx.powf(0.5)),
        };
        Some(value)
    }

    fn arb_rows() -> impl Strategy<Value = Vec<Vec<f32>>> {
        (2usize..7, 1usize..7).prop_flat_map(|(n_rows, n_dims)| {
            proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0.0f32), 1.0f32..5.0], n_dims),
                n_rows,
            )
        })
    }

    proptest! {
        #[test]
        fn sparse_kernel_matches_dense_reference(rows in arb_rows(), which in 0usize..8) {
            let similarity = Similarity::ALL[which];
            let rows: Vec<Vec<f32>> =
                rows.into_iter().map(|r| r.into_iter().map(|v| v.round()).collect()).collect();
            let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
            let data = matrix(&refs);
            let vectors = Vectors::new(&data, Axis::Users, similarity, 0.5);
            let params = KnnParams::new().k(100).positive_only(false).check().unwrap();
            let mut scratch = Scratch::new(rows.len());
            for a in 0..rows.len() {
                let found = vectors.neighbours_of(
                    vectors.rows.row(a as u32), Some(a as u32), &params, &mut scratch);
                prop_assert!(scratch.counts.iter().all(|&n| n == 0) && scratch.touched.is_empty());
                prop_assert!(scratch.dots.iter().chain(scratch.moments.iter().flatten()).all(|&x| x == 0.0));
                let mut expected = Vec::new();
                for b in (0..rows.len()).filter(|&b| b != a) {
                    if let Some(s) = dense_reference(&rows, a, b, similarity) {
                        expected.push((b as u32, s));
                    }
                }
                prop_assert_eq!(found.len(), expected.len(), "{} row {}", similarity, a);
                for ((fb, fs), (eb, es)) in found.iter().zip(&expected) {
                    prop_assert_eq!(fb, eb);
                    prop_assert!((f64::from(*fs) - es).abs() < 1e-5, "{} {} {}", similarity, fs, es);
                }
            }
        }

        #[test]
        fn selection_does_not_depend_on_candidate_order(
            sims in proptest::collection::vec(0u8..4, 0..20),
            k in 1usize..6,
            rotate in 0usize..20,
            extend in any::<bool>(),
        ) {
            let ties = if extend { Ties::Extend } else { Ties::Cut };
            let candidates: Vec<(u32, f32)> =
                sims.iter().enumerate().map(|(i, &s)| (i as u32, f32::from(s) / 4.0)).collect();
            let mut rotated = candidates.clone();
            if !rotated.is_empty() {
                let len = rotated.len();
                rotated.rotate_left(rotate % len);
            }
            let first = ranked(&candidates, k, ties);
            prop_assert_eq!(&first, &ranked(&rotated, k, ties));
            // Nobody outside is more similar than anybody inside; ties only under Extend.
            let min_in = first.iter().map(|&b| candidates[b as usize].1).fold(f32::INFINITY, f32::min);
            for c in candidates.iter().filter(|c| !first.contains(&c.0)) {
                prop_assert!(c.1 < min_in || (ties == Ties::Cut && c.1 == min_in));
            }
            prop_assert!(first.len() >= k.min(candidates.len()));
            if ties == Ties::Cut {
                prop_assert_eq!(first.len(), k.min(candidates.len()));
            }
        }
    }
}
