//! Latent factor recommenders: PureSVD, logistic PCA, the aspect model with folding-in, and alternating least squares.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
