//! Every strong baseline passes the shared conformance suite of `recs-testkit`.

use recs_models_strong::{BprParams, EaseParams, Rp3BetaParams, SlimParams};

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_strong::catalog());
recs_testkit::conformance_test!(ease_conforms, EaseParams::default());
// A small penalty on the 12 × 10 synthetic data: weights far from zero.
recs_testkit::conformance_test!(ease_small_lambda_conforms, EaseParams::new(0.5).unwrap());
recs_testkit::conformance_test!(rp3beta_conforms, Rp3BetaParams::default());
// Three neighbours of the synthetic data's 10 items, so the cut drops weights; α ≠ 1 and
// rows as computed, so the exponent and the unnormalised path are checked as well.
recs_testkit::conformance_test!(
    rp3beta_cut_unnormalised_conforms,
    Rp3BetaParams::new(0.7, 0.8, 3, false).unwrap()
);
recs_testkit::conformance_test!(slim_conforms, SlimParams::default());
// Pure ℓ1 with three candidates per column (fsSLIM) and two passes at most, so the cut,
// the lasso end of the penalty and columns stopped by max_iterations are checked as well.
recs_testkit::conformance_test!(
    slim_lasso_cut_conforms,
    SlimParams::new(0.05, 1.0)
        .and_then(|p| p.with_neighbours(Some(3)))
        .and_then(|p| p.with_max_iterations(2))
        .unwrap()
);
recs_testkit::conformance_test!(bpr_conforms, BprParams::default());
// Without the item bias, two factors and one epoch: the path without bias, and a fit that
// stops early, are checked as well.
recs_testkit::conformance_test!(
    bpr_unbiased_short_conforms,
    BprParams::new(2, 0.1, 0.01, 1, false).unwrap()
);
