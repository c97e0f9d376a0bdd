//! Reading named columns of a Parquet or Arrow IPC file into typed arrays.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

use super::{Column, ColumnType, Columnar};

/// The columns read from a file: per batch, one array per requested column (`None` for
/// an optional column the file lacks), cast to the requested type.
#[derive(Debug, Default)]
pub struct Table {
    batches: Vec<Vec<Option<ArrayRef>>>,
}

/// One row of a [`Table`]; columns by their position in the request.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    columns: &'a [Option<ArrayRef>],
    index: usize,
}

impl<'a> Row<'a> {
    /// The text of column `k` (requested as [`ColumnType::Text`]), or `None` when the file
    /// lacks it.
    pub fn text(&self, k: usize) -> Option<&'a str> {
        let column: &'a ArrayRef = self.columns[k].as_ref()?;
        Some(column.as_string::<i32>().value(self.index))
    }

    /// The value of column `k` (requested as [`ColumnType::F32`]), or `None` when the
    /// file lacks it.
    pub fn f32(&self, k: usize) -> Option<f32> {
        let column = self.columns[k].as_ref()?;
        Some(column.as_primitive::<Float32Type>().value(self.index))
    }

    /// The value of column `k` (requested as [`ColumnType::I64`]), or `None` when the
    /// file lacks it.
    pub fn i64(&self, k: usize) -> Option<i64> {
        let column = self.columns[k].as_ref()?;
        Some(column.as_primitive::<Int64Type>().value(self.index))
    }
}

impl Table {
    /// The rows in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.batches.iter().flat_map(|columns| {
            let n = columns.iter().flatten().next().map_or(0, |c| c.len());
            (0..n).map(move |index| Row { columns, index })
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.batches.iter().map(|b| b.iter().flatten().next().map_or(0, |c| c.len())).sum()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads `columns` of the file at `path` (of format `format`, as [`super::columnar_format`]
/// found it). At least one column must be required.
///
/// # Errors
/// A message (without the file's name, which the caller adds): the file cannot be read or
/// is malformed, a required column is missing (the message lists the columns the file
/// has), a column holds nulls or cannot be cast to its type.
pub fn read_columns(
    path: &Path,
    format: Columnar,
    columns: &[Column<'_>],
) -> Result<Table, String> {
    let read = quiet_panics::catch(|| read_batches(path, format, columns));
    read.unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        Err(format!("malformed {} file ({reason})", format.name()))
    })
}

/// A Parquet file whose reads past its end are errors instead of empty reads. parquet-rs
/// skips a field of a page header by copying its stated length from the file, and a
/// corrupt length past the end was copied one empty read at a time: a 938-byte Parquet
/// file found by the `files` fuzz target took 31 s in the fuzz build. Reads inside the
/// file are unchanged.
struct ParquetFile(File);

/// A file read that fails at the end of the file rather than returning 0 bytes.
struct EndIsError(File);

impl Read for EndIsError {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a read past the end of the file",
            )),
            n => Ok(n),
        }
    }
}

impl parquet::file::reader::Length for ParquetFile {
    fn len(&self) -> u64 {
        parquet::file::reader::Length::len(&self.0)
    }
}

impl parquet::file::reader::ChunkReader for ParquetFile {
    type T = BufReader<EndIsError>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        let mut file = self.0.try_clone()?;
        file.seek(SeekFrom::Start(start))?;
        Ok(BufReader::new(EndIsError(file)))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.0.get_bytes(start, length)
    }
}

fn read_batches(path: &Path, format: Columnar, columns: &[Column<'_>]) -> Result<Table, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let unreadable =
        |e: &dyn std::fmt::Display| format!("not a readable {} file: {e}", format.name());
    let mut table = Table::default();
    let mut push = |batch: RecordBatch| -> Result<(), String> {
        table.batches.push(typed_columns(&batch, columns)?);
        Ok(())
    };
    match format {
        Columnar::Parquet => {
            let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                ParquetFile(file),
            )
            .and_then(|b| b.build())
            .map_err(|e| unreadable(&e))?;
            for batch in reader {
                push(batch.map_err(|e| e.to_string())?)?;
            }
        }
        Columnar::ArrowIpc => {
            check_ipc_blocks(path).map_err(|e| unreadable(&e))?;
            let reader =
                arrow_ipc::reader::FileReader::try_new(file, None).map_err(|e| unreadable(&e))?;
            for batch in reader {
                push(batch.map_err(|e| e.to_string())?)?;
            }
        }
    }
    Ok(table)
}

/// The requested columns of `batch`, cast.
fn typed_columns(
    batch: &RecordBatch,
    columns: &[Column<'_>],
) -> Result<Vec<Option<ArrayRef>>, String> {
    let schema = batch.schema();
    columns
        .iter()
        .map(|column| {
            let Ok(index) = schema.index_of(column.name) else {
                if !column.required {
                    return Ok(None);
                }
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                return Err(format!("no column `{}` (columns: {})", column.name, names.join(", ")));
            };
            let array = batch.column(index);
            if array.null_count() > 0 {
                return Err(format!(
                    "column `{}` has {} null values",
                    column.name,
                    array.null_count()
                ));
            }
            let to = match column.ty {
                ColumnType::Text => DataType::Utf8,
                ColumnType::F32 => DataType::Float32,
                ColumnType::I64 => DataType::Int64,
            };
            arrow_cast::cast(array, &to)
                .map(Some)
                .map_err(|e| format!("column `{}`: {e}", column.name))
        })
        .collect()
}

/// Checks that every block the footer of the Arrow IPC file at `path` lists lies inside
/// the file. The Arrow reader allocates a block's stated length before reading it, so a
/// corrupt length would abort the process on a failed allocation instead of failing.
fn check_ipc_blocks(path: &Path) -> Result<(), String> {
    use std::io::{Read, Seek, SeekFrom};

    // The file ends with the footer, its length (i32, little-endian) and `ARROW1`.
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len < 18 {
        return Err("too short".into());
    }
    let mut tail = [0u8; 10];
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

/// Catching a dependency's panic without its message on standard error: the error that
/// replaces it says what went wrong.
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
