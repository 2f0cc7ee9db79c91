//! The [`Gpu`] handle: one device's context, a stream, and warpwork's loaded kernels.

use crate::{DeviceBuffer, Error, Result};
use bytemuck::Pod;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DevicePtrMut};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::Arc;
use warpwork_abi::kernels::ALL_KERNELS;

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

/// One GPU: a CUDA context, the stream every warpwork call on this handle is ordered on, and
/// warpwork's kernels (the sm_90 build where the device supports it), each looked up once when
/// the handle is opened so that a launch never asks the driver for its function.
///
/// All operations are asynchronous on [`Gpu::stream`] unless they return host data.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Every kernel of [`ALL_KERNELS`], by name, loaded once in [`Gpu::new`].
    functions: HashMap<&'static str, CudaFunction>,
    info: DeviceInfo,
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
        let functions = ALL_KERNELS
            .iter()
            .map(|&name| Ok((name, module.load_function(name)?)))
            .collect::<Result<HashMap<_, _>>>()?;
        let sm_count =
            ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let info =
            DeviceInfo { name, compute_capability: (major, minor), sm_count, total_memory: ctx.total_mem()?, ptx_arch };
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream, functions, info, hold: std::sync::OnceLock::new() })
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

    /// A kernel of warpwork's module, by its exported name (one of
    /// [`crate::abi::kernels::ALL_KERNELS`]), from the table loaded when the handle was opened:
    /// no driver call. Launch it with `gpu.stream().launch_builder(&f)`, pushing buffers as
    /// `buf.raw()`. An unknown name is [`Error::InvalidInput`].
    ///
    /// ```no_run
    /// use warpwork::{expand::PushKernelArg, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let hold = gpu.function(warpwork::abi::kernels::HOLD_STREAM)?;
    /// let _launch = gpu.stream().launch_builder(&hold);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        self.functions
            .get(name)
            .cloned()
            .ok_or_else(|| Error::InvalidInput(format!("warpwork has no kernel named {name:?}")))
    }

    /// Launches `f` as a *programmatic dependent* of the kernel before it on the stream (compute
    /// capability 9.0 and newer; an ordinary launch before): its blocks may start while that
    /// kernel's last blocks still run, hiding the launch gap. For kernels that wait
    /// (`griddepcontrol.wait`) before reading what the previous kernel writes, and whose
    /// predecessor lets them start (`griddepcontrol.launch_dependents`).
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
        use cudarc::driver::sys::{cuLaunchKernelEx, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchConfig};
        self.ctx.bind_to_thread()?;
        let mut attr: CUlaunchAttribute = std::mem::zeroed();
        attr.id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            hStream: self.stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: (self.info.compute_capability.0 >= 9) as u32,
        };
        cuLaunchKernelEx(&config, f.cu_function(), params.as_mut_ptr(), std::ptr::null_mut()).result()?;
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The kernels a PTX module defines: the names after `.entry`.
    fn entries(ptx: &str) -> BTreeSet<&str> {
        ptx.lines()
            .filter_map(|l| {
                l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))
            })
            .map(|rest| rest.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn both_modules_export_exactly_the_abi_kernel_list() {
        let listed: BTreeSet<&str> = ALL_KERNELS.iter().copied().collect();
        assert_eq!(listed.len(), ALL_KERNELS.len(), "a name is listed twice in warpwork_abi::kernels");
        for (arch, ptx) in [("sm_70", PTX_SM70), ("sm_90", PTX_SM90)] {
            let exported = entries(ptx);
            let unlisted: Vec<_> = exported.difference(&listed).collect();
            let missing: Vec<_> = listed.difference(&exported).collect();
            assert!(
                unlisted.is_empty(),
                "{arch}: kernels missing from warpwork_abi::kernels::ALL_KERNELS: {unlisted:?}"
            );
            assert!(missing.is_empty(), "{arch}: listed in warpwork_abi::kernels but not in the PTX: {missing:?}");
        }
    }

    #[test]
    fn a_handle_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Gpu>();
    }

    #[test]
    fn entry_names_are_read_from_ptx() {
        let ptx = ".version 6.0\n.visible .entry scan_x(\n\t.param .u64 a\n)\n.entry other (\n.func helper(";
        assert_eq!(entries(ptx), BTreeSet::from(["scan_x", "other"]));
    }
}
