//! The [`Expander`]: one strategy's workspace, allocated once, and the state between its passes.

use super::workspace::{bucket_layout, Layout, CTRL_WORDS};
use super::{Control, ExpandView, Strategy};
use crate::{error::ensure_input, DeviceBuffer, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::DevicePtr;
use std::cell::Cell;
use warpwork_abi::expand::{FLAG_CAPACITY, FLAG_MAX_N};

/// A reusable expansion of up to `max_p1` sources into at most `capacity` destination items with
/// one [`Strategy`]: its workspace is allocated once. Call [`Expander::pass1`] then
/// [`Expander::pass2`] (or [`Expander::pass2_with`]), then [`Expander::count`] for the result.
///
/// ```no_run
/// use warpwork::{expand::{Dispatch, Strategy}, Gpu};
/// let gpu = Gpu::new(0)?;
/// let counts = gpu.upload(&[3u32, 0, 2])?;
/// let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 16)?;
/// let mut pairs = gpu.zeros::<[u32; 2]>(16)?;
/// e.pass1(&gpu, &counts)?;
/// e.pass2(&gpu, &mut pairs, Dispatch::Persistent)?;
/// assert_eq!(e.count(&gpu)?, 5);
/// # Ok::<(), warpwork::Error>(())
/// ```
pub struct Expander {
    pub(super) strategy: Strategy,
    pub(super) max_p1: usize,
    pub(super) capacity: usize,
    /// The [`Control`] block followed by the look-back words (S2.5: status, aggregates,
    /// inclusive prefixes per tile; S2.5f: two `u64`s per pass-1 block): one allocation, so that
    /// a pass 1 clears both with one memset.
    pub(super) state: DeviceBuffer<u32>,
    pub(super) view: DeviceBuffer<ExpandView>,
    pub(super) host_view: ExpandView,
    // Held for the addresses in the view.
    #[allow(dead_code)]
    offsets: DeviceBuffer<u32>,
    #[allow(dead_code)]
    srcs: DeviceBuffer<u32>,
    #[allow(dead_code)]
    records: DeviceBuffer<[u32; 2]>,
    /// Words after the control block that a reset clears.
    reset_words: usize,
    pub(super) p1: usize,
    view_uploaded: bool,
    /// S0: whether the last pass 2 was a user's kernel (the count is then `total`).
    pub(super) user_pass2: Cell<bool>,
    /// S0: `expand_maxn_total` has counted since the last pass 1 (it adds to the total, so a
    /// second user pass 2 must not count again).
    pub(super) maxn_counted: Cell<bool>,
    /// Whether a pass 2 ran since the last pass 1 (S0's pass 2 then recounts from zero).
    pub(super) pass2_ran: bool,
    pub(super) pass2_blocks: u32,
}

impl std::fmt::Debug for Expander {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expander({}, p1 ≤ {}, capacity {})", self.strategy.name(), self.max_p1, self.capacity)
    }
}

/// The device address of `b`.
pub(super) fn addr<T: Pod>(gpu: &Gpu, b: &DeviceBuffer<T>) -> u64 {
    let (p, _sync) = b.raw().device_ptr(gpu.stream());
    p
}

impl Gpu {
    /// An [`Expander`] for up to `max_p1` sources and at most `capacity` destination items.
    pub fn expander(&self, strategy: Strategy, max_p1: usize, capacity: usize) -> Result<Expander> {
        if max_p1 > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "expand sources (u32 indices)",
                needed: max_p1 as u64,
                capacity: u32::MAX as u64,
            });
        }
        if capacity > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "expand capacity (u32 destination indices)",
                needed: capacity as u64,
                capacity: u32::MAX as u64,
            });
        }
        if let Some(max_n) = strategy.max_n() {
            ensure_input!(max_n > 0, "MaxN needs max_n > 0");
        }
        let facts = strategy.facts();
        let layout = Layout::new(facts.workspace, max_p1, capacity);
        // Buffers a strategy does not use are one element, so that every address in the view
        // is a real allocation.
        let offsets = self.zeros::<u32>(layout.offsets.max(1))?;
        let srcs = self.zeros::<u32>(layout.srcs.max(1))?;
        let records = self.zeros::<[u32; 2]>(layout.records.max(1))?;
        let state = self.zeros::<u32>(CTRL_WORDS + layout.lookback_words)?;
        let view = self.zeros::<ExpandView>(1)?;
        let (_, bucket_base, bucket_cap) = bucket_layout(max_p1, capacity);
        let tile_words = layout.scan_tiles as u64 * 4;
        let ctrl = addr(self, &state);
        let lookback = ctrl + 4 * CTRL_WORDS as u64;
        let host_view = ExpandView {
            counts: 0,
            ctrl,
            offsets: addr(self, &offsets),
            srcs: addr(self, &srcs),
            records: addr(self, &records),
            scan_status: lookback,
            scan_aggregate: lookback + tile_words,
            scan_inclusive: lookback + 2 * tile_words,
            p1: 0,
            capacity: capacity as u32,
            max_n: strategy.max_n().unwrap_or(0),
            strategy: facts.code,
            bucket_base,
            bucket_cap,
        };
        let per_sm = self.occupancy(facts.pass2, facts.pass2_threads, 0)?.max(1);
        Ok(Expander {
            strategy,
            max_p1,
            capacity,
            state,
            view,
            host_view,
            offsets,
            srcs,
            records,
            reset_words: layout.reset_words,
            p1: 0,
            view_uploaded: false,
            user_pass2: Cell::new(false),
            maxn_counted: Cell::new(false),
            pass2_ran: false,
            pass2_blocks: per_sm * self.info().sm_count,
        })
    }
}

impl Expander {
    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Blocks of a persistent pass 2 (occupancy × SMs).
    pub fn persistent_blocks(&self) -> u32 {
        self.pass2_blocks
    }

    /// The device address of the [`ExpandView`] (what a pass-2 kernel receives first).
    pub fn view(&self) -> &DeviceBuffer<ExpandView> {
        &self.view
    }

    /// Prepares a pass 1 over `p1` sources that **your own kernel** runs (it receives
    /// [`Expander::view`] and calls a `push_*_with` building block with its own counts): zeroes
    /// the control block and the scan state, and points the view at `p1` sources with no counts
    /// array. Asynchronous. Not for `MaxN` (whose pass 2 reads a counts array).
    pub fn reset(&mut self, gpu: &Gpu, p1: usize) -> Result<()> {
        self.reset_for(gpu, p1, 0, true)
    }

    /// Points the view at `counts_addr` and `p1` sources and, with `clear`, zeroes the control
    /// block and the scan state.
    pub(super) fn reset_for(&mut self, gpu: &Gpu, p1: usize, counts_addr: u64, clear: bool) -> Result<()> {
        ensure_input!(p1 <= self.max_p1, "{p1} sources for an expander of at most {}", self.max_p1);
        if !self.view_uploaded || counts_addr != self.host_view.counts || p1 as u32 != self.host_view.p1 {
            self.view_uploaded = true;
            self.host_view.counts = counts_addr;
            self.host_view.p1 = p1 as u32;
            gpu.stream().memcpy_htod(bytemuck::bytes_of(&self.host_view), self.view.raw_mut())?;
        }
        self.p1 = p1;
        // The control block and the look-back words a reset clears (S2.5's status words: its
        // aggregates and inclusive prefixes need no clearing; all of S2.5f's): one memset.
        if clear {
            let words = CTRL_WORDS + self.reset_words;
            gpu.zero_words(&mut self.state, 0..words)?;
        }
        self.pass2_ran = false;
        self.maxn_counted.set(false);
        Ok(())
    }

    /// Waits for the passes and returns the number of destination items, or the overflow
    /// pass 1/2 flagged on the device.
    pub fn count(&self, gpu: &Gpu) -> Result<usize> {
        let c = self.control(gpu)?;
        let needed =
            if self.strategy.facts().pass2_counts_pairs && !self.user_pass2.get() { c.counter as u64 } else { c.total };
        if c.flags & FLAG_MAX_N != 0 {
            let max_n = self.strategy.max_n().unwrap_or(0);
            return Err(Error::InvalidInput(format!("a source spawns more than max_n = {max_n} items")));
        }
        if c.flags & FLAG_CAPACITY != 0 || needed > self.capacity as u64 {
            return Err(Error::CapacityExceeded {
                what: "expand destination items",
                needed: needed.max(self.capacity as u64 + 1),
                capacity: self.capacity as u64,
            });
        }
        Ok(needed as usize)
    }

    /// Downloads the control block (waits for the stream).
    pub(super) fn control(&self, gpu: &Gpu) -> Result<Control> {
        Ok(bytemuck::pod_read_unaligned(bytemuck::cast_slice(&gpu.download_prefix(&self.state, CTRL_WORDS)?)))
    }
}
