//! The items' exposure over every user's top-N list, kept exactly and mergeable in any
//! order: coverage, the exposure Gini index and entropy read it.
//!
//! An item of a user's list is in it surely, or with probability `taken / len` when it is
//! one of the `len` members of a tie group the cut-off splits (`taken` slots left). The
//! sure lists are counted; the shared ones are kept as `(item, len, taken)` with their
//! count. The expected exposure and coverage are computed from these counts at the end,
//! in item order, so they do not depend on the order users arrive in or on how they were
//! split into parts (threads, blocks, a streamed catalog).

use serde::{Deserialize, Serialize};

/// The exposure of every item over the lists added so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Exposure {
    /// Per item, the lists that surely hold it.
    sure: Vec<u64>,
    /// `(item, len, taken, lists)`: `lists` lists hold the item with probability
    /// `taken / len`; sorted and merged up to `merged`, appended after.
    shared: Vec<(u32, u32, u32, u64)>,
    merged: usize,
}

impl Exposure {
    /// Adds one list's hold on `item`: `taken` of the `len` members of its tie group are
    /// in the list (`taken == len`: surely).
    pub(crate) fn add(&mut self, item: u32, taken: u32, len: u32) {
        if taken == len {
            let at = item as usize;
            if self.sure.len() <= at {
                self.sure.resize(at + 1, 0);
            }
            self.sure[at] += 1;
        } else if taken > 0 {
            self.shared.push((item, len, taken, 1));
            // Merge now and then: many users share the same few tie shapes.
            if self.shared.len() > 2 * self.merged + 4096 {
                self.compact();
            }
        }
    }

    /// Adds the lists of `other`.
    pub(crate) fn merge(&mut self, other: &Exposure) {
        if self.sure.len() < other.sure.len() {
            self.sure.resize(other.sure.len(), 0);
        }
        for (a, b) in self.sure.iter_mut().zip(&other.sure) {
            *a += b;
        }
        self.shared.extend_from_slice(&other.shared);
        self.compact();
    }

    fn compact(&mut self) {
        self.shared.sort_unstable_by_key(|&(item, len, taken, _)| (item, len, taken));
        let mut out: Vec<(u32, u32, u32, u64)> = Vec::with_capacity(self.shared.len());
        for &entry in &self.shared {
            match out.last_mut() {
                Some(last) if (last.0, last.1, last.2) == (entry.0, entry.1, entry.2) => {
                    last.3 += entry.3;
                }
                _ => out.push(entry),
            }
        }
        self.merged = out.len();
        self.shared = out;
    }

    /// The expected number of lists holding each of `n_items` items.
    pub(crate) fn expected(&mut self, n_items: usize) -> Vec<f64> {
        self.compact();
        let mut out: Vec<f64> =
            (0..n_items).map(|i| self.sure.get(i).copied().unwrap_or(0) as f64).collect();
        for &(item, len, taken, lists) in &self.shared {
            if let Some(e) = out.get_mut(item as usize) {
                *e += (lists * u64::from(taken)) as f64 / f64::from(len);
            }
        }
        out
    }

    /// The expected share of `n_items` items held by at least one list, the tie orders of
    /// different users independent.
    pub(crate) fn coverage(&mut self, n_items: usize) -> f64 {
        if n_items == 0 {
            return 0.0;
        }
        self.compact();
        let mut missed: Vec<f64> = (0..n_items)
            .map(|i| if self.sure.get(i).copied().unwrap_or(0) > 0 { 0.0 } else { 1.0 })
            .collect();
        for &(item, len, taken, lists) in &self.shared {
            if let Some(m) = missed.get_mut(item as usize) {
                let left = 1.0 - f64::from(taken) / f64::from(len);
                *m *= match i32::try_from(lists) {
                    Ok(n) => left.powi(n),
                    Err(_) => left.powf(lists as f64),
                };
            }
        }
        missed.iter().map(|m| 1.0 - m).sum::<f64>() / n_items as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_merged_in_any_order_give_the_same_bits() {
        let lists: Vec<(u32, u32, u32)> =
            (0..500u32).map(|k| (k % 7, 1 + k % 3, 3 + k % 4)).collect();
        let mut whole = Exposure::default();
        for &(i, t, l) in &lists {
            whole.add(i, t.min(l), l);
        }
        let (mut a, mut b) = (Exposure::default(), Exposure::default());
        for (k, &(i, t, l)) in lists.iter().enumerate().rev() {
            if k % 3 == 0 { &mut a } else { &mut b }.add(i, t.min(l), l);
        }
        b.merge(&a);
        let bits = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(whole.expected(9)), bits(b.expected(9)));
        assert_eq!(whole.coverage(9).to_bits(), b.coverage(9).to_bits());
    }

    #[test]
    fn hand_computed() {
        // Item 0 surely in one list; items 1, 2, 3 share one slot of one list; item 1 is
        // also surely in another.
        let mut e = Exposure::default();
        e.add(0, 1, 1);
        for i in 1..4 {
            e.add(i, 1, 3);
        }
        e.add(1, 1, 1);
        let expected = e.expected(5);
        assert_eq!(expected[0], 1.0);
        assert!((expected[1] - 4.0 / 3.0).abs() < 1e-15);
        assert!((expected[3] - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(expected[4], 0.0);
        // Covered: 0 and 1 surely, 2 and 3 with 1/3 each, 4 never.
        assert!((e.coverage(5) - (2.0 + 2.0 / 3.0) / 5.0).abs() < 1e-15);
    }
}
