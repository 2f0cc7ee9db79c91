//! Select (keep the items that pass a test), unordered, over one tile of `ITEMS × blockDim.x` items.
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
//! their atomics land. [`select_ordered_tile`] is the order-preserving single-pass variant: it
//! replaces the atomics with a decoupled look-back over tiles.

use crate::arch::{
    atomic_add_u32, ballot, block_dim_x, block_idx_x, lane_id, lanemask_lt, load_nc_v4_u32, popc, shfl_idx,
    thread_idx_x,
};
use crate::arch::{load_relaxed_u32, load_shared, sync_threads, warp_id};
use crate::block::{block_append, block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::scan::{lookback, LookbackState, NARROW_LOOKBACK};
use core::ptr::{read_volatile, write_volatile};

pub use warpwork_abi::select::{op, test};

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

/// The checked load of a tile's last, partial run: item `k` is `items[index(k)]` where that is
/// below `n` (with its flag for [`op::FLAGGED`]). Returns which of the `ITEMS` are in range.
#[inline(always)]
unsafe fn load_checked<T: Copy, const ITEMS: usize>(
    items: *const T,
    flags: *const u8,
    op: u32,
    n: usize,
    index: impl Fn(usize) -> usize,
    vals: &mut [T; ITEMS],
    flag: &mut [bool; ITEMS],
) -> [bool; ITEMS] {
    let mut in_range = [false; ITEMS];
    for k in 0..ITEMS {
        let i = index(k);
        in_range[k] = i < n;
        if in_range[k] {
            vals[k] = *items.add(i);
            if op == op::FLAGGED {
                flag[k] = *flags.add(i) != 0;
            }
        }
    }
    in_range
}

/// Which of a thread's items are kept: in range, and flagged or passing [`test`].
#[inline(always)]
fn keep_mask<T: PartialOrd + Default + Copy, const ITEMS: usize>(
    op: u32,
    a: T,
    b: T,
    vals: &[T; ITEMS],
    flag: &[bool; ITEMS],
    in_range: &[bool; ITEMS],
) -> [bool; ITEMS] {
    let mut keep = [false; ITEMS];
    for k in 0..ITEMS {
        keep[k] = in_range[k] && if op == op::FLAGGED { flag[k] } else { test(op, vals[k], a, b) };
    }
    keep
}

/// Selects from one tile: keeps item `i` where `flags[i] != 0` (op [`op::FLAGGED`]) or where
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
        valid = load_checked(items, flags, op, n, |k| item_index(tile_base, t, threads, vec, k), &mut vals, &mut flag);
    }
    let keep = keep_mask(op, a, b, &vals, &flag, &valid);

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

/// Shared `u32`s [`select_ordered_tile`] needs besides its staging buffer: the block scan's
/// scratch, the tile id, the tile's prefix and the counter's starting value.
pub const ORDERED_SCRATCH_U32: usize = crate::block::BLOCK_SCAN_SCRATCH + 3;

/// Order-preserving select over one tile, in a single pass over the input.
///
/// The block claims a tile from `state.tile_counter` (so it only ever waits on tiles of blocks
/// already running: it cannot hang), counts its kept items, scans the counts across the block
/// ([`crate::block::block_exclusive_sum`]), and learns how many items all earlier tiles keep from
/// the decoupled look-back ([`crate::device::scan::lookback`]). Kept items are staged in shared
/// memory in input order and written out with coalesced stores at
/// `counter₀ + prefix + rank`, where `counter₀` is `*counter` before the launch. The block of the
/// last tile stores the new count in `*counter`. Slots at or past `capacity` are not written.
///
/// Thread `t` of tile `k` owns items `(k·blockDim.x + t)·ITEMS ..` (consecutive, so its rank is
/// a running count); `ITEMS · size_of::<T>()` must be a multiple of 16.
///
/// # Safety
/// As for [`select_tile`]; in addition `state` has one slot per tile with `status` and
/// `tile_counter` zeroed before the launch, the launch has exactly `ceil(n / tile)` blocks,
/// `scratch` is [`ORDERED_SCRATCH_U32`] shared words and `stage` `ITEMS · blockDim.x` shared `T`s.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_ordered_tile<T: PartialOrd + Default + Copy, const ITEMS: usize>(
    items: *const T,
    flags: *const u8,
    n: u32,
    op: u32,
    a: T,
    b: T,
    out: *mut T,
    capacity: u32,
    counter: *mut u32,
    state: LookbackState<u32>,
    scratch: *mut u32,
    stage: *mut T,
) {
    let tid = thread_idx_x() as usize;
    let threads = block_dim_x() as usize;
    let tile_slot = scratch.add(BLOCK_SCAN_SCRATCH);
    let (prefix_slot, base_slot) = (tile_slot.add(1), tile_slot.add(2));
    if tid == 0 {
        // Read before this tile publishes anything, hence (through the look-back's
        // release/acquire chain) before the last tile overwrites it.
        write_volatile(base_slot, load_relaxed_u32(counter));
        write_volatile(tile_slot, atomic_add_u32(state.tile_counter, 1));
    }
    sync_threads();
    let tile = read_volatile(tile_slot) as usize;
    let n = n as usize;
    let first = (tile * threads + tid) * ITEMS;
    let valid = n.saturating_sub(first).min(ITEMS);

    let mut vals = [T::default(); ITEMS];
    let mut flag = [true; ITEMS];
    let mut in_range = [true; ITEMS];
    if valid == ITEMS {
        let mut words = [[0u32; 4]; ITEMS];
        let bytes = ITEMS * core::mem::size_of::<T>();
        for v in 0..bytes / 16 {
            words[v] = load_nc_v4_u32((items.add(first) as *const [u32; 4]).add(v));
        }
        let per_vec = 16 / core::mem::size_of::<T>();
        for j in 0..ITEMS {
            vals[j] = (words[j / per_vec].as_ptr() as *const T).add(j % per_vec).read();
        }
        if op == op::FLAGGED {
            // ITEMS flag bytes at a multiple of ITEMS (≥ 4): whole aligned words.
            for w in 0..ITEMS / 4 {
                let bits = (flags.add(first) as *const u32).add(w).read();
                for q in 0..4 {
                    flag[4 * w + q] = (bits >> (8 * q)) & 0xff != 0;
                }
            }
        }
    } else {
        in_range = load_checked(items, flags, op, n, |j| first + j, &mut vals, &mut flag);
    }
    let keep = keep_mask(op, a, b, &vals, &flag, &in_range);
    let count = keep.iter().map(|&k| k as u32).sum::<u32>();
    let (mut rank, kept) = block_exclusive_sum(scratch, count);
    if warp_id() == 0 {
        let prefix = lookback::<u32, NARROW_LOOKBACK>(state, tile as u32, kept);
        if lane_id() == 0 {
            write_volatile(prefix_slot, prefix);
        }
    }
    for j in 0..ITEMS {
        if keep[j] {
            write_volatile(stage.add(rank as usize), vals[j]);
            rank += 1;
        }
    }
    sync_threads();
    let base = read_volatile(base_slot).wrapping_add(read_volatile(prefix_slot));
    let mut i = tid as u32;
    while i < kept {
        let slot = base.wrapping_add(i);
        if slot < capacity {
            *out.add(slot as usize) = load_shared(stage.add(i as usize));
        }
        i += threads as u32;
    }
    if tid == 0 && (tile + 1) * threads * ITEMS >= n {
        *counter = base.wrapping_add(kept);
    }
}
