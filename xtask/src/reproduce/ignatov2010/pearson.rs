//! How often Pearson's correlation trimmed to co-rated entries is undefined (ignatov2010
//! §3): two rows sharing a single entry, or sharing several on which one of them is
//! constant — the paper's `(5, 5)` against `(4, 5)`.

use recs_core::Interactions;

/// Counts over the pairs of rows (users) or of columns (items) that share an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PairCounts {
    /// Pairs with at least one common entry (the pairs a similarity is computed for).
    pub(crate) sharing: u64,
    /// Of those, pairs with exactly one common entry.
    pub(crate) one_common: u64,
    /// Of those, pairs with two or more common entries on which one vector is constant.
    pub(crate) constant: u64,
}

impl PairCounts {
    /// Pairs whose trimmed correlation is undefined.
    pub(crate) fn undefined(&self) -> u64 {
        self.one_common + self.constant
    }

    /// The counts on the same data read as binary events: the same pairs share entries,
    /// and every trimmed vector is constant (all ones), so every pair is undefined.
    pub(crate) fn binary(&self) -> PairCounts {
        PairCounts { constant: self.sharing - self.one_common, ..*self }
    }
}

/// The counts over pairs of users of `data` (its rows); for pairs of items, pass the
/// transpose.
pub(crate) fn user_pairs(data: &Interactions) -> PairCounts {
    let n = data.n_users();
    // Per other user v: common entries, and for each side Σx and Σx² over them.
    let mut common = vec![0u32; n];
    let mut sums = vec![[0.0f64; 4]; n];
    let mut touched = Vec::new();
    let mut counts = PairCounts::default();
    for u in 0..n as u32 {
        let row = data.user_row(u);
        for (&item, &a) in row.items.iter().zip(row.values) {
            let (users, values) = (data.item_users(item), data.item_values(item));
            // Only v > u, so each pair is counted once.
            let start = users.partition_point(|&v| v <= u);
            for (&v, &b) in users[start..].iter().zip(&values[start..]) {
                let v = v as usize;
                if common[v] == 0 {
                    touched.push(v);
                }
                common[v] += 1;
                let (a, b) = (f64::from(a), f64::from(b));
                let s = &mut sums[v];
                s[0] += a;
                s[1] += a * a;
                s[2] += b;
                s[3] += b * b;
            }
        }
        for &v in &touched {
            let k = f64::from(common[v]);
            let [sa, saa, sb, sbb] = sums[v];
            counts.sharing += 1;
            if common[v] == 1 {
                counts.one_common += 1;
            } else if is_zero(k * saa - sa * sa) || is_zero(k * sbb - sb * sb) {
                counts.constant += 1;
            }
            common[v] = 0;
            sums[v] = [0.0; 4];
        }
        touched.clear();
    }
    counts
}

/// `k·Σx² − (Σx)²` is `k²` times the variance; ratings are small integers, so a
/// constant vector gives exactly 0 and anything else at least 1.
fn is_zero(scaled_variance: f64) -> bool {
    scaled_variance.abs() < 0.5
}

/// The transpose of `data`: items become users.
pub(crate) fn transpose(data: &Interactions) -> recs_core::Result<Interactions> {
    let events = data.events().map(|e| recs_core::Event { user: e.item, item: e.user, ..e });
    Interactions::from_events(
        data.n_items(),
        data.n_users(),
        events,
        recs_core::DuplicatePolicy::Error,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f32]]) -> Interactions {
        let events = rows.iter().enumerate().flat_map(|(u, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, v)| **v != 0.0)
                .map(move |(i, &v)| recs_core::Event::new(u as u32, i as u32, v))
        });
        Interactions::from_events(
            rows.len(),
            rows[0].len(),
            events,
            recs_core::DuplicatePolicy::Error,
        )
        .unwrap()
    }

    #[test]
    fn the_papers_example_is_undefined() {
        // a = (0, 5, 5, 4), b = (0, 4, 5, 0): trimmed to (5, 5) and (4, 5).
        let counts = user_pairs(&matrix(&[&[0.0, 5.0, 5.0, 4.0], &[0.0, 4.0, 5.0, 0.0]]));
        assert_eq!(counts, PairCounts { sharing: 1, one_common: 0, constant: 1 });
    }

    #[test]
    fn each_case_is_counted_once() {
        let data = matrix(&[
            &[1.0, 2.0, 0.0, 3.0],
            &[2.0, 1.0, 0.0, 0.0], // with user 0: (1, 2) vs (2, 1), defined
            &[0.0, 0.0, 4.0, 3.0], // with user 0: one common entry; with user 1: none
            &[0.0, 0.0, 4.0, 0.0], // with user 2: one common entry
        ]);
        let counts = user_pairs(&data);
        assert_eq!(counts, PairCounts { sharing: 3, one_common: 2, constant: 0 });
        assert_eq!(counts.undefined(), 2);
        // The same pattern as binary data: every trimmed vector is constant.
        let binary = matrix(&[
            &[1.0, 1.0, 0.0, 1.0],
            &[1.0, 1.0, 0.0, 0.0],
            &[0.0, 0.0, 1.0, 1.0],
            &[0.0, 0.0, 1.0, 0.0],
        ]);
        assert_eq!(user_pairs(&binary), counts.binary());
        assert_eq!(counts.binary().undefined(), 3);
        // Items, through the transpose: items 0 and 1 share users 0 and 1 ((1, 2) vs
        // (2, 1), defined); items 0 and 3, 1 and 3, 2 and 3 share one user each.
        let items = user_pairs(&transpose(&data).unwrap());
        assert_eq!(items, PairCounts { sharing: 4, one_common: 3, constant: 0 });
    }
}
