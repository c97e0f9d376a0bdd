//! Qrels and runs in columnar files: Parquet and Arrow IPC, columns found by name
//! (`user`, `item`, and `grade` for qrels or `score` for runs). Ids may be strings or
//! integers of any width (read as their decimal text, so `7` in a Parquet run matches
//! `7` in a TSV qrels); grades and scores any numeric type. Row `n` (from 1) of the file
//! is reported as line `n` in errors, as for text files.
//!
//! Recognising a file (its magic bytes) needs nothing; reading one needs the `columnar`
//! feature, without which a columnar file is an error that says so rather than a
//! misread text file.

use std::path::Path;

pub(crate) use recs_core::columnar::Columnar;

use crate::error::{MetricsError, Result};

/// The columnar format of the file at `path`, or `None` for a text file.
pub(crate) fn columnar_format(path: &Path) -> Result<Option<Columnar>> {
    recs_core::columnar::columnar_format(path)
        .map_err(|source| MetricsError::Io { path: path.to_path_buf(), source })
}

/// The `(user, item, value)` rows of a columnar file, ids as text, borrowed row by row
/// from the file's batches (no allocation per row).
#[derive(Debug, Default)]
pub(crate) struct Rows {
    #[cfg(feature = "columnar")]
    table: recs_core::columnar::Table,
}

impl Rows {
    /// The rows as the row readers take them.
    #[cfg(feature = "columnar")]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str, f32)> {
        // The three columns are required, so each is there.
        self.table.rows().map(|row| {
            (row.text(0).unwrap_or(""), row.text(1).unwrap_or(""), row.f32(2).unwrap_or(f32::NAN))
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
/// `value`; see [`recs_core::columnar`].
#[cfg(feature = "columnar")]
pub(crate) fn read_rows(path: &Path, format: Columnar, value: &str) -> Result<Rows> {
    use recs_core::columnar::{Column, ColumnType, read_columns};
    let required = |name, ty| Column { name, ty, required: true };
    let columns = [
        required("user", ColumnType::Text),
        required("item", ColumnType::Text),
        required(value, ColumnType::F32),
    ];
    let table = read_columns(path, format, &columns).map_err(|e| columnar_error(path, e))?;
    Ok(Rows { table })
}

/// Without the `columnar` feature: the error saying how to read the file.
#[cfg(not(feature = "columnar"))]
pub(crate) fn read_rows(path: &Path, format: Columnar, _value: &str) -> Result<Rows> {
    Err(columnar_error(
        path,
        format!(
            "a {} file; this build reads text files only (enable the `columnar` feature)",
            format.name()
        ),
    ))
}

/// Writes a run as Parquet: columns `user` and `item` (strings) and `score` (`f32`), rows
/// in the order pushed, which [`read_run`](crate::io::read_run) reads back to the same
/// bits. Rows are buffered into batches of [`ParquetRunWriter::BATCH_ROWS`]; nothing is a
/// valid file until [`finish`](ParquetRunWriter::finish) writes the footer.
///
/// ```
/// use recs_metrics::io::{ParquetRunWriter, RunFormat, parse_qrels, read_run};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("run.parquet");
/// let mut writer = ParquetRunWriter::new(std::fs::File::create(&path)?, &path)?;
/// writer.push("u1", "a", 0.25)?;
/// writer.push("u1", "b", 0.5)?;
/// writer.finish()?;
/// let qrels = parse_qrels("u1\ta\t1\nu1\tb\t0\n".as_bytes(), "q".as_ref())?;
/// assert_eq!(read_run(&path, &qrels, RunFormat::Auto)?.scores, [0.25, 0.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "columnar")]
pub struct ParquetRunWriter<W: std::io::Write + Send> {
    writer: parquet::arrow::ArrowWriter<W>,
    schema: arrow_schema::SchemaRef,
    users: arrow_array::builder::StringBuilder,
    items: arrow_array::builder::StringBuilder,
    scores: arrow_array::builder::Float32Builder,
    path: std::path::PathBuf,
}

#[cfg(feature = "columnar")]
impl<W: std::io::Write + Send> std::fmt::Debug for ParquetRunWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRunWriter").field("path", &self.path).finish_non_exhaustive()
    }
}

#[cfg(feature = "columnar")]
impl<W: std::io::Write + Send> ParquetRunWriter<W> {
    /// Rows per batch (and so at most per row group page).
    pub const BATCH_ROWS: usize = 1 << 16;

    /// A writer into `out`; `path` names it in errors.
    ///
    /// # Errors
    /// [`MetricsError::Columnar`] when the Parquet writer cannot start.
    pub fn new(out: W, path: &Path) -> Result<Self> {
        use arrow_schema::{DataType, Field, Schema};
        let schema = std::sync::Arc::new(Schema::new(vec![
            Field::new("user", DataType::Utf8, false),
            Field::new("item", DataType::Utf8, false),
            Field::new("score", DataType::Float32, false),
        ]));
        let writer = parquet::arrow::ArrowWriter::try_new(out, schema.clone(), None)
            .map_err(|e| columnar_error(path, e.to_string()))?;
        Ok(ParquetRunWriter {
            writer,
            schema,
            users: Default::default(),
            items: Default::default(),
            scores: Default::default(),
            path: path.to_path_buf(),
        })
    }

    /// Adds one row.
    ///
    /// # Errors
    /// [`MetricsError::Columnar`] when a full batch cannot be written.
    pub fn push(&mut self, user: &str, item: &str, score: f32) -> Result<()> {
        self.users.append_value(user);
        self.items.append_value(item);
        self.scores.append_value(score);
        use arrow_array::builder::ArrayBuilder;
        if self.scores.len() >= Self::BATCH_ROWS { self.flush_batch() } else { Ok(()) }
    }

    fn flush_batch(&mut self) -> Result<()> {
        use arrow_array::ArrayRef;
        let columns: Vec<ArrayRef> = vec![
            std::sync::Arc::new(self.users.finish()),
            std::sync::Arc::new(self.items.finish()),
            std::sync::Arc::new(self.scores.finish()),
        ];
        let batch = arrow_array::RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| columnar_error(&self.path, e.to_string()))?;
        self.writer.write(&batch).map_err(|e| columnar_error(&self.path, e.to_string()))
    }

    /// Writes the last rows and the footer; returns the output.
    ///
    /// # Errors
    /// [`MetricsError::Columnar`] when writing fails.
    pub fn finish(mut self) -> Result<W> {
        use arrow_array::builder::ArrayBuilder;
        if !self.scores.is_empty() {
            self.flush_batch()?;
        }
        self.writer.into_inner().map_err(|e| columnar_error(&self.path, e.to_string()))
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
        let file = std::fs::File::create(path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    }

    fn write_ipc(path: &Path, batch: &RecordBatch) {
        let file = std::fs::File::create(path).unwrap();
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

    /// Parquet runs (found by the `files` fuzz target) whose page header states a field
    /// far longer than the file are errors, reached at once: the reader used to copy that
    /// length one empty read at a time (31 s in the fuzz build for the first one's 938
    /// bytes).
    #[test]
    fn a_page_header_longer_than_the_file_is_an_error_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (q, r) = (dir.path().join("q.tsv"), dir.path().join("r.parquet"));
        std::fs::write(&q, "u1\ta\t1\nu1\tb\t0\nu2\tb\t1\n").unwrap();
        let qrels = read_qrels(&q).unwrap();
        for run in [
            &include_bytes!("../../tests/fixtures/long-page-header.parquet")[..],
            &include_bytes!("../../tests/fixtures/long-page-header-2.parquet")[..],
        ] {
            std::fs::write(&r, run).unwrap();
            let started = std::time::Instant::now();
            let e = read_run(&r, &qrels, crate::io::RunFormat::Auto).unwrap_err().to_string();
            assert!(e.contains("r.parquet") && e.contains("Parquet"), "{e}");
            // The guard's own error: without it the reader ends elsewhere, much later.
            assert!(e.contains("a read past the end of the file"), "{e}");
            assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
        }
    }

    /// The error of reading `bytes` as the qrels file `q.arrow`.
    fn qrels_error(bytes: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.arrow");
        std::fs::write(&path, bytes).unwrap();
        read_qrels(&path).unwrap_err().to_string()
    }

    /// Two malformed Arrow IPC files found by the `files` fuzz target are errors naming
    /// the file: one on which the reader panics, and one whose footer lists a block past
    /// the end of the file (the reader would allocate its stated length and abort).
    #[test]
    fn malformed_arrow_files_are_errors_naming_the_file_not_crashes() {
        let e = qrels_error(include_bytes!("../../tests/fixtures/malformed-qrels.arrow"));
        assert!(e.contains("q.arrow") && e.contains("malformed Arrow IPC file"), "{e}");
        let e = qrels_error(include_bytes!("../../tests/fixtures/oversized-block.arrow"));
        assert!(e.contains("q.arrow") && e.contains("block 0 does not lie inside the file"), "{e}");
    }
}
