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

// Smaller inputs take smaller or narrower tiles ([`TileClass`]): a 2^16-element input of the
// standard 8-byte tiles is 16 blocks on a GPU of 132 multiprocessors; smaller tiles spread it
// over more of them, at the price of a longer look-back chain, which only large inputs feel.
// Measured on the H100 (2026-11-25, `benches/lab_scan.rs`, ten 8-byte shapes from 2^16 to 2^24):
// small tiles are faster up to 2^18 `u32` and 2^17 `u64` elements; for 8-byte elements, tiles of
// 256 threads × 128 bytes (the standard tile's elements, twice the threads) from there to 2^22.

/// Warps per small tile for 4-byte elements …
pub const SMALL_WARPS_4: usize = 8;
/// … and 16-byte chunks per thread (32 bytes: 8 elements; 2048 per tile).
pub const SMALL_CHUNKS_4: usize = 2;
/// Warps per small tile for 8-byte elements …
pub const SMALL_WARPS_8: usize = 4;
/// … and 16-byte chunks per thread (64 bytes: 8 elements; 1024 per tile).
pub const SMALL_CHUNKS_8: usize = 4;
/// The largest input, in bytes, scanned in small tiles (2^18 4-byte or 2^17 8-byte elements).
pub const SMALL_MAX_BYTES: u64 = 1 << 20;
/// Warps per medium tile (8-byte elements only) …
pub const MEDIUM_WARPS_8: usize = 8;
/// … and 16-byte chunks per thread (128 bytes: 16 elements; 4096 per tile).
pub const MEDIUM_CHUNKS_8: usize = 8;
/// The largest input, in bytes, scanned in medium tiles (2^22 8-byte elements).
pub const MEDIUM_MAX_BYTES_8: u64 = 32 << 20;

/// The tile classes of the device-wide scans, by input size: each has its own kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileClass {
    /// Up to [`SMALL_MAX_BYTES`]: `scan_small_{kind}_{op}_{type}`.
    Small,
    /// 8-byte elements up to [`MEDIUM_MAX_BYTES_8`]: `scan_medium_{kind}_{op}_{type}`.
    Medium,
    /// The rest: `scan_{kind}_{op}_{type}`.
    Standard,
}

impl TileClass {
    /// Every class, smallest tiles first (the host's kernel tables follow this order).
    pub const ALL: [TileClass; 3] = [TileClass::Small, TileClass::Medium, TileClass::Standard];

    /// The class a scan of `n` elements of `size` bytes (4 or 8) takes.
    pub const fn of(size: usize, n: u64) -> TileClass {
        let bytes = n.saturating_mul(size as u64);
        if bytes <= SMALL_MAX_BYTES {
            TileClass::Small
        } else if size == 8 && bytes <= MEDIUM_MAX_BYTES_8 {
            TileClass::Medium
        } else {
            TileClass::Standard
        }
    }

    /// Whether elements of `size` bytes have kernels of this class (4-byte ones have no
    /// medium tiles).
    pub const fn exists_for(self, size: usize) -> bool {
        !matches!(self, TileClass::Medium) || size == 8
    }
}

/// The tile shape of the device-wide scans of elements of `size` bytes (4 or 8) in `class`:
/// (warps, 16-byte chunks per thread, load). Small and medium tiles load plainly (measured: no
/// difference with `cp.async`).
pub const fn tile_shape(size: usize, class: TileClass) -> (usize, usize, u8) {
    match (size == 8, class) {
        (true, TileClass::Standard) => (TILE_WARPS_8, TILE_CHUNKS_8, TILE_LOAD_8),
        (false, TileClass::Standard | TileClass::Medium) => (TILE_WARPS_4, TILE_CHUNKS_4, TILE_LOAD_4),
        (true, TileClass::Medium) => (MEDIUM_WARPS_8, MEDIUM_CHUNKS_8, tile_load::PLAIN),
        (true, TileClass::Small) => (SMALL_WARPS_8, SMALL_CHUNKS_8, tile_load::PLAIN),
        (false, TileClass::Small) => (SMALL_WARPS_4, SMALL_CHUNKS_4, tile_load::PLAIN),
    }
}

/// Elements of `size` bytes per tile of `class`.
pub const fn tile_items(size: usize, class: TileClass) -> usize {
    let (warps, chunks, _) = tile_shape(size, class);
    warps * 32 * chunks * 16 / size
}

/// Tiles (blocks) of a scan of `n` elements of `size` bytes.
pub const fn tiles(size: usize, n: u64) -> u64 {
    n.div_ceil(tile_items(size, TileClass::of(size, n)) as u64)
}

/// The most [`tiles`] a scan of at most `n` elements of `size` bytes takes: what its scratch is
/// sized for, so that scratch for `n` elements serves every shorter input. (The tiles grow with
/// the input's class, so a shorter input can take more of them: 2^18 `u32`s take 128 small
/// tiles, 2^18 + 1 take 33 standard ones.)
pub const fn tiles_at_most(size: usize, n: u64) -> u64 {
    let mut most = tiles(size, n);
    // The largest inputs of the classes below `n`'s.
    let small = SMALL_MAX_BYTES / size as u64;
    if n > small && tiles(size, small) > most {
        most = tiles(size, small);
    }
    let medium = MEDIUM_MAX_BYTES_8 / size as u64;
    if size == 8 && n > medium && tiles(size, medium) > most {
        most = tiles(size, medium);
    }
    most
}

/// Tiles (blocks) of a scan of `n` elements of `size` bytes in tiles of `class`, whatever
/// [`TileClass::of`] would pick (the sums from a base use standard tiles for every `n`). For
/// every `n`, the standard tiles are the fewest, so [`tile_state_words`] of [`tiles`] covers them.
pub const fn tiles_of(size: usize, class: TileClass, n: u64) -> u64 {
    n.div_ceil(tile_items(size, class) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_input_size() {
        for size in [4, 8] {
            assert_eq!(TileClass::of(size, 1 << 16), TileClass::Small);
            assert_eq!(TileClass::of(size, 1 << 26), TileClass::Standard);
            let max = SMALL_MAX_BYTES / size as u64;
            assert_eq!(TileClass::of(size, max), TileClass::Small);
            assert_ne!(TileClass::of(size, max + 1), TileClass::Small);
            assert!(tile_items(size, TileClass::Small) < tile_items(size, TileClass::Standard));
            assert_eq!(tiles(size, max), max / tile_items(size, TileClass::Small) as u64);
            assert_eq!(tiles(size, 0), 0);
            assert_eq!(tiles(size, 1), 1);
            for n in [1u64, 1 << 17, 1 << 18, 1 << 19, 1 << 22, 1 << 23, 1 << 30] {
                assert!(TileClass::of(size, n).exists_for(size));
            }
            // `tiles_at_most` bounds every shorter input's tiles and never falls.
            let (mut n, mut most, mut last) = (0u64, 0, 0);
            while n < 1 << 36 {
                most = most.max(tiles(size, n));
                let bound = tiles_at_most(size, n);
                assert!(bound >= most && bound >= last, "{size} {n}");
                last = bound;
                n = n * 33 / 32 + 1 + n % 5;
            }
            let small = SMALL_MAX_BYTES / size as u64;
            assert_eq!(tiles_at_most(size, small + 1), tiles(size, small));
        }
        assert_eq!(TileClass::of(8, 1 << 20), TileClass::Medium);
        assert_eq!(TileClass::of(8, 1 << 22), TileClass::Medium);
        assert_eq!(TileClass::of(8, (1 << 22) + 1), TileClass::Standard);
        assert_eq!(TileClass::of(4, 1 << 20), TileClass::Standard);
    }
}
