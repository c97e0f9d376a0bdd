//! The result of a protocol: training and test interactions plus what the protocol adds.

use recs_core::{DuplicatePolicy, Event, Interactions, Result, check_len};
use serde::Serialize;

/// Where one event of the input goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Train,
    Test,
    History,
}

/// One train/test split.
///
/// Invariants (established by every protocol of [`Protocol`](crate::Protocol) and checked
/// by its property tests):
///
/// - `train`, `test` and the optional `history` share the index space of the input (same
///   `n_users`, `n_items`, same external ids);
/// - every input event lies in exactly one of them (disjoint and complete), with its value
///   and timestamp unchanged; hence no (user, item) pair of `test` is in `train`;
/// - `history` holds the fold-in events of test users who are absent from `train`
///   (strong generalization, fastml2015): a model sees them only through
///   [`FoldInUser`](recs_core::FoldInUser), never while fitting;
/// - `test_users`, when present, lists in increasing order the users the protocol
///   designates for judging; `candidate_items`, when present, lists in increasing order the
///   only items that may be judged (cold-start test items of schein2005 §5, hidden columns
///   of ignatov2010 §4).
///
/// [`Split::predefined`] is the one exception to disjointness: two files given by a data
/// source may share pairs (MS Web test visits repeat some training visits); judgments never
/// count such a pair, since an item known for a user is never a candidate.
#[derive(Debug, Clone)]
pub struct Split {
    train: Interactions,
    test: Interactions,
    history: Option<Interactions>,
    test_users: Option<Vec<u32>>,
    candidate_items: Option<Vec<u32>>,
}

/// Counts describing a split, as written to `split.json` by the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SplitSummary {
    /// Events in the training part.
    pub train_events: usize,
    /// Events in the test part (the targets).
    pub test_events: usize,
    /// Fold-in events of test users kept out of training (0 without a history part).
    pub history_events: usize,
    /// Users with at least one test event.
    pub test_users: usize,
    /// Distinct items with at least one test event.
    pub test_items: usize,
    /// Test events whose (user, item) pair is also a training or history event; only
    /// [`Split::predefined`] can produce them.
    pub overlapping_test_events: usize,
}

impl Split {
    /// Builds a split from an assignment of each input event (in the user-major order of
    /// [`Interactions::events`]) to a part.
    pub(crate) fn assemble(
        data: &Interactions,
        parts: &[Part],
        with_history: bool,
        test_users: Option<Vec<u32>>,
        candidate_items: Option<Vec<u32>>,
    ) -> Result<Split> {
        debug_assert_eq!(parts.len(), data.n_events());
        let mut train = Vec::new();
        let mut test = Vec::new();
        let mut history = Vec::new();
        for (event, &part) in data.events().zip(parts) {
            match part {
                Part::Train => train.push(event),
                Part::Test => test.push(event),
                Part::History => history.push(event),
            }
        }
        let build = |events: Vec<Event>| {
            Interactions::from_events(
                data.n_users(),
                data.n_items(),
                events,
                DuplicatePolicy::Error,
            )
        };
        let history = if with_history { Some(build(history)?) } else { None };
        Ok(Split { train: build(train)?, test: build(test)?, history, test_users, candidate_items })
    }

    /// A split given by the data source as two files already loaded into one index space
    /// (e.g. UCI MS Web `anonymous-msweb.data` / `.test` with the loader's id policy).
    ///
    /// Pairs present in both parts are kept as given; [`SplitSummary::overlapping_test_events`]
    /// counts them and judgments never treat them as candidates.
    ///
    /// # Errors
    /// [`RecsError::LengthMismatch`](recs_core::RecsError::LengthMismatch) when the two matrices have different dimensions.
    pub fn predefined(train: Interactions, test: Interactions) -> Result<Split> {
        check_len("users of the test part", train.n_users(), test.n_users())?;
        check_len("items of the test part", train.n_items(), test.n_items())?;
        Ok(Split { train, test, history: None, test_users: None, candidate_items: None })
    }

    /// This split with another training part of the same shape (checked by the caller).
    pub(crate) fn with_train(mut self, train: Interactions) -> Split {
        self.train = train;
        self
    }

    /// The training part, the rest dropped.
    pub(crate) fn into_train(self) -> Interactions {
        self.train
    }

    /// Restricts judging to `items` (sorted and deduplicated here), e.g. the test items of a
    /// cold-start split built elsewhere.
    ///
    /// # Errors
    /// An item index out of range.
    pub fn with_candidate_items(mut self, mut items: Vec<u32>) -> Result<Split> {
        for &item in &items {
            recs_core::check_index("item", item as usize, self.train.n_items())?;
        }
        items.sort_unstable();
        items.dedup();
        self.candidate_items = Some(items);
        Ok(self)
    }

    /// The events a model is fitted on.
    pub fn train(&self) -> &Interactions {
        &self.train
    }

    /// The held-out events (targets).
    pub fn test(&self) -> &Interactions {
        &self.test
    }

    /// Fold-in histories of test users absent from training, for protocols of strong
    /// generalization; `None` otherwise.
    pub fn history(&self) -> Option<&Interactions> {
        self.history.as_ref()
    }

    /// The users the protocol designates for judging, increasing; `None` when every user
    /// may be judged (event-level protocols).
    pub fn test_users(&self) -> Option<&[u32]> {
        self.test_users.as_deref()
    }

    /// The only items that may be judged, increasing; `None` for the whole catalog.
    pub fn candidate_items(&self) -> Option<&[u32]> {
        self.candidate_items.as_deref()
    }

    /// Number of users of the index space.
    pub fn n_users(&self) -> usize {
        self.train.n_users()
    }

    /// Number of items of the index space.
    pub fn n_items(&self) -> usize {
        self.train.n_items()
    }

    /// The items known for `user` (training and history events), increasing and distinct.
    pub fn known_items(&self, user: u32) -> Vec<u32> {
        let train = self.train.user_items(user);
        match &self.history {
            None => train.to_vec(),
            Some(history) => merge_sorted(train, history.user_items(user)),
        }
    }

    /// Training plus history events in one matrix: what a model that cannot fold users in
    /// must be fitted on to score the test users of a strong split (which then becomes a
    /// weak one).
    ///
    /// # Errors
    /// None in practice: both parts come from one duplicate-free input.
    pub fn train_with_history(&self) -> Result<Interactions> {
        match &self.history {
            None => Ok(self.train.clone()),
            Some(history) => Interactions::from_events(
                self.n_users(),
                self.n_items(),
                self.train.events().chain(history.events()),
                DuplicatePolicy::Error,
            ),
        }
    }

    /// Counts of the split.
    pub fn summary(&self) -> SplitSummary {
        let mut item_seen = vec![false; self.n_items()];
        let mut test_users = 0;
        let mut overlapping = 0;
        for user in 0..self.n_users() as u32 {
            let row = self.test.user_items(user);
            if row.is_empty() {
                continue;
            }
            test_users += 1;
            let known = self.known_items(user);
            for &item in row {
                item_seen[item as usize] = true;
                if known.binary_search(&item).is_ok() {
                    overlapping += 1;
                }
            }
        }
        SplitSummary {
            train_events: self.train.n_events(),
            test_events: self.test.n_events(),
            history_events: self.history.as_ref().map_or(0, Interactions::n_events),
            test_users,
            test_items: item_seen.iter().filter(|&&s| s).count(),
            overlapping_test_events: overlapping,
        }
    }

    /// A validation split drawn inside this split's training part with any protocol, for
    /// model selection (cremonesi2008 §2.1: "some learning schemes need also a validation
    /// set"). Its seed is derived from `seed`, so it never reuses the outer draws.
    ///
    /// # Errors
    /// Those of [`Protocol::split`](crate::Protocol::split).
    pub fn validation(
        &self,
        protocol: &crate::Protocol,
        seed: u64,
        id: crate::SplitId,
    ) -> Result<Split> {
        let inner = crate::rng::derived_seed(seed, crate::rng::Purpose::Validation, &[]);
        protocol.split(&self.train, inner, id)
    }
}

/// The union of two strictly increasing lists, strictly increasing.
pub(crate) fn merge_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(n_users: usize, n_items: usize, pairs: &[(u32, u32)]) -> Interactions {
        let events = pairs.iter().map(|&(u, i)| Event::new(u, i, 1.0));
        Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error).unwrap()
    }

    #[test]
    fn predefined_keeps_overlap_and_counts_it() {
        let train = matrix(2, 3, &[(0, 0), (0, 1), (1, 2)]);
        let test = matrix(2, 3, &[(0, 1), (0, 2), (1, 0)]);
        let split = Split::predefined(train, test).unwrap();
        let summary = split.summary();
        assert_eq!(summary.train_events, 3);
        assert_eq!(summary.test_events, 3);
        assert_eq!(summary.test_users, 2);
        assert_eq!(summary.test_items, 3);
        assert_eq!(summary.overlapping_test_events, 1);
    }

    #[test]
    fn predefined_refuses_other_dimensions() {
        let train = matrix(2, 3, &[(0, 0)]);
        assert!(Split::predefined(train.clone(), matrix(3, 3, &[(0, 0)])).is_err());
        assert!(Split::predefined(train, matrix(2, 4, &[(0, 0)])).is_err());
    }

    #[test]
    fn merge_is_a_sorted_union() {
        assert_eq!(merge_sorted(&[1, 3, 5], &[2, 3, 9]), vec![1, 2, 3, 5, 9]);
        assert_eq!(merge_sorted(&[], &[4]), vec![4]);
    }

    #[test]
    fn candidate_items_are_checked_and_sorted() {
        let split = Split::predefined(matrix(1, 3, &[(0, 0)]), matrix(1, 3, &[])).unwrap();
        assert!(split.clone().with_candidate_items(vec![3]).is_err());
        let split = split.with_candidate_items(vec![2, 1, 2]).unwrap();
        assert_eq!(split.candidate_items(), Some(&[1, 2][..]));
    }
}
