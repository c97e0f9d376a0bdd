//! An NVIDIA GPU through the CUDA driver, with the kernels compiled at run time by NVRTC.
//! Both libraries are loaded when [`Cuda::open`] is first called, so a machine without
//! them runs everything else and gets an error, not a crash, when it asks for a GPU.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};

use crate::device::{Arg, Buffer, Device, KERNELS, Kernel};
use crate::error::DeviceError;

/// One NVIDIA GPU: its context, one stream, the compiled kernels and the buffers.
pub struct Cuda {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: HashMap<&'static str, CudaFunction>,
    buffers: HashMap<usize, CudaSlice<u8>>,
    next_id: usize,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda").field("device", &self.name()).finish()
    }
}

fn cuda_error(error: impl std::fmt::Debug) -> DeviceError {
    DeviceError::Cuda(format!("{error:?}"))
}

/// True when the CUDA driver library can be loaded.
#[allow(unsafe_code)]
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// True when the NVRTC library can be loaded.
#[allow(unsafe_code)]
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The kernels compiled to PTX by NVRTC (no device needed).
///
/// # Errors
/// [`DeviceError::Unavailable`] without NVRTC; [`DeviceError::Compile`] with its log.
pub fn compile_kernels() -> Result<cudarc::nvrtc::Ptx, DeviceError> {
    if !nvrtc_present() {
        return Err(DeviceError::Unavailable(
            "the NVRTC library (libnvrtc.so) was not found; install the CUDA toolkit or add \
             its lib folder to LD_LIBRARY_PATH"
                .into(),
        ));
    }
    // Contractions cannot change a score (each product is exact in f64), but nothing is
    // left to the compiler's choice.
    let options = CompileOptions {
        fmad: Some(false),
        name: Some("recs_kernels.cu".into()),
        ..CompileOptions::default()
    };
    compile_ptx_with_opts(KERNELS, options).map_err(|e| DeviceError::Compile(format!("{e:?}")))
}

impl Cuda {
    /// GPU `ordinal` (0 for the first), its kernels compiled.
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] without the driver library or without such a GPU;
    /// [`DeviceError::Compile`] when NVRTC fails.
    pub fn open(ordinal: usize) -> Result<Cuda, DeviceError> {
        if !driver_present() {
            return Err(DeviceError::Unavailable(
                "the CUDA driver library (libcuda.so) was not found: no NVIDIA driver on this \
                 machine"
                    .into(),
            ));
        }
        let count = CudaContext::device_count().map_err(|e| {
            DeviceError::Unavailable(format!("the CUDA driver found no device ({e:?})"))
        })?;
        if ordinal >= count.max(0) as usize {
            return Err(DeviceError::Unavailable(format!(
                "GPU {ordinal} asked for; the driver sees {count}"
            )));
        }
        let ptx = compile_kernels()?;
        let context = CudaContext::new(ordinal).map_err(cuda_error)?;
        let stream = context.default_stream();
        let module = context.load_module(ptx).map_err(cuda_error)?;
        let mut functions = HashMap::new();
        for kernel in Kernel::ALL {
            let function = module.load_function(kernel.name()).map_err(cuda_error)?;
            functions.insert(kernel.name(), function);
        }
        Ok(Cuda { context, stream, functions, buffers: HashMap::new(), next_id: 0 })
    }

    /// Makes the GPU's context current on the calling thread: `recs run` shares one
    /// device between evaluations that may run on different threads.
    fn bind(&self) -> Result<(), DeviceError> {
        self.context.bind_to_thread().map_err(cuda_error)
    }

    fn slice(&mut self, buffer: Buffer) -> Result<&mut CudaSlice<u8>, DeviceError> {
        self.buffers
            .get_mut(&buffer.id)
            .ok_or_else(|| DeviceError::Cuda(format!("buffer {} was freed", buffer.id)))
    }
}

impl Device for Cuda {
    fn name(&self) -> String {
        let name = self.context.name().unwrap_or_else(|_| "unnamed GPU".into());
        match self.context.compute_capability() {
            Ok((major, minor)) => format!("{name} (compute capability {major}.{minor})"),
            Err(_) => name,
        }
    }

    fn alloc(&mut self, bytes: usize) -> Result<Buffer, DeviceError> {
        self.bind()?;
        let slice = self.stream.alloc_zeros::<u8>(bytes.max(8)).map_err(cuda_error)?;
        let (addr, guard) = slice.device_ptr(&self.stream);
        drop(guard);
        let id = self.next_id;
        self.next_id += 1;
        self.buffers.insert(id, slice);
        Ok(Buffer { id, addr, bytes: bytes.max(8) })
    }

    fn free(&mut self, buffer: Buffer) {
        // A failure to bind shows at the next call that can report it.
        let _ = self.bind();
        self.buffers.remove(&buffer.id);
    }

    fn write(&mut self, buffer: Buffer, data: &[u8]) -> Result<(), DeviceError> {
        buffer.check_fits(data.len())?;
        self.bind()?;
        if data.is_empty() {
            return Ok(());
        }
        let stream = self.stream.clone();
        let slice = self.slice(buffer)?;
        let mut view = slice.slice_mut(0..data.len());
        stream.memcpy_htod(data, &mut view).map_err(cuda_error)
    }

    fn zero(&mut self, buffer: Buffer, bytes: usize) -> Result<(), DeviceError> {
        buffer.check_fits(bytes)?;
        self.bind()?;
        if bytes == 0 {
            return Ok(());
        }
        let stream = self.stream.clone();
        let slice = self.slice(buffer)?;
        let mut view = slice.slice_mut(0..bytes);
        stream.memset_zeros(&mut view).map_err(cuda_error)
    }

    fn read(&mut self, buffer: Buffer, out: &mut [u8]) -> Result<(), DeviceError> {
        buffer.check_fits(out.len())?;
        self.bind()?;
        let stream = self.stream.clone();
        if !out.is_empty() {
            let slice = self.slice(buffer)?;
            let view = slice.slice(0..out.len());
            stream.memcpy_dtoh(&view, out).map_err(cuda_error)?;
        }
        stream.synchronize().map_err(cuda_error)
    }

    fn synchronize(&mut self) -> Result<(), DeviceError> {
        self.bind()?;
        self.context.synchronize().map_err(cuda_error)
    }

    #[allow(unsafe_code)]
    fn launch(
        &mut self,
        kernel: Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
    ) -> Result<(), DeviceError> {
        self.bind()?;
        let function = self
            .functions
            .get(kernel.name())
            .ok_or_else(|| DeviceError::Cuda(format!("no kernel {}", kernel.name())))?;
        // The values must outlive the launch: the builder keeps their addresses.
        let pointers: Vec<u64> =
            args.iter().map(|a| if let Arg::Ptr(p) = a { *p } else { 0 }).collect();
        let numbers: Vec<u32> =
            args.iter().map(|a| if let Arg::U32(n) = a { *n } else { 0 }).collect();
        let mut builder = self.stream.launch_builder(function);
        for (k, arg) in args.iter().enumerate() {
            match arg {
                Arg::Ptr(_) => builder.arg(&pointers[k]),
                Arg::U32(_) => builder.arg(&numbers[k]),
            };
        }
        let config = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (block[0], block[1], block[2]),
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments follow the kernel's parameter list in `kernels.cu`
        // (`driver.rs` builds them, and the CPU-compiled kernels check the same lists in
        // the tests); every pointer is a live buffer of this device, sized by the driver
        // for the indices the kernel computes.
        unsafe { builder.launch(config) }.map(|_| ()).map_err(cuda_error)
    }
}
