//! A full catalog whose users and items are the rows of score matrices: factors handed
//! in (`user × rank` and `item × rank`), or a callback that scores blocks of user rows
//! against every item. Ids arrays name the rows; the qrels and the training events are
//! mapped onto them once, and the streaming driver ([`crate::stream::evaluate_catalog`])
//! takes the scores block by block, so no (user, item) pair is ever listed.
//!
//! Users are numbered as the qrels number them and items in the canonical order of their
//! ids ([`IdMap::from_ids_sorted`]), as [`catalog_candidates`](super::catalog_candidates)
//! numbers them: per-user values, item-ordered tie policies and warnings are then those of
//! `recs eval --candidates catalog` on the same scores listed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use recs_core::{IdMap, Recommender};

use super::Qrels;
use super::candidates::graded_known_warning;
use crate::error::{MetricsError, Result};
use crate::stream::CatalogSource;

/// What the inputs of a [`RowCatalog`] are called in its messages (the argument names of
/// the front end: `user_factors`, `--user-factors`, ...).
#[derive(Debug, Clone, Copy)]
pub struct RowNames<'a> {
    /// The qrels.
    pub qrels: &'a str,
    /// The training events.
    pub train: &'a str,
    /// The ids of the user rows.
    pub users: &'a str,
    /// The ids of the item rows.
    pub items: &'a str,
}

/// The judged users of a full catalog over the rows of score matrices: per judged user
/// (a *position*), its user row, its training items and its graded items; items are
/// *columns*, in the canonical order of the item ids.
#[derive(Debug, Clone)]
pub struct RowCatalog {
    /// The qrels' user map: per-user values are ordered and named by it.
    users: IdMap,
    /// The item ids in canonical order: column `c` is item `items.external(c)`.
    items: IdMap,
    /// Per column, the item row it comes from (the index in the item ids given).
    item_rows: Vec<u32>,
    /// Per position: the qrels user index and its user row.
    judged: Vec<(u32, u32)>,
    graded_offsets: Vec<usize>,
    graded: Vec<u32>,
    grades: Vec<f32>,
    known_offsets: Vec<usize>,
    known: Vec<u32>,
    n_graded_known: usize,
}

impl RowCatalog {
    /// The catalog of every judged user of `qrels` (users with at least one qrels row,
    /// grade 0 included) over the item rows named `item_ids`, the user rows being named
    /// `user_ids`; `train` gives the training events as (user id, item id), in any order,
    /// repeats allowed. A user's candidates are every item row but its training items;
    /// its graded items are its qrels items with a grade > 0 that are not training items
    /// (those are counted and reported by [`RowCatalog::warning`], as `recs eval` does).
    /// `names` name the arguments in error messages.
    ///
    /// # Errors
    /// [`MetricsError::Rows`] naming the argument: a repeated id in `user_ids` or
    /// `item_ids`, or a user or item of `qrels` or `train` that no row is named after.
    pub fn new<'a, S: AsRef<str>>(
        qrels: &Qrels,
        train: impl IntoIterator<Item = (&'a str, &'a str)>,
        user_ids: &[S],
        item_ids: &[S],
        names: RowNames<'_>,
    ) -> Result<Self> {
        let user_rows = row_map(user_ids, names.users)?;
        let item_rows_of_ids = row_map(item_ids, names.items)?;
        let items = IdMap::from_ids_sorted(item_ids.iter().map(AsRef::as_ref))?;
        let item_rows: Vec<u32> =
            items.iter().map(|id| item_rows_of_ids.get(id).unwrap_or(u32::MAX)).collect();
        let column = |id: &str, name: &str| {
            items.get(id).ok_or_else(|| {
                rows_error(name, format!("item `{id}` has no row in {}", names.items))
            })
        };
        // Training events of judged users as (qrels user, column), sorted.
        let mut known_pairs = Vec::new();
        for (user, item) in train {
            if user_rows.get(user).is_none() {
                let message = format!("user `{user}` has no row in {}", names.users);
                return Err(rows_error(names.train, message));
            }
            let c = column(item, names.train)?;
            if let Some(u) = qrels.users.get(user) {
                known_pairs.push((u, c));
            }
        }
        known_pairs.sort_unstable();
        known_pairs.dedup();
        let mut catalog = RowCatalog {
            users: qrels.users.clone(),
            items: IdMap::new(),
            item_rows,
            judged: Vec::new(),
            graded_offsets: vec![0],
            graded: Vec::new(),
            grades: Vec::new(),
            known_offsets: vec![0],
            known: Vec::new(),
            n_graded_known: 0,
        };
        let mut start = 0;
        let mut graded = Vec::new();
        for row in qrels.judgments.iter() {
            let id = qrels.users.external(row.user).unwrap_or("?");
            let Some(user_row) = user_rows.get(id) else {
                let message = format!("user `{id}` has no row in {}", names.users);
                return Err(rows_error(names.qrels, message));
            };
            let first = start + known_pairs[start..].partition_point(|p| p.0 < row.user);
            let end = first + known_pairs[first..].partition_point(|p| p.0 == row.user);
            let known: Vec<u32> = known_pairs[first..end].iter().map(|p| p.1).collect();
            start = end;
            graded.clear();
            for (&item, &grade) in row.items.iter().zip(row.grades) {
                if grade > 0.0 {
                    let id = qrels.items.external(item).unwrap_or("?");
                    graded.push((column(id, names.qrels)?, grade));
                }
            }
            graded.sort_unstable_by_key(|g| g.0);
            for &(c, grade) in &graded {
                if known.binary_search(&c).is_ok() {
                    catalog.n_graded_known += 1;
                } else {
                    catalog.graded.push(c);
                    catalog.grades.push(grade);
                }
            }
            catalog.known.extend(known);
            catalog.judged.push((row.user, user_row));
            catalog.graded_offsets.push(catalog.graded.len());
            catalog.known_offsets.push(catalog.known.len());
        }
        catalog.items = items;
        Ok(catalog)
    }

    /// Number of items (columns).
    pub fn n_items(&self) -> usize {
        self.item_rows.len()
    }

    /// The item ids of the columns: column `c` is item `items().external(c)`.
    pub fn items(&self) -> &IdMap {
        &self.items
    }

    /// Number of judged users.
    pub fn n_users(&self) -> usize {
        self.judged.len()
    }

    /// The user row of the judged user at `position`.
    ///
    /// # Panics
    /// When `position >= n_users()`.
    pub fn user_row(&self, position: usize) -> u32 {
        self.judged[position].1
    }

    /// Per column, the item row it comes from: a caller that scores in the order of the
    /// item rows given reorders its columns with it (`column c ← item row item_rows()[c]`).
    pub fn item_rows(&self) -> &[u32] {
        &self.item_rows
    }

    /// Number of graded pairs (grade > 0) that are candidates.
    pub fn n_graded(&self) -> usize {
        self.graded.len()
    }

    /// The warning `recs eval` prints when graded pairs of the qrels (named `qrels`) are
    /// training events (in `train`), hence not candidates; `None` when there are none
    /// ([`CatalogCandidates::warning`](super::CatalogCandidates::warning)'s words).
    pub fn warning(&self, qrels: &str, train: &str) -> Option<String> {
        graded_known_warning(self.n_graded_known, qrels, train)
    }

    /// The id of the judged user at `position` and of the item at `column`, for messages.
    pub fn ids(&self, position: usize, column: u32) -> (&str, &str) {
        let user = self.judged.get(position).and_then(|j| self.users.external(j.0));
        (user.unwrap_or("?"), self.items.external(column).unwrap_or("?"))
    }

    /// The streaming source of this catalog with the scores of `scorer`, for
    /// [`crate::stream::evaluate_catalog`]. Every score is checked to be finite, and the
    /// graded items' scores of the main pass to equal those of the first pass (a scorer
    /// must give the same scores each time it is asked).
    pub fn source<S: RowScorer>(&self, scorer: S) -> RowSource<'_, S> {
        RowSource {
            catalog: self,
            scorer,
            first_pass: (0..self.graded.len()).map(|_| AtomicU32::new(0)).collect(),
            recorded: AtomicBool::new(false),
        }
    }
}

/// Scores of user rows against every column of a [`RowCatalog`].
pub trait RowScorer: Sync {
    /// The error of scoring; metric errors convert into it.
    type Error: From<MetricsError> + Send;

    /// Users per block when the scorer has its own block size (a callback's); `None`
    /// leaves it to the driver ([`crate::stream::CatalogSource::block_users`]).
    fn block_users(&self) -> Option<usize> {
        None
    }

    /// The score of every column (the catalog's order) for each user row of `rows` into
    /// `out` (`rows.len() × n_items`, row-major).
    ///
    /// # Errors
    /// A scoring failure.
    fn score_rows(&self, rows: &[u32], out: &mut [f32]) -> std::result::Result<(), Self::Error>;

    /// The scores of `columns[r]` for user row `rows[r]`, row after row, appended to
    /// `out`. By default a whole block is scored and the columns picked from it; a
    /// scorer that can score single pairs cheaply says so here.
    ///
    /// # Errors
    /// A scoring failure.
    fn score_columns(
        &self,
        rows: &[u32],
        columns: &[&[u32]],
        n_items: usize,
        out: &mut Vec<f32>,
    ) -> std::result::Result<(), Self::Error> {
        let mut block = vec![0.0; rows.len() * n_items];
        self.score_rows(rows, &mut block)?;
        for (scores, columns) in block.chunks(n_items.max(1)).zip(columns) {
            out.extend(columns.iter().map(|&c| scores[c as usize]));
        }
        Ok(())
    }
}

/// The scores of a model's users (the rows) against every item (the columns, in the
/// model's item order): full-catalog blocks through [`Recommender::score_catalog`], the
/// graded items of the pooled ROC's first pass one user at a time through
/// [`Recommender::score`] (the same bits for a factor model). `recs eval --user-factors`
/// and the Python module evaluate factors handed in through it.
#[derive(Clone, Copy)]
pub struct ModelRows<'a>(pub &'a dyn Recommender);

impl std::fmt::Debug for ModelRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ModelRows").field(&self.0.shape()).finish()
    }
}

impl RowScorer for ModelRows<'_> {
    type Error = MetricsError;

    fn score_rows(&self, rows: &[u32], out: &mut [f32]) -> Result<()> {
        Ok(self.0.score_catalog(rows, out)?)
    }

    fn score_columns(
        &self,
        rows: &[u32],
        columns: &[&[u32]],
        _n_items: usize,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        for (&row, columns) in rows.iter().zip(columns) {
            let start = out.len();
            out.resize(start + columns.len(), 0.0);
            self.0.score(row, columns, &mut out[start..])?;
        }
        Ok(())
    }
}

/// A [`RowCatalog`] with its scores: the [`CatalogSource`] of the streaming driver.
#[derive(Debug)]
pub struct RowSource<'a, S> {
    catalog: &'a RowCatalog,
    scorer: S,
    /// The graded items' scores of the first pass (as bits), to check the main pass by.
    first_pass: Vec<AtomicU32>,
    recorded: AtomicBool,
}

impl<S: RowScorer> RowSource<'_, S> {
    fn graded_range(&self, position: usize) -> std::ops::Range<usize> {
        let c = self.catalog;
        c.graded_offsets[position]..c.graded_offsets[position + 1]
    }

    /// An error naming the user at `position` and the item at `column` whose score
    /// `score` is not finite.
    fn not_finite(&self, position: usize, column: u32, score: f32) -> MetricsError {
        let (user, item) = self.catalog.ids(position, column);
        rows_error("scores", format!("user `{user}`, item `{item}`: {score} is not a finite score"))
    }
}

impl<S: RowScorer> CatalogSource for RowSource<'_, S> {
    type Error = S::Error;

    fn n_items(&self) -> usize {
        self.catalog.n_items()
    }

    fn n_users(&self) -> usize {
        self.catalog.n_users()
    }

    fn n_graded(&self) -> usize {
        self.catalog.n_graded()
    }

    fn user(&self, position: usize) -> u32 {
        self.catalog.judged[position].0
    }

    fn graded(&self, position: usize) -> (&[u32], &[f32]) {
        let range = self.graded_range(position);
        (&self.catalog.graded[range.clone()], &self.catalog.grades[range])
    }

    fn block_users(&self) -> Option<usize> {
        self.scorer.block_users()
    }

    fn excluded(&self, position: usize) -> Cow<'_, [u32]> {
        let c = self.catalog;
        Cow::Borrowed(&c.known[c.known_offsets[position]..c.known_offsets[position + 1]])
    }

    fn score_graded(
        &self,
        positions: &[usize],
        out: &mut Vec<f32>,
    ) -> std::result::Result<(), S::Error> {
        let rows: Vec<u32> = positions.iter().map(|&p| self.catalog.user_row(p)).collect();
        let columns: Vec<&[u32]> = positions.iter().map(|&p| self.graded(p).0).collect();
        let start = out.len();
        self.scorer.score_columns(&rows, &columns, self.n_items(), out)?;
        let mut scores = out[start..].iter();
        for &p in positions {
            for (k, &column) in self.graded_range(p).zip(self.graded(p).0) {
                let &score = scores.next().ok_or_else(|| {
                    rows_error("scores", "fewer scores than graded items".to_string())
                })?;
                if !score.is_finite() {
                    return Err(self.not_finite(p, column, score).into());
                }
                self.first_pass[k].store(score.to_bits(), Ordering::Relaxed);
            }
        }
        self.recorded.store(true, Ordering::Relaxed);
        Ok(())
    }

    fn score_block(
        &self,
        positions: &[usize],
        out: &mut [f32],
    ) -> std::result::Result<(), S::Error> {
        let rows: Vec<u32> = positions.iter().map(|&p| self.catalog.user_row(p)).collect();
        self.scorer.score_rows(&rows, out)?;
        let n_items = self.n_items().max(1);
        let recorded = self.recorded.load(Ordering::Relaxed);
        for (&p, scores) in positions.iter().zip(out.chunks(n_items)) {
            if let Some(c) = scores.iter().position(|s| !s.is_finite()) {
                return Err(self.not_finite(p, c as u32, scores[c]).into());
            }
            if !recorded {
                continue;
            }
            for (k, &column) in self.graded_range(p).zip(self.graded(p).0) {
                let (first, now) =
                    (self.first_pass[k].load(Ordering::Relaxed), scores[column as usize]);
                if first != now.to_bits() {
                    let (user, item) = self.catalog.ids(p, column);
                    let message = format!(
                        "user `{user}`, item `{item}` scored {} in the first pass and {now} in \
                         the second: the scorer must give the same scores each time (the \
                         pooled ROC takes two passes)",
                        f32::from_bits(first)
                    );
                    return Err(rows_error("scores", message).into());
                }
            }
        }
        Ok(())
    }
}

/// Row of every id of `ids`, refusing a repeated id.
fn row_map<S: AsRef<str>>(ids: &[S], name: &str) -> Result<IdMap> {
    let mut map = IdMap::new();
    for (row, id) in ids.iter().enumerate() {
        let id = id.as_ref();
        if map.get(id).is_some() {
            return Err(rows_error(name, format!("id `{id}` names two rows (row {row} again)")));
        }
        map.insert(id)?;
    }
    Ok(map)
}

fn rows_error(name: &str, message: String) -> MetricsError {
    MetricsError::Rows { name: name.to_string(), message }
}
