//! Interaction files in Parquet or Arrow IPC: columns `user` and `item` (any integer or
//! string type), and optionally `rating` (any numeric type; without it the feedback is
//! implicit, every event 1) and `timestamp` (an integer). Read wherever a delimited file
//! is ([`crate::load_delimited`] recognises the format from the file's first bytes);
//! the format's scale and duplicate policy apply as to text, row `n` is line `n` in
//! errors. Reading needs the `columnar` feature.

use std::path::Path;

use recs_core::columnar::Columnar;

use crate::delimited::{DelimitedFormat, Parsed};
use crate::error::{DataError, Result};

/// The events of the columnar interaction file at `path`, and the format describing what
/// it held (rating and timestamp columns present or not).
#[cfg(feature = "columnar")]
pub(crate) fn read_events(
    path: &Path,
    kind: Columnar,
    format: &DelimitedFormat,
) -> Result<(Parsed, DelimitedFormat)> {
    use recs_core::columnar::{Column, ColumnType, read_columns};
    use recs_core::{Event, IdMap};

    use crate::delimited::{check_rating, finish_events};

    let column = |name, ty, required| Column { name, ty, required };
    let columns = [
        column("user", ColumnType::Text, true),
        column("item", ColumnType::Text, true),
        column("rating", ColumnType::F32, false),
        column("timestamp", ColumnType::I64, false),
    ];
    let table = read_columns(path, kind, &columns)
        .map_err(|message| DataError::Columnar { file: path.to_path_buf(), message })?;
    let first = table.rows().next();
    // Ratings are read when the format wants them and the file has them.
    let has_rating = format.rating_column.is_some() && first.is_some_and(|r| r.f32(2).is_some());
    let has_timestamp = first.is_some_and(|r| r.i64(3).is_some());
    let mut held = format.clone();
    held.rating_column = has_rating.then_some(2);
    held.timestamp_column = has_timestamp.then_some(3);
    let (mut users, mut items) = (IdMap::new(), IdMap::new());
    let mut events = Vec::with_capacity(table.len());
    for (k, row) in table.rows().enumerate() {
        let line = k + 1;
        let id = |c: usize, what: &str| match row.text(c).map(str::trim) {
            Some(id) if !id.is_empty() => Ok(id),
            _ => Err(DataError::parse(path, line, format!("a non-empty {what}"), "")),
        };
        let user = users.insert(id(0, "user id")?)?;
        let item = items.insert(id(1, "item id")?)?;
        let value = match row.f32(2).filter(|_| has_rating) {
            Some(rating) => check_rating(path, line, rating, format.scale)?,
            None => 1.0,
        };
        events.push(match row.i64(3) {
            Some(t) => Event::at(user, item, value, t),
            None => Event::new(user, item, value),
        });
    }
    let parsed = finish_events(path, &held, events, (users, None), (items, None), |u, i| {
        let mut lines = table.rows().enumerate().filter_map(|(k, row)| {
            (row.text(0).map(str::trim) == Some(&u) && row.text(1).map(str::trim) == Some(&i))
                .then_some(k + 1)
        });
        let (first_line, second_line) = (lines.next().unwrap_or(0), lines.next().unwrap_or(0));
        Ok(DataError::DuplicateEvent {
            file: path.to_path_buf(),
            user: u,
            item: i,
            first_line,
            second_line,
        })
    })?;
    Ok((parsed, held))
}

/// Without the `columnar` feature: the error saying how to read the file.
#[cfg(not(feature = "columnar"))]
pub(crate) fn read_events(
    path: &Path,
    kind: Columnar,
    _format: &DelimitedFormat,
) -> Result<(Parsed, DelimitedFormat)> {
    Err(DataError::Columnar {
        file: path.to_path_buf(),
        message: format!(
            "a {} file; this build reads text files only (enable the `columnar` feature)",
            kind.name()
        ),
    })
}

#[cfg(all(test, feature = "columnar"))]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};

    use crate::{DelimitedFormat, load_delimited, parse_delimited};

    fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) {
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let file = std::fs::File::create(path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    use std::path::Path;

    fn ints(values: &[i64]) -> ArrayRef {
        Arc::new(Int64Array::from(values.to_vec()))
    }

    fn texts(values: &[&str]) -> ArrayRef {
        Arc::new(StringArray::from(values.to_vec()))
    }

    fn floats(values: &[f64]) -> ArrayRef {
        Arc::new(Float64Array::from(values.to_vec()))
    }

    /// A Parquet file reads as the text file with the same rows: ids (integers as their
    /// text), ratings, timestamps, canonical id order.
    #[test]
    fn a_parquet_file_reads_as_its_text_equivalent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ratings.parquet");
        write_parquet(
            &path,
            vec![
                ("user", ints(&[10, 2, 2])),
                ("item", texts(&["b", "a", "c"])),
                ("rating", floats(&[4.0, 3.5, 5.0])),
                ("timestamp", ints(&[100, 50, 70])),
            ],
        );
        let format = DelimitedFormat::detected();
        let parquet = load_delimited(&path, &format).unwrap();
        let text = parse_delimited(b"10\tb\t4\t100\n2\ta\t3.5\t50\n2\tc\t5\t70\n", "t", &{
            format.clone().timestamp(Some(3))
        })
        .unwrap();
        assert_eq!(parquet.users, text.users);
        assert_eq!(parquet.items, text.items);
        let events = |d: &crate::Dataset| d.interactions.events().collect::<Vec<_>>();
        assert_eq!(events(&parquet), events(&text));
        assert_eq!(parquet.feedback, text.feedback);
        // Without a rating column, or when the format reads none: implicit feedback.
        write_parquet(&path, vec![("item", texts(&["a", "b"])), ("user", ints(&[1, 1]))]);
        let implicit = load_delimited(&path, &format).unwrap();
        assert_eq!(implicit.feedback, crate::Feedback::Implicit);
        assert_eq!(implicit.n_events(), 2);
    }

    #[test]
    fn bad_columnar_files_are_errors_naming_the_file_and_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.parquet");
        let format = DelimitedFormat::detected();
        let error = |columns| {
            write_parquet(&path, columns);
            load_delimited(&path, &format).unwrap_err().to_string()
        };
        let e = error(vec![("user", ints(&[1])), ("movie", texts(&["a"]))]);
        assert!(
            e.contains("r.parquet") && e.contains("no column `item` (columns: user, movie)"),
            "{e}"
        );
        let e = error(vec![("user", ints(&[1, 1])), ("item", texts(&["a", "a"]))]);
        assert!(e.contains("r.parquet") && e.contains("lines 1 and 2"), "{e}");
        let scaled = DelimitedFormat::detected().scale(1.0, 5.0).unwrap();
        write_parquet(
            &path,
            vec![
                ("user", ints(&[1, 2])),
                ("item", texts(&["a", "b"])),
                ("rating", floats(&[3.0, 9.0])),
            ],
        );
        let e = load_delimited(&path, &scaled).unwrap_err().to_string();
        assert!(e.contains("r.parquet:2:") && e.contains("between 1 and 5"), "{e}");
        let e = error(vec![("user", texts(&["1", " "])), ("item", texts(&["a", "b"]))]);
        assert!(e.contains("r.parquet:2:") && e.contains("user id"), "{e}");
    }
}
