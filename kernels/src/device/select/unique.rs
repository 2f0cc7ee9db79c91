//! Unique's keep test for the order-preserving tile ([`super::select_ordered_tile`] in
//! `mode::UNIQUE` and `mode::RUNS`): an item is kept where its bytes differ from those of the
//! item before it; and the bounds of the runs longer than one item (`mode::BOUNDS`).

use super::SelectValue;
use crate::arch::{lane_id, load_shared_v4, WARP_SIZE};

/// The calling lane's keep bits (bit `k·v + j` for item `j` of its chunk `k`, `v = 16 /
/// size_of::<T>()`) for a warp's share staged at `region` in input order (chunk `c` holds the
/// share's items `c·v ..`), items `share ..` of `items`, of which the first `limit` are inputs.
/// The item before a chunk's first is read from the staged share (the warp's staging must be
/// complete and visible: after a warp barrier), the one before the share's first from `items`
/// (none before the input's first item, which is always kept).
///
/// # Safety
/// `region` holds the warp's share as described; `items` holds `share + limit` items.
#[inline(always)]
pub(super) unsafe fn unique_bits<T: SelectValue, const CHUNKS: usize>(
    region: *const [u32; 4],
    items: *const T,
    share: usize,
    limit: usize,
) -> u128 {
    neighbour_bits::<T, CHUNKS, false>(region, items, share, limit, 0)
}

/// The calling lane's keep bits for the **bounds of the runs longer than one item**: an item is
/// kept where exactly one of "differs from the item before it (or is the first)" and "differs
/// from the item after it (or is the last)" holds — the first and the last item of every run of
/// two or more, so the kept indices alternate start, end. Arguments as [`unique_bits`], and `n`
/// (the item after the share's last is read from `items` when there is one).
///
/// # Safety
/// As [`unique_bits`]; `items` holds `n` items.
#[inline(always)]
pub(super) unsafe fn bound_bits<T: SelectValue, const CHUNKS: usize>(
    region: *const [u32; 4],
    items: *const T,
    share: usize,
    limit: usize,
    n: usize,
) -> u128 {
    neighbour_bits::<T, CHUNKS, true>(region, items, share, limit, n)
}

/// [`unique_bits`] (`BOUNDS` false) or [`bound_bits`] (true), chunk by chunk: for the bounds,
/// item `j` differs from the item after it where item `j + 1` differs from the one before it,
/// so one comparison more per chunk (its last item against the next) gives both.
#[inline(always)]
unsafe fn neighbour_bits<T: SelectValue, const CHUNKS: usize, const BOUNDS: bool>(
    region: *const [u32; 4],
    items: *const T,
    share: usize,
    limit: usize,
    n: usize,
) -> u128 {
    let v = 16 / core::mem::size_of::<T>();
    let lane = lane_id() as usize;
    let stage = region as *const T;
    let has_before = share > 0 && limit > 0;
    let before = if has_before { *items.add(share - 1) } else { T::default() };
    let mut keep = 0u128;
    for k in 0..CHUNKS {
        let c = WARP_SIZE as usize * k + lane;
        let chunk = load_shared_v4(region.add(c));
        let x = |j: usize| chunk_item::<T>(chunk, j);
        let previous = if c == 0 { before } else { T::load_staged(stage.add(c * v - 1)) };
        let mut bits = ((c == 0 && !has_before) || differs(x(0), previous)) as u32;
        for j in 1..v {
            bits |= (differs(x(j), x(j - 1)) as u32) << j;
        }
        // Only the share's inputs: `limit` may end inside (or before) this chunk.
        let inside = limit.saturating_sub(c * v).min(v);
        bits &= ((1u64 << inside) - 1) as u32;
        if BOUNDS {
            // The chunk's last item against the item after it: staged inside the share, read
            // from `items` past it (`limit` counts the items of the tile's later shares too,
            // which their warps may be compacting already), or none (the input's last item).
            let last = (c + 1) * v - 1;
            let own = limit.min(WARP_SIZE as usize * CHUNKS * v);
            let next_differs = if last + 1 < own {
                differs(x(v - 1), T::load_staged(stage.add(last + 1)))
            } else if last + 1 == own && share + own < n {
                differs(x(v - 1), *items.add(share + own))
            } else {
                true
            };
            let mut after = (bits >> 1) | ((next_differs as u32) << (v - 1));
            if c * v < limit && limit < (c + 1) * v {
                // The input's last item ends inside this chunk: nothing comes after it.
                after |= 1 << (limit - 1 - c * v);
            }
            bits = (bits ^ after) & ((1u64 << inside) - 1) as u32;
        }
        keep |= (bits as u128) << (k * v);
    }
    keep
}

/// Item `j` of a 16-byte chunk of `T`s (1, 2, 4, 8 or 16 bytes), by shifts and selects: indexing
/// the chunk in memory would put it on the stack in a loop the compiler does not unroll.
#[inline(always)]
pub(super) fn chunk_item<T: Copy>(c: [u32; 4], j: usize) -> T {
    let size = core::mem::size_of::<T>();
    let at = j * size;
    let word = |w: usize| {
        if w == 0 {
            c[0]
        } else if w == 1 {
            c[1]
        } else if w == 2 {
            c[2]
        } else {
            c[3]
        }
    };
    let shifted = word(at / 4) >> (8 * (at % 4));
    // SAFETY: each arm reads a value of `T`'s size (`T` is plain data of that size).
    unsafe {
        match size {
            1 => core::mem::transmute_copy(&(shifted as u8)),
            2 => core::mem::transmute_copy(&(shifted as u16)),
            4 => core::mem::transmute_copy(&shifted),
            8 => core::mem::transmute_copy(&(word(at / 4) as u64 | (word(at / 4 + 1) as u64) << 32)),
            _ => core::mem::transmute_copy(&c),
        }
    }
}

/// Whether the bytes of `a` and `b` (`T` of 1, 2, 4, 8 or 16 bytes) differ, word by word (a
/// 16-byte array's own comparison would go through the stack).
#[inline(always)]
pub(super) fn differs<T: Copy>(a: T, b: T) -> bool {
    // SAFETY: each arm reads values of `T`'s size (`T` is plain data of that size).
    unsafe {
        match core::mem::size_of::<T>() {
            1 => core::mem::transmute_copy::<T, u8>(&a) != core::mem::transmute_copy::<T, u8>(&b),
            2 => core::mem::transmute_copy::<T, u16>(&a) != core::mem::transmute_copy::<T, u16>(&b),
            4 => core::mem::transmute_copy::<T, u32>(&a) != core::mem::transmute_copy::<T, u32>(&b),
            8 => core::mem::transmute_copy::<T, u64>(&a) != core::mem::transmute_copy::<T, u64>(&b),
            _ => {
                let (a, b) =
                    (core::mem::transmute_copy::<T, [u32; 4]>(&a), core::mem::transmute_copy::<T, [u32; 4]>(&b));
                (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) != 0
            }
        }
    }
}
