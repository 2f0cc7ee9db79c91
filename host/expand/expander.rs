//! The [`Expander`]: one strategy's workspace, set up once, and the state between its passes.

use super::workspace::{Parts, CTRL_WORDS};
use super::{Control, ExpandView, Strategy};
use crate::memory::bind::{BindMut, Bound};
use crate::{error::ensure_input, DeviceRead, Error, Gpu, KernelArgs, Result};
use cudarc::driver::CudaSlice;
use std::sync::atomic::{AtomicU64, Ordering};
use warpwork_abi::expand::{FLAG_CAPACITY, FLAG_MAX_N};

/// A reusable expansion of up to `max_p1` sources into at most `capacity` destination items with
/// one [`Strategy`]: its workspace is one buffer, set up once ([`Gpu::expander`] allocates it,
/// [`Gpu::expander_in`] takes yours), and nothing is allocated per call.
///
/// The order of calls is enforced by the types: [`Expander::pass1`] borrows the counts and
/// returns a [`Planned`] expansion, which alone has pass 2 and the count. The counts stay
/// borrowed as long as the `Planned` lives, so they cannot be freed or written while the kernels
/// that read them may still run.
///
/// ```no_run
/// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
/// let gpu = Gpu::new(0)?;
/// let counts = gpu.upload(&[3u32, 0, 2])?;
/// let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 16)?;
/// let mut pairs = gpu.zeros::<[u32; 2]>(16)?;
/// let mut planned = e.pass1(&gpu, &counts)?;
/// planned.pass2(&gpu, &mut pairs, Dispatch::Persistent)?;
/// assert_eq!(planned.count(&gpu)?, 5); // waits
/// # Ok::<(), warpwork::Error>(())
/// ```
pub struct Expander {
    pub(super) strategy: Strategy,
    pub(super) max_p1: usize,
    pub(super) capacity: usize,
    /// Everything the expander keeps on the device, in one buffer: the [`Control`] block
    /// followed by the look-back words (S2.5: its scan's tile states; S2.5f: two `u64`s per
    /// pass-1 block), so that a pass 1 clears both with one memset, then the view and the
    /// strategy's offsets, sources and records, which the kernels reach through the view's
    /// addresses ([`Parts`]).
    pub(super) workspace: CudaSlice<u64>,
    /// Where each part lies in `workspace`.
    pub(super) parts: Parts,
    /// The view as it is on the device (every change goes to both).
    pub(super) host_view: ExpandView,
    pub(super) pass2_blocks: u32,
    /// Blocks of the one-launch kernel's persistent grid (0: the strategy has none, or runs
    /// its 64-bit kernels).
    pub(super) once_blocks: u32,
    /// What ran since the last pass 1.
    pub(super) passes: Passes,
    /// The count since the last pass 1, once [`Expander::count`] has read it (`u64::MAX`: not
    /// read): a pass 2 after it needs an output only that long. Atomic, as `count` takes
    /// `&self` and the expander is shared between threads.
    pub(super) known_count: AtomicU64,
}

impl std::fmt::Debug for Expander {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expander({}, p1 ≤ {}, capacity {})", self.strategy.name(), self.max_p1, self.capacity)
    }
}

/// An expansion after its pass 1: the only value with pass 2 ([`Planned::pass2`],
/// [`Planned::pass2_with`]) and the count ([`Planned::count`]). It borrows the [`Expander`]
/// mutably and the counts (`'c`) for as long as it lives.
#[must_use = "pass 1 has run: the expansion needs its pass 2 (`Planned::pass2`) and its count"]
pub struct Planned<'e, 'c> {
    pub(super) e: &'e mut Expander,
    pub(super) counts: Option<&'c dyn DeviceRead<u32>>,
    pub(super) p1: usize,
}

/// What ran since the last pass 1: kept by the expander, so that its count can be read after the
/// [`Planned`] expansion is gone.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Passes {
    /// Whether a pass 2 ran since pass 1 (S0's pass 2 then recounts from zero).
    pub(super) pass2_ran: bool,
    /// S0: whether the last pass 2 was a user's kernel (the count is then `total`).
    pub(super) user_pass2: bool,
    /// S0: `expand_maxn_total` has counted since pass 1 (it adds to the total, so a second user
    /// pass 2 must not count again).
    pub(super) maxn_counted: bool,
}

impl std::fmt::Debug for Planned<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Planned({:?}, p1 = {})", self.e, self.p1)
    }
}

impl Expander {
    /// Whether the expander runs the 64-bit kernels (prefixes and destination indices of 8
    /// bytes): S2.5 and S2.5f with a capacity past `u32::MAX`. Users' own kernels see the same
    /// in the view (`ExpandView::wide`).
    ///
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// let gpu = warpwork::Gpu::new(0)?;
    /// assert!(!gpu.expander(Strategy::ScanBinarySearch, 1024, 1 << 20)?.is_wide());
    /// assert!(gpu.expander(Strategy::ScanBinarySearch, 1024, 1 << 33)?.is_wide());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn is_wide(&self) -> bool {
        self.host_view.wide()
    }

    /// The strategy: the one [`Strategy::Auto`] resolved to, if the expander was built with it.
    ///
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(Strategy::Po2Buckets, 1024, 1 << 20)?;
    /// assert_eq!(e.strategy(), Strategy::Po2Buckets);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Blocks of a persistent pass 2 (occupancy × SMs).
    ///
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(warpwork::expand::Strategy::ScanFused, 1024, 1 << 20)?;
    /// assert_eq!(e.persistent_blocks() % gpu.info().sm_count, 0); // whole blocks per SM
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn persistent_blocks(&self) -> u32 {
        self.pass2_blocks
    }

    /// Points the view at `counts_addr` and `p1` sources and, with `clear`, zeroes the control
    /// block and the scan state.
    pub(super) fn reset_for(&mut self, gpu: &Gpu, p1: usize, counts_addr: u64, clear: bool) -> Result<()> {
        ensure_input!(p1 <= self.max_p1, "{p1} sources for an expander of at most {}", self.max_p1);
        // New counts: the descriptor's two fields are rewritten on the stream by memsets (no host
        // memory, so a graph can hold them and alternating buffers cost no copy).
        if counts_addr != self.host_view.counts {
            let word = self.parts.view_word(std::mem::offset_of!(ExpandView, counts));
            gpu.set_words(&mut self.workspace, word, &[counts_addr as u32, (counts_addr >> 32) as u32])?;
            self.host_view.counts = counts_addr;
        }
        if p1 as u32 != self.host_view.p1 {
            let word = self.parts.view_word(std::mem::offset_of!(ExpandView, p1));
            gpu.set_words(&mut self.workspace, word, &[p1 as u32])?;
            self.host_view.p1 = p1 as u32;
        }
        // The whole state — the control block and the look-back words, all of which hold
        // statuses: one memset.
        if clear {
            gpu.zero_words(&mut self.workspace, self.parts.state_words())?;
        }
        Ok(())
    }

    /// Binds the workspace, which holds the view and every buffer it points to (and the
    /// counts), for a launch on `gpu`, so that cudarc orders the launch after earlier uses of
    /// them and their frees after it: returns the view's address and the bindings, to drop once
    /// the launch is issued. The workspace is bound for writing (every expansion kernel writes
    /// the control block or the strategy's records), so that a launch on another stream waits
    /// for it; the counts for reading.
    pub(super) fn bind_workspace<'s>(
        &'s mut self,
        gpu: &'s Gpu,
        counts: Option<&'s dyn DeviceRead<u32>>,
    ) -> Result<(u64, Vec<Bound<'s>>)> {
        let to = gpu.target()?;
        let view_at = self.parts.view.start as u64;
        let mut bound = Vec::with_capacity(2);
        bound.push(self.workspace.bind_mut(&to)?);
        let view = bound[0].addr + view_at;
        if let Some(c) = counts {
            bound.push(c.bind(&to)?);
        }
        Ok((view, bound))
    }

    /// Downloads the control block (waits for the stream).
    pub(super) fn control(&self, gpu: &Gpu) -> Result<Control> {
        let words = gpu.download_prefix(&self.workspace, CTRL_WORDS / 2)?;
        Ok(bytemuck::pod_read_unaligned(bytemuck::cast_slice(&words)))
    }
}

impl<'e, 'c> Planned<'e, 'c> {
    pub(super) fn new(e: &'e mut Expander, counts: Option<&'c dyn DeviceRead<u32>>, p1: usize) -> Self {
        e.passes = Passes::default();
        e.known_count.store(UNKNOWN, Ordering::Relaxed);
        Planned { e, counts, p1 }
    }

    /// The [`ExpandView`] every expansion kernel receives first, as it is on the device (a copy
    /// the expander keeps on the host: reading it waits for nothing). It lives in the
    /// expander's workspace; to launch your own pass-1 kernel with it, use
    /// [`Planned::pass1_args`], which passes its device address and binds the workspace that
    /// kernel writes.
    ///
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[4u32, 1])?;
    /// let mut e = gpu.expander(warpwork::expand::Strategy::ScanBinarySearch, 2, 5)?;
    /// let planned = e.pass1(&gpu, &counts)?;
    /// let view = planned.view();
    /// assert_eq!((view.p1, view.counts), (2, gpu.device_address(&counts)?));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn view(&self) -> ExpandView {
        self.e.host_view
    }

    /// The argument list of a launch of **your own pass-1 kernel** on `gpu` (after
    /// [`Expander::pass1_by_own_kernel`]): the view is its first argument, and the expander's
    /// workspace, which that kernel writes through the view, is bound for writing, so that
    /// cudarc orders the launch after earlier uses of the workspace and frees it only after the
    /// launch. Push the kernel's remaining arguments and launch it (`unsafe`).
    ///
    /// ```no_run
    /// use cudarc::driver::LaunchConfig;
    /// use warpwork::expand::{Strategy, THREADS};
    /// let gpu = warpwork::Gpu::new(0)?;
    /// # let my_pass1 = gpu.function("hold_stream")?;
    /// let meshes = gpu.upload(&[0u32; 1000])?; // whatever your pass 1 reads
    /// let n = 1000u32;
    /// let mut e = gpu.expander(Strategy::Po2Buckets, 1000, 1 << 16)?;
    /// let mut planned = e.pass1_by_own_kernel(&gpu, 1000)?;
    /// let mut l = planned.pass1_args(&gpu)?;
    /// l.read(&meshes).value(&n);
    /// let cfg = LaunchConfig { grid_dim: (n.div_ceil(8 * THREADS), 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    /// // SAFETY (for a real `my_pass1(view, meshes, n)`): the arguments match its parameters.
    /// unsafe { l.launch(my_pass1, cfg)? };
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1_args<'a>(&'a mut self, gpu: &'a Gpu) -> Result<KernelArgs<'a>> {
        let e = &mut *self.e;
        let view_at = e.parts.view.start as u64;
        let mut l = gpu.kernel_args();
        let workspace = l.bind_mut(&mut e.workspace)?;
        l.addr(workspace + view_at);
        Ok(l)
    }

    /// **Waits** for the passes and returns the number of destination items, or the overflow
    /// pass 1/2 flagged on the device. `MaxN` counts in pass 2: asked before any pass 2, it is
    /// refused.
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[4u32, 1])?;
    /// let mut e = gpu.expander(Strategy::ScanFused, 2, 8)?;
    /// assert_eq!(e.pass1(&gpu, &counts)?.count(&gpu)?, 5);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn count(&self, gpu: &Gpu) -> Result<usize> {
        self.e.count(gpu)
    }
}

impl Expander {
    /// [`Planned::count`] of the last expansion, also after its [`Planned`] is gone: **waits**
    /// for the stream and reads the count the passes left in the expander's control block.
    ///
    /// ```no_run
    /// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[4u32, 1])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(8)?;
    /// let mut e = gpu.expander(Strategy::ScanFused, 2, 8)?;
    /// e.pass1(&gpu, &counts)?.pass2(&gpu, &mut out, Dispatch::Persistent)?; // `Planned` dropped
    /// assert_eq!(e.count(&gpu)?, 5);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn count(&self, gpu: &Gpu) -> Result<usize> {
        let e = self;
        let counts_pairs = e.strategy.facts().pass2_counts_pairs;
        let passes = self.passes;
        ensure_input!(
            !counts_pairs || passes.pass2_ran || passes.user_pass2,
            "{} counts its items in pass 2: run a pass 2 before asking for the count",
            e.strategy.name()
        );
        let c = e.control(gpu)?;
        let needed = if counts_pairs && !passes.user_pass2 { c.counter as u64 } else { c.total };
        if c.flags & FLAG_MAX_N != 0 {
            let max_n = e.strategy.max_n().unwrap_or(0);
            return Err(Error::InvalidInput(format!("a source spawns more than max_n = {max_n} items")));
        }
        if c.flags & FLAG_CAPACITY != 0 || needed > e.capacity as u64 {
            return Err(Error::CapacityExceeded {
                what: "expand destination items",
                needed: needed.max(e.capacity as u64 + 1),
                capacity: e.capacity as u64,
            });
        }
        self.known_count.store(needed, Ordering::Relaxed);
        Ok(needed as usize)
    }

    /// The buffer holding the control block (its first `u64` is [`Control::total`], the
    /// destination items pass 1 counted), for the multi-GPU expansion's all-gather of it.
    #[cfg(feature = "nccl")]
    pub(crate) fn workspace_mut(&mut self) -> &mut CudaSlice<u64> {
        &mut self.workspace
    }

    /// The count [`Expander::count`] read since the last pass 1, if it did.
    pub(super) fn known_count(&self) -> Option<u64> {
        Some(self.known_count.load(Ordering::Relaxed)).filter(|&n| n != UNKNOWN)
    }
}

/// [`Expander::known_count`]'s "not read".
pub(super) const UNKNOWN: u64 = u64::MAX;
