//! Columnar files — Apache Parquet and the Arrow IPC file format — read by column name,
//! for every reader of the workspace that takes them (qrels, runs, interaction files).
//!
//! [`columnar_format`] recognises a file from its first bytes and needs nothing; reading
//! one (`read_columns`) needs the `columnar` feature. Readers built without it should
//! refuse a recognised columnar file with an error that says so, rather than misread it
//! as text.
//!
//! Columns are cast to what the caller asks for: ids to their decimal text (so `7` in a
//! Parquet file matches `7` in a text file), values to `f32`, timestamps to `i64`. Row
//! `n` (from 1) is what errors call line `n`, as for text files.
//!
//! Malformed files are errors, never crashes: the Parquet and Arrow IPC readers can panic
//! on some corrupt inputs (found by fuzzing), and such a panic stops at this boundary and
//! becomes an error; an Arrow IPC block whose stated length runs past the end of the file
//! is refused before the reader would allocate that length.

use std::fs::File;
use std::io::Read;
use std::path::Path;

#[cfg(feature = "columnar")]
mod read;

#[cfg(feature = "columnar")]
pub use read::{Matrix, Row, Table, read_columns, read_matrix};

/// A columnar file format, recognised from a file's first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columnar {
    /// Apache Parquet (`PAR1`).
    Parquet,
    /// The Arrow IPC file format (`ARROW1`).
    ArrowIpc,
}

impl Columnar {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Columnar::Parquet => "Parquet",
            Columnar::ArrowIpc => "Arrow IPC",
        }
    }
}

/// The columnar format of the file at `path`, or `None` for a text file.
///
/// # Errors
/// When the file cannot be opened or read.
pub fn columnar_format(path: &Path) -> std::io::Result<Option<Columnar>> {
    let mut head = [0u8; 6];
    let mut file = File::open(path)?;
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(match &head[..filled] {
        [b'P', b'A', b'R', b'1', ..] => Some(Columnar::Parquet),
        b"ARROW1" => Some(Columnar::ArrowIpc),
        _ => None,
    })
}

/// The type a column is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// Text: strings as they are, integers as their decimal text.
    Text,
    /// A number as `f32`.
    F32,
    /// An integer as `i64` (timestamps).
    I64,
}

/// A column to read: its name, its type and whether the file must have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column<'a> {
    /// The column's name in the file.
    pub name: &'a str,
    /// The type to read it as.
    pub ty: ColumnType,
    /// Whether a file without it is an error (otherwise the column reads as absent).
    pub required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_are_not_columnar_and_magic_bytes_are_recognised() {
        let dir = std::env::temp_dir().join(format!("recs-core-columnar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases: [(&[u8], Option<Columnar>); 4] = [
            (b"u1\ta\t1\n", None),
            (b"PAR", None),
            (b"PAR1\0\0rest", Some(Columnar::Parquet)),
            (b"ARROW1\0\0", Some(Columnar::ArrowIpc)),
        ];
        for (k, (bytes, expected)) in cases.into_iter().enumerate() {
            let path = dir.join(format!("f{k}"));
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(columnar_format(&path).unwrap(), expected, "{bytes:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
