//! Device-wide exclusive scan: block shape and the look-back's tile states.

/// Threads per block of the scan kernels.
pub const THREADS: u32 = 256;
/// `u32` elements per thread: 64 bytes, four 16-byte loads.
pub const ITEMS_U32: usize = 16;
/// `u64` elements per thread: 64 bytes, as for `u32`.
pub const ITEMS_U64: usize = 8;

/// A look-back tile's status: nothing published yet. **Zero**, so that a memset prepares the
/// status words of a launch (the host zeroes them; keep it 0).
pub const STATUS_INVALID: u32 = 0;
/// The tile's own sum (aggregate) is published.
pub const STATUS_AGGREGATE: u32 = 1;
/// The tile's inclusive prefix (everything up to and including it) is published.
pub const STATUS_PREFIX: u32 = 2;

/// The tile shape of the device-wide scans (`scan_{kind}_{op}_{type}`, `Gpu::scan`) for 4-byte
/// elements: warps per block (tile) …
pub const TILE_WARPS_4: usize = 8;
/// … and 16-byte chunks of the tile per thread.
pub const TILE_CHUNKS_4: usize = 8;
/// The same for 8-byte elements: warps per block …
pub const TILE_WARPS_8: usize = 4;
/// … and 16-byte chunks per thread.
pub const TILE_CHUNKS_8: usize = 16;
