//! Both passes in one call ([`Expander::expand`]), and in one launch where the strategy has a
//! kernel for it and the input is small (S2.5f).

use super::pass1::counts_address;
use super::{Dispatch, Expander, Planned};
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::expand::fused::{fused_tiles, FUSED_ONCE_MAX_P1};

impl Expander {
    /// Both passes, materializing: the same as [`Expander::pass1`] then
    /// [`Planned::pass2`] with [`Dispatch::Persistent`] — same checks, same pairs, same count,
    /// asynchronous and capturable — but **one launch** where the strategy and the input allow
    /// ([`Expander::runs_once`]), which at small P1 is most of the time an expansion takes.
    /// Returns the [`Planned`] expansion, for its count (or another pass 2).
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 0, 1])?;
    /// let mut pairs = gpu.zeros::<[u32; 2]>(8)?;
    /// let mut e = gpu.expander(Strategy::ScanFused, 3, 8)?;
    /// assert!(e.runs_once(3));
    /// let planned = e.expand(&gpu, &counts, &mut pairs)?;
    /// assert_eq!(planned.count(&gpu)?, 3); // waits
    /// assert_eq!(gpu.download_prefix(&pairs, 3)?, [[0, 0], [0, 1], [2, 0]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expand<'e, 'c>(
        &'e mut self,
        gpu: &Gpu,
        counts: &'c impl DeviceRead<u32>,
        out: &mut impl DeviceWrite<[u32; 2]>,
    ) -> Result<Planned<'e, 'c>> {
        self.expand_forcing(gpu, counts, out, false)
    }

    /// [`Expander::expand`], with the one launch's fallback forced at every wait when
    /// `forced_fallback` (tests: every block sums the tiles not yet published itself).
    pub(super) fn expand_forcing<'e, 'c>(
        &'e mut self,
        gpu: &Gpu,
        counts: &'c impl DeviceRead<u32>,
        out: &mut impl DeviceWrite<[u32; 2]>,
        forced_fallback: bool,
    ) -> Result<Planned<'e, 'c>> {
        let p1 = counts.len();
        let once = match self.strategy.facts().once {
            Some(kernel) if self.runs_once(p1) => kernel,
            _ => {
                let mut planned = self.pass1(gpu, counts)?;
                planned.pass2(gpu, out, Dispatch::Persistent)?;
                return Ok(planned);
            }
        };
        let counts_at = counts_address(gpu, counts)?;
        self.check_output(gpu, out)?;
        // S2.5f leaves its state ready for the next run (pass 1's launch word and look-back
        // words, pass 2's claims, the one launch's count and tile sums): no memset.
        self.reset_for(gpu, p1, counts_at, false)?;
        let f = gpu.function(once)?;
        let threads = self.strategy.facts().pass2_threads;
        let cfg = LaunchConfig { grid_dim: (self.once_blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        let forced = forced_fallback as u32;
        {
            let (view, _bound) = self.bind_workspace(gpu, Some(counts))?;
            let mut l = gpu.kernel_args();
            l.addr(view).write(out).value(&forced);
            // SAFETY: `expand_fused_once(view, out, forced_fallback)`: the view describes this
            // expander's workspace (bound above with the counts; its tile sums zeroed at creation
            // and by every run) and `0 < p1 <= 2^18` counts; `out` holds `capacity` pairs
            // (checked); the grid is the kernel's persistent grid, a block per tile at least
            // (`runs_once`).
            unsafe { l.launch(f, cfg)? };
        }
        let planned = Planned::new(self, Some(counts), p1);
        planned.e.passes.pass2_ran = true;
        Ok(planned)
    }

    /// Whether [`Expander::expand`] over `p1` sources runs as one launch: S2.5f `ScanFused` with
    /// 32-bit offsets, `0 < p1 <= 2^18` (`FUSED_ONCE_MAX_P1`), and a block of the kernel's
    /// persistent grid for each tile of 2048 sources (the blocks that sum them). Up to one tile
    /// (2048 sources) every block scans all the counts itself, and the launch costs about what
    /// one small copy does. Every other case runs the two passes.
    ///
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(Strategy::ScanFused, 1 << 20, 1 << 26)?;
    /// assert!(e.runs_once(1 << 16) && !e.runs_once(1 << 20) && !e.runs_once(0));
    /// let e = gpu.expander(Strategy::ScanBinarySearch, 1 << 16, 1 << 26)?;
    /// assert!(!e.runs_once(1 << 16));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn runs_once(&self, p1: usize) -> bool {
        p1 > 0 && p1 <= self.max_p1 && p1 <= FUSED_ONCE_MAX_P1 as usize && fused_tiles(p1 as u32) <= self.once_blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::Strategy;

    /// The one launch with its fallback forced at every wait (and odd tiles late to publish):
    /// every block sums the tiles not yet published itself, and the pairs are the CPU's; the
    /// expander is then right again without forcing (the sums were cleared).
    #[test]
    #[ignore = "needs a GPU: run the GPU suite"]
    fn forced_fallback_matches_cpu() {
        use warpwork_cpu_reference::{expand as cpu, inputs};
        let gpu = Gpu::new(0).expect("GPU");
        for p1 in [1usize, 2049, 30_001, 1 << 18] {
            let counts = inputs::uniform_range(p1, 9 + p1 as u64, 0, 9);
            let total = cpu::total(&counts) as usize;
            let d = gpu.upload(&counts).unwrap();
            let mut e = gpu.expander(Strategy::ScanFused, p1, total + 4).unwrap();
            assert!(e.runs_once(p1));
            for forced in [true, false, true] {
                let mut out = gpu.filled::<[u32; 2]>(total + 4, 0xAB).unwrap();
                let n = e.expand_forcing(&gpu, &d, &mut out, forced).unwrap().count(&gpu).unwrap();
                assert_eq!(n, total, "P1 = {p1}, forced {forced}: count");
                let got = gpu.download(&out).unwrap();
                assert!(got[..total] == cpu::expand(&counts)[..], "P1 = {p1}, forced {forced}: pairs");
                assert!(got[total..].iter().all(|&p| p == [0xABAB_ABAB; 2]), "P1 = {p1}: wrote past the count");
            }
        }
    }
}
