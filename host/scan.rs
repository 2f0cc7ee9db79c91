//! Device-wide exclusive prefix sum (`u32` and `u64`), single pass with decoupled look-back
//! (`kernels/src/device/scan.rs`). Tiles are claimed from an atomic counter, so the scan never
//! depends on the order blocks are scheduled in and cannot hang.
//!
//! [`Gpu::exclusive_scan_into`] allocates nothing: it takes scratch of [`scratch_words`] `u32`s
//! (CUB's temp storage), which it clears itself; [`Gpu::exclusive_scan`] is the convenience
//! form that allocates the scratch per call.

use crate::{error::ensure_input, DeviceRead, DeviceWrite, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{DeviceRepr, LaunchConfig};
use warpwork_abi::{kernels, scan};

pub use warpwork_abi::scan::THREADS;

/// Element types the scan is built for.
pub trait ScanItem: Pod + DeviceRepr + sealed::Sealed {
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

/// Tiles of a scan of `n` elements.
fn tiles<T: ScanItem>(n: usize) -> usize {
    n.div_ceil((THREADS * T::ITEMS) as usize)
}

/// The scratch layout in `u32` words: `[status; tiles] [tile counter] [pad to 8 bytes]
/// [aggregate: T; tiles] [inclusive prefix: T; tiles]`; returns (aggregate offset, inclusive
/// offset, total) in words.
fn layout<T: ScanItem>(n: usize) -> (usize, usize, usize) {
    let t = tiles::<T>(n);
    let aggregate = (t + 1).next_multiple_of(2);
    let per = t * std::mem::size_of::<T>() / 4;
    (aggregate, aggregate + per, aggregate + 2 * per)
}

/// `u32` words of scratch [`Gpu::exclusive_scan_into`] needs for `n` elements of `T`.
///
/// # Examples
/// ```
/// assert!(warpwork::scan::scratch_words::<u32>(1 << 20) > 0);
/// assert_eq!(warpwork::scan::scratch_words::<u64>(0), 2);
/// ```
pub fn scratch_words<T: ScanItem>(n: usize) -> usize {
    layout::<T>(n).2
}

impl Gpu {
    /// `output[i] = input[0] + … + input[i-1]` (wrapping), `output[0] = 0`. `output` may be
    /// longer than `input` (the rest is untouched). **Allocates** its scratch; asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3u32, 1, 4, 1, 5])?;
    /// let mut output = gpu.zeros::<u32>(5)?;
    /// gpu.exclusive_scan(&input, &mut output)?;
    /// assert_eq!(gpu.download(&output)?, [0, 3, 4, 8, 9]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn exclusive_scan<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
    ) -> Result<()> {
        let mut scratch = self.zeros::<u32>(scratch_words::<T>(input.len()))?;
        self.exclusive_scan_into(input, output, &mut scratch)
    }

    /// [`Gpu::exclusive_scan`] with caller-provided scratch of at least
    /// [`scratch_words::<T>(input.len())`](scratch_words) words, which it clears (one memset on
    /// the stream) and overwrites: allocates nothing, so it can be captured into a CUDA graph.
    /// Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[2u64; 1000])?;
    /// let mut output = gpu.zeros::<u64>(1000)?;
    /// let mut scratch = gpu.zeros::<u32>(warpwork::scan::scratch_words::<u64>(1000))?;
    /// gpu.exclusive_scan_into(&input, &mut output, &mut scratch)?;
    /// assert_eq!(gpu.download(&output)?[999], 1998);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn exclusive_scan_into<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        let n = input.len();
        ensure_input!(output.len() >= n, "scan of {n} elements into a buffer of {}", output.len());
        let (aggregate, inclusive, words) = layout::<T>(n);
        ensure_input!(scratch.len() >= words, "scan scratch of {} words; {words} needed", scratch.len());
        let tiles = tiles::<T>(n);
        ensure_input!(tiles <= i32::MAX as usize, "a scan of {n} elements needs {tiles} blocks");
        if n == 0 {
            return Ok(());
        }
        // The status words and the tile counter start at zero; aggregates and inclusive
        // prefixes are written before being read.
        self.zero_words(scratch, 0..tiles + 1)?;
        let f = self.function(T::KERNEL)?;
        let cfg = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut l = self.kernel_args();
        let s = l.bind_mut(scratch)?;
        l.read(input).write(output).value(&n);
        l.addr(s).addr(s + 4 * aggregate as u64).addr(s + 4 * inclusive as u64).addr(s + 4 * tiles as u64);
        // SAFETY: matches `scan_exclusive_*` in kernels/src/kernels/scan.rs (input, output, n,
        // status, aggregate, inclusive, tile counter); the scratch holds the layout above, its
        // status words and counter zeroed; one block per tile.
        unsafe { l.launch(f, cfg) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_layout_keeps_values_aligned() {
        for n in [0usize, 1, 4095, 4096, 4097, 1 << 20] {
            let (agg, inc, words) = layout::<u64>(n);
            assert_eq!(agg % 2, 0);
            assert!(agg > tiles::<u64>(n));
            assert_eq!(inc - agg, tiles::<u64>(n) * 2);
            assert_eq!(words - inc, tiles::<u64>(n) * 2);
            let (agg, inc, words) = layout::<u32>(n);
            assert_eq!((inc - agg, words - inc), (tiles::<u32>(n), tiles::<u32>(n)));
        }
    }
}
