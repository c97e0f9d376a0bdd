//! Content recommenders from item attributes: per-user naive Bayes on attributes and the naive Bayesian network.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
