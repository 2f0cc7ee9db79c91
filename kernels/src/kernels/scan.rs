//! Device-wide scan kernels, one per operator, kind and element type, all instances of
//! [`consume_tile`]: `scan_{exclusive|inclusive}_{sum|min|max}_{u32|i32|u64|i64|f32|f64}(input,
//! output, n, states, forced_fallback)`.
//!
//! Tiles have the shape of `warpwork_abi::scan::TILE_{WARPS,CHUNKS,LOAD}_{4,8}` for 4- and 8-byte
//! elements: launch `ceil(n / tile_items)` blocks of `32 · TILE_WARPS_*` threads. `states` is the
//! look-back's tile states (`warpwork_abi::scan::tile_state_words` 32-bit words, 16-byte aligned, all zeroed
//! before every launch); `output == input` scans in place; `forced_fallback != 0` forces the
//! look-back's fallback (tests only).
//!
//! S2.5's pass 1 (`expand_push_scan`, block shape `warpwork_abi::scan::{THREADS, ITEMS_U32}`)
//! scans with the same look-back ([`crate::device::lookback`]).

use crate::block::{Max, Min, Sum};
use crate::device::lookback::TileStates;
use crate::device::scan::tile::consume_tile;
use crate::static_shared;

/// The tile shape of `T`'s kernels: (warps, 16-byte chunks per thread, load).
const fn tile_shape<T>() -> (usize, usize, u8) {
    warpwork_abi::scan::tile_shape(core::mem::size_of::<T>())
}

/// 16-byte chunks in a tile of `T` (the size of its `ScanShared`).
pub(crate) const fn tile_slots<T>() -> usize {
    tile_shape::<T>().0 * 32 * tile_shape::<T>().1
}

macro_rules! scan_kernel {
    ($name:ident, $op:ident<$t:ty>, $inclusive:literal) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            const WARPS: usize = tile_shape::<$t>().0;
            const CHUNKS: usize = tile_shape::<$t>().1;
            const LOAD: u8 = tile_shape::<$t>().2;
            const SLOTS: usize = tile_slots::<$t>();
            // (Paths in full: the declaration sits in a module of its own.)
            let smem = static_shared!(
                $name: [crate::device::scan::tile::ScanShared<{ crate::kernels::scan::tile_slots::<$t>() }>; 1]
            );
            let states = TileStates::<$t>::new(states);
            consume_tile::<$op<$t>, $inclusive, WARPS, CHUNKS, SLOTS, LOAD>(
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
