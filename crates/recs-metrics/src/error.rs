//! The error type of `recs-metrics`.

use std::path::PathBuf;

/// A `Result` whose error is [`MetricsError`].
pub type Result<T, E = MetricsError> = std::result::Result<T, E>;

/// Everything that can go wrong when computing metrics or reading qrels and run files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// The scores do not line up with the judgments' candidates.
    #[error("{expected} candidates in the judgments but {found} scores")]
    ScoreLength {
        /// Number of candidates in the judgments.
        expected: usize,
        /// Number of scores given.
        found: usize,
    },
    /// A curve or statistic is undefined for this input (for example a ROC curve
    /// without any positive pair).
    #[error("{what} is undefined: {reason}")]
    Undefined {
        /// Which quantity.
        what: &'static str,
        /// Why it is undefined.
        reason: &'static str,
    },
    /// An option or argument is out of its domain.
    #[error("invalid value {value} for `{name}`: expected {expected}")]
    InvalidArgument {
        /// Name of the option as the user spells it.
        name: &'static str,
        /// The rejected value, as text.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A name that is not one of an option's spellings (a [`crate::TieBreak`],
    /// [`crate::ZeroPolicy`] or [`crate::io::RunFormat`]).
    #[error("unknown {what} `{value}` (allowed: {allowed})")]
    UnknownName {
        /// What the name should have named (`tie policy`, `zero policy`, `run format`).
        what: &'static str,
        /// The rejected text.
        value: String,
        /// The accepted names.
        allowed: String,
    },
    /// A metric name that is not known (see [`crate::Metric`]).
    #[error(
        "unknown metric `{0}` (known: roc, croc, p@N, r@N, f1@N, hit@N, ndcg@K, ndcg_exp@K, ap@K, map, mrr, half_life@A, coverage@N, user_auc, arp@N, aplt@N, aclt@N, epc@N, epc_flat@N, efd@N, efd_flat@N, miuf@N, gini@N, entropy@N, ild@N, ild_disc@N, serendipity@N, popreo@N, poprsp@N, miscal@N)"
    )]
    UnknownMetric(String),
    /// Reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line of a qrels or run file could not be understood.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
    /// A Parquet or Arrow IPC file that cannot be read as qrels or a run (a missing
    /// column, a corrupt file, a build without the `columnar` feature).
    #[error("{path}: {message}")]
    Columnar {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An input of a catalog over score rows that does not fit the others (an id no row
    /// is named after, a score that is not finite), named as the caller calls it.
    #[error("{name}: {message}")]
    Rows {
        /// The argument (`qrels`, `user_factors`, `--item-factors`, `scores`, ...).
        name: String,
        /// What is wrong, naming the user and item.
        message: String,
    },
    /// An error from the core types (building judgments, ids).
    #[error(transparent)]
    Core(#[from] recs_core::RecsError),
}
