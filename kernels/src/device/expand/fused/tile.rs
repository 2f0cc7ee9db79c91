//! Pass 2 of S2.5f, a part's *tile* in shared memory: the tile's non-empty sources as a list of
//! *entries* (where each starts, and which source it is), and a bitmap of the part's destination
//! items with a bit set where a non-empty source starts. The walk ([`super::walk`]) then gives
//! an item its source by counting bits: the `r`-th set bit up to an item means it belongs to
//! the `r`-th entry, whatever the number of empty sources in between.

use super::schedule::Part;
use super::{counts_to_scan, record_item, FusedShared, FUSED_ITEMS, FUSED_PASS2_THREADS, FUSED_TILE, STEP};
use crate::arch::{
    load_shared_v2, load_shared_v4, shared_atomic_or_u32, store_shared_u32, store_shared_v2, store_shared_v4,
    sync_threads, thread_idx_x,
};
use crate::block::block_exclusive_sum;
use crate::device::expand::{ExpandView, Offset};
use core::ptr::addr_of_mut;
use warpwork_abi::expand::fused::{FUSED_CLAIM_UNITS, FUSED_UNIT_ITEMS};

/// The most destination items in one part: a claim's units.
const PART_ITEMS: u32 = FUSED_CLAIM_UNITS * FUSED_UNIT_ITEMS;
/// Words of the bitmap: a part's items from the [`STEP`] that holds its first one.
pub(super) const BITMAP_WORDS: usize = ((PART_ITEMS + STEP) / 32) as usize;
/// Bits of a packed scan value that count entries (a tile has at most [`FUSED_TILE`]); the
/// items are above them.
const ENTRY_BITS: u32 = 16;
const _: () = assert!(FUSED_TILE < 1 << ENTRY_BITS);

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

/// Scans the part's tile into the entries and marks the part's bitmap, returning the part's
/// span (every thread, after the barrier that ended the block's previous walk; ends with a
/// barrier).
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
    scan_tile(v, smem, part, tile_begin, tile_end, held)
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

/// A run's items and non-empty sources, packed for one block scan: items above [`ENTRY_BITS`]
/// (a tile's at most 2^43 items stay below 2^59), sources below.
#[inline(always)]
fn packed_sum(c: [u32; FUSED_ITEMS]) -> u64 {
    c.iter().map(|&x| ((x as u64) << ENTRY_BITS) | (x != 0) as u64).sum()
}

/// The entry count of a packed block total (or the rank of a packed exclusive prefix).
#[inline(always)]
fn entry_count(packed: u64) -> u32 {
    (packed & ((1 << ENTRY_BITS) - 1)) as u32
}

/// The items of a packed block total (or exclusive prefix).
#[inline(always)]
fn item_count(packed: u64) -> u64 {
    packed >> ENTRY_BITS
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
