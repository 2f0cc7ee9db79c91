//! The one launch path of every scan: the size checks, the tile states cleared by a
//! preparing kernel, and the scan kernel as its programmatic dependent.

use super::{based_kernel, based_tiles, kernel, scratch_len, tiles, Scan, ScanItem};
use crate::error::ensure_len;
use crate::launch::grid_x;
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::scan::tile_state_words;

impl Gpu {
    /// Checks the sizes, clears the tile statuses in `scratch` and launches `scan`'s kernel on
    /// `operands`. `forced_fallback` forces the look-back's fallback (tests).
    pub(crate) fn launch_scan<T: ScanItem, I: DeviceRead<T>, O: DeviceWrite<T>>(
        &self,
        operands: Operands<'_, I, O>,
        scan: Scan,
        scratch: &mut impl DeviceWrite<u32>,
        forced_fallback: bool,
        from: Option<Base>,
    ) -> Result<()> {
        let n = match &operands {
            Operands::Apart(input, output) => {
                let n = input.len();
                ensure_len("scan output", output.len(), n as u64)?;
                n
            }
            Operands::InPlace(data) => data.len(),
        };
        let tiles = match from {
            None => tiles::<T>(n),
            Some(_) => based_tiles::<T>(n),
        };
        let blocks = grid_x(tiles as u64, "scan tiles (blocks of one launch)")?;
        let needed = scratch_len::<T>(n);
        ensure_len("scan scratch (u32 words)", scratch.len(), needed as u64)?;
        if n == 0 {
            return Ok(());
        }
        // The states start at the first 16-byte boundary of the scratch.
        let base = self.device_address(scratch)?;
        let skip = (base.next_multiple_of(16) - base) as usize / 4;
        let words = tile_state_words(std::mem::size_of::<T>(), tiles) as u64;
        // Everything that can fail comes before the first launch.
        let (name, threads) = match from {
            None => kernel::<T>(scan, n),
            Some(_) => based_kernel::<T>(scan.kind),
        };
        let f = self.function(name)?;
        let prepare = self.function(warpwork_abi::kernels::SCAN_PREPARE)?;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        let forced = forced_fallback as u32;
        let mut l = self.kernel_args();
        match operands {
            Operands::Apart(input, output) => {
                l.read(input).write(output);
            }
            Operands::InPlace(data) => {
                // The kernel reads and writes the same elements: one binding, passed twice.
                let a = l.bind_mut(data)?;
                l.addr(a).addr(a);
            }
        }
        let s = l.bind_mut(scratch)?;
        let states = s + 4 * skip as u64;
        l.value(&n).addr(states).value(&forced);
        if let Some(b) = &from {
            l.addr(b.addr).value(&b.len);
        }
        // The states are zeroed by a kernel; the scan is its programmatic dependent, whose blocks
        // load and reduce their tiles while it runs.
        let mut p = self.kernel_args();
        p.addr(states).value(&words);
        let zeroing = (words / 4).div_ceil(256).clamp(1, 1024) as u32;
        let pcfg = LaunchConfig { grid_dim: (zeroing, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: `scan_prepare(states, words)` zeroes `words` words at a 16-byte boundary inside
        // the scratch (its length checked above); the scratch stays bound by `l` until the scan
        // below is launched.
        unsafe { p.launch(prepare, pcfg)? };
        // SAFETY: matches `scan_{kind}_{op}_{T}` / `scan_small_…(input, output, n, states,
        // forced_fallback)` in kernels/src/kernels/scan.rs for the tile class `kernel` chose:
        // input and output hold at least `n` elements (checked above; in place they are one
        // buffer, which the kernel allows), the states lie inside the scratch (checked above),
        // zeroed on this stream by the kernel this one is the programmatic dependent of (it waits
        // for it before touching them), and the grid is one block per tile.
        unsafe { l.launch_dependent(f, cfg) }
    }
}

/// The base of a sum from a base: `len` elements of the scan's type at device address `addr`
/// (bound, and its context checked, by the caller).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Base {
    pub(crate) addr: u64,
    pub(crate) len: usize,
}

/// What a scan reads and writes: two buffers, or one in place.
pub(crate) enum Operands<'b, I, O> {
    Apart(&'b I, &'b mut O),
    InPlace(&'b mut O),
}
