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

use super::ordered::OrderedSlots;
use super::{warp_first_slot, Reserve};
use crate::arch::{atomic_add_u64, ballot, block_dim_x, block_idx_x, lanemask_lt, popc, sync_threads, thread_idx_x};
use crate::device::scan::LookbackState;

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

/// Order-preserving select of one tile of `ITEMS × blockDim.x` items of `item_bytes` each, kept
/// where `flags[i] != 0`, in a single pass as [`super::select_ordered_tile`] (tile claimed from
/// the counter, block scan, 64-bit decoupled look-back); each thread then copies its own kept
/// items (consecutive items `(tile·blockDim.x + t)·ITEMS ..`) straight to their slots, with no
/// staging. The block of the last tile stores the new count.
///
/// # Safety
/// As [`select_bytes_tile`] and, for `state` and `scratch`, [`super::select_ordered_tile`]
/// (no staging buffer).
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
    state: LookbackState<u64>,
    scratch: *mut u64,
) {
    let tid = thread_idx_x() as usize;
    let threads = block_dim_x() as usize;
    let slots = OrderedSlots::new(scratch);
    let tile = slots.claim(counter, state);
    let n = n as usize;
    let first = (tile * threads + tid) * ITEMS;
    let last = n.min(first + ITEMS).max(first);
    let mut count = 0;
    for i in first..last {
        count += (*flags.add(i) != 0) as u32;
    }
    let (rank, kept) = slots.scan(count);
    slots.look_back(state, tile, kept);
    sync_threads();
    let base = slots.base();
    let mut slot = base.wrapping_add(rank as u64);
    let (size, word) = (item_bytes as usize, copy_word_bytes(items, out, item_bytes));
    for i in first..last {
        if *flags.add(i) != 0 {
            if slot < capacity {
                copy_item(items, out, size, word, i, slot);
            }
            slot += 1;
        }
    }
    slots.finish(counter, (tile + 1) * threads * ITEMS, n, base, kept);
}
