//! Putting datasets together for experiments.

use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};
use recs_data::{Dataset, DelimitedFormat};

use crate::error::Result;

/// The format of a delimited interaction file: `delimiter` (`tab`, `comma`, or the
/// characters themselves: `,`, `::`), an optional header line, `user item rating` columns
/// (`user item` when `implicit`), and a timestamp column after them when `timestamps`.
///
/// # Errors
/// An empty delimiter or one containing a line break.
pub fn delimited_format(
    delimiter: &str,
    header: bool,
    implicit: bool,
    timestamps: bool,
) -> Result<DelimitedFormat> {
    let delimiter = match delimiter {
        "tab" | "\\t" => "\t",
        "comma" => ",",
        other => other,
    };
    let mut format = DelimitedFormat::new(delimiter)?.header(header);
    if implicit {
        format = format.rating(None);
    }
    if timestamps {
        format = format.timestamp(Some(if implicit { 2 } else { 3 }));
    }
    Ok(format)
}

/// Two files read separately, put into one index space (ids in canonical order, as every
/// loader orders them), the second as the predefined test part.
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
    use recs_data::parse_delimited;

    #[test]
    fn formats_read_the_columns_they_describe() {
        let implicit = delimited_format("comma", true, true, true).unwrap();
        let d = parse_delimited(b"user,item,time\nu1,a,17\nu2,a,18\n", "f", &implicit).unwrap();
        assert_eq!(d.interactions.n_events(), 2);
        assert!(d.interactions.has_timestamps());
        let explicit = delimited_format("tab", false, false, false).unwrap();
        let d = parse_delimited(b"u1\ta\t4.5\n", "f", &explicit).unwrap();
        assert_eq!(d.interactions.get(0, 0), Some(4.5));
        assert!(delimited_format("", false, false, false).is_err());
    }

    #[test]
    fn both_parts_share_one_index_space() {
        let format = delimited_format("tab", false, false, false).unwrap();
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
