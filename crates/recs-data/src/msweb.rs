//! UCI "Anonymous Microsoft Web Data" (`anonymous-msweb.data` / `.test`): CRLF lines of
//! comma-separated records — `A` declares a vroot (id, title, url), `C` starts a case
//! (an anonymous user), `V` records a visit of the current case to a vroot.
//!
//! The two files number their cases from 10001 upwards, so a case id of the test file is
//! also a case id of the training file. Whether they are the same person is a reading of
//! the data, chosen with [`CaseIds`].

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;

use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};

use crate::dataset::{Dataset, Feedback, ItemInfo};
use crate::error::{DataError, Result};
use crate::lines::{Declared, Lines, open};

/// How to read the case ids of the test file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaseIds {
    /// A test case id names the same person as the equal training case id (the reading of
    /// Schein et al. 2005, whose candidate space is every (training case, vroot) pair).
    #[default]
    SameAsTraining,
    /// Test cases are other people than training cases (Breese et al. 1998); their
    /// external ids get the prefix `test:`.
    Separate,
}

impl std::str::FromStr for CaseIds {
    type Err = DataError;

    /// `same` ([`CaseIds::SameAsTraining`]) or `separate` ([`CaseIds::Separate`]).
    fn from_str(text: &str) -> Result<Self> {
        match text {
            "same" => Ok(CaseIds::SameAsTraining),
            "separate" => Ok(CaseIds::Separate),
            _ => Err(DataError::invalid("case_ids", text, "`same` or `separate`")),
        }
    }
}

/// Which vroots become items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Vroots {
    /// Only vroots visited in either file (286 in the UCI release).
    #[default]
    Visited,
    /// Every vroot declared by an `A` record of either file (294).
    Declared,
}

/// Options of [`load_msweb`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MsWebOptions {
    /// Reading of the test file's case ids.
    pub case_ids: CaseIds,
    /// Which vroots are items.
    pub vroots: Vroots,
}

/// One vroot declared by an `A` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vroot {
    /// Numeric vroot id (1000..1297 in the UCI release).
    pub id: u32,
    /// Title, e.g. `International AutoRoute`.
    pub title: String,
    /// URL path, e.g. `/autoroute`.
    pub url: String,
}

/// The records of one MS Web file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsWebFile {
    /// Declared vroots in file order.
    pub vroots: Vec<Vroot>,
    /// Cases in file order: case id and the vroots visited, in file order.
    pub cases: Vec<(u32, Vec<u32>)>,
}

impl MsWebFile {
    /// Number of `V` records.
    pub fn n_visits(&self) -> usize {
        self.cases.iter().map(|c| c.1.len()).sum()
    }
}

/// Parses one MS Web file held in memory; `label` names it in errors.
///
/// # Errors
/// An unknown record type, a record with the wrong number of fields or a non-integer id,
/// a visit before any case, a visit to an undeclared vroot, a repeated case, vroot or
/// visit within a case, or a file without any case — each naming file and line.
pub fn parse_msweb(bytes: &[u8], label: &str) -> Result<MsWebFile> {
    read_msweb(bytes, Path::new(label))
}

/// Reads one MS Web file from disk. See [`parse_msweb`].
///
/// # Errors
/// As [`parse_msweb`], plus I/O errors.
pub fn read_msweb_file(path: &Path) -> Result<MsWebFile> {
    read_msweb(open(path)?, path)
}

fn read_msweb<R: BufRead>(reader: R, file: &Path) -> Result<MsWebFile> {
    let mut lines = Lines::new(reader, file);
    let mut vroots: Vec<Vroot> = Vec::new();
    let mut vroot_lines = Declared::default();
    let mut cases: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut case_lines = Declared::default();
    let mut fields: Vec<String> = Vec::with_capacity(6);
    while let Some((line_no, line)) = lines.next_record()? {
        let text = std::str::from_utf8(line)
            .map_err(|_| DataError::parse(file, line_no, "a record in ASCII/UTF-8", line))?;
        split_record(text, &mut fields)
            .map_err(|what| DataError::parse(file, line_no, what, line))?;
        let expect = |n: usize, what: &str| -> Result<()> {
            if fields.len() == n {
                Ok(())
            } else {
                Err(DataError::parse(
                    file,
                    line_no,
                    format!("{n} comma-separated fields ({what})"),
                    line,
                ))
            }
        };
        let int = |k: usize, what: &str| -> Result<u32> {
            fields[k].trim().parse().map_err(|_| {
                DataError::parse(file, line_no, format!("an integer {what}"), &fields[k])
            })
        };
        match fields[0].as_str() {
            "I" | "T" | "N" => {}
            "A" => {
                expect(5, "A, vroot id, 1, title, url")?;
                let id = int(1, "vroot id")?;
                vroot_lines.check(file, line_no, &id.to_string(), "vroot")?;
                vroots.push(Vroot { id, title: fields[3].clone(), url: fields[4].clone() });
            }
            "C" => {
                expect(3, "C, \"case id\", case id")?;
                let id = int(2, "case id")?;
                case_lines.check(file, line_no, &id.to_string(), "case")?;
                cases.push((id, Vec::new()));
            }
            "V" => {
                expect(3, "V, vroot id, 1")?;
                let vroot = int(1, "vroot id")?;
                if !vroot_lines.contains(&vroot.to_string()) {
                    return Err(DataError::parse(
                        file,
                        line_no,
                        "a visit to a vroot declared by an earlier A record",
                        line,
                    ));
                }
                let Some((case, visits)) = cases.last_mut() else {
                    return Err(DataError::parse(
                        file,
                        line_no,
                        "a C record before the first V record",
                        line,
                    ));
                };
                if visits.contains(&vroot) {
                    return Err(DataError::parse(
                        file,
                        line_no,
                        format!("each vroot once per case (case {case} visits {vroot} twice)"),
                        line,
                    ));
                }
                visits.push(vroot);
            }
            _ => {
                return Err(DataError::parse(
                    file,
                    line_no,
                    "a record of type A, C or V (or header I, T, N)",
                    line,
                ));
            }
        }
    }
    if cases.is_empty() {
        return Err(DataError::EmptyFile {
            file: file.to_path_buf(),
            expected: "C and V records".into(),
        });
    }
    Ok(MsWebFile { vroots, cases })
}

/// Splits a comma-separated record; double-quoted fields may hold commas, `""` is a quote.
fn split_record(line: &str, out: &mut Vec<String>) -> std::result::Result<(), &'static str> {
    out.clear();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' {
            if !field.is_empty() || was_quoted {
                return Err("a quote only at the start of a field");
            }
            quoted = true;
            was_quoted = true;
        } else if c == ',' {
            out.push(std::mem::take(&mut field));
            was_quoted = false;
        } else {
            if was_quoted {
                return Err("a comma after a closing quote");
            }
            field.push(c);
        }
    }
    if quoted {
        return Err("a closing quote");
    }
    out.push(field);
    Ok(())
}

/// Loads the training and test files of MS Web into one dataset: `interactions` holds the
/// training visits, `test` the test visits, over shared user and item index spaces.
///
/// Users: the training cases in numeric order, then (with [`CaseIds::Separate`]) the test
/// cases as `test:<id>`; with [`CaseIds::SameAsTraining`] a test case joins the training
/// case of the same id (a test id unseen in training becomes a new user). Items: vroots
/// in numeric order (see [`Vroots`]), with title and URL as [`ItemInfo`]. Values are `1.0`.
///
/// # Errors
/// As [`parse_msweb`] for either file.
pub fn load_msweb(train: &Path, test: &Path, options: &MsWebOptions) -> Result<Dataset> {
    let train_file = read_msweb_file(train)?;
    let test_file = read_msweb_file(test)?;
    let mut dataset = assemble(&train_file, &test_file, options)?;
    dataset.sources = crate::movielens::sources(&[train, test])?;
    Ok(dataset)
}

/// Builds the dataset from two parsed files (see [`load_msweb`]).
///
/// # Errors
/// Only if the core types refuse the data, which parsed files cannot cause.
pub fn assemble(train: &MsWebFile, test: &MsWebFile, options: &MsWebOptions) -> Result<Dataset> {
    // Vroot metadata: training declarations first, test ones fill gaps.
    let mut declared: BTreeMap<u32, &Vroot> = BTreeMap::new();
    for v in test.vroots.iter().chain(&train.vroots) {
        declared.insert(v.id, v);
    }
    let vroot_ids: BTreeSet<u32> = match options.vroots {
        Vroots::Declared => declared.keys().copied().collect(),
        Vroots::Visited => {
            train.cases.iter().chain(&test.cases).flat_map(|c| c.1.iter().copied()).collect()
        }
    };
    let mut items = IdMap::new();
    let mut item_info = Vec::with_capacity(vroot_ids.len());
    for id in &vroot_ids {
        items.insert(&id.to_string())?;
        let v = declared.get(id);
        item_info.push(ItemInfo {
            title: v.map(|v| v.title.clone()),
            release_date: None,
            url: v.map(|v| v.url.clone()),
        });
    }
    let mut train_ids: Vec<u32> = train.cases.iter().map(|c| c.0).collect();
    train_ids.sort_unstable();
    let mut users = IdMap::new();
    for id in &train_ids {
        users.insert(&id.to_string())?;
    }
    let mut test_ids: Vec<u32> = test.cases.iter().map(|c| c.0).collect();
    test_ids.sort_unstable();
    let test_key = |id: u32| match options.case_ids {
        CaseIds::SameAsTraining => id.to_string(),
        CaseIds::Separate => format!("test:{id}"),
    };
    for &id in &test_ids {
        users.insert(&test_key(id))?;
    }
    let events = |file: &MsWebFile, key: &dyn Fn(u32) -> String| -> Result<Vec<Event>> {
        let mut events = Vec::with_capacity(file.n_visits());
        for (case, visits) in &file.cases {
            let user = users.get(&key(*case)).unwrap_or(u32::MAX);
            for vroot in visits {
                let item = items.get(&vroot.to_string()).unwrap_or(u32::MAX);
                events.push(Event::new(user, item, 1.0));
            }
        }
        Ok(events)
    };
    let (n_users, n_items) = (users.len(), items.len());
    let train_m = Interactions::from_events(
        n_users,
        n_items,
        events(train, &|id: u32| id.to_string())?,
        DuplicatePolicy::Error,
    )?;
    let test_m = Interactions::from_events(
        n_users,
        n_items,
        events(test, &test_key)?,
        DuplicatePolicy::Error,
    )?;
    let mut dataset = Dataset::new("msweb", train_m, users, items, Feedback::Implicit)?;
    dataset.test = Some(test_m);
    dataset.item_info = item_info;
    Ok(dataset)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRAIN: &[u8] = b"I,4,\"www.microsoft.com\",\"created by getlog.pl\"\r\n\
T,1,\"VRoot\",0,0,\"VRoot\"\r\nN,0,\"0\"\r\n\
A,1287,1,\"International AutoRoute\",\"/autoroute\"\r\n\
A,1288,1,\"library, \"\"main\"\"\",\"/library\"\r\n\
A,1000,1,\"regwiz\",\"/regwiz\"\r\n\
C,\"10001\",10001\r\nV,1287,1\r\nV,1288,1\r\n\
C,\"10002\",10002\r\nV,1288,1\r\n";
    const TEST: &[u8] = b"A,1287,1,\"International AutoRoute\",\"/autoroute\"\r\n\
A,1288,1,\"library\",\"/library\"\r\nA,1000,1,\"regwiz\",\"/regwiz\"\r\n\
C,\"10001\",10001\r\nV,1000,1\r\nC,\"10003\",10003\r\nV,1287,1\r\n";

    fn err(bytes: &[u8]) -> String {
        parse_msweb(bytes, "m.data").unwrap_err().to_string()
    }

    #[test]
    fn parses_records_with_quotes_and_crlf() {
        let f = parse_msweb(TRAIN, "t").unwrap();
        assert_eq!(f.vroots.len(), 3);
        assert_eq!(f.vroots[1].title, "library, \"main\"");
        assert_eq!(f.cases, vec![(10001, vec![1287, 1288]), (10002, vec![1288])]);
        assert_eq!(f.n_visits(), 3);
    }

    #[test]
    fn same_people_reading_shares_users() {
        let d = assemble(
            &parse_msweb(TRAIN, "a").unwrap(),
            &parse_msweb(TEST, "b").unwrap(),
            &MsWebOptions::default(),
        )
        .unwrap();
        assert_eq!(d.users.iter().collect::<Vec<_>>(), ["10001", "10002", "10003"]);
        assert_eq!(d.items.iter().collect::<Vec<_>>(), ["1000", "1287", "1288"]);
        let test = d.test.as_ref().unwrap();
        assert_eq!((d.n_events(), test.n_events()), (3, 2));
        assert_eq!(test.user_items(0), &[0]);
        assert_eq!(d.interactions.user_items(0), &[1, 2]);
        assert_eq!(d.item_info[1].url.as_deref(), Some("/autoroute"));
        assert_eq!(d.item_info[2].title.as_deref(), Some("library, \"main\""));
    }

    #[test]
    fn separate_reading_adds_test_people() {
        let options = MsWebOptions { case_ids: CaseIds::Separate, vroots: Vroots::Declared };
        let d =
            assemble(&parse_msweb(TRAIN, "a").unwrap(), &parse_msweb(TEST, "b").unwrap(), &options)
                .unwrap();
        assert_eq!(
            d.users.iter().collect::<Vec<_>>(),
            ["10001", "10002", "test:10001", "test:10003"]
        );
        let test = d.test.unwrap();
        assert!(test.user_items(0).is_empty());
        assert_eq!(test.user_items(2), &[0]);
        assert_eq!(d.interactions.n_items(), 3);
    }

    #[test]
    fn malformed_records_are_errors_with_lines() {
        assert!(err(b"V,1000,1\r\n").contains("m.data:1: expected a visit to a vroot declared"));
        assert!(
            err(b"A,1000,1,\"x\",\"/x\"\r\nV,1000,1\r\n").contains("m.data:2: expected a C record")
        );
        assert!(err(b"A,1000,1,\"x\"\r\n").contains("m.data:1: expected 5 comma-separated fields"));
        assert!(err(b"A,x,1,\"x\",\"/x\"\r\n").contains("expected an integer vroot id"));
        assert!(err(b"Z,1\r\n").contains("expected a record of type A, C or V"));
        assert!(err(b"A,1,1,\"x,\"/x\"\r\n").contains("m.data:1: expected a"));
        assert!(err(b"").contains("holds no data"));
        let twice = b"A,1000,1,\"x\",\"/x\"\r\nC,\"1\",1\r\nV,1000,1\r\nV,1000,1\r\n";
        assert!(err(twice).contains("m.data:4: expected each vroot once per case"));
        let case_twice = b"C,\"1\",1\r\nC,\"1\",1\r\n";
        assert!(err(case_twice).contains(
            "m.data:2: expected each case declared once (id 1 is also declared at line 1)"
        ));
        assert!(
            err(b"A,1000,1,\"x\",\"/x\"\r\nA,1000,1,\"y\",\"/y\"\r\n").contains("declared once")
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = parse_msweb(&bytes, "fuzz");
        }
    }
}
