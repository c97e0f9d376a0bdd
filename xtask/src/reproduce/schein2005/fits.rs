//! How far each aspect fit got: its EM iterations, its last β, and what its classes gained
//! over the independence model `P(p) P(x)` it starts near, on the training cells and on
//! the held-out cells that stopped it. A fit that stops in its first iterations is near
//! that model, whose scores are a popularity recommender's; the claims' ends are kept
//! whatever these say, and this table says how near each end stayed.

use recs_bench::Results;
use recs_bench::report::Table;
use serde_json::{Value, json};

/// The facts an aspect model states of its fit (`recs_models_latent::AspectReport::facts`),
/// in the table's order.
const FACTS: [&str; 4] = [
    "EM iterations",
    "final β",
    "training gain over independence (nats per event)",
    "held-out gain over independence (nats per event)",
];

/// One row per model with fit facts: each fact's smallest, mean and largest value over the
/// repetitions (empty cells for a fact the fit does not state, such as the held-out gain
/// of a fit run to convergence).
pub(super) fn table(experiment: &str, results: &Results) -> Table {
    let mut columns = vec!["experiment".to_string(), "model".to_string()];
    for fact in FACTS {
        for what in ["smallest", "mean", "largest"] {
            columns.push(format!("{fact}, {what}"));
        }
    }
    let mut rows = Vec::new();
    for model in results.models() {
        let facts = model.fit_facts();
        if facts.iter().all(Vec::is_empty) {
            continue;
        }
        let mut row = vec![json!(experiment), json!(model.label())];
        for fact in FACTS {
            let values: Vec<f64> = facts
                .iter()
                .filter_map(|split| split.iter().find(|(name, _)| *name == fact).map(|f| f.1))
                .collect();
            row.extend(spread(&values));
        }
        rows.push(row);
    }
    Table {
        name: format!("{experiment}: how far each aspect fit got (over the repetitions)"),
        columns,
        rows,
    }
}

/// Smallest, mean and largest of `values`, or three empty cells.
fn spread(values: &[f64]) -> [Value; 3] {
    if values.is_empty() {
        return [Value::Null, Value::Null, Value::Null];
    }
    let smallest = values.iter().copied().fold(f64::INFINITY, f64::min);
    let largest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    [json!(smallest), json!(mean), json!(largest)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_gives_the_ends_and_the_mean_or_nothing() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), [json!(1.0), json!(2.0), json!(3.0)]);
        assert_eq!(spread(&[]), [Value::Null, Value::Null, Value::Null]);
    }
}
