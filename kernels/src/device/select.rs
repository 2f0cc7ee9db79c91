//! Unordered stream compaction (select) over one tile of `ITEMS × blockDim.x` items.
//!
//! Items are read group-wise: item `k` of thread `t` is `tile_base + k·blockDim.x + t`, so each
//! warp load is one coalesced 128-byte line. The kept items are written through one of three
//! ways of reserving output slots, which is all that differs between the variants:
//!
//! * [`Reserve::Lane`]: one global atomic per kept item (the naive baseline);
//! * [`Reserve::Warp`]: ballot + popc, one global atomic per warp per tile;
//! * [`Reserve::Block`]: ballot + popc per warp, one shared atomic per warp, one global atomic
//!   per block per tile.
//!
//! Output order is not the input order: warps and blocks claim their runs in whatever order
//! their atomics land.

use crate::arch::{
    atomic_add_u32, ballot, block_dim_x, block_idx_x, lane_id, lanemask_lt, popc, shfl_idx, thread_idx_x,
};
use crate::block::block_append;

/// Which value test decides whether an item is kept. The numbers are the host's ABI
/// (`warpwork::SelectOp`): keep them in step.
pub mod op {
    /// `flags[i] != 0`.
    pub const FLAGGED: u32 = 0;
    /// `item < a`.
    pub const LESS: u32 = 1;
    /// `item >= a`.
    pub const GREATER_EQUAL: u32 = 2;
    /// `a <= item < b`.
    pub const IN_RANGE: u32 = 3;
    /// `item == a`.
    pub const EQUAL: u32 = 4;
    /// `item != 0`.
    pub const NON_ZERO: u32 = 5;
}

/// How a tile reserves its output slots.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reserve {
    /// One global atomic per kept item.
    Lane,
    /// One global atomic per warp.
    Warp,
    /// One shared atomic per warp, one global atomic per block.
    Block,
}

/// Evaluates value test `op` (see [`op`]) with operands `a`, `b`. The comparisons are Rust's own
/// (`PartialOrd`), so floats behave as on the CPU: NaN is never less, greater, in range or equal,
/// and is non-zero; `-0.0 == 0.0`.
#[inline(always)]
pub fn test<T: PartialOrd + Default + Copy>(op: u32, v: T, a: T, b: T) -> bool {
    match op {
        op::LESS => v < a,
        op::GREATER_EQUAL => v >= a,
        op::IN_RANGE => a <= v && v < b,
        op::EQUAL => v == a,
        _ => v != T::default(),
    }
}

/// Compacts one tile: keeps item `i` where `flags[i] != 0` (op [`op::FLAGGED`]) or where
/// [`test`] holds, appending kept items to `out` at slots reserved on `counter`. Slots at or
/// past `capacity` are counted but not written, so the caller can detect the overflow.
///
/// # Safety
/// `items` (and `flags` for [`op::FLAGGED`]) hold `n` elements; `out` holds `capacity`;
/// `counter` is a global `u32` that starts at the number of items already in `out`;
/// `scratch` is [`crate::block::BLOCK_APPEND_SCRATCH_WORDS`] words of shared memory (used only
/// by [`Reserve::Block`]). Every thread of the block calls this with the same arguments.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_tile<T: PartialOrd + Default + Copy, const ITEMS: usize>(
    reserve: Reserve,
    items: *const T,
    flags: *const u8,
    n: u32,
    op: u32,
    a: T,
    b: T,
    out: *mut T,
    capacity: u32,
    counter: *mut u32,
    scratch: *mut u32,
) {
    let threads = block_dim_x() as usize;
    let tile_base = block_idx_x() as usize * ITEMS * threads;
    let t = thread_idx_x() as usize;
    let n = n as usize;
    let full = tile_base + ITEMS * threads <= n;

    let mut vals = [T::default(); ITEMS];
    let mut keep = [false; ITEMS];
    for k in 0..ITEMS {
        let i = tile_base + k * threads + t;
        if full || i < n {
            vals[k] = *items.add(i);
            keep[k] = if op == op::FLAGGED { *flags.add(i) != 0 } else { test(op, vals[k], a, b) };
        }
    }

    if reserve == Reserve::Lane {
        for k in 0..ITEMS {
            if keep[k] {
                let slot = atomic_add_u32(counter, 1);
                if slot < capacity {
                    *out.add(slot as usize) = vals[k];
                }
            }
        }
        return;
    }

    let mut masks = [0u32; ITEMS];
    let mut warp_count = 0;
    for k in 0..ITEMS {
        masks[k] = ballot(keep[k]);
        warp_count += popc(masks[k]);
    }
    let mut slot = if reserve == Reserve::Warp {
        let mut base = 0;
        if lane_id() == 0 && warp_count != 0 {
            base = atomic_add_u32(counter, warp_count);
        }
        shfl_idx(base, 0)
    } else {
        block_append(scratch, counter, warp_count)
    };
    let below = lanemask_lt();
    for k in 0..ITEMS {
        let at = slot + popc(masks[k] & below);
        if keep[k] && at < capacity {
            *out.add(at as usize) = vals[k];
        }
        slot += popc(masks[k]);
    }
}
