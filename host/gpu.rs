//! The [`Gpu`] handle: one device's context, a stream, and warpwork's loaded kernels.

use crate::launch::DependentLaunch;
use crate::{DeviceBuffer, Error, Result};
use bytemuck::Pod;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DevicePtrMut};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

/// warpwork's kernels for every GPU of compute capability 7.0 or newer.
const PTX_SM70: &str = include_str!(concat!(env!("OUT_DIR"), "/warpwork_sm_70.ptx"));
/// The same kernels built for sm_90, using instructions of newer GPUs; picked on CC ≥ 9.0.
const PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/warpwork_sm_90.ptx"));

/// Facts about the device that kernels are sized by.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Which PTX module was loaded: "sm_70" or "sm_90".
    pub ptx_arch: &'static str,
}

/// One GPU: a CUDA context, the stream every warpwork call on this handle is ordered on, and the
/// module holding warpwork's kernels (the sm_90 build where the device supports it).
///
/// All operations are asynchronous on [`Gpu::stream`] unless they return host data.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    info: DeviceInfo,
    /// How kernels that may start before their predecessor ends are launched (chosen once).
    dependent_launch: DependentLaunch,
    /// The host flag of [`Gpu::time_ms`]'s stream hold, allocated on first use.
    pub(crate) hold: std::sync::OnceLock<crate::timing::HoldFlag>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).finish()
    }
}

impl Gpu {
    /// Number of CUDA devices, or [`Error::NoDriver`] when no driver can be loaded.
    pub fn device_count() -> Result<usize> {
        driver_present()?;
        Ok(CudaContext::device_count()? as usize)
    }

    /// Opens device `ordinal` and loads warpwork's kernels onto it.
    ///
    /// Also chooses how this handle launches kernels that may start while the kernel before them
    /// still runs (see [`Gpu::programmatic_dependent_launch`]); setting the environment variable
    /// `WARPWORK_PLAIN_LAUNCH=1` before the call launches them plainly.
    ///
    /// # Examples
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// println!("{} (compute capability {:?})", gpu.info().name, gpu.info().compute_capability);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(ordinal: usize) -> Result<Self> {
        let count = Self::device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal)?;
        let (major, minor) = ctx.compute_capability()?;
        let name = ctx.name()?;
        if major < 7 {
            return Err(Error::UnsupportedDevice { name, major, minor });
        }
        let (ptx, ptx_arch) = if major >= 9 { (PTX_SM90, "sm_90") } else { (PTX_SM70, "sm_70") };
        let module = ctx.load_module(Ptx::from_src(ptx))?;
        let sm_count =
            ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let info =
            DeviceInfo { name, compute_capability: (major, minor), sm_count, total_memory: ctx.total_mem()?, ptx_arch };
        let stream = ctx.default_stream();
        let dependent_launch = DependentLaunch::for_device(major);
        Ok(Gpu { ctx, stream, module, info, dependent_launch, hold: std::sync::OnceLock::new() })
    }

    /// Whether kernels that may start before their predecessor ends (S2.5f's pass 2) are
    /// launched as *programmatic dependents*, which hides the launch gap: on compute capability
    /// 9.0 and newer, with a driver that has `cuLaunchKernelEx` (CUDA 11.8 and newer), unless
    /// `WARPWORK_PLAIN_LAUNCH` was set. Otherwise they are launched plainly, with the same
    /// results.
    ///
    /// # Examples
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// println!("programmatic dependent launch: {}", gpu.programmatic_dependent_launch());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn programmatic_dependent_launch(&self) -> bool {
        self.dependent_launch.is_programmatic()
    }

    /// This handle, launching every kernel plainly: the fallback path, for tests.
    #[doc(hidden)]
    pub fn with_plain_launch(mut self) -> Self {
        self.dependent_launch = DependentLaunch::Plain;
        self
    }

    /// Facts about the device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The CUDA context (for interoperating with other cudarc code).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream warpwork's work on this handle is issued to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits until all work issued to the stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    /// Copies a host slice into a new device buffer.
    pub fn upload<T: Pod>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::from_bytes(self.stream.clone_htod(bytemuck::cast_slice::<T, u8>(data))?)
    }

    /// A new device buffer of `len` zeroed elements.
    pub fn zeros<T: Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::from_bytes(self.stream.alloc_zeros::<u8>(byte_len::<T>(len)?)?)
    }

    /// Zeroes the words `range` of `buf` (asynchronous), as one 32-bit memset: the driver's
    /// byte-wise memset was measured slower for the few KiB an expander clears.
    pub(crate) fn zero_words(&self, buf: &mut DeviceBuffer<u32>, range: std::ops::Range<usize>) -> Result<()> {
        crate::error::ensure_input!(
            range.start <= range.end && range.end <= buf.len(),
            "zeroing words {range:?} of a buffer of {}",
            buf.len()
        );
        let (ptr, _sync) = buf.raw_mut().device_ptr_mut(&self.stream);
        // SAFETY: `ptr` is `buf`'s device address and the words `range` lie inside it.
        unsafe {
            cudarc::driver::sys::cuMemsetD32Async(ptr + 4 * range.start as u64, 0, range.len(), self.stream.cu_stream())
                .result()?
        };
        Ok(())
    }

    /// A new device buffer of `len` elements whose every byte is `byte`: for poisoning outputs in
    /// tests, so that elements a kernel failed to write stand out.
    pub fn filled<T: Pod>(&self, len: usize, byte: u8) -> Result<DeviceBuffer<T>> {
        let mut raw = unsafe { self.stream.alloc::<u8>(byte_len::<T>(len)?)? };
        let bytes = raw.len();
        let (ptr, _sync) = raw.device_ptr_mut(&self.stream);
        unsafe { cudarc::driver::result::memset_d8_async(ptr, byte, bytes, self.stream.cu_stream())? };
        drop(_sync);
        DeviceBuffer::from_bytes(raw)
    }

    /// Copies a device buffer back to the host (waits for the stream).
    pub fn download<T: Pod>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.download_prefix(buf, buf.len())
    }

    /// Copies the first `len` elements of a device buffer back to the host.
    pub fn download_prefix<T: Pod>(&self, buf: &DeviceBuffer<T>, len: usize) -> Result<Vec<T>> {
        crate::error::ensure_input!(len <= buf.len(), "download of {len} elements from a buffer of {}", buf.len());
        let mut out = vec![T::zeroed(); len];
        let bytes = len * std::mem::size_of::<T>();
        self.stream.memcpy_dtoh(&buf.raw().slice(..bytes), bytemuck::cast_slice_mut::<T, u8>(&mut out))?;
        Ok(out)
    }

    /// Copies `src` into `dst` on the device (lengths must match).
    pub fn copy<T: Pod>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        crate::error::ensure_input!(src.len() == dst.len(), "copy of {} elements into {}", src.len(), dst.len());
        self.stream.memcpy_dtod(src.raw(), dst.raw_mut())?;
        Ok(())
    }

    /// A kernel of warpwork's module, by its exported name. Launch it with
    /// `gpu.stream().launch_builder(&f)`, pushing buffers as `buf.raw()`.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        Ok(self.module.load_function(name)?)
    }

    /// Launches `f` as a *programmatic dependent* of the kernel before it on the stream where
    /// this handle can (see [`Gpu::programmatic_dependent_launch`]; an ordinary launch
    /// otherwise): its blocks may start while that kernel's last blocks still run, hiding the
    /// launch gap. For kernels that wait (`griddepcontrol.wait`) before reading what the previous
    /// kernel writes, and whose predecessor lets them start (`griddepcontrol.launch_dependents`).
    ///
    /// # Safety
    /// As for any launch: `params` point to values matching `f`'s parameters, and the memory
    /// they name stays valid until the kernel has run; `f` waits as said above.
    pub(crate) unsafe fn launch_dependent(
        &self,
        f: &CudaFunction,
        cfg: cudarc::driver::LaunchConfig,
        params: &mut [*mut std::ffi::c_void],
    ) -> Result<()> {
        self.ctx.bind_to_thread()?;
        self.dependent_launch.launch(f, cfg, self.stream.cu_stream(), params)
    }

    /// Blocks per multiprocessor at which kernel `name` is resident with `threads` per block:
    /// for sizing persistent grids.
    pub fn occupancy(&self, name: &str, threads: u32, shared_bytes: usize) -> Result<u32> {
        let f = self.function(name)?;
        Ok(f.occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes, None)?)
    }
}

fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::InvalidInput(format!("a buffer of {len} elements overflows usize bytes")))
}

/// [`Error::NoDriver`] unless `libcuda` can be loaded. cudarc loads the driver lazily and panics
/// when it is missing; asking first turns that into an error.
fn driver_present() -> Result<()> {
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}
