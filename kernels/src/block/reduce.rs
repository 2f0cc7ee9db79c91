//! Block-wide reduction of one value per thread under any [`ReduceOp`]: warp reductions, then
//! the warp totals through shared memory.

use crate::arch::{lane_id, load_shared, sync_threads, warp_id};
use crate::warp::{warp_reduce, ReduceOp};
use core::ptr::write_volatile;

/// `v` reduced under `O` over the threads of a block of `WARPS` warps, to every thread.
///
/// One barrier: each warp reduces its lanes ([`warp_reduce`]) and publishes its total; every
/// thread then combines the `WARPS` totals in warp order. The shape of the combination is fixed,
/// so a float sum gives the same bits every time.
///
/// # Safety
/// `totals` points to `WARPS` elements of shared memory used by nothing else until the caller's
/// next barrier (call `sync_threads` before reusing them); the block has `WARPS · 32` threads
/// (`WARPS ≤ 32`), and every thread calls this.
#[inline(always)]
pub unsafe fn block_reduce<O: ReduceOp, const WARPS: usize>(totals: *mut O::T, v: O::T) -> O::T {
    let warp_total = warp_reduce::<O>(v);
    if lane_id() == 0 {
        write_volatile(totals.add(warp_id() as usize), warp_total);
    }
    sync_threads();
    let mut total = load_shared(totals);
    for w in 1..WARPS {
        total = O::combine(total, load_shared(totals.add(w)));
    }
    total
}
