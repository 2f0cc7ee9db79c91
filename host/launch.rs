//! Kernel launches on a handle's stream: one argument list per launch, the buffers bound
//! through [`DeviceRead`] / [`DeviceWrite`] (context check, cudarc stream events), scalars by
//! value.
//!
//! warpwork launches through the driver (`cuLaunchKernel`, or `cuLaunchKernelEx` for
//! programmatic dependent launches) rather than cudarc's launch builder, so that the same code
//! serves cudarc streams and raw `CUstream`s (see [`Gpu::on_raw_stream`]).

use crate::driver::DependentLaunch;
use crate::memory::bind::{Bound, Target};
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use cudarc::driver::{CudaFunction, DeviceRepr, LaunchConfig};
use std::ffi::c_void;

/// Most parameters of one kernel (warpwork's take at most 13).
const MAX_ARGS: usize = 24;

/// One parameter: a bound device address (kept in the list) or a scalar the caller lends.
#[derive(Clone, Copy)]
enum Param {
    Addr(usize),
    Value(*const c_void),
}

/// The arguments of one launch of a kernel on a [`Gpu`]'s stream, in the kernel's parameter
/// order. Your own pass-2 kernels receive theirs through this type (see
/// [`crate::expand::Planned::pass2_with`]).
#[must_use = "an argument list launches nothing until `launch`"]
pub struct KernelArgs<'a> {
    gpu: &'a Gpu,
    target: Target<'a>,
    params: [Param; MAX_ARGS],
    addrs: [u64; MAX_ARGS],
    count: usize,
    bound: Vec<Bound<'a>>,
    error: Option<crate::Error>,
}

impl<'a> KernelArgs<'a> {
    pub(crate) fn new(gpu: &'a Gpu) -> Self {
        // A failed capture query is reported at launch; until then cudarc buffers are refused
        // (as in a capture), so that no event is waited on or recorded.
        let (target, error) = match gpu.target() {
            Ok(t) => (t, None),
            Err(e) => (Target { gpu, tracked_capture: true }, Some(e)),
        };
        KernelArgs {
            gpu,
            target,
            params: [Param::Value(std::ptr::null()); MAX_ARGS],
            addrs: [0; MAX_ARGS],
            count: 0,
            bound: Vec::new(),
            error,
        }
    }

    fn push(&mut self, p: Param) -> &mut Self {
        if self.count == MAX_ARGS {
            self.error.get_or_insert(crate::Error::InvalidInput(format!("more than {MAX_ARGS} kernel arguments")));
        } else {
            self.params[self.count] = p;
            self.count += 1;
        }
        self
    }

    fn push_bound(&mut self, b: Result<Bound<'a>>) -> &mut Self {
        match b {
            Ok(b) => {
                let addr = b.addr;
                self.bound.push(b);
                self.addr(addr)
            }
            Err(e) => {
                self.error.get_or_insert(e);
                self
            }
        }
    }

    /// A buffer the kernel reads: passed as its device address. A buffer of another context
    /// makes the launch fail with [`crate::Error::WrongContext`] (nothing is launched).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[1u32, 2, 3])?;
    /// let mut l = gpu.kernel_args();
    /// l.read(&input); // `input` stays borrowed until `l` is launched or dropped
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn read<T, B: DeviceRead<T> + ?Sized>(&mut self, buf: &'a B) -> &mut Self {
        let b = buf.bind(&self.target);
        self.push_bound(b)
    }

    /// A buffer the kernel writes (or reads): passed as its device address, borrowed mutably
    /// until the launch.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut out = gpu.zeros::<f32>(256)?;
    /// let n = 256u32;
    /// let mut l = gpu.kernel_args();
    /// l.write(&mut out).value(&n);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn write<T, B: DeviceWrite<T> + ?Sized>(&mut self, buf: &'a mut B) -> &mut Self {
        let b = buf.bind_mut(&self.target);
        self.push_bound(b)
    }

    /// Binds `buf` for reading without passing it: its address (see [`KernelArgs::bind_mut`]).
    pub(crate) fn bind<T, B: DeviceRead<T> + ?Sized>(&mut self, buf: &'a B) -> Result<u64> {
        let b = buf.bind(&self.target)?;
        let addr = b.addr;
        self.bound.push(b);
        Ok(addr)
    }

    /// Binds `buf` for writing without passing it: its address, for parameters that point
    /// inside it ([`KernelArgs::addr`]); the binding lasts until the launch is issued.
    pub(crate) fn bind_mut<T, B: DeviceWrite<T> + ?Sized>(&mut self, buf: &'a mut B) -> Result<u64> {
        let b = buf.bind_mut(&self.target)?;
        let addr = b.addr;
        self.bound.push(b);
        Ok(addr)
    }

    /// A device address the caller vouches for (an offset into a bound buffer, say).
    pub(crate) fn addr(&mut self, addr: u64) -> &mut Self {
        self.addrs[self.count.min(MAX_ARGS - 1)] = addr;
        let slot = self.count;
        self.push(Param::Addr(slot))
    }

    /// A scalar parameter, passed by value (`DeviceRepr`: a type the kernel reads as is). The
    /// driver copies it at the launch (a captured graph keeps the copy).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let (n, scale) = (1000u64, 0.5f32);
    /// let mut l = gpu.kernel_args();
    /// l.value(&n).value(&scale);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn value<V: DeviceRepr>(&mut self, v: &'a V) -> &mut Self {
        self.push(Param::Value(v as *const V as *const c_void))
    }

    fn param_ptrs(&mut self) -> Result<[*mut c_void; MAX_ARGS]> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut ptrs = [std::ptr::null_mut(); MAX_ARGS];
        for (i, p) in self.params[..self.count].iter().enumerate() {
            ptrs[i] = match *p {
                Param::Addr(slot) => &self.addrs[slot] as *const u64 as *mut c_void,
                Param::Value(v) => v as *mut c_void,
            };
        }
        Ok(ptrs)
    }

    /// Launches `f` with these arguments on the handle's stream. Asynchronous; capturable
    /// (with cudarc buffers, while cudarc's event tracking is off: see the crate docs). The
    /// first error met while binding (a buffer of another context, more than 24 arguments, a
    /// cudarc buffer in a tracked capture) is returned here and nothing is launched.
    ///
    /// # Safety
    /// * `f` belongs to this handle's context, and the arguments match its parameters in number,
    ///   order and type;
    /// * the grid and block shape cover what the kernel's contract asks;
    /// * the kernel touches memory only through these arguments (or memory the caller keeps
    ///   alive and unaliased until the launch has finished), within the bound buffers' lengths;
    /// * a buffer passed with [`KernelArgs::read`] is not written by the kernel.
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::driver::LaunchConfig;
    /// use cudarc::nvrtc::Ptx;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// # const MY_PTX: &str = "";
    /// // Your kernels' PTX (a kernel crate of yours on `warpwork-kernels`, say), loaded once into
    /// // the handle's context. `count_bits(words, n, total)` adds the set bits of `n` words to `*total`.
    /// let module = gpu.context().load_module(Ptx::from_src(MY_PTX))?;
    /// let f = module.load_function("count_bits")?;
    /// let words = gpu.upload(&[1u32, 0, 3, 0xFF])?;
    /// let mut total = gpu.zeros::<u64>(1)?;
    /// let n = words.len() as u64;
    /// let mut l = gpu.kernel_args();
    /// l.read(&words).value(&n).write(&mut total);
    /// // SAFETY: the arguments match `count_bits`; `words` holds `n` words and `total` one u64.
    /// unsafe { l.launch(&f, LaunchConfig::for_num_elems(n as u32))? };
    /// assert_eq!(gpu.download(&total)?, [11]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub unsafe fn launch(self, f: &CudaFunction, cfg: LaunchConfig) -> Result<()> {
        self.launch_inner(f, cfg, false)
    }

    /// Launches `f` as a *programmatic dependent* of the kernel before it on the stream where
    /// the handle can (see [`Gpu::programmatic_dependent_launch`]; an ordinary launch
    /// otherwise): its blocks may start while that kernel's last blocks still run.
    ///
    /// # Safety
    /// As [`KernelArgs::launch`], and `f` waits (`griddepcontrol.wait`) before reading what the
    /// previous kernel writes.
    pub(crate) unsafe fn launch_dependent(self, f: &CudaFunction, cfg: LaunchConfig) -> Result<()> {
        self.launch_inner(f, cfg, true)
    }

    unsafe fn launch_inner(mut self, f: &CudaFunction, cfg: LaunchConfig, dependent: bool) -> Result<()> {
        let mut ptrs = self.param_ptrs()?;
        let gpu = self.gpu;
        gpu.context().bind_to_thread()?;
        let stream = gpu.cu_stream();
        let how = if dependent { gpu.dependent_launch() } else { DependentLaunch::Plain };
        how.launch(f, cfg, stream, &mut ptrs[..self.count])?;
        // `self.bound` drops here, after the launch is issued: cudarc records its events then.
        drop(self.bound);
        Ok(())
    }
}

/// The most blocks a launch grid may have in x (CUDA's limit, 2^31 − 1).
pub(crate) const MAX_GRID_X: u64 = i32::MAX as u64;

/// `blocks` as a grid's x dimension: [`crate::Error::CapacityExceeded`] for `what` past
/// [`MAX_GRID_X`], before anything is launched.
pub(crate) fn grid_x(blocks: u64, what: &'static str) -> Result<u32> {
    if blocks > MAX_GRID_X {
        return Err(crate::Error::CapacityExceeded { what, needed: blocks, capacity: MAX_GRID_X });
    }
    Ok(blocks as u32)
}
