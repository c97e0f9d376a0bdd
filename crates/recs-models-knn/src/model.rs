//! The fitted models [`UserKnn`] and [`ItemKnn`] and their scoring rules (ignatov2010 §2).

use std::cell::RefCell;

use recs_core::{
    Fit, FoldInUser, Interactions, PredictRating, Recommender, RecsError, Result, Shape, TrainData,
    UserRow, check_items, check_len, check_score_args,
};
use sprs::CsMatI;

use crate::params::{ItemKnnParams, KnnValidParams, Neighbourhood, UserKnnParams};
use crate::similarity::{Axis, Scratch, Vectors};

/// Rating statistics used when no neighbour has evidence for an item.
#[derive(Debug, Clone, Copy)]
struct Fallback {
    /// Mean of every training value.
    global_mean: f64,
    /// Smallest and largest training value: predictions are clamped to this range.
    low: f64,
    high: f64,
}

impl Fallback {
    fn of(data: &Interactions) -> Self {
        let values = data.csr().data();
        let sum: f64 = values.iter().map(|&v| f64::from(v)).sum();
        let low = values.iter().fold(f64::INFINITY, |m, &v| m.min(f64::from(v)));
        let high = values.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(f64::from(v)));
        Fallback { global_mean: sum / values.len().max(1) as f64, low, high }
    }

    /// What `output` asks of the sums `num` (Σ s·r) and `den` (Σ |s|): the ranking score
    /// `num`, or the prediction of [`Fallback::predict`].
    fn output(&self, output: Output, num: f64, den: f64, history: &[f32]) -> f32 {
        match output {
            Output::Score => num as f32,
            Output::Rating => self.predict(num, den, history),
        }
    }

    /// The prediction `num / den`, or the mean of `history` (the global mean for an
    /// empty history) when `den = 0`, clamped to the training range.
    fn predict(&self, num: f64, den: f64, history: &[f32]) -> f32 {
        let value = if den > 0.0 {
            num / den
        } else if history.is_empty() {
            self.global_mean
        } else {
            history.iter().map(|&v| f64::from(v)).sum::<f64>() / history.len() as f64
        };
        value.clamp(self.low, self.high) as f32
    }
}

fn check_fit_data(data: &TrainData<'_>) -> Result<()> {
    data.interactions.require_events().map(|_| ())
}

/// Checks a fold-in history: items in range and strictly increasing, values finite.
fn check_history(n_items: usize, history: &UserRow<'_>) -> Result<()> {
    check_len("history values", history.items.len(), history.values.len())?;
    if let Some(&item) = history.items.iter().find(|&&i| i as usize >= n_items) {
        return Err(RecsError::IndexOutOfRange {
            what: "item",
            index: item as usize,
            len: n_items,
        });
    }
    if history.items.windows(2).any(|w| w[0] >= w[1]) {
        return Err(RecsError::Unsupported(
            "history items must be strictly increasing".to_string(),
        ));
    }
    if let Some(&value) = history.values.iter().find(|v| !v.is_finite()) {
        return Err(RecsError::InvalidValue {
            what: "history value",
            value: f64::from(value),
            expected: "a finite number",
        });
    }
    Ok(())
}

fn row_of(matrix: &CsMatI<f32, u32, usize>, row: u32) -> (&[u32], &[f32]) {
    let indptr = matrix.indptr();
    let raw = indptr.raw_storage();
    let range = raw[row as usize]..raw[row as usize + 1];
    (&matrix.indices()[range.clone()], &matrix.data()[range])
}

/// What both models keep from fitting: the parameters, the training data, the kept
/// neighbourhood of every row (items for [`ItemKnn`], users for [`UserKnn`]) and the
/// rating fallback.
#[derive(Debug, Clone)]
struct Fitted {
    params: KnnValidParams,
    train: Interactions,
    neighbours: CsMatI<f32, u32, usize>,
    fallback: Fallback,
}

impl Fitted {
    /// Computes the neighbourhoods along `axis`; the similarity vectors are returned too
    /// for models that query them later.
    fn fit(data: &TrainData<'_>, params: KnnValidParams, axis: Axis) -> Result<(Fitted, Vectors)> {
        let vectors = Fitted::vectors(data, &params, axis)?;
        let neighbours = vectors.all_neighbours(&params);
        Ok((Fitted::with(data, params, neighbours), vectors))
    }

    /// The checked training vectors along `axis`, prepared for `params`' measure.
    fn vectors(data: &TrainData<'_>, params: &KnnValidParams, axis: Axis) -> Result<Vectors> {
        check_fit_data(data)?;
        Ok(Vectors::new(data.interactions, axis, params.similarity(), params.alpha()))
    }

    /// The fitted part with the given neighbourhoods.
    fn with(
        data: &TrainData<'_>,
        params: KnnValidParams,
        neighbours: CsMatI<f32, u32, usize>,
    ) -> Fitted {
        Fitted {
            params,
            train: data.interactions.clone(),
            neighbours,
            fallback: Fallback::of(data.interactions),
        }
    }

    /// The kept neighbourhood of `row`: indices in increasing order and similarities.
    /// Empty for a row out of range.
    fn row(&self, row: u32) -> (&[u32], &[f32]) {
        if row as usize >= self.neighbours.rows() {
            return (&[], &[]);
        }
        row_of(&self.neighbours, row)
    }
}

/// What a scoring pass writes: the ranking score or the predicted rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Score,
    Rating,
}

/// What the two kNN models share around their own `for_user`: the accessors to the fitted
/// neighbourhoods, [`Recommender`] and [`PredictRating`]. `$fitted` is the field holding
/// the [`Fitted`] part, `$axis` the word for what a neighbourhood row is ("item", "user").
macro_rules! knn_surface {
    ($model:ident, $fitted:tt, $axis:literal) => {
        impl $model {
            /// The validated parameters the model was fitted with.
            pub fn params(&self) -> &KnnValidParams {
                &self.$fitted.params
            }

            #[doc = concat!("The neighbourhood `N(", $axis, ")`: neighbour ", $axis, "s in ")]
            /// increasing order and their similarities. Empty for an index out of range.
            pub fn neighbours(&self, index: u32) -> (&[u32], &[f32]) {
                self.$fitted.row(index)
            }

            #[doc = concat!("The ", $axis, " × ", $axis, " matrix of kept similarities ")]
            /// (row `r` holds `N(r)`).
            pub fn similarity_matrix(&self) -> &CsMatI<f32, u32, usize> {
                &self.$fitted.neighbours
            }
        }

        impl Recommender for $model {
            fn shape(&self) -> Shape {
                Shape::new(self.$fitted.train.n_users(), self.$fitted.train.n_items())
            }

            fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
                self.for_user(user, items, out, Output::Score)
            }

            recs_core::capabilities!(rating, fold_in);
        }

        impl PredictRating for $model {
            fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
                self.for_user(user, items, out, Output::Rating)
            }
        }
    };
}

/// Item-based kNN, fitted (ignatov2010 §2; Sarwar et al. 2001; Deshpande & Karypis 2004).
///
/// Each item `i` keeps its neighbourhood `N(i)`: the `k` items most similar to it (ties
/// extended or cut), computed once at fit time. For a user `u` with rated items `I_u`, a
/// candidate `j` collects evidence from the pairs `(i, j)`, `i ∈ I_u`, that the
/// [`Neighbourhood`](crate::Neighbourhood) parameter admits:
///
/// - `history`, ignatov2010 §2's `N(i|u₀) = {j | j ∉ u₀ᴵ, i ∈ u₀ᴵ, j ∈ N(i)}` (Deshpande &
///   Karypis 2004): the pairs with `j ∈ N(i)`, the neighbourhoods of the user's items;
/// - `candidate` (the default): the pairs with `i ∈ N(j)`, the candidate's own
///   neighbourhood (the prediction form of Sarwar et al. 2001);
/// - `history-all`, §2's two formulas read literally: the candidates are those of
///   `history` (`j ∈ N(i)` for some `i ∈ I_u`), and each collects from every pair `(i, j)`,
///   `i ∈ I_u`, whose similarity the model admits (§2's prediction sums over all of
///   `u₀ᴵ`); the other items get no pair. This direction keeps every admitted similarity
///   (item × item pairs sharing a user), not only the neighbourhoods.
///
/// Over those pairs `P(u, j)`:
///
/// - ranking score `score(u, j) = Σ_{(i, j) ∈ P(u, j)} s(i, j) · r_ui`, the numerator of
///   the prediction (on implicit data, the summed similarity to the history);
/// - predicted rating `r̂(u, j) = Σ s(i, j) r_ui / Σ |s(i, j)|` over the same pairs
///   (ignatov2010 §2 writes `Σ s` in the denominator; with negative similarities allowed
///   `Σ |s|` keeps the value a weighted average). Without any such pair, the user's mean
///   rating. Predictions are clamped to the training rating range.
///
/// Scores are not comparable across users (they grow with the history's length).
///
/// With `candidate` and measures that reach their maximum on tiny supports (Pearson,
/// adjusted cosine, conditional), a rarely rated candidate has a neighbourhood of perfect
/// similarities and a high score; for top-N ranking prefer cosine, Jaccard or Tanimoto,
/// `history`, or raise `min_support`.
#[derive(Debug, Clone)]
pub struct ItemKnn(Fitted, Option<CsMatI<f32, u32, usize>>);

impl Fit for ItemKnnParams {
    type Model = ItemKnn;

    fn fit(&self, data: &TrainData<'_>) -> Result<ItemKnn> {
        if self.0.neighbourhood() != Neighbourhood::HistoryAll {
            return Ok(ItemKnn(Fitted::fit(data, self.0, Axis::Items)?.0, None));
        }
        // Only `history-all` reads similarities beyond the neighbourhoods: both come from
        // one pass over each item's similarities.
        let vectors = Fitted::vectors(data, &self.0, Axis::Items)?;
        let (neighbours, admitted) = vectors.neighbours_and_admitted(&self.0);
        Ok(ItemKnn(Fitted::with(data, self.0, neighbours), Some(admitted)))
    }
}

knn_surface!(ItemKnn, 0, "item");

impl ItemKnn {
    /// Scores or predicts for a training user.
    fn for_user(&self, user: u32, items: &[u32], out: &mut [f32], output: Output) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        let row = self.0.train.user_row(user);
        self.run((row.items, row.values), items, out, output);
        Ok(())
    }

    fn run(&self, history: (&[u32], &[f32]), items: &[u32], out: &mut [f32], output: Output) {
        let (rated, ratings) = history;
        let read = Reading { items, history: ratings, fallback: &self.0.fallback, output };
        match (self.0.params.neighbourhood(), &self.1) {
            (Neighbourhood::History, _) => {
                // The neighbourhoods of the history items, scattered in history order.
                let scatter = |sums: &mut ItemSums| {
                    for (&i, &r) in rated.iter().zip(ratings) {
                        let (neighbours, sims) = row_of(&self.0.neighbours, i);
                        for (&j, &s) in neighbours.iter().zip(sims) {
                            sums.add(j, s, r);
                        }
                    }
                };
                return score_from_sums(self.n_items(), scatter, read, None, out);
            }
            (Neighbourhood::HistoryAll, Some(admitted)) => {
                // The candidates: the items of the history's neighbourhoods.
                let mut candidates: Vec<u32> =
                    rated.iter().flat_map(|&i| row_of(&self.0.neighbours, i).0).copied().collect();
                candidates.sort_unstable();
                candidates.dedup();
                // Every admitted similarity of the history items, in history order.
                let scatter = |sums: &mut ItemSums| {
                    for (&i, &r) in rated.iter().zip(ratings) {
                        let (others, sims) = row_of(admitted, i);
                        for (&j, &s) in others.iter().zip(sims) {
                            sums.add(j, s, r);
                        }
                    }
                };
                return score_from_sums(self.n_items(), scatter, read, Some(&candidates), out);
            }
            // `fit` keeps the admitted similarities exactly when the direction is
            // `history-all`, so this arm is `candidate`.
            (Neighbourhood::Candidate | Neighbourhood::HistoryAll, _) => {
                debug_assert_eq!(self.0.params.neighbourhood(), Neighbourhood::Candidate);
            }
        }
        // Each candidate's own neighbourhood, in neighbour order.
        for (slot, &item) in out.iter_mut().zip(items) {
            let (neighbours, sims) = row_of(&self.0.neighbours, item);
            let (mut num, mut den) = (0.0f64, 0.0f64);
            for (&j, &s) in neighbours.iter().zip(sims) {
                if let Ok(position) = rated.binary_search(&j) {
                    num += f64::from(s) * f64::from(ratings[position]);
                    den += f64::from(s).abs();
                }
            }
            *slot = self.0.fallback.output(output, num, den, ratings);
        }
    }
}

impl FoldInUser for ItemKnn {
    /// Item neighbourhoods do not depend on the user, so a new user is scored exactly as a
    /// training user with the same history would be.
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        check_history(self.n_items(), &history)?;
        self.run((history.items, history.values), items, out, Output::Score);
        Ok(())
    }
}

/// User-based kNN, fitted (ignatov2010 §2).
///
/// Each training user `u` keeps its neighbourhood `N(u)`: the `k` users most similar to
/// it (ties extended or cut), computed at fit time. With `N(u|i)` the neighbours who
/// rated `i`:
///
/// - ranking score `score(u, i) = Σ_{v ∈ N(u|i)} s(u, v) · r_vi` (on implicit data, the
///   similarity-weighted count of neighbours who chose `i`, ignatov2010 §2 "most
///   frequently bought items by k most similar users");
/// - predicted rating `r̂(u, i) = Σ_{v ∈ N(u|i)} s(u, v) r_vi / Σ_{v ∈ N(u|i)} |s(u, v)|`
///   (ignatov2010 §2 with `|s|` in the denominator, see [`ItemKnn`]); without any such
///   neighbour, the user's mean rating; clamped to the training rating range.
///
/// A user unseen in training ([`FoldInUser`]) gets a neighbourhood computed on the fly
/// from its history against every training user, with the training users' statistics
/// (and, for adjusted cosine, the training item means); nothing is refitted.
#[derive(Debug, Clone)]
pub struct UserKnn {
    fitted: Fitted,
    /// The training users' vectors, queried when a new user is folded in.
    vectors: Vectors,
}

impl Fit for UserKnnParams {
    type Model = UserKnn;

    fn fit(&self, data: &TrainData<'_>) -> Result<UserKnn> {
        let (fitted, vectors) = Fitted::fit(data, self.0, Axis::Users)?;
        Ok(UserKnn { fitted, vectors })
    }
}

/// Dense per-item sums `Σ s·r` and `Σ |s|`, and the items touched since they were zero.
struct ItemSums {
    num: Vec<f64>,
    den: Vec<f64>,
    touched: Vec<u32>,
}

impl ItemSums {
    /// Adds a neighbour's evidence `s · r` (and `|s|`) for `item`.
    fn add(&mut self, item: u32, s: f32, r: f32) {
        let i = item as usize;
        if self.num[i] == 0.0 && self.den[i] == 0.0 {
            self.touched.push(item);
        }
        self.num[i] += f64::from(s) * f64::from(r);
        self.den[i] += f64::from(s).abs();
    }
}

thread_local! {
    /// Per-thread [`ItemSums`], all zero between calls: no allocation per scored user.
    static ITEM_SUMS: RefCell<ItemSums> =
        const { RefCell::new(ItemSums { num: Vec::new(), den: Vec::new(), touched: Vec::new() }) };
}

/// What to read out of [`ItemSums`]: the candidates, and how a sum becomes an output.
struct Reading<'a> {
    items: &'a [u32],
    history: &'a [f32],
    fallback: &'a Fallback,
    output: Output,
}

/// Scores `read.items` into `out` from the per-item sums `scatter` adds into the
/// per-thread buffers over `n_items` items, then zeroes what it touched. With `admitted`
/// (sorted), an item outside it is scored as one without evidence.
fn score_from_sums(
    n_items: usize,
    scatter: impl FnOnce(&mut ItemSums),
    read: Reading<'_>,
    admitted: Option<&[u32]>,
    out: &mut [f32],
) {
    ITEM_SUMS.with(|cell| {
        let mut sums = cell.borrow_mut();
        if sums.num.len() != n_items {
            sums.num = vec![0.0; n_items];
            sums.den = vec![0.0; n_items];
            sums.touched.clear();
        }
        scatter(&mut sums);
        for (slot, &item) in out.iter_mut().zip(read.items) {
            let counted = admitted.is_none_or(|a| a.binary_search(&item).is_ok());
            let (n, d) = if counted {
                (sums.num[item as usize], sums.den[item as usize])
            } else {
                (0.0, 0.0)
            };
            *slot = read.fallback.output(read.output, n, d, read.history);
        }
        let ItemSums { num, den, touched } = &mut *sums;
        for &item in touched.iter() {
            num[item as usize] = 0.0;
            den[item as usize] = 0.0;
        }
        touched.clear();
    });
}

knn_surface!(UserKnn, fitted, "user");

impl UserKnn {
    /// Scores or predicts for a training user.
    fn for_user(&self, user: u32, items: &[u32], out: &mut [f32], output: Output) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        let history = self.fitted.train.user_values(user);
        self.run(self.fitted.row(user), history, items, out, output);
        Ok(())
    }

    /// The neighbourhood a user unseen in training with events `history` would get.
    ///
    /// # Errors
    /// Items out of range or not strictly increasing, non-finite values.
    pub fn neighbours_of_history(&self, history: UserRow<'_>) -> Result<Vec<(u32, f32)>> {
        check_history(self.n_items(), &history)?;
        let query = self.vectors.query(history.items, history.values);
        let mut scratch = Scratch::new(self.vectors.n_rows());
        Ok(self.vectors.neighbours_of(
            (history.items, &query),
            None,
            &self.fitted.params,
            &mut scratch,
        ))
    }

    /// Scatters each neighbour's row into per-item sums, then reads the candidates.
    /// Each item's sums run over neighbours in increasing index order, whichever items
    /// are asked for, so a subset scores bit-identically to the full catalogue.
    fn run(
        &self,
        neighbours: (&[u32], &[f32]),
        history: &[f32],
        items: &[u32],
        out: &mut [f32],
        output: Output,
    ) {
        let scatter = |sums: &mut ItemSums| {
            for (&v, &s) in neighbours.0.iter().zip(neighbours.1) {
                let row = self.fitted.train.user_row(v);
                for (&i, &r) in row.items.iter().zip(row.values) {
                    sums.add(i, s, r);
                }
            }
        };
        let read = Reading { items, history, fallback: &self.fitted.fallback, output };
        score_from_sums(self.n_items(), scatter, read, None, out);
    }
}

impl FoldInUser for UserKnn {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        let found = self.neighbours_of_history(history)?;
        let (users, sims): (Vec<u32>, Vec<f32>) = found.into_iter().unzip();
        self.run((&users, &sims), history.values, items, out, Output::Score);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{KnnParams, Similarity, Ties};
    use recs_core::{DuplicatePolicy, Event};

    fn data(n_users: usize, n_items: usize, events: &[(u32, u32, f32)]) -> Interactions {
        let events = events.iter().map(|&(u, i, r)| Event::new(u, i, r));
        Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error).unwrap()
    }

    /// Three users over five items (item 4 never rated).
    fn small() -> Interactions {
        recs_testkit::ratings_grid(
            "
            5 3 . . .
            4 2 5 . .
            . 1 . 2 .
            ",
        )
    }

    fn jaccard(k: usize) -> KnnParams {
        KnnParams::new().k(k).similarity(Similarity::Jaccard)
    }

    fn close(found: &[f32], expected: &[f64]) {
        assert_eq!(found.len(), expected.len());
        for (f, e) in found.iter().zip(expected) {
            assert!((f64::from(*f) - e).abs() < 1e-6, "found {found:?}, expected {expected:?}");
        }
    }

    #[test]
    fn user_knn_scores_and_predictions_by_hand() {
        let train = small();
        // Jaccard for user 0: user 1 → 2/3, user 2 → 1/3.
        let model =
            UserKnnParams::new(jaccard(2)).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        assert_eq!(model.neighbours(0).0, &[1, 2]);
        let mut out = [0.0; 3];
        model.score(0, &[2, 3, 4], &mut out).unwrap();
        close(&out, &[2.0 / 3.0 * 5.0, 1.0 / 3.0 * 2.0, 0.0]);
        model.predict(0, &[2, 3, 4], &mut out).unwrap();
        // Item 4: nobody rated it, so the user's mean (5 + 3) / 2.
        close(&out, &[5.0, 2.0, 4.0]);
        let model =
            UserKnnParams::new(jaccard(1)).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        model.predict(0, &[2, 3], &mut out[..2]).unwrap();
        close(&out[..2], &[5.0, 4.0]);
    }

    #[test]
    fn min_support_drops_pairs_with_few_shared_dimensions() {
        let train = small();
        // User 0 shares items 0 and 1 with user 1, only item 1 with user 2.
        let fit = |support| {
            let params = jaccard(5).min_support(support);
            UserKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap()
        };
        assert_eq!(fit(1).neighbours(0).0, &[1, 2]);
        assert_eq!(fit(2).neighbours(0).0, &[1]);
        assert!(fit(3).neighbours(0).0.is_empty());
    }

    #[test]
    fn item_knn_scores_and_predictions_by_hand() {
        let train = small();
        // Jaccard over users: (0,1) 2/3, (0,2) 1/2, (1,2) 1/3, (1,3) 1/3.
        let model =
            ItemKnnParams::new(jaccard(2)).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        assert_eq!(model.neighbours(2), (&[0u32, 1][..], &[0.5f32, 1.0 / 3.0][..]));
        let mut out = [0.0; 3];
        model.score(0, &[2, 3, 4], &mut out).unwrap();
        close(&out, &[0.5 * 5.0 + 3.0 / 3.0, 3.0 / 3.0, 0.0]);
        model.predict(0, &[2, 3, 4], &mut out).unwrap();
        close(&out, &[3.5 / (0.5 + 1.0 / 3.0), 3.0, 4.0]);
        let model =
            ItemKnnParams::new(jaccard(1)).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        model.score(0, &[2], &mut out[..1]).unwrap();
        close(&out[..1], &[2.5]);
    }

    /// ignatov2010 §2's direction: a candidate collects from the neighbourhoods of the
    /// user's items, not from its own.
    #[test]
    fn item_knn_history_neighbourhoods_by_hand() {
        let train = small();
        // Jaccard over users: (0,1) 2/3, (0,2) 1/2, (1,2) 1/3, (1,3) 1/3. With k = 1: N(0) =
        // {1}, N(1) = {0}, N(2) = {0}, N(3) = {1}.
        let params = jaccard(1).neighbourhood(Neighbourhood::History);
        let model = ItemKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        assert_eq!(model.neighbours(2), (&[0u32][..], &[0.5f32][..]));
        // User 0 has items 0 (5) and 1 (3). Candidate 2 is in no history item's
        // neighbourhood (N(0) = {1}, N(1) = {0}): score 0, prediction the user's mean. The
        // candidate direction would give it s(2, 0) · 5 = 2.5 from its own N(2) = {0}.
        let mut out = [0.0; 2];
        model.score(0, &[2, 3], &mut out).unwrap();
        close(&out, &[0.0, 0.0]);
        model.predict(0, &[2, 3], &mut out).unwrap();
        close(&out, &[4.0, 4.0]);
        // k = 2: N(0) = {1, 2}, N(1) = {0, 2 and 3 tied at 1/3, extended}: candidate 2
        // collects 1/2 · 5 from N(0) and 1/3 · 3 from N(1); candidate 3 collects 1/3 · 3.
        let params = jaccard(2).neighbourhood(Neighbourhood::History);
        let model = ItemKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        model.score(0, &[2, 3], &mut out).unwrap();
        close(&out, &[0.5 * 5.0 + 3.0 / 3.0, 3.0 / 3.0]);
        model.predict(0, &[2, 3], &mut out).unwrap();
        close(&out, &[3.5 / (0.5 + 1.0 / 3.0), 3.0]);
        // Fold-in scores a new user as a training user with the same history.
        let mut folded = [0.0; 2];
        model.score_history(train.user_row(0), &[2, 3], &mut folded).unwrap();
        model.score(0, &[2, 3], &mut out).unwrap();
        assert_eq!(folded, out);
    }

    /// §2's formulas read literally: the candidates of `history`, each summed over every
    /// history item whose similarity is admitted.
    #[test]
    fn item_knn_history_all_by_hand() {
        let train = small();
        // Jaccard over users: (0,1) 2/3, (0,2) 1/2, (1,2) 1/3, (1,3) 1/3; with k = 1, N(2) =
        // {0} and N(3) = {1}. A new user holding items 2 and 3 (value 1 each).
        let direction = |d| {
            let params = jaccard(1).neighbourhood(d);
            ItemKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap()
        };
        let history = |items: &'static [u32], values: &'static [f32]| UserRow {
            items,
            values,
            timestamps: None,
        };
        let scores = |d, items: &'static [u32], values: &'static [f32]| {
            let mut out = [0.0; 3];
            direction(d).score_history(history(items, values), &[0, 1, 4], &mut out).unwrap();
            out
        };
        // Candidates 0 (in N(2)) and 1 (in N(3)). Item 1 collects s(3, 1) = 1/3 from N(3) and,
        // read literally, also s(2, 1) = 1/3 though N(2) does not hold it.
        close(&scores(Neighbourhood::HistoryAll, &[2, 3], &[1.0, 1.0]), &[0.5, 2.0 / 3.0, 0.0]);
        close(&scores(Neighbourhood::History, &[2, 3], &[1.0, 1.0]), &[0.5, 1.0 / 3.0, 0.0]);
        // Holding item 2 alone, item 1 is in no history neighbourhood: no evidence, though
        // its similarity with item 2 is admitted.
        close(&scores(Neighbourhood::HistoryAll, &[2], &[1.0]), &[0.5, 0.0, 0.0]);
        // Predictions divide by the summed |s| over the same pairs (item 1: (1/3 · 1 + 1/3 ·
        // 1) / (2/3) = 1); without a pair, the user's mean.
        let mut out = [0.0; 3];
        let model = direction(Neighbourhood::HistoryAll);
        model.predict(2, &[0, 2, 4], &mut out).unwrap();
        // Training user 2 holds items 1 (1) and 3 (2): N(1) = {0}, N(3) = {1}, candidate 0
        // collects s(1, 0) · 1 from item 1 and nothing from item 3 (no common user).
        close(&out, &[1.0, 1.5, 1.5]);
    }

    /// `min_support = 0`: users without a common item are neighbours too, at the
    /// similarity of their whole vectors (ignatov2010 §2's top k over every user).
    #[test]
    fn zero_min_support_admits_pairs_without_a_common_item() {
        let train = recs_testkit::ratings_grid(
            "
            1 1 . .
            1 1 . .
            . . 1 1
            ",
        );
        let fit = |support| {
            let params = KnnParams::new()
                .k(2)
                .similarity(Similarity::Pearson)
                .positive_only(false)
                .min_support(support);
            UserKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap()
        };
        // Untrimmed Pearson over the four items: users 0 and 1 agree (1), users 0 and 2 are
        // opposite (−1) though they share no item.
        assert_eq!(fit(1).neighbours(0), (&[1u32][..], &[1.0f32][..]));
        assert_eq!(fit(0).neighbours(0), (&[1u32, 2][..], &[1.0f32, -1.0][..]));
        let mut out = [0.0; 2];
        fit(0).score(0, &[2, 3], &mut out).unwrap();
        close(&out, &[-1.0, -1.0]);
        fit(1).score(0, &[2, 3], &mut out).unwrap();
        close(&out, &[0.0, 0.0]);
        // Positive-only neighbourhoods are the same either way here.
        let positive = KnnParams::new().k(2).similarity(Similarity::Pearson).min_support(0);
        let model = UserKnnParams::new(positive).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        assert_eq!(model.neighbours(0).0, &[1]);
    }

    #[test]
    fn positive_only_and_min_similarity_filter_neighbours() {
        // Pearson over co-rated items: user 1 agrees with user 0, user 2 disagrees.
        let train = recs_testkit::ratings_grid(
            "
            5 1 3 .
            4 2 3 5
            1 5 3 1
            ",
        );
        let pearson = KnnParams::new().k(5).similarity(Similarity::Pearson);
        let fit =
            |p: KnnParams| UserKnnParams::new(p).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        assert_eq!(fit(pearson).neighbours(0).0, &[1]);
        let all = fit(pearson.positive_only(false));
        assert_eq!(all.neighbours(0), (&[1u32, 2][..], &[1.0f32, -1.0][..]));
        // Negative neighbours pull the score down; the prediction divides by Σ|s|.
        let mut out = [0.0];
        all.score(0, &[3], &mut out).unwrap();
        close(&out, &[5.0 - 1.0]);
        all.predict(0, &[3], &mut out).unwrap();
        close(&out, &[(5.0 - 1.0) / 2.0]);
        let thresholded = fit(pearson.positive_only(false).min_similarity(Some(-0.5)));
        assert_eq!(thresholded.neighbours(0).0, &[1]);
    }

    /// ignatov2010 §5: 20 users × 20 items, four 5 × 5 blocks full of ones on the diagonal.
    fn blocks(hidden: &[(u32, u32)]) -> Interactions {
        let mut events = Vec::new();
        for user in 0..20u32 {
            for item in 0..20u32 {
                if user / 5 == item / 5 && !hidden.contains(&(user, item)) {
                    events.push((user, item, 1.0));
                }
            }
        }
        data(20, 20, &events)
    }

    #[test]
    fn block_matrix_user_gets_its_block_items_first() {
        let hidden = [(0, 3), (0, 4), (7, 5), (13, 14), (19, 15), (19, 16), (19, 17)];
        let train = blocks(&hidden);
        let all: Vec<u32> = (0..20).collect();
        for similarity in Similarity::ALL {
            for ties in [Ties::Extend, Ties::Cut] {
                // k = 4 covers a block; with fewer, an item's neighbourhood may hold only
                // hidden items (ignatov2010 §5: quality grows with the neighbourhood).
                let params = KnnParams::new().k(4).similarity(similarity).ties(ties);
                let user =
                    UserKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
                let item =
                    ItemKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
                for model in [&user as &dyn Recommender, &item] {
                    for u in [0u32, 7, 13, 19] {
                        let mut scores = vec![0.0; 20];
                        model.score(u, &all, &mut scores).unwrap();
                        let in_block = |i: u32| i / 5 == u / 5;
                        let best_outside = all
                            .iter()
                            .filter(|&&i| !in_block(i))
                            .map(|&i| scores[i as usize])
                            .fold(f32::NEG_INFINITY, f32::max);
                        for &(_, i) in hidden.iter().filter(|h| h.0 == u) {
                            if similarity == Similarity::AdjustedCosine {
                                // Binary data: every centred value is 0, nothing is defined.
                                assert_eq!(scores[i as usize], 0.0);
                            } else {
                                assert!(
                                    scores[i as usize] > best_outside,
                                    "{similarity} {ties}: user {u} item {i}: {scores:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tie_extension_keeps_every_tied_neighbour() {
        let train = blocks(&[]);
        let params = KnnParams::new().k(1).similarity(Similarity::Jaccard);
        let fit = |ties| {
            UserKnnParams::new(params.ties(ties)).unwrap().fit(&TrainData::new(&train, 0)).unwrap()
        };
        // The four other users of the block all have Jaccard 1.
        assert_eq!(fit(Ties::Extend).neighbours(6).0, &[5, 7, 8, 9]);
        assert_eq!(fit(Ties::Cut).neighbours(6).0, &[5]);
    }

    /// A deterministic irregular data set, `n_users × n_items` with about `density` filled.
    fn irregular(n_users: u32, n_items: u32, density: u32) -> Interactions {
        let mut events = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for user in 0..n_users {
            for item in 0..n_items {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let draw = (state >> 33) as u32;
                // Popular low-index items, active low-index users.
                if draw % 1000 < density * 2000 / (item + 20) / (1 + user % 5) {
                    events.push((user, item, 1.0 + (draw % 5) as f32));
                }
            }
        }
        data(n_users as usize, n_items as usize, &events)
    }

    #[test]
    fn results_do_not_depend_on_thread_count() {
        let train = irregular(120, 90, 40);
        assert!(train.n_events() > 1000, "{}", train.n_events());
        let in_pool = |threads: usize, f: &(dyn Fn() -> Vec<CsMatI<f32, u32, usize>> + Sync)| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
        };
        for similarity in Similarity::ALL {
            let params = KnnParams::new().k(7).similarity(similarity).positive_only(false);
            let fit = || {
                let data = TrainData::new(&train, 0);
                vec![
                    UserKnnParams::new(params)
                        .unwrap()
                        .fit(&data)
                        .unwrap()
                        .similarity_matrix()
                        .clone(),
                    ItemKnnParams::new(params)
                        .unwrap()
                        .fit(&data)
                        .unwrap()
                        .similarity_matrix()
                        .clone(),
                ]
            };
            let one = in_pool(1, &fit);
            let three = in_pool(3, &fit);
            for (a, b) in one.iter().zip(&three) {
                assert_eq!(a.indptr().raw_storage(), b.indptr().raw_storage());
                assert_eq!(a.indices(), b.indices());
                let bits = |m: &CsMatI<f32, u32, usize>| {
                    m.data().iter().map(|s| s.to_bits()).collect::<Vec<_>>()
                };
                assert_eq!(bits(a), bits(b), "{similarity}");
                assert!(a.nnz() > 0);
            }
        }
    }

    #[test]
    fn item_knn_fold_in_equals_scoring_the_same_training_history() {
        let train = irregular(60, 40, 40);
        let items: Vec<u32> = (0..40).collect();
        for (similarity, direction) in Similarity::ALL.into_iter().flat_map(|s| {
            [Neighbourhood::History, Neighbourhood::Candidate, Neighbourhood::HistoryAll]
                .map(|d| (s, d))
        }) {
            let params = KnnParams::new().k(5).similarity(similarity).neighbourhood(direction);
            let model =
                ItemKnnParams::new(params).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
            for user in [0, 17, 59] {
                let (mut fitted, mut folded) = (vec![0.0; 40], vec![0.0; 40]);
                model.score(user, &items, &mut fitted).unwrap();
                model.score_history(train.user_row(user), &items, &mut folded).unwrap();
                assert_eq!(fitted, folded, "{similarity} {direction} user {user}");
            }
        }
    }

    #[test]
    fn user_knn_fold_in_equals_fitting_with_the_user() {
        // Fold user 5 into a model that never saw its events: for measures that use no
        // statistics of the other users' dimensions, scores equal those of the model fitted
        // with the user.
        let full = irregular(60, 40, 40);
        let user = 5u32;
        let without = {
            let events: Vec<(u32, u32, f32)> = full
                .events()
                .filter(|e| e.user != user)
                .map(|e| (e.user, e.item, e.value))
                .collect();
            data(60, 40, &events)
        };
        let items: Vec<u32> = (0..40).collect();
        for similarity in Similarity::ALL.into_iter().filter(|&s| s != Similarity::AdjustedCosine) {
            let params = UserKnnParams::new(KnnParams::new().k(6).similarity(similarity)).unwrap();
            let with_user = params.fit(&TrainData::new(&full, 0)).unwrap();
            let new_user = params.fit(&TrainData::new(&without, 0)).unwrap();
            let found = new_user.neighbours_of_history(full.user_row(user)).unwrap();
            let (users, sims) = with_user.neighbours(user);
            let expected: Vec<(u32, f32)> =
                users.iter().copied().zip(sims.iter().copied()).collect();
            assert_eq!(found, expected, "{similarity}");
            let (mut fitted, mut folded) = (vec![0.0; 40], vec![0.0; 40]);
            with_user.score(user, &items, &mut fitted).unwrap();
            new_user.score_history(full.user_row(user), &items, &mut folded).unwrap();
            assert_eq!(fitted, folded, "{similarity}");
        }
    }

    fn arb_events() -> impl proptest::strategy::Strategy<Value = Vec<(u32, u32, f32)>> {
        use proptest::prelude::*;
        proptest::collection::btree_set((0u32..8, 0u32..9), 1..40).prop_flat_map(|pairs| {
            let n = pairs.len();
            (Just(pairs), proptest::collection::vec(1u8..=5, n)).prop_map(|(pairs, ratings)| {
                pairs.into_iter().zip(ratings).map(|((u, i), r)| (u, i, f32::from(r))).collect()
            })
        })
    }

    proptest::proptest! {
        #[test]
        fn predictions_stay_in_the_rating_range_and_cut_is_inside_extend(
            events in arb_events(),
            which in 0usize..8,
            k in 1usize..4,
        ) {
            let train = data(8, 9, &events);
            let (low, high) = events.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), e| {
                (l.min(e.2), h.max(e.2))
            });
            let items: Vec<u32> = (0..9).collect();
            let base = KnnParams::new().k(k).similarity(Similarity::ALL[which]).positive_only(false);
            let fit_data = TrainData::new(&train, 0);
            let user_cut = UserKnnParams::new(base.ties(Ties::Cut)).unwrap().fit(&fit_data).unwrap();
            let user_ext = UserKnnParams::new(base).unwrap().fit(&fit_data).unwrap();
            let item_cut = ItemKnnParams::new(base.ties(Ties::Cut)).unwrap().fit(&fit_data).unwrap();
            let item_ext = ItemKnnParams::new(base).unwrap().fit(&fit_data).unwrap();
            for row in 0..8u32 {
                let (cut, extended) = (user_cut.neighbours(row).0, user_ext.neighbours(row).0);
                proptest::prop_assert!(cut.len() <= k && cut.iter().all(|v| extended.contains(v)));
                proptest::prop_assert!(!extended.contains(&row));
                let mut out = vec![0.0; 9];
                for model in [&user_ext as &dyn PredictRating, &item_ext, &user_cut, &item_cut] {
                    model.predict(row, &items, &mut out).unwrap();
                    proptest::prop_assert!(out.iter().all(|p| (low..=high).contains(p)), "{:?}", out);
                }
            }
            for item in 0..9u32 {
                let (cut, extended) = (item_cut.neighbours(item).0, item_ext.neighbours(item).0);
                proptest::prop_assert!(cut.len() <= k && cut.iter().all(|j| extended.contains(j)));
                proptest::prop_assert!(!extended.contains(&item));
            }
        }
    }

    #[test]
    fn malformed_histories_are_errors() {
        let train = small();
        let model =
            UserKnnParams::new(jaccard(2)).unwrap().fit(&TrainData::new(&train, 0)).unwrap();
        let mut out = [0.0; 1];
        let unsorted = UserRow { items: &[1, 0], values: &[1.0, 1.0], timestamps: None };
        assert!(model.score_history(unsorted, &[0], &mut out).is_err());
        let short = UserRow { items: &[0, 1], values: &[1.0], timestamps: None };
        assert!(model.score_history(short, &[0], &mut out).is_err());
        let nan = UserRow { items: &[0], values: &[f32::NAN], timestamps: None };
        assert!(model.score_history(nan, &[0], &mut out).is_err());
        let outside = UserRow { items: &[5], values: &[1.0], timestamps: None };
        assert!(model.score_history(outside, &[0], &mut out).is_err());
        let empty = UserRow { items: &[], values: &[], timestamps: None };
        model.score_history(empty, &[0], &mut out).unwrap();
        assert_eq!(out, [0.0]);
    }
}
