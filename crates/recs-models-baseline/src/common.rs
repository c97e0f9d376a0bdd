//! Checks and small helpers shared by the baseline models.

use recs_core::Interactions;

/// The training interactions, or [`RecsError::Empty`] when they hold no event.
/// Mean of `values`, or `None` when empty (summed in `f64`).
pub(crate) fn mean(values: &[f32]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(values.iter().map(|&v| f64::from(v)).sum::<f64>() / values.len() as f64)
}

/// Mean of every event value of the training data (the data must have events).
pub(crate) fn global_mean(interactions: &Interactions) -> f64 {
    mean(interactions.csr().data()).unwrap_or(0.0)
}
