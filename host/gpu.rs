//! The [`Gpu`] handle: warpwork's kernels loaded into a CUDA context, and the stream its calls
//! are issued to.

use crate::driver::DependentLaunch;
use crate::memory::bind::Target;
use crate::{Error, Result};
use cudarc::driver::sys::{self, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

mod code;
mod kernels;
mod loaded;
mod own;
pub use code::{Code, ModuleInfo, PtxReason, FORCE_PTX_VAR};
pub use loaded::DeviceInfo;
use loaded::{driver_present, Loaded};
pub use own::{DeviceCode, Kernels};

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
    /// The handle's own cudarc stream: the one it allocates on.
    stream: Arc<CudaStream>,
    /// The stream calls are issued to: `stream`, or for [`Gpu::on_raw_stream`] a borrowed
    /// cudarc wrapper of the raw stream (so that cudarc's stream events order it too).
    launch: Arc<CudaStream>,
    /// How kernels that may start before their predecessor ends are launched (chosen once,
    /// when the kernels are loaded; see [`Gpu::programmatic_dependent_launch`]).
    dependent_launch: DependentLaunch,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("info", &self.loaded.info)
            .field("raw_stream", &self.is_raw().then(|| self.cu_stream()))
            .finish()
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

    /// Opens device `ordinal` (its primary context) and creates a new stream for this handle.
    /// The kernels load on first use (see [`Gpu::from_stream`]).
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

    /// warpwork on the context of `stream`, issuing this handle's calls to `stream`. Cheap: the
    /// kernels load later, one family's module at a time, the first time one of its kernels is
    /// needed (from a cubin in milliseconds on the architectures warpwork ships machine code for;
    /// see [`DeviceInfo::code`]); every handle on the same context shares them.
    ///
    /// # Examples
    /// ```no_run
    /// let ctx = cudarc::driver::CudaContext::new(0)?;
    /// let gpu = warpwork::Gpu::from_stream(ctx.new_stream()?)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Self> {
        driver_present()?;
        let loaded = Loaded::for_context(stream.context().clone())?;
        let dependent_launch = DependentLaunch::for_device(loaded.info.compute_capability.0);
        Ok(Gpu { loaded, launch: stream.clone(), stream, dependent_launch })
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
        if stream.context().cu_ctx() != self.context().cu_ctx() {
            return Err(Error::WrongContext);
        }
        Ok(Gpu { stream: stream.clone(), launch: stream.clone(), ..self.clone() })
    }

    /// The same kernels, issuing to a raw `CUstream` (from cust, FFI or another framework).
    /// Allocating conveniences ([`Gpu::upload`], [`Gpu::zeros`], …) still allocate on
    /// [`Gpu::stream`] and wait for the allocation before returning, so their memory is ready
    /// for the raw stream.
    ///
    /// The raw stream is wrapped as a borrowed cudarc stream, so cudarc buffers passed to calls
    /// on it are ordered by cudarc's stream events as on any cudarc stream (while the context
    /// tracks events: it does once it has a second stream, e.g. the one [`Gpu::new`] creates).
    ///
    /// # Safety
    /// * `stream` is a valid stream of this handle's context, and stays valid for as long as the
    ///   returned handle, or any clone of it, is used.
    /// * warpwork cannot see another framework's work: the caller orders the raw stream after
    ///   whatever wrote the raw buffers it passes (and the cudarc buffers, when the context
    ///   does not track events), and keeps raw buffers alive until the raw stream has finished
    ///   the work issued with them.
    /// * Without event tracking, the caller also keeps every cudarc buffer and warpwork object
    ///   used on the raw stream (an [`crate::expand::Expander`], say) alive until the raw stream
    ///   has finished the work issued with it: they free their memory on [`Gpu::stream`].
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let theirs = gpu.context().new_stream()?; // stands in for another framework's stream
    /// // SAFETY: a stream of this context, alive (held by `theirs`) while `raw` is used.
    /// let raw = unsafe { gpu.on_raw_stream(theirs.cu_stream()) };
    /// let v = raw.upload(&[3u32, 1, 2])?;
    /// raw.synchronize()?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub unsafe fn on_raw_stream(&self, stream: CUstream) -> Gpu {
        // SAFETY: the caller's contract above is `wrap_borrowed_stream`'s.
        let launch = unsafe { self.context().wrap_borrowed_stream(stream) };
        Gpu { launch, ..self.clone() }
    }

    /// Facts about the device.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let info = gpu.info();
    /// println!("{} (sm_{}{}), {} SMs", info.name, info.compute_capability.0, info.compute_capability.1, info.sm_count);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn info(&self) -> &DeviceInfo {
        &self.loaded.info
    }

    /// The CUDA context.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let side = gpu.context().new_stream()?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn context(&self) -> &Arc<CudaContext> {
        // The handle's own stream's: the cudarc context object whose settings (event tracking)
        // the caller controls. Handles on one CUDA context share their modules even when they
        // come from different cudarc context objects.
        self.stream.context()
    }

    /// The cudarc stream of this handle (for a handle from [`Gpu::on_raw_stream`]: the stream
    /// its allocations are made on; calls go to the raw stream).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.zeros::<u32>(4)?;
    /// gpu.stream().synchronize()?; // cudarc's own calls on the same stream
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The stream calls on this handle are issued to (the raw one for a handle from
    /// [`Gpu::on_raw_stream`]), for handing to FFI.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// assert_eq!(gpu.cu_stream(), gpu.stream().cu_stream());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn cu_stream(&self) -> CUstream {
        self.launch.cu_stream()
    }

    /// The cudarc stream calls are issued to (a borrowed wrapper for a raw stream).
    pub(crate) fn launch_stream(&self) -> &Arc<CudaStream> {
        &self.launch
    }

    /// Whether calls go to a raw stream ([`Gpu::on_raw_stream`]) rather than [`Gpu::stream`].
    pub(crate) fn is_raw(&self) -> bool {
        !Arc::ptr_eq(&self.stream, &self.launch)
    }

    /// Whether the stream calls are issued to is capturing a CUDA graph.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// assert!(!gpu.is_capturing()?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn is_capturing(&self) -> Result<bool> {
        Ok(self.launch.capture_status()? != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }

    /// [`Error::StreamCapture`] when the launch stream is capturing: for calls that wait for
    /// the stream, copy host memory or allocate, which a graph cannot hold. Refusing before
    /// issuing anything keeps the capture valid.
    pub(crate) fn refuse_in_capture(&self, what: &str) -> Result<()> {
        if self.is_capturing()? {
            return Err(Error::StreamCapture(what.to_string()));
        }
        Ok(())
    }

    /// The binding target of one call on this handle (see [`Target`]), with the handle's context
    /// current on this thread: asks the driver whether
    /// the stream is capturing only while cudarc tracks events (otherwise binding touches no
    /// event and the answer does not matter).
    pub(crate) fn target(&self) -> Result<Target<'_>> {
        // Every call binds through here: make the handle's context current on this thread (an
        // application with several contexts, or cust, may have switched it).
        self.context().bind_to_thread()?;
        let tracked_capture = self.context().is_managing_stream_synchronization() && self.is_capturing()?;
        Ok(Target { gpu: self, tracked_capture })
    }

    /// Whether kernels that may start before their predecessor ends (S2.5f's pass 2) are
    /// launched as *programmatic dependents*, which hides the launch gap: on compute capability
    /// 9.0 and newer, with a driver that has `cuLaunchKernelEx` (CUDA 11.8 and newer), unless
    /// `WARPWORK_PLAIN_LAUNCH` was set when the kernels were loaded. Otherwise they are launched
    /// plainly, with the same results.
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

    /// How this handle launches kernels that may start early.
    pub(crate) fn dependent_launch(&self) -> DependentLaunch {
        self.dependent_launch
    }

    pub(crate) fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// Waits until all work issued to this handle's stream has finished.
    /// [`Error::StreamCapture`] while the stream is capturing a graph.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.upload(&[1u32, 2])?;
    /// gpu.synchronize()?; // the upload has landed
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.refuse_in_capture("a synchronization waits for the stream")?;
        self.context().bind_to_thread()?;
        // SAFETY: a stream of this context (see `on_raw_stream`'s contract for raw ones).
        unsafe { sys::cuStreamSynchronize(self.cu_stream()).result()? };
        Ok(())
    }
}

#[cfg(test)]
mod tests;
