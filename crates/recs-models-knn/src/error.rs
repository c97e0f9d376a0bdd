//! The error type of this crate.

use recs_core::RecsError;

/// A `Result` whose error is [`KnnError`].
pub type Result<T, E = KnnError> = std::result::Result<T, E>;

/// Everything that can go wrong when configuring or using a kNN model.
///
/// Each parameter rule has its own variant; [`KnnError::Core`] carries the errors of the
/// shared vocabulary (an index out of range, empty training data, a malformed parameter
/// text). Every variant converts into [`RecsError`], which is what the model traits return.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KnnError {
    /// The neighbourhood size `k` is zero.
    #[error("invalid neighbourhood size k = {k}: expected at least 1")]
    InvalidK {
        /// The rejected value.
        k: usize,
    },
    /// The popularity exponent `alpha` of the conditional-probability similarity is not
    /// in `[0, 1]`.
    #[error("invalid alpha {alpha}: expected a number in [0, 1]")]
    InvalidAlpha {
        /// The rejected value.
        alpha: f64,
    },
    /// The minimum similarity is not finite.
    #[error("invalid min-similarity {value}: expected a finite number or `none`")]
    InvalidMinSimilarity {
        /// The rejected value.
        value: f64,
    },
    /// A similarity name that is not one of [`Similarity::NAMES`](crate::Similarity::NAMES).
    #[error("unknown similarity `{name}`: expected one of {expected}", expected = crate::Similarity::NAMES.join(", "))]
    UnknownSimilarity {
        /// The rejected name.
        name: String,
    },
    /// A tie policy name other than `extend` or `cut`.
    #[error("unknown ties policy `{name}`: expected `extend` or `cut`")]
    UnknownTies {
        /// The rejected name.
        name: String,
    },
    /// An item neighbourhood direction other than `history`, `candidate` or `history-all`.
    #[error("unknown neighbourhood `{name}`: expected `history`, `candidate` or `history-all`")]
    UnknownNeighbourhood {
        /// The rejected name.
        name: String,
    },
    /// An error of the shared vocabulary (bad index, empty data, unparsable text, ...).
    #[error(transparent)]
    Core(#[from] RecsError),
}

impl From<KnnError> for RecsError {
    fn from(error: KnnError) -> Self {
        match error {
            KnnError::InvalidK { k } => RecsError::invalid_parameter("k", k, "an integer >= 1"),
            KnnError::InvalidAlpha { alpha } => {
                RecsError::invalid_parameter("alpha", alpha, "a number in [0, 1]")
            }
            KnnError::InvalidMinSimilarity { value } => {
                RecsError::invalid_parameter("min-similarity", value, "a finite number or `none`")
            }
            KnnError::UnknownSimilarity { name } => RecsError::invalid_parameter(
                "similarity",
                name,
                format!("one of {}", crate::Similarity::NAMES.join(", ")),
            ),
            KnnError::UnknownTies { name } => {
                RecsError::invalid_parameter("ties", name, "`extend` or `cut`")
            }
            KnnError::UnknownNeighbourhood { name } => RecsError::invalid_parameter(
                "neighbourhood",
                name,
                "`history`, `candidate` or `history-all`",
            ),
            KnnError::Core(error) => error,
        }
    }
}
