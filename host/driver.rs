//! Which driver entry points this machine's `libcuda` has. cudarc resolves each one lazily and
//! panics where one is missing, so warpwork asks before using any entry point newer than CUDA
//! 11.8's baseline.

/// Whether the driver exports `cuLaunchKernelEx` (CUDA 11.8 and newer), which programmatic
/// dependent launches need. `WARPWORK_PLAIN_LAUNCH=1` answers no, to test the fallback (plain
/// `cuLaunchKernel`, same results) on any driver.
pub(crate) fn has_launch_kernel_ex() -> bool {
    if std::env::var_os("WARPWORK_PLAIN_LAUNCH").is_some_and(|v| v == "1") {
        return false;
    }
    // SAFETY: `culib` opens the driver library (present: the handle exists); `get` only looks
    // the symbol up.
    unsafe {
        cudarc::driver::sys::is_culib_present()
            && cudarc::driver::sys::culib().get::<unsafe extern "C" fn()>(b"cuLaunchKernelEx\0").is_ok()
    }
}
