//! Every train/test protocol of the four source papers (holdout, leave-k-out, k-fold over events and users, hidden items, item cold start, predefined files, strong generalization, given-L, temporal), each seeded, and the builders of the `Judgments` that the metrics consume.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
