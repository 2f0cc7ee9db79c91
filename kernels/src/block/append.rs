//! Block-aggregated append: one shared-memory atomic per warp, one global atomic per block.

use crate::arch::{atomic_add_u32, lane_id, shared_atomic_add_u32, shfl_idx, sync_threads, thread_idx_x};
use core::ptr::{read_volatile, write_volatile};

/// Shared scratch words [`block_append`] needs.
pub const BLOCK_APPEND_SCRATCH_WORDS: usize = 2;

/// Reserves `warp_count` consecutive global slots for each warp (the value must be the same on
/// every lane of a warp), with one shared atomic per warp and one global atomic on `counter` per
/// block. Returns the warp's first slot on every lane. Warps' runs are in no fixed order.
///
/// This is the seed's third pattern: global atomics between blocks, shared atomics between the
/// warps of a block, ballot + popc within a warp.
///
/// # Safety
/// `scratch` must point to [`BLOCK_APPEND_SCRATCH_WORDS`] words of shared memory used by nothing
/// else during the call; `counter` to a global `u32`. Every thread of the block must call this; a
/// later call may reuse the same scratch.
#[inline(always)]
pub unsafe fn block_append(scratch: *mut u32, counter: *mut u32, warp_count: u32) -> u32 {
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
        let base = if total != 0 { atomic_add_u32(counter, total) } else { 0 };
        write_volatile(scratch.add(1), base);
    }
    sync_threads();
    read_volatile(scratch.add(1)) + shfl_idx(warp_offset, 0)
}
