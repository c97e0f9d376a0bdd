//! The catalog of this crate's models, for the runner and the command line.

use recs_core::{FitDyn, ModelEntry, ParamSpec, ParamValues, RecsError, Result};

use crate::als::AlsParams;
use crate::aspect::{AspectAttrParams, AspectForm, AspectParams};
use crate::lpca::LpcaParams;
use crate::puresvd::PureSvdParams;

const PURESVD: &[ParamSpec] = &[ParamSpec {
    name: "rank",
    default: "50",
    help: "number of singular triplets L ≥ 1 (Cremonesi, Koren & Turrin 2010)",
}];
const LPCA: &[ParamSpec] = &[ParamSpec {
    name: "dims",
    default: "1",
    help: "latent dimensions |L| ≥ 0, fitted stagewise; 0 is item popularity (schein2005 §4.1)",
}];
/// The aspect models' parametrisation; both fit the same family of joint distributions.
const ASPECT_FORM: ParamSpec = ParamSpec {
    name: "form",
    default: "symmetric",
    help: "EM parametrisation: symmetric P(z)P(p|z)P(x|z) (Hofmann 1999's tempered EM) or \
           asymmetric P(p)P(z|p)P(x|z) (schein2005 eq. 5)",
};
/// The aspect models' tempering.
const ASPECT_BETA: ParamSpec = ParamSpec {
    name: "beta",
    default: "schedule",
    help: "tempering: `schedule` searches β = 1, 0.95, 0.95², … ≥ 0.5 on 10% of the training \
           cells (Hofmann 1999 §3.6; ours), a number in (0, 1] runs tempered EM at that β \
           alone, stopped on the same held-out cells",
};
/// The aspect models' stopping rule.
const ASPECT_STOPPING: ParamSpec = ParamSpec {
    name: "stopping",
    default: "held-out",
    help: "`held-out` ends each β phase when 10% of the training cells held out stop gaining \
           (Hofmann 1999 §3.6; ours); `converged` holds nothing out and runs EM at the fixed β \
           (1 with `beta=schedule`) on every training cell until the training likelihood has \
           stayed within 1e-5 of itself (relatively) for 25 iterations in a row, at most 300",
};
/// The share of training cells the schedule and the stopping rule hold out.
const ASPECT_HOLDOUT: ParamSpec = ParamSpec {
    name: "holdout",
    default: "0.1",
    help: "share of the training cells held out to judge each β phase and when it stops, in \
           [0, 1) (ours; 0 holds nothing out, as `stopping=converged`)",
};
/// The schedule's step of β.
const ASPECT_BETA_DECAY: ParamSpec = ParamSpec {
    name: "beta_decay",
    default: "0.95",
    help: "the schedule's step η: β ← η β down to 0.5, in (0, 1) (ours)",
};
const ASPECT: &[ParamSpec] = &[
    ParamSpec {
        name: "classes",
        default: "4",
        help: "latent classes ≥ 1 (schein2005 §6.1 chose 4 on MS Web)",
    },
    ASPECT_FORM,
    ASPECT_BETA,
    ASPECT_STOPPING,
    ASPECT_HOLDOUT,
    ASPECT_BETA_DECAY,
];
const ASPECT_ATTR: &[ParamSpec] = &[
    ParamSpec {
        name: "classes",
        default: "6",
        help: "latent classes ≥ 1 (schein2005 §6.2 chose 6 on MovieLens)",
    },
    ASPECT_FORM,
    ASPECT_BETA,
    ASPECT_STOPPING,
    ASPECT_HOLDOUT,
    ASPECT_BETA_DECAY,
    ParamSpec {
        name: "fold_in_iterations",
        default: "500",
        help: "most EM steps when an item is folded in from its attributes (schein2005 eqs. \
               7–8; ours): 500 runs to the fixed point (it stops once no class probability \
               moves by 1e-13), 1 is a single step from the class prior",
    },
];
const ALS: &[ParamSpec] = &[
    ParamSpec { name: "factors", default: "10", help: "number of factors ≥ 1 (ours)" },
    ParamSpec {
        name: "lambda",
        default: "0.1",
        help: "penalty > 0, scaled by each row's number of ratings (Zhou et al. 2008) unless \
               `penalty=plain`",
    },
    ParamSpec {
        name: "penalty",
        default: "weighted",
        help: "`weighted`: λ times the row's number of ratings (ALS-WR, Zhou et al. 2008); \
               `plain`: λ |x|² for every row",
    },
    ParamSpec {
        name: "history",
        default: "ratings",
        help: "what a folded-in user's history gives: `ratings`, or `ids` (every value read as \
               1, a recommender that receives item ids only)",
    },
];
const IALS: &[ParamSpec] = &[
    ParamSpec { name: "factors", default: "20", help: "number of factors ≥ 1 (ours)" },
    ParamSpec { name: "lambda", default: "0.1", help: "penalty > 0 (ours)" },
    ParamSpec {
        name: "alpha",
        default: "1",
        help: "confidence slope α ≥ 0, c = 1 + α r (Hu, Koren & Volinsky 2008 §4; their α = 40 \
               was for watching times: on 1–5 ratings it ranks below item popularity)",
    },
];

fn puresvd(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    Ok(Box::new(PureSvdParams::new(values.get_or("rank", PureSvdParams::DEFAULT_RANK)?)?))
}

fn lpca(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    Ok(Box::new(LpcaParams::new(values.get_or("dims", 1usize)?)))
}

/// The aspect parameters of `values` (`classes`, default `classes`; `form`, `beta`,
/// `stopping`, `holdout`, `beta_decay`).
fn aspect_params(values: &ParamValues, classes: usize) -> Result<AspectParams> {
    let form = match values.raw("form") {
        Some(text) => text.parse::<AspectForm>()?,
        None => AspectForm::default(),
    };
    let mut params = AspectParams::new(values.get_or("classes", classes)?)?.with_form(form);
    if values.raw("holdout").is_some() {
        params = params.with_holdout(values.get_or("holdout", 0.1f64)?)?;
    }
    if values.raw("beta_decay").is_some() {
        params = params.with_beta_schedule(values.get_or("beta_decay", 0.95f64)?, 0.5)?;
    }
    params = match values.raw("beta") {
        None | Some("schedule") => params,
        Some(_) => params.with_fixed_beta(values.get_or("beta", 1.0f64)?)?,
    };
    match values.raw("stopping") {
        None | Some("held-out") => Ok(params),
        // Nothing held out: EM on every training cell until its likelihood stops gaining.
        Some("converged") => params.with_holdout(0.0),
        Some(other) => {
            Err(RecsError::invalid_parameter("stopping", other, "held-out or converged"))
        }
    }
}

fn aspect(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    Ok(Box::new(aspect_params(values, 4)?))
}

fn aspect_attr(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let params = AspectAttrParams::new(aspect_params(values, 6)?);
    let iterations = values.get_or("fold_in_iterations", crate::aspect::FOLD_IN_ITERATIONS)?;
    Ok(Box::new(params.with_fold_in_iterations(iterations)?))
}

fn als(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    let mut params =
        AlsParams::explicit(values.get_or("factors", 10usize)?, values.get_or("lambda", 0.1f64)?)?;
    params = match values.raw("penalty") {
        None | Some("weighted") => params,
        Some("plain") => params.with_unweighted_lambda(),
        Some(other) => {
            return Err(RecsError::invalid_parameter("penalty", other, "weighted or plain"));
        }
    };
    match values.raw("history") {
        None | Some("ratings") => Ok(Box::new(params)),
        Some("ids") => Ok(Box::new(params.with_ids_only_history())),
        Some(other) => Err(RecsError::invalid_parameter("history", other, "ratings or ids")),
    }
}

fn ials(values: &ParamValues) -> Result<Box<dyn FitDyn>> {
    Ok(Box::new(AlsParams::implicit(
        values.get_or("factors", 20usize)?,
        values.get_or("lambda", 0.1f64)?,
        values.get_or("alpha", AlsParams::DEFAULT_ALPHA)?,
    )?))
}

/// Every model of this crate, by the name the runner and the command line use:
/// `puresvd`, `lpca`, `aspect`, `aspect-attr` (needs item attributes), `als`, `ials`.
pub fn catalog() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "puresvd",
            summary: "PureSVD: truncated SVD of the rating matrix, scores r_u V Vᵀ (Cremonesi et al. 2010)",
            params: PURESVD,
            needs_attributes: false,
            build: puresvd,
        },
        ModelEntry {
            name: "lpca",
            summary: "logistic PCA with an item bias, stagewise dimensions (Schein et al. 2003; schein2005 §4.1)",
            params: LPCA,
            needs_attributes: false,
            build: lpca,
        },
        ModelEntry {
            name: "aspect",
            summary: "person/item aspect model by tempered EM, scores P(p, m) (schein2005 §4.2.1)",
            params: ASPECT,
            needs_attributes: false,
            build: aspect,
        },
        ModelEntry {
            name: "aspect-attr",
            summary: "person/attribute aspect model, items folded in from attributes, scores P(p|m) (schein2005 §4.2.2–4.2.3)",
            params: ASPECT_ATTR,
            needs_attributes: true,
            build: aspect_attr,
        },
        ModelEntry {
            name: "als",
            summary: "matrix factorisation by ALS on observed ratings, the RMSE objective (fastml2015)",
            params: ALS,
            needs_attributes: false,
            build: als,
        },
        ModelEntry {
            name: "ials",
            summary: "implicit-feedback ALS with confidence weights (Hu, Koren & Volinsky 2008)",
            params: IALS,
            needs_attributes: false,
            build: ials,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::TrainData;

    /// `form` selects the parametrisation: the two forms give different scores, and an
    /// unknown name is refused with the known ones.
    #[test]
    fn the_aspect_form_is_a_parameter() {
        let (interactions, _) = recs_testkit::synthetic_data();
        let data = TrainData::new(&interactions, 1);
        let entry = catalog().into_iter().find(|e| e.name == "aspect").unwrap();
        // `params`: space-separated `key=value` pairs.
        let scores = |params: &str| {
            let values = ParamValues::parse(params.split_whitespace()).unwrap();
            let model = entry.build_checked(&values).unwrap().fit_dyn(&data).unwrap();
            let items: Vec<u32> = (0..interactions.n_items() as u32).collect();
            let mut out = vec![0.0; items.len()];
            model.score(0, &items, &mut out).unwrap();
            out
        };
        assert_ne!(scores("form=symmetric"), scores("form=asymmetric"));
        let bad = entry.build_checked(&ParamValues::parse(["form=skewed"]).unwrap());
        let message = bad.err().unwrap().to_string();
        assert!(message.contains("symmetric or asymmetric"), "{message}");
        // A fixed β is a fit of its own: it differs from the schedule and from another β,
        // and `beta=schedule` is the default.
        assert_eq!(scores("beta=schedule"), scores("form=symmetric"));
        assert_ne!(scores("beta=1"), scores("beta=0.6"));
        // The stopping rule is a fit of its own too, at a fixed β and with the schedule
        // (where `converged` is plain EM).
        assert_ne!(scores("beta=1"), scores("stopping=converged"));
        assert_eq!(scores("stopping=converged"), scores("beta=1 stopping=converged"));
        assert_ne!(scores("beta=0.6 stopping=converged"), scores("beta=0.6"));
    }

    /// `fold_in_iterations` bounds the folding-in of items from their attributes: the
    /// default (500) runs to the fixed point, so more steps change nothing, and one step
    /// from the class prior gives other scores.
    #[test]
    fn the_folding_in_length_is_a_parameter() {
        let (interactions, attributes) = recs_testkit::synthetic_data();
        let data = TrainData::new(&interactions, 1).with_attributes(&attributes).unwrap();
        let entry = catalog().into_iter().find(|e| e.name == "aspect-attr").unwrap();
        let scores = |params: &str| {
            let values = ParamValues::parse(params.split_whitespace()).unwrap();
            let model = entry.build_checked(&values).unwrap().fit_dyn(&data).unwrap();
            let items: Vec<u32> = (0..interactions.n_items() as u32).collect();
            let mut all = Vec::new();
            for user in 0..interactions.n_users() as u32 {
                let mut out = vec![0.0; items.len()];
                model.score(user, &items, &mut out).unwrap();
                all.extend(out);
            }
            all
        };
        // Two classes and plain EM: the synthetic data's two tastes separate.
        let converged = scores("classes=2 beta=1 stopping=converged");
        assert_eq!(converged, scores("classes=2 beta=1 stopping=converged fold_in_iterations=500"));
        assert_eq!(
            converged,
            scores("classes=2 beta=1 stopping=converged fold_in_iterations=5000")
        );
        assert_ne!(converged, scores("classes=2 beta=1 stopping=converged fold_in_iterations=1"));
    }

    #[test]
    fn every_entry_builds_with_defaults_and_fits_the_synthetic_data() {
        let (interactions, attributes) = recs_testkit::synthetic_data();
        let data = TrainData::new(&interactions, 1).with_attributes(&attributes).unwrap();
        let entries = catalog();
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        assert_eq!(names, ["puresvd", "lpca", "aspect", "aspect-attr", "als", "ials"]);
        for entry in &entries {
            let model = entry.build_checked(&ParamValues::new()).unwrap();
            let fitted = model.fit_dyn(&data).unwrap();
            assert_eq!(fitted.n_items(), interactions.n_items(), "{}", entry.name);
            // Defaults in the specs parse to the values the builders use.
            for spec in entry.params {
                let mut values = ParamValues::new();
                values.set(spec.name, spec.default);
                assert!(entry.build_checked(&values).is_ok(), "{} {}", entry.name, spec.name);
            }
        }
    }

    #[test]
    fn bad_values_are_errors() {
        let entries = catalog();
        let find = |name: &str| entries.iter().find(|e| e.name == name).unwrap();
        for (name, key, value) in [
            ("puresvd", "rank", "0"),
            ("puresvd", "rank", "x"),
            ("aspect", "classes", "0"),
            ("aspect", "beta", "0"),
            ("aspect-attr", "beta", "1.5"),
            ("aspect-attr", "fold_in_iterations", "0"),
            ("aspect", "beta", "warm"),
            ("aspect", "stopping", "early"),
            ("als", "lambda", "-1"),
            ("als", "penalty", "l1"),
            ("als", "history", "names"),
            ("ials", "alpha", "-2"),
            ("lpca", "dims", "-1"),
            ("als", "unknown", "1"),
        ] {
            let mut values = ParamValues::new();
            values.set(key, value);
            assert!(find(name).build_checked(&values).is_err(), "{name} {key}={value}");
        }
        let needs: Vec<&str> =
            entries.iter().filter(|e| e.needs_attributes).map(|e| e.name).collect();
        assert_eq!(needs, ["aspect-attr"]);
    }
}
