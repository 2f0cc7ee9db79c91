//! Pass 2 with the caller's own kernel ([`Gpu::expand_with`], [`Planned::pass2_with`]):
//! nothing is materialized; the kernel calls `locate::for_each` on the view.

use super::facts::UserPass2;
use super::{CudaFunction, Expander, Planned};
use crate::{DeviceRead, Error, Gpu, KernelArgs, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::expand::THREADS;

impl Gpu {
    /// Expands `counts` through `expander` (pass 1) and runs **your** pass-2 kernel `pass2`
    /// over the destination items; nothing is materialized. **Waits**, and returns the number of
    /// destination items (or the overflow the device flagged).
    ///
    /// # The pass-2 kernel contract
    /// * Its first parameter is `view: *const ExpandView` (`warpwork_kernels::device::expand`);
    ///   `args` pushes the remaining parameters, in order, onto the launch.
    /// * It is launched with blocks of [`THREADS`] threads and a persistent grid (occupancy ×
    ///   SMs, sized on the host without reading the count back); every thread calls
    ///   `warpwork_kernels::device::expand::locate::for_each(&*view, |src, local| …)` with whole
    ///   warps converged, and does its per-item work in the closure.
    /// * It must not write the view, the control block or the strategy's workspace.
    ///
    /// The expander's strategy decides how items are located; see `examples/meshlet-cull`.
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[3u32, 0, 2])?;
    /// let mut hits = gpu.zeros::<u32>(3)?;
    /// let mut local_sums = gpu.zeros::<u64>(3)?;
    /// // warpwork's own test kernel written to this contract (your module's function in practice).
    /// let pass2 = gpu.function(warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM)?;
    /// let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 16)?;
    /// // SAFETY: `expand_for_each_histogram(view, hits, local_sums)` follows the contract.
    /// let n = unsafe {
    ///     gpu.expand_with(&mut e, &counts, pass2, |l| {
    ///         l.write(&mut hits).write(&mut local_sums);
    ///     })?
    /// };
    /// assert_eq!(n, 5);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    ///
    /// # Safety
    /// `args` must push arguments matching the kernel's parameters after the view, and `pass2`
    /// must follow the contract.
    pub unsafe fn expand_with<'a>(
        &'a self,
        expander: &mut Expander,
        counts: &impl DeviceRead<u32>,
        pass2: &'a CudaFunction,
        args: impl FnOnce(&mut KernelArgs<'a>),
    ) -> Result<usize> {
        let mut planned = expander.pass1(self, counts)?;
        planned.pass2_with(self, pass2, args)?;
        planned.count(self)
    }
}

impl Planned<'_, '_> {
    /// Pass 2 with the caller's kernel (see [`Gpu::expand_with`] for the contract): a persistent
    /// grid of occupancy × SMs blocks of [`THREADS`]. Asynchronous. It may run again.
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[3u32, 0, 2])?;
    /// let (mut hits, mut local_sums) = (gpu.zeros::<u32>(3)?, gpu.zeros::<u64>(3)?);
    /// let pass2 = gpu.function(warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM)?;
    /// let mut e = gpu.expander(Strategy::PackedAtomicAdd, 3, 16)?;
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// // SAFETY: `expand_for_each_histogram(view, hits, local_sums)` follows the contract.
    /// unsafe {
    ///     planned.pass2_with(&gpu, pass2, |l| {
    ///         l.write(&mut hits).write(&mut local_sums);
    ///     })?
    /// };
    /// assert_eq!(planned.count(&gpu)?, 5);
    /// assert_eq!(gpu.download(&hits)?, [3, 0, 2]); // each source's items, once each
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    ///
    /// # Safety
    /// `args` must push arguments matching the kernel's parameters after the view, and the
    /// kernel must follow [`Gpu::expand_with`]'s contract.
    pub unsafe fn pass2_with<'a>(
        &mut self,
        gpu: &'a Gpu,
        pass2: &'a CudaFunction,
        args: impl FnOnce(&mut KernelArgs<'a>),
    ) -> Result<()> {
        let e = &mut *self.e;
        let needs = e.strategy.facts().user_pass2;
        if let UserPass2::Refused(why) = needs {
            return Err(Error::InvalidInput(why.into()));
        }
        let per_sm = pass2.occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)?.max(1);
        let cfg = LaunchConfig {
            grid_dim: (per_sm * gpu.info().sm_count, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        if let UserPass2::CountFirst(push) = needs {
            // No pass 1 counted, and a user's pass 2 keeps no count: count on the device first,
            // once per pass 1 (the count adds to the total).
            if self.p1 > 0 && !e.passes.maxn_counted {
                e.passes.maxn_counted = true;
                e.launch_push(gpu, push, self.p1, self.counts)?;
            }
            e.passes.user_pass2 = true;
        }
        let (view, _bound) = e.bind_workspace(gpu, self.counts)?;
        let mut l = gpu.kernel_args();
        l.addr(view);
        args(&mut l);
        l.launch(pass2, cfg)
    }
}
