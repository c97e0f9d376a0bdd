//! The experiment runner: a dataset × protocol × models × test mode × metrics experiment, model selection by validation, and reports (JSON, Markdown, CSV, SVG).
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
