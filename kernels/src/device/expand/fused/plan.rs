//! Pass 1 of S2.5f, the *plan*: each block sums its tiles of counts, learns the sum before them
//! from the look-back ([`super::lookback`]) and writes its tiles' plan records; the last block
//! writes the end record and the control block.

use super::lookback::{look_back, sat_add, wait_for_all, LAUNCH_PARITY, LB_AGGREGATE, LB_PREFIX};
use super::{
    entry_count, item_count, list_head, load_full_run, load_run, packed_sum, record_flag, store_plan_end, store_record,
    FUSED_ITEMS, FUSED_PUSH_TILES, FUSED_TILE, WARPS,
};
use crate::arch::{
    block_idx_x, grid_dim_x, grid_launch_dependents, lane_id, load_relaxed_u64, shfl_idx, shfl_idx_any,
    store_relaxed_u64, sync_threads, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::device::expand::{ExpandView, Offset};
use crate::warp::warp_inclusive_sum_u64;
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::expand::fused::{
    fused_list_entry, fused_part_listed, fused_tiles, FUSED_LIST_HEAD_WORDS, FUSED_LIST_SRC_BITS,
    FUSED_LIST_WARP_ENTRIES, FUSED_LIST_WORDS,
};

/// Pass 1 of S2.5f, its records in the destination index width `O` (see [`super::FusedShared`]):
/// block `b` sums tiles `FUSED_PUSH_TILES·b ..` of `v`'s counts, finds the sum of
/// everything before them with a decoupled look-back over the blocks' published sums, and
/// writes the plan records of its tiles (see the module docs); the last block also writes the
/// end record and stores the exact total in `ctrl.total` and the unit count in `ctrl.units` (0
/// when the total exceeds the capacity, which raises [`crate::device::expand::FLAG_CAPACITY`]).
///
/// **Never hangs.** A block waits only on blocks before it, which the hardware starts first
/// (as CUB's scans assume); should one of them still not have published after
/// [`crate::device::lookback::FALLBACK_POLLS`] polls, the waiting warp sums that block's counts itself (the *decoupled
/// fallback* of Smith, Levien and Owens), so no wait depends on the start order. No atomics:
/// the control block's `packed` word says which of each block's two look-back words this launch
/// uses, and the last block flips it for the next launch.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` whose width is `O` (`u64` exactly when
/// `v.wide()`) with `tiles + 1` records (of `FUSED_RECORD_SLOTS` slots each) and two look-back words
/// per block (`v.scan_status()`, as `u64`s) that, like the control block, were zeroed before the
/// first pass 1 (every pass 1 leaves them ready for the next); `scratch` is
/// [`super::FUSED_PUSH_SCRATCH_U64`] shared `u64`s; the launch has `ceil(tiles / FUSED_PUSH_TILES)` blocks
/// (`p1 > 0`) of [`super::FUSED_THREADS`] threads, and every thread calls this.
#[inline(always)]
pub unsafe fn push_fused_tiles<O: Offset>(v: &ExpandView, scratch: *mut u64) {
    // Read before the loads; needed after them.
    let launch = if warp_id() == 0 { load_relaxed_u64(addr_of_mut!((*v.ctrl()).packed)) } else { 0 };
    sum_tiles(v, scratch, block_idx_x());
    sync_threads();
    // Pass 2 (when launched as a programmatic dependent) may start its blocks now; they wait
    // for this grid in `for_each_fused`.
    grid_launch_dependents();
    if warp_id() == 0 {
        publish_and_plan::<O>(v, scratch, launch);
    } else if warp_id() == 1 {
        mark_listed(v, scratch, block_idx_x());
    }
}

/// Warp 1 of pass 1's block (while warp 0 looks back), lane `k` for the block's tile `k`: the
/// tile's list flag in its plan record, 1 where each of its parts can be listed and one has
/// entries. (Written by warp 0 with the record, the flag took pass 1 to 66 registers: three
/// blocks per SM instead of four.)
#[inline(always)]
unsafe fn mark_listed(v: &ExpandView, scratch: *const u64, pos: u32) {
    let k = lane_id() as usize;
    let t = pos * FUSED_PUSH_TILES as u32 + lane_id();
    if k < FUSED_PUSH_TILES && t < fused_tiles(v.p1) {
        let listed = (1..UNLISTED as u32).contains(&entry_count(parts_sum(scratch, k)));
        write_volatile(record_flag(v.records(), t), listed as u32);
    }
}

/// Tile `k`'s sum from its parts' in the scratch (see [`sum_tiles`]): its items and entries, the
/// latter plus [`UNLISTED`] per part that cannot be listed.
#[inline(always)]
unsafe fn parts_sum(scratch: *const u64, k: usize) -> u64 {
    (0..WARPS as usize).fold(0u64, |a, w| a + read_volatile(scratch.add(w * FUSED_PUSH_TILES + k)))
}

/// Added to a part's [`packed_sum`] in the scratch where the part cannot be listed
/// ([`fused_part_listed`]): a tile's entries stay below it (at most [`FUSED_TILE`]), and its
/// eight parts' at most eight times it below the items (16 bits).
const UNLISTED: u64 = 1 << 12;
const _: () = assert!(FUSED_TILE < UNLISTED as u32 && WARPS as u64 * UNLISTED < 1 << 16);

/// Sums the `FUSED_PUSH_TILES` tiles of the block at position `pos` into
/// `scratch[w·FUSED_PUSH_TILES + k]` (warp `w`'s part of tile `k`: its items and non-empty
/// sources, a [`packed_sum`], plus [`UNLISTED`] where the part cannot be listed), and writes
/// warp `w`'s part of each tile's list for pass 2: the part's sum (the list's head `w`), and
/// its entries where it has some and at most [`FUSED_LIST_WARP_ENTRIES`] (whether the tile is
/// listed, [`mark_listed`] decides from the sums). All loads first (`FUSED_PUSH_TILES` runs in
/// flight per thread), and a block inside `p1` loads without branches. Written out per tile
/// (constant indices; a loop over the tiles put the runs on the stack).
#[inline(always)]
unsafe fn sum_tiles(v: &ExpandView, scratch: *mut u64, pos: u32) {
    let first_tile = pos as usize * FUSED_PUSH_TILES;
    let inside = (first_tile + FUSED_PUSH_TILES) * FUSED_TILE as usize <= v.p1 as usize;
    let fast = |k: usize| {
        load_full_run::<true>(
            v.counts(),
            (first_tile + k) * FUSED_TILE as usize + thread_idx_x() as usize * FUSED_ITEMS,
        )
    };
    let slow = |k: usize| load_run::<true>(v.counts(), v.p1, first_tile + k);
    let [c0, c1, c2, c3]: [[u32; FUSED_ITEMS]; FUSED_PUSH_TILES] =
        if inside { [fast(0), fast(1), fast(2), fast(3)] } else { [slow(0), slow(1), slow(2), slow(3)] };
    let w = warp_id();
    // The block's first tile's list, and how many of its tiles there are.
    let lists = list_head(v, first_tile as u32) as *mut u32;
    let tiles = fused_tiles(v.p1) as usize - first_tile;
    let list = |k: usize, c: [u32; FUSED_ITEMS]| {
        let mine = packed_sum(c);
        let incl = warp_inclusive_sum_u64(mine);
        let list = lists.add(k * FUSED_LIST_WORDS);
        if lane_id() == WARP_SIZE - 1 {
            // A part that cannot be listed counts `UNLISTED` more entries in the scratch.
            let unlisted = if fused_part_listed(entry_count(incl), item_count(incl)) { 0 } else { UNLISTED };
            write_volatile(scratch.add(w as usize * FUSED_PUSH_TILES + k), incl + unlisted);
            if k < tiles {
                write_volatile((list as *mut u64).add(w as usize), incl);
            }
        }
        // The part's entries, where it has some and not too many (the count from the warp's
        // last lane: warp-uniform; none past the last tile, whose counts read as zeros).
        if (1..=FUSED_LIST_WARP_ENTRIES).contains(&shfl_idx(entry_count(incl), WARP_SIZE - 1)) {
            let excl = incl - mine;
            let slot = FUSED_LIST_HEAD_WORDS + (w * FUSED_LIST_WARP_ENTRIES + entry_count(excl)) as usize;
            let mut at = list.add(slot);
            let mut e = fused_list_entry(item_count(excl) as u32, thread_idx_x() * FUSED_ITEMS as u32);
            for &n in c.iter() {
                if n != 0 {
                    write_volatile(at, e);
                    at = at.add(1);
                }
                // The next source's first item and index (an entry past a part's
                // `FUSED_LIST_PART_ITEMS` is not read: such a tile is not listed).
                e = e.wrapping_add(n << FUSED_LIST_SRC_BITS | 1);
            }
        }
    };
    list(0, c0);
    list(1, c1);
    list(2, c2);
    list(3, c3);
}

/// Warp 0 of pass 1's block, once the block's records are out: the lines of the block's tiles
/// that sum to zero (lane `k` says whether its tile `k` does) go back to the normal L2 priority.
/// Pass 1 reads the counts to be kept in L2 for pass 2 ([`load_full_run`]); pass 2 reads every
/// tile with items again, which gives its lines back, but never an empty one, whose lines would
/// otherwise stay ahead of the caller's data after the call. Only lines wholly inside the tile
/// (all of them when the counts start on a 128-byte line, as an allocation does).
// Not inlined: inlined, it took pass 1 to 65 registers (three blocks per SM instead of four).
#[cfg(feature = "sm90")]
#[inline(never)]
unsafe fn release_empty_tiles(v: &ExpandView, empty: bool, pos: u32) {
    const LINE: usize = 128;
    let mut empty = crate::arch::ballot(empty);
    while empty != 0 {
        let k = empty.trailing_zeros() as usize;
        empty &= empty - 1;
        let first = (pos as usize * FUSED_PUSH_TILES + k) * FUSED_TILE as usize;
        let end = (first + FUSED_TILE as usize).min(v.p1 as usize);
        let (lo, hi) = (v.counts().add(first) as usize, v.counts().add(end) as usize);
        let mut line = lo.next_multiple_of(LINE) + lane_id() as usize * LINE;
        while line + LINE <= hi {
            crate::arch::l2_priority_normal(line as *const u8);
            line += WARP_SIZE as usize * LINE;
        }
    }
}

/// Nothing is kept in L2 without the sm_90 loads.
#[cfg(not(feature = "sm90"))]
#[inline(always)]
unsafe fn release_empty_tiles(_: &ExpandView, _: bool, _: u32) {}

/// Warp 0 of pass 1's block: publishes the block's sum, looks back for the sum before it,
/// publishes the sum through it and writes the plan records of its tiles; the last block writes
/// the end record and the control block, and flips the launch word. Also clears the other
/// look-back word of the previous launch's blocks, for the next launch.
#[inline(always)]
unsafe fn publish_and_plan<O: Offset>(v: &ExpandView, scratch: *const u64, launch: u64) {
    let lane = lane_id();
    let (pos, grid) = (block_idx_x(), grid_dim_x());
    let tiles = fused_tiles(v.p1);
    let parity = (launch >> 63) as usize;
    let words = v.scan_status() as *mut u64;
    // Lane `k < FUSED_PUSH_TILES`: tile `k`'s sum, and the block's sums through it.
    let k = lane as usize;
    let tile_sum = if k < FUSED_PUSH_TILES { item_count(parts_sum(scratch, k)) } else { 0 };
    let through = warp_inclusive_sum_u64(tile_sum);
    let aggregate = shfl_idx_any(through, FUSED_PUSH_TILES as u32 - 1);
    let mine = words.add(2 * pos as usize + parity);
    let (before, fell_back) = if pos == 0 {
        (0, 0)
    } else {
        if lane == 0 {
            store_relaxed_u64(mine, LB_AGGREGATE | aggregate);
        }
        look_back(v, words.add(parity), pos)
    };
    let after = sat_add(before, aggregate);
    if lane == 0 {
        store_relaxed_u64(mine, LB_PREFIX | fell_back | after);
    }
    // The previous launch's words on the other side, cleared for the next launch (it had
    // `previous` blocks; this one has `grid`).
    let previous = ((launch >> 32) & 0x7fff_ffff) as u32;
    let mut i = pos + lane * grid;
    while i < previous {
        store_relaxed_u64(words.add(2 * i as usize + (1 - parity)), 0);
        i += WARP_SIZE * grid;
    }
    let cap = if O::WIDE { v.wide_capacity } else { v.capacity as u64 };
    let tile = pos * FUSED_PUSH_TILES as u32 + lane;
    if k < FUSED_PUSH_TILES && tile < tiles {
        let first = sat_add(before, through - tile_sum);
        store_record::<O>(v.records(), tile, first.min(cap));
    }
    if pos == grid - 1 {
        if fell_back != 0 {
            // A block summed by another may not have started: the launch word is flipped only
            // after every block has read it (its word is out).
            wait_for_all(words.add(parity), grid);
        }
        if lane == 0 {
            let over = after > cap;
            let units = store_record::<O>(v.records(), tiles, after.min(cap));
            store_plan_end(v.ctrl(), after, units, over);
            store_relaxed_u64(addr_of_mut!((*v.ctrl()).packed), (!launch & LAUNCH_PARITY) | (grid as u64) << 32);
        }
    }
    release_empty_tiles(v, k < FUSED_PUSH_TILES && tile < tiles && tile_sum == 0, pos);
}
