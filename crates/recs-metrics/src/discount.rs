//! The logarithmic rank discount shared by NDCG and the discounted novelty metrics.

/// `1 / log2(rank + 1)`, rank from 1.
pub(crate) fn log_discount(rank: usize) -> f64 {
    1.0 / ((rank + 1) as f64).log2()
}
