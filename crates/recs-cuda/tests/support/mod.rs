//! The emulated device, and a factor-model source whose CPU scores are the kernels'
//! arithmetic, for comparing the two paths.
#![allow(dead_code)]

use recs_cuda::Emulator;
use recs_metrics::MetricsError;
use recs_metrics::stream::CatalogSource;

/// The emulator, or `None` with a notice where there is no C++ compiler.
pub(crate) fn emulator() -> Option<Emulator> {
    match Emulator::new() {
        Ok(device) => Some(device),
        Err(e) => {
            eprintln!("notice: {e}; the emulated kernels are not tested");
            None
        }
    }
}

/// The factor model's score: `f32` products summed in `f64` from `+0.0` in order.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).fold(0.0f64, |s, (&x, &y)| s + f64::from(x) * f64::from(y)) as f32
}

/// Judged users over a catalog with factors: the CPU scores the kernels must match.
#[derive(Debug, Clone)]
pub(crate) struct FactorSource {
    pub(crate) n_items: usize,
    pub(crate) rank: usize,
    pub(crate) users: Vec<f32>,
    pub(crate) items: Vec<f32>,
    pub(crate) rows: Vec<u32>,
    pub(crate) excluded: Vec<Vec<u32>>,
    pub(crate) graded: Vec<Vec<u32>>,
    pub(crate) grades: Vec<Vec<f32>>,
}

impl FactorSource {
    fn user_row(&self, position: usize) -> &[f32] {
        let r = self.rows[position] as usize;
        &self.users[r * self.rank..(r + 1) * self.rank]
    }

    pub(crate) fn score(&self, position: usize, item: usize) -> f32 {
        dot(self.user_row(position), &self.items[item * self.rank..(item + 1) * self.rank])
    }

    pub(crate) fn factors(&self) -> recs_cuda::FactorScores<'_> {
        recs_cuda::FactorScores {
            rank: self.rank,
            users: &self.users,
            items: &self.items,
            user_rows: &self.rows,
        }
    }
}

impl CatalogSource for FactorSource {
    type Error = MetricsError;

    fn n_items(&self) -> usize {
        self.n_items
    }

    fn n_users(&self) -> usize {
        self.rows.len()
    }

    fn n_graded(&self) -> usize {
        self.graded.iter().map(Vec::len).sum()
    }

    fn user(&self, position: usize) -> u32 {
        position as u32
    }

    fn graded(&self, position: usize) -> (&[u32], &[f32]) {
        (&self.graded[position], &self.grades[position])
    }

    fn excluded(&self, position: usize) -> std::borrow::Cow<'_, [u32]> {
        std::borrow::Cow::Borrowed(&self.excluded[position])
    }

    fn score_graded(&self, positions: &[usize], out: &mut Vec<f32>) -> Result<(), MetricsError> {
        for &p in positions {
            out.extend(self.graded[p].iter().map(|&i| self.score(p, i as usize)));
        }
        Ok(())
    }

    fn score_block(&self, positions: &[usize], out: &mut [f32]) -> Result<(), MetricsError> {
        for (&p, row) in positions.iter().zip(out.chunks_mut(self.n_items.max(1))) {
            for (i, o) in row.iter_mut().enumerate() {
                *o = self.score(p, i);
            }
        }
        Ok(())
    }
}

/// A model's scores "on the device": rows written by the test into memory the emulated
/// kernels read, laid out with `padding` unused slots first and the items in reverse
/// order (so that a kernel reading the wrong place reads the padding's 7.0). With
/// `drift`, scores change after the first `drift` blocks (a scorer that is not
/// deterministic).
pub(crate) struct RowsOnDevice<'a> {
    pub(crate) source: &'a FactorSource,
    pub(crate) padding: usize,
    pub(crate) columns: Vec<u32>,
    pub(crate) drift: Option<usize>,
    pub(crate) calls: std::sync::atomic::AtomicUsize,
}

impl<'a> RowsOnDevice<'a> {
    pub(crate) fn new(source: &'a FactorSource, padding: usize, drift: Option<usize>) -> Self {
        let n = source.n_items;
        let columns = (0..n).map(|i| (padding + n - 1 - i) as u32).collect();
        RowsOnDevice { source, padding, columns, drift, calls: Default::default() }
    }
}

impl recs_cuda::DeviceScores for RowsOnDevice<'_> {
    type Error = MetricsError;

    fn layout(&self) -> (usize, &[u32]) {
        (self.padding + self.source.n_items, &self.columns)
    }

    fn score_on_device(&self, positions: &[usize]) -> Result<recs_cuda::DeviceBlock, MetricsError> {
        let row_len = self.padding + self.source.n_items;
        let calls = self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let shift = if self.drift.is_some_and(|d| calls >= d) { 1.0 } else { 0.0 };
        let mut rows = vec![7.0f32; positions.len() * row_len].into_boxed_slice();
        for (k, &p) in positions.iter().enumerate() {
            for (i, &c) in self.columns.iter().enumerate() {
                rows[k * row_len + c as usize] = self.source.score(p, i) + shift;
            }
        }
        let addr = rows.as_ptr() as u64;
        Ok(recs_cuda::DeviceBlock { addr, keep: Box::new(rows) })
    }
}
