//! Pass 2 of S2.5f, the *schedule*: a persistent grid whose blocks claim runs of units, one
//! scheduling warp per block claiming and finding the next part while the others walk
//! ([`super::walk`]).

use super::tile::{scan_part, Held};
use super::walk::walk;
use super::{guided_claim, record_flag, record_unit, FusedShared, FUSED_CLAIM_UNITS, WARPS};
use crate::arch::{
    atomic_add_u32, ballot, block_idx_x, grid_dependency_wait, grid_dim_x, lane_id, load_nc_u32, shfl_idx, shfl_up,
    sync_threads, thread_idx_x, warp_id,
};
use crate::block::BLOCK_SCAN_SCRATCH;
use crate::device::expand::{ExpandView, Offset};
use crate::warp::warp_last_holding;
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::expand::fused::{fused_part_items, fused_part_items_wide, fused_tiles};

/// Pass 2 of S2.5f: calls `f` for every destination item planned by pass 1, as calls `f(dst,
/// [src; 2], [local; 2], count)`: items `dst .. dst + count` (`dst` of the view's destination
/// index width `O`: `u32`, or `u64` when [`ExpandView::wide`]; `count` is 1 or 2; when 2, `dst` is
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
/// `v` is the view of a [`super::push_fused_tiles`] launched earlier (finished, or the kernel before
/// this one on the stream when this one is its programmatic dependent: it waits for it);
/// `O` is the view's width (`u64` exactly when `v.wide()`, as pass 1's); `smem` points to a
/// [`FusedShared<O>`] in shared memory used by nothing else; blocks have [`super::FUSED_PASS2_THREADS`]
/// threads, any grid; every thread calls this. Concurrent pass 2s of one view are not allowed
/// (they share the claims).
#[inline(always)]
pub unsafe fn for_each_fused<O: Offset>(
    v: &ExpandView,
    smem: *mut FusedShared<O>,
    mut f: impl FnMut(O, [u32; 2], [u32; 2], u32),
) {
    // Launched as pass 1's programmatic dependent, this block may be running before the plan is
    // done.
    grid_dependency_wait();
    let ctrl = v.ctrl();
    let units = read_volatile(addr_of_mut!((*ctrl).units));
    let slot = addr_of_mut!((*smem).scratch[BLOCK_SCAN_SCRATCH]) as *mut u32;
    let scheduler = warp_id() == WARPS;
    // Block `b`'s first claim is units `b·FUSED_CLAIM_UNITS ..` (no atomic on the way to the first
    // stores); the atomic claims count on from the grid's.
    let first = block_idx_x() * FUSED_CLAIM_UNITS;
    let mut claim = Claim { units: first..first + FUSED_CLAIM_UNITS, next_tile: None };
    if scheduler {
        schedule::<O>(v, slot, &mut claim, units);
    }
    sync_threads();
    // The tile whose entries are in shared memory (none yet).
    let mut held = Held::NONE;
    loop {
        let part = Part::load(slot);
        if part.start >= units {
            break;
        }
        let span = scan_part(v, smem, part, &mut held);
        // Everyone has read the slot (before the scan's barriers): the scheduler refills it.
        if scheduler {
            schedule::<O>(v, slot, &mut claim, units);
        } else if span.begin < span.stop {
            walk(smem, span, &mut f);
        }
        // The entries, bitmap and slot are rewritten for the next part only after everyone is
        // done.
        sync_threads();
    }
    // The last block out clears the claims: another pass 2 after the same pass 1 starts over.
    if thread_idx_x() == 0 && atomic_add_u32(addr_of_mut!((*ctrl).exits), 1) + 1 == grid_dim_x() {
        write_volatile(addr_of_mut!((*ctrl).counter), 0);
        write_volatile(addr_of_mut!((*ctrl).exits), 0);
    }
}

/// The scheduling warp's claim: the units not yet handed out, and their tile when it is known
/// (the claim's next part after one that ended at a tile's end: the next tile).
struct Claim {
    units: core::ops::Range<u32>,
    next_tile: Option<u32>,
}

/// What a block produces next: the units `start..end` of a claim, in tile `tile` and, where
/// pass 1 listed it and the claim runs on into tiles it listed too, in those: `listed` tiles
/// from `tile` (at most [`FUSED_CLAIM_UNITS`]: every tile has a unit), 0 where `tile` is not
/// listed (the part is then in it alone).
#[derive(Clone, Copy)]
pub(super) struct Part {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) tile: u32,
    pub(super) listed: u32,
}

impl Part {
    /// From the four shared words at `slot` (word by word: a struct access goes through the
    /// stack).
    #[inline(always)]
    unsafe fn load(slot: *const u32) -> Part {
        Part {
            start: read_volatile(slot),
            end: read_volatile(slot.add(1)),
            tile: read_volatile(slot.add(2)),
            listed: read_volatile(slot.add(3)),
        }
    }

    /// The part's tiles: `listed`, or 1.
    #[inline(always)]
    pub(super) fn tiles(self) -> u32 {
        self.listed.max(1)
    }

    /// The items of the part's tiles (whose items are `tile_begin..tile_end`) in the windows of
    /// its units (see [`fused_part_items`]): none when `begin >= stop`.
    #[inline(always)]
    pub(super) fn items<O: Offset>(self, tile_begin: O, tile_end: O) -> (O, O) {
        let (t, n, start, end) = (self.tile, self.tiles(), self.start, self.end);
        if O::WIDE {
            let (b, s) = fused_part_items_wide(t, n, start, end, tile_begin.to_u64(), tile_end.to_u64());
            (O::from_u64(b), O::from_u64(s))
        } else {
            let (b, s) = fused_part_items(t, n, start, end, tile_begin.to_u64() as u32, tile_end.to_u64() as u32);
            (O::from_u32(b), O::from_u32(s))
        }
    }

    #[inline(always)]
    unsafe fn store(self, slot: *mut u32) {
        write_volatile(slot, self.start);
        write_volatile(slot.add(1), self.end);
        write_volatile(slot.add(2), self.tile);
        write_volatile(slot.add(3), self.listed);
    }
}

/// The scheduling warp: writes to `slot` the next part of `claim` (the claim's units not yet
/// handed out), claiming units first when it is used up; a part starting at or past `units`
/// means none is left. Claims are guided ([`guided_claim`]).
#[inline(always)]
unsafe fn schedule<O: Offset>(v: &ExpandView, slot: *mut u32, claim: &mut Claim, units: u32) {
    if claim.units.start >= claim.units.end {
        let grid = grid_dim_x();
        // What this block last saw left over: a guess at what the others have left.
        let k = guided_claim(units.saturating_sub(claim.units.end), grid);
        let mut u = 0;
        if lane_id() == 0 {
            u = atomic_add_u32(addr_of_mut!((*v.ctrl()).counter), k);
        }
        let u = (grid * FUSED_CLAIM_UNITS).saturating_add(shfl_idx(u, 0));
        *claim = Claim { units: u..u.saturating_add(k), next_tile: None };
    }
    // Searched whether or not the claim holds units (the search stays inside the records), so
    // that the first part need not wait for `units`, which the first call has just begun to read.
    // A claim's later parts start where a tile's units begin: in the next tile, no search.
    let tiles = fused_tiles(v.p1);
    let start = claim.units.start;
    let t = match claim.next_tile {
        Some(t) => t,
        None => find_tile::<O>(v.records(), tiles, start),
    };
    // Lane `k`: whether tile `t + k` is listed and in the claim (tile `t` is), and where its
    // units end (the end record holds `units`, so a part never passes it). Without tiles
    // (`p1 = 0`) there are no units, and no record to read.
    let k = lane_id();
    let here = k < FUSED_CLAIM_UNITS && t + k < tiles;
    let (unit_end, listed) = if here {
        (record_unit::<O>(v.records(), t + k + 1), load_nc_u32(record_flag(v.records(), t + k)) != 0)
    } else {
        (start, false)
    };
    // Tile `t + k`'s first unit (the shuffle by every lane: not behind the `||`).
    let first = shfl_up(unit_end, 1);
    let in_claim = k == 0 || first < claim.units.end;
    // The part: the claim's units in tile `t`, and in the listed tiles after it when `t` is
    // listed.
    let run = (!ballot(listed && in_claim)).trailing_zeros();
    // Its tiles (`Part::tiles`), and where it ends: at the claim's end or its last tile's.
    let n = run.max(1);
    let end = claim.units.end.min(shfl_idx(unit_end, n - 1));
    let part = Part { start, end, tile: t, listed: run };
    *claim = Claim { units: end..claim.units.end, next_tile: Some(t + n) };
    if lane_id() == 0 {
        part.store(slot);
    }
}

/// The tile of unit `u`: the last `t < tiles` (0 without tiles) whose first unit is at most
/// `u` (every tile has a unit, so the first units strictly increase), by a 32-way warp search
/// ([`warp_last_holding`]).
#[inline(always)]
unsafe fn find_tile<O: Offset>(records: *const [u32; 2], tiles: u32, u: u32) -> u32 {
    warp_last_holding(tiles, |k| record_unit::<O>(records, k) <= u)
}
