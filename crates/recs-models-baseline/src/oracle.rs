//! The oracle: a perfect-knowledge **reference**, never a contender.

use recs_core::{
    Fit, Judgments, Recommender, RecsError, Result, Shape, TrainData, check_score_args,
};

/// Builds an [`Oracle`] through [`Fit`], so a runner can treat it like any model: fitting
/// only checks that the judgments cover the training index space.
///
/// This is a **reference**, never a contender: it reads the test judgments.
#[derive(Debug, Clone)]
pub struct OracleParams {
    judgments: Judgments,
}

impl OracleParams {
    /// An oracle that will answer from `judgments`.
    pub fn new(judgments: Judgments) -> Self {
        OracleParams { judgments }
    }
}

impl Fit for OracleParams {
    type Model = Oracle;

    /// # Errors
    /// [`RecsError::Empty`] for training data without events (as every model), and
    /// [`RecsError::LengthMismatch`] when the judgments use another number of users or
    /// items than the training data.
    fn fit(&self, data: &TrainData<'_>) -> Result<Oracle> {
        let interactions = data.interactions.require_events()?;
        for (what, expected, found) in [
            ("judgment users", interactions.n_users(), self.judgments.n_users()),
            ("judgment items", interactions.n_items(), self.judgments.n_items()),
        ] {
            if expected != found {
                return Err(RecsError::LengthMismatch { what, expected, found });
            }
        }
        Ok(Oracle::new(self.judgments.clone()))
    }
}

/// The omniscient recommender: scores each judged candidate with its grade.
///
/// **A reference, never a contender.** It reads the test judgments it is evaluated on, so
/// it gives the best curve a protocol allows — e.g. the "perfect recommender" of the CROC
/// curve, which need not reach a true-positive rate of 1 before some false alarms
/// (schein2005 §3.2, the three-person example). Report it as a reference line.
///
/// Score of (user, item): the grade of that candidate in the judgments; pairs without a
/// judgment score `0`, like a grade-0 (not relevant) candidate. Grades are comparable
/// across users, so pooled (ROC) and per-user (CROC) curves are both perfect up to ties
/// between graded levels. No optional capability.
#[derive(Debug, Clone)]
pub struct Oracle {
    judgments: Judgments,
}

impl Oracle {
    /// An oracle answering from `judgments` (its index space is the judgments').
    pub fn new(judgments: Judgments) -> Self {
        Oracle { judgments }
    }
}

impl Recommender for Oracle {
    fn shape(&self) -> Shape {
        Shape::new(self.judgments.n_users(), self.judgments.n_items())
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users(), self.n_items(), user, items, out)?;
        out.fill(0.0);
        if let Some(judged) = self.judgments.get(user) {
            for (o, item) in out.iter_mut().zip(items) {
                if let Ok(k) = judged.items.binary_search(item) {
                    *o = judged.grades[k];
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Interactions};

    fn judgments() -> Judgments {
        let mut b = Judgments::builder(2, 4);
        b.push_user(1, &[3, 0, 2], &[2.0, 0.0, 1.0]).unwrap();
        b.build().unwrap()
    }

    #[test]
    fn scores_are_the_grades_and_zero_elsewhere() {
        let oracle = Oracle::new(judgments());
        let mut out = [9.0; 4];
        oracle.score(1, &[0, 1, 2, 3], &mut out).unwrap();
        assert_eq!(out, [0.0, 0.0, 1.0, 2.0]);
        oracle.score(0, &[0, 1, 2, 3], &mut out).unwrap();
        assert_eq!(out, [0.0; 4]);
    }

    #[test]
    fn fit_checks_the_index_space() {
        let train =
            Interactions::from_events(2, 5, [Event::new(0, 0, 1.0)], DuplicatePolicy::Error)
                .unwrap();
        let err = OracleParams::new(judgments()).fit(&TrainData::new(&train, 0)).unwrap_err();
        assert!(matches!(err, RecsError::LengthMismatch { what: "judgment items", .. }));
    }
}
