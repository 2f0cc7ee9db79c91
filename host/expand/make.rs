//! Making an [`Expander`]: the checks and the plan of its workspace, on the host, then the one
//! buffer it lives in — allocated by [`Gpu::expander`], or the caller's in [`Gpu::expander_in`]
//! (and given back by [`Expander::into_workspace`]).

use super::expander::{Passes, UNKNOWN};
use super::workspace::{bucket_layout, offset_bytes, Layout, Parts, Workspace, PART_ALIGN, STATES_AT};
use super::{ExpandView, Expander, Strategy};
use crate::error::{ensure_aligned, ensure_input, ensure_len};
use crate::{Error, Gpu, Result};
use cudarc::driver::CudaSlice;
use std::sync::atomic::AtomicU64;
use warpwork_abi::expand::BUCKETS;

/// An expander's plan, checked on the host before anything is allocated or issued.
struct Plan {
    /// The strategy, `Auto` resolved.
    strategy: Strategy,
    /// 4, or 8 for the 64-bit kernels.
    offset_bytes: u32,
    parts: Parts,
    /// S2.5f with 32-bit offsets: its one-launch kernel, and where that launch's count and tile
    /// sums start, in bytes from the state part's start (the view's `offsets` points there).
    once: Option<(&'static str, usize)>,
    bucket_base: [u32; BUCKETS],
    bucket_cap: [u32; BUCKETS],
}

impl Plan {
    /// Resolves `Auto` and checks the sizes: everything that can refuse an expander before its
    /// workspace exists.
    fn new(strategy: Strategy, max_p1: usize, capacity: usize) -> Result<Plan> {
        // `Auto` becomes a concrete strategy here, once: the workspace depends on it.
        let strategy = strategy.resolve(max_p1, capacity);
        if max_p1 > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "expand sources (u32 indices)",
                needed: max_p1 as u64,
                capacity: u32::MAX as u64,
            });
        }
        // 4-byte offsets up to u32::MAX destination items; past it 8-byte ones (S2.5, S2.5f) or
        // CapacityExceeded (every other strategy, and S2.5f past its largest capacity).
        let offset_bytes = offset_bytes(strategy, capacity)?;
        if let Some(max_n) = strategy.max_n() {
            ensure_input!(max_n > 0, "MaxN needs max_n > 0");
        }
        let facts = strategy.facts();
        let layout = Layout::new(facts, max_p1, capacity, offset_bytes);
        let parts = layout.parts().ok_or(Error::CapacityExceeded {
            what: "expander workspace (bytes in usize)",
            needed: u64::MAX,
            capacity: usize::MAX as u64,
        })?;
        let (_, bucket_base, bucket_cap) = bucket_layout(max_p1, capacity);
        // Only S3 reads the bucket layout; for it, record bases must fit the kernels' u32.
        let bucket_base = match bucket_base {
            Some(base) => base,
            None if facts.workspace == Workspace::Buckets => {
                return Err(Error::CapacityExceeded {
                    what: "Po2Buckets records before the last bucket (u32 record indices)",
                    needed: layout.records as u64,
                    capacity: u32::MAX as u64,
                })
            }
            None => [0; BUCKETS],
        };
        let once = facts.once.filter(|_| offset_bytes == 4).map(|kernel| (kernel, 4 * (STATES_AT + layout.sums_at)));
        Ok(Plan { strategy, offset_bytes, parts, once, bucket_base, bucket_cap })
    }
}

impl Gpu {
    /// An [`Expander`] for up to `max_p1` sources and at most `capacity` destination items.
    /// **Allocates** its workspace: one buffer of [`super::workspace_len`] `u64`s, in which
    /// [`Gpu::expander_in`] builds the expander (use that form to put it in memory of your own,
    /// or to reuse a buffer). [`Strategy::Auto`] is resolved for `max_p1` sources
    /// ([`Strategy::resolve`]); [`Expander::strategy`] tells the pick.
    ///
    /// Sources are `u32`-indexed (`max_p1 <= u32::MAX`). Destination items too, up to a capacity
    /// of `u32::MAX`; past it only [`Strategy::ScanBinarySearch`] and [`Strategy::ScanFused`] (up
    /// to 2^42) are accepted, and they then run their 64-bit kernels (8-byte prefixes, 16-byte
    /// plan records). A capacity a strategy cannot index is [`Error::CapacityExceeded`], before
    /// anything is allocated.
    ///
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(warpwork::expand::Strategy::ScanFused, 1 << 20, 1 << 26)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expander(&self, strategy: Strategy, max_p1: usize, capacity: usize) -> Result<Expander> {
        let plan = Plan::new(strategy, max_p1, capacity)?;
        let workspace = self.zeros::<u64>(plan.parts.len())?;
        self.expander_from(plan, max_p1, capacity, workspace)
    }

    /// [`Gpu::expander`] in **your** buffer: builds the expander in `workspace`, which it keeps
    /// (moved in) until [`Expander::into_workspace`] gives it back; nothing is allocated. The
    /// buffer holds at least [`super::workspace_len`]`(strategy, max_p1, capacity)` `u64`s (its
    /// first ones are used), of the handle's context (it may come from another stream of it:
    /// cudarc's stream events order the work), starting at a 16-byte boundary. What it holds
    /// on entry does not matter: the call zeroes the control block and the look-back words and
    /// uploads the descriptor, asynchronously on the handle's stream.
    ///
    /// The same refusals as [`Gpu::expander`], and [`Error::BufferTooSmall`] for a shorter
    /// buffer, [`Error::WrongContext`] for one of another context and [`Error::Misaligned`] for
    /// one that starts off a 16-byte boundary, all before anything is issued;
    /// [`Error::StreamCapture`] inside a capture (the descriptor comes from host memory). The
    /// buffer is dropped with the error.
    ///
    /// ```no_run
    /// use warpwork::expand::{workspace_len, Dispatch, Strategy};
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let (strategy, max_p1, capacity) = (Strategy::ScanFused, 1000, 1 << 16);
    /// let buffer = gpu.zeros::<u64>(workspace_len(strategy, max_p1, capacity))?; // any u64s of yours
    /// let mut e = gpu.expander_in(strategy, max_p1, capacity, buffer)?;
    /// let counts = gpu.upload(&[2u32, 0, 1])?;
    /// let mut pairs = gpu.zeros::<[u32; 2]>(capacity)?;
    /// e.pass1(&gpu, &counts)?.pass2(&gpu, &mut pairs, Dispatch::Persistent)?;
    /// assert_eq!(e.count(&gpu)?, 3);
    /// let buffer = e.into_workspace(); // back, for another expander or anything else
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expander_in(
        &self,
        strategy: Strategy,
        max_p1: usize,
        capacity: usize,
        workspace: CudaSlice<u64>,
    ) -> Result<Expander> {
        let plan = Plan::new(strategy, max_p1, capacity)?;
        self.expander_from(plan, max_p1, capacity, workspace)
    }

    /// Builds the expander of `plan` in `workspace`: the checks of the buffer first, then the
    /// zeroed state and the uploaded view.
    fn expander_from(
        &self,
        plan: Plan,
        max_p1: usize,
        capacity: usize,
        mut workspace: CudaSlice<u64>,
    ) -> Result<Expander> {
        let Plan { strategy, offset_bytes, parts, once, bucket_base, bucket_cap } = plan;
        ensure_len("expander workspace (u64 elements)", workspace.len(), parts.len() as u64)?;
        self.refuse_in_capture("building an expander uploads its descriptor from host memory")?;
        // The context is checked here (`WrongContext`), before anything is issued.
        let base = self.device_address(&workspace)?;
        ensure_aligned("expander workspace", base, PART_ALIGN as u64)?;
        let facts = strategy.facts();
        let wide = offset_bytes == 8;
        let per_sm = self.occupancy(facts.pass2_in(wide), facts.pass2_threads, 0)?.max(1);
        let once_blocks = match once {
            Some((kernel, _)) => self.occupancy(kernel, facts.pass2_threads, 0)? * self.info().sm_count,
            None => 0,
        };
        let at = |part: &std::ops::Range<usize>| base + part.start as u64;
        let host_view = ExpandView {
            counts: 0,
            ctrl: at(&parts.state),
            // S2.5f's one launch finds its count and tile sums through `offsets` (S2.5f has no
            // prefixes): in the state part, which starts zeroed and which the kernels keep so.
            offsets: match once {
                Some((_, sums)) => at(&parts.state) + sums as u64,
                None => at(&parts.offsets),
            },
            srcs: at(&parts.srcs),
            records: at(&parts.records),
            scan_status: at(&parts.state) + 4 * STATES_AT as u64,
            scan_aggregate: 0,
            scan_inclusive: 0,
            p1: 0,
            capacity: capacity.min(u32::MAX as usize) as u32,
            max_n: strategy.max_n().unwrap_or(0),
            strategy: facts.code,
            bucket_base,
            bucket_cap,
            offset_bytes,
            pad: 0,
            wide_capacity: capacity as u64,
        };
        // The control block and the look-back words start zeroed (the kernels keep them so
        // between passes, or a reset clears them); the other parts are written by pass 1 before
        // anything reads them.
        self.zero_words(&mut workspace, parts.state_words())?;
        // The descriptor goes up once, here; a pass 1 on other counts rewrites its two fields by
        // memsets, which a graph can hold. (`upload_into` reads `host_view` before it returns.)
        let view: &[u64] = bytemuck::cast_slice(std::slice::from_ref(&host_view));
        self.upload_into(view, &mut workspace.slice_mut(parts.view_elements()))?;
        Ok(Expander {
            strategy,
            max_p1,
            capacity,
            workspace,
            parts,
            host_view,
            pass2_blocks: per_sm * self.info().sm_count,
            once_blocks,
            passes: Passes::default(),
            known_count: AtomicU64::new(UNKNOWN),
        })
    }
}

impl Expander {
    /// Gives the workspace buffer back, for another expander ([`Gpu::expander_in`]) or anything
    /// else: the one [`Gpu::expander`] allocated, or the one [`Gpu::expander_in`] took. Issues
    /// nothing and waits for nothing: the work already issued on it stays ordered before later
    /// uses by stream order and cudarc's stream events, as for any buffer.
    ///
    /// ```no_run
    /// use warpwork::expand::{workspace_len, Strategy};
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(Strategy::ScanBinarySearch, 1000, 1 << 20)?;
    /// let buffer = e.into_workspace();
    /// assert_eq!(buffer.len(), workspace_len(Strategy::ScanBinarySearch, 1000, 1 << 20));
    /// // Large enough for a smaller expander of the same strategy: no allocation.
    /// let e = gpu.expander_in(Strategy::ScanBinarySearch, 500, 1 << 20, buffer)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn into_workspace(self) -> CudaSlice<u64> {
        self.workspace
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::workspace_len;

    #[test]
    fn plans_refuse_before_any_buffer_and_take_workspace_len() {
        let max = u32::MAX as usize;
        let refused = |r: Result<Plan>| matches!(r, Err(Error::CapacityExceeded { .. }));
        assert!(refused(Plan::new(Strategy::ScanFused, max + 1, 16)), "sources past u32");
        assert!(refused(Plan::new(Strategy::AppendPerItem, 16, max + 1)), "a 32-bit strategy past u32");
        assert!(refused(Plan::new(Strategy::Po2Buckets, 1 << 31, max)), "S3's record bases past u32");
        assert!(matches!(Plan::new(Strategy::MaxN { max_n: 0 }, 16, 16), Err(Error::InvalidInput(_))));
        let strategies = Strategy::UNBOUNDED.into_iter().chain([Strategy::MaxN { max_n: 8 }, Strategy::AUTO]);
        for s in strategies {
            for (p1, cap) in [(0, 0), (1, 1), (1000, 1 << 20), (1 << 20, max), (1 << 20, 1 << 36)] {
                let Ok(plan) = Plan::new(s, p1, cap) else {
                    assert!(cap > max && s.resolve(p1, cap).facts().wide.is_none(), "{s:?} {p1} {cap}");
                    continue;
                };
                assert_eq!(plan.strategy, s.resolve(p1, cap));
                assert_eq!(plan.parts.len(), workspace_len(s, p1, cap), "{s:?} {p1} {cap}");
                assert_eq!(plan.offset_bytes == 8, cap > max, "{s:?} {p1} {cap}");
            }
        }
    }
}
