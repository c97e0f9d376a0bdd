//! `recs.sampled_vs_exact`: sampled metrics against exact ones, side by side, as
//! `recs eval --sampled-vs-exact --json` reports them.
//!
//! Each user's full-catalog candidates and each seed's draw come from the `catalog` and
//! `sampled:N` policies' code (`CatalogRows`, `NegativeSampling::sample`), the lists and
//! every number from `recs_sampled::versus`; this file only reads the inputs and builds
//! the dict, whose keys are those of the command's JSON.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use recs_core::Judgments;
use recs_metrics::io::{Candidates, CatalogRows, Qrels, read_run, run_from_rows, run_warnings};
use recs_metrics::{Scored, score_key};
use recs_sampled::versus::{
    EstimatorTable, Instance, RunValues, UserLists, orders, run_instances, run_values, spread,
};
use recs_sampled::{Correction, RankMetric};
use recs_split::{NegativeSampling, SampleBy, SampledUser};

use recs_metrics::io::ModelRows;
use recs_metrics::stream::{CatalogSource, TerminalProgress};
use recs_sampled::stream::{SeededDraws, stream_instances};

use crate::catalog::{Factors, row_catalog};
use crate::{NativeQrels, NativeRun, RunSource, error, invalid};

/// The comma-separated names parsed by `parse`, repeats dropped; `what` names the
/// argument in messages.
fn parse_list<T: PartialEq>(
    text: &str,
    what: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> PyResult<Vec<T>> {
    let mut out: Vec<T> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let value = parse(name).map_err(|e| invalid(format!("{what}: {e}")))?;
        if !out.contains(&value) {
            out.push(value);
        }
    }
    if out.is_empty() {
        return Err(invalid(format!("{what} names nothing")));
    }
    Ok(out)
}

/// The users' full-catalog candidates as qrels listing every one (what the runs are read
/// against), each user's lists, and warnings.
fn user_lists(
    qrels: &NativeQrels,
    train: &NativeRun,
    samplings: &[NegativeSampling],
    threshold: f32,
) -> PyResult<(Qrels, Vec<UserLists>, Vec<String>)> {
    let RunSource::Rows(rows) = &train.source else {
        return Err(invalid("train must be held in memory (a dict or a frame)"));
    };
    let catalog =
        CatalogRows::new(&qrels.qrels, rows.iter().map(|(u, i, _)| (u, i))).map_err(error)?;
    let mut builder = Judgments::builder(qrels.qrels.users.len(), catalog.items().len());
    let mut users = Vec::with_capacity(qrels.qrels.judgments.iter().len());
    let mut n_short = 0;
    let n_graded_known = catalog
        .for_each_user(&qrels.qrels, |user, items, grades| {
            let id = qrels.qrels.users.external(user).unwrap_or_default();
            let draws: Vec<_> = samplings
                .iter()
                .map(|sampling| {
                    let draw = sampling.sample(
                        SampledUser::Id(id),
                        items,
                        grades,
                        |g| g >= threshold,
                        catalog.popularity(),
                    );
                    n_short += usize::from(draw.n_negatives < sampling.negatives);
                    draw
                })
                .collect();
            let draws: Vec<(&[u32], &[f32])> =
                draws.iter().map(|d| (&d.items[..], &d.grades[..])).collect();
            users.push(UserLists::from_rows(items, grades, |g| g >= threshold, &draws));
            builder.push_user(user, items, grades)?;
            Ok(())
        })
        .map_err(error)?;
    let mut warnings: Vec<String> = samplings[0].short_draws_warning(n_short).into_iter().collect();
    let names = (qrels.source.display().to_string(), rows.source.display().to_string());
    warnings.extend(CatalogRows::warning(n_graded_known, &names.0, &names.1));
    let judgments = builder.build().map_err(|e| error(e.into()))?;
    let full =
        Qrels { users: qrels.qrels.users.clone(), items: catalog.items().clone(), judgments };
    Ok((full, users, warnings))
}

/// One run's values and how it was read.
struct RunResult {
    name: String,
    n_missing: usize,
    n_ignored: usize,
    values: RunValues,
}

/// Sampled metrics against exact ones for `runs` (named `names`): for every relevant item
/// of a user of `qrels` (grade at least `threshold`), its exact rank among the user's
/// full-catalog negatives (catalog: the items of `qrels` and `train`, less the user's
/// training events) and its sampled rank among the `negatives` each of `n_seeds` seeds
/// (`seed`, `seed + 1`, ...) draws `by` uniform or popularity draws; per run, metric and
/// estimator the exact mean and each seed's estimate, and across runs the orders. The
/// dict of `recs eval --sampled-vs-exact --json`.
#[pyfunction]
#[pyo3(signature = (qrels, runs, names, train, options))]
pub(crate) fn sampled_vs_exact<'py>(
    py: Python<'py>,
    qrels: &NativeQrels,
    runs: Vec<PyRef<'_, NativeRun>>,
    names: Vec<String>,
    train: &NativeRun,
    options: VersusOptions,
) -> PyResult<Bound<'py, PyDict>> {
    if runs.is_empty() || runs.len() != names.len() {
        return Err(invalid("give at least one run, each with a name"));
    }
    let asked = Asked::new(options)?;
    let threshold = asked.threshold;
    let (full, users, mut warnings) = user_lists(qrels, train, &asked.samplings, threshold)?;
    warnings.extend(UserLists::left_out_warning(&users));
    let n_users = users.iter().filter(|u| u.has_instances()).count();
    if n_users == 0 {
        return Err(nothing_to_rank(qrels, threshold));
    }
    let sizes = users
        .iter()
        .filter(|u| u.has_instances())
        .flat_map(|u| u.drawn.iter().map(|d| (u.negatives.len() as u64 + 1, d.len() as u64)))
        .collect();
    let table = asked.table(sizes)?;
    let qrels_name = format!("{} under candidates=\"catalog\"", qrels.source.display());
    let mut results = Vec::with_capacity(runs.len());
    let mut n_instances = 0;
    for (run, name) in runs.iter().zip(&names) {
        let read = match &run.source {
            RunSource::Rows(rows) => run_from_rows(rows.iter(), &rows.source, &full),
            RunSource::File { path, format } => read_run(path, &full, *format),
        }
        .map_err(error)?;
        warnings.extend(run_warnings(Candidates::Qrels, &read, 0, &qrels_name, name));
        let values = py.detach(|| -> PyResult<RunValues> {
            let scored = Scored::new(&full.judgments, &read.scores).map_err(error)?;
            let instances = run_instances(&users, |position, keys| {
                keys.extend(scored.user(position).1.iter().map(|&s| score_key(s)));
            });
            n_instances = instances.len();
            Ok(asked.values(&instances, &table))
        })?;
        results.push(RunResult {
            name: name.clone(),
            n_missing: read.n_missing,
            n_ignored: read.n_ignored,
            values,
        });
    }
    let counts = Counts { n_users, n_instances, n_sizes: table.n_sizes() };
    report(py, &asked, counts, &results, &warnings)
}

/// The error of a comparison without a relevant item to place.
fn nothing_to_rank(qrels: &NativeQrels, threshold: f32) -> PyErr {
    invalid(format!(
        "{}: no relevant item (grade at least {threshold}) of a user with negatives to rank it \
         against",
        qrels.source.display()
    ))
}

/// What a comparison was asked for, checked: the draws of each seed, the metrics and the
/// estimators.
struct Asked {
    negatives: usize,
    by: SampleBy,
    seeds: Vec<u64>,
    samplings: Vec<NegativeSampling>,
    metrics: Vec<RankMetric>,
    corrections: Vec<Correction>,
    threshold: f32,
}

/// What both entry points take, as the Python half passes them: `(negatives, by, seed,
/// seeds, metrics, corrections, threshold)`.
type VersusOptions = (usize, String, u64, usize, String, String, f32);

impl Asked {
    fn new(options: VersusOptions) -> PyResult<Self> {
        let (negatives, by, seed, n_seeds, metrics, corrections, threshold) = options;
        if negatives == 0 {
            return Err(invalid("negatives must be at least 1"));
        }
        if n_seeds == 0 {
            return Err(invalid("seeds must be at least 1"));
        }
        if !(threshold.is_finite() && threshold > 0.0) {
            return Err(invalid(format!("threshold must be finite and above 0, not {threshold}")));
        }
        let by: SampleBy = by.parse().map_err(|_| {
            invalid(format!("negatives are drawn by `uniform` or `popularity`, not {by:?}"))
        })?;
        let metrics = parse_list(&metrics, "metrics", |name| {
            name.to_ascii_lowercase().parse::<RankMetric>().map_err(|_| {
                format!(
                    "{name:?} is not a metric of one relevant item's rank: use auc, r@k (also \
                     recall@k, hit@k), p@k, ap (also mrr), ndcg or ndcg@k"
                )
            })
        })?;
        let corrections = parse_list(&corrections, "corrections", |name| {
            name.parse::<Correction>().map_err(|e| e.to_string())
        })?;
        // Seed s of K draws with `seed + s`, as `recs eval --sampled-vs-exact --seed`.
        let seeds: Vec<u64> = (0..n_seeds as u64).map(|s| seed.wrapping_add(s)).collect();
        let samplings: Vec<NegativeSampling> =
            seeds.iter().map(|&seed| NegativeSampling { negatives, by, seed }).collect();
        Ok(Asked { negatives, by, seeds, samplings, metrics, corrections, threshold })
    }

    /// The estimators of every catalog size `(n, m)` of `sizes`.
    fn table(&self, sizes: std::collections::BTreeSet<(u64, u64)>) -> PyResult<EstimatorTable> {
        EstimatorTable::build(sizes, &self.metrics, &self.corrections)
            .map_err(|e| invalid(e.to_string()))
    }

    /// The exact and estimated means over `instances`.
    fn values(&self, instances: &[Instance], table: &EstimatorTable) -> RunValues {
        run_values(instances, table, &self.metrics, self.corrections.len(), self.seeds.len())
    }
}

/// How many users, instances and catalog sizes a comparison had.
struct Counts {
    n_users: usize,
    n_instances: usize,
    n_sizes: usize,
}

/// The dict of `recs eval --sampled-vs-exact --json` for `results`.
fn report<'py>(
    py: Python<'py>,
    asked: &Asked,
    counts: Counts,
    results: &[RunResult],
    warnings: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let metric_names: Vec<String> = asked.metrics.iter().map(ToString::to_string).collect();
    let correction_names: Vec<String> = asked.corrections.iter().map(ToString::to_string).collect();
    let out = PyDict::new(py);
    out.set_item("mode", "sampled-vs-exact")?;
    out.set_item("negatives", asked.negatives)?;
    out.set_item("sampling", asked.by.name())?;
    out.set_item("seeds", &asked.seeds)?;
    out.set_item("metrics", &metric_names)?;
    out.set_item("corrections", &correction_names)?;
    out.set_item("n_users", counts.n_users)?;
    out.set_item("n_instances", counts.n_instances)?;
    out.set_item("n_catalog_sizes", counts.n_sizes)?;
    let run_list = PyList::empty(py);
    for result in results {
        let by_metric = PyDict::new(py);
        for (k, name) in metric_names.iter().enumerate() {
            let exact = result.values.exact[k];
            let entry = PyDict::new(py);
            entry.set_item("exact", exact)?;
            for (c, correction) in correction_names.iter().enumerate() {
                let per_seed = &result.values.estimated[c][k];
                let s = spread(per_seed, exact);
                let value = PyDict::new(py);
                value.set_item("per_seed", per_seed)?;
                value.set_item("mean", s.mean)?;
                value.set_item("sd", s.sd)?;
                value.set_item("error", s.error)?;
                value.set_item("rmse", s.rmse)?;
                entry.set_item(correction, value)?;
            }
            by_metric.set_item(name, entry)?;
        }
        let run = PyDict::new(py);
        run.set_item("run", &result.name)?;
        run.set_item("n_missing", result.n_missing)?;
        run.set_item("n_ignored", result.n_ignored)?;
        run.set_item("metrics", by_metric)?;
        run_list.append(run)?;
    }
    out.set_item("runs", run_list)?;
    if results.len() >= 2 {
        let values: Vec<&RunValues> = results.iter().map(|r| &r.values).collect();
        let by_metric = PyDict::new(py);
        for (k, name) in metric_names.iter().enumerate() {
            let by_correction = PyDict::new(py);
            for (c, correction) in correction_names.iter().enumerate() {
                let o = orders(&values, c, k, asked.seeds.len());
                let reversed = PyList::empty(py);
                for &(a, b, share) in &o.reversed {
                    let pair = PyDict::new(py);
                    pair.set_item("runs", [&results[a].name, &results[b].name])?;
                    pair.set_item("share", share)?;
                    reversed.append(pair)?;
                }
                let entry = PyDict::new(py);
                entry.set_item("kendall_tau", &o.tau)?;
                entry.set_item("kendall_tau_mean", o.tau_mean)?;
                entry.set_item("reversed", reversed)?;
                by_correction.set_item(correction, entry)?;
            }
            by_metric.set_item(name, by_correction)?;
        }
        out.set_item("orders", by_metric)?;
    }
    out.set_item("warnings", warnings)?;
    Ok(out)
}

/// Sampled metrics against exact ones for a factor model, streamed: the dot products of
/// `user_factors` (`users × rank`) and `item_factors` (`items × rank`, little-endian
/// `f32`, row-major; rows named by `user_ids` and `item_ids`) over every item row but a
/// user's training items, each user's relevant items placed among its negatives and among
/// each seed's draw without listing a score (`recs_sampled::stream`), as `recs eval
/// --sampled-vs-exact --user-factors --item-factors` does; the same dict as
/// [`sampled_vs_exact`], with one run named `name`.
#[pyfunction]
#[pyo3(signature = (user_factors, item_factors, rank, qrels, train, user_ids, item_ids, name, options, memory_budget_mib, progress))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sampled_vs_exact_factors<'py>(
    py: Python<'py>,
    user_factors: &[u8],
    item_factors: &[u8],
    rank: usize,
    qrels: &NativeQrels,
    train: &NativeRun,
    user_ids: Vec<String>,
    item_ids: Vec<String>,
    name: String,
    options: VersusOptions,
    memory_budget_mib: usize,
    progress: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let asked = Asked::new(options)?;
    let threshold = asked.threshold;
    let factors = Factors::read(user_factors, item_factors, rank, &user_ids, &item_ids)?;
    let (catalog, graded_known, rows) = row_catalog(qrels, train, &user_ids, &item_ids)?;
    let model = factors.model(&catalog)?;
    // Training events per column, for popularity draws.
    let mut popularity = vec![0u32; catalog.n_items()];
    for (_, item, _) in rows.iter() {
        if let Some(column) = catalog.items().get(item) {
            popularity[column as usize] += 1;
        }
    }
    let source = catalog.source(ModelRows(&model));
    let ids: Vec<&str> = (0..source.n_users())
        .map(|p| qrels.qrels.users.external(source.user(p)).unwrap_or_default())
        .collect();
    // Each user's draw follows its id's stream, as `candidates="sampled:N"` draws it.
    let draws = SeededDraws {
        samplings: asked.samplings.clone(),
        user: Box::new(move |position: usize| SampledUser::Id(ids[position])),
        popularity,
        threshold,
    };
    let bar = TerminalProgress::new(progress);
    let memory_budget = memory_budget_mib.saturating_mul(1 << 20);
    let streamed =
        py.detach(|| stream_instances(&source, |g| g >= threshold, &draws, memory_budget, &bar));
    bar.finish();
    let streamed = streamed.map_err(error)?;
    let mut warnings: Vec<String> =
        asked.samplings[0].short_draws_warning(streamed.n_short).into_iter().collect();
    warnings.extend(graded_known);
    warnings.extend(UserLists::left_out_warning_of(streamed.n_left_out));
    if streamed.n_users == 0 {
        return Err(nothing_to_rank(qrels, threshold));
    }
    let n_instances = streamed.instances.len();
    let (values, n_sizes) = py.detach(|| -> PyResult<(RunValues, usize)> {
        let table = asked.table(streamed.sizes)?;
        Ok((asked.values(&streamed.instances, &table), table.n_sizes()))
    })?;
    let results = [RunResult { name, n_missing: 0, n_ignored: 0, values }];
    let counts = Counts { n_users: streamed.n_users, n_instances, n_sizes };
    report(py, &asked, counts, &results, &warnings)
}
