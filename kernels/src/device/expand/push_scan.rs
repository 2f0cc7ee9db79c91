//! S2.5's pass 1: the device-wide exclusive scan of the counts into the prefix array that pass 2
//! binary-searches, in the offset width the host chose ([`Offset`]: `u32` below 2^32
//! destination items, `u64` past it).
//!
//! Block `b` scans tile `b` of [`TILE`] counts ([`THREADS`] threads × [`ITEMS`] consecutive
//! counts each) and learns the sum of every earlier tile from the decoupled look-back of
//! [`crate::device::lookback`] (block index = tile, so no tile counter; a silent predecessor's
//! sum is computed from its counts after a number of polls, so the scan never hangs). Its tile
//! states are the view's `scan_status` words: `TileStates<u32>` (status and value in one 64-bit
//! word) for 32-bit offsets, `TileStates<u64>` (the pair layout: two 64-bit words, 16-byte aligned) for 64-bit ones.
//!
//! With 32-bit offsets the sums wrap, and a wrap is seen locally: an element whose exclusive
//! prefix plus its count carries out of 32 bits raises [`FLAG_CAPACITY`] (every crossing of a
//! multiple of 2^32 happens at some element). The thread holding the last count stores the
//! total in `ctrl.total` and raises the flag when it exceeds the capacity.

use super::{ExpandView, Offset, FLAG_CAPACITY};
use crate::arch::{
    atomic_or_u32, block_idx_x, lane_id, load_shared, load_v4_u32, store_relaxed_u64, store_v4_u32, sync_threads,
    sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_scan, warp_reduce_high_first, ScanOp};
use crate::device::lookback::{look_back, TileStates, FALLBACK_POLLS};
use crate::device::scan::{STATUS_AGGREGATE, STATUS_PREFIX};
use core::ptr::{addr_of_mut, write_volatile};

pub use warpwork_abi::scan::{ITEMS_U32 as ITEMS, THREADS};

const WARPS: usize = THREADS as usize / WARP_SIZE as usize;
/// Counts per tile (one block each).
pub const TILE: usize = THREADS as usize * ITEMS;
/// Predecessors each lane of the look-back polls per round (32 tiles per round; wider windows
/// cost registers).
const LOOKBACK_WINDOW: usize = 1;
/// Shared `u64`s [`push_scan`] needs: the warp totals of the block scan and the tile's prefix.
pub const PUSH_SCAN_SCRATCH_U64: usize = WARPS + 1;

/// S2.5 pass 1 for tile `blockIdx.x` of `v`'s counts: writes their exclusive prefixes to
/// `v.offsets()` as `O`s, and the checks of the module docs.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_BINARY_SEARCH` whose `offsets` hold `p1` `O`s and whose
/// `scan_status` holds `warpwork_abi::scan::tile_state_words` words, zeroed (with the
/// control block) before the launch; the launch has `ceil(p1 / TILE)` blocks of [`THREADS`]
/// threads; `scratch` is [`PUSH_SCAN_SCRATCH_U64`] shared `u64`s; every thread calls this.
#[inline(always)]
pub unsafe fn push_scan<O: Offset>(v: &ExpandView, scratch: *mut u64) {
    let n = v.p1 as usize;
    let tile = block_idx_x() as usize;
    let first = tile * TILE + thread_idx_x() as usize * ITEMS;
    let counts = v.counts();
    let mut values = [0u32; ITEMS];
    let valid = n.saturating_sub(first).min(ITEMS);
    if valid == ITEMS {
        for q in 0..ITEMS / 4 {
            let [a, b, c, d] = load_v4_u32(counts.add(first + 4 * q) as *const [u32; 4]);
            (values[4 * q], values[4 * q + 1], values[4 * q + 2], values[4 * q + 3]) = (a, b, c, d);
        }
    } else {
        // A fixed trip count (constant indices) keeps `values` in registers.
        for (j, x) in values.iter_mut().enumerate() {
            if j < valid {
                *x = *counts.add(first + j);
            }
        }
    }
    let sum = values.iter().fold(O::ZERO, |a, &x| a.add_u32(x));
    let (thread_prefix, aggregate) = block_exclusive_scan::<O::Sum, WARPS>(scratch as *mut O, sum);

    // Warp 0 publishes and looks back; lane 0 leaves the tile's prefix in shared memory (tile 0
    // too: nothing after the barrier branches on the tile).
    let prefix_slot = scratch.add(WARPS) as *mut O;
    if warp_id() == 0 {
        let states = TileStates::<O>::new(v.scan_status());
        let before = publish_and_look_back(states, counts, tile, aggregate);
        if lane_id() == 0 {
            write_volatile(prefix_slot, before);
        }
    }
    sync_threads();
    let mut run = O::Sum::combine(load_shared(prefix_slot), thread_prefix);
    let offsets = v.offsets() as *mut O;
    let mut wrapped = false;
    // Four prefixes at a time (few registers live): one 16-byte store of 32-bit offsets, two of
    // 64-bit ones, for a whole run (`first` is a multiple of 16 elements).
    for q in 0..ITEMS / 4 {
        let mut four = [O::ZERO; 4];
        for (i, x) in four.iter_mut().enumerate() {
            let c = values[4 * q + i];
            *x = run;
            // 32-bit offsets: a carry out of 32 bits inside the run (past `valid` the counts
            // are 0).
            wrapped |= !O::WIDE && run.to_u64() + c as u64 > u32::MAX as u64;
            run = run.add_u32(c);
        }
        if valid == ITEMS {
            let src = four.as_ptr() as *const [u32; 4];
            let dst = offsets.add(first + 4 * q) as *mut [u32; 4];
            for h in 0..core::mem::size_of::<[O; 4]>() / 16 {
                store_v4_u32(dst.add(h), *src.add(h));
            }
        } else {
            for (i, &x) in four.iter().enumerate() {
                if 4 * q + i < valid {
                    *offsets.add(first + 4 * q + i) = x;
                }
            }
        }
    }
    if valid > 0 && first + valid == n {
        let total = run.to_u64();
        store_relaxed_u64(addr_of_mut!((*v.ctrl()).total), total);
        wrapped |= total > if O::WIDE { v.wide_capacity } else { v.capacity as u64 };
    }
    if wrapped {
        atomic_or_u32(addr_of_mut!((*v.ctrl()).flags), FLAG_CAPACITY);
    }
}

/// Warp 0's part: publishes the tile's aggregate (its inclusive prefix for tile 0), looks back,
/// publishes the inclusive prefix and returns the exclusive one (on every lane).
#[inline(always)]
unsafe fn publish_and_look_back<O: Offset>(states: TileStates<O>, counts: *const u32, tile: usize, aggregate: O) -> O {
    let lane = lane_id();
    if tile == 0 {
        if lane == 0 {
            states.publish(0, STATUS_PREFIX, aggregate);
        }
        return O::ZERO;
    }
    if lane == 0 {
        states.publish(tile, STATUS_AGGREGATE, aggregate);
    }
    let before =
        look_back::<O::Sum, LOOKBACK_WINDOW>(states, tile, FALLBACK_POLLS, |j| tile_sum_by_warp::<O>(counts, j));
    if lane == 0 {
        states.publish(tile, STATUS_PREFIX, O::Sum::combine(before, aggregate));
    }
    before
}

/// The sum of the counts of (full) tile `j`, by the calling warp, on every lane: the
/// look-back's fallback for a tile that has not published. Cold: kept out of line, and its loop
/// from unrolling, so that it adds few registers to the kernel.
#[inline(never)]
unsafe fn tile_sum_by_warp<O: Offset>(counts: *const u32, j: usize) -> O {
    let run = counts.add(j * TILE) as *const [u32; 4];
    let mut sum = O::ZERO;
    for i in 0..TILE / 4 / WARP_SIZE as usize {
        // Convergent: keeps the optimizer from unrolling the loop (and from sinking the call
        // into one lane: the reduction below shuffles across the warp).
        sync_warp();
        let [a, b, c, d] = load_v4_u32(run.add(i * WARP_SIZE as usize + lane_id() as usize));
        sum = sum.add_u32(a).add_u32(b).add_u32(c).add_u32(d);
    }
    warp_reduce_high_first::<O::Sum>(sum)
}
