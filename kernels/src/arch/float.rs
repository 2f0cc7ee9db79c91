//! Float instructions that rustc's NVPTX backend does not emit for what the kernels need (sm_90
//! builds only: they need sm_80, and the oldest build targets sm_70).

use core::arch::asm;

/// `min.NaN.f32`: the lesser of `a` and `b`, with `-0.0 < +0.0`, and the canonical NaN if either
/// is NaN — IEEE 754-2019 `minimum` but for the NaN's bits — in one instruction.
#[inline(always)]
pub fn min_nan_f32(a: f32, b: f32) -> f32 {
    let d: f32;
    unsafe {
        asm!("min.NaN.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack))
    };
    d
}

/// `max.NaN.f32`: the greater of `a` and `b`, with `+0.0 > -0.0`, and the canonical NaN if
/// either is NaN.
#[inline(always)]
pub fn max_nan_f32(a: f32, b: f32) -> f32 {
    let d: f32;
    unsafe {
        asm!("max.NaN.f32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack))
    };
    d
}
