//! Every catalogued model of the workspace, by name.
//!
//! Each model crate lists its models with `pub fn catalog() -> Vec<ModelEntry>`; this
//! module concatenates those lists, so the runner and the command line build any model
//! from text (`--model item-pop --param k=v`). Names are unique across crates (checked by
//! a test). Reference models that need more than text parameters — the [`Oracle`], which
//! reads the test judgments — are listed in [`REFERENCES`] and built by the caller.
//!
//! The model crates are declared once, in the `model_crates!` invocation below, as
//! `module => crate`: that line puts the crate's catalog into [`catalog`] (in the order
//! of the lines) and re-exports the crate as [`models`]`::module`, the path the facade
//! offers as `recs_eval::models::module`. With the crate's dependency line in this crate's
//! `Cargo.toml` it is all a new model crate needs outside itself
//! (`docs/adding-a-model.md`).

use recs_core::{ModelEntry, RecsError, Result};

pub use recs_models_baseline::{ORACLE_NAME, Oracle, OracleParams};

/// One model crate as the registry sees it.
#[derive(Debug, Clone, Copy)]
pub struct ModelCrate {
    /// Its module under [`models`] (`knn`).
    pub module: &'static str,
    /// Its name as a Rust path (`recs_models_knn`); the package name has `-` for `_`.
    pub crate_name: &'static str,
    /// Its `catalog()`.
    pub catalog: fn() -> Vec<ModelEntry>,
}

/// Declares the model crates in catalog order, one `module => crate,` line each, and
/// generates [`MODEL_CRATES`] and the [`models`] re-exports from that one list.
macro_rules! model_crates {
    ($($module:ident => $krate:ident,)+) => {
        /// The model crates, one module each, named by the registry (`knn` is the crate
        /// `recs_models_knn`), in the order of [`MODEL_CRATES`].
        pub mod models {
            $(pub use $krate as $module;)+
        }

        /// Every model crate, in the order its models appear in [`catalog`].
        pub const MODEL_CRATES: &[ModelCrate] = &[$(ModelCrate {
            module: stringify!($module),
            crate_name: stringify!($krate),
            catalog: $krate::catalog,
        },)+];
    };
}

model_crates! {
    baseline => recs_models_baseline,
    bayes => recs_models_bayes,
    knn => recs_models_knn,
    latent => recs_models_latent,
    strong => recs_models_strong,
}

/// Models that are references rather than contenders and cannot be built from text
/// parameters alone: `(name, summary)`.
pub const REFERENCES: &[(&str, &str)] = &[(
    ORACLE_NAME,
    "Reference, never a contender: scores each candidate with its test grade (needs the \
     judgments, e.g. `recs score --qrels`).",
)];

/// Every catalogued model, crate by crate, in a fixed order.
pub fn catalog() -> Vec<ModelEntry> {
    MODEL_CRATES.iter().flat_map(|c| (c.catalog)()).collect()
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
    fn every_model_crate_contributes_models_under_its_own_module() {
        let mut modules: Vec<&str> = MODEL_CRATES.iter().map(|c| c.module).collect();
        modules.sort_unstable();
        modules.dedup();
        assert_eq!(modules.len(), MODEL_CRATES.len(), "duplicate module names");
        for krate in MODEL_CRATES {
            assert!(!(krate.catalog)().is_empty(), "{} lists no model", krate.crate_name);
            assert_eq!(krate.crate_name, format!("recs_models_{}", krate.module));
        }
        // The re-exports are the crates themselves.
        assert_eq!(models::knn::catalog()[0].name, recs_models_knn::catalog()[0].name);
        // The catalog keeps the crates' order: baselines first, as `recs score --list` shows.
        assert_eq!(catalog()[0].name, "random");
    }

    #[test]
    fn every_model_is_found_by_name_and_builds_with_its_defaults() {
        for entry in catalog() {
            let found = find(entry.name).unwrap();
            assert_eq!(found.summary, entry.summary, "{}", entry.name);
            assert!(found.build_checked(&ParamValues::new()).is_ok(), "{}", entry.name);
        }
        assert!(matches!(find(ORACLE_NAME), Err(RecsError::Unsupported(_))));
        let err = find("no-such-model").unwrap_err().to_string();
        assert!(err.contains("item-pop"), "{err}");
    }
}
