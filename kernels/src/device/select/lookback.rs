//! The ordered selects' side of the decoupled look-back ([`crate::device::lookback`]): preparing
//! a launch's state, a tile's publications and look-back, and the fallback's count of a silent
//! tile.

use super::{op, SelectValue};
use crate::arch::{block_idx_x, lane_id, opaque, sync_warp, thread_idx_x, WARP_SIZE};
use crate::block::{Max, ScanOp, Sum};
use crate::device::lookback::{fallback_after, forced_stall, look_back, prepare_states, TileStates};
use crate::device::scan::{STATUS_AGGREGATE, STATUS_PREFIX};
use crate::warp::warp_sum;
use core::ptr::{addr_of, read_volatile};
use warpwork_abi::select::mode;

/// Prepares an ordered select's state for a launch: the first output slot `*start` (the count so
/// far, `*count`, when appending; 0 otherwise) and the `words` (a multiple of 4) 32-bit words of
/// tile states at `states` (16-byte aligned), zeroed. A grid-stride loop over any grid. Lets the
/// select launched after it as a programmatic dependent start at once: that one waits for this
/// grid before it touches the state.
///
/// # Safety
/// `count` and `start` are global `u64`s, `states` holds `words` words; nothing else touches them
/// during the launch.
#[inline(always)]
pub unsafe fn prepare_ordered_state(count: *const u64, start: *mut u64, states: *mut u32, words: usize, append: bool) {
    if block_idx_x() == 0 && thread_idx_x() == 0 {
        *start = if append { *count } else { 0 };
    }
    prepare_states(states, words);
}

/// The inputs of the look-back's fallback ([`count_tile`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Recount<T> {
    pub items: *const T,
    pub flags: *const u8,
    pub op: u32,
    pub a: T,
    pub b: T,
}

/// Warp 0's part: publishes the tile's kept count (its inclusive count for tile 0), looks back,
/// publishes the inclusive count and returns the count of every earlier tile (on every lane).
#[inline(always)]
pub(super) unsafe fn publish_and_look_back(
    states: TileStates<u64>,
    tile: usize,
    kept: u64,
    forced_fallback: bool,
    reduce_silent: impl Fn(usize) -> u64,
) -> u64 {
    publish_and_look_back_by::<Sum<u64>>(states, tile, kept, false, forced_fallback, reduce_silent)
}

/// [`publish_and_look_back`] under any operator `O` on `u64`s. A tile whose own value is already
/// its inclusive one (`final_own`) publishes it as its prefix at once, before it looks back.
#[inline(always)]
unsafe fn publish_and_look_back_by<O: ScanOp<T = u64>>(
    states: TileStates<u64>,
    tile: usize,
    own: u64,
    final_own: bool,
    forced_fallback: bool,
    reduce_silent: impl Fn(usize) -> u64,
) -> u64 {
    let lane = lane_id();
    if tile == 0 {
        if lane == 0 {
            states.publish(0, STATUS_PREFIX, own);
        }
        return 0;
    }
    forced_stall(forced_fallback, tile);
    if lane == 0 {
        states.publish(tile, if final_own { STATUS_PREFIX } else { STATUS_AGGREGATE }, own);
    }
    let earlier = look_back::<O, 1>(states, tile, fallback_after(forced_fallback), reduce_silent);
    if lane == 0 && !final_own {
        states.publish(tile, STATUS_PREFIX, O::combine(earlier, own));
    }
    earlier
}

/// The run modes' second look-back (warp 1): publishes the index plus one of the tile's last
/// kept item (`last`, 0 for none) and returns that of the last kept item before the tile (on
/// every lane), the `Max` over the earlier tiles. Kept items come in index order, so a tile that
/// keeps any has its own last index as its inclusive value, whatever came before: it publishes
/// it as its prefix at once, and a look-back stops at the nearest earlier tile that keeps
/// anything (usually the one before) instead of waiting for a chain of look-backs; only tiles
/// that keep nothing wait for their predecessors before publishing a prefix.
#[inline(always)]
pub(super) unsafe fn publish_and_look_back_last(
    states: TileStates<u64>,
    tile: usize,
    last: u64,
    forced_fallback: bool,
    reduce_silent: impl Fn(usize) -> u64,
) -> u64 {
    publish_and_look_back_by::<Max<u64>>(states, tile, last, last != 0, forced_fallback, reduce_silent)
}

/// The kept count of the (full) tile of `len` items from item `first` on, by the calling warp,
/// for the look-back's fallback (tile mode `MODE`, `warpwork_abi::select::mode`). Cold, and
/// written to stay small: the loop is kept from unrolling.
#[inline(always)]
pub(super) unsafe fn count_tile<T: SelectValue, const MODE: u8>(r: *const Recount<T>, first: usize, len: usize) -> u64 {
    let op = read_volatile(addr_of!((*r).op));
    let mut count = 0u32;
    let mut i = lane_id();
    if const { mode::by_neighbour(MODE) } {
        // Item `g` is kept where it is the first or differs from the item before it.
        let items = read_volatile(addr_of!((*r).items));
        while i < opaque(len) as u32 {
            let g = first + i as usize;
            let head = g == 0 || super::unique::differs(*items.add(g), *items.add(g - 1));
            // A silent tile is full and has a successor: item `g + 1` exists.
            let bound =
                const { MODE == mode::BOUNDS } && head != super::unique::differs(*items.add(g + 1), *items.add(g));
            count += if const { MODE == mode::BOUNDS } { bound } else { head } as u32;
            sync_warp();
            i += WARP_SIZE;
        }
    } else if op == op::FLAGGED {
        let flags = read_volatile(addr_of!((*r).flags)).add(first);
        while i < opaque(len) as u32 {
            count += (*flags.add(i as usize) != 0) as u32;
            // Convergent: keeps the optimizer from unrolling the loop.
            sync_warp();
            i += WARP_SIZE;
        }
    } else {
        let items = read_volatile(addr_of!((*r).items)).add(first);
        let t = T::prepare(op, read_volatile(addr_of!((*r).a)), read_volatile(addr_of!((*r).b)));
        while i < opaque(len) as u32 {
            count += (*items.add(i as usize)).passes(t) as u32;
            sync_warp();
            i += WARP_SIZE;
        }
    }
    warp_sum(count) as u64
}

/// The index plus one of the last item the (full) tile of `len` items from item `first` on
/// keeps in run mode `MODE` (`mode::RUNS`: run heads; `mode::BOUNDS`: run bounds), 0 if it
/// keeps none, by the calling warp: the second look-back's fallback. Cold, kept from unrolling.
#[inline(always)]
pub(super) unsafe fn last_in_tile<T: SelectValue, const MODE: u8>(
    r: *const Recount<T>,
    first: usize,
    len: usize,
) -> u64 {
    let items = read_volatile(addr_of!((*r).items));
    let mut last = 0u64;
    let mut i = lane_id();
    while i < opaque(len) as u32 {
        let g = first + i as usize;
        let head = g == 0 || super::unique::differs(*items.add(g), *items.add(g - 1));
        // A silent tile is full and has a successor: item `g + 1` exists.
        let kept = if const { MODE == mode::BOUNDS } {
            head != super::unique::differs(*items.add(g + 1), *items.add(g))
        } else {
            head
        };
        if kept {
            last = g as u64 + 1;
        }
        sync_warp();
        i += WARP_SIZE;
    }
    crate::warp::warp_reduce_high_first::<Max<u64>>(last)
}
