//! Sums that start from a base in device memory (CUB's *future value*): the scan's kernel reads
//! `base[0] + … + base[k - 1]` itself, once per block, so a start computed on the device (a
//! total of an earlier pass, the totals of other GPUs' shards) needs no trip through the host.

use super::{scan_items_standard_threads, Base, Operands, Scan, ScanItem, ScanKind, ScanOp};
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use warpwork_abi::scan::{tiles_of, TileClass};

/// The kernel of a sum from a base of `T`, and its block size (standard tiles for every `n`).
pub(crate) fn based_kernel<T: ScanItem>(kind: ScanKind) -> (&'static str, u32) {
    let name = match kind {
        ScanKind::Exclusive => T::BASED_KERNELS[0],
        ScanKind::Inclusive => T::BASED_KERNELS[1],
    };
    (name, scan_items_standard_threads::<T>())
}

/// Tiles (blocks) of a sum from a base of `n` elements of `T`: never more than the plain scan's,
/// so [`super::scratch_len`] sizes its scratch too.
pub(crate) fn based_tiles<T: ScanItem>(n: usize) -> usize {
    tiles_of(std::mem::size_of::<T>(), TileClass::Standard, n as u64) as usize
}

impl Gpu {
    /// The sum of `input` into `output` (exclusive or inclusive, as `kind` says), starting from
    /// `base[0] + … + base[base.len() - 1]` read from device memory by the kernel:
    /// `output[i] = B + x₀ + … + x_{i-1}` (exclusive) or `B + x₀ + … + xᵢ` (inclusive), with
    /// `B` the sum of `base` (0 for an empty `base`). **Allocates** its scratch; asynchronous.
    /// The base is read after everything issued before on the stream, so an earlier kernel can
    /// have written it. Sums as [`Gpu::scan`]'s (integer sums wrap; floats: the scan notes).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::ScanKind;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3u32, 1, 4])?;
    /// let base = gpu.upload(&[100u32, 20])?; // e.g. written by an earlier kernel
    /// let mut output = gpu.zeros::<u32>(3)?;
    /// gpu.scan_with_base(&input, &mut output, ScanKind::Exclusive, &base)?;
    /// assert_eq!(gpu.download(&output)?, [120, 123, 124]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn scan_with_base<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        kind: ScanKind,
        base: &impl DeviceRead<T>,
    ) -> Result<()> {
        let mut scratch = self.zeros::<u32>(super::scratch_len::<T>(input.len()))?;
        self.scan_with_base_into(input, output, kind, base, &mut scratch)
    }

    /// [`Gpu::scan_with_base`] with caller-provided scratch of at least
    /// [`scratch_len::<T>(input.len())`](super::scratch_len) words, as [`Gpu::scan_into`]:
    /// allocates nothing, so it can be captured into a CUDA graph. Asynchronous.
    ///
    /// The kernel is the plain scan's in standard tiles (whatever `n`), plus one thread per
    /// block that adds up `base` after the look-back: meant for a few elements (one, or one per
    /// GPU), as each block reads all of them.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::{scratch_len, ScanKind};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[1.5f64; 1000])?;
    /// let base = gpu.upload(&[-1000.0f64])?;
    /// let mut output = gpu.zeros::<f64>(1000)?;
    /// let mut scratch = gpu.zeros::<u32>(scratch_len::<f64>(1000))?;
    /// gpu.scan_with_base_into(&input, &mut output, ScanKind::Inclusive, &base, &mut scratch)?;
    /// assert_eq!(gpu.download(&output)?[999], 500.0);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn scan_with_base_into<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        kind: ScanKind,
        base: &impl DeviceRead<T>,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        // Bound (its context checked, its writes waited for) until the scan is issued.
        let target = self.target()?;
        let bound = base.bind(&target)?;
        let b = Base { addr: bound.addr, len: base.len() };
        let scan = Scan { kind, op: ScanOp::Sum };
        self.launch_scan(Operands::Apart(input, output), scan, scratch, false, Some(b))
    }
}
