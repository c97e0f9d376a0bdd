//! An NVIDIA GPU through the CUDA driver, with the kernels compiled at run time by NVRTC.
//! Both libraries are loaded when [`Cuda::open`] is first called, so a machine without
//! them runs everything else and gets an error, not a crash, when it asks for a GPU.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, Ptx, compile_ptx_with_opts};

use crate::device::{Arg, Buffer, Device, KERNELS, Kernel};
use crate::error::DeviceError;

/// One NVIDIA GPU: its context, one stream, the compiled kernels and the buffers.
pub struct Cuda {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: HashMap<&'static str, CudaFunction>,
    buffers: HashMap<usize, CudaSlice<u8>>,
    next_id: usize,
    /// The GPU's name and compute capability, read once.
    name: String,
    /// An error the driver reported where it could not be returned (while freeing), to
    /// be returned by the next call that can.
    pending: Option<DeviceError>,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda").field("device", &self.name).finish()
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

/// NVRTC's options: contractions cannot change a score (each product is exact in `f64`),
/// but nothing is left to the compiler's choice.
fn options(arch: Option<(i32, i32)>) -> Vec<String> {
    let mut options = vec!["--fmad=false".to_string()];
    if let Some((major, minor)) = arch {
        options.push(format!("--gpu-architecture=sm_{major}{minor}"));
    }
    options
}

fn no_nvrtc() -> DeviceError {
    DeviceError::Unavailable(
        "the NVRTC library (libnvrtc.so) was not found; install the CUDA toolkit or add its \
         lib folder to LD_LIBRARY_PATH"
            .into(),
    )
}

/// The kernels compiled to PTX by NVRTC (no device needed).
///
/// # Errors
/// [`DeviceError::Unavailable`] without NVRTC; [`DeviceError::Compile`] with its log.
pub fn compile_kernels() -> Result<cudarc::nvrtc::Ptx, DeviceError> {
    if !nvrtc_present() {
        return Err(no_nvrtc());
    }
    let options = CompileOptions {
        fmad: Some(false),
        name: Some("recs_kernels.cu".into()),
        ..CompileOptions::default()
    };
    compile_ptx_with_opts(KERNELS, options).map_err(|e| DeviceError::Compile(format!("{e:?}")))
}

/// The kernels compiled by NVRTC to machine code for compute capability `major.minor`
/// (no device needed). Machine code does not depend on the driver's PTX version, so a
/// toolkit newer than the driver still loads.
///
/// # Errors
/// [`DeviceError::Unavailable`] without NVRTC; [`DeviceError::Compile`] with its log.
#[allow(unsafe_code)]
pub fn compile_kernels_for(major: i32, minor: i32) -> Result<Vec<u8>, DeviceError> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_present() {
        return Err(no_nvrtc());
    }
    let compile = |e: result::NvrtcError| DeviceError::Compile(format!("{e:?}"));
    let source = std::ffi::CString::new(KERNELS).expect("no NUL in the kernels");
    let name = c"recs_kernels.cu";
    let program = result::create_program(&source, Some(name)).map_err(compile)?;
    // SAFETY: `program` was created above and is destroyed once, below; the buffers
    // passed to NVRTC are sized by the sizes it reports.
    unsafe {
        let image = (|| {
            if let Err(e) = result::compile_program(program, &options(Some((major, minor)))) {
                let log = result::get_program_log(program).unwrap_or_default();
                let log = std::ffi::CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
                return Err(DeviceError::Compile(format!("{e:?}: {log}")));
            }
            let mut size = 0usize;
            sys::nvrtcGetCUBINSize(program, &mut size).result().map_err(compile)?;
            let mut image = vec![0u8; size];
            sys::nvrtcGetCUBIN(program, image.as_mut_ptr().cast()).result().map_err(compile)?;
            Ok(image)
        })();
        let _ = result::destroy_program(program);
        image
    }
}

/// The kernels as loaded: machine code, or PTX for the driver to compile when NVRTC
/// does not know the GPU (a toolkit older than the GPU).
type Images = HashMap<(i32, i32), Ptx>;

/// The kernels for each compute capability, compiled once per process.
fn kernels_for(major: i32, minor: i32) -> Result<Ptx, DeviceError> {
    static COMPILED: OnceLock<Mutex<Images>> = OnceLock::new();
    let compiled = COMPILED.get_or_init(Default::default);
    // Held while NVRTC runs, which starts no parallel work.
    let mut compiled = compiled.lock().map_err(|_| DeviceError::Cuda("a poisoned lock".into()))?;
    if let Some(image) = compiled.get(&(major, minor)) {
        return Ok(image.clone());
    }
    let image = match compile_kernels_for(major, minor) {
        Ok(cubin) => Ptx::from_binary(cubin),
        // NVRTC may not know a GPU newer than itself: PTX, which the driver compiles.
        Err(DeviceError::Compile(_)) => compile_kernels()?,
        Err(e) => return Err(e),
    };
    compiled.insert((major, minor), image.clone());
    Ok(image)
}

impl Cuda {
    /// GPU `ordinal` (0 for the first), its kernels compiled for it (once per process).
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] without the driver library or without such a GPU;
    /// [`DeviceError::Compile`] when NVRTC fails.
    #[allow(unsafe_code)]
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
        let context = CudaContext::new(ordinal).map_err(cuda_error)?;
        // SAFETY: every buffer and launch of this device is on its one stream, so the
        // stream orders them; the per-buffer events cudarc would record add nothing.
        unsafe { context.disable_event_tracking() };
        let (major, minor) = context.compute_capability().map_err(cuda_error)?;
        let gpu = context.name().unwrap_or_else(|_| "unnamed GPU".into());
        let name = format!("{gpu} (compute capability {major}.{minor})");
        let image = kernels_for(major, minor)?;
        let stream = context.default_stream();
        let module = context.load_module(image).map_err(cuda_error)?;
        let mut functions = HashMap::new();
        for kernel in Kernel::ALL {
            let function = module.load_function(kernel.name()).map_err(cuda_error)?;
            functions.insert(kernel.name(), function);
        }
        Ok(Cuda {
            context,
            stream,
            functions,
            buffers: HashMap::new(),
            next_id: 0,
            name,
            pending: None,
        })
    }

    /// Makes the GPU's context current on the calling thread (evaluations may run on
    /// different threads), and returns an error the driver stored earlier. cudarc
    /// returns a stored error before it binds, so a failure binds again.
    fn bind(&mut self) -> Result<(), DeviceError> {
        let bound = self.context.bind_to_thread();
        if bound.is_err() {
            let _ = self.context.bind_to_thread();
        }
        if let Some(error) = self.pending.take() {
            return Err(error);
        }
        bound.map_err(cuda_error)
    }

    fn slice(&mut self, buffer: Buffer) -> Result<&mut CudaSlice<u8>, DeviceError> {
        self.buffers
            .get_mut(&buffer.id)
            .ok_or_else(|| DeviceError::Cuda(format!("buffer {} was freed", buffer.id)))
    }
}

impl Device for Cuda {
    fn name(&self) -> String {
        self.name.clone()
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
        // A failure shows at the next call that can report it.
        if let Err(error) = self.bind() {
            self.pending.get_or_insert(error);
        }
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
