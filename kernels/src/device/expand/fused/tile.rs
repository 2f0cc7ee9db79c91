//! Pass 2 of S2.5f, a part's *tile* in shared memory: the tile's non-empty sources as a list of
//! *entries* (where each starts, and which source it is: from a block scan of the tile's counts,
//! or from pass 1's lists where it listed the tile, then of up to four consecutive listed
//! tiles at once), and a bitmap of the part's destination items with a bit set where a
//! non-empty source starts. The walk ([`super::walk`]) then gives
//! an item its source by counting bits: the `r`-th set bit up to an item means it belongs to
//! the `r`-th entry, whatever the number of empty sources in between.

use super::schedule::Part;
use super::{
    counts_to_scan, entry_count, item_count, list_head, list_slot, packed_sum, record_item, FusedShared, FUSED_ITEMS,
    FUSED_PASS2_THREADS, FUSED_TILE, STEP, WARPS,
};
use crate::arch::{
    lane_id, load_nc_u64, load_shared, load_shared_v2, load_shared_v4, shared_atomic_or_u32, store_shared_u32,
    store_shared_v2, store_shared_v4, sync_threads, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::{block_exclusive_sum, BLOCK_SCAN_SCRATCH};
use crate::device::expand::{ExpandView, Offset};
use crate::warp::warp_inclusive_sum_u64;
use core::ptr::{addr_of_mut, write_volatile};
use warpwork_abi::expand::fused::{
    fused_list_entry_parts, FUSED_CLAIM_UNITS, FUSED_LIST_HEAD_WORDS, FUSED_LIST_WARP_ENTRIES, FUSED_LIST_WORDS,
    FUSED_UNIT_ITEMS,
};

/// The most destination items in one part: a claim's units.
const PART_ITEMS: u32 = FUSED_CLAIM_UNITS * FUSED_UNIT_ITEMS;
/// Words of the bitmap: a part's items from the [`STEP`] that holds its first one.
pub(super) const BITMAP_WORDS: usize = ((PART_ITEMS + STEP) / 32) as usize;
/// List slots a listed part reads at most: [`FUSED_LIST_WARP_ENTRIES`] per pass-1 warp of
/// each of its tiles (at most [`FUSED_CLAIM_UNITS`]).
pub(super) const LIST_SLOTS: usize = (FUSED_CLAIM_UNITS * WARPS * FUSED_LIST_WARP_ENTRIES) as usize;
// `read_list` finds a pass-1 part's tile's first source as `(p & !(WARPS - 1)) << 8`, keeps
// the sums before each of its up to 32 parts in the block scan's scratch (`2 ·
// BLOCK_SCAN_SCRATCH` words: the entries before each and the part's, `WARP_SIZE + 1` words,
// then the items before each, `WARP_SIZE`), and copies slots 16 bytes at a time (the lists
// start on 16-byte lines: see `fused_list_at`).
const _: () = assert!(FUSED_TILE == WARPS << 8);
const _: () = assert!((WARP_SIZE as usize + 1) + WARP_SIZE as usize <= 2 * BLOCK_SCAN_SCRATCH);
const _: () = assert!(
    FUSED_LIST_HEAD_WORDS.is_multiple_of(4)
        && FUSED_LIST_WARP_ENTRIES.is_multiple_of(4)
        && FUSED_LIST_WORDS.is_multiple_of(4)
);
/// A part ready to walk: its items `begin..stop` (none when `begin >= stop`) of the tiles whose
/// entries are in shared memory, their first source and their entry count.
#[derive(Clone, Copy)]
pub(super) struct Span<O> {
    pub(super) first_src: u32,
    pub(super) entries: u32,
    pub(super) begin: O,
    pub(super) stop: O,
}

/// The tile whose entries alone the block holds in shared memory (block-uniform), and how
/// many (none after a part of several tiles).
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
    let tile_end = record_item::<O>(v.records(), t + part.tiles());
    // A listed part reads the lists, but not a part of the held tile alone (its entries are
    // in shared memory already).
    let read = part.listed > 1 || (part.listed == 1 && t != held.tile);
    let span = if read {
        read_list(v, smem, part, tile_begin, tile_end, held)
    } else {
        scan_tile(v, smem, part, tile_begin, tile_end, held)
    };
    // The entries and the bitmap are written (one barrier for both paths: see
    // `scripts/check-ptx.sh`).
    sync_threads();
    span
}

/// A listed part (see [`warpwork_abi::expand::fused::FUSED_LIST_WARP_ENTRIES`]): its entries
/// come from pass 1's lists of its tiles, so no counts are read and no block scan runs (every
/// thread; [`scan_part`]'s barrier then ends it, as [`scan_tile`]). The threads copy the lists'
/// slots (16 bytes at a time, whether or not they hold entries: the counts are not known yet)
/// into shared memory while warp 0 scans the heads of the pass-1 parts (eight per tile) into
/// the block scan's scratch (unused here): the entries and items before each part, and the
/// part's. After the barrier, thread `i` writes slots `i, i + 288, ..` that hold entries.
#[inline(always)]
unsafe fn read_list<O: Offset>(
    v: &ExpandView,
    smem: *mut FusedShared<O>,
    part: Part,
    tile_begin: O,
    tile_end: O,
    held: &mut Held,
) -> Span<O> {
    const CHUNK: u32 = 4;
    let (t, parts) = (part.tile, part.listed * WARPS);
    let (begin, stop) = part.items(tile_begin, tile_end);
    let base = bitmap_base(begin);
    let entries = addr_of_mut!((*smem).entries) as *mut [O; 2];
    let slots = addr_of_mut!((*smem).slots) as *mut u32;
    // Per part `p ≤ parts`, the entries and items before it.
    let ranks = addr_of_mut!((*smem).scratch) as *mut u32;
    let firsts = ranks.add(WARP_SIZE as usize + 1);
    if warp_id() == 0 {
        // Lanes past the heads add 0: lane `parts`'s sum before it is the part's.
        let lane = lane_id();
        let head =
            if lane < parts { load_nc_u64(list_head(v, t + lane / WARPS).add((lane % WARPS) as usize)) } else { 0 };
        let incl = warp_inclusive_sum_u64(head);
        let before = incl - head;
        write_volatile(ranks.add(lane as usize), entry_count(before));
        write_volatile(firsts.add(lane as usize), item_count(before) as u32);
        if lane == WARP_SIZE - 1 {
            write_volatile(ranks.add(WARP_SIZE as usize), entry_count(incl));
        }
    }
    let total = parts * FUSED_LIST_WARP_ENTRIES;
    let mut c = thread_idx_x() * CHUNK;
    while c < total {
        let (p, k) = (c / FUSED_LIST_WARP_ENTRIES, c % FUSED_LIST_WARP_ENTRIES);
        let src = list_slot(v, t + p / WARPS, (p % WARPS) * FUSED_LIST_WARP_ENTRIES + k) as *const [u32; 4];
        copy_16(slots.add(c as usize) as *mut [u32; 4], src);
        c += FUSED_PASS2_THREADS * CHUNK;
    }
    copy_done();
    // Cleared before the barrier, marked after it (and the sums are written).
    clear_bitmap(smem);
    sync_threads();
    let mut i = thread_idx_x();
    while i < total {
        let (p, k) = (i / FUSED_LIST_WARP_ENTRIES, i % FUSED_LIST_WARP_ENTRIES);
        let (rank, next) = (load_shared(ranks.add(p as usize)), load_shared(ranks.add(p as usize + 1)));
        if k < next - rank {
            let (at, src) = fused_list_entry_parts(load_shared(slots.add(i as usize)));
            let start = tile_begin.add_u32(load_shared(firsts.add(p as usize)) + at);
            // Tile `p / WARPS`'s source `src`, counted from the part's first tile. (Written as
            // `p / WARPS * FUSED_TILE + src`, pass 2 took 64 registers instead of 56 on sm_90.)
            store_entry(entries, rank + k, start, (p & !(WARPS - 1)) << 8 | src);
            mark(smem, start, base, stop);
        }
        i += FUSED_PASS2_THREADS;
    }
    let listed = load_shared(ranks.add(parts as usize));
    *held = if part.listed == 1 { Held { tile: t, entries: listed } } else { Held::NONE };
    Span { first_src: t * FUSED_TILE, entries: listed, begin, stop }
}

/// 16 bytes from global `src` to shared `dst` (both 16-byte aligned), done by [`copy_done`]:
/// with `cp.async` on sm_90, through registers before.
#[inline(always)]
unsafe fn copy_16(dst: *mut [u32; 4], src: *const [u32; 4]) {
    #[cfg(feature = "sm90")]
    crate::arch::copy_async_16(dst, src);
    #[cfg(not(feature = "sm90"))]
    store_shared_v4(dst, crate::arch::load_v4_u32(src));
}

/// This thread's [`copy_16`]s have landed (others see them after a barrier).
#[inline(always)]
fn copy_done() {
    #[cfg(feature = "sm90")]
    crate::arch::copy_async_wait_all();
}

/// [`scan_part`] for a part in one tile, not listed or held, with the tile's first and end items
/// given (every thread passes the same; [`scan_part`]'s barrier ends it). The tile's entries
/// are written only where its counts are loaded ([`counts_to_scan`]); the held tile's part is
/// marked from its entries. The block scan and its barrier run either way, so that no barrier
/// sits on a path that depends on the tile (LLVM would otherwise copy the barrier onto two
/// paths; see `scripts/check-ptx.sh`).
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
