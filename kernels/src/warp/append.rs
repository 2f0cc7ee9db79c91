//! Warp-aggregated append: reserving output slots with one global atomic per warp.
//!
//! AMD's `mbcnt(ballot(keep))` compaction trick: the warp votes, each keeping lane's slot inside
//! the warp's run is the number of keeping lanes below it, and one lane reserves the whole run.

use super::warp_inclusive_sum;
use crate::arch::{atomic_add_u32, ballot, lanemask_lt, popc, shfl_idx};

/// Where a lane's kept item goes inside its warp's run: `rank` among the keeping lanes and the
/// warp's total `count`. Computed from one ballot; every lane must call it.
#[derive(Clone, Copy)]
pub struct WarpRank {
    /// Keeping lanes below this one.
    pub rank: u32,
    /// Keeping lanes in the warp.
    pub count: u32,
    /// The ballot: bit `i` set when lane `i` keeps.
    pub mask: u32,
}

/// Ranks this lane's `keep` among the warp's keeping lanes (ballot + popc).
#[inline(always)]
pub fn warp_rank(keep: bool) -> WarpRank {
    let mask = ballot(keep);
    WarpRank { rank: popc(mask & lanemask_lt()), count: popc(mask), mask }
}

/// Appends one item per keeping lane to a global array whose length is `*counter`, with one
/// atomic for the warp. Returns this lane's slot (meaningful only where `keep`).
///
/// # Safety
/// `counter` must point to a `u32` in global memory. Every lane of the warp must call this.
#[inline(always)]
pub unsafe fn warp_append_one(counter: *mut u32, keep: bool) -> u32 {
    let r = warp_rank(keep);
    // The leader is the lowest keeping lane; when no lane keeps, nobody uses the result.
    let leader = r.mask.trailing_zeros() & 31;
    let mut base = 0;
    if keep && r.rank == 0 {
        base = atomic_add_u32(counter, r.count);
    }
    shfl_idx(base, leader) + r.rank
}

/// Appends `count` items per lane (any number, 0 included) with one atomic for the warp.
/// Returns this lane's first slot; its items occupy `slot .. slot + count`.
///
/// The warp's total must fit in `u32`; the counter wraps otherwise (callers that need overflow
/// detection compare the returned slot against their capacity).
///
/// # Safety
/// `counter` must point to a `u32` in global memory. Every lane of the warp must call this.
#[inline(always)]
pub unsafe fn warp_append(counter: *mut u32, count: u32) -> u32 {
    let inclusive = warp_inclusive_sum(count);
    let total = shfl_idx(inclusive, 31);
    let mut base = 0;
    if crate::arch::lane_id() == 31 && total != 0 {
        base = atomic_add_u32(counter, total);
    }
    shfl_idx(base, 31) + inclusive - count
}
