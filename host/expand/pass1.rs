//! Pass 1: the strategy's push over the counts, or the caller's own pass-1 kernel.

use super::facts::Push;
use super::{Expander, Planned};
use crate::{error::ensure_input, DeviceRead, Gpu, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::expand::THREADS;

impl Expander {
    /// Pass 1: resets the control block (unless the strategy's pass 1 leaves it ready: S2.5f)
    /// and runs the strategy's push over `counts`, which stay borrowed by the returned
    /// [`Planned`] expansion. Asynchronous.
    ///
    /// ```no_run
    /// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[1u32, 2])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(4)?;
    /// let mut e = gpu.expander(Strategy::PackedAtomicAdd, 2, 4)?;
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// planned.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    /// assert_eq!(planned.count(&gpu)?, 3);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1<'e, 'c>(&'e mut self, gpu: &Gpu, counts: &'c impl DeviceRead<u32>) -> Result<Planned<'e, 'c>> {
        let p1 = counts.len();
        let facts = self.strategy.facts();
        // S2.5f's pass 1 leaves its state ready for the next (its last block stores every control
        // field it reads and flips the launch word; each launch clears the previous launch's
        // look-back words), and pass 2 clears its claims: no memset before it, one operation
        // less on the stream.
        let clears_itself = facts.pass1_clears_state && p1 > 0;
        let counts_at = counts_address(gpu, counts)?;
        self.reset_for(gpu, p1, counts_at, !clears_itself)?;
        if let (Some(push), true) = (facts.push_in(self.is_wide()), p1 > 0) {
            self.launch_push(gpu, push, p1, Some(counts))?;
        }
        Ok(Planned::new(self, Some(counts), p1))
    }

    /// Prepares a pass 1 over `p1` sources that **your own kernel** runs: it receives the view
    /// first ([`Planned::pass1_args`]) and calls a `push_*_with` building block with its own
    /// counts. Zeroes the control block and the scan state and points the view at `p1` sources
    /// with no counts array. Asynchronous.
    ///
    /// Refused ([`crate::Error::InvalidInput`], nothing issued) for the strategies whose pass 2
    /// reads the counts array, which an own pass 1 does not have: `MaxN` and `ScanFused`.
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let mut e = gpu.expander(Strategy::Po2Buckets, 1000, 1 << 16)?;
    /// let mut planned = e.pass1_by_own_kernel(&gpu, 1000)?;
    /// let mut l = planned.pass1_args(&gpu)?; // the view, the workspace bound
    /// // l.read(&my_meshes)…; unsafe { l.launch(my_pass1, cfg)? }; then planned.pass2_with(…)
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1_by_own_kernel(&mut self, gpu: &Gpu, p1: usize) -> Result<Planned<'_, 'static>> {
        ensure_input!(
            !self.strategy.facts().pass2_reads_counts,
            "{}'s pass 2 reads the counts array, which a pass 1 of your own kernel does not have \
             (use Expander::pass1, or another strategy)",
            self.strategy.name()
        );
        self.reset_for(gpu, p1, 0, true)?;
        Ok(Planned::new(self, None, p1))
    }

    /// Launches `push` over `p1` sources (`p1 > 0`, at most `max_p1`): pass 1's push, or S0's
    /// device count before a user's pass 2 ([`super::facts::UserPass2::CountFirst`]).
    pub(super) fn launch_push(
        &mut self,
        gpu: &Gpu,
        push: Push,
        p1: usize,
        counts: Option<&dyn DeviceRead<u32>>,
    ) -> Result<()> {
        let f = gpu.function(push.kernel)?;
        let cfg =
            LaunchConfig { grid_dim: (push.blocks(p1) as u32, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let (view, _bound) = self.bind_workspace(gpu, counts)?;
        let mut l = gpu.kernel_args();
        l.addr(view);
        // SAFETY: every push of the facts table (`expand_push_*`, `expand_maxn_total`) takes the
        // view pointer alone, which describes buffers this expander owns (sized for `max_p1` and
        // `capacity`, bound above with the counts) and the `p1` counts.
        unsafe { l.launch(f, cfg) }
    }
}

/// The counts' device address. The kernels read the counts four at a time (16 bytes): a view
/// that starts inside an allocation at an odd element is refused before anything is issued.
pub(super) fn counts_address(gpu: &Gpu, counts: &impl DeviceRead<u32>) -> Result<u64> {
    let at = gpu.device_address(counts)?;
    if !counts.is_empty() {
        crate::error::ensure_aligned("expansion counts", at, 16)?;
    }
    Ok(at)
}
