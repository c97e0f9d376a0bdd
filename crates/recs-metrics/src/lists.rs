//! One user's top-N list as the metrics that read its items see it: each item with the
//! probability that it is in the list and its expected rank discount there, under a tie
//! the cut-off splits.

/// The rank discount of NDCG and of the discounted novelty metrics: `1 / log2(rank + 1)`,
/// rank from 1.
pub(crate) fn log_discount(rank: usize) -> f64 {
    1.0 / ((rank + 1) as f64).log2()
}

/// One item of a user's top-N list: its position among the candidates, the probability
/// that it is in the list, its expected rank discount there, and the ranks it may take
/// (`ranks`, each with probability `1 / group`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listed {
    pub(crate) position: u32,
    pub(crate) probability: f64,
    pub(crate) discount: f64,
    /// The ranks (from 1) of the list its tie group spans.
    pub(crate) ranks: (usize, usize),
    /// The size of its tie group.
    pub(crate) group: usize,
}

/// The items of the top `k` of a ranking cut into tie groups `(start, len)` over `order`,
/// with `1 / log2(rank + 1)` as the discount.
pub(crate) fn listed(order: &[u32], groups: &[(usize, usize)], k: usize, out: &mut Vec<Listed>) {
    out.clear();
    for &(start, len) in groups {
        if start >= k {
            break;
        }
        let taken = (k - start).min(len);
        let probability = taken as f64 / len as f64;
        let discount: f64 = (start + 1..=start + taken).map(log_discount).sum::<f64>() / len as f64;
        for &position in &order[start..start + len] {
            let ranks = (start + 1, start + taken);
            out.push(Listed { position, probability, discount, ranks, group: len });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tie_at_the_cut_off_shares_its_slots_and_its_discounts() {
        // Order 0 | 1 2 3 (tied) | 4, top 2: item 0 surely at rank 1; 1, 2, 3 each in the
        // list with probability 1/3, at rank 2 with probability 1/3.
        let mut out = Vec::new();
        listed(&[0, 1, 2, 3, 4], &[(0, 1), (1, 3), (4, 1)], 2, &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!((out[0].position, out[0].probability, out[0].discount), (0, 1.0, 1.0));
        for l in &out[1..] {
            assert!((l.probability - 1.0 / 3.0).abs() < 1e-15);
            assert!((l.discount - log_discount(2) / 3.0).abs() < 1e-15);
        }
    }
}
