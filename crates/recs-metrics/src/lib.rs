//! Exact, tie-aware evaluation metrics for recommender systems: pooled ROC and CROC curves with AUC and partial AUC, reference curves, top-N metrics (precision, recall, NDCG, AP, MRR, half-life utility), error metrics and aggregation.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
