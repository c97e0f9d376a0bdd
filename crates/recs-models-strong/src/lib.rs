//! Strong baselines: simple models that recent comparisons find hard to beat, to keep
//! the others honest. Today it holds EASE, the item-item linear autoencoder in closed form,
//! and RP3β, the three-step random walk on the user-item graph with a popularity penalty.
//!
//! | model | catalog name | score of (user u, item j) | source |
//! |---|---|---|---|
//! | [`Ease`] | `ease` | `(x_u·B)_j` | Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019 |
//! | [`Rp3Beta`] | `rp3beta` | `Σ_i X_ui W_ij` | Paudel, Christoffel, Newell & Bernstein, "Updatable, accurate, diverse, and scalable recommendations for interactive applications", ACM TiiS 2017 |
//!
//! EASE learns item-item weights `B` from the binary users × items training matrix `X`
//! (every training event counts 1, whatever its rating):
//!
//! ```text
//! B = argmin ‖X − X·B‖²_F + λ·‖B‖²_F   subject to  diag(B) = 0
//!
//! P = (XᵀX + λI)⁻¹
//! B = I − P · diagMat(1 ⊘ diag(P))      so  B_ij = −P_ij / P_jj  for i ≠ j,  B_jj = 0
//! ```
//!
//! The score of item `j` for a user with history row `x_u` is `(x_u·B)_j`. A user unseen in
//! training is folded in the same way from its history ([`recs_core::FoldInUser`]), and a
//! training user's own row folded in gives its training scores bit for bit.
//!
//! The design choice that shapes the crate: **the fit is exact linear algebra in a fixed
//! order, whatever the thread count**. `XᵀX` holds counts of users, exact in `f64` in any
//! order of addition; the inverse is a Cholesky factorisation `L Lᵀ`, then `L⁻¹`, then
//! `L⁻ᵀ L⁻¹`, each by faer with `Par::Seq`. The weights, hence the scores, are the same
//! bits at 1 and at many threads on a given machine (faer picks its vector width for the
//! processor, so another machine may round differently in the last bits).
//!
//! **Memory.** The model holds `B`, `n_items²` numbers of 8 bytes: 26,744 items
//! (MovieLens 20M) need 5.7 GB, 1,682 items (MovieLens 100K) 23 MB. The fit holds two
//! such matrices at its peak (the factor and its inverse; 11.4 GB at 26,744 items), and
//! its time grows as `n_items³` (the Cholesky factorisation, the triangular inverse and
//! the product: about `n_items³` multiply-adds in all). A catalog whose matrix cannot be
//! allocated is an error, not an abort, where the allocator says so.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_strong::EaseParams;
//!
//! // X = [1 0 0; 1 1 0; 0 1 1]; with λ = 1, XᵀX + λI = [3 1 0; 1 3 1; 0 1 2], whose
//! // inverse is [5 −2 1; −2 6 −3; 1 −3 8] / 13, so B = [0 1/3 −1/8; 2/5 0 3/8; −1/5 1/2 0].
//! let events = [
//!     Event::new(0, 0, 1.0),
//!     Event::new(1, 0, 1.0), Event::new(1, 1, 1.0),
//!     Event::new(2, 1, 1.0), Event::new(2, 2, 1.0),
//! ];
//! let train = Interactions::from_events(3, 3, events, DuplicatePolicy::Error)?;
//! let model = EaseParams::new(1.0)?.fit(&TrainData::new(&train, 42))?;
//! let mut scores = [0.0f32; 3];
//! model.score(1, &[0, 1, 2], &mut scores)?; // rows 0 and 1 of B added
//! for (score, expected) in scores.iter().zip([2.0 / 5.0, 1.0 / 3.0, -1.0 / 8.0 + 3.0 / 8.0]) {
//!     assert!((score - expected).abs() < 1e-6);
//! }
//! # Ok::<(), recs_core::RecsError>(())
//! ```
//!
//! RP3β (`src/rp3beta.rs` documents the paper's equation, the defaults and who chose
//! them) walks from a user to an item, to a user, to an item, with the binary `X`
//! (an event with a value > 0 counts 1) and every step probability raised to `α`; item
//! `j` is then penalised by its number of users to the power `β`:
//!
//! ```text
//! W_ij = (Σ_v pop(i)^−α · deg(v)^−α) / pop(j)^β   over the users v of items i and j,  W_ii = 0
//! ```
//!
//! Each row keeps its `neighbours` largest weights (the smaller item index on a tie at
//! the cut) and, with `normalize`, is divided by its sum. The same design choice holds:
//! each row of `W` is summed by one thread in a fixed order, so the weights and scores are
//! the same bits at any thread count. **Memory**: the kept weights, at most `n_items ×
//! neighbours` pairs of 12 bytes (32 MB at 26,744 items and 100 neighbours), plus the
//! training events; no items × items matrix is held.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_strong::Rp3BetaParams;
//!
//! // X = [1 1 0; 0 1 1]: deg = (2, 2), pop = (1, 2, 1). With α = 1 and β = 1,
//! // W_01 = (1/1)(1/2) / 2 = 1/4 and W_21 = 1/4; W_10 = W_12 = (1/2)(1/2) / 1 = 1/4.
//! // Normalised, rows 0 and 2 are [0 1 0], row 1 is [1/2 0 1/2].
//! let events = [
//!     Event::new(0, 0, 1.0), Event::new(0, 1, 1.0),
//!     Event::new(1, 1, 1.0), Event::new(1, 2, 1.0),
//! ];
//! let train = Interactions::from_events(2, 3, events, DuplicatePolicy::Error)?;
//! let model = Rp3BetaParams::new(1.0, 1.0, 100, true)?.fit(&TrainData::new(&train, 42))?;
//! let mut scores = [0.0f32; 3];
//! model.score(0, &[0, 1, 2], &mut scores)?; // rows 0 and 1 of W added
//! assert_eq!(scores, [0.5, 1.0, 0.5]);
//! # Ok::<(), recs_core::RecsError>(())
//! ```
#![deny(missing_docs)]

mod ease;
mod rp3beta;
#[cfg(test)]
mod test_data;

pub use ease::{Ease, EaseParams};
pub use rp3beta::{Rp3Beta, Rp3BetaParams};

use recs_core::{FitDyn, ModelEntry, ParamSpec, ParamValues, Result};

const EASE: &[ParamSpec] = &[ParamSpec {
    name: "lambda",
    default: "500",
    help: "L2 penalty λ > 0 on the item-item weights (Steck 2019); tune it per dataset",
}];

fn build_ease(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let lambda = values.get_or("lambda", EaseParams::DEFAULT_LAMBDA)?;
    Ok(Box::new(EaseParams::new(lambda)?))
}

const RP3BETA: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        default: "1",
        help: "exponent α > 0 of every step probability of the walk (ours: 1, the plain walk P³)",
    },
    ParamSpec {
        name: "beta",
        default: "0.5",
        help: "popularity penalty β ≥ 0: W_ij is divided by pop(j)^β (ours; tune it per dataset)",
    },
    ParamSpec {
        name: "neighbours",
        default: "100",
        help: "weights kept per item, ≥ 1; on a tie at the cut the smaller item index wins (ours)",
    },
    ParamSpec {
        name: "normalize",
        default: "true",
        help: "true: each kept row of W divided by its sum; false: kept as computed (ours)",
    },
];

fn build_rp3beta(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let alpha = values.get_or("alpha", Rp3BetaParams::DEFAULT_ALPHA)?;
    let beta = values.get_or("beta", Rp3BetaParams::DEFAULT_BETA)?;
    let neighbours = values.get_or("neighbours", Rp3BetaParams::DEFAULT_NEIGHBOURS)?;
    let normalize = values.get_or("normalize", Rp3BetaParams::DEFAULT_NORMALIZE)?;
    Ok(Box::new(Rp3BetaParams::new(alpha, beta, neighbours, normalize)?))
}

/// Every model of this crate, by the name the runner and the command line use.
pub fn catalog() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "ease",
            summary: "EASE (Steck 2019): item-item weights B = I − P·diagMat(1 ⊘ diag P), \
                      P = (XᵀX + λI)⁻¹ on binary X; scores x_u·B. Memory: items² × 8 bytes.",
            params: EASE,
            needs_attributes: false,
            build: build_ease,
        },
        ModelEntry {
            name: "rp3beta",
            summary: "RP3β (Paudel et al. 2017): three-step random walk user → item → user → \
                      item on binary X (value > 0), steps raised to α, item j divided by \
                      pop(j)^β; top neighbours per item, rows normalised. Memory: items × \
                      neighbours × 12 bytes.",
            params: RP3BETA,
            needs_attributes: false,
            build: build_rp3beta,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::RecsError;

    fn build(name: &str, pairs: &[&str]) -> Result<Box<dyn FitDyn>> {
        let entry = catalog().into_iter().find(|e| e.name == name).expect("catalogued");
        entry.build_checked(&ParamValues::parse(pairs)?)
    }

    fn refused(name: &str, pairs: &[&str]) -> String {
        match build(name, pairs) {
            Err(RecsError::InvalidParameter { name, .. }) => name,
            Err(other) => panic!("{pairs:?}: {other}"),
            Ok(_) => panic!("{pairs:?}: accepted"),
        }
    }

    #[test]
    fn the_catalog_refuses_invalid_rp3beta_parameters_naming_them() {
        assert_eq!(refused("rp3beta", &["alpha=0"]), "alpha");
        assert_eq!(refused("rp3beta", &["alpha=-1"]), "alpha");
        assert_eq!(refused("rp3beta", &["alpha=inf"]), "alpha");
        assert_eq!(refused("rp3beta", &["beta=-0.5"]), "beta");
        assert_eq!(refused("rp3beta", &["beta=NaN"]), "beta");
        assert_eq!(refused("rp3beta", &["neighbours=0"]), "neighbours");
        assert_eq!(refused("rp3beta", &["neighbours=-3"]), "neighbours");
        assert_eq!(refused("rp3beta", &["neighbours=2.5"]), "neighbours");
        assert_eq!(refused("rp3beta", &["normalize=yes"]), "normalize");
        assert_eq!(refused("rp3beta", &["gamma=1"]), "gamma");
        assert!(
            build("rp3beta", &["alpha=0.5", "beta=0", "neighbours=1", "normalize=false"]).is_ok()
        );
    }

    #[test]
    fn the_catalog_refuses_an_invalid_ease_lambda_naming_it() {
        assert_eq!(refused("ease", &["lambda=0"]), "lambda");
        assert!(build("ease", &["lambda=10"]).is_ok());
    }

    #[test]
    fn the_documented_defaults_are_the_constants() {
        let text = |specs: &[ParamSpec], name: &str| {
            specs.iter().find(|s| s.name == name).map(|s| s.default).expect("documented")
        };
        let parsed: f64 = text(RP3BETA, "alpha").parse().unwrap();
        assert_eq!(parsed, Rp3BetaParams::DEFAULT_ALPHA);
        let parsed: f64 = text(RP3BETA, "beta").parse().unwrap();
        assert_eq!(parsed, Rp3BetaParams::DEFAULT_BETA);
        let parsed: usize = text(RP3BETA, "neighbours").parse().unwrap();
        assert_eq!(parsed, Rp3BetaParams::DEFAULT_NEIGHBOURS);
        let parsed: bool = text(RP3BETA, "normalize").parse().unwrap();
        assert_eq!(parsed, Rp3BetaParams::DEFAULT_NORMALIZE);
        let parsed: f64 = text(EASE, "lambda").parse().unwrap();
        assert_eq!(parsed, EaseParams::DEFAULT_LAMBDA);
    }
}
