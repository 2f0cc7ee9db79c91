//! What the run modes of the order-preserving tile write besides the kept items
//! ([`super::select_ordered_tile`] in `mode::RUNS`, `mode::BOUNDS` and `mode::BY_KEY`): run
//! lengths and offsets, from each kept item's index and the index of the kept item before it;
//! and unique by key's values.

use crate::arch::{lane_id, load_shared, popc, shfl_idx, shfl_up, store_shared_u32, WARP_SIZE};
use crate::block::Max;
use crate::device::lookback::TileStates;
use crate::warp::{warp_inclusive_scan, warp_inclusive_sum};
use warpwork_abi::select::mode;

/// The run modes' outputs and their second look-back: arguments of
/// [`super::select_ordered_tile`] that the other modes leave at [`RunOutputs::NONE`].
#[derive(Clone, Copy)]
pub struct RunOutputs {
    /// Run lengths (`mode::RUNS`, `mode::BOUNDS`), `u64` if `wide`, `u32` otherwise.
    pub lengths: *mut u8,
    /// Run offsets (`mode::BOUNDS`), as `lengths`.
    pub offsets: *mut u8,
    /// 8-byte lengths and offsets.
    pub wide: bool,
    /// The values beside the keys (`mode::BY_KEY`): `n` of `value_size` bytes.
    pub values: *const u8,
    /// Where each kept key's value goes (`mode::BY_KEY`): `capacity` of them.
    pub values_out: *mut u8,
    /// Bytes per value: 1, 2, 4, 8 or 16 (16-byte values aligned to 4).
    pub value_size: u32,
    /// The tile states of the look-back that carries the index (plus one) of the last kept
    /// item before each tile (`mode::RUNS`, `mode::BOUNDS`).
    pub last: TileStates<u64>,
}

impl RunOutputs {
    /// No run outputs (the other modes).
    pub const NONE: RunOutputs = RunOutputs {
        lengths: core::ptr::null_mut(),
        offsets: core::ptr::null_mut(),
        wide: false,
        values: core::ptr::null(),
        values_out: core::ptr::null_mut(),
        value_size: 0,
        // SAFETY: never published nor polled in the modes that take `NONE`.
        last: unsafe { TileStates::from_raw(core::ptr::null_mut()) },
    };
}

/// Stores `x` at element `i` of `out`: a `u64` if `wide`, a `u32` otherwise (the host made sure
/// it fits).
///
/// # Safety
/// `out` holds more than `i` elements of the width.
#[inline(always)]
pub(super) unsafe fn store_width(out: *mut u8, i: u64, x: u64, wide: bool) {
    if wide {
        *(out as *mut u64).add(i as usize) = x;
    } else {
        *(out as *mut u32).add(i as usize) = x as u32;
    }
}

/// `dst[o] = src[i]` for values of `size` bytes (1, 2, 4, 8, or 16 aligned to 4): one load and
/// one store of the width (four of 4 bytes for 16-byte values).
///
/// # Safety
/// `src` holds more than `i` values, `dst` more than `o`, both aligned as said.
#[inline(always)]
pub(super) unsafe fn copy_value(src: *const u8, i: usize, dst: *mut u8, o: usize, size: u32) {
    match size {
        1 => *dst.add(o) = *src.add(i),
        2 => *(dst as *mut u16).add(o) = *(src as *const u16).add(i),
        4 => *(dst as *mut u32).add(o) = *(src as *const u32).add(i),
        8 => *(dst as *mut u64).add(o) = *(src as *const u64).add(i),
        _ => {
            let (s, d) = ((src as *const u32).add(4 * i), (dst as *mut u32).add(4 * o));
            let w = [*s, *s.add(1), *s.add(2), *s.add(3)];
            for (k, w) in w.into_iter().enumerate() {
                *d.add(k) = w;
            }
        }
    }
}

/// Hands each kept item of the calling warp's share to `f(r, i, previous)`: its rank `r` among
/// the share's kept items, its index `i` in the share and the index plus one of the kept item
/// before it in the share (0 where it is the share's first). `keep` is the lane's keep bits
/// (bit `k·v + j` for item `j` of its chunk `k`, chunk `32·k + lane` of the share, `v = 16 /
/// size`), ranked in the order [`super::select_ordered_tile`] compacts them: the rows' counts
/// packed several to a warp sum, as the compaction packs them; and (with `PREVIOUS`; 0 is
/// passed without) one warp maximum of the last indices per row.
#[inline(always)]
pub(super) fn each_kept<const CHUNKS: usize, const PREVIOUS: bool>(keep: u128, v: usize, f: impl Fn(u32, usize, u32)) {
    let lane = lane_id() as usize;
    // Per-row counts are packed `fields` to a word, `field` bits each (a row keeps at most 32·v).
    let field = 32 - (WARP_SIZE * v as u32).leading_zeros();
    let fields = (32 / field) as usize;
    let part = |w: u32, q: usize| (w >> (field as usize * q)) & ((1 << field) - 1);
    let row_bits = |k: usize| (keep >> (k * v)) as u32 & (u32::MAX >> (32 - v));
    let (mut run, mut last) = (0u32, 0u32);
    let mut row = 0;
    while row < CHUNKS {
        let mut packed = 0u32;
        for q in 0..fields.min(CHUNKS - row) {
            packed |= popc(row_bits(row + q)) << (field as usize * q);
        }
        let inclusive = warp_inclusive_sum(packed);
        let (exclusive, rows) = (inclusive - packed, shfl_idx(inclusive, WARP_SIZE - 1));
        for q in 0..fields.min(CHUNKS - row) {
            let k = row + q;
            let bits = row_bits(k);
            let chunk = (WARP_SIZE as usize * k + lane) * v;
            let mut previous = 0;
            if PREVIOUS {
                let mine = if bits != 0 { (chunk + 32 - bits.leading_zeros() as usize) as u32 } else { 0 };
                let lasts = warp_inclusive_scan::<Max<u32>>(mine);
                let before = shfl_up(lasts, 1);
                previous = if lane == 0 { last } else { before.max(last) };
                last = last.max(shfl_idx(lasts, WARP_SIZE - 1));
            }
            let mut r = run + part(exclusive, q);
            let mut rest = bits;
            while rest != 0 {
                let i = chunk + rest.trailing_zeros() as usize;
                f(r, i, previous);
                (previous, r, rest) = (i as u32 + 1, r + 1, rest & (rest - 1));
            }
            run += part(rows, q);
        }
        row += fields;
    }
}

/// The index plus one of the last kept item of the calling lane's chunks (0 if none), as
/// [`each_kept`] reads `keep`.
#[inline(always)]
pub(super) fn last_kept(keep: u128, v: usize) -> u32 {
    if keep == 0 {
        return 0;
    }
    let b = 127 - keep.leading_zeros() as usize;
    ((WARP_SIZE as usize * (b / v) + lane_id() as usize) * v + b % v + 1) as u32
}

/// Where a run tile keeps, among its block's `totals` words, what [`scan_lasts`] derives from
/// the warps' last kept indices (at most 8 warps: the words the warps' counts, last indices and
/// carried index leave free): from this word on, one per warp, the index plus one, relative to
/// the tile, of the last kept item of the warps before it (0: none)…
pub(super) const BEFORE_AT: usize = 8;
/// …and at this word the tile's own (0: none).
pub(super) const OWN_AT: usize = 24;

/// Warp 1 of a run tile (`WARPS` ≤ 8 warps of `per_warp` items, from item `tile_start` on):
/// from each warp's last kept index in its share plus one (`lasts`, 0: none), stores what
/// [`BEFORE_AT`] and [`OWN_AT`] say and returns the index plus one of the tile's last kept item
/// (0: none), as [`last_at`] reads it. One warp scan, where each warp walked the warps before it.
///
/// # Safety
/// `totals` and `lasts` are the block's words in shared memory; the stores are read after a
/// barrier.
#[inline(always)]
pub(super) unsafe fn scan_lasts<const WARPS: usize>(
    totals: *mut u32,
    lasts: *const u32,
    tile_start: usize,
    per_warp: usize,
) -> u64 {
    const { assert!(WARPS <= BEFORE_AT && BEFORE_AT + WARPS <= 16 && OWN_AT >= 16 + WARPS) };
    let lane = lane_id() as usize;
    let l = if lane < WARPS { load_shared(lasts.add(lane)) } else { 0 };
    let mine = if l != 0 { (lane * per_warp) as u32 + l } else { 0 };
    let through = warp_inclusive_scan::<Max<u32>>(mine);
    let before = shfl_up(through, 1);
    let own = shfl_idx(through, WARPS as u32 - 1);
    if lane < WARPS {
        store_shared_u32(totals.add(BEFORE_AT + lane), if lane == 0 { 0 } else { before });
    }
    if lane == 0 {
        store_shared_u32(totals.add(OWN_AT), own);
    }
    from_tile(own, tile_start, 0)
}

/// The index plus one of a last kept item from word `word` of `totals` ([`BEFORE_AT`] + warp:
/// the last before the warp's share; [`OWN_AT`]: the tile's last), relative to the tile that
/// starts at item `tile_start`, or `carried` (the last before the tile) where the word says none.
///
/// # Safety
/// `totals` is the block's, in shared memory, written by [`scan_lasts`] before a barrier.
#[inline(always)]
pub(super) unsafe fn last_at(totals: *const u32, word: usize, tile_start: usize, carried: u64) -> u64 {
    from_tile(load_shared(totals.add(word)), tile_start, carried)
}

/// A last kept index plus one relative to the tile that starts at `tile_start` (`rel`) as an
/// index in the input plus one, or `none` where `rel` is 0.
#[inline(always)]
fn from_tile(rel: u32, tile_start: usize, none: u64) -> u64 {
    if rel != 0 {
        (tile_start + rel as usize) as u64
    } else {
        none
    }
}

/// The run modes' lengths (`mode::RUNS`; and offsets, `mode::BOUNDS`) of a warp's kept items,
/// from their indices in the share (`share` its first item) staged by rank in `idx`
/// (`warp_kept` of them, in shared memory): each from two neighbouring indices, 32 consecutive
/// outputs per store, as CUB writes them, instead of a warp maximum per row for the kept item
/// before each one. `first` is the warp's first slot, `carry` the index plus one of the last
/// kept item before the share (0: none); nothing is written at or past `capacity`.
///
/// # Safety
/// `idx` holds `warp_kept` indices in shared memory; the outputs are `runs`' (the host sized
/// them to `capacity`).
#[inline(always)]
pub(super) unsafe fn write_runs<const MODE: u8>(
    idx: *const u32,
    warp_kept: u32,
    share: usize,
    first: u64,
    carry: u64,
    capacity: u64,
    runs: RunOutputs,
) {
    let wide = runs.wide;
    // The global index of the warp's `e`-th kept item.
    let at = |e: u64| (share + load_shared(idx.add(e as usize)) as usize) as u64;
    if MODE == mode::RUNS {
        let mut e = lane_id();
        while e < warp_kept {
            // Slot `s` writes the length of the run before: from the kept item before (`carry`
            // for the share's first) to this one.
            let q1 = if e > 0 { at(e as u64 - 1) + 1 } else { carry };
            store_length_before(runs, first + e as u64, at(e as u64), q1, capacity);
            e += WARP_SIZE;
        }
    } else {
        // A lane per run (start at slot `2k`, end at `2k + 1`), runs `k` that have a slot here:
        // both its offset and its length in one pass, each store 32 consecutive runs.
        let end = first + warp_kept as u64;
        let mut k = first / 2 + lane_id() as u64;
        while k < end.div_ceil(2) && k < capacity {
            // The start: the slot before the warp's first is the kept item before the share.
            let start = if 2 * k >= first { at(2 * k - first) } else { carry - 1 };
            if 2 * k >= first {
                store_width(runs.offsets, k, start, wide);
            }
            if 2 * k + 1 < end {
                store_width(runs.lengths, k, at(2 * k + 1 - first) + 1 - start, wide);
            }
            k += WARP_SIZE as u64;
        }
    }
}

/// Run-length encoding's store for the kept item at slot `s` (its index `p`): the length of
/// run `s − 1`, from the kept item before it (`q1`, its index plus one; 0 where there is none:
/// slot 0) to this one, unless that slot is at or past `capacity`.
///
/// # Safety
/// `runs.lengths` holds `capacity` lengths of the width `runs.wide` says.
#[inline(always)]
pub(super) unsafe fn store_length_before(runs: RunOutputs, s: u64, p: u64, q1: u64, capacity: u64) {
    if q1 != 0 && s - 1 < capacity {
        store_width(runs.lengths, s - 1, p + 1 - q1, runs.wide);
    }
}

/// Unique by key's values: the value of each of a warp's kept keys (their indices in the share,
/// `share` its first item, staged by rank in `idx`) to its slot (`first` the warp's first), the
/// first `room` of them; loads four at a time, all in flight before their stores (one value
/// after the other, a warp waited for memory once per 32 values).
///
/// # Safety
/// `idx` holds at least `room` indices in shared memory; `runs.values` holds the share's
/// values, `runs.values_out` more than `first + room - 1` (both as [`copy_value`] says).
#[inline(always)]
pub(super) unsafe fn copy_values(idx: *const u32, room: u32, share: usize, first: u64, runs: RunOutputs) {
    let (src, dst) = (runs.values, runs.values_out);
    match runs.value_size {
        1 => gather::<u8>(idx, room, share, first, src, dst),
        2 => gather::<u16>(idx, room, share, first, src as *const u16, dst as *mut u16),
        4 => gather::<u32>(idx, room, share, first, src as *const u32, dst as *mut u32),
        8 => gather::<u64>(idx, room, share, first, src as *const u64, dst as *mut u64),
        _ => gather::<[u32; 4]>(idx, room, share, first, src as *const [u32; 4], dst as *mut [u32; 4]),
    }
}

/// [`copy_values`] for values of type `V`.
#[inline(always)]
unsafe fn gather<V: Copy + Default>(idx: *const u32, room: u32, share: usize, first: u64, src: *const V, dst: *mut V) {
    const BATCH: u32 = 4;
    let dst = dst.wrapping_add(first as usize);
    let mut e = lane_id();
    while e < room {
        let mut x = [V::default(); BATCH as usize];
        for (u, x) in x.iter_mut().enumerate() {
            let r = e + u as u32 * WARP_SIZE;
            if r < room {
                *x = *src.add(share + load_shared(idx.add(r as usize)) as usize);
            }
        }
        for (u, x) in x.into_iter().enumerate() {
            let r = e + u as u32 * WARP_SIZE;
            if r < room {
                *dst.add(r as usize) = x;
            }
        }
        e += BATCH * WARP_SIZE;
    }
}
