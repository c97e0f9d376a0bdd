//! A [`Device`] that runs the kernels of `kernels.cu` on the CPU: compiled by the
//! machine's C++ compiler (`$CXX`, else `g++`) behind a small shim
//! (`emulator_shim.cpp`: CUDA's built-ins as plain functions, atomics as additions, a
//! launch as a loop over the grid's blocks and threads, the number of arguments checked).
//!
//! The kernels use no shared memory, barriers or warp intrinsics, so running their
//! threads one after another is one of the orders a GPU may run them in, and integer
//! counts do not depend on the order: the emulator's counts are a GPU's. It checks, on any
//! machine, everything but the CUDA driver calls: the kernels' logic and arithmetic, and
//! the host code that lays out their arguments and reads their counts back. Buffers are
//! host memory, so an address handed in by a caller (scores "on the device") is host
//! memory too.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

use crate::device::{Arg, Buffer, Device, KERNELS, Kernel};
use crate::error::DeviceError;

/// `launch_<kernel>(grid, block, arguments, number of arguments)` of the shim.
type Launcher = unsafe extern "C" fn(*const u32, *const u32, *const *mut c_void, i32);

/// The compiled shim, loaded once per process and shared by every emulator.
struct Kernels {
    _library: libloading::Library,
    launchers: Vec<(Kernel, Launcher)>,
}

/// The kernels of `kernels.cu` compiled for the CPU; see the module page.
pub struct Emulator {
    kernels: Arc<Kernels>,
    buffers: Vec<Option<Box<[u64]>>>,
    launches: usize,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator").field("launches", &self.launches).finish()
    }
}

impl Emulator {
    /// An emulator with no buffer; the kernels are compiled on first use in the process.
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] without a C++ compiler; [`DeviceError::Compile`]
    /// when the kernels do not compile (with the compiler's output).
    pub fn new() -> Result<Emulator, DeviceError> {
        static KERNELS_ON_CPU: OnceLock<Mutex<Option<Arc<Kernels>>>> = OnceLock::new();
        let cell = KERNELS_ON_CPU.get_or_init(Default::default);
        let mut cell = cell.lock().map_err(|_| DeviceError::Cuda("a poisoned lock".into()))?;
        let kernels = match &*cell {
            Some(kernels) => kernels.clone(),
            None => {
                let kernels = Arc::new(compile()?);
                *cell = Some(kernels.clone());
                kernels
            }
        };
        Ok(Emulator { kernels, buffers: Vec::new(), launches: 0 })
    }

    /// Buffers allocated and not freed.
    pub fn live_buffers(&self) -> usize {
        self.buffers.iter().filter(|b| b.is_some()).count()
    }

    /// Kernel launches so far.
    pub fn launches(&self) -> usize {
        self.launches
    }

    fn memory(&mut self, buffer: Buffer) -> Result<&mut [u8], DeviceError> {
        let words = self.buffers.get_mut(buffer.id).and_then(Option::as_mut);
        let words =
            words.ok_or_else(|| DeviceError::Cuda(format!("buffer {} was freed", buffer.id)))?;
        // SAFETY: the u64 storage viewed as its bytes.
        Ok(unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() * 8) })
    }
}

/// Compiles the shim with the kernels into a temporary folder, loads it, and removes the
/// folder (the loaded library stays mapped).
fn compile() -> Result<Kernels, DeviceError> {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    if std::process::Command::new(&compiler).arg("--version").output().is_err() {
        return Err(DeviceError::Unavailable(format!(
            "no C++ compiler (`{compiler}`) to emulate one"
        )));
    }
    let dir = std::env::temp_dir().join(format!("recs-cuda-emulator-{}", std::process::id()));
    let io = |e: std::io::Error| DeviceError::Compile(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(&dir).map_err(io)?;
    let (kernels, shim, library) =
        (dir.join("kernels.cu"), dir.join("shim.cpp"), dir.join("libkernels.so"));
    std::fs::write(&kernels, KERNELS).map_err(io)?;
    std::fs::write(&shim, include_str!("emulator_shim.cpp")).map_err(io)?;
    let output = std::process::Command::new(&compiler)
        .args(["-std=c++17", "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-Wall"])
        .arg("-Wno-unknown-pragmas")
        .arg(format!("-DKERNELS_PATH=\"{}\"", kernels.display()))
        .arg("-o")
        .arg(&library)
        .arg(&shim)
        .output()
        .map_err(io)?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(DeviceError::Compile(String::from_utf8_lossy(&output.stderr).into_owned()));
    }
    // SAFETY: a library just built from the shim, whose launchers have the signature of
    // `Launcher`.
    let loaded = unsafe {
        (|| {
            let library = libloading::Library::new(&library)?;
            let mut launchers = Vec::new();
            for kernel in Kernel::ALL {
                let name = format!("launch_{}", kernel.name());
                let f: libloading::Symbol<'_, Launcher> = library.get(name.as_bytes())?;
                launchers.push((kernel, *f));
            }
            Ok::<_, libloading::Error>(Kernels { _library: library, launchers })
        })()
    };
    let _ = std::fs::remove_dir_all(&dir);
    loaded.map_err(|e| DeviceError::Compile(e.to_string()))
}

impl Device for Emulator {
    fn name(&self) -> String {
        "the kernels compiled for the CPU".into()
    }

    fn alloc(&mut self, bytes: usize) -> Result<Buffer, DeviceError> {
        let words = vec![0u64; bytes.div_ceil(8).max(1)].into_boxed_slice();
        let addr = words.as_ptr() as u64;
        self.buffers.push(Some(words));
        Ok(Buffer { id: self.buffers.len() - 1, addr, bytes })
    }

    fn free(&mut self, buffer: Buffer) {
        if let Some(slot) = self.buffers.get_mut(buffer.id) {
            *slot = None;
        }
    }

    fn write(&mut self, buffer: Buffer, data: &[u8]) -> Result<(), DeviceError> {
        buffer.check_fits(data.len())?;
        self.memory(buffer)?[..data.len()].copy_from_slice(data);
        Ok(())
    }

    fn zero(&mut self, buffer: Buffer, bytes: usize) -> Result<(), DeviceError> {
        buffer.check_fits(bytes)?;
        self.memory(buffer)?[..bytes].fill(0);
        Ok(())
    }

    fn read(&mut self, buffer: Buffer, out: &mut [u8]) -> Result<(), DeviceError> {
        buffer.check_fits(out.len())?;
        out.copy_from_slice(&self.memory(buffer)?[..out.len()]);
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
        // Each argument's value in 8 bytes: a u32 is read from the first four
        // (little-endian), as cuLaunchKernel reads each parameter from its pointer.
        let mut values: Vec<u64> = args
            .iter()
            .map(|a| match *a {
                Arg::Ptr(p) => p,
                Arg::U32(n) => u64::from(n),
            })
            .collect();
        let params: Vec<*mut c_void> =
            values.iter_mut().map(|v| (v as *mut u64).cast::<c_void>()).collect();
        let launcher = self
            .kernels
            .launchers
            .iter()
            .find(|(k, _)| *k == kernel)
            .map(|&(_, f)| f)
            .ok_or_else(|| DeviceError::Cuda(format!("no kernel {}", kernel.name())))?;
        self.launches += 1;
        // SAFETY: the shim checks the number of arguments and aborts on a mismatch; their
        // types are the kernel's as the driver lays them out (which the tests check by
        // comparing reports), and every address is a live buffer of this emulator or
        // memory its caller keeps alive.
        unsafe { launcher(grid.as_ptr(), block.as_ptr(), params.as_ptr(), params.len() as i32) };
        Ok(())
    }
}
