//! Strong baselines: simple models that recent comparisons find hard to beat, to keep
//! the others honest. Today it holds EASE, the item-item linear autoencoder in closed form.
//!
//! | model | catalog name | score of (user u, item j) | source |
//! |---|---|---|---|
//! | [`Ease`] | `ease` | `(x_u·B)_j` | Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019 |
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
#![deny(missing_docs)]

mod ease;

pub use ease::{Ease, EaseParams};

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

/// Every model of this crate, by the name the runner and the command line use.
pub fn catalog() -> Vec<ModelEntry> {
    vec![ModelEntry {
        name: "ease",
        summary: "EASE (Steck 2019): item-item weights B = I − P·diagMat(1 ⊘ diag P), \
                  P = (XᵀX + λI)⁻¹ on binary X; scores x_u·B. Memory: items² × 8 bytes.",
        params: EASE,
        needs_attributes: false,
        build: build_ease,
    }]
}
