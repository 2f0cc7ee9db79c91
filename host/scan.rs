//! Device-wide exclusive prefix sum (`u32` and `u64`), single pass with decoupled look-back
//! (`kernels/src/device/scan.rs`). Tiles are claimed from an atomic counter, so the scan never
//! depends on the order blocks are scheduled in and cannot hang.

use crate::{error::ensure_input, DeviceBuffer, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use warpwork_abi::{kernels, scan};

pub use warpwork_abi::scan::THREADS;

/// Element types the scan is built for.
pub trait ScanItem: Pod + sealed::Sealed {
    /// The scan kernel for this type.
    const KERNEL: &'static str;
    /// Elements per thread (`warpwork_abi::scan::ITEMS_*`).
    const ITEMS: u32;
}
mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for u32 {}
impl sealed::Sealed for u64 {}
impl ScanItem for u32 {
    const KERNEL: &'static str = kernels::SCAN_EXCLUSIVE_U32;
    const ITEMS: u32 = scan::ITEMS_U32 as u32;
}
impl ScanItem for u64 {
    const KERNEL: &'static str = kernels::SCAN_EXCLUSIVE_U64;
    const ITEMS: u32 = scan::ITEMS_U64 as u32;
}

impl Gpu {
    /// `output[i] = input[0] + … + input[i-1]` (wrapping), `output[0] = 0`. `output` may be as
    /// long as `input` or longer (the rest is untouched). Asynchronous.
    pub fn exclusive_scan<T: ScanItem>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        let n = input.len();
        ensure_input!(output.len() >= n, "scan of {n} elements into a buffer of {}", output.len());
        if n == 0 {
            return Ok(());
        }
        let tile = (THREADS * T::ITEMS) as usize;
        let tiles = n.div_ceil(tile);
        // status + tile counter zeroed; aggregates and prefixes are written before being read.
        let mut status = self.zeros::<u32>(tiles)?;
        let mut counter = self.zeros::<u32>(1)?;
        let mut aggregate = self.zeros::<T>(tiles)?;
        let mut inclusive = self.zeros::<T>(tiles)?;
        let f = self.function(T::KERNEL)?;
        let cfg = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut l = self.stream().launch_builder(&f);
        l.arg(input.raw()).arg(output.raw_mut()).arg(&n);
        l.arg(status.raw_mut()).arg(aggregate.raw_mut()).arg(inclusive.raw_mut()).arg(counter.raw_mut());
        // SAFETY: matches `scan_exclusive_*` in kernels/src/kernels/scan.rs; `status` (`tiles` words)
        // and the counter are zeroed.
        unsafe { l.launch(cfg)? };
        Ok(())
    }
}
