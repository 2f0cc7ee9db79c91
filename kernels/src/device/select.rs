//! Unordered stream compaction (select) over one tile of `ITEMS × blockDim.x` items.
//!
//! Items are read group-wise as 16-byte vectors: vector `v` of thread `t` starts at item
//! `tile_base + (v·blockDim.x + t)·(16 / size_of::<T>())`, so each warp load is 512 coalesced
//! bytes. `T` must be 4 or 8 bytes. The kept items are written through one of three
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
    atomic_add_u32, ballot, block_dim_x, block_idx_x, lane_id, lanemask_lt, load_nc_v4_u32, popc, shfl_idx,
    thread_idx_x,
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

/// Global index of item `k` of thread `t`: the tile is read as 16-byte vectors of `vec` items,
/// vector `k / vec` of every thread before vector `k / vec + 1` of any (group-wise, coalesced).
#[inline(always)]
fn item_index(tile_base: usize, t: usize, threads: usize, vec: usize, k: usize) -> usize {
    tile_base + ((k / vec) * threads + t) * vec + k % vec
}

/// Reads a thread's `ITEMS` items of a full tile as `ITEMS / vec` non-coherent 16-byte loads.
#[inline(always)]
unsafe fn load_full_tile<T: Copy, const ITEMS: usize>(
    items: *const T,
    tile_base: usize,
    t: usize,
    threads: usize,
    vals: &mut [T; ITEMS],
) {
    let vec = 16 / core::mem::size_of::<T>();
    let mut words = [[0u32; 4]; ITEMS];
    for v in 0..ITEMS / vec {
        let p = items.add(item_index(tile_base, t, threads, vec, v * vec));
        words[v] = load_nc_v4_u32(p as *const [u32; 4]);
    }
    for k in 0..ITEMS {
        vals[k] = (words[k / vec].as_ptr() as *const T).add(k % vec).read();
    }
}

/// Reads the flag bytes of a full tile's items: `vec` consecutive bytes per item vector.
#[inline(always)]
unsafe fn load_full_flags<const ITEMS: usize>(
    flags: *const u8,
    tile_base: usize,
    t: usize,
    threads: usize,
    vec: usize,
    flag: &mut [bool; ITEMS],
) {
    for v in 0..ITEMS / vec {
        let p = flags.add(item_index(tile_base, t, threads, vec, v * vec));
        // `vec` flags are 4 (or 2) consecutive bytes at a 4- (or 2-) aligned offset.
        let bits = if vec == 4 { (p as *const u32).read() } else { (p as *const u16).read() as u32 };
        for j in 0..vec {
            flag[v * vec + j] = (bits >> (8 * j)) & 0xff != 0;
        }
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
    let vec = 16 / core::mem::size_of::<T>();

    // Load phase: every load is issued before any item is tested, so a thread keeps ITEMS
    // loads in flight. Full tiles (all but the last) read 16-byte vectors with no bounds checks.
    let mut vals = [T::default(); ITEMS];
    let mut valid = [true; ITEMS];
    let mut flag = [true; ITEMS];
    if tile_base + ITEMS * threads <= n {
        load_full_tile(items, tile_base, t, threads, &mut vals);
        if op == op::FLAGGED {
            load_full_flags::<ITEMS>(flags, tile_base, t, threads, vec, &mut flag);
        }
    } else {
        for k in 0..ITEMS {
            let i = item_index(tile_base, t, threads, vec, k);
            valid[k] = i < n;
            if valid[k] {
                vals[k] = *items.add(i);
                if op == op::FLAGGED {
                    flag[k] = *flags.add(i) != 0;
                }
            }
        }
    }
    let mut keep = [false; ITEMS];
    for k in 0..ITEMS {
        keep[k] = valid[k] && if op == op::FLAGGED { flag[k] } else { test(op, vals[k], a, b) };
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
