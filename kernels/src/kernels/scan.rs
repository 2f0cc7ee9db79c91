//! Device-wide scan kernels, one per operator, kind and element type, all instances of
//! [`consume_tile`]: `scan_{exclusive|inclusive}_{sum|min|max}_{u32|i32|u64|i64|f32|f64}(input,
//! output, n, states, forced_fallback)`.
//!
//! Launch `ceil(n / tile_items::<T>())` blocks of [`TILE_THREADS`](crate::device::scan::tile::TILE_THREADS) threads. `states` is the
//! look-back's tile states ([`TileStates::words`] 32-bit words, 8-byte aligned, the first
//! [`TileStates::status_words`] zeroed before every launch); `output == input` scans in place;
//! `forced_fallback != 0` forces the look-back's fallback (tests only).
//!
//! S2.5's pass 1 (`expand_push_scan`, block shape `warpwork_abi::scan::{THREADS, ITEMS_U32}`)
//! scans with the older look-back of [`crate::device::scan`].

use crate::block::{Max, Min, Sum};
use crate::device::lookback::TileStates;
use crate::device::scan::tile::{consume_tile, load, tile_items};
use crate::static_shared;

/// `name(input, output, n, states, forced_fallback)`: [`consume_tile`] of `$op<$t>` over tiles of
/// `$warps` warps × `$chunks` 16-byte chunks per thread, elements moved as `$load`.
macro_rules! scan_tile_kernel {
    ($name:ident, $op:ident<$t:ty>, $inclusive:literal, $warps:expr, $chunks:expr, $load:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            const WARPS: usize = $warps;
            const CHUNKS: usize = $chunks;
            const SLOTS: usize = WARPS * 32 * CHUNKS;
            // (The size is spelled out: the declaration sits in a module of its own.)
            let smem = static_shared!($name: [crate::device::scan::tile::ScanShared<{ ($warps) * 32 * ($chunks) }>; 1]);
            let states = TileStates::<$t>::new(states, n.div_ceil(tile_items::<$t, WARPS, CHUNKS>()));
            consume_tile::<$op<$t>, $inclusive, WARPS, CHUNKS, SLOTS, { $load }>(
                states,
                smem,
                input,
                output,
                n,
                forced_fallback != 0,
            );
        }
    };
}
pub(crate) use scan_tile_kernel;

macro_rules! scan_kernel {
    ($name:ident, $op:ident<$t:ty>, $inclusive:literal) => {
        scan_tile_kernel!(
            $name,
            $op<$t>,
            $inclusive,
            if core::mem::size_of::<$t>() == 8 {
                warpwork_abi::scan::TILE_WARPS_8
            } else {
                warpwork_abi::scan::TILE_WARPS_4
            },
            if core::mem::size_of::<$t>() == 8 {
                warpwork_abi::scan::TILE_CHUNKS_8
            } else {
                warpwork_abi::scan::TILE_CHUNKS_4
            },
            load::PLAIN
        );
    };
}

scan_kernel!(scan_exclusive_sum_u32, Sum<u32>, false);
scan_kernel!(scan_exclusive_min_u32, Min<u32>, false);
scan_kernel!(scan_exclusive_max_u32, Max<u32>, false);
scan_kernel!(scan_inclusive_sum_u32, Sum<u32>, true);
scan_kernel!(scan_inclusive_min_u32, Min<u32>, true);
scan_kernel!(scan_inclusive_max_u32, Max<u32>, true);
scan_kernel!(scan_exclusive_sum_i32, Sum<i32>, false);
scan_kernel!(scan_exclusive_min_i32, Min<i32>, false);
scan_kernel!(scan_exclusive_max_i32, Max<i32>, false);
scan_kernel!(scan_inclusive_sum_i32, Sum<i32>, true);
scan_kernel!(scan_inclusive_min_i32, Min<i32>, true);
scan_kernel!(scan_inclusive_max_i32, Max<i32>, true);
scan_kernel!(scan_exclusive_sum_u64, Sum<u64>, false);
scan_kernel!(scan_exclusive_min_u64, Min<u64>, false);
scan_kernel!(scan_exclusive_max_u64, Max<u64>, false);
scan_kernel!(scan_inclusive_sum_u64, Sum<u64>, true);
scan_kernel!(scan_inclusive_min_u64, Min<u64>, true);
scan_kernel!(scan_inclusive_max_u64, Max<u64>, true);
scan_kernel!(scan_exclusive_sum_i64, Sum<i64>, false);
scan_kernel!(scan_exclusive_min_i64, Min<i64>, false);
scan_kernel!(scan_exclusive_max_i64, Max<i64>, false);
scan_kernel!(scan_inclusive_sum_i64, Sum<i64>, true);
scan_kernel!(scan_inclusive_min_i64, Min<i64>, true);
scan_kernel!(scan_inclusive_max_i64, Max<i64>, true);
scan_kernel!(scan_exclusive_sum_f32, Sum<f32>, false);
scan_kernel!(scan_exclusive_min_f32, Min<f32>, false);
scan_kernel!(scan_exclusive_max_f32, Max<f32>, false);
scan_kernel!(scan_inclusive_sum_f32, Sum<f32>, true);
scan_kernel!(scan_inclusive_min_f32, Min<f32>, true);
scan_kernel!(scan_inclusive_max_f32, Max<f32>, true);
scan_kernel!(scan_exclusive_sum_f64, Sum<f64>, false);
scan_kernel!(scan_exclusive_min_f64, Min<f64>, false);
scan_kernel!(scan_exclusive_max_f64, Max<f64>, false);
scan_kernel!(scan_inclusive_sum_f64, Sum<f64>, true);
scan_kernel!(scan_inclusive_min_f64, Min<f64>, true);
scan_kernel!(scan_inclusive_max_f64, Max<f64>, true);
