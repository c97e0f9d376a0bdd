//! The kernels compiled for the CPU behind [`Device`], and a factor-model source whose
//! CPU scores are the kernels' arithmetic, for comparing the two paths.
#![allow(unsafe_code, dead_code)]

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use recs_cuda::{Arg, Buffer, Device, DeviceError, KERNELS, Kernel};
use recs_metrics::MetricsError;
use recs_metrics::stream::CatalogSource;

type Launcher = unsafe extern "C" fn(*const u32, *const u32, *const *mut c_void, i32);

/// `kernels.cu` compiled by the machine's C++ compiler and run thread after thread.
pub(crate) struct Emulated {
    _library: libloading::Library,
    launchers: Vec<(Kernel, Launcher)>,
    buffers: Vec<Option<Box<[u64]>>>,
    pub(crate) launches: usize,
}

impl Emulated {
    /// A fresh device running the kernels compiled once per test binary; `None` (with a
    /// notice) without a C++ compiler.
    pub(crate) fn new() -> Option<Emulated> {
        static LIBRARY: OnceLock<Option<(tempfile::TempDir, PathBuf)>> = OnceLock::new();
        let compiled = LIBRARY.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let library = Emulated::compile(dir.path())?;
            Some((dir, library))
        });
        compiled.as_ref().map(|(_, library)| Emulated::load(library))
    }

    /// Compiles the kernels into `dir`; `None` (with a notice) without a C++ compiler.
    fn compile(dir: &Path) -> Option<PathBuf> {
        let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
        if std::process::Command::new(&compiler).arg("--version").output().is_err() {
            eprintln!("notice: no C++ compiler ({compiler}): the emulated kernels are not tested");
            return None;
        }
        let kernels = dir.join("kernels.cu");
        std::fs::write(&kernels, KERNELS).unwrap();
        let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/shim.cpp");
        let library = dir.join("libkernels.so");
        let status = std::process::Command::new(&compiler)
            .args(["-std=c++17", "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-Wall"])
            .arg("-Wno-unknown-pragmas")
            .arg(format!("-DKERNELS_PATH=\"{}\"", kernels.display()))
            .arg("-o")
            .arg(&library)
            .arg(&shim)
            .status()
            .unwrap();
        assert!(status.success(), "the kernels do not compile as C++");
        Some(library)
    }

    /// Loads the kernels compiled by [`Emulated::compile`].
    fn load(library: &Path) -> Emulated {
        // SAFETY: a library this test binary built, with the launchers of shim.cpp.
        unsafe {
            let lib = libloading::Library::new(library).unwrap();
            let mut launchers = Vec::new();
            for kernel in Kernel::ALL {
                let name = format!("launch_{}", kernel.name());
                let f: libloading::Symbol<'_, Launcher> = lib.get(name.as_bytes()).unwrap();
                launchers.push((kernel, *f));
            }
            Emulated { _library: lib, launchers, buffers: Vec::new(), launches: 0 }
        }
    }

    /// Buffers allocated and not freed.
    pub(crate) fn live_buffers(&self) -> usize {
        self.buffers.iter().filter(|b| b.is_some()).count()
    }

    fn memory(&mut self, buffer: Buffer) -> &mut [u8] {
        let words = self.buffers[buffer.id].as_mut().expect("a freed buffer");
        // SAFETY: the u64 storage viewed as its bytes.
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() * 8) }
    }
}

impl Device for Emulated {
    fn name(&self) -> String {
        "kernels on the CPU".into()
    }

    fn alloc(&mut self, bytes: usize) -> Result<Buffer, DeviceError> {
        let words = vec![0u64; bytes.div_ceil(8).max(1)].into_boxed_slice();
        let addr = words.as_ptr() as u64;
        self.buffers.push(Some(words));
        Ok(Buffer { id: self.buffers.len() - 1, addr, bytes })
    }

    fn free(&mut self, buffer: Buffer) {
        self.buffers[buffer.id] = None;
    }

    fn write(&mut self, buffer: Buffer, data: &[u8]) -> Result<(), DeviceError> {
        buffer.check_fits(data.len())?;
        self.memory(buffer)[..data.len()].copy_from_slice(data);
        Ok(())
    }

    fn zero(&mut self, buffer: Buffer, bytes: usize) -> Result<(), DeviceError> {
        buffer.check_fits(bytes)?;
        self.memory(buffer)[..bytes].fill(0);
        Ok(())
    }

    fn read(&mut self, buffer: Buffer, out: &mut [u8]) -> Result<(), DeviceError> {
        buffer.check_fits(out.len())?;
        out.copy_from_slice(&self.memory(buffer)[..out.len()]);
        Ok(())
    }

    fn synchronize(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    fn launch(
        &mut self,
        kernel: Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
    ) -> Result<(), DeviceError> {
        let mut values: Vec<u64> = args
            .iter()
            .map(|a| match *a {
                Arg::Ptr(p) => p,
                Arg::U32(n) => u64::from(n),
            })
            .collect();
        // A u32 argument is read from the first four bytes of its value: little-endian.
        let params: Vec<*mut c_void> =
            values.iter_mut().map(|v| (v as *mut u64).cast::<c_void>()).collect();
        let (_, launcher) = self.launchers.iter().find(|(k, _)| *k == kernel).unwrap();
        self.launches += 1;
        // SAFETY: the launcher checks the number of arguments; their types are the
        // kernel's (the test's point is that the driver builds them right).
        unsafe { launcher(grid.as_ptr(), block.as_ptr(), params.as_ptr(), params.len() as i32) };
        Ok(())
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
