//! Block-wide exclusive scans of one value per thread (warp scans + one shared array of warp
//! totals): [`block_exclusive_scan`] under any [`ScanOp`], and the older
//! [`block_exclusive_sum`] for `u32` and `u64` through [`ScanValue`] (the expansion's pushes,
//! S2.5f's walk and the ordered select's generic path use it).

use crate::arch::load_shared;
use crate::arch::{lane_id, shfl_idx, sync_threads, warp_id, WARP_SIZE};
use crate::warp::{shfl_up_element, warp_inclusive_scan, warp_inclusive_sum, warp_inclusive_sum_u64, ScanOp};
use core::ptr::{read_volatile, write_volatile};

/// The sums warpwork's scans are built for: `u32` and `u64` (wrapping addition).
pub trait ScanValue: Copy + Default + PartialOrd {
    /// Wrapping sum.
    fn add(self, o: Self) -> Self;
    /// Wrapping difference.
    fn sub(self, o: Self) -> Self;
    /// Inclusive sum over the lanes of the warp.
    fn warp_inclusive(self) -> Self;
    /// The value of lane `lane`.
    fn shfl(self, lane: u32) -> Self;
    /// Widens to `u64`.
    fn to_u64(self) -> u64;
}

impl ScanValue for u32 {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn warp_inclusive(self) -> Self {
        warp_inclusive_sum(self)
    }
    #[inline(always)]
    fn shfl(self, lane: u32) -> Self {
        shfl_idx(self, lane)
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
}

impl ScanValue for u64 {
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn warp_inclusive(self) -> Self {
        warp_inclusive_sum_u64(self)
    }
    #[inline(always)]
    fn shfl(self, lane: u32) -> Self {
        ((shfl_idx((self >> 32) as u32, lane) as u64) << 32) | shfl_idx(self as u32, lane) as u64
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
}

/// Shared elements [`block_exclusive_sum`] needs: one per warp plus one for the total.
pub const BLOCK_SCAN_SCRATCH: usize = 33;

/// Exclusive prefix sum of `v` over the threads of the block in thread order. Returns
/// `(exclusive, block total)` on every thread.
///
/// # Safety
/// `scratch` points to [`BLOCK_SCAN_SCRATCH`] elements of shared memory used by nothing else
/// during the call. `blockDim.x` is a multiple of 32 (at most 1024) and every thread calls this.
#[inline(always)]
pub unsafe fn block_exclusive_sum<T: ScanValue>(scratch: *mut T, v: T) -> (T, T) {
    let inclusive = v.warp_inclusive();
    let warps = crate::arch::block_dim_x() / WARP_SIZE;
    if lane_id() == WARP_SIZE - 1 {
        write_volatile(scratch.add(warp_id() as usize), inclusive);
    }
    sync_threads();
    if warp_id() == 0 {
        let lane = lane_id();
        let w = if lane < warps { read_volatile(scratch.add(lane as usize)) } else { T::default() };
        let wi = w.warp_inclusive();
        if lane < warps {
            // Exclusive prefix of the warp totals, and the block total after them.
            write_volatile(scratch.add(lane as usize), wi.sub(w));
        }
        if lane == WARP_SIZE - 1 {
            write_volatile(scratch.add(32), wi);
        }
    }
    sync_threads();
    let warp_prefix = read_volatile(scratch.add(warp_id() as usize));
    let total = read_volatile(scratch.add(32));
    // Everyone has read the scratch before anyone may reuse it.
    sync_threads();
    (warp_prefix.add(inclusive).sub(v), total)
}

/// Exclusive scan of `v` under `O` over the threads of a block of `WARPS` warps, in thread
/// order. Returns `(exclusive, block aggregate)` on every thread (thread 0's exclusive value is
/// `O::IDENTITY`).
///
/// One barrier: each warp scans its lanes, publishes its total, and every thread then combines
/// the totals of the warps before its own, in warp order (so within a block a float sum is
/// evaluated in one fixed order: see `docs/scan.md`).
///
/// # Safety
/// `totals` points to `WARPS` elements of shared memory used by nothing else until the caller's
/// next barrier; the block has `WARPS · 32` threads (`WARPS ≤ 32`), and every thread calls this.
#[inline(always)]
pub unsafe fn block_exclusive_scan<O: ScanOp, const WARPS: usize>(totals: *mut O::T, v: O::T) -> (O::T, O::T) {
    let inclusive = warp_inclusive_scan::<O>(v);
    let (lane, warp) = (lane_id(), warp_id() as usize);
    if lane == WARP_SIZE - 1 {
        write_volatile(totals.add(warp), inclusive);
    }
    sync_threads();
    let (mut before, mut total) = (O::IDENTITY, O::IDENTITY);
    for w in 0..WARPS {
        let t = load_shared(totals.add(w));
        if w < warp {
            before = O::combine(before, t);
        }
        total = O::combine(total, t);
    }
    let earlier = shfl_up_element(inclusive, 1);
    let in_warp = if lane == 0 { O::IDENTITY } else { earlier };
    (O::combine(before, in_warp), total)
}
