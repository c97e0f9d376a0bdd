//! Every catalogued model of the workspace, by name.
//!
//! Each model crate lists its models with `pub fn catalog() -> Vec<ModelEntry>`; this
//! module concatenates those lists, so the runner and the command line build any model
//! from text (`--model item-pop --param k=v`). Names are unique across crates (checked by
//! a test). Reference models that need more than text parameters — the [`Oracle`], which
//! reads the test judgments — are listed in [`REFERENCES`] and built by the caller.

use recs_core::{ModelEntry, RecsError, Result};

pub use recs_models_baseline::{ORACLE_NAME, Oracle, OracleParams};

/// Models that are references rather than contenders and cannot be built from text
/// parameters alone: `(name, summary)`.
pub const REFERENCES: &[(&str, &str)] = &[(
    ORACLE_NAME,
    "Reference, never a contender: scores each candidate with its test grade (needs the \
     judgments, e.g. `recs score --qrels`).",
)];

/// Every catalogued model, crate by crate, in a fixed order.
pub fn catalog() -> Vec<ModelEntry> {
    let mut entries = recs_models_baseline::catalog();
    entries.extend(recs_models_bayes::catalog());
    entries.extend(recs_models_knn::catalog());
    entries.extend(recs_models_latent::catalog());
    entries
}

/// The catalogued model called `name`.
///
/// # Errors
/// [`RecsError::InvalidParameter`] naming the known models when there is none; a
/// reference model (see [`REFERENCES`]) gets an error saying how to build it.
pub fn find(name: &str) -> Result<ModelEntry> {
    let entries = catalog();
    if let Some(entry) = entries.iter().find(|e| e.name == name) {
        return Ok(*entry);
    }
    if let Some((reference, _)) = REFERENCES.iter().find(|(n, _)| *n == name) {
        return Err(RecsError::Unsupported(format!(
            "`{reference}` is a reference model built from test judgments, not from parameters"
        )));
    }
    let known: Vec<&str> = entries.iter().map(|e| e.name).collect();
    Err(RecsError::invalid_parameter("model", name, format!("one of {}", known.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::ParamValues;

    #[test]
    fn names_are_unique_across_crates_and_references() {
        let mut names: Vec<&str> = catalog().iter().map(|e| e.name).collect();
        names.extend(REFERENCES.iter().map(|r| r.0));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate model names");
    }

    #[test]
    fn the_issue_names_are_all_present() {
        for name in [
            "random",
            "item-pop",
            "user-pop",
            "user-item-pop",
            "user-mean",
            "item-mean",
            "top-rated",
            "naive-bayes",
            "nbn",
        ] {
            let entry = find(name).unwrap();
            assert!(entry.build_checked(&ParamValues::new()).is_ok(), "{name}");
        }
        assert!(matches!(find(ORACLE_NAME), Err(RecsError::Unsupported(_))));
        let err = find("no-such-model").unwrap_err().to_string();
        assert!(err.contains("item-pop"), "{err}");
    }
}
