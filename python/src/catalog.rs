//! Full-catalog evaluation of a model that lives outside `recs`: its factors
//! (`evaluate_factors`) or a callback that scores blocks of users (`evaluate_scorer`),
//! streamed by the driver `recs run` uses (`recs_metrics::stream::evaluate_catalog`) over
//! a `RowCatalog`, so no (user, item) pair is ever listed. Factors are scored by the
//! exact kernel of `recs run` (`recs_models_latent::FactorModel`).
//!
//! The evaluation runs without the GIL; a callback takes it back for each block it
//! scores, so scoring a block (on a GPU, say) and ranking the previous ones overlap.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use recs_core::Recommender;
use recs_metrics::io::{ModelRows, RowCatalog, RowNames, RowScorer};
use recs_metrics::stream::{self, CatalogMetrics, TerminalProgress};
use recs_metrics::{Metric, MetricsError, Report};
use recs_models_latent::FactorModel;

use crate::facts::{FactOptions, Space, describe, known_facts};
use crate::{NativeQrels, NativeRun, Rows, RunSource, Settings, error, f32s, invalid, report_dict};
use recs_metrics::KnownFacts;

/// What the Python arguments are called in messages.
const NAMES: RowNames<'static> = RowNames {
    qrels: "qrels",
    train: "train",
    users: "the user rows (users=)",
    items: "the item rows (items=)",
};

/// A failure while streaming: the library's, or the callback's own exception.
enum Failure {
    Metrics(MetricsError),
    Python(PyErr),
}

impl From<MetricsError> for Failure {
    fn from(e: MetricsError) -> Self {
        Failure::Metrics(e)
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Metrics(e) => error(e),
            Failure::Python(e) => e,
        }
    }
}

/// The streamed evaluation's settings and its catalog, shared by both entry points.
struct Streamed {
    settings: Settings,
    catalog: RowCatalog,
    /// The warning `evaluate` gives about graded training pairs, in its words.
    warning: Option<String>,
    /// What the metrics of the lists' items read, numbered as the catalog.
    known: KnownFacts,
    memory_budget: usize,
    progress: bool,
}

/// The options both entry points take, as the Python half passes them: `(metrics, ties,
/// threshold, zero, max_fpr, memory_budget_mib, progress)`.
type StreamOptions = (String, String, f32, Option<String>, f64, usize, bool);

impl Streamed {
    fn new(
        py: Python<'_>,
        qrels: &NativeQrels,
        train: &NativeRun,
        user_ids: &[String],
        item_ids: &[String],
        options: StreamOptions,
        facts: FactOptions,
    ) -> PyResult<Self> {
        let (metrics, ties, threshold, zero, max_fpr, memory_budget_mib, progress) = options;
        let zero = zero.as_deref();
        let settings = Settings::new(&metrics, &ties, "catalog", 0, threshold, zero, max_fpr)?;
        let (catalog, warning, _) = row_catalog(qrels, train, user_ids, item_ids)?;
        let memory_budget = memory_budget_mib.saturating_mul(1 << 20);
        let space = Space {
            users: (&qrels.qrels.users, qrels.qrels.judgments.n_users()),
            items: (catalog.items(), catalog.n_items()),
        };
        let known = known_facts(py, &settings.metrics, Some(train), facts, space)?;
        Ok(Streamed { settings, catalog, warning, known, memory_budget, progress })
    }

    /// Streams `scorer`'s scores without the GIL; the `recs eval --json` dict.
    fn evaluate<'py, S>(&self, py: Python<'py>, scorer: S) -> PyResult<Bound<'py, PyDict>>
    where
        S: RowScorer + Send,
        Failure: From<S::Error>,
    {
        self.stream(py, scorer, None)
    }

    /// As [`Streamed::evaluate`], the catalog scored and counted on the first GPU (or,
    /// `emulated`, by its kernels compiled for the CPU).
    fn evaluate_on_gpu<'py, S>(
        &self,
        py: Python<'py>,
        scorer: S,
        scores: recs_cuda::Scores<'_, S::Error>,
        device: recs_cuda::DeviceSettings,
        emulated: bool,
    ) -> PyResult<Bound<'py, PyDict>>
    where
        S: RowScorer + Send,
        Failure: From<S::Error>,
    {
        self.stream(py, scorer, Some((scores, device, emulated)))
    }

    /// The evaluation of `scorer`'s catalog, counted on the CPU or, with `gpu`, on the
    /// device it names (scores, memory, emulated).
    fn stream<'py, S>(
        &self,
        py: Python<'py>,
        scorer: S,
        gpu: Option<(recs_cuda::Scores<'_, S::Error>, recs_cuda::DeviceSettings, bool)>,
    ) -> PyResult<Bound<'py, PyDict>>
    where
        S: RowScorer + Send,
        Failure: From<S::Error>,
    {
        let metrics = CatalogMetrics {
            metrics: &self.settings.metrics,
            options: self.settings.options,
            max_fpr: self.settings.max_fpr,
            memory_budget: self.memory_budget,
        };
        let name = |emulated| if emulated { "cuda-emulator" } else { "cuda" };
        if let (Some((_, _, emulated)), Some(m)) = (&gpu, self.reads_lists()) {
            return Err(invalid(format!(
                "{m} reads each user's top-N list, which device=\"{}\" does not select; \
                 evaluate it with device=\"cpu\"",
                name(*emulated)
            )));
        }
        let bar = TerminalProgress::new(self.progress);
        let source = self.catalog.source(scorer);
        let facts = self.known.facts();
        let result: Result<Report, Failure> = py.detach(|| {
            let Some((scores, device, emulated)) = gpu else {
                return stream::evaluate_catalog_with(&source, metrics, facts, false, &bar)
                    .map_err(Failure::from);
            };
            let name = name(emulated);
            let unavailable = |e| Failure::Python(invalid(format!("device=\"{name}\": {e}")));
            let mut gpu = recs_cuda::open_device(emulated).map_err(unavailable)?;
            recs_cuda::evaluate_catalog_on(&mut *gpu, &source, scores, metrics, device, false, &bar)
                .map_err(|e| match e {
                    recs_cuda::Error::Source(e) => Failure::from(e),
                    recs_cuda::Error::Metrics(e) => Failure::Metrics(e),
                    recs_cuda::Error::Device(e) => unavailable(e),
                })
        });
        bar.finish();
        let mut report = result?;
        report.warnings.extend(self.warning.iter().cloned());
        let dict = report_dict(py, &report, "catalog", &self.settings.options, 0)?;
        describe(&self.known, &dict)?;
        Ok(dict)
    }

    /// The first metric asked for that reads each user's top-N list.
    fn reads_lists(&self) -> Option<&Metric> {
        self.settings.metrics.iter().find(|m| m.list_depth().is_some())
    }
}

/// Checks that a `rows × rank` matrix is finite, naming the argument, row and id.
fn check_finite(values: &[f32], rank: usize, ids: &[String], name: &str) -> PyResult<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(at) => {
            let row = at / rank.max(1);
            let id = ids.get(row).map_or("?", String::as_str);
            Err(invalid(format!(
                "{name}: row {row} (id `{id}`), dimension {} is {}",
                at % rank.max(1),
                values[at]
            )))
        }
    }
}

/// The full catalog of `qrels`' judged users over the rows named `user_ids` and
/// `item_ids`, less each user's events in `train` (held in memory); with the warning about
/// graded training pairs, and the training rows.
pub(crate) fn row_catalog<'t>(
    qrels: &NativeQrels,
    train: &'t NativeRun,
    user_ids: &[String],
    item_ids: &[String],
) -> PyResult<(RowCatalog, Option<String>, &'t Rows)> {
    let RunSource::Rows(rows) = &train.source else {
        return Err(invalid("train must be held in memory (a dict or a frame)"));
    };
    let pairs = rows.iter().map(|(u, i, _)| (u, i));
    let catalog = RowCatalog::new(&qrels.qrels, pairs, user_ids, item_ids, NAMES).map_err(error)?;
    let names = (qrels.source.display().to_string(), rows.source.display().to_string());
    let warning = catalog.warning(&names.0, &names.1);
    Ok((catalog, warning, rows))
}

/// A factor model's rows as the Python half passes them, checked.
pub(crate) struct Factors {
    users: Vec<f32>,
    items: Vec<f32>,
    rank: usize,
    n_users: usize,
    n_items: usize,
}

impl Factors {
    /// `user_factors` (`user_ids.len() × rank`) and `item_factors` (`item_ids.len() ×
    /// rank`), little-endian `f32`, row-major, every value finite.
    pub(crate) fn read(
        user_factors: &[u8],
        item_factors: &[u8],
        rank: usize,
        user_ids: &[String],
        item_ids: &[String],
    ) -> PyResult<Self> {
        let users = f32s(user_factors, "user_factors")?;
        let items = f32s(item_factors, "item_factors")?;
        let (n_users, n_items) = (user_ids.len(), item_ids.len());
        if users.len() != n_users * rank || items.len() != n_items * rank {
            return Err(invalid(format!(
                "user_factors and item_factors: {} and {} values for {n_users} and {n_items} \
                 rows of rank {rank}",
                users.len(),
                items.len()
            )));
        }
        check_finite(&users, rank, user_ids, "user_factors")?;
        check_finite(&items, rank, item_ids, "item_factors")?;
        Ok(Factors { users, items, rank, n_users, n_items })
    }

    /// The model scoring `catalog`'s columns: the item rows in the catalog's column order,
    /// so the kernel scores columns.
    pub(crate) fn model(self, catalog: &RowCatalog) -> PyResult<FactorModel> {
        let Factors { users, items, rank, n_users, n_items } = self;
        let columns: Vec<f32> = catalog
            .item_rows()
            .iter()
            .flat_map(|&r| &items[r as usize * rank..(r as usize + 1) * rank])
            .copied()
            .collect();
        drop(items);
        FactorModel::new(n_users, n_items, rank, users, columns).map_err(|e| invalid(e.to_string()))
    }
}

/// Evaluates the dot products of `user_factors` (`users × rank`) and `item_factors`
/// (`items × rank`, both little-endian `f32`, row-major) on the full catalog: every item
/// row but a user's training items is a candidate. The `recs eval --json` dict.
#[pyfunction]
#[pyo3(signature = (user_factors, item_factors, rank, qrels, train, user_ids, item_ids, options, facts, device, device_memory_mib))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_factors<'py>(
    py: Python<'py>,
    user_factors: &[u8],
    item_factors: &[u8],
    rank: usize,
    qrels: &NativeQrels,
    train: &NativeRun,
    user_ids: Vec<String>,
    item_ids: Vec<String>,
    options: StreamOptions,
    facts: FactOptions,
    device: &str,
    device_memory_mib: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let on_gpu = wants_gpu(device)?;
    let factors = Factors::read(user_factors, item_factors, rank, &user_ids, &item_ids)?;
    let streamed = Streamed::new(py, qrels, train, &user_ids, &item_ids, options, facts)?;
    let model = factors.model(&streamed.catalog)?;
    if let Some(emulated) = on_gpu {
        // Scored on the device from the model's own factors; the graded items' scores
        // come from the model on the host, the same arithmetic.
        let view = model.as_factors().expect("a factor model has factors");
        let rows: Vec<u32> =
            (0..streamed.catalog.n_users()).map(|p| streamed.catalog.user_row(p)).collect();
        let factors = recs_cuda::FactorScores {
            rank: view.rank,
            users: view.users,
            items: view.items,
            user_rows: &rows,
        };
        let device = recs_cuda::DeviceSettings {
            memory_budget: device_memory_mib.saturating_mul(1 << 20),
            block_users: None,
        };
        let scores = recs_cuda::Scores::Factors(factors);
        return streamed.evaluate_on_gpu(py, ModelRows(&model), scores, device, emulated);
    }
    streamed.evaluate(py, ModelRows(&model))
}

/// A Python callable's scores of blocks of user rows: `score_block(rows bytes)` returns
/// the block's scores as little-endian `f32` bytes (`rows × items`, in the order of the
/// item rows; the Python half checks shape and dtype).
struct Callback<'a> {
    score_block: &'a Py<PyAny>,
    n_items: usize,
    /// Per column, the item row it comes from (`None`: the same order).
    item_rows: Option<&'a [u32]>,
    block_users: Option<usize>,
}

impl RowScorer for Callback<'_> {
    type Error = Failure;

    fn block_users(&self) -> Option<usize> {
        self.block_users
    }

    fn score_rows(&self, rows: &[u32], out: &mut [f32]) -> Result<(), Failure> {
        let scores = Python::attach(|py| -> PyResult<Vec<f32>> {
            let rows: Vec<u8> = rows.iter().flat_map(|r| r.to_le_bytes()).collect();
            let block = self.score_block.call1(py, (PyBytes::new(py, &rows),))?;
            f32s(block.extract::<&[u8]>(py)?, "score_block")
        })
        .map_err(Failure::Python)?;
        if scores.len() != out.len() {
            return Err(Failure::Python(invalid(format!(
                "score_block: {} scores for {} rows of {} items",
                scores.len(),
                rows.len(),
                self.n_items
            ))));
        }
        match self.item_rows {
            None => out.copy_from_slice(&scores),
            Some(item_rows) => {
                let n_items = self.n_items.max(1);
                for (out, scores) in out.chunks_mut(n_items).zip(scores.chunks(n_items)) {
                    for (o, &r) in out.iter_mut().zip(item_rows) {
                        *o = scores[r as usize];
                    }
                }
            }
        }
        Ok(())
    }
}

/// A Python callable's scores of blocks of user rows left on the GPU:
/// `score_block(rows bytes)` returns `(address, keep)`, the device address of the block's
/// `rows × items` contiguous `f32` scores (by item row) and the array that owns them (the
/// Python half checks device, shape and dtype).
struct DeviceCallback<'a> {
    score_block: &'a Py<PyAny>,
    n_items: usize,
    /// Per column of the catalog, the item row it comes from.
    item_rows: &'a [u32],
    /// Per position of the catalog (a judged user), the user row the scorer is asked
    /// for: positions count judged users only, rows every user.
    user_rows: Vec<u32>,
}

impl recs_cuda::DeviceScores for DeviceCallback<'_> {
    type Error = Failure;

    fn layout(&self) -> (usize, &[u32]) {
        (self.n_items, self.item_rows)
    }

    fn score_on_device(&self, positions: &[usize]) -> Result<recs_cuda::DeviceBlock, Failure> {
        Python::attach(|py| -> PyResult<recs_cuda::DeviceBlock> {
            let rows: Vec<u8> =
                positions.iter().flat_map(|&p| self.user_rows[p].to_le_bytes()).collect();
            let block = self.score_block.call1(py, (PyBytes::new(py, &rows),))?;
            let (addr, keep): (u64, Py<PyAny>) = block.extract(py)?;
            Ok(recs_cuda::DeviceBlock { addr, keep: Box::new(keep) })
        })
        .map_err(Failure::Python)
    }
}

/// Evaluates the scores `score_block` gives blocks of user rows on the full catalog,
/// block by block (two passes when the pooled ROC is asked for). The `recs eval --json`
/// dict.
#[pyfunction]
#[pyo3(signature = (score_block, qrels, train, user_ids, item_ids, block_users, options, facts, device, device_memory_mib))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_scorer<'py>(
    py: Python<'py>,
    score_block: Py<PyAny>,
    qrels: &NativeQrels,
    train: &NativeRun,
    user_ids: Vec<String>,
    item_ids: Vec<String>,
    block_users: Option<usize>,
    options: StreamOptions,
    facts: FactOptions,
    device: &str,
    device_memory_mib: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let on_gpu = wants_gpu(device)?;
    if block_users == Some(0) {
        return Err(invalid("block_users: at least 1"));
    }
    let streamed = Streamed::new(py, qrels, train, &user_ids, &item_ids, options, facts)?;
    let item_rows = streamed.catalog.item_rows();
    let in_order = item_rows.iter().enumerate().all(|(c, &r)| c == r as usize);
    if let Some(emulated) = on_gpu {
        // The scores stay on the GPU, read where the scorer left them; the host callback
        // is never called.
        let host = Callback {
            score_block: &score_block,
            n_items: item_ids.len(),
            item_rows: None,
            block_users,
        };
        let user_rows =
            (0..streamed.catalog.n_users()).map(|p| streamed.catalog.user_row(p)).collect();
        let scorer = DeviceCallback {
            score_block: &score_block,
            n_items: item_ids.len(),
            item_rows,
            user_rows,
        };
        let device = recs_cuda::DeviceSettings {
            memory_budget: device_memory_mib.saturating_mul(1 << 20),
            block_users,
        };
        let scores = recs_cuda::Scores::Device(&scorer);
        return streamed.evaluate_on_gpu(py, host, scores, device, emulated);
    }
    let callback = Callback {
        score_block: &score_block,
        n_items: item_ids.len(),
        item_rows: (!in_order).then_some(item_rows),
        block_users,
    };
    streamed.evaluate(py, callback)
}

/// Whether `device` asks for the GPU path: `None` for the CPU, else whether emulated (its
/// kernels compiled for the CPU).
fn wants_gpu(device: &str) -> PyResult<Option<bool>> {
    match device {
        "cpu" => Ok(None),
        "cuda" => Ok(Some(false)),
        "cuda-emulator" => Ok(Some(true)),
        other => Err(invalid(format!(
            "device: `{other}`; expected \"cpu\", \"cuda\" or \"cuda-emulator\""
        ))),
    }
}
