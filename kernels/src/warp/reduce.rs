//! Warp-wide reductions: every lane gets the result over the 32 lanes of the warp — under any
//! [`ReduceOp`] ([`warp_reduce`]), or the sums and the or below.

use crate::arch::{shfl_down_any, shfl_idx_any, shfl_xor, WARP_SIZE};
use crate::warp::ReduceOp;

/// `v₀ ⊕ v₁ ⊕ … ⊕ v₃₁` over the lanes of the warp under `O`, to every lane: a tree of five
/// shuffle rounds (lane `l` combines lanes `l … l + 2d − 1` in round `d`, in lane order), then
/// a broadcast. The tree's shape is fixed, so a float sum gives the same bits every time. Every
/// lane of the warp calls this.
#[inline(always)]
pub fn warp_reduce<O: ReduceOp>(v: O::T) -> O::T {
    let mut s = v;
    let mut d = 1;
    while d < WARP_SIZE {
        // Only lane 0's result is used, and every lane it reads holds a complete range.
        s = O::combine(s, shfl_down_any(s, d));
        d <<= 1;
    }
    shfl_idx_any(s, 0)
}

/// Sum of `v` over the warp, returned to every lane.
///
/// With the `sm90` feature this is one `redux.sync.add.u32` (sm_80+); otherwise five butterfly
/// shuffles.
#[inline(always)]
pub fn warp_sum(v: u32) -> u32 {
    #[cfg(feature = "sm90")]
    {
        let r: u32;
        unsafe {
            core::arch::asm!("redux.sync.add.u32 {r}, {v}, 0xffffffff;", r = out(reg32) r, v = in(reg32) v,
                 options(nomem, nostack))
        };
        r
    }
    #[cfg(not(feature = "sm90"))]
    {
        let mut s = v;
        let mut m = 16;
        while m > 0 {
            s = s.wrapping_add(shfl_xor(s, m));
            m >>= 1;
        }
        s
    }
}

/// The sum of `x` over the warp, to every lane, saturated at `max` (each `x` at most `max`, and
/// `2·max` must fit in `u64`): a butterfly of 64-bit shuffles. For sums that must not wrap but
/// may exceed what the caller can represent, such as a look-back's running total.
#[inline(always)]
pub fn warp_sum_saturated(x: u64, max: u64) -> u64 {
    let mut sum = x;
    let mut m = WARP_SIZE / 2;
    while m > 0 {
        let other = (shfl_xor((sum >> 32) as u32, m) as u64) << 32 | shfl_xor(sum as u32, m) as u64;
        sum = (sum + other).min(max);
        m /= 2;
    }
    sum
}

/// Bitwise or of `v` over the warp, returned to every lane: five butterfly shuffles.
#[inline(always)]
pub fn warp_or(v: u32) -> u32 {
    let mut r = v;
    let mut m = WARP_SIZE / 2;
    while m > 0 {
        r |= shfl_xor(r, m);
        m >>= 1;
    }
    r
}
