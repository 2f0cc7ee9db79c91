//! S2.5f `ScanFused`: the shape of its passes and the arithmetic of its *plan*.
//!
//! Pass 1 sums every tile of [`FUSED_TILE`] counts and cuts the output into *units*: the part of
//! a tile's output range that falls in one aligned window of [`FUSED_UNIT_ITEMS`] destination
//! items. Units are numbered without a scan of their own: tile `t`'s first unit is
//! `first item / FUSED_UNIT_ITEMS + t` ([`fused_plan_record`]), so unit `u` of tile `t` is window
//! `u - t`, and a tile that ends on a window boundary (or is empty) has one empty unit, which
//! pass 2 skips ([`fused_part_items`]). Pass 2 claims runs of units; a claim's units in one tile
//! are a *part*, and where that tile and the next ones the claim reaches are listed
//! ([`FUSED_LIST_WARP_ENTRIES`]), its units in all of them (at most [`FUSED_CLAIM_UNITS`]
//! tiles: every tile has a unit).

use crate::WARP_SIZE;

/// Counts per thread of a tile.
pub const FUSED_ITEMS: usize = 8;
/// Threads of a pass-1 block, and the walking threads of a pass-2 block.
pub const FUSED_THREADS: u32 = 256;
/// Threads of a pass-2 block: the walking warps plus one scheduling warp.
pub const FUSED_PASS2_THREADS: u32 = FUSED_THREADS + WARP_SIZE;
/// Sources (counts) per tile.
pub const FUSED_TILE: u32 = FUSED_ITEMS as u32 * FUSED_THREADS;
/// Tiles each pass-1 block sums (`ceil(tiles / FUSED_PUSH_TILES)` blocks).
pub const FUSED_PUSH_TILES: usize = 4;
/// Most units per claim of pass 2 (8192 items: few claims, and tile scans, while much is left).
pub const FUSED_CLAIM_UNITS: u32 = 4;
/// Destination items per unit window: the grain of pass 2's tail.
pub const FUSED_UNIT_ITEMS: u32 = 2048;

/// Most non-empty sources of a pass-1 warp's part of a *listed* tile. Pass 1 lists, for pass
/// 2, the non-empty sources of each tile where every warp's part (256 sources) has at most this
/// many and at most [`FUSED_LIST_PART_ITEMS`] items, and one part has some
/// ([`fused_part_listed`]), and sets the tile's flag in its plan record
/// ([`FUSED_RECORD_FLAG_WORD`]); pass 2 then reads the list instead of scanning the tile's
/// counts, which is most of a part's work where most sources are empty. Each warp writes its
/// part of the list as it sums, with no wait for the others.
pub const FUSED_LIST_WARP_ENTRIES: u32 = 64;
/// Most items of a pass-1 warp's part of a listed tile: an entry's first item, counted from its
/// part's, must fit the entry's `32 -` [`FUSED_LIST_SRC_BITS`] bits. (A limit of 1024, to leave
/// tiles with long walks unlisted, was slower on an H100: culled 90% at 2^22 sources +5%.)
pub const FUSED_LIST_PART_ITEMS: u64 = 1 << 21;
const _: () = assert!(FUSED_LIST_PART_ITEMS <= 1 << (32 - FUSED_LIST_SRC_BITS));
/// `u32` words at the start of a tile's list: a `u64` *head* per pass-1 warp, the packed sum
/// (`items << 16 | entries`) of its part of the tile; then padding to a 128-byte line.
pub const FUSED_LIST_HEAD_WORDS: usize = 32;
const _: () = assert!(2 * FUSED_THREADS / WARP_SIZE <= FUSED_LIST_HEAD_WORDS as u32);
/// `u32` words per tile of the lists: the heads, then [`FUSED_LIST_WARP_ENTRIES`] entry slots
/// per pass-1 warp ([`fused_list_entry`]; warp `w`'s in source order from slot
/// `w · FUSED_LIST_WARP_ENTRIES`, those past its count unused).
pub const FUSED_LIST_WORDS: usize =
    FUSED_LIST_HEAD_WORDS + (FUSED_THREADS / WARP_SIZE * FUSED_LIST_WARP_ENTRIES) as usize;
/// Bits of a list entry that hold the source's index in its tile; the source's first item,
/// counted from the first of its warp's part, is above them.
pub const FUSED_LIST_SRC_BITS: u32 = 11;
const _: () = assert!(FUSED_TILE == 1 << FUSED_LIST_SRC_BITS);

/// Where tile `t`'s list starts, in `u32` words from the lists' start: [`FUSED_LIST_WORDS`]
/// per tile.
#[inline(always)]
pub fn fused_list_at(t: u32) -> usize {
    t as usize * FUSED_LIST_WORDS
}

/// Whether a pass-1 warp's part of `entries` non-empty sources and `items` items can be listed
/// (a tile is listed where all its parts can and one has entries).
#[inline(always)]
pub fn fused_part_listed(entries: u32, items: u64) -> bool {
    entries <= FUSED_LIST_WARP_ENTRIES && items <= FUSED_LIST_PART_ITEMS
}

/// A list entry: a source's first item counted from the first of its warp's part (`first`,
/// below 2^(32 - [`FUSED_LIST_SRC_BITS`])) and its index in the tile (`src < FUSED_TILE`).
#[inline(always)]
pub fn fused_list_entry(first: u32, src: u32) -> u32 {
    first << FUSED_LIST_SRC_BITS | src
}

/// The `(first item in its warp's part, source in the tile)` of a list entry
/// ([`fused_list_entry`]).
#[inline(always)]
pub fn fused_list_entry_parts(entry: u32) -> (u32, u32) {
    (entry >> FUSED_LIST_SRC_BITS, entry & ((1 << FUSED_LIST_SRC_BITS) - 1))
}

/// The most sources at which the host runs S2.5f's two passes as one launch
/// (`expand_fused_once`: the first blocks of a persistent grid sum a tile each, then every
/// block reads all the sums and produces its share of the units), where the grid holds a block
/// per tile. Every block reads every tile's sum (four per lane of one warp): up to
/// [`FUSED_ONCE_TILES`].
pub const FUSED_ONCE_MAX_P1: u32 = 1 << 18;
/// Tiles of the one launch at most: [`FUSED_ONCE_MAX_P1`] sources.
pub const FUSED_ONCE_TILES: u32 = FUSED_ONCE_MAX_P1 / FUSED_TILE;
/// The one launch's sums, in `u64` words from the count of tiles summed (which every block polls,
/// so it has a 128-byte line of its own): a `u64` per tile from here.
pub const FUSED_ONCE_SUMS_AT: usize = 16;

/// Tiles of `p1` counts.
#[inline(always)]
pub fn fused_tiles(p1: u32) -> u32 {
    p1.div_ceil(FUSED_TILE)
}

/// Pass-1 blocks for `p1` counts.
#[inline(always)]
pub fn fused_push_blocks(p1: u32) -> u32 {
    fused_tiles(p1).div_ceil(FUSED_PUSH_TILES as u32)
}

/// The plan record `[first item, first unit]` of tile `t` whose items start at `first_item`
/// (at most `u32::MAX`: pass 1 caps it at the capacity), as one 64-bit word (first item in the
/// low half, as a little-endian `[u32; 2]`). Tile `t`'s units are the windows
/// `first_item / FUSED_UNIT_ITEMS ..= end / FUSED_UNIT_ITEMS`, numbered from
/// `first_item / FUSED_UNIT_ITEMS + t`. The end record is this with `t = tiles` and the total,
/// and its first unit is the unit count.
#[inline(always)]
pub fn fused_plan_record(first_item: u64, t: u32) -> u64 {
    (fused_first_unit(first_item, t) as u64) << 32 | first_item
}

/// The first unit of tile `t` whose items start at `first_item` (see [`fused_plan_record`]).
#[inline(always)]
pub fn fused_first_unit(first_item: u64, t: u32) -> u32 {
    (first_item / FUSED_UNIT_ITEMS as u64) as u32 + t
}

/// `[u32; 2]` slots a plan record takes: with 32-bit destination indices
/// `[fused_plan_record, flag]`, with 64-bit ones `[first item: u64, first unit: u32, flag]`;
/// the tile's list flag ([`FUSED_RECORD_FLAG_WORD`]) is written apart from the rest, by
/// another warp of pass 1.
pub const FUSED_RECORD_SLOTS: usize = 2;
/// The `u32` of a plan record that holds the tile's list flag: nonzero where pass 1 listed the
/// tile ([`FUSED_LIST_WARP_ENTRIES`]).
pub const FUSED_RECORD_FLAG_WORD: usize = 3;

/// The largest capacity of S2.5f with 64-bit destination indices: its unit numbers
/// (`first item / FUSED_UNIT_ITEMS + tile`, tiles < 2^21) stay 32-bit.
pub const FUSED_MAX_CAPACITY: u64 = 1 << 42;

/// The destination items `begin..stop` of units `start..end` of the `tiles` consecutive tiles
/// from tile `t` (`tiles ≥ 1`, and at least one unit in each: `end - start ≥ tiles`), whose
/// items are `tile_begin..tile_end`: their items in the windows `start - t ..= end - tiles - t`
/// (unit `u` of tile `t'` is window `u - t'`, and a tile's last window is the next tile's first,
/// so the windows of the last unit, in tile `t + tiles - 1`, end there). Empty (`begin >=
/// stop`) when those are only a tile's empty last unit.
#[inline(always)]
pub fn fused_part_items(t: u32, tiles: u32, start: u32, end: u32, tile_begin: u32, tile_end: u32) -> (u32, u32) {
    let (first, last) = (start - t, end - tiles - t);
    let begin = tile_begin.max(first.saturating_mul(FUSED_UNIT_ITEMS));
    let stop = tile_end.min(last.saturating_mul(FUSED_UNIT_ITEMS).saturating_add(FUSED_UNIT_ITEMS));
    (begin, stop)
}

/// [`fused_part_items`] with 64-bit destination indices (a tile's items may then start past
/// 2^32, and one tile may hold more than 2^32 of them).
#[inline(always)]
pub fn fused_part_items_wide(t: u32, tiles: u32, start: u32, end: u32, tile_begin: u64, tile_end: u64) -> (u64, u64) {
    let (first, last) = ((start - t) as u64, (end - tiles - t) as u64);
    let begin = tile_begin.max(first * FUSED_UNIT_ITEMS as u64);
    let stop = tile_end.min((last + 1) * FUSED_UNIT_ITEMS as u64);
    (begin, stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan pass 1 writes for tiles of the given sums: one record per tile plus the end.
    fn plan(tile_sums: &[u32]) -> Vec<[u32; 2]> {
        let mut first = 0u64;
        let mut records = Vec::new();
        for (t, &s) in tile_sums.iter().enumerate() {
            let r = fused_plan_record(first, t as u32);
            records.push([r as u32, (r >> 32) as u32]);
            first += s as u64;
        }
        let r = fused_plan_record(first, tile_sums.len() as u32);
        records.push([r as u32, (r >> 32) as u32]);
        records
    }

    /// Pass 2 over the plan, one unit per claim and then whole runs: every destination item is
    /// produced exactly once, in order, and every part stays inside its tiles and windows;
    /// with no tile listed, every one, and some.
    fn check_cover(tile_sums: &[u32]) {
        check_cover_listed(tile_sums, |_| false);
        check_cover_listed(tile_sums, |_| true);
        check_cover_listed(tile_sums, |t| t % 3 != 1);
    }

    /// [`check_cover`] with the tiles `listed` says pass 1 listed: as pass 2's scheduler, a part
    /// that starts in a listed tile runs on through the listed tiles after it that start inside
    /// the claim, up to [`FUSED_CLAIM_UNITS`] tiles.
    fn check_cover_listed(tile_sums: &[u32], listed: impl Fn(usize) -> bool) {
        let records = plan(tile_sums);
        let tiles = tile_sums.len();
        let units = records[tiles][1];
        let total = records[tiles][0];
        for claim in [1, FUSED_CLAIM_UNITS, units.max(1)] {
            let mut next = 0u32;
            let mut u = 0;
            while u < units {
                let end = (u + claim).min(units);
                // The claim's parts: the tile of unit `u` is the last whose first unit is at
                // most `u`.
                while u < end {
                    let t = (0..tiles).rev().find(|&t| records[t][1] <= u).unwrap();
                    let run = (0..FUSED_CLAIM_UNITS as usize)
                        .take_while(|&k| t + k < tiles && listed(t + k) && (k == 0 || records[t + k][1] < end))
                        .count();
                    let n = run.max(1);
                    let part_end = end.min(records[t + n][1]);
                    let [tile_begin, tile_end] = [records[t][0], records[t + n][0]];
                    let (begin, stop) = fused_part_items(t as u32, n as u32, u, part_end, tile_begin, tile_end);
                    if begin < stop {
                        assert_eq!(begin, next, "sums {tile_sums:?}: a gap or an overlap before unit {u}");
                        assert!(tile_begin <= begin && stop <= tile_end, "part outside its tiles");
                        let window = (u - t as u32) * FUSED_UNIT_ITEMS;
                        assert!(begin >= window, "part starts before its first window");
                        if claim <= FUSED_CLAIM_UNITS {
                            assert!(stop - window <= claim * FUSED_UNIT_ITEMS, "part past its claim's windows");
                        }
                        next = stop;
                    }
                    u = part_end;
                }
            }
            assert_eq!(next, total, "sums {tile_sums:?}, claims of {claim}: items produced");
        }
    }

    #[test]
    fn every_tile_has_a_unit_and_units_increase() {
        let sums = [0, 5, 2048, 2047, 1, 0, 10_000, 4096];
        let records = plan(&sums);
        for w in records.windows(2) {
            assert!(w[1][1] > w[0][1], "first units strictly increase: {records:?}");
        }
        assert_eq!(records[0], [0, 0]);
        // Tile 1 starts at item 0 (tile 0 is empty): window 0, unit 1.
        assert_eq!(records[1], [0, 1]);
        assert_eq!(records[2], [5, 2]);
        assert_eq!(records[3], [2053, 1 + 3]);
    }

    #[test]
    fn parts_cover_every_item_once() {
        check_cover(&[]);
        check_cover(&[0]);
        check_cover(&[0, 0, 0]);
        check_cover(&[1]);
        check_cover(&[2048]);
        check_cover(&[2048, 2048, 1, 2047]);
        check_cover(&[3, 70_000, 0, 5, 4095, 4097]);
        // A pseudo-random mix of tiny, boundary and huge tiles.
        let mut x = 12345u32;
        let sums: Vec<u32> = (0..300)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                match x >> 29 {
                    0 => 0,
                    1 => 2048 * (x >> 20 & 3),
                    2 => x >> 12 & 0xffff,
                    _ => x >> 24,
                }
            })
            .collect();
        check_cover(&sums);
    }

    /// [`check_cover`] with 64-bit items: tiles of any sum, records as the wide kernels write them.
    fn check_cover_wide(tile_sums: &[u64]) {
        let mut first = 0u64;
        let mut records: Vec<(u64, u32)> = Vec::new();
        for (t, &s) in tile_sums.iter().enumerate() {
            records.push((first, fused_first_unit(first, t as u32)));
            first += s;
        }
        let tiles = tile_sums.len();
        records.push((first, fused_first_unit(first, tiles as u32)));
        let (total, units) = records[tiles];
        let mut next = 0u64;
        let mut u = 0;
        while u < units {
            let end = (u + FUSED_CLAIM_UNITS).min(units);
            let t = (0..tiles).rev().find(|&t| records[t].1 <= u).unwrap() as u32;
            let part_end = end.min(records[t as usize + 1].1);
            let (tile_begin, tile_end) = (records[t as usize].0, records[t as usize + 1].0);
            let (begin, stop) = fused_part_items_wide(t, 1, u, part_end, tile_begin, tile_end);
            if begin < stop {
                assert_eq!(begin, next, "sums {tile_sums:?}: a gap or an overlap before unit {u}");
                assert!(tile_begin <= begin && stop <= tile_end && stop - begin <= 4 * FUSED_UNIT_ITEMS as u64);
                next = stop;
            }
            u = part_end;
        }
        assert_eq!(next, total, "sums {tile_sums:?}: items produced");
    }

    #[test]
    fn wide_parts_cover_every_item_once_past_u32() {
        // Tiles whose items start past 2^32, one tile of more than 2^32 items; the last unit
        // ends at 2^32 + 7.
        check_cover_wide(&[(1 << 32) - 3, 5, 0, 5]);
        check_cover_wide(&[1, (1 << 33) + 4093, 2048, 0]);
        // Below 2^32 the wide and the 32-bit arithmetic agree.
        for (t, start, end, b, e) in [(0, 0, 1, 0, 5), (3, 5, 9, 2053, 10_000), (1, 2, 3, 4095, 4097)] {
            let (nb, ne) = fused_part_items(t, 1, start, end, b, e);
            assert_eq!(fused_part_items_wide(t, 1, start, end, b as u64, e as u64), (nb as u64, ne as u64));
        }
        assert!(fused_first_unit(FUSED_MAX_CAPACITY, 1 << 21) < u32::MAX);
    }

    #[test]
    fn list_entries_round_trip() {
        let last = (1 << (32 - FUSED_LIST_SRC_BITS)) - 1;
        for (first, src) in [(0, 0), (5, 2047), (last, 1), (last, FUSED_TILE - 1)] {
            assert_eq!(fused_list_entry_parts(fused_list_entry(first, src)), (first, src));
        }
        let most = FUSED_LIST_WARP_ENTRIES;
        assert!(fused_part_listed(0, 0) && fused_part_listed(most, FUSED_LIST_PART_ITEMS));
        assert!(!fused_part_listed(most + 1, 100) && !fused_part_listed(1, FUSED_LIST_PART_ITEMS + 1));
        assert_eq!(fused_list_at(2), 2 * FUSED_LIST_WORDS);
    }

    #[test]
    fn shapes_agree() {
        assert_eq!(FUSED_THREADS % WARP_SIZE, 0);
        assert_eq!(fused_tiles(0), 0);
        assert_eq!(fused_tiles(FUSED_TILE), 1);
        assert_eq!(fused_tiles(FUSED_TILE + 1), 2);
        assert_eq!(fused_push_blocks(FUSED_TILE * FUSED_PUSH_TILES as u32 + 1), 2);
    }
}
