//! How a kernel that may start early is launched: as a *programmatic dependent* of the kernel
//! before it on the stream (`cuLaunchKernelEx` with programmatic stream serialization; compute
//! capability 9.0 and newer), or plainly (`cuLaunchKernel`: the same results, without the
//! overlap, since a kernel's `griddepcontrol.wait` returns at once when nothing runs before it).
//!
//! The choice is made once per [`Gpu`](crate::Gpu) handle. cudarc's bindings load each driver
//! entry point on first use and panic when the driver lacks it, and drivers before CUDA 11.8 have
//! no `cuLaunchKernelEx`: so warpwork looks that entry point up itself, and launches plainly where
//! it is missing.

use crate::Result;
use cudarc::driver::sys::{self, CUfunction, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchConfig, CUresult};
use cudarc::driver::{CudaFunction, LaunchConfig};
use std::ffi::{c_void, OsStr};

/// `cuLaunchKernelEx`'s C signature (`cuda.h`).
type LaunchKernelEx =
    unsafe extern "C" fn(*const CUlaunchConfig, CUfunction, *mut *mut c_void, *mut *mut c_void) -> CUresult;

/// Set (to anything but `0`) when a handle is created, launches that handle's dependent kernels
/// plainly: for debugging, and for running the GPU suite through the plain path.
pub(crate) const PLAIN_LAUNCH_VAR: &str = "WARPWORK_PLAIN_LAUNCH";

/// How one handle launches kernels that may start before their predecessor ends.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DependentLaunch {
    /// Through the driver's `cuLaunchKernelEx`, found when the handle was created.
    Programmatic(LaunchKernelEx),
    /// Through `cuLaunchKernel`, which every driver has.
    Plain,
}

impl DependentLaunch {
    /// The launch for a device of compute capability `major`.x, honouring [`PLAIN_LAUNCH_VAR`].
    /// The driver must be loaded.
    pub(crate) fn for_device(major: i32) -> Self {
        let plain = plain_requested(std::env::var_os(PLAIN_LAUNCH_VAR).as_deref());
        choose(major, plain, driver_launch_kernel_ex)
    }

    pub(crate) fn is_programmatic(self) -> bool {
        matches!(self, DependentLaunch::Programmatic(_))
    }

    /// Launches `f` on `stream` with `cfg`.
    ///
    /// # Safety
    /// As for any launch: `params` point to values matching `f`'s parameters, the memory they
    /// name stays valid until the kernel has run, and `f`'s context is current on this thread.
    pub(crate) unsafe fn launch(
        self,
        f: &CudaFunction,
        cfg: LaunchConfig,
        stream: sys::CUstream,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        let (grid, block) = (cfg.grid_dim, cfg.block_dim);
        match self {
            DependentLaunch::Programmatic(launch_kernel_ex) => {
                let mut attr: CUlaunchAttribute = std::mem::zeroed();
                attr.id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                attr.value.programmaticStreamSerializationAllowed = 1;
                let config = CUlaunchConfig {
                    gridDimX: grid.0,
                    gridDimY: grid.1,
                    gridDimZ: grid.2,
                    blockDimX: block.0,
                    blockDimY: block.1,
                    blockDimZ: block.2,
                    sharedMemBytes: cfg.shared_mem_bytes,
                    hStream: stream,
                    attrs: &mut attr,
                    numAttrs: 1,
                };
                launch_kernel_ex(&config, f.cu_function(), params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            }
            DependentLaunch::Plain => {
                sys::cuLaunchKernel(
                    f.cu_function(),
                    grid.0,
                    grid.1,
                    grid.2,
                    block.0,
                    block.1,
                    block.2,
                    cfg.shared_mem_bytes,
                    stream,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
                .result()?;
            }
        }
        Ok(())
    }
}

/// Whether the value of [`PLAIN_LAUNCH_VAR`] asks for plain launches.
fn plain_requested(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The decision: programmatic on compute capability ≥ 9.0 (the first with programmatic dependent
/// launch) when not asked otherwise and the driver has the entry point; `lookup` runs only then.
fn choose(major: i32, plain_requested: bool, lookup: impl FnOnce() -> Option<LaunchKernelEx>) -> DependentLaunch {
    if major < 9 || plain_requested {
        return DependentLaunch::Plain;
    }
    lookup().map_or(DependentLaunch::Plain, DependentLaunch::Programmatic)
}

/// The driver's `cuLaunchKernelEx`, if it has one.
fn driver_launch_kernel_ex() -> Option<LaunchKernelEx> {
    // SAFETY: the driver library is loaded (`Gpu::new` checked it first; `culib` keeps it loaded
    // for the life of the process, so the pointer stays valid), and `LaunchKernelEx` is the C
    // signature of the symbol looked up.
    unsafe { sys::culib().get::<LaunchKernelEx>(&b"cuLaunchKernelEx\0"[..]).ok().map(|symbol| *symbol) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    unsafe extern "C" fn fake_launch(
        _: *const CUlaunchConfig,
        _: CUfunction,
        _: *mut *mut c_void,
        _: *mut *mut c_void,
    ) -> CUresult {
        CUresult::CUDA_SUCCESS
    }

    /// `choose` with a lookup that finds the entry point or not, and how often it was asked.
    fn decide(major: i32, plain: bool, present: bool) -> (bool, u32) {
        let asked = Cell::new(0);
        let lookup = || {
            asked.set(asked.get() + 1);
            present.then_some(fake_launch as LaunchKernelEx)
        };
        (choose(major, plain, lookup).is_programmatic(), asked.get())
    }

    #[test]
    fn programmatic_only_on_cc9_with_the_entry_point_and_not_turned_off() {
        assert_eq!(decide(9, false, true), (true, 1));
        assert_eq!(decide(10, false, true), (true, 1));
        assert_eq!(decide(12, false, true), (true, 1));
    }

    #[test]
    fn a_driver_without_the_entry_point_launches_plainly() {
        assert_eq!(decide(9, false, false), (false, 1));
    }

    #[test]
    fn older_devices_and_requests_launch_plainly_without_asking_the_driver() {
        for major in [7, 8] {
            assert_eq!(decide(major, false, true), (false, 0), "compute capability {major}.x");
        }
        assert_eq!(decide(9, true, true), (false, 0));
    }

    #[test]
    fn the_variable_asks_for_plain_launches_unless_empty_or_zero() {
        assert!(!plain_requested(None));
        assert!(!plain_requested(Some(OsStr::new(""))));
        assert!(!plain_requested(Some(OsStr::new("0"))));
        assert!(plain_requested(Some(OsStr::new("1"))));
        assert!(plain_requested(Some(OsStr::new("yes"))));
    }
}
