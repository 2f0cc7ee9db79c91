//! The [`Gpu`] handle: warpwork's kernels loaded into a CUDA context, and the stream its calls
//! are issued to.

use crate::launch::KernelArgs;
use crate::memory::LaunchStream;
use crate::{DeviceRead, DeviceWrite, Error, Result};
use bytemuck::Pod;
use cudarc::driver::sys::{self, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

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

/// What every handle on one context shares: the loaded module and its functions (looked up once,
/// when the module is loaded), the device's facts, and the timing hold's host flag.
pub(crate) struct Loaded {
    ctx: Arc<CudaContext>,
    _module: Arc<CudaModule>,
    functions: HashMap<&'static str, CudaFunction>,
    info: DeviceInfo,
    programmatic: bool,
    pub(crate) hold: OnceLock<crate::timing::HoldFlag>,
}

/// warpwork on one device: its kernels loaded into a CUDA context, and the stream its calls on
/// this handle are issued to.
///
/// * [`Gpu::new`] opens a device (its primary context, the one the CUDA runtime and cudarc use)
///   with a new stream of its own.
/// * [`Gpu::from_stream`] loads warpwork into the context of **your** cudarc stream and issues
///   to that stream.
/// * [`Gpu::on`] is the same kernels on another of your streams: cheap (no reload), so a call
///   can go to whichever stream the application is using at that point.
/// * [`Gpu::on_raw_stream`] (`unsafe`) issues to a raw `CUstream` from cust, FFI or another
///   framework.
///
/// Every primitive is asynchronous on the handle's stream; only calls that return host data
/// (downloads, counts) wait, and their docs say so. Buffers are your cudarc slices and views, or
/// raw device pointers (see [`crate::memory`]); warpwork allocates only in the convenience
/// forms that say so.
///
/// # Examples
/// ```no_run
/// use std::sync::Arc;
/// use warpwork::Gpu;
/// # fn main() -> warpwork::Result<()> {
/// // Your application's context and stream:
/// let ctx = cudarc::driver::CudaContext::new(0)?;
/// let stream = ctx.new_stream()?;
/// let gpu = Gpu::from_stream(stream.clone())?; // loads warpwork's kernels once
/// let other = ctx.new_stream()?;
/// let on_other = gpu.on(&other)?;              // same kernels, another stream
/// assert_eq!(on_other.info().name, gpu.info().name);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Gpu {
    loaded: Arc<Loaded>,
    stream: Arc<CudaStream>,
    raw_stream: Option<CUstream>,
}

// SAFETY: a raw `CUstream` is a handle the driver accepts from any thread; `on_raw_stream`'s
// contract makes its validity the caller's.
unsafe impl Send for Gpu {}
unsafe impl Sync for Gpu {}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.loaded.info).field("raw_stream", &self.raw_stream).finish()
    }
}

impl Gpu {
    /// Number of CUDA devices, or [`Error::NoDriver`] when no driver can be loaded.
    ///
    /// # Examples
    /// ```
    /// match warpwork::Gpu::device_count() {
    ///     Ok(n) => println!("{n} CUDA device(s)"),
    ///     Err(e) => println!("no GPU: {e}"), // Error::NoDriver on machines without a driver
    /// }
    /// ```
    pub fn device_count() -> Result<usize> {
        driver_present()?;
        Ok(CudaContext::device_count()? as usize)
    }

    /// Opens device `ordinal` (its primary context), loads warpwork's kernels and creates a new
    /// stream for this handle.
    ///
    /// # Examples
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?; // Error::NoDriver / NoDevice without a GPU
    /// println!("{}", gpu.info().name);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(ordinal: usize) -> Result<Self> {
        let count = Self::device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.new_stream()?;
        Self::from_stream(stream)
    }

    /// Loads warpwork's kernels into the context of `stream` and issues this handle's calls to
    /// `stream`. Loading takes a while (the driver compiles the PTX): make one handle per context
    /// and use [`Gpu::on`] for other streams.
    ///
    /// # Examples
    /// ```no_run
    /// let ctx = cudarc::driver::CudaContext::new(0)?;
    /// let gpu = warpwork::Gpu::from_stream(ctx.new_stream()?)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Self> {
        driver_present()?;
        let ctx = stream.context().clone();
        let (major, minor) = ctx.compute_capability()?;
        let name = ctx.name()?;
        if major < 7 {
            return Err(Error::UnsupportedDevice { name, major, minor });
        }
        let (ptx, ptx_arch) = if major >= 9 { (PTX_SM90, "sm_90") } else { (PTX_SM70, "sm_70") };
        let module = ctx.load_module(Ptx::from_src(ptx))?;
        let mut functions = HashMap::new();
        for name in entry_names(ptx) {
            functions.insert(name, module.load_function(name)?);
        }
        let sm_count = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let info =
            DeviceInfo { name, compute_capability: (major, minor), sm_count, total_memory: ctx.total_mem()?, ptx_arch };
        let loaded = Loaded {
            programmatic: major >= 9 && crate::driver::has_launch_kernel_ex(),
            ctx,
            _module: module,
            functions,
            info,
            hold: OnceLock::new(),
        };
        Ok(Gpu { loaded: Arc::new(loaded), stream, raw_stream: None })
    }

    /// The same kernels, issuing to `stream` (which must belong to this handle's context:
    /// [`Error::WrongContext`] otherwise). Cheap: nothing is loaded again.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let side = gpu.context().new_stream()?;
    /// let on_side = gpu.on(&side)?;
    /// let v = on_side.upload(&[1u32, 2, 3])?; // issued to `side`
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn on(&self, stream: &Arc<CudaStream>) -> Result<Gpu> {
        if stream.context().cu_ctx() != self.loaded.ctx.cu_ctx() {
            return Err(Error::WrongContext);
        }
        Ok(Gpu { loaded: self.loaded.clone(), stream: stream.clone(), raw_stream: None })
    }

    /// The same kernels, issuing to a raw `CUstream` (from cust, FFI or another framework).
    /// Allocating conveniences ([`Gpu::upload`], [`Gpu::zeros`], …) still allocate on
    /// [`Gpu::stream`] and wait for the allocation before returning, so their memory is ready
    /// for the raw stream.
    ///
    /// # Safety
    /// `stream` is a valid stream of this handle's context for as long as the returned handle is
    /// used. warpwork cannot see another framework's events: the caller orders the raw stream
    /// after whatever wrote the buffers it passes, and keeps every buffer (including warpwork
    /// objects such as an [`crate::expand::Expander`]) alive until the raw stream has finished
    /// the work issued with it.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let theirs = gpu.context().new_stream()?; // stands in for another framework's stream
    /// let raw = unsafe { gpu.on_raw_stream(theirs.cu_stream()) };
    /// let v = raw.upload(&[3u32, 1, 2])?;
    /// raw.synchronize()?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub unsafe fn on_raw_stream(&self, stream: CUstream) -> Gpu {
        Gpu { loaded: self.loaded.clone(), stream: self.stream.clone(), raw_stream: Some(stream) }
    }

    /// Facts about the device.
    pub fn info(&self) -> &DeviceInfo {
        &self.loaded.info
    }

    /// The CUDA context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.loaded.ctx
    }

    /// The cudarc stream of this handle (for a handle from [`Gpu::on_raw_stream`]: the stream
    /// its allocations are made on; calls go to the raw stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The stream calls on this handle are issued to.
    pub fn cu_stream(&self) -> CUstream {
        self.raw_stream.unwrap_or_else(|| self.stream.cu_stream())
    }

    pub(crate) fn launch_stream(&self) -> LaunchStream<'_> {
        match self.raw_stream {
            Some(_) => LaunchStream::Raw,
            None => LaunchStream::Cudarc(&self.stream),
        }
    }

    /// Whether programmatic dependent launches are used (CC ≥ 9.0 and `cuLaunchKernelEx`).
    pub(crate) fn programmatic_launch(&self) -> bool {
        self.loaded.programmatic
    }

    pub(crate) fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// Waits until all work issued to this handle's stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.context().bind_to_thread()?;
        // SAFETY: a stream of this context (see `on_raw_stream`'s contract for raw ones).
        unsafe { sys::cuStreamSynchronize(self.cu_stream()).result()? };
        Ok(())
    }

    /// A kernel of warpwork's module by its exported name (looked up when the module was
    /// loaded, never per launch).
    pub fn function(&self, name: &str) -> Result<&CudaFunction> {
        self.loaded
            .functions
            .get(name)
            .ok_or_else(|| Error::InvalidInput(format!("warpwork's module has no kernel named {name:?}")))
    }

    /// An empty argument list for a launch of **your own** kernel on this handle's stream,
    /// with warpwork's binding of buffers (context check, cudarc stream events); see
    /// [`KernelArgs`].
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::driver::LaunchConfig;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(256)?;
    /// let f = gpu.function("hold_stream")?; // stands in for a kernel of your own module
    /// let mut l = gpu.kernel_args();
    /// l.write(&mut v);
    /// // unsafe { l.launch(f, LaunchConfig::for_num_elems(256))? } — when the arguments match f
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn kernel_args(&self) -> KernelArgs<'_> {
        KernelArgs::new(self)
    }

    /// Blocks per multiprocessor at which kernel `name` is resident with `threads` per block:
    /// for sizing persistent grids.
    pub fn occupancy(&self, name: &str, threads: u32, shared_bytes: usize) -> Result<u32> {
        Ok(self.function(name)?.occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes, None)?)
    }
}

/// Host ↔ device copies and the allocating conveniences.
impl Gpu {
    /// **Allocates** a device buffer and copies `data` into it. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v: cudarc::driver::CudaSlice<u32> = gpu.upload(&[1, 2, 3])?;
    /// assert_eq!(gpu.download(&v)?, [1, 2, 3]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn upload<T: Pod>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        let mut buf = self.alloc::<T>(data.len())?;
        self.upload_into(data, &mut buf)?;
        Ok(buf)
    }

    /// **Allocates** `len` zeroed elements. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.zeros::<u64>(4)?;
    /// assert_eq!(gpu.download(&v)?, [0; 4]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn zeros<T: Pod>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.filled(len, 0)
    }

    /// **Allocates** `len` elements whose every byte is `byte`: for poisoning outputs in tests, so
    /// that elements a kernel failed to write stand out. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.filled::<u32>(2, 0xab)?;
    /// assert_eq!(gpu.download(&v)?, [0xabab_abab; 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn filled<T: Pod>(&self, len: usize, byte: u8) -> Result<CudaSlice<T>> {
        let mut buf = self.alloc::<T>(len)?;
        self.fill_bytes(&mut buf, byte)?;
        Ok(buf)
    }

    /// Uninitialized device memory for `len` elements, as a typed cudarc slice of any `Pod`
    /// type (cudarc's own allocators ask for its `DeviceRepr`).
    fn alloc<T: Pod>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = byte_len::<T>(len)?;
        // SAFETY: every byte is written (by a copy or a fill) before the slice is handed out.
        let raw = unsafe { self.stream.alloc::<u8>(bytes.max(1))? };
        let addr = raw.leak();
        // SAFETY: `addr` is the allocation just made on `self.stream`, `bytes` long, aligned to
        // 256 bytes, and now owned by the returned slice (freed on the same stream).
        let buf = unsafe { self.stream.upgrade_device_ptr::<T>(addr, len) };
        if self.raw_stream.is_some() {
            // The raw stream is not ordered after the allocating stream: wait here instead.
            self.stream.synchronize()?;
        }
        Ok(buf)
    }

    /// Copies `data` into the front of `dst` (which must be at least as long). Asynchronous
    /// (for pageable `data` the driver stages it before returning, so `data` may be dropped).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(3)?;
    /// gpu.upload_into(&[7, 8], &mut v)?;
    /// assert_eq!(gpu.download(&v)?, [7, 8, 0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn upload_into<T: Pod>(&self, data: &[T], dst: &mut impl DeviceWrite<T>) -> Result<()> {
        crate::error::ensure_input!(data.len() <= dst.len(), "{} elements into a buffer of {}", data.len(), dst.len());
        let b = dst.bind_mut(self)?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `dst` holds at least `data.len()` elements; the copy is issued to this
        // handle's stream, after the binding's ordering.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(b.addr, data.as_ptr().cast(), std::mem::size_of_val(data), self.cu_stream())
                .result()?
        };
        Ok(())
    }

    /// Copies `src` back to the host. **Waits** for the stream.
    pub fn download<T: Pod>(&self, src: &impl DeviceRead<T>) -> Result<Vec<T>> {
        self.download_prefix(src, src.len())
    }

    /// Copies the first `len` elements of `src` back to the host. **Waits** for the stream.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.upload(&[1u8, 2, 3])?;
    /// assert_eq!(gpu.download_prefix(&v, 2)?, [1, 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn download_prefix<T: Pod>(&self, src: &impl DeviceRead<T>, len: usize) -> Result<Vec<T>> {
        crate::error::ensure_input!(len <= src.len(), "download of {len} elements from a buffer of {}", src.len());
        let mut out = try_vec::<T>(len)?;
        let b = src.bind(self)?;
        if len > 0 {
            // SAFETY: `src` holds at least `len` elements and `out` has room for them; the
            // stream is synchronized before `out` is read.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    out.as_mut_ptr().cast(),
                    b.addr,
                    len * std::mem::size_of::<T>(),
                    self.cu_stream(),
                )
                .result()?
            };
        }
        drop(b);
        self.synchronize()?;
        Ok(out)
    }

    /// Copies `src` into the front of `dst` on the device. Asynchronous.
    pub fn copy<T: Pod>(&self, src: &impl DeviceRead<T>, dst: &mut impl DeviceWrite<T>) -> Result<()> {
        crate::error::ensure_input!(src.len() <= dst.len(), "copy of {} elements into {}", src.len(), dst.len());
        let (s, d) = (src.bind(self)?, dst.bind_mut(self)?);
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: both ranges are inside their buffers.
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(d.addr, s.addr, src.len() * std::mem::size_of::<T>(), self.cu_stream())
                .result()?
        };
        Ok(())
    }

    /// Sets every byte of `dst` to `byte`. Asynchronous.
    pub fn fill_bytes<T>(&self, dst: &mut impl DeviceWrite<T>, byte: u8) -> Result<()> {
        let bytes = byte_len::<T>(dst.len())?;
        let d = dst.bind_mut(self)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the range is `dst`'s.
        unsafe { sys::cuMemsetD8Async(d.addr, byte, bytes, self.cu_stream()).result()? };
        Ok(())
    }

    /// Zeroes the 32-bit words `range` of `buf`, as one 32-bit memset (the driver's byte-wise
    /// memset was measured slower for the few KiB an expander clears). Asynchronous.
    pub(crate) fn zero_words(&self, buf: &mut impl DeviceWrite<u32>, range: std::ops::Range<usize>) -> Result<()> {
        crate::error::ensure_input!(
            range.start <= range.end && range.end <= buf.len(),
            "zeroing words {range:?} of a buffer of {}",
            buf.len()
        );
        let d = buf.bind_mut(self)?;
        // SAFETY: the words `range` lie inside `buf`.
        unsafe { sys::cuMemsetD32Async(d.addr + 4 * range.start as u64, 0, range.len(), self.cu_stream()).result()? };
        Ok(())
    }

    /// The device address of `buf`, for handing it to another framework or FFI (see
    /// [`crate::RawSlice`] for the way back).
    pub fn device_address<T>(&self, buf: &impl DeviceRead<T>) -> Result<u64> {
        Ok(buf.bind(self)?.addr)
    }
}

/// A host vector of `len` elements, allocated fallibly: a huge download is an error, not an
/// abort.
fn try_vec<T: Pod>(len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::HostAllocation { bytes: len.saturating_mul(std::mem::size_of::<T>()) })?;
    v.resize(len, T::zeroed());
    Ok(v)
}

pub(crate) fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::InvalidInput(format!("a buffer of {len} elements overflows usize bytes")))
}

/// The `.entry` names of a PTX module, in order.
pub(crate) fn entry_names(ptx: &str) -> impl Iterator<Item = &str> {
    ptx.lines().filter_map(|l| {
        let rest =
            l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))?;
        Some(rest.split(['(', ' ']).next().unwrap_or(rest))
    })
}

/// [`Error::NoDriver`] unless `libcuda` can be loaded. cudarc loads the driver lazily and panics
/// when it is missing; asking first turns that into an error.
fn driver_present() -> Result<()> {
    // SAFETY: only tries to open the library.
    if unsafe { sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_modules_export_the_same_kernels() {
        let (a, b): (Vec<_>, Vec<_>) = (entry_names(PTX_SM70).collect(), entry_names(PTX_SM90).collect());
        assert!(a.len() > 50, "{} entries", a.len());
        assert_eq!(a, b);
        assert!(a.contains(&"scan_exclusive_sum_u32") && a.contains(&"scan_inclusive_max_f64"));
    }
}
