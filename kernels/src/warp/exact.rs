//! Exact `f32` sums across a warp: lane `i` keeps digit `i` of `warpwork_abi::exact`'s
//! fixed-point accumulator, so a value the whole warp holds is added exactly with a few integer
//! operations per lane and no shuffle.

use crate::arch::{lane_id, shfl_idx, shfl_up};
use warpwork_abi::exact::{f32_digit, f32_flags, f32_round, F32_DIGITS};

/// One lane's part of an exact `f32` sum: digit [`lane_id`] (lanes from
/// `warpwork_abi::exact::F32_DIGITS` on keep zero) and the flags (the same in every lane).
#[derive(Clone, Copy)]
pub struct WarpExactF32 {
    /// Digit `lane_id()` of the accumulator (weight 2^(32·lane − 149)).
    pub digit: i64,
    /// `warpwork_abi::exact::flags`.
    pub flags: u32,
}

impl WarpExactF32 {
    /// The sum of no values (−0.0).
    pub const EMPTY: WarpExactF32 = WarpExactF32 { digit: 0, flags: 0 };

    /// Adds `x`, which every lane passes the same.
    #[inline(always)]
    pub fn add(&mut self, x: f32) {
        let bits = x.to_bits();
        self.digit += f32_digit(bits, lane_id());
        self.flags |= f32_flags(bits);
    }

    /// Moves each digit's carry into the next lane's (one round): afterwards each digit below
    /// the last is within 2^32 plus the carry it received, which bounds what sums of many
    /// warps' digits reach. The value is unchanged. Every lane calls this.
    #[inline(always)]
    pub fn carry(&mut self) {
        let c = if lane_id() + 1 < F32_DIGITS as u32 { self.digit >> 32 } else { 0 };
        self.digit -= c << 32;
        let lo = shfl_up(c as u32, 1);
        let hi = shfl_up((c >> 32) as u32, 1);
        if lane_id() > 0 {
            self.digit += ((hi as u64) << 32 | lo as u64) as i64;
        }
    }

    /// The sum rounded to `f32` (`warpwork_abi::exact::f32_round`), to every lane. Every lane
    /// calls this.
    #[inline(always)]
    pub fn round(&self) -> f32 {
        let mut d = [0i64; F32_DIGITS];
        for (i, d) in d.iter_mut().enumerate() {
            let lo = shfl_idx(self.digit as u32, i as u32);
            let hi = shfl_idx((self.digit >> 32) as u32, i as u32);
            *d = ((hi as u64) << 32 | lo as u64) as i64;
        }
        f32_round(d, self.flags)
    }
}
