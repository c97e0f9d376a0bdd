//! Hyper-parameters: the unchecked builder [`KnnParams`], its validated form
//! [`KnnValidParams`], and the two fittable wrappers [`UserKnnParams`], [`ItemKnnParams`].

use std::fmt;
use std::str::FromStr;

use derive_setters::Setters;
use recs_core::ParamValues;

use crate::error::{KnnError, Result};

/// The similarity measure between two vectors (two users' rows, or two items' columns).
///
/// Notation: `a`, `b` are the two vectors over the `D` dimensions (items for user-kNN,
/// users for item-kNN), missing entries read as 0; `C` is the set of dimensions both
/// vectors have an entry in (co-rated), `|A|`, `|B|` the numbers of entries of each.
/// Whatever the measure, two vectors without a common dimension are never neighbours (see
/// the crate documentation); a measure that is undefined for a pair leaves the pair
/// without similarity, which is not the same as a similarity of 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Similarity {
    /// Cosine of the full vectors (ignatov2010 §3, "very close to Pearson"):
    /// `a·b / (‖a‖ ‖b‖)`. Undefined when a vector has norm 0.
    #[default]
    Cosine,
    /// Adjusted cosine (Sarwar et al. 2001 §3.1.3): every entry is first centred by the
    /// mean of its dimension (for item-kNN, the user's mean rating; for user-kNN, the
    /// item's mean rating), then `Σ_C a'b' / (√Σ_C a'² √Σ_C b'²)` over co-rated entries.
    /// Undefined when a centred co-rated vector is all zero — so on binary (implicit) data,
    /// where every entry equals its dimension's mean, it is undefined for every pair and
    /// the models score everything 0.
    AdjustedCosine,
    /// Pearson correlation over co-rated entries (ignatov2010 §3, trimmed to `C`):
    /// `Σ_C (a−ā)(b−b̄) / (√Σ_C (a−ā)² √Σ_C (b−b̄)²)`, means over `C`.
    ///
    /// **Constant vectors.** ignatov2010 §3 shows the trimmed correlation is undefined for
    /// `a = (0,5,5,4)`, `b = (0,4,5,0)` (trimmed to `(5,5)` and `(4,5)`) and argues that
    /// replacing it by 0 is wrong, since such users are intuitively similar. Our choice:
    /// when the trimmed correlation is undefined (fewer than 2 co-rated entries, or a
    /// constant trimmed vector) we use the correlation of the *untrimmed* vectors, missing
    /// entries read as 0 (for the example: 13.5 / √(17 · 20.75) ≈ 0.719). On binary data
    /// every trimmed vector is constant, so this is then the phi coefficient of the two
    /// presence vectors. If the untrimmed correlation is undefined too (a vector constant
    /// over all `D` dimensions), the pair has no similarity. `D` is every item when users
    /// are compared, and the users with a training event when items are: a user without
    /// one (a test user of a strong-generalization split) is not read as a row of zeros.
    Pearson,
    /// Jaccard coefficient of the sets of entries: `|A ∩ B| / |A ∪ B|` (values ignored).
    Jaccard,
    /// Extended Tanimoto coefficient of the full real vectors:
    /// `a·b / (‖a‖² + ‖b‖² − a·b)`; equals Jaccard on binary data. Undefined when both
    /// vectors are zero.
    Tanimoto,
    /// `1 / (1 + d)` with `d` the Euclidean distance of the full vectors, missing entries
    /// read as 0 (ignatov2010 §3).
    Euclidean,
    /// `1 / (1 + d)` with `d` the Hamming distance of the binary presence vectors,
    /// `d = |A| + |B| − 2|A ∩ B|` (ignatov2010 §3).
    Hamming,
    /// Conditional probability with popularity damping (Deshpande & Karypis 2004 §3.1.2),
    /// asymmetric: the similarity of neighbour `b` for row `a` is
    /// `|A ∩ B| / (|B| · |A|^α) = P(a | b) / |A|^α`. For item-kNN, `a` is the candidate item
    /// and `b` an item of the user's history, which is the paper's `sim(b, a)`.
    Conditional,
}

impl Similarity {
    /// Every measure, in the order of [`Similarity::NAMES`].
    pub const ALL: [Similarity; 8] = [
        Similarity::Cosine,
        Similarity::AdjustedCosine,
        Similarity::Pearson,
        Similarity::Jaccard,
        Similarity::Tanimoto,
        Similarity::Euclidean,
        Similarity::Hamming,
        Similarity::Conditional,
    ];

    /// The names accepted by [`Similarity::from_str`], as written on the command line.
    pub const NAMES: [&'static str; 8] = [
        "cosine",
        "adjusted-cosine",
        "pearson",
        "jaccard",
        "tanimoto",
        "euclidean",
        "hamming",
        "conditional",
    ];

    /// The command-line name of this measure.
    pub fn name(self) -> &'static str {
        let index = Similarity::ALL.iter().position(|&s| s == self).unwrap_or(0);
        Similarity::NAMES[index]
    }
}

impl fmt::Display for Similarity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Similarity {
    type Err = KnnError;

    fn from_str(text: &str) -> Result<Self> {
        Similarity::NAMES
            .iter()
            .position(|&name| name == text)
            .map(|index| Similarity::ALL[index])
            .ok_or_else(|| KnnError::UnknownSimilarity { name: text.to_string() })
    }
}

/// What to do with further neighbours whose similarity equals that of the `k`-th.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ties {
    /// Keep every neighbour tied with the `k`-th (ignatov2010 §2): the neighbourhood may
    /// hold more than `k` members, and never depends on how ties are ordered.
    #[default]
    Extend,
    /// Keep exactly `k`; among tied neighbours the smaller indices win.
    Cut,
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ties::Extend => "extend",
            Ties::Cut => "cut",
        })
    }
}

impl FromStr for Ties {
    type Err = KnnError;

    fn from_str(text: &str) -> Result<Self> {
        match text {
            "extend" => Ok(Ties::Extend),
            "cut" => Ok(Ties::Cut),
            _ => Err(KnnError::UnknownTies { name: text.to_string() }),
        }
    }
}

/// Whose neighbourhoods item-kNN sums over when it scores a candidate `j` for a user
/// with history `I_u`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Neighbourhood {
    /// The neighbourhoods of the user's items: `j` collects `s(i, j) r_ui` from every
    /// history item `i` that has `j` among its `k` nearest, ignatov2010 §2's
    /// `N(i|u₀) = {j | j ∉ u₀ᴵ, i ∈ u₀ᴵ, j ∈ N(i)}` (Deshpande & Karypis 2004).
    History,
    /// The candidate's own neighbourhood: `j` collects `s(j, i) r_ui` from the history
    /// items among its `k` nearest (the prediction form of Sarwar et al. 2001).
    #[default]
    Candidate,
    /// ignatov2010 §2's formulas read literally: the candidates are the items of the
    /// neighbourhoods of the user's items (`N(i|u₀)`, as [`Neighbourhood::History`]), and
    /// each collects `s(i, j) r_ui` from *every* history item `i` whose similarity with `j`
    /// the model admits (the prediction formula sums over all of `u₀ᴵ`), not only from
    /// those having `j` among their `k` nearest. Items outside every history
    /// neighbourhood get no evidence.
    HistoryAll,
}

impl fmt::Display for Neighbourhood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Neighbourhood::History => "history",
            Neighbourhood::Candidate => "candidate",
            Neighbourhood::HistoryAll => "history-all",
        })
    }
}

impl FromStr for Neighbourhood {
    type Err = KnnError;

    fn from_str(text: &str) -> Result<Self> {
        match text {
            "history" => Ok(Neighbourhood::History),
            "candidate" => Ok(Neighbourhood::Candidate),
            "history-all" => Ok(Neighbourhood::HistoryAll),
            _ => Err(KnnError::UnknownNeighbourhood { name: text.to_string() }),
        }
    }
}

/// Unchecked hyper-parameters of user- and item-kNN; [`KnnParams::check`] validates them.
///
/// ```
/// use recs_models_knn::{KnnParams, Similarity, Ties};
/// let params = KnnParams::new().k(30).similarity(Similarity::Pearson).ties(Ties::Cut);
/// assert_eq!(params.check()?.k(), 30);
/// assert!(KnnParams::new().k(0).check().is_err());
/// # Ok::<(), recs_models_knn::KnnError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Setters)]
pub struct KnnParams {
    /// Neighbourhood size (before tie extension); at least 1.
    k: usize,
    /// The similarity measure.
    similarity: Similarity,
    /// The tie policy at the `k`-th neighbour.
    ties: Ties,
    /// Neighbours less similar than this are dropped before the top-k selection; `None`
    /// keeps all.
    min_similarity: Option<f64>,
    /// Pairs sharing fewer than this many dimensions (co-rated items for user-kNN,
    /// common users for item-kNN) are never neighbours; at least 1. Correlations computed
    /// on two or three co-rated values are ±1 by accident, and such pairs crowd the top of
    /// tie-extended neighbourhoods: a support threshold (Herlocker et al. 1999 devalue
    /// them instead) keeps them out.
    min_support: usize,
    /// Keep only neighbours with a similarity strictly above 0.
    positive_only: bool,
    /// Popularity exponent α of [`Similarity::Conditional`], in `[0, 1]`.
    alpha: f64,
    /// Item-kNN only: whose neighbourhoods a candidate's score sums over.
    neighbourhood: Neighbourhood,
}

impl Default for KnnParams {
    fn default() -> Self {
        KnnParams::new()
    }
}

impl KnnParams {
    /// The defaults:
    /// - `k = 20` (ours; ignatov2010 §5 uses 10 on MovieLens, LensKit defaults to 20);
    /// - `similarity = cosine` (ours);
    /// - `ties = extend` (ignatov2010 §2);
    /// - `min_similarity = None` (no threshold);
    /// - `min_support = 1` (every co-occurring pair may be a neighbour; 0 admits the pairs
    ///   without a co-rated dimension too, ignatov2010 §2's top k over every user);
    /// - `positive_only = true` (ours: a negatively correlated neighbour is not evidence
    ///   for recommending what it liked);
    /// - `alpha = 0.5` (ours, inside the range Deshpande & Karypis 2004 §5 explore);
    /// - `neighbourhood = candidate` (item-kNN; kept as the default the runner's
    ///   configurations were written with; ignatov2010 §2 is `history`).
    pub fn new() -> Self {
        KnnParams {
            k: 20,
            similarity: Similarity::Cosine,
            ties: Ties::Extend,
            min_similarity: None,
            min_support: 1,
            positive_only: true,
            alpha: 0.5,
            neighbourhood: Neighbourhood::Candidate,
        }
    }

    /// Reads the parameters named in [`PARAMS`](crate::PARAMS) from text values; absent
    /// ones keep their defaults. Does not validate: call [`KnnParams::check`].
    ///
    /// # Errors
    /// A value that does not parse ([`KnnError::Core`], [`KnnError::UnknownSimilarity`],
    /// [`KnnError::UnknownTies`]).
    pub fn from_values(values: &ParamValues) -> Result<Self> {
        let defaults = KnnParams::new();
        let similarity = match values.raw("similarity") {
            Some(text) => text.parse()?,
            None => defaults.similarity,
        };
        let ties = match values.raw("ties") {
            Some(text) => text.parse()?,
            None => defaults.ties,
        };
        let neighbourhood = match values.raw("neighbourhood") {
            Some(text) => text.parse()?,
            None => defaults.neighbourhood,
        };
        let min_similarity = match values.raw("min-similarity") {
            None | Some("none") => None,
            Some(_) => Some(values.get_or("min-similarity", 0.0f64)?),
        };
        Ok(KnnParams {
            k: values.get_or("k", defaults.k)?,
            similarity,
            ties,
            min_similarity,
            min_support: values.get_or("min-support", defaults.min_support)?,
            positive_only: values.get_or("positive-only", defaults.positive_only)?,
            alpha: values.get_or("alpha", defaults.alpha)?,
            neighbourhood,
        })
    }

    /// Validates every parameter.
    ///
    /// # Errors
    /// [`KnnError::InvalidK`] for `k = 0`, [`KnnError::InvalidAlpha`] for α outside
    /// `[0, 1]` or NaN,
    /// [`KnnError::InvalidMinSimilarity`] for a non-finite threshold.
    pub fn check(&self) -> Result<KnnValidParams> {
        if self.k == 0 {
            return Err(KnnError::InvalidK { k: self.k });
        }
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(KnnError::InvalidAlpha { alpha: self.alpha });
        }
        if let Some(value) = self.min_similarity.filter(|m| !m.is_finite()) {
            return Err(KnnError::InvalidMinSimilarity { value });
        }
        Ok(KnnValidParams { inner: *self })
    }
}

/// Validated hyper-parameters: the only form that [`UserKnnParams`] and
/// [`ItemKnnParams`] accept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnnValidParams {
    inner: KnnParams,
}

impl KnnValidParams {
    /// Neighbourhood size before tie extension.
    pub fn k(&self) -> usize {
        self.inner.k
    }

    /// The similarity measure.
    pub fn similarity(&self) -> Similarity {
        self.inner.similarity
    }

    /// The tie policy.
    pub fn ties(&self) -> Ties {
        self.inner.ties
    }

    /// The similarity threshold, if any.
    pub fn min_similarity(&self) -> Option<f64> {
        self.inner.min_similarity
    }

    /// The minimum number of shared dimensions of a neighbour.
    pub fn min_support(&self) -> usize {
        self.inner.min_support
    }

    /// Whether only strictly positive similarities are kept.
    pub fn positive_only(&self) -> bool {
        self.inner.positive_only
    }

    /// The popularity exponent of [`Similarity::Conditional`].
    pub fn alpha(&self) -> f64 {
        self.inner.alpha
    }

    /// Whose neighbourhoods item-kNN sums over.
    pub fn neighbourhood(&self) -> Neighbourhood {
        self.inner.neighbourhood
    }

    /// True when a neighbour with similarity `s` passes the threshold and sign filters.
    pub(crate) fn admits(&self, s: f32) -> bool {
        (!self.inner.positive_only || s > 0.0)
            && self.inner.min_similarity.is_none_or(|m| f64::from(s) >= m)
    }
}

/// User-based kNN, ready to fit (ignatov2010 §2, "User-Based Recommendations").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UserKnnParams(pub(crate) KnnValidParams);

/// Item-based kNN, ready to fit (ignatov2010 §2, "Item-based recommendations").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemKnnParams(pub(crate) KnnValidParams);

impl UserKnnParams {
    /// Validates `params` for user-based kNN.
    ///
    /// # Errors
    /// As [`KnnParams::check`].
    pub fn new(params: KnnParams) -> Result<Self> {
        Ok(UserKnnParams(params.check()?))
    }

    /// The validated parameters.
    pub fn params(&self) -> &KnnValidParams {
        &self.0
    }
}

impl ItemKnnParams {
    /// Validates `params` for item-based kNN.
    ///
    /// # Errors
    /// As [`KnnParams::check`].
    pub fn new(params: KnnParams) -> Result<Self> {
        Ok(ItemKnnParams(params.check()?))
    }

    /// The validated parameters.
    pub fn params(&self) -> &KnnValidParams {
        &self.0
    }
}

impl From<KnnValidParams> for UserKnnParams {
    fn from(params: KnnValidParams) -> Self {
        UserKnnParams(params)
    }
}

impl From<KnnValidParams> for ItemKnnParams {
    fn from(params: KnnValidParams) -> Self {
        ItemKnnParams(params)
    }
}

/// A value other than the default for every parameter the models read, in catalog order.
#[cfg(test)]
pub(crate) const EVERY_PARAMETER: [&str; 8] = [
    "k=7",
    "similarity=adjusted-cosine",
    "ties=cut",
    "min-similarity=0.25",
    "min-support=4",
    "positive-only=false",
    "alpha=0.3",
    "neighbourhood=history",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for similarity in Similarity::ALL {
            assert_eq!(similarity.name().parse::<Similarity>().unwrap(), similarity);
            assert_eq!(similarity.to_string(), similarity.name());
        }
        assert_eq!("cut".parse::<Ties>().unwrap(), Ties::Cut);
        assert_eq!(Ties::Extend.to_string().parse::<Ties>().unwrap(), Ties::Extend);
    }

    #[test]
    fn zero_k_is_rejected() {
        assert!(matches!(KnnParams::new().k(0).check(), Err(KnnError::InvalidK { k: 0 })));
        assert!(KnnParams::new().k(1).check().is_ok());
    }

    #[test]
    fn zero_min_support_admits_every_pair() {
        assert_eq!(KnnParams::new().min_support(0).check().unwrap().min_support(), 0);
        assert_eq!(KnnParams::new().min_support(3).check().unwrap().min_support(), 3);
    }

    #[test]
    fn alpha_outside_unit_interval_is_rejected() {
        for alpha in [-0.1, 1.1, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(KnnParams::new().alpha(alpha).check(), Err(KnnError::InvalidAlpha { .. })),
                "{alpha}"
            );
        }
        assert!(KnnParams::new().alpha(0.0).check().is_ok());
        assert!(KnnParams::new().alpha(1.0).check().is_ok());
    }

    #[test]
    fn non_finite_min_similarity_is_rejected() {
        let params = KnnParams::new().min_similarity(Some(f64::NAN));
        assert!(matches!(params.check(), Err(KnnError::InvalidMinSimilarity { .. })));
        assert!(KnnParams::new().min_similarity(Some(-0.5)).check().is_ok());
    }

    #[test]
    fn unknown_names_are_rejected() {
        assert!(matches!(
            "cosin".parse::<Similarity>(),
            Err(KnnError::UnknownSimilarity { name }) if name == "cosin"
        ));
        assert!(matches!("none".parse::<Ties>(), Err(KnnError::UnknownTies { .. })));
    }

    #[test]
    fn from_values_reads_every_parameter() {
        let values = ParamValues::parse(EVERY_PARAMETER).unwrap();
        let params = KnnParams::from_values(&values).unwrap().check().unwrap();
        assert_eq!(params.k(), 7);
        assert_eq!(params.similarity(), Similarity::AdjustedCosine);
        assert_eq!(params.ties(), Ties::Cut);
        assert_eq!(params.min_similarity(), Some(0.25));
        assert_eq!(params.neighbourhood(), Neighbourhood::History);
        assert_eq!(params.min_support(), 4);
        assert!(!params.positive_only());
        assert_eq!(params.alpha(), 0.3);
        let none = ParamValues::parse(["min-similarity=none"]).unwrap();
        assert_eq!(KnnParams::from_values(&none).unwrap(), KnnParams::new());
        for bad in [
            "k=x",
            "similarity=dice",
            "ties=maybe",
            "alpha=high",
            "positive-only=2",
            "min-support=-1",
        ] {
            let values = ParamValues::parse([bad]).unwrap();
            assert!(KnnParams::from_values(&values).is_err(), "{bad}");
        }
    }

    #[test]
    fn filters_admit_as_documented() {
        let params = KnnParams::new().check().unwrap();
        assert!(params.admits(0.1) && !params.admits(0.0) && !params.admits(-0.1));
        let params = KnnParams::new().positive_only(false).min_similarity(Some(-0.5));
        let params = params.check().unwrap();
        assert!(params.admits(-0.5) && !params.admits(-0.6) && params.admits(0.0));
    }
}
