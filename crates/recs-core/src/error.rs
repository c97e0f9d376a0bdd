//! The one error type of `recs-core`, shared by every crate that speaks its vocabulary.

use std::fmt;

/// A `Result` whose error is [`RecsError`].
pub type Result<T, E = RecsError> = std::result::Result<T, E>;

/// Everything that can go wrong when building or using the core types.
///
/// Library code returns these instead of panicking on bad input; every variant names
/// the offending value so the message alone tells the user what to fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecsError {
    /// A hyper-parameter or option failed validation.
    #[error("invalid value {value} for parameter `{name}`: expected {expected}")]
    InvalidParameter {
        /// Parameter name as the user spells it.
        name: String,
        /// The rejected value, rendered as text.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
    /// A user, item or attribute index is outside the declared dimension.
    #[error("{what} index {index} is out of range (there are {len})")]
    IndexOutOfRange {
        /// Which kind of index (`"user"`, `"item"`, ...).
        what: &'static str,
        /// The offending index.
        index: usize,
        /// The dimension it had to be below.
        len: usize,
    },
    /// The same (user, item) pair occurred twice under [`DuplicatePolicy::Error`](crate::DuplicatePolicy::Error).
    #[error("duplicate event for user index {user} and item index {item}")]
    DuplicateEvent {
        /// Dense user index.
        user: u32,
        /// Dense item index.
        item: u32,
    },
    /// A user lists the same candidate item twice in judgments.
    #[error("user index {user} lists candidate item index {item} twice")]
    DuplicateCandidate {
        /// Dense user index.
        user: u32,
        /// Dense item index.
        item: u32,
    },
    /// A user appears twice where each user may appear once.
    #[error("user index {user} appears twice")]
    DuplicateUser {
        /// Dense user index.
        user: u32,
    },
    /// A numeric value is not acceptable (NaN, infinite, negative grade, ...).
    #[error("invalid {what}: {value} (expected {expected})")]
    InvalidValue {
        /// What the value is (`"rating"`, `"grade"`, ...).
        what: &'static str,
        /// The rejected value.
        value: f64,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// Two lengths that must agree do not.
    #[error("length mismatch for {what}: expected {expected}, found {found}")]
    LengthMismatch {
        /// What was being compared.
        what: &'static str,
        /// The required length.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// An input that must not be empty is empty.
    #[error("{what} is empty")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// More distinct ids than fit a dense `u32` index.
    #[error("more than {max} distinct ids", max = u32::MAX)]
    TooManyIds,
    /// The operation needs something the model or data does not provide.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A model-specific failure, carrying the model crate's own error.
    #[error("{model}: {source}")]
    Model {
        /// Name of the model that failed.
        model: &'static str,
        /// The model crate's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl RecsError {
    /// Builds an [`RecsError::InvalidParameter`] from anything printable.
    pub fn invalid_parameter(
        name: impl Into<String>,
        value: impl fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        RecsError::InvalidParameter {
            name: name.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

/// Returns `Err(LengthMismatch)` unless `found == expected`; `what` names the sequence
/// whose length is `found`.
pub fn check_len(what: &'static str, expected: usize, found: usize) -> Result<()> {
    if found == expected {
        Ok(())
    } else {
        Err(RecsError::LengthMismatch { what, expected, found })
    }
}

/// Returns `Err(IndexOutOfRange)` unless `index < len`.
pub fn check_index(what: &'static str, index: usize, len: usize) -> Result<()> {
    if index < len { Ok(()) } else { Err(RecsError::IndexOutOfRange { what, index, len }) }
}
