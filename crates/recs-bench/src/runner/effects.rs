//! Effects for the verdict model read from a run's results: a model's value, or the paired
//! difference of two models, over the run's splits, with an interval that says whether
//! its repetitions are independent.

use std::collections::BTreeMap;

use crate::verdict::Effect;

use super::Results;

impl Results {
    /// The mean of report key `key` for model `label` with its 95% interval
    /// ([`Results::paired_effect`]'s rules, against zero); `None` for an unknown label or
    /// key.
    pub fn effect(&self, label: &str, key: &str) -> Option<Effect> {
        let values = self.per_split(label, key)?;
        Some(self.over_repetitions(values.iter().map(|v| v.unwrap_or(f64::NAN))))
    }

    /// The difference `a − b` of report key `key` between two models, paired split by
    /// split, with its 95% interval; `None` for an unknown label or key.
    ///
    /// The folds of one repetition share their data, so they are not independent: with
    /// two or more repetitions the interval is Student t over the repetitions' means
    /// (independent draws); with one repetition of several folds it is Student t over
    /// the folds, marked dependent; one split alone has no interval (one draw).
    pub fn paired_effect(&self, a: &str, b: &str, key: &str) -> Option<Effect> {
        self.difference((a, key), (b, key))
    }

    /// The difference of two (model label, report key) values, paired split by split, as
    /// [`Results::paired_effect`]: `(m, "croc_auc")` against `(m, "roc_auc")` compares one
    /// model's two areas.
    pub fn difference(&self, a: (&str, &str), b: (&str, &str)) -> Option<Effect> {
        let differences = self.split_differences(a, b)?;
        Some(self.over_repetitions(differences.into_iter()))
    }

    /// `a − b` of two (model label, report key) values on each split, in
    /// [`Results::split_ids`] order (`NaN` where either is undefined): what
    /// [`Results::difference`] takes over the repetitions, for a statistic that pairs it
    /// with another run's on the same splits.
    pub fn split_differences(&self, a: (&str, &str), b: (&str, &str)) -> Option<Vec<f64>> {
        let (a, b) = (self.per_split(a.0, a.1)?, self.per_split(b.0, b.1)?);
        Some(
            a.iter()
                .zip(&b)
                .map(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) => x - y,
                    _ => f64::NAN,
                })
                .collect(),
        )
    }

    /// `values` (one per split, in [`Results::split_ids`] order; `NaN` where undefined) as
    /// an effect over the run's repetitions, with [`Results::paired_effect`]'s interval: a
    /// statistic computed split by split from several keys or models.
    pub fn over_repetitions(&self, values: impl Iterator<Item = f64>) -> Effect {
        let mut by_repetition: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for (id, value) in self.split_ids.iter().zip(values) {
            if !value.is_nan() {
                by_repetition.entry(id.repetition).or_default().push(value);
            }
        }
        if by_repetition.len() >= 2 {
            let means: Vec<f64> =
                by_repetition.values().map(|v| v.iter().sum::<f64>() / v.len() as f64).collect();
            Effect::mean_of(&means, true, false)
        } else {
            let folds = by_repetition.into_values().next().unwrap_or_default();
            Effect::mean_of(&folds, false, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use recs_split::SplitId;

    use super::super::ModelResults;
    use super::*;
    use crate::verdict::IntervalKind;

    fn model(label: &str, values: &[f64]) -> ModelResults {
        let n = values.len();
        ModelResults {
            label: label.into(),
            params: vec![Vec::new(); n],
            values: values.iter().map(|v| vec![Some(*v)]).collect(),
            validation: vec![Vec::new(); n],
            item_scoring: vec![""; n],
            timings: Vec::new(),
            fit_facts: Vec::new(),
            groups: vec![Vec::new(); n],
            user_values: Vec::new(),
            versus: Vec::new(),
            roc: None,
            croc: None,
        }
    }

    fn results(ids: &[(u32, u32)], a: &[f64], b: &[f64]) -> Results {
        Results {
            keys: vec!["ndcg@10".into()],
            models: vec![model("a", a), model("b", b)],
            split_ids: ids.iter().map(|&(r, f)| SplitId::new(r, f)).collect(),
            judgments: None,
        }
    }

    #[test]
    fn repetitions_are_independent_and_folds_are_not() {
        // Two repetitions of two folds: the folds are averaged, the repetitions give t.
        let r = results(
            &[(0, 0), (0, 1), (1, 0), (1, 1)],
            &[0.5, 0.7, 0.6, 0.6],
            &[0.4, 0.6, 0.6, 0.4],
        );
        let e = r.paired_effect("a", "b", "ndcg@10").unwrap();
        assert_eq!((e.interval, e.repetitions), (IntervalKind::Independent, 2));
        assert!((e.estimate - 0.1).abs() < 1e-12, "{e:?}");
        // One repetition of three folds: t over the folds, marked dependent.
        let r = results(&[(0, 0), (0, 1), (0, 2)], &[0.5, 0.6, 0.7], &[0.4, 0.6, 0.5]);
        let e = r.paired_effect("a", "b", "ndcg@10").unwrap();
        assert_eq!((e.interval, e.repetitions), (IntervalKind::Dependent, 3));
        // One split: one draw.
        let r = results(&[(0, 0)], &[0.5], &[0.4]);
        assert_eq!(r.paired_effect("a", "b", "ndcg@10").unwrap().interval, IntervalKind::Single);
        assert_eq!(r.effect("a", "ndcg@10").unwrap().estimate, 0.5);
        assert!(r.paired_effect("a", "nobody", "ndcg@10").is_none());
        assert!(r.difference(("a", "ndcg@10"), ("b", "mae")).is_none());
    }
}
