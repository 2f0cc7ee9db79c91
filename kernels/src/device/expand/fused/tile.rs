//! Pass 2 of S2.5f, a part's *tile* in shared memory: the tile's non-empty sources as a list of
//! *entries* (where each starts, and which source it is: from a block scan of the tile's counts,
//! or from pass 1's list where it listed the tile), and a bitmap of the part's destination
//! items with a bit set where a non-empty source starts. The walk ([`super::walk`]) then gives
//! an item its source by counting bits: the `r`-th set bit up to an item means it belongs to
//! the `r`-th entry, whatever the number of empty sources in between.

use super::schedule::Part;
use super::{
    counts_to_scan, entry_count, item_count, list_head, list_slot, packed_sum, record_flag, record_item, FusedShared,
    FUSED_ITEMS, FUSED_PASS2_THREADS, FUSED_TILE, STEP, WARPS,
};
use crate::arch::{
    lane_id, load_nc_u32, load_nc_u64, load_shared, load_shared_v2, load_shared_v4, shared_atomic_or_u32,
    store_shared_u32, store_shared_v2, store_shared_v4, sync_threads, thread_idx_x, warp_id,
};
use crate::block::block_exclusive_sum;
use crate::device::expand::{ExpandView, Offset};
use crate::warp::warp_inclusive_sum_u64;
use core::ptr::{addr_of_mut, write_volatile};
use warpwork_abi::expand::fused::{
    fused_list_entry_parts, FUSED_CLAIM_UNITS, FUSED_LIST_WARP_ENTRIES, FUSED_UNIT_ITEMS,
};

/// The most destination items in one part: a claim's units.
const PART_ITEMS: u32 = FUSED_CLAIM_UNITS * FUSED_UNIT_ITEMS;
/// Words of the bitmap: a part's items from the [`STEP`] that holds its first one.
pub(super) const BITMAP_WORDS: usize = ((PART_ITEMS + STEP) / 32) as usize;
/// A part ready to walk: its items `begin..stop` (none when `begin >= stop`) of the tile whose
/// entries are in shared memory, the tile's first source and its entry count.
#[derive(Clone, Copy)]
pub(super) struct Span<O> {
    pub(super) first_src: u32,
    pub(super) entries: u32,
    pub(super) begin: O,
    pub(super) stop: O,
}

/// The tile whose entries the block holds in shared memory (block-uniform), and how many.
#[derive(Clone, Copy)]
pub(super) struct Held {
    tile: u32,
    entries: u32,
}

impl Held {
    /// No tile yet.
    pub(super) const NONE: Held = Held { tile: u32::MAX, entries: 0 };
}

/// Where the bitmap of a part starting at item `begin` starts: the step that holds `begin`.
#[inline(always)]
pub(super) fn bitmap_base<O: Offset>(begin: O) -> O {
    let step = O::from_u32(STEP);
    begin / step * step
}

/// Entry `r`: where its source starts, and the source's index in the tile.
#[inline(always)]
pub(super) unsafe fn load_entry<O: Offset>(entries: *const [O; 2], r: u32) -> (O, u32) {
    let p = entries.add(r as usize) as *const [u32; 4];
    if O::WIDE {
        let [lo, hi, src, _] = load_shared_v4(p);
        (O::from_u64((hi as u64) << 32 | lo as u64), src)
    } else {
        let [start, src] = load_shared_v2(p as *const [u32; 2]);
        (O::from_u32(start), src)
    }
}

/// Writes entry `r`.
#[inline(always)]
unsafe fn store_entry<O: Offset>(entries: *mut [O; 2], r: u32, start: O, src: u32) {
    let p = entries.add(r as usize) as *mut [u32; 4];
    if O::WIDE {
        let s = start.to_u64();
        store_shared_v4(p, [s as u32, (s >> 32) as u32, src, 0]);
    } else {
        store_shared_v2(p as *mut [u32; 2], [s32(start), src]);
    }
}

#[inline(always)]
fn s32<O: Offset>(x: O) -> u32 {
    x.to_u64() as u32
}

/// Scans the part's tile (or reads its list) into the entries and marks the part's bitmap,
/// returning the part's span (every thread, after the barrier that ended the block's previous
/// walk; ends with a barrier).
#[inline(always)]
pub(super) unsafe fn scan_part<O: Offset>(
    v: &ExpandView,
    smem: *mut FusedShared<O>,
    part: Part,
    held: &mut Held,
) -> Span<O> {
    let t = part.tile;
    let tile_begin = record_item::<O>(v.records(), t);
    let tile_end = record_item::<O>(v.records(), t + 1);
    let listed = load_nc_u32(record_flag(v.records(), t)) != 0;
    // A listed tile's part reads the list, but not the held tile's (its entries are in shared
    // memory already). Bound to a name first: tested in the `if` itself, the branches came out
    // laid out the other way round and pass 2 took 64 registers instead of 56 on sm_90.
    let read = listed && t != held.tile;
    if read {
        read_list(v, smem, part, tile_begin, tile_end, held)
    } else {
        scan_tile(v, smem, part, tile_begin, tile_end, held)
    }
}

/// A listed tile's part (see [`warpwork_abi::expand::fused::FUSED_LIST_WARP_ENTRIES`]): its
/// entries come from pass 1's list, so no counts are read and no block scan runs (every
/// thread; ends with a barrier, as [`scan_tile`]). Warp 0 scans the list's heads into the block
/// scan's scratch (unused here): the entries and items before each part, and the tile's. Slot
/// `i` of the list (pass-1 warp `i / 64`'s entry `i % 64`, when that part has that many) is
/// thread `i`'s, or thread `i - FUSED_PASS2_THREADS`'s: the entry's rank and first item are
/// those before its part plus its own. (One slot is loaded before the barrier: with both, pass
/// 2 took 64 registers instead of 56.)
#[inline(always)]
unsafe fn read_list<O: Offset>(
    v: &ExpandView,
    smem: *mut FusedShared<O>,
    part: Part,
    tile_begin: O,
    tile_end: O,
    held: &mut Held,
) -> Span<O> {
    const SLOTS: u32 = WARPS * FUSED_LIST_WARP_ENTRIES;
    let t = part.tile;
    let (begin, stop) = part.items(tile_begin, tile_end);
    let base = bitmap_base(begin);
    let entries = addr_of_mut!((*smem).entries) as *mut [O; 2];
    // Per part `w` (and `WARPS`: the tile), the entries and items before it.
    let ranks = addr_of_mut!((*smem).scratch) as *mut u32;
    let firsts = ranks.add(WARPS as usize + 1);
    if warp_id() == 0 {
        // Lane `l ≤ WARPS`: the sum of the heads before `l` (the lanes past the heads add 0, so
        // lane `WARPS`'s is the tile's).
        let lane = lane_id();
        let head = if lane < WARPS { load_nc_u64(list_head(v, t).add(lane as usize)) } else { 0 };
        let before = warp_inclusive_sum_u64(head) - head;
        if lane <= WARPS {
            write_volatile(ranks.add(lane as usize), entry_count(before));
            write_volatile(firsts.add(lane as usize), item_count(before) as u32);
        }
    }
    let mut i = thread_idx_x();
    let mut e = if i < SLOTS { load_nc_u32(list_slot(v, t, i)) } else { 0 };
    // Cleared before the barrier, marked after it (and the sums are written).
    clear_bitmap(smem);
    sync_threads();
    while i < SLOTS {
        let w = (i / FUSED_LIST_WARP_ENTRIES) as usize;
        let (rank, next) = (load_shared(ranks.add(w)), load_shared(ranks.add(w + 1)));
        let k = i % FUSED_LIST_WARP_ENTRIES;
        if k < next - rank {
            let (first, src) = fused_list_entry_parts(e);
            let start = tile_begin.add_u32(load_shared(firsts.add(w)) + first);
            store_entry(entries, rank + k, start, src);
            mark(smem, start, base, stop);
        }
        i += FUSED_PASS2_THREADS;
        if i < SLOTS {
            e = load_nc_u32(list_slot(v, t, i));
        }
    }
    let listed = load_shared(ranks.add(WARPS as usize));
    *held = Held { tile: t, entries: listed };
    // The entries and the bitmap are written.
    sync_threads();
    Span { first_src: t * FUSED_TILE, entries: listed, begin, stop }
}

/// [`scan_part`] with the part's tile's first and end items given (every thread passes the
/// same). The tile's entries are written only where its counts are loaded
/// ([`counts_to_scan`]); the held tile's part is marked from its entries. The block scan and the
/// barriers run either way, so that no barrier sits on a path that depends on the tile (LLVM
/// would otherwise copy the barrier onto two paths; see `scripts/check-ptx.sh`).
#[inline(always)]
unsafe fn scan_tile<O: Offset>(
    v: &ExpandView,
    smem: *mut FusedShared<O>,
    part: Part,
    tile_begin: O,
    tile_end: O,
    held: &mut Held,
) -> Span<O> {
    let t = part.tile;
    let (fresh, c) = counts_to_scan(v, t, tile_begin.to_u64() == tile_end.to_u64(), held.tile);
    let (begin, stop) = part.items(tile_begin, tile_end);
    let base = bitmap_base(begin);
    // Cleared before the scan's barrier, marked after it.
    clear_bitmap(smem);
    let (excl, total) = block_exclusive_sum(addr_of_mut!((*smem).scratch) as *mut u64, packed_sum(c));
    if fresh {
        write_entries(smem, c, tile_begin, excl, base, stop);
        *held = Held { tile: t, entries: entry_count(total) };
    } else if begin < stop {
        mark_entries(smem, held.entries, base, stop);
    }
    // The entries and the bitmap are written.
    sync_threads();
    Span { first_src: t * FUSED_TILE, entries: held.entries, begin, stop }
}

/// Clears the bitmap, one word per thread (the caller's barrier then orders it before any
/// mark).
#[inline(always)]
unsafe fn clear_bitmap<O>(smem: *mut FusedShared<O>) {
    const { assert!(BITMAP_WORDS <= FUSED_PASS2_THREADS as usize) };
    let tid = thread_idx_x() as usize;
    if tid < BITMAP_WORDS {
        store_shared_u32((addr_of_mut!((*smem).bitmap) as *mut u32).add(tid), 0);
    }
}

/// Writes this thread's entries (its run of counts `c`, from the tile's item `tile_begin` plus
/// the packed exclusive prefix `excl`) and marks those that start in `base..stop` (`base` the
/// part's [`bitmap_base`]).
#[inline(always)]
unsafe fn write_entries<O: Offset>(
    smem: *mut FusedShared<O>,
    c: [u32; FUSED_ITEMS],
    tile_begin: O,
    excl: u64,
    base: O,
    stop: O,
) {
    let entries = addr_of_mut!((*smem).entries) as *mut [O; 2];
    let first_src = thread_idx_x() * FUSED_ITEMS as u32;
    let mut start = O::from_u64(tile_begin.to_u64() + item_count(excl));
    let mut r = entry_count(excl);
    for (i, &n) in c.iter().enumerate() {
        if n != 0 {
            store_entry(entries, r, start, first_src + i as u32);
            mark(smem, start, base, stop);
            r += 1;
        }
        start = start.add_u32(n);
    }
}

/// Marks the held entries (`entries` of them) that start in `base..stop` (`base` the part's
/// [`bitmap_base`]), each thread [`FUSED_ITEMS`] consecutive ones.
#[inline(always)]
unsafe fn mark_entries<O: Offset>(smem: *mut FusedShared<O>, entries: u32, base: O, stop: O) {
    let list = addr_of_mut!((*smem).entries) as *const [O; 2];
    let first = thread_idx_x() * FUSED_ITEMS as u32;
    for i in 0..FUSED_ITEMS as u32 {
        if first + i < entries {
            mark(smem, load_entry(list, first + i).0, base, stop);
        }
    }
}

/// Sets the bit of item `start` when it lies in `base..stop` (the bitmap's items).
#[inline(always)]
unsafe fn mark<O: Offset>(smem: *mut FusedShared<O>, start: O, base: O, stop: O) {
    if start >= base && start < stop {
        let at = start.local_from(base);
        shared_atomic_or_u32((addr_of_mut!((*smem).bitmap) as *mut u32).add((at / 32) as usize), 1 << (at % 32));
    }
}
