//! Errors of a GPU evaluation.

use recs_metrics::MetricsError;

/// Why a device could not do its part.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// No usable device: no driver library, no GPU, or the crate built without it.
    #[error("no CUDA device: {0}")]
    Unavailable(String),
    /// The kernels did not compile (the compiler's log).
    #[error("compiling the GPU kernels: {0}")]
    Compile(String),
    /// A call to the device failed.
    #[error("CUDA: {0}")]
    Cuda(String),
    /// A buffer too small for a copy.
    #[error("a copy of {bytes} bytes into a buffer of {capacity}")]
    Overflow {
        /// Bytes asked for.
        bytes: usize,
        /// Bytes the buffer holds.
        capacity: usize,
    },
}

/// An error of [`crate::evaluate_catalog_on`]: the device's, the metrics', or the
/// source's.
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// The device failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// Invalid metrics, options or counts.
    #[error(transparent)]
    Metrics(MetricsError),
    /// The source failed to score.
    #[error("scoring: {0}")]
    Source(E),
}
