//! The sparse user × item matrix of observed events.

use std::sync::OnceLock;

use sprs::CsMatI;

use crate::error::{RecsError, Result, check_index, check_len};

/// One observed event: user `user` met item `item` with value `value` (a rating, or
/// `1.0` for an implicit event such as a visit), optionally at `timestamp`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Dense user index.
    pub user: u32,
    /// Dense item index.
    pub item: u32,
    /// Rating, or `1.0` for implicit feedback.
    pub value: f32,
    /// Seconds since an epoch chosen by the data source, if the source records time.
    pub timestamp: Option<i64>,
}

impl Event {
    /// An event without a timestamp.
    pub fn new(user: u32, item: u32, value: f32) -> Self {
        Event { user, item, value, timestamp: None }
    }

    /// An event with a timestamp.
    pub fn at(user: u32, item: u32, value: f32, timestamp: i64) -> Self {
        Event { user, item, value, timestamp: Some(timestamp) }
    }
}

/// What to do when the same (user, item) pair occurs more than once.
///
/// Matrix libraries silently add duplicates together; recommender data must not depend
/// on such an accident, so the caller chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicatePolicy {
    /// Refuse the input with [`RecsError::DuplicateEvent`].
    #[default]
    Error,
    /// Keep the event that came last in input order (value and timestamp).
    KeepLast,
    /// Add the values; the timestamp is the latest one.
    Sum,
    /// Keep the largest value; its timestamp is that of the first event holding it.
    Max,
}

/// A user-major sparse matrix of events (CSR, built on [`sprs`]), with optional timestamps.
///
/// Invariants: every row lists its items in strictly increasing order (no duplicates);
/// every value is finite; timestamps, when present, exist for every event and are stored
/// in the same order as the values.
///
/// ```
/// use recs_core::{DuplicatePolicy, Event, Interactions};
/// let events = [Event::new(0, 2, 5.0), Event::new(0, 1, 3.0), Event::new(1, 2, 4.0)];
/// let matrix = Interactions::from_events(2, 3, events, DuplicatePolicy::Error)?;
/// assert_eq!(matrix.n_events(), 3);
/// assert_eq!(matrix.user_items(0), &[1, 2]);
/// assert_eq!(matrix.user_values(0), &[3.0, 5.0]);
/// assert_eq!(matrix.item_users(2), &[0, 1]);
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Interactions {
    matrix: CsMatI<f32, u32, usize>,
    timestamps: Option<Vec<i64>>,
    item_major: OnceLock<CsMatI<f32, u32, usize>>,
}

/// The events of one user: items in increasing order with their values and timestamps.
#[derive(Debug, Clone, Copy)]
pub struct UserRow<'a> {
    /// Item indices, strictly increasing.
    pub items: &'a [u32],
    /// Value of each event, aligned with `items`.
    pub values: &'a [f32],
    /// Timestamp of each event, aligned with `items`, when the data has them.
    pub timestamps: Option<&'a [i64]>,
}

impl UserRow<'_> {
    /// Number of events in the row.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the user has no events.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl Interactions {
    /// Builds the matrix from events in any order.
    ///
    /// # Errors
    /// An index outside `n_users` × `n_items`, a non-finite value, timestamps on some
    /// events but not others, or a duplicate pair under [`DuplicatePolicy::Error`].
    pub fn from_events<I>(
        n_users: usize,
        n_items: usize,
        events: I,
        policy: DuplicatePolicy,
    ) -> Result<Self>
    where
        I: IntoIterator<Item = Event>,
    {
        check_dimension("user", n_users)?;
        check_dimension("item", n_items)?;
        let mut events: Vec<Event> = events.into_iter().collect();
        let has_time = events.first().is_some_and(|e| e.timestamp.is_some());
        for event in &events {
            check_index("user", event.user as usize, n_users)?;
            check_index("item", event.item as usize, n_items)?;
            if !event.value.is_finite() {
                return Err(RecsError::InvalidValue {
                    what: "event value",
                    value: f64::from(event.value),
                    expected: "a finite number",
                });
            }
            if event.timestamp.is_some() != has_time {
                return Err(RecsError::Unsupported(
                    "timestamps on some events but not on others".to_string(),
                ));
            }
        }
        // A stable sort keeps input order within a pair, which `KeepLast` relies on.
        events.sort_by_key(|e| (e.user, e.item));
        let merged = merge_duplicates(events, policy)?;

        let mut indptr = vec![0usize; n_users + 1];
        for event in &merged {
            indptr[event.user as usize + 1] += 1;
        }
        for u in 0..n_users {
            indptr[u + 1] += indptr[u];
        }
        let indices: Vec<u32> = merged.iter().map(|e| e.item).collect();
        let data: Vec<f32> = merged.iter().map(|e| e.value).collect();
        let timestamps =
            has_time.then(|| merged.iter().map(|e| e.timestamp.unwrap_or(0)).collect());
        drop(merged);
        let matrix = csr((n_users, n_items), indptr, indices, data)?;
        Ok(Interactions { matrix, timestamps, item_major: OnceLock::new() })
    }

    /// Number of users (rows), including users without events.
    pub fn n_users(&self) -> usize {
        self.matrix.rows()
    }

    /// Number of items (columns), including items without events.
    pub fn n_items(&self) -> usize {
        self.matrix.cols()
    }

    /// Number of stored (user, item) events after duplicate handling.
    pub fn n_events(&self) -> usize {
        self.matrix.nnz()
    }

    /// These interactions, or an error when there are none: what every model checks
    /// before it fits.
    ///
    /// # Errors
    /// [`RecsError::Empty`] without events.
    pub fn require_events(&self) -> Result<&Self> {
        if self.n_events() == 0 {
            return Err(RecsError::Empty { what: "training data" });
        }
        Ok(self)
    }

    /// True when the data records a timestamp for every event.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps.is_some()
    }

    /// The underlying CSR matrix (rows = users, columns = items).
    pub fn csr(&self) -> &CsMatI<f32, u32, usize> {
        &self.matrix
    }

    fn row_range(&self, user: u32) -> std::ops::Range<usize> {
        let indptr = self.matrix.indptr();
        let raw = indptr.raw_storage();
        let u = user as usize;
        if u >= self.n_users() {
            return 0..0;
        }
        raw[u]..raw[u + 1]
    }

    /// The items of `user` in increasing order (empty for an out-of-range user).
    pub fn user_items(&self, user: u32) -> &[u32] {
        &self.matrix.indices()[self.row_range(user)]
    }

    /// Whether `user` has an event here. A user of the index space without one is, in a
    /// training part, a user kept out of training (to be folded in later): models leave
    /// such users out of their fits.
    pub fn has_events(&self, user: u32) -> bool {
        !self.user_items(user).is_empty()
    }

    /// The users with at least one event, in increasing order.
    pub fn users_with_events(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.n_users() as u32).filter(|&user| self.has_events(user))
    }

    /// The values of `user`'s events, aligned with [`Interactions::user_items`].
    pub fn user_values(&self, user: u32) -> &[f32] {
        &self.matrix.data()[self.row_range(user)]
    }

    /// Everything about `user`'s events, without allocating.
    pub fn user_row(&self, user: u32) -> UserRow<'_> {
        let range = self.row_range(user);
        UserRow {
            items: &self.matrix.indices()[range.clone()],
            values: &self.matrix.data()[range.clone()],
            timestamps: self.timestamps.as_deref().map(|t| &t[range]),
        }
    }

    /// The value of the event (user, item), if it exists.
    pub fn get(&self, user: u32, item: u32) -> Option<f32> {
        let row = self.user_row(user);
        row.items.binary_search(&item).ok().map(|k| row.values[k])
    }

    fn item_major(&self) -> &CsMatI<f32, u32, usize> {
        self.item_major.get_or_init(|| self.matrix.to_other_storage())
    }

    /// The users who met `item`, in increasing order (computed once, on first use).
    pub fn item_users(&self, item: u32) -> &[u32] {
        let range = self.item_range(item);
        &self.item_major().indices()[range]
    }

    /// The values of `item`'s events, aligned with [`Interactions::item_users`].
    pub fn item_values(&self, item: u32) -> &[f32] {
        let range = self.item_range(item);
        &self.item_major().data()[range]
    }

    /// Where `item`'s events lie in the item-major arrays (empty out of range).
    fn item_range(&self, item: u32) -> std::ops::Range<usize> {
        let i = item as usize;
        if i >= self.n_items() {
            return 0..0;
        }
        let indptr = self.item_major().indptr();
        let raw = indptr.raw_storage();
        raw[i]..raw[i + 1]
    }

    /// Number of events of each user.
    pub fn user_counts(&self) -> Vec<u32> {
        let raw = self.matrix.indptr();
        raw.raw_storage().windows(2).map(|w| (w[1] - w[0]) as u32).collect()
    }

    /// Number of events of each item.
    pub fn item_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.n_items()];
        for &item in self.matrix.indices() {
            counts[item as usize] += 1;
        }
        counts
    }

    /// All events in user-major order.
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        (0..self.n_users() as u32).flat_map(move |user| {
            let row = self.user_row(user);
            (0..row.len()).map(move |k| Event {
                user,
                item: row.items[k],
                value: row.values[k],
                timestamp: row.timestamps.map(|t| t[k]),
            })
        })
    }
}

/// Builds [`Interactions`] one user row at a time, in increasing user order, writing the
/// CSR arrays directly: nothing but the final matrix is held, so generators and loaders
/// that produce users in order can build any size that fits as a matrix.
///
/// ```
/// use recs_core::RowsBuilder;
/// let mut rows = RowsBuilder::new(3, 4)?;
/// rows.push_row(0, &[2, 0], &[5.0, 3.0])?;
/// rows.push_row(2, &[1], &[4.0])?;
/// let m = rows.build()?;
/// assert_eq!((m.n_events(), m.user_items(0), m.get(2, 1)), (3, &[0, 2][..], Some(4.0)));
/// # Ok::<(), recs_core::RecsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RowsBuilder {
    n_users: usize,
    n_items: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f32>,
    /// A row's `(item, value)` pairs while it is sorted.
    scratch: Vec<(u32, f32)>,
}

impl RowsBuilder {
    /// An empty `n_users` × `n_items` matrix to fill.
    ///
    /// # Errors
    /// A dimension above `u32::MAX`.
    pub fn new(n_users: usize, n_items: usize) -> Result<Self> {
        check_dimension("user", n_users)?;
        check_dimension("item", n_items)?;
        let mut indptr = Vec::with_capacity(n_users + 1);
        indptr.push(0);
        Ok(RowsBuilder {
            n_users,
            n_items,
            indptr,
            indices: Vec::new(),
            data: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// Reserves room for `events` more events.
    pub fn reserve(&mut self, events: usize) {
        self.indices.reserve(events);
        self.data.reserve(events);
    }

    /// Sets the row of `user` (items in any order, each at most once). Users skipped since
    /// the previous row get empty rows.
    ///
    /// # Errors
    /// A user not above the previous one or out of range, an item out of range, a
    /// non-finite value, lengths that differ, or an item twice in the row.
    pub fn push_row(&mut self, user: u32, items: &[u32], values: &[f32]) -> Result<()> {
        let next = self.indptr.len() - 1;
        if (user as usize) < next {
            return Err(RecsError::Unsupported(format!(
                "rows must come in increasing user order: user {user} after user {}",
                next - 1
            )));
        }
        check_index("user", user as usize, self.n_users)?;
        check_len("row values", items.len(), values.len())?;
        self.scratch.clear();
        for (&item, &value) in items.iter().zip(values) {
            check_index("item", item as usize, self.n_items)?;
            if !value.is_finite() {
                return Err(RecsError::InvalidValue {
                    what: "event value",
                    value: f64::from(value),
                    expected: "a finite number",
                });
            }
            self.scratch.push((item, value));
        }
        self.scratch.sort_unstable_by_key(|&(item, _)| item);
        if let Some(w) = self.scratch.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(RecsError::DuplicateEvent { user, item: w[0].0 });
        }
        let filled = self.indices.len();
        self.indptr.resize(user as usize + 1, filled);
        self.indices.extend(self.scratch.iter().map(|&(item, _)| item));
        self.data.extend(self.scratch.iter().map(|&(_, value)| value));
        self.indptr.push(self.indices.len());
        Ok(())
    }

    /// The matrix; users after the last pushed row have empty rows.
    ///
    /// # Errors
    /// Only if the CSR structure were inconsistent, which `push_row` prevents.
    pub fn build(mut self) -> Result<Interactions> {
        let filled = self.indices.len();
        self.indptr.resize(self.n_users + 1, filled);
        let matrix = csr((self.n_users, self.n_items), self.indptr, self.indices, self.data)?;
        Ok(Interactions { matrix, timestamps: None, item_major: OnceLock::new() })
    }
}

fn check_dimension(what: &'static str, n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(RecsError::IndexOutOfRange { what, index: n, len: u32::MAX as usize });
    }
    Ok(())
}

/// Collapses runs of equal (user, item) in a sorted event list under `policy`.
fn merge_duplicates(mut events: Vec<Event>, policy: DuplicatePolicy) -> Result<Vec<Event>> {
    // In place: events `..kept` are the merged prefix, so no second vector of the input's
    // size is ever allocated (the input may hold hundreds of millions of events).
    let mut kept = 0usize;
    for read in 0..events.len() {
        let event = events[read];
        if kept > 0 {
            let last = &mut events[kept - 1];
            if last.user == event.user && last.item == event.item {
                match policy {
                    DuplicatePolicy::Error => {
                        return Err(RecsError::DuplicateEvent {
                            user: event.user,
                            item: event.item,
                        });
                    }
                    DuplicatePolicy::KeepLast => *last = event,
                    DuplicatePolicy::Sum => {
                        last.value += event.value;
                        last.timestamp = last.timestamp.max(event.timestamp);
                    }
                    DuplicatePolicy::Max => {
                        if event.value > last.value {
                            *last = event;
                        }
                    }
                }
                continue;
            }
        }
        events[kept] = event;
        kept += 1;
    }
    events.truncate(kept);
    Ok(events)
}

/// A CSR matrix from its arrays, with sprs's structural checks reported as an error.
pub(crate) fn csr<T>(
    shape: (usize, usize),
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<T>,
) -> Result<CsMatI<T, u32, usize>> {
    CsMatI::try_new(shape, indptr, indices, data)
        .map_err(|(_, _, _, e)| RecsError::Unsupported(format!("invalid CSR structure: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn build(events: &[Event], policy: DuplicatePolicy) -> Result<Interactions> {
        Interactions::from_events(3, 4, events.iter().copied(), policy)
    }

    #[test]
    fn duplicate_policies_resolve_as_documented() {
        let events = [Event::at(1, 2, 3.0, 10), Event::at(1, 2, 5.0, 5), Event::at(1, 2, 4.0, 20)];
        assert!(matches!(
            build(&events, DuplicatePolicy::Error),
            Err(RecsError::DuplicateEvent { user: 1, item: 2 })
        ));
        let last = build(&events, DuplicatePolicy::KeepLast).unwrap();
        assert_eq!((last.get(1, 2), last.user_row(1).timestamps), (Some(4.0), Some(&[20][..])));
        let sum = build(&events, DuplicatePolicy::Sum).unwrap();
        assert_eq!((sum.get(1, 2), sum.user_row(1).timestamps), (Some(12.0), Some(&[20][..])));
        let max = build(&events, DuplicatePolicy::Max).unwrap();
        assert_eq!((max.get(1, 2), max.user_row(1).timestamps), (Some(5.0), Some(&[5][..])));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(
            build(&[Event::new(3, 0, 1.0)], DuplicatePolicy::Error),
            Err(RecsError::IndexOutOfRange { what: "user", index: 3, len: 3 })
        ));
        assert!(matches!(
            build(&[Event::new(0, 4, 1.0)], DuplicatePolicy::Error),
            Err(RecsError::IndexOutOfRange { what: "item", .. })
        ));
        assert!(build(&[Event::new(0, 0, f32::NAN)], DuplicatePolicy::Error).is_err());
        assert!(
            build(&[Event::at(0, 0, 1.0, 1), Event::new(0, 1, 1.0)], DuplicatePolicy::Error)
                .is_err()
        );
    }

    #[test]
    fn empty_rows_and_views() {
        let m =
            build(&[Event::new(2, 3, 1.0), Event::new(0, 3, 2.0)], DuplicatePolicy::Error).unwrap();
        assert!(m.user_row(1).is_empty());
        assert_eq!(m.item_users(3), &[0, 2]);
        assert_eq!(m.item_values(3), &[2.0, 1.0]);
        assert_eq!(m.item_users(0), &[] as &[u32]);
        assert_eq!(m.user_counts(), vec![1, 0, 1]);
        assert_eq!(m.item_counts(), vec![0, 0, 0, 2]);
        assert!(!m.has_timestamps());
        assert_eq!(m.events().count(), 2);
    }

    fn arb_events() -> impl Strategy<Value = Vec<(u32, u32, i8, i64)>> {
        proptest::collection::vec((0u32..5, 0u32..6, -3i8..6, 0i64..100), 0..60)
    }

    proptest! {
        /// Every policy agrees with a straightforward map-based reference.
        #[test]
        fn policies_match_reference(raw in arb_events()) {
            let events: Vec<Event> = raw.iter().map(|&(u, i, v, t)| Event::at(u, i, f32::from(v), t)).collect();
            for policy in [DuplicatePolicy::KeepLast, DuplicatePolicy::Sum, DuplicatePolicy::Max, DuplicatePolicy::Error] {
                let mut reference: BTreeMap<(u32, u32), (f32, i64)> = BTreeMap::new();
                let mut duplicate = false;
                for e in &events {
                    let (v, t) = (e.value, e.timestamp.unwrap());
                    reference.entry((e.user, e.item)).and_modify(|slot| {
                        duplicate = true;
                        match policy {
                            DuplicatePolicy::KeepLast | DuplicatePolicy::Error => *slot = (v, t),
                            DuplicatePolicy::Sum => *slot = (slot.0 + v, slot.1.max(t)),
                            DuplicatePolicy::Max => if v > slot.0 { *slot = (v, t) },
                        }
                    }).or_insert((v, t));
                }
                let built = Interactions::from_events(5, 6, events.clone(), policy);
                if policy == DuplicatePolicy::Error && duplicate {
                    prop_assert!(built.is_err());
                    continue;
                }
                let built = built.unwrap();
                let got: BTreeMap<(u32, u32), (f32, i64)> = built.events().map(|e| ((e.user, e.item), (e.value, e.timestamp.unwrap()))).collect();
                prop_assert_eq!(built.n_events(), reference.len());
                prop_assert_eq!(got, reference);
                // Rows are strictly increasing and the item view is the transpose.
                for u in 0..5 {
                    prop_assert!(built.user_items(u).windows(2).all(|w| w[0] < w[1]));
                }
                for i in 0..6u32 {
                    for &u in built.item_users(i) {
                        prop_assert!(built.get(u, i).is_some());
                    }
                }
                let total: usize = (0..6).map(|i| built.item_users(i).len()).sum();
                prop_assert_eq!(total, built.n_events());
            }
        }

        /// Row by row gives the same matrix as from unordered events.
        #[test]
        fn rows_builder_matches_from_events(raw in arb_events()) {
            let events: Vec<Event> = raw.iter().map(|&(u, i, v, _)| Event::new(u, i, f32::from(v))).collect();
            let reference = Interactions::from_events(5, 6, events.clone(), DuplicatePolicy::KeepLast).unwrap();
            let mut rows = RowsBuilder::new(5, 6).unwrap();
            for u in 0..5u32 {
                let row = reference.user_row(u);
                // Reversed, to show that the builder sorts a row.
                let items: Vec<u32> = row.items.iter().rev().copied().collect();
                let values: Vec<f32> = row.values.iter().rev().copied().collect();
                if !items.is_empty() {
                    rows.push_row(u, &items, &values).unwrap();
                }
            }
            let built = rows.build().unwrap();
            prop_assert_eq!(built.csr(), reference.csr());
        }
    }

    #[test]
    fn rows_builder_refuses_bad_rows() {
        let mut rows = RowsBuilder::new(3, 4).unwrap();
        rows.push_row(1, &[3, 0], &[1.0, 2.0]).unwrap();
        assert!(rows.push_row(0, &[1], &[1.0]).is_err(), "decreasing user");
        assert!(rows.push_row(1, &[1], &[1.0]).is_err(), "same user twice");
        assert!(rows.push_row(3, &[1], &[1.0]).is_err(), "user out of range");
        assert!(rows.push_row(2, &[4], &[1.0]).is_err(), "item out of range");
        assert!(rows.push_row(2, &[1], &[f32::NAN]).is_err(), "non-finite value");
        assert!(rows.push_row(2, &[1, 2], &[1.0]).is_err(), "length mismatch");
        assert!(matches!(
            rows.push_row(2, &[1, 1], &[1.0, 2.0]),
            Err(RecsError::DuplicateEvent { user: 2, item: 1 })
        ));
        let m = rows.build().unwrap();
        assert_eq!((m.n_users(), m.n_events(), m.user_items(1)), (3, 2, &[0, 3][..]));
        assert!(m.user_items(0).is_empty() && m.user_items(2).is_empty());
    }
}
