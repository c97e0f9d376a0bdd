//! The pooled ROC under the two extreme orders of tied scores, as measures of every MS Web
//! run.
//!
//! The paper does not say how it ordered the (person, vroot) pairs that a model scores
//! alike, and item popularity (LPCA at |L| = 0) and the user/item regression score many
//! pairs alike: item popularity's pooled list is 286 groups of about 32,000 tied pairs. The
//! reported ROC AUC counts a tied pair as half (the expectation over every order); these
//! measures give the areas under the order that puts each tie group's positives first and
//! the one that puts them last ([`recs_metrics::roc_tie_bounds`]), so a claim can be judged
//! at both ends of the range every order of the ties falls in.
//!
//! CROC needs no such range here: the paper fixes its tie order, since a model that gives a
//! person's candidates one score "becomes a random recommender in the CROC curve" (§6.2,
//! §6.3), which is the expectation over orders.

use recs_bench::{BenchError, Measure};
use recs_metrics::{Scored, roc_tie_bounds};

/// Report key: the pooled ROC AUC with each tie group's positives first.
pub(super) const ROC_BEST: &str = "roc_auc_ties_positives_first";
/// Report key: the pooled ROC AUC with each tie group's positives last.
pub(super) const ROC_WORST: &str = "roc_auc_ties_positives_last";

/// The two measures, higher is better.
pub(super) fn measures() -> [Measure; 2] {
    [bound(ROC_BEST, true), bound(ROC_WORST, false)]
}

fn bound(key: &'static str, best: bool) -> Measure {
    Measure::new(key, false, move |judgments, scores| {
        bound_of(judgments, scores, best).map_err(|e| BenchError::Experiment(format!("{key}: {e}")))
    })
}

/// The area at one end of the tie range; `None` without both classes.
fn bound_of(
    judgments: &recs_core::Judgments,
    scores: &[f32],
    best: bool,
) -> std::result::Result<Option<f64>, recs_metrics::MetricsError> {
    // Positives are test events (grade 1), as for every metric of these runs.
    match roc_tie_bounds(&Scored::new(judgments, scores)?, 1.0) {
        Ok(b) => Ok(Some(if best { b.best } else { b.worst })),
        Err(recs_metrics::MetricsError::Undefined { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::Judgments;

    #[test]
    fn the_measures_are_the_ends_of_the_tie_range() {
        let mut b = Judgments::builder(2, 2);
        b.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
        b.push_user(1, &[0, 1], &[0.0, 1.0]).unwrap();
        let judgments = b.build().unwrap();
        let scores = [0.5, 0.5, 0.5, 0.2];
        assert_eq!(bound_of(&judgments, &scores, true).unwrap(), Some(0.5));
        assert_eq!(bound_of(&judgments, &scores, false).unwrap(), Some(0.0));
        let mut one_class = Judgments::builder(1, 2);
        one_class.push_user(0, &[0, 1], &[0.0, 0.0]).unwrap();
        assert_eq!(bound_of(&one_class.build().unwrap(), &[0.1, 0.2], true).unwrap(), None);
    }
}
