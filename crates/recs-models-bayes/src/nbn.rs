//! The naive Bayesian network of cremonesi2008 §4.1.

use derive_setters::Setters;
use rayon::prelude::*;

use recs_core::{
    CheckParams, Fit, FoldInUser, Interactions, Recommender, RecsError, Result, Shape, TrainData,
    UserRow, check_items, check_score_args,
};

/// Parameters of [`NaiveBayesianNetwork`].
#[derive(Debug, Clone, Copy, PartialEq, Setters)]
pub struct NaiveBayesianNetworkParams {
    /// The pseudo-count `α` added to every count: `0` is the paper's formula, unsmoothed
    /// (see [`NaiveBayesianNetwork`]).
    alpha: f64,
}

impl Default for NaiveBayesianNetworkParams {
    fn default() -> Self {
        Self::new()
    }
}

impl NaiveBayesianNetworkParams {
    /// Defaults: `alpha = 0`, the paper's formula exactly.
    pub fn new() -> Self {
        NaiveBayesianNetworkParams { alpha: 0.0 }
    }
}

impl CheckParams for NaiveBayesianNetworkParams {
    type Valid = NaiveBayesianNetworkValidParams;

    /// # Errors
    /// [`RecsError::InvalidParameter`] unless `alpha` is finite and not negative.
    fn check(&self) -> Result<NaiveBayesianNetworkValidParams> {
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return Err(RecsError::invalid_parameter("alpha", self.alpha, "a finite number ≥ 0"));
        }
        Ok(NaiveBayesianNetworkValidParams { alpha: self.alpha })
    }
}

/// Validated parameters of [`NaiveBayesianNetwork`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NaiveBayesianNetworkValidParams {
    alpha: f64,
}

impl Fit for NaiveBayesianNetworkValidParams {
    type Model = NaiveBayesianNetwork;

    fn fit(&self, data: &TrainData<'_>) -> Result<NaiveBayesianNetwork> {
        let interactions = data.interactions.require_events()?;
        let alpha = self.alpha;
        let counts = interactions.item_counts();
        let n_max = f64::from(counts.iter().copied().max().unwrap_or(0));
        // A co-rated pair's term: ln c_iw (exact; the division by n_i is in `finish`), or
        // ln((c_iw + α) / α) (smoothed; the never co-rated pair's ln(α / (n_i + α)) is in
        // `finish`).
        let term = |c: f64| if alpha == 0.0 { c.ln() } else { ((c + alpha) / alpha).ln() };
        let rows = co_occurrence(interactions, term);
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0usize);
        let (mut neighbours, mut log_terms) = (Vec::new(), Vec::new());
        for (items, terms) in rows {
            neighbours.extend(items);
            log_terms.extend(terms);
            offsets.push(neighbours.len());
        }
        Ok(NaiveBayesianNetwork {
            n_users: interactions.n_users(),
            profiles: interactions.clone(),
            alpha,
            item_counts: counts.clone(),
            log_prior: counts
                .iter()
                .map(|&n| ((f64::from(n) + alpha) / (n_max + alpha)).ln())
                .collect(),
            log_item_count: counts.iter().map(|&n| (f64::from(n) + alpha).ln()).collect(),
            log_alpha: alpha.ln(),
            offsets,
            neighbours,
            log_terms,
        })
    }
}

/// For every item `i`, the items `w` co-rated with it (`c_iw > 0`, `i` itself included)
/// in increasing order, with `term(c_iw)`. Rows are computed in parallel and are
/// independent of the thread count.
fn co_occurrence(
    interactions: &Interactions,
    term: impl Fn(f64) -> f64 + Sync,
) -> Vec<(Vec<u32>, Vec<f64>)> {
    let n_items = interactions.n_items();
    (0..n_items as u32)
        .into_par_iter()
        .map_init(
            || vec![0u32; n_items],
            |counter, item| {
                let mut touched = Vec::new();
                for &user in interactions.item_users(item) {
                    for &w in interactions.user_items(user) {
                        if counter[w as usize] == 0 {
                            touched.push(w);
                        }
                        counter[w as usize] += 1;
                    }
                }
                touched.sort_unstable();
                let terms = touched
                    .iter()
                    .map(|&w| term(f64::from(std::mem::take(&mut counter[w as usize]))))
                    .collect();
                (touched, terms)
            },
        )
        .collect()
}

/// The score standing for probability zero: the lowest finite `f32`, below every
/// logarithm of a positive product (scores stay finite, and all zero products tie).
pub const ZERO_PROBABILITY: f32 = f32::MIN;

/// Naive Bayesian network recommender (cremonesi2008 §4.1, eq. 11): each candidate item
/// `i` is a hypothesis `H_i` whose only children are the user's items `w` (the evidence),
/// on binary data (every training event counts as 1, whatever its value).
///
/// ```text
/// P(H_i = 1 | E) ∝ P(H_i) Π_{w ∈ profile(u)} P(E_w | H_i)
/// P(H_i)       = n_i / n_max          (α = 0, the paper's)   (n_i + α) / (n_max + α)
/// P(E_w | H_i) = c_iw / n_i                                  (c_iw + α) / (n_i + α)
/// ```
///
/// `n_i` is the number of training users of item `i`, `n_max` the largest `n_i`, `c_iw`
/// the number of users who have both `i` and `w`. The score is the logarithm of the
/// product. With `α = 0` (the default) it is the paper's formula exactly: one profile item
/// never co-rated with `i` (`c_iw = 0`), or an item without training events (`n_i = 0`),
/// makes the product zero, scored [`ZERO_PROBABILITY`]; all such items tie, and rank
/// metrics count a tie at its expected rank. An empty profile scores `ln P(H_i)`: it
/// ranks by popularity.
///
/// `α > 0` is a smoothed variant (not the paper's): every product is positive, and a
/// profile item never co-rated with `i` costs `ln(α / (n_i + α))`, a smaller penalty for
/// rare items than for popular ones, so long profiles push rare and unseen items to the
/// top. `α` is added to both counts so that the one-item profile gives `(c_iw + α) /
/// (n_max + α)`, the paper's `c_iw / n_max` as `α → 0`.
///
/// Scores are log-probabilities that fall with the profile's length: compare them within
/// a user only (per-user metrics, CROC), not across users (pooled ROC).
///
/// The co-occurrence counts are stored sparsely (pairs that co-occur only). Scoring picks
/// per call between looking up each candidate's row and accumulating the profile's rows
/// into a dense buffer; both add the same terms in the same order, so results are
/// bit-identical whichever runs. Capabilities: [`FoldInUser`] (the history is the
/// profile). No rating prediction; no items unseen in training.
#[derive(Debug, Clone)]
pub struct NaiveBayesianNetwork {
    n_users: usize,
    profiles: Interactions,
    alpha: f64,
    item_counts: Vec<u32>,
    log_prior: Vec<f64>,
    log_item_count: Vec<f64>,
    log_alpha: f64,
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
    log_terms: Vec<f64>,
}

impl NaiveBayesianNetwork {
    fn row(&self, item: u32) -> (&[u32], &[f64]) {
        let range = self.offsets[item as usize]..self.offsets[item as usize + 1];
        (&self.neighbours[range.clone()], &self.log_terms[range])
    }

    /// The score of `item` for a profile of `profile_len` items, `co_rated` of which were
    /// co-rated with it, their terms summing to `sum`.
    fn finish(&self, item: u32, profile_len: usize, co_rated: usize, sum: f64) -> f32 {
        let i = item as usize;
        let n = profile_len as f64;
        if self.alpha > 0.0 {
            return (self.log_prior[i] + n * (self.log_alpha - self.log_item_count[i]) + sum)
                as f32;
        }
        if self.item_counts[i] == 0 || co_rated < profile_len {
            return ZERO_PROBABILITY;
        }
        (self.log_prior[i] + sum - n * self.log_item_count[i]) as f32
    }

    /// Per candidate: find each profile item in the candidate's row.
    fn score_by_lookup(&self, profile: &[u32], items: &[u32], out: &mut [f32]) {
        for (o, &item) in out.iter_mut().zip(items) {
            let (neighbours, terms) = self.row(item);
            let (mut sum, mut co_rated) = (0.0f64, 0usize);
            for w in profile {
                if let Ok(k) = neighbours.binary_search(w) {
                    sum += terms[k];
                    co_rated += 1;
                }
            }
            *o = self.finish(item, profile.len(), co_rated, sum);
        }
    }

    /// Accumulate each profile item's row (by symmetry of `c`) into dense buffers.
    fn score_by_accumulation(&self, profile: &[u32], items: &[u32], out: &mut [f32]) {
        let mut sums = vec![0.0f64; self.log_prior.len()];
        let mut co_rated = vec![0usize; self.log_prior.len()];
        for &w in profile {
            let (neighbours, terms) = self.row(w);
            for (&i, &t) in neighbours.iter().zip(terms) {
                sums[i as usize] += t;
                co_rated[i as usize] += 1;
            }
        }
        for (o, &item) in out.iter_mut().zip(items) {
            let i = item as usize;
            *o = self.finish(item, profile.len(), co_rated[i], sums[i]);
        }
    }

    fn score_profile(&self, profile: &[u32], items: &[u32], out: &mut [f32]) {
        let lookup_cost = items.len().saturating_mul(profile.len());
        let accumulate_cost =
            self.log_prior.len() + profile.iter().map(|&w| self.row(w).0.len()).sum::<usize>();
        if lookup_cost <= accumulate_cost {
            self.score_by_lookup(profile, items, out);
        } else {
            self.score_by_accumulation(profile, items, out);
        }
    }
}

impl Recommender for NaiveBayesianNetwork {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.log_prior.len())
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.n_items(), user, items, out)?;
        self.score_profile(self.profiles.user_items(user), items, out);
        Ok(())
    }

    recs_core::capabilities!(fold_in);
}

impl FoldInUser for NaiveBayesianNetwork {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        let mut profile = history.items.to_vec();
        if let Some(&item) = profile.iter().find(|&&i| i as usize >= self.n_items()) {
            return Err(RecsError::IndexOutOfRange {
                what: "history item",
                index: item as usize,
                len: self.n_items(),
            });
        }
        profile.sort_unstable();
        profile.dedup();
        self.score_profile(&profile, items, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn interactions(rows: &[&[u32]], n_items: usize) -> Interactions {
        recs_testkit::interactions_from_rows(rows, n_items, 3.0)
    }

    /// Item counts: 0 → 3, 1 → 2, 2 → 1, 3 → 0; user 3 has an empty profile.
    fn train() -> Interactions {
        interactions(&[&[0, 1], &[0, 1, 2], &[0], &[]], 4)
    }

    fn fit(alpha: f64, m: &Interactions) -> NaiveBayesianNetwork {
        NaiveBayesianNetworkParams::new().alpha(alpha).fit(&TrainData::new(m, 0)).unwrap()
    }

    #[test]
    fn empty_profile_ranks_by_popularity() {
        let m = train();
        for alpha in [0.0, 0.01] {
            let model = fit(alpha, &m);
            let mut out = [0.0f32; 4];
            model.score(3, &[0, 1, 2, 3], &mut out).unwrap();
            assert!(out[0] > out[1] && out[1] > out[2] && out[2] > out[3], "{out:?}");
            // ln P(H_0) = ln 1 = 0 for the most popular item.
            assert!(out[0].abs() < 1e-7);
            let want = ((2.0 + alpha) / (3.0 + alpha)).ln();
            assert!((f64::from(out[1]) - want).abs() < 1e-6);
        }
        // The paper's formula: an item without training events has P(H) = 0.
        let mut out = [0.0f32];
        fit(0.0, &m).score(3, &[3], &mut out).unwrap();
        assert_eq!(out[0], ZERO_PROBABILITY);
    }

    /// The paper's formula by hand: `P(H_i) Π_w c_iw / n_i` with `P(H_i) = n_i / n_max`.
    #[test]
    fn the_papers_formula_by_hand() {
        // Item counts: 0 → 4, 1 → 3, 2 → 2, 3 → 1, 4 → 0; n_max = 4.
        let m = interactions(&[&[0, 1, 2], &[0, 1, 3], &[0, 2], &[0, 1]], 5);
        let model = fit(0.0, &m);
        let score = |profile: &[u32], item: u32| {
            let history = UserRow { items: profile, values: &[], timestamps: None };
            let mut out = [0.0f32];
            model.score_history(history, &[item], &mut out).unwrap();
            out[0]
        };
        let close = |got: f32, want: f64| {
            assert!((f64::from(got) - want.ln()).abs() < 1e-6, "{got} against ln {want}");
        };
        // Profile {0}: candidate 1 has c(1,0) = 3, n_1 = 3: 3/4 · 3/3.
        close(score(&[0], 1), 3.0 / 4.0);
        // Profile {0, 1}: candidate 2: c(2,0) = 2, c(2,1) = 1, n_2 = 2: 2/4 · 2/2 · 1/2.
        close(score(&[0, 1], 2), 2.0 / 4.0 * 1.0 * 0.5);
        // Candidate 3: c(3,0) = 1, c(3,1) = 1, n_3 = 1: 1/4 · 1 · 1.
        close(score(&[0, 1], 3), 0.25);
        // Profile {2, 3}: candidate 1 has c(1,2) = 1, c(1,3) = 1: 3/4 · 1/3 · 1/3.
        close(score(&[2, 3], 1), 0.75 / 9.0);
        // One zero co-rating zeroes the product: c(3,2) = 0 for profile {0, 2}.
        assert_eq!(score(&[0, 2], 3), ZERO_PROBABILITY);
        // An item without training events, whatever the profile.
        assert_eq!(score(&[0], 4), ZERO_PROBABILITY);
        // A profile item nobody else has: every candidate's product is zero, all tied.
        let all: Vec<f32> = (0..4).map(|i| score(&[4], i)).collect();
        assert!(all.iter().all(|&s| s == ZERO_PROBABILITY), "{all:?}");
    }

    /// Zero products tie below every positive product, however small.
    #[test]
    fn zero_products_tie_below_every_positive_one() {
        // Item 0 is co-rated with every item once in 40 users; items 1..=40 each once.
        let rows: Vec<Vec<u32>> = (1..=40u32).map(|i| vec![0, i]).collect();
        let refs: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
        let m = interactions(&refs, 42);
        let model = fit(0.0, &m);
        let profile: Vec<u32> = (1..=40).collect();
        let history = UserRow { items: &profile, values: &[], timestamps: None };
        let mut out = [0.0f32; 2];
        model.score_history(history, &[0, 41], &mut out).unwrap();
        // Item 0: P(H) = 1, forty factors 1/40: ln = −40 ln 40, positive and tiny.
        assert!((f64::from(out[0]) + 40.0 * 40f64.ln()).abs() < 1e-3, "{out:?}");
        assert!(out[0] > ZERO_PROBABILITY && out[1] == ZERO_PROBABILITY, "{out:?}");
    }

    #[test]
    fn one_item_profile_gives_co_occurrence_over_n_max() {
        let m = interactions(&[&[0, 1], &[0, 1, 2], &[0], &[2]], 4);
        for alpha in [1e-9, 0.5] {
            let model = fit(alpha, &m);
            // Fold in a user whose profile is item 2: c(0,2) = 1, c(1,2) = 1, c(3,2) = 0,
            // n_max = 3.
            let history = UserRow { items: &[2], values: &[1.0], timestamps: None };
            let mut out = [0.0f32; 3];
            model.score_history(history, &[0, 1, 3], &mut out).unwrap();
            for (s, c) in out.iter().zip([1.0, 1.0, 0.0]) {
                let want = (c + alpha) / (3.0 + alpha);
                assert!((f64::from(*s).exp() - want).abs() < 1e-5 * want, "{out:?}");
            }
        }
    }

    #[test]
    fn two_item_profile_by_hand_smoothed() {
        let m = train();
        let alpha = 0.5;
        let model = fit(alpha, &m);
        // User 0's profile {0, 1}; candidate 2: n_2 = 1, c(2,0) = 1, c(2,1) = 1.
        let mut out = [0.0f32];
        model.score(0, &[2], &mut out).unwrap();
        let want =
            ((1.0 + alpha) / (3.0 + alpha)).ln() + 2.0 * ((1.0 + alpha) / (1.0 + alpha)).ln();
        assert!((f64::from(out[0]) - want).abs() < 1e-6);
        // Candidate 3: n_3 = 0, never co-rated: two factors α / α = 1 and the prior.
        model.score(0, &[3], &mut out).unwrap();
        let want = (alpha / (3.0 + alpha)).ln();
        assert!((f64::from(out[0]) - want).abs() < 1e-6);
    }

    #[test]
    fn bad_alpha_is_refused() {
        for alpha in [-1.0, -0.0 - 1e-12, f64::NAN, f64::INFINITY] {
            assert!(NaiveBayesianNetworkParams::new().alpha(alpha).check().is_err());
        }
        assert!(NaiveBayesianNetworkParams::new().alpha(0.0).check().is_ok());
    }

    proptest! {
        /// Lookup and accumulation give bit-identical scores.
        #[test]
        fn both_scoring_paths_agree(
            cells in proptest::collection::vec(proptest::bool::weighted(0.35), 64),
            profile_cells in proptest::collection::vec(any::<bool>(), 8),
        ) {
            let rows: Vec<Vec<u32>> =
                (0..8).map(|u| (0..8u32).filter(|&i| cells[u * 8 + i as usize]).collect()).collect();
            let refs: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
            let m = interactions(&refs, 8);
            prop_assume!(m.n_events() > 0);
            for alpha in [0.0, 0.01] {
                let model = fit(alpha, &m);
                let profile: Vec<u32> = (0..8u32).filter(|&i| profile_cells[i as usize]).collect();
                let items: Vec<u32> = (0..8).rev().collect();
                let (mut a, mut b) = ([0.0f32; 8], [0.0f32; 8]);
                model.score_by_lookup(&profile, &items, &mut a);
                model.score_by_accumulation(&profile, &items, &mut b);
                prop_assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "{a:?} {b:?}");
            }
        }
    }
}
