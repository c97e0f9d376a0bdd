//! Every strong baseline passes the shared conformance suite of `recs-testkit`.

use recs_models_strong::EaseParams;

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_strong::catalog());
recs_testkit::conformance_test!(ease_conforms, EaseParams::default());
// A small penalty on the 12 × 10 synthetic data: weights far from zero.
recs_testkit::conformance_test!(ease_small_lambda_conforms, EaseParams::new(0.5).unwrap());
