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

impl Columnar {
    /// The format's name in messages.
    fn name(self) -> &'static str {
        match self {
            Columnar::Parquet => "Parquet",
            Columnar::ArrowIpc => "Arrow IPC",
        }
    }
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
///
/// The Parquet and Arrow IPC readers can panic on some malformed files instead of
/// returning an error (found by fuzzing; a known weakness of those readers). Such a panic
/// stops at this boundary and becomes an error naming the file: nothing is shared with
/// the reader that a panic could leave half-updated.
#[cfg(feature = "columnar")]
pub(crate) fn read_rows(path: &Path, format: Columnar, value: &str) -> Result<Rows> {
    let read = quiet_panics::catch(|| read_batches(path, format, value));
    read.unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        Err(columnar_error(path, format!("malformed {} file ({reason})", format.name())))
    })
}

#[cfg(feature = "columnar")]
fn read_batches(path: &Path, format: Columnar, value: &str) -> Result<Rows> {
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
            check_ipc_blocks(path)
                .map_err(|e| columnar_error(path, format!("not a readable Arrow IPC file: {e}")))?;
            let reader = arrow_ipc::reader::FileReader::try_new(file, None)
                .map_err(|e| columnar_error(path, format!("not a readable Arrow IPC file: {e}")))?;
            for batch in reader {
                push(batch.map_err(|e| e.to_string()))?;
            }
        }
    }
    Ok(rows)
}

/// Catching a dependency's panic without its message on standard error: the error that
/// replaces it says what went wrong.
#[cfg(feature = "columnar")]
mod quiet_panics {
    use std::cell::Cell;
    use std::panic::{self, AssertUnwindSafe};
    use std::sync::Once;

    thread_local! {
        /// Whether this thread is inside [`catch`].
        static CATCHING: Cell<bool> = const { Cell::new(false) };
    }

    /// Runs `f`, returning its panic as `Err`. A panic hook installed once passes every
    /// other panic (other threads, or this one outside `catch`) to the hook it replaced.
    pub(super) fn catch<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            let previous = panic::take_hook();
            panic::set_hook(Box::new(move |info| {
                if !CATCHING.with(Cell::get) {
                    previous(info);
                }
            }));
        });
        let outer = CATCHING.with(|c| c.replace(true));
        // Nothing `f` borrows is used after a panic: the caller only reads the error.
        let result = panic::catch_unwind(AssertUnwindSafe(f));
        CATCHING.with(|c| c.set(outer));
        result
    }
}

/// Checks that every block the footer of the Arrow IPC file at `path` lists lies inside
/// the file. The Arrow reader allocates a block's stated length before reading it, so a
/// corrupt length would abort the process on a failed allocation instead of failing.
#[cfg(feature = "columnar")]
fn check_ipc_blocks(path: &Path) -> std::result::Result<(), String> {
    use std::io::{Seek, SeekFrom};

    // The file ends with the footer, its length (i32, little-endian) and `ARROW1`.
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut tail = [0u8; 10];
    if len < 18 {
        return Err("too short".into());
    }
    file.seek(SeekFrom::End(-10))
        .and_then(|_| file.read_exact(&mut tail))
        .map_err(|e| e.to_string())?;
    if &tail[4..] != b"ARROW1" {
        return Err("no end marker".into());
    }
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let footer_len = u64::try_from(footer_len).map_err(|_| "negative footer length")?;
    if footer_len > len - 10 {
        return Err(format!("footer of {footer_len} bytes in a file of {len}"));
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::End(-10 - footer_len as i64))
        .and_then(|_| file.read_exact(&mut footer))
        .map_err(|e| e.to_string())?;
    let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| e.to_string())?;
    let blocks = footer.recordBatches().into_iter().chain(footer.dictionaries()).flatten();
    for (k, block) in blocks.enumerate() {
        let end = u64::try_from(block.offset())
            .ok()
            .zip(u64::try_from(block.metaDataLength()).ok())
            .zip(u64::try_from(block.bodyLength()).ok())
            .and_then(|((offset, meta), body)| offset.checked_add(meta)?.checked_add(body));
        if end.is_none_or(|end| end > len) {
            return Err(format!("block {k} does not lie inside the file"));
        }
    }
    Ok(())
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
