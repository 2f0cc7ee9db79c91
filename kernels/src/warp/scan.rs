//! Warp-wide inclusive prefix sums (Kogge-Stone over `shfl.up`): the `u32` one is the `Sum<u32>`
//! instance of [`warp_inclusive_scan`], under the name the warp and expansion code calls it by.

use super::scan_op::{warp_inclusive_scan, Sum};
use crate::arch::{lane_id, shfl_up, WARP_SIZE};

/// Inclusive prefix sum of `v` over the lanes of the warp (Kogge-Stone, five `shfl.up`;
/// wrapping).
#[inline(always)]
pub fn warp_inclusive_sum(v: u32) -> u32 {
    warp_inclusive_scan::<Sum<u32>>(v)
}

/// Inclusive prefix sum of 64-bit `v` over the warp (wrapping; two 32-bit shuffles a round).
/// Written out rather than as `warp_inclusive_scan::<Sum<u64>>`: that instance orders the
/// halves' moves differently, and moved the expansion kernels' register counts by ±2.
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
