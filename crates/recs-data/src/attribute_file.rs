//! Item attribute files: `item<TAB>rank<TAB>attribute` lines under a header, such as
//! `ml-100k-cast/cast.tsv` (`movie_id<TAB>billing<TAB>actor`).

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

use recs_core::{IdMap, ItemAttributes};

use crate::delimited::id_field;
use crate::error::{DataError, Result};
use crate::lines::{Lines, open, split_into, trim};

/// Which attributes to keep.
///
/// Schein et al. (2005, §5.1) keep the ten top-billed actors of each movie and drop actors
/// appearing in only one movie: `AttributeFilter { top_n: Some(10), min_items: 2 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeFilter {
    /// Per item, keep the attributes of the `top_n` smallest ranks (ties: file order).
    pub top_n: Option<usize>,
    /// After `top_n`, drop attributes held by fewer than `min_items` items.
    pub min_items: usize,
}

impl AttributeFilter {
    /// Schein et al. (2005, §5.1)'s cast: the ten top-billed actors of each movie, actors
    /// in at least two movies.
    pub const SCHEIN2005_CAST: AttributeFilter = AttributeFilter { top_n: Some(10), min_items: 2 };
}

impl Default for AttributeFilter {
    /// Keep everything.
    fn default() -> Self {
        AttributeFilter { top_n: None, min_items: 1 }
    }
}

/// Reads an attribute file for the items of `items` (an item id unknown to it is an
/// error). Weights are `1.0`; the vocabulary is in byte order of the attribute names. An
/// attribute listed twice for one item keeps its smallest rank.
///
/// # Errors
/// Unreadable file, a missing header, a line without exactly three tab-separated fields,
/// a non-integer rank, an empty or non-UTF-8 id or attribute, an unknown item id, or no
/// data line — each naming file and line.
pub fn load_item_attributes(
    path: &Path,
    items: &IdMap,
    filter: &AttributeFilter,
) -> Result<ItemAttributes> {
    read_attributes(open(path)?, path, items, filter)
}

/// Parses an attribute file held in memory; `label` names it in errors. See
/// [`load_item_attributes`].
///
/// # Errors
/// As [`load_item_attributes`].
pub fn parse_item_attributes(
    bytes: &[u8],
    label: &str,
    items: &IdMap,
    filter: &AttributeFilter,
) -> Result<ItemAttributes> {
    read_attributes(bytes, Path::new(label), items, filter)
}

/// Whether `name` is a placeholder a tool writes for a missing value rather than a name:
/// `nan`, `null`, `none`, `n/a`, `na`, `-` in any case.
fn is_placeholder(name: &str) -> bool {
    ["nan", "null", "none", "n/a", "na", "-"].iter().any(|p| name.trim().eq_ignore_ascii_case(p))
}

fn read_attributes<R: BufRead>(
    reader: R,
    file: &Path,
    items: &IdMap,
    filter: &AttributeFilter,
) -> Result<ItemAttributes> {
    let expected = "3 tab-separated fields: item id, integer rank, attribute";
    let mut lines = Lines::new(reader, file);
    let mut ranges = Vec::with_capacity(3);
    let mut header = true;
    // Per item: attribute -> (rank, line) with the smallest rank.
    let mut per_item: BTreeMap<u32, HashMap<String, (i64, usize)>> = BTreeMap::new();
    let mut n_rows = 0usize;
    while let Some((line_no, line)) = lines.next_record()? {
        let fields = split_into(line, b"\t", &mut ranges);
        if fields.len() != 3 {
            return Err(DataError::parse(file, line_no, expected, line));
        }
        if header {
            header = false;
            continue;
        }
        let item_id = id_field(file, line_no, fields.at(0), "item id")?;
        let item = items
            .get(item_id)
            .ok_or_else(|| DataError::parse(file, line_no, "an item id of the dataset", item_id))?;
        let rank_text = trim(fields.at(1));
        let rank: i64 = std::str::from_utf8(rank_text)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| DataError::parse(file, line_no, "an integer rank", rank_text))?;
        let name = id_field(file, line_no, fields.at(2), "attribute")?;
        if is_placeholder(name) {
            // A failed look-up written as text (pandas writes a missing value as `nan`)
            // would join every item it stands in as sharing one attribute.
            return Err(DataError::parse(
                file,
                line_no,
                "an attribute name, not a placeholder for a missing value (nan, null, none, n/a)",
                name,
            ));
        }
        let slot = per_item.entry(item).or_default();
        let entry = slot.entry(name.to_string()).or_insert((rank, line_no));
        if rank < entry.0 {
            *entry = (rank, line_no);
        }
        n_rows += 1;
    }
    if n_rows == 0 {
        return Err(DataError::EmptyFile { file: file.to_path_buf(), expected: expected.into() });
    }
    let mut kept: Vec<(u32, String)> = Vec::new();
    for (item, attributes) in per_item {
        let mut list: Vec<(i64, usize, String)> =
            attributes.into_iter().map(|(name, (rank, line))| (rank, line, name)).collect();
        list.sort_unstable();
        if let Some(n) = filter.top_n {
            list.truncate(n);
        }
        kept.extend(list.into_iter().map(|(_, _, name)| (item, name)));
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (_, name) in &kept {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let vocabulary =
        IdMap::from_ids_sorted(counts.iter().filter(|c| *c.1 >= filter.min_items).map(|c| *c.0))?;
    let pairs: Vec<(u32, u32, f32)> = kept
        .iter()
        .filter_map(|(item, name)| vocabulary.get(name).map(|a| (*item, a, 1.0)))
        .collect();
    Ok(ItemAttributes::from_pairs(items.len(), vocabulary, pairs)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> IdMap {
        IdMap::from_ids_sorted(["1", "2", "3"]).unwrap()
    }

    const CAST: &[u8] =
        b"movie_id\tbilling\tactor\n1\t2\tB\n1\t1\tA\n1\t3\tC\n2\t1\tA\n2\t2\tC\n3\t1\tD\n";

    fn names(attrs: &ItemAttributes, item: u32) -> Vec<&str> {
        attrs
            .item_attributes(item)
            .iter()
            .map(|&a| attrs.vocabulary().external(a).unwrap())
            .collect()
    }

    #[test]
    fn keeps_everything_by_default() {
        let a = parse_item_attributes(CAST, "c", &items(), &AttributeFilter::default()).unwrap();
        assert_eq!(a.n_attributes(), 4);
        assert_eq!(names(&a, 0), ["A", "B", "C"]);
    }

    #[test]
    fn top_n_uses_rank_then_min_items_drops_rare_attributes() {
        let top2 = AttributeFilter { top_n: Some(2), min_items: 1 };
        let a = parse_item_attributes(CAST, "c", &items(), &top2).unwrap();
        assert_eq!(names(&a, 0), ["A", "B"]);
        let shared = AttributeFilter { top_n: Some(2), min_items: 2 };
        let a = parse_item_attributes(CAST, "c", &items(), &shared).unwrap();
        assert_eq!(a.vocabulary().iter().collect::<Vec<_>>(), ["A"]);
        assert_eq!(names(&a, 1), ["A"]);
        assert!(a.item_attributes(2).is_empty());
        assert_eq!(a.n_items(), 3);
    }

    #[test]
    fn repeated_attribute_keeps_smallest_rank() {
        let data = b"h\th\th\n1\t5\tA\n1\t1\tA\n1\t2\tB\n";
        let top1 = AttributeFilter { top_n: Some(1), min_items: 1 };
        let a = parse_item_attributes(data, "c", &items(), &top1).unwrap();
        assert_eq!(names(&a, 0), ["A"]);
    }

    #[test]
    fn bad_lines_are_errors() {
        let f = AttributeFilter::default();
        let e =
            |b: &[u8]| parse_item_attributes(b, "cast.tsv", &items(), &f).unwrap_err().to_string();
        assert!(e(b"h\th\th\n1\tx\tA\n").contains("cast.tsv:2: expected an integer rank"));
        assert!(
            e(b"h\th\th\n9\t1\tA\n").contains("cast.tsv:2: expected an item id of the dataset")
        );
        assert!(e(b"h\th\th\n1\t1\n").contains("cast.tsv:2: expected 3 tab-separated fields"));
        for placeholder in ["nan", "NaN", "null", "None", "N/A"] {
            let file = format!("h\th\th\n1\t1\tA\n1\t2\t{placeholder}\n");
            let message = e(file.as_bytes());
            assert!(
                message.contains("cast.tsv:3: expected an attribute name, not a placeholder"),
                "{message}"
            );
        }
        // An empty attribute is refused as empty; a name that merely contains one is kept.
        assert!(e(b"h\th\th\n1\t1\t \n").contains("cast.tsv:2"));
        let kept = parse_item_attributes(b"h\th\th\n1\t1\tNanette Fabray\n", "c", &items(), &f);
        assert_eq!(names(&kept.unwrap(), 0), ["Nanette Fabray"]);
        assert!(e(b"h\th\n").contains("cast.tsv:1: expected 3 tab-separated fields"));
        assert!(e(b"h\th\th\n").contains("holds no data"));
        assert!(e(b"h\th\th\n1\t1\t\xff\n").contains("UTF-8"));
    }
}
