//! Where a GPU evaluation's scores come from: computed on the device from factors,
//! computed on the host and copied, or already on the device (a model that runs there).

use std::any::Any;

/// Scores from factors, computed on the device: the score of the user at position `p`
/// and item `i` is the dot product of `users[user_rows[p] · rank ..][..rank]` and
/// `items[i · rank ..][..rank]`, in `f32` products summed in `f64` from `+0.0` in
/// dimension order and rounded to `f32` (the CPU's factor scores, bit for bit).
#[derive(Debug, Clone, Copy)]
pub struct FactorScores<'a> {
    /// Dimensions.
    pub rank: usize,
    /// User factors, row-major.
    pub users: &'a [f32],
    /// Item factors, row-major, one row per item of the source's catalog in its order.
    pub items: &'a [f32],
    /// The row of `users` of each of the source's positions.
    pub user_rows: &'a [u32],
}

/// A block of scores on the device: its address, and whatever keeps that memory alive
/// until the evaluation is done with it (dropped after the block's counts are read).
pub struct DeviceBlock {
    /// The address of the first score on the device.
    pub addr: u64,
    /// Held until the block's counts are read (the array that owns the memory).
    pub keep: Box<dyn Any>,
}

impl std::fmt::Debug for DeviceBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBlock").field("addr", &self.addr).finish()
    }
}

/// Scores a caller computes on the device itself (a model running on the GPU), read
/// there without a copy. Each block is called for twice when the pooled ROC is asked
/// for (its positives first), and must be the same both times.
pub trait DeviceScores: Sync {
    /// The error of scoring.
    type Error;

    /// The length of a row of a block, and for each item of the source's catalog (in its
    /// order) where its score sits in a row.
    fn layout(&self) -> (usize, &[u32]);

    /// The scores of the users at `positions`: `positions.len()` rows of
    /// `layout().0` `f32` values, row-major and contiguous, at the returned address on
    /// the device. The device is synchronised before it is read.
    ///
    /// # Errors
    /// A scoring failure.
    fn score_on_device(&self, positions: &[usize]) -> Result<DeviceBlock, Self::Error>;
}

/// Where the scores of [`crate::evaluate_catalog_on`] come from.
pub enum Scores<'a, E> {
    /// The source's own ([`recs_metrics::stream::CatalogSource::score_block`]), computed
    /// on the host, on every core, and copied to the device block by block.
    Host,
    /// Computed on the device from factors.
    Factors(FactorScores<'a>),
    /// Already on the device.
    Device(&'a dyn DeviceScores<Error = E>),
}

impl<E> std::fmt::Debug for Scores<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scores::Host => f.write_str("Host"),
            Scores::Factors(factors) => f.debug_tuple("Factors").field(&factors.rank).finish(),
            Scores::Device(_) => f.write_str("Device"),
        }
    }
}
