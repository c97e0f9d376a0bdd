//! Model selection: every grid combination fitted and scored on validation data drawn
//! inside the training part; the best value of the selection key wins.

use super::assess::Scoring;
use super::split::Judged;
use crate::error::{BenchError, Result};
use crate::plan::{ModelPlan, Params};

/// Every combination with the value of each report key on validation.
type ValidationRows = Vec<(Params, Vec<Option<f64>>)>;

impl Scoring<'_, '_> {
    /// Tries every combination of `model` on `validation` and keeps the one with the
    /// largest selection key (the first on ties); every report key is recorded for each.
    pub(crate) fn select(
        &self,
        model: &ModelPlan,
        combinations: &[Params],
        validation: &Judged,
    ) -> Result<(Params, ValidationRows)> {
        let plan = self.context.plan;
        let selection = plan.selection.as_ref().ok_or_else(|| {
            BenchError::Experiment(format!("`{}` has a grid but no selection", model.label))
        })?;
        let keys = plan.keys();
        let key = keys.iter().position(|k| *k == selection.key).ok_or_else(|| {
            BenchError::Experiment(format!("the selection key `{}` is not computed", selection.key))
        })?;
        let mut rows = Vec::with_capacity(combinations.len());
        let mut best: Option<(f64, usize)> = None;
        for (index, combination) in combinations.iter().enumerate() {
            let started = std::time::Instant::now();
            let fitted = self.fit(model, combination, validation.split.train())?;
            let (report, scores) =
                self.evaluate(model, fitted.as_ref(), validation, false).map_err(|e| {
                    BenchError::Experiment(format!("validating `{}`: {e}", model.label))
                })?;
            let values = self.values(&report, fitted.as_ref(), validation, scores.as_ref())?;
            if let Some(v) = values.get(key).copied().flatten()
                && best.is_none_or(|(b, _)| v > b)
            {
                best = Some((v, index));
            }
            self.context.progress.step(&format!(
                "{} split {}/{}: validated {} {} ({:.1} s)",
                plan.name,
                self.id.repetition,
                self.id.fold,
                model.label,
                super::assemble::params_text(combination),
                started.elapsed().as_secs_f64()
            ));
            rows.push((combination.clone(), values));
        }
        let Some((_, chosen)) = best else {
            return Err(BenchError::Experiment(format!(
                "`{}`: the validation {} is undefined for every grid value",
                model.label, selection.key
            )));
        };
        Ok((rows[chosen].0.clone(), rows))
    }
}
