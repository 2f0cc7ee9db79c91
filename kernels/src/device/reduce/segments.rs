//! The segmented reduce: a block per segment (its first warp alone for a short one), or a warp
//! per segment where a block's group of segments is short.

use super::{
    accumulate_share, reduce_range, ReduceShared, LONG_SEGMENT_THREADS, THREADS, UNROLL, WARPS, WARP_SEGMENT_MAX,
};
use crate::arch::{block_dim_x, block_idx_x, grid_dim_x, lane_id, sync_threads, thread_idx_x, warp_id};
use crate::warp::{warp_reduce, ReduceOp};
use core::mem::size_of;

/// Warps per block of [`LONG_SEGMENT_THREADS`] threads.
const LONG_WARPS: usize = LONG_SEGMENT_THREADS as usize / 32;
/// The bytes a warp loads in one trip to memory: [`UNROLL`] 16-byte loads per lane.
const WARP_TRIP_BYTES: usize = 32 * UNROLL * 16;
/// Element loads per lane in a trip of 4-byte elements (the smallest item).
const TRIP_LOADS: usize = WARP_TRIP_BYTES / 32 / 4;

/// Whether a segment of `len` items of `T` is one trip to memory for a warp.
#[inline(always)]
fn one_trip<T>(len: usize) -> bool {
    len * size_of::<T>() <= WARP_TRIP_BYTES
}

/// The bounds of segment `s`: its offsets clamped to `n`, the end to at least the begin.
#[inline(always)]
unsafe fn segment(offsets: *const u64, s: usize, n: usize) -> (usize, usize) {
    let begin = (*offsets.add(s) as usize).min(n);
    (begin, (*offsets.add(s + 1) as usize).clamp(begin, n))
}

/// A segmented reduce: segment `s` is `input[offsets[s]..offsets[s + 1]]`, each offset clamped
/// to `n` (and the end to at least the begin: a segment whose end is before its begin is
/// empty), and its result goes to `out[s]`; an empty segment gives `O::IDENTITY`.
///
/// Block `b` takes the segments of group `b` (`group` consecutive segments; grid-stride over
/// the groups). If the group has as many segments as the block has warps and every one is at
/// most [`WARP_SEGMENT_MAX`] elements long, each warp reduces one (with the block body's
/// 16-byte loads, then [`warp_reduce`]); otherwise the block takes them one after the other:
/// the whole block ([`reduce_range`]), or its first warp alone for a segment that a warp loads
/// in one trip ([`WARP_TRIP_BYTES`]). `group = 1` is one block per segment.
///
/// # Safety
/// `input` holds `n` elements, none written during the launch; `offsets` holds `segments + 1`
/// offsets and `out` `segments` results; `group` is 1 or [`WARPS`]; blocks of [`THREADS`]
/// threads, or of [`LONG_SEGMENT_THREADS`] where `group` is 1; `smem` is this block's, in shared
/// memory; every thread calls this.
#[inline(always)]
pub unsafe fn reduce_segments<O: ReduceOp>(
    input: *const O::Item,
    n: usize,
    offsets: *const u64,
    segments: usize,
    group: usize,
    out: *mut O::T,
    smem: *mut ReduceShared,
) {
    let totals = smem as *mut O::T;
    let mut g = block_idx_x() as usize;
    // `g < segments.div_ceil(group)`, without a division.
    while g * group < segments {
        let (first, last) = (g * group, (g * group + group).min(segments));
        // Block-uniform: every thread reads the same offsets.
        let by_warps = group == WARPS
            && (first..last).all(|s| {
                let (begin, end) = segment(offsets, s, n);
                end - begin <= WARP_SEGMENT_MAX as usize
            });
        if by_warps {
            let s = first + warp_id() as usize;
            if s < last {
                let (begin, end) = segment(offsets, s, n);
                warp_segment::<O>(input, begin, end, out.add(s));
            }
        } else {
            for s in first..last {
                let (begin, end) = segment(offsets, s, n);
                // Block-uniform. A segment that one warp loads in one trip is the first warp's
                // alone: the block-wide reduce (two shuffle trees, two barriers) cost more.
                if one_trip::<O::Item>(end - begin) {
                    if warp_id() == 0 {
                        warp_segment::<O>(input, begin, end, out.add(s));
                    }
                } else {
                    // Block-uniform: the launch's block size (`warpwork_abi::reduce::segment_threads`).
                    let total = if block_dim_x() == LONG_SEGMENT_THREADS {
                        reduce_range::<O, { LONG_SEGMENT_THREADS as usize }, LONG_WARPS>(input, begin, end, totals)
                    } else {
                        reduce_range::<O, { THREADS as usize }, WARPS>(input, begin, end, totals)
                    };
                    if thread_idx_x() == 0 {
                        *out.add(s) = total;
                    }
                }
                // Every thread has read the totals before the next segment writes them.
                sync_threads();
            }
        }
        g += grid_dim_x() as usize;
    }
}

/// `input[begin..end]` reduced by the calling warp into `*out` (lane 0 stores): an element per
/// lane up to a warp's width; up to [`WARP_TRIP_BYTES`], one trip of element loads (mean 256 at
/// 2^16: 0.90× CUB with the block body's 16-byte loads and their alignment arithmetic, 1.00×
/// without; for segments of up to 32, sixteen predicated loads per lane cost mean 8 a fifth of
/// its speed); longer ones with the block body's 16-byte loads.
///
/// # Safety
/// `input` holds at least `end` elements, none written during the launch; `begin <= end`;
/// every lane of the warp calls this.
#[inline(always)]
unsafe fn warp_segment<O: ReduceOp>(input: *const O::Item, begin: usize, end: usize, out: *mut O::T) {
    let lane = lane_id() as usize;
    let len = end - begin;
    let acc = if len <= 32 {
        if lane < len {
            O::lift(*input.add(begin + lane), (begin + lane) as u64)
        } else {
            O::IDENTITY
        }
    } else if one_trip::<O::Item>(len) {
        // Up to a trip: element loads, all in flight at once (no alignment arithmetic on the
        // way to them), combined in index order. `loads` is a constant: 8-byte items take the
        // first half of the slots, and the rest compile away.
        let loads = WARP_TRIP_BYTES / 32 / size_of::<O::Item>();
        let mut x = [O::IDENTITY; TRIP_LOADS];
        for (k, x) in x.iter_mut().enumerate() {
            let i = lane + 32 * k;
            if k < loads && i < len {
                *x = O::lift(*input.add(begin + i), (begin + i) as u64);
            }
        }
        x.into_iter().fold(O::IDENTITY, O::combine)
    } else {
        accumulate_share::<O, 32>(lane, O::IDENTITY, input, begin, end)
    };
    let total = warp_reduce::<O>(acc);
    if lane == 0 {
        *out = total;
    }
}
