//! Warp-cooperative searches: over a sorted sequence in memory (32 probes per round instead of
//! one), and over values held one per lane (five shuffles).

use crate::arch::{ballot, lane_id, popc, shfl_idx, WARP_SIZE};

/// The last `k` in `0..n` for which `holds(k)`, where `holds` is true on a prefix of `0..n`
/// that contains 0 (so the answer exists; `n = 0` gives 0 without a probe). Each round probes 32
/// evenly spaced positions, one per lane, and narrows to the gap after the last that holds:
/// `ceil(log32(n))` rounds, e.g. three for 2048 positions, where a binary search takes eleven
/// dependent steps.
///
/// # Safety
/// `holds(k)` may be called for any `k` in `0..n` (it typically loads element `k`). `n` must be
/// the same on every lane and every lane of the warp must call this, converged.
#[inline(always)]
pub unsafe fn warp_last_holding(n: u32, holds: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (0u32, n);
    while hi - lo > 1 {
        let stride = (hi - lo).div_ceil(WARP_SIZE);
        let k = lo + lane_id() * stride;
        // `holds(lo)`, so lane 0's probe holds and `count >= 1`.
        let count = popc(ballot(k < hi && holds(k)));
        lo += (count - 1) * stride;
        hi = hi.min(lo + stride);
    }
    lo
}

/// Index of the lane whose inclusive sum `incl` (non-decreasing over lanes) first exceeds `i`:
/// a binary search over the lanes' values with five shuffles. `i` must be below lane 31's value;
/// every lane of the warp must call this, converged.
#[inline(always)]
pub fn warp_owner(incl: u32, i: u32) -> u32 {
    let mut c = 0;
    let mut s = 16;
    while s > 0 {
        if shfl_idx(incl, c + s - 1) <= i {
            c += s;
        }
        s >>= 1;
    }
    c
}
