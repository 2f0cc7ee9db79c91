//! Work expansion: source item `i` of pass 1 spawns `counts[i]` destination items; pass 2 runs
//! one thread (or lane-item) per destination item and needs its `(source, local)` index.
//!
//! Every strategy of the seed article is here as a pass-1 **push** (what a source writes, in
//! [`push`]) and a pass-2 **locate** (how a destination index finds its source, in [`locate`]):
//!
//! | strategy | pass 1 writes | pass 2 finds `(src, local)` by |
//! |---|---|---|
//! | S0 `MaxN` | nothing | `t / MAX_N`, `t % MAX_N` over `P1·MAX_N` slots, early out |
//! | S1 `AppendPerItem` | one `(src, local)` per destination item | indexing |
//! | S2 `LinearSearch` | one `(src, count)` per non-empty source | warp-wide linear scan |
//! | S2.5 `ScanBinarySearch` | exclusive prefix of the counts (look-back scan) | binary search |
//! | S2.5+ `PackedAtomic` | `(prefix, src)` per non-empty source via one packed 64-bit atomic | binary search |
//! | S3 `Po2Buckets` | one `(src, offset)` per set bit of N, in bucket `b` | shifts |
//! | S2.5f `ScanFused` | one sum per tile of counts, then a plan of output units | a per-unit tile scan in shared memory and marks ([`fused`]) |
//!
//! The state shared by the passes is an [`ExpandView`] (device addresses, sizes) and a
//! [`Control`] block (counters and the overflow flags) in device memory, both defined in
//! `warpwork-abi` with the strategy codes and flags. The host (`warpwork::expand`) builds both;
//! users' own kernels receive a `*const ExpandView` and call [`locate::for_each`].
//!
//! Pass 2 is always a **persistent** loop: the grid can be sized once from the occupancy and
//! every block reads the destination count from the device ([`dst_count`]) — the
//! dispatch-indirect that CUDA lacks.

pub mod fused;
pub mod locate;
pub mod push;

pub use warpwork_abi::expand::{strategy, Control, ExpandView, BUCKETS, FLAG_CAPACITY, FLAG_MAX_N};

/// The look-back state of the S2.5 scans (`scan_*` arrays and the control block's tile
/// counter), as [`crate::device::scan::scan_tile`] takes it.
///
/// # Safety
/// `v.ctrl` points to the view's control block.
#[inline(always)]
pub unsafe fn lookback_state(v: &ExpandView) -> crate::device::scan::LookbackState<u32> {
    crate::device::scan::LookbackState {
        status: v.scan_status(),
        aggregate: v.scan_aggregate(),
        inclusive: v.scan_inclusive(),
        tile_counter: core::ptr::addr_of_mut!((*v.ctrl()).tiles),
    }
}

/// Destination items of a finished pass 1 ([`warpwork_abi::expand::dst_count`], reading the
/// control block): 0 when a flag is set (so that a pass 2 after an overflow does nothing, and
/// reads nothing out of bounds). For S0 it is the slot count `p1·max_n`; for S3 the sum of the
/// buckets.
///
/// # Safety
/// `v` is a valid view whose pass 1 has finished (an earlier launch).
#[inline(always)]
pub unsafe fn dst_count(v: &ExpandView) -> u32 {
    warpwork_abi::expand::dst_count(&*v.ctrl(), v)
}

/// The checks a scan-based pass 1 makes on one thread's run of counts (`emit` of
/// [`crate::device::scan::scan_tile`]): raises [`FLAG_CAPACITY`] where the 32-bit running sum
/// wraps inside the run, and the thread holding the last count stores the exact total in
/// `ctrl.total` (raising the flag if it exceeds the capacity).
///
/// # Safety
/// `v` is the view of the running pass 1; `first`, `excl`, `values` and `valid` are as `emit`
/// receives them.
#[inline(always)]
pub unsafe fn check_scanned_run<const ITEMS: usize>(
    v: &ExpandView,
    first: usize,
    excl: &[u32; ITEMS],
    values: &[u32; ITEMS],
    valid: usize,
) {
    // Constant indices only (a fixed, unrolled trip count): the arrays stay in registers.
    let (mut wrapped, mut last) = (false, 0u64);
    for j in 0..ITEMS {
        if j < valid {
            wrapped |= excl[j].checked_add(values[j]).is_none();
            last = excl[j] as u64 + values[j] as u64;
        }
    }
    if valid > 0 && first + valid == v.p1 as usize {
        crate::arch::store_relaxed_u64(core::ptr::addr_of_mut!((*v.ctrl()).total), last);
        wrapped |= last > v.capacity as u64;
    }
    if wrapped {
        crate::arch::atomic_or_u32(core::ptr::addr_of_mut!((*v.ctrl()).flags), FLAG_CAPACITY);
    }
}
