//! Qrels and runs in columnar files: Parquet and Arrow IPC, columns found by name
//! (`user`, `item`, and `grade` for qrels or `score` for runs). Ids may be strings or
//! integers of any width (read as their decimal text, so `7` in a Parquet run matches
//! `7` in a TSV qrels); grades and scores any numeric type. Row `n` (from 1) of the file
//! is reported as line `n` in errors, as for text files.
//!
//! Recognising a file (its magic bytes) needs nothing; reading one needs the `columnar`
//! feature, without which a columnar file is an error that says so rather than a
//! misread text file.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{MetricsError, Result};

/// A columnar file format, recognised from a file's first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Columnar {
    /// Apache Parquet (`PAR1`).
    Parquet,
    /// The Arrow IPC file format (`ARROW1`).
    ArrowIpc,
}

/// The columnar format of the file at `path`, or `None` for a text file.
pub(crate) fn columnar_format(path: &Path) -> Result<Option<Columnar>> {
    let io = |source| MetricsError::Io { path: path.to_path_buf(), source };
    let mut head = [0u8; 6];
    let mut file = File::open(path).map_err(io)?;
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]).map_err(io)? {
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

/// The `(user, item, value)` rows of a columnar file, ids as text: the file's own
/// batches with their id columns cast to strings, borrowed row by row (no allocation per
/// row).
#[derive(Debug, Default)]
pub(crate) struct Rows {
    #[cfg(feature = "columnar")]
    batches: Vec<Batch>,
}

/// One batch of rows: ids as string arrays, values as `f32`.
#[cfg(feature = "columnar")]
#[derive(Debug)]
struct Batch {
    users: arrow_array::StringArray,
    items: arrow_array::StringArray,
    values: arrow_array::Float32Array,
}

impl Rows {
    /// The rows as the row readers take them.
    #[cfg(feature = "columnar")]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str, f32)> {
        self.batches.iter().flat_map(|b| {
            (0..b.values.len())
                .map(move |k| (b.users.value(k), b.items.value(k), b.values.value(k)))
        })
    }

    /// The rows as the row readers take them (none without the `columnar` feature).
    #[cfg(not(feature = "columnar"))]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str, f32)> {
        std::iter::empty()
    }
}

fn columnar_error(path: &Path, message: impl Into<String>) -> MetricsError {
    MetricsError::Columnar { path: path.to_path_buf(), message: message.into() }
}

/// The rows of the columnar file at `path` (of format `format`), the values from column
/// `value`.
#[cfg(feature = "columnar")]
pub(crate) fn read_rows(path: &Path, format: Columnar, value: &str) -> Result<Rows> {
    use arrow_array::RecordBatch;

    let io = |source| MetricsError::Io { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(io)?;
    let mut rows = Rows::default();
    let mut push = |batch: std::result::Result<RecordBatch, String>| -> Result<()> {
        let batch = batch.map_err(|e| columnar_error(path, e))?;
        append(&mut rows, &batch, value).map_err(|e| columnar_error(path, e))
    };
    match format {
        Columnar::Parquet => {
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .and_then(|b| b.build())
                    .map_err(|e| {
                        columnar_error(path, format!("not a readable Parquet file: {e}"))
                    })?;
            for batch in reader {
                push(batch.map_err(|e| e.to_string()))?;
            }
        }
        Columnar::ArrowIpc => {
            let reader = arrow_ipc::reader::FileReader::try_new(file, None)
                .map_err(|e| columnar_error(path, format!("not a readable Arrow IPC file: {e}")))?;
            for batch in reader {
                push(batch.map_err(|e| e.to_string()))?;
            }
        }
    }
    Ok(rows)
}

/// Without the `columnar` feature: the error saying how to read the file.
#[cfg(not(feature = "columnar"))]
pub(crate) fn read_rows(path: &Path, format: Columnar, _value: &str) -> Result<Rows> {
    Err(columnar_error(
        path,
        format!(
            "a {format:?} file; this build reads text files only (enable the `columnar` feature)"
        ),
    ))
}

/// Appends the rows of `batch`: `user` and `item` cast to text, `value` to `f32`.
#[cfg(feature = "columnar")]
fn append(
    rows: &mut Rows,
    batch: &arrow_array::RecordBatch,
    value: &str,
) -> std::result::Result<(), String> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float32Type;
    use arrow_schema::DataType;

    let column = |name: &str, to: &DataType| {
        let schema = batch.schema();
        let index = schema.index_of(name).map_err(|_| {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            format!("no column `{name}` (columns: {})", names.join(", "))
        })?;
        let array = batch.column(index);
        if array.null_count() > 0 {
            return Err(format!("column `{name}` has {} null values", array.null_count()));
        }
        arrow_cast::cast(array, to).map_err(|e| format!("column `{name}`: {e}"))
    };
    let users = column("user", &DataType::Utf8)?.as_string::<i32>().clone();
    let items = column("item", &DataType::Utf8)?.as_string::<i32>().clone();
    let values = column(value, &DataType::Float32)?.as_primitive::<Float32Type>().clone();
    rows.batches.push(Batch { users, items, values });
    Ok(())
}

#[cfg(test)]
mod detection_tests {
    use super::*;

    #[test]
    fn text_files_are_not_columnar_and_magic_bytes_are_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&[u8], Option<Columnar>); 4] = [
            (b"u1\ta\t1\n", None),
            (b"PAR", None),
            (b"PAR1\0\0rest", Some(Columnar::Parquet)),
            (b"ARROW1\0\0", Some(Columnar::ArrowIpc)),
        ];
        for (k, (bytes, expected)) in cases.into_iter().enumerate() {
            let path = dir.path().join(format!("f{k}"));
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(columnar_format(&path).unwrap(), expected, "{bytes:?}");
        }
    }
}

#[cfg(all(test, feature = "columnar"))]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};

    use super::*;
    use crate::io::{parse_qrels, parse_run, read_qrels, read_run, read_run_candidates};

    fn batch(users: ArrayRef, items: &[&str], name: &str, values: &[f64]) -> RecordBatch {
        let items: ArrayRef = Arc::new(StringArray::from(items.to_vec()));
        let values: ArrayRef = Arc::new(Float64Array::from(values.to_vec()));
        RecordBatch::try_from_iter([("user", users), ("item", items), (name, values)]).unwrap()
    }

    fn write_parquet(path: &Path, batch: &RecordBatch) {
        let file = File::create(path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    }

    fn write_ipc(path: &Path, batch: &RecordBatch) {
        let file = File::create(path).unwrap();
        let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
    }

    /// Integer user ids in a Parquet qrels and string ids in an Arrow IPC run read as the
    /// same TSV files do, and evaluate to the same numbers.
    #[test]
    fn parquet_and_arrow_files_read_as_their_text_equivalents() {
        let dir = tempfile::tempdir().unwrap();
        let users: ArrayRef = Arc::new(Int64Array::from(vec![1, 1, 2, 2]));
        let qrels_batch = batch(users, &["a", "b", "a", "c"], "grade", &[1.0, 0.0, 0.0, 2.0]);
        let run_users: ArrayRef = Arc::new(StringArray::from(vec!["2", "1", "1", "9"]));
        let run_batch = batch(run_users, &["c", "b", "a", "a"], "score", &[0.5, 0.25, 0.75, 1.0]);
        let (q, r) = (dir.path().join("q.parquet"), dir.path().join("r.arrow"));
        write_parquet(&q, &qrels_batch);
        write_ipc(&r, &run_batch);
        assert_eq!(columnar_format(&q).unwrap(), Some(Columnar::Parquet));
        assert_eq!(columnar_format(&r).unwrap(), Some(Columnar::ArrowIpc));

        let qrels = read_qrels(&q).unwrap();
        let text_qrels =
            parse_qrels("1\ta\t1\n1\tb\t0\n2\ta\t0\n2\tc\t2\n".as_bytes(), &q).unwrap();
        assert_eq!(qrels.judgments, text_qrels.judgments);
        let run = read_run(&r, &qrels, crate::io::RunFormat::Auto).unwrap();
        let text_run = parse_run(
            "2\tc\t0.5\n1\tb\t0.25\n1\ta\t0.75\n9\ta\t1\n".as_bytes(),
            &r,
            &qrels,
            crate::io::RunFormat::Tsv,
        )
        .unwrap();
        assert_eq!(run.scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>(), {
            text_run.scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        });
        assert_eq!((run.n_missing, run.n_ignored), (text_run.n_missing, text_run.n_ignored));
        let candidates = read_run_candidates(&r, &qrels, crate::io::RunFormat::Auto).unwrap();
        // TREC candidates: users 1 and 2 only; user 1's a and b, user 2's c (its judged,
        // unretrieved, non-relevant a is no candidate).
        assert_eq!(candidates.qrels.judgments.n_candidates(), 3);
    }

    #[test]
    fn a_missing_column_or_a_repeated_pair_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let users: ArrayRef = Arc::new(StringArray::from(vec!["1", "1"]));
        let path = dir.path().join("q.parquet");
        write_parquet(&path, &batch(users.clone(), &["a", "b"], "rating", &[1.0, 0.0]));
        let e = read_qrels(&path).unwrap_err().to_string();
        assert!(
            e.contains("q.parquet")
                && e.contains("no column `grade` (columns: user, item, rating)"),
            "{e}"
        );
        write_parquet(&path, &batch(users, &["a", "a"], "grade", &[1.0, 0.0]));
        let e = read_qrels(&path).unwrap_err().to_string();
        assert!(e.contains("q.parquet:2:"), "{e}");
    }
}
