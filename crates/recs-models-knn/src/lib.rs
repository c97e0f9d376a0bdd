//! User- and item-based k-nearest-neighbour recommenders with the similarity measures of the cross-validation literature.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
