//! Metric names as written on the command line and in JSON reports.

use std::fmt;
use std::str::FromStr;

use crate::error::MetricsError;

/// A metric that [`crate::evaluate`] can compute. The text form (`p@10`, `ndcg@5`,
/// `half_life@5`, ...) is both the parse syntax and the JSON key; see `docs/metrics.md`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Metric {
    /// Pooled ROC: reports `roc_auc` and `roc_pauc@0.3`.
    Roc,
    /// CROC: reports `croc_auc` and `croc_pauc@0.3`.
    Croc,
    /// Per-user ROC AUC averaged over users with both classes (`user_auc`).
    UserAuc,
    /// Precision at N (`p@N`).
    Precision(usize),
    /// Recall at N (`r@N`).
    Recall(usize),
    /// F1 at N (`f1@N`).
    F1(usize),
    /// Probability of at least one relevant candidate in the top N (`hit@N`).
    Hit(usize),
    /// NDCG at K with linear gain (`ndcg@K`).
    Ndcg(usize),
    /// NDCG at K with exponential gain `2^grade − 1` (`ndcg_exp@K`).
    NdcgExp(usize),
    /// Average precision cut at K, denominator `min(K, relevant)` (`ap@K`).
    Ap(usize),
    /// Uncut average precision, denominator = relevant; its mean is `map`.
    Map,
    /// Reciprocal rank of the first relevant candidate (`mrr`).
    Mrr,
    /// Breese half-life utility with half-life α (`half_life@A`), pooled over users.
    HalfLife(f64),
    /// Share of the catalog appearing in some user's top N (`coverage@N`).
    Coverage(usize),
}

impl Metric {
    /// Parses a comma-separated list (`roc,croc,ndcg@10`); empty items are skipped.
    ///
    /// # Errors
    /// [`MetricsError::UnknownMetric`] for a name that does not parse.
    pub fn parse_list(text: &str) -> Result<Vec<Metric>, MetricsError> {
        text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::parse).collect()
    }

    /// Whether the metric is reported as the mean of per-user values, to which intervals
    /// and paired tests apply: `p@N`, `r@N`, `f1@N`, `hit@N`, `ndcg@K`, `ndcg_exp@K`,
    /// `ap@K`, `map`, `mrr` ([`Metric::USER_MEANS`] names them). The others are pooled over users
    /// (`roc`, `croc`, `half_life`, `coverage`) or have their own average (`user_auc`,
    /// over users with both classes).
    ///
    /// ```
    /// use recs_metrics::Metric;
    /// assert!(Metric::Ndcg(10).is_user_mean() && Metric::Mrr.is_user_mean());
    /// assert!(!Metric::Roc.is_user_mean() && !Metric::UserAuc.is_user_mean());
    /// ```
    pub fn is_user_mean(&self) -> bool {
        matches!(
            self,
            Metric::Precision(_)
                | Metric::Recall(_)
                | Metric::F1(_)
                | Metric::Hit(_)
                | Metric::Ndcg(_)
                | Metric::NdcgExp(_)
                | Metric::Ap(_)
                | Metric::Map
                | Metric::Mrr
        )
    }

    /// The metrics of [`Metric::is_user_mean`] by name, as help texts and refusals list
    /// them.
    pub const USER_MEANS: &str = "p, r, f1, hit, ndcg, ndcg_exp, ap, map, mrr";
}

impl FromStr for Metric {
    type Err = MetricsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || MetricsError::UnknownMetric(s.to_string());
        let lower = s.trim().to_ascii_lowercase();
        let (name, arg) = match lower.split_once('@') {
            Some((n, a)) => (n, Some(a)),
            None => (lower.as_str(), None),
        };
        let depth = || -> Result<usize, MetricsError> {
            arg.and_then(|a| a.parse::<usize>().ok()).filter(|&k| k > 0).ok_or_else(unknown)
        };
        Ok(match (name, arg) {
            ("roc", None) => Metric::Roc,
            ("croc", None) => Metric::Croc,
            ("user_auc", None) => Metric::UserAuc,
            ("map", None) => Metric::Map,
            ("mrr", None) => Metric::Mrr,
            ("p" | "precision", Some(_)) => Metric::Precision(depth()?),
            ("r" | "recall", Some(_)) => Metric::Recall(depth()?),
            ("f1", Some(_)) => Metric::F1(depth()?),
            ("hit", Some(_)) => Metric::Hit(depth()?),
            ("ndcg", Some(_)) => Metric::Ndcg(depth()?),
            ("ndcg_exp", Some(_)) => Metric::NdcgExp(depth()?),
            ("ap", Some(_)) => Metric::Ap(depth()?),
            ("coverage", Some(_)) => Metric::Coverage(depth()?),
            ("half_life", a) => {
                let alpha = match a {
                    None => 5.0,
                    Some(a) => a.parse::<f64>().map_err(|_| unknown())?,
                };
                if !(alpha.is_finite() && alpha > 1.0) {
                    return Err(unknown());
                }
                Metric::HalfLife(alpha)
            }
            _ => return Err(unknown()),
        })
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Roc => write!(f, "roc"),
            Metric::Croc => write!(f, "croc"),
            Metric::UserAuc => write!(f, "user_auc"),
            Metric::Precision(k) => write!(f, "p@{k}"),
            Metric::Recall(k) => write!(f, "r@{k}"),
            Metric::F1(k) => write!(f, "f1@{k}"),
            Metric::Hit(k) => write!(f, "hit@{k}"),
            Metric::Ndcg(k) => write!(f, "ndcg@{k}"),
            Metric::NdcgExp(k) => write!(f, "ndcg_exp@{k}"),
            Metric::Ap(k) => write!(f, "ap@{k}"),
            Metric::Map => write!(f, "map"),
            Metric::Mrr => write!(f, "mrr"),
            Metric::HalfLife(a) => write!(f, "half_life@{a}"),
            Metric::Coverage(k) => write!(f, "coverage@{k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let list = Metric::parse_list("roc, croc,p@5,r@10,f1@3,hit@1,ndcg@10,ndcg_exp@4,ap@7,map,mrr,half_life@5,coverage@2,user_auc").unwrap();
        assert_eq!(list.len(), 14);
        for m in &list {
            assert_eq!(&m.to_string().parse::<Metric>().unwrap(), m);
        }
        assert_eq!(Metric::HalfLife(5.0).to_string(), "half_life@5");
        assert_eq!("half_life".parse::<Metric>().unwrap(), Metric::HalfLife(5.0));
    }

    #[test]
    fn per_user_means_are_the_ranking_metrics_of_one_user() {
        let all = Metric::parse_list(
            "roc,croc,user_auc,p@5,r@10,f1@3,hit@1,ndcg@10,ndcg_exp@4,ap@7,map,mrr,half_life@5,coverage@2",
        )
        .unwrap();
        let means: Vec<String> =
            all.iter().filter(|m| m.is_user_mean()).map(Metric::to_string).collect();
        assert_eq!(
            means,
            ["p@5", "r@10", "f1@3", "hit@1", "ndcg@10", "ndcg_exp@4", "ap@7", "map", "mrr"]
        );
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in ["p@0", "p@", "ndcg", "roc@3", "foo", "half_life@1", "half_life@x"] {
            assert!(bad.parse::<Metric>().is_err(), "{bad}");
        }
    }
}
