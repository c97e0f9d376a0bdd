//! Dataset-file options as front ends spell them, and two files joined into one dataset:
//! the terms `recs run` configurations and `recs split` / `recs data` flags share.

use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};

use crate::dataset::Dataset;
use crate::delimited::DelimitedFormat;
use crate::error::Result;

/// The field delimiter a name stands for: `tab` (or `\t` written as two characters) is a
/// tab, `comma` a comma; anything else is the delimiter itself (`,`, `::`, `;`).
pub fn delimiter_from_name(name: &str) -> &str {
    match name {
        "tab" | "\\t" => "\t",
        "comma" => ",",
        other => other,
    }
}

impl DelimitedFormat {
    /// The format of a delimited interaction file as front ends describe it: a delimiter
    /// name ([`delimiter_from_name`]; `auto` finds it from the file), a header line
    /// (`None` finds out from the file; see [`DelimitedFormat::detected`]), `user item
    /// rating` columns (`user item` when `implicit`), and a timestamp column after them
    /// when `timestamps`.
    ///
    /// ```
    /// use recs_data::{DelimitedFormat, parse_delimited};
    /// let format = DelimitedFormat::from_options("auto", None, false, true)?;
    /// let csv = b"userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n";
    /// assert_eq!(parse_delimited(csv, "ratings.csv", &format)?.n_events(), 1);
    /// # Ok::<(), recs_data::DataError>(())
    /// ```
    ///
    /// # Errors
    /// An empty delimiter or one containing a line break.
    pub fn from_options(
        delimiter: &str,
        header: Option<bool>,
        implicit: bool,
        timestamps: bool,
    ) -> Result<DelimitedFormat> {
        let mut format = match delimiter {
            AUTO_DELIMITER => DelimitedFormat::detected(),
            name => DelimitedFormat::new(delimiter_from_name(name))?,
        };
        format = match header {
            Some(header) => format.header(header),
            None => format.detect_header(),
        };
        if implicit {
            format = format.rating(None);
        }
        if timestamps {
            format = format.timestamp(Some(if implicit { 2 } else { 3 }));
        }
        Ok(format)
    }
}

/// The delimiter name that finds the delimiter from the file (the default of front ends).
pub const AUTO_DELIMITER: &str = "auto";

/// Two files read separately, put into one index space (ids in canonical order, as every
/// loader orders them), the second as the predefined test part; the sources of both are
/// kept.
///
/// # Errors
/// Duplicate events within one part.
pub fn join_predefined(train: Dataset, test: Dataset) -> Result<Dataset> {
    let users = IdMap::from_ids_sorted(train.users.iter().chain(test.users.iter()))?;
    let items = IdMap::from_ids_sorted(train.items.iter().chain(test.items.iter()))?;
    let remap = |part: &Dataset| -> Result<Interactions> {
        let events = part.interactions.events().map(|e| {
            let user = part.users.external(e.user).and_then(|id| users.get(id));
            let item = part.items.external(e.item).and_then(|id| items.get(id));
            Event { user: user.unwrap_or(u32::MAX), item: item.unwrap_or(u32::MAX), ..e }
        });
        Ok(Interactions::from_events(users.len(), items.len(), events, DuplicatePolicy::Error)?)
    };
    let train_events = remap(&train)?;
    let test_events = remap(&test)?;
    let mut sources = train.sources.clone();
    sources.extend(test.sources.iter().cloned());
    let mut joined = Dataset::new(train.name.clone(), train_events, users, items, train.feedback)?;
    joined.test = Some(test_events);
    joined.sources = sources;
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_delimited;

    #[test]
    fn delimiter_names_stand_for_their_characters() {
        assert_eq!(delimiter_from_name("tab"), "\t");
        assert_eq!(delimiter_from_name("\\t"), "\t");
        assert_eq!(delimiter_from_name("comma"), ",");
        assert_eq!(delimiter_from_name("::"), "::");
    }

    #[test]
    fn formats_read_the_columns_they_describe() {
        let implicit = DelimitedFormat::from_options("comma", Some(true), true, true).unwrap();
        let d = parse_delimited(b"user,item,time\nu1,a,17\nu2,a,18\n", "f", &implicit).unwrap();
        assert_eq!(d.interactions.n_events(), 2);
        assert!(d.interactions.has_timestamps());
        let explicit = DelimitedFormat::from_options("tab", Some(false), false, false).unwrap();
        let d = parse_delimited(b"u1\ta\t4.5\n", "f", &explicit).unwrap();
        assert_eq!(d.interactions.get(0, 0), Some(4.5));
        assert!(DelimitedFormat::from_options("", Some(false), false, false).is_err());
    }

    #[test]
    fn both_parts_share_one_index_space() {
        let format = DelimitedFormat::from_options("tab", Some(false), false, false).unwrap();
        let train = parse_delimited(b"u2\ta\t5\nu1\tb\t3\n", "train", &format).unwrap();
        let test = parse_delimited(b"u3\tb\t4\nu1\tc\t1\n", "test", &format).unwrap();
        let joined = join_predefined(train, test).unwrap();
        let ids = |m: &IdMap| m.iter().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(ids(&joined.users), ["u1", "u2", "u3"]);
        assert_eq!(ids(&joined.items), ["a", "b", "c"]);
        let test = joined.test.as_ref().unwrap();
        assert_eq!(test.get(2, 1), Some(4.0));
        assert_eq!(test.get(0, 2), Some(1.0));
        assert_eq!(joined.interactions.get(1, 0), Some(5.0));
        assert_eq!(joined.interactions.n_events(), 2);
    }
}
