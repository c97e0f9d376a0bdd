//! Reading qrels (judgments) and run (score) files, with external ids.
//!
//! **Qrels**: one candidate per line, `user<TAB>item<TAB>grade` (grade 0 = not relevant),
//! or the four-column TREC form `qid iter doc grade`; fields may be separated by tabs or
//! spaces; empty lines and lines starting with `#` are skipped. Every candidate of a user
//! must be listed. Ids are mapped to dense indices with [`IdMap::from_ids_sorted`]
//! (numeric order when all ids are integers).
//!
//! **Runs**: `user<TAB>item<TAB>score`, or TREC `qid Q0 doc rank score tag` (the rank is
//! ignored: the score decides), detected from the first data line or forced. Pairs that
//! are not candidates in the qrels are ignored and counted; candidates without a line get
//! a `NaN` score (missing, ranked lowest) and are counted.
//!
//! Every parse error names the file and the 1-based line.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use recs_core::{IdMap, Judgments};

use crate::error::{MetricsError, Result};

/// Judgments read from a qrels file, with the id maps that name their users and items.
#[derive(Debug, Clone)]
pub struct Qrels {
    /// External user ids ↔ dense user indices.
    pub users: IdMap,
    /// External item ids ↔ dense item indices.
    pub items: IdMap,
    /// The candidates and grades.
    pub judgments: Judgments,
}

impl Qrels {
    /// The position of `(user, item)` in the judgments' flat candidate order, if it is a
    /// candidate.
    pub fn position(&self, user: u32, item: u32) -> Option<usize> {
        let rank = self.judgments.users().binary_search(&user).ok()?;
        let row = self.judgments.get(user)?;
        let within = row.items.binary_search(&item).ok()?;
        Some(self.offsets_before(rank) + within)
    }

    fn offsets_before(&self, rank: usize) -> usize {
        // Computed on demand from per-user lengths; see `Positions` for bulk lookups.
        self.judgments.iter().take(rank).map(|u| u.items.len()).sum()
    }
}

/// Fast `(user, item) → flat position` lookups.
struct Positions<'a> {
    qrels: &'a Qrels,
    /// `offsets[user index]` = flat position of the user's first candidate, for judged
    /// users; `usize::MAX` otherwise.
    offsets: Vec<usize>,
}

impl<'a> Positions<'a> {
    fn new(qrels: &'a Qrels) -> Self {
        let mut offsets = vec![usize::MAX; qrels.users.len()];
        let mut start = 0;
        for u in qrels.judgments.iter() {
            offsets[u.user as usize] = start;
            start += u.items.len();
        }
        Positions { qrels, offsets }
    }

    fn get(&self, user: u32, item: u32) -> Option<usize> {
        let start = *self.offsets.get(user as usize)?;
        if start == usize::MAX {
            return None;
        }
        let row = self.qrels.judgments.get(user)?;
        row.items.binary_search(&item).ok().map(|i| start + i)
    }
}

/// Run file layouts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunFormat {
    /// Detect from the first data line: six fields with `Q0` second → TREC, three → TSV.
    #[default]
    Auto,
    /// `user<TAB>item<TAB>score`.
    Tsv,
    /// `qid Q0 doc rank score tag`.
    Trec,
}

/// Scores read from a run file, aligned with a [`Qrels`]' candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// One score per candidate in the judgments' order; `NaN` = missing.
    pub scores: Vec<f32>,
    /// Candidates without a score.
    pub n_missing: usize,
    /// Lines whose (user, item) is not a candidate in the qrels (ignored).
    pub n_ignored: usize,
    /// The format read.
    pub format: RunFormat,
}

fn open(path: &Path) -> Result<BufReader<File>> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|source| MetricsError::Io { path: path.to_path_buf(), source })
}

fn parse_error(path: &Path, line: usize, message: impl Into<String>) -> MetricsError {
    MetricsError::Parse { path: path.to_path_buf(), line, message: message.into() }
}

/// Calls `f(line number, fields)` for every data line.
fn for_each_line(
    reader: impl BufRead,
    path: &Path,
    mut f: impl FnMut(usize, &[&str]) -> Result<()>,
) -> Result<()> {
    for (index, line) in reader.lines().enumerate() {
        let line_number = index + 1;
        let line = line.map_err(|e| parse_error(path, line_number, format!("cannot read: {e}")))?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut fields = [""; 7];
        let mut count = 0;
        for field in trimmed.split_whitespace() {
            if count == fields.len() {
                count += 1;
                break;
            }
            fields[count] = field;
            count += 1;
        }
        f(line_number, &fields[..count.min(fields.len())])?;
    }
    Ok(())
}

/// Reads a qrels file; see the module documentation for the format.
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be opened; [`MetricsError::Parse`] (file and
/// line) for a malformed line, a bad grade or a repeated (user, item) pair.
pub fn read_qrels(path: impl AsRef<Path>) -> Result<Qrels> {
    let path = path.as_ref();
    parse_qrels(open(path)?, path)
}

/// Parses qrels from any reader; `path` names the source in errors.
///
/// ```
/// use recs_metrics::io::parse_qrels;
/// let text = "u1\ta\t1\nu1\tb\t0\nu2\ta\t2\n";
/// let qrels = parse_qrels(text.as_bytes(), "example.tsv".as_ref())?;
/// assert_eq!(qrels.judgments.n_candidates(), 3);
/// assert_eq!(qrels.judgments.n_relevant(1.0), 2);
/// assert_eq!(qrels.users.get("u2"), Some(1));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`read_qrels`].
pub fn parse_qrels(reader: impl BufRead, path: &Path) -> Result<Qrels> {
    let mut rows: Vec<(String, String, f32, usize)> = Vec::new();
    for_each_line(reader, path, |line, fields| {
        let (user, item, grade) = match fields {
            [u, i, g] => (u, i, g),
            [u, _, i, g] => (u, i, g),
            _ => {
                return Err(parse_error(
                    path,
                    line,
                    format!(
                        "expected `user<TAB>item<TAB>grade` or `qid iter doc grade`, found {} fields",
                        fields.len()
                    ),
                ));
            }
        };
        let grade: f32 =
            grade.parse().ok().filter(|g: &f32| g.is_finite() && *g >= 0.0).ok_or_else(|| {
                parse_error(path, line, format!("grade `{grade}` is not a number >= 0"))
            })?;
        rows.push((user.to_string(), item.to_string(), grade, line));
        Ok(())
    })?;
    let users = IdMap::from_ids_sorted(rows.iter().map(|r| r.0.as_str()))?;
    let items = IdMap::from_ids_sorted(rows.iter().map(|r| r.1.as_str()))?;
    let mut indexed: Vec<(u32, u32, f32, usize)> = rows
        .iter()
        .map(|(u, i, g, line)| {
            (users.get(u).expect("mapped"), items.get(i).expect("mapped"), *g, *line)
        })
        .collect();
    drop(rows);
    indexed.sort_unstable_by_key(|r| (r.0, r.1, r.3));
    if let Some(w) = indexed.windows(2).find(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1) {
        return Err(parse_error(
            path,
            w[1].3,
            format!(
                "user `{}` lists item `{}` again (first on line {})",
                users.external(w[1].0).unwrap_or("?"),
                items.external(w[1].1).unwrap_or("?"),
                w[0].3
            ),
        ));
    }
    let mut builder = Judgments::builder(users.len(), items.len());
    let mut start = 0;
    let mut item_buf = Vec::new();
    let mut grade_buf = Vec::new();
    while start < indexed.len() {
        let user = indexed[start].0;
        let end = start + indexed[start..].iter().take_while(|r| r.0 == user).count();
        item_buf.clear();
        grade_buf.clear();
        item_buf.extend(indexed[start..end].iter().map(|r| r.1));
        grade_buf.extend(indexed[start..end].iter().map(|r| r.2));
        builder.push_user(user, &item_buf, &grade_buf)?;
        start = end;
    }
    Ok(Qrels { users, items, judgments: builder.build()? })
}

/// Reads a run file against `qrels`; see the module documentation for the format.
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be opened; [`MetricsError::Parse`] (file and
/// line) for a malformed line, a score that is not a number, a line not in the chosen
/// format, or a repeated (user, item) pair.
pub fn read_run(path: impl AsRef<Path>, qrels: &Qrels, format: RunFormat) -> Result<Run> {
    let path = path.as_ref();
    parse_run(open(path)?, path, qrels, format)
}

/// Parses a run from any reader; `path` names the source in errors.
///
/// ```
/// use recs_metrics::io::{RunFormat, parse_qrels, parse_run};
/// let qrels = parse_qrels("u1\ta\t1\nu1\tb\t0\n".as_bytes(), "q".as_ref())?;
/// let run = parse_run("u1 Q0 b 1 0.7 sys\nu9 Q0 a 1 0.1 sys\n".as_bytes(), "r".as_ref(), &qrels, RunFormat::Auto)?;
/// assert_eq!(run.format, RunFormat::Trec);
/// assert!(run.scores[0].is_nan());
/// assert_eq!(run.scores[1], 0.7);
/// assert_eq!((run.n_missing, run.n_ignored), (1, 1));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`read_run`].
pub fn parse_run(
    reader: impl BufRead,
    path: &Path,
    qrels: &Qrels,
    format: RunFormat,
) -> Result<Run> {
    let positions = Positions::new(qrels);
    let n = qrels.judgments.n_candidates();
    let mut scores = vec![f32::NAN; n];
    let mut seen_line = vec![0usize; n];
    let mut format = format;
    let mut n_ignored = 0;
    for_each_line(reader, path, |line, fields| {
        if format == RunFormat::Auto {
            format = match fields {
                [_, q0, _, _, _, _] if q0.eq_ignore_ascii_case("q0") => RunFormat::Trec,
                [_, _, _] => RunFormat::Tsv,
                _ => {
                    return Err(parse_error(
                        path,
                        line,
                        format!(
                            "cannot detect the run format: expected 3 fields (user item score) or 6 (qid Q0 doc rank score tag), found {}",
                            fields.len()
                        ),
                    ));
                }
            };
        }
        let (user, item, score) = match (format, fields) {
            (RunFormat::Tsv, [u, i, s]) => (u, i, s),
            (RunFormat::Trec, [u, _, i, _, s, _]) => (u, i, s),
            (RunFormat::Tsv, _) => {
                return Err(parse_error(
                    path,
                    line,
                    format!("expected `user<TAB>item<TAB>score`, found {} fields", fields.len()),
                ));
            }
            _ => {
                return Err(parse_error(
                    path,
                    line,
                    format!("expected `qid Q0 doc rank score tag`, found {} fields", fields.len()),
                ));
            }
        };
        let score: f32 =
            score.parse().ok().filter(|s: &f32| !s.is_nan()).ok_or_else(|| {
                parse_error(path, line, format!("score `{score}` is not a number"))
            })?;
        let position = match (qrels.users.get(user), qrels.items.get(item)) {
            (Some(u), Some(i)) => positions.get(u, i),
            _ => None,
        };
        match position {
            None => n_ignored += 1,
            Some(p) => {
                if seen_line[p] != 0 {
                    return Err(parse_error(
                        path,
                        line,
                        format!(
                            "user `{user}` item `{item}` scored again (first on line {})",
                            seen_line[p]
                        ),
                    ));
                }
                seen_line[p] = line;
                scores[p] = score;
            }
        }
        Ok(())
    })?;
    let n_missing = scores.iter().filter(|s| s.is_nan()).count();
    Ok(Run { scores, n_missing, n_ignored, format })
}

/// Writes curve points as CSV (`fpr,tpr` per line with a header) to `path`.
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be written.
pub fn write_points_csv(path: impl AsRef<Path>, points: &[[f64; 2]]) -> Result<()> {
    let path: PathBuf = path.as_ref().to_path_buf();
    let mut text = String::with_capacity(points.len() * 24 + 8);
    text.push_str("fpr,tpr\n");
    for [x, y] in points {
        text.push_str(&format!("{x},{y}\n"));
    }
    std::fs::write(&path, text).map_err(|source| MetricsError::Io { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qrels(text: &str) -> Result<Qrels> {
        parse_qrels(text.as_bytes(), Path::new("q.tsv"))
    }

    #[test]
    fn qrels_errors_name_file_and_line() {
        let e = qrels("u\ti\t1\nu\ti\n").unwrap_err().to_string();
        assert!(e.starts_with("q.tsv:2:"), "{e}");
        let e = qrels("u\ti\t-1\n").unwrap_err().to_string();
        assert!(e.starts_with("q.tsv:1:"), "{e}");
        let e = qrels("# header\nu\ti\t1\n\nu\ti\t0\n").unwrap_err().to_string();
        assert!(e.starts_with("q.tsv:4:") && e.contains("line 2"), "{e}");
    }

    #[test]
    fn trec_qrels_are_accepted() {
        let q = qrels("1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n").unwrap();
        assert_eq!(q.judgments.n_candidates(), 3);
        assert_eq!(q.position(q.users.get("2").unwrap(), q.items.get("d1").unwrap()), Some(2));
    }

    #[test]
    fn run_errors_name_file_and_line() {
        let q = qrels("u\ta\t1\nu\tb\t0\n").unwrap();
        let run = |t: &str, f| parse_run(t.as_bytes(), Path::new("r.tsv"), &q, f);
        assert!(run("u a x\n", RunFormat::Auto).unwrap_err().to_string().starts_with("r.tsv:1:"));
        assert!(
            run("u a 1\nu a 2\n", RunFormat::Auto).unwrap_err().to_string().starts_with("r.tsv:2:")
        );
        assert!(run("u a 1 2\n", RunFormat::Auto).unwrap_err().to_string().starts_with("r.tsv:1:"));
        assert!(run("u a 1\n", RunFormat::Trec).unwrap_err().to_string().starts_with("r.tsv:1:"));
        assert!(run("u a nan\n", RunFormat::Tsv).is_err());
        let ok = run("u\tb\t0.5\nu\tz\t1\n", RunFormat::Auto).unwrap();
        assert_eq!(ok.format, RunFormat::Tsv);
        assert_eq!((ok.n_missing, ok.n_ignored), (1, 1));
        assert_eq!(ok.scores[1], 0.5);
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(read_qrels("/nonexistent/q.tsv"), Err(MetricsError::Io { .. })));
    }
}
