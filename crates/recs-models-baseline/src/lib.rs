//! Baseline recommenders: seeded random, the oracle reference, item and user popularity, the user × item popularity regression, and mean-rating models.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
