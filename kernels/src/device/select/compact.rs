//! The ordered tile's in-place compaction ([`super::select_ordered_tile`]): each warp moves the
//! items it keeps to the front of its share of shared memory, in order.

use super::SelectValue;
use crate::arch::{lane_id, load_shared_v4, popc, shfl_idx, sync_warp, WARP_SIZE};
use crate::warp::warp_inclusive_sum;

/// Moves the warp's kept items (bit `k·v + j` of `keep` on each lane: item `j` of its chunk `k`)
/// to the front of its share `region`, in order. Chunk row `k` (chunk `k` of every lane) holds
/// items `32·v·k ..` of the share; a kept item's rank is at most its index, so it lands in a row
/// the warp has read already: each row is read, the warp synchronised, then written.
#[inline(always)]
pub(super) unsafe fn compact_share<T: SelectValue, const CHUNKS: usize>(region: *mut [u32; 4], keep: u128) {
    let v = 16 / core::mem::size_of::<T>();
    let lane = lane_id() as usize;
    // Per-row counts are packed `fields` to a word, `field` bits each (a row keeps at most 32·v).
    let field = 32 - (WARP_SIZE * v as u32).leading_zeros();
    let fields = (32 / field) as usize;
    let bits = |w: u32, q: usize| (w >> (field as usize * q)) & ((1 << field) - 1);
    let row_bits = |k: usize| (keep >> (k * v)) as u32 & (u32::MAX >> (32 - v));
    let stage = region as *mut T;
    let mut run = 0u32;
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
            let (mine, mut r) = (row_bits(k), run + bits(exclusive, q));
            for j in 0..v {
                if (mine >> j) & 1 != 0 {
                    T::store_staged(stage.add(r as usize), (chunk.as_ptr() as *const T).add(j).read());
                    r += 1;
                }
            }
            run += bits(rows, q);
        }
        row += fields;
    }
    sync_warp();
}

/// Bit `j` set where byte `j` of `bytes` (the first `v`) is not zero.
#[inline(always)]
pub(super) fn nonzero_bytes(bytes: [u32; 4], v: usize) -> u32 {
    let mut bits = 0;
    for j in 0..v {
        bits |= (((bytes[j / 4] >> (8 * (j % 4))) & 0xff != 0) as u32) << j;
    }
    bits
}

/// Bit `j` set where item `j` of `chunk` (`16 / size_of::<T>()` items) passes `t`.
#[inline(always)]
pub(super) fn passing<T: SelectValue>(chunk: [u32; 4], t: T::Test) -> u32 {
    let mut bits = 0;
    for j in 0..16 / core::mem::size_of::<T>() {
        // SAFETY: `j` is inside the 16-byte chunk.
        let x = unsafe { (chunk.as_ptr() as *const T).add(j).read() };
        bits |= (x.passes(t) as u32) << j;
    }
    bits
}
