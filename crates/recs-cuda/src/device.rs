//! Where the counting kernels run: a [`Device`] holds buffers and launches the kernels of
//! `kernels.cu` by name. [`crate::Cuda`] is an NVIDIA GPU; the crate's tests run the same
//! kernel source compiled for the CPU behind this trait.

use crate::error::DeviceError;

/// A buffer on a device: its address there (what a kernel receives) and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buffer {
    /// The device's handle of the buffer.
    pub id: usize,
    /// The buffer's address on the device.
    pub addr: u64,
    /// Size in bytes.
    pub bytes: usize,
}

impl Buffer {
    /// Refuses a copy of `bytes` bytes into or out of this buffer when it is larger.
    ///
    /// # Errors
    /// [`DeviceError::Overflow`].
    pub fn check_fits(&self, bytes: usize) -> Result<(), DeviceError> {
        if bytes > self.bytes {
            return Err(DeviceError::Overflow { bytes, capacity: self.bytes });
        }
        Ok(())
    }
}

/// A kernel argument: a buffer's address or a 32-bit number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// The address of a buffer.
    Ptr(u64),
    /// An unsigned 32-bit number.
    U32(u32),
}

/// The kernels of `kernels.cu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `mark_items`: sets the bits of listed items in a per-user bitmap.
    MarkItems,
    /// `count_factors`: scores from factors, then counts.
    CountFactors,
    /// `count_scores`: scores given, then counts.
    CountScores,
    /// `gather_scores`: the scores of listed pairs of a block.
    GatherScores,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 4] =
        [Kernel::MarkItems, Kernel::CountFactors, Kernel::CountScores, Kernel::GatherScores];
}

impl Kernel {
    /// The kernel's name in `kernels.cu`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::MarkItems => "mark_items",
            Kernel::CountFactors => "count_factors",
            Kernel::CountScores => "count_scores",
            Kernel::GatherScores => "gather_scores",
        }
    }
}

/// The kernels' source: CUDA C++ without shared memory, barriers or warp intrinsics.
pub const KERNELS: &str = include_str!("kernels.cu");

/// A device the counting kernels run on. Work is done in call order; reads wait for
/// every launch before them.
pub trait Device {
    /// What the device is, for reports and errors.
    fn name(&self) -> String;

    /// A zeroed buffer of at least `bytes` bytes.
    ///
    /// # Errors
    /// Out of device memory, or a device failure.
    fn alloc(&mut self, bytes: usize) -> Result<Buffer, DeviceError>;

    /// Gives `buffer` back.
    fn free(&mut self, buffer: Buffer);

    /// Copies `data` to the start of `buffer`.
    ///
    /// # Errors
    /// `data` longer than the buffer, or a device failure.
    fn write(&mut self, buffer: Buffer, data: &[u8]) -> Result<(), DeviceError>;

    /// Sets the first `bytes` bytes of `buffer` to zero.
    ///
    /// # Errors
    /// A device failure.
    fn zero(&mut self, buffer: Buffer, bytes: usize) -> Result<(), DeviceError>;

    /// Copies the start of `buffer` into `out`, once every launch before has finished.
    ///
    /// # Errors
    /// `out` longer than the buffer, or a device failure (a kernel's included).
    fn read(&mut self, buffer: Buffer, out: &mut [u8]) -> Result<(), DeviceError>;

    /// Waits for everything queued on the device, by anyone (scores written by another
    /// library on its own streams included).
    ///
    /// # Errors
    /// A device failure.
    fn synchronize(&mut self) -> Result<(), DeviceError>;

    /// Launches `kernel` on a `grid` of blocks of `block` threads with `args`, in the
    /// order of its parameters.
    ///
    /// # Errors
    /// A device failure.
    fn launch(
        &mut self,
        kernel: Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[Arg],
    ) -> Result<(), DeviceError>;
}

/// Plain numbers that can be copied to and from a device as bytes: no padding, and
/// every bit pattern a valid value.
pub(crate) trait Plain: Copy + Default {}
impl Plain for u32 {}
impl Plain for u64 {}
impl Plain for f32 {}

/// The bytes of `values`.
#[allow(unsafe_code)]
pub(crate) fn bytes_of<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `Plain` types (u32, u64, f32) have no padding and every byte is
    // initialised; the slice covers exactly their memory.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), std::mem::size_of_val(values)) }
}

/// The bytes of `values`, writable.
#[allow(unsafe_code)]
pub(crate) fn bytes_of_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as `bytes_of`; moreover every bit pattern is a valid `Plain` value, so any
    // bytes written leave valid values.
    unsafe {
        std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), std::mem::size_of_val(values))
    }
}

/// A buffer with the type of its elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Typed<T> {
    pub(crate) buffer: Buffer,
    pub(crate) len: usize,
    _type: std::marker::PhantomData<T>,
}

impl<T: Plain> Typed<T> {
    /// A zeroed buffer of `len` elements.
    pub(crate) fn zeros<D: Device + ?Sized>(
        device: &mut D,
        len: usize,
    ) -> Result<Self, DeviceError> {
        let buffer = device.alloc((len * std::mem::size_of::<T>()).max(8))?;
        Ok(Typed { buffer, len, _type: std::marker::PhantomData })
    }

    /// A buffer holding `values`.
    pub(crate) fn from_slice<D: Device + ?Sized>(
        device: &mut D,
        values: &[T],
    ) -> Result<Self, DeviceError> {
        let typed = Typed::zeros(device, values.len())?;
        device.write(typed.buffer, bytes_of(values))?;
        Ok(typed)
    }

    /// The buffer's first `len` elements.
    pub(crate) fn read<D: Device + ?Sized>(
        &self,
        device: &mut D,
        len: usize,
    ) -> Result<Vec<T>, DeviceError> {
        debug_assert!(len <= self.len);
        let mut out = vec![T::default(); len];
        device.read(self.buffer, bytes_of_mut(&mut out))?;
        Ok(out)
    }

    /// The argument passing this buffer's address.
    pub(crate) fn arg(&self) -> Arg {
        Arg::Ptr(self.buffer.addr)
    }
}
