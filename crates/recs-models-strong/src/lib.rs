//! Strong baselines: simple models that recent comparisons find hard to beat, to keep
//! the others honest. Today it holds EASE, the item-item linear autoencoder in closed form,
//! RP3β, the three-step random walk on the user-item graph with a popularity penalty,
//! SLIM, sparse non-negative item-item regressions, and BPR-MF, matrix factorisation
//! fitted to rank each user's items above the others.
//!
//! | model | catalog name | score of (user u, item j) | source |
//! |---|---|---|---|
//! | [`Ease`] | `ease` | `(x_u·B)_j` | Steck, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW 2019 |
//! | [`Rp3Beta`] | `rp3beta` | `Σ_i X_ui W_ij` | Paudel, Christoffel, Newell & Bernstein, "Updatable, accurate, diverse, and scalable recommendations for interactive applications", ACM TiiS 2017 |
//! | [`Slim`] | `slim` | `Σ_i X_ui W_ij` | Ning & Karypis, "SLIM: Sparse Linear Methods for Top-N Recommender Systems", ICDM 2011 |
//! | [`Bpr`] | `bpr` | `p_u·q_j + b_j` | Rendle, Freudenthaler, Gantner & Schmidt-Thieme, "BPR: Bayesian Personalized Ranking from Implicit Feedback", UAI 2009 |
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
//!
//! SLIM (`src/slim.rs` documents the paper's equation, the solver, the defaults and who
//! chose them) learns `W` from the same binary `X` (an event with a value > 0 counts 1),
//! one elastic net per item `j`, with the penalties in scikit-learn's `ElasticNet` scaling
//! (`λ = alpha·l1_ratio·n_users`, `β = alpha·(1 − l1_ratio)·n_users`):
//!
//! ```text
//! w_j = argmin ½‖x_j − X w‖² + (β/2)‖w‖² + λ‖w‖₁   subject to  w ≥ 0,  w_j = 0
//! ```
//!
//! solved by cyclic coordinate descent over the items sharing a user with `j` (or the
//! `neighbours` sharing the most, fsSLIM), in increasing item order. The same design
//! choice holds: each column of `W` is solved by one thread in a fixed order, so the
//! weights and scores are the same bits at any thread count. **Memory**: the non-zero
//! weights, 12 bytes each (84,446 on MovieLens 100K with the defaults: 1 MB), plus the
//! training events; no items × items matrix is held.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_strong::SlimParams;
//!
//! // Items 0 and 1 have the same users; item 2 shares user 1 with them. With 4 users,
//! // alpha = 0.05 and l1_ratio = 0.5 give λ = β = 0.1. Column 1: w_0 = (3 − λ)/(3 + β)
//! // = 29/31, and the residual 2/31 it leaves on user 1 is below λ, so w_2 = 0.
//! // Column 2: by symmetry w_0 = w_1 = w with w = (1 − 3w − λ)/(3 + β), so w = 9/61.
//! let rows: [&[u32]; 4] = [&[0, 1], &[0, 1, 2], &[2], &[0, 1]];
//! let events = rows.iter().enumerate().flat_map(|(u, items)| {
//!     items.iter().map(move |&i| Event::new(u as u32, i, 1.0))
//! });
//! let train = Interactions::from_events(4, 3, events, DuplicatePolicy::Error)?;
//! // Two identical candidates make column 2's descent slow (each pass closes only 1 −
//! // (3/3.1)² of the gap), hence a tight tolerance and many passes for the exact value.
//! let params = SlimParams::new(0.05, 0.5)?.with_tolerance(1e-12)?.with_max_iterations(1000)?;
//! let model = params.fit(&TrainData::new(&train, 42))?;
//! let mut scores = [0.0f32; 3];
//! model.score(0, &[0, 1, 2], &mut scores)?; // rows 0 and 1 of W added
//! for (score, expected) in scores.iter().zip([29.0 / 31.0, 29.0 / 31.0, 18.0 / 61.0]) {
//!     assert!((f64::from(*score) - expected).abs() < 1e-6);
//! }
//! # Ok::<(), recs_core::RecsError>(())
//! ```
//!
//! BPR-MF (`src/bpr.rs` documents the paper's criterion and updates, the defaults and who
//! chose them) factorises the same binary `X` (an event with a value > 0 counts 1) into
//! user factors `P`, item factors `Q` and an item bias `b`, fitted by the paper's
//! LearnBPR: stochastic gradient ascent on `ln σ(x̂_ui − x̂_uj) − λ‖Θ‖²` over triples of a
//! user, one of its items `i` and an item `j` it has not met, drawn uniformly. The design
//! choice holds in its own way: the SGD is sequential by design, so the fit samples and
//! updates in one thread in one seeded order, and the same seed gives the same bits at any
//! thread count. It offers no fold-in of unseen users (`src/bpr.rs` says why). **Memory**:
//! `(n_users + n_items) × factors` numbers of 8 bytes, plus the training events.
//!
//! ```
//! use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
//! use recs_models_strong::BprParams;
//!
//! // Two blocks: users 0 and 1 meet items 0 and 1, users 2 and 3 items 2 and 3, each user
//! // one item of its block. User 0 should rank item 1 (its block) above items 2 and 3.
//! let events = [
//!     Event::new(0, 0, 1.0), Event::new(1, 0, 1.0), Event::new(1, 1, 1.0),
//!     Event::new(2, 2, 1.0), Event::new(3, 2, 1.0), Event::new(3, 3, 1.0),
//! ];
//! let train = Interactions::from_events(4, 4, events, DuplicatePolicy::Error)?;
//! let model = BprParams::new(4, 0.05, 0.0025, 500, true)?.fit(&TrainData::new(&train, 42))?;
//! let mut scores = [0.0f32; 3];
//! model.score(0, &[1, 2, 3], &mut scores)?;
//! assert!(scores[0] > scores[1] && scores[0] > scores[2], "{scores:?}");
//! # Ok::<(), recs_core::RecsError>(())
//! ```
#![deny(missing_docs)]

mod bpr;
mod ease;
mod graph;
mod item_item;
mod rp3beta;
mod slim;
#[cfg(test)]
mod test_data;

pub use bpr::{Bpr, BprParams};
pub use ease::{Ease, EaseParams};
pub use rp3beta::{Rp3Beta, Rp3BetaParams};
pub use slim::{Slim, SlimParams};

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

const SLIM: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        default: "0.1",
        help: "overall penalty > 0 in scikit-learn's ElasticNet scaling: the paper's \
               λ = alpha·l1_ratio·n_users, β = alpha·(1 − l1_ratio)·n_users (ours; tune it)",
    },
    ParamSpec {
        name: "l1_ratio",
        default: "0.03",
        help: "share of the penalty that is ℓ1, in [0, 1] (ours)",
    },
    ParamSpec {
        name: "tolerance",
        default: "0.0001",
        help: "a column stops once a pass changes no weight by more than tolerance × its \
               largest weight, ≥ 0 (scikit-learn's default tol, without its duality gap)",
    },
    ParamSpec {
        name: "max_iterations",
        default: "100",
        help: "coordinate-descent passes per column at most, ≥ 1 (ours)",
    },
    ParamSpec {
        name: "neighbours",
        default: "none",
        help: "none: every item sharing a user is a candidate of a column; k ≥ 1: only the \
               k sharing the most users, the smaller index on a tie (fsSLIM; ours: off)",
    },
];

fn build_slim(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let alpha = values.get_or("alpha", SlimParams::DEFAULT_ALPHA)?;
    let l1_ratio = values.get_or("l1_ratio", SlimParams::DEFAULT_L1_RATIO)?;
    let tolerance = values.get_or("tolerance", SlimParams::DEFAULT_TOLERANCE)?;
    let max_iterations = values.get_or("max_iterations", SlimParams::DEFAULT_MAX_ITERATIONS)?;
    let neighbours = match values.raw("neighbours") {
        None | Some("none") => None,
        Some(_) => Some(values.get_or("neighbours", 0usize)?),
    };
    let params = SlimParams::new(alpha, l1_ratio)?
        .with_tolerance(tolerance)?
        .with_max_iterations(max_iterations)?
        .with_neighbours(neighbours)?;
    Ok(Box::new(params))
}

const BPR: &[ParamSpec] = &[
    ParamSpec {
        name: "factors",
        default: "64",
        help: "latent factors k ≥ 1 per user and per item (ours)",
    },
    ParamSpec {
        name: "learning_rate",
        default: "0.05",
        help: "SGD step α > 0 of LearnBPR (Rendle et al. 2009, Algorithm 1; ours: 0.05)",
    },
    ParamSpec {
        name: "lambda",
        default: "0.0025",
        help: "penalty λ ≥ 0 on the user and item factors and the item bias alike (ours)",
    },
    ParamSpec {
        name: "epochs",
        default: "30",
        help: "epochs ≥ 1, each as many sampled triples (u, i, j) as training events (ours)",
    },
    ParamSpec {
        name: "bias",
        default: "true",
        help: "true: an item bias b_i in x̂_ui = p_u·q_i + b_i; false: none, as in the paper",
    },
];

fn build_bpr(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let factors = values.get_or("factors", BprParams::DEFAULT_FACTORS)?;
    let learning_rate = values.get_or("learning_rate", BprParams::DEFAULT_LEARNING_RATE)?;
    let lambda = values.get_or("lambda", BprParams::DEFAULT_LAMBDA)?;
    let epochs = values.get_or("epochs", BprParams::DEFAULT_EPOCHS)?;
    let bias = values.get_or("bias", BprParams::DEFAULT_BIAS)?;
    Ok(Box::new(BprParams::new(factors, learning_rate, lambda, epochs, bias)?))
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
        ModelEntry {
            name: "slim",
            summary: "SLIM (Ning & Karypis 2011): sparse non-negative item-item weights W, \
                      one elastic-net regression x_j ≈ X w_j per item (w_jj = 0) on binary X \
                      (value > 0) by coordinate descent; scores x_u·W. Memory: non-zero \
                      weights × 12 bytes.",
            params: SLIM,
            needs_attributes: false,
            build: build_slim,
        },
        ModelEntry {
            name: "bpr",
            summary: "BPR-MF (Rendle et al. 2009): x̂_ui = p_u·q_i + b_i on binary X (value > \
                      0), fitted by LearnBPR, sequential seeded SGD on ln σ(x̂_ui − x̂_uj) over \
                      sampled triples (u, i, j). Memory: (users + items) × factors × 8 bytes.",
            params: BPR,
            needs_attributes: false,
            build: build_bpr,
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
    fn the_catalog_refuses_invalid_slim_parameters_naming_them() {
        assert_eq!(refused("slim", &["alpha=0"]), "alpha");
        assert_eq!(refused("slim", &["alpha=-0.1"]), "alpha");
        assert_eq!(refused("slim", &["alpha=inf"]), "alpha");
        assert_eq!(refused("slim", &["l1_ratio=-0.5"]), "l1_ratio");
        assert_eq!(refused("slim", &["l1_ratio=1.5"]), "l1_ratio");
        assert_eq!(refused("slim", &["l1_ratio=NaN"]), "l1_ratio");
        assert_eq!(refused("slim", &["tolerance=-1e-4"]), "tolerance");
        assert_eq!(refused("slim", &["tolerance=inf"]), "tolerance");
        assert_eq!(refused("slim", &["max_iterations=0"]), "max_iterations");
        assert_eq!(refused("slim", &["max_iterations=2.5"]), "max_iterations");
        assert_eq!(refused("slim", &["neighbours=0"]), "neighbours");
        assert_eq!(refused("slim", &["neighbours=-3"]), "neighbours");
        assert_eq!(refused("slim", &["neighbours=all"]), "neighbours");
        assert_eq!(refused("slim", &["lambda=1"]), "lambda");
        assert!(build("slim", &["neighbours=none"]).is_ok());
        assert!(
            build(
                "slim",
                &["alpha=1", "l1_ratio=1", "tolerance=0", "max_iterations=1", "neighbours=5"]
            )
            .is_ok()
        );
        assert!(build("slim", &["l1_ratio=0"]).is_ok());
    }

    #[test]
    fn the_catalog_refuses_invalid_bpr_parameters_naming_them() {
        assert_eq!(refused("bpr", &["factors=0"]), "factors");
        assert_eq!(refused("bpr", &["factors=-2"]), "factors");
        assert_eq!(refused("bpr", &["factors=2.5"]), "factors");
        assert_eq!(refused("bpr", &["learning_rate=0"]), "learning_rate");
        assert_eq!(refused("bpr", &["learning_rate=-0.1"]), "learning_rate");
        assert_eq!(refused("bpr", &["learning_rate=inf"]), "learning_rate");
        assert_eq!(refused("bpr", &["lambda=-1"]), "lambda");
        assert_eq!(refused("bpr", &["lambda=NaN"]), "lambda");
        assert_eq!(refused("bpr", &["epochs=0"]), "epochs");
        assert_eq!(refused("bpr", &["epochs=1.5"]), "epochs");
        assert_eq!(refused("bpr", &["bias=maybe"]), "bias");
        assert_eq!(refused("bpr", &["alpha=1"]), "alpha");
        assert!(
            build(
                "bpr",
                &["factors=1", "learning_rate=0.01", "lambda=0", "epochs=1", "bias=false"]
            )
            .is_ok()
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
        let parsed: f64 = text(SLIM, "alpha").parse().unwrap();
        assert_eq!(parsed, SlimParams::DEFAULT_ALPHA);
        let parsed: f64 = text(SLIM, "l1_ratio").parse().unwrap();
        assert_eq!(parsed, SlimParams::DEFAULT_L1_RATIO);
        let parsed: f64 = text(SLIM, "tolerance").parse().unwrap();
        assert_eq!(parsed, SlimParams::DEFAULT_TOLERANCE);
        let parsed: usize = text(SLIM, "max_iterations").parse().unwrap();
        assert_eq!(parsed, SlimParams::DEFAULT_MAX_ITERATIONS);
        assert_eq!(text(SLIM, "neighbours"), "none");
        assert_eq!(SlimParams::DEFAULT_NEIGHBOURS, None);
        let parsed: usize = text(BPR, "factors").parse().unwrap();
        assert_eq!(parsed, BprParams::DEFAULT_FACTORS);
        let parsed: f64 = text(BPR, "learning_rate").parse().unwrap();
        assert_eq!(parsed, BprParams::DEFAULT_LEARNING_RATE);
        let parsed: f64 = text(BPR, "lambda").parse().unwrap();
        assert_eq!(parsed, BprParams::DEFAULT_LAMBDA);
        let parsed: usize = text(BPR, "epochs").parse().unwrap();
        assert_eq!(parsed, BprParams::DEFAULT_EPOCHS);
        let parsed: bool = text(BPR, "bias").parse().unwrap();
        assert_eq!(parsed, BprParams::DEFAULT_BIAS);
    }
}

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
