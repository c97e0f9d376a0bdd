//! Errors of the sampled metrics.

use std::fmt::Display;

/// A `Result` whose error is [`SampledError`].
pub type Result<T, E = SampledError> = std::result::Result<T, E>;

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SampledError {
    /// An argument out of its range, with what was expected.
    #[error("invalid {name} `{value}`: expected {expected}")]
    Invalid {
        /// The argument.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What it should be.
        expected: String,
    },
    /// A linear solve that did not succeed (a singular system, an SVD that did not
    /// converge).
    #[error("{0}")]
    Numeric(String),
}

impl SampledError {
    pub(crate) fn invalid(
        name: &'static str,
        value: impl Display,
        expected: impl Into<String>,
    ) -> SampledError {
        SampledError::Invalid { name, value: value.to_string(), expected: expected.into() }
    }
}
