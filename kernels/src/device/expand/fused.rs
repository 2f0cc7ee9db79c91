//! S2.5 fused (`ScanFused`): the scan of S2.5 and its pass 2 in **one launch**.
//!
//! Each block claims a tile of `FUSED_ITEMS × blockDim.x` sources, scans their counts with the
//! decoupled look-back of [`crate::device::scan`] and keeps the tile's exclusive prefixes (its
//! *bounds*) in shared memory. The counts wait there too, not in registers, while warp 0 looks
//! back, and each thread checks its run of counts for a 32-bit wrap once, from its exact sum:
//! that keeps the kernel at 48 registers, 5 blocks per SM, whose walks hide each other's
//! look-back latency.
//!
//! Then the block produces every destination item of its own sources. The tile's output range
//! is contiguous; each warp takes a contiguous share of it in steps of [`STEP`] items. A step
//! *marks* every non-empty source that starts inside it (lane `l` checks source `cur + 1 + l`,
//! 32 per round; one round for sources of ≥ 8 items, a few for tiny ones) in a per-warp array,
//! then a warp-wide running maximum over the marks gives every item its source: no search per
//! item, no divergence, and lane `l` holds items `2l, 2l + 1` of each 64, so the pairs go out as
//! coalesced 16-byte stores.
//!
//! What this buys over the two-launch S2.5: the counts are read once and no prefix array goes
//! through device memory; pass 2's binary search runs over 4 K shared-memory bounds instead of
//! `P1` global ones; and the look-back's latency is hidden behind other blocks' writes. What it
//! costs: a tile's items are produced by its own block, so a tile holding a few huge sources is
//! one block's work (the two-launch strategies spread those over the whole grid), and the
//! per-item work must live in the same kernel (a closure here; there is no separate pass-2
//! kernel to hand to `expand_with`).

use super::{ExpandView, RunCheck};
use crate::arch::{
    ballot, block_dim_x, lane_id, lanemask_lt, load_shared, load_shared_v4, load_v4_u32, shfl_idx, store_shared_v4,
    sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::block_exclusive_sum;
use crate::device::scan::{block_lookback, claim_tile, WIDE_LOOKBACK};
use core::ptr::write_volatile;

/// Counts per thread in a fused tile.
pub const FUSED_ITEMS: usize = 16;
/// Most threads per block [`for_each_fused`] supports (sizes the shared arrays).
pub const FUSED_MAX_THREADS: usize = 256;
/// Shared `u32`s [`for_each_fused`] needs for the bounds: one per source of a tile, plus its end.
pub const FUSED_BOUNDS_U32: usize = FUSED_MAX_THREADS * FUSED_ITEMS + 1;
/// Shared `u32`s [`for_each_fused`] needs for the marks: one step's worth per warp.
pub const FUSED_MARKS_U32: usize = FUSED_MAX_THREADS / WARP_SIZE as usize * STEP as usize;

/// Destination items per warp step: four units of 64, two per lane each.
pub const STEP: u32 = 4 * UNIT;
const UNIT: u32 = 2 * WARP_SIZE;

/// Runs S2.5 fused over `v`'s counts and calls `f` for every destination item `dst <
/// v.capacity` of this block's tile, where `dst` is the item's canonical index (all items of
/// source 0, then of source 1, ...), as calls `f(dst, [src; 2], [local; 2], count)`: items `dst ..
/// dst + count` (`count` is 1 or 2; when 2, `dst` is even, so a pair of 8-byte records is one
/// aligned 16-byte store, and the lanes of a warp cover 64 consecutive items). Also stores the
/// exact total in `ctrl.total` and raises [`super::FLAG_CAPACITY`] when it exceeds the capacity
/// or the 32-bit sum wraps.
///
/// `f` is called by lanes independently (not warp-synchronously): no warp-wide operations in it.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` whose scan state and control block were zeroed
/// before the launch; `scan_scratch` is [`crate::device::scan::SCAN_TILE_SCRATCH`] shared `u32`s,
/// `bounds` [`FUSED_BOUNDS_U32`] and `marks` [`FUSED_MARKS_U32`] shared `u32`s, both 16-byte
/// aligned; blocks have at most [`FUSED_MAX_THREADS`] threads (a multiple of 32); the launch has
/// `ceil(p1 / tile)` blocks; every thread calls this.
#[inline(always)]
pub unsafe fn for_each_fused(
    v: &ExpandView,
    scan_scratch: *mut u32,
    bounds: *mut u32,
    marks: *mut u32,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let (tile, prefix, aggregate) = scan_into_bounds(v, scan_scratch, bounds);
    let begin = prefix;
    let end = prefix.wrapping_add(aggregate);
    // A wrapped sum has raised the flag; this tile then produces nothing.
    let len = end.saturating_sub(begin);
    let len = len.min(v.capacity.saturating_sub(begin));
    if len == 0 {
        return;
    }
    // Items `begin..stop`; `stop <= capacity`, so 32 bits hold every index. Steps are aligned
    // to multiples of `STEP` in the *global* index space, so every pair starts at an even
    // index; a step shared with the neighbouring tile produces only this tile's items.
    let stop = begin + len;
    let first_step = begin / STEP;
    let steps = (stop - 1) / STEP + 1 - first_step;
    let per_warp = steps.div_ceil(block_dim_x() / WARP_SIZE);
    let w = warp_id();
    let mut s = first_step + w * per_warp;
    let s_end = (first_step + (w + 1) * per_warp).min(first_step + steps);
    if s >= s_end {
        return;
    }
    let lane = lane_id();
    let below = lanemask_lt();
    let marks = marks.add(w as usize * STEP as usize);
    let first_src = tile * (FUSED_ITEMS * block_dim_x() as usize) as u32;
    // The tile's real sources: past `p1` the padding bounds all equal the tile's end, so
    // `bounds[sources]` is still the end, and the marking loop stops at the last real source
    // instead of walking the padding (up to 128 rounds in the last tile).
    let sources = (v.p1 - first_src).min((FUSED_ITEMS * block_dim_x() as usize) as u32);
    // `cur` (warp-uniform): the last non-empty source starting at or before the step's first
    // item (a source starting exactly there is marked at offset 0), where it starts, and where
    // the next source starts (`cur < sources`, and `bounds[sources]` is the tile's end).
    let mut cur = last_at_or_below(bounds, sources, (s * STEP).max(begin));
    let mut cur_start = load_shared(bounds.add(cur as usize));
    let mut next_start = load_shared(bounds.add(cur as usize + 1));
    while s < s_end {
        // Every step holds an item of the tile, so `base < stop`; offsets from `base` cannot wrap.
        let base = s * STEP;
        let (lo, hi) = (begin.saturating_sub(base), stop - base);
        if next_start - base >= STEP {
            // The whole step lies in `cur` (inside a large source): no marks needed.
            for unit in 0..STEP / UNIT {
                let at = unit * UNIT + 2 * lane;
                let local = (base + at).wrapping_sub(cur_start);
                let src = first_src + cur;
                emit(&mut f, base, at, lo..hi, [src; 2], [local, local.wrapping_add(1)]);
            }
            s += 1;
            continue;
        }
        store_shared_v4(marks.add(8 * lane as usize) as *mut [u32; 4], [0; 4]);
        store_shared_v4(marks.add(8 * lane as usize + 4) as *mut [u32; 4], [0; 4]);
        sync_warp();
        // Mark each non-empty source starting in the step with `(source << 8) | offset`:
        // sources after `cur` start after the step's first item, and non-empty ones at distinct
        // offsets, so no two lanes write one mark.
        let mut j = cur + 1;
        loop {
            let k = j + lane;
            let (at, inside) = if k < sources {
                let at = load_shared(bounds.add(k as usize)) - base;
                (at, at < STEP && load_shared(bounds.add(k as usize + 1)) - base > at)
            } else {
                (u32::MAX, false)
            };
            if inside {
                write_volatile(marks.add(at as usize), (k << 8) | at);
            }
            if shfl_idx(at, WARP_SIZE - 1) >= STEP {
                break;
            }
            j += WARP_SIZE;
        }
        sync_warp();
        // Item `x`'s source is the latest mark at or before it (`cur` where there is none).
        // Marks grow along the step, so that is the lane's own mark or the last mark of the
        // nearest lane below with one (a ballot and one shuffle per unit of 64 items).
        let mut carry = 0u32;
        for unit in 0..STEP / UNIT {
            let at = unit * UNIT + 2 * lane;
            let [m0, m1] = load_shared::<[u32; 2]>(marks.add(at as usize) as *const [u32; 2]);
            let last = m0.max(m1);
            let lanes = ballot(last != 0);
            let lower = lanes & below;
            let from_lower = shfl_idx(last, 31u32.saturating_sub(lower.leading_zeros()));
            let m0 = if m0 != 0 {
                m0
            } else if lower != 0 {
                from_lower
            } else {
                carry
            };
            let m1 = if m1 != 0 { m1 } else { m0 };
            let unit_last = shfl_idx(last, 31u32.saturating_sub(lanes.leading_zeros()));
            if lanes != 0 {
                carry = unit_last;
            }
            let locate = |m: u32, at: u32| {
                if m == 0 {
                    (first_src + cur, (base + at).wrapping_sub(cur_start))
                } else {
                    (first_src + (m >> 8), at - (m & 0xff))
                }
            };
            let ((s0, l0), (s1, l1)) = (locate(m0, at), locate(m1, at + 1));
            emit(&mut f, base, at, lo..hi, [s0, s1], [l0, l1]);
        }
        if carry != 0 {
            cur = carry >> 8;
            cur_start = base + (carry & 0xff);
            next_start = load_shared(bounds.add(cur as usize + 1));
        }
        // The marks are cleared for the next step only after every lane has read them.
        sync_warp();
        s += 1;
    }
}

/// Calls `f` for the items `base + at` and `base + at + 1` that lie in the tile (offsets
/// `valid` from `base`), as [`for_each_fused`] promises: one call for a pair, else one per item.
#[inline(always)]
fn emit(
    f: &mut impl FnMut(u32, [u32; 2], [u32; 2], u32),
    base: u32,
    at: u32,
    valid: core::ops::Range<u32>,
    src: [u32; 2],
    local: [u32; 2],
) {
    match (valid.contains(&at), valid.contains(&(at + 1))) {
        (true, both) => f(base + at, src, local, if both { 2 } else { 1 }),
        (false, true) => f(base + at + 1, [src[1], 0], [local[1], 0], 1),
        (false, false) => {}
    }
}

/// Scans this block's tile of counts into `bounds` (exclusive prefixes, then the tile's end at
/// `bounds[sources]`) with the decoupled look-back; returns `(tile, prefix, aggregate)`.
/// Checks the run of counts of every thread ([`RunCheck::of_run`]).
#[inline(always)]
unsafe fn scan_into_bounds(v: &ExpandView, scratch: *mut u32, bounds: *mut u32) -> (u32, u32, u32) {
    let state = v.lookback_state();
    let tid = thread_idx_x() as usize;
    let tile = claim_tile(state, scratch);
    let first = (tile as usize * block_dim_x() as usize + tid) * FUSED_ITEMS;
    let valid = (v.p1 as usize).saturating_sub(first).min(FUSED_ITEMS);
    // The thread's counts, zero past the end, wait in its own bounds slots during the look-back.
    let mut c = [0u32; FUSED_ITEMS];
    if valid == FUSED_ITEMS {
        for q in 0..FUSED_ITEMS / 4 {
            let [a, b, cc, d] = load_v4_u32(v.counts.add(first + 4 * q) as *const [u32; 4]);
            (c[4 * q], c[4 * q + 1], c[4 * q + 2], c[4 * q + 3]) = (a, b, cc, d);
        }
    } else {
        // A fixed trip count (constant indices) keeps `c` in registers.
        for (j, x) in c.iter_mut().enumerate() {
            if j < valid {
                *x = *v.counts.add(first + j);
            }
        }
    }
    let mine = bounds.add(tid * FUSED_ITEMS) as *mut [u32; 4];
    for q in 0..FUSED_ITEMS / 4 {
        store_shared_v4(mine.add(q), [c[4 * q], c[4 * q + 1], c[4 * q + 2], c[4 * q + 3]]);
    }
    let sum = c.iter().fold(0u64, |a, &x| a + x as u64);
    let (thread_prefix, aggregate) = block_exclusive_sum(scratch, sum as u32);
    let prefix = block_lookback::<u32, WIDE_LOOKBACK>(state, scratch, tile, aggregate);
    // In place: counts → exclusive prefixes. Past `valid` the counts are zero, so the bounds
    // there hold the tile's end and need no special tail.
    let start = prefix.wrapping_add(thread_prefix);
    let mut run = start;
    for q in 0..FUSED_ITEMS / 4 {
        let four = load_shared_v4(mine.add(q));
        let mut excl = [0u32; 4];
        for i in 0..4 {
            excl[i] = run;
            run = run.wrapping_add(four[i]);
        }
        store_shared_v4(mine.add(q), excl);
    }
    // One check for the thread's whole run (its exact sum), not one per count: 11 registers
    // fewer at the kernel's peak.
    RunCheck::of_run(start, sum).finish(v, first, valid);
    if tid == 0 {
        write_volatile(bounds.add(FUSED_ITEMS * block_dim_x() as usize), prefix.wrapping_add(aggregate));
    }
    sync_threads();
    (tile, prefix, aggregate)
}

/// The last `k` in `0..sources` with `bounds[k] <= x` (`bounds` is non-decreasing with
/// `bounds[0] <= x < bounds[sources]`): the source whose range holds destination `x`.
#[inline(always)]
unsafe fn last_at_or_below(bounds: *const u32, sources: u32, x: u32) -> u32 {
    let (mut lo, mut hi) = (0, sources);
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
