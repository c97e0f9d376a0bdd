//! The binary training matrix `X` the walk of RP3β, the regressions of SLIM and the
//! sampled triples of BPR read: an event with a value > 0 counts 1, any other is absent.

use recs_core::{Interactions, RecsError, Result, UserRow, check_index, check_len};

/// The rows of `X`: users' items with a positive value, the users' offsets, and the
/// columns of `X` (items' users in increasing order) with their offsets.
pub(crate) struct Graph {
    pub(crate) row_starts: Vec<usize>,
    pub(crate) row_items: Vec<u32>,
    col_starts: Vec<usize>,
    col_users: Vec<u32>,
}

impl Graph {
    pub(crate) fn new(train: &Interactions) -> Graph {
        let (n_users, n_items) = (train.n_users(), train.n_items());
        let mut row_starts = Vec::with_capacity(n_users + 1);
        let mut row_items = Vec::with_capacity(train.n_events());
        row_starts.push(0);
        for user in 0..n_users as u32 {
            let row = train.user_row(user);
            row_items.extend(positive_items(row.items, row.values));
            row_starts.push(row_items.len());
        }
        // Counting sort by item; users are visited in increasing order, so each column is
        // in increasing order too.
        let mut col_starts = vec![0usize; n_items + 1];
        for &item in &row_items {
            col_starts[item as usize + 1] += 1;
        }
        for i in 0..n_items {
            col_starts[i + 1] += col_starts[i];
        }
        let mut next = col_starts.clone();
        let mut col_users = vec![0u32; row_items.len()];
        for user in 0..n_users {
            for &item in &row_items[row_starts[user]..row_starts[user + 1]] {
                col_users[next[item as usize]] = user as u32;
                next[item as usize] += 1;
            }
        }
        Graph { row_starts, row_items, col_starts, col_users }
    }

    pub(crate) fn items_of(&self, user: usize) -> &[u32] {
        &self.row_items[self.row_starts[user]..self.row_starts[user + 1]]
    }

    pub(crate) fn users_of(&self, item: usize) -> &[u32] {
        &self.col_users[self.col_starts[item]..self.col_starts[item + 1]]
    }
}

/// The items of a row whose value is > 0: the events that count 1 in `X`.
pub(crate) fn positive_items<'a>(
    items: &'a [u32],
    values: &'a [f32],
) -> impl Iterator<Item = u32> + 'a {
    items.iter().zip(values).filter(|(_, v)| **v > 0.0).map(|(&i, _)| i)
}

/// Checks a history to fold in: values aligned with items, items in range and in strictly
/// increasing order. A binary row lists an item once, and increasing order fixes the order
/// of additions, the same as for a training user.
pub(crate) fn check_history(history: &UserRow<'_>, n_items: usize) -> Result<()> {
    check_len("history values", history.items.len(), history.values.len())?;
    for (k, &item) in history.items.iter().enumerate() {
        check_index("history item", item as usize, n_items)?;
        if k > 0 && history.items[k - 1] >= item {
            return Err(RecsError::InvalidValue {
                what: "history item order",
                value: f64::from(item),
                expected: "item indices in strictly increasing order",
            });
        }
    }
    Ok(())
}
