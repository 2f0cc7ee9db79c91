//! The one launch's walk ([`super::once`]): a part's tile is scanned into shared-memory
//! *bounds* (every source's first item), then each walking warp produces its share of the
//! part's items in steps of [`STEP`] items, *marking* `(source << 8) | offset` for every
//! non-empty source that starts inside the step (lane `l` checks the four sources from `4l` on
//! of each round's 128, one 16-byte load of their bounds) in a per-warp array; a warp-wide running
//! maximum over the marks then gives every item its source.
//!
//! Pass 2's walk ([`super::walk`]) lists a tile's non-empty sources instead, and counts bits: no
//! work per empty source, where this walk checks every source a step spans. The one launch keeps
//! this one: its parts are short and most of its tiles are scanned once, and the list's stores
//! cost its one-tile form 0.3–0.5 µs (measured side by side on an H100, 2026-11-27).

use super::schedule::Part;
use super::walk::{emit, warp_steps};
use super::{counts_to_scan, FUSED_ITEMS, FUSED_THREADS, FUSED_TILE, PAIRS, STEP, WARPS};
use crate::arch::{
    ballot, lane_id, lanemask_lt, load_shared, load_shared_v4, shfl_idx, store_shared_u32, store_shared_v4,
    sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::BLOCK_SCAN_SCRATCH;
use crate::block::{block_exclusive_sum, ScanValue};
use crate::device::expand::{ExpandView, Offset};
use crate::warp::warp_last_holding;
use core::ptr::{addr_of_mut, write_volatile};

/// The one launch's shared memory, as one struct (the layout `FusedShared` had before pass 2
/// listed its tiles' non-empty sources).
#[repr(C, align(16))]
pub struct OnceShared<O = u32> {
    /// One step of marks per warp.
    pub(super) marks: [u32; WARPS as usize * STEP as usize],
    /// The tile's exclusive prefixes, one per source, then its end.
    pub(super) bounds: [O; FUSED_TILE as usize + 1],
    /// The block scan's scratch.
    scratch: [O; BLOCK_SCAN_SCRATCH + 3],
}

/// A part ready to walk: its items `begin..stop` of the tile whose bounds are in shared memory
/// (none when `begin >= stop`), the tile's first source and its real sources.
#[derive(Clone, Copy)]
pub(super) struct Span<O> {
    pub(super) first_src: u32,
    pub(super) sources: u32,
    pub(super) begin: O,
    pub(super) stop: O,
}

/// Scans the part's tile into the bounds (every thread; ends with a barrier) and returns the
/// items of its units (`begin >= stop` when it has none), given the tile's first and end items
/// (every thread passes the same). The tile's bounds are written only where its counts are
/// loaded ([`counts_to_scan`]: not for an empty tile, nor for the tile scanned last). The block
/// scan and the barriers run either way, so that no barrier sits on a path that depends on the
/// tile (LLVM would otherwise copy the barrier onto two paths; see `scripts/check-ptx.sh`).
/// `scanned` is block-uniform: the tile whose bounds are in shared memory, updated here.
#[inline(always)]
pub(super) unsafe fn scan_tile<O: Offset>(
    v: &ExpandView,
    smem: *mut OnceShared<O>,
    part: Part,
    tile_begin: O,
    tile_end: O,
    scanned: &mut u32,
) -> Span<O> {
    let t = part.tile;
    let first_src = t * FUSED_TILE;
    let (fresh, c) = counts_to_scan(v, t, tile_begin.to_u64() == tile_end.to_u64(), *scanned);
    let (excl, _) = block_exclusive_sum(
        addr_of_mut!((*smem).scratch) as *mut O,
        c.iter().fold(O::from_u32(0), |a, &x| a.add_u32(x)),
    );
    if fresh {
        write_bounds(addr_of_mut!((*smem).bounds) as *mut O, c, ScanValue::add(tile_begin, excl), tile_end);
        *scanned = t;
    }
    // The bounds are written, and the caller's warps have read what they read before the scan
    // (the schedule's slot).
    sync_threads();
    let (begin, stop) = part.items(tile_begin, tile_end);
    Span { first_src, sources: (v.p1 - first_src).min(FUSED_TILE), begin, stop }
}

/// Writes a tile's bounds (every thread): this thread's run of counts `c` from `first` (its
/// exclusive prefix), four bounds at a time (one 16-byte store of `u32`s, two of `u64`s), and
/// the tile's end `end` at `bounds[FUSED_TILE]`; past `p1` the counts are zero, so the padding
/// bounds all hold the end too. The caller's barrier then publishes them to the block.
#[inline(always)]
pub(super) unsafe fn write_bounds<O: Offset>(bounds: *mut O, c: [u32; FUSED_ITEMS], first: O, end: O) {
    let tid = thread_idx_x() as usize;
    if tid < FUSED_THREADS as usize {
        let mine = bounds.add(tid * FUSED_ITEMS) as *mut [u32; 4];
        let mut run = first;
        for q in 0..FUSED_ITEMS / 4 {
            let mut four = [O::from_u32(0); 4];
            for i in 0..4 {
                four[i] = run;
                run = run.add_u32(c[4 * q + i]);
            }
            let words = four.as_ptr() as *const [u32; 4];
            let chunks = core::mem::size_of::<[O; 4]>() / 16;
            for h in 0..chunks {
                store_shared_v4(mine.add(chunks * q + h), *words.add(h));
            }
        }
    } else if tid == FUSED_THREADS as usize {
        write_volatile(bounds.add(FUSED_TILE as usize), end);
    }
}

/// Produces the items `begin..stop` (`begin < stop`) of a tile whose bounds are in shared
/// memory: each warp takes a contiguous share in steps of [`STEP`] items (see the module docs).
#[inline(always)]
pub(super) unsafe fn walk(
    bounds: *const u32,
    marks: *mut u32,
    span: Span<u32>,
    f: &mut impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    type O = u32;
    let Span { first_src, sources, begin, stop } = span;
    let (one, step) = (O::from_u32(1), O::from_u32(STEP));
    let w = warp_id();
    let (mut s, s_end) = warp_steps(begin, stop, w);
    if s >= s_end {
        return;
    }
    let lane = lane_id();
    let below = lanemask_lt();
    let marks = marks.add(w as usize * STEP as usize);
    // `cur` (warp-uniform): the last non-empty source starting at or before the step's first
    // item (a source starting exactly there is marked at offset 0), where it starts, and where
    // the next source starts (`cur < sources`, and `bounds[sources]` is the tile's end). Past
    // `sources` the padding bounds all equal the end, so the marking loop stops at the last real
    // source instead of walking the padding.
    let mut cur = last_at_or_below(bounds, sources, (s * step).max(begin));
    let mut cur_start = load_shared(bounds.add(cur as usize));
    let mut next_start = load_shared(bounds.add(cur as usize + 1));
    while s < s_end {
        // Every step holds an item of the unit, so `base < stop`; offsets from `base` cannot wrap
        // (and are below 2^32: a part spans a few units).
        let base = s * step;
        let (lo, hi) = (begin.saturating_local_from(base), stop.local_from(base));
        // (`next_start > base`: the next source starts after the step's first item.)
        if next_start - base >= step {
            // The whole step lies in `cur` (inside a large source): no marks needed.
            for pair in 0..STEP / PAIRS {
                let at = pair * PAIRS + 2 * lane;
                let local = base.add_u32(at).local_from(cur_start);
                let src = first_src + cur;
                emit(f, base, at, lo..hi, [src; 2], [local, local.wrapping_add(1)]);
            }
            s += one;
            continue;
        }
        // The warp's marks cleared, `STEP / 32` per lane in 16-byte stores.
        for q in 0..(STEP / WARP_SIZE / 4) as usize {
            store_shared_v4(marks.add((STEP / WARP_SIZE) as usize * lane as usize + 4 * q) as *mut [u32; 4], [0; 4]);
        }
        sync_warp();
        // Mark each non-empty source starting in the step with `(source << 8) | offset`:
        // sources after `cur` start after the step's first item, and non-empty ones at distinct
        // offsets, so no two lanes write one mark. Each lane checks four consecutive sources
        // per round (one 16-byte load of their bounds), 128 a round: where most sources are
        // empty, a step spans hundreds of them.
        let mut j = (cur + 1) & !(QUAD - 1);
        loop {
            let k0 = j + QUAD * lane;
            let mut after = u32::MAX;
            if k0 < sources {
                // `k0 + QUAD <= FUSED_TILE`: the bounds hold the tile's end there.
                let b = load_quad(bounds.add(k0 as usize));
                let b_next = load_shared(bounds.add((k0 + QUAD) as usize));
                for i in 0..QUAD as usize {
                    let k = k0 + i as u32;
                    let end = if i + 1 < QUAD as usize { b[i + 1] } else { b_next };
                    // Sources after `cur` start at or after `base`: the distances are exact
                    // (capped at `u32::MAX`, far past a step).
                    if k > cur && end > b[i] {
                        let at = b[i].distance_capped(base, u32::MAX);
                        if at < STEP {
                            store_shared_u32(marks.add(at as usize), (k << 8) | at);
                        }
                    }
                }
                after = b_next.distance_capped(base, u32::MAX);
            }
            // Where the first source the warp has not checked starts.
            if shfl_idx(after, WARP_SIZE - 1) >= STEP {
                break;
            }
            j += QUAD * WARP_SIZE;
        }
        sync_warp();
        // Item `x`'s source is the latest mark at or before it (`cur` where there is none).
        // Marks grow along the step, so that is the lane's own mark or the last mark of the
        // nearest lane below with one (a ballot and one shuffle per 64 items).
        let mut carry = 0u32;
        for pair in 0..STEP / PAIRS {
            let at = pair * PAIRS + 2 * lane;
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
            let group_last = shfl_idx(last, 31u32.saturating_sub(lanes.leading_zeros()));
            if lanes != 0 {
                carry = group_last;
            }
            let locate = |m: u32, at: u32| {
                if m == 0 {
                    (first_src + cur, base.add_u32(at).local_from(cur_start))
                } else {
                    (first_src + (m >> 8), at - (m & 0xff))
                }
            };
            let ((s0, l0), (s1, l1)) = (locate(m0, at), locate(m1, at + 1));
            emit(f, base, at, lo..hi, [s0, s1], [l0, l1]);
        }
        if carry != 0 {
            cur = carry >> 8;
            cur_start = base.add_u32(carry & 0xff);
            next_start = load_shared(bounds.add(cur as usize + 1));
        }
        // The marks are cleared for the next step only after every lane has read them.
        sync_warp();
        s += one;
    }
}

/// Sources a lane checks per round of the marking loop (consecutive ones).
const QUAD: u32 = 4;

/// Bounds `k .. k + QUAD` from shared memory in 16-byte loads (`p` is 16-byte aligned: `k` is a
/// multiple of [`QUAD`]).
#[inline(always)]
unsafe fn load_quad<O: Copy + Default>(p: *const O) -> [O; QUAD as usize] {
    let mut out = [O::default(); QUAD as usize];
    let words = out.as_mut_ptr() as *mut [u32; 4];
    for h in 0..core::mem::size_of::<[O; QUAD as usize]>() / 16 {
        *words.add(h) = load_shared_v4((p as *const [u32; 4]).add(h));
    }
    out
}

/// The last `k` in `0..sources` with `bounds[k] <= x` (`bounds` is non-decreasing with
/// `bounds[0] <= x < bounds[sources]`): the source whose range holds destination `x`, by a
/// 32-way warp search ([`warp_last_holding`]: three rounds for a tile; every lane calls this).
#[inline(always)]
unsafe fn last_at_or_below<O: Offset>(bounds: *const O, sources: u32, x: O) -> u32 {
    warp_last_holding(sources, |k| load_shared(bounds.add(k as usize)) <= x)
}
