//! Checks and small helpers shared by the baseline models.

use recs_core::Interactions;

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

/// Which rows of the training data a mean runs over.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Along {
    Users,
    Items,
}

/// The global mean rating, and the mean rating of every user (or item) shrunk towards it
/// as if `damping` extra ratings at the global mean had been observed: `(Σ r + d·μ) /
/// (n + d)`, the global mean for a row without ratings when `d = 0`.
pub(crate) fn damped_means(
    interactions: &Interactions,
    along: Along,
    damping: f64,
) -> (f64, Vec<f32>) {
    let global = global_mean(interactions);
    let rows: Vec<&[f32]> = match along {
        Along::Users => {
            (0..interactions.n_users() as u32).map(|u| interactions.user_values(u)).collect()
        }
        Along::Items => {
            (0..interactions.n_items() as u32).map(|i| interactions.item_values(i)).collect()
        }
    };
    let means = rows
        .into_iter()
        .map(|values| {
            let sum: f64 = values.iter().map(|&v| f64::from(v)).sum();
            let weight = values.len() as f64 + damping;
            let mean = if weight > 0.0 { (sum + damping * global) / weight } else { global };
            mean as f32
        })
        .collect();
    (global, means)
}
