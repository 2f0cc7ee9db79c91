//! Order-preserving select in a single pass: block `b` selects from tile `b` of
//! [`ORDERED_THREADS`] threads × `ITEMS` consecutive items each, scans its threads' kept counts,
//! and learns how many items all earlier tiles keep from the decoupled look-back of
//! [`crate::device::lookback`] over 64-bit counts ([`Count`], the packed 62-bit layout: one load
//! per predecessor).
//!
//! **The base.** A tile's first output slot is `counter₀ + (kept items of all earlier tiles)`,
//! where `counter₀` is `*counter` before the launch. Tile 0 reads `counter₀` and publishes
//! `counter₀ + kept₀` as its inclusive prefix, so every later tile's look-back yields its base
//! directly and no other tile reads the counter. The last tile stores the new count into
//! `*counter`, but only once tile 0 has published (so that a fallback that re-reads the counter
//! for a silent tile 0 and finds it overwritten also finds tile 0's publication when it polls
//! again, as [`crate::device::lookback`] describes for in-place scans). Every other tile finishes
//! without waiting for anyone, so block 0 gets to run.
//!
//! **The fallback** recomputes a silent predecessor's kept count from its input with the same
//! keep test the tile itself runs (flag or value test; a predecessor is always a full tile), plus
//! `counter₀` for tile 0: exactly the value that tile publishes.

use super::{keep_mask, load_checked, load_flag_run, op, test, SelectValue};
use crate::arch::{
    block_idx_x, fence_gpu, lane_id, load_nc_v4_u32, load_relaxed_u64, load_shared_v4, nanosleep, opaque,
    store_relaxed_u64, store_shared_v4, sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_scan, warp_reduce_high_first, ScanOp, Sum};
use crate::device::lookback::{fallback_after, forced_stall, look_back, Count, TileStates, SPIN_NS};
use crate::device::scan::{STATUS_AGGREGATE, STATUS_INVALID, STATUS_PREFIX};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};

pub use warpwork_abi::select::ORDERED_THREADS;

const WARPS: usize = ORDERED_THREADS as usize / WARP_SIZE as usize;
/// Predecessors each lane polls per look-back round (as the scans).
const LOOKBACK_WINDOW: usize = 1;

/// The static shared memory of an ordered tile: one of these per block.
#[repr(C, align(16))]
pub struct OrderedShared {
    /// The block scan's warp totals.
    totals: [u32; WARPS],
    /// The tile's first output slot, from warp 0's look-back.
    base: u64,
}

/// One ordered tile's side of the look-back: its states, the counter, and where warp 0 leaves
/// the tile's base for the block.
#[derive(Clone, Copy)]
pub(super) struct OrderedTile {
    /// The tile (the block's index).
    pub(super) tile: usize,
    tiles: usize,
    states: TileStates<Count>,
    shared: *mut OrderedShared,
    counter: *mut u64,
    forced_fallback: bool,
}

impl OrderedTile {
    /// Block `blockIdx.x`'s tile of a launch over `n` items in tiles of `tile_items`.
    ///
    /// # Safety
    /// `states` is the launch's tile states (`TileStates::<Count>::words(tiles)` words, statuses
    /// zeroed), `shared` the block's [`OrderedShared`], `counter` a global `u64`.
    #[inline(always)]
    pub(super) unsafe fn new(
        states: *mut u32,
        shared: *mut OrderedShared,
        counter: *mut u64,
        n: usize,
        tile_items: usize,
        forced_fallback: bool,
    ) -> Self {
        let tiles = n.div_ceil(tile_items);
        let states = TileStates::new(states, tiles);
        OrderedTile { tile: block_idx_x() as usize, tiles, states, shared, counter, forced_fallback }
    }

    /// Scans the threads' kept counts across the block. Returns `(rank of the thread's first
    /// kept item in the tile, tile's kept count)` on every thread. One barrier: the scratch is
    /// free again after the caller's next one.
    #[inline(always)]
    pub(super) unsafe fn scan(self, count: u32) -> (u32, u32) {
        block_exclusive_scan::<Sum<u32>, WARPS>(addr_of_mut!((*self.shared).totals) as *mut u32, count)
    }

    /// Warp 0 publishes the tile's kept count, looks back, publishes its inclusive prefix and
    /// leaves the tile's base for [`OrderedTile::base`] (valid after the caller's next barrier).
    /// `kept_by_warp(j)` is the kept count of full tile `j`, computed by the calling warp (the
    /// fallback). Call it after the items are staged, so that their registers are free.
    #[inline(always)]
    pub(super) unsafe fn look_back(self, kept: u32, kept_by_warp: impl Fn(usize) -> u32) {
        if warp_id() != 0 {
            return;
        }
        let (lane, tile, states) = (lane_id(), self.tile, self.states);
        let kept = Count::new(kept as u64);
        let base = if tile == 0 {
            // The published prefix depends on the loaded value, so the load comes first.
            let start = Count::new(load_relaxed_u64(self.counter));
            if lane == 0 {
                states.publish(0, STATUS_PREFIX, Sum::<Count>::combine(start, kept));
            }
            start
        } else {
            forced_stall(self.forced_fallback, tile);
            if lane == 0 {
                states.publish(tile, STATUS_AGGREGATE, kept);
            }
            let silent = |j: usize| {
                let count = Count::new(kept_by_warp(j) as u64);
                if j == 0 {
                    Sum::<Count>::combine(Count::new(load_relaxed_u64(self.counter)), count)
                } else {
                    count
                }
            };
            let before =
                look_back::<Sum<Count>, LOOKBACK_WINDOW>(states, tile, fallback_after(self.forced_fallback), silent);
            if lane == 0 {
                states.publish(tile, STATUS_PREFIX, Sum::<Count>::combine(before, kept));
            }
            before
        };
        if lane == 0 {
            write_volatile(addr_of_mut!((*self.shared).base), base.get());
        }
    }

    /// The tile's first output slot. Valid after a barrier that follows
    /// [`OrderedTile::look_back`].
    #[inline(always)]
    pub(super) unsafe fn base(self) -> u64 {
        read_volatile(addr_of_mut!((*self.shared).base))
    }

    /// The last tile's thread 0 stores the new count, once tile 0 has published (see the module
    /// docs).
    #[inline(always)]
    pub(super) unsafe fn finish(self, base: u64, kept: u32) {
        if thread_idx_x() == 0 && self.tile + 1 == self.tiles {
            if self.tile != 0 {
                while self.states.poll(0).0 == STATUS_INVALID {
                    nanosleep(SPIN_NS);
                }
                // The store of the count comes after the poll that saw tile 0's publication.
                fence_gpu();
            }
            store_relaxed_u64(self.counter, Count::new(base.wrapping_add(kept as u64)).get());
        }
    }
}

/// The kept count of the `len` items at `first` (a full tile), by the calling warp, for the
/// look-back's fallback: the tile's own keep test, item by item, lanes on consecutive items.
/// Cold, and written to stay small: the loop is kept from unrolling, and the function out of
/// line (inlined, its operands stayed live across the tile and took the 4-byte kernels to 66–68
/// registers on sm_90, one block of 512 per SM; out of line they take 61).
#[inline(never)]
pub(super) unsafe fn kept_by_warp<T: SelectValue>(
    items: *const T,
    flags: *const u8,
    op: u32,
    a: T,
    b: T,
    first: usize,
    len: usize,
) -> u32 {
    let mut count = 0u32;
    let mut i = lane_id() as usize;
    while i < opaque(len) {
        let keep = if op == op::FLAGGED { *flags.add(first + i) != 0 } else { test(op, *items.add(first + i), a, b) };
        count += keep as u32;
        i += WARP_SIZE as usize;
    }
    warp_reduce_high_first::<Sum<u32>>(count)
}

/// Where 16-byte chunk `c` of a warp's share sits in shared memory: `c` with its low three bits
/// xor-ed by the next three (as the scan's tile), so that eight lanes storing consecutive
/// chunks, and eight lanes reading the first (or second…) chunk of their own runs of 2 or 4
/// chunks, each touch eight different 16-byte bank groups.
#[inline(always)]
fn slot(c: usize) -> usize {
    c ^ ((c >> 3) & 7)
}

/// Reads a thread's `ITEMS` consecutive items of a full tile (at `tile_in`, 16-byte aligned)
/// with coalesced 16-byte loads: the warp loads its share with the 32 lanes on consecutive
/// chunks, and, for runs of more than one chunk, passes it through its own region of `stage`
/// (swizzled) to the threads that own the items.
#[inline(always)]
unsafe fn load_coalesced<T: Copy, const ITEMS: usize>(tile_in: *const T, stage: *mut T, vals: &mut [T; ITEMS]) {
    let chunks = ITEMS * core::mem::size_of::<T>() / 16;
    let (warp, lane) = (warp_id() as usize, lane_id() as usize);
    let warp_chunks = WARP_SIZE as usize * chunks;
    let src = (tile_in as *const [u32; 4]).add(warp * warp_chunks);
    let mut words = [[0u32; 4]; 4];
    if chunks == 1 {
        words[0] = load_nc_v4_u32(src.add(lane));
    } else {
        let region = (stage as *mut [u32; 4]).add(warp * warp_chunks);
        for (k, w) in words.iter_mut().enumerate().take(chunks) {
            *w = load_nc_v4_u32(src.add(WARP_SIZE as usize * k + lane));
        }
        for (k, &w) in words.iter().enumerate().take(chunks) {
            store_shared_v4(region.add(slot(WARP_SIZE as usize * k + lane)), w);
        }
        sync_warp();
        for (q, w) in words.iter_mut().enumerate().take(chunks) {
            *w = load_shared_v4(region.add(slot(chunks * lane + q)));
        }
    }
    let per_chunk = 16 / core::mem::size_of::<T>();
    for (j, v) in vals.iter_mut().enumerate() {
        *v = (words[j / per_chunk].as_ptr() as *const T).add(j % per_chunk).read_unaligned();
    }
}

/// Order-preserving select over tile `blockIdx.x` of [`ORDERED_THREADS`] × `ITEMS` items, in a
/// single pass over the input.
///
/// Thread `t` owns the `ITEMS` consecutive items `tile_base + t·ITEMS ..` (so its rank is a
/// running count), read with coalesced 16-byte loads through `stage` ([`load_coalesced`]) in
/// full tiles, item by item in the last. The block counts its kept items, scans the counts
/// ([`crate::block::block_exclusive_scan`]) and learns its base from the look-back (see the
/// module docs). Kept items are staged in `stage` in input order and written out with
/// coalesced stores at `base + rank`. Slots at or past `capacity` are not written; the last
/// tile stores the new count in `*counter`. `forced_fallback` forces the look-back's fallback
/// (tests).
///
/// # Safety
/// `items` (and `flags` for [`op::FLAGGED`]) hold `n` elements, `T`-aligned; `out` holds
/// `capacity`; the launch has `ceil(n / (ORDERED_THREADS · ITEMS))` blocks of
/// [`ORDERED_THREADS`]; `states` holds `TileStates::<Count>::words(blocks)` words, 8-byte
/// aligned, zeroed; `shared` is the block's [`OrderedShared`] and `stage` `ORDERED_THREADS ·
/// ITEMS` shared `T`s (16-byte aligned); every thread calls this with the same arguments.
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
    states: *mut u32,
    forced_fallback: bool,
    shared: *mut OrderedShared,
    stage: *mut T,
) {
    const {
        let bytes = ITEMS * core::mem::size_of::<T>();
        assert!(ITEMS.is_power_of_two() && ITEMS >= 4 && ITEMS <= 16 && bytes.is_multiple_of(16) && bytes <= 64)
    };
    let tile_items = ORDERED_THREADS as usize * ITEMS;
    let n = n as usize;
    let t = OrderedTile::new(states, shared, counter, n, tile_items, forced_fallback);
    let tid = thread_idx_x() as usize;
    let tile_base = t.tile * tile_items;
    let first = tile_base + tid * ITEMS;

    let mut vals = [T::default(); ITEMS];
    let mut flag = [true; ITEMS];
    let mut in_range = [true; ITEMS];
    // A thread's flags are ITEMS consecutive bytes at a multiple of ITEMS: one load when
    // `flags` is ITEMS-aligned.
    if tile_base + tile_items <= n && super::vectors_aligned(items, flags, op, ITEMS) {
        load_coalesced(items.add(tile_base), stage, &mut vals);
        if op == op::FLAGGED {
            let words = load_flag_run(flags.add(first), ITEMS);
            for (j, f) in flag.iter_mut().enumerate() {
                *f = (words[j / 4] >> (8 * (j % 4))) & 0xff != 0;
            }
        }
    } else {
        in_range = load_checked(items, flags, op, n, |j| first + j, &mut vals, &mut flag);
    }
    let keep = keep_mask(op, a, b, &vals, &flag, &in_range);
    let count = keep.iter().map(|&k| k as u32).sum::<u32>();
    // The scan's barrier also ends every warp's use of `stage` for loading.
    let (mut rank, kept) = t.scan(count);
    for j in 0..ITEMS {
        if keep[j] {
            T::store_staged(stage.add(rank as usize), vals[j]);
            rank += 1;
        }
    }
    t.look_back(kept, |j| kept_by_warp(items, flags, op, a, b, j * tile_items, tile_items));
    sync_threads();
    let base = t.base();
    // `dst` is only dereferenced below the capacity (`room` is 0 when `base` is past it).
    let (dst, room) = (out.wrapping_add(base as usize), super::room_after(base, capacity));
    let mut i = tid as u32;
    while i < kept.min(room) {
        *dst.add(i as usize) = T::load_staged(stage.add(i as usize));
        i += ORDERED_THREADS;
    }
    t.finish(base, kept);
}
