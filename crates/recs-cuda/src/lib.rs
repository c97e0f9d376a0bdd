//! Exact full-catalog evaluation on an NVIDIA GPU, giving the report of the CPU path
//! byte for byte: shown on an NVIDIA H200 (MovieLens 100K, MS Web and a MovieLens-20M
//! shape, `docs/architecture.md`) and on [`Emulator`] (the kernels compiled for the CPU).
//!
//! The streamed evaluation of `recs_metrics::stream` turns every user's candidates into
//! counts: for each of the user's graded rank keys, how many candidates rank strictly
//! between it and the previous key and how many share it; for the pooled ROC, how many
//! negatives fall strictly between and on the positives' score keys. Here those counts
//! are taken on a GPU ([`Cuda`]) by the kernels of `kernels.cu`, a block of users at a
//! time: a score is computed by the CPU's arithmetic (`f32` factors, products summed in
//! `f64` in dimension order, rounded to `f32`), or copied from the host, and placed by
//! integer comparisons; the counts are added atomically, so the order threads run in
//! changes nothing. The host turns the counts into the report with the code the CPU
//! path uses ([`recs_metrics::stream::Evaluator::push_counted`]), so every value,
//! warning and curve is the CPU path's.
//!
//! The CUDA driver and NVRTC are loaded at run time: the crate builds on any machine,
//! and [`Cuda::open`] says why when there is no GPU. GPU memory is bounded by a budget
//! ([`DeviceSettings::memory_budget`]) that sets how many users a block holds.
//!
//! ```no_run
//! use recs_cuda::{Cuda, DeviceSettings, FactorScores, Scores, evaluate_catalog_on};
//! use recs_metrics::stream::{CatalogMetrics, CatalogSource};
//! use recs_metrics::{Metric, Options};
//!
//! /// Prints NDCG@10 of factors over the judged users of `source`.
//! fn evaluate<S>(source: &S, factors: FactorScores<'_>) -> Result<(), Box<dyn std::error::Error>>
//! where
//!     S: CatalogSource,
//!     S::Error: std::error::Error + 'static,
//! {
//!     let metrics = Metric::parse_list("roc,croc,ndcg@10,r@20,map")?;
//!     let options = Options::default();
//!     let settings = CatalogMetrics { metrics: &metrics, options, max_fpr: 0.1, memory_budget: 1 << 30 };
//!     let mut gpu = Cuda::open(0)?; // an error that says why, without a GPU
//!     let device = DeviceSettings::default();
//!     let report = evaluate_catalog_on(&mut gpu, source, Scores::Factors(factors), settings, device, false, &())?;
//!     println!("{:?}", report.get("ndcg@10"));
//!     Ok(())
//! }
//! ```

mod cuda;
mod device;
mod driver;
mod emulator;
mod error;
mod scores;

pub use cuda::{Cuda, compile_kernels, compile_kernels_for, driver_present, nvrtc_present};
pub use device::{Arg, Buffer, Device, KERNELS, Kernel};
pub use driver::{DEFAULT_DEVICE_BUDGET, DeviceSettings, evaluate_catalog_on};
pub use emulator::Emulator;

/// The first NVIDIA GPU ([`Cuda`]), or with `emulated` the kernels compiled for the CPU
/// ([`Emulator`]: the same counts, slowly, for checking the GPU path on any machine).
///
/// # Errors
/// As [`Cuda::open`] and [`Emulator::new`].
pub fn open_device(emulated: bool) -> Result<Box<dyn Device>, DeviceError> {
    if emulated { Ok(Box::new(Emulator::new()?)) } else { Ok(Box::new(Cuda::open(0)?)) }
}
pub use error::{DeviceError, Error};
pub use scores::{DeviceBlock, DeviceScores, FactorScores, Scores};

// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
