//! Work expansion: source item `i` of pass 1 spawns `counts[i]` destination items; pass 2 runs
//! one thread (or lane-item) per destination item and needs its `(source, local)` index.
//!
//! Every strategy (S0 … S3, defined below) is here as a pass-1 **push** (what a source writes, in
//! [`push`]) and a pass-2 **locate** (how a destination index finds its source, in [`locate`]):
//!
//! | strategy | pass 1 writes | pass 2 finds `(src, local)` by |
//! |---|---|---|
//! | S0 `MaxN` | nothing | `t / MAX_N`, `t % MAX_N` over `P1·MAX_N` slots, early out |
//! | S1 `AppendPerItem` | one `(src, local)` per destination item | indexing |
//! | S2 `LinearSearch` | one `(src, count)` per non-empty source | warp-wide linear scan |
//! | S2.5 `ScanBinarySearch` | exclusive prefix of the counts (look-back scan, [`push_scan`]) | binary search |
//! | S2.5+ `PackedAtomic` | `(prefix, src)` per non-empty source via one packed 64-bit atomic | binary search |
//! | S3 `Po2Buckets` | one `(src, offset)` per set bit of N, in bucket `b` | shifts |
//! | S2.5f `ScanFused` | one sum per tile of counts, then a plan of output units | a per-unit tile scan in shared memory and marks ([`fused`]) |
//!
//! The state shared by the passes is an [`ExpandView`] (device addresses, sizes) and a
//! [`Control`] block (counters and the overflow flags) in device memory, both defined in
//! `warpwork-abi` with the strategy codes and flags. The host (`warpwork::expand`) builds both;
//! users' own kernels receive a `*const ExpandView` and call [`locate::for_each`].
//!
//! Destination indices and S2.5's prefixes are 32-bit ([`Offset`] `u32`) unless the view says
//! otherwise ([`ExpandView::wide`]): S2.5 with a capacity of 2^32 or more runs the `u64`
//! instances of its pass 1 and pass 2 (and [`locate::for_each`] follows the view).
//!
//! Pass 2 is always a **persistent** loop: the grid can be sized once from the occupancy and
//! every block reads the destination count from the device ([`dst_count`]) — the
//! dispatch-indirect that CUDA lacks.

pub mod fused;
pub mod locate;
mod offset;
pub mod push;
pub mod push_scan;

pub use offset::Offset;

pub use warpwork_abi::expand::{strategy, Control, ExpandView, BUCKETS, FLAG_CAPACITY, FLAG_MAX_N};

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

/// [`dst_count`] in 64 bits, for a view with 8-byte offsets ([`ExpandView::wide`]: S2.5 with a
/// capacity of 2^32 or more); equal to [`dst_count`] for the others
/// ([`warpwork_abi::expand::dst_count_wide`]).
///
/// # Safety
/// As [`dst_count`].
#[inline(always)]
pub unsafe fn dst_count_wide(v: &ExpandView) -> u64 {
    warpwork_abi::expand::dst_count_wide(&*v.ctrl(), v)
}
