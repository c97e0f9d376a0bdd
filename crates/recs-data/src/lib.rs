//! Real datasets in: loaders for MovieLens, UCI MS Web, delimited interaction files and
//! item attribute files; a registry of official sources with sha256-verified downloads;
//! dataset statistics; seeded synthetic generators.
//!
//! Everything loads into the `recs-core` vocabulary — an [`recs_core::Interactions`]
//! matrix and the [`recs_core::IdMap`]s translating its indices — bundled with metadata in
//! a [`Dataset`]. The design choice that shapes the crate: **a file is either read exactly
//! or refused**. Every malformed line is an error naming the file, the line and what was
//! expected; nothing is skipped silently, no id is guessed, and the id maps are canonical
//! (numeric order of the external ids), so the same files always give the same indices.
//!
//! ```
//! use recs_data::{DelimitedFormat, Stats, parse_delimited, profile_groups};
//!
//! let lines = b"196\t242\t3\t881250949\n186\t302\t3\t891717742\n196\t302\t5\t881250950\n";
//! let data = parse_delimited(lines, "u.data", &DelimitedFormat::movielens_100k())?;
//! assert_eq!(data.users.iter().collect::<Vec<_>>(), ["186", "196"]);
//! let stats = Stats::of(&data.interactions);
//! assert_eq!((stats.n_users, stats.n_items, stats.n_events), (2, 2, 3));
//! let groups = profile_groups(&data.interactions, &[1, 2])?;
//! assert_eq!((groups[0].n_users, groups[1].n_users), (1, 1));
//!
//! // A malformed line is refused with its file and line.
//! let err = parse_delimited(b"196\t242\t9\t881250949\n", "u.data", &DelimitedFormat::movielens_100k());
//! assert!(err.unwrap_err().to_string().starts_with("u.data:1: expected a rating between 1 and 5"));
//! # Ok::<(), recs_data::DataError>(())
//! ```
// docs.rs marks each item that a cargo feature gates with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod attribute_file;
mod cache;
mod columnar;
mod dataset;
mod delimited;
mod error;
mod interaction_file;
mod lines;
mod movielens;
mod msweb;
mod named;
mod options;
mod registry;
mod resolve;
mod stats;
mod synth;

use std::io::Read;
use std::path::Path;

pub use attribute_file::{AttributeFilter, load_item_attributes, parse_item_attributes};
pub use cache::{CacheStatus, DatasetCache, load_named_cached};
pub use dataset::{Dataset, Feedback, ItemInfo, SourceFile, UserInfo};
pub use delimited::{DelimitedFormat, parse_delimited};
pub use error::{DataError, Result};
pub use interaction_file::load_delimited;
pub use movielens::{
    GENRES_100K, MovieLensRelease, load_movielens, load_movielens_100k, parse_movielens_items,
};
pub use msweb::{
    CaseIds, MsWebFile, MsWebOptions, Vroot, Vroots, assemble as assemble_msweb, load_msweb,
    parse_msweb, read_msweb_file,
};
pub use named::{load_cast, load_named, load_named_with};
pub use options::{AUTO_DELIMITER, delimiter_from_name, join_predefined};
pub use registry::{DatasetKind, DatasetSpec, RegistryFile, registry, spec};
#[cfg(feature = "download")]
pub use resolve::download;
pub use resolve::{DATA_DIR_ENV, DownloadProgress, Resolved, Resolver, extract};
pub use stats::{
    Distribution, Group, Head, Stats, gini, popularity_head, profile_groups,
    profile_length_histogram,
};
pub use synth::{PowerLaw, UserGroup, block_diagonal, ignatov_blocks, ignatov_blocks_overlapping};

/// Lower-case hex encoding of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The sha256 of bytes, lower-case hex.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

/// The sha256 of a file's content, lower-case hex (streamed, constant memory).
///
/// # Errors
/// [`DataError::Io`] when the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String> {
    use sha2::Digest;
    let mut file = std::fs::File::open(path).map_err(|e| DataError::io(path, e))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| DataError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_inputs() {
        assert_eq!(
            sha256_bytes(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(sha256_file(&p).unwrap(), sha256_bytes(b"abc"));
    }
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
