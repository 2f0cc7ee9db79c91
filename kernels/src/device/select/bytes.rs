//! The generic path: items of any size (`item_bytes`), kept by flag, copied word by word with no
//! item held in registers.
//!
//! The typed bodies ([`super::select_tile`], [`super::select_ordered_tile`]) load items as
//! 16-byte vectors and keep them in registers until their slots are known; that needs a size
//! that divides 16. An item of 3, 5, 6, 7, 9 … 15 bytes or more (or a power-of-two size at an
//! address not aligned to it) goes through here instead. The loops over a thread's items carry
//! only scalars (no per-item arrays, which a loop that is not unrolled would put on the stack):
//! a first pass reads the flags and counts, the slots are reserved the same way as in the typed
//! bodies, and a second pass reads the flags again (from L1) and copies each kept item from
//! `items` to `out` in words of `u8`, `u16`, `u32` or `u64`: the widest that divides the size
//! and both addresses ([`copy_word_bytes`]).

use super::lookback::publish_and_look_back;
use super::{warp_first_slot, Reserve};
use crate::arch::{
    atomic_add_u64, ballot, block_dim_x, block_idx_x, grid_dependency_wait, grid_dim_x, lane_id, lanemask_lt, opaque,
    popc, sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::lookback::TileStates;
use crate::warp::warp_sum;
use core::ptr::{read_volatile, write_volatile};

/// The copy word for items of `item_bytes` at `items` and `out`: the widest of 8, 4, 2 and 1
/// bytes that divides the size and both addresses. The same on every thread.
#[inline(always)]
pub fn copy_word_bytes(items: *const u8, out: *mut u8, item_bytes: u32) -> usize {
    let bits = items as usize | out as usize | item_bytes as usize;
    1 << bits.trailing_zeros().min(3)
}

/// Copies `item_bytes` from `src` to `dst` in words of `W`.
#[inline(always)]
unsafe fn copy_words<W: Copy>(src: *const u8, dst: *mut u8, item_bytes: usize) {
    let (src, dst) = (src as *const W, dst as *mut W);
    for w in 0..item_bytes / core::mem::size_of::<W>() {
        *dst.add(w) = *src.add(w);
    }
}

/// Copies item `i` of `items` to slot `slot` of `out` in words of `word` bytes.
#[inline(always)]
unsafe fn copy_item(items: *const u8, out: *mut u8, item_bytes: usize, word: usize, i: usize, slot: u64) {
    let (src, dst) = (items.add(i * item_bytes), out.add(slot as usize * item_bytes));
    match word {
        8 => copy_words::<u64>(src, dst, item_bytes),
        4 => copy_words::<u32>(src, dst, item_bytes),
        2 => copy_words::<u16>(src, dst, item_bytes),
        _ => copy_words::<u8>(src, dst, item_bytes),
    }
}

/// Unordered select of one tile of `ITEMS × blockDim.x` items of `item_bytes` each, kept where
/// `flags[i] != 0`: item `k` of thread `t` is `tile_base + k·blockDim.x + t` (a warp reads 32
/// consecutive flags and items). Slots are reserved as in [`super::select_tile`]; slots at or
/// past `capacity` are counted but not written.
///
/// # Safety
/// `items` holds `n · item_bytes` bytes and `flags` `n`; `out` holds `capacity · item_bytes`;
/// `item_bytes` is not zero; `counter` and `scratch` as for [`super::select_tile`]. Every
/// thread of the block calls this with the same arguments.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_bytes_tile<const ITEMS: usize>(
    reserve: Reserve,
    items: *const u8,
    flags: *const u8,
    n: u64,
    item_bytes: u32,
    out: *mut u8,
    capacity: u64,
    counter: *mut u64,
    scratch: *mut u32,
) {
    let threads = block_dim_x() as usize;
    let tile_base = block_idx_x() as usize * ITEMS * threads;
    let t = thread_idx_x() as usize;
    let n = n as usize;
    let (size, word) = (item_bytes as usize, copy_word_bytes(items, out, item_bytes));
    let kept = |k: usize| {
        let i = tile_base + k * threads + t;
        i < n && *flags.add(i) != 0
    };
    if reserve == Reserve::Lane {
        for k in 0..ITEMS {
            if kept(k) {
                let slot = atomic_add_u64(counter, 1);
                if slot < capacity {
                    copy_item(items, out, size, word, tile_base + k * threads + t, slot);
                }
            }
        }
        return;
    }
    let mut warp_count = 0;
    for k in 0..ITEMS {
        warp_count += popc(ballot(kept(k)));
    }
    let first = warp_first_slot(reserve, scratch, counter, warp_count);
    let (below, room) = (lanemask_lt(), super::room_after(first, capacity));
    let mut run = 0;
    for k in 0..ITEMS {
        let keep = kept(k);
        let mask = ballot(keep);
        let at = run + popc(mask & below);
        if keep && at < room {
            copy_item(items, out, size, word, tile_base + k * threads + t, first + at as u64);
        }
        run += popc(mask);
    }
}

/// Shared `u64`s [`select_bytes_ordered_tile`] needs: the block scan's `u32` scratch, then the
/// tile's first output slot.
pub const BYTES_ORDERED_SCRATCH_U64: usize = BLOCK_SCAN_SCRATCH.div_ceil(2) + 1;

/// Order-preserving select of tile `blockIdx.x` of `ITEMS × blockDim.x` items of `item_bytes`
/// each, kept where `flags[i] != 0`, in a single pass on the same look-back as
/// [`super::select_ordered_tile`]: thread `t` counts its consecutive items `(tile·blockDim.x +
/// t)·ITEMS ..`, a block scan ranks the threads, warp 0 looks back for the count of every earlier
/// tile, and each thread then copies its kept items straight to their slots (from `*start` on),
/// with no staging. The block of the last tile stores `*start` + the kept count in `*counter`.
///
/// # Safety
/// As [`select_bytes_tile`]; `start`, `states` and `forced_fallback` as for
/// [`super::select_ordered_tile`]; the launch has `ceil(n / (ITEMS · blockDim.x))` blocks;
/// `scratch` is [`BYTES_ORDERED_SCRATCH_U64`] shared words.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_bytes_ordered_tile<const ITEMS: usize>(
    items: *const u8,
    flags: *const u8,
    n: u64,
    item_bytes: u32,
    out: *mut u8,
    capacity: u64,
    counter: *mut u64,
    start: *const u64,
    states: TileStates<u64>,
    forced_fallback: bool,
    scratch: *mut u64,
) {
    let tid = thread_idx_x() as usize;
    let threads = block_dim_x() as usize;
    let tile = block_idx_x() as usize;
    let tile_len = ITEMS * threads;
    let n = n as usize;
    let first = tile * tile_len + tid * ITEMS;
    let last = n.min(first + ITEMS).max(first);
    let mut count = 0;
    for i in first..last {
        count += (*flags.add(i) != 0) as u32;
    }
    let (rank, kept) = block_exclusive_sum(scratch as *mut u32, count);
    let first_slot = scratch.add(BLOCK_SCAN_SCRATCH.div_ceil(2));
    if warp_id() == 0 {
        let reduce = |j: usize| count_flags(flags.add(j * tile_len), tile_len);
        // The state is the preparing kernel's (a programmatic dependent launch may start early).
        grid_dependency_wait();
        let earlier = publish_and_look_back(states, tile, kept as u64, forced_fallback, reduce);
        if lane_id() == 0 {
            write_volatile(first_slot, read_volatile(start).wrapping_add(earlier));
        }
    }
    sync_threads();
    let tile_first = read_volatile(first_slot);
    let mut slot = tile_first.wrapping_add(rank as u64);
    let (size, word) = (item_bytes as usize, copy_word_bytes(items, out, item_bytes));
    for i in first..last {
        if *flags.add(i) != 0 {
            if slot < capacity {
                copy_item(items, out, size, word, i, slot);
            }
            slot += 1;
        }
    }
    if tid == 0 && tile == grid_dim_x() as usize - 1 {
        *counter = tile_first.wrapping_add(kept as u64);
    }
}

/// The non-zero flags among `len` at `tile_flags`, counted by the calling warp for the
/// look-back's fallback (cold; the loop is kept from unrolling).
#[inline(always)]
unsafe fn count_flags(tile_flags: *const u8, len: usize) -> u64 {
    let mut count = 0u32;
    let mut i = lane_id() as usize;
    while i < opaque(len) {
        count += (*tile_flags.add(i) != 0) as u32;
        sync_warp();
        i += WARP_SIZE as usize;
    }
    warp_sum(count) as u64
}
