//! The error type of the runner.

use std::path::PathBuf;

/// A `Result` whose error is [`BenchError`].
pub type Result<T, E = BenchError> = std::result::Result<T, E>;

/// Everything that can stop an experiment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// A configuration that does not parse or does not make sense; `key` is the path of
    /// the offending key (`models[2].params.rank`), `source` the configuration's name.
    #[error("{source_name}: `{key}`: {message}")]
    Config {
        /// The configuration file (or label) the error is in.
        source_name: String,
        /// Dotted path of the key, `[i]` for array elements; empty for the whole file.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A model, split or judgment error.
    #[error(transparent)]
    Core(#[from] recs_core::RecsError),
    /// A dataset could not be read.
    #[error(transparent)]
    Data(#[from] recs_data::DataError),
    /// A metric could not be computed.
    #[error(transparent)]
    Metrics(#[from] recs_metrics::MetricsError),
    /// A figure could not be drawn.
    #[error(transparent)]
    Plot(#[from] crate::plot::PlotError),
    /// Writing an output failed.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The report does not meet its contract (one line per problem).
    #[error("the report breaks its contract:\n  {}", .0.join("\n  "))]
    Contract(Vec<String>),
    /// Something the experiment needs is missing or inconsistent (e.g. a model that cannot
    /// score the items a protocol asks for).
    #[error("{0}")]
    Experiment(String),
}

impl BenchError {
    /// A configuration error at `key` in `source_name`.
    pub fn config(
        source_name: impl Into<String>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        BenchError::Config {
            source_name: source_name.into(),
            key: key.into(),
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BenchError::Io { path: path.into(), source }
    }
}
