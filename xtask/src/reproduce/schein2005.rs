//! `cargo xtask reproduce schein2005`: Schein, Popescul, Ungar & Pennock (2005), "CROC: A
//! New Evaluation Criterion for Recommender Systems", end to end on the real data.
//!
//! Experiments (ids as in `report.json`):
//! - `fig3-msweb` — MS Web, hot start, implicit rating prediction (§6.1, Figure 3): LPCA,
//!   the aspect model, the user/item popularity regression, item popularity and random;
//!   ROC points every 156,898 predictions, CROC every 5 vroots per person.
//! - `fig4-ml-implicit` — MovieLens 100K, 331 cold-start movies, implicit (§6.2, Figure 4):
//!   the person/actor aspect model with folding-in against user popularity; ROC every
//!   7,803, CROC every 15.
//! - `fig5-ml-conditional` — the same split, conditional rating prediction (rating ≥ 4) for
//!   users with at least 40 training ratings (§6.3, Figure 5): per-user naive Bayes on actors
//!   against the user's mean rating; ROC every 425, CROC every 2.
//! - §7.3 side metrics — MAE of the raw scores against 0/1 outcomes and Breese's half-life
//!   utility R (α = 5), in each experiment's table.
//! - `thm1-random` — Theorem 1: the random recommender's exact expected CROC curve on the
//!   cold-start judgments, a Monte-Carlo simulation of it, and the diagonal.
//!
//! Hyper-parameters (|L| of LPCA, classes of the aspect models) are chosen by validation
//! on a partition of the training data only, by CROC AUC there (the criterion the paper
//! argues for; it does not say which one its own validation used); the validation tables,
//! with ROC AUC too, are in the report next to the paper's choices.

use std::collections::BTreeMap;

use anyhow::{Context, Result, ensure};
use recs_bench::curves::ModelCurve;
use recs_bench::report::{Claim, Curve, DatasetEntry, Experiment, Report, SCHEMA_VERSION, Table};
use recs_bench::scoring::ItemSource;
use recs_core::{ItemAttributes, Judgments};
use recs_data::AttributeFilter;
use recs_split::{Amount, JudgmentOptions, Protocol, Split, SplitId};
use serde_json::json;

use super::{Evaluated, Options, Progress, evaluate, figures_for, fit, references, write_outputs};

/// MS Web candidates under the paper's reading (32,711 × 286 − 98,654).
pub(crate) const FIG3_CANDIDATES: usize = 9_256_692;
/// MovieLens cold-start candidates (943 × 331).
pub(crate) const FIG4_CANDIDATES: usize = 312_133;
const TEST_MOVIES: usize = 331;

/// Everything the experiments produce, before claims are judged.
struct Results {
    report: Report,
    figures: Vec<recs_bench::evaluation::Figure>,
    notes: String,
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let progress = Progress::new();
    let mut results = Results {
        report: Report {
            schema_version: SCHEMA_VERSION,
            paper: "schein2005".into(),
            seed: options.seed,
            quick: options.quick,
            version: env!("CARGO_PKG_VERSION").into(),
            datasets: Vec::new(),
            experiments: Vec::new(),
            claims: Vec::new(),
        },
        figures: Vec::new(),
        notes: String::new(),
    };
    let fig3 = figure3(options, &progress, &mut results)?;
    let movielens = figures45(options, &progress, &mut results)?;
    results.report.claims = claims(&fig3, &movielens);
    let wall = progress.seconds();
    results.notes.push_str(&format!(
        "\n## Run\n\nWall time {wall:.1} s ({} run, seed {}).\n",
        if options.quick { "quick" } else { "full" },
        options.seed
    ));
    let problems = results.report.validate();
    ensure!(problems.is_empty(), "the report breaks its contract:\n  {}", problems.join("\n  "));
    let dir = options.out.join("schein2005");
    write_outputs(&dir, &results.report, &results.figures, &results.notes)?;
    progress.say(format!("wrote {}", dir.display()));
    for claim in &results.report.claims {
        eprintln!(
            "  {} {:<5} {}",
            claim.id,
            if claim.holds { "holds" } else { "FAILS" },
            claim.measured
        );
    }
    Ok(())
}

fn dataset_entry(name: &str, dataset: &recs_data::Dataset) -> DatasetEntry {
    DatasetEntry { name: name.into(), ..recs_bench::runner::dataset_entry(dataset) }
}

fn curve_entries(models: &[&Evaluated], references: &super::References) -> Vec<Curve> {
    let mut curves = Vec::new();
    for m in models {
        curves.push(m.roc.report.clone());
        curves.push(m.croc.report.clone());
    }
    for r in references.roc.iter().chain(&references.croc) {
        curves.push(r.report.clone());
    }
    curves
}

fn auc_table(models: &[&Evaluated]) -> Table {
    Table {
        name: "Exact areas (full-resolution curves) and the §7.3 side metrics".into(),
        columns: [
            "model",
            "ROC AUC",
            "ROC pAUC(0.3)/0.3",
            "CROC AUC",
            "CROC pAUC(0.3)/0.3",
            "MAE (raw score vs 0/1)",
            "half-life R (α = 5)",
        ]
        .map(String::from)
        .to_vec(),
        rows: models
            .iter()
            .map(|m| {
                vec![
                    json!(m.roc.report.model),
                    json!(m.roc.exact_auc),
                    json!(m.roc.exact_pauc / 0.3),
                    json!(m.croc.exact_auc),
                    json!(m.croc.exact_pauc / 0.3),
                    json!(m.mae),
                    m.half_life.map_or(json!("undefined"), |r| json!(r)),
                ]
            })
            .collect(),
    }
}

/// One hyper-parameter search: a model, the parameter, its grid and the paper's choice.
struct Tuning<'a> {
    model: &'a str,
    param: &'a str,
    grid: &'a [usize],
    paper_choice: usize,
    /// Attributes for content models; with `cold`, candidates are scored from them.
    attributes: Option<&'a ItemAttributes>,
    cold: bool,
}

/// Picks a hyper-parameter value by CROC AUC on validation judgments (ties: the smaller
/// value, which comes first in the grid).
fn select(
    progress: &Progress,
    tuning: &Tuning<'_>,
    validation: &Split,
    judgments: &Judgments,
    seed: u64,
) -> Result<(usize, Table)> {
    let Tuning { model, param, grid, paper_choice, attributes, cold } = *tuning;
    let mut rows = Vec::new();
    let mut best: Option<(f64, usize)> = None;
    for &value in grid {
        let fitted =
            fit(model, &[(param, value.to_string())], validation.train(), attributes, seed)?;
        let source = match (cold, attributes) {
            (true, Some(a)) => ItemSource::NewFromAttributes(a),
            _ => ItemSource::Trained,
        };
        let (evaluated, _) = evaluate(model, fitted.as_ref(), judgments, source, (0.0, 0.0))?;
        progress.say(format!(
            "  validation {model} {param}={value}: ROC AUC {:.4}, CROC AUC {:.4}",
            evaluated.roc.exact_auc, evaluated.croc.exact_auc
        ));
        rows.push(vec![
            json!(value),
            json!(evaluated.roc.exact_auc),
            json!(evaluated.croc.exact_auc),
        ]);
        if best.is_none_or(|(auc, _)| evaluated.croc.exact_auc > auc) {
            best = Some((evaluated.croc.exact_auc, value));
        }
    }
    let chosen = best.map(|b| b.1).context("empty grid")?;
    let table = Table {
        name: format!(
            "Validation of {model} `{param}` on a partition of the training data, chosen by CROC AUC (chosen: {chosen}; paper: {paper_choice})"
        ),
        columns: vec![param.to_string(), "validation ROC AUC".into(), "validation CROC AUC".into()],
        rows,
    };
    Ok((chosen, table))
}

/// Figure 3's results needed by the claims.
pub(crate) struct Fig3 {
    lpca: Evaluated,
    aspect: Evaluated,
    regression: Evaluated,
    random: Evaluated,
    lpca_dims: usize,
}

fn figure3(options: &Options, progress: &Progress, results: &mut Results) -> Result<Fig3> {
    progress.say("fig3: loading MS Web");
    let dataset = recs_data::load_named("msweb", &options.resolver())?;
    let test = dataset.test.clone().context("the MS Web loader returned no test part")?;
    results.report.datasets.push(dataset_entry("msweb", &dataset));
    let split = Split::predefined(dataset.interactions.clone(), test)?;
    let judgments = split.judgments(&JudgmentOptions::implicit())?;
    ensure!(
        judgments.n_candidates() == FIG3_CANDIDATES,
        "MS Web gives {} implicit candidates, expected {FIG3_CANDIDATES}",
        judgments.n_candidates()
    );
    progress.say(format!(
        "fig3: {} candidates, {} positives",
        judgments.n_candidates(),
        judgments.n_relevant(1.0)
    ));

    // Model selection on a partition of the training file only.
    let validation = split.validation(
        &Protocol::LeaveKOut { k: Amount::Fraction(0.25), min_train: 1 },
        options.seed,
        SplitId::new(0, 0),
    )?;
    let validation_judgments = validation.judgments(&JudgmentOptions::implicit())?;
    let (dims_grid, classes_grid): (&[usize], &[usize]) =
        if options.quick { (&[0, 1], &[2, 4]) } else { (&[0, 1, 2, 4], &[2, 4, 8, 16]) };
    let hot = |model, param, grid, paper_choice| Tuning {
        model,
        param,
        grid,
        paper_choice,
        attributes: None,
        cold: false,
    };
    let (lpca_dims, lpca_table) = select(
        progress,
        &hot("lpca", "dims", dims_grid, 0),
        &validation,
        &validation_judgments,
        options.seed,
    )?;
    let (aspect_classes, aspect_table) = select(
        progress,
        &hot("aspect", "classes", classes_grid, 4),
        &validation,
        &validation_judgments,
        options.seed,
    )?;

    let steps = (156_898.0, 5.0);
    let train = split.train();
    let run = |label: &str, name: &str, params: &[(&str, String)]| -> Result<Evaluated> {
        let model = fit(name, params, train, None, options.seed)?;
        let (evaluated, _) =
            evaluate(label, model.as_ref(), &judgments, ItemSource::Trained, steps)?;
        progress.say(format!(
            "fig3: {label}: ROC AUC {:.4}, CROC AUC {:.4}",
            evaluated.roc.exact_auc, evaluated.croc.exact_auc
        ));
        Ok(evaluated)
    };
    let lpca = run(&format!("lpca L={lpca_dims}"), "lpca", &[("dims", lpca_dims.to_string())])?;
    let aspect = run(
        &format!("aspect {aspect_classes} classes"),
        "aspect",
        &[("classes", aspect_classes.to_string())],
    )?;
    let regression = run("user/item popularity regression", "user-item-pop", &[])?;
    let item_pop = run("item popularity", "item-pop", &[])?;
    let random = run("random", "random", &[])?;
    let refs = references(&judgments)?;
    let models = [&lpca, &aspect, &regression, &item_pop, &random];
    results.figures.extend(figures_for(
        "fig3-msweb",
        "Figure 3: MS Web, implicit rating",
        &models,
        &refs,
    ));
    results.report.experiments.push(Experiment {
        id: "fig3-msweb".into(),
        protocol: "predefined UCI training/test files; test case ids are the training people (286 visited vroots)".into(),
        mode: "implicit".into(),
        candidates: judgments.n_candidates() as u64,
        positives: judgments.n_relevant(1.0) as u64,
        curves: curve_entries(&models, &refs),
        tables: vec![auc_table(&models), lpca_table, aspect_table],
    });
    Ok(Fig3 { lpca, aspect, regression, random, lpca_dims })
}

/// Figures 4 and 5 and Theorem 1, which share the MovieLens cold-start split.
pub(crate) struct MovieLens {
    aspect: Evaluated,
    user_pop: Evaluated,
    naive_bayes: Evaluated,
    user_mean: Evaluated,
    /// Exact expected CROC AUC of random recommendation on the conditional judgments.
    random_conditional: f64,
}

fn figures45(options: &Options, progress: &Progress, results: &mut Results) -> Result<MovieLens> {
    progress.say("fig4: loading MovieLens 100K and its cast file");
    let resolver = options.resolver();
    let dataset = recs_data::load_named("ml-100k", &resolver)?;
    results.report.datasets.push(dataset_entry("ml-100k", &dataset));
    let filter = AttributeFilter { top_n: Some(10), min_items: 2 };
    let (attributes, content) = match recs_data::load_cast(&resolver, &dataset, &filter) {
        Ok(attrs) => {
            let n = attrs.n_attributes();
            (
                attrs,
                format!(
                    "the top-10 billed actors of each movie, keeping actors in at least two movies ({n} actors)"
                ),
            )
        }
        Err(e) => (
            dataset.item_attributes.clone().context("u.item gave no genres")?,
            format!("the 19 genres of u.item, because the cast file could not be used: {e}"),
        ),
    };
    results
        .notes
        .push_str(&format!("\nContent attributes for the cold-start models: {content}.\n"));

    let protocol =
        Protocol::ColdStartItems { test_items: Amount::Count(TEST_MOVIES), min_item_events: 0 };
    let split = protocol.split(&dataset.interactions, options.seed, SplitId::new(0, 0))?;
    let implicit = split.judgments(&JudgmentOptions::implicit())?;
    ensure!(
        implicit.n_candidates() == FIG4_CANDIDATES,
        "the cold-start split gives {} candidates, expected {FIG4_CANDIDATES}",
        implicit.n_candidates()
    );
    let test = split.test();
    let rated_4 = test.events().filter(|e| e.value >= 4.0).count();
    results.notes.push_str(&format!(
        "\nCold-start split (seed {}): {} test events on the {TEST_MOVIES} test movies, {rated_4} rated ≥ 4 \
         (the paper's split: 19,192 and 10,640).\n",
        options.seed,
        test.n_events()
    ));
    progress.say(format!(
        "fig4: {} candidates, {} test events, {rated_4} rated >= 4",
        implicit.n_candidates(),
        test.n_events()
    ));

    // Classes of the person/actor aspect model: a cold-start split inside the training movies.
    let inner = Protocol::ColdStartItems {
        test_items: Amount::Fraction(TEST_MOVIES as f64 / dataset.interactions.n_items() as f64),
        min_item_events: 0,
    };
    let validation = split.validation(&inner, options.seed, SplitId::new(0, 0))?;
    let validation_judgments = validation.judgments(&JudgmentOptions::implicit())?;
    let grid: &[usize] = if options.quick { &[2, 6] } else { &[2, 4, 6, 8, 12] };
    let tuning = Tuning {
        model: "aspect-attr",
        param: "classes",
        grid,
        paper_choice: 6,
        attributes: Some(&attributes),
        cold: true,
    };
    let (classes, classes_table) =
        select(progress, &tuning, &validation, &validation_judgments, options.seed)?;

    let train = split.train();
    let aspect_model = fit(
        "aspect-attr",
        &[("classes", classes.to_string())],
        train,
        Some(&attributes),
        options.seed,
    )?;
    let (aspect, _) = evaluate(
        &format!("person/actor aspect {classes} classes"),
        aspect_model.as_ref(),
        &implicit,
        ItemSource::NewFromAttributes(&attributes),
        (7_803.0, 15.0),
    )?;
    let user_pop_model = fit("user-pop", &[], train, None, options.seed)?;
    let (user_pop, _) = evaluate(
        "user popularity",
        user_pop_model.as_ref(),
        &implicit,
        ItemSource::Trained,
        (7_803.0, 15.0),
    )?;
    progress.say(format!(
        "fig4: aspect ROC {:.4} CROC {:.4}; user-pop ROC {:.4} CROC {:.4}",
        aspect.roc.exact_auc,
        aspect.croc.exact_auc,
        user_pop.roc.exact_auc,
        user_pop.croc.exact_auc
    ));
    let refs = references(&implicit)?;
    let models = [&aspect, &user_pop];
    results.figures.extend(figures_for(
        "fig4-ml-implicit",
        "Figure 4: MovieLens cold start, implicit",
        &models,
        &refs,
    ));
    results.report.experiments.push(Experiment {
        id: "fig4-ml-implicit".into(),
        protocol: format!(
            "item cold start: {TEST_MOVIES} of 1682 movies drawn with seed {}",
            options.seed
        ),
        mode: "implicit".into(),
        candidates: implicit.n_candidates() as u64,
        positives: implicit.n_relevant(1.0) as u64,
        curves: curve_entries(&models, &refs),
        tables: vec![auc_table(&models), classes_table],
    });

    // Figure 5: conditional rating prediction for users with ≥ 40 training ratings.
    let conditional = split.judgments(&JudgmentOptions::conditional(4.0).min_known_events(40))?;
    let nb_model = fit("naive-bayes", &[], train, Some(&attributes), options.seed)?;
    let (naive_bayes, _) = evaluate(
        "naive Bayes on actors",
        nb_model.as_ref(),
        &conditional,
        ItemSource::NewFromAttributes(&attributes),
        (425.0, 2.0),
    )?;
    let mean_model = fit("user-mean", &[], train, None, options.seed)?;
    let (user_mean, _) = evaluate(
        "user mean rating",
        mean_model.as_ref(),
        &conditional,
        ItemSource::Trained,
        (425.0, 2.0),
    )?;
    progress.say(format!(
        "fig5: {} candidates; naive Bayes ROC {:.4} CROC {:.4}; user mean ROC {:.4} CROC {:.4}",
        conditional.n_candidates(),
        naive_bayes.roc.exact_auc,
        naive_bayes.croc.exact_auc,
        user_mean.roc.exact_auc,
        user_mean.croc.exact_auc
    ));
    let refs5 = references(&conditional)?;
    let models5 = [&naive_bayes, &user_mean];
    results.figures.extend(figures_for(
        "fig5-ml-conditional",
        "Figure 5: MovieLens cold start, conditional (rating ≥ 4)",
        &models5,
        &refs5,
    ));
    let random_conditional = recs_metrics::random_croc(&conditional, 1.0)?.auc();
    results.report.experiments.push(Experiment {
        id: "fig5-ml-conditional".into(),
        protocol: format!(
            "the fig4 split; users with at least 40 training ratings ({} users)",
            conditional.n_judged_users()
        ),
        mode: "conditional:4".into(),
        candidates: conditional.n_candidates() as u64,
        positives: conditional.n_relevant(1.0) as u64,
        curves: curve_entries(&models5, &refs5),
        tables: vec![auc_table(&models5)],
    });

    // Theorem 1: random recommendation on the implicit cold-start judgments.
    theorem1(options, progress, &implicit, results)?;
    Ok(MovieLens { aspect, user_pop, naive_bayes, user_mean, random_conditional })
}

fn theorem1(
    options: &Options,
    progress: &Progress,
    judgments: &Judgments,
    results: &mut Results,
) -> Result<()> {
    let exact = recs_metrics::random_croc(judgments, 1.0)?;
    let runs = if options.quick { 20 } else { 200 };
    let simulated = recs_metrics::simulated_croc(judgments, 1.0, runs, options.seed)?;
    let exact_points = exact.points();
    let diagonal_gap = exact_points.iter().map(|p| (p[1] - p[0]).abs()).fold(0.0, f64::max);
    let simulation_gap = exact_points
        .iter()
        .zip(&simulated.mean)
        .map(|(e, s)| (e[0] - s[0]).abs().max((e[1] - s[1]).abs()))
        .fold(0.0, f64::max);
    let inside_band = exact_points
        .iter()
        .zip(simulated.lower.iter().zip(&simulated.upper))
        .all(|(e, (lo, hi))| lo[1] - 1e-12 <= e[1] && e[1] <= hi[1] + 1e-12);
    progress.say(format!(
        "thm1: exact random CROC AUC {:.6}; max |TPR - FPR| {diagonal_gap:.2e}; max gap to the simulated mean {simulation_gap:.2e}",
        exact.auc()
    ));
    let exact_curve = ModelCurve::new(
        recs_bench::report::CurveKind::Croc,
        "random (exact expected)",
        &exact,
        15.0,
    );
    let simulated_curve = ModelCurve::from_points(
        recs_bench::report::CurveKind::Croc,
        "random (simulated mean)",
        simulated.mean.clone(),
    );
    let diagonal = ModelCurve::from_points(
        recs_bench::report::CurveKind::Croc,
        "diagonal",
        vec![[0.0, 0.0], [1.0, 1.0]],
    );
    results.figures.push(recs_bench::evaluation::Figure {
        experiment: "thm1-random".into(),
        file: "thm1-random-croc.svg".into(),
        chart: recs_bench::plot::Figure::Lines(recs_bench::curves::figure(
            "Theorem 1: random recommender on the cold-start judgments — CROC",
            &[exact_curve.clone(), simulated_curve.clone()],
            &[diagonal],
        )),
    });
    results.report.experiments.push(Experiment {
        id: "thm1-random".into(),
        protocol: "the fig4 judgments (every user has the same 331 candidates)".into(),
        mode: "implicit".into(),
        candidates: judgments.n_candidates() as u64,
        positives: judgments.n_relevant(1.0) as u64,
        curves: vec![exact_curve.report, simulated_curve.report],
        tables: vec![Table {
            name: format!("Exact expected vs simulated ({runs} runs) vs diagonal"),
            columns: [
                "exact AUC",
                "simulated-mean AUC",
                "max |TPR − FPR| (exact)",
                "max gap exact vs simulated mean",
                "exact inside the pointwise 95% band at every k",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![vec![
                json!(exact.auc()),
                json!(recs_bench::report::trapezoid(&simulated.mean)),
                json!(diagonal_gap),
                json!(simulation_gap),
                json!(inside_band),
            ]],
        }],
    });
    Ok(())
}

fn ranking(models: &[(&str, f64)]) -> Vec<String> {
    let mut sorted: Vec<(&str, f64)> = models.to_vec();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    sorted.into_iter().map(|(name, _)| name.to_string()).collect()
}

fn claim(id: &str, statement: &str, paper: &str, measured: String, holds: bool) -> Claim {
    Claim { id: id.into(), statement: statement.into(), paper: paper.into(), measured, holds }
}

fn claims(fig3: &Fig3, ml: &MovieLens) -> Vec<Claim> {
    let named = |label: &'static str, e: &Evaluated| (label, e.roc.exact_auc, e.croc.exact_auc);
    let fig3_models = [
        named("lpca", &fig3.lpca),
        named("aspect", &fig3.aspect),
        named("regression", &fig3.regression),
        named("random", &fig3.random),
    ];
    let by_roc = ranking(&fig3_models.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>());
    let by_croc = ranking(&fig3_models.iter().map(|m| (m.0, m.2)).collect::<Vec<_>>());
    let s2: Vec<String> = fig3_models[..3]
        .iter()
        .map(|m| format!("{} ROC {:.4} / CROC {:.4}", m.0, m.1, m.2))
        .collect();
    let s3_gap = crocs_gap(&fig3.lpca.croc, &fig3.regression.croc);
    let user_pop_croc = ml.user_pop.croc.exact_auc;
    let mut out = vec![
        claim(
            "S1",
            "MS Web: the ranking of methods is the same under ROC and CROC",
            "same order under both curves (Figure 3)",
            format!("by ROC AUC: {}; by CROC AUC: {}", by_roc.join(" > "), by_croc.join(" > ")),
            by_roc == by_croc,
        ),
        claim(
            "S2",
            "MS Web: every method's CROC AUC is above its ROC AUC",
            "CROC curves lie above ROC curves (Figure 3)",
            s2.join("; "),
            fig3_models[..3].iter().all(|m| m.2 > m.1),
        ),
        claim(
            "S3",
            "MS Web: LPCA (|L| = 0) and the user/item regression have the same CROC curve",
            "identical CROC curves",
            format!(
                "LPCA with |L| = {} chosen by validation; CROC AUC {:.4} vs {:.4}; largest hit-rate gap at equal k {:.4}",
                fig3.lpca_dims, fig3.lpca.croc.exact_auc, fig3.regression.croc.exact_auc, s3_gap
            ),
            s3_gap < 0.01,
        ),
        claim(
            "S4",
            "MS Web: on ROC the user/item regression is below LPCA",
            "regression below LPCA on ROC (overfitting remark, §6.1)",
            format!(
                "ROC AUC regression {:.4} vs LPCA {:.4}",
                fig3.regression.roc.exact_auc, fig3.lpca.roc.exact_auc
            ),
            fig3.regression.roc.exact_auc < fig3.lpca.roc.exact_auc,
        ),
        claim(
            "M1",
            "MovieLens cold start: user popularity is a random recommender on CROC",
            "CROC AUC 0.5 (Theorem 1: every user has the same 331 candidates)",
            format!(
                "CROC AUC {user_pop_croc:.9}: user popularity gives all of a user's candidates one score, so every \
                 user's ranking is one tie group and the expected CROC is the random one, exactly"
            ),
            (user_pop_croc - 0.5).abs() <= 0.01,
        ),
        claim(
            "M2",
            "MovieLens cold start: the aspect model's CROC AUC is clearly above user popularity's",
            "aspect model the clear winner on CROC (Figure 4b)",
            format!(
                "CROC AUC aspect {:.4} vs user popularity {:.4}",
                ml.aspect.croc.exact_auc, user_pop_croc
            ),
            ml.aspect.croc.exact_auc > user_pop_croc + 0.02,
        ),
        claim(
            "M3",
            "MovieLens cold start: the ROC AUCs of the aspect model and user popularity are close",
            "nearly identical ROC performance (Figure 4a)",
            format!(
                "ROC AUC aspect {:.4} vs user popularity {:.4}",
                ml.aspect.roc.exact_auc, ml.user_pop.roc.exact_auc
            ),
            (ml.aspect.roc.exact_auc - ml.user_pop.roc.exact_auc).abs() <= 0.03,
        ),
        claim(
            "C1",
            "Conditional rating: user mean rating is random on CROC",
            "reduces to a random recommender on CROC (Figure 5b)",
            format!(
                "CROC AUC {:.4}; the exact expected random CROC AUC on these judgments is {:.4} (users have \
                 different numbers of candidates, so it need not be 0.5)",
                ml.user_mean.croc.exact_auc, ml.random_conditional
            ),
            (ml.user_mean.croc.exact_auc - ml.random_conditional).abs() <= 0.02
                || (ml.user_mean.croc.exact_auc - 0.5).abs() <= 0.02,
        ),
        claim(
            "C2",
            "Conditional rating: naive Bayes' CROC AUC is above user mean rating's",
            "naive Bayes superior on CROC (Figure 5b)",
            format!(
                "CROC AUC naive Bayes {:.4} vs user mean {:.4}",
                ml.naive_bayes.croc.exact_auc, ml.user_mean.croc.exact_auc
            ),
            ml.naive_bayes.croc.exact_auc > ml.user_mean.croc.exact_auc,
        ),
        claim(
            "C3",
            "Conditional rating: on ROC user mean rating is at least as good as naive Bayes",
            "mean rating outperforms all other methods by ROC (§6.3)",
            format!(
                "ROC AUC user mean {:.4} vs naive Bayes {:.4}",
                ml.user_mean.roc.exact_auc, ml.naive_bayes.roc.exact_auc
            ),
            ml.user_mean.roc.exact_auc >= ml.naive_bayes.roc.exact_auc,
        ),
    ];
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
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
pub(crate) fn check(report: &Report) -> Vec<String> {
    let mut problems = report.validate();
    let expected: BTreeMap<&str, Option<u64>> = BTreeMap::from([
        ("fig3-msweb", Some(FIG3_CANDIDATES as u64)),
        ("fig4-ml-implicit", Some(FIG4_CANDIDATES as u64)),
        ("fig5-ml-conditional", None),
        ("thm1-random", Some(FIG4_CANDIDATES as u64)),
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
    for id in ["S1", "S2", "S3", "S4", "M1", "M2", "M3", "C1", "C2", "C3"] {
        if !report.claims.iter().any(|c| c.id == id) {
            problems.push(format!("claim {id} was not evaluated"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_bench::report::CurveKind;

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
    fn ranking_orders_by_decreasing_value() {
        assert_eq!(ranking(&[("a", 0.6), ("b", 0.9), ("c", 0.7)]), ["b", "c", "a"]);
    }

    #[test]
    fn check_reports_missing_parts() {
        let report = Report {
            schema_version: SCHEMA_VERSION,
            paper: "schein2005".into(),
            seed: 0,
            quick: true,
            version: "0".into(),
            datasets: vec![],
            experiments: vec![],
            claims: vec![],
        };
        let problems = check(&report);
        assert!(problems.iter().any(|p| p.contains("fig3-msweb is missing")));
        assert!(problems.iter().any(|p| p.contains("claim C3")));
    }
}
