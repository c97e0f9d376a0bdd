//! Metrics of one relevant item at a rank: the setting of the sampled-metrics analysis.

use std::fmt;
use std::str::FromStr;

use crate::error::SampledError;

/// A metric of one relevant item ranked `rank` among `size` items (rank 1 is best).
///
/// With one relevant item, reciprocal rank equals average precision and hit rate equals
/// recall, so these cover the metrics of the sampled-metrics literature.
///
/// As text (`FromStr`, `Display`): `auc`, `r@k` (recall, also `recall@k` and `hit@k`), `p@k`
/// (precision), `ap` (also `mrr`), `ndcg` (no cut-off) and `ndcg@k`.
///
/// ```
/// use recs_sampled::RankMetric;
/// let ndcg: RankMetric = "ndcg@10".parse()?;
/// assert_eq!(ndcg.value(1, 100), 1.0);
/// assert_eq!(ndcg.value(11, 100), 0.0);
/// assert_eq!(RankMetric::Auc.value(1, 101), 1.0);
/// # Ok::<(), recs_sampled::SampledError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RankMetric {
    /// `(size − rank) / (size − 1)`: the share of the other items ranked below.
    Auc,
    /// `1[rank ≤ k]`.
    Recall {
        /// The cut-off.
        k: u64,
    },
    /// `1[rank ≤ k] / k`.
    Precision {
        /// The cut-off.
        k: u64,
    },
    /// `1 / rank` (average precision of one relevant item, not truncated).
    Ap,
    /// `1[rank ≤ k] / log2(rank + 1)`, or `1 / log2(rank + 1)` without a cut-off.
    Ndcg {
        /// The cut-off, if any.
        cutoff: Option<u64>,
    },
}

impl RankMetric {
    /// The metric of one relevant item at `rank` among `size` items (`1 ≤ rank ≤ size`).
    pub fn value(self, rank: u64, size: u64) -> f64 {
        let within = |k: u64| rank <= k;
        match self {
            RankMetric::Auc if size <= 1 => 1.0,
            RankMetric::Auc => (size - rank) as f64 / (size - 1) as f64,
            RankMetric::Recall { k } => f64::from(u8::from(within(k))),
            RankMetric::Precision { k } => f64::from(u8::from(within(k))) / k as f64,
            RankMetric::Ap => 1.0 / rank as f64,
            RankMetric::Ndcg { cutoff } if cutoff.is_some_and(|k| !within(k)) => 0.0,
            RankMetric::Ndcg { .. } => 1.0 / ((rank + 1) as f64).log2(),
        }
    }
}

impl fmt::Display for RankMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RankMetric::Auc => write!(f, "auc"),
            RankMetric::Recall { k } => write!(f, "r@{k}"),
            RankMetric::Precision { k } => write!(f, "p@{k}"),
            RankMetric::Ap => write!(f, "ap"),
            RankMetric::Ndcg { cutoff: None } => write!(f, "ndcg"),
            RankMetric::Ndcg { cutoff: Some(k) } => write!(f, "ndcg@{k}"),
        }
    }
}

impl FromStr for RankMetric {
    type Err = SampledError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            SampledError::invalid(
                "metric",
                text,
                "auc, r@k, recall@k, hit@k, p@k, ap, mrr, ndcg or ndcg@k with k ≥ 1",
            )
        };
        let (name, k) = match text.split_once('@') {
            Some((name, k)) => {
                (name, Some(k.parse::<u64>().ok().filter(|&k| k >= 1).ok_or_else(bad)?))
            }
            None => (text, None),
        };
        match (name, k) {
            ("auc", None) => Ok(RankMetric::Auc),
            ("ap" | "mrr", None) => Ok(RankMetric::Ap),
            ("ndcg", cutoff) => Ok(RankMetric::Ndcg { cutoff }),
            ("r" | "recall" | "hit", Some(k)) => Ok(RankMetric::Recall { k }),
            ("p" | "precision", Some(k)) => Ok(RankMetric::Precision { k }),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 of Krichene & Rendle (2020): three recommenders' exact metrics over five
    /// instances in a catalog of 10,000 items.
    #[test]
    fn the_toy_example_exact_metrics() {
        let a = [100u64; 5];
        let b = [40u64, 40, 8437, 9266, 4482];
        let c = [212u64, 2, 743, 5342, 1548];
        let mean = |ranks: &[u64], m: RankMetric| {
            ranks.iter().map(|&r| m.value(r, 10_000)).sum::<f64>() / ranks.len() as f64
        };
        let ndcg = RankMetric::Ndcg { cutoff: None };
        let r10 = RankMetric::Recall { k: 10 };
        // (AUC, AP, NDCG, Recall@10) as printed to three decimals.
        for (ranks, want) in [
            (&a, [0.990, 0.010, 0.150, 0.000]),
            (&b, [0.555, 0.010, 0.122, 0.000]),
            (&c, [0.843, 0.101, 0.208, 0.200]),
        ] {
            let got = [
                mean(ranks, RankMetric::Auc),
                mean(ranks, RankMetric::Ap),
                mean(ranks, ndcg),
                mean(ranks, r10),
            ];
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() <= 0.0005 + 1e-12, "{ranks:?}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        for text in ["auc", "r@10", "p@5", "ap", "ndcg", "ndcg@10"] {
            assert_eq!(text.parse::<RankMetric>().unwrap().to_string(), text);
        }
        assert_eq!("recall@3".parse::<RankMetric>().unwrap(), RankMetric::Recall { k: 3 });
        assert_eq!("hit@3".parse::<RankMetric>().unwrap(), RankMetric::Recall { k: 3 });
        assert_eq!("mrr".parse::<RankMetric>().unwrap(), RankMetric::Ap);
        for bad in ["r@0", "ndcg@x", "r", "auc@3", "map"] {
            let e = bad.parse::<RankMetric>().unwrap_err().to_string();
            assert!(e.contains("auc, r@k"), "{bad}: {e}");
        }
    }
}
