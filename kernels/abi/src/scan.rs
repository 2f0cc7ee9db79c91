//! Scans: the block shape of S2.5's look-back scan of counts (`expand_push_scan`), the tile
//! shapes of the device-wide scans (`scan_{kind}_{op}_{type}`), and the look-back's statuses.

/// Threads per block of S2.5's pass-1 scan (`expand_push_scan`).
pub const THREADS: u32 = 256;
/// `u32` elements per thread: 64 bytes, four 16-byte loads.
pub const ITEMS_U32: usize = 16;

/// 32-bit words the look-back's states of `tiles` tiles take, for elements of `size` bytes (the
/// device-wide scans, S2.5's pass 1): two per tile for 4-byte elements (status and value in one
/// `u64`), four for 8-byte ones (a 16-byte pair, a status in each half). Every word holds a
/// status: all are zeroed before every launch (`scan_prepare`).
pub const fn tile_state_words(size: usize, tiles: usize) -> usize {
    if size == 8 {
        4 * tiles
    } else {
        2 * tiles
    }
}

/// A look-back tile's status: nothing published yet. **Zero**, so that a memset prepares the
/// status words of a launch (keep it 0).
pub const STATUS_INVALID: u32 = 0;
/// The tile's own sum (aggregate) is published.
pub const STATUS_AGGREGATE: u32 = 1;
/// The tile's inclusive prefix (everything up to and including it) is published.
pub const STATUS_PREFIX: u32 = 2;

/// How a scan tile's elements travel from global to shared memory ([`TILE_LOAD_4`],
/// [`TILE_LOAD_8`]).
pub mod tile_load {
    /// 16-byte loads into registers, then 16-byte stores to shared memory.
    pub const PLAIN: u8 = 0;
    /// `cp.async` 16-byte copies straight into shared memory (the sm_90 module; the sm_70 one,
    /// PTX 6.0, has no `cp.async` and loads as [`PLAIN`]).
    pub const ASYNC: u8 = 1;
}

// The device-wide scans' tiles (`scan_{kind}_{op}_{type}`, `Gpu::scan`): a block of
// `32 · TILE_WARPS_*` threads, each owning `TILE_CHUNKS_*` consecutive 16-byte chunks, per tile.
// Chosen on the H100 (2026-11-23) among 18 shapes measured beside CUB in one run (docs/scan.md):
// what counts is the tile bytes resident per SM (registers and shared memory allow 6 blocks of
// 256 threads × 128 bytes, 192 KiB, for 4-byte elements; 6 of 128 × 256 bytes for 8-byte ones)
// and the number of tiles (fewer, larger tiles shorten the look-back's chain).

/// Warps per tile for 4-byte elements (256 threads) …
pub const TILE_WARPS_4: usize = 8;
/// … 16-byte chunks per thread (128 bytes: 32 elements; 8192 per tile) …
pub const TILE_CHUNKS_4: usize = 8;
/// … and how they are loaded.
pub const TILE_LOAD_4: u8 = tile_load::ASYNC;
/// Warps per tile for 8-byte elements (128 threads) …
pub const TILE_WARPS_8: usize = 4;
/// … 16-byte chunks per thread (256 bytes: 32 elements; 4096 per tile) …
pub const TILE_CHUNKS_8: usize = 16;
/// … and how they are loaded.
pub const TILE_LOAD_8: u8 = tile_load::PLAIN;

// Small inputs take smaller tiles (the `scan_small_*` kernels): a 2^16-element input of the
// standard 8-byte tiles is 16 blocks on a GPU of 132 multiprocessors; smaller tiles spread it
// over more of them, at the price of a longer look-back chain, which only large inputs feel.

/// Warps per small tile for 4-byte elements …
pub const SMALL_WARPS_4: usize = 8;
/// … and 16-byte chunks per thread (32 bytes: 8 elements; 2048 per tile).
pub const SMALL_CHUNKS_4: usize = 2;
/// Warps per small tile for 8-byte elements …
pub const SMALL_WARPS_8: usize = 4;
/// … and 16-byte chunks per thread (64 bytes: 8 elements; 1024 per tile).
pub const SMALL_CHUNKS_8: usize = 4;
/// The largest input, in bytes, scanned in small tiles: 4-byte elements (2^18) …
/// (Measured on the H100, 2026-11-25, `benches/lab_scan.rs`: small tiles are faster up to 2^18
/// `u32` and 2^17 `u64` elements, the standard ones from there on.)
pub const SMALL_MAX_BYTES_4: u64 = 1 << 20;
/// … and 8-byte ones (2^17).
pub const SMALL_MAX_BYTES_8: u64 = 1 << 20;

/// Whether a scan of `n` elements of `size` bytes (4 or 8) takes the small tiles.
pub const fn small_tiles(size: usize, n: u64) -> bool {
    let max = if size == 8 { SMALL_MAX_BYTES_8 } else { SMALL_MAX_BYTES_4 };
    n.saturating_mul(size as u64) <= max
}

/// The tile shape of the device-wide scans of elements of `size` bytes (4 or 8), small tiles or
/// the standard ones: (warps, 16-byte chunks per thread, load). Small tiles load plainly (a
/// thread's few chunks are in flight at once either way).
pub const fn tile_shape(size: usize, small: bool) -> (usize, usize, u8) {
    match (size == 8, small) {
        (true, false) => (TILE_WARPS_8, TILE_CHUNKS_8, TILE_LOAD_8),
        (false, false) => (TILE_WARPS_4, TILE_CHUNKS_4, TILE_LOAD_4),
        (true, true) => (SMALL_WARPS_8, SMALL_CHUNKS_8, tile_load::PLAIN),
        (false, true) => (SMALL_WARPS_4, SMALL_CHUNKS_4, tile_load::PLAIN),
    }
}

/// Elements of `size` bytes per tile of that shape.
pub const fn tile_items(size: usize, small: bool) -> usize {
    let (warps, chunks, _) = tile_shape(size, small);
    warps * 32 * chunks * 16 / size
}

/// Tiles (blocks) of a scan of `n` elements of `size` bytes.
pub const fn tiles(size: usize, n: u64) -> u64 {
    n.div_ceil(tile_items(size, small_tiles(size, n)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tiles_are_for_small_inputs_and_more_of_them() {
        for size in [4, 8] {
            assert!(small_tiles(size, 1 << 16) && !small_tiles(size, 1 << 26));
            assert!(tile_items(size, true) < tile_items(size, false));
            let max = if size == 8 { SMALL_MAX_BYTES_8 } else { SMALL_MAX_BYTES_4 } / size as u64;
            assert!(small_tiles(size, max) && !small_tiles(size, max + 1));
            assert_eq!(tiles(size, max), max / tile_items(size, true) as u64);
            assert_eq!(tiles(size, 0), 0);
            assert_eq!(tiles(size, 1), 1);
        }
    }
}
