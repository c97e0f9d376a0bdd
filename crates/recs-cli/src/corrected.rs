//! Corrected sampled metrics as metric names of `recs eval` (`ndcg@10~bv:0.1`): under
//! `--candidates sampled:N`, each relevant item's sampled rank among the user's drawn
//! negatives, mapped by a `recs_sampled` estimator to an estimate of the metric at its
//! rank among the user's full-catalog negatives. Definitions: `docs/metrics.md`,
//! "Sampled metrics".

use std::collections::BTreeSet;

use recs_metrics::{Scored, score_key};
use recs_sampled::versus::{EstimatorTable, Placement, estimated_value};
use recs_sampled::{Correction, RankMetric};

/// A metric of one relevant item's rank, estimated from its sampled rank by a correction:
/// `metric~correction`, as `ndcg@10~bv:0.1` or `ap~rank-estimate`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CorrectedMetric {
    pub(crate) metric: RankMetric,
    pub(crate) correction: Correction,
}

impl CorrectedMetric {
    /// The metric named `name` (lower case) when it has a `~`, and `None` otherwise.
    pub(crate) fn parse(name: &str) -> Option<anyhow::Result<CorrectedMetric>> {
        let (metric, correction) = name.split_once('~')?;
        Some((|| {
            let metric = metric.parse::<RankMetric>().map_err(|_| {
                anyhow::anyhow!(
                    "unknown metric {name:?}: before `~` comes a metric of one relevant \
                     item's rank (auc, r@k, hit@k, p@k, ap, mrr, ndcg or ndcg@k)"
                )
            })?;
            let correction = correction.parse::<Correction>().map_err(|e| {
                anyhow::anyhow!("unknown metric {name:?}: after `~` comes an estimator: {e}")
            })?;
            Ok(CorrectedMetric { metric, correction })
        })())
    }

    /// The name the report gives it: the metric's and the estimator's canonical names.
    pub(crate) fn name(&self) -> String {
        format!("{}~{}", self.metric, self.correction)
    }
}

/// The metrics' `(name, mean)` (none when no user has a value) and warnings.
type Values = (Vec<(String, Option<f64>)>, Vec<String>);

/// Each asked metric's mean over the judged users that have a relevant item and a drawn
/// negative, with warnings. A user's value is the mean over its relevant items of the
/// estimator's value at the item's sampled rank among the user's drawn negatives (the
/// non-relevant candidates; its other relevant items are not among them), averaged over
/// the ranks its tie allows; the estimator is built for the user's `n`
/// (`catalog_negatives`, ascending by user) and number of drawn negatives.
pub(crate) fn values(
    asked: &[CorrectedMetric],
    scored: &Scored<'_>,
    catalog_negatives: &[(u32, u64)],
    threshold: f32,
) -> anyhow::Result<Values> {
    let mut metrics: Vec<RankMetric> = Vec::new();
    let mut corrections: Vec<Correction> = Vec::new();
    for c in asked {
        if !metrics.contains(&c.metric) {
            metrics.push(c.metric);
        }
        if !corrections.contains(&c.correction) {
            corrections.push(c.correction);
        }
    }
    // Each usable user: its (n + 1, m) and its relevant items' placements.
    let mut users: Vec<((u64, u64), Vec<Placement>)> = Vec::new();
    let mut n_left_out = 0;
    let mut keys = Vec::new();
    for position in 0..scored.n_users() {
        let (judged, scores) = scored.user(position);
        let Ok(at) = catalog_negatives.binary_search_by_key(&judged.user, |&(u, _)| u) else {
            anyhow::bail!("no catalog size for judged user {}", judged.user);
        };
        let n = catalog_negatives[at].1;
        keys.clear();
        let mut relevant = Vec::new();
        for (&grade, &score) in judged.grades.iter().zip(scores) {
            if grade >= threshold {
                relevant.push(score_key(score));
            } else {
                keys.push(score_key(score));
            }
        }
        if relevant.is_empty() {
            continue;
        }
        if keys.is_empty() {
            n_left_out += relevant.len();
            continue;
        }
        keys.sort_unstable();
        let placements = relevant.iter().map(|&key| Placement::among(&keys, key)).collect();
        users.push(((n + 1, keys.len() as u64), placements));
    }
    let mut warnings = Vec::new();
    if n_left_out > 0 {
        warnings.push(format!(
            "{n_left_out} relevant items are left out of the corrected metrics: their users \
             have no drawn negative to rank them against"
        ));
    }
    let sizes: BTreeSet<(u64, u64)> = users.iter().map(|(size, _)| *size).collect();
    let table = EstimatorTable::build(sizes, &metrics, &corrections)?;
    let mut out = Vec::with_capacity(asked.len());
    for c in asked {
        let (m, k) = (
            metrics.iter().position(|&x| x == c.metric).expect("collected above"),
            corrections.iter().position(|&x| x == c.correction).expect("collected above"),
        );
        let mut sum = 0.0;
        for ((n, drawn), placements) in &users {
            let estimator = &table.get(*n, *drawn)[k][m];
            let user: f64 = placements.iter().map(|&p| estimated_value(estimator, p)).sum();
            sum += user / placements.len() as f64;
        }
        let mean = (!users.is_empty()).then(|| sum / users.len() as f64);
        out.push((c.name(), mean));
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use recs_core::Judgments;

    use super::*;

    fn parse(name: &str) -> anyhow::Result<CorrectedMetric> {
        CorrectedMetric::parse(name).expect("a `~` name")
    }

    #[test]
    fn names_parse_to_their_canonical_form_or_say_what_goes_where() {
        assert!(CorrectedMetric::parse("ndcg@10").is_none());
        assert_eq!(parse("recall@10~bv:0.1").unwrap().name(), "r@10~bv:0.1");
        assert_eq!(parse("mrr~rank-estimate").unwrap().name(), "ap~rank-estimate");
        let e = parse("map~monotone").unwrap_err().to_string();
        assert!(e.contains("before `~`") && e.contains("ndcg@k"), "{e}");
        let e = parse("ndcg@10~bv:2").unwrap_err().to_string();
        assert!(e.contains("after `~`") && e.contains("rank-estimate"), "{e}");
    }

    /// Two users by hand. User 0: catalog negatives n = 4, drawn 2 (scores 0.5, 0.1), its
    /// relevant item at 0.5: sampled rank 1 or 2 in the tie, so `ap~sampled` is
    /// (1 + 1/2) / 2. User 1: n = 9, drawn 1 (0.1), relevant items at 0.8 and 0.05:
    /// sampled ranks 1 and 2 of 2, `ap~sampled` (1 + 1/2) / 2 as well. The rank estimate
    /// maps r̃ to ⌊1 + (n' − 1)(r̃ − 1)/m⌋ among n' = n + 1 items.
    #[test]
    fn values_by_hand_with_a_tie_and_two_relevant_items() {
        let mut builder = Judgments::builder(2, 6);
        builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0]).unwrap();
        builder.push_user(1, &[3, 4, 5], &[1.0, 0.0, 1.0]).unwrap();
        let judgments = builder.build().unwrap();
        let scores = [0.5, 0.5, 0.1, 0.8, 0.1, 0.05];
        let scored = Scored::new(&judgments, &scores).unwrap();
        let asked = [parse("ap~sampled").unwrap(), parse("ap~rank-estimate").unwrap()];
        let (values, warnings) = values(&asked, &scored, &[(0, 4), (1, 9)], 1.0).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(values[0], ("ap~sampled".to_string(), Some(0.75)));
        // User 0: n' = 5, m = 2: r̃ = 1 → 1, r̃ = 2 → ⌊1 + 4/2⌋ = 3, so (1 + 1/3) / 2.
        // User 1: n' = 10, m = 1: r̃ = 1 → 1, r̃ = 2 → ⌊1 + 9⌋ = 10, so (1 + 1/10) / 2.
        let want = ((1.0 + 1.0 / 3.0) / 2.0 + (1.0 + 0.1) / 2.0) / 2.0;
        let got = values[1].1.unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }

    #[test]
    fn a_user_without_a_drawn_negative_is_left_out_with_a_warning() {
        let mut builder = Judgments::builder(2, 4);
        builder.push_user(0, &[0], &[1.0]).unwrap();
        builder.push_user(1, &[1, 2], &[1.0, 0.0]).unwrap();
        let judgments = builder.build().unwrap();
        let scored = Scored::new(&judgments, &[0.5, 0.9, 0.1]).unwrap();
        let asked = [parse("r@1~sampled").unwrap()];
        let (values, warnings) = values(&asked, &scored, &[(0, 3), (1, 3)], 1.0).unwrap();
        assert_eq!(values[0].1, Some(1.0));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("1 relevant items are left out"), "{}", warnings[0]);
    }
}
