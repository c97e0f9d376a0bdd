//! Both Bayesian models pass the shared conformance suite of `recs-testkit`.

use recs_models_bayes::{
    NaiveBayesParams, NaiveBayesScore, NaiveBayesianNetworkParams, UnseenAttributes,
};
use recs_testkit::conformance_test;

conformance_test!(naive_bayes_conforms, NaiveBayesParams::new());
conformance_test!(
    naive_bayes_expected_ignored_conforms,
    NaiveBayesParams::new()
        .score(NaiveBayesScore::Expected)
        .unseen_attributes(UnseenAttributes::Ignored)
);
conformance_test!(nbn_conforms, NaiveBayesianNetworkParams::new());
conformance_test!(nbn_laplace_conforms, NaiveBayesianNetworkParams::new().alpha(1.0));

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_bayes::catalog());
