//! Every latent-factor model passes the shared conformance suite of `recs-testkit`.

use recs_models_latent::{
    AlsParams, AspectAttrParams, AspectForm, AspectParams, LpcaFit, LpcaParams, PureSvdParams,
    SvdSolver,
};
use recs_testkit::conformance_test;

conformance_test!(explicit_als_conforms, AlsParams::explicit(3, 0.1).unwrap());
conformance_test!(implicit_als_conforms, AlsParams::implicit(3, 0.1, 40.0).unwrap());
conformance_test!(aspect_conforms, AspectParams::new(2).unwrap());
conformance_test!(
    aspect_asymmetric_conforms,
    AspectParams::new(3).unwrap().with_form(AspectForm::Asymmetric)
);
conformance_test!(aspect_attr_conforms, AspectAttrParams::new(AspectParams::new(2).unwrap()));
conformance_test!(lpca_conforms, LpcaParams::new(2));
conformance_test!(lpca_popularity_conforms, LpcaParams::new(0));
conformance_test!(lpca_joint_conforms, LpcaParams::new(2).with_fit(LpcaFit::Joint));
conformance_test!(puresvd_conforms, PureSvdParams::new(3).unwrap());
conformance_test!(
    puresvd_lanczos_conforms,
    PureSvdParams::new(3).unwrap().with_solver(SvdSolver::Lanczos)
);

recs_testkit::catalog_conformance_test!(catalog_conforms, recs_models_latent::catalog());
