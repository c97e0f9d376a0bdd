//! Per-user naive Bayes on item attributes (schein2005 §4.3).

use derive_setters::Setters;
use rayon::prelude::*;

use recs_core::{
    CheckParams, Fit, FoldInUser, ItemAttributes, NewItems, PredictRating, Recommender, RecsError,
    Result, ScoreNewItems, ScoreScale, Shape, TrainData, UserRow, check_index, check_items,
    check_len, check_score_args,
};

/// Most rating classes accepted: ratings are categories, not a continuum.
pub const MAX_CLASSES: usize = 64;

/// What [`NaiveBayes`] returns as its ranking score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NaiveBayesScore {
    /// `P(r ≥ t | item)`: the probability of a rating at or above `t` (the "rated 4 or
    /// higher" relevance of schein2005 §6.3 with `t = 4`).
    AtLeast(f32),
    /// `E[r | item] = Σ_r r · P(r | item)`, the expected rating.
    Expected,
    /// The rating of largest posterior, `argmax_r P(r | item)`: the classifier's guess of
    /// the rating (schein2005 eq. 10). Among ratings equally probable, the highest (ours:
    /// the paper names no rule).
    MostProbable,
}

/// How attributes of a scored item that the user never met in training count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnseenAttributes {
    /// They count like any attribute with a zero count: Laplace smoothing gives them
    /// `P(a | r) = 1 / (T_r + |V|)` (the multinomial model of the text classifier).
    #[default]
    Smoothed,
    /// They are left out of the product, as out-of-vocabulary words often are in text
    /// classification: only attributes of the user's own training items count.
    Ignored,
}

/// Parameters of [`NaiveBayes`].
#[derive(Debug, Clone, PartialEq, Setters)]
pub struct NaiveBayesParams {
    /// The ranking score.
    score: NaiveBayesScore,
    /// How unseen attributes count.
    #[setters(rename = "unseen_attributes")]
    unseen: UnseenAttributes,
    /// The rating classes, e.g. `[1, 2, 3, 4, 5]`; every training rating must be one of
    /// them. Give the full scale when some value may be missing from the training data.
    #[setters(strip_option)]
    classes: Option<Vec<f32>>,
}

impl Default for NaiveBayesParams {
    fn default() -> Self {
        Self::new()
    }
}

impl NaiveBayesParams {
    /// Defaults: score `P(r ≥ 4)` (schein2005 §6.3), unseen attributes smoothed (the
    /// multinomial text classifier the paper applies, §4.3), classes = the distinct
    /// rating values of the training data (ours).
    pub fn new() -> Self {
        NaiveBayesParams {
            score: NaiveBayesScore::AtLeast(4.0),
            unseen: UnseenAttributes::Smoothed,
            classes: None,
        }
    }
}

impl CheckParams for NaiveBayesParams {
    type Valid = NaiveBayesValidParams;

    /// # Errors
    /// [`RecsError::InvalidParameter`] for a non-finite threshold, or classes that are
    /// empty, more than [`MAX_CLASSES`], not finite, or repeated.
    fn check(&self) -> Result<NaiveBayesValidParams> {
        if let NaiveBayesScore::AtLeast(t) = self.score
            && !t.is_finite()
        {
            return Err(RecsError::invalid_parameter("threshold", t, "a finite rating"));
        }
        let classes = match &self.classes {
            None => None,
            Some(given) => Some(check_classes(given.clone(), "classes")?),
        };
        Ok(NaiveBayesValidParams { score: self.score, unseen: self.unseen, classes })
    }
}

fn check_classes(mut classes: Vec<f32>, name: &str) -> Result<Vec<f32>> {
    let text = format!("{classes:?}");
    if classes.is_empty() || classes.len() > MAX_CLASSES || classes.iter().any(|c| !c.is_finite()) {
        return Err(RecsError::invalid_parameter(
            name,
            text,
            format!("1 to {MAX_CLASSES} distinct finite rating values"),
        ));
    }
    classes.sort_by(f32::total_cmp);
    if classes.windows(2).any(|w| w[0] == w[1]) {
        return Err(RecsError::invalid_parameter(name, text, "distinct rating values"));
    }
    Ok(classes)
}

/// Validated parameters of [`NaiveBayes`].
#[derive(Debug, Clone, PartialEq)]
pub struct NaiveBayesValidParams {
    score: NaiveBayesScore,
    unseen: UnseenAttributes,
    classes: Option<Vec<f32>>,
}

impl Fit for NaiveBayesValidParams {
    type Model = NaiveBayes;

    /// # Errors
    /// [`RecsError::Empty`] without events, [`RecsError::Unsupported`] without attributes,
    /// [`RecsError::InvalidValue`] for a negative attribute weight or a rating outside
    /// the classes, [`RecsError::InvalidParameter`] when the training data has more than
    /// [`MAX_CLASSES`] distinct ratings and no classes were given.
    fn fit(&self, data: &TrainData<'_>) -> Result<NaiveBayes> {
        let interactions = data.interactions.require_events()?;
        let attributes = data.require_attributes("naive Bayes")?;
        check_weights(attributes, 0..attributes.n_items() as u32)?;
        let classes = match &self.classes {
            Some(classes) => classes.clone(),
            None => {
                let mut values: Vec<f32> = interactions.csr().data().to_vec();
                values.sort_by(f32::total_cmp);
                values.dedup();
                check_classes(values, "classes (distinct training ratings)")?
            }
        };
        let mut model = NaiveBayes {
            classes,
            score: self.score,
            unseen: self.unseen,
            attributes: attributes.clone(),
            users: Vec::new(),
        };
        model.users = (0..interactions.n_users() as u32)
            .into_par_iter()
            .map(|u| model.user_stats(interactions.user_row(u)))
            .collect::<Result<_>>()?;
        Ok(model)
    }
}

fn check_weights(attributes: &ItemAttributes, rows: impl Iterator<Item = u32>) -> Result<()> {
    for row in rows {
        if let Some(&w) = attributes.item_weights(row).iter().find(|&&w| w < 0.0) {
            return Err(RecsError::InvalidValue {
                what: "attribute weight",
                value: f64::from(w),
                expected: "a count >= 0 (naive Bayes counts attributes)",
            });
        }
    }
    Ok(())
}

/// One user's classifier, in the log domain.
#[derive(Debug, Clone)]
struct UserStats {
    /// `ln P(r) = ln((N_r + 1) / (N + C))`, per class.
    log_prior: Vec<f64>,
    /// `ln(T_r + |V|)`, the log of the smoothed denominator of `P(a | r)`, per class.
    log_denominator: Vec<f64>,
    /// Attributes of the user's training items, increasing.
    attributes: Vec<u32>,
    /// `ln(n(a, r) + 1)`, row-major: `attributes.len()` rows × C classes.
    log_counts: Vec<f64>,
}

/// Per-user naive Bayes rating classifier on item attributes (schein2005 §4.3, the
/// bag-of-words classifier of Mooney & Roy applied to person/actor data, following
/// Melville et al.). No collaborative information: each user's classifier sees only that
/// user's ratings, so it can score items unseen in training from their attributes.
///
/// For user `u` with ratings in classes `r ∈ R` (`C = |R|`; by default the distinct rating
/// values of the training data), `N` ratings of which `N_r` in class `r`, `n(a, r)` the
/// summed weight of attribute `a` over the items `u` rated `r`, `T_r = Σ_a n(a, r)` and
/// `V` the vocabulary, with Laplace smoothing:
///
/// ```text
/// P(r)     = (N_r + 1) / (N + C)
/// P(a | r) = (n(a, r) + 1) / (T_r + |V|)
/// ln P(r | m) = ln P(r) + Σ_{a ∈ m} w_a ln P(a | r) − ln Z      (eq. 10, log domain)
/// ```
///
/// normalised over classes with log-sum-exp (`Z` is `P(M)` of eq. 10).
///
/// **Vocabulary.** `V` is the global vocabulary: every attribute of the attribute matrix
/// the model is fitted with, not only the user's. **Unseen attributes** (an attribute of
/// the scored item that none of the user's rated items has): with
/// [`UnseenAttributes::Smoothed`] (default) they count with `n(a, r) = 0`, i.e.
/// `P(a | r) = 1/(T_r + |V|)`, which still differs between classes through `T_r`; with
/// [`UnseenAttributes::Ignored`] they are left out of the sum.
///
/// A user without ratings gets uniform posteriors: `P(r ≥ 4) = 2/5` on the 1–5 scale.
/// Scores are probabilities (or expected ratings), comparable across users.
///
/// Capabilities: [`PredictRating`] (`E[r | m]`, whatever the ranking score),
/// [`ScoreNewItems`] (from the new items' attributes, over the same vocabulary) and
/// [`FoldInUser`] (a classifier trained on the history alone).
#[derive(Debug, Clone)]
pub struct NaiveBayes {
    classes: Vec<f32>,
    score: NaiveBayesScore,
    unseen: UnseenAttributes,
    attributes: ItemAttributes,
    users: Vec<UserStats>,
}

impl NaiveBayes {
    /// The rating classes, increasing.
    pub fn classes(&self) -> &[f32] {
        &self.classes
    }

    /// Writes into `out` the posterior `P(r | item)` of each class for `user` and a
    /// training item.
    ///
    /// # Errors
    /// A user or item out of range, or `out.len()` different from the number of classes.
    pub fn posterior(&self, user: u32, item: u32, out: &mut [f64]) -> Result<()> {
        check_index("user", user as usize, self.users.len())?;
        check_index("item", item as usize, self.attributes.n_items())?;
        check_len("posterior buffer", self.classes.len(), out.len())?;
        self.posterior_into(&self.users[user as usize], &self.attributes, item, out);
        Ok(())
    }

    fn user_stats(&self, row: UserRow<'_>) -> Result<UserStats> {
        let n_classes = self.classes.len();
        let mut class_counts = vec![0usize; n_classes];
        let mut totals = vec![0.0f64; n_classes];
        // (attribute, class, weight) in a deterministic order; a stable sort keeps it.
        let mut triples: Vec<(u32, usize, f32)> = Vec::new();
        for (&item, &value) in row.items.iter().zip(row.values) {
            let class = self.classes.binary_search_by(|c| c.total_cmp(&value)).map_err(|_| {
                RecsError::InvalidValue {
                    what: "rating",
                    value: f64::from(value),
                    expected: "one of the naive Bayes rating classes",
                }
            })?;
            class_counts[class] += 1;
            let attrs = self.attributes.item_attributes(item);
            let weights = self.attributes.item_weights(item);
            for (&a, &w) in attrs.iter().zip(weights) {
                triples.push((a, class, w));
                totals[class] += f64::from(w);
            }
        }
        triples.sort_by_key(|&(a, class, _)| (a, class));
        let mut attributes = Vec::new();
        let mut counts: Vec<f64> = Vec::new();
        for (a, class, w) in triples {
            if attributes.last() != Some(&a) {
                attributes.push(a);
                counts.extend(std::iter::repeat_n(0.0, n_classes));
            }
            let base = counts.len() - n_classes;
            counts[base + class] += f64::from(w);
        }
        let n = row.len() as f64;
        let vocabulary = self.attributes.n_attributes() as f64;
        Ok(UserStats {
            log_prior: class_counts
                .iter()
                .map(|&c| ((c as f64 + 1.0) / (n + n_classes as f64)).ln())
                .collect(),
            log_denominator: totals.iter().map(|t| (t + vocabulary).ln()).collect(),
            attributes,
            log_counts: counts.into_iter().map(|c| (c + 1.0).ln()).collect(),
        })
    }

    /// The class posterior of attribute row `row` of `attributes` for `stats`.
    fn posterior_into(
        &self,
        stats: &UserStats,
        attributes: &ItemAttributes,
        row: u32,
        out: &mut [f64],
    ) {
        let n_classes = self.classes.len();
        out.copy_from_slice(&stats.log_prior);
        let mut counted_weight = 0.0f64;
        for (&a, &w) in attributes.item_attributes(row).iter().zip(attributes.item_weights(row)) {
            let w = f64::from(w);
            match stats.attributes.binary_search(&a) {
                Ok(k) => {
                    counted_weight += w;
                    let counts = &stats.log_counts[k * n_classes..(k + 1) * n_classes];
                    for (o, c) in out.iter_mut().zip(counts) {
                        *o += w * c;
                    }
                }
                Err(_) if self.unseen == UnseenAttributes::Smoothed => counted_weight += w,
                Err(_) => {}
            }
        }
        if counted_weight > 0.0 {
            for (o, d) in out.iter_mut().zip(&stats.log_denominator) {
                *o -= counted_weight * d;
            }
        }
        let max = out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for o in out.iter_mut() {
            *o = (*o - max).exp();
            total += *o;
        }
        for o in out.iter_mut() {
            *o /= total;
        }
    }

    fn summarise(&self, posterior: &[f64], score: NaiveBayesScore) -> f32 {
        let value: f64 = match score {
            NaiveBayesScore::AtLeast(t) => {
                self.classes.iter().zip(posterior).filter(|(c, _)| **c >= t).map(|(_, p)| p).sum()
            }
            NaiveBayesScore::Expected => {
                self.classes.iter().zip(posterior).map(|(c, p)| f64::from(*c) * p).sum()
            }
            NaiveBayesScore::MostProbable => {
                let mut best = (f64::NEG_INFINITY, f32::NEG_INFINITY);
                for (&c, &p) in self.classes.iter().zip(posterior) {
                    if p > best.0 || (p == best.0 && c > best.1) {
                        best = (p, c);
                    }
                }
                f64::from(best.1)
            }
        };
        value as f32
    }

    fn fill(
        &self,
        stats: &UserStats,
        attributes: &ItemAttributes,
        rows: &[u32],
        score: NaiveBayesScore,
        out: &mut [f32],
    ) {
        let mut posterior = vec![0.0f64; self.classes.len()];
        for (o, &row) in out.iter_mut().zip(rows) {
            self.posterior_into(stats, attributes, row, &mut posterior);
            *o = self.summarise(&posterior, score);
        }
    }
}

impl Recommender for NaiveBayes {
    fn shape(&self) -> Shape {
        Shape::new(self.users.len(), self.attributes.n_items())
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        self.fill(&self.users[user as usize], &self.attributes, items, self.score, out);
        Ok(())
    }

    /// `P(r ≥ t | item)` is a probability; the expected and the most probable rating are not.
    fn score_scale(&self) -> ScoreScale {
        match self.score {
            NaiveBayesScore::AtLeast(_) => ScoreScale::Probability,
            NaiveBayesScore::Expected | NaiveBayesScore::MostProbable => ScoreScale::Unstated,
        }
    }

    recs_core::capabilities!(rating, new_items, fold_in);
}

impl PredictRating for NaiveBayes {
    fn predict(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        let stats = &self.users[user as usize];
        self.fill(stats, &self.attributes, items, NaiveBayesScore::Expected, out);
        Ok(())
    }
}

impl ScoreNewItems for NaiveBayes {
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()> {
        items.check_args(self.users.len(), user, out)?;
        items.check_vocabulary(self.attributes.n_attributes())?;
        let (attributes, rows) = (items.attributes(), items.rows());
        check_weights(attributes, rows.iter().copied())?;
        self.fill(&self.users[user as usize], attributes, rows, self.score, out);
        Ok(())
    }
}

impl FoldInUser for NaiveBayes {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items(), items, out)?;
        if let Some(&item) = history.items.iter().find(|&&i| i as usize >= self.n_items()) {
            return Err(RecsError::IndexOutOfRange {
                what: "history item",
                index: item as usize,
                len: self.n_items(),
            });
        }
        let stats = self.user_stats(history)?;
        self.fill(&stats, &self.attributes, items, self.score, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};

    /// Items 0..4 with attributes: 0 {x}, 1 {x, y}, 2 {y}, 3 {z}. Ratings on 1..5:
    /// user 0 rated 0 → 5, 1 → 4, 2 → 1; user 1 rated 3 → 2, 0 → 1; user 2 rated 1 → 3;
    /// user 3 rated nothing.
    fn data() -> (Interactions, ItemAttributes) {
        let events = [
            Event::new(0, 0, 5.0),
            Event::new(0, 1, 4.0),
            Event::new(0, 2, 1.0),
            Event::new(1, 3, 2.0),
            Event::new(1, 0, 1.0),
            Event::new(2, 1, 3.0),
        ];
        let m = Interactions::from_events(4, 4, events, DuplicatePolicy::Error).unwrap();
        let vocabulary = IdMap::from_ids_sorted(["x", "y", "z"]).unwrap();
        let pairs = [(0, 0, 1.0), (1, 0, 1.0), (1, 1, 1.0), (2, 1, 1.0), (3, 2, 1.0)];
        (m, ItemAttributes::from_pairs(4, vocabulary, pairs).unwrap())
    }

    fn fit(params: NaiveBayesParams) -> NaiveBayes {
        let (m, a) = data();
        params.fit(&TrainData::new(&m, 0).with_attributes(&a).unwrap()).unwrap()
    }

    #[test]
    fn a_user_without_ratings_gets_two_fifths() {
        let model = fit(NaiveBayesParams::new());
        assert_eq!(model.classes(), [1.0, 2.0, 3.0, 4.0, 5.0]);
        let mut out = [0.0f32; 4];
        model.score(3, &[0, 1, 2, 3], &mut out).unwrap();
        for s in out {
            assert!((s - 0.4).abs() < 1e-6, "{out:?}");
        }
        let mut posterior = [0.0; 5];
        model.posterior(3, 1, &mut posterior).unwrap();
        assert!(posterior.iter().all(|p| (p - 0.2).abs() < 1e-12));
        // The expected rating of an uninformed user is the middle of the scale.
        model.predict(3, &[0], &mut out[..1]).unwrap();
        assert!((out[0] - 3.0).abs() < 1e-6);
    }

    #[test]
    fn posterior_matches_a_hand_computation() {
        let model = fit(NaiveBayesParams::new());
        // User 0: N = 3, C = 5, |V| = 3. Classes 1, 4, 5 have one rating each.
        // Class 5 (item 0 {x}): T = 1; class 4 (item 1 {x, y}): T = 2; class 1 (item 2 {y}): T = 1.
        // Item 3 {z}: z unseen, smoothed: P(z | r) = 1 / (T_r + 3).
        let prior = |n: f64| (n + 1.0) / 8.0;
        let unnormalised = [
            prior(1.0) / 4.0, // r = 1: T = 1
            prior(0.0) / 3.0, // r = 2: T = 0
            prior(0.0) / 3.0, // r = 3
            prior(1.0) / 5.0, // r = 4: T = 2
            prior(1.0) / 4.0, // r = 5: T = 1
        ];
        let z: f64 = unnormalised.iter().sum();
        let mut posterior = [0.0; 5];
        model.posterior(0, 3, &mut posterior).unwrap();
        for (p, u) in posterior.iter().zip(unnormalised) {
            assert!((p - u / z).abs() < 1e-12, "{posterior:?}");
        }
        // Item 1 {x, y}: P(x|r) P(y|r) with n(x,5) = 1, n(x,4) = 1, n(y,4) = 1, n(y,1) = 1.
        let unnormalised = [
            prior(1.0) * (1.0 / 4.0) * (2.0 / 4.0),
            prior(0.0) * (1.0 / 3.0) * (1.0 / 3.0),
            prior(0.0) * (1.0 / 3.0) * (1.0 / 3.0),
            prior(1.0) * (2.0 / 5.0) * (2.0 / 5.0),
            prior(1.0) * (2.0 / 4.0) * (1.0 / 4.0),
        ];
        let z: f64 = unnormalised.iter().sum();
        model.posterior(0, 1, &mut posterior).unwrap();
        for (p, u) in posterior.iter().zip(unnormalised) {
            assert!((p - u / z).abs() < 1e-12, "{posterior:?}");
        }
        let mut out = [0.0f32];
        model.score(0, &[1], &mut out).unwrap();
        let want = (unnormalised[3] + unnormalised[4]) / z;
        assert!((f64::from(out[0]) - want).abs() < 1e-6);
    }

    /// The posteriors of `posterior_matches_a_hand_computation` by hand: item 0 {x} peaks
    /// at 5, item 1 {x, y} at 4, item 2 {y} at 1; item 3 {z} ties 1 and 5 (2/8 · 1/4 each)
    /// and takes the higher.
    #[test]
    fn most_probable_rating_is_the_posterior_mode() {
        let model = fit(NaiveBayesParams::new().score(NaiveBayesScore::MostProbable));
        let mut out = [0.0f32; 4];
        model.score(0, &[0, 1, 2, 3], &mut out).unwrap();
        assert_eq!(out, [5.0, 4.0, 1.0, 5.0]);
        assert_eq!(model.score_scale(), ScoreScale::Unstated);
    }

    #[test]
    fn ignoring_unseen_attributes_leaves_the_prior() {
        let model = fit(NaiveBayesParams::new().unseen_attributes(UnseenAttributes::Ignored));
        // Item 3 has only z, unseen by user 0: the posterior is the prior.
        let mut posterior = [0.0; 5];
        model.posterior(0, 3, &mut posterior).unwrap();
        let want = [2.0 / 8.0, 1.0 / 8.0, 1.0 / 8.0, 2.0 / 8.0, 2.0 / 8.0];
        for (p, w) in posterior.iter().zip(want) {
            assert!((p - w).abs() < 1e-12);
        }
    }

    #[test]
    fn fold_in_of_a_training_history_reproduces_the_user() {
        let (m, _) = data();
        let model = fit(NaiveBayesParams::new().score(NaiveBayesScore::Expected));
        let items = [0, 1, 2, 3];
        let (mut a, mut b) = ([0.0f32; 4], [0.0f32; 4]);
        model.score(0, &items, &mut a).unwrap();
        model.score_history(m.user_row(0), &items, &mut b).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn new_items_are_scored_from_their_attributes() {
        let model = fit(NaiveBayesParams::new());
        // A new item with attribute x only is scored like training item 0 {x}.
        let vocabulary = IdMap::from_ids_sorted(["x", "y", "z"]).unwrap();
        let new = ItemAttributes::from_pairs(1, vocabulary, [(0, 0, 1.0)]).unwrap();
        let (mut a, mut b) = ([0.0f32], [0.0f32]);
        model.score_new_items(0, NewItems::new(&new, &[0]).unwrap(), &mut a).unwrap();
        model.score(0, &[0], &mut b).unwrap();
        assert_eq!(a, b);
        let other =
            ItemAttributes::from_pairs(1, IdMap::from_ids_sorted(["x"]).unwrap(), []).unwrap();
        assert!(model.score_new_items(0, NewItems::new(&other, &[0]).unwrap(), &mut a).is_err());
    }

    #[test]
    fn bad_parameters_and_data_are_errors() {
        assert!(NaiveBayesParams::new().score(NaiveBayesScore::AtLeast(f32::NAN)).check().is_err());
        assert!(NaiveBayesParams::new().classes(vec![]).check().is_err());
        assert!(NaiveBayesParams::new().classes(vec![1.0, 1.0]).check().is_err());
        let (m, a) = data();
        let data = TrainData::new(&m, 0).with_attributes(&a).unwrap();
        // A rating (5) outside the given classes.
        assert!(NaiveBayesParams::new().classes(vec![1.0, 2.0, 3.0, 4.0]).fit(&data).is_err());
        // No attributes.
        assert!(NaiveBayesParams::new().fit(&TrainData::new(&m, 0)).is_err());
    }
}
