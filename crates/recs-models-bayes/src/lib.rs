//! Bayesian recommenders: a per-user naive Bayes classifier on item attributes
//! (schein2005 §4.3) and the naive Bayesian network of cremonesi2008 §4.1.
//!
//! Both are "naive" in the same way — evidence is independent given the hypothesis — but
//! they answer different questions:
//!
//! - [`NaiveBayes`] (`naive-bayes`) is **content-based**: one classifier per user, the
//!   classes are rating values, the evidence is the item's attributes (actors, genres).
//!   It uses no collaborative information, so it scores items nobody rated in training,
//!   which is what the cold-start rating experiments of schein2005 §6.3 need. Its scores
//!   are probabilities `P(r ≥ t | item)` (or expected ratings).
//! - [`NaiveBayesianNetwork`] (`nbn`) is **collaborative** on binary data: the hypothesis
//!   is "the user will pick item i", the evidence is each item of the user's profile, and
//!   the conditionals come from item co-occurrence counts.
//!
//! The design choice that shapes the crate: everything is computed **in logs, and any
//! smoothing is an explicit, documented parameter** rather than an accident, so no score is
//! ever `NaN` or `-∞`; each model documents its vocabulary and what happens with counts of
//! zero (the network's default is the published, unsmoothed formula, whose zero products
//! score [`ZERO_PROBABILITY`], the lowest finite score). Errors are [`recs_core::RecsError`].
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, IdMap, Interactions, ItemAttributes};
//! use recs_core::{Recommender, TrainData};
//! use recs_models_bayes::{NaiveBayesParams, NaiveBayesianNetworkParams};
//!
//! // Two users rate three films (1-5); films carry actors.
//! let events = [Event::new(0, 0, 5.0), Event::new(0, 1, 1.0), Event::new(1, 1, 4.0)];
//! let train = Interactions::from_events(2, 3, events, DuplicatePolicy::Error)?;
//! let actors = IdMap::from_ids_sorted(["Ann", "Bob"])?;
//! let cast = ItemAttributes::from_pairs(3, actors, [(0, 0, 1.0), (1, 1, 1.0), (2, 0, 1.0)])?;
//! let data = TrainData::new(&train, 7).with_attributes(&cast)?;
//!
//! // User 0 liked Ann's film and disliked Bob's: Ann's other film (2) looks better.
//! let bayes = NaiveBayesParams::new().classes(vec![1.0, 2.0, 3.0, 4.0, 5.0]).fit(&data)?;
//! let mut p = [0.0f32; 2];
//! bayes.score(0, &[1, 2], &mut p)?;
//! assert!(p[1] > p[0]);
//!
//! // The network scores by co-occurrence; user 1's only item is film 1.
//! let nbn = NaiveBayesianNetworkParams::new().fit(&data)?;
//! nbn.score(1, &[0, 2], &mut p)?;
//! assert!(p[0] > p[1]); // film 0 was co-rated with film 1, film 2 never was
//! # Ok::<(), recs_core::RecsError>(())
//! ```
#![deny(missing_docs)]

mod naive_bayes;
mod nbn;

use recs_core::{CheckParams, FitDyn, ModelEntry, ParamSpec, ParamValues, RecsError, Result};

pub use naive_bayes::{
    MAX_CLASSES, NaiveBayes, NaiveBayesParams, NaiveBayesScore, NaiveBayesValidParams,
    UnseenAttributes,
};
pub use nbn::{
    NaiveBayesianNetwork, NaiveBayesianNetworkParams, NaiveBayesianNetworkValidParams,
    ZERO_PROBABILITY,
};

fn naive_bayes_from(values: &ParamValues) -> Result<NaiveBayesParams> {
    let mut params = NaiveBayesParams::new();
    let threshold = values.get_or("threshold", 4.0f32)?;
    params = match values.raw("score").unwrap_or("at-least") {
        "at-least" => params.score(NaiveBayesScore::AtLeast(threshold)),
        "expected" => params.score(NaiveBayesScore::Expected),
        "most-probable" => params.score(NaiveBayesScore::MostProbable),
        other => {
            return Err(RecsError::invalid_parameter(
                "score",
                other,
                "at-least, expected or most-probable",
            ));
        }
    };
    params = match values.raw("unseen").unwrap_or("smoothed") {
        "smoothed" => params.unseen_attributes(UnseenAttributes::Smoothed),
        "ignored" => params.unseen_attributes(UnseenAttributes::Ignored),
        other => {
            return Err(RecsError::invalid_parameter("unseen", other, "smoothed or ignored"));
        }
    };
    if let Some(text) = values.raw("classes").filter(|t| t.trim() != "distinct") {
        let classes = text
            .split(',')
            .map(|c| c.trim().parse::<f32>())
            .collect::<std::result::Result<Vec<f32>, _>>()
            .map_err(|_| {
                RecsError::invalid_parameter(
                    "classes",
                    text,
                    "comma-separated ratings, e.g. 1,2,3,4,5",
                )
            })?;
        params = params.classes(classes);
    }
    Ok(params)
}

/// The models of this crate for the runner and the command line (`recs score --list`).
pub fn catalog() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "naive-bayes",
            summary: "Per-user naive Bayes rating classifier on item attributes, Laplace \
                      smoothing, log domain (schein2005 §4.3); scores new items.",
            params: &[
                ParamSpec {
                    name: "score",
                    default: "at-least",
                    help: "at-least = P(r >= threshold) (schein2005 §6.3), expected = E[r], or \
                           most-probable = the rating of largest posterior (eq. 10's guess)",
                },
                ParamSpec {
                    name: "threshold",
                    default: "4",
                    help: "rating threshold t of P(r >= t) (schein2005 §6.3)",
                },
                ParamSpec {
                    name: "unseen",
                    default: "smoothed",
                    help: "attributes the user never met: smoothed (count 0 + 1) or ignored",
                },
                ParamSpec {
                    name: "classes",
                    default: "distinct",
                    help: "rating classes, comma-separated, e.g. 1,2,3,4,5, or `distinct`: \
                           the distinct training ratings (ours)",
                },
            ],
            needs_attributes: true,
            build: |values| {
                let params: Box<dyn FitDyn> = Box::new(naive_bayes_from(values)?.check()?);
                Ok(params)
            },
        },
        ModelEntry {
            name: "nbn",
            summary: "Naive Bayesian network on item co-occurrence, binary data, in logs \
                      (cremonesi2008 §4.1).",
            params: &[ParamSpec {
                name: "alpha",
                default: "0",
                help: "pseudo-count added to every count, >= 0: 0 is the paper's formula (a \
                       zero co-rating zeroes the product); > 0 a smoothed variant (ours)",
            }],
            needs_attributes: false,
            build: |values| {
                let alpha = values.get_or("alpha", 0.0f64)?;
                let params: Box<dyn FitDyn> =
                    Box::new(NaiveBayesianNetworkParams::new().alpha(alpha).check()?);
                Ok(params)
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_builds_with_defaults_and_validates() {
        for entry in catalog() {
            assert!(entry.build_checked(&ParamValues::new()).is_ok(), "{}", entry.name);
        }
        let entries = catalog();
        let bayes = entries.iter().find(|e| e.name == "naive-bayes").unwrap();
        let ok = ParamValues::parse(["score=expected", "classes=1, 2,3", "unseen=ignored"]);
        assert!(bayes.build_checked(&ParamValues::parse(["classes=distinct"]).unwrap()).is_ok());
        assert!(bayes.build_checked(&ok.unwrap()).is_ok());
        for bad in ["score=mode", "classes=1,x", "unseen=maybe", "threshold=nan", "classes=2,2"] {
            let values = ParamValues::parse([bad]).unwrap();
            assert!(bayes.build_checked(&values).is_err(), "{bad}");
        }
        let nbn = entries.iter().find(|e| e.name == "nbn").unwrap();
        assert!(nbn.build_checked(&ParamValues::parse(["alpha=-1"]).unwrap()).is_err());
        assert!(nbn.build_checked(&ParamValues::parse(["alpha=0"]).unwrap()).is_ok());
    }
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
