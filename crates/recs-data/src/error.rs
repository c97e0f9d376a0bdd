//! The one error type of `recs-data`.

use std::path::{Path, PathBuf};

/// A `Result` whose error is [`DataError`].
pub type Result<T, E = DataError> = std::result::Result<T, E>;

/// Everything that can go wrong while resolving, downloading, parsing or caching data.
///
/// Parse errors name the file, the 1-based line and what was expected, so the message
/// alone tells the user what to fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line does not follow the file's format.
    #[error("{}:{line}: expected {expected}, found {found}", file.display())]
    Parse {
        /// The file being read (or a label such as `<memory>`).
        file: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What the format requires at this place.
        expected: String,
        /// What the line holds instead (shortened when long).
        found: String,
    },
    /// A file holds no data line at all.
    #[error("{}: the file holds no data (expected {expected})", file.display())]
    EmptyFile {
        /// The file.
        file: PathBuf,
        /// What a data line would have looked like.
        expected: String,
    },
    /// The same (user, item) pair occurs twice under [`recs_core::DuplicatePolicy::Error`].
    #[error(
        "{}: duplicate event for user {user} and item {item} (lines {first_line} and {second_line}); choose a duplicate policy to accept it",
        file.display()
    )]
    DuplicateEvent {
        /// The file.
        file: PathBuf,
        /// External user id.
        user: String,
        /// External item id.
        item: String,
        /// Line of the first occurrence.
        first_line: usize,
        /// Line of the second occurrence.
        second_line: usize,
    },
    /// A file's sha256 differs from the one the registry pins.
    #[error("{}: sha256 mismatch: expected {expected}, found {actual}; the file was refused", file.display())]
    Checksum {
        /// The refused file.
        file: PathBuf,
        /// The pinned digest (lower-case hex).
        expected: String,
        /// The digest of the bytes received (lower-case hex).
        actual: String,
    },
    /// The dataset name is not in the registry.
    #[error("unknown dataset `{name}`; known datasets: {known}")]
    UnknownDataset {
        /// The name asked for.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// A dataset's files are nowhere on disk and could not be downloaded.
    #[error("dataset `{name}` not found (looked in: {searched}); {hint}")]
    NotFound {
        /// Dataset name.
        name: String,
        /// The directories searched, in order.
        searched: String,
        /// What the user can do about it.
        hint: String,
    },
    /// Downloading failed (network error, HTTP status, truncated body).
    #[error("download of {url} failed: {message}")]
    Download {
        /// The URL fetched.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// A zip archive is unreadable or lacks a member.
    #[error("{}: {message}", archive.display())]
    Archive {
        /// The archive.
        archive: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A Parquet or Arrow IPC file is malformed, lacks a column or needs the `columnar`
    /// feature.
    #[error("{}: {message}", file.display())]
    Columnar {
        /// The file.
        file: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A cache entry could not be encoded.
    #[error("cache entry {}: {message}", path.display())]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// An option or generator parameter is invalid.
    #[error("invalid value {value} for `{name}`: expected {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
    /// A core type refused the data (index out of range, non-finite value, ...).
    #[error(transparent)]
    Core(#[from] recs_core::RecsError),
}

impl DataError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        DataError::Io { path: path.to_path_buf(), source }
    }

    pub(crate) fn parse(
        file: &Path,
        line: usize,
        expected: impl Into<String>,
        found: impl AsRef<[u8]>,
    ) -> Self {
        DataError::Parse {
            file: file.to_path_buf(),
            line,
            expected: expected.into(),
            found: shorten(found.as_ref()),
        }
    }

    pub(crate) fn invalid(
        name: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        DataError::InvalidParameter { name, value: value.to_string(), expected: expected.into() }
    }
}

/// Renders (part of) a line for an error message: lossy UTF-8, quoted, at most 80 chars.
fn shorten(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    format!("{out:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_file_line_and_expectation() {
        let e = DataError::parse(Path::new("u.data"), 7, "4 tab-separated fields", b"1\t2");
        assert_eq!(e.to_string(), "u.data:7: expected 4 tab-separated fields, found \"1\\t2\"");
    }

    #[test]
    fn long_lines_are_shortened() {
        let e = DataError::parse(Path::new("f"), 1, "x", vec![b'a'; 500]);
        assert!(e.to_string().len() < 120);
        assert!(e.to_string().contains('…'));
    }
}
