//! User- and item-based k-nearest-neighbour recommenders with the similarity measures of
//! ignatov2010 §3 (cosine, adjusted cosine, Pearson, Jaccard, Tanimoto, Euclidean, Hamming)
//! and the conditional probability of Deshpande & Karypis (2004).
//!
//! Neighbourhood methods are simple to state and easy to get subtly wrong, so every
//! choice the papers leave open is made explicitly here and documented where it lives:
//! over which entries each measure is computed (co-rated or full vectors, see
//! [`Similarity`]), what an undefined similarity means (the pair is simply not a neighbour;
//! Pearson on constant vectors falls back to the untrimmed correlation, as argued from
//! ignatov2010 §3), and how ties at the `k`-th neighbour are resolved ([`Ties`]: extended,
//! as ignatov2010 §2 prescribes, or cut by index).
//!
//! The design choice that shapes the crate is **sparse, per-row computation**: the
//! similarity of two vectors is only computed when they share at least one dimension,
//! found by walking the sparse matrix and its transpose (CSR on [`sprs`], from
//! [`recs_core::Interactions`]); each row keeps only its top-k neighbours, so memory is
//! bounded by `n_rows × (k + ties)` plus one dense accumulator per thread. Rows are
//! processed in parallel with rayon, each sequentially, so the result is bit-identical for
//! any number of threads. A consequence worth knowing: two vectors without a common
//! dimension are never neighbours, even under Euclidean or Hamming similarity where their
//! similarity would be a small positive number.
//!
//! Models: [`UserKnnParams`] fits [`UserKnn`], [`ItemKnnParams`] fits [`ItemKnn`]; both
//! rank items ([`recs_core::Recommender`]), predict ratings
//! ([`recs_core::PredictRating`]) and score users unseen in training from their history
//! without refitting ([`recs_core::FoldInUser`]). [`catalog`] lists them as `user-knn`
//! and `item-knn` for the runner and the command line.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_knn::{ItemKnnParams, KnnParams, Similarity};
//!
//! // Users 0 and 1 both took items 0 and 1; user 2 took item 0 only.
//! let events = [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0)]
//!     .map(|(u, i)| Event::new(u, i, 1.0));
//! let train = Interactions::from_events(3, 3, events, DuplicatePolicy::Error)?;
//! let params = ItemKnnParams::new(KnnParams::new().k(2).similarity(Similarity::Jaccard))?;
//! let model = params.fit(&TrainData::new(&train, 42))?;
//!
//! // For user 2, item 1 (Jaccard 2/3 with item 0) beats item 2 (Jaccard 1/3).
//! let mut scores = [0.0; 2];
//! model.score(2, &[1, 2], &mut scores)?;
//! assert!(scores[0] > scores[1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod error;
mod model;
mod params;
mod similarity;

pub use error::{KnnError, Result};
pub use model::{ItemKnn, UserKnn};
pub use params::{
    ItemKnnParams, KnnParams, KnnValidParams, Neighbourhood, Similarity, Ties, UserKnnParams,
};

use recs_core::{FitDyn, ModelEntry, ParamSpec, ParamValues};

/// The parameters both catalogued models accept (`seed` is implicit; kNN draws no
/// random numbers).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "k",
        default: "20",
        help: "neighbourhood size before tie extension, >= 1 (ours; ignatov2010 §5 uses 10)",
    },
    ParamSpec {
        name: "similarity",
        default: "cosine",
        help: "cosine | adjusted-cosine | pearson | jaccard | tanimoto | euclidean | hamming | conditional (ignatov2010 §3; Deshpande & Karypis 2004)",
    },
    ParamSpec {
        name: "ties",
        default: "extend",
        help: "extend: keep every neighbour tied with the k-th (ignatov2010 §2); cut: exactly k, smaller index wins",
    },
    ParamSpec {
        name: "min-similarity",
        default: "none",
        help: "drop neighbours less similar than this number (none: no threshold)",
    },
    ParamSpec {
        name: "min-support",
        default: "1",
        help: "drop neighbour pairs sharing fewer than this many co-rated dimensions (ours; raise it for Pearson on sparse data); 0 admits pairs without a co-rated dimension too, their similarity from the vectors' own statistics",
    },
    ParamSpec {
        name: "positive-only",
        default: "true",
        help: "keep only neighbours with similarity > 0 (ours)",
    },
    ParamSpec {
        name: "alpha",
        default: "0.5",
        help: "popularity exponent of `conditional`, in [0, 1] (Deshpande & Karypis 2004 §3.1.2)",
    },
];

/// [`PARAMS`] and the direction of item neighbourhoods: the parameters of `item-knn`.
pub const ITEM_PARAMS: &[ParamSpec] = &[
    PARAMS[0],
    PARAMS[1],
    PARAMS[2],
    PARAMS[3],
    PARAMS[4],
    PARAMS[5],
    PARAMS[6],
    ParamSpec {
        name: "neighbourhood",
        default: "candidate",
        help: "history: sum over the k-neighbourhoods of the user's items (ignatov2010 §2's N(i|u0); Deshpande & Karypis 2004); candidate: over the candidate's own k-neighbourhood (ours as default); history-all: candidates from the history's k-neighbourhoods, each summed over every history item (ignatov2010 §2's formulas read literally)",
    },
];

fn build_user_knn(values: &ParamValues) -> recs_core::Result<Box<dyn FitDyn>> {
    let params = UserKnnParams::new(KnnParams::from_values(values)?)?;
    Ok(Box::new(params))
}

fn build_item_knn(values: &ParamValues) -> recs_core::Result<Box<dyn FitDyn>> {
    let params = ItemKnnParams::new(KnnParams::from_values(values)?)?;
    Ok(Box::new(params))
}

/// The models of this crate, for the registry of the runner and the command line:
/// `user-knn` and `item-knn`, both with [`PARAMS`].
///
/// ```
/// use recs_core::ParamValues;
/// let catalog = recs_models_knn::catalog();
/// let item_knn = catalog.iter().find(|entry| entry.name == "item-knn").unwrap();
/// let values = ParamValues::parse(["k=10", "similarity=pearson", "ties=cut"])?;
/// let _unfitted = item_knn.build_checked(&values)?;
/// assert!(item_knn.build_checked(&ParamValues::parse(["k=0"])?).is_err());
/// # Ok::<(), recs_core::RecsError>(())
/// ```
pub fn catalog() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "user-knn",
            summary: "user-based k-nearest neighbours with tie-extended neighbourhoods (ignatov2010 §2)",
            params: PARAMS,
            needs_attributes: false,
            build: build_user_knn,
        },
        ModelEntry {
            name: "item-knn",
            summary: "item-based k-nearest neighbours (ignatov2010 §2; Sarwar et al. 2001; Deshpande & Karypis 2004)",
            params: ITEM_PARAMS,
            needs_attributes: false,
            build: build_item_knn,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter the models read is in the catalog (a documented parameter missing
    /// there would be refused by configurations), and the catalog's defaults, given as
    /// text, build exactly the builder's default parameters.
    #[test]
    fn the_catalog_lists_every_parameter_with_the_builder_defaults() {
        let every = params::EVERY_PARAMETER;
        let read: Vec<&str> = every.iter().map(|p| p.split('=').next().unwrap_or(p)).collect();
        let listed: Vec<&str> = ITEM_PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(read, listed);
        assert_eq!(&ITEM_PARAMS[..PARAMS.len()], PARAMS);
        let (user, item) = (&catalog()[0], &catalog()[1]);
        assert!(item.build_checked(&ParamValues::parse(every).unwrap()).is_ok());
        // The direction of item neighbourhoods means nothing to user-kNN.
        assert!(user.build_checked(&ParamValues::parse(every).unwrap()).is_err());
        assert!(user.build_checked(&ParamValues::parse(&every[..7]).unwrap()).is_ok());
        assert!(item.build_checked(&ParamValues::parse(["neighbourhood=mine"]).unwrap()).is_err());
        for entry in catalog() {
            assert!(entry.build_checked(&ParamValues::parse(["min-support=-1"]).unwrap()).is_err());
            assert!(entry.build_checked(&ParamValues::parse(["min-support=0"]).unwrap()).is_ok());
        }
        let defaults =
            ParamValues::parse(ITEM_PARAMS.iter().map(|p| format!("{}={}", p.name, p.default)))
                .unwrap();
        assert_eq!(KnnParams::from_values(&defaults).unwrap(), KnnParams::new());
    }
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
