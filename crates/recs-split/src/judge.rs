//! Builders of [`Judgments`] for the three test modes of schein2005 §5, Figure 2.

use derive_setters::Setters;
use recs_core::{Judgments, Result};
use serde::{Deserialize, Serialize};

use crate::split::Split;

/// Which test events count as relevant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relevance {
    /// Every test event (implicit rating prediction).
    Implicit,
    /// Test events rated at least this value.
    RatingAtLeast(f32),
}

/// Which items are candidates for a judged user (before removing known items).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CandidateSet {
    /// Every allowed item (fastml2015: "the test set consists of all items outside the
    /// train").
    #[default]
    FullCatalog,
    /// Only the user's own test events (conditional rating prediction).
    HeldOutOnly,
}

/// Which users are judged when the protocol designates none.
///
/// Protocols over users ([`Protocol::KFoldUsers`](crate::Protocol::KFoldUsers),
/// hidden items, strong, given-L) always judge their own test users; this option applies
/// to the event-level protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JudgedUsers {
    /// Every user of the index space: the Person × Item cross product of schein2005 §5.
    /// Users without test events contribute negatives only.
    #[default]
    All,
    /// Only users with at least one test event (the usual top-N practice).
    WithTestEvents,
}

/// The grade written for a positive candidate (negatives always get 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GradeScale {
    /// Grade 1.
    #[default]
    Binary,
    /// The test rating itself (graded relevance, e.g. for NDCG).
    Rating,
}

/// How to turn a split into judgments (schein2005 §5, Figure 2). Start from one of the
/// three test modes and adjust.
///
/// Notation: for a judged user `u`, `known(u)` is the set of items of `u` in the training
/// part or in the history part (what a model may see of `u`); `test(u)` is the set of
/// items of `u` in the test part, with their ratings `r(u, i)`; `A` is the set of allowed
/// items: the split's [`candidate_items`](Split::candidate_items) (cold-start test items,
/// hidden columns) intersected with [`JudgmentOptions::restrict_items`], or every item
/// when neither is set.
///
/// | mode | candidates of `u` | positive (grade > 0) |
/// |---|---|---|
/// | implicit ([`JudgmentOptions::implicit`]) | `A \ known(u)` | `i ∈ test(u)` |
/// | rating ≥ t ([`JudgmentOptions::rating`]) | `A \ known(u)` | `i ∈ test(u)` and `r(u, i) ≥ t` |
/// | conditional ([`JudgmentOptions::conditional`]) | `(A ∩ test(u)) \ known(u)` | `r(u, i) ≥ t` |
///
/// In the first two modes an unrated pair is a negative (schein2005 §5: "condition b
/// includes the case where person i did not rate movie j at all"); in conditional mode
/// only pairs known to have been rated are judged. The full catalog of the first two
/// modes is what fastml2015 recommends; the held-out-only set of conditional mode is the
/// "ordering the user's held-out ratings" it warns about. `known(u)` is removed in every
/// mode (schein2005 §3: "we do not want to recommend an item if we know that a user has
/// previously seen, purchased or rated that item"), so a predefined test event that
/// repeats a training event is never a candidate.
///
/// The candidate column follows [`JudgmentOptions::candidates`] (full catalog: first two
/// rows; held-out only: third row) and the positive column follows
/// [`JudgmentOptions::relevance`], so the two combine freely. Judged users are the split's
/// [`test_users`](Split::test_users) when the protocol designates them, otherwise those
/// chosen by [`JudgmentOptions::users`]; users with fewer than
/// [`JudgmentOptions::min_known_events`] known events or more than
/// [`JudgmentOptions::max_known_events`], and users left without any candidate, are not
/// judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Setters)]
pub struct JudgmentOptions {
    /// Which test events are relevant.
    #[setters(skip)]
    pub relevance: Relevance,
    /// Full catalog or held-out events only.
    #[setters(skip)]
    pub candidates: CandidateSet,
    /// Which users are judged when the protocol designates none.
    pub users: JudgedUsers,
    /// The grade of a positive.
    pub grade: GradeScale,
    /// Users with fewer known (training + history) events are not judged (schein2005
    /// §6.3 uses 40 for naive Bayes). Default 0.
    pub min_known_events: usize,
    /// When set, users with more known events are not judged either (schein2005 §6.3's
    /// users below 40 ratings, where it says naive Bayes is sensitive to sparsity).
    #[serde(default)]
    #[setters(strip_option)]
    pub max_known_events: Option<usize>,
    /// When set, only these items may be candidates (intersected with the split's own
    /// restriction).
    #[setters(strip_option)]
    pub restrict_items: Option<Vec<u32>>,
}

impl JudgmentOptions {
    /// Whether a user with `known` known events is judged: at least
    /// [`JudgmentOptions::min_known_events`], and at most
    /// [`JudgmentOptions::max_known_events`] when it is set.
    pub fn judges_known(&self, known: usize) -> bool {
        known >= self.min_known_events && self.max_known_events.is_none_or(|max| known <= max)
    }

    fn mode(relevance: Relevance, candidates: CandidateSet) -> Self {
        JudgmentOptions {
            relevance,
            candidates,
            users: JudgedUsers::default(),
            grade: GradeScale::default(),
            min_known_events: 0,
            max_known_events: None,
            restrict_items: None,
        }
    }

    /// Implicit rating prediction (schein2005 §5, mode 1): candidates are the allowed items
    /// not known for the user; positives are its test events.
    pub fn implicit() -> Self {
        Self::mode(Relevance::Implicit, CandidateSet::FullCatalog)
    }

    /// Rating prediction (schein2005 §5, mode 2): candidates as in implicit mode; positives
    /// are test events rated at least `threshold`; unrated pairs are negatives.
    pub fn rating(threshold: f32) -> Self {
        Self::mode(Relevance::RatingAtLeast(threshold), CandidateSet::FullCatalog)
    }

    /// Conditional rating prediction (schein2005 §5, mode 3): candidates are the user's
    /// test events; positives are those rated at least `threshold`.
    pub fn conditional(threshold: f32) -> Self {
        Self::mode(Relevance::RatingAtLeast(threshold), CandidateSet::HeldOutOnly)
    }

    /// The test mode written as text: `implicit`, `rating:T` or `conditional:T` (the
    /// syntax of `recs split --judgments` and of `recs run` configurations).
    ///
    /// # Errors
    /// [`recs_core::RecsError::InvalidParameter`] for any other text or a threshold that
    /// is not a finite number.
    pub fn from_mode(mode: &str) -> Result<Self> {
        let invalid = || {
            recs_core::RecsError::invalid_parameter(
                "mode",
                mode,
                "implicit, rating:T or conditional:T with a number T",
            )
        };
        let threshold =
            |t: &str| t.trim().parse::<f32>().ok().filter(|t| t.is_finite()).ok_or_else(invalid);
        match mode.trim().split_once(':') {
            None if mode.trim() == "implicit" => Ok(Self::implicit()),
            Some(("rating", t)) => Ok(Self::rating(threshold(t)?)),
            Some(("conditional", t)) => Ok(Self::conditional(threshold(t)?)),
            _ => Err(invalid()),
        }
    }
}

impl Split {
    /// The judgments of this split under `options` (see the module table for exactly which
    /// pairs are candidates in each mode).
    ///
    /// # Errors
    /// A restriction item out of range, or a non-finite or negative threshold or rating
    /// used as a grade.
    pub fn judgments(&self, options: &JudgmentOptions) -> Result<Judgments> {
        let allowed_items = self.allowed_items(options)?;
        let mut builder = Judgments::builder(self.n_users(), self.n_items());
        let mut items = Vec::new();
        let mut grades = Vec::new();
        for user in self.judged_users(options) {
            if self.user_candidates(user, options, &allowed_items, &mut items, &mut grades) {
                builder.push_user(user, &items, &grades)?;
            }
        }
        builder.build()
    }

    /// The items that may be candidates under `options` (ascending): the split's candidate
    /// items intersected with the options' restriction, or every item.
    ///
    /// # Errors
    /// A restriction item out of range, or a non-finite threshold.
    pub(crate) fn allowed_items(&self, options: &JudgmentOptions) -> Result<Vec<u32>> {
        let n_items = self.n_items();
        if let Relevance::RatingAtLeast(t) = options.relevance
            && !t.is_finite()
        {
            return Err(recs_core::RecsError::invalid_parameter("threshold", t, "a finite number"));
        }
        let mut allowed = vec![self.candidate_items().is_none(); n_items];
        if let Some(items) = self.candidate_items() {
            for &i in items {
                allowed[i as usize] = true;
            }
        }
        if let Some(restrict) = &options.restrict_items {
            let mut keep = vec![false; n_items];
            for &i in restrict {
                recs_core::check_index("item", i as usize, n_items)?;
                keep[i as usize] = true;
            }
            for (a, k) in allowed.iter_mut().zip(keep) {
                *a &= k;
            }
        }
        Ok((0..n_items as u32).filter(|&i| allowed[i as usize]).collect())
    }

    /// One judged user's candidates and grades under `options` into `items` and `grades`
    /// (cleared first); `false` when the user is not judged (too few known events).
    pub(crate) fn user_candidates(
        &self,
        user: u32,
        options: &JudgmentOptions,
        allowed_items: &[u32],
        items: &mut Vec<u32>,
        grades: &mut Vec<f32>,
    ) -> bool {
        let known = self.known_items(user);
        if !options.judges_known(known.len()) {
            return false;
        }
        let test = self.test().user_row(user);
        items.clear();
        grades.clear();
        let grade_of = |value: f32| grade_of(options, value);
        match options.candidates {
            CandidateSet::FullCatalog => {
                // Walk the allowed items, skipping known ones and looking up test values,
                // all three lists being sorted.
                let (mut k, mut t) = (0, 0);
                for &item in allowed_items {
                    while k < known.len() && known[k] < item {
                        k += 1;
                    }
                    if k < known.len() && known[k] == item {
                        continue;
                    }
                    while t < test.items.len() && test.items[t] < item {
                        t += 1;
                    }
                    let grade = if t < test.items.len() && test.items[t] == item {
                        grade_of(test.values[t])
                    } else {
                        0.0
                    };
                    items.push(item);
                    grades.push(grade);
                }
            }
            CandidateSet::HeldOutOnly => {
                for (&item, &value) in test.items.iter().zip(test.values) {
                    if allowed_items.binary_search(&item).is_ok()
                        && known.binary_search(&item).is_err()
                    {
                        items.push(item);
                        grades.push(grade_of(value));
                    }
                }
            }
        }
        true
    }

    /// The judgments of [`Split::judgments`] without their negatives, when the candidates
    /// of every judged user are all the items it does not know (full catalog, no
    /// candidate items, no restriction): the judged users and their graded items, in
    /// memory that grows with the test events instead of users × items. A user's
    /// candidates are then every item but [`Split::known_items`]. `None` for any other
    /// candidate set.
    ///
    /// # Errors
    /// As [`Split::judgments`].
    pub fn catalog_judgments(&self, options: &JudgmentOptions) -> Result<Option<CatalogJudgments>> {
        if options.candidates != CandidateSet::FullCatalog
            || self.candidate_items().is_some()
            || options.restrict_items.is_some()
        {
            return Ok(None);
        }
        if let Relevance::RatingAtLeast(t) = options.relevance
            && !t.is_finite()
        {
            return Err(recs_core::RecsError::invalid_parameter("threshold", t, "a finite number"));
        }
        let mut out = CatalogJudgments {
            n_items: self.n_items(),
            users: Vec::new(),
            offsets: vec![0],
            items: Vec::new(),
            grades: Vec::new(),
            candidates: Vec::new(),
        };
        for user in self.judged_users(options) {
            let known = self.known_items(user);
            if !options.judges_known(known.len()) {
                continue;
            }
            let test = self.test().user_row(user);
            for (&item, &value) in test.items.iter().zip(test.values) {
                if known.binary_search(&item).is_ok() {
                    continue;
                }
                let grade = grade_of(options, value);
                check_grade(grade)?;
                if grade > 0.0 {
                    out.items.push(item);
                    out.grades.push(grade);
                }
            }
            out.users.push(user);
            out.offsets.push(out.items.len());
            out.candidates.push(self.n_items() - known.len());
        }
        Ok(Some(out))
    }

    /// The users judged under `options`, before the minimum-history filter.
    pub(crate) fn judged_users(&self, options: &JudgmentOptions) -> Vec<u32> {
        match (self.test_users(), options.users) {
            (Some(users), _) => users.to_vec(),
            (None, JudgedUsers::All) => (0..self.n_users() as u32).collect(),
            (None, JudgedUsers::WithTestEvents) => self.test().users_with_events().collect(),
        }
    }
}

/// The grade of a test event rated `value` (0 when it is not relevant).
fn grade_of(options: &JudgmentOptions, value: f32) -> f32 {
    let relevant = match options.relevance {
        Relevance::Implicit => true,
        Relevance::RatingAtLeast(t) => value >= t,
    };
    match (relevant, options.grade) {
        (false, _) => 0.0,
        (true, GradeScale::Binary) => 1.0,
        (true, GradeScale::Rating) => value,
    }
}

/// The check [`Judgments`] makes of a grade, for graded items kept without a builder.
fn check_grade(grade: f32) -> Result<()> {
    if grade.is_finite() && grade >= 0.0 {
        return Ok(());
    }
    Err(recs_core::RecsError::InvalidValue {
        what: "grade",
        value: f64::from(grade),
        expected: "a finite grade >= 0",
    })
}

/// Full-catalog judgments kept without their negatives (see
/// [`Split::catalog_judgments`]): per judged user, ascending, its graded items (grade > 0)
/// and their grades. Every other item the user does not know is a negative candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogJudgments {
    n_items: usize,
    users: Vec<u32>,
    offsets: Vec<usize>,
    items: Vec<u32>,
    grades: Vec<f32>,
    /// Per judged user, its number of candidates.
    candidates: Vec<usize>,
}

impl CatalogJudgments {
    /// Number of items in the catalog.
    pub fn n_items(&self) -> usize {
        self.n_items
    }

    /// The judged users, ascending.
    pub fn users(&self) -> &[u32] {
        &self.users
    }

    /// The graded items (ascending) and grades of the judged user at `position`.
    ///
    /// # Panics
    /// When `position >= users().len()`.
    pub fn graded(&self, position: usize) -> (&[u32], &[f32]) {
        let range = self.offsets[position]..self.offsets[position + 1];
        (&self.items[range.clone()], &self.grades[range])
    }

    /// Number of (user, candidate) pairs: every item a judged user does not know.
    pub fn n_candidates(&self) -> u64 {
        self.candidates.iter().map(|&n| n as u64).sum()
    }

    /// Number of candidates of the judged user at `position`.
    ///
    /// # Panics
    /// When `position >= users().len()`.
    pub fn n_candidates_of(&self, position: usize) -> usize {
        self.candidates[position]
    }

    /// Number of graded pairs.
    pub fn n_graded(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Interactions};

    fn matrix(events: &[(u32, u32, f32)]) -> Interactions {
        let events = events.iter().map(|&(u, i, r)| Event::new(u, i, r));
        Interactions::from_events(2, 5, events, DuplicatePolicy::Error).unwrap()
    }

    /// Two users, five items. User 0 trained on item 0 and rated items 1 (5 stars) and
    /// 2 (2 stars) in test; user 1 trained on items 3, 4 and rated item 0 (4 stars).
    fn split() -> Split {
        let train = matrix(&[(0, 0, 3.0), (1, 3, 1.0), (1, 4, 5.0)]);
        let test = matrix(&[(0, 1, 5.0), (0, 2, 2.0), (1, 0, 4.0)]);
        Split::predefined(train, test).unwrap()
    }

    fn rows(j: &Judgments) -> Vec<(u32, Vec<u32>, Vec<f32>)> {
        j.iter().map(|u| (u.user, u.items.to_vec(), u.grades.to_vec())).collect()
    }

    #[test]
    fn implicit_mode_judges_every_unknown_item() {
        let j = split().judgments(&JudgmentOptions::implicit()).unwrap();
        assert_eq!(
            rows(&j),
            vec![
                (0, vec![1, 2, 3, 4], vec![1.0, 1.0, 0.0, 0.0]),
                (1, vec![0, 1, 2], vec![1.0, 0.0, 0.0]),
            ]
        );
    }

    #[test]
    fn rating_mode_makes_low_ratings_negatives() {
        let j = split().judgments(&JudgmentOptions::rating(4.0)).unwrap();
        assert_eq!(
            rows(&j),
            vec![
                (0, vec![1, 2, 3, 4], vec![1.0, 0.0, 0.0, 0.0]),
                (1, vec![0, 1, 2], vec![1.0, 0.0, 0.0]),
            ]
        );
        let graded =
            split().judgments(&JudgmentOptions::rating(4.0).grade(GradeScale::Rating)).unwrap();
        assert_eq!(graded.get(0).unwrap().grades, &[5.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn catalog_judgments_are_the_graded_part_of_the_full_catalog() {
        let graded_part = |j: &Judgments| -> Vec<(u32, Vec<u32>, Vec<f32>)> {
            rows(j)
                .into_iter()
                .map(|(u, items, grades)| {
                    let kept: Vec<(u32, f32)> =
                        items.into_iter().zip(grades).filter(|(_, g)| *g > 0.0).collect();
                    (u, kept.iter().map(|p| p.0).collect(), kept.iter().map(|p| p.1).collect())
                })
                .collect()
        };
        let strong = crate::Protocol::Strong {
            test_users: crate::Amount::Count(1),
            given: crate::Given::N(1),
        }
        .split(&split().train().clone(), 3, crate::SplitId::default())
        .unwrap();
        for split in [split(), strong] {
            for options in [
                JudgmentOptions::implicit(),
                JudgmentOptions::rating(4.0).grade(GradeScale::Rating),
                JudgmentOptions::implicit().users(JudgedUsers::WithTestEvents).min_known_events(2),
            ] {
                let full = split.judgments(&options).unwrap();
                let catalog = split.catalog_judgments(&options).unwrap().unwrap();
                let streamed: Vec<_> = (0..catalog.users().len())
                    .map(|p| {
                        let (items, grades) = catalog.graded(p);
                        (catalog.users()[p], items.to_vec(), grades.to_vec())
                    })
                    .collect();
                assert_eq!(streamed, graded_part(&full));
                assert_eq!(catalog.n_candidates(), full.n_candidates() as u64);
            }
        }
        // Other candidate sets are not a full catalog.
        let s = split();
        assert!(s.catalog_judgments(&JudgmentOptions::conditional(4.0)).unwrap().is_none());
        let restricted = JudgmentOptions::implicit().restrict_items(vec![1]);
        assert!(s.catalog_judgments(&restricted).unwrap().is_none());
    }

    #[test]
    fn conditional_mode_judges_held_out_events_only() {
        let j = split().judgments(&JudgmentOptions::conditional(4.0)).unwrap();
        assert_eq!(rows(&j), vec![(0, vec![1, 2], vec![1.0, 0.0]), (1, vec![0], vec![1.0])]);
    }

    #[test]
    fn restrictions_and_minimum_history_apply() {
        let options = JudgmentOptions::implicit().restrict_items(vec![2, 0]).min_known_events(2);
        let j = split().judgments(&options).unwrap();
        assert_eq!(rows(&j), vec![(1, vec![0, 2], vec![1.0, 0.0])]);
        let restricted = split().with_candidate_items(vec![1, 2]).unwrap();
        let j = restricted.judgments(&JudgmentOptions::implicit().restrict_items(vec![2])).unwrap();
        assert_eq!(rows(&j), vec![(0, vec![2], vec![1.0]), (1, vec![2], vec![0.0])]);
    }

    #[test]
    fn modes_parse_from_text() {
        assert_eq!(JudgmentOptions::from_mode("implicit").unwrap(), JudgmentOptions::implicit());
        assert_eq!(JudgmentOptions::from_mode("rating:4").unwrap(), JudgmentOptions::rating(4.0));
        assert_eq!(
            JudgmentOptions::from_mode(" conditional:3.5 ").unwrap(),
            JudgmentOptions::conditional(3.5)
        );
        for bad in ["", "rating", "rating:x", "rating:inf", "explicit:4", "implicit:1"] {
            assert!(JudgmentOptions::from_mode(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bad_options_are_errors() {
        assert!(split().judgments(&JudgmentOptions::implicit().restrict_items(vec![5])).is_err());
        assert!(split().judgments(&JudgmentOptions::rating(f32::NAN)).is_err());
    }
}
