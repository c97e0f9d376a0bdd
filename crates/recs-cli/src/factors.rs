//! `recs eval --user-factors U --item-factors V --train TRAIN --qrels TEST`: a factor
//! model fitted anywhere, evaluated on the full catalog by the streaming driver of `recs
//! run` with its exact kernel (`FactorModel`), without listing a single score.
//!
//! Factors are `.npy` files (NumPy's format: a 2-D array of little-endian `float32` or
//! `float64`, C or Fortran order), whose row `r` is the user (item) whose id is `r`, or
//! Parquet and Arrow IPC files with a column `id` naming each row and the factors either
//! as one list (or fixed-size list) column or as one number column per dimension
//! (`recs_core::columnar::read_matrix`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use recs_bench::ModelRows;
use recs_bench::models::latent::FactorModel;
use recs_metrics::io::{Qrels, RowCatalog, RowNames};
use recs_metrics::stream::{CatalogMetrics, TerminalProgress, evaluate_catalog_with};
use recs_metrics::{Metric, Options, Report};

use crate::facts::Space;

/// A 2-D matrix of factors, row-major `f32`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matrix {
    pub(crate) rows: usize,
    pub(crate) columns: usize,
    pub(crate) values: Vec<f32>,
}

/// Factors and the ids their rows stand for.
struct Factors {
    matrix: Matrix,
    /// The id of each row: the row numbers for `.npy` files.
    ids: Vec<String>,
    /// How rows are named, for errors.
    named: &'static str,
}

/// Reads the factors of `path`: a columnar file by its `id` column, a `.npy` file by row
/// number.
fn read_factors(path: &Path) -> anyhow::Result<Factors> {
    let format = recs_core::columnar::columnar_format(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let Some(format) = format else {
        let matrix = read_npy(path)?;
        let ids = (0..matrix.rows).map(|r| r.to_string()).collect();
        return Ok(Factors { matrix, ids, named: "row r is id r" });
    };
    let read = recs_core::columnar::read_matrix(path, format, "id")
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let matrix = Matrix { rows: read.ids.len(), columns: read.columns, values: read.values };
    Ok(Factors { matrix, ids: read.ids, named: "rows named by its `id` column" })
}

/// Reads a `.npy` file holding a 2-D `float32` or `float64` array.
pub(crate) fn read_npy(path: &Path) -> anyhow::Result<Matrix> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    parse_npy(&bytes)
        .with_context(|| format!("{}: not a 2-D float32 or float64 .npy array", path.display()))
}

/// The matrix of the bytes of a `.npy` file (format versions 1 to 3).
fn parse_npy(bytes: &[u8]) -> anyhow::Result<Matrix> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        bail!("no NumPy magic string");
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => {
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        v => bail!("format version {v}"),
    };
    let header = bytes.get(start..start + header_len).context("a header past the end")?;
    let header = std::str::from_utf8(header).context("a header that is not text")?;
    let field = |key: &str| -> anyhow::Result<&str> {
        let at = header.find(&format!("'{key}'")).with_context(|| format!("no `{key}`"))?;
        let rest = header[at + key.len() + 2..].trim_start().trim_start_matches(':').trim_start();
        Ok(rest)
    };
    let descr = field("descr")?;
    let width = if descr.starts_with("'<f4'") || descr.starts_with("'|f4'") {
        4
    } else if descr.starts_with("'<f8'") {
        8
    } else {
        bail!("dtype {}", descr.split(',').next().unwrap_or(descr));
    };
    let fortran = field("fortran_order")?.starts_with("True");
    let shape = field("shape")?;
    let shape = shape.strip_prefix('(').and_then(|s| s.split(')').next()).context("no shape")?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .context("a shape that is not numbers")?;
    let [rows, columns] = dims[..] else { bail!("shape ({shape}): not 2-D") };
    let data = &bytes[start + header_len..];
    let n = rows.checked_mul(columns).context("a shape too large")?;
    if data.len() != n * width {
        bail!("{} data bytes for shape ({rows}, {columns})", data.len());
    }
    let read: Vec<f32> = if width == 4 {
        data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    } else {
        data.chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f32)
            .collect()
    };
    let values = if fortran {
        // Column-major on disk: element (r, c) at c · rows + r.
        (0..n).map(|k| read[(k % columns) * rows + k / columns]).collect()
    } else {
        read
    };
    Ok(Matrix { rows, columns, values })
}

/// A factor model's two files.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FactorFiles<'a> {
    /// `--user-factors`.
    pub(crate) users: &'a Path,
    /// `--item-factors`.
    pub(crate) items: &'a Path,
}

impl FactorFiles<'_> {
    /// The factors read and checked (the same rank, finite), and the full catalog of the
    /// users of `qrels` over the item rows, without the `train` events: the catalog and
    /// the model that scores its columns.
    pub(crate) fn load(
        &self,
        qrels: &Qrels,
        train: &recs_data::Dataset,
    ) -> anyhow::Result<(RowCatalog, FactorModel)> {
        let (user_file, item_file) = (read_factors(self.users)?, read_factors(self.items)?);
        let (users, items) = (&user_file.matrix, &item_file.matrix);
        if users.columns != items.columns {
            bail!(
                "--user-factors {} and --item-factors {}: {} and {} dimensions; the factors of \
                 one model have the same rank",
                self.users.display(),
                self.items.display(),
                users.columns,
                items.columns
            );
        }
        check_finite(users, "--user-factors", self.users)?;
        check_finite(items, "--item-factors", self.items)?;
        let known = train
            .interactions
            .events()
            .filter_map(|e| Some((train.users.external(e.user)?, train.items.external(e.item)?)));
        let (user_names, item_names) = (
            format!("--user-factors ({})", user_file.named),
            format!("--item-factors ({})", item_file.named),
        );
        let names =
            RowNames { qrels: "--qrels", train: "--train", users: &user_names, items: &item_names };
        let catalog = RowCatalog::new(qrels, known, &user_file.ids, &item_file.ids, names)?;
        let rank = users.columns;
        // The item rows in the catalog's column order: the kernel then scores columns.
        let columns: Vec<f32> = catalog
            .item_rows()
            .iter()
            .flat_map(|&r| &items.values[r as usize * rank..(r as usize + 1) * rank])
            .copied()
            .collect();
        let (n_users, n_items) = (users.rows, items.rows);
        let model = FactorModel::new(n_users, n_items, rank, user_file.matrix.values, columns)?;
        Ok((catalog, model))
    }
}

/// The factor files and how to stream them.
pub(crate) struct FactorArgs<'a> {
    pub(crate) user_factors: &'a Path,
    pub(crate) item_factors: &'a Path,
    pub(crate) train: Option<&'a PathBuf>,
    pub(crate) qrels_path: &'a Path,
    pub(crate) memory_budget: usize,
    pub(crate) progress: bool,
    /// Keep the ROC and CROC curves (`--curves`).
    pub(crate) keep_curves: bool,
    /// Where to score and count (`--device`).
    pub(crate) device: recs_bench::EvalDevice,
    /// GPU memory held at once, in bytes (`--device-memory-mib`).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) device_memory: usize,
}

/// The report of the factors of `args` on the full catalog of `qrels`, with the warning
/// `recs eval --candidates catalog` gives about graded training pairs, and the facts of
/// the catalog's items that the list metrics read (from `sources`).
pub(crate) fn evaluate_factors(
    args: &FactorArgs<'_>,
    qrels: &Qrels,
    metrics: &[Metric],
    options: Options,
    max_fpr: f64,
    sources: &crate::facts::Sources,
) -> anyhow::Result<(Report, recs_metrics::KnownFacts)> {
    let Some(train_path) = args.train else {
        bail!("--user-factors needs --train FILE: the training events");
    };
    let read;
    let train = match sources.train() {
        Some(train) => train,
        None => {
            read = crate::format::read_train(train_path)?;
            &read
        }
    };
    let files = FactorFiles { users: args.user_factors, items: args.item_factors };
    let (catalog, model) = files.load(qrels, train)?;
    let settings = CatalogMetrics { metrics, options, max_fpr, memory_budget: args.memory_budget };
    let bar = TerminalProgress::new(args.progress);
    let space = Space {
        users: (&qrels.users, qrels.judgments.n_users()),
        items: (catalog.items(), catalog.n_items()),
    };
    let facts = sources.of_space(space)?;
    let reads_lists = metrics.iter().find(|m| m.list_depth().is_some());
    let report = match (args.device, reads_lists) {
        (recs_bench::EvalDevice::Cpu, _) => {
            let source = catalog.source(ModelRows(&model));
            evaluate_catalog_with(&source, settings, facts.facts(), args.keep_curves, &bar)
        }
        (_, Some(m)) => bail!(
            "{m} reads each user's top-N list, which --device cuda does not select; \
             evaluate it on the CPU"
        ),
        (device, None) => on_gpu(&catalog, &model, settings, args, &bar, device)?,
    };
    bar.finish();
    let mut report = report?;
    let (qrels_name, train_name) = (args.qrels_path.display(), train_path.display());
    report.warnings.extend(catalog.warning(&qrels_name.to_string(), &train_name.to_string()));
    Ok((report, facts))
}

/// The report of factors scored and counted on the first GPU: the same as on the CPU.
#[cfg(feature = "cuda")]
fn on_gpu(
    catalog: &RowCatalog,
    model: &FactorModel,
    settings: CatalogMetrics<'_>,
    args: &FactorArgs<'_>,
    bar: &TerminalProgress,
    device: recs_bench::EvalDevice,
) -> anyhow::Result<Result<Report, recs_metrics::MetricsError>> {
    use recs_core::Recommender;
    let emulated = device == recs_bench::EvalDevice::CudaEmulator;
    let mut gpu = recs_cuda::open_device(emulated).with_context(|| format!("--device {device}"))?;
    // The catalog is scored on the device from the model's own factors; the graded
    // items' scores come from the model on the host, the same arithmetic.
    let view = model.as_factors().expect("a factor model has factors");
    let rows: Vec<u32> = (0..catalog.n_users()).map(|p| catalog.user_row(p)).collect();
    let factors = recs_cuda::FactorScores {
        rank: view.rank,
        users: view.users,
        items: view.items,
        user_rows: &rows,
    };
    let budget = recs_cuda::DeviceSettings { memory_budget: args.device_memory, block_users: None };
    let source = catalog.source(ModelRows(model));
    match recs_cuda::evaluate_catalog_on(
        &mut *gpu,
        &source,
        recs_cuda::Scores::Factors(factors),
        settings,
        budget,
        args.keep_curves,
        bar,
    ) {
        Ok(report) => Ok(Ok(report)),
        Err(recs_cuda::Error::Metrics(e) | recs_cuda::Error::Source(e)) => Ok(Err(e)),
        Err(recs_cuda::Error::Device(e)) => Err(anyhow::anyhow!("--device {device}: {e}")),
    }
}

/// Without GPU support, `--device cuda` says how to get it.
#[cfg(not(feature = "cuda"))]
fn on_gpu(
    _: &RowCatalog,
    _: &FactorModel,
    _: CatalogMetrics<'_>,
    _: &FactorArgs<'_>,
    _: &TerminalProgress,
    device: recs_bench::EvalDevice,
) -> anyhow::Result<Result<Report, recs_metrics::MetricsError>> {
    bail!(
        "--device {device}: this recs was built without GPU support (build it with `--features \
         cuda`)"
    )
}

/// Refuses a factor that is not finite, naming the flag, row and dimension.
fn check_finite(m: &Matrix, flag: &str, path: &Path) -> anyhow::Result<()> {
    if let Some(at) = m.values.iter().position(|v| !v.is_finite()) {
        let columns = m.columns.max(1);
        bail!(
            "{flag} {}: row {}, dimension {} is {}",
            path.display(),
            at / columns,
            at % columns,
            m.values[at]
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes NumPy writes for `np.arange(6, dtype=dtype).reshape(2, 3)` in `order`.
    fn npy(descr: &str, fortran: bool, data: &[u8]) -> Vec<u8> {
        let order = if fortran { "True" } else { "False" };
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': (2, 3), }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn npy_arrays_read_in_either_order_and_width() {
        let c: Vec<f32> = (0..6).map(|x| x as f32).collect();
        let f32_c: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
        let expected = Matrix { rows: 2, columns: 3, values: c };
        assert_eq!(parse_npy(&npy("<f4", false, &f32_c)).unwrap(), expected);
        // Fortran order: column after column (0, 3, 1, 4, 2, 5).
        let f64_f: Vec<u8> =
            [0.0f64, 3.0, 1.0, 4.0, 2.0, 5.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(parse_npy(&npy("<f8", true, &f64_f)).unwrap(), expected);
        assert!(parse_npy(&npy("<i8", false, &f64_f)).is_err());
        assert!(parse_npy(&npy("<f4", false, &f32_c[..20])).is_err());
        assert!(parse_npy(b"not numpy").is_err());
    }
}
