//! Scans: the block shape of S2.5's look-back scan of counts (`expand_push_scan`), the tile
//! shapes of the device-wide scans (`scan_{kind}_{op}_{type}`), and the look-back's statuses.

/// Threads per block of S2.5's pass-1 scan (`expand_push_scan`).
pub const THREADS: u32 = 256;
/// `u32` elements per thread: 64 bytes, four 16-byte loads.
pub const ITEMS_U32: usize = 16;

/// 32-bit words the look-back's states of `tiles` tiles take, for elements of `size` bytes (the
/// device-wide scans, S2.5's pass 1): two per tile for 4-byte elements (status and value in one
/// `u64`), four for 8-byte ones (a 16-byte pair, a status in each half). Every word holds a
/// status: the host zeroes them all before every launch.
pub const fn tile_state_words(size: usize, tiles: usize) -> usize {
    if size == 8 {
        4 * tiles
    } else {
        2 * tiles
    }
}

/// A look-back tile's status: nothing published yet. **Zero**, so that a memset prepares the
/// status words of a launch (the host zeroes them; keep it 0).
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

/// The tile shape of the device-wide scans of elements of `size` bytes (4 or 8): (warps,
/// 16-byte chunks per thread, load).
pub const fn tile_shape(size: usize) -> (usize, usize, u8) {
    if size == 8 {
        (TILE_WARPS_8, TILE_CHUNKS_8, TILE_LOAD_8)
    } else {
        (TILE_WARPS_4, TILE_CHUNKS_4, TILE_LOAD_4)
    }
}
