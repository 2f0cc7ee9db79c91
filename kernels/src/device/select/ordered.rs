//! Order-preserving select in a single pass: per-tile counts, a block scan, and the decoupled
//! look-back of [`crate::device::scan::lookback`] over tiles (64-bit prefixes).

use super::{keep_mask, load_checked, op, SelectValue};
use crate::arch::{atomic_add_u32, lane_id, load_nc_v4_u32, load_relaxed_u64, sync_threads, thread_idx_x, warp_id};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::scan::{lookback, LookbackState, NARROW_LOOKBACK};
use core::ptr::{read_volatile, write_volatile};

/// Shared `u64`s an ordered tile ([`select_ordered_tile`], [`super::select_bytes_ordered_tile`])
/// needs besides its staging buffer: the block scan's `u32` scratch, then the tile id, the
/// tile's prefix and the counter's starting value.
pub const ORDERED_SCRATCH_U64: usize = BLOCK_SCAN_SCRATCH.div_ceil(2) + 3;

/// The shared slots of an ordered tile, inside its [`ORDERED_SCRATCH_U64`] scratch.
#[derive(Clone, Copy)]
pub(super) struct OrderedSlots {
    scan: *mut u32,
    tile: *mut u64,
    prefix: *mut u64,
    base: *mut u64,
}

impl OrderedSlots {
    #[inline(always)]
    pub(super) unsafe fn new(scratch: *mut u64) -> Self {
        let tile = scratch.add(BLOCK_SCAN_SCRATCH.div_ceil(2));
        OrderedSlots { scan: scratch as *mut u32, tile, prefix: tile.add(1), base: tile.add(2) }
    }

    /// Claims the block's tile from `state.tile_counter` (launch order: a block only ever waits
    /// on tiles of blocks already running, so it cannot hang) and remembers the counter's
    /// starting value. Every thread gets the tile.
    #[inline(always)]
    pub(super) unsafe fn claim(self, counter: *const u64, state: LookbackState<u64>) -> usize {
        if thread_idx_x() == 0 {
            // Read before this tile publishes anything, hence (through the look-back's
            // release/acquire chain) before the last tile overwrites it.
            write_volatile(self.base, load_relaxed_u64(counter));
            write_volatile(self.tile, atomic_add_u32(state.tile_counter, 1) as u64);
        }
        sync_threads();
        read_volatile(self.tile) as usize
    }

    /// Scans the threads' kept counts across the block. Returns `(rank of the thread's first
    /// kept item in the tile, tile's kept count)` on every thread.
    #[inline(always)]
    pub(super) unsafe fn scan(self, count: u32) -> (u32, u32) {
        block_exclusive_sum(self.scan, count)
    }

    /// Warp 0 publishes the tile's kept count and looks back for the count of all earlier
    /// tiles; the tile's first slot is [`OrderedSlots::base`] after the next barrier. Called
    /// after the items are staged, so that their registers are free during the look-back.
    #[inline(always)]
    pub(super) unsafe fn look_back(self, state: LookbackState<u64>, tile: usize, kept: u32) {
        if warp_id() == 0 {
            let prefix = lookback::<u64, NARROW_LOOKBACK>(state, tile as u32, kept as u64);
            if lane_id() == 0 {
                write_volatile(self.prefix, prefix);
            }
        }
    }

    /// The tile's first output slot: the counter's starting value plus every earlier tile's
    /// kept count. Valid after a barrier that follows [`OrderedSlots::look_back`].
    #[inline(always)]
    pub(super) unsafe fn base(self) -> u64 {
        read_volatile(self.base).wrapping_add(read_volatile(self.prefix))
    }

    /// The block of the last tile stores the new count.
    #[inline(always)]
    pub(super) unsafe fn finish(self, counter: *mut u64, tile_end: usize, n: usize, base: u64, kept: u32) {
        if thread_idx_x() == 0 && tile_end >= n {
            *counter = base.wrapping_add(kept as u64);
        }
    }
}

/// Order-preserving select over one tile, in a single pass over the input.
///
/// The block claims a tile from `state.tile_counter` (so it only ever waits on tiles of blocks
/// already running: it cannot hang), counts its kept items, scans the counts across the block
/// ([`crate::block::block_exclusive_sum`]), and learns how many items all earlier tiles keep from
/// the decoupled look-back ([`crate::device::scan::lookback`], 64-bit). Kept items are staged in
/// shared memory in input order and written out with coalesced stores at
/// `counter₀ + prefix + rank`, where `counter₀` is `*counter` before the launch. The block of the
/// last tile stores the new count in `*counter`. Slots at or past `capacity` are not written.
///
/// Thread `t` of tile `k` owns items `(k·blockDim.x + t)·ITEMS ..` (consecutive, so its rank is
/// a running count); `ITEMS` is a multiple of 4 and `ITEMS · size_of::<T>()` of 16.
///
/// # Safety
/// As for [`super::select_tile`]; in addition `state` has one slot per tile with `status` and
/// `tile_counter` zeroed before the launch, the launch has exactly `ceil(n / tile)` blocks,
/// `scratch` is [`ORDERED_SCRATCH_U64`] shared words and `stage` `ITEMS · blockDim.x` shared `T`s
/// (16-byte aligned).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_ordered_tile<T: SelectValue, const ITEMS: usize>(
    items: *const T,
    flags: *const u8,
    n: u64,
    op: u32,
    a: T,
    b: T,
    out: *mut T,
    capacity: u64,
    counter: *mut u64,
    state: LookbackState<u64>,
    scratch: *mut u64,
    stage: *mut T,
) {
    const { assert!(ITEMS.is_multiple_of(4) && (ITEMS * core::mem::size_of::<T>()).is_multiple_of(16)) };
    let tid = thread_idx_x() as usize;
    let threads = crate::arch::block_dim_x() as usize;
    let slots = OrderedSlots::new(scratch);
    let tile = slots.claim(counter, state);
    let n = n as usize;
    let first = (tile * threads + tid) * ITEMS;
    let valid = n.saturating_sub(first).min(ITEMS);

    let mut vals = [T::default(); ITEMS];
    let mut flag = [true; ITEMS];
    let mut in_range = [true; ITEMS];
    // ITEMS flag bytes at a multiple of ITEMS (≥ 4): whole words where `flags` is 4-aligned.
    if valid == ITEMS && super::vectors_aligned(items, flags, op, 4) {
        let mut words = [[0u32; 4]; ITEMS];
        let bytes = ITEMS * core::mem::size_of::<T>();
        for v in 0..bytes / 16 {
            words[v] = load_nc_v4_u32((items.add(first) as *const [u32; 4]).add(v));
        }
        let per_vec = 16 / core::mem::size_of::<T>();
        for j in 0..ITEMS {
            vals[j] = (words[j / per_vec].as_ptr() as *const T).add(j % per_vec).read();
        }
        if op == op::FLAGGED {
            for w in 0..ITEMS / 4 {
                let bits = (flags.add(first) as *const u32).add(w).read();
                for q in 0..4 {
                    flag[4 * w + q] = (bits >> (8 * q)) & 0xff != 0;
                }
            }
        }
    } else {
        in_range = load_checked(items, flags, op, n, |j| first + j, &mut vals, &mut flag);
    }
    let keep = keep_mask(op, a, b, &vals, &flag, &in_range);
    let count = keep.iter().map(|&k| k as u32).sum::<u32>();
    let (mut rank, kept) = slots.scan(count);
    for j in 0..ITEMS {
        if keep[j] {
            T::store_staged(stage.add(rank as usize), vals[j]);
            rank += 1;
        }
    }
    slots.look_back(state, tile, kept);
    sync_threads();
    let base = slots.base();
    // `dst` is only dereferenced below the capacity (`room` is 0 when `base` is past it).
    let (dst, room) = (out.wrapping_add(base as usize), super::room_after(base, capacity));
    let mut i = tid as u32;
    while i < kept.min(room) {
        *dst.add(i as usize) = T::load_staged(stage.add(i as usize));
        i += threads as u32;
    }
    slots.finish(counter, (tile + 1) * threads * ITEMS, n, base, kept);
}
