//! Device-wide scan kernels, one per operator, kind, element type and tile class
//! (`warpwork_abi::scan::TileClass`), all instances of [`consume_tile`]:
//! `scan_{exclusive|inclusive}_{sum|min|max}_{u32|i32|u64|i64|f32|f64}` (standard tiles),
//! `scan_small_…` (small inputs) and `scan_medium_…` (8-byte elements, mid-sized inputs), with the
//! parameters `(input, output, n, states, forced_fallback)`; the sums from a base in device
//! memory `scan_based_{exclusive|inclusive}_sum_{type}` (standard tiles, two more parameters
//! `base, base_len`); and `scan_prepare(states, words)`,
//! which zeroes a launch's tile states and lets the scan launched after it start early.
//!
//! Tiles have the shape `warpwork_abi::scan::tile_shape(size_of::<T>(), class)`: launch
//! `warpwork_abi::scan::tiles` blocks of `32 · warps` threads. `states` is the look-back's tile
//! states (`warpwork_abi::scan::tile_state_words` 32-bit words, 16-byte aligned), zeroed by
//! `scan_prepare` (of which the scan may be the programmatic dependent: it waits for it before it
//! touches the states) or otherwise before the launch; `output == input` scans in place;
//! `forced_fallback != 0` forces the look-back's fallback (tests only).
//!
//! S2.5's pass 1 (`expand_push_scan`, block shape `warpwork_abi::scan::{THREADS, ITEMS_U32}`)
//! scans with the same look-back ([`crate::device::lookback`]).

use crate::block::{Max, Min, Sum};
use crate::device::lookback::{prepare_states, TileStates};
use crate::device::scan::tile::consume_tile;
use crate::static_shared;
use warpwork_abi::scan::TileClass;

/// The tile shape of `T`'s kernels of one class: (warps, 16-byte chunks per thread, load).
const fn tile_shape<T>(class: TileClass) -> (usize, usize, u8) {
    warpwork_abi::scan::tile_shape(core::mem::size_of::<T>(), class)
}

/// 16-byte chunks in a tile of `T` of one class (the size of its `ScanShared`).
pub(crate) const fn tile_slots<T>(class: TileClass) -> usize {
    tile_shape::<T>(class).0 * 32 * tile_shape::<T>(class).1
}

/// Zeroes the `words` 32-bit words of tile states at `states` (16-byte aligned) for the scan
/// launched next, which may be its programmatic dependent.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn scan_prepare(states: *mut u32, words: u64) {
    prepare_states(states, words as usize);
}

macro_rules! scan_kernel {
    ($name:ident, $class:ident, $op:ident<$t:ty>, $inclusive:literal) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            const WARPS: usize = tile_shape::<$t>(TileClass::$class).0;
            const CHUNKS: usize = tile_shape::<$t>(TileClass::$class).1;
            const LOAD: u8 = tile_shape::<$t>(TileClass::$class).2;
            const SLOTS: usize = tile_slots::<$t>(TileClass::$class);
            // (Paths in full: the declaration sits in a module of its own.)
            let smem = static_shared!(
                $name: [crate::device::scan::tile::ScanShared<{ crate::kernels::scan::tile_slots::<$t>(warpwork_abi::scan::TileClass::$class) }>; 1]
            );
            let states = TileStates::<$t>::new(states);
            consume_tile::<$op<$t>, $inclusive, false, WARPS, CHUNKS, SLOTS, LOAD>(
                states,
                smem,
                input,
                output,
                n,
                forced_fallback != 0,
                core::ptr::null(),
                0,
            );
        }
    };
}

/// The sums that start from a base in device memory, in standard tiles only (any `n`: the host
/// launches `warpwork_abi::scan::tiles_of(size, Standard, n)` blocks):
/// `(input, output, n, states, forced_fallback, base, base_len)`, every output combined on the
/// left with `base[0] + … + base[base_len - 1]`.
macro_rules! based_scan_kernel {
    ($name:ident, $t:ty, $inclusive:literal) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
            base: *const $t,
            base_len: usize,
        ) {
            const WARPS: usize = tile_shape::<$t>(TileClass::Standard).0;
            const CHUNKS: usize = tile_shape::<$t>(TileClass::Standard).1;
            const LOAD: u8 = tile_shape::<$t>(TileClass::Standard).2;
            const SLOTS: usize = tile_slots::<$t>(TileClass::Standard);
            let smem = static_shared!(
                $name: [crate::device::scan::tile::ScanShared<{ crate::kernels::scan::tile_slots::<$t>(warpwork_abi::scan::TileClass::Standard) }>; 1]
            );
            let states = TileStates::<$t>::new(states);
            consume_tile::<Sum<$t>, $inclusive, true, WARPS, CHUNKS, SLOTS, LOAD>(
                states,
                smem,
                input,
                output,
                n,
                forced_fallback != 0,
                base,
                base_len,
            );
        }
    };
}

based_scan_kernel!(scan_based_exclusive_sum_u32, u32, false);
based_scan_kernel!(scan_based_inclusive_sum_u32, u32, true);
based_scan_kernel!(scan_based_exclusive_sum_i32, i32, false);
based_scan_kernel!(scan_based_inclusive_sum_i32, i32, true);
based_scan_kernel!(scan_based_exclusive_sum_u64, u64, false);
based_scan_kernel!(scan_based_inclusive_sum_u64, u64, true);
based_scan_kernel!(scan_based_exclusive_sum_i64, i64, false);
based_scan_kernel!(scan_based_inclusive_sum_i64, i64, true);
based_scan_kernel!(scan_based_exclusive_sum_f32, f32, false);
based_scan_kernel!(scan_based_inclusive_sum_f32, f32, true);
based_scan_kernel!(scan_based_exclusive_sum_f64, f64, false);
based_scan_kernel!(scan_based_inclusive_sum_f64, f64, true);

scan_kernel!(scan_exclusive_sum_u32, Standard, Sum<u32>, false);
scan_kernel!(scan_small_exclusive_sum_u32, Small, Sum<u32>, false);
scan_kernel!(scan_exclusive_min_u32, Standard, Min<u32>, false);
scan_kernel!(scan_small_exclusive_min_u32, Small, Min<u32>, false);
scan_kernel!(scan_exclusive_max_u32, Standard, Max<u32>, false);
scan_kernel!(scan_small_exclusive_max_u32, Small, Max<u32>, false);
scan_kernel!(scan_inclusive_sum_u32, Standard, Sum<u32>, true);
scan_kernel!(scan_small_inclusive_sum_u32, Small, Sum<u32>, true);
scan_kernel!(scan_inclusive_min_u32, Standard, Min<u32>, true);
scan_kernel!(scan_small_inclusive_min_u32, Small, Min<u32>, true);
scan_kernel!(scan_inclusive_max_u32, Standard, Max<u32>, true);
scan_kernel!(scan_small_inclusive_max_u32, Small, Max<u32>, true);
scan_kernel!(scan_exclusive_sum_i32, Standard, Sum<i32>, false);
scan_kernel!(scan_small_exclusive_sum_i32, Small, Sum<i32>, false);
scan_kernel!(scan_exclusive_min_i32, Standard, Min<i32>, false);
scan_kernel!(scan_small_exclusive_min_i32, Small, Min<i32>, false);
scan_kernel!(scan_exclusive_max_i32, Standard, Max<i32>, false);
scan_kernel!(scan_small_exclusive_max_i32, Small, Max<i32>, false);
scan_kernel!(scan_inclusive_sum_i32, Standard, Sum<i32>, true);
scan_kernel!(scan_small_inclusive_sum_i32, Small, Sum<i32>, true);
scan_kernel!(scan_inclusive_min_i32, Standard, Min<i32>, true);
scan_kernel!(scan_small_inclusive_min_i32, Small, Min<i32>, true);
scan_kernel!(scan_inclusive_max_i32, Standard, Max<i32>, true);
scan_kernel!(scan_small_inclusive_max_i32, Small, Max<i32>, true);
scan_kernel!(scan_exclusive_sum_u64, Standard, Sum<u64>, false);
scan_kernel!(scan_small_exclusive_sum_u64, Small, Sum<u64>, false);
scan_kernel!(scan_medium_exclusive_sum_u64, Medium, Sum<u64>, false);
scan_kernel!(scan_exclusive_min_u64, Standard, Min<u64>, false);
scan_kernel!(scan_small_exclusive_min_u64, Small, Min<u64>, false);
scan_kernel!(scan_medium_exclusive_min_u64, Medium, Min<u64>, false);
scan_kernel!(scan_exclusive_max_u64, Standard, Max<u64>, false);
scan_kernel!(scan_small_exclusive_max_u64, Small, Max<u64>, false);
scan_kernel!(scan_medium_exclusive_max_u64, Medium, Max<u64>, false);
scan_kernel!(scan_inclusive_sum_u64, Standard, Sum<u64>, true);
scan_kernel!(scan_small_inclusive_sum_u64, Small, Sum<u64>, true);
scan_kernel!(scan_medium_inclusive_sum_u64, Medium, Sum<u64>, true);
scan_kernel!(scan_inclusive_min_u64, Standard, Min<u64>, true);
scan_kernel!(scan_small_inclusive_min_u64, Small, Min<u64>, true);
scan_kernel!(scan_medium_inclusive_min_u64, Medium, Min<u64>, true);
scan_kernel!(scan_inclusive_max_u64, Standard, Max<u64>, true);
scan_kernel!(scan_small_inclusive_max_u64, Small, Max<u64>, true);
scan_kernel!(scan_medium_inclusive_max_u64, Medium, Max<u64>, true);
scan_kernel!(scan_exclusive_sum_i64, Standard, Sum<i64>, false);
scan_kernel!(scan_small_exclusive_sum_i64, Small, Sum<i64>, false);
scan_kernel!(scan_medium_exclusive_sum_i64, Medium, Sum<i64>, false);
scan_kernel!(scan_exclusive_min_i64, Standard, Min<i64>, false);
scan_kernel!(scan_small_exclusive_min_i64, Small, Min<i64>, false);
scan_kernel!(scan_medium_exclusive_min_i64, Medium, Min<i64>, false);
scan_kernel!(scan_exclusive_max_i64, Standard, Max<i64>, false);
scan_kernel!(scan_small_exclusive_max_i64, Small, Max<i64>, false);
scan_kernel!(scan_medium_exclusive_max_i64, Medium, Max<i64>, false);
scan_kernel!(scan_inclusive_sum_i64, Standard, Sum<i64>, true);
scan_kernel!(scan_small_inclusive_sum_i64, Small, Sum<i64>, true);
scan_kernel!(scan_medium_inclusive_sum_i64, Medium, Sum<i64>, true);
scan_kernel!(scan_inclusive_min_i64, Standard, Min<i64>, true);
scan_kernel!(scan_small_inclusive_min_i64, Small, Min<i64>, true);
scan_kernel!(scan_medium_inclusive_min_i64, Medium, Min<i64>, true);
scan_kernel!(scan_inclusive_max_i64, Standard, Max<i64>, true);
scan_kernel!(scan_small_inclusive_max_i64, Small, Max<i64>, true);
scan_kernel!(scan_medium_inclusive_max_i64, Medium, Max<i64>, true);
scan_kernel!(scan_exclusive_sum_f32, Standard, Sum<f32>, false);
scan_kernel!(scan_small_exclusive_sum_f32, Small, Sum<f32>, false);
scan_kernel!(scan_exclusive_min_f32, Standard, Min<f32>, false);
scan_kernel!(scan_small_exclusive_min_f32, Small, Min<f32>, false);
scan_kernel!(scan_exclusive_max_f32, Standard, Max<f32>, false);
scan_kernel!(scan_small_exclusive_max_f32, Small, Max<f32>, false);
scan_kernel!(scan_inclusive_sum_f32, Standard, Sum<f32>, true);
scan_kernel!(scan_small_inclusive_sum_f32, Small, Sum<f32>, true);
scan_kernel!(scan_inclusive_min_f32, Standard, Min<f32>, true);
scan_kernel!(scan_small_inclusive_min_f32, Small, Min<f32>, true);
scan_kernel!(scan_inclusive_max_f32, Standard, Max<f32>, true);
scan_kernel!(scan_small_inclusive_max_f32, Small, Max<f32>, true);
scan_kernel!(scan_exclusive_sum_f64, Standard, Sum<f64>, false);
scan_kernel!(scan_small_exclusive_sum_f64, Small, Sum<f64>, false);
scan_kernel!(scan_medium_exclusive_sum_f64, Medium, Sum<f64>, false);
scan_kernel!(scan_exclusive_min_f64, Standard, Min<f64>, false);
scan_kernel!(scan_small_exclusive_min_f64, Small, Min<f64>, false);
scan_kernel!(scan_medium_exclusive_min_f64, Medium, Min<f64>, false);
scan_kernel!(scan_exclusive_max_f64, Standard, Max<f64>, false);
scan_kernel!(scan_small_exclusive_max_f64, Small, Max<f64>, false);
scan_kernel!(scan_medium_exclusive_max_f64, Medium, Max<f64>, false);
scan_kernel!(scan_inclusive_sum_f64, Standard, Sum<f64>, true);
scan_kernel!(scan_small_inclusive_sum_f64, Small, Sum<f64>, true);
scan_kernel!(scan_medium_inclusive_sum_f64, Medium, Sum<f64>, true);
scan_kernel!(scan_inclusive_min_f64, Standard, Min<f64>, true);
scan_kernel!(scan_small_inclusive_min_f64, Small, Min<f64>, true);
scan_kernel!(scan_medium_inclusive_min_f64, Medium, Min<f64>, true);
scan_kernel!(scan_inclusive_max_f64, Standard, Max<f64>, true);
scan_kernel!(scan_small_inclusive_max_f64, Small, Max<f64>, true);
scan_kernel!(scan_medium_inclusive_max_f64, Medium, Max<f64>, true);
