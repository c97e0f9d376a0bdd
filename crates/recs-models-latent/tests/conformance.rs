//! Every latent-factor model passes the shared conformance suite of `recs-testkit`.

use recs_models_latent::{
    AlsParams, AspectAttrParams, AspectForm, AspectParams, LpcaFit, LpcaParams, PureSvdParams,
    SvdSolver,
};
use recs_testkit::{Options, conformance_test};

/// The aspect model folds a person in by plain EM over `P(z|p)` run to its fixed point
/// (no class probability moving by 1e-13). Training runs tempered EM and keeps the
/// iterate with the best held-out likelihood, so a training person's `P(z|p)` is that
/// fixed point only where training ran plain EM to convergence: with two classes on the
/// suite's data it does (largest difference 5.3e-12 of the user's largest score, from
/// the two stopping rules), elsewhere (β < 1, or an early stop) it is not.
const ASPECT_AT_FIXED_POINT: Options = Options::fold_in_within(
    1e-9,
    "training's plain EM and fold-in's EM stop near the same fixed point by different rules",
);
const ASPECT_TEMPERED: Options = Options::fold_in_exempt(
    "by design: training keeps a tempered, early-stopped EM iterate; fold-in runs plain EM \
     to its fixed point",
);
/// Logistic PCA folds a person in by maximising its likelihood over all its coordinates
/// with `V` and `Δ` fixed, up to 2,000 updates. Training fits the coordinates stagewise
/// (earlier dimensions fixed) or jointly, and stops on a likelihood gain; without a
/// penalty a person whose row the items separate has no finite optimum, so training and
/// fold-in stop at different points on the way to it (on the suite's data more sweeps do
/// not bring them together).
const LPCA: Options = Options::fold_in_exempt(
    "by design: fold-in maximises an unpenalised likelihood that training stops short of, \
     and stagewise training never re-fits earlier dimensions",
);

conformance_test!(explicit_als_conforms, AlsParams::explicit(3, 0.1).unwrap());
conformance_test!(implicit_als_conforms, AlsParams::implicit(3, 0.1, 40.0).unwrap());
conformance_test!(aspect_conforms, AspectParams::new(2).unwrap(), ASPECT_AT_FIXED_POINT);
conformance_test!(
    aspect_asymmetric_conforms,
    AspectParams::new(3).unwrap().with_form(AspectForm::Asymmetric),
    ASPECT_TEMPERED
);
conformance_test!(aspect_attr_conforms, AspectAttrParams::new(AspectParams::new(2).unwrap()));
conformance_test!(lpca_conforms, LpcaParams::new(2), LPCA);
// No dimensions: training and fold-in both score the item biases alone, bit for bit.
conformance_test!(lpca_popularity_conforms, LpcaParams::new(0));
conformance_test!(lpca_joint_conforms, LpcaParams::new(2).with_fit(LpcaFit::Joint), LPCA);
conformance_test!(puresvd_conforms, PureSvdParams::new(3).unwrap());
conformance_test!(
    puresvd_lanczos_conforms,
    PureSvdParams::new(3).unwrap().with_solver(SvdSolver::Lanczos)
);

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_latent::catalog(), [
    "aspect" => ASPECT_TEMPERED,
    "lpca" => LPCA,
]);
