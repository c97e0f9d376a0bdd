//! Generic delimited interaction files: `user<D>item[<D>rating][<D>timestamp]` lines.

use std::io::BufRead;
use std::path::Path;

use derive_setters::Setters;
use recs_core::{DuplicatePolicy, Event, IdMap, Interactions, RecsError};

use crate::dataset::{Dataset, Feedback};
use crate::error::{DataError, Result};
use crate::lines::{Lines, split_into, trim};

/// How to read a delimited interaction file.
///
/// Defaults of [`DelimitedFormat::new`] (ours): no header, user in field 0, item in
/// field 1, rating in field 2, no timestamp, any number of fields as long as the used
/// ones exist, no rating scale check, duplicates are an error.
///
/// ```
/// use recs_data::DelimitedFormat;
/// let format = DelimitedFormat::new(",")?.header(true).timestamp(Some(3)).scale(0.5, 5.0)?;
/// let data = recs_data::parse_delimited(
///     b"userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n1,1029,3.0,1260759179\n",
///     "ratings.csv",
///     &format,
/// )?;
/// assert_eq!((data.n_users(), data.n_items(), data.n_events()), (1, 2, 2));
/// # Ok::<(), recs_data::DataError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Setters)]
pub struct DelimitedFormat {
    /// `None`: found from the file ([`DelimitedFormat::detected`]).
    #[setters(skip)]
    delimiter: Option<Vec<u8>>,
    /// Whether the first non-blank line is a header to skip (`None`: found from the file).
    #[setters(strip_option)]
    header: Option<bool>,
    #[setters(skip)]
    user_column: usize,
    #[setters(skip)]
    item_column: usize,
    /// Column of the rating; `None` reads implicit feedback (every event is `1.0`).
    #[setters(rename = "rating")]
    pub(crate) rating_column: Option<usize>,
    /// Column of a timestamp (an integer), if any.
    #[setters(rename = "timestamp")]
    pub(crate) timestamp_column: Option<usize>,
    /// Every line must have exactly `n` fields.
    #[setters(rename = "fields", strip_option)]
    n_fields: Option<usize>,
    #[setters(skip)]
    pub(crate) scale: Option<(f32, f32)>,
    /// What to do with a (user, item) pair seen twice.
    duplicates: DuplicatePolicy,
}

impl DelimitedFormat {
    /// A format with the given field delimiter (one or more bytes: `"\t"`, `","`, `"::"`).
    ///
    /// # Errors
    /// An empty delimiter, or one containing a line break.
    pub fn new(delimiter: &str) -> Result<Self> {
        if delimiter.is_empty() || delimiter.contains(['\n', '\r']) {
            return Err(DataError::invalid(
                "delimiter",
                format!("{delimiter:?}"),
                "a non-empty string without line breaks",
            ));
        }
        Ok(DelimitedFormat {
            delimiter: Some(delimiter.as_bytes().to_vec()),
            header: Some(false),
            ..Self::detected()
        })
    }

    /// A format whose delimiter and header line are found from the file's first two
    /// records when it is read: the delimiter is the first of tab, `::`, comma and
    /// semicolon that the first record holds; the first record is a header when a user,
    /// item or rating field of it is not a number where the second record's is, or when
    /// its user field is named like one (`user`, `userId`, `user_id`, `uid`). Otherwise as
    /// [`DelimitedFormat::new`]. A header of text ids over text ids cannot be told from
    /// data: say so with [`header`](Self::header).
    ///
    /// ```
    /// use recs_data::{DelimitedFormat, parse_delimited};
    /// let csv = b"userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n";
    /// let data = parse_delimited(csv, "ratings.csv", &DelimitedFormat::detected())?;
    /// assert_eq!((data.n_users(), data.n_events()), (1, 1));
    /// let tsv = b"u1\ta\t4\nu2\tb\t5\n";
    /// assert_eq!(parse_delimited(tsv, "u.tsv", &DelimitedFormat::detected())?.n_events(), 2);
    /// # Ok::<(), recs_data::DataError>(())
    /// ```
    pub fn detected() -> Self {
        DelimitedFormat {
            delimiter: None,
            header: None,
            user_column: 0,
            item_column: 1,
            rating_column: Some(2),
            timestamp_column: None,
            n_fields: None,
            scale: None,
            duplicates: DuplicatePolicy::Error,
        }
    }

    /// MovieLens 100K `u.data`: `user\titem\trating\ttimestamp`, ratings 1–5.
    pub fn movielens_100k() -> Self {
        Self::fixed("\t", 4, (1.0, 5.0))
    }

    /// MovieLens 1M `ratings.dat`: `user::item::rating::timestamp`, ratings 1–5.
    pub fn movielens_1m() -> Self {
        Self::fixed("::", 4, (1.0, 5.0))
    }

    /// MovieLens 10M `ratings.dat`: `user::item::rating::timestamp`, half stars 0.5–5.
    pub fn movielens_10m() -> Self {
        Self::fixed("::", 4, (0.5, 5.0))
    }

    /// MovieLens 20M / 25M / latest `ratings.csv`: header
    /// `userId,movieId,rating,timestamp`, half stars 0.5–5.
    pub fn movielens_csv() -> Self {
        DelimitedFormat { header: Some(true), ..Self::fixed(",", 4, (0.5, 5.0)) }
    }

    fn fixed(delimiter: &str, n_fields: usize, scale: (f32, f32)) -> Self {
        DelimitedFormat {
            delimiter: Some(delimiter.as_bytes().to_vec()),
            header: Some(false),
            timestamp_column: Some(3),
            n_fields: Some(n_fields),
            scale: Some(scale),
            ..Self::detected()
        }
    }

    /// Finds out from the file whether its first record is a header, as
    /// [`DelimitedFormat::detected`] does.
    pub fn detect_header(mut self) -> Self {
        self.header = None;
        self
    }

    /// Columns (0-based) of the user and item ids.
    pub fn columns(mut self, user: usize, item: usize) -> Self {
        self.user_column = user;
        self.item_column = item;
        self
    }

    /// Ratings must lie in `[min, max]`.
    ///
    /// # Errors
    /// When `min > max` or either bound is not finite.
    pub fn scale(mut self, min: f32, max: f32) -> Result<Self> {
        if !(min.is_finite() && max.is_finite() && min <= max) {
            return Err(DataError::invalid("scale", format!("{min}..{max}"), "finite min <= max"));
        }
        self.scale = Some((min, max));
        Ok(self)
    }

    /// What the values of files in this format mean.
    pub fn feedback(&self) -> Feedback {
        match (self.rating_column, self.scale) {
            (None, _) => Feedback::Implicit,
            (Some(_), Some((min, max))) => Feedback::Explicit { min, max },
            (Some(_), None) => Feedback::Explicit { min: f32::NEG_INFINITY, max: f32::INFINITY },
        }
    }

    fn required_fields(&self) -> usize {
        let mut max = self.user_column.max(self.item_column);
        max = max.max(self.rating_column.unwrap_or(0));
        max = max.max(self.timestamp_column.unwrap_or(0));
        max + 1
    }

    fn describe_fields(&self) -> String {
        let delimiter = String::from_utf8_lossy(self.delimiter.as_deref().unwrap_or(b"\t"));
        match self.n_fields {
            Some(n) => format!("{n} fields separated by {delimiter:?}"),
            None => {
                format!("at least {} fields separated by {delimiter:?}", self.required_fields())
            }
        }
    }
}

/// A user field that names the column instead of holding an id.
const USER_HEADERS: [&str; 3] = ["user", "userid", "uid"];

impl DelimitedFormat {
    /// This format with its delimiter and header found from `lines` (the file's start)
    /// where [`DelimitedFormat::detected`] left them open.
    fn resolve<R: BufRead>(&self, mut lines: Lines<R>) -> Result<DelimitedFormat> {
        let mut first: Vec<u8> = Vec::new();
        let mut second: Option<Vec<u8>> = None;
        if let Some((_, line)) = lines.next_record()? {
            first = line.to_vec();
            second = lines.next_record()?.map(|(_, line)| line.to_vec());
        }
        let delimiter = self.delimiter.clone().unwrap_or_else(|| {
            let holds = |d: &[u8]| first.windows(d.len()).any(|w| w == d);
            let found = [&b"\t"[..], b"::", b",", b";"].into_iter().find(|d| holds(d));
            found.unwrap_or(b"\t").to_vec()
        });
        let header = self.header.unwrap_or_else(|| {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let first_fields = split_into(&first, &delimiter, &mut a);
            let number = |f: Option<&[u8]>| {
                f.and_then(|f| std::str::from_utf8(trim(f)).ok())
                    .is_some_and(|t| t.parse::<f64>().is_ok())
            };
            let named_user = first_fields.get(self.user_column).is_some_and(|f| {
                let name = String::from_utf8_lossy(trim(f)).to_ascii_lowercase().replace('_', "");
                USER_HEADERS.contains(&name.as_str())
            });
            let columns = [Some(self.user_column), Some(self.item_column), self.rating_column];
            let text_over_numbers = second.as_ref().is_some_and(|second| {
                let second_fields = split_into(second, &delimiter, &mut b);
                columns
                    .into_iter()
                    .flatten()
                    .any(|c| !number(first_fields.get(c)) && number(second_fields.get(c)))
            });
            named_user || text_over_numbers
        });
        Ok(DelimitedFormat { delimiter: Some(delimiter), header: Some(header), ..self.clone() })
    }
}

/// Parses delimited interaction lines held in memory; `label` names them in errors.
///
/// # Errors
/// As `load_delimited` (the file reader).
pub fn parse_delimited(bytes: &[u8], label: &str, format: &DelimitedFormat) -> Result<Dataset> {
    let parsed = read_events(&|| Ok(bytes), Path::new(label), format, None, None)?;
    parsed.into_dataset(label.to_string(), format)
}

pub(crate) fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
}

/// Events read from one file with their id maps.
pub(crate) struct Parsed {
    pub(crate) interactions: Interactions,
    pub(crate) users: IdMap,
    pub(crate) items: IdMap,
}

impl Parsed {
    pub(crate) fn into_dataset(self, name: String, format: &DelimitedFormat) -> Result<Dataset> {
        Dataset::new(name, self.interactions, self.users, self.items, format.feedback())
    }
}

/// Reads every event of a delimited source.
///
/// `open` gives a fresh reader over the source; it is called again only to locate the two
/// lines of a duplicate pair for the error message. When `declared_users` /
/// `declared_items` are given, ids must already be in them (an unknown id is an error at
/// its line) and the result uses them as they are; otherwise the maps are built from the
/// file and made canonical.
pub(crate) fn read_events<R: BufRead>(
    open: &dyn Fn() -> Result<R>,
    file: &Path,
    format: &DelimitedFormat,
    declared_users: Option<&IdMap>,
    declared_items: Option<&IdMap>,
) -> Result<Parsed> {
    let resolved = match (&format.delimiter, format.header) {
        (Some(_), Some(_)) => format.clone(),
        _ => format.resolve(Lines::new(open()?, file))?,
    };
    let format = &resolved;
    let delimiter = format.delimiter.as_deref().unwrap_or(b"\t");
    let mut lines = Lines::new(open()?, file).with_header(format.header == Some(true));
    let mut users = IdMap::new();
    let mut items = IdMap::new();
    let mut events: Vec<Event> = Vec::new();
    let mut ranges = Vec::with_capacity(8);
    let required = format.required_fields();
    while let Some((line_no, line)) = lines.next_record()? {
        let fields = split_into(line, delimiter, &mut ranges);
        let count_ok = match format.n_fields {
            Some(n) => fields.len() == n,
            None => fields.len() >= required,
        };
        if !count_ok {
            return Err(DataError::parse(file, line_no, format.describe_fields(), line));
        }
        let user_id = id_field(file, line_no, fields.at(format.user_column), "user id")?;
        let item_id = id_field(file, line_no, fields.at(format.item_column), "item id")?;
        let user = match declared_users {
            Some(map) => map.get(user_id).ok_or_else(|| {
                DataError::parse(file, line_no, "a user id declared in the user file", user_id)
            })?,
            None => users.insert(user_id)?,
        };
        let item = match declared_items {
            Some(map) => map.get(item_id).ok_or_else(|| {
                DataError::parse(file, line_no, "an item id declared in the item file", item_id)
            })?,
            None => items.insert(item_id)?,
        };
        let value = match format.rating_column {
            None => 1.0,
            Some(c) => rating_field(file, line_no, fields.at(c), format.scale)?,
        };
        let event = match format.timestamp_column {
            None => Event::new(user, item, value),
            Some(c) => Event::at(user, item, value, timestamp_field(file, line_no, fields.at(c))?),
        };
        events.push(event);
    }
    finish_events(file, format, events, (users, declared_users), (items, declared_items), |u, i| {
        locate_duplicate(open, file, format, u, i)
    })
}

/// The interactions of `events` read from `file`: ids numbered in canonical order (unless
/// declared maps were given), duplicates handled by `format`'s policy. `locate(user,
/// item)` builds the error of a duplicate pair.
pub(crate) fn finish_events(
    file: &Path,
    format: &DelimitedFormat,
    mut events: Vec<Event>,
    (users, declared_users): (IdMap, Option<&IdMap>),
    (items, declared_items): (IdMap, Option<&IdMap>),
    locate: impl FnOnce(String, String) -> Result<DataError>,
) -> Result<Parsed> {
    if events.is_empty() {
        return Err(DataError::EmptyFile {
            file: file.to_path_buf(),
            expected: format.describe_fields(),
        });
    }
    let (users, user_remap) = match declared_users {
        Some(map) => (map.clone(), None),
        None => {
            let (map, remap) = users.canonical()?;
            (map, Some(remap))
        }
    };
    let (items, item_remap) = match declared_items {
        Some(map) => (map.clone(), None),
        None => {
            let (map, remap) = items.canonical()?;
            (map, Some(remap))
        }
    };
    if user_remap.is_some() || item_remap.is_some() {
        for e in &mut events {
            if let Some(r) = &user_remap {
                e.user = r[e.user as usize];
            }
            if let Some(r) = &item_remap {
                e.item = r[e.item as usize];
            }
        }
    }
    match Interactions::from_events(users.len(), items.len(), events, format.duplicates) {
        Ok(interactions) => Ok(Parsed { interactions, users, items }),
        Err(RecsError::DuplicateEvent { user, item }) => {
            let user = users.external(user).unwrap_or_default().to_string();
            let item = items.external(item).unwrap_or_default().to_string();
            Err(locate(user, item)?)
        }
        Err(e) => Err(e.into()),
    }
}

/// Finds the first two lines holding (`user`, `item`) and builds the duplicate error.
fn locate_duplicate<R: BufRead>(
    open: &dyn Fn() -> Result<R>,
    file: &Path,
    format: &DelimitedFormat,
    user: String,
    item: String,
) -> Result<DataError> {
    let mut lines = Lines::new(open()?, file).with_header(format.header == Some(true));
    let delimiter = format.delimiter.as_deref().unwrap_or(b"\t");
    let mut ranges = Vec::new();
    let mut found: Vec<usize> = Vec::new();
    while let Some((line_no, line)) = lines.next_record()? {
        let fields = split_into(line, delimiter, &mut ranges);
        let u = fields.get(format.user_column).map(trim);
        let i = fields.get(format.item_column).map(trim);
        if u == Some(user.as_bytes()) && i == Some(item.as_bytes()) {
            found.push(line_no);
            if found.len() == 2 {
                break;
            }
        }
    }
    Ok(DataError::DuplicateEvent {
        file: file.to_path_buf(),
        user,
        item,
        first_line: found.first().copied().unwrap_or(0),
        second_line: found.get(1).copied().unwrap_or(0),
    })
}

/// A non-empty UTF-8 id, trimmed of spaces.
pub(crate) fn id_field<'a>(
    file: &Path,
    line: usize,
    field: &'a [u8],
    what: &str,
) -> Result<&'a str> {
    let field = trim(field);
    if field.is_empty() {
        return Err(DataError::parse(file, line, format!("a non-empty {what}"), field));
    }
    std::str::from_utf8(field)
        .map_err(|_| DataError::parse(file, line, format!("a {what} in valid UTF-8"), field))
}

/// A finite rating within `scale`.
pub(crate) fn rating_field(
    file: &Path,
    line: usize,
    field: &[u8],
    scale: Option<(f32, f32)>,
) -> Result<f32> {
    let field = trim(field);
    let value: f32 = std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| DataError::parse(file, line, "a numeric rating", field))?;
    check_rating(file, line, value, scale)
}

/// `value` if it is a finite rating within `scale`.
pub(crate) fn check_rating(
    file: &Path,
    line: usize,
    value: f32,
    scale: Option<(f32, f32)>,
) -> Result<f32> {
    if !value.is_finite() {
        return Err(DataError::parse(file, line, "a numeric rating", value.to_string()));
    }
    if let Some((min, max)) = scale
        && !(min..=max).contains(&value)
    {
        let expected = format!("a rating between {min} and {max}");
        return Err(DataError::parse(file, line, expected, value.to_string()));
    }
    Ok(value)
}

/// An integer timestamp.
pub(crate) fn timestamp_field(file: &Path, line: usize, field: &[u8]) -> Result<i64> {
    let field = trim(field);
    std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| DataError::parse(file, line, "an integer timestamp", field))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tab() -> DelimitedFormat {
        DelimitedFormat::movielens_100k()
    }

    fn err(bytes: &[u8], format: &DelimitedFormat) -> String {
        parse_delimited(bytes, "f.tsv", format).unwrap_err().to_string()
    }

    #[test]
    fn delimiter_and_header_are_found_from_the_first_records() {
        // (file, implicit, events, first user id): the header, when found, is not an event.
        let cases: [(&[u8], bool, usize, &str); 8] = [
            (b"userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n2,10,4,1\n", false, 2, "1"),
            (b"196\t242\t3\t881250949\n186\t302\t3\t891717742\n", false, 2, "186"),
            (b"1::1193::5::978300760\n1::661::3::978302109\n", false, 2, "1"),
            (b"user;item;rating\nu1;a;4\nu2;b;5\n", false, 2, "u1"),
            (b"user_id,item_id\nu1,a\nu2,b\n", true, 2, "u1"),
            (b"u1,a\nu2,b\n", true, 2, "u1"),
            (b"u1\ta\t4\n", false, 1, "u1"),
            (b"\n\nuid\titem\n\n7\t8\n", true, 1, "7"),
        ];
        for (bytes, implicit, events, user) in cases {
            let format = DelimitedFormat::detected();
            let format = if implicit { format.rating(None) } else { format };
            let text = String::from_utf8_lossy(bytes);
            let data =
                parse_delimited(bytes, "f", &format).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(data.n_events(), events, "{text}");
            assert_eq!(data.users.external(0), Some(user), "{text}");
        }
        // What is given is not second-guessed: a first record forced to be data.
        let given = DelimitedFormat::detected().header(false).rating(None);
        let data = parse_delimited(b"user,item\nu1,a\n", "f", &given).unwrap();
        assert_eq!(data.n_events(), 2);
        // A detected delimiter appears in errors as the one used.
        let e = err(b"a;b\nc;d\n", &DelimitedFormat::detected().header(false));
        assert!(e.starts_with("f.tsv:1: expected at least 3 fields separated by \";\""), "{e}");
    }

    #[test]
    fn reads_ratings_timestamps_and_canonical_ids() {
        let d =
            parse_delimited(b"10\t5\t3\t100\n2\t7\t4\t200\n10\t7\t5\t300\n", "f", &tab()).unwrap();
        assert_eq!(d.users.iter().collect::<Vec<_>>(), ["2", "10"]);
        assert_eq!(d.items.iter().collect::<Vec<_>>(), ["5", "7"]);
        assert_eq!(d.interactions.get(1, 0), Some(3.0));
        assert_eq!(d.interactions.get(0, 1), Some(4.0));
        assert_eq!(d.interactions.user_row(1).timestamps, Some(&[100, 300][..]));
        assert_eq!(d.feedback, Feedback::Explicit { min: 1.0, max: 5.0 });
    }

    #[test]
    fn implicit_files_read_ones_and_ignore_extra_fields() {
        let f = DelimitedFormat::new(" ").unwrap().rating(None);
        let d = parse_delimited(b"a x junk\nb y\n\n", "f", &f).unwrap();
        assert_eq!(d.n_events(), 2);
        assert_eq!(d.interactions.user_values(0), &[1.0]);
        assert_eq!(d.feedback, Feedback::Implicit);
    }

    #[test]
    fn headers_and_crlf_are_handled() {
        let f = DelimitedFormat::movielens_csv();
        let d =
            parse_delimited(b"userId,movieId,rating,timestamp\r\n1,2,0.5,9\r\n", "f", &f).unwrap();
        assert_eq!(d.interactions.get(0, 0), Some(0.5));
    }

    #[test]
    fn wrong_field_count_names_file_line_and_format() {
        let e = err(b"1\t2\t3\t4\n1\t2\t3\n", &tab());
        assert!(e.starts_with("f.tsv:2: expected 4 fields separated by \"\\t\""), "{e}");
    }

    #[test]
    fn non_numeric_and_out_of_scale_ratings_are_errors() {
        assert!(err(b"1\t2\tx\t4\n", &tab()).contains("f.tsv:1: expected a numeric rating"));
        assert!(err(b"1\t2\tNaN\t4\n", &tab()).contains("numeric rating"));
        let e = err(b"1\t2\t3\t4\n1\t3\t6\t4\n", &tab());
        assert!(e.contains("f.tsv:2: expected a rating between 1 and 5, found \"6\""), "{e}");
    }

    #[test]
    fn bad_timestamps_and_ids_are_errors() {
        assert!(err(b"1\t2\t3\tyesterday\n", &tab()).contains("integer timestamp"));
        assert!(err(b"\t2\t3\t4\n", &tab()).contains("non-empty user id"));
        assert!(err(b"1\t\xff\t3\t4\n", &tab()).contains("item id in valid UTF-8"));
    }

    #[test]
    fn empty_input_is_an_error() {
        assert!(err(b"", &tab()).contains("holds no data"));
        assert!(err(b"\n  \n", &tab()).contains("holds no data"));
        let header_only = DelimitedFormat::movielens_csv();
        assert!(err(b"userId,movieId,rating,timestamp\n", &header_only).contains("no data"));
    }

    #[test]
    fn duplicates_name_both_lines_or_follow_the_policy() {
        let bytes = b"1\t2\t3\t4\n5\t6\t1\t1\n1\t2\t5\t9\n";
        let e = err(bytes, &tab());
        assert!(
            e.contains("duplicate event for user 1 and item 2 (lines 1 and 3)"),
            "unexpected message: {e}"
        );
        let last = tab().duplicates(DuplicatePolicy::KeepLast);
        let d = parse_delimited(bytes, "f", &last).unwrap();
        assert_eq!(d.interactions.get(0, 0), Some(5.0));
    }

    #[test]
    fn invalid_options_are_errors() {
        assert!(DelimitedFormat::new("").is_err());
        assert!(DelimitedFormat::new("\n").is_err());
        assert!(DelimitedFormat::new(",").unwrap().scale(5.0, 1.0).is_err());
    }

    #[test]
    fn multi_byte_delimiter_reads_movielens_1m() {
        let d = parse_delimited(
            b"1::1193::5::978300760\n1::661::3::978302109\n",
            "r",
            &DelimitedFormat::movielens_1m(),
        )
        .unwrap();
        assert_eq!(d.items.iter().collect::<Vec<_>>(), ["661", "1193"]);
        let ten = DelimitedFormat::movielens_10m();
        let d = parse_delimited(b"1::1193::4.5::978300760\n", "r", &ten).unwrap();
        assert_eq!(d.interactions.get(0, 0), Some(4.5));
    }

    proptest! {
        /// Whatever the bytes, parsing returns (never panics), and a success keeps the
        /// dataset invariants.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(d) = parse_delimited(&bytes, "fuzz", &tab()) {
                prop_assert_eq!(d.users.len(), d.n_users());
                prop_assert_eq!(d.items.len(), d.n_items());
            }
        }

        /// Written then parsed, triples come back exactly (ids through the maps).
        #[test]
        fn round_trip(triples in proptest::collection::btree_map((0u32..50, 0u32..50), 1u8..=5, 1..80)) {
            let mut text = String::new();
            for (&(u, i), &r) in &triples {
                text.push_str(&format!("{u}\t{i}\t{r}\t0\n"));
            }
            let d = parse_delimited(text.as_bytes(), "rt", &tab()).unwrap();
            prop_assert_eq!(d.n_events(), triples.len());
            for e in d.interactions.events() {
                let u: u32 = d.users.external(e.user).unwrap().parse().unwrap();
                let i: u32 = d.items.external(e.item).unwrap().parse().unwrap();
                prop_assert_eq!(f32::from(triples[&(u, i)]), e.value);
            }
        }
    }
}
