//! The width of destination indices and prefix offsets: `u32` below 2^32 destination items (the
//! default, and all the 32-bit strategies know), `u64` for S2.5 past it. The drivers that are
//! generic over [`Offset`] compile to one instance per width; the host picks the width from the
//! capacity (`warpwork_abi::expand::ExpandView::offset_bytes`).

use crate::arch::{load_nc_u32, load_nc_u64};
use crate::block::{ScanElement, ScanOp, ScanValue, Sum};
use core::ops::{Add, Div, Mul, Sub};

/// A destination index / prefix offset: `u32` or `u64` (arithmetic as the primitive's; the
/// widening and the shuffle are [`ScanValue`]'s).
pub trait Offset:
    ScanElement
    + ScanValue
    + Ord
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + 'static
{
    /// The wrapping sum over this width (a scan's operator).
    type Sum: ScanOp<T = Self>;
    /// Zero.
    const ZERO: Self;
    /// The largest value.
    const MAX: Self;
    /// A count, widened.
    fn from_u32(x: u32) -> Self;
    /// `x`, truncated to this width.
    fn from_u64(x: u64) -> Self;
    /// As an index into memory.
    fn index(self) -> usize;
    /// A multiple of 2 (tested in the value's own width).
    fn is_even(self) -> bool;
    /// `self + x`, wrapping.
    fn add_u32(self, x: u32) -> Self;
    /// `self - earlier`, truncated to 32 bits (a local index inside one source's range).
    fn local_from(self, earlier: Self) -> u32;
    /// `min(self - earlier, cap)` (`earlier <= self`), exact whatever the width.
    fn distance_capped(self, earlier: Self, cap: u32) -> u32;
    /// `self - earlier` if positive, else 0, truncated to 32 bits.
    fn saturating_local_from(self, earlier: Self) -> u32;
    /// `ceil(self / d)`.
    fn div_ceil_u32(self, d: u32) -> Self;
    /// A load through the read-only data path.
    ///
    /// # Safety
    /// `p` is readable global memory, aligned, not written during the launch.
    unsafe fn load_nc(p: *const Self) -> Self;
}

impl Offset for u32 {
    type Sum = Sum<u32>;
    const ZERO: u32 = 0;
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn from_u32(x: u32) -> u32 {
        x
    }
    #[inline(always)]
    fn from_u64(x: u64) -> u32 {
        x as u32
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn is_even(self) -> bool {
        self.is_multiple_of(2)
    }
    #[inline(always)]
    fn add_u32(self, x: u32) -> u32 {
        self.wrapping_add(x)
    }
    #[inline(always)]
    fn local_from(self, earlier: u32) -> u32 {
        self.wrapping_sub(earlier)
    }
    #[inline(always)]
    fn distance_capped(self, earlier: u32, cap: u32) -> u32 {
        (self - earlier).min(cap)
    }
    #[inline(always)]
    fn saturating_local_from(self, earlier: u32) -> u32 {
        self.saturating_sub(earlier)
    }
    #[inline(always)]
    fn div_ceil_u32(self, d: u32) -> u32 {
        self.div_ceil(d)
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const u32) -> u32 {
        load_nc_u32(p)
    }
}

impl Offset for u64 {
    type Sum = Sum<u64>;
    const ZERO: u64 = 0;
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn from_u32(x: u32) -> u64 {
        x as u64
    }
    #[inline(always)]
    fn from_u64(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn is_even(self) -> bool {
        self.is_multiple_of(2)
    }
    #[inline(always)]
    fn add_u32(self, x: u32) -> u64 {
        self.wrapping_add(x as u64)
    }
    #[inline(always)]
    fn local_from(self, earlier: u64) -> u32 {
        self.wrapping_sub(earlier) as u32
    }
    #[inline(always)]
    fn distance_capped(self, earlier: u64, cap: u32) -> u32 {
        (self - earlier).min(cap as u64) as u32
    }
    #[inline(always)]
    fn saturating_local_from(self, earlier: u64) -> u32 {
        self.saturating_sub(earlier) as u32
    }
    #[inline(always)]
    fn div_ceil_u32(self, d: u32) -> u64 {
        self.div_ceil(d as u64)
    }
    #[inline(always)]
    unsafe fn load_nc(p: *const u64) -> u64 {
        load_nc_u64(p)
    }
}
