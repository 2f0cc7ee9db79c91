//! Warp-wide inclusive prefix sums (Kogge-Stone over `shfl.up`).

use crate::arch::{lane_id, shfl_up, WARP_SIZE};

/// Inclusive prefix sum of `v` over the lanes of the warp (Kogge-Stone, five `shfl.up`).
#[inline(always)]
pub fn warp_inclusive_sum(v: u32) -> u32 {
    let lane = lane_id();
    let mut s = v;
    let mut d = 1;
    while d < WARP_SIZE {
        let t = shfl_up(s, d);
        if lane >= d {
            s = s.wrapping_add(t);
        }
        d <<= 1;
    }
    s
}

/// Inclusive prefix sum of 64-bit `v` over the warp.
#[inline(always)]
pub fn warp_inclusive_sum_u64(v: u64) -> u64 {
    let lane = lane_id();
    let mut s = v;
    let mut d = 1;
    while d < WARP_SIZE {
        let lo = shfl_up(s as u32, d);
        let hi = shfl_up((s >> 32) as u32, d);
        if lane >= d {
            s = s.wrapping_add(((hi as u64) << 32) | lo as u64);
        }
        d <<= 1;
    }
    s
}
