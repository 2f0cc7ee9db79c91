//! S2.5f in **one launch**, for inputs of at most [`FUSED_ONCE_TILES`] tiles: every block learns
//! the whole plan itself, so nothing waits on a chain of look-backs, claims and plan records.
//!
//! In two launches the first item reaches memory after a chain of dependent steps: pass 1's
//! loads, its look-back, its plan records, pass 2's wait for the grid, a claim, a search of the
//! records and the tile's counts — about ten trips to L2 and back, 9 µs on an H100 even for 32
//! sources. Here block `t < tiles` sums tile `t`, stores the sum (one word per tile) and counts
//! itself in a word of its own; every block waits for that count to reach the tiles (one lane
//! polls one word: the whole grid polling the sums themselves queued its loads behind one
//! another on two L2 lines), reads all the sums (four per lane of one warp), scans them in
//! registers, and so knows each tile's first item and first unit; its share of the units is
//! fixed by its index (consecutive units, so one tile scan serves several). Three trips: the
//! counts, the sums, a tile's counts. Block 0 also writes the plan records and the control
//! block, as pass 1 does, so that the count and a later pass 2 of the two-launch form read what
//! they always read.
//!
//! **Never hangs**, on the assumption the look-backs already make: blocks start in index order.
//! The summing blocks are the grid's first and wait on nothing; every block waits for them; the
//! host launches this only when the grid holds them all (`FUSED_ONCE_MAX_P1`). The last block
//! out clears the count for the next launch.

use super::schedule::Part;
use super::walk::{scan_tile, walk};
use super::{load_run, run_sum, FusedShared, WARPS};
use crate::arch::{
    atomic_add_u32, block_idx_x, fence_gpu, grid_dim_x, lane_id, load_acquire_u32, load_relaxed_u64, nanosleep,
    shfl_idx_any, store_relaxed_u64, sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::expand::{ExpandView, FLAG_CAPACITY};
use crate::warp::{warp_inclusive_sum_u64, warp_last_holding};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::expand::fused::{
    fused_first_unit, fused_plan_record, fused_tiles, FUSED_ONCE_SUMS_AT, FUSED_ONCE_TILES,
};

/// Tiles each lane of the reading warp takes (consecutive ones).
const PER_LANE: usize = FUSED_ONCE_TILES as usize / WARP_SIZE as usize;
/// How long a waiting lane sleeps between reads of the count (the sums come within a
/// microsecond or two).
const POLL_NS: u32 = 64;
/// `u64` words from the count of summed tiles to the first sum: a 128-byte line of its own for
/// the word every block polls (`warpwork_abi::expand::fused::FUSED_ONCE_SUMS_AT`).
const SUMS_AT: usize = FUSED_ONCE_SUMS_AT;

/// The plan as every block of the one launch keeps it, in shared memory.
#[repr(C, align(16))]
pub struct OncePlan {
    /// Tile `t`'s first destination item, for `t <= tiles` (the last is the total).
    first_item: [u32; FUSED_ONCE_TILES as usize + 1],
    /// Tile `t`'s first unit, for `t <= tiles` (the last is the unit count).
    first_unit: [u32; FUSED_ONCE_TILES as usize + 1],
    /// The block scan's scratch.
    scratch: [u64; BLOCK_SCAN_SCRATCH],
    /// The unit count (0 past the capacity).
    units: u32,
}

/// S2.5f's pass 1 and pass 2 in one launch with 32-bit destination indices: calls `f` as
/// [`super::for_each_fused`] does, for every destination item of `v`'s counts.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` with 32-bit offsets and `1 ..=
/// FUSED_ONCE_TILES` tiles of counts, whose `offsets` hold `FUSED_ONCE_SUMS_AT + tiles` `u64`s,
/// the first zero (this kernel leaves it zero), and whose control block's `exits` is zero; `smem` and `plan` are
/// this block's, in shared memory; blocks of [`super::FUSED_PASS2_THREADS`] threads, at least
/// one per tile, all resident together or started in index order; every thread calls this.
#[inline(always)]
pub(crate) unsafe fn fused_once(
    v: &ExpandView,
    smem: *mut FusedShared<u32>,
    plan: *mut OncePlan,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let tiles = fused_tiles(v.p1);
    let summed = v.offsets();
    let sums = (v.offsets() as *mut u64).add(SUMS_AT);
    let scratch = addr_of_mut!((*plan).scratch) as *mut u64;
    let block = block_idx_x();
    if block < tiles {
        let (_, sum) = block_exclusive_sum(scratch, run_sum(load_run(v.counts(), v.p1, block as usize)));
        if thread_idx_x() == 0 {
            store_relaxed_u64(sums.add(block as usize), sum);
            // The sum before the count (a release).
            fence_gpu();
            atomic_add_u32(summed, 1);
        }
    }
    if warp_id() == 0 {
        if lane_id() == 0 {
            while load_acquire_u32(summed) < tiles {
                nanosleep(POLL_NS);
            }
        }
        // The lane's acquire, then the warp's barrier: every lane reads the sums after it.
        sync_warp();
        read_plan(v, plan, sums, tiles);
    }
    sync_threads();
    let first_item = addr_of_mut!((*plan).first_item) as *const u32;
    let first_unit = addr_of_mut!((*plan).first_unit) as *const u32;
    let units = read_volatile(addr_of_mut!((*plan).units));
    // This block's units: a fixed, consecutive share (64-bit products: units < 2^32, grid < 2^31).
    let grid = grid_dim_x() as u64;
    let share = |b: u64| (units as u64 * b / grid) as u32;
    let (mut u, end) = (share(block as u64), share(block as u64 + 1));
    while u < end {
        let t = warp_last_holding(tiles, |k| read_volatile(first_unit.add(k as usize)) <= u);
        let stop = end.min(read_volatile(first_unit.add(t as usize + 1)));
        let part = Part { start: u, end: stop, tile: t };
        let (begin, last) = (read_volatile(first_item.add(t as usize)), read_volatile(first_item.add(t as usize + 1)));
        let span = scan_tile(v, smem, part, begin, last);
        if warp_id() < WARPS && span.begin < span.stop {
            walk(addr_of_mut!((*smem).bounds) as *const u32, addr_of_mut!((*smem).marks) as *mut u32, span, &mut f);
        }
        // The bounds and marks are rewritten for the next part only after everyone is done.
        sync_threads();
        u = stop;
    }
    // The last block out clears the count (every block has read it) for the next launch.
    let ctrl = v.ctrl();
    if thread_idx_x() == 0 && atomic_add_u32(addr_of_mut!((*ctrl).exits), 1) + 1 == grid_dim_x() {
        write_volatile(summed, 0);
        write_volatile(addr_of_mut!((*ctrl).exits), 0);
    }
}

/// Warp 0 of each block, once every tile's sum is out: scans the sums and writes the plan to
/// shared memory (block 0 also to the records and the control block, as pass 1 would).
#[inline(always)]
unsafe fn read_plan(v: &ExpandView, plan: *mut OncePlan, sums: *const u64, tiles: u32) {
    let lane = lane_id() as usize;
    let mut s = [0u64; PER_LANE];
    for (k, x) in s.iter_mut().enumerate() {
        let t = lane * PER_LANE + k;
        if t < tiles as usize {
            *x = load_relaxed_u64(sums.add(t));
        }
    }
    let mine: u64 = s.iter().sum();
    let through = warp_inclusive_sum_u64(mine);
    let total = shfl_idx_any(through, WARP_SIZE - 1);
    let cap = v.capacity as u64;
    let over = total > cap;
    let units = if over { 0 } else { fused_first_unit(total, tiles) };
    let mut first = through - mine;
    for (k, &x) in s.iter().enumerate() {
        let t = (lane * PER_LANE + k) as u32;
        if t < tiles {
            put(v, plan, t, first.min(cap));
        }
        first += x;
    }
    if lane == 0 {
        // The end: the total (at most the capacity) and the unit count.
        put(v, plan, tiles, total.min(cap));
        write_volatile(addr_of_mut!((*plan).units), units);
        if block_idx_x() == 0 {
            let ctrl = v.ctrl();
            store_relaxed_u64(addr_of_mut!((*ctrl).total), total);
            write_volatile(addr_of_mut!((*ctrl).units), units);
            write_volatile(addr_of_mut!((*ctrl).flags), if over { FLAG_CAPACITY } else { 0 });
        }
    }
}

/// Tile `t`'s first item `item` (at most the capacity) and first unit into the plan, and by
/// block 0 into plan record `t`.
#[inline(always)]
unsafe fn put(v: &ExpandView, plan: *mut OncePlan, t: u32, item: u64) {
    write_volatile(addr_of_mut!((*plan).first_item[t as usize]), item as u32);
    write_volatile(addr_of_mut!((*plan).first_unit[t as usize]), fused_first_unit(item, t));
    if block_idx_x() == 0 {
        write_volatile((v.records() as *mut u64).add(t as usize), fused_plan_record(item, t));
    }
}
