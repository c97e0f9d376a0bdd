//! From split results to per-model results, tables, figures, claims and reports.

use serde_json::{Value, json};

use super::assess::SplitResult;
use super::load::Loaded;
use super::{ExperimentRun, ModelResults, Results};
use crate::curves::{ModelCurve, References};
use crate::error::{BenchError, Result};
use crate::output::{Extras, Figure};
use crate::plan::{GroupBy, Plan, ProtocolChoice};
use crate::plot::{BarChart, Chart, Corner, LineKind, Series};
use crate::report::{
    Choice, ChoiceKind, Claim, ComparisonFamily, DatasetEntry, Effect, Experiment, FileEntry,
    Quote, Reading, Report, Rule, Table, Test, cell,
};

/// Turns the splits of a run into its results, report entry, figures and claims.
pub(crate) fn experiment(
    plan: &Plan,
    data: &Loaded,
    mut splits: Vec<SplitResult>,
) -> Result<ExperimentRun> {
    let Some(first) = splits.first_mut() else {
        return Err(BenchError::Experiment(format!("{}: no split was run", plan.name)));
    };
    let judgments = first.judgments.take();
    let references = first.references.take();
    let qrels = first.qrels.take();
    let train = first.train.take();
    let attributes = first.attributes.take();
    let results = results(plan, &mut splits, judgments);
    let comparison = super::compare::family(plan, &results)?;
    let view = View { plan, data, splits: &splits, results: &results };
    let mut tables = vec![view.results_table(), view.split_table(), view.per_split_table()];
    tables.extend(view.selection_table());
    tables.extend(view.fit_table());
    tables.extend(view.groups_table());
    tables.extend(view.gap_table());
    tables.extend(super::versus::tables(plan, &results));
    let mut curves = Vec::new();
    // Models that only check another (`figure = false`) keep their curves out of the
    // figures and the report; their values are in the tables.
    let drawn: Vec<&ModelResults> =
        results.models.iter().zip(&plan.models).filter(|(_, p)| p.figure).map(|(m, _)| m).collect();
    let roc: Vec<ModelCurve> = drawn.iter().filter_map(|m| m.roc.clone()).collect();
    let croc: Vec<ModelCurve> = drawn.iter().filter_map(|m| m.croc.clone()).collect();
    for model in &drawn {
        curves.extend(model.roc.iter().chain(&model.croc).map(|c| c.report.clone()));
    }
    let mut figures = Vec::new();
    if let Some(references) = references {
        let references = References {
            roc: if roc.is_empty() { Vec::new() } else { references.roc },
            croc: if croc.is_empty() { Vec::new() } else { references.croc },
        };
        curves.extend(references.roc.iter().chain(&references.croc).map(|r| r.report.clone()));
        let title = format!("{}, split 0", plan.title);
        for (kind, models, refs) in
            [("roc", &roc, &references.roc), ("croc", &croc, &references.croc)]
        {
            if !models.is_empty() {
                figures.push(Figure::curves(
                    &plan.name,
                    &format!("{}-{kind}.svg", plan.name),
                    &format!("{title} — {}", kind.to_uppercase()),
                    models,
                    refs,
                ));
            }
        }
    }
    figures.extend(view.validation_figures());
    figures.extend(view.group_figure());
    let claims = view.claims();
    let protocol = match &plan.protocol {
        ProtocolChoice::Predefined => "predefined training/test parts of the dataset".to_string(),
        ProtocolChoice::PredefinedNewUsers(given) => format!(
            "predefined training/test parts of the dataset, the test part's users read as new \
             people: each folded in from its visible events (given = {given}) and judged on \
             the rest"
        ),
        ProtocolChoice::Generated(p) => {
            format!("{}, {} split(s)", protocol_in_words(p), splits.len())
        }
    };
    let experiment = Experiment {
        id: plan.name.clone(),
        protocol,
        mode: plan.mode.clone(),
        candidates: splits[0].candidates as u64,
        positives: splits[0].positives as u64,
        curves,
        tables,
    };
    let mut files = Vec::new();
    if let Some(qrels) = qrels {
        files.push(("scores/qrels.tsv".to_string(), qrels));
        if let Some(train) = train {
            files.push(("scores/train.tsv".to_string(), train));
        }
        if let Some(attributes) = attributes {
            files.push(("scores/attributes.tsv".to_string(), attributes));
        }
        for (model, assessment) in plan.models.iter().zip(&mut splits[0].models) {
            if let Some(lines) = assessment.saved.take() {
                files.push((format!("scores/{}.tsv", file_safe(&model.label)), lines));
            }
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    for split in &splits {
        for (model, assessment) in plan.models.iter().zip(&split.models) {
            for w in &assessment.warnings {
                let line = format!("{}: {w}", model.label);
                if !warnings.contains(&line) {
                    warnings.push(line);
                }
            }
        }
    }
    Ok(ExperimentRun {
        experiment,
        dataset: dataset_entry(&data.dataset),
        figures,
        intro: intro(plan, data, splits.len()),
        warnings,
        files,
        results,
        claims,
        comparison,
    })
}

/// Per-model results, moved out of the splits.
fn results(
    plan: &Plan,
    splits: &mut [SplitResult],
    judgments: Option<recs_core::Judgments>,
) -> Results {
    let models = plan
        .models
        .iter()
        .enumerate()
        .map(|(m, model)| {
            let mut results = ModelResults {
                label: model.label.clone(),
                params: Vec::with_capacity(splits.len()),
                values: Vec::with_capacity(splits.len()),
                validation: Vec::with_capacity(splits.len()),
                item_scoring: Vec::with_capacity(splits.len()),
                timings: Vec::with_capacity(splits.len()),
                fit_facts: Vec::with_capacity(splits.len()),
                groups: Vec::with_capacity(splits.len()),
                user_values: Vec::with_capacity(splits.len()),
                versus: Vec::with_capacity(splits.len()),
                roc: None,
                croc: None,
            };
            for (n, split) in splits.iter_mut().enumerate() {
                let a = &mut split.models[m];
                results.params.push(std::mem::take(&mut a.params));
                results.values.push(std::mem::take(&mut a.values));
                results.validation.push(std::mem::take(&mut a.validation));
                results.item_scoring.push(a.item_scoring);
                results.timings.push(a.timing);
                results.fit_facts.push(std::mem::take(&mut a.fit_facts));
                results.groups.push(std::mem::take(&mut a.groups));
                results.user_values.extend(a.user_values.take());
                results.versus.extend(a.versus.take());
                if n == 0 {
                    results.roc = a.roc.take();
                    results.croc = a.croc.take();
                }
            }
            results
        })
        .collect();
    let split_ids = splits.iter().map(|s| s.id).collect();
    Results { keys: plan.keys(), models, split_ids, judgments }
}

/// The Markdown under an experiment's heading.
fn intro(plan: &Plan, data: &Loaded, n_splits: usize) -> String {
    let mut intro = String::new();
    if !plan.description.trim().is_empty() {
        intro.push_str(plan.description.trim());
        intro.push_str("\n\n");
    }
    intro.push_str(&format!(
        "Means over {n_splits} split(s) with 95% t intervals (± half-width; none with one \
         split). Curves and figures are of the first split. Metric definitions: \
         docs/metrics.md."
    ));
    if let Some(note) = &data.attribute_note {
        intro.push_str(&format!("\n\nItem attributes: {note}."));
    }
    intro
}

/// A report of several runs: experiments in order, each dataset once (by name), claims as
/// given; warnings and `notes` after the claims.
pub(crate) fn report(
    paper: &str,
    seed: u64,
    quick: bool,
    runs: Vec<ExperimentRun>,
    claims: Vec<Claim>,
    notes: &str,
) -> Result<(Report, Extras)> {
    let mut datasets: Vec<DatasetEntry> = Vec::new();
    let mut experiments = Vec::with_capacity(runs.len());
    let mut extras = Extras::default();
    let mut warnings: Vec<String> = Vec::new();
    let mut comparisons = Vec::new();
    let single = runs.len() == 1;
    for run in runs {
        if let Some(comparison) = run.comparison {
            // Filed under the experiment's id as it stands now (a caller may rename it).
            comparisons
                .push(ComparisonFamily { experiment: run.experiment.id.clone(), ..comparison });
        }
        if !datasets.iter().any(|d| d.name == run.dataset.name) {
            datasets.push(run.dataset);
        }
        if single {
            extras.intro = run.intro;
        } else {
            extras.intro.push_str(&format!("**{}.** {}\n\n", run.experiment.id, run.intro));
        }
        warnings
            .extend(run.warnings.into_iter().filter(|w| !warnings.contains(w)).collect::<Vec<_>>());
        experiments.push(run.experiment);
        extras.figures.extend(run.figures);
        extras.files.extend(run.files);
    }
    if !single {
        extras.intro = extras.intro.trim_end().to_string();
    }
    if !warnings.is_empty() {
        extras.notes.push_str("\n## Warnings\n\n");
        for w in &warnings {
            extras.notes.push_str(&format!("- {w}\n"));
        }
    }
    extras.notes.push_str(notes);
    let report =
        Report { datasets, experiments, claims, comparisons, ..Report::new(paper, seed, quick) };
    let problems = report.validate();
    if !problems.is_empty() {
        return Err(BenchError::Contract(problems));
    }
    Ok((report, extras))
}

/// Tables, figures and claims of one run, read from its results.
struct View<'a> {
    plan: &'a Plan,
    data: &'a Loaded,
    splits: &'a [SplitResult],
    results: &'a Results,
}

impl View<'_> {
    fn results_table(&self) -> Table {
        let mut columns = vec!["model".to_string(), "params".to_string()];
        for key in &self.results.keys {
            columns.push(key.clone());
            columns.push(format!("{key} ±95%"));
        }
        let rows = self
            .results
            .models
            .iter()
            .map(|model| {
                let mut row = vec![json!(model.label), json!(chosen_params(model))];
                for k in 0..self.results.keys.len() {
                    let (mean, half) = model.summary(k);
                    row.push(cell(mean));
                    row.push(cell(half));
                }
                row
            })
            .collect();
        Table {
            name: format!(
                "Results: mean over {} split(s), 95% t half-width",
                self.results.n_splits()
            ),
            columns,
            rows,
        }
    }

    fn split_table(&self) -> Table {
        Table {
            name: "Splits".to_string(),
            columns: [
                "repetition",
                "fold",
                "training events",
                "test events",
                "judged users",
                "candidates",
                "positives",
            ]
            .map(String::from)
            .to_vec(),
            rows: self
                .splits
                .iter()
                .map(|s| {
                    vec![
                        json!(s.id.repetition),
                        json!(s.id.fold),
                        json!(s.train_events),
                        json!(s.test_events),
                        json!(s.judged_users),
                        json!(s.candidates),
                        json!(s.positives),
                    ]
                })
                .collect(),
        }
    }

    fn per_split_table(&self) -> Table {
        let mut columns: Vec<String> =
            ["model", "repetition", "fold", "params", "items scored"].map(String::from).to_vec();
        columns.extend(self.results.keys.iter().cloned());
        let mut rows = Vec::new();
        for model in &self.results.models {
            for (n, split) in self.splits.iter().enumerate() {
                let mut row = vec![
                    json!(model.label),
                    json!(split.id.repetition),
                    json!(split.id.fold),
                    json!(params_text(&model.params[n])),
                    json!(model.item_scoring[n]),
                ];
                row.extend(model.values[n].iter().map(|v| cell(*v)));
                rows.push(row);
            }
        }
        Table { name: "Per split".to_string(), columns, rows }
    }

    /// What each fitted model said of its fit ([`recs_core::Recommender::fit_facts`]), one
    /// row per model, split and fact; `None` when no model says anything.
    fn fit_table(&self) -> Option<Table> {
        let mut rows = Vec::new();
        for model in &self.results.models {
            for (n, split) in self.splits.iter().enumerate() {
                for (fact, value) in &model.fit_facts[n] {
                    rows.push(vec![
                        json!(model.label),
                        json!(split.id.repetition),
                        json!(split.id.fold),
                        json!(fact),
                        cell(Some(*value)),
                    ]);
                }
            }
        }
        (!rows.is_empty()).then(|| Table {
            name: "How the fits went".to_string(),
            columns: ["model", "repetition", "fold", "fact", "value"].map(String::from).to_vec(),
            rows,
        })
    }

    fn selection_table(&self) -> Option<Table> {
        let selection = self.plan.selection.as_ref()?;
        let key = self.results.keys.iter().position(|k| *k == selection.key)?;
        let mut rows = Vec::new();
        for model in &self.results.models {
            for (n, split) in self.splits.iter().enumerate() {
                for (params, values) in &model.validation[n] {
                    rows.push(vec![
                        json!(model.label),
                        json!(split.id.repetition),
                        json!(split.id.fold),
                        json!(params_text(params)),
                        cell(values.get(key).copied().flatten()),
                        json!(*params == model.params[n]),
                    ]);
                }
            }
        }
        if rows.is_empty() {
            return None;
        }
        Some(Table {
            name: format!(
                "Model selection by validation {} inside each training part",
                selection.key
            ),
            columns: vec![
                "model".into(),
                "repetition".into(),
                "fold".into(),
                "params".into(),
                format!("validation {}", selection.key),
                "chosen".into(),
            ],
            rows,
        })
    }

    /// What the user groups are of, in words.
    fn group_axis(&self) -> String {
        match self.plan.group_by {
            g @ (GroupBy::Known | GroupBy::Events) => format!("{} per user", g.axis()),
            g => g.axis().to_string(),
        }
    }

    /// The groups' labels (the data are checked to have the grouping's field before any
    /// split is run, so a failure here cannot happen after a run; none then).
    fn group_labels(&self) -> Vec<String> {
        super::groups::UserGroups::new(self.plan, self.data).map(|g| g.labels()).unwrap_or_default()
    }

    /// Per group: (mean of the group metric over every judged user of every split in the
    /// group, users counted).
    fn group_means(model: &ModelResults, n_groups: usize) -> Vec<(Option<f64>, usize)> {
        (0..n_groups)
            .map(|g| {
                let (sum, count) = model
                    .groups
                    .iter()
                    .filter_map(|split| split.get(g))
                    .fold((0.0, 0), |(s, c), (s2, c2)| (s + s2, c + c2));
                ((count > 0).then(|| sum / count as f64), count)
            })
            .collect()
    }

    fn groups_table(&self) -> Option<Table> {
        let metric = self.plan.group_metric?.to_string();
        let labels = self.group_labels();
        let mut rows = Vec::new();
        for model in &self.results.models {
            for (label, (mean, count)) in labels.iter().zip(Self::group_means(model, labels.len()))
            {
                rows.push(vec![json!(model.label), json!(label), json!(count), cell(mean)]);
            }
        }
        Some(Table {
            name: format!("{metric} by user group ({}; users of every split)", self.group_axis()),
            columns: vec!["model".into(), "group".into(), "users".into(), metric],
            rows,
        })
    }

    /// Per model, the gap between the user groups (`evaluation.group_gap`): in each split,
    /// the mean absolute difference of the means of the groups with a user; their mean
    /// over the splits with two such groups, and a 95% t interval over those splits (the
    /// splits are the independent repetitions; none with fewer than two).
    fn gap_table(&self) -> Option<Table> {
        if !self.plan.group_gap {
            return None;
        }
        let metric = self.plan.group_metric?.to_string();
        let mut rows = Vec::new();
        for model in &self.results.models {
            let gaps: Vec<f64> = model
                .groups
                .iter()
                .filter_map(|split| {
                    let means: Vec<f64> =
                        split.iter().filter(|g| g.1 > 0).map(|&(sum, n)| sum / n as f64).collect();
                    (means.len() >= 2).then(|| recs_metrics::mean_absolute_difference(&means))
                })
                .collect();
            let mean = (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64);
            let interval = recs_metrics::t_interval(&gaps).ok();
            rows.push(vec![
                json!(model.label),
                json!(gaps.len()),
                cell(mean),
                cell(interval.as_ref().map(|i| i.lower)),
                cell(interval.as_ref().map(|i| i.upper)),
            ]);
        }
        Some(Table {
            name: format!(
                "{metric} gap between user groups ({}): mean absolute difference of the group \
                 means in each split, mean over the splits, 95% t interval",
                self.group_axis()
            ),
            columns: vec![
                "model".into(),
                "splits".into(),
                "gap".into(),
                "ci95_lower".into(),
                "ci95_upper".into(),
            ],
            rows,
        })
    }

    fn group_figure(&self) -> Option<Figure> {
        let metric = self.plan.group_metric?.to_string();
        let labels = self.group_labels();
        let series = self
            .results
            .models
            .iter()
            .map(|model| {
                let means = Self::group_means(model, labels.len());
                (model.label.clone(), means.into_iter().map(|g| g.0).collect())
            })
            .collect();
        Some(Figure::new(
            &self.plan.name,
            &format!("{}-groups.svg", self.plan.name),
            crate::plot::Figure::Bars(BarChart {
                title: format!("{} — {metric} by user group", self.plan.title),
                x_label: self.group_axis(),
                y_label: metric,
                categories: labels,
                series,
            }),
        ))
    }

    /// Validation key against the parameter, for models whose grid varies one numeric
    /// parameter (first split).
    fn validation_figures(&self) -> Vec<Figure> {
        let Some(selection) = &self.plan.selection else { return Vec::new() };
        let Some(key_index) = self.results.keys.iter().position(|k| *k == selection.key) else {
            return Vec::new();
        };
        let mut figures = Vec::new();
        for (model, results) in self.plan.models.iter().zip(&self.results.models) {
            let Some(key) = &model.varying else { continue };
            let points: Option<Vec<[f64; 2]>> = results
                .validation()
                .iter()
                .map(|(params, values)| {
                    let x = params.iter().find(|(k, _)| k == key)?.1.parse::<f64>().ok()?;
                    Some([x, values.get(key_index).copied().flatten()?])
                })
                .collect();
            let Some(mut points) = points.filter(|p| p.len() > 1) else { continue };
            points.sort_by(|a, b| a[0].total_cmp(&b[0]));
            let (x0, x1) = (points[0][0], points[points.len() - 1][0]);
            if x0 >= x1 {
                continue;
            }
            let y_min = points.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
            let y_max = points.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
            let pad = ((y_max - y_min) * 0.1).max(1e-3);
            let chart = Chart {
                title: format!("{}: validation {} by {key} (split 0)", model.label, selection.key),
                x_label: key.clone(),
                y_label: format!("validation {}", selection.key),
                x_range: (x0, x1),
                y_range: (y_min - pad, y_max + pad),
                series: vec![Series {
                    label: model.label.clone(),
                    markers: points.clone(),
                    points,
                    band: Vec::new(),
                    kind: LineKind::Model,
                }],
                legend: Corner::LowerRight,
            };
            figures.push(Figure::new(
                &self.plan.name,
                &format!("{}-validation-{}.svg", self.plan.name, file_safe(&model.label)),
                crate::plot::Figure::Lines(chart),
            ));
        }
        figures
    }

    /// The configuration's claims, judged by the common decision rule on the paired
    /// difference of the two models over the run's splits ([`Results::paired_effect`]).
    fn claims(&self) -> Vec<Claim> {
        let plan = self.plan;
        let models = &self.results.models;
        plan.claims
            .iter()
            .map(|claim| {
                let key = &self.results.keys[claim.key];
                let (better, worse) = (&models[claim.better], &models[claim.worse]);
                let lower = plan.lower_is_better(key);
                // A negative margin states "no worse than by |margin|".
                let (m, no_worse) = (claim.margin.abs(), claim.margin < 0.0);
                let rule = match (lower, no_worse) {
                    (false, false) => Rule::above(m),
                    (false, true) => Rule::not_below(m),
                    (true, false) => Rule::below(m),
                    (true, true) => Rule::not_above(m),
                };
                let effect = self
                    .results
                    .paired_effect(&better.label, &worse.label, key)
                    .unwrap_or_else(|| Effect::mean_of(&[], true, false));
                let subject = format!("{key}: {} − {}", better.label, worse.label);
                let measured = format!(
                    "{key} {} − {}: {} over {} split(s)",
                    better.label,
                    worse.label,
                    effect.describe(4),
                    self.results.n_splits()
                );
                Claim::new(
                    claim.id.clone(),
                    claim.statement.clone(),
                    Quote {
                        section: "the configuration".into(),
                        words: format!(
                            "{key}: {} − {} {}",
                            better.label,
                            worse.label,
                            rule.short()
                        ),
                    },
                    measured,
                    vec![
                        Reading::new("as configured", vec![Test::new(subject, rule, effect)])
                            .with_choices([Choice::ours(
                                ChoiceKind::Comparison,
                                "the configured comparison",
                                rule.short(),
                                "written in the configuration before the run",
                            )]),
                    ],
                )
                .without_placebo("a configured claim names no model that cannot carry its signal")
            })
            .collect()
    }
}

/// `leave-k-out (k = fraction 0.2, min_train = 1)`: the protocol's name and parameters as
/// a configuration would write them.
fn protocol_in_words(protocol: &recs_split::Protocol) -> String {
    fn value(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Object(map) => {
                map.iter().map(|(k, v)| format!("{k} {}", value(v))).collect::<Vec<_>>().join(" ")
            }
            other => other.to_string(),
        }
    }
    let params: Vec<String> = match serde_json::to_value(protocol) {
        Ok(Value::Object(map)) => map
            .iter()
            .filter(|(k, _)| *k != "protocol")
            .map(|(k, v)| format!("{k} = {}", value(v)))
            .collect(),
        _ => Vec::new(),
    };
    if params.is_empty() {
        protocol.name().to_string()
    } else {
        format!("{} ({})", protocol.name(), params.join(", "))
    }
}

/// The parameters a model used: the same on every split, or each choice with its count.
fn chosen_params(model: &ModelResults) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for params in &model.params {
        let text = params_text(params);
        match seen.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => seen.push((text, 1)),
        }
    }
    if seen.len() == 1 {
        return seen.swap_remove(0).0;
    }
    seen.iter().map(|(t, n)| format!("{t} ({n}×)")).collect::<Vec<_>>().join("; ")
}

/// `k=20 similarity=cosine`.
pub(crate) fn params_text(params: &[(String, String)]) -> String {
    params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

/// Letters, digits, `-`, `_` and `.` kept; anything else becomes `_`.
fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect()
}

/// A dataset as recorded in a report: counts and the checksums of its files.
pub fn dataset_entry(dataset: &recs_data::Dataset) -> DatasetEntry {
    DatasetEntry {
        name: dataset.name.clone(),
        users: dataset.interactions.n_users() as u64,
        items: dataset.interactions.n_items() as u64,
        events: dataset.interactions.n_events() as u64,
        files: dataset
            .sources
            .iter()
            .map(|s| FileEntry {
                path: s.path.file_name().map_or_else(
                    || s.path.display().to_string(),
                    |f| f.to_string_lossy().into_owned(),
                ),
                sha256: s.sha256.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_split::Protocol;

    #[test]
    fn protocols_read_as_configurations_write_them() {
        let p = Protocol::LeaveKOut { k: recs_split::Amount::Fraction(0.2), min_train: 1 };
        assert_eq!(protocol_in_words(&p), "leave-k-out (k = fraction 0.2, min_train = 1)");
        assert_eq!(protocol_in_words(&Protocol::LeaveOneOut), "leave-one-out");
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_safe("item-kNN k=20 / cos"), "item-kNN_k_20___cos");
    }
}
