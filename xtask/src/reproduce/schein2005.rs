//! `cargo xtask reproduce schein2005`: Schein, Popescul, Ungar & Pennock (2005), "CROC: A
//! New Evaluation Criterion for Recommender Systems", end to end on the real data.
//!
//! Experiments (ids as in `report.json`), each a runner configuration in
//! `xtask/experiments/schein2005/`:
//! - `fig3-msweb` — MS Web, hot start, implicit rating prediction (§6.1, Figure 3): LPCA,
//!   the aspect model, the user/item popularity regression, item popularity and random;
//!   ROC points every 156,898 predictions, CROC every 5 vroots per person.
//! - `fig3-msweb-separate-people` — the same models on MS Web's test cases read as new
//!   people (as the UCI description says), each folded in from all its visits but one and
//!   judged on the one held out, with the parameters `fig3-msweb` chose.
//! - `fig4-ml-implicit` — MovieLens 100K, 331 cold-start movies, implicit (§6.2, Figure 4):
//!   the person/actor aspect model with folding-in against user popularity; ROC every
//!   7,803, CROC every 15.
//! - `fig5-ml-conditional` — the same split, conditional rating prediction (rating ≥ 4) for
//!   users with at least 40 training ratings (§6.3, Figure 5): per-user naive Bayes on actors
//!   against the user's mean rating; ROC every 425, CROC every 2.
//! - `fig5-ml-sparse-users` — the same for the users Figure 5 leaves out, those below 40
//!   training ratings, where §6.3 says naive Bayes is sensitive to sparsity (claim C5).
//! - §7.3 side metrics — MAE (eq. 11) on each model's probability scale, over the test
//!   events and over all candidates, MAE on ratings for Figure 5 ([`side`]), and Breese's
//!   half-life utility R (α = 5), in each experiment's table and in claims E1 and E2.
//! - `thm1-random`, `thm1-random-uneven` — the random recommender's exact expected CROC
//!   curve against a Monte-Carlo simulation (band and one run) on the cold-start
//!   judgments (Theorem 1: the diagonal) and on the conditional ones, where users have
//!   unequal numbers of candidates ([`random`]).
//!
//! LPCA's |L| is chosen by the runner's model selection on a partition of the training data
//! only, by CROC AUC there (the criterion the paper argues for; it does not say which one
//! its own validation used). The aspect models are run at the class counts the paper
//! reports its validation chose (4 on MS Web, 6 on MovieLens); the same selection on our
//! split gives another aspect model of each, run as an end of the fit. The validation
//! tables, with ROC AUC too, are in the report next to the paper's choices.

use std::collections::BTreeMap;

use anyhow::{Context, Result, ensure};
use recs_bench::report::{CurveKind, Table};
use recs_bench::{ExperimentRun, ModelCurve, ModelResults, ProtocolChoice, Results, Session};
use recs_core::Judgments;
use recs_split::Given;
use serde_json::json;

use super::{Lines, Options, finish, unevaluated_claims};

mod claims;
mod fits;
mod ids;
mod random;
mod side;
mod ties;

/// The paper's name, as `cargo xtask reproduce` takes it.
const PAPER: &str = "schein2005";
/// MS Web candidates under the paper's reading (32,711 × 286 − 98,654).
pub(crate) const FIG3_CANDIDATES: u64 = 9_256_692;
/// Candidates of the test cases read as new people: for each case with at least two
/// visits, every vroot but the visits left visible (all but one), whichever one is held out.
pub(crate) const SEPARATE_CANDIDATES: u64 = 977_367;
/// MovieLens cold-start candidates (943 × 331).
pub(crate) const FIG4_CANDIDATES: u64 = 312_133;
/// Report key of Breese's half-life utility with α = 5.
const HALF_LIFE_KEY: &str = "half_life@5";

/// Labels of the models the claims read (as in the experiment files).
const LPCA: &str = "lpca";
/// The aspect model at the paper's class count (4), as the claims read it.
const ASPECT: &str = "aspect";
/// The aspect model with its classes chosen by the paper's procedure (validation) on our
/// split: an end of the fit the claims are run at.
const ASPECT_VALIDATED: &str = "aspect (classes by validation)";
const REGRESSION: &str = "user/item popularity regression";
const RANDOM: &str = "random";
/// The person/actor aspect model at the paper's class count (6), as the claims read it.
const ASPECT_ATTR: &str = "person/actor aspect";
/// The person/actor aspect model with its classes chosen by validation on our split.
const ASPECT_ATTR_VALIDATED: &str = "person/actor aspect (classes by validation)";
const USER_POP: &str = "user popularity";
const NAIVE_BAYES: &str = "naive Bayes on actors";
const USER_MEAN: &str = "user mean rating";
/// S4's placebo: the regression with another training person's activity.
const REGRESSION_PLACEBO: &str = "regression, another person's activity";
/// The ends of the aspect model's fit within the paper's procedure (tempered EM as reference 15
/// describes it): its classes by our validation, and at the paper's class count the ends
/// of our settings (the held-out share and the step of β), as (label, the end in words).
const ASPECT_VARIANTS: [(&str, &str); 3] = [
    (ASPECT_VALIDATED, "MS Web aspect: classes chosen by validation on our split, β searched"),
    (
        "aspect (4 classes, 20% held out, η = 0.9)",
        "MS Web aspect: 4 classes, 20% held out, β ← 0.9 β",
    ),
    (
        "aspect (4 classes, 5% held out, η = 0.98)",
        "MS Web aspect: 4 classes, 5% held out, β ← 0.98 β",
    ),
];
/// Fits of the aspect model by procedures other than the paper's, named after results:
/// every corner of tempering (β = 1, β = 0.6 fixed) × stopping (on held-out cells, at
/// convergence), shown and not deciding.
const ASPECT_OTHER_FITS: [(&str, &str); 4] = [
    (
        "aspect (4 classes, β = 1, stopped)",
        "MS Web aspect: 4 classes, β = 1 (plain EM) stopped on held-out cells",
    ),
    (
        "aspect (4 classes, β = 1, converged)",
        "MS Web aspect: 4 classes, β = 1 (plain EM) to convergence",
    ),
    (
        "aspect (4 classes, β = 0.6, stopped)",
        "MS Web aspect: 4 classes, β = 0.6 stopped on held-out cells",
    ),
    ("aspect (4 classes, β = 0.6, converged)", "MS Web aspect: 4 classes, β = 0.6 to convergence"),
];
/// The person/actor aspect model's ends within the paper's procedure, as for the aspect
/// model.
const ASPECT_ATTR_VARIANTS: [(&str, &str); 3] = [
    (
        ASPECT_ATTR_VALIDATED,
        "person/actor aspect: classes chosen by validation on our split, β searched",
    ),
    (
        "person/actor aspect (6 classes, 20% held out, η = 0.9)",
        "person/actor aspect: 6 classes, 20% held out, β ← 0.9 β",
    ),
    (
        "person/actor aspect (6 classes, 5% held out, η = 0.98)",
        "person/actor aspect: 6 classes, 5% held out, β ← 0.98 β",
    ),
];
/// The person/actor aspect model fitted by other procedures, as for the aspect model.
const ASPECT_ATTR_OTHER_FITS: [(&str, &str); 4] = [
    (
        "person/actor aspect (6 classes, β = 1, stopped)",
        "person/actor aspect: 6 classes, β = 1 (plain EM) stopped on held-out cells",
    ),
    (
        "person/actor aspect (6 classes, β = 1, converged)",
        "person/actor aspect: 6 classes, β = 1 (plain EM) to convergence",
    ),
    (
        "person/actor aspect (6 classes, β = 0.6, stopped)",
        "person/actor aspect: 6 classes, β = 0.6 stopped on held-out cells",
    ),
    (
        "person/actor aspect (6 classes, β = 0.6, converged)",
        "person/actor aspect: 6 classes, β = 0.6 to convergence",
    ),
];
/// The person/actor aspect model at the paper's fit, its test movies folded in by one EM
/// step from the class prior: the other end of folding-in's length.
const ASPECT_ATTR_ONE_STEP: &str = "person/actor aspect (folded in by one step)";
/// Naive Bayes scoring by its expected rating: the other end of how eq. 10 becomes a score.
const NAIVE_BAYES_EXPECTED: &str = "naive Bayes on actors (expected rating)";
/// Naive Bayes scoring by its most probable rating (the third end of its score, named after
/// a referee's run).
const NAIVE_BAYES_MOST_PROBABLE: &str = "naive Bayes on actors (most probable rating)";

pub(crate) fn run(options: &Options) -> Result<()> {
    let lines = Lines::new();
    let session = options.session();
    let experiment = |name: &str, keep_judgments: bool| -> Result<ExperimentRun> {
        let mut plan = options.plan(PAPER, name)?;
        for measure in side::probability_maes() {
            plan = plan.with_measure(measure)?;
        }
        if name == "fig5-ml-conditional" {
            plan = plan.with_measure(side::rating_mae())?;
            for measure in random::uneven_measures() {
                plan = plan.with_measure(measure)?;
            }
        }
        if name.starts_with("fig3-msweb") {
            for measure in ties::measures() {
                plan = plan.with_measure(measure)?;
            }
        }
        if keep_judgments {
            plan = plan.keep_judgments();
        }
        lines.say(format!("{name}: running"));
        let run = session.run(&plan, &lines)?;
        for model in run.results.models() {
            lines.say(format!(
                "{name}: {}{}: ROC AUC {:.4}, CROC AUC {:.4}",
                model.label(),
                Some(params_text(model))
                    .filter(|p| !p.is_empty())
                    .map_or(String::new(), |p| format!(" {p}")),
                exact_auc(model, CurveKind::Roc),
                exact_auc(model, CurveKind::Croc)
            ));
        }
        Ok(run)
    };
    let mut fig3 = experiment("fig3-msweb", false)?;
    let separate = SEPARATE
        .iter()
        .map(|reading| separate_people(options, &session, &lines, &fig3.results, reading))
        .collect::<Result<Vec<_>>>()?;
    let mut fig4 = experiment("fig4-ml-implicit", true)?;
    let mut fig5 = experiment("fig5-ml-conditional", true)?;
    let mut sparse = experiment("fig5-ml-sparse-users", false)?;
    for (run, expected) in
        [(&fig3, FIG3_CANDIDATES), (&separate[0], SEPARATE_CANDIDATES), (&fig4, FIG4_CANDIDATES)]
    {
        ensure!(
            run.experiment.candidates == expected,
            "{}: {} candidates, expected {expected}",
            run.experiment.id,
            run.experiment.candidates
        );
    }
    add_paper_tables(&mut fig3, &[(LPCA, "dims", 0), (ASPECT_VALIDATED, "classes", 4)]);
    let mut readings = vec![(SAME_PEOPLE, &fig3.results)];
    readings.extend(SEPARATE.iter().zip(&separate).map(|(r, run)| (r.name, &run.results)));
    let table = readings_table(&readings)?;
    fig3.experiment.tables.push(table);
    add_paper_tables(&mut fig4, &[(ASPECT_ATTR_VALIDATED, "classes", 6)]);
    let classes = class_counts(options, &session, &lines)?;
    ensure!(
        classes.results.split_ids() == fig4.results.split_ids(),
        "fig4-aspect-classes ran other splits than fig4-ml-implicit"
    );
    fig4.experiment.tables.push(class_count_table(&fig4.results, &classes.results)?);
    fig3.experiment.tables.push(fits::table("fig3-msweb", &fig3.results));
    fig4.experiment.tables.push(fits::table("fig4-ml-implicit", &fig4.results));
    add_paper_tables(&mut fig5, &[]);
    add_paper_tables(&mut sparse, &[]);
    ensure!(
        sparse.results.split_ids() == fig5.results.split_ids(),
        "fig5-ml-sparse-users ran other splits than fig5-ml-conditional"
    );

    let implicit = fig4.results.judgments().context("fig4 kept no judgments")?;
    let (thm1, thm1_figure, random_runs) =
        random::check_case(options, &lines, &random::EVEN, implicit)?;
    let conditional = fig5.results.judgments().context("fig5 kept no judgments")?;
    let (uneven, uneven_figure, _) =
        random::check_case(options, &lines, &random::UNEVEN, conditional)?;
    let random_conditional = recs_metrics::random_croc(conditional, 1.0)?.auc();
    let user_mean_conditional = exact_auc(
        fig5.results.model(USER_MEAN).context("fig5 has no user mean rating")?,
        CurveKind::Croc,
    );
    let ids = ids::ms_web(&options.resolver(), options.seed)?;
    let mut msweb = vec![ms_web_reading(SAME_PEOPLE, true, None, &fig3.results)?];
    for (r, run) in SEPARATE.iter().zip(&separate) {
        msweb.push(ms_web_reading(r.name, false, r.s4_decided, &run.results)?);
    }
    let cold = claims::ColdStart {
        fig4: &fig4.results,
        fig5: &fig5.results,
        sparse: &sparse.results,
        random_runs: &random_runs,
        conditional_random: (random_conditional, user_mean_conditional),
    };
    let claims = claims::claims(&msweb, &cold, &ids)?;
    let notes = notes(options, implicit, lines.seconds())?;

    fig3.experiment.tables.push(ids::table(&ids));
    let mut runs = vec![fig3];
    runs.extend(separate);
    runs.extend([fig4, fig5, sparse]);
    let (mut report, mut extras) = session.report(PAPER, options.seed, runs, claims, &notes)?;
    report.experiments.extend([thm1, uneven]);
    extras.figures.extend([thm1_figure, uneven_figure]);
    finish(options, &report, &extras, &report.validate(), &lines)
}

/// The paper's reading of MS Web's test cases: the same people as the training cases (its
/// 9,256,692 candidates show it).
const SAME_PEOPLE: &str = "same people (the paper's ids)";

/// One reading of MS Web's test cases for the claims, with the CROC gap S3 reads.
fn ms_web_reading<'a>(
    name: &'static str,
    papers_ids: bool,
    s4_decided: Option<&'static str>,
    results: &'a Results,
) -> Result<claims::MsWebReading<'a>> {
    let croc = |label: &str| {
        results
            .model(label)
            .and_then(ModelResults::croc)
            .with_context(|| format!("`{label}` has no CROC curve"))
    };
    let gap = crocs_gap(croc(LPCA)?, croc(REGRESSION)?);
    let deterministic = results.model(LPCA).and_then(|m| m.param("dims")) == Some("0");
    Ok(claims::MsWebReading {
        name,
        papers_ids,
        s4_decided,
        results,
        croc_gap: (gap, deterministic),
    })
}

fn params_text(model: &ModelResults) -> String {
    model.params().iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// The exact area of a model's curve (0 when the experiment has no such curve).
fn exact_auc(model: &ModelResults, kind: CurveKind) -> f64 {
    curve(model, kind).map_or(0.0, |c| c.exact_auc)
}

fn curve(model: &ModelResults, kind: CurveKind) -> Option<&ModelCurve> {
    match kind {
        CurveKind::Roc => model.roc(),
        CurveKind::Croc => model.croc(),
    }
}

/// The paper's own tables: exact areas with the §7.3 side metrics, and for each tuned
/// model its validation values next to the paper's choice.
fn add_paper_tables(run: &mut ExperimentRun, tuned: &[(&str, &str, usize)]) {
    let results = &run.results;
    let mut tables = vec![auc_table(results)];
    for &(label, param, paper_choice) in tuned {
        if let Some(model) = results.model(label) {
            tables.push(validation_table(results, model, param, paper_choice));
        }
    }
    run.experiment.tables.extend(tables);
}

/// MS Web's test cases read as new people: which of each case's visits stay visible to
/// fold it in from, the rest being its positives.
pub(crate) struct Separate {
    /// Experiment id.
    id: &'static str,
    /// The reading's name in claims and tables.
    name: &'static str,
    given: Given,
    /// Why this reading decides S4 by construction, if it does.
    s4_decided: Option<&'static str>,
}

/// All-but-1 decides S4 by construction.
const ONE_POSITIVE_EACH: &str = "every judged person has exactly one held-out visit, so a \
    person's activity carries no signal for the pooled ROC and the regression's user term can \
    only reorder people at random";
/// Given-k decides S4 by construction.
const SAME_ACTIVITY: &str = "every judged person shows the regression the same k visits, so \
    its user term is one constant and it ranks every pair as item popularity (LPCA at |L| = 0) does";

/// The readings of MS Web's test cases as new people: all-but-1 (Breese et al. 1998's
/// protocol on this data, one positive per case), and three hold-outs whose positives
/// grow with a case's activity.
pub(crate) const SEPARATE: [Separate; 4] = [
    Separate {
        id: "fig3-msweb-separate-people",
        name: "new people, all visits but one visible",
        given: Given::AllBut(1),
        s4_decided: Some(ONE_POSITIVE_EACH),
    },
    Separate {
        id: "fig3-msweb-separate-half",
        name: "new people, half of each case's visits held out",
        given: Given::Fraction(0.5),
        s4_decided: None,
    },
    Separate {
        id: "fig3-msweb-separate-given-1",
        name: "new people, one visit visible",
        given: Given::N(1),
        s4_decided: Some(SAME_ACTIVITY),
    },
    Separate {
        id: "fig3-msweb-separate-given-2",
        name: "new people, two visits visible",
        given: Given::N(2),
        s4_decided: Some(SAME_ACTIVITY),
    },
];

/// `fig3-msweb`'s models on the test cases read as new people (`reading`), each model with
/// the parameters `fig3-msweb` chose by validation on its first repetition (the training
/// people, and so the validation data, are the same in every reading).
fn separate_people(
    options: &Options,
    session: &Session,
    lines: &Lines,
    fig3: &Results,
    reading: &Separate,
) -> Result<ExperimentRun> {
    let (mut config, source) = options.config(PAPER, "fig3-msweb-separate-people")?;
    config.name = reading.id.to_string();
    config.protocol = ProtocolChoice::PredefinedNewUsers(reading.given);
    config.description = format!(
        "UCI MS Web training/test files; the test cases are read as people absent from \
         training (ids `test:<id>`), folded in from their visible visits ({}) and judged on \
         the others: every vroot not among its visible visits is a candidate.",
        reading.name
    );
    for model in &mut config.models {
        let label = model.label().to_string();
        let chosen = fig3.model(&label).with_context(|| format!("fig3-msweb has no `{label}`"))?;
        for (key, text) in chosen.params() {
            let value = text
                .parse::<i64>()
                .map(toml::Value::Integer)
                .or_else(|_| text.parse::<f64>().map(toml::Value::Float))
                .unwrap_or_else(|_| toml::Value::String(text.clone()));
            model.params.insert(key.clone(), value);
        }
    }
    let mut plan = options.checked(&config, &source)?;
    for measure in ties::measures() {
        plan = plan.with_measure(measure)?;
    }
    lines.say(format!("{}: running", reading.id));
    let run = session.run(&plan, lines)?;
    for model in run.results.models() {
        lines.say(format!(
            "{}: {}: ROC AUC {:.4}, CROC AUC {:.4}",
            reading.id,
            model.label(),
            exact_auc(model, CurveKind::Roc),
            exact_auc(model, CurveKind::Croc)
        ));
    }
    Ok(run)
}

/// Each model's mean areas over the repetitions under every reading of MS Web's test
/// cases, with their 95% intervals.
fn readings_table(readings: &[(&str, &Results)]) -> Result<Table> {
    let mut rows = Vec::new();
    for (name, results) in readings {
        for m in results.models() {
            let mut row = vec![json!(name), json!(m.label())];
            for key in ["roc_auc", "croc_auc"] {
                let e = results
                    .effect(m.label(), key)
                    .with_context(|| format!("`{}` has no {key}", m.label()))?;
                row.extend([json!(e.estimate), json!(e.low), json!(e.high)]);
            }
            row.push(json!(results.n_splits()));
            rows.push(row);
        }
    }
    Ok(Table {
        name: "MS Web's test cases under each reading: mean areas over the repetitions with \
               95% t intervals (one repetition: no interval)"
            .into(),
        columns: [
            "reading",
            "model",
            "ROC AUC",
            "ROC low",
            "ROC high",
            "CROC AUC",
            "CROC low",
            "CROC high",
            "repetitions",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// `fig4-aspect-classes`: the person/actor aspect model at every class count of the
/// validation grid (`--quick`: those of the quick grid, 2 and 6), scored on the test movies.
fn class_counts(options: &Options, session: &Session, lines: &Lines) -> Result<ExperimentRun> {
    let (mut config, source) = options.config(PAPER, "fig4-aspect-classes")?;
    if options.quick {
        let quick = |m: &recs_bench::ModelConfig| {
            m.params
                .get("classes")
                .and_then(toml::Value::as_integer)
                .is_some_and(|k| k == 2 || k == 6)
        };
        config.models.retain(quick);
    }
    let plan = options.checked(&config, &source)?;
    lines.say("fig4-aspect-classes: running");
    Ok(session.run(&plan, lines)?)
}

/// The aspect model's class counts: validation areas (from `fig4`'s selection) beside
/// test areas (from `classes`), and what selection by ROC AUC would have chosen.
fn class_count_table(fig4: &Results, classes: &Results) -> Result<Table> {
    let aspect = fig4
        .model(ASPECT_ATTR_VALIDATED)
        .context("fig4 has no person/actor aspect model chosen by validation")?;
    let key = |k: &str| fig4.keys().iter().position(|x| x == k);
    let (roc, croc) = (key("roc_auc"), key("croc_auc"));
    let validation: Vec<(String, Option<f64>, Option<f64>)> = aspect
        .validation()
        .iter()
        .map(|(params, values)| {
            let k = params.iter().find(|(p, _)| p == "classes").map_or("", |(_, v)| v);
            let at = |i: Option<usize>| i.and_then(|i| values.get(i).copied().flatten());
            (k.to_string(), at(roc), at(croc))
        })
        .collect();
    let by_roc = validation
        .iter()
        .filter_map(|(k, r, _)| r.map(|r| (k, r)))
        .fold(None::<(&String, f64)>, |best, (k, r)| match best {
            Some((_, b)) if b >= r => best,
            _ => Some((k, r)),
        })
        .map_or("?".to_string(), |(k, _)| k.clone());
    let rows = classes
        .models()
        .iter()
        .map(|m| {
            let k = m.param("classes").unwrap_or("?");
            let v = validation.iter().find(|(x, _, _)| x == k);
            vec![
                json!(k),
                json!(v.and_then(|v| v.1)),
                json!(v.and_then(|v| v.2)),
                json!(exact_auc(m, CurveKind::Roc)),
                json!(exact_auc(m, CurveKind::Croc)),
            ]
        })
        .collect();
    Ok(Table {
        name: format!(
            "Person/actor aspect model at every class count: validation and test areas \
             (chosen by validation CROC AUC: {}; by validation ROC AUC it would be {by_roc})",
            aspect.param("classes").unwrap_or("?")
        ),
        columns: [
            "classes",
            "validation ROC AUC",
            "validation CROC AUC",
            "test ROC AUC",
            "test CROC AUC",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn auc_table(results: &Results) -> Table {
    let pauc = |c: Option<&ModelCurve>| c.map_or(json!(null), |c| json!(c.exact_pauc / 0.3));
    let area = |c: Option<&ModelCurve>| c.map_or(json!(null), |c| json!(c.exact_auc));
    let side: Vec<(&str, &str)> = [
        (side::MAE_EVENTS, "MAE of P, test events"),
        (side::MAE_ALL, "MAE of P, all candidates"),
        (side::MAE_RATING, "MAE of the rating"),
        (HALF_LIFE_KEY, "half-life R (α = 5)"),
    ]
    .into_iter()
    .filter(|(key, _)| results.keys().iter().any(|k| k == key))
    .collect();
    let mut columns: Vec<String> =
        ["model", "params", "ROC AUC", "ROC pAUC(0.3)/0.3", "CROC AUC", "CROC pAUC(0.3)/0.3"]
            .map(String::from)
            .to_vec();
    columns.extend(side.iter().map(|(_, name)| name.to_string()));
    Table {
        name: "Exact areas (full-resolution curves) and the §7.3 side metrics (P: the \
               model's probability of the candidate; undefined where the model states none)"
            .into(),
        columns,
        rows: results
            .models()
            .iter()
            .map(|m| {
                let mean = |key: &str| {
                    results.mean(m.label(), key).map_or(json!("undefined"), |v| json!(v))
                };
                let mut row = vec![
                    json!(m.label()),
                    json!(params_text(m)),
                    area(m.roc()),
                    pauc(m.roc()),
                    area(m.croc()),
                    pauc(m.croc()),
                ];
                row.extend(side.iter().map(|(key, _)| mean(key)));
                row
            })
            .collect(),
    }
}

fn validation_table(
    results: &Results,
    model: &ModelResults,
    param: &str,
    paper_choice: usize,
) -> Table {
    let column = |key: &str| results.keys().iter().position(|k| k == key);
    let (roc, croc) = (column("roc_auc"), column("croc_auc"));
    let value = |values: &[Option<f64>], at: Option<usize>| {
        at.and_then(|i| values.get(i).copied().flatten()).map_or(json!(null), |v| json!(v))
    };
    let rows = model
        .validation()
        .iter()
        .map(|(params, values)| {
            let setting = params.iter().find(|(k, _)| k == param).map_or("", |(_, v)| v);
            vec![json!(setting), value(values, roc), value(values, croc)]
        })
        .collect();
    let per_repetition: Vec<&str> =
        model.param_per_split(param).into_iter().map(|v| v.unwrap_or("?")).collect();
    Table {
        name: format!(
            "Validation of {} `{param}` on a partition of the training data (first repetition), \
             chosen by CROC AUC (chosen on each repetition: {}; paper: {paper_choice})",
            model.label(),
            per_repetition.join(", ")
        ),
        columns: vec![param.to_string(), "validation ROC AUC".into(), "validation CROC AUC".into()],
        rows,
    }
}

/// The cold-start split next to the paper's, and the run's wall time.
fn notes(options: &Options, implicit: &Judgments, wall: f64) -> Result<String> {
    let dataset = recs_data::load_named("ml-100k", &options.resolver())?;
    let ratings = &dataset.interactions;
    let (mut test_events, mut rated_4) = (0usize, 0usize);
    for user in implicit.iter() {
        for (&item, &grade) in user.items.iter().zip(user.grades) {
            if grade >= 1.0 {
                test_events += 1;
                rated_4 += usize::from(ratings.get(user.user, item).is_some_and(|r| r >= 4.0));
            }
        }
    }
    let mut notes = String::new();
    notes.push_str(&format!(
        "\nCold-start split (seed {}): {test_events} test events on the 331 test movies, {rated_4} rated ≥ 4 \
         (the paper's split: 19,192 and 10,640).\n",
        options.seed
    ));
    let cast = recs_data::load_cast(
        &options.resolver(),
        &dataset,
        &recs_data::AttributeFilter::SCHEIN2005_CAST,
    )?;
    let (bare, bare_test) = movies_without_actors(&cast, implicit);
    notes.push_str(&format!(
        "\nCold-start content: {bare} of the {} movies have no actor left after the \
         top-10 and two-movie filter; {bare_test} of the 331 test movies are among them, so \
         the person/actor aspect model scores them from no content.\n",
        cast.n_items()
    ));
    notes.push_str(&format!(
        "\n## Run\n\nWall time {wall:.1} s ({} run, seed {}).\n",
        if options.quick { "quick" } else { "full" },
        options.seed
    ));
    Ok(notes)
}

/// Movies without any attribute in `cast`: among all movies, and among the candidate
/// movies of `judgments`.
fn movies_without_actors(
    cast: &recs_core::ItemAttributes,
    judgments: &Judgments,
) -> (usize, usize) {
    let bare = |item: u32| cast.item_attributes(item).is_empty();
    let all = (0..cast.n_items() as u32).filter(|&i| bare(i)).count();
    let mut candidates: Vec<u32> = judgments.iter().flat_map(|u| u.items.iter().copied()).collect();
    candidates.sort_unstable();
    candidates.dedup();
    (all, candidates.into_iter().filter(|&i| bare(i)).count())
}

/// Largest difference in hit rate between two CROC curves at the same false-alarm rate,
/// evaluated at the stored points of both (linear interpolation in between).
fn crocs_gap(a: &ModelCurve, b: &ModelCurve) -> f64 {
    let interpolate = |points: &[[f64; 2]], x: f64| -> f64 {
        let k = points.partition_point(|p| p[0] < x);
        if k == 0 {
            return points[0][1];
        }
        if k >= points.len() {
            return points[points.len() - 1][1];
        }
        let (p, q) = (points[k - 1], points[k]);
        if q[0] > p[0] { p[1] + (q[1] - p[1]) * (x - p[0]) / (q[0] - p[0]) } else { q[1] }
    };
    let (pa, pb) = (&a.report.points, &b.report.points);
    pa.iter()
        .map(|p| (p[1] - interpolate(pb, p[0])).abs())
        .chain(pb.iter().map(|p| (p[1] - interpolate(pa, p[0])).abs()))
        .fold(0.0, f64::max)
}

/// Checks a written report against the contract and this paper's expectations.
pub(crate) fn check(report: &recs_bench::report::Report) -> Vec<String> {
    let mut problems = report.validate();
    let expected: BTreeMap<&str, Option<u64>> = BTreeMap::from([
        ("fig3-msweb", Some(FIG3_CANDIDATES)),
        ("fig3-msweb-separate-people", Some(SEPARATE_CANDIDATES)),
        ("fig4-ml-implicit", Some(FIG4_CANDIDATES)),
        ("fig5-ml-conditional", None),
        ("thm1-random", Some(FIG4_CANDIDATES)),
        ("thm1-random-uneven", None),
    ]);
    for (id, candidates) in expected {
        match report.experiments.iter().find(|e| e.id == id) {
            None => problems.push(format!("experiment {id} is missing")),
            Some(e) => {
                if let Some(c) = candidates.filter(|&c| c != e.candidates) {
                    problems.push(format!("{id}: {} candidates, expected {c}", e.candidates));
                }
                if e.curves.is_empty() {
                    problems.push(format!("{id}: no curves"));
                }
            }
        }
    }
    problems.extend(crate::reproduce::provenance_problems(report));
    problems.extend(unevaluated_claims(
        report,
        &[
            "S1", "S2", "S3", "S4", "S5", "M1", "M2", "M3", "M4", "C1", "C2", "C3", "E1", "E2",
            "E3", "E4", "T1",
        ],
    ));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::report::Report;

    #[test]
    fn identical_curves_have_no_gap_and_shifted_ones_do() {
        let a =
            ModelCurve::from_points(CurveKind::Croc, "a", vec![[0.0, 0.0], [0.5, 0.8], [1.0, 1.0]]);
        let b = ModelCurve::from_points(
            CurveKind::Croc,
            "b",
            vec![[0.0, 0.0], [0.25, 0.4], [0.5, 0.8], [1.0, 1.0]],
        );
        assert!(crocs_gap(&a, &b) < 1e-12);
        let c =
            ModelCurve::from_points(CurveKind::Croc, "c", vec![[0.0, 0.0], [0.5, 0.6], [1.0, 1.0]]);
        assert!((crocs_gap(&a, &c) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn movies_without_actors_are_counted_overall_and_among_candidates() {
        let actors = recs_core::IdMap::from_ids_sorted(["a", "b"]).unwrap();
        // Items 0 and 3 have actors; 1, 2 and 4 have none.
        let cast =
            recs_core::ItemAttributes::from_pairs(5, actors, [(0, 0, 1.0), (3, 1, 1.0)]).unwrap();
        let mut b = Judgments::builder(2, 5);
        b.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
        b.push_user(1, &[1, 2, 3], &[0.0, 0.0, 1.0]).unwrap();
        assert_eq!(movies_without_actors(&cast, &b.build().unwrap()), (3, 2));
    }

    #[test]
    fn check_reports_missing_parts() {
        let problems = check(&Report::new("schein2005", 0, true));
        assert!(problems.iter().any(|p| p.contains("fig3-msweb is missing")));
        assert!(problems.iter().any(|p| p.contains("claim C3")));
    }
}
