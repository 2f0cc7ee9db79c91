//! Device-wide single-pass scans: decoupled look-back (Merrill & Garland).
//!
//! * [`tile`]: warpwork's device-wide scan kernels. Block `b` scans tile `b` under any
//!   [`crate::block::ScanOp`] with coalesced loads and stores, and gets the prefix of its tile
//!   from [`crate::device::lookback`] (status and value in one word per tile, a warp-wide
//!   window, backoff, and a fallback that makes it never hang) — the look-back S2.5's pass 1
//!   uses too.
//! * The older look-back below ([`lookback`], [`LookbackState`]), kept for the ordered select
//!   only: moved onto [`crate::device::lookback`] (commit 15aced3, taken back in eb546d5) the ordered
//!   select measured 15% slower on the H100 (docs/select.md), so it stays on this one until that
//!   is understood. `u32`/`u64` sums, split status/value arrays read with acquire loads, tiles
//!   claimed from an atomic counter: a block only waits on tiles with smaller ids, and a tile id
//!   is handed out only to a block that is already running, so every tile waited on belongs to a
//!   resident block that makes progress whatever order the hardware schedules blocks in (it
//!   never hangs). Publication uses release/acquire at device scope: the value is stored
//!   (relaxed), then the status word with `st.release`; readers `ld.acquire` the status before
//!   loading the value.

pub mod tile;

use crate::arch::{ballot, lane_id, load_acquire_u32, store_release_u32, WARP_SIZE};
use crate::block::ScanValue;

pub use warpwork_abi::scan::{STATUS_AGGREGATE, STATUS_INVALID, STATUS_PREFIX};

/// One predecessor per lane and round: the classic decoupled look-back.
pub const NARROW_LOOKBACK: usize = 1;

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

/// Publishes `aggregate` for `tile`, waits for and sums its predecessors, publishes the
/// inclusive prefix, and returns the exclusive one (on every lane of the calling warp).
///
/// # Safety
/// One whole warp calls this per tile (the tile claimed from `state.tile_counter`), with
/// `status` and `tile_counter` zeroed before the launch.
#[inline(always)]
pub unsafe fn lookback<T: ScanValue, const WINDOW: usize>(state: LookbackState<T>, tile: u32, aggregate: T) -> T {
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
