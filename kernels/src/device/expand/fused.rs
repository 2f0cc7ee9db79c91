//! S2.5f `ScanFused`: S2.5 without its prefix array, and pass 2 balanced over output ranges.
//!
//! **Pass 1** ([`push_fused_tiles`]) sums every *tile* of `FUSED_ITEMS × FUSED_THREADS` counts
//! (each block sums [`PUSH_TILES`] tiles), gets the sum of everything before its tiles from a
//! decoupled look-back over the blocks' published sums (one 64-bit word per block: status and
//! value together, so a poll is one load), and cuts the output into *units*: the part of a
//! tile's output range that falls in one aligned window of [`UNIT_ITEMS`] destination items.
//! Per tile it stores `(first item, first unit)`; the last block adds the end record, the
//! total, the unit count and the capacity flag. Pass 1 moves only the counts (which then sit
//! in L2 for pass 2). Units are numbered without a scan of their own: tile `t`'s first unit is
//! `first item / UNIT_ITEMS + t` (see [`plan_record`]), which leaves an empty unit per tile
//! that ends on a window boundary (or is empty), for pass 2 to skip.
//!
//! **Pass 2** ([`for_each_fused`], a persistent grid) claims runs of consecutive units with one
//! atomic each, finds a unit's tile with a 32-way warp search over the tiles' first units, scans
//! that tile's counts into shared-memory *bounds* (exclusive prefixes) and produces the items of
//! the claim's units in that tile at once; a scheduling warp claims and finds the next part while
//! the others walk. Claims are *guided*: [`CLAIM_UNITS`] units while many remain, down to one at
//! the end. A tile with a huge source is shared by as many blocks as it has claims, and the grid's
//! tail is one unit of `UNIT_ITEMS` items, not the heaviest tile, as when each block owned a
//! tile. No look-back either: the scan across tiles is done once, in pass 1.
//!
//! The walk over a part: each walking warp takes a contiguous share in steps of [`STEP`] items.
//! A step *marks* every non-empty source that starts inside it (lane `l` checks source
//! `cur + 1 + l`, 32 per round; one round for sources of ≥ 8 items, a few for tiny ones) in a
//! per-warp array, then a warp-wide running maximum over the marks gives every item its source:
//! no search per item, no divergence, and lane `l` holds items `2l, 2l + 1` of each 64, so the
//! pairs go out as coalesced 16-byte stores.
//!
//! What this costs: the counts are read twice (pass 1, then pass 2 from L2), a tile is scanned
//! once per claim that meets it (in shared memory), and the per-item work must
//! live in the kernel that calls [`for_each_fused`] (a closure; the host's `expand_with` has no
//! separate pass-2 kernel to hand it).

use super::ExpandView;
use crate::arch::{
    atomic_add_u32, ballot, block_idx_x, grid_dependency_wait, grid_dim_x, grid_launch_dependents, lane_id,
    lanemask_lt, load_nc_u32, load_relaxed_u64, load_shared, load_v4_u32, nanosleep, shfl_idx, shfl_idx_any, shfl_xor,
    store_relaxed_u64, store_shared_v4, sync_threads, sync_warp, thread_idx_x, vote_any, warp_id,
    warp_inclusive_sum_u64, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::warp::warp_last_holding;
use core::ptr::{addr_of_mut, read_volatile, write_volatile};

/// Counts per thread in a tile.
pub const FUSED_ITEMS: usize = 8;
/// Destination items per unit window (a multiple of [`STEP`]): the grain of pass 2's tail.
pub const UNIT_ITEMS: u32 = 2048;
/// Most units per claim of pass 2: 8192 items, few enough claims (and tile scans) while much
/// is left.
pub const CLAIM_UNITS: u32 = 4;
/// Threads of a pass-1 block, and the walking threads of a pass-2 block: a tile is
/// `FUSED_ITEMS × FUSED_THREADS` counts.
pub const FUSED_THREADS: u32 = 256;
/// Threads of a pass-2 block: the walking warps plus one scheduling warp.
pub const FUSED_PASS2_THREADS: u32 = FUSED_THREADS + WARP_SIZE;
/// Sources per tile.
const TILE: usize = FUSED_ITEMS * FUSED_THREADS as usize;
/// Warps of [`FUSED_THREADS`] threads: a pass-1 block, and the walking warps of a pass-2 block.
const WARPS: u32 = FUSED_THREADS / WARP_SIZE;
/// Tiles each block of [`push_fused_tiles`] sums.
pub const PUSH_TILES: usize = 4;
/// Shared `u64`s [`push_fused_tiles`] needs: each warp's part of each tile's sum.
pub const FUSED_PUSH_SCRATCH_U64: usize = WARPS as usize * PUSH_TILES;
/// The shared memory of [`for_each_fused`], as one struct: a user's kernel declares one shared
/// allocation of it.
#[repr(C, align(16))]
pub struct FusedShared {
    /// One step of marks per warp.
    marks: [u32; WARPS as usize * STEP as usize],
    /// The tile's exclusive prefixes, one per source, then its end.
    bounds: [u32; TILE + 1],
    /// The block scan's scratch, then the next [`Part`] for the block.
    scratch: [u32; BLOCK_SCAN_SCRATCH + 3],
}

/// Destination items per warp step: four groups of 64, two per lane each.
pub const STEP: u32 = 4 * PAIRS;
const PAIRS: u32 = 2 * WARP_SIZE;

/// Pass 1 of S2.5f: block `b` sums tiles `PUSH_TILES·b ..` of `v`'s counts, finds the sum of
/// everything before them with a decoupled look-back over the blocks' published sums, and
/// writes the plan records of its tiles (see the module docs); the last block also writes the
/// end record and stores the exact total in `ctrl.total` and the unit count in `ctrl.units` (0
/// when the total exceeds the capacity, which raises [`super::FLAG_CAPACITY`]).
///
/// **Never hangs.** A block waits only on blocks before it, which the hardware starts first
/// (as CUB's scans assume); should one of them still not have published after
/// [`FALLBACK_POLLS`] polls, the waiting warp sums that block's counts itself (the *decoupled
/// fallback* of Smith, Levien and Owens), so no wait depends on the start order. No atomics:
/// the control block's `packed` word says which of each block's two look-back words this launch
/// uses, and the last block flips it for the next launch.
///
/// # Safety
/// `v` is a valid view of strategy `SCAN_FUSED` with `tiles + 1` records and two look-back words
/// per block (`v.scan_status`, as `u64`s) that, like the control block, were zeroed before the
/// first pass 1 (every pass 1 leaves them ready for the next); `scratch` is
/// [`FUSED_PUSH_SCRATCH_U64`] shared `u64`s; the launch has `ceil(tiles / PUSH_TILES)` blocks
/// (`p1 > 0`) of [`FUSED_THREADS`] threads, and every thread calls this.
#[inline(always)]
pub unsafe fn push_fused_tiles(v: &ExpandView, scratch: *mut u64) {
    // Read before the loads; needed after them.
    let launch = if warp_id() == 0 { load_relaxed_u64(addr_of_mut!((*v.ctrl).packed)) } else { 0 };
    sum_tiles(v, scratch, block_idx_x());
    sync_threads();
    // Pass 2 (when launched as a programmatic dependent) may start its blocks now; they wait
    // for this grid in `for_each_fused`.
    grid_launch_dependents();
    if warp_id() == 0 {
        publish_and_plan(v, scratch, launch);
    }
}

/// Bit of pass 1's launch word (`ctrl.packed`): which of each block's two look-back words this
/// launch uses. Bits 32..63 below it hold the previous launch's block count.
const LAUNCH_PARITY: u64 = 1 << 63;
/// A look-back word's status: the block's own sum is published.
const LB_AGGREGATE: u64 = 1 << 62;
/// A look-back word's status: the sum of everything up to and including the block.
const LB_PREFIX: u64 = 2 << 62;
/// A look-back word's flag: the sum rests on a fallback (a block summed by another), so that
/// block may not have read the launch word yet.
const LB_FELL_BACK: u64 = 1 << 61;
/// A look-back word's value bits: sums saturate here (far above any capacity).
const LB_VALUE: u64 = LB_FELL_BACK - 1;
/// Predecessors each lane inspects per look-back round (32·4 = 128 blocks). More cost registers
/// (pass 1 has 64 at 4: four blocks per SM, the whole grid of P1 = 2^22 in one wave; 16 made 102)
/// and measured no faster.
const LOOKBACK: usize = 4;
/// How long a look-back sleeps between polls of words not yet published, in nanoseconds (polls
/// without a pause flood the L2 lines of the words while the counts are still loading).
const SPIN_NS: u32 = 100;
/// Polls of an unpublished predecessor before the look-back sums its counts itself (~100 µs:
/// a started block publishes within a few).
pub const FALLBACK_POLLS: u32 = 512;

/// Sums the `PUSH_TILES` tiles of the block at position `pos` into `scratch[w·PUSH_TILES + k]`
/// (warp `w`'s part of tile `k`). All loads first (`PUSH_TILES` runs in flight per thread), and
/// a block inside `p1` loads without branches. Written out per tile (constant indices; a loop
/// over the tiles put `sums` on the stack).
#[inline(always)]
unsafe fn sum_tiles(v: &ExpandView, scratch: *mut u64, pos: u32) {
    let first_tile = pos as usize * PUSH_TILES;
    let inside = (first_tile + PUSH_TILES) * TILE <= v.p1 as usize;
    let fast =
        |k: usize| run_sum(load_full_run(v.counts, (first_tile + k) * TILE + thread_idx_x() as usize * FUSED_ITEMS));
    let slow = |k: usize| run_sum(load_run(v.counts, v.p1, first_tile + k));
    let sums: [u64; PUSH_TILES] =
        if inside { [fast(0), fast(1), fast(2), fast(3)] } else { [slow(0), slow(1), slow(2), slow(3)] };
    let w = warp_id() as usize;
    for (k, &s) in sums.iter().enumerate() {
        let s = warp_inclusive_sum_u64(s);
        if lane_id() == WARP_SIZE - 1 {
            write_volatile(scratch.add(w * PUSH_TILES + k), s);
        }
    }
}

/// Warp 0 of pass 1's block: publishes the block's sum, looks back for the sum before it,
/// publishes the sum through it and writes the plan records of its tiles; the last block writes
/// the end record and the control block, and flips the launch word. Also clears the other
/// look-back word of the previous launch's blocks, for the next launch.
#[inline(always)]
unsafe fn publish_and_plan(v: &ExpandView, scratch: *const u64, launch: u64) {
    let lane = lane_id();
    let (pos, grid) = (block_idx_x(), grid_dim_x());
    let tiles = tile_count(v);
    let parity = (launch >> 63) as usize;
    let words = v.scan_status as *mut u64;
    // Lane `k < PUSH_TILES`: tile `k`'s sum, and the block's sums through it.
    let k = lane as usize;
    let tile_sum = if k < PUSH_TILES {
        (0..WARPS as usize).fold(0u64, |a, w| a + read_volatile(scratch.add(w * PUSH_TILES + k)))
    } else {
        0
    };
    let through = warp_inclusive_sum_u64(tile_sum);
    let aggregate = shfl_idx_any(through, PUSH_TILES as u32 - 1);
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
    let cap = v.capacity as u64;
    let tile = pos * PUSH_TILES as u32 + lane;
    if k < PUSH_TILES && tile < tiles {
        let first = sat_add(before, through - tile_sum);
        write_volatile(v.records.add(tile as usize) as *mut u64, plan_record(first.min(cap), tile as usize));
    }
    if pos == grid - 1 {
        if fell_back != 0 {
            // A block summed by another may not have started: the launch word is flipped only
            // after every block has read it (its word is out).
            wait_for_all(words.add(parity), grid);
        }
        if lane == 0 {
            let over = after > cap;
            let end = plan_record(after.min(cap), tiles as usize);
            write_volatile(v.records.add(tiles as usize) as *mut u64, end);
            store_relaxed_u64(addr_of_mut!((*v.ctrl).total), after);
            write_volatile(addr_of_mut!((*v.ctrl).units), if over { 0 } else { (end >> 32) as u32 });
            // Stored, not or-ed: the next pass 1 needs no memset of the control block.
            write_volatile(addr_of_mut!((*v.ctrl).flags), if over { super::FLAG_CAPACITY } else { 0 });
            store_relaxed_u64(addr_of_mut!((*v.ctrl).packed), (!launch & LAUNCH_PARITY) | (grid as u64) << 32);
        }
    }
}

/// The sum of the blocks before `pos` (`> 0`) and [`LB_FELL_BACK`] if it rests on a fallback,
/// by the calling warp. `words` is this launch's side (block `j`'s word at `words[2j]`). Each
/// round loads the words of the `32·LOOKBACK` nearest predecessors not yet seen (lane `l`, slot
/// `q`: the block `32q + l` before the window's end), waits until each has published something,
/// and adds the aggregates up to the nearest inclusive prefix; without one in the window the
/// next round goes further back. Block 0 publishes its prefix at once, so the walk ends.
#[inline(always)]
unsafe fn look_back(v: &ExpandView, words: *const u64, pos: u32) -> (u64, u64) {
    let lane = lane_id() as i64;
    let word = |j: i64| if j >= 0 { load_relaxed_u64(words.add(2 * j as usize)) } else { LB_PREFIX };
    let (mut before, mut fell_back) = (0u64, false);
    let mut end = pos as i64 - 1;
    loop {
        let mut w = [0u64; LOOKBACK];
        for (q, x) in w.iter_mut().enumerate() {
            *x = word(end - (32 * q as i64 + lane));
        }
        let mut polls = 0;
        // Warp-uniform (the fallback shuffles): lanes whose words are all out wait with the rest.
        while vote_any(w.iter().any(|&x| x < LB_AGGREGATE)) {
            if polls == FALLBACK_POLLS {
                // Sum each silent predecessor's counts instead (all its tiles are full: only
                // the last block's are not).
                for (q, x) in w.iter_mut().enumerate() {
                    let mut silent = ballot(*x < LB_AGGREGATE);
                    while silent != 0 {
                        let l = silent.trailing_zeros();
                        silent &= silent - 1;
                        let sum = block_sum_by_warp(v.counts, (end - (32 * q as i64 + l as i64)) as usize);
                        if lane as u32 == l {
                            *x = LB_AGGREGATE | LB_FELL_BACK | sum;
                        }
                    }
                }
                break;
            }
            nanosleep(SPIN_NS);
            for (q, x) in w.iter_mut().enumerate() {
                if *x < LB_AGGREGATE {
                    *x = word(end - (32 * q as i64 + lane));
                }
            }
            polls += 1;
        }
        // The nearest inclusive prefix: the smallest distance `32q + l` whose word has one.
        let mut stop = u32::MAX;
        for (q, &x) in w.iter().enumerate() {
            let prefixes = ballot(x >= LB_PREFIX);
            if stop == u32::MAX && prefixes != 0 {
                stop = 32 * q as u32 + prefixes.trailing_zeros();
            }
        }
        let mut sum = 0u64;
        for (q, &x) in w.iter().enumerate() {
            if 32 * q as u32 + lane as u32 <= stop {
                sum = sat_add(sum, x & LB_VALUE);
                fell_back |= x & LB_FELL_BACK != 0;
            }
        }
        before = sat_add(before, warp_sum_saturated(sum));
        if stop != u32::MAX {
            return (before, if ballot(fell_back) != 0 { LB_FELL_BACK } else { 0 });
        }
        end -= 32 * LOOKBACK as i64;
    }
}

/// The sum of pass-1 block `j`'s counts (four full tiles), by the calling warp: a look-back's
/// fallback for a block that has not published.
#[inline(never)]
unsafe fn block_sum_by_warp(counts: *const u32, j: usize) -> u64 {
    // A side effect, so that the compiler may not sink the call into the one lane that uses
    // its result (it shuffles across the warp).
    sync_warp();
    let run = counts.add(j * PUSH_TILES * TILE) as *const [u32; 4];
    let mut sum = 0u64;
    for i in 0..PUSH_TILES * TILE / 4 / WARP_SIZE as usize {
        let [a, b, c, d] = load_v4_u32(run.add(i * WARP_SIZE as usize + lane_id() as usize));
        sum += a as u64 + b as u64 + c as u64 + d as u64;
    }
    // At most 2^45: the saturation never bites.
    warp_sum_saturated(sum)
}

/// Waits (the calling warp) until each of the `grid` blocks has published its word on this
/// launch's side.
#[inline(never)]
unsafe fn wait_for_all(words: *const u64, grid: u32) {
    let mut j = lane_id();
    while j < grid {
        while load_relaxed_u64(words.add(2 * j as usize)) < LB_AGGREGATE {
            nanosleep(SPIN_NS);
        }
        j += WARP_SIZE;
    }
    sync_warp();
}

/// `a + b`, saturated at [`LB_VALUE`] (both at most that).
#[inline(always)]
fn sat_add(a: u64, b: u64) -> u64 {
    (a + b).min(LB_VALUE)
}

/// The sum of `x` over the warp, to every lane, saturated at [`LB_VALUE`] (each `x` at most
/// that): a butterfly of 64-bit shuffles.
#[inline(always)]
fn warp_sum_saturated(x: u64) -> u64 {
    let mut sum = x;
    let mut m = WARP_SIZE / 2;
    while m > 0 {
        let other = (shfl_xor((sum >> 32) as u32, m) as u64) << 32 | shfl_xor(sum as u32, m) as u64;
        sum = sat_add(sum, other);
        m /= 2;
    }
    sum
}

/// Tiles of `v`'s counts.
#[inline(always)]
fn tile_count(v: &ExpandView) -> u32 {
    v.p1.div_ceil(TILE as u32)
}

/// This thread's run of `counts` (`p1` of them) in tile `tile`, zero past `p1` (and for the
/// threads past [`FUSED_THREADS`]).
#[inline(always)]
unsafe fn load_run(counts: *const u32, p1: u32, tile: usize) -> [u32; FUSED_ITEMS] {
    let tid = thread_idx_x() as usize;
    let first = tile * TILE + tid * FUSED_ITEMS;
    let valid = if tid < FUSED_THREADS as usize { (p1 as usize).saturating_sub(first).min(FUSED_ITEMS) } else { 0 };
    if valid == FUSED_ITEMS {
        return load_full_run(counts, first);
    }
    let mut c = [0u32; FUSED_ITEMS];
    // A fixed trip count (constant indices) keeps `c` in registers.
    for (j, x) in c.iter_mut().enumerate() {
        if j < valid {
            *x = *counts.add(first + j);
        }
    }
    c
}

/// The `FUSED_ITEMS` counts from `first` (a multiple of 4), all inside the array: 16-byte loads.
#[inline(always)]
unsafe fn load_full_run(counts: *const u32, first: usize) -> [u32; FUSED_ITEMS] {
    let mut c = [0u32; FUSED_ITEMS];
    for q in 0..FUSED_ITEMS / 4 {
        let [a, b, cc, d] = load_v4_u32(counts.add(first + 4 * q) as *const [u32; 4]);
        (c[4 * q], c[4 * q + 1], c[4 * q + 2], c[4 * q + 3]) = (a, b, cc, d);
    }
    c
}

/// The exact sum of a run of counts.
#[inline(always)]
fn run_sum(c: [u32; FUSED_ITEMS]) -> u64 {
    c.iter().map(|&x| x as u64).sum()
}

/// The plan record `[first item, first unit]` of tile `t` starting at item `first_item`, as one
/// 64-bit word (a `[u32; 2]` store would go through the stack). Tile `t`'s units are the windows
/// `first_item / UNIT_ITEMS ..= end / UNIT_ITEMS`, numbered from `first_item / UNIT_ITEMS + t`:
/// so unit `u` of tile `t` is window `u - t`, and the numbering needs no scan of its own. The
/// last window holds none of the tile's items when the tile ends on a window boundary (or is
/// empty); pass 2 skips that unit.
#[inline(always)]
fn plan_record(first_item: u64, t: usize) -> u64 {
    let first_unit = (first_item / UNIT_ITEMS as u64) as u32 + t as u32;
    (first_unit as u64) << 32 | first_item
}

/// Pass 2 of S2.5f: calls `f` for every destination item planned by pass 1, as calls `f(dst,
/// [src; 2], [local; 2], count)`: items `dst .. dst + count` (`count` is 1 or 2; when 2, `dst` is
/// even, so a pair of 8-byte records is one aligned 16-byte store, and the lanes of a warp cover
/// 64 consecutive items). `dst` is the item's canonical index (all items of source 0, then of
/// source 1, ...). Nothing is produced when pass 1 raised the capacity flag.
///
/// A block is eight walking warps and one scheduling warp. While the walkers produce a part
/// of a claim, the scheduler claims and finds the next one, so that claim and search (an
/// atomic and a few dependent L2 loads) are off the block's critical path.
///
/// `f` is called by lanes independently (not warp-synchronously): no warp-wide operations in it.
///
/// # Safety
/// `v` is the view of a [`push_fused_tiles`] launched earlier (finished, or the kernel before
/// this one on the stream when this one is its programmatic dependent: it waits for it);
/// `smem` points to a [`FusedShared`] in shared memory used by nothing else; blocks have [`FUSED_PASS2_THREADS`]
/// threads, any grid; every thread calls this. Concurrent pass 2s of one view are not allowed
/// (they share the claims).
#[inline(always)]
pub unsafe fn for_each_fused(v: &ExpandView, smem: *mut FusedShared, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    // Launched as pass 1's programmatic dependent, this block may be running before the plan is
    // done.
    grid_dependency_wait();
    let ctrl = v.ctrl;
    let units = read_volatile(addr_of_mut!((*ctrl).units));
    let slot = addr_of_mut!((*smem).scratch[BLOCK_SCAN_SCRATCH]);
    let scheduler = warp_id() == WARPS;
    // Block `b`'s first claim is units `b·CLAIM_UNITS ..` (no atomic on the way to the first
    // stores); the atomic claims count on from the grid's.
    let first = block_idx_x() * CLAIM_UNITS;
    let mut claim = first..first + CLAIM_UNITS;
    if scheduler {
        schedule(v, slot, &mut claim, units);
    }
    sync_threads();
    loop {
        let part = Part::load(slot);
        if part.start >= units {
            break;
        }
        let span = scan_part(v, smem, part);
        // Everyone has read the slot (before the scan's barriers): the scheduler refills it.
        if scheduler {
            schedule(v, slot, &mut claim, units);
        } else if span.begin < span.stop {
            let marks = addr_of_mut!((*smem).marks) as *mut u32;
            walk(addr_of_mut!((*smem).bounds) as *const u32, marks, span, &mut f);
        }
        // The bounds, marks and slot are rewritten for the next part only after everyone is done.
        sync_threads();
    }
    // The last block out clears the claims: another pass 2 after the same pass 1 starts over.
    if thread_idx_x() == 0 && atomic_add_u32(addr_of_mut!((*ctrl).exits), 1) + 1 == grid_dim_x() {
        write_volatile(addr_of_mut!((*ctrl).counter), 0);
        write_volatile(addr_of_mut!((*ctrl).exits), 0);
    }
}

/// What a block produces next: the units `start..end` of a claim, all in tile `tile`.
#[derive(Clone, Copy)]
struct Part {
    start: u32,
    end: u32,
    tile: u32,
}

impl Part {
    /// From the three shared words at `slot` (word by word: a struct access goes through the
    /// stack).
    #[inline(always)]
    unsafe fn load(slot: *const u32) -> Part {
        Part { start: read_volatile(slot), end: read_volatile(slot.add(1)), tile: read_volatile(slot.add(2)) }
    }

    #[inline(always)]
    unsafe fn store(self, slot: *mut u32) {
        write_volatile(slot, self.start);
        write_volatile(slot.add(1), self.end);
        write_volatile(slot.add(2), self.tile);
    }
}

/// The scheduling warp: writes to `slot` the next part of `claim` (the claim's units not yet
/// handed out), claiming units first when it is used up; a part starting at or past `units`
/// means none is left. Claims are guided (as OpenMP's `guided` schedule): `CLAIM_UNITS` units
/// while more than `2·CLAIM_UNITS` per block remain, down to one unit at the end, so that the
/// blocks finish within about one unit's time of each other.
#[inline(always)]
unsafe fn schedule(v: &ExpandView, slot: *mut u32, claim: &mut core::ops::Range<u32>, units: u32) {
    if claim.start >= claim.end {
        let grid = grid_dim_x();
        // What this block last saw left over: a guess at what the others have left.
        let k = (units.saturating_sub(claim.end) / (2 * grid)).clamp(1, CLAIM_UNITS);
        let mut u = 0;
        if lane_id() == 0 {
            u = atomic_add_u32(addr_of_mut!((*v.ctrl).counter), k);
        }
        let u = (grid * CLAIM_UNITS).saturating_add(shfl_idx(u, 0));
        *claim = u..u.saturating_add(k);
    }
    // Searched whether or not the claim holds units (the search stays inside the records), so
    // that the first part need not wait for `units`, which the first call has just begun to read.
    let tiles = tile_count(v);
    let t = find_tile(v.records, tiles, claim.start);
    // The claim's units in tile `t` end where the next tile's begin (the end record holds
    // `units`, so a part never passes it). Without tiles (`p1 = 0`) there are no units, and no
    // record to read.
    let end = if t < tiles { claim.end.min(load_record(v.records, t + 1)[1]) } else { claim.start };
    let part = Part { start: claim.start, end, tile: t };
    claim.start = end;
    if lane_id() == 0 {
        part.store(slot);
    }
}

/// The tile of unit `u`: the last `t < tiles` (0 without tiles) whose first unit is at most
/// `u` (every tile has a unit, so the first units strictly increase), by a 32-way warp search
/// ([`warp_last_holding`]).
#[inline(always)]
unsafe fn find_tile(records: *const [u32; 2], tiles: u32, u: u32) -> u32 {
    warp_last_holding(tiles, |k| load_nc_u32((records.add(k as usize) as *const u32).add(1)) <= u)
}

/// A part ready to walk: its items `begin..stop` of the tile whose bounds are in shared memory
/// (none when `begin >= stop`), the tile's first source and its real sources.
#[derive(Clone, Copy)]
struct Span {
    first_src: u32,
    sources: u32,
    begin: u32,
    stop: u32,
}

/// Scans the part's tile into the bounds (every thread; ends with a barrier) and returns the
/// items of its units (`begin >= stop` when it has none).
#[inline(always)]
unsafe fn scan_part(v: &ExpandView, smem: *mut FusedShared, part: Part) -> Span {
    let t = part.tile;
    let tile_begin = load_record(v.records, t)[0];
    let tile_end = load_record(v.records, t + 1)[0];
    let first_src = t * TILE as u32;
    // Bounds: the tile's exclusive prefixes, then its end at `bounds[TILE]`. Past `p1` the
    // counts are zero, so the padding bounds all hold the end too.
    let tid = thread_idx_x() as usize;
    let c = load_run(v.counts, v.p1, t as usize);
    let bounds = addr_of_mut!((*smem).bounds) as *mut u32;
    let (excl, _) =
        block_exclusive_sum(addr_of_mut!((*smem).scratch) as *mut u32, c.iter().fold(0u32, |a, &x| a.wrapping_add(x)));
    if tid < FUSED_THREADS as usize {
        let mine = bounds.add(tid * FUSED_ITEMS) as *mut [u32; 4];
        let mut run = tile_begin.wrapping_add(excl);
        for q in 0..FUSED_ITEMS / 4 {
            let mut four = [0u32; 4];
            for i in 0..4 {
                four[i] = run;
                run = run.wrapping_add(c[4 * q + i]);
            }
            store_shared_v4(mine.add(q), four);
        }
    } else if tid == FUSED_THREADS as usize {
        write_volatile(bounds.add(TILE), tile_end);
    }
    sync_threads();
    // The tile's items in the `UNIT_ITEMS` windows of its units: unit `u` of tile `t` is
    // window `u - t` (see `plan_record`).
    let (first, last) = (part.start - t, part.end - 1 - t);
    Span {
        first_src,
        sources: (v.p1 - first_src).min(TILE as u32),
        begin: tile_begin.max(first.saturating_mul(UNIT_ITEMS)),
        stop: tile_end.min(last.saturating_mul(UNIT_ITEMS).saturating_add(UNIT_ITEMS)),
    }
}

/// Record `t` of pass 1's plan (written by an earlier launch, so read through the
/// non-coherent cache).
#[inline(always)]
unsafe fn load_record(records: *const [u32; 2], t: u32) -> [u32; 2] {
    let p = records.add(t as usize) as *const u32;
    [load_nc_u32(p), load_nc_u32(p.add(1))]
}

/// Produces the items `begin..stop` (`begin < stop`) of a tile whose bounds are in shared
/// memory: each warp takes a contiguous share in steps of [`STEP`] items (see the module docs).
#[inline(always)]
unsafe fn walk(bounds: *const u32, marks: *mut u32, span: Span, f: &mut impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let Span { first_src, sources, begin, stop } = span;
    // Steps are aligned to multiples of `STEP` in the *global* index space, so every pair
    // starts at an even index; a step shared with a neighbouring unit produces only its items.
    let first_step = begin / STEP;
    let steps = (stop - 1) / STEP + 1 - first_step;
    let per_warp = steps.div_ceil(WARPS);
    let w = warp_id();
    let mut s = first_step + w * per_warp;
    let s_end = (first_step + (w + 1) * per_warp).min(first_step + steps);
    if s >= s_end {
        return;
    }
    let lane = lane_id();
    let below = lanemask_lt();
    let marks = marks.add(w as usize * STEP as usize);
    // `cur` (warp-uniform): the last non-empty source starting at or before the step's first
    // item (a source starting exactly there is marked at offset 0), where it starts, and where
    // the next source starts (`cur < sources`, and `bounds[sources]` is the tile's end). Past
    // `sources` the padding bounds all equal the end, so the marking loop stops at the last real
    // source instead of walking the padding.
    let mut cur = last_at_or_below(bounds, sources, (s * STEP).max(begin));
    let mut cur_start = load_shared(bounds.add(cur as usize));
    let mut next_start = load_shared(bounds.add(cur as usize + 1));
    while s < s_end {
        // Every step holds an item of the unit, so `base < stop`; offsets from `base` cannot wrap.
        let base = s * STEP;
        let (lo, hi) = (begin.saturating_sub(base), stop - base);
        if next_start - base >= STEP {
            // The whole step lies in `cur` (inside a large source): no marks needed.
            for pair in 0..STEP / PAIRS {
                let at = pair * PAIRS + 2 * lane;
                let local = (base + at).wrapping_sub(cur_start);
                let src = first_src + cur;
                emit(f, base, at, lo..hi, [src; 2], [local, local.wrapping_add(1)]);
            }
            s += 1;
            continue;
        }
        store_shared_v4(marks.add(8 * lane as usize) as *mut [u32; 4], [0; 4]);
        store_shared_v4(marks.add(8 * lane as usize + 4) as *mut [u32; 4], [0; 4]);
        sync_warp();
        // Mark each non-empty source starting in the step with `(source << 8) | offset`:
        // sources after `cur` start after the step's first item, and non-empty ones at distinct
        // offsets, so no two lanes write one mark.
        let mut j = cur + 1;
        loop {
            let k = j + lane;
            let (at, inside) = if k < sources {
                let at = load_shared(bounds.add(k as usize)) - base;
                (at, at < STEP && load_shared(bounds.add(k as usize + 1)) - base > at)
            } else {
                (u32::MAX, false)
            };
            if inside {
                write_volatile(marks.add(at as usize), (k << 8) | at);
            }
            if shfl_idx(at, WARP_SIZE - 1) >= STEP {
                break;
            }
            j += WARP_SIZE;
        }
        sync_warp();
        // Item `x`'s source is the latest mark at or before it (`cur` where there is none).
        // Marks grow along the step, so that is the lane's own mark or the last mark of the
        // nearest lane below with one (a ballot and one shuffle per 64 items).
        let mut carry = 0u32;
        for pair in 0..STEP / PAIRS {
            let at = pair * PAIRS + 2 * lane;
            let [m0, m1] = load_shared::<[u32; 2]>(marks.add(at as usize) as *const [u32; 2]);
            let last = m0.max(m1);
            let lanes = ballot(last != 0);
            let lower = lanes & below;
            let from_lower = shfl_idx(last, 31u32.saturating_sub(lower.leading_zeros()));
            let m0 = if m0 != 0 {
                m0
            } else if lower != 0 {
                from_lower
            } else {
                carry
            };
            let m1 = if m1 != 0 { m1 } else { m0 };
            let group_last = shfl_idx(last, 31u32.saturating_sub(lanes.leading_zeros()));
            if lanes != 0 {
                carry = group_last;
            }
            let locate = |m: u32, at: u32| {
                if m == 0 {
                    (first_src + cur, (base + at).wrapping_sub(cur_start))
                } else {
                    (first_src + (m >> 8), at - (m & 0xff))
                }
            };
            let ((s0, l0), (s1, l1)) = (locate(m0, at), locate(m1, at + 1));
            emit(f, base, at, lo..hi, [s0, s1], [l0, l1]);
        }
        if carry != 0 {
            cur = carry >> 8;
            cur_start = base + (carry & 0xff);
            next_start = load_shared(bounds.add(cur as usize + 1));
        }
        // The marks are cleared for the next step only after every lane has read them.
        sync_warp();
        s += 1;
    }
}

/// Calls `f` for the items `base + at` and `base + at + 1` that lie in the unit (offsets
/// `valid` from `base`), as [`for_each_fused`] promises: one call for a pair, else one per item.
#[inline(always)]
fn emit(
    f: &mut impl FnMut(u32, [u32; 2], [u32; 2], u32),
    base: u32,
    at: u32,
    valid: core::ops::Range<u32>,
    src: [u32; 2],
    local: [u32; 2],
) {
    match (valid.contains(&at), valid.contains(&(at + 1))) {
        (true, both) => f(base + at, src, local, if both { 2 } else { 1 }),
        (false, true) => f(base + at + 1, [src[1], 0], [local[1], 0], 1),
        (false, false) => {}
    }
}

/// The last `k` in `0..sources` with `bounds[k] <= x` (`bounds` is non-decreasing with
/// `bounds[0] <= x < bounds[sources]`): the source whose range holds destination `x`, by a
/// 32-way warp search ([`warp_last_holding`]: three rounds for a tile; every lane calls this).
#[inline(always)]
unsafe fn last_at_or_below(bounds: *const u32, sources: u32, x: u32) -> u32 {
    warp_last_holding(sources, |k| load_shared(bounds.add(k as usize)) <= x)
}
