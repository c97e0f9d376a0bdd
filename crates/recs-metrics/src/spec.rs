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
    /// Average recommendation popularity: the mean training popularity of the top N's
    /// items (`arp@N`).
    Arp(usize),
    /// Average percentage of long-tail items in the top N (`aplt@N`).
    Aplt(usize),
    /// Average number of long-tail items in the top N (`aclt@N`).
    Aclt(usize),
    /// Expected popularity complement of the relevant items of the top N, rank-discounted
    /// (`epc@N`).
    Epc(usize),
    /// Expected popularity complement without rank discount (`epc_flat@N`).
    EpcFlat(usize),
    /// Expected free discovery of the relevant items of the top N, rank-discounted
    /// (`efd@N`).
    Efd(usize),
    /// Expected free discovery without rank discount (`efd_flat@N`).
    EfdFlat(usize),
    /// Mean inverse user frequency (self-information) of the top N's items (`miuf@N`).
    Miuf(usize),
    /// Gini index of the items' exposure over all users' top N (`gini@N`), pooled.
    Gini(usize),
    /// Shannon entropy (nats) of the items' exposure over all users' top N
    /// (`entropy@N`), pooled.
    Entropy(usize),
    /// Intra-list diversity: the mean dissimilarity of the pairs of the top N's items by
    /// their attributes (`ild@N`).
    Ild(usize),
    /// Intra-list diversity with rank discount (`ild_disc@N`): each item's mean
    /// dissimilarity to the list's others, weighted by their gap in rank, averaged over the
    /// list with the rank discount (Vargas & Castells' EILD without relevance).
    IldDisc(usize),
    /// Serendipity as RecTools defines it: relevant items of the top N ranked above where
    /// item popularity would rank them (`serendipity@N`).
    Serendipity(usize),
    /// Popularity-based ranking-based equal opportunity between head and tail items
    /// (`popreo@N`), pooled.
    PopReo(usize),
    /// Popularity-based ranking-based statistical parity between head and tail items
    /// (`poprsp@N`), pooled.
    PopRsp(usize),
    /// Miscalibration (Steck 2018): the Kullback–Leibler divergence of the attribute
    /// (genre) distribution of the top N from that of the user's training history
    /// (`miscal@N`).
    Miscal(usize),
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
    /// `ap@K`, `map`, `mrr`, and the popularity and novelty metrics `arp@N`, `aplt@N`,
    /// `aclt@N`, `epc@N`, `epc_flat@N`, `efd@N`, `efd_flat@N`, `miuf@N`
    /// ([`Metric::USER_MEANS`] names them). The others are pooled over users (`roc`,
    /// `croc`, `half_life`, `coverage`, `gini`, `entropy`) or have their own average
    /// (`user_auc`, over users with both classes).
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
        ) || (self.needs_popularity() && !self.is_exposure())
            || self.needs_attributes()
    }

    /// The metrics of [`Metric::is_user_mean`] by name, as help texts and refusals list
    /// them.
    pub const USER_MEANS: &str = "p, r, f1, hit, ndcg, ndcg_exp, ap, map, mrr, arp, aplt, \
         aclt, epc, epc_flat, efd, efd_flat, miuf, serendipity, ild, ild_disc, miscal";

    /// Whether the metric needs the items' training popularity ([`crate::Popularity`]):
    /// the popularity, novelty and exposure metrics but coverage.
    ///
    /// ```
    /// use recs_metrics::Metric;
    /// assert!(Metric::Arp(10).needs_popularity() && Metric::Gini(10).needs_popularity());
    /// assert!(!Metric::Coverage(10).needs_popularity() && !Metric::Map.needs_popularity());
    /// ```
    pub fn needs_popularity(&self) -> bool {
        self.list_depth().is_some()
            && !matches!(self, Metric::Coverage(_) | Metric::Miscal(_))
            && !self.is_diversity()
    }

    /// Whether the metric needs the items' attributes: `ild@N` and `ild_disc@N`
    /// ([`crate::Diversity`]) and `miscal@N` ([`crate::Calibration`]).
    pub fn needs_attributes(&self) -> bool {
        self.is_diversity() || matches!(self, Metric::Miscal(_))
    }

    /// Whether the metric's value depends on which candidates are relevant: every
    /// ranking metric, and of the metrics of the lists' items `epc@N`, `efd@N` (and their
    /// flat forms), `serendipity@N` and `popreo@N`. The others describe the lists alone
    /// (popularity, diversity, calibration, exposure, coverage).
    ///
    /// ```
    /// use recs_metrics::Metric;
    /// assert!(Metric::Ndcg(10).reads_relevance() && Metric::Epc(10).reads_relevance());
    /// assert!(!Metric::Arp(10).reads_relevance() && !Metric::Coverage(10).reads_relevance());
    /// ```
    pub fn reads_relevance(&self) -> bool {
        match self {
            Metric::Epc(_)
            | Metric::EpcFlat(_)
            | Metric::Efd(_)
            | Metric::EfdFlat(_)
            | Metric::Serendipity(_)
            | Metric::PopReo(_) => true,
            m => m.list_depth().is_none(),
        }
    }

    /// Whether the metric is an intra-list diversity (`ild@N`, `ild_disc@N`), which
    /// compares the list's items by [`crate::Diversity`].
    pub fn is_diversity(&self) -> bool {
        matches!(self, Metric::Ild(_) | Metric::IldDisc(_))
    }

    /// Whether the metric needs each user's training history ([`crate::Calibration`]):
    /// `miscal@N`.
    pub fn needs_history(&self) -> bool {
        matches!(self, Metric::Miscal(_))
    }

    /// The depth of the top-N list the metric reads item by item (coverage and the
    /// metrics of [`Metric::needs_popularity`]); `None` for the others, which need only
    /// the ranks of the graded candidates.
    pub fn list_depth(&self) -> Option<usize> {
        match *self {
            Metric::Coverage(k)
            | Metric::Arp(k)
            | Metric::Aplt(k)
            | Metric::Aclt(k)
            | Metric::Epc(k)
            | Metric::EpcFlat(k)
            | Metric::Efd(k)
            | Metric::EfdFlat(k)
            | Metric::Miuf(k)
            | Metric::Gini(k)
            | Metric::Entropy(k)
            | Metric::Ild(k)
            | Metric::IldDisc(k)
            | Metric::Serendipity(k)
            | Metric::PopReo(k)
            | Metric::PopRsp(k)
            | Metric::Miscal(k) => Some(k),
            _ => None,
        }
    }

    /// Whether a lower value is the better one, as the metric's source reads it: `miscal@N`
    /// (Steck 2018 minimises miscalibration) and `arp@N` (the popularity-bias literature
    /// that defines it, Abdollahpouri et al. 2019, reads a lower average popularity as less
    /// bias). Paired comparisons mark the significantly lower run as the better one there;
    /// every other metric is better higher.
    ///
    /// ```
    /// use recs_metrics::Metric;
    /// assert!(Metric::Miscal(10).lower_is_better() && Metric::Arp(10).lower_is_better());
    /// assert!(!Metric::Ndcg(10).lower_is_better() && !Metric::Epc(10).lower_is_better());
    /// ```
    pub fn lower_is_better(&self) -> bool {
        matches!(self, Metric::Miscal(_) | Metric::Arp(_))
    }

    /// Whether the metric is pooled over every user's list (coverage, the exposure Gini
    /// and entropy) rather than averaged over users.
    pub fn is_exposure(&self) -> bool {
        matches!(
            self,
            Metric::Coverage(_)
                | Metric::Gini(_)
                | Metric::Entropy(_)
                | Metric::PopReo(_)
                | Metric::PopRsp(_)
        )
    }
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
            ("arp", Some(_)) => Metric::Arp(depth()?),
            ("aplt", Some(_)) => Metric::Aplt(depth()?),
            ("aclt", Some(_)) => Metric::Aclt(depth()?),
            ("epc", Some(_)) => Metric::Epc(depth()?),
            ("epc_flat", Some(_)) => Metric::EpcFlat(depth()?),
            ("efd", Some(_)) => Metric::Efd(depth()?),
            ("efd_flat", Some(_)) => Metric::EfdFlat(depth()?),
            ("miuf", Some(_)) => Metric::Miuf(depth()?),
            ("gini", Some(_)) => Metric::Gini(depth()?),
            ("entropy", Some(_)) => Metric::Entropy(depth()?),
            ("ild", Some(_)) => Metric::Ild(depth()?),
            ("ild_disc", Some(_)) => Metric::IldDisc(depth()?),
            ("serendipity", Some(_)) => Metric::Serendipity(depth()?),
            ("popreo", Some(_)) => Metric::PopReo(depth()?),
            ("poprsp", Some(_)) => Metric::PopRsp(depth()?),
            ("miscal", Some(_)) => Metric::Miscal(depth()?),
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
            Metric::Arp(k) => write!(f, "arp@{k}"),
            Metric::Aplt(k) => write!(f, "aplt@{k}"),
            Metric::Aclt(k) => write!(f, "aclt@{k}"),
            Metric::Epc(k) => write!(f, "epc@{k}"),
            Metric::EpcFlat(k) => write!(f, "epc_flat@{k}"),
            Metric::Efd(k) => write!(f, "efd@{k}"),
            Metric::EfdFlat(k) => write!(f, "efd_flat@{k}"),
            Metric::Miuf(k) => write!(f, "miuf@{k}"),
            Metric::Gini(k) => write!(f, "gini@{k}"),
            Metric::Entropy(k) => write!(f, "entropy@{k}"),
            Metric::Ild(k) => write!(f, "ild@{k}"),
            Metric::IldDisc(k) => write!(f, "ild_disc@{k}"),
            Metric::Serendipity(k) => write!(f, "serendipity@{k}"),
            Metric::PopReo(k) => write!(f, "popreo@{k}"),
            Metric::PopRsp(k) => write!(f, "poprsp@{k}"),
            Metric::Miscal(k) => write!(f, "miscal@{k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let list = Metric::parse_list("roc, croc,p@5,r@10,f1@3,hit@1,ndcg@10,ndcg_exp@4,ap@7,map,mrr,half_life@5,coverage@2,user_auc,arp@3,aplt@3,aclt@3,epc@4,epc_flat@4,efd@5,efd_flat@5,miuf@6,gini@7,entropy@8,ild@9,ild_disc@9,serendipity@2,popreo@3,poprsp@4,miscal@5").unwrap();
        assert_eq!(list.len(), 30);
        for m in &list {
            assert_eq!(&m.to_string().parse::<Metric>().unwrap(), m);
        }
        assert_eq!(Metric::HalfLife(5.0).to_string(), "half_life@5");
        assert_eq!("half_life".parse::<Metric>().unwrap(), Metric::HalfLife(5.0));
    }

    #[test]
    fn per_user_means_are_the_metrics_of_one_users_list() {
        let all = Metric::parse_list(
            "roc,croc,user_auc,p@5,r@10,f1@3,hit@1,ndcg@10,ndcg_exp@4,ap@7,map,mrr,half_life@5,coverage@2,arp@2,gini@2,miuf@3,entropy@3",
        )
        .unwrap();
        let means: Vec<String> =
            all.iter().filter(|m| m.is_user_mean()).map(Metric::to_string).collect();
        assert_eq!(
            means,
            [
                "p@5",
                "r@10",
                "f1@3",
                "hit@1",
                "ndcg@10",
                "ndcg_exp@4",
                "ap@7",
                "map",
                "mrr",
                "arp@2",
                "miuf@3"
            ]
        );
        // The names the refusals list are exactly these metrics' names.
        let listed: Vec<&str> = Metric::USER_MEANS.split(", ").collect();
        let popularity = Metric::parse_list(
            "arp@1,aplt@1,aclt@1,epc@1,epc_flat@1,efd@1,efd_flat@1,miuf@1,gini@1,entropy@1,ild@1,ild_disc@1,serendipity@1,miscal@1",
        )
        .unwrap();
        for m in all.iter().chain(&popularity).filter(|m| m.is_user_mean()) {
            let name = m.to_string();
            let name = name.split('@').next().unwrap().to_string();
            assert!(listed.contains(&name.as_str()), "{name} missing from USER_MEANS");
        }
        let exposure: Vec<String> =
            all.iter().filter(|m| m.is_exposure()).map(Metric::to_string).collect();
        assert_eq!(exposure, ["coverage@2", "gini@2", "entropy@3"]);
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in
            ["p@0", "p@", "ndcg", "roc@3", "foo", "half_life@1", "half_life@x", "arp", "gini@0"]
        {
            assert!(bad.parse::<Metric>().is_err(), "{bad}");
        }
    }
}
