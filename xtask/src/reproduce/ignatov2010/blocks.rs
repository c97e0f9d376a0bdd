//! The exact expected recall of the kNN models on the disjoint blocks against the test
//! share (I5), derived from the protocol and the models rather than measured.
//!
//! On the disjoint blocks (`ignatov-blocks`: `blocks` diagonal squares of `size` users ×
//! `size` items) a test user's positively correlated training users are exactly its block's
//! training users, and a block's items have training events only through them. So, with
//! `hidden` columns drawn uniformly and `h` of them in the user's block:
//! - `h = 0`: recall 1 (§4's rule);
//! - a block-mate in training: both models score the user's `h` unshown block items above
//!   zero and every other item zero, so the list of `n` holds `min(n, h)` of them;
//! - no block-mate in training (all of them in the user's own fold): every score is zero,
//!   and the list is `n` items drawn at random among the `items − (size − h)` the user
//!   has not shown, so its expected recall is `n / (items − size + h)` (at most 1).
//!
//! Users are dealt into `folds` folds by position in a uniform shuffle, so a fold holds
//! `t` users and a test user's `size − 1` block-mates all lie in its own fold with
//! probability `C(t − 1, size − 1) / C(users − 1, size − 1)`. The folds and the hidden
//! columns are drawn independently, and a repetition's value is the mean of its folds'.

use super::hidden::{hypergeometric, ln_choose};

/// The disjoint blocks and the protocol settings the expectation needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DisjointBlocks {
    /// Number of blocks (users and items alike).
    pub(crate) blocks: u64,
    /// Users (and items) per block.
    pub(crate) size: u64,
    /// Hidden item columns per repetition.
    pub(crate) hidden: u64,
    /// List length.
    pub(crate) list: u64,
}

/// The blocks of `synthetic-test-size`: four 5 × 5 squares in 20 × 20, 20% of the 20
/// columns hidden (4), lists of 5 (checked against the configuration in the tests).
pub(crate) const TEST_SIZE_BLOCKS: DisjointBlocks =
    DisjointBlocks { blocks: 4, size: 5, hidden: 4, list: 5 };

/// `n` choose `k` (0 when `k > n`).
fn choose(n: u64, k: u64) -> f64 {
    if k > n { 0.0 } else { ln_choose(n as usize, k as usize).exp() }
}

impl DisjointBlocks {
    /// The expected recall@`list` of either model, averaged over a repetition's `folds`
    /// folds, over the draws of folds and hidden columns; `None` when the derivation does
    /// not apply (every column of a block can be hidden, leaving a user without visible
    /// events, or the folds are not 1..=users).
    pub(crate) fn expected_recall(&self, folds: u64) -> Option<f64> {
        let Self { blocks, size, hidden, list } = *self;
        let (users, items) = (blocks * size, blocks * size);
        if hidden >= size || hidden > items || folds == 0 || folds > users || size == 0 {
            return None;
        }
        // Over the block's hidden count h (hypergeometric): the recall with a training
        // block-mate, and without one.
        let (mut with_mate, mut without_mate) = (0.0, 0.0);
        for (h, p) in hypergeometric(items as usize, size as usize, hidden as usize) {
            let h = h as u64;
            if h == 0 {
                with_mate += p;
                without_mate += p;
            } else {
                with_mate += p * list.min(h) as f64 / h as f64;
                without_mate += p * (list as f64 / (items - size + h) as f64).min(1.0);
            }
        }
        let alone = self.alone_share(folds);
        Some((1.0 - alone) * with_mate + alone * without_mate)
    }

    /// The expected share of a repetition's test users (its folds averaged) whose
    /// block-mates all lie in their own fold, at `folds` folds (1..=users).
    pub(crate) fn alone_share(&self, folds: u64) -> f64 {
        let users = self.blocks * self.size;
        (0..folds)
            .map(|fold| {
                let t = (users - fold).div_ceil(folds);
                choose(t - 1, self.size - 1) / choose(users - 1, self.size - 1)
            })
            .sum::<f64>()
            / folds as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn by_hand_at_two_folds() {
        // A test user's 4 block-mates all among the 9 other users of its fold of 10:
        // C(9, 4) / C(19, 4) = 126 / 3876. The block's hidden count h is hypergeometric
        // (4 of 20 columns, 5 in the block): P(h) = C(5, h) C(15, 4 − h) / 4845; without a
        // block-mate the list of 5 is drawn from 15 + h unshown items.
        let p = [1365.0, 2275.0, 1050.0, 150.0, 5.0].map(|c| c / 4845.0);
        let loss: f64 = (1..=4).map(|h| p[h] * (1.0 - 5.0 / (15.0 + h as f64))).sum();
        let expected = 1.0 - 126.0 / 3876.0 * loss;
        let found = TEST_SIZE_BLOCKS.expected_recall(2).unwrap();
        assert!(close(found, expected), "{found} vs {expected}");
        assert!((found - 0.98378).abs() < 1e-5, "{found}");
    }

    #[test]
    fn a_fold_too_small_to_hold_a_block_loses_nothing() {
        // Folds of 2, 4 and 5 users: a fold of 5 holds a whole block with probability
        // 1 / C(19, 4), the smaller ones never.
        assert!(close(TEST_SIZE_BLOCKS.expected_recall(10).unwrap(), 1.0));
        assert!(close(TEST_SIZE_BLOCKS.expected_recall(5).unwrap(), 1.0));
        let four = TEST_SIZE_BLOCKS.expected_recall(4).unwrap();
        assert!(four < 1.0 && four > 1.0 - 1.0 / 3876.0, "{four}");
        // Three folds hold 7, 7 and 6 users, averaged as folds.
        let three = TEST_SIZE_BLOCKS.expected_recall(3).unwrap();
        let two = TEST_SIZE_BLOCKS.expected_recall(2).unwrap();
        assert!(two < three && three < four, "{two} {three} {four}");
    }

    #[test]
    fn refuses_settings_the_derivation_does_not_cover() {
        let all_hidden = DisjointBlocks { hidden: 5, ..TEST_SIZE_BLOCKS };
        assert!(all_hidden.expected_recall(2).is_none());
        assert!(TEST_SIZE_BLOCKS.expected_recall(0).is_none());
        assert!(TEST_SIZE_BLOCKS.expected_recall(21).is_none());
    }

    #[test]
    fn the_constants_are_the_configuration_s() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/experiments/ignatov2010/synthetic-test-size.toml"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let config: toml::Value = toml::from_str(&text).unwrap();
        assert_eq!(config["dataset"]["synthetic"].as_str(), Some("ignatov-blocks"));
        assert_eq!(config["protocol"]["hidden"].as_str(), Some("20%"));
        let metrics = config["evaluation"]["metrics"].as_array().unwrap();
        assert!(metrics.iter().any(|m| m.as_str() == Some("r@5")), "{metrics:?}");
        let data = recs_data::ignatov_blocks().unwrap();
        let n = (TEST_SIZE_BLOCKS.blocks * TEST_SIZE_BLOCKS.size) as usize;
        assert_eq!((data.interactions.n_users(), data.interactions.n_items()), (n, n));
        assert_eq!(TEST_SIZE_BLOCKS.hidden as usize, n / 5);
    }
}
