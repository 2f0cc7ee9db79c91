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
//! fixed by its index (consecutive units, so one tile scan serves several), but for the last
//! quarter where there are more than [`CLAIMS_FROM`] units per block, which blocks claim from the
//! control block's counter as they run out (pass 2's guided claims). Three trips: the
//! counts, the sums, a tile's counts. Block 0 also writes the plan records and the control
//! block, as pass 1 does, so that the count and a later pass 2 of the two-launch form read what
//! they always read.
//!
//! **One tile** (at most [`FUSED_TILE`] sources) needs none of that: every block loads and scans
//! the whole tile itself (8 KiB of counts, from L2 after the first block), so a block learns
//! its items after one trip and leaves nothing to clear — the kernel then costs what one
//! launch of a copy costs (the sums, their count and the last block's clearing were most of
//! the one launch's time at 32 sources).
//!
//! **Never hangs.** The summing blocks are the grid's first and wait on nothing before they
//! publish; a block that has polled the count
//! [`FALLBACK_POLLS`](crate::device::lookback::FALLBACK_POLLS) times without seeing every
//! tile summed reads the tiles' words and sums each tile not yet published itself (the
//! *decoupled fallback* of the look-backs), so no block depends on another being resident. The
//! last block out clears the count and the sums for the next launch.

use super::once_walk::{scan_tile, walk, write_bounds, OnceShared, Span};
use super::schedule::Part;
use super::{guided_claim, load_run, record_flag, run_sum, store_plan_end, store_record, STEP, WARPS};
use crate::arch::{
    atomic_add_u32, block_idx_x, fence_gpu, grid_dim_x, lane_id, load_acquire_u32, load_relaxed_u64, nanosleep,
    shfl_idx_any, store_relaxed_u64, sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::expand::ExpandView;
use crate::device::lookback::{fallback_after, forced_stall};
use crate::warp::{warp_inclusive_sum_u64, warp_last_holding};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::expand::fused::{fused_first_unit, fused_tiles, FUSED_ONCE_SUMS_AT, FUSED_ONCE_TILES, FUSED_TILE};

/// Tiles each lane of the reading warp takes (consecutive ones).
const PER_LANE: usize = FUSED_ONCE_TILES as usize / WARP_SIZE as usize;
/// A tile sum's word: published (the sum is in the bits below; a tile's sum is below 2^43).
const PUBLISHED: u64 = 1 << 63;
/// Units per block past which the last quarter of the units is claimed rather than shared out
/// by block index.
const CLAIMS_FROM: u32 = 8;
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
    /// The block's last claim: its first unit past the fixed shares, and its length.
    claimed: [u32; 2],
}

/// S2.5f's pass 1 and pass 2 in one launch with 32-bit destination indices: calls `f` as
/// [`super::for_each_fused`] does, for every destination item of `v`'s counts.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` with 32-bit offsets and `1 ..=
/// FUSED_ONCE_TILES` tiles of counts, whose `offsets` hold `FUSED_ONCE_SUMS_AT + tiles` zeroed
/// `u64`s (this kernel leaves them zeroed), and whose control block's `exits` is zero; `smem` and `plan` are
/// this block's, in shared memory; blocks of [`super::FUSED_PASS2_THREADS`] threads, at least
/// one per tile; every thread calls this. `forced_fallback` (tests) makes every block fall back
/// at once and odd tiles late to publish.
#[inline(always)]
pub(crate) unsafe fn fused_once(
    v: &ExpandView,
    smem: *mut OnceShared<u32>,
    plan: *mut OncePlan,
    forced_fallback: bool,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let tiles = fused_tiles(v.p1);
    if tiles == 1 {
        return one_tile(v, smem, plan, f);
    }
    let summed = v.offsets();
    let sums = (v.offsets() as *mut u64).add(SUMS_AT);
    let scratch = addr_of_mut!((*plan).scratch) as *mut u64;
    let block = block_idx_x();
    if block < tiles {
        let (_, sum) = block_exclusive_sum(scratch, run_sum(load_run::<false>(v.counts(), v.p1, block as usize)));
        if thread_idx_x() == 0 {
            forced_stall(forced_fallback, block as usize);
            store_relaxed_u64(sums.add(block as usize), PUBLISHED | sum);
            // The sum before the count (a release).
            fence_gpu();
            atomic_add_u32(summed, 1);
        }
    }
    if warp_id() == 0 {
        let mut all = false;
        if lane_id() == 0 {
            let mut polls = 0;
            loop {
                all = load_acquire_u32(summed) >= tiles;
                if all || polls == fallback_after(forced_fallback) {
                    break;
                }
                nanosleep(POLL_NS);
                polls += 1;
            }
        }
        // The lane's acquire, then the warp's barrier: every lane reads the sums after it.
        sync_warp();
        let all = shfl_idx_any(all as u32, 0) != 0;
        read_plan(v, plan, sums, tiles, all);
    }
    sync_threads();
    let first_item = addr_of_mut!((*plan).first_item) as *const u32;
    let first_unit = addr_of_mut!((*plan).first_unit) as *const u32;
    let units = read_volatile(addr_of_mut!((*plan).units));
    // This block's units: a fixed, consecutive share of the first `fixed` (64-bit products: units
    // < 2^32, grid < 2^31), so that one tile scan serves several; where there are many units per
    // block, the last quarter is claimed (guided, as pass 2's claims) by whichever blocks finish
    // their shares first: fixed shares alone left the slowest multiprocessor's blocks the tail.
    let grid = grid_dim_x();
    let fixed = if units > CLAIMS_FROM * grid { units - units / 4 } else { units };
    let share = |b: u32| (fixed as u64 * b as u64 / grid as u64) as u32;
    let (mut u, mut end) = (share(block), share(block + 1));
    let claimed = addr_of_mut!((*plan).claimed) as *mut u32;
    let mut seen = 0;
    // The tile whose bounds are in shared memory (none yet).
    let mut scanned = u32::MAX;
    loop {
        while u < end {
            let t = warp_last_holding(tiles, |k| read_volatile(first_unit.add(k as usize)) <= u);
            let stop = end.min(read_volatile(first_unit.add(t as usize + 1)));
            let part = Part { start: u, end: stop, tile: t, listed: 0 };
            let (begin, last) =
                (read_volatile(first_item.add(t as usize)), read_volatile(first_item.add(t as usize + 1)));
            let span = scan_tile(v, smem, part, begin, last, &mut scanned);
            if warp_id() < WARPS && span.begin < span.stop {
                walk(addr_of_mut!((*smem).bounds) as *const u32, addr_of_mut!((*smem).marks) as *mut u32, span, &mut f);
            }
            // The bounds, marks and claim are rewritten for the next part only after everyone is
            // done.
            sync_threads();
            u = stop;
        }
        if fixed == units {
            break;
        }
        let left = units - fixed;
        if thread_idx_x() == 0 {
            // What this block last saw claimed: a guess at what the others have left.
            let k = guided_claim(left.saturating_sub(seen), grid);
            write_volatile(claimed, atomic_add_u32(addr_of_mut!((*v.ctrl()).counter), k));
            write_volatile(claimed.add(1), k);
        }
        sync_threads();
        let (c, k) = (read_volatile(claimed), read_volatile(claimed.add(1)));
        if c >= left {
            break;
        }
        seen = c + k;
        (u, end) = (fixed + c, fixed + (c + k).min(left));
    }
    // The last block out clears the count and the sums (every block has read them, and every
    // summing block has published) for the next launch.
    let ctrl = v.ctrl();
    // Every store to the sums (thread 0's, in a block that summed a tile or fell back) is fenced
    // before that thread's exit count; the last block fences after the count it reads, so it
    // clears after all of them.
    if thread_idx_x() == 0 && atomic_add_u32(addr_of_mut!((*ctrl).exits), 1) + 1 == grid_dim_x() {
        fence_gpu();
        for t in 0..tiles as usize {
            store_relaxed_u64(sums.add(t), 0);
        }
        write_volatile(summed, 0);
        write_volatile(addr_of_mut!((*ctrl).counter), 0);
        write_volatile(addr_of_mut!((*ctrl).exits), 0);
    }
}

/// The one launch over a single tile: every block scans it into its bounds, block 0 writes the
/// plan records and the control block, and block `b` walks its share of the items (the grid's
/// `b`-th slice of whole [`STEP`]s, so that no two blocks share a step).
#[inline(always)]
unsafe fn one_tile(
    v: &ExpandView,
    smem: *mut OnceShared<u32>,
    plan: *mut OncePlan,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let c = load_run::<false>(v.counts(), v.p1, 0);
    // The exact total (2048 counts may pass 2^32), with the plan's 64-bit scratch.
    let (excl, total) = block_exclusive_sum(addr_of_mut!((*plan).scratch) as *mut u64, run_sum(c));
    let cap = v.capacity as u64;
    let over = total > cap;
    if block_idx_x() == 0 && thread_idx_x() == 0 {
        let ctrl = v.ctrl();
        let units = if over { 0 } else { fused_first_unit(total, 1) };
        write_record(v, 0, 0, true);
        write_record(v, 1, total.min(cap), false);
        store_plan_end(ctrl, total, units, over);
    }
    if over {
        return;
    }
    // Below the capacity, so below 2^32: the bounds are exact `u32`s.
    let bounds = addr_of_mut!((*smem).bounds) as *mut u32;
    write_bounds(bounds, c, excl as u32, total as u32);
    sync_threads();
    let (block, grid) = (block_idx_x() as u64, grid_dim_x() as u64);
    let per = total.div_ceil(grid).next_multiple_of(STEP as u64);
    let (begin, stop) = ((block * per).min(total) as u32, ((block + 1) * per).min(total) as u32);
    if warp_id() < WARPS && begin < stop {
        let span = Span { first_src: 0, sources: v.p1, begin, stop };
        walk(bounds, addr_of_mut!((*smem).marks) as *mut u32, span, &mut f);
    }
}

/// Warp 0 of each block: reads every tile's sum (`all`: every one is published; otherwise the
/// warp first publishes, itself, each tile not yet published), scans them and writes the plan to
/// shared memory (block 0 also to the records and the control block, as pass 1 would).
#[inline(always)]
unsafe fn read_plan(v: &ExpandView, plan: *mut OncePlan, sums: *mut u64, tiles: u32, all: bool) {
    if !all {
        publish_silent_tiles(v, sums, tiles);
    }
    let lane = lane_id() as usize;
    let mut s = [0u64; PER_LANE];
    for (k, x) in s.iter_mut().enumerate() {
        let t = lane * PER_LANE + k;
        if t < tiles as usize {
            *x = load_relaxed_u64(sums.add(t)) & !PUBLISHED;
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
            put(v, plan, t, first.min(cap), true);
        }
        first += x;
    }
    if lane == 0 {
        // The end: the total (at most the capacity) and the unit count.
        put(v, plan, tiles, total.min(cap), false);
        write_volatile(addr_of_mut!((*plan).units), units);
        if block_idx_x() == 0 {
            store_plan_end(v.ctrl(), total, units, over);
        }
    }
}

/// Tile `t`'s first item `item` (at most the capacity) and first unit into the plan, and by
/// block 0 into plan record `t` (and, for a tile but the end, `tile`, a flag that says it has
/// no list: a pass 2 after this launch scans its counts).
#[inline(always)]
unsafe fn put(v: &ExpandView, plan: *mut OncePlan, t: u32, item: u64, tile: bool) {
    write_volatile(addr_of_mut!((*plan).first_item[t as usize]), item as u32);
    write_volatile(addr_of_mut!((*plan).first_unit[t as usize]), fused_first_unit(item, t));
    if block_idx_x() == 0 {
        write_record(v, t, item, tile);
    }
}

/// Plan record `t` (first item `item`), as pass 1 writes it ([`store_record`]), and for a tile
/// but the end, `tile`, a list flag that says it has no list (a pass 2 after this launch scans
/// its counts).
#[inline(always)]
unsafe fn write_record(v: &ExpandView, t: u32, item: u64, tile: bool) {
    store_record::<u32>(v.records(), t, item);
    if tile {
        write_volatile(record_flag(v.records(), t), 0);
    }
}

/// The fallback, by the calling warp: publishes the sum of every tile whose block has not (the
/// same value that block will store), so that the warp waits on no other block. Lane 0 stores,
/// then fences, so that the stores precede its block's exit and the last block's clearing.
#[inline(never)]
unsafe fn publish_silent_tiles(v: &ExpandView, sums: *mut u64, tiles: u32) {
    // A side effect, so that the compiler may not sink the warp-wide work into one lane.
    sync_warp();
    for t in 0..tiles as usize {
        // Lane 0's view of the word, so that the warp agrees (the shuffle below needs all lanes).
        if shfl_idx_any(load_relaxed_u64(sums.add(t)), 0) & PUBLISHED != 0 {
            continue;
        }
        let first = t * FUSED_TILE as usize;
        let mut sum = 0u64;
        let mut i = first + lane_id() as usize;
        while i < (first + FUSED_TILE as usize).min(v.p1 as usize) {
            sum += *v.counts().add(i) as u64;
            i += WARP_SIZE as usize;
        }
        let sum = shfl_idx_any(warp_inclusive_sum_u64(sum), WARP_SIZE - 1);
        if lane_id() == 0 {
            store_relaxed_u64(sums.add(t), PUBLISHED | sum);
        }
    }
    if lane_id() == 0 {
        fence_gpu();
    }
    sync_warp();
}
