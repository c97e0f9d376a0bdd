//! Which (user, item) pairs are candidates when a run and a qrels file disagree.
//!
//! A qrels file in the TREC tradition lists only the judged documents of a query, and a
//! run lists what a system retrieved: a retrieved document nobody judged is not relevant,
//! and a relevant document the run did not retrieve still counts in recall's and AP's
//! denominators. Treating the qrels as the full list of candidates instead (the
//! convention of files written by `recs split` and `recs run`) drops the unjudged
//! retrieved documents and inflates every number: a run `x, y, a` with only `a` judged
//! relevant would score P@1 = 1 instead of 0.

use std::io::BufRead;
use std::path::Path;

use recs_core::{IdMap, Judgments};

use super::{Qrels, Run, RunFormat, for_each_run_line, open, scored_again};
use crate::error::{MetricsError, Result};
use crate::names::named;
use crate::{Missing, Options, TieBreak, ZeroPolicy};

/// The candidates of a user when evaluating a run against qrels.
///
/// As text (`FromStr`, `Display`, serde, `recs eval --candidates`): `qrels` or `run`.
///
/// ```
/// use recs_metrics::io::Candidates;
/// assert_eq!("run".parse::<Candidates>()?, Candidates::Run);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Candidates {
    /// `qrels`: the qrels list every candidate with its grade (0 = not relevant); run
    /// lines for other pairs are ignored, candidates without a run line are missing.
    Qrels,
    /// `run` (TREC): the run's items are the candidates, graded by the qrels (0 when not
    /// judged); users are those of both files; a judged item with a positive grade that
    /// the run does not retrieve counts in the denominators (recall, AP, the ideal DCG)
    /// but is never ranked, as in trec_eval (use with [`Missing::Unranked`]).
    ///
    /// [`Missing::Unranked`]: crate::Missing::Unranked
    Run,
    /// `catalog`: every item of the catalog (the items of the qrels and of a training
    /// file) that the user has no training event with; the qrels hold only the graded
    /// items, every other candidate is not relevant ([`catalog_candidates`]).
    Catalog,
}

named!(Candidates, "candidate policy", [Qrels => "qrels", Run => "run", Catalog => "catalog"]);

impl Candidates {
    /// The options of an evaluation under this policy, as `recs eval` sets them: a
    /// candidate is relevant when its grade is at least `threshold`; users without a
    /// relevant candidate follow `zero` when given, else [`ZeroPolicy::Zero`] under
    /// [`Candidates::Run`] (as trec_eval) and [`ZeroPolicy::Exclude`] otherwise; missing
    /// scores are [`Missing::Unranked`] under [`Candidates::Run`] (unretrieved relevant
    /// items) and [`Missing::Last`] otherwise.
    ///
    /// ```
    /// use recs_metrics::io::Candidates;
    /// use recs_metrics::{Missing, TieBreak, ZeroPolicy};
    /// let options = Candidates::Run.options(1.0, TieBreak::Expected, None);
    /// assert_eq!((options.zero, options.missing), (ZeroPolicy::Zero, Missing::Unranked));
    /// # Ok::<(), recs_metrics::MetricsError>(())
    /// ```
    pub fn options(self, threshold: f32, ties: TieBreak, zero: Option<ZeroPolicy>) -> Options {
        let trec = self == Candidates::Run;
        Options {
            threshold,
            ties,
            zero: zero.unwrap_or(if trec { ZeroPolicy::Zero } else { ZeroPolicy::Exclude }),
            missing: if trec { Missing::Unranked } else { Missing::Last },
            ..Options::default()
        }
    }
}

/// A run read under [`Candidates::Run`], with the judgments it defines.
#[derive(Debug, Clone)]
pub struct RunCandidates {
    /// The candidates: every retrieved item of a user in both files, graded from the
    /// qrels, and the user's positively graded items the run does not retrieve.
    pub qrels: Qrels,
    /// One score per candidate; `NaN` for the unretrieved graded items
    /// (`n_missing` of them). `n_ignored` counts the run lines of users the qrels do not
    /// judge.
    pub run: Run,
    /// Users of the qrels without a line in the run (not evaluated, as in trec_eval).
    pub n_users_without_run: usize,
}

/// Reads a run file under [`Candidates::Run`]; see [`parse_run_candidates`].
///
/// # Errors
/// As [`read_run`](super::read_run).
pub fn read_run_candidates(
    path: impl AsRef<Path>,
    qrels: &Qrels,
    format: RunFormat,
) -> Result<RunCandidates> {
    let path = path.as_ref();
    if let Some(columnar) = super::columnar::columnar_format(path)? {
        let rows = super::columnar::read_rows(path, columnar, "score")?;
        return run_candidates_from_rows(rows.iter(), path, qrels);
    }
    parse_run_candidates(open(path)?, path, qrels, format)
}

/// Parses a run under [`Candidates::Run`] from any reader; `path` names the source in
/// errors.
///
/// ```
/// use recs_metrics::io::{RunFormat, parse_qrels, parse_run_candidates};
/// let qrels = parse_qrels("1 0 a 1\n1 0 b 1\n".as_bytes(), "q".as_ref())?;
/// let run = "1 Q0 x 1 3 s\n1 Q0 y 2 2 s\n1 Q0 a 3 1 s\n";
/// let read = parse_run_candidates(run.as_bytes(), "r".as_ref(), &qrels, RunFormat::Auto)?;
/// // x and y are retrieved but not judged: candidates graded 0. b is judged relevant
/// // but not retrieved: a candidate without a score.
/// assert_eq!(read.qrels.judgments.n_candidates(), 4);
/// assert_eq!(read.qrels.judgments.n_relevant(1.0), 2);
/// assert_eq!(read.run.n_missing, 1);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`read_run`](super::read_run).
pub fn parse_run_candidates(
    reader: impl BufRead,
    path: &Path,
    qrels: &Qrels,
    format: RunFormat,
) -> Result<RunCandidates> {
    // Lines of judged users: (qrels user index, index in `run_items`, score, line).
    let mut lines: Vec<(u32, u32, f32, usize)> = Vec::new();
    // The run's item ids, each stored once.
    let mut run_items = IdMap::new();
    let mut n_ignored = 0;
    let format = for_each_run_line(reader, path, format, |line, user, item, score| {
        match qrels.users.get(user).filter(|&u| qrels.judgments.get(u).is_some()) {
            Some(u) => lines.push((u, run_items.insert(item)?, score, line)),
            None => n_ignored += 1,
        }
        Ok(())
    })?;
    run_candidates_of_lines(lines, run_items, n_ignored, format, path, qrels)
}

/// A run under [`Candidates::Run`] from rows held in memory, `(user id, item id,
/// score)`, read as [`parse_run_candidates`] reads the lines of a file (row `n`, from 1,
/// is reported as line `n` of `source`); the format is [`RunFormat::Tsv`].
///
/// ```
/// use recs_metrics::io::{qrels_from_rows, run_candidates_from_rows};
/// let qrels = qrels_from_rows([("1", "a", 1.0), ("1", "b", 1.0)], "q".as_ref())?;
/// let rows = [("1", "x", 3.0), ("1", "y", 2.0), ("1", "a", 1.0)];
/// let read = run_candidates_from_rows(rows, "r".as_ref(), &qrels)?;
/// assert_eq!(read.qrels.judgments.n_candidates(), 4);
/// assert_eq!(read.run.n_missing, 1);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::Parse`] for a `NaN` score or a repeated (user, item) pair.
pub fn run_candidates_from_rows<'a>(
    rows: impl IntoIterator<Item = (&'a str, &'a str, f32)>,
    source: &Path,
    qrels: &Qrels,
) -> Result<RunCandidates> {
    let mut lines: Vec<(u32, u32, f32, usize)> = Vec::new();
    let mut run_items = IdMap::new();
    let mut n_ignored = 0;
    for (row, (user, item, score)) in rows.into_iter().enumerate() {
        if score.is_nan() {
            return Err(MetricsError::Parse {
                path: source.to_path_buf(),
                line: row + 1,
                message: "score `NaN` is not a number".into(),
            });
        }
        match qrels.users.get(user).filter(|&u| qrels.judgments.get(u).is_some()) {
            Some(u) => lines.push((u, run_items.insert(item)?, score, row + 1)),
            None => n_ignored += 1,
        }
    }
    run_candidates_of_lines(lines, run_items, n_ignored, RunFormat::Tsv, source, qrels)
}

/// The candidates and scores of the run lines of judged users: `(qrels user, index in
/// `run_items`, score, line)`.
fn run_candidates_of_lines(
    lines: Vec<(u32, u32, f32, usize)>,
    mut run_items: IdMap,
    n_ignored: usize,
    format: RunFormat,
    path: &Path,
    qrels: &Qrels,
) -> Result<RunCandidates> {
    let mut evaluated: Vec<u32> = lines.iter().map(|l| l.0).collect();
    evaluated.sort_unstable();
    evaluated.dedup();
    let n_users_without_run = qrels.judgments.n_judged_users() - evaluated.len();

    // The qrels index of each run item (read once per distinct item, not per line).
    let run_to_qrels: Vec<Option<u32>> = run_items.iter().map(|id| qrels.items.get(id)).collect();
    let grade_of = |user: u32, item: u32| -> f32 {
        let (Some(Some(item)), Some(row)) =
            (run_to_qrels.get(item as usize), qrels.judgments.get(user))
        else {
            return 0.0;
        };
        row.items.binary_search(item).map_or(0.0, |i| row.grades[i])
    };
    // Every candidate as (qrels user, index in `run_items`, grade, score, line); line 0 =
    // not retrieved. Unretrieved graded items join `run_items`, so a pair is two indices.
    let mut candidates: Vec<(u32, u32, f32, f32, usize)> = Vec::with_capacity(lines.len());
    for &(user, item, score, line) in &lines {
        candidates.push((user, item, grade_of(user, item), score, line));
    }
    for &user in &evaluated {
        let Some(row) = qrels.judgments.get(user) else { continue };
        for (&item, &grade) in row.items.iter().zip(row.grades) {
            if grade > 0.0 {
                let id = qrels.items.external(item).ok_or_else(|| unmapped("?"))?;
                candidates.push((user, run_items.insert(id)?, grade, f32::NAN, 0));
            }
        }
    }
    // Retrieved lines first within a pair, so that an unretrieved entry follows the line
    // that retrieved it and is dropped, and a second line is reported.
    candidates.sort_unstable_by_key(|a| (a.0, a.1, a.4 == 0, a.4));
    let mut kept: Vec<(u32, u32, f32, f32, usize)> = Vec::with_capacity(candidates.len());
    for c in candidates {
        match kept.last() {
            Some(last) if last.0 == c.0 && last.1 == c.1 => {
                if c.4 != 0 {
                    let user = qrels.users.external(c.0).unwrap_or("?");
                    let item = run_items.external(c.1).unwrap_or("?");
                    return Err(scored_again(path, c.4, user, item, last.4));
                }
            }
            _ => kept.push(c),
        }
    }

    // Users keep the qrels' indices (those without a run line are not judged); items
    // are those of the candidates, the qrels' and the run's together.
    let mut used = vec![false; run_items.len()];
    for c in &kept {
        used[c.1 as usize] = true;
    }
    let items = IdMap::from_ids_sorted(
        run_items.iter().zip(&used).filter(|(_, used)| **used).map(|(id, _)| id),
    )?;
    let remap: Vec<u32> = run_items.iter().map(|id| items.get(id).unwrap_or(u32::MAX)).collect();
    let mut rows: Vec<(u32, u32, f32, f32)> = Vec::with_capacity(kept.len());
    for &(user, item, grade, score, _) in &kept {
        rows.push((user, remap[item as usize], grade, score));
    }
    rows.sort_unstable_by_key(|r| (r.0, r.1));
    let mut builder = Judgments::builder(qrels.users.len(), items.len());
    let (mut item_buf, mut grade_buf) = (Vec::new(), Vec::new());
    let mut scores = Vec::with_capacity(rows.len());
    for user_rows in rows.chunk_by(|a, b| a.0 == b.0) {
        item_buf.clear();
        grade_buf.clear();
        item_buf.extend(user_rows.iter().map(|r| r.1));
        grade_buf.extend(user_rows.iter().map(|r| r.2));
        scores.extend(user_rows.iter().map(|r| r.3));
        builder.push_user(user_rows[0].0, &item_buf, &grade_buf)?;
    }
    let n_missing = scores.iter().filter(|s| s.is_nan()).count();
    Ok(RunCandidates {
        qrels: Qrels { users: qrels.users.clone(), items, judgments: builder.build()? },
        run: Run { scores, n_missing, n_ignored, format },
        n_users_without_run,
    })
}

/// What reading a run under `policy` left out, as the warnings `recs eval` prints:
/// users of the qrels without a run line (under [`Candidates::Run`], counted by
/// [`RunCandidates::n_users_without_run`]) and ignored run lines ([`Run::n_ignored`]).
/// `qrels` and `run` name the sources (file paths, or `DataFrame`, ...).
///
/// ```
/// use recs_metrics::io::{Candidates, qrels_from_rows, run_from_rows, run_warnings};
/// let qrels = qrels_from_rows([("u", "a", 1.0)], "q.tsv".as_ref())?;
/// let run = run_from_rows([("u", "a", 0.5), ("v", "a", 0.1)], "r.tsv".as_ref(), &qrels)?;
/// let warnings = run_warnings(Candidates::Qrels, &run, 0, "q.tsv", "r.tsv");
/// assert_eq!(warnings, ["1 lines of r.tsv are not candidates in q.tsv and were ignored"]);
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
pub fn run_warnings(
    policy: Candidates,
    run: &Run,
    n_users_without_run: usize,
    qrels: &str,
    run_name: &str,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if n_users_without_run > 0 {
        warnings.push(format!(
            "{n_users_without_run} users of {qrels} have no line in {run_name} and are not evaluated"
        ));
    }
    if run.n_ignored > 0 {
        let what = match policy {
            Candidates::Run => "are for users without judgments",
            Candidates::Catalog => "are training events or users without judgments",
            _ => "are not candidates",
        };
        warnings.push(format!(
            "{} lines of {run_name} {what} in {qrels} and were ignored",
            run.n_ignored
        ));
    }
    warnings
}

/// The full-catalog candidates of [`Candidates::Catalog`].
#[derive(Debug, Clone)]
pub struct CatalogCandidates {
    /// Every judged user of the qrels with every catalog item it has no training event
    /// with, graded as in the qrels (0 when not graded), over the catalog's items.
    pub qrels: Qrels,
    /// Pairs of the qrels with a positive grade that are training events, hence not
    /// candidates.
    pub n_graded_known: usize,
}

impl CatalogCandidates {
    /// The warning `recs eval` prints when graded pairs of the qrels (named `qrels`) are
    /// training events (in `train`), hence not candidates; `None` when there are none.
    pub fn warning(&self, qrels: &str, train: &str) -> Option<String> {
        graded_known_warning(self.n_graded_known, qrels, train)
    }
}

/// The warning about `n_graded_known` graded pairs of `qrels` that are training events in
/// `train`; `None` when there are none.
pub(super) fn graded_known_warning(
    n_graded_known: usize,
    qrels: &str,
    train: &str,
) -> Option<String> {
    (n_graded_known > 0).then(|| {
        format!(
            "{n_graded_known} graded pairs of {qrels} are training events in {train} and are not candidates"
        )
    })
}

/// The candidates of every judged user of `qrels` when each item the user has no
/// training event with is one: the catalog is the items of `qrels` and of `known`, the
/// (user, item) ids of the training events (in any order, repeats allowed). The qrels
/// need to list only the graded items; a run is then read against the result with
/// [`read_run`](super::read_run) (its lines for training events are ignored).
///
/// ```
/// use recs_metrics::io::{catalog_candidates, parse_qrels};
/// let qrels = parse_qrels("u1\tc\t1\n".as_bytes(), "q".as_ref())?;
/// let known = [("u1", "a"), ("u2", "b")];
/// let catalog = catalog_candidates(&qrels, known)?;
/// // Catalog a, b, c; u1 knows a: candidates b (not relevant) and c (relevant).
/// let row = catalog.qrels.judgments.get(0).unwrap();
/// assert_eq!((row.items, row.grades), (&[1, 2][..], &[0.0, 1.0][..]));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// [`MetricsError::InvalidArgument`] with more than `u32::MAX` distinct items.
pub fn catalog_candidates<'a>(
    qrels: &Qrels,
    known: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<CatalogCandidates> {
    let catalog = CatalogRows::new(qrels, known)?;
    let mut builder = Judgments::builder(qrels.users.len(), catalog.items().len());
    let n_graded_known = catalog.for_each_user(qrels, |user, items, grades| {
        builder.push_user(user, items, grades)?;
        Ok(())
    })?;
    Ok(CatalogCandidates {
        qrels: Qrels {
            users: qrels.users.clone(),
            items: catalog.items,
            judgments: builder.build()?,
        },
        n_graded_known,
    })
}

/// The full-catalog candidates of [`catalog_candidates`], one judged user at a time, so
/// that a policy which keeps only some of them (a sample of negatives) never holds them
/// all: the catalog (the items of the qrels and of the training events), each catalog
/// item's number of training events, and each user's row on demand.
#[derive(Debug, Clone)]
pub struct CatalogRows {
    items: IdMap,
    /// Training events of judged users, as (qrels user, catalog item), sorted, distinct.
    known_pairs: Vec<(u32, u32)>,
    popularity: Vec<u32>,
}

impl CatalogRows {
    /// The catalog of `qrels` and of `known`, the (user, item) ids of the training events
    /// (in any order, repeats allowed).
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] with more than `u32::MAX` distinct items.
    pub fn new<'a>(
        qrels: &Qrels,
        known: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<CatalogRows> {
        let known: Vec<(&str, &str)> = known.into_iter().collect();
        let items = IdMap::from_ids_sorted(qrels.items.iter().chain(known.iter().map(|k| k.1)))?;
        // Every distinct training event counts once towards its item's popularity.
        let mut events: Vec<(&str, u32)> = known
            .iter()
            .map(|&(user, item)| Ok((user, items.get(item).ok_or_else(|| unmapped(item))?)))
            .collect::<Result<_>>()?;
        events.sort_unstable();
        events.dedup();
        let mut popularity = vec![0u32; items.len()];
        for &(_, item) in &events {
            popularity[item as usize] += 1;
        }
        let mut known_pairs: Vec<(u32, u32)> = events
            .iter()
            .filter_map(|&(user, item)| Some((qrels.users.get(user)?, item)))
            .collect();
        known_pairs.sort_unstable();
        Ok(CatalogRows { items, known_pairs, popularity })
    }

    /// The catalog's items, in canonical id order.
    pub fn items(&self) -> &IdMap {
        &self.items
    }

    /// The warning `recs eval` prints when `n_graded_known` graded pairs of the qrels
    /// (named `qrels`) are training events (in `train`), hence not candidates; `None` when
    /// there are none.
    pub fn warning(n_graded_known: usize, qrels: &str, train: &str) -> Option<String> {
        graded_known_warning(n_graded_known, qrels, train)
    }

    /// Each catalog item's number of distinct training events, by catalog index.
    pub fn popularity(&self) -> &[u32] {
        &self.popularity
    }

    /// Calls `f(user, items, grades)` for every judged user of `qrels` (the qrels this
    /// catalog was built from), in the qrels' order: every catalog item the user has no
    /// training event with, ascending, graded as in the qrels (0 when not graded). Returns
    /// how many pairs the qrels grade above 0 are training events, and so not candidates.
    ///
    /// # Errors
    /// The first error of `f`, or [`MetricsError::InvalidArgument`] for a qrels item the
    /// catalog lacks (qrels other than this catalog's).
    pub fn for_each_user(
        &self,
        qrels: &Qrels,
        mut f: impl FnMut(u32, &[u32], &[f32]) -> Result<()>,
    ) -> Result<usize> {
        let n_items = self.items.len() as u32;
        let (mut item_buf, mut grade_buf, mut graded) = (Vec::new(), Vec::new(), Vec::new());
        let mut n_graded_known = 0;
        let mut start = 0;
        let known_pairs = &self.known_pairs;
        for row in qrels.judgments.iter() {
            let known_start = start + known_pairs[start..].partition_point(|p| p.0 < row.user);
            let known_end =
                known_start + known_pairs[known_start..].partition_point(|p| p.0 == row.user);
            start = known_end;
            let known_items = &known_pairs[known_start..known_end];
            graded.clear();
            for (&item, &grade) in row.items.iter().zip(row.grades) {
                let id = qrels.items.external(item).ok_or_else(|| unmapped("?"))?;
                graded.push((self.items.get(id).ok_or_else(|| unmapped(id))?, grade));
            }
            graded.sort_unstable_by_key(|g| g.0);
            item_buf.clear();
            grade_buf.clear();
            let (mut k, mut g) = (0, 0);
            for item in 0..n_items {
                while k < known_items.len() && known_items[k].1 < item {
                    k += 1;
                }
                while g < graded.len() && graded[g].0 < item {
                    g += 1;
                }
                let grade = graded.get(g).filter(|x| x.0 == item).map_or(0.0, |x| x.1);
                if known_items.get(k).is_some_and(|x| x.1 == item) {
                    n_graded_known += usize::from(grade > 0.0);
                    continue;
                }
                item_buf.push(item);
                grade_buf.push(grade);
            }
            f(row.user, &item_buf, &grade_buf)?;
        }
        Ok(n_graded_known)
    }
}

/// An id missing from a map built from it: a broken invariant, reported, not a panic.
fn unmapped(id: &str) -> MetricsError {
    MetricsError::InvalidArgument {
        name: "id",
        value: id.to_string(),
        expected: "an id of the qrels or the run",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::parse_qrels;

    fn read(qrels: &str, run: &str) -> Result<RunCandidates> {
        let q = parse_qrels(qrels.as_bytes(), Path::new("q"))?;
        parse_run_candidates(run.as_bytes(), Path::new("r"), &q, RunFormat::Auto)
    }

    #[test]
    fn unjudged_items_are_negatives_and_unretrieved_relevant_items_are_missing() {
        let r = read(
            "1 0 a 1\n1 0 b 2\n1 0 c 0\n1 0 d 0\n2 0 a 1\n3 0 z 1\n",
            "1 Q0 x 1 3 s\n1 Q0 a 2 2 s\n1 Q0 c 3 1 s\n2 Q0 y 1 5 s\n9 Q0 a 1 1 s\n",
        )
        .unwrap();
        // User 1: x (0), a (1), c (0) retrieved; b (2) judged, not retrieved; d (0) neither.
        // User 2: y (0) retrieved; a (1) not. User 3: no run line. User 9: not judged.
        let j = &r.qrels.judgments;
        assert_eq!(j.n_judged_users(), 2);
        let grades = |u: &str| {
            let row = j.get(r.qrels.users.get(u).unwrap()).unwrap();
            let ids: Vec<&str> =
                row.items.iter().map(|&i| r.qrels.items.external(i).unwrap()).collect();
            ids.into_iter().zip(row.grades.iter().copied()).collect::<Vec<_>>()
        };
        assert_eq!(grades("1"), [("a", 1.0), ("b", 2.0), ("c", 0.0), ("x", 0.0)]);
        assert_eq!(grades("2"), [("a", 1.0), ("y", 0.0)]);
        let scores: Vec<String> = r.run.scores.iter().map(|s| s.to_string()).collect();
        assert_eq!(scores, ["2", "NaN", "1", "3", "NaN", "5"]);
        assert_eq!((r.run.n_missing, r.run.n_ignored, r.n_users_without_run), (2, 1, 1));
        assert_eq!(r.run.format, RunFormat::Trec);
    }

    #[test]
    fn a_pair_scored_twice_names_both_lines() {
        let e = read("u\ta\t1\n", "u\ta\t1\nu\tb\t2\nu\ta\t3\n").unwrap_err().to_string();
        assert!(e.starts_with("r:3:") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn the_catalog_is_every_item_a_user_has_not_trained_on() {
        let q = parse_qrels("1\tc\t2\n1\td\t0\n2\ta\t1\n".as_bytes(), Path::new("q")).unwrap();
        // Catalog a, b, c, d, e. User 1 knows a and e; user 2 knows a (graded too: not a
        // candidate) and b; user 3 is not judged.
        let known = [("1", "a"), ("1", "e"), ("2", "a"), ("2", "b"), ("2", "b"), ("3", "c")];
        let c = catalog_candidates(&q, known).unwrap();
        let row = |user: &str| {
            let r = c.qrels.judgments.get(c.qrels.users.get(user).unwrap()).unwrap();
            let ids: Vec<&str> =
                r.items.iter().map(|&i| c.qrels.items.external(i).unwrap()).collect();
            ids.into_iter().zip(r.grades.iter().copied()).collect::<Vec<_>>()
        };
        assert_eq!(row("1"), [("b", 0.0), ("c", 2.0), ("d", 0.0)]);
        assert_eq!(row("2"), [("c", 0.0), ("d", 0.0), ("e", 0.0)]);
        assert_eq!(c.qrels.judgments.n_judged_users(), 2);
        assert_eq!(c.n_graded_known, 1);
        // Popularity counts every user's distinct training events, judged or not: a by 1
        // and 2, b by 2 (twice listed), c by 3, e by 1.
        let rows = CatalogRows::new(&q, known).unwrap();
        assert_eq!(rows.popularity(), [2, 1, 1, 0, 1]);
        let mut seen = Vec::new();
        rows.for_each_user(&q, |user, items, _| {
            seen.push((user, items.len()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(0, 3), (1, 3)]);
    }

    /// `(user, item, value)` rows of tab-separated text.
    fn rows(text: &str) -> Vec<(&str, &str, f32)> {
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0], f[1], f[2].parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn rows_in_memory_read_as_the_same_lines_of_a_file() {
        let q = "2\tb\t1\n10\ta\t0\n2\ta\t2\n10\tc\t1\n";
        let r = "10\tc\t0.5\n2\ta\t0.25\n2\tz\t1\n7\ta\t1\n10\ta\t0.5\n";
        let from_file = parse_qrels(q.as_bytes(), Path::new("q")).unwrap();
        let from_rows = crate::io::qrels_from_rows(rows(q), Path::new("q")).unwrap();
        assert_eq!(from_rows.judgments, from_file.judgments);
        assert_eq!(from_rows.users.get("10"), from_file.users.get("10"));
        let file_run =
            crate::io::parse_run(r.as_bytes(), Path::new("r"), &from_file, RunFormat::Tsv);
        let row_run = crate::io::run_from_rows(rows(r), Path::new("r"), &from_rows).unwrap();
        let file_run = file_run.unwrap();
        assert_eq!(row_run.scores.len(), file_run.scores.len());
        for (a, b) in row_run.scores.iter().zip(&file_run.scores) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        assert_eq!(
            (row_run.n_missing, row_run.n_ignored),
            (file_run.n_missing, file_run.n_ignored)
        );
        let file_cands =
            parse_run_candidates(r.as_bytes(), Path::new("r"), &from_file, RunFormat::Tsv).unwrap();
        let row_cands = run_candidates_from_rows(rows(r), Path::new("r"), &from_rows).unwrap();
        assert_eq!(row_cands.qrels.judgments, file_cands.qrels.judgments);
        let bits = |r: &Run| r.scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&row_cands.run), bits(&file_cands.run));
        assert_eq!(
            (row_cands.run.n_missing, row_cands.run.n_ignored),
            (file_cands.run.n_missing, file_cands.run.n_ignored)
        );
        assert_eq!(row_cands.n_users_without_run, file_cands.n_users_without_run);
    }

    #[test]
    fn rows_in_memory_report_errors_at_their_row() {
        let e = crate::io::qrels_from_rows(rows("u\ta\t1\nu\ta\t0\n"), Path::new("frame"));
        assert!(e.unwrap_err().to_string().starts_with("frame:2:"));
        let e = crate::io::qrels_from_rows(rows("u\ta\t-1\n"), Path::new("frame"));
        assert!(e.unwrap_err().to_string().contains("frame:1:"));
        let q = parse_qrels("u\ta\t1\n".as_bytes(), Path::new("q")).unwrap();
        let again = [("u", "a", 1.0), ("u", "a", 2.0)];
        let e = crate::io::run_from_rows(again, Path::new("run"), &q).unwrap_err().to_string();
        assert!(e.starts_with("run:2:") && e.contains("line 1"), "{e}");
        let e = run_candidates_from_rows(again, Path::new("run"), &q).unwrap_err().to_string();
        assert!(e.starts_with("run:2:"), "{e}");
        let nan = [("u", "a", f32::NAN)];
        assert!(crate::io::run_from_rows(nan, Path::new("run"), &q).is_err());
    }

    #[test]
    fn warnings_name_what_was_left_out_and_where() {
        let q = parse_qrels("1\ta\t1\n2\ta\t1\n".as_bytes(), Path::new("q")).unwrap();
        let read = run_candidates_from_rows([("1", "a", 1.0), ("9", "a", 1.0)], Path::new("r"), &q)
            .unwrap();
        let w = run_warnings(Candidates::Run, &read.run, read.n_users_without_run, "q", "r");
        assert_eq!(
            w,
            [
                "1 users of q have no line in r and are not evaluated",
                "1 lines of r are for users without judgments in q and were ignored"
            ]
        );
        let c = catalog_candidates(&q, [("1", "a")]).unwrap();
        assert_eq!(
            c.warning("q", "t").as_deref(),
            Some("1 graded pairs of q are training events in t and are not candidates")
        );
        assert!(catalog_candidates(&q, [("1", "b")]).unwrap().warning("q", "t").is_none());
    }

    #[test]
    fn the_run_policy_sets_the_trec_options() {
        use crate::{Missing, TieBreak, ZeroPolicy};
        let o = Candidates::Qrels.options(2.0, TieBreak::ItemAscending, None);
        assert_eq!((o.threshold, o.ties), (2.0, TieBreak::ItemAscending));
        assert_eq!((o.zero, o.missing), (ZeroPolicy::Exclude, Missing::Last));
        let o = Candidates::Catalog.options(1.0, TieBreak::Expected, None);
        assert_eq!((o.zero, o.missing), (ZeroPolicy::Exclude, Missing::Last));
        let o = Candidates::Run.options(1.0, TieBreak::Expected, Some(ZeroPolicy::Exclude));
        assert_eq!((o.zero, o.missing), (ZeroPolicy::Exclude, Missing::Unranked));
    }

    #[test]
    fn policies_have_names() {
        assert_eq!(Candidates::ALL, &[Candidates::Qrels, Candidates::Run, Candidates::Catalog]);
        let e = "catalogue".parse::<Candidates>().unwrap_err().to_string();
        assert!(e.contains("qrels") && e.contains("run"), "{e}");
    }
}
