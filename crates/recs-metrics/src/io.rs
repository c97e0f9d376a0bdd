//! Reading and writing qrels (judgments) and run (score) files, with external ids.
//!
//! **Qrels**: one candidate per line, `user<TAB>item<TAB>grade` (grade 0 = not relevant),
//! or the four-column TREC form `qid iter doc grade`; fields may be separated by tabs or
//! spaces; empty lines and lines starting with `#` are skipped. Under
//! [`Candidates::Qrels`] ([`read_run`]) every candidate of a user must be listed; under
//! [`Candidates::Run`] ([`read_run_candidates`], TREC) the run's items are the candidates
//! and the qrels grade them. Ids are mapped to dense indices with [`IdMap::from_ids_sorted`]
//! (numeric order when all ids are integers).
//!
//! **Runs**: `user<TAB>item<TAB>score`, or TREC `qid Q0 doc rank score tag` (the rank is
//! ignored: the score decides), detected from the first data line or forced. Pairs that
//! are not candidates in the qrels are ignored and counted; candidates without a line get
//! a `NaN` score (missing, ranked lowest) and are counted.
//!
//! Every parse error names the file and the 1-based line.
//!
//! **Columnar files**: [`read_qrels`], [`read_run`], [`read_run_candidates`] (and
//! [`detect_run_format`]) recognise Parquet and Arrow IPC files by their first bytes and
//! read their columns by name: `user`, `item`, and `grade` (qrels) or `score` (runs); ids
//! of any integer or string type, values of any numeric type; row `n` is reported as line
//! `n`. Reading them needs the `columnar` feature (`recs eval` has it); without it such a
//! file is an error that says so.
//!
//! [`write_qrels`] and [`write_run`] write the tab-separated forms, one line per
//! candidate in the judgments' order, which [`parse_qrels`] and [`parse_run`] read back
//! to the same grades and scores, bit for bit. With the `columnar` feature,
//! `ParquetRunWriter` writes runs as Parquet (columns `user`, `item`, `score`), which
//! [`read_run`] reads back to the same bits.
//!
//! ```
//! use recs_metrics::io::{RunFormat, parse_qrels, parse_run, write_run};
//! let qrels = parse_qrels("u1\ta\t1\nu1\tb\t0\n".as_bytes(), "q".as_ref())?;
//! let mut text = Vec::new();
//! write_run(&mut text, &qrels.judgments, &[0.1, f32::NAN], &qrels.users, &qrels.items)?;
//! // A missing score is written as no line.
//! assert_eq!(text, b"u1\ta\t0.1\n");
//! let run = parse_run(&text[..], "r".as_ref(), &qrels, RunFormat::Auto)?;
//! assert_eq!(run.scores[0], 0.1);
//! assert!(run.scores[1].is_nan());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use recs_core::{IdMap, Judgments};

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use crate::error::{MetricsError, Result};
use crate::names::named;
use blocks::{Block, Blocks};
use qrels_columns::QrelsColumns;

mod blocks;
mod candidates;
mod columnar;
mod groups;
mod qrels_columns;
mod rows;

pub use candidates::{
    Candidates, CatalogCandidates, CatalogRows, RunCandidates, catalog_candidates,
    parse_run_candidates, read_run_candidates, run_candidates_from_rows, run_warnings,
};
#[cfg(feature = "columnar")]
pub use columnar::ParquetRunWriter;
pub use groups::{ItemGroups, UserGroups, read_item_groups, read_user_groups};
pub use rows::{ModelRows, RowCatalog, RowNames, RowScorer, RowSource};

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
    /// `items[user index]`: the user's candidate items (empty without judgments).
    items: Vec<&'a [u32]>,
    /// `starts[user index]`: the flat position of the user's first candidate.
    starts: Vec<usize>,
}

impl<'a> Positions<'a> {
    fn new(qrels: &'a Qrels) -> Self {
        let mut items = vec![&[][..]; qrels.users.len()];
        let mut starts = vec![0; qrels.users.len()];
        let mut start = 0;
        for u in qrels.judgments.iter() {
            items[u.user as usize] = u.items;
            starts[u.user as usize] = start;
            start += u.items.len();
        }
        Positions { items, starts }
    }

    /// The item index and flat position of `user`'s candidate named `item`, if it is one.
    /// `last` is the user and row index of the previous line's candidate: runs usually
    /// list a user's candidates in the qrels' order, so the next one is tried first with
    /// one comparison, before the id is hashed.
    #[inline]
    fn locate(
        &self,
        qrels: &Qrels,
        last: &mut Option<(u32, usize)>,
        user: u32,
        item: &str,
    ) -> Option<(u32, usize)> {
        let row = self.items.get(user as usize)?;
        let guess = match *last {
            Some((u, k)) if u == user => k + 1,
            _ => 0,
        };
        let k = match row.get(guess) {
            Some(&i) if qrels.items.external(i).is_some_and(|e| same_id(e, item)) => guess,
            _ => row.binary_search(&qrels.items.get(item)?).ok()?,
        };
        *last = Some((user, k));
        Some((row[k], self.starts[user as usize] + k))
    }
}

/// Run file layouts; as text (`FromStr`, `Display`, serde, `recs eval --format`):
/// `auto`, `tsv` or `trec`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunFormat {
    /// `auto`: detect from the first data line: six fields with `Q0` second → TREC,
    /// three → TSV.
    #[default]
    Auto,
    /// `tsv`: `user<TAB>item<TAB>score`.
    Tsv,
    /// `trec`: `qid Q0 doc rank score tag`.
    Trec,
}

named!(RunFormat, "run format", [Auto => "auto", Tsv => "tsv", Trec => "trec"]);

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

/// A line with the wrong number of fields for the `expected` layout.
fn fields_error(path: &Path, line: usize, expected: &str, fields: &[&str]) -> MetricsError {
    parse_error(path, line, format!("expected {expected}, found {} fields", fields.len()))
}

/// The index of `id` in `map`, inserted if new. Files list a user's lines together and
/// users' items in much the same order, so an id is first compared with the last one
/// asked for and with the one that followed it last time, before it is hashed; the guess
/// that is right more often (the same id again for users, the next one for items) first.
struct Interner {
    map: IdMap,
    /// The index asked for last ([`NO_ID`]: none yet).
    last: u32,
    /// Whether the last id asked for was the one asked for before it.
    repeated: bool,
    /// `next[i]`: the index asked for after `i` the last time ([`NO_ID`]: none yet).
    next: Vec<u32>,
}

/// No index: [`IdMap`] never gives out `u32::MAX`.
const NO_ID: u32 = u32::MAX;

impl Interner {
    fn new() -> Self {
        Interner { map: IdMap::new(), last: NO_ID, repeated: false, next: Vec::new() }
    }

    #[inline(always)]
    fn index(&mut self, id: &str) -> Result<u32> {
        let last = self.last;
        let next = self.next.get(last as usize).copied().unwrap_or(NO_ID);
        let (first, second) = if self.repeated { (last, next) } else { (next, last) };
        for guess in [first, second] {
            if self.map.external(guess).is_some_and(|known| same_id(known, id)) {
                (self.last, self.repeated) = (guess, guess == last);
                return Ok(guess);
            }
        }
        self.insert(id)
    }

    /// Adds the ids of `piece`; for each index of `piece`, its index here.
    fn merge(&mut self, piece: &IdMap) -> Result<Vec<u32>> {
        let indices =
            piece.iter().map(|id| self.map.insert(id)).collect::<recs_core::Result<_>>()?;
        self.next.resize(self.map.len(), NO_ID);
        Ok(indices)
    }

    /// The index of an id that neither guess named, inserted if new.
    #[cold]
    fn insert(&mut self, id: &str) -> Result<u32> {
        let index = self.map.insert(id)?;
        if index as usize == self.next.len() {
            self.next.push(NO_ID);
        }
        if let Some(next) = self.next.get_mut(self.last as usize) {
            *next = index;
        }
        (self.last, self.repeated) = (index, false);
        Ok(index)
    }
}

/// `a == b` for ids, inlined: ids are short, so up to 16 bytes are compared as two
/// overlapping words (every byte lies in one of them) instead of through a call to
/// `memcmp`, which costs more than the comparison.
#[inline(always)]
fn same_id(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
        s[at..at + N].try_into().expect("in bounds")
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => {
            u32::from_ne_bytes(word(a, 0)) == u32::from_ne_bytes(word(b, 0))
                && u32::from_ne_bytes(word(a, n - 4)) == u32::from_ne_bytes(word(b, n - 4))
        }
        8..=16 => {
            u64::from_ne_bytes(word(a, 0)) == u64::from_ne_bytes(word(b, 0))
                && u64::from_ne_bytes(word(a, n - 8)) == u64::from_ne_bytes(word(b, n - 8))
        }
        _ => a == b,
    }
}

/// Reads a qrels file; see the module documentation for the format.
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be opened; [`MetricsError::Parse`] (file and
/// line) for a malformed line, a bad grade or a repeated (user, item) pair.
pub fn read_qrels(path: impl AsRef<Path>) -> Result<Qrels> {
    let path = path.as_ref();
    if let Some(format) = columnar::columnar_format(path)? {
        return qrels_from_rows(columnar::read_rows(path, format, "grade")?.iter(), path);
    }
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
    let mut whole = QrelsPiece::new();
    let mut blocks = Blocks::new(reader, path);
    let threads = rayon::current_num_threads();
    while let Some(block) = blocks.next_block()? {
        let pieces = block.pieces(threads);
        if let [piece] = pieces[..] {
            // Alone: read straight into the whole, with nothing to renumber or copy.
            whole.read(piece, path)?;
            continue;
        }
        let pieces: Vec<Result<QrelsPiece>> = pieces
            .into_par_iter()
            .map(|piece| {
                let mut read = QrelsPiece::new();
                read.read(piece, path)?;
                Ok(read)
            })
            .collect();
        // In file order: ids are numbered as a single pass would number them.
        let (mut remaps, mut parsed) = (Vec::new(), Vec::new());
        for piece in pieces {
            let piece = piece?;
            remaps
                .push((whole.users.merge(&piece.users.map)?, whole.items.merge(&piece.items.map)?));
            parsed.push(piece.columns);
        }
        parsed.par_iter_mut().zip(&remaps).for_each(|(piece, (u, i))| piece.remap(u, i));
        for piece in parsed {
            whole.columns.append(piece);
        }
    }
    whole.columns.into_qrels(whole.users.map, whole.items.map, path)
}

/// Qrels from rows held in memory: `(user id, item id, grade)`, as the lines of a qrels
/// file (the same checks; row `n`, from 1, is reported as line `n` of `source`).
///
/// ```
/// use recs_metrics::io::qrels_from_rows;
/// let qrels = qrels_from_rows([("u1", "a", 1.0), ("u1", "b", 0.0)], "frame".as_ref())?;
/// assert_eq!(qrels.judgments.n_candidates(), 2);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Parse`] for a grade that is not a number `>= 0` or a repeated
/// (user, item) pair.
pub fn qrels_from_rows<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a str, f32)>,
    source: &Path,
) -> Result<Qrels> {
    let (mut users, mut items) = (Interner::new(), Interner::new());
    let mut columns = QrelsColumns::default();
    for (row, (user, item, grade)) in rows.into_iter().enumerate() {
        let line = row + 1;
        if !(grade.is_finite() && grade >= 0.0) {
            return Err(parse_error(source, line, format!("grade `{grade}` is not a number >= 0")));
        }
        columns.push(users.index(user)?, items.index(item)?, grade, line);
    }
    columns.into_qrels(users.map, items.map, source)
}

/// Lines of a qrels source with ids numbered as they come.
struct QrelsPiece {
    users: Interner,
    items: Interner,
    columns: QrelsColumns,
}

impl QrelsPiece {
    fn new() -> Self {
        QrelsPiece { users: Interner::new(), items: Interner::new(), columns: Default::default() }
    }

    /// Adds the lines of `piece`, which follow those read so far.
    fn read(&mut self, piece: Block<'_>, path: &Path) -> Result<()> {
        let QrelsPiece { users, items, columns } = self;
        piece.for_each_line(path, |line, fields| {
            let (user, item, grade) = match fields {
                [u, i, g] => (u, i, g),
                [u, _, i, g] => (u, i, g),
                _ => {
                    let expected = "`user<TAB>item<TAB>grade` or `qid iter doc grade`";
                    return Err(fields_error(path, line, expected, fields));
                }
            };
            let grade: f32 =
                blocks::parse_f32(grade).filter(|g: &f32| g.is_finite() && *g >= 0.0).ok_or_else(
                    || parse_error(path, line, format!("grade `{grade}` is not a number >= 0")),
                )?;
            columns.push(users.index(user)?, items.index(item)?, grade, line);
            Ok(())
        })
    }
}

/// Reads a run file against `qrels`; see the module documentation for the format.
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be opened; [`MetricsError::Parse`] (file and
/// line) for a malformed line, a score that is not a number, a line not in the chosen
/// format, or a repeated (user, item) pair.
pub fn read_run(path: impl AsRef<Path>, qrels: &Qrels, format: RunFormat) -> Result<Run> {
    let path = path.as_ref();
    if let Some(columnar) = columnar::columnar_format(path)? {
        return run_from_rows(columnar::read_rows(path, columnar, "score")?.iter(), path, qrels);
    }
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
    // Pieces write where their lines belong, at once: the bits of each candidate's score,
    // and the line that scored it (0: none yet), which finds a pair scored twice.
    let target = RunTarget {
        scores: (0..n).into_par_iter().map(|_| AtomicU32::new(f32::NAN.to_bits())).collect(),
        lines: (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect(),
    };
    let mut n_ignored = 0;
    let mut again: Vec<ScoredAgain> = Vec::new();
    let mut format = format;
    let mut blocks = Blocks::new(reader, path);
    let threads = rayon::current_num_threads();
    while let Some(block) = blocks.next_block()? {
        if format == RunFormat::Auto {
            format = block_format(block, path)?;
        }
        let pieces = block.pieces(threads);
        let alone = pieces.len() == 1;
        let pieces: Vec<Result<RunPiece>> = pieces
            .into_par_iter()
            .map(|piece| run_piece(piece, path, format, qrels, &positions, (&target, alone)))
            .collect();
        for piece in pieces {
            let piece = piece?;
            n_ignored += piece.n_ignored;
            again.extend(piece.again);
        }
    }
    if !again.is_empty() {
        return Err(first_scored_again(path, qrels, &target, again));
    }
    drop(target.lines);
    // Collected in place (same size and alignment): no second buffer of scores.
    let scores: Vec<f32> =
        target.scores.into_iter().map(|bits| f32::from_bits(bits.into_inner())).collect();
    let n_missing = scores.par_iter().filter(|s| s.is_nan()).count();
    Ok(Run { scores, n_missing, n_ignored, format })
}

/// A run from rows held in memory, `(user id, item id, score)`, read against `qrels` as
/// [`parse_run`] reads the lines of a file (row `n`, from 1, is reported as line `n` of
/// `source`); the format is [`RunFormat::Tsv`].
///
/// ```
/// use recs_metrics::io::{qrels_from_rows, run_from_rows};
/// let qrels = qrels_from_rows([("u1", "a", 1.0), ("u1", "b", 0.0)], "q".as_ref())?;
/// let run = run_from_rows([("u1", "b", 0.7), ("u9", "a", 0.1)], "r".as_ref(), &qrels)?;
/// assert!(run.scores[0].is_nan());
/// assert_eq!(run.scores[1], 0.7);
/// assert_eq!((run.n_missing, run.n_ignored), (1, 1));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Parse`] for a `NaN` score or a repeated (user, item) pair.
pub fn run_from_rows<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a str, f32)>,
    source: &Path,
    qrels: &Qrels,
) -> Result<Run> {
    let positions = Positions::new(qrels);
    let n = qrels.judgments.n_candidates();
    let mut scores = vec![f32::NAN; n];
    // The row that scored each candidate (0: none yet).
    let mut lines = vec![0usize; n];
    let mut n_ignored = 0;
    let (mut users, mut last) = (UserLookup::default(), None);
    for (row, (user, item, score)) in rows.into_iter().enumerate() {
        let line = row + 1;
        if score.is_nan() {
            return Err(parse_error(source, line, "score `NaN` is not a number"));
        }
        let position = users
            .index(qrels, user)
            .and_then(|u| positions.locate(qrels, &mut last, u, item))
            .map(|(_, position)| position);
        let Some(position) = position else {
            n_ignored += 1;
            continue;
        };
        if lines[position] != 0 {
            return Err(scored_again(source, line, user, item, lines[position]));
        }
        lines[position] = line;
        scores[position] = score;
    }
    let n_missing = scores.iter().filter(|s| s.is_nan()).count();
    Ok(Run { scores, n_missing, n_ignored, format: RunFormat::Tsv })
}

/// The qrels index of a run's users, looked up once per run of lines of the same user (a
/// run lists a user's lines together).
#[derive(Default)]
struct UserLookup<'a> {
    last: Option<(&'a str, Option<u32>)>,
}

impl<'a> UserLookup<'a> {
    #[inline]
    fn index(&mut self, qrels: &Qrels, user: &'a str) -> Option<u32> {
        match self.last {
            Some((last, index)) if same_id(last, user) => index,
            _ => {
                let index = qrels.users.get(user);
                self.last = Some((user, index));
                index
            }
        }
    }
}

/// Where the pieces of a run write, indexed by candidate position.
struct RunTarget {
    scores: Vec<AtomicU32>,
    lines: Vec<AtomicU32>,
}

impl RunTarget {
    /// Records `line` as the one that scored `position` unless a line did already; true
    /// when it is the first. A piece `alone` (no other thread writes meanwhile) needs no
    /// atomic exchange, whose lock would cost more than the rest of the line's work.
    #[inline(always)]
    fn claim(&self, position: usize, line: u32, alone: bool) -> bool {
        let slot = &self.lines[position];
        if alone {
            let first = slot.load(Relaxed) == 0;
            if first {
                slot.store(line, Relaxed);
            }
            first
        } else {
            slot.compare_exchange(0, line, Relaxed, Relaxed).is_ok()
        }
    }
}

/// A run line whose candidate an earlier-written line had scored already.
struct ScoredAgain {
    position: usize,
    user: u32,
    item: u32,
    line: u32,
}

/// What one piece of a run file held besides the scores it wrote.
struct RunPiece {
    /// Lines that are not candidates.
    n_ignored: usize,
    again: Vec<ScoredAgain>,
}

fn run_piece(
    piece: Block<'_>,
    path: &Path,
    format: RunFormat,
    qrels: &Qrels,
    positions: &Positions<'_>,
    (target, alone): (&RunTarget, bool),
) -> Result<RunPiece> {
    let mut out = RunPiece { n_ignored: 0, again: Vec::new() };
    let (mut users, mut last) = (UserLookup::default(), None);
    piece.for_each_line(path, |line, fields| {
        let (user, item, score) = run_fields(path, line, format, fields)?;
        let Some(user) = users.index(qrels, user) else {
            out.n_ignored += 1;
            return Ok(());
        };
        let Some((item, position)) = positions.locate(qrels, &mut last, user, item) else {
            out.n_ignored += 1;
            return Ok(());
        };
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        if target.claim(position, line, alone) {
            target.scores[position].store(score.to_bits(), Relaxed);
        } else {
            out.again.push(ScoredAgain { position, user, item, line });
        }
        Ok(())
    })?;
    Ok(out)
}

/// The error a reading line by line would give: the first line, in file order, that
/// scores a candidate an earlier line scored (whichever thread wrote first).
fn first_scored_again(
    path: &Path,
    qrels: &Qrels,
    target: &RunTarget,
    again: Vec<ScoredAgain>,
) -> MetricsError {
    // Per candidate, its two earliest lines; the error is at the earliest second line.
    let mut lines: std::collections::BTreeMap<usize, (Vec<u32>, u32, u32)> = Default::default();
    for a in again {
        let stored = target.lines[a.position].load(Relaxed);
        let entry = lines.entry(a.position).or_insert((vec![stored], a.user, a.item));
        entry.0.push(a.line);
    }
    let (first, second, user, item) = lines
        .into_values()
        .map(|(mut l, user, item)| {
            l.sort_unstable();
            (l[0], l[1], user, item)
        })
        .min_by_key(|t| t.1)
        .unwrap_or((0, 0, 0, 0));
    let user = qrels.users.external(user).unwrap_or("?");
    let item = qrels.items.external(item).unwrap_or("?");
    scored_again(path, second as usize, user, item, first as usize)
}

/// The run format of the first data line of `block` (`Auto` without one).
fn block_format(block: Block<'_>, path: &Path) -> Result<RunFormat> {
    match block.first_data_line(path)? {
        Some((line, fields)) => detected_format(path, line, &fields),
        None => Ok(RunFormat::Auto),
    }
}

/// The user, item and score of a run line in `format` (not `Auto`).
#[inline]
fn run_fields<'a>(
    path: &Path,
    line: usize,
    format: RunFormat,
    fields: &[&'a str],
) -> Result<(&'a str, &'a str, f32)> {
    let (user, item, score) = match (format, fields) {
        (RunFormat::Tsv, [u, i, s]) => (*u, *i, *s),
        (RunFormat::Trec, [u, _, i, _, s, _]) => (*u, *i, *s),
        (RunFormat::Tsv, _) => {
            return Err(fields_error(path, line, "`user<TAB>item<TAB>score`", fields));
        }
        _ => return Err(fields_error(path, line, "`qid Q0 doc rank score tag`", fields)),
    };
    let score: f32 = blocks::parse_f32(score)
        .filter(|s: &f32| !s.is_nan())
        .ok_or_else(|| parse_error(path, line, format!("score `{score}` is not a number")))?;
    Ok((user, item, score))
}

/// Calls `f(line number, user, item, score)` for every data line of a run in `format`
/// (detected from the first data line under [`RunFormat::Auto`]); returns the format read.
fn for_each_run_line(
    reader: impl BufRead,
    path: &Path,
    mut format: RunFormat,
    mut f: impl FnMut(usize, &str, &str, f32) -> Result<()>,
) -> Result<RunFormat> {
    let mut blocks = Blocks::new(reader, path);
    while let Some(block) = blocks.next_block()? {
        if format == RunFormat::Auto {
            format = block_format(block, path)?;
        }
        block.for_each_line(path, |line, fields| {
            let (user, item, score) = run_fields(path, line, format, fields)?;
            f(line, user, item, score)
        })?;
    }
    Ok(format)
}

/// The run format of a first data line: six fields with `Q0` second → TREC, three → TSV.
fn detected_format(path: &Path, line: usize, fields: &[&str]) -> Result<RunFormat> {
    match fields {
        [_, q0, _, _, _, _] if q0.eq_ignore_ascii_case("q0") => Ok(RunFormat::Trec),
        [_, _, _] => Ok(RunFormat::Tsv),
        _ => {
            let expected = "3 fields (user item score) or 6 (qid Q0 doc rank score tag) to detect the run format";
            Err(fields_error(path, line, expected, fields))
        }
    }
}

/// The format of the run file at `path`, from its first data line as [`RunFormat::Auto`]
/// reads it (`Auto` for a file without data lines).
///
/// # Errors
/// [`MetricsError::Io`] when the file cannot be read; [`MetricsError::Parse`] when the
/// first data line has neither layout.
pub fn detect_run_format(path: impl AsRef<Path>) -> Result<RunFormat> {
    let path = path.as_ref();
    if columnar::columnar_format(path)?.is_some() {
        // Columns by name: user, item, score, as a tab-separated run.
        return Ok(RunFormat::Tsv);
    }
    match Blocks::new(open(path)?, path).next_block()? {
        Some(block) => block_format(block, path),
        None => Ok(RunFormat::Auto),
    }
}

/// The error of a (user, item) pair scored on `line` after `first`.
fn scored_again(path: &Path, line: usize, user: &str, item: &str, first: usize) -> MetricsError {
    parse_error(
        path,
        line,
        format!("user `{user}` item `{item}` scored again (first on line {first})"),
    )
}

/// Writes `judgments` as a qrels file: `user<TAB>item<TAB>grade`, one line per candidate
/// in the judgments' order (users, then items, by increasing index), with the external
/// ids of `users` and `items` and each grade in its shortest round-trip form.
/// [`parse_qrels`] reads it back to the same candidates and grades (with indices in the
/// canonical order of the ids). Wrap a file in a `BufWriter`.
///
/// ```
/// use recs_core::{IdMap, Judgments};
/// use recs_metrics::io::write_qrels;
/// let users = IdMap::from_ids_sorted(["u1"])?;
/// let items = IdMap::from_ids_sorted(["a", "b"])?;
/// let mut builder = Judgments::builder(1, 2);
/// builder.push_user(0, &[1, 0], &[2.5, 0.0])?;
/// let mut text = Vec::new();
/// write_qrels(&mut text, &builder.build()?, &users, &items)?;
/// assert_eq!(text, b"u1\ta\t0\nu1\tb\t2.5\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`std::io::ErrorKind::InvalidData`] when a user or item index has no external id in
/// `users` or `items`, or its id cannot be read back (empty, holding whitespace, or a
/// user id starting with `#`, which would read as a comment); otherwise the errors of
/// `out`. Lines before the error have been written.
pub fn write_qrels<W: Write>(
    out: &mut W,
    judgments: &Judgments,
    users: &IdMap,
    items: &IdMap,
) -> std::io::Result<()> {
    for user in judgments.iter() {
        let user_id = external_id(users, "user", true, user.user)?;
        for (&item, &grade) in user.items.iter().zip(user.grades) {
            writeln!(out, "{user_id}\t{}\t{grade}", external_id(items, "item", false, item)?)?;
        }
    }
    Ok(())
}

/// Writes `scores` as a run file: `user<TAB>item<TAB>score`, one line per candidate of
/// `judgments` in their order (users, then items, by increasing index), with the external
/// ids of `users` and `items`. Each score is printed in its shortest round-trip form
/// (`0.1`, `-0`, `inf`, `0.33333334`), so [`parse_run`] against the same candidates reads
/// back the same bits. A `NaN` score (missing) is written as no line, which [`parse_run`]
/// reads as missing again. Wrap a file in a `BufWriter`.
///
/// # Errors
/// [`std::io::ErrorKind::InvalidInput`], before anything is written, when `scores` does
/// not hold one score per candidate; [`std::io::ErrorKind::InvalidData`] as in
/// [`write_qrels`]; otherwise the errors of `out`.
pub fn write_run<W: Write>(
    out: &mut W,
    judgments: &Judgments,
    scores: &[f32],
    users: &IdMap,
    items: &IdMap,
) -> std::io::Result<()> {
    if scores.len() != judgments.n_candidates() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            MetricsError::ScoreLength { expected: judgments.n_candidates(), found: scores.len() },
        ));
    }
    for_each_run_row(judgments, scores, users, items, |user, item, score| {
        writeln!(out, "{user}\t{item}\t{score}")
    })
}

/// Calls `row(user id, item id, score)` for each candidate of `judgments` with a score
/// (`NaN` = missing: no call), in their order, as [`write_run`] writes them: the rows of
/// a run in any file format. Ids are checked as in [`write_qrels`].
///
/// # Errors
/// As [`write_run`] for the ids; otherwise the errors of `row`. `scores` must hold one
/// score per candidate (extra scores are ignored, missing ones end the rows early).
pub fn for_each_run_row(
    judgments: &Judgments,
    scores: &[f32],
    users: &IdMap,
    items: &IdMap,
    mut row: impl FnMut(&str, &str, f32) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut scores = scores.iter();
    for user in judgments.iter() {
        let user_id = external_id(users, "user", true, user.user)?;
        for (&item, &score) in user.items.iter().zip(scores.by_ref()) {
            if !score.is_nan() {
                row(user_id, external_id(items, "item", false, item)?, score)?;
            }
        }
    }
    Ok(())
}

/// The external id of `index` in `ids` (the `what` of the line, first on the line when
/// `leads`), if it reads back as one field naming it.
fn external_id<'a>(
    ids: &'a IdMap,
    what: &str,
    leads: bool,
    index: u32,
) -> std::io::Result<&'a str> {
    let invalid = |message: String| std::io::Error::new(std::io::ErrorKind::InvalidData, message);
    let id = ids.external(index).ok_or_else(|| {
        invalid(format!("{what} index {index} has no external id ({} ids known)", ids.len()))
    })?;
    // The readers split lines at whitespace and skip lines starting with `#`.
    if id.is_empty() || id.contains(char::is_whitespace) || (leads && id.starts_with('#')) {
        return Err(invalid(format!(
            "{what} index {index} has the id {id:?}, which a qrels or run file cannot hold"
        )));
    }
    Ok(id)
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
    use proptest::prelude::*;

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
    fn repeats_far_apart_are_reported_as_a_line_by_line_reading_would() {
        // Files spanning many blocks: the second line of the earliest repeated pair is
        // reported, with the first, at any thread count.
        let mut qrels_text = String::new();
        let mut run_text = String::new();
        for u in 0..400 {
            for i in 0..10 {
                qrels_text.push_str(&format!("u{u}\ti{i}\t{}\n", (u + i) % 2));
                run_text.push_str(&format!("u{u}\ti{i}\t{}.5\n", u * 10 + i));
            }
        }
        let q = qrels(&qrels_text).unwrap();
        assert_eq!(q.judgments.n_candidates(), 4000);
        let lines: Vec<&str> = run_text.lines().collect();
        // Line 3001 repeats line 12; line 3500 repeats line 7 and line 3900 line 12 again.
        let mut with_repeats: Vec<&str> = lines.clone();
        with_repeats.insert(3000, lines[11]);
        with_repeats.insert(3499, lines[6]);
        with_repeats.insert(3899, lines[11]);
        let text = with_repeats.join("\n");
        for threads in [1, 2, 5] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let e = pool
                .install(|| parse_run(text.as_bytes(), Path::new("r"), &q, RunFormat::Auto))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("r:3001:") && e.contains("first on line 12"), "{threads}: {e}");
            let q2 = pool.install(|| qrels(&qrels_text)).unwrap();
            assert_eq!(q2.judgments, q.judgments);
            let run = pool
                .install(|| parse_run(run_text.as_bytes(), Path::new("r"), &q, RunFormat::Auto))
                .unwrap();
            assert_eq!((run.n_missing, run.n_ignored), (0, 0));
            let last = q.position(q.users.get("u399").unwrap(), q.items.get("i9").unwrap());
            assert_eq!(run.scores[last.unwrap()], 3999.5);
        }
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(read_qrels("/nonexistent/q.tsv"), Err(MetricsError::Io { .. })));
    }

    /// A candidate: `(user, item, grade, score)`.
    type Row = (u32, u32, f32, f32);

    /// Judgments over `users × items` from `(user, item, grade, score)` rows (a repeated
    /// pair keeps its first row), with the scores in the judgments' order.
    fn judged(users: &IdMap, items: &IdMap, rows: &[Row]) -> (Judgments, Vec<f32>) {
        let mut by_pair = std::collections::BTreeMap::new();
        for &(user, item, grade, score) in rows {
            by_pair.entry((user, item)).or_insert((grade, score));
        }
        let mut builder = Judgments::builder(users.len(), items.len());
        for user in 0..users.len() as u32 {
            let row: Vec<_> = by_pair.range((user, 0)..=(user, u32::MAX)).collect();
            let candidates: Vec<u32> = row.iter().map(|(pair, _)| pair.1).collect();
            let grades: Vec<f32> = row.iter().map(|(_, v)| v.0).collect();
            builder.push_user(user, &candidates, &grades).unwrap();
        }
        let judgments = builder.build().unwrap();
        let scores = judgments
            .iter()
            .flat_map(|u| u.items.iter().map(move |&i| (u.user, i)))
            .map(|pair| by_pair[&pair].1)
            .collect();
        (judgments, scores)
    }

    /// `(user id, item id) → value` of every candidate, through the external ids.
    fn by_ids(
        judgments: &Judgments,
        values: &[f32],
        users: &IdMap,
        items: &IdMap,
    ) -> std::collections::BTreeMap<(String, String), f32> {
        let pairs = judgments.iter().flat_map(|u| u.items.iter().map(move |&i| (u.user, i)));
        pairs
            .zip(values)
            .map(|((u, i), &v)| {
                let id = |ids: &IdMap, index| ids.external(index).unwrap().to_string();
                ((id(users, u), id(items, i)), v)
            })
            .collect()
    }

    /// Writes qrels and run, reads both back, and checks that every candidate keeps its
    /// grade and its score bit for bit (a `NaN` score comes back as missing).
    fn check_round_trip(users: &IdMap, items: &IdMap, judgments: &Judgments, scores: &[f32]) {
        let mut qrels_text = Vec::new();
        write_qrels(&mut qrels_text, judgments, users, items).unwrap();
        let mut run_text = Vec::new();
        write_run(&mut run_text, judgments, scores, users, items).unwrap();
        let back = parse_qrels(&qrels_text[..], Path::new("q.tsv")).unwrap();
        let run = parse_run(&run_text[..], Path::new("r.tsv"), &back, RunFormat::Auto).unwrap();
        let grades = |j: &Judgments| j.iter().flat_map(|u| u.grades.to_vec()).collect::<Vec<_>>();
        let bits = |m: std::collections::BTreeMap<(String, String), f32>| -> Vec<_> {
            m.into_iter()
                .map(|(k, v)| (k, if v.is_nan() { None } else { Some(v.to_bits()) }))
                .collect()
        };
        assert_eq!(
            bits(by_ids(&back.judgments, &grades(&back.judgments), &back.users, &back.items)),
            bits(by_ids(judgments, &grades(judgments), users, items))
        );
        assert_eq!(
            bits(by_ids(&back.judgments, &run.scores, &back.users, &back.items)),
            bits(by_ids(judgments, scores, users, items))
        );
        assert_eq!(run.n_missing, scores.iter().filter(|s| s.is_nan()).count());
        assert_eq!(run.n_ignored, 0);
    }

    #[test]
    fn written_files_read_back_identically() {
        // Canonical id maps holding only judged ids: the judgments come back equal.
        let users = IdMap::from_ids_sorted(["2", "10"]).unwrap();
        let items = IdMap::from_ids_sorted(["a", "b", "c"]).unwrap();
        let rows = [
            (0, 2, 1.0, 0.1),
            (0, 0, 0.0, -0.0),
            (1, 1, 4.5, f32::INFINITY),
            (1, 2, 1e-40, f32::NAN),
            (1, 0, 0.0, 1.0 / 3.0),
        ];
        let (judgments, scores) = judged(&users, &items, &rows);
        let mut text = Vec::new();
        write_qrels(&mut text, &judgments, &users, &items).unwrap();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            // Numeric ids in numeric order; 1e-40 (subnormal) in positional notation.
            format!("2\ta\t0\n2\tc\t1\n10\ta\t0\n10\tb\t4.5\n10\tc\t0.{}1\n", "0".repeat(39))
        );
        let back = parse_qrels(&text[..], Path::new("q.tsv")).unwrap();
        assert_eq!(
            (back.judgments.clone(), &back.users, &back.items),
            (judgments.clone(), &users, &items)
        );
        let mut text = Vec::new();
        write_run(&mut text, &judgments, &scores, &users, &items).unwrap();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            "2\ta\t-0\n2\tc\t0.1\n10\ta\t0.33333334\n10\tb\tinf\n"
        );
        let run = parse_run(&text[..], Path::new("r.tsv"), &back, RunFormat::Auto).unwrap();
        let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&run.scores[..4]), bits(&scores[..4]));
        assert!(run.scores[4].is_nan());
        check_round_trip(&users, &items, &judgments, &scores);
    }

    #[test]
    fn writers_refuse_what_cannot_be_read_back() {
        let users = IdMap::from_ids_sorted(["u"]).unwrap();
        let items = IdMap::from_ids_sorted(["a"]).unwrap();
        let (judgments, scores) = judged(&users, &items, &[(0, 0, 1.0, 0.5)]);
        let mut sink = Vec::new();
        // Judgments over a larger index space than the ids name.
        let mut builder = Judgments::builder(1, 2);
        builder.push_user(0, &[1], &[1.0]).unwrap();
        let e = write_qrels(&mut sink, &builder.build().unwrap(), &users, &items).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "item index 1 has no external id (1 ids known)");
        let e = write_run(&mut sink, &judgments, &[0.5, 0.5], &users, &items).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("1 candidates in the judgments but 2 scores"), "{e}");
        assert!(sink.is_empty());
        for (user, item) in [("u", "a b"), ("u", ""), ("#u", "a"), ("u\tv", "a")] {
            let users = IdMap::from_ids_sorted([user]).unwrap();
            let items = IdMap::from_ids_sorted([item]).unwrap();
            let e = write_run(&mut sink, &judgments, &scores, &users, &items).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{user:?} {item:?}");
            assert!(e.to_string().contains("cannot hold"), "{e}");
        }
        // `#` only matters at the start of a line.
        let items = IdMap::from_ids_sorted(["#a"]).unwrap();
        check_round_trip(&users, &items, &judgments, &scores);
    }

    /// Ids in a shuffled (non-canonical) order, some numeric, some not.
    fn ids() -> impl Strategy<Value = IdMap> {
        proptest::collection::btree_set("[0-9]{1,2}|[a-c0-9_.-]{1,3}", 1..6)
            .prop_map(|set| set.into_iter().collect::<Vec<_>>())
            .prop_shuffle()
            .prop_map(|ids| {
                let mut map = IdMap::new();
                for id in &ids {
                    map.insert(id).unwrap();
                }
                map
            })
    }

    fn grade() -> impl Strategy<Value = f32> {
        use proptest::num::f32::{NORMAL, POSITIVE, SUBNORMAL, ZERO};
        prop_oneof![Just(0.0), Just(-0.0), 0.0f32..5.0, POSITIVE | NORMAL | SUBNORMAL | ZERO]
    }

    /// Id maps and `(user, item, grade, score)` rows over them; scores of every kind
    /// (`NaN`, infinities, both zeros, subnormals).
    fn case() -> impl Strategy<Value = (IdMap, IdMap, Vec<Row>)> {
        (ids(), ids()).prop_flat_map(|(users, items)| {
            let (n_users, n_items) = (users.len() as u32, items.len() as u32);
            let row = (0..n_users, 0..n_items, grade(), proptest::num::f32::ANY);
            (Just(users), Just(items), proptest::collection::vec(row, 0..40))
        })
    }

    proptest! {
        #[test]
        fn ids_compare_as_strings_compare(a in "[ab\u{e9}]{0,19}", b in "[ab\u{e9}]{0,19}") {
            prop_assert_eq!(same_id(&a, &b), a == b);
            prop_assert!(same_id(&a, &a));
            // The same length and one byte changed, at every position.
            for at in 0..a.len() {
                let mut changed = a.clone().into_bytes();
                changed[at] ^= 1;
                if let Ok(changed) = String::from_utf8(changed) {
                    prop_assert!(!same_id(&a, &changed), "{a:?} {changed:?}");
                }
            }
        }
    }

    proptest! {
        /// A run's lines in any order, with lines of items and users the qrels do not
        /// judge, score each candidate as the lines in the qrels' order do.
        #[test]
        fn run_lines_in_any_order_give_the_same_scores(
            grades in proptest::collection::vec(proptest::collection::vec(0u8..3, 1..6), 1..5),
            order in proptest::collection::vec(any::<u32>(), 64),
        ) {
            let mut qrels_text = String::new();
            let mut lines = Vec::new();
            for (u, row) in grades.iter().enumerate() {
                for (i, g) in row.iter().enumerate() {
                    qrels_text.push_str(&format!("u{u}\ti{i}\t{g}\n"));
                    lines.push(format!("u{u}\ti{i}\t{}.5\n", u * 10 + i));
                }
                lines.push(format!("u{u}\tunjudged\t1\n"));
            }
            lines.push("nobody\ti0\t1\n".to_string());
            let qrels = parse_qrels(qrels_text.as_bytes(), "q".as_ref()).unwrap();
            let in_order = parse_run(lines.concat().as_bytes(), "r".as_ref(), &qrels, RunFormat::Tsv).unwrap();
            let mut keyed: Vec<(u32, String)> = order.iter().copied().zip(lines).collect();
            keyed.sort();
            let shuffled: String = keyed.into_iter().map(|(_, line)| line).collect();
            let any_order = parse_run(shuffled.as_bytes(), "r".as_ref(), &qrels, RunFormat::Tsv).unwrap();
            let bits = |run: &Run| run.scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&any_order), bits(&in_order));
            prop_assert_eq!((any_order.n_missing, any_order.n_ignored), (0, grades.len() + 1));
        }
    }

    proptest! {
        /// Qrels lines in any order, among blank and comment lines, give the judgments of
        /// the same lines in order at any thread count; one line listed again is reported
        /// at the later of its two lines, naming the earlier.
        #[test]
        fn qrels_lines_in_any_order_give_the_same_judgments(
            grades in proptest::collection::vec(proptest::collection::vec(0u8..3, 1..40), 1..30),
            order in proptest::collection::vec(any::<u32>(), 1200),
            noise in proptest::collection::vec(0u8..8, 1200),
            repeat in any::<proptest::sample::Index>(),
            at in any::<proptest::sample::Index>(),
        ) {
            let mut lines = Vec::new();
            for (u, row) in grades.iter().enumerate() {
                for (i, g) in row.iter().enumerate() {
                    lines.push(format!("u{u}\ti{i}\t{g}\n"));
                }
            }
            let in_order = parse_qrels(lines.concat().as_bytes(), "q".as_ref()).unwrap();
            let mut keyed: Vec<(u32, String)> = order.iter().copied().zip(lines).collect();
            keyed.sort();
            let mut shuffled: Vec<String> = Vec::new();
            for ((_, line), noise) in keyed.into_iter().zip(&noise) {
                match noise {
                    0 => shuffled.push("\n".into()),
                    1 => shuffled.push("# comment\n".into()),
                    _ => {}
                }
                shuffled.push(line);
            }
            let text = shuffled.concat();
            let data_lines: Vec<usize> = (1..=shuffled.len())
                .filter(|&n| !matches!(shuffled[n - 1].as_str(), "\n" | "# comment\n"))
                .collect();
            let original = data_lines[repeat.index(data_lines.len())];
            let mut with_repeat = shuffled.clone();
            let position = at.index(with_repeat.len() + 1);
            with_repeat.insert(position, shuffled[original - 1].clone());
            let copy = position + 1;
            let original = if copy <= original { original + 1 } else { original };
            let (first, again) = (original.min(copy), original.max(copy));
            for threads in [1, 2, 5] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let any_order = pool.install(|| parse_qrels(text.as_bytes(), "q".as_ref())).unwrap();
                prop_assert_eq!(&any_order.judgments, &in_order.judgments);
                let e = pool
                    .install(|| parse_qrels(with_repeat.concat().as_bytes(), "q".as_ref()))
                    .unwrap_err()
                    .to_string();
                let want = format!("q:{again}:");
                prop_assert!(e.starts_with(&want), "{}", e);
                let named = format!("first on line {first})");
                prop_assert!(e.ends_with(&named), "{}", e);
            }
        }
    }

    proptest! {
        #[test]
        fn writing_then_reading_keeps_every_grade_and_score((users, items, rows) in case()) {
            let (judgments, scores) = judged(&users, &items, &rows);
            check_round_trip(&users, &items, &judgments, &scores);
        }
    }
}
