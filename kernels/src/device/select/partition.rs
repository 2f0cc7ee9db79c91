//! The stable partition's two sides in an ordered tile ([`super::select_ordered_tile`] with
//! [`warpwork_abi::select::mode::PARTITION`]): both staged in shared memory and written as coalesced runs.
//!
//! A warp's share is read in rows: row `k` (chunk `k` of every lane) holds share items
//! `32·v·k .. 32·v·(k + 1)` (`v` items per 16-byte chunk), in order. Before the look-back, each
//! row is partitioned **in place, inside the row** ([`stage_rows`]): its kept items first, in
//! order, then its rejected ones, in order. Nothing leaves the row, so each row is read into
//! registers, the warp synchronised, and written back; the row's kept count goes to lane `k`.
//!
//! After the look-back ([`write_rows`]), the warp writes its share 32 consecutive staged items
//! per store: item `o` of row `k` is kept where `o` is below the row's kept count, and goes to
//! `first + (kept before the row) + o`; otherwise it is rejected and goes down from the share's
//! first rejected slot. The kept items of consecutive rows are consecutive in the output, and so
//! are (downwards) the rejected ones, so each store instruction covers one or two contiguous
//! runs: every item is written once, coalesced, whichever side it is on.
//!
//! The rejected slots need no look-back of their own: the tiles (and warps, and rows) before
//! an item reject `start − kept before`, both of which the kept side already knows.

use super::unique::chunk_item;
use super::SelectValue;
use crate::arch::{lane_id, load_shared_v4, opaque, popc, shfl_idx, sync_warp, WARP_SIZE};
use crate::warp::warp_inclusive_sum;

/// Partitions each row of the warp's share `region` in place (see the module docs): `keep` has
/// bit `k·v + j` set on a lane where item `j` of its chunk `k` is kept; share items at or past
/// `limit` are dropped. Returns, on lane `k`, row `k`'s kept count (0 on lanes past the rows).
///
/// # Safety
/// `region` is the calling warp's share of `CHUNKS` rows of 32 16-byte chunks in shared memory,
/// which only this warp touches; every lane calls this.
#[inline(always)]
pub(super) unsafe fn stage_rows<T: SelectValue, const CHUNKS: usize>(
    region: *mut [u32; 4],
    keep: u128,
    limit: usize,
) -> u32 {
    let v = 16 / core::mem::size_of::<T>();
    const { assert!(CHUNKS <= WARP_SIZE as usize) };
    let lane = lane_id() as usize;
    // Per-row counts are packed `fields` to a word, `field` bits each (a row keeps at most 32·v),
    // as the select's compaction does.
    let field = 32 - (WARP_SIZE * v as u32).leading_zeros();
    let fields = (32 / field) as usize;
    let bits = |w: u32, q: usize| (w >> (field as usize * q)) & ((1 << field) - 1);
    let row_bits = |k: usize| (keep >> (k * v)) as u32 & (u32::MAX >> (32 - v));
    let stage = region as *mut T;
    // Positions inside the share are 32-bit (a share holds fewer than 2^16 items).
    let (v32, lane32, limit) = (v as u32, lane as u32, limit as u32);
    let row_len = WARP_SIZE * v32;
    let mut counts = 0u32;
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
            let chunk = load_shared_v4(region.add(WARP_SIZE as usize * k + lane));
            sync_warp();
            let (base, row_kept) = (k as u32 * row_len, bits(rows, q));
            // `r`: where the lane's next kept item goes (after the row's kept ones before it).
            // The lane's first item is row item `lane·v`; its rejected items follow the row's
            // kept ones, each at (row kept) + (its index in the row) − (kept before it).
            let (mine, mut r, first) = (row_bits(k), base + bits(exclusive, q), base + lane32 * v32);
            let (rejected_at, valid) = (first + row_kept + base, limit.saturating_sub(first));
            for j in 0..v {
                let kept = (mine >> j) & 1;
                if (j as u32) < valid {
                    let at = if kept != 0 { r } else { rejected_at + j as u32 - r };
                    T::store_staged(stage.add(at as usize), chunk_item::<T>(chunk, j));
                }
                r += kept;
            }
            if lane == k {
                counts = row_kept;
            }
        }
        row += fields;
    }
    counts
}

/// A partition tile's writes after the look-back, for the warp's share of `limit` items from
/// input index `share` (the start is 0, `first` the slot of the share's first kept item): the
/// share staged by [`stage_rows`] (`rows` its return value).
///
/// # Safety
/// As [`write_rows`]; `out` holds `n` items.
#[inline(always)]
pub(super) unsafe fn write_partition<T: SelectValue, const CHUNKS: usize>(
    region: *mut [u32; 4],
    rows: u32,
    limit: usize,
    out: *mut T,
    n: u64,
    share: u64,
    first: u64,
) {
    // The `share` items before the warp's share reject `share − first`, so the share's first
    // rejected item goes to slot `n − 1 − (share − first)`.
    let last = n.wrapping_sub(1).wrapping_sub(share.wrapping_sub(first));
    write_rows::<T, CHUNKS>(region, rows, limit, out, first, last);
}

/// Writes the warp's share staged by [`stage_rows`] (`counts` its return value, `limit` items):
/// its kept items to `out[first ..]` in order and its rejected ones to `out[last]`, `out[last −
/// 1]`, … in order (see the module docs). 32 consecutive staged items per store.
///
/// # Safety
/// As [`stage_rows`], after it and a barrier; `out` holds every slot written: `first +` the
/// share's kept count, and `last + 1 ≥` its rejected count.
#[inline(always)]
pub(super) unsafe fn write_rows<T: SelectValue, const CHUNKS: usize>(
    region: *const [u32; 4],
    counts: u32,
    limit: usize,
    out: *mut T,
    first: u64,
    last: u64,
) {
    let v = 16 / core::mem::size_of::<T>();
    let lane = lane_id() as usize;
    let stage = region as *const T;
    // Positions inside the share are 32-bit (a share holds fewer than 2^16 items).
    let (lane, limit) = (lane as u32, limit as u32);
    let row_len = WARP_SIZE * v as u32;
    let mut run = 0u32;
    // (A loop kept from unrolling: unrolled, the kernel's code would grow `CHUNKS` times.)
    for k in 0..opaque(CHUNKS) {
        let base = k as u32 * row_len;
        if base >= limit {
            break;
        }
        let valid = (limit - base).min(row_len);
        let kept = shfl_idx(counts, k as u32);
        // Row item `o`: kept `o < kept` to `to_kept + o`; rejected, rank `o − kept` in the row
        // and `base − run + o − kept` in the share, to `to_rejected − o`.
        let to_kept = out.wrapping_add(first.wrapping_add(run as u64) as usize);
        let to_rejected = out.wrapping_add(last.wrapping_sub((base - run) as u64).wrapping_add(kept as u64) as usize);
        // (The 4 to 16 steps of items of 1 to 4 bytes in a loop kept from unrolling: unrolled,
        // they took up to 64 registers, more than the former partition's 45 to 56, and the
        // kernel lost blocks per SM.)
        for s in 0..if v >= 4 { opaque(v) } else { v } {
            let o = WARP_SIZE * s as u32 + lane;
            if o < valid {
                let x = T::load_staged(stage.add((base + o) as usize));
                let to = if o < kept { to_kept.wrapping_add(o as usize) } else { to_rejected.wrapping_sub(o as usize) };
                *to = x;
            }
        }
        run += kept;
    }
}
