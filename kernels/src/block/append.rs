//! Block-aggregated append: one shared-memory atomic per warp, one global atomic per block.

use crate::arch::{
    atomic_add_u32, atomic_add_u64, lane_id, shared_atomic_add_u32, shfl_idx, sync_threads, thread_idx_x,
};
use core::ptr::{read_volatile, write_volatile};

/// Shared scratch words [`block_append`] needs with a `u32` counter.
pub const BLOCK_APPEND_SCRATCH_WORDS: usize = 2;
/// Shared scratch words [`block_append`] needs with a `u64` counter (the base is stored 8-byte
/// aligned, after the block's total).
pub const BLOCK_APPEND_SCRATCH_WORDS_U64: usize = 4;

/// A global output counter the append helpers reserve slots on: `u32`, or `u64` for outputs
/// that may hold 2^32 items or more.
pub trait AppendCounter: Copy + Default {
    /// `atomicAdd(p, n)` at device scope; returns the old value.
    ///
    /// # Safety
    /// `p` points to a counter in global memory.
    unsafe fn fetch_add(p: *mut Self, n: u32) -> Self;
    /// `self + n`, wrapping at the counter's width.
    fn plus(self, n: u32) -> Self;
}

impl AppendCounter for u32 {
    #[inline(always)]
    unsafe fn fetch_add(p: *mut Self, n: u32) -> Self {
        atomic_add_u32(p, n)
    }
    #[inline(always)]
    fn plus(self, n: u32) -> Self {
        self.wrapping_add(n)
    }
}

impl AppendCounter for u64 {
    #[inline(always)]
    unsafe fn fetch_add(p: *mut Self, n: u32) -> Self {
        atomic_add_u64(p, n as u64)
    }
    #[inline(always)]
    fn plus(self, n: u32) -> Self {
        self.wrapping_add(n as u64)
    }
}

/// Reserves `warp_count` consecutive global slots for each warp (the value must be the same on
/// every lane of a warp), with one shared atomic per warp and one global atomic on `counter` per
/// block. Returns the warp's first slot on every lane. Warps' runs are in no fixed order.
///
/// Three levels of reservation: global atomics between blocks, shared atomics between the
/// warps of a block, ballot + popc within a warp. A block's total must fit in `u32`.
///
/// # Safety
/// `scratch` must point to [`BLOCK_APPEND_SCRATCH_WORDS`] (`u32` counter) or
/// [`BLOCK_APPEND_SCRATCH_WORDS_U64`] (`u64` counter) words of 8-byte aligned shared memory used
/// by nothing else during the call; `counter` to a global counter. Every thread of the block must
/// call this; a later call may reuse the same scratch.
#[inline(always)]
pub unsafe fn block_append<C: AppendCounter>(scratch: *mut u32, counter: *mut C, warp_count: u32) -> C {
    // The block's base after the total: word 1 for a u32 counter, words 2..4 for a u64 one.
    let base_slot = scratch.add(core::mem::size_of::<C>() / 4) as *mut C;
    if thread_idx_x() == 0 {
        write_volatile(scratch, 0);
    }
    sync_threads();
    let mut warp_offset = 0;
    if lane_id() == 0 && warp_count != 0 {
        warp_offset = shared_atomic_add_u32(scratch, warp_count);
    }
    sync_threads();
    if thread_idx_x() == 0 {
        let total = read_volatile(scratch);
        let base = if total != 0 { C::fetch_add(counter, total) } else { C::default() };
        write_volatile(base_slot, base);
    }
    sync_threads();
    read_volatile(base_slot).plus(shfl_idx(warp_offset, 0))
}
