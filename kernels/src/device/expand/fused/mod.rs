//! S2.5f `ScanFused`: S2.5 without its prefix array, and pass 2 balanced over output ranges.
//!
//! **Pass 1** ([`push_fused_tiles`]) sums every *tile* of `FUSED_ITEMS × FUSED_THREADS` counts
//! (each block sums [`FUSED_PUSH_TILES`] tiles), gets the sum of everything before its tiles from a
//! decoupled look-back over the blocks' published sums (one 64-bit word per block: status and
//! value together, so a poll is one load), and cuts the output into *units*: the part of a
//! tile's output range that falls in one aligned window of [`FUSED_UNIT_ITEMS`] destination items.
//! Per tile it stores `(first item, first unit)`; the last block adds the end record, the
//! total, the unit count and the capacity flag. Pass 1 moves only the counts (which then sit
//! in L2 for pass 2: on sm_90 read with an `evict_last` policy, the lines of the tiles without
//! items given back at once, those with items by pass 2's own load). Units are numbered
//! without a scan of their own: tile `t`'s first unit is `first item / FUSED_UNIT_ITEMS + t`
//! (see [`warpwork_abi::expand::fused::fused_plan_record`]), which leaves an empty unit per
//! tile that ends on a window boundary (or is empty), for pass 2 to skip. Where most of a
//! tile's sources are empty, pass 1 also *lists* them as it sums (each warp its part, see
//! [`warpwork_abi::expand::fused::FUSED_LIST_WARP_ENTRIES`]) and flags the tile's record.
//!
//! **Pass 2** ([`for_each_fused`], a persistent grid) claims runs of consecutive units with one
//! atomic each, finds a unit's tile with a 32-way warp search over the tiles' first units, scans
//! that tile's counts into a shared-memory list of its non-empty sources (*entries*: where each
//! starts, and which it is; read from pass 1's list where the tile is listed) and produces the
//! items of the claim's units in that tile at once (a *part*; where the tile is listed and the
//! claim runs on into tiles listed too, the part takes those as well: their lists are read
//! together, so a sparse claim is one part, not one per tile); a
//! scheduling warp claims and finds the next part while the others walk. Claims are *guided*:
//! [`FUSED_CLAIM_UNITS`] units while many remain, down to one at the end. A tile with a huge
//! source is shared by as many blocks as it has claims, and the grid's tail is one unit of
//! `FUSED_UNIT_ITEMS` items, not the heaviest tile, as when each block owned a tile. No
//! look-back either: the scan across tiles is done once, in pass 1.
//!
//! The walk over a part: while the entries are written, each one that starts inside the part
//! sets its bit in a bitmap of the part's items (one shared-memory atomic OR). Each walking warp
//! then takes a contiguous share in steps of [`STEP`] items; lane `l` holds items `2l, 2l + 1`
//! of each 64, and an item's entry is the number of set bits up to it, counted from the entries
//! before the step (three population counts of one 8-byte load of the bitmap), so the pairs go
//! out as coalesced 16-byte stores with no search per item and no work per empty source
//! (where 90% of the sources are empty, a step of 256 items spans some 500 sources).
//!
//! **Width.** Everything is generic over the destination index width ([`Offset`]): `u32`
//! below 2^32 items, `u64` past it (the host's choice; plan records then take
//! 64-bit fields and the entries in shared memory 16 bytes). Unit numbers and
//! everything inside a part (a few units) stay 32-bit, so the capacity stops at
//! [`FUSED_MAX_CAPACITY`].
//!
//! What this costs: the counts are read twice (pass 1, then pass 2 from L2), a tile is scanned
//! once per claim that meets it (in shared memory; not again where the block's next part is in
//! the same tile, whose entries it then only marks again, and its counts not loaded where the
//! tile has no items), every non-empty source of a scanned tile is one entry store and, where it
//! starts in the part, one atomic, and the per-item work must live in the kernel that calls
//! [`for_each_fused`] (a closure; the host's `expand_with` has no separate pass-2 kernel to hand
//! it). The one launch (P1 ≤ 2^18) keeps the walk this one replaced: see `once_walk`.

mod lookback;
// The one launch is warpwork's own kernel only (no building block for users' kernels yet).
#[cfg(feature = "expand")]
mod once;
#[cfg(feature = "expand")]
mod once_walk;
mod plan;
mod schedule;
mod tile;
mod walk;

#[cfg(feature = "expand")]
pub(crate) use once::{fused_once, OncePlan};
#[cfg(feature = "expand")]
pub(crate) use once_walk::OnceShared;
pub use plan::push_fused_tiles;
pub use schedule::for_each_fused;

use crate::arch::store_relaxed_u64;
use crate::arch::{load_nc_u32, load_nc_u64, load_v4_u32, thread_idx_x, WARP_SIZE};
use crate::block::BLOCK_SCAN_SCRATCH;
use crate::device::expand::{ExpandView, Offset, FLAG_CAPACITY};
use core::ptr::{addr_of_mut, write_volatile};
use warpwork_abi::expand::fused::{
    fused_first_unit, fused_list_at, fused_plan_record, FUSED_LIST_HEAD_WORDS, FUSED_RECORD_FLAG_WORD,
    FUSED_RECORD_SLOTS,
};
use warpwork_abi::expand::Control;

pub use warpwork_abi::expand::fused::{
    FUSED_CLAIM_UNITS, FUSED_ITEMS, FUSED_MAX_CAPACITY, FUSED_PASS2_THREADS, FUSED_PUSH_TILES, FUSED_THREADS,
    FUSED_TILE, FUSED_UNIT_ITEMS,
};

/// Warps of [`FUSED_THREADS`] threads: a pass-1 block, and the walking warps of a pass-2 block.
const WARPS: u32 = FUSED_THREADS / WARP_SIZE;
/// Shared `u64`s [`push_fused_tiles`] needs: each warp's part of each tile's sum.
pub const FUSED_PUSH_SCRATCH_U64: usize = WARPS as usize * FUSED_PUSH_TILES;
/// The shared memory of [`for_each_fused`], as one struct: a user's kernel declares one shared
/// allocation of it, of the view's destination index width `O` (`FusedShared<u64>` when
/// [`crate::device::expand::ExpandView::wide`]).
#[repr(C, align(16))]
pub struct FusedShared<O = u32> {
    /// The part's tiles' non-empty sources in order, each as `[first item, source]` (the source
    /// counted from the part's first tile's first).
    entries: [[O; 2]; FUSED_TILE as usize],
    /// A listed part's list slots, copied from pass 1's lists (16-byte aligned: after the
    /// entries).
    slots: [u32; tile::LIST_SLOTS],
    /// One bit per destination item of the part (from the step that holds its first): set where
    /// an entry starts.
    bitmap: [u32; tile::BITMAP_WORDS],
    /// The block scan's scratch (or a listed part's sums, see `tile::read_list`), then the next
    /// [`Part`](schedule::Part) for the block (four `u32`s).
    scratch: [u64; BLOCK_SCAN_SCRATCH + 2],
}

/// Destination items per warp step of the walk: four groups of 64, two per lane each
/// ([`FUSED_UNIT_ITEMS`] is a multiple of it).
pub const STEP: u32 = 4 * PAIRS;
const PAIRS: u32 = 2 * WARP_SIZE;

/// This thread's run of `counts` (`p1` of them) in tile `tile`, zero past `p1` (and for the
/// threads past [`FUSED_THREADS`]); full runs kept in L2 when `KEEP` ([`load_full_run`]).
#[inline(always)]
unsafe fn load_run<const KEEP: bool>(counts: *const u32, p1: u32, tile: usize) -> [u32; FUSED_ITEMS] {
    let tid = thread_idx_x() as usize;
    let first = tile * FUSED_TILE as usize + tid * FUSED_ITEMS;
    let valid = if tid < FUSED_THREADS as usize { (p1 as usize).saturating_sub(first).min(FUSED_ITEMS) } else { 0 };
    if valid == FUSED_ITEMS {
        return load_full_run::<KEEP>(counts, first);
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

/// The counts a part's scan needs: this thread's run of tile `t` unless the tile is `empty` (it
/// has no items) or `held` (its scan is already in shared memory), then zeros; and whether they
/// were loaded. An empty tile (every tile has a unit, so sparse counts make many parts without
/// items) and the held one (a huge source's tile, part after part) skip the trip to memory.
#[inline(always)]
unsafe fn counts_to_scan(v: &ExpandView, t: u32, empty: bool, held: u32) -> (bool, [u32; FUSED_ITEMS]) {
    let fresh = !empty && t != held;
    (fresh, if fresh { load_run::<false>(v.counts(), v.p1, t as usize) } else { [0; FUSED_ITEMS] })
}

/// The `FUSED_ITEMS` counts from `first` (a multiple of 4), all inside the array: 16-byte loads,
/// marked to be kept in L2 when `KEEP` (sm_90 builds: pass 1's loads, for pass 2 to find the
/// counts in L2; see [`plan`]).
#[inline(always)]
unsafe fn load_full_run<const KEEP: bool>(counts: *const u32, first: usize) -> [u32; FUSED_ITEMS] {
    let load = |p: *const [u32; 4]| {
        #[cfg(feature = "sm90")]
        if KEEP {
            return crate::arch::load_v4_u32_evict_last(p);
        }
        load_v4_u32(p)
    };
    let mut c = [0u32; FUSED_ITEMS];
    for q in 0..FUSED_ITEMS / 4 {
        let [a, b, cc, d] = load(counts.add(first + 4 * q) as *const [u32; 4]);
        (c[4 * q], c[4 * q + 1], c[4 * q + 2], c[4 * q + 3]) = (a, b, cc, d);
    }
    c
}

/// Writes plan record `t` (first item `first_item`, at most the capacity) in the layout of
/// the width `O` ([`FUSED_RECORD_SLOTS`] slots): `fused_plan_record` for `u32`, `[first item,
/// first unit]` as a `u64` and a `u32` for `u64`; not the tile's list flag
/// ([`record_flag`]). Returns the first unit.
#[inline(always)]
unsafe fn store_record<O: Offset>(records: *mut [u32; 2], t: u32, first_item: u64) -> u32 {
    let r = records.add(FUSED_RECORD_SLOTS * t as usize) as *mut u64;
    if O::WIDE {
        let first_unit = fused_first_unit(first_item, t);
        write_volatile(r, first_item);
        write_volatile(r.add(1) as *mut u32, first_unit);
        first_unit
    } else {
        let record = fused_plan_record(first_item, t);
        write_volatile(r, record);
        (record >> 32) as u32
    }
}

/// The list flag of plan record `t`: nonzero where pass 1 listed the tile.
#[inline(always)]
unsafe fn record_flag(records: *mut [u32; 2], t: u32) -> *mut u32 {
    (records.add(FUSED_RECORD_SLOTS * t as usize) as *mut u32).add(FUSED_RECORD_FLAG_WORD)
}

/// The first item of plan record `t` (written by an earlier launch: read through the
/// non-coherent cache).
#[inline(always)]
unsafe fn record_item<O: Offset>(records: *const [u32; 2], t: u32) -> O {
    let r = records.add(FUSED_RECORD_SLOTS * t as usize);
    if O::WIDE {
        O::from_u64(load_nc_u64(r as *const u64))
    } else {
        O::from_u32(load_nc_u32(r as *const u32))
    }
}

/// The first unit of plan record `t` (as [`record_item`]).
#[inline(always)]
unsafe fn record_unit<O: Offset>(records: *const [u32; 2], t: u32) -> u32 {
    let r = records.add(FUSED_RECORD_SLOTS * t as usize) as *const u32;
    load_nc_u32(r.add(if O::WIDE { 2 } else { 1 }))
}

/// The exact sum of a run of counts.
#[inline(always)]
fn run_sum(c: [u32; FUSED_ITEMS]) -> u64 {
    c.iter().map(|&x| x as u64).sum()
}

/// Bits of a packed sum that count non-empty sources (*entries*: a tile has at most
/// [`FUSED_TILE`]); the items are above them.
const ENTRY_BITS: u32 = 16;
const _: () = assert!(FUSED_TILE < 1 << ENTRY_BITS);

/// A run's items and non-empty sources, packed for one sum or scan: items above [`ENTRY_BITS`]
/// (a tile's at most 2^43 items, and a pass-1 block's four tiles, stay below 2^61), sources
/// below.
#[inline(always)]
fn packed_sum(c: [u32; FUSED_ITEMS]) -> u64 {
    run_sum(c) << ENTRY_BITS | c.iter().map(|&x| (x != 0) as u32).sum::<u32>() as u64
}

/// The entry count of a packed sum (or the rank of a packed exclusive prefix).
#[inline(always)]
fn entry_count(packed: u64) -> u32 {
    (packed & ((1 << ENTRY_BITS) - 1)) as u32
}

/// The items of a packed sum (or exclusive prefix).
#[inline(always)]
fn item_count(packed: u64) -> u64 {
    packed >> ENTRY_BITS
}

/// The heads of tile `t`'s list (in the view's `srcs`; see [`fused_list_at`]): `head[w]` the
/// [`packed_sum`] of pass-1 warp `w`'s part of the tile.
#[inline(always)]
unsafe fn list_head(v: &ExpandView, t: u32) -> *mut u64 {
    v.srcs().add(fused_list_at(t)) as *mut u64
}

/// Entry slot `i` of tile `t`'s list (warp `w`'s part from slot `w·FUSED_LIST_WARP_ENTRIES`).
#[inline(always)]
unsafe fn list_slot(v: &ExpandView, t: u32, i: u32) -> *mut u32 {
    v.srcs().add(fused_list_at(t) + FUSED_LIST_HEAD_WORDS + i as usize)
}

/// Units a block claims when about `left` units remain to be claimed by a grid of `grid` blocks:
/// guided (as OpenMP's `guided` schedule), [`FUSED_CLAIM_UNITS`] while more than
/// `2·FUSED_CLAIM_UNITS` per block remain, down to one at the end, so that the blocks finish
/// within about one unit's time of each other.
#[inline(always)]
fn guided_claim(left: u32, grid: u32) -> u32 {
    (left / (2 * grid)).clamp(1, FUSED_CLAIM_UNITS)
}

/// Stores the end of the plan in the control block: the exact `total`, the unit count (0 when
/// the total is over the capacity: nothing to walk) and the capacity flag — stored, not or-ed,
/// so that the next pass 1 needs no memset of the control block.
///
/// # Safety
/// `ctrl` is the launch's control block; one thread of the launch calls this.
#[inline(always)]
unsafe fn store_plan_end(ctrl: *mut Control, total: u64, units: u32, over: bool) {
    store_relaxed_u64(addr_of_mut!((*ctrl).total), total);
    write_volatile(addr_of_mut!((*ctrl).units), if over { 0 } else { units });
    write_volatile(addr_of_mut!((*ctrl).flags), if over { FLAG_CAPACITY } else { 0 });
}
