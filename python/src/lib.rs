//! The native half of the `recs` Python package (`recs._recs`).
//!
//! The Python half (`python/recs/`) turns dicts, pandas frames and Arrow tables into
//! factorised columns: a table of distinct user ids, a table of distinct item ids, and
//! per row a user code, an item code and a value, as little-endian bytes. This half
//! reads those rows (or files) with `recs_metrics::io`, exactly as `recs eval` reads
//! files, evaluates with `recs_metrics::evaluate`, and hands numbers back; nothing here
//! decides a metric's value, so Python and the command line cannot disagree.
//!
//! Every failure is a Python exception (`recs.RecsError`, or `OSError` for a file that
//! cannot be read) whose message names the file (or frame) and line (or row); no code
//! path here panics on input.

mod catalog;
mod facts;
mod versus;

use std::borrow::Cow;
use std::path::PathBuf;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use recs_core::Judgments;
use recs_metrics::io::{
    Candidates, CatalogRows, Qrels, Run, RunFormat, UserGroups, catalog_candidates,
    detect_run_format, qrels_from_rows, read_qrels, read_run, read_run_candidates,
    run_candidates_from_rows, run_from_rows, run_warnings,
};
use recs_metrics::stream::{CatalogUser, Evaluator, Part};
use recs_metrics::{
    ItemFacts, Metric, MetricsError, Options, PerUser, Report, RocAccumulator, Scored, TieBreak,
    ZeroPolicy, per_user_with,
};
use recs_sampled::versus::{CorrectedEstimators, CorrectedMetric};
use recs_split::{NegativeSampling, SampleBy, SampledUser};
use recs_stats::StatsError;
use recs_stats::family::{self, Cell, MetricValues, Pairs};
use serde::{Deserialize, Serialize};

use crate::facts::{FactOptions, Space, describe, known_facts};

pyo3::create_exception!(
    _recs,
    RecsError,
    pyo3::exceptions::PyValueError,
    "Invalid input or options: the message names the file or frame and the line or row."
);

/// A library error as a Python exception.
fn error(e: MetricsError) -> PyErr {
    match e {
        MetricsError::Io { .. } => PyOSError::new_err(e.to_string()),
        e => RecsError::new_err(e.to_string()),
    }
}

fn invalid(message: impl Into<String>) -> PyErr {
    RecsError::new_err(message.into())
}

/// Little-endian `u32`s from bytes.
fn u32s(bytes: &[u8], what: &str) -> PyResult<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(invalid(format!("{what}: {} bytes is not a whole number of u32", bytes.len())));
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Little-endian `f32`s from bytes.
fn f32s(bytes: &[u8], what: &str) -> PyResult<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(invalid(format!("{what}: {} bytes is not a whole number of f32", bytes.len())));
    }
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Little-endian bytes of `f64`s, for `numpy.frombuffer`.
fn f64_bytes<'py>(py: Python<'py>, values: impl Iterator<Item = f64>) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values.flat_map(f64::to_le_bytes).collect();
    PyBytes::new(py, &bytes)
}

/// `(user, item, value)` rows with factorised ids.
#[derive(Debug, Clone)]
struct Rows {
    users: Vec<String>,
    user_codes: Vec<u32>,
    items: Vec<String>,
    item_codes: Vec<u32>,
    values: Vec<f32>,
    /// What the rows are called in messages (`DataFrame`, `dict`, ...).
    source: PathBuf,
}

impl Rows {
    fn new(
        users: Vec<String>,
        user_codes: &[u8],
        items: Vec<String>,
        item_codes: &[u8],
        values: &[u8],
        source: String,
    ) -> PyResult<Self> {
        let user_codes = u32s(user_codes, "user codes")?;
        let item_codes = u32s(item_codes, "item codes")?;
        let values = f32s(values, "values")?;
        if user_codes.len() != item_codes.len() || user_codes.len() != values.len() {
            return Err(invalid(format!(
                "{source}: columns of different lengths ({} users, {} items, {} values)",
                user_codes.len(),
                item_codes.len(),
                values.len()
            )));
        }
        if user_codes.iter().any(|&c| c as usize >= users.len())
            || item_codes.iter().any(|&c| c as usize >= items.len())
        {
            return Err(invalid(format!("{source}: an id code beyond its table of ids")));
        }
        Ok(Rows { users, user_codes, items, item_codes, values, source: source.into() })
    }

    fn iter(&self) -> impl Iterator<Item = (&str, &str, f32)> + '_ {
        self.user_codes.iter().zip(&self.item_codes).zip(&self.values).map(|((&u, &i), &v)| {
            (self.users[u as usize].as_str(), self.items[i as usize].as_str(), v)
        })
    }
}

/// Judgments: per user, the graded items (all candidates under the `qrels` policy).
#[pyclass(module = "recs._recs", frozen)]
struct NativeQrels {
    qrels: Qrels,
    source: PathBuf,
}

#[pymethods]
impl NativeQrels {
    /// Qrels from factorised rows (grades as f32).
    #[staticmethod]
    fn from_rows(
        py: Python<'_>,
        users: Vec<String>,
        user_codes: &[u8],
        items: Vec<String>,
        item_codes: &[u8],
        grades: &[u8],
        source: String,
    ) -> PyResult<Self> {
        let rows = Rows::new(users, user_codes, items, item_codes, grades, source)?;
        let qrels = py.detach(|| qrels_from_rows(rows.iter(), &rows.source)).map_err(error)?;
        Ok(NativeQrels { qrels, source: rows.source })
    }

    /// Qrels read from a file as `recs eval --qrels` reads it.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let qrels = py.detach(|| read_qrels(&path)).map_err(error)?;
        Ok(NativeQrels { qrels, source: path })
    }

    /// The full-catalog candidates of `candidates="catalog"`, listed: every item of
    /// these qrels and of `train` that a judged user has no training event with, graded
    /// as here (0 when not graded).
    fn catalog(&self, py: Python<'_>, train: &NativeRun) -> PyResult<NativeQrels> {
        let RunSource::Rows(rows) = &train.source else {
            return Err(invalid("train must be held in memory (a dict or a frame)"));
        };
        let catalog = py
            .detach(|| catalog_candidates(&self.qrels, rows.iter().map(|(u, i, _)| (u, i))))
            .map_err(error)?;
        Ok(NativeQrels { qrels: catalog.qrels, source: self.source.clone() })
    }

    /// Users with at least one judged item.
    #[getter]
    fn n_users(&self) -> usize {
        self.qrels.judgments.n_judged_users()
    }

    /// Judged (user, item) pairs.
    #[getter]
    fn n_pairs(&self) -> usize {
        self.qrels.judgments.n_candidates()
    }

    /// `(users, items, grades)` as three lists, users then items in canonical order.
    fn rows(&self) -> (Vec<String>, Vec<String>, Vec<f32>) {
        let (mut users, mut items, mut grades) = (Vec::new(), Vec::new(), Vec::new());
        for row in self.qrels.judgments.iter() {
            let user = self.qrels.users.external(row.user).unwrap_or("?");
            for (&item, &grade) in row.items.iter().zip(row.grades) {
                users.push(user.to_string());
                items.push(self.qrels.items.external(item).unwrap_or("?").to_string());
                grades.push(grade);
            }
        }
        (users, items, grades)
    }
}

/// Where a run's scores come from.
enum RunSource {
    Rows(Rows),
    File { path: PathBuf, format: RunFormat },
}

/// Scores of (user, item) pairs, matched to qrels when evaluated.
#[pyclass(module = "recs._recs", frozen)]
struct NativeRun {
    source: RunSource,
}

#[pymethods]
impl NativeRun {
    /// A run from factorised rows (scores as f32).
    #[staticmethod]
    fn from_rows(
        users: Vec<String>,
        user_codes: &[u8],
        items: Vec<String>,
        item_codes: &[u8],
        scores: &[u8],
        source: String,
    ) -> PyResult<Self> {
        let rows = Rows::new(users, user_codes, items, item_codes, scores, source)?;
        Ok(NativeRun { source: RunSource::Rows(rows) })
    }

    /// A run file (`auto`, `tsv` or `trec`), read when evaluated, as `recs eval --run`.
    #[staticmethod]
    #[pyo3(signature = (path, format = "auto"))]
    fn from_file(path: PathBuf, format: &str) -> PyResult<Self> {
        let format: RunFormat = format.parse().map_err(error)?;
        let format = match format {
            RunFormat::Auto => detect_run_format(&path).map_err(error)?,
            f => f,
        };
        Ok(NativeRun { source: RunSource::File { path, format } })
    }

    /// True for a TREC run file (whose default candidate policy is `run`).
    #[getter]
    fn is_trec(&self) -> bool {
        matches!(self.source, RunSource::File { format: RunFormat::Trec, .. })
    }

    /// Number of rows (`None` for a file, read only when evaluated).
    #[getter]
    fn n_rows(&self) -> Option<usize> {
        match &self.source {
            RunSource::Rows(r) => Some(r.values.len()),
            RunSource::File { .. } => None,
        }
    }

    /// `(users, items, scores)` of a run held in memory.
    fn rows(&self) -> PyResult<(Vec<String>, Vec<String>, Vec<f32>)> {
        let RunSource::Rows(rows) = &self.source else {
            return Err(invalid("a run file is read only against qrels: evaluate it"));
        };
        Ok(rows.iter().map(|(u, i, s)| (u.to_string(), i.to_string(), s)).fold(
            (Vec::new(), Vec::new(), Vec::new()),
            |mut acc, (u, i, s)| {
                acc.0.push(u);
                acc.1.push(i);
                acc.2.push(s);
                acc
            },
        ))
    }
}

/// Evaluation settings, as the options of `recs eval`.
struct Settings {
    metrics: Vec<Metric>,
    /// Corrected sampled metrics (`ndcg@10~bv:0.1`), under uniform `sampled:N` only.
    corrected: Vec<CorrectedMetric>,
    /// How the run is read: `qrels` for a sampled candidate set, which lists its pairs.
    policy: Candidates,
    /// `sampled:N[:by]`: each judged user's relevant items and N negatives drawn from its
    /// catalog items (the draw of `recs eval --candidates sampled:N --seed S`).
    sampling: Option<NegativeSampling>,
    options: Options,
    max_fpr: f64,
}

/// The candidate policy as `recs eval --json` names it.
fn policy_label(policy: Candidates, sampling: Option<&NegativeSampling>) -> String {
    match sampling {
        Some(s) => format!("sampled:{}:{}", s.negatives, s.by),
        None => policy.to_string(),
    }
}

/// `sampled:N`, `sampled:N:uniform` or `sampled:N:popularity` with the draw's `seed`;
/// `None` for another policy.
fn parse_sampling(text: &str, seed: u64) -> PyResult<Option<NegativeSampling>> {
    let Some(rest) = text.strip_prefix("sampled:") else { return Ok(None) };
    let (count, by) = rest.split_once(':').unwrap_or((rest, "uniform"));
    let negatives = match count.parse::<usize>() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(invalid(format!(
                "candidates {text:?}: sampled:N needs a number of negatives N >= 1"
            )));
        }
    };
    let by = by.parse::<SampleBy>().map_err(|_| {
        invalid(format!(
            "candidates {text:?}: negatives are drawn by `uniform` or `popularity`, not {by:?}"
        ))
    })?;
    Ok(Some(NegativeSampling { negatives, by, seed }))
}

impl Settings {
    /// `seed` draws the negatives of `candidates="sampled:N"`.
    #[allow(clippy::too_many_arguments)]
    fn new(
        metrics: &str,
        ties: &str,
        candidates: &str,
        seed: u64,
        threshold: f32,
        zero: Option<&str>,
        max_fpr: f64,
    ) -> PyResult<Self> {
        let (corrected, library): (Vec<&str>, Vec<&str>) =
            metrics.split(',').partition(|name| CorrectedMetric::is_named(name));
        let metrics = Metric::parse_list(&library.join(",")).map_err(error)?;
        let mut parsed: Vec<CorrectedMetric> = Vec::with_capacity(corrected.len());
        for name in corrected {
            let c = name
                .trim()
                .parse::<CorrectedMetric>()
                .map_err(|e| invalid(format!("unknown metric {:?}: {e}", name.trim())))?;
            if !parsed.contains(&c) {
                parsed.push(c);
            }
        }
        if metrics.is_empty() {
            return Err(invalid("no metric asked for (besides corrected sampled ones)"));
        }
        let ties: TieBreak = ties.parse().map_err(error)?;
        let sampling = parse_sampling(candidates, seed)?;
        if let Some(c) = parsed.first() {
            match &sampling {
                Some(NegativeSampling { by: SampleBy::Uniform, .. }) => {}
                Some(_) => {
                    return Err(invalid(format!(
                        "{c} is a corrected sampled metric: its estimators assume uniform \
                         draws, and candidates=\"{candidates}\" draws by popularity"
                    )));
                }
                None => {
                    return Err(invalid(format!(
                        "{c} is a corrected sampled metric: it needs candidates=\"sampled:N\""
                    )));
                }
            }
        }
        let policy: Candidates = match sampling {
            Some(_) => Candidates::Qrels,
            None => candidates.parse().map_err(error)?,
        };
        let zero = zero.map(str::parse::<ZeroPolicy>).transpose().map_err(error)?;
        Ok(Settings {
            metrics,
            corrected: parsed,
            policy,
            sampling,
            options: policy.options(threshold, ties, zero),
            max_fpr,
        })
    }

    fn label(&self) -> String {
        policy_label(self.policy, self.sampling.as_ref())
    }
}

/// The sampled candidates (as qrels), each judged user's number of full-catalog negatives
/// and the warnings.
type SampledCandidates = (Qrels, Vec<(u32, u64)>, Vec<String>);

/// `candidates="sampled:N"`: every judged user of `qrels` with its relevant items (grade at
/// least `threshold`) and `sampling.negatives` of its other full-catalog candidates, drawn
/// from its id's stream, as `recs eval --candidates sampled:N` draws them; with the
/// warnings `recs eval` gives, and each judged user's number of full-catalog negatives
/// (`(user, n)`, ascending), what a corrected sampled metric estimates over.
fn sampled_candidates<'a>(
    qrels: &Qrels,
    known: impl IntoIterator<Item = (&'a str, &'a str)>,
    sampling: &NegativeSampling,
    threshold: f32,
    names: (&str, &str),
) -> PyResult<SampledCandidates> {
    let catalog = CatalogRows::new(qrels, known).map_err(error)?;
    let mut builder = Judgments::builder(qrels.users.len(), catalog.items().len());
    let mut n_short = 0;
    let mut catalog_negatives = Vec::with_capacity(qrels.judgments.iter().len());
    let n_graded_known = catalog
        .for_each_user(qrels, |user, items, grades| {
            let id = qrels.users.external(user).unwrap_or_default();
            catalog_negatives
                .push((user, grades.iter().filter(|&&g| g < threshold).count() as u64));
            let drawn = sampling.sample(
                SampledUser::Id(id),
                items,
                grades,
                |g| g >= threshold,
                catalog.popularity(),
            );
            n_short += usize::from(drawn.n_negatives < sampling.negatives);
            builder.push_user(user, &drawn.items, &drawn.grades)?;
            Ok(())
        })
        .map_err(error)?;
    let mut warnings = Vec::new();
    if n_short > 0 {
        let eligible = match sampling.by {
            SampleBy::Uniform => "eligible items",
            SampleBy::Popularity => "eligible items with training events",
        };
        warnings.push(format!(
            "{n_short} users have fewer than {} {eligible} (catalog items neither in their \
             training events nor relevant) and are judged on all they have",
            sampling.negatives
        ));
    }
    warnings.extend(CatalogRows::warning(n_graded_known, names.0, names.1));
    let judgments = builder.build().map_err(|e| error(e.into()))?;
    let qrels = Qrels { users: qrels.users.clone(), items: catalog.items().clone(), judgments };
    Ok((qrels, catalog_negatives, warnings))
}

/// The candidates (as qrels) and scores of a run under a candidate policy, with the
/// warnings `recs eval` gives.
struct Matched<'a> {
    qrels: Cow<'a, Qrels>,
    run: Run,
    warnings: Vec<String>,
    /// The judged users of the candidates before the run is read (the users a
    /// comparison expects every run to score), ascending.
    judged: Vec<u32>,
    /// Under `sampled:N`, each judged user's number of full-catalog negatives.
    catalog_negatives: Option<Vec<(u32, u64)>>,
}

/// `warn_users_without_run`: warn about the users of the qrels without a line in the run
/// (under `candidates="run"`); a comparison rules on them itself (`missing`).
fn matched<'a>(
    qrels: &'a NativeQrels,
    run: &NativeRun,
    settings: &Settings,
    train: Option<&NativeRun>,
    warn_users_without_run: bool,
) -> PyResult<Matched<'a>> {
    let policy = settings.policy;
    let mut warnings = Vec::new();
    if let Some(sampling) = &settings.sampling {
        let label = settings.label();
        let Some(train) = train else {
            return Err(invalid(format!(
                "candidates=\"{label}\" needs train: the training events"
            )));
        };
        let RunSource::Rows(rows) = &train.source else {
            return Err(invalid("train must be held in memory (a dict or a frame)"));
        };
        let names = (qrels.source.display().to_string(), rows.source.display().to_string());
        let (sampled, catalog_negatives, drawn_warnings) = sampled_candidates(
            &qrels.qrels,
            rows.iter().map(|(u, i, _)| (u, i)),
            sampling,
            settings.options.threshold,
            (&names.0, &names.1),
        )?;
        warnings.extend(drawn_warnings);
        let mut m =
            matched_on(qrels, run, policy, Cow::Owned(sampled), warnings, warn_users_without_run)?;
        m.catalog_negatives = Some(catalog_negatives);
        return Ok(m);
    }
    let base: Cow<'a, Qrels> = match (policy, train) {
        (Candidates::Catalog, None) => {
            return Err(invalid("candidates=\"catalog\" needs train: the training events"));
        }
        (Candidates::Catalog, Some(train)) => {
            let RunSource::Rows(rows) = &train.source else {
                return Err(invalid("train must be held in memory (a dict or a frame)"));
            };
            let catalog = catalog_candidates(&qrels.qrels, rows.iter().map(|(u, i, _)| (u, i)))
                .map_err(error)?;
            let names = (qrels.source.display().to_string(), rows.source.display().to_string());
            warnings.extend(catalog.warning(&names.0, &names.1));
            Cow::Owned(catalog.qrels)
        }
        (_, Some(_)) => {
            return Err(invalid("train is used by candidates=\"catalog\" and \"sampled:N\" only"));
        }
        (_, None) => Cow::Borrowed(&qrels.qrels),
    };
    matched_on(qrels, run, policy, base, warnings, warn_users_without_run)
}

/// The run read against `base`, the candidates of `policy` (with `warnings` so far).
fn matched_on<'a>(
    qrels: &'a NativeQrels,
    run: &NativeRun,
    policy: Candidates,
    base: Cow<'a, Qrels>,
    mut warnings: Vec<String>,
    warn_users_without_run: bool,
) -> PyResult<Matched<'a>> {
    let run_name = match &run.source {
        RunSource::Rows(r) => r.source.clone(),
        RunSource::File { path, .. } => path.clone(),
    };
    let (candidates, read, n_users_without_run) = match (&run.source, policy) {
        (RunSource::Rows(rows), Candidates::Run) => {
            let read = run_candidates_from_rows(rows.iter(), &rows.source, &base).map_err(error)?;
            (Some(read.qrels), read.run, read.n_users_without_run)
        }
        (RunSource::File { path, format }, Candidates::Run) => {
            let read = read_run_candidates(path, &base, *format).map_err(error)?;
            (Some(read.qrels), read.run, read.n_users_without_run)
        }
        (RunSource::Rows(rows), _) => {
            (None, run_from_rows(rows.iter(), &rows.source, &base).map_err(error)?, 0)
        }
        (RunSource::File { path, format }, _) => {
            (None, read_run(path, &base, *format).map_err(error)?, 0)
        }
    };
    let judged = base.judgments.users().to_vec();
    warnings.extend(run_warnings(
        policy,
        &read,
        if warn_users_without_run { n_users_without_run } else { 0 },
        &qrels.source.display().to_string(),
        &run_name.display().to_string(),
    ));
    let qrels = match candidates {
        Some(q) => Cow::Owned(q),
        None => base,
    };
    Ok(Matched { qrels, run: read, warnings, judged, catalog_negatives: None })
}

/// The report of a matched run, computed without the GIL.
fn report_of(
    py: Python<'_>,
    m: &Matched<'_>,
    settings: &Settings,
    keep_curves: bool,
    facts: ItemFacts<'_>,
) -> PyResult<Report> {
    let mut report = py
        .detach(|| {
            let scored = Scored::new(&m.qrels.judgments, &m.run.scores)?;
            let mut report = recs_metrics::evaluate_with(
                &scored,
                &settings.metrics,
                &settings.options,
                settings.max_fpr,
                keep_curves,
                facts,
            )?;
            report.warnings.extend(m.warnings.iter().cloned());
            Ok(report)
        })
        .map_err(error)?;
    if !settings.corrected.is_empty() {
        // As `recs eval --metrics` computes them (`recs_sampled::versus`).
        let sizes = m.catalog_negatives.as_deref().unwrap_or_default();
        let scored = Scored::new(&m.qrels.judgments, &m.run.scores).map_err(error)?;
        let users = scored.keyed_users();
        let estimators = CorrectedEstimators::new(&settings.corrected);
        let threshold = settings.options.threshold;
        let means = py
            .detach(|| estimators.run_means(users, sizes, threshold))
            .map_err(|e| invalid(e.to_string()))?;
        report.warnings.extend(means.warning());
        report.values.extend(means.values);
    }
    Ok(report)
}

/// The keys and values of `recs eval --json` (without intervals and comparisons).
fn report_dict<'py>(
    py: Python<'py>,
    report: &Report,
    policy: &str,
    options: &Options,
    n_ignored: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (key, value) in &report.values {
        out.set_item(key, *value)?;
    }
    out.set_item("candidates", policy)?;
    out.set_item("zero", options.zero.to_string())?;
    out.set_item("n_users", report.n_users)?;
    out.set_item("n_candidates", report.n_candidates)?;
    out.set_item("n_positives", report.n_positives)?;
    out.set_item("n_users_without_relevant", report.n_users_without_relevant)?;
    out.set_item("n_missing", report.n_missing)?;
    out.set_item("n_ignored", n_ignored)?;
    out.set_item("warnings", PyList::new(py, &report.warnings)?)?;
    Ok(out)
}

/// `(users, metric names, row-major f64 bytes)` of per-user values.
type PerUserTuple<'py> = (Vec<String>, Vec<String>, Bound<'py, PyBytes>);

/// The per-user values as a [`PerUserTuple`].
fn per_user_tuple<'py>(py: Python<'py>, values: &PerUser, qrels: &Qrels) -> PerUserTuple<'py> {
    let users = values
        .users()
        .iter()
        .map(|&u| qrels.users.external(u).unwrap_or("?").to_string())
        .collect();
    let names = values.metrics().iter().map(ToString::to_string).collect();
    let columns: Vec<Vec<f64>> = (0..values.metrics().len()).map(|c| values.column(c)).collect();
    let n = values.users().len();
    let flat = (0..n).flat_map(|r| columns.iter().map(move |col| col[r]));
    (users, names, f64_bytes(py, flat))
}

/// Evaluates `run` against `qrels`: the `recs eval --json` dict, and with `per_user`
/// the per-user values as `(users, metrics, row-major f64 bytes)`.
#[pyfunction]
#[pyo3(signature = (qrels, run, metrics, ties, candidates, train, threshold, zero, max_fpr, per_user, seed, head_share, head_items, attributes, similarity, user_groups, resamples, calibration_alpha, item_groups))]
#[allow(clippy::too_many_arguments)]
fn evaluate<'py>(
    py: Python<'py>,
    qrels: &NativeQrels,
    run: &NativeRun,
    metrics: &str,
    ties: &str,
    candidates: &str,
    train: Option<&NativeRun>,
    threshold: f32,
    zero: Option<&str>,
    max_fpr: f64,
    per_user: bool,
    seed: u64,
    head_share: Option<f64>,
    head_items: Option<usize>,
    attributes: Option<(Vec<String>, Vec<String>)>,
    similarity: &str,
    user_groups: Option<(Vec<String>, Vec<String>)>,
    resamples: usize,
    calibration_alpha: f64,
    item_groups: Option<(Vec<String>, Vec<String>)>,
) -> PyResult<(Bound<'py, PyDict>, Option<PerUserTuple<'py>>)> {
    let settings = Settings::new(metrics, ties, candidates, seed, threshold, zero, max_fpr)?;
    // The training events are the candidates' (catalog, sampled:N), the popularity's and
    // the histories' of calibration.
    let uses_train = settings.policy == Candidates::Catalog || settings.sampling.is_some();
    let reads_train = settings.metrics.iter().any(|m| m.needs_popularity() || m.needs_history());
    let candidates_train = train.filter(|_| uses_train || !reads_train);
    let m = matched(qrels, run, &settings, candidates_train, true)?;
    let options = (head_share, head_items, attributes, similarity.to_string(), calibration_alpha);
    let space = Space {
        users: (&m.qrels.users, m.qrels.judgments.n_users()),
        items: (&m.qrels.items, m.qrels.judgments.n_items()),
    };
    let known = known_facts(py, &settings.metrics, train, options, space)?;
    let mut report = report_of(py, &m, &settings, false, known.facts())?;
    let by_group = match (&user_groups, &report.per_user) {
        (Some((users, groups)), Some(values)) => {
            Some(groups_of(values, &m.qrels, users, groups, resamples, seed, &mut report.warnings)?)
        }
        (Some(_), None) => {
            return Err(invalid(format!(
                "user_groups break down per-user means ({}); none was asked for",
                Metric::USER_MEANS
            )));
        }
        (None, _) => None,
    };
    let by_item_group = match &item_groups {
        Some((items, groups)) => {
            let scored = (m.run.scores.as_slice(), known.facts());
            let asked = (&settings.metrics[..], &settings.options);
            let warnings = &mut report.warnings;
            Some(item_groups_of(
                &m.qrels,
                scored,
                asked,
                items,
                groups,
                (resamples, seed),
                warnings,
            )?)
        }
        None => None,
    };
    let dict = report_dict(py, &report, &settings.label(), &settings.options, m.run.n_ignored)?;
    for (key, breakdown) in [("groups", by_group), ("item_groups", by_item_group)] {
        if let Some((names, breakdowns)) = breakdown {
            dict.set_item(key, breakdowns_dict(py, &names, &breakdowns)?)?;
        }
    }
    describe(&known, &dict)?;
    if let Some(sampling) = &settings.sampling {
        dict.set_item("sampling_seed", sampling.seed)?;
    }
    let values = match (&report.per_user, per_user) {
        (Some(v), true) => Some(per_user_tuple(py, v, &m.qrels)),
        _ => None,
    };
    Ok((dict, values))
}

/// Each breakdown of `breakdowns` as the `groups` dict of `recs eval --json`.
fn breakdowns_dict<'py>(
    py: Python<'py>,
    names: &[String],
    breakdowns: &[recs_metrics::GroupBreakdown],
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for b in breakdowns {
        let groups = PyDict::new(py);
        for (name, (mean, n)) in names.iter().zip(&b.means) {
            let group = PyDict::new(py);
            group.set_item("mean", *mean)?;
            group.set_item("n_users", *n)?;
            groups.set_item(name, group)?;
        }
        let entry = PyDict::new(py);
        entry.set_item("groups", groups)?;
        entry.set_item("mad", b.gap.map(|g| g.0))?;
        entry.set_item("mad_ci95_bootstrap", b.gap.map(|g| g.1.to_vec()))?;
        out.set_item(&b.key, entry)?;
    }
    Ok(out)
}

/// The per-user means that read relevance by the item groups `(items[i], groups[i])`
/// give, as `recs eval --item-groups` breaks them down: the group names in byte order and
/// each mean's breakdown (items without a group counted in a warning).
fn item_groups_of(
    qrels: &Qrels,
    (scores, facts): (&[f32], recs_metrics::ItemFacts<'_>),
    (metrics, options): (&[Metric], &recs_metrics::Options),
    items: &[String],
    groups: &[String],
    (resamples, seed): (usize, u64),
    warnings: &mut Vec<String>,
) -> PyResult<(Vec<String>, Vec<recs_metrics::GroupBreakdown>)> {
    if items.len() != groups.len() {
        return Err(invalid("item_groups: as many items as groups"));
    }
    let pairs = items.iter().map(String::as_str).zip(groups.iter().map(String::as_str));
    let by_item = recs_metrics::io::ItemGroups::from_pairs(pairs).map_err(error)?;
    let (breakdowns, without) = by_item
        .breakdown(qrels, scores, metrics, options, facts, resamples, seed)
        .map_err(error)?;
    if breakdowns.is_empty() {
        return Err(invalid(format!(
            "item_groups break down the per-user means that read relevance ({}); none was \
             asked for",
            Metric::USER_MEANS
        )));
    }
    if without > 0 {
        warnings.push(format!(
            "item_groups: {without} of {} items of the qrels have no group and are relevant in \
             none",
            qrels.judgments.n_items()
        ));
    }
    warnings.extend(
        breakdowns
            .iter()
            .filter_map(|b| b.error.as_ref().map(|e| format!("{} by item group: {e}", b.key))),
    );
    Ok((by_item.names().to_vec(), breakdowns))
}

/// The per-user means of `values` by the groups `(users[i], groups[i])` give, as `recs
/// eval --user-groups` breaks them down: the group names in byte order and each mean's
/// breakdown (users without a group left out, counted in a warning).
fn groups_of(
    values: &PerUser,
    qrels: &Qrels,
    users: &[String],
    groups: &[String],
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> PyResult<(Vec<String>, Vec<recs_metrics::GroupBreakdown>)> {
    if users.len() != groups.len() {
        return Err(invalid("user_groups: as many users as groups"));
    }
    let pairs = users.iter().map(String::as_str).zip(groups.iter().map(String::as_str));
    let by_user = UserGroups::from_pairs(pairs).map_err(error)?;
    let (breakdowns, left_out) = by_user.breakdown(values, qrels, resamples, seed);
    if left_out > 0 {
        warnings.push(format!(
            "user_groups: {left_out} of {} evaluated users have no group and are left out of \
             the breakdown",
            values.users().len()
        ));
    }
    warnings.extend(
        breakdowns
            .iter()
            .filter_map(|b| b.error.as_ref().map(|e| format!("{} by group: {e}", b.key))),
    );
    Ok((by_user.names().to_vec(), breakdowns))
}

/// The pooled ROC and the CROC curves: `{"roc": (fpr bytes, tpr bytes, auc, pauc), ...}`.
#[pyfunction]
#[pyo3(signature = (qrels, run, candidates, train, threshold, max_fpr, seed))]
#[allow(clippy::too_many_arguments)]
fn curves<'py>(
    py: Python<'py>,
    qrels: &NativeQrels,
    run: &NativeRun,
    candidates: &str,
    train: Option<&NativeRun>,
    threshold: f32,
    max_fpr: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let settings =
        Settings::new("roc,croc", "expected", candidates, seed, threshold, None, max_fpr)?;
    let m = matched(qrels, run, &settings, train, true)?;
    let report = report_of(py, &m, &settings, true, ItemFacts::default())?;
    let out = PyDict::new(py);
    for (name, curve) in [("roc", &report.roc), ("croc", &report.croc)] {
        let Some(curve) = curve else {
            let key = format!("{name}_auc");
            let why = report.warnings.iter().find(|w| w.starts_with(&key));
            return Err(invalid(format!(
                "the {name} curve is undefined: {}",
                why.map_or("no positive or no negative candidate", |w| w.as_str())
            )));
        };
        let points = curve.points();
        let x = f64_bytes(py, points.iter().map(|p| p[0]));
        let y = f64_bytes(py, points.iter().map(|p| p[1]));
        out.set_item(name, (x, y, curve.auc(), curve.partial_auc(max_fpr)))?;
    }
    Ok(out)
}

/// Metrics reported as a mean of per-user values, to which paired tests apply.
/// A `recs-stats` error as a Python exception, with its chain of causes (`ndcg@10, a − b:
/// b[3] is NaN: …`), as `recs compare` prints it.
fn stats_error(e: StatsError) -> PyErr {
    let mut message = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        message.push_str(&format!(": {c}"));
        cause = c.source();
    }
    invalid(message)
}

/// The metrics of a comparison must be per-user means, each named once.
fn check_compare_metrics(metrics: &[Metric]) -> PyResult<()> {
    for (i, metric) in metrics.iter().enumerate() {
        if !metric.is_user_mean() {
            return Err(invalid(format!(
                "compare: {metric} is not a mean of per-user values, so it has no paired test; \
                 compare takes the per-user metrics ({})",
                Metric::USER_MEANS
            )));
        }
        if metrics[..i].contains(metric) {
            return Err(invalid(format!("compare: metrics names {metric} twice")));
        }
    }
    Ok(())
}

/// One run's part of a comparison.
struct RunValues {
    /// `table[metric][position]`: the value of the user at `position` of the users the
    /// run is expected to score, `NaN` where it has none.
    table: Vec<Vec<f64>>,
    /// The positions of the users it does not score at all.
    absent: Vec<usize>,
    /// What reading it left out.
    warnings: Vec<String>,
}

/// One run's per-user values in the order of `users`.
fn run_values(
    py: Python<'_>,
    m: &Matched<'_>,
    users: &[u32],
    settings: &Settings,
    name: &str,
    facts: ItemFacts<'_>,
) -> PyResult<RunValues> {
    let mut position = vec![usize::MAX; users.iter().map(|&u| u as usize + 1).max().unwrap_or(0)];
    for (at, &user) in users.iter().enumerate() {
        position[user as usize] = at;
    }
    let (values, scored_users, unscored) = py
        .detach(|| {
            let scored = Scored::new(&m.qrels.judgments, &m.run.scores)?;
            let mut scored_users = vec![false; users.len()];
            let mut unscored = (0, 0);
            for at in 0..scored.n_users() {
                let (user, scores) = scored.user(at);
                let n_nan = scores.iter().filter(|s| s.is_nan()).count();
                let at = position.get(user.user as usize).copied().unwrap_or(usize::MAX);
                if n_nan < scores.len() && at != usize::MAX {
                    scored_users[at] = true;
                    unscored = (unscored.0 + n_nan, unscored.1 + scores.len());
                }
            }
            let values = per_user_with(&scored, &settings.metrics, &settings.options, facts)?;
            Ok((values, scored_users, unscored))
        })
        .map_err(error)?;
    let mut warnings = m.warnings.clone();
    if unscored.0 > 0 && settings.policy != Candidates::Run {
        warnings.push(format!(
            "{name}: {} of the {} candidates of the users it scores have no score and rank lowest",
            unscored.0, unscored.1
        ));
    }
    let mut table = vec![vec![f64::NAN; users.len()]; settings.metrics.len()];
    for (c, column) in table.iter_mut().enumerate() {
        for (&user, value) in values.users().iter().zip(values.column(c)) {
            if let Some(&at) = position.get(user as usize).filter(|&&at| at != usize::MAX) {
                column[at] = value;
            }
        }
    }
    let absent = (0..users.len()).filter(|&u| !scored_users[u]).collect();
    Ok(RunValues { table, absent, warnings })
}

/// A family of comparisons of `runs` (named `names`) as `recs compare` makes it: the
/// per-user values of every metric paired over the users every run has a value for, then
/// `recs_stats::family::compare`. Returns `{"columns", "rows", "family", "marks",
/// "missing", "warnings"}`: the family's table (`Family::columns`, `Family::row`: those of
/// `recs compare --format csv`), its description, what decided `better`, and per run the
/// users it does not score (0 under `missing="zero"`).
#[pyfunction]
#[pyo3(signature = (qrels, runs, names, metrics, tests, adjust, baseline, tukey, permutations, resamples, seed, alpha, missing, ties, candidates, train, threshold, zero, facts))]
#[allow(clippy::too_many_arguments)]
fn compare<'py>(
    py: Python<'py>,
    qrels: &NativeQrels,
    runs: Vec<PyRef<'_, NativeRun>>,
    names: Vec<String>,
    metrics: &str,
    tests: Vec<String>,
    adjust: &str,
    baseline: Option<usize>,
    tukey: bool,
    permutations: usize,
    resamples: usize,
    seed: u64,
    alpha: f64,
    missing: &str,
    ties: &str,
    candidates: &str,
    train: Option<&NativeRun>,
    threshold: f32,
    zero: Option<&str>,
    facts: FactOptions,
) -> PyResult<Bound<'py, PyDict>> {
    let family_settings = family::Settings {
        tests: tests.iter().map(|t| t.parse()).collect::<Result<_, _>>().map_err(stats_error)?,
        adjustment: family::parse_adjustment(adjust).map_err(stats_error)?,
        permutations,
        resamples,
        seed,
        tukey,
        alpha,
    };
    let pairs = baseline.map_or(Pairs::All, Pairs::Baseline);
    family_settings.check(pairs).map_err(stats_error)?;
    let zero_missing = match missing {
        "error" => false,
        "zero" => true,
        _ => return Err(invalid(format!("unknown missing `{missing}` (allowed: error, zero)"))),
    };
    if runs.len() < 2 || names.len() != runs.len() {
        return Err(invalid("compare needs at least two runs, each with a name"));
    }
    let settings = Settings::new(metrics, ties, candidates, seed, threshold, zero, 0.3)?;
    check_compare_metrics(&settings.metrics)?;
    // `values[s][m][u]`, NaN where run `s` has no value for user `u`.
    let mut values = Vec::with_capacity(runs.len());
    let mut warnings: Vec<String> = Vec::new();
    let mut users: Vec<u32> = Vec::new();
    let mut missing_users = Vec::with_capacity(runs.len());
    // As in `evaluate`: the training events are the candidates' (catalog, sampled:N), the
    // popularity's and the histories' of calibration.
    let uses_train = settings.policy == Candidates::Catalog || settings.sampling.is_some();
    let reads_train = settings.metrics.iter().any(|m| m.needs_popularity() || m.needs_history());
    let candidates_train = train.filter(|_| uses_train || !reads_train);
    for (run, name) in runs.iter().zip(&names) {
        let m = matched(qrels, run, &settings, candidates_train, false)?;
        if users.is_empty() {
            users = m.judged.clone();
        }
        // Numbered as this run's candidates (a TREC run's are its own).
        let space = Space {
            users: (&m.qrels.users, m.qrels.judgments.n_users()),
            items: (&m.qrels.items, m.qrels.judgments.n_items()),
        };
        let known = known_facts(py, &settings.metrics, train, facts.clone(), space)?;
        let RunValues { mut table, absent, warnings: run_warnings } =
            run_values(py, &m, &users, &settings, name, known.facts())?;
        for w in run_warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        if let Some(&first) = absent.first() {
            if !zero_missing {
                let id = qrels.qrels.users.external(users[first]).unwrap_or("?");
                let what = match settings.policy {
                    Candidates::Run => "has no row for",
                    _ => "scores no candidate of",
                };
                return Err(invalid(format!(
                    "run {name} {what} {} of the {} users of the qrels (for example user {id}); \
                     every run must score every user, or missing=\"zero\" scores each such user \
                     0 on every metric",
                    absent.len(),
                    users.len()
                )));
            }
            for column in table.iter_mut() {
                for &u in &absent {
                    column[u] = 0.0;
                }
            }
        }
        missing_users.push(absent.len());
        values.push(table);
    }
    let metric_names: Vec<String> = settings.metrics.iter().map(ToString::to_string).collect();
    let mut systems = Vec::with_capacity(settings.metrics.len());
    for (c, metric) in metric_names.iter().enumerate() {
        let kept: Vec<usize> =
            (0..users.len()).filter(|&u| values.iter().all(|run| !run[c][u].is_nan())).collect();
        if kept.len() < 2 {
            return Err(invalid(format!(
                "{metric}: {} of the {} users of the qrels have a value in every run; the \
                 paired tests need at least 2",
                kept.len(),
                users.len()
            )));
        }
        let series: Vec<Vec<f64>> =
            values.iter().map(|run| kept.iter().map(|&u| run[c][u]).collect()).collect();
        systems.push(series);
    }
    let metric_values: Vec<MetricValues<'_>> = metric_names
        .iter()
        .zip(&systems)
        .zip(&settings.metrics)
        .map(|((metric, systems), m)| MetricValues {
            metric,
            systems,
            lower_is_better: m.lower_is_better(),
        })
        .collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let result = py
        .detach(|| family::compare(&metric_values, &name_refs, pairs, &family_settings))
        .map_err(stats_error)?;
    warnings.extend(result.warnings.iter().cloned());
    let out = PyDict::new(py);
    out.set_item("columns", result.columns())?;
    let metric_refs: Vec<&str> = metric_names.iter().map(String::as_str).collect();
    let rows = PyList::empty(py);
    for c in &result.comparisons {
        let row = PyList::empty(py);
        for cell in result.row(c, &metric_refs, &name_refs) {
            match cell {
                Cell::Text(text) => row.append(text)?,
                Cell::Count(n) => row.append(n)?,
                Cell::Number(x) => row.append(x)?,
                Cell::Missing => row.append(py.None())?,
            }
        }
        rows.append(row)?;
    }
    out.set_item("rows", rows)?;
    out.set_item("family", result.describe())?;
    out.set_item("marks", result.marks.key())?;
    out.set_item("missing", missing_users)?;
    out.set_item("warnings", warnings)?;
    Ok(out)
}

/// The serialised form of an accumulator.
#[derive(Serialize, Deserialize)]
struct State {
    /// Version of this layout.
    layout: u32,
    metrics: String,
    threshold: f32,
    ties: TieBreak,
    zero: ZeroPolicy,
    max_fpr: f64,
    /// `(judged users, items, pairs)` of the qrels the users were evaluated against.
    qrels_shape: (usize, usize, usize),
    /// Qrels indices of the users evaluated, ascending.
    users: Vec<u32>,
    n_ignored: u64,
    part: Part,
    /// The pairs of the pooled ROC, when `roc` is asked for.
    roc: Option<RocAccumulator>,
    /// The policy the listed candidates come from (`qrels` or `catalog`).
    candidates: Candidates,
}

const LAYOUT: u32 = 3;

/// A mergeable partial evaluation of the users seen so far (candidates: the qrels).
#[pyclass(module = "recs._recs")]
struct NativeAccumulator {
    evaluator: Evaluator,
    state: State,
}

/// The evaluator of every metric but the pooled ROC (kept apart in a
/// [`RocAccumulator`]: the streaming evaluator needs the positives before any negative).
fn evaluator_of(
    metrics: &str,
    threshold: f32,
    ties: TieBreak,
    zero: ZeroPolicy,
    max_fpr: f64,
) -> PyResult<Evaluator> {
    let mut metrics = Metric::parse_list(metrics).map_err(error)?;
    metrics.retain(|m| *m != Metric::Roc);
    let options = Options { threshold, ties, zero, ..Options::default() };
    Evaluator::new(&metrics, options, max_fpr).map_err(error)
}

/// True when `metrics` asks for the pooled ROC.
fn wants_roc(metrics: &str) -> PyResult<bool> {
    Ok(Metric::parse_list(metrics).map_err(error)?.contains(&Metric::Roc))
}

/// The report of the evaluator with the pooled ROC put back where `recs_metrics::evaluate`
/// puts it: its keys at the metric's place, its warning after those of earlier metrics.
fn with_roc(mut report: Report, state: &State) -> PyResult<Report> {
    let Some(roc) = &state.roc else { return Ok(report) };
    let metrics = Metric::parse_list(&state.metrics).map_err(error)?;
    let summary = roc.clone().summary(state.max_fpr);
    let mut values = Vec::with_capacity(report.values.len() + 2);
    let mut rest = std::mem::take(&mut report.values).into_iter();
    // Warnings before the ROC's: the missing-score one, then one per undefined curve.
    let mut warnings_before = usize::from(report.n_missing > 0);
    for metric in &metrics {
        let n_keys = match metric {
            Metric::Roc => {
                let pauc = format!("roc_pauc@{}", state.max_fpr);
                match &summary {
                    Ok(s) => {
                        values.push(("roc_auc".to_string(), Some(s.auc)));
                        values.push((pauc, Some(s.partial_auc)));
                    }
                    Err(e) => {
                        report.warnings.insert(warnings_before, e.to_string());
                        values.push(("roc_auc".to_string(), None));
                        values.push((pauc, None));
                    }
                }
                0
            }
            Metric::Croc => 2,
            _ => 1,
        };
        for _ in 0..n_keys {
            if let Some(kv) = rest.next() {
                let undefined_curve = kv.1.is_none() && (kv.0 == "croc_auc" || kv.0 == "user_auc");
                warnings_before += usize::from(undefined_curve);
                values.push(kv);
            }
        }
    }
    values.extend(rest);
    report.values = values;
    Ok(report)
}

fn shape(q: &Qrels) -> (usize, usize, usize) {
    (q.judgments.n_judged_users(), q.items.len(), q.judgments.n_candidates())
}

#[pymethods]
impl NativeAccumulator {
    #[new]
    #[pyo3(signature = (metrics, qrels, ties, candidates, threshold, zero, max_fpr))]
    fn new(
        metrics: &str,
        qrels: &NativeQrels,
        ties: &str,
        candidates: &str,
        threshold: f32,
        zero: Option<&str>,
        max_fpr: f64,
    ) -> PyResult<Self> {
        let candidates: Candidates = candidates.parse().map_err(error)?;
        if candidates == Candidates::Run {
            return Err(invalid("accumulators take candidates `qrels` or `catalog`"));
        }
        // Accumulators take listed candidates only: no draw, so no seed.
        let settings = Settings::new(metrics, ties, "qrels", 0, threshold, zero, max_fpr)?;
        let (ties, zero) = (settings.options.ties, settings.options.zero);
        let evaluator = evaluator_of(metrics, threshold, ties, zero, max_fpr)?;
        let state = State {
            layout: LAYOUT,
            metrics: metrics.to_string(),
            threshold,
            ties,
            zero,
            max_fpr,
            qrels_shape: shape(&qrels.qrels),
            users: Vec::new(),
            n_ignored: 0,
            part: evaluator.part(),
            roc: wants_roc(metrics)?.then(RocAccumulator::new),
            candidates,
        };
        Ok(NativeAccumulator { evaluator, state })
    }

    /// Evaluates the users of a batch of rows; every row of a user must be in this batch.
    fn update(&mut self, py: Python<'_>, qrels: &NativeQrels, batch: &NativeRun) -> PyResult<()> {
        let RunSource::Rows(rows) = &batch.source else {
            return Err(invalid("an accumulator takes batches held in memory"));
        };
        if shape(&qrels.qrels) != self.state.qrels_shape {
            return Err(invalid("these qrels are not the ones the accumulator was made with"));
        }
        let evaluator = &self.evaluator;
        let state = &mut self.state;
        py.detach(|| push_batch(evaluator, state, &qrels.qrels, rows))
    }

    /// Adds the users of `other` (no user may be in both).
    fn merge(&mut self, other: &NativeAccumulator) -> PyResult<()> {
        let (a, b) = (&self.state, &other.state);
        if (a.metrics.as_str(), a.threshold, a.ties, a.zero, a.qrels_shape, a.candidates)
            != (b.metrics.as_str(), b.threshold, b.ties, b.zero, b.qrels_shape, b.candidates)
            || a.max_fpr != b.max_fpr
        {
            return Err(invalid("accumulators of different metrics, options or qrels"));
        }
        let mut users = Vec::with_capacity(a.users.len() + b.users.len());
        let (mut i, mut j) = (0, 0);
        while i < a.users.len() || j < b.users.len() {
            match (a.users.get(i), b.users.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    return Err(invalid(format!(
                        "user index {x} is in both accumulators: each user's rows must be in \
                         one partition"
                    )));
                }
                (Some(&x), Some(&y)) if x < y => {
                    users.push(x);
                    i += 1;
                }
                (Some(&x), None) => {
                    users.push(x);
                    i += 1;
                }
                (_, Some(&y)) => {
                    users.push(y);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        self.state.users = users;
        self.state.n_ignored += other.state.n_ignored;
        self.state.part.merge(other.state.part.clone());
        if let (Some(a), Some(b)) = (&mut self.state.roc, &other.state.roc) {
            a.merge(b.clone());
        }
        Ok(())
    }

    /// The `recs eval --json` dict of the users seen.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let report = self.evaluator.finish(self.state.part.clone(), false).map_err(error)?;
        let report = with_roc(report, &self.state)?;
        let state = &self.state;
        let options = state.candidates.options(state.threshold, state.ties, Some(state.zero));
        report_dict(py, &report, &state.candidates.to_string(), &options, state.n_ignored as usize)
    }

    /// Users evaluated so far.
    #[getter]
    fn n_users(&self) -> usize {
        self.state.users.len()
    }

    /// The state as bytes (bincode).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = bincode::serde::encode_to_vec(&self.state, bincode::config::standard())
            .map_err(|e| invalid(format!("cannot serialise the accumulator: {e}")))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// An accumulator from [`NativeAccumulator::to_bytes`].
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let (state, read): (State, usize) =
            bincode::serde::decode_from_slice(data, bincode::config::standard())
                .map_err(|e| invalid(format!("not the bytes of an accumulator: {e}")))?;
        if state.layout != LAYOUT || read != data.len() {
            return Err(invalid("not the bytes of an accumulator of this version"));
        }
        let evaluator =
            evaluator_of(&state.metrics, state.threshold, state.ties, state.zero, state.max_fpr)?;
        Ok(NativeAccumulator { evaluator, state })
    }
}

/// The users of `rows` into `state`: each user's candidates are its qrels rows.
fn push_batch(
    evaluator: &Evaluator,
    state: &mut State,
    qrels: &Qrels,
    rows: &Rows,
) -> PyResult<()> {
    // (qrels user, qrels item or u32::MAX, score, row) of the rows of judged users.
    let user_index: Vec<Option<u32>> = rows
        .users
        .iter()
        .map(|u| qrels.users.get(u).filter(|&i| qrels.judgments.get(i).is_some()))
        .collect();
    let item_index: Vec<Option<u32>> = rows.items.iter().map(|i| qrels.items.get(i)).collect();
    let mut lines: Vec<(u32, u32, f32, usize)> = Vec::with_capacity(rows.values.len());
    let mut n_ignored = 0u64;
    for (row, ((&u, &i), &s)) in
        rows.user_codes.iter().zip(&rows.item_codes).zip(&rows.values).enumerate()
    {
        if s.is_nan() {
            return Err(invalid(format!(
                "{}:{}: score `NaN` is not a number",
                rows.source.display(),
                row + 1
            )));
        }
        match user_index[u as usize] {
            Some(user) => {
                lines.push((user, item_index[i as usize].unwrap_or(u32::MAX), s, row + 1))
            }
            None => n_ignored += 1,
        }
    }
    lines.sort_unstable_by_key(|l| (l.0, l.3));
    let mut batch_users = Vec::new();
    let (mut scores, mut graded, mut grades) = (Vec::new(), Vec::new(), Vec::new());
    let mut positions: Vec<usize> = Vec::new();
    for user_lines in lines.chunk_by(|a, b| a.0 == b.0) {
        let user = user_lines[0].0;
        if state.users.binary_search(&user).is_ok() {
            let id = qrels.users.external(user).unwrap_or("?");
            return Err(invalid(format!(
                "{}: user `{id}` was in an earlier batch: each user's rows must be in one batch",
                rows.source.display()
            )));
        }
        let Some(row) = qrels.judgments.get(user) else { continue };
        scores.clear();
        scores.resize(row.items.len(), f32::NAN);
        positions.clear();
        positions.resize(row.items.len(), 0);
        for &(_, item, score, line) in user_lines {
            let Ok(p) = row.items.binary_search(&item) else {
                n_ignored += 1;
                continue;
            };
            if positions[p] != 0 {
                let id = qrels.users.external(user).unwrap_or("?");
                let item = qrels.items.external(item).unwrap_or("?");
                return Err(invalid(format!(
                    "{}:{line}: user `{id}` item `{item}` scored again (first on line {})",
                    rows.source.display(),
                    positions[p]
                )));
            }
            positions[p] = line;
            scores[p] = score;
        }
        graded.clear();
        grades.clear();
        for (p, &g) in row.grades.iter().enumerate() {
            if g > 0.0 {
                graded.push(p as u32);
                grades.push(g);
            }
        }
        if let Some(roc) = &mut state.roc {
            roc.push_user(row.grades, &scores, state.threshold);
        }
        let candidate =
            CatalogUser { user, scores: &scores, excluded: &[], graded: &graded, grades: &grades };
        evaluator.push_user(&mut state.part, &candidate).map_err(error)?;
        batch_users.push(user);
    }
    state.n_ignored += n_ignored;
    state.users.extend(batch_users);
    state.users.sort_unstable();
    Ok(())
}

/// Little-endian `i64`s from bytes.
fn i64s(bytes: &[u8], what: &str) -> PyResult<Vec<i64>> {
    if !bytes.len().is_multiple_of(8) {
        return Err(invalid(format!("{what}: {} bytes is not a whole number of i64", bytes.len())));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

fn core_error(e: recs_core::RecsError) -> PyErr {
    RecsError::new_err(e.to_string())
}

/// `(user ids, item ids, user indices, item indices, values, timestamps or None)` of the
/// events of `m`, indices as little-endian `u32`, values `f32`, timestamps `i64`.
type EventsTuple<'py> = (
    Vec<String>,
    Vec<String>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
);

/// The events of `m` as an [`EventsTuple`].
fn events_tuple<'py>(
    py: Python<'py>,
    m: &recs_core::Interactions,
    users: &recs_core::IdMap,
    items: &recs_core::IdMap,
) -> EventsTuple<'py> {
    let n = m.n_events();
    let (mut u, mut i, mut v) =
        (Vec::with_capacity(4 * n), Vec::with_capacity(4 * n), Vec::with_capacity(4 * n));
    let mut t: Vec<u8> = Vec::new();
    let mut timed = true;
    for e in m.events() {
        u.extend_from_slice(&e.user.to_le_bytes());
        i.extend_from_slice(&e.item.to_le_bytes());
        v.extend_from_slice(&e.value.to_le_bytes());
        match e.timestamp {
            Some(ts) if timed => t.extend_from_slice(&ts.to_le_bytes()),
            _ => timed = false,
        }
    }
    let ids = |map: &recs_core::IdMap| map.iter().map(str::to_string).collect::<Vec<_>>();
    (
        ids(users),
        ids(items),
        PyBytes::new(py, &u),
        PyBytes::new(py, &i),
        PyBytes::new(py, &v),
        (timed && n > 0).then(|| PyBytes::new(py, &t)),
    )
}

/// The events of a registered dataset (`ml-100k`, `msweb`, ...), read from
/// `data_dir`, `RECS_DATA_DIR` or the user cache (never downloaded from here):
/// `{"events": EventsTuple, "test": EventsTuple}` (the test part when the source ships one).
#[pyfunction]
#[pyo3(signature = (name, data_dir = None))]
fn load_dataset<'py>(
    py: Python<'py>,
    name: &str,
    data_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut resolver = recs_data::Resolver::from_env().with_download(false);
    if data_dir.is_some() {
        resolver = resolver.with_data_dir(data_dir);
    }
    let dataset = py
        .detach(|| recs_data::load_named(name, &resolver))
        .map_err(|e| RecsError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    out.set_item(
        "events",
        events_tuple(py, &dataset.interactions, &dataset.users, &dataset.items),
    )?;
    if let Some(test) = &dataset.test {
        out.set_item("test", events_tuple(py, test, &dataset.users, &dataset.items))?;
    }
    Ok(out)
}

/// Splits factorised events with a protocol of `recs split` (`holdout`, `leave-k-out`,
/// ...; `keys` are its text parameters): `{"train", "test"[, "history"]}` as
/// [`EventsTuple`]s. Users and items are indexed in canonical order of their ids.
#[pyfunction]
#[pyo3(signature = (users, user_codes, items, item_codes, values, timestamps, protocol, keys, seed, repetition, fold))]
#[allow(clippy::too_many_arguments)]
fn split<'py>(
    py: Python<'py>,
    users: Vec<String>,
    user_codes: &[u8],
    items: Vec<String>,
    item_codes: &[u8],
    values: &[u8],
    timestamps: Option<&[u8]>,
    protocol: &str,
    keys: Vec<(String, String)>,
    seed: u64,
    repetition: u32,
    fold: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let rows = Rows::new(users, user_codes, items, item_codes, values, "DataFrame".into())?;
    let timestamps = timestamps.map(|t| i64s(t, "timestamps")).transpose()?;
    if timestamps.as_ref().is_some_and(|t| t.len() != rows.values.len()) {
        return Err(invalid("DataFrame: one timestamp per event is needed"));
    }
    let protocol = recs_split::Protocol::from_keys(protocol, &keys).map_err(core_error)?;
    let user_map = recs_core::IdMap::from_ids_sorted(&rows.users).map_err(core_error)?;
    let item_map = recs_core::IdMap::from_ids_sorted(&rows.items).map_err(core_error)?;
    let remap = |ids: &[String], map: &recs_core::IdMap| -> Vec<u32> {
        ids.iter().map(|id| map.get(id).unwrap_or(u32::MAX)).collect()
    };
    let (user_index, item_index) = (remap(&rows.users, &user_map), remap(&rows.items, &item_map));
    let events = (0..rows.values.len()).map(|k| {
        let (u, i, v) = (
            user_index[rows.user_codes[k] as usize],
            item_index[rows.item_codes[k] as usize],
            rows.values[k],
        );
        match &timestamps {
            Some(t) => recs_core::Event::at(u, i, v, t[k]),
            None => recs_core::Event::new(u, i, v),
        }
    });
    let data = recs_core::Interactions::from_events(
        user_map.len(),
        item_map.len(),
        events,
        recs_core::DuplicatePolicy::Error,
    )
    .map_err(core_error)?;
    let id = recs_split::SplitId::new(repetition, fold);
    let parts = py.detach(|| protocol.split(&data, seed, id)).map_err(core_error)?;
    let out = PyDict::new(py);
    out.set_item("train", events_tuple(py, parts.train(), &user_map, &item_map))?;
    out.set_item("test", events_tuple(py, parts.test(), &user_map, &item_map))?;
    if let Some(history) = parts.history() {
        out.set_item("history", events_tuple(py, history, &user_map, &item_map))?;
    }
    Ok(out)
}

/// The native module.
#[pymodule]
fn _recs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RecsError", m.py().get_type::<RecsError>())?;
    m.add_class::<NativeQrels>()?;
    m.add_class::<NativeRun>()?;
    m.add_class::<NativeAccumulator>()?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(curves, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(versus::sampled_vs_exact, m)?)?;
    m.add_function(wrap_pyfunction!(versus::sampled_vs_exact_factors, m)?)?;
    m.add_function(wrap_pyfunction!(load_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(split, m)?)?;
    m.add_function(wrap_pyfunction!(catalog::evaluate_factors, m)?)?;
    m.add_function(wrap_pyfunction!(catalog::evaluate_scorer, m)?)?;
    m.add("DEFAULT_SEED", recs_core::DEFAULT_SEED)?;
    Ok(())
}
