//! S2.5 fused (`ScanFused`): the scan of S2.5 and its pass 2 in **one launch**.
//!
//! Each block claims a tile of `FUSED_ITEMS × blockDim.x` sources, scans their counts with the
//! decoupled look-back of [`crate::device::scan`], keeps the tile's exclusive prefixes (its
//! *bounds*) in shared memory, and then produces every destination item of its own sources: the
//! tile's output range is contiguous, so each warp takes a contiguous share of it, finds its first
//! item's source by one binary search over the shared bounds, and then walks forward, advancing
//! the source as the destination index crosses a bound.
//!
//! What this buys over the two-launch S2.5: the counts are read once and no prefix array goes
//! through device memory; pass 2's binary search runs over 4 K shared-memory bounds instead of
//! `P1` global ones; and the look-back's latency is hidden behind other blocks' writes. What it
//! costs: a tile's items are produced by its own block, so a tile holding a few huge sources is
//! one block's work (the two-launch strategies spread those over the whole grid), and the
//! per-item work must live in the same kernel (a closure here; there is no separate pass-2
//! kernel to hand to `expand_with`).

use super::{check_scanned_run, ExpandView};
use crate::arch::{block_dim_x, lane_id, load_shared, sync_threads, thread_idx_x, warp_id, WARP_SIZE};
use crate::device::scan::scan_tile;
use core::ptr::write_volatile;

/// Counts per thread in a fused tile.
pub const FUSED_ITEMS: usize = 16;
/// Most threads per block [`for_each_fused`] supports (sizes the bounds array).
pub const FUSED_MAX_THREADS: usize = 256;
/// Shared `u32`s [`for_each_fused`] needs for the bounds: one per source of a tile, plus its end.
pub const FUSED_BOUNDS_U32: usize = FUSED_MAX_THREADS * FUSED_ITEMS + 1;

/// Linear steps a lane takes to reach the next source before it falls back to a binary search.
const MAX_WALK: u32 = 8;

/// Runs S2.5 fused over `v`'s counts: produces every destination item `dst < v.capacity` of
/// this block's tile, where `dst` is the item's canonical index (all items of source 0, then of
/// source 1, ...), as calls `f(dst, [src; 2], [local; 2], count)`: items `dst .. dst + count`
/// (`count` is 1 or 2; when 2, `dst` is even, so a pair of 8-byte records is one aligned 16-byte
/// store). Also stores the exact total in `ctrl.total` and raises [`super::FLAG_CAPACITY`] when it
/// exceeds the capacity or the 32-bit sum wraps.
///
/// `f` is called by lanes independently (not warp-synchronously): no warp-wide operations in it.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` whose scan state and control block were zeroed
/// before the launch; `scan_scratch` is [`crate::device::scan::SCAN_TILE_SCRATCH`] shared `u32`s
/// and `bounds` [`FUSED_BOUNDS_U32`] shared `u32`s; blocks have at most [`FUSED_MAX_THREADS`]
/// threads (a multiple of 32); the launch has `ceil(p1 / tile)` blocks; every thread calls this.
#[inline(always)]
pub unsafe fn for_each_fused(
    v: &ExpandView,
    scan_scratch: *mut u32,
    bounds: *mut u32,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let state = v.lookback_state();
    let n = v.p1 as usize;
    let capacity = v.capacity;
    let tid = thread_idx_x() as usize;
    let tile_sources = FUSED_ITEMS * block_dim_x() as usize;

    let st = scan_tile::<u32, FUSED_ITEMS, { crate::device::scan::WIDE_LOOKBACK }>(
        state,
        scan_scratch,
        v.counts,
        n,
        |first, excl, values, valid| {
            // Past `valid` the values are zero, so `excl` holds the tile's end there: the bounds
            // array needs no special tail.
            for j in 0..FUSED_ITEMS {
                write_volatile(bounds.add(tid * FUSED_ITEMS + j), excl[j]);
            }
            check_scanned_run(v, first, excl, values, valid);
        },
    );
    if tid == 0 {
        write_volatile(bounds.add(tile_sources), st.prefix.wrapping_add(st.aggregate));
    }
    sync_threads();

    let begin = st.prefix;
    let end = st.prefix.wrapping_add(st.aggregate);
    // A wrapped sum has raised the flag; this tile then produces nothing.
    let len = end.saturating_sub(begin);
    let len = len.min(capacity.saturating_sub(begin));
    if len == 0 {
        return;
    }
    // 64-bit so that a range ending near 2^32 cannot wrap.
    let (begin, stop) = (begin as u64, begin as u64 + len as u64);
    // The output is cut into steps of 64 items aligned to multiples of 64 in the *global* index
    // space, so each lane's pair (2·lane, 2·lane + 1) starts at an even index and goes out as one
    // 16-byte store; a step shared with the neighbouring tile writes only this tile's items.
    let first_step = begin / STEP;
    let steps = (stop - 1) / STEP + 1 - first_step;
    let warps = (block_dim_x() / WARP_SIZE) as u64;
    let per_warp = steps.div_ceil(warps);
    let w = warp_id() as u64;
    let s_end = (first_step + (w + 1) * per_warp).min(first_step + steps);
    let first_src = st.tile * tile_sources as u32;
    let sources = tile_sources as u32;
    let mut src = u32::MAX;
    let mut s = first_step + w * per_warp;
    while s < s_end {
        let d0 = s * STEP + 2 * lane_id() as u64;
        let (in0, in1) = (d0 >= begin && d0 < stop, d0 + 1 >= begin && d0 + 1 < stop);
        if in0 || in1 {
            let d = if in0 { d0 } else { d0 + 1 } as u32;
            src = locate(bounds, sources, src, d);
            let mut srcs = [first_src + src, 0];
            let mut locals = [d - load_shared(bounds.add(src as usize)), 0];
            let count = if in0 && in1 { 2 } else { 1 };
            if count == 2 {
                src = locate(bounds, sources, src, d + 1);
                srcs[1] = first_src + src;
                locals[1] = d + 1 - load_shared(bounds.add(src as usize));
            }
            f(d, srcs, locals, count);
        }
        s += 1;
    }
}

/// Destination items per warp step of [`for_each_fused`]: two per lane.
const STEP: u64 = 2 * WARP_SIZE as u64;

/// The source holding destination `d`: from `hint` (a source at or before it, `u32::MAX` for
/// none) by walking forward over the bounds, or by binary search when the walk gets long.
#[inline(always)]
unsafe fn locate(bounds: *const u32, sources: u32, hint: u32, d: u32) -> u32 {
    if hint == u32::MAX {
        return last_at_or_below(bounds, sources, d);
    }
    let mut src = hint;
    let mut steps = 0;
    while load_shared(bounds.add(src as usize + 1)) <= d {
        src += 1;
        steps += 1;
        if steps == MAX_WALK {
            return last_at_or_below(bounds, sources, d);
        }
    }
    src
}

/// The last `k` in `0..sources` with `bounds[k] <= x` (`bounds` is non-decreasing with
/// `bounds[0] <= x < bounds[sources]`): the source whose range holds destination `x`.
#[inline(always)]
unsafe fn last_at_or_below(bounds: *const u32, sources: u32, x: u32) -> u32 {
    let (mut lo, mut hi) = (0u32, sources);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if load_shared(bounds.add(mid as usize)) <= x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}
