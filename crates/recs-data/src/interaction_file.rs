//! An interaction file in any format the loaders read: delimited text (`delimited`), or
//! Parquet and Arrow IPC recognised from the file's first bytes (`columnar`). It sits
//! above both readers, so that the columnar reader can use the text reader's format and
//! event checks without the text reader knowing of it.

use std::path::Path;

use crate::columnar::read_events as read_columnar_events;
use crate::dataset::{Dataset, SourceFile};
use crate::delimited::{DelimitedFormat, name_of, read_events};
use crate::error::{DataError, Result};
use crate::{lines, sha256_file};

/// Reads a delimited interaction file. The id maps are canonical: numeric order when
/// every id is an integer, byte order otherwise.
///
/// A Parquet or Arrow IPC file (recognised from its first bytes; the `columnar` feature)
/// is read by column name instead: `user` and `item` (any integer or string type), and
/// optionally `rating` (any numeric type; without it, or when `format` reads no rating,
/// the feedback is implicit) and `timestamp` (an integer). `format`'s scale and duplicate
/// policy apply; row `n` is line `n` in errors.
///
/// # Errors
/// Unreadable file, a malformed line (field count, non-UTF-8 or empty id, non-numeric or
/// out-of-scale rating, non-integer timestamp), no data line, or a duplicate pair under
/// [`DuplicatePolicy::Error`](recs_core::DuplicatePolicy::Error) — each naming the file and line.
pub fn load_delimited(path: &Path, format: &DelimitedFormat) -> Result<Dataset> {
    let columnar =
        recs_core::columnar::columnar_format(path).map_err(|e| DataError::io(path, e))?;
    let mut dataset = match columnar {
        Some(kind) => {
            let (parsed, held) = read_columnar_events(path, kind, format)?;
            parsed.into_dataset(name_of(path), &held)?
        }
        None => read_events(&|| lines::open(path), path, format, None, None)?
            .into_dataset(name_of(path), format)?,
    };
    dataset.sources.push(SourceFile { path: path.to_path_buf(), sha256: sha256_file(path)? });
    Ok(dataset)
}
