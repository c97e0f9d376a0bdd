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
    caught(format, || read_batches(path, format, columns))
}

/// `read()`, with a panic of the file readers (a malformed file they do not catch)
/// turned into an error saying so.
fn caught<T>(format: Columnar, read: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    quiet_panics::catch(read).unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        Err(format!("malformed {} file ({reason})", format.name()))
    })
}

/// A matrix read from a columnar file by [`read_matrix`]: each row's id and values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matrix {
    /// The id of each row, as text (integers as their decimal text).
    pub ids: Vec<String>,
    /// The values per row.
    pub columns: usize,
    /// Row-major values, `ids.len() × columns`.
    pub values: Vec<f32>,
}

/// Reads a matrix with one row per id from the file at `path`: the column `id` (text or
/// integers) names the rows, and the values are either the one other column, a list or
/// fixed-size list of numbers of the same length on every row, or every other column, a
/// number each, in the file's column order. Numbers are read as `f32`.
///
/// # Errors
/// A message (without the file's name): the file cannot be read or is malformed, it has
/// no column `id` or no value column, a value is null or not a number, or lists differ
/// in length.
pub fn read_matrix(path: &Path, format: Columnar, id: &str) -> Result<Matrix, String> {
    caught(format, || {
        let mut matrix = Matrix::default();
        for_each_batch(path, format, |batch| push_matrix_rows(&mut matrix, &batch, id))?;
        Ok(matrix)
    })
}

/// Appends the rows of `batch` to `matrix` ([`read_matrix`]).
fn push_matrix_rows(matrix: &mut Matrix, batch: &RecordBatch, id: &str) -> Result<(), String> {
    let schema = batch.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let Ok(id_index) = schema.index_of(id) else {
        return Err(format!("no column `{id}` (columns: {})", names.join(", ")));
    };
    let ids = non_null(batch.column(id_index), id)?;
    let ids = arrow_cast::cast(ids, &DataType::Utf8).map_err(|e| format!("column `{id}`: {e}"))?;
    matrix.ids.extend(ids.as_string::<i32>().iter().map(|v| v.unwrap_or_default().to_string()));
    let values: Vec<usize> = (0..names.len()).filter(|&k| k != id_index).collect();
    let n = batch.num_rows();
    let mut set_columns = |columns: usize| {
        if matrix.ids.len() > n && matrix.columns != columns {
            return Err(format!("{columns} values per row after {}", matrix.columns));
        }
        matrix.columns = columns;
        Ok(())
    };
    match values[..] {
        [] => Err(format!("no value column beside `{id}` (columns: {})", names.join(", "))),
        [k] if matches!(
            schema.field(k).data_type(),
            DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..)
        ) =>
        {
            let name = names[k];
            let lists = non_null(batch.column(k), name)?;
            let (offsets, flat): (Vec<usize>, ArrayRef) = match lists.data_type() {
                DataType::FixedSizeList(_, width) => {
                    let lists = lists.as_fixed_size_list();
                    let (width, first) = (*width as usize, lists.value_offset(0) as usize);
                    ((0..=n).map(|r| first + r * width).collect(), lists.values().clone())
                }
                DataType::List(_) => {
                    let lists = lists.as_list::<i32>();
                    (
                        lists.value_offsets().iter().map(|&o| o as usize).collect(),
                        lists.values().clone(),
                    )
                }
                _ => {
                    let lists = lists.as_list::<i64>();
                    (
                        lists.value_offsets().iter().map(|&o| o as usize).collect(),
                        lists.values().clone(),
                    )
                }
            };
            let flat = numbers(non_null(&flat, name)?, name)?;
            let flat = flat.as_primitive::<Float32Type>().values();
            let width = offsets.get(1).map_or(0, |end| end - offsets[0]);
            for (r, bounds) in offsets.windows(2).enumerate() {
                if bounds[1] - bounds[0] != width {
                    return Err(format!(
                        "column `{name}`: a list of {} values on row {} where the first has {width}",
                        bounds[1] - bounds[0],
                        matrix.ids.len() - n + r + 1
                    ));
                }
            }
            set_columns(width)?;
            matrix.values.extend_from_slice(&flat[offsets[0]..offsets[n]]);
            Ok(())
        }
        _ => {
            let mut cast = Vec::with_capacity(values.len());
            for &k in &values {
                cast.push(numbers(non_null(batch.column(k), names[k])?, names[k])?);
            }
            set_columns(values.len())?;
            let columns: Vec<&[f32]> =
                cast.iter().map(|c| &c.as_primitive::<Float32Type>().values()[..]).collect();
            matrix.values.extend((0..n).flat_map(|r| columns.iter().map(move |c| c[r])));
            Ok(())
        }
    }
}

/// `array` cast to `f32`, or an error naming column `name` when a value is not a number
/// (a strict cast: text that is no number is an error, not a null).
fn numbers(array: &ArrayRef, name: &str) -> Result<ArrayRef, String> {
    let strict = arrow_cast::CastOptions { safe: false, ..Default::default() };
    arrow_cast::cast_with_options(array, &DataType::Float32, &strict)
        .map_err(|e| format!("column `{name}`: {e}"))
}

/// `array`, or an error when it holds a null.
fn non_null<'a>(array: &'a ArrayRef, name: &str) -> Result<&'a ArrayRef, String> {
    match array.null_count() {
        0 => Ok(array),
        nulls => Err(format!("column `{name}` has {nulls} null values")),
    }
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
    let mut table = Table::default();
    for_each_batch(path, format, |batch| {
        table.batches.push(typed_columns(&batch, columns)?);
        Ok(())
    })?;
    Ok(table)
}

/// Calls `f` on every record batch of the file at `path`, in file order.
fn for_each_batch(
    path: &Path,
    format: Columnar,
    mut f: impl FnMut(RecordBatch) -> Result<(), String>,
) -> Result<(), String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let unreadable =
        |e: &dyn std::fmt::Display| format!("not a readable {} file: {e}", format.name());
    match format {
        Columnar::Parquet => {
            let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                ParquetFile(file),
            )
            .and_then(|b| b.build())
            .map_err(|e| unreadable(&e))?;
            for batch in reader {
                f(batch.map_err(|e| e.to_string())?)?;
            }
        }
        Columnar::ArrowIpc => {
            check_ipc_blocks(path).map_err(|e| unreadable(&e))?;
            let reader =
                arrow_ipc::reader::FileReader::try_new(file, None).map_err(|e| unreadable(&e))?;
            for batch in reader {
                f(batch.map_err(|e| e.to_string())?)?;
            }
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{FixedSizeListBuilder, Float64Builder, ListBuilder};
    use arrow_array::{Float32Array, Float64Array, Int64Array, StringArray};

    use super::*;

    /// Writes `columns` as a Parquet file in a folder of the test's own and reads its matrix.
    fn matrix_of(name: &str, columns: Columns) -> Result<Matrix, String> {
        let dir =
            std::env::temp_dir().join(format!("recs-core-matrix-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("factors.parquet");
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(
            File::create(&path).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let read = read_matrix(&path, Columnar::Parquet, "id");
        std::fs::remove_dir_all(&dir).unwrap();
        read
    }

    /// Named columns of a file to write.
    type Columns = Vec<(&'static str, ArrayRef)>;

    fn ids() -> ArrayRef {
        Arc::new(StringArray::from(vec!["u1", "u2"]))
    }

    #[test]
    fn a_matrix_is_one_column_per_dimension_or_one_list_column() {
        let expected = Matrix {
            ids: vec!["u1".into(), "u2".into()],
            columns: 2,
            values: vec![0.5, -1.0, 2.0, 3.0],
        };
        // One number column per dimension, in file order, of any numeric type.
        let per_dimension = matrix_of(
            "columns",
            vec![
                ("f0", Arc::new(Float64Array::from(vec![0.5, 2.0])) as ArrayRef),
                ("id", ids()),
                ("f1", Arc::new(Float32Array::from(vec![-1.0, 3.0]))),
            ],
        );
        assert_eq!(per_dimension.unwrap(), expected);
        // A list column.
        let mut lists = ListBuilder::new(Float64Builder::new());
        for row in [[0.5, -1.0], [2.0, 3.0]] {
            lists.values().append_slice(&row);
            lists.append(true);
        }
        let listed = matrix_of("list", vec![("id", ids()), ("v", Arc::new(lists.finish()))]);
        assert_eq!(listed.unwrap(), expected);
        // A fixed-size list column.
        let mut fixed = FixedSizeListBuilder::new(Float64Builder::new(), 2);
        for row in [[0.5, -1.0], [2.0, 3.0]] {
            fixed.values().append_slice(&row);
            fixed.append(true);
        }
        let fixed = matrix_of("fixed", vec![("id", ids()), ("v", Arc::new(fixed.finish()))]);
        assert_eq!(fixed.unwrap(), expected);
        // Integer ids read as their decimal text.
        let numbered = matrix_of(
            "int-ids",
            vec![
                ("id", Arc::new(Int64Array::from(vec![7, 9])) as ArrayRef),
                ("f0", Arc::new(Float64Array::from(vec![1.0, 2.0]))),
            ],
        );
        assert_eq!(numbered.unwrap().ids, ["7", "9"]);
    }

    #[test]
    fn a_malformed_matrix_is_refused_with_its_reason() {
        let number = |v: Vec<Option<f64>>| Arc::new(Float64Array::from(v)) as ArrayRef;
        let cases: Vec<(&str, Columns, &str)> = vec![
            (
                "no-id",
                vec![("user", ids()), ("f0", number(vec![Some(1.0), Some(2.0)]))],
                "no column `id` (columns: user, f0)",
            ),
            ("no-values", vec![("id", ids())], "no value column beside `id` (columns: id)"),
            (
                "null",
                vec![("id", ids()), ("f0", number(vec![Some(1.0), None]))],
                "column `f0` has 1 null values",
            ),
            (
                "text",
                vec![
                    ("id", ids()),
                    ("f0", Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef),
                ],
                "column `f0`:",
            ),
        ];
        for (name, columns, expected) in cases {
            let error = matrix_of(name, columns).unwrap_err();
            assert!(error.starts_with(expected), "{name}: {error}");
        }
        let mut ragged = ListBuilder::new(Float64Builder::new());
        ragged.values().append_slice(&[1.0, 2.0]);
        ragged.append(true);
        ragged.values().append_slice(&[3.0]);
        ragged.append(true);
        let error = matrix_of("ragged", vec![("id", ids()), ("v", Arc::new(ragged.finish()))]);
        assert_eq!(
            error.unwrap_err(),
            "column `v`: a list of 1 values on row 2 where the first has 2"
        );
    }
}
