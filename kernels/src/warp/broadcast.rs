//! Warp broadcast loads (sebbbi's "WaveLane"): iterating a warp-uniform list with one load per
//! 32 items instead of one per item.
//!
//! When every lane of a warp walks the same list (the lights of a lighting tile, the edges of a
//! vertex shared by the warp), the naive loop issues one load per item, every lane asking for the
//! same address. Here each lane loads a different item of a chunk of 32 (one coalesced load), and
//! the loop body gets the items one at a time through `shfl.sync.idx` ([`warp_for_each_broadcast`])
//! or through a warp-private shared-memory slot read at a uniform address
//! ([`warp_for_each_staged`]). Which of the three is fastest depends on the GPU: see
//! `docs/access.md`.

use crate::arch::{lane_id, load_shared, shfl_idx_any, sync_warp, WARP_SIZE};

/// Calls `f(items[i])` for `i` in `0..count`, in order, on every lane of the warp, loading the
/// items 32 at a time (lane `l` loads item `base + l`) and broadcasting each with
/// [`shfl_idx_any`]. A partial last chunk is handled: lanes past the end re-load the chunk's last
/// item (always in bounds), so no lane reads outside `items[..count]`.
///
/// `T` must be a whole number of 32-bit words (checked at compile time by [`shfl_idx_any`]).
/// Each item costs `size_of::<T>() / 4` shuffles; the load is one per 32 items.
///
/// # Safety
/// `items` must hold `count` readable `T`s. `items` and `count` must be the same on every lane
/// (warp-uniform) and every lane of the warp must call this, converged.
#[inline(always)]
pub unsafe fn warp_for_each_broadcast<T: Copy>(items: *const T, count: u32, mut f: impl FnMut(T)) {
    let lane = lane_id();
    let mut base = 0u32;
    while base < count {
        let n = (count - base).min(WARP_SIZE);
        let mine = *items.add((base + lane.min(n - 1)) as usize);
        let mut j = 0;
        while j < n {
            f(shfl_idx_any(mine, j));
            j += 1;
        }
        // `n < 32` only on the last chunk, so this never steps past `count` (no overflow).
        base += n;
    }
}

/// Like [`warp_for_each_broadcast`], but the chunk goes through a warp-private slot of 32 `T`s in
/// shared memory: each lane stores its item, the warp syncs, and every lane reads item `j` at the
/// same shared address with [`load_shared`] (a broadcast read: one shared-memory access per item for the whole warp,
/// `size_of::<T>() / 16` instructions with 16-byte aligned `T`, instead of one shuffle per word).
///
/// # Safety
/// As [`warp_for_each_broadcast`]; also `slot` must point to 32 `T`s of shared memory used by no
/// other warp during the call.
#[inline(always)]
pub unsafe fn warp_for_each_staged<T: Copy>(items: *const T, count: u32, slot: *mut T, mut f: impl FnMut(T)) {
    let lane = lane_id();
    let mut base = 0u32;
    while base < count {
        let n = (count - base).min(WARP_SIZE);
        // The previous chunk's reads must finish before the slot is overwritten. (Loading
        // after this barrier, not before, keeps the item in registers: LLVM spills a value
        // that is live across the barrier's memory clobber to the stack.)
        sync_warp();
        *slot.add(lane as usize) = *items.add((base + lane.min(n - 1)) as usize);
        sync_warp();
        let mut j = 0;
        while j < n {
            f(load_shared(slot.add(j as usize)));
            j += 1;
        }
        base += n;
    }
}
