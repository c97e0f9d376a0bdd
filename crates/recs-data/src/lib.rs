//! Dataset loaders (MovieLens, UCI MS Web, delimited interaction files, item attribute files), a registry of official sources with sha256-verified downloads, dataset statistics and seeded synthetic generators.
//!
//! This crate has no public items yet: its purpose is stated here so that the
//! workspace layout and dependency direction are fixed from the start. See
//! `docs/architecture.md` for where it sits.
