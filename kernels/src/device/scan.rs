//! Device-wide single-pass scans: decoupled look-back (Merrill & Garland).
//!
//! * [`tile`]: warpwork's device-wide scan kernels. Block `b` scans tile `b` under any
//!   [`crate::block::ScanOp`] with coalesced loads and stores, and gets the prefix of its tile
//!   from [`crate::device::lookback`] (status and value in one 64-bit word for 4-byte elements,
//!   a 32·4-tile window per round, backoff, and a fallback that makes it never hang).
//! * The older look-back below ([`scan_tile`], [`LookbackState`]): `u32`/`u64` sums only, split
//!   status/value arrays read with acquire loads, and tiles claimed from an atomic counter. Only
//!   S2.5's pass 1 (`expand_push_scan`) still uses it; the ordered select moved to
//!   [`crate::device::lookback`]. Once S2.5's pass 1 moves too, all of it goes.
//!
//! The rest of this comment is about the older look-back. Each block scans one tile of
//! `ITEMS × blockDim.x` elements, publishes its aggregate, then
//! looks back over its predecessors' published values (32 at a time, one warp) until it meets a
//! tile whose inclusive prefix is known.
//!
//! **Never hangs**: the tile a block scans is taken from an atomic counter, not from
//! `blockIdx.x`. A block only waits on tiles with smaller ids, and a tile id is handed out only
//! to a block that is already running, so every tile waited on belongs to a resident block that
//! makes progress whatever order the hardware schedules blocks in.
//!
//! Publication uses release/acquire at device scope: the value is stored (relaxed), then the
//! status word with `st.release`; readers `ld.acquire` the status before loading the value. This
//! works for any value width (`u32` and `u64`), with no packing of flag and value.

pub mod tile;

use crate::arch::{
    atomic_add_u32, ballot, lane_id, load_acquire_u32, load_v4_u32, store_release_u32, sync_threads, thread_idx_x,
    warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, ScanValue, BLOCK_SCAN_SCRATCH};
use core::ptr::{read_volatile, write_volatile};

pub use warpwork_abi::scan::{STATUS_AGGREGATE, STATUS_INVALID, STATUS_PREFIX};

/// Look-back window per lane for scans whose whole grid is resident at once (one wave): after
/// its first round a look-back then inspects 128 predecessors per round instead of 32 (a window
/// of 1 is the classic decoupled look-back; long scans would rather use that, as the wider
/// window's extra registers cost occupancy).
pub const WIDE_LOOKBACK: usize = 4;

/// Shared elements [`scan_tile`] needs (`T`-sized).
pub const SCAN_TILE_SCRATCH: usize = BLOCK_SCAN_SCRATCH + 3;

/// The global state of one device-wide scan. **Zero `status` and `tile_counter` before every
/// launch** (the host does it with one memset); `aggregate` and `inclusive` need no clearing.
#[derive(Clone, Copy)]
pub struct LookbackState<T> {
    /// One status word per tile.
    pub status: *mut u32,
    /// One aggregate per tile.
    pub aggregate: *mut T,
    /// One inclusive prefix per tile.
    pub inclusive: *mut T,
    /// The tile-id counter.
    pub tile_counter: *mut u32,
}

/// What [`scan_tile`] tells its caller about the tile it scanned.
#[derive(Clone, Copy)]
pub struct ScanTile<T> {
    /// Which tile this block scanned (0-based, from the atomic counter).
    pub tile: u32,
    /// Sum of everything before the tile.
    pub prefix: T,
    /// Sum of the tile.
    pub aggregate: T,
}

/// Scans one tile of `input[..n]` (tile size `ITEMS × blockDim.x`, thread `t` owning the
/// `ITEMS` consecutive elements at `tile_base + t·ITEMS`). `emit(first, exclusive, values, valid)`
/// is called on every thread with its elements' global index, their exclusive prefix sums, the
/// values, and how many of them are in range (the rest are zero-filled). The host launches
/// `ceil(n / tile)` blocks; tiles are claimed in launch order. `WINDOW` is the look-back width
/// per lane: 1 for long scans, [`WIDE_LOOKBACK`] when the grid fits in one wave.
///
/// # Safety
/// `input` holds `n` elements (16-byte aligned when `ITEMS·size_of::<T>()` is a multiple of 16);
/// `state` points to arrays of `ceil(n / tile)` tiles, zeroed as documented; `scratch` is
/// [`SCAN_TILE_SCRATCH`] elements of shared memory; every thread of the block calls this.
#[inline(always)]
pub unsafe fn scan_tile<T: ScanValue, const ITEMS: usize, const WINDOW: usize>(
    state: LookbackState<T>,
    scratch: *mut T,
    input: *const T,
    n: usize,
    emit: impl FnOnce(usize, &[T; ITEMS], &[T; ITEMS], usize),
) -> ScanTile<T> {
    let tid = thread_idx_x() as usize;
    let tile = claim_tile(state, scratch);
    let threads = crate::arch::block_dim_x() as usize;
    let first = (tile as usize * threads + tid) * ITEMS;

    // Load this thread's run: 16-byte vectors when the whole run is in range and aligned.
    let mut values = [T::default(); ITEMS];
    let valid = n.saturating_sub(first).min(ITEMS);
    let bytes = ITEMS * core::mem::size_of::<T>();
    if valid == ITEMS && bytes.is_multiple_of(16) {
        let src = input.add(first) as *const [u32; 4];
        let dst = values.as_mut_ptr() as *mut [u32; 4];
        for v in 0..bytes / 16 {
            *dst.add(v) = load_v4_u32(src.add(v));
        }
    } else {
        // A fixed trip count (constant indices) keeps `values` in registers.
        for (j, v) in values.iter_mut().enumerate() {
            if j < valid {
                *v = *input.add(first + j);
            }
        }
    }
    let mut sum = T::default();
    for v in values {
        sum = sum.add(v);
    }
    let (thread_prefix, aggregate) = block_exclusive_sum(scratch, sum);

    let prefix = block_lookback::<T, WINDOW>(state, scratch, tile, aggregate);
    // The slots are free for the next call once everyone has read them.
    sync_threads();

    let mut exclusive = [T::default(); ITEMS];
    let mut run = prefix.add(thread_prefix);
    for j in 0..ITEMS {
        exclusive[j] = run;
        run = run.add(values[j]);
    }
    emit(first, &exclusive, &values, valid);
    ScanTile { tile, prefix, aggregate }
}

/// Claims the block's tile: thread 0 takes the next id from the tile counter (launch order,
/// which is what makes the look-back hang-free) and every thread gets it.
///
/// # Safety
/// `scratch` is [`SCAN_TILE_SCRATCH`] shared elements; every thread of the block calls this.
#[inline(always)]
unsafe fn claim_tile<T>(state: LookbackState<T>, scratch: *mut T) -> u32 {
    let tile_slot = scratch.add(BLOCK_SCAN_SCRATCH) as *mut u32;
    if thread_idx_x() == 0 {
        write_volatile(tile_slot, atomic_add_u32(state.tile_counter, 1));
    }
    sync_threads();
    read_volatile(tile_slot)
}

/// [`lookback`] by warp 0 for the whole block: returns the tile's exclusive prefix on every
/// thread. The scratch slot it uses is free again after the caller's next barrier.
///
/// # Safety
/// As [`claim_tile`]; `tile` and `aggregate` are the block's (the same on every thread).
#[inline(always)]
unsafe fn block_lookback<T: ScanValue, const WINDOW: usize>(
    state: LookbackState<T>,
    scratch: *mut T,
    tile: u32,
    aggregate: T,
) -> T {
    let prefix_slot = scratch.add(BLOCK_SCAN_SCRATCH + 1);
    if warp_id() == 0 {
        let prefix = lookback::<T, WINDOW>(state, tile, aggregate);
        if lane_id() == 0 {
            write_volatile(prefix_slot, prefix);
        }
    }
    sync_threads();
    read_volatile(prefix_slot)
}

/// Publishes `aggregate` for `tile`, waits for and sums its predecessors, publishes the
/// inclusive prefix, and returns the exclusive one (on every lane of the calling warp).
///
/// # Safety
/// One whole warp calls this per tile, with the state of [`scan_tile`].
#[inline(always)]
unsafe fn lookback<T: ScanValue, const WINDOW: usize>(state: LookbackState<T>, tile: u32, aggregate: T) -> T {
    let lane = lane_id();
    if tile == 0 {
        if lane == 0 {
            T::store_relaxed(state.inclusive, aggregate);
            store_release_u32(state.status, STATUS_PREFIX);
        }
        return T::default();
    }
    if lane == 0 {
        T::store_relaxed(state.aggregate.add(tile as usize), aggregate);
        store_release_u32(state.status.add(tile as usize), STATUS_AGGREGATE);
    }
    let mut prefix = T::default();
    // Round r inspects a window of `32 · k` predecessors: lane `l` takes tiles `end - l·k - q`
    // for q in 0..k (q = 0 nearest). The first round looks at the nearest 32 only (in a long
    // scan the closest predecessor usually has its prefix already); later rounds widen to
    // k = WINDOW, which shortens the chain when a whole wave of tiles starts at once
    // and few prefixes are published yet.
    let mut end = tile as i64 - 1;
    let mut k = 1usize;
    loop {
        let mut lane_sum = T::default();
        let mut lane_has_prefix = false;
        // A fixed trip count with a guard keeps the loop unrolled.
        for q in 0..WINDOW {
            if q >= k {
                break;
            }
            let j = end - (lane as i64) * k as i64 - q as i64;
            // Before tile 0 counts as a published prefix of zero.
            let mut st = STATUS_PREFIX;
            let mut v = T::default();
            if j >= 0 {
                // Spin until the predecessor has published something; it is a running block.
                loop {
                    st = load_acquire_u32(state.status.add(j as usize));
                    if st != STATUS_INVALID {
                        break;
                    }
                }
                v = if st == STATUS_PREFIX {
                    T::load_relaxed(state.inclusive.add(j as usize))
                } else {
                    T::load_relaxed(state.aggregate.add(j as usize))
                };
            }
            if !lane_has_prefix {
                lane_sum = lane_sum.add(v);
                lane_has_prefix = st == STATUS_PREFIX;
            }
        }
        let prefix_lanes = ballot(lane_has_prefix);
        if prefix_lanes != 0 {
            // The closest predecessor with a known prefix ends the look-back: lanes before it
            // contribute their whole window, its lane up to that tile, later lanes nothing.
            let stop = prefix_lanes.trailing_zeros();
            let part = if lane <= stop { lane_sum } else { T::default() };
            prefix = prefix.add(part.warp_inclusive().shfl(31));
            break;
        }
        prefix = prefix.add(lane_sum.warp_inclusive().shfl(31));
        end -= (WARP_SIZE as usize * k) as i64;
        k = WINDOW;
    }
    if lane == 0 {
        T::store_relaxed(state.inclusive.add(tile as usize), prefix.add(aggregate));
        store_release_u32(state.status.add(tile as usize), STATUS_PREFIX);
    }
    prefix
}
