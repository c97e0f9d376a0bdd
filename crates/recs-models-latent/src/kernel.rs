//! The full-catalog scoring kernel: every item for a block of users, each score the same
//! sequence of operations as [`dot32`](crate::common::dot32), bit for bit.
//!
//! A product of two `f32` values is exact in `f64` (24 + 24 significant bits fit in 53), so
//! a score is determined by the order of its additions alone: `+0.0`, then the products
//! for `k = 0, 1, …` in turn, rounded to `f64` after each addition, then to `f32`. The
//! kernel keeps that order for every (user, item) pair and gains its speed elsewhere: item
//! factors are copied once into panels of [`WIDTH`] items (one `f64` vector per
//! dimension), [`USERS`] users share each panel load, and the `USERS × WIDTH` sums are
//! independent, so the floating-point units are not bound by the latency of one chain.
//! The panels are compiled for the widest vector instructions the processor has
//! (through `pulp`'s dispatch), with one result on every machine.

use pulp::{Arch, Simd, WithSimd};

/// Items per panel: one `f64` sum per item, side by side.
pub(crate) const WIDTH: usize = 8;
/// Users scored together against each panel.
pub(crate) const USERS: usize = 4;

/// Item factors regrouped for the kernel: panel `p` holds items `p·WIDTH ..`, dimension
/// by dimension (`rank × WIDTH` values, `f64`), the last panel padded with zeros.
#[derive(Debug, Clone)]
pub(crate) struct ItemPanels {
    n_items: usize,
    rank: usize,
    values: Vec<f64>,
}

impl ItemPanels {
    /// Panels of the row-major `n_items × rank` factors `items`.
    pub(crate) fn new(items: &[f32], n_items: usize, rank: usize) -> Self {
        let panels = n_items.div_ceil(WIDTH);
        let mut values = vec![0.0; panels * rank * WIDTH];
        for (item, row) in items.chunks_exact(rank.max(1)).take(n_items).enumerate() {
            let panel = &mut values[(item / WIDTH) * rank * WIDTH..];
            for (k, &x) in row.iter().enumerate() {
                panel[k * WIDTH + item % WIDTH] = f64::from(x);
            }
        }
        ItemPanels { n_items, rank, values }
    }

    /// Writes the score of every item for each user row of `users` (each `rank` long)
    /// into `out` (`users.len() × n_items`, row-major).
    pub(crate) fn score(&self, users: &[&[f32]], out: &mut [f32]) {
        debug_assert_eq!(out.len(), users.len() * self.n_items);
        // Users interleaved by dimension, `USERS` at a time: `[k][user]`, zero-padded.
        let mut interleaved = vec![0.0f64; self.rank * USERS];
        let rows = out.chunks_mut((USERS * self.n_items).max(1));
        for (group, out) in users.chunks(USERS).zip(rows) {
            interleaved.fill(0.0);
            for (u, row) in group.iter().enumerate() {
                for (k, &x) in row.iter().enumerate() {
                    interleaved[k * USERS + u] = f64::from(x);
                }
            }
            Arch::new().dispatch(Group { panels: self, users: &interleaved, out });
        }
    }
}

/// One group of at most [`USERS`] users against every panel.
struct Group<'a> {
    panels: &'a ItemPanels,
    /// `rank × USERS`, dimension-major.
    users: &'a [f64],
    /// `group size × n_items`.
    out: &'a mut [f32],
}

impl WithSimd for Group<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let Group { panels, users, out } = self;
        let (n_items, rank) = (panels.n_items, panels.rank);
        let group = out.len() / n_items.max(1);
        let (users, _) = users.as_chunks::<USERS>();
        let panel_len = rank * WIDTH;
        for p in 0..n_items.div_ceil(WIDTH) {
            let (panel, _) = panels.values[p * panel_len..(p + 1) * panel_len].as_chunks::<WIDTH>();
            let mut sums = [[0.0f64; WIDTH]; USERS];
            for (items, users) in panel.iter().zip(users) {
                for u in 0..USERS {
                    for w in 0..WIDTH {
                        // The product is exact, so fused or not, this is `sum + u·v`
                        // rounded once.
                        sums[u][w] = users[u].mul_add(items[w], sums[u][w]);
                    }
                }
            }
            let first = p * WIDTH;
            let width = WIDTH.min(n_items - first);
            for (u, sum) in sums.iter().enumerate().take(group) {
                let row = &mut out[u * n_items + first..u * n_items + first + width];
                for (o, &s) in row.iter_mut().zip(sum) {
                    *o = s as f32;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::dot32;

    /// Factors with many exponents and signs, so that the order of additions shows.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n as u32)
            .map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) ^ seed).rotate_left(7);
                let mantissa = (x % 1000) as f32 / 997.0 - 0.5;
                mantissa * 2f32.powi((x >> 10) as i32 % 24 - 12)
            })
            .collect()
    }

    #[test]
    fn every_score_is_the_fixed_order_dot_product() {
        for (n_users, n_items, rank) in [(1, 1, 1), (3, 7, 5), (4, 8, 16), (9, 21, 64), (5, 3, 0)] {
            let users = values(n_users * rank, 1);
            let items = values(n_items * rank, 2);
            let panels = ItemPanels::new(&items, n_items, rank);
            let rows: Vec<&[f32]> = (0..n_users).map(|u| &users[u * rank..][..rank]).collect();
            let mut out = vec![f32::NAN; n_users * n_items];
            panels.score(&rows, &mut out);
            for (u, row) in rows.iter().enumerate() {
                for i in 0..n_items {
                    let expected = dot32(row, &items[i * rank..][..rank]) as f32;
                    let got = out[u * n_items + i];
                    assert_eq!(got.to_bits(), expected.to_bits(), "user {u}, item {i}");
                }
            }
        }
    }

    #[test]
    fn a_sum_that_cancels_keeps_its_order() {
        // In f64, 1e17 + 1 rounds back to 1e17: the 1 survives only when it is added
        // after the cancellation.
        let users = [1.0f32, 1.0, 1.0];
        let items = [1e17f32, 1.0, -1e17, 1e17, -1e17, 1.0];
        let panels = ItemPanels::new(&items, 2, 3);
        let mut out = [f32::NAN; 2];
        panels.score(&[&users], &mut out);
        assert_eq!(out, [0.0, 1.0]);
        assert_eq!(out[0].to_bits(), (dot32(&users, &items[..3]) as f32).to_bits());
    }
}
