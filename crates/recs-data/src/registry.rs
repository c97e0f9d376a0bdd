//! The dataset registry: official sources, licences and pinned sha256 of every file read.

use std::sync::OnceLock;

use crate::error::{DataError, Result};
use crate::movielens::MovieLensRelease;

/// How a registered dataset is loaded once its files are on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetKind {
    /// MovieLens 100K (`u.data`, `u.item`, `u.user`).
    MovieLens100K,
    /// Another MovieLens release.
    MovieLens(MovieLensRelease),
    /// UCI MS Web, training and test files.
    MsWeb,
    /// An item attribute file for another dataset (not an interaction dataset).
    ItemAttributes,
}

/// One file of a registered dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryFile {
    /// File name inside the dataset's directory (`u.data`).
    pub name: String,
    /// Pinned sha256 (lower-case hex); `None` when no verified copy was available to pin.
    pub sha256: Option<String>,
}

/// A dataset the registry knows: where it comes from and which files are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetSpec {
    /// Name used on the command line and as the directory name (`ml-100k`).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Licence or terms of use.
    pub licence: String,
    /// Official URL of the zip archive holding the files, if it can be downloaded.
    pub url: Option<String>,
    /// How to obtain the files when there is no URL.
    pub manual: Option<String>,
    /// The files read, found in the archive by file name.
    pub files: Vec<RegistryFile>,
    /// How to load it.
    pub kind: DatasetKind,
}

fn file(name: &str, sha256: Option<&str>) -> RegistryFile {
    RegistryFile { name: name.to_string(), sha256: sha256.map(str::to_string) }
}

const GROUPLENS: &str = "https://files.grouplens.org/datasets/movielens/";
const GROUPLENS_TERMS: &str =
    "GroupLens terms: research use, no redistribution; cite Harper & Konstan 2015";

fn movielens(name: &str, description: &str, release: MovieLensRelease) -> DatasetSpec {
    let names: &[&str] = match release {
        MovieLensRelease::OneMillion => &["ratings.dat", "movies.dat", "users.dat"],
        MovieLensRelease::TenMillion => &["ratings.dat", "movies.dat"],
        MovieLensRelease::Csv => &["ratings.csv", "movies.csv"],
    };
    DatasetSpec {
        name: name.to_string(),
        description: description.to_string(),
        licence: GROUPLENS_TERMS.to_string(),
        url: Some(format!("{GROUPLENS}{name}.zip")),
        manual: None,
        // No verified copy of these releases was available to pin their digests; their
        // files are checked for format only. (ml-latest changes over time by design.)
        files: names.iter().map(|n| file(n, None)).collect(),
        kind: DatasetKind::MovieLens(release),
    }
}

/// Every registered dataset.
pub fn registry() -> &'static [DatasetSpec] {
    static REGISTRY: OnceLock<Vec<DatasetSpec>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        vec![
            DatasetSpec {
                name: "ml-100k".into(),
                description: "MovieLens 100K: 100,000 ratings 1-5, 943 users, 1682 movies, 19 genres"
                    .into(),
                licence: GROUPLENS_TERMS.into(),
                url: Some(format!("{GROUPLENS}ml-100k.zip")),
                manual: None,
                files: vec![
                    file(
                        "u.data",
                        Some("06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490"),
                    ),
                    file(
                        "u.item",
                        Some("553841ebc7de3a0fd0d6b62a204ea30c1e651aacfb2814c7a6584ac52f2c5701"),
                    ),
                    file(
                        "u.user",
                        Some("f120e114da2e8cf314fd28f99417c94ae9ddf1cb6db8ce0e4b5995d40e90e62c"),
                    ),
                ],
                kind: DatasetKind::MovieLens100K,
            },
            DatasetSpec {
                name: "msweb".into(),
                description: "UCI Anonymous Microsoft Web Data: 32,711 training and 5,000 test \
                              cases, visits to 294 vroots"
                    .into(),
                licence: "CC BY 4.0 (UCI ML repository, dataset 166)".into(),
                url: Some(
                    "https://archive.ics.uci.edu/static/public/166/anonymous+microsoft+web+data.zip"
                        .into(),
                ),
                manual: None,
                files: vec![
                    file(
                        "anonymous-msweb.data",
                        Some("2a1300e9e0962dd6eb4d5982ab06cf04461f942f3faed82451661740a13dcd72"),
                    ),
                    file(
                        "anonymous-msweb.test",
                        Some("a1dc9f9d73c7957bb14048b4040d5cd4f8f0abbcd0dbc6195ab781e45894b75b"),
                    ),
                ],
                kind: DatasetKind::MsWeb,
            },
            DatasetSpec {
                name: "ml-100k-cast".into(),
                description: "Top-10 billed actors of 1575 MovieLens 100K movies \
                              (movie_id, billing, actor)"
                    .into(),
                licence: "facts for research use, derived from IMDb cast pages".into(),
                url: None,
                manual: Some(
                    "not downloadable: rebuild `cast.tsv` (movie_id<TAB>billing<TAB>actor) from \
                     IMDb's non-commercial dataset dumps for the movies linked in u.item"
                        .into(),
                ),
                files: vec![file(
                    "cast.tsv",
                    Some("3adc1c2692bdb706543f2221000309866d5c34726ff492fa4d8f27882bf14aa3"),
                )],
                kind: DatasetKind::ItemAttributes,
            },
            movielens(
                "ml-1m",
                "MovieLens 1M: ratings 1-5 (`::` files), movies with genres, users with demographics",
                MovieLensRelease::OneMillion,
            ),
            movielens(
                "ml-10m",
                "MovieLens 10M: half-star ratings (`::` files), movies with genres",
                MovieLensRelease::TenMillion,
            ),
            movielens(
                "ml-20m",
                "MovieLens 20M: half-star ratings (CSV), movies with genres",
                MovieLensRelease::Csv,
            ),
            movielens(
                "ml-25m",
                "MovieLens 25M: half-star ratings (CSV), movies with genres",
                MovieLensRelease::Csv,
            ),
            movielens(
                "ml-latest-small",
                "MovieLens latest, small (CSV; changes over time)",
                MovieLensRelease::Csv,
            ),
            movielens(
                "ml-latest",
                "MovieLens latest, full (changes over time)",
                MovieLensRelease::Csv,
            ),
        ]
    })
}

/// The registered dataset called `name`.
///
/// # Errors
/// [`DataError::UnknownDataset`] listing the known names.
pub fn spec(name: &str) -> Result<&'static DatasetSpec> {
    registry().iter().find(|s| s.name == name).ok_or_else(|| DataError::UnknownDataset {
        name: name.to_string(),
        known: registry().iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lookups_work() {
        let mut names: Vec<&str> = registry().iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
        assert_eq!(spec("msweb").unwrap().files.len(), 2);
        let e = spec("nope").unwrap_err().to_string();
        assert!(e.contains("unknown dataset `nope`") && e.contains("ml-100k"), "{e}");
    }

    #[test]
    fn pinned_digests_are_lower_hex_of_the_right_length() {
        for spec in registry() {
            assert!(spec.url.is_some() || spec.manual.is_some(), "{}", spec.name);
            for f in &spec.files {
                if let Some(h) = &f.sha256 {
                    assert_eq!(h.len(), 64);
                    assert!(h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
                }
            }
        }
    }
}
