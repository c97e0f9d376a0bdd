//! Corrected sampled metrics as metric names of `recs eval` (`ndcg@10~bv:0.1`), under
//! `--candidates sampled:N`: `recs_sampled::versus::CorrectedEstimators` on the run's own
//! sampled candidates. Definitions: `docs/metrics.md`, "Sampled metrics".

use recs_metrics::{Scored, score_key};
use recs_sampled::versus::{CorrectedEstimators, CorrectedMetric, SampledUser};

/// The metrics' `(name, mean)` (none when no user has a value) and warnings.
type Values = (Vec<(String, Option<f64>)>, Vec<String>);

/// Each asked metric's mean over the judged users that have a relevant item and a drawn
/// negative, with warnings. A user's drawn negatives are its candidates below
/// `threshold`; its full-catalog negatives are counted in `catalog_negatives` (ascending
/// by user).
pub(crate) fn values(
    asked: &[CorrectedMetric],
    scored: &Scored<'_>,
    catalog_negatives: &[(u32, u64)],
    threshold: f32,
) -> anyhow::Result<Values> {
    let mut users = Vec::with_capacity(scored.n_users());
    let mut n_left_out = 0;
    for position in 0..scored.n_users() {
        let (judged, scores) = scored.user(position);
        let Ok(at) = catalog_negatives.binary_search_by_key(&judged.user, |&(u, _)| u) else {
            anyhow::bail!("no catalog size for judged user {}", judged.user);
        };
        let (mut relevant, mut negatives) = (Vec::new(), Vec::new());
        for (&grade, &score) in judged.grades.iter().zip(scores) {
            if grade >= threshold { &mut relevant } else { &mut negatives }.push(score_key(score));
        }
        let n_relevant = relevant.len();
        match SampledUser::new(&relevant, negatives, catalog_negatives[at].1) {
            Some(user) => users.push(user),
            None => n_left_out += n_relevant,
        }
    }
    let mut warnings = Vec::new();
    if n_left_out > 0 {
        warnings.push(format!(
            "{n_left_out} relevant items are left out of the corrected metrics: their users \
             have no drawn negative to rank them against"
        ));
    }
    let means = CorrectedEstimators::new(asked).means(&users)?;
    Ok((asked.iter().map(ToString::to_string).zip(means).collect(), warnings))
}

#[cfg(test)]
mod tests {
    use recs_core::Judgments;

    use super::*;

    fn parse(name: &str) -> CorrectedMetric {
        name.parse().unwrap()
    }

    /// The estimators' hand cases are `recs_sampled`'s; here the candidates' grades decide
    /// who is relevant, and a user without a drawn negative is left out with a warning.
    #[test]
    fn grades_split_the_candidates_and_users_without_negatives_are_left_out() {
        let mut builder = Judgments::builder(3, 6);
        builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0]).unwrap();
        builder.push_user(1, &[3], &[1.0]).unwrap();
        builder.push_user(2, &[4, 5], &[2.0, 0.5]).unwrap();
        let judgments = builder.build().unwrap();
        // User 0 ranks its relevant item 1st or 2nd of 3 (tied with a negative); user 2's
        // item graded 0.5 is a negative at threshold 1, ranked above its relevant one.
        let scores = [0.5, 0.5, 0.1, 0.9, 0.2, 0.7];
        let scored = Scored::new(&judgments, &scores).unwrap();
        let sizes = [(0, 4), (1, 3), (2, 3)];
        let (means, warnings) = values(&[parse("ap~sampled")], &scored, &sizes, 1.0).unwrap();
        assert_eq!(means, [("ap~sampled".to_string(), Some((0.75 + 0.5) / 2.0))]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("1 relevant items are left out"), "{}", warnings[0]);
        let e = values(&[parse("ap~sampled")], &scored, &sizes[..2], 1.0).unwrap_err();
        assert!(e.to_string().contains("no catalog size for judged user 2"), "{e}");
    }
}
