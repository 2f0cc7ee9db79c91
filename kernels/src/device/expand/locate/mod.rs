//! Pass 2: how a destination index finds its `(source, local)` pair, per strategy.
//!
//! Every driver here is **persistent**: it reads the destination count from the device
//! ([`super::dst_count`]) and loops over it with whatever grid it was launched with, so the host
//! can size pass 2 from the occupancy without reading anything back. Lanes take destination
//! items in consecutive **pairs** (`t`, `t + 1` with `t` even), so a materializing pass 2 writes
//! two 8-byte pairs as one 16-byte vector and a warp store is one contiguous 512-byte run.
//!
//! The drivers call `f(t, src, local, valid)` once per lane and step, where `valid` (0, 1 or 2)
//! says how many of items `t`, `t + 1` exist. [`for_each`] wraps them into a per-item callback
//! for users' own pass-2 kernels.

mod maxn;
mod po2;
mod records;
mod search;

pub use maxn::*;
pub use po2::*;
pub use records::*;
pub use search::*;

use super::{dst_count, dst_count_wide, strategy, ExpandView, Offset};
use crate::arch::{global_thread_idx, grid_threads, load_nc_u32, store_v4_u32_streaming, WARP_SIZE};
pub use warpwork_abi::expand::PASS2_STEP;

/// This warp's index and the number of warps in the grid.
#[inline(always)]
pub(super) fn warps() -> (u32, u32) {
    ((global_thread_idx() / WARP_SIZE as u64) as u32, (grid_threads() / WARP_SIZE as u64) as u32)
}

/// Writes a lane's pair of results to `out[t]`, `out[t + 1]`: one 16-byte store when both exist
/// and `t` is even, else 8-byte stores. The 16-byte stores are *streaming* (evict first from
/// L2): an expansion's output is written once and is usually larger than L2, and left at normal
/// priority it pushed out the counts that S2.5f's pass 2 rereads and the next pass 1 reads
/// (S2.5f power-law 2^22: 4.5 µs faster, uniform 8 µs).
///
/// `t` is a `u32` or, past 2^32 destination items, a `u64` index ([`Offset`]).
///
/// # Safety
/// `out[t..t + valid]` is writable.
#[inline(always)]
pub unsafe fn write_pairs<O: Offset>(out: *mut [u32; 2], t: O, src: [u32; 2], local: [u32; 2], valid: u32) {
    if valid == 2 && t.is_even() {
        store_v4_u32_streaming(out.add(t.index()) as *mut [u32; 4], [src[0], local[0], src[1], local[1]]);
    } else {
        for k in 0..valid as usize {
            *out.add(t.index() + k) = [src[k], local[k]];
        }
    }
}

/// Calls `f(src, local)` once for every destination item of a finished pass 1, whatever the
/// strategy in `v` — the body of a user's own pass-2 kernel. Persistent: launch it with any grid
/// (e.g. occupancy-sized); the count is read on the device. Item order is the strategy's.
/// For S0 the grid tests all `p1 · max_n` slots and calls `f` for the kept ones.
///
/// # Safety
/// `v` is the view pass 1 ran with (an earlier launch). Every thread of the grid calls this,
/// with whole warps converged (the drivers use warp shuffles).
#[inline(always)]
pub unsafe fn for_each(v: &ExpandView, mut f: impl FnMut(u32, u32)) {
    let mut each = |src: [u32; 2], local: [u32; 2], valid: u32| {
        for k in 0..valid as usize {
            f(src[k], local[k]);
        }
    };
    match v.strategy {
        strategy::MAX_N => {
            let slots = v.p1 as u64 * v.max_n as u64;
            let mut s = global_thread_idx();
            while s < slots {
                let src = (s / v.max_n as u64) as u32;
                let local = (s % v.max_n as u64) as u32;
                if local < load_nc_u32(v.counts().add(src as usize)) {
                    f(src, local);
                }
                s += grid_threads();
            }
        }
        strategy::APPEND_PER_ITEM => append_driver(v, |_t, s, l, n| each(s, l, n)),
        strategy::LINEAR_SEARCH => linear_driver(v, |_t, s, l, n| each(s, l, n)),
        // Past 2^32 destination items (the host chose 8-byte offsets): the same driver, wide.
        strategy::SCAN_BINARY_SEARCH if v.wide() => {
            search_driver(v.offsets() as *const u64, v.p1, dst_count_wide(v), |_t, s, l, n| each(s, l, n))
        }
        strategy::SCAN_BINARY_SEARCH => search_driver(v.offsets(), v.p1, dst_count(v), |_t, s, l, n| each(s, l, n)),
        strategy::PACKED_ATOMIC_CAS | strategy::PACKED_ATOMIC_ADD => packed_driver(v, |_t, s, l, n| each(s, l, n)),
        strategy::PO2_BUCKETS => po2_driver(v, |_t, s, l, n| each(s, l, n)),
        // SCAN_FUSED's pass 2 needs shared memory for a tile's bounds (see `super::fused`), which
        // this closure-only API cannot give it: users call `for_each_fused` in their own kernel,
        // and the host refuses a user's pass 2 for it.
        _ => {}
    }
}
