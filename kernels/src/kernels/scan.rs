//! Device-wide scan kernels, one per operator, kind, element type and tile class, all instances
//! of [`consume_tile`]: `scan_{exclusive|inclusive}_{sum|min|max}_{u32|i32|u64|i64|f32|f64}` (the
//! standard tiles) and `scan_small_…` (small tiles, for small inputs), with the parameters
//! `(input, output, n, states, forced_fallback)`; and `scan_prepare(states, words)`, which zeroes
//! a launch's tile states and lets the scan launched after it start early.
//!
//! Tiles have the shape `warpwork_abi::scan::tile_shape(size_of::<T>(), small)`: launch
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

/// The tile shape of `T`'s kernels of one class: (warps, 16-byte chunks per thread, load).
const fn tile_shape<T>(small: bool) -> (usize, usize, u8) {
    warpwork_abi::scan::tile_shape(core::mem::size_of::<T>(), small)
}

/// 16-byte chunks in a tile of `T` of one class (the size of its `ScanShared`).
pub(crate) const fn tile_slots<T>(small: bool) -> usize {
    tile_shape::<T>(small).0 * 32 * tile_shape::<T>(small).1
}

/// Zeroes the `words` 32-bit words of tile states at `states` (16-byte aligned) for the scan
/// launched next, which may be its programmatic dependent.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn scan_prepare(states: *mut u32, words: u64) {
    prepare_states(states, words as usize);
}

macro_rules! scan_kernel {
    ($name:ident, $small:literal, $op:ident<$t:ty>, $inclusive:literal) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            const WARPS: usize = tile_shape::<$t>($small).0;
            const CHUNKS: usize = tile_shape::<$t>($small).1;
            const LOAD: u8 = tile_shape::<$t>($small).2;
            const SLOTS: usize = tile_slots::<$t>($small);
            // (Paths in full: the declaration sits in a module of its own.)
            let smem = static_shared!(
                $name: [crate::device::scan::tile::ScanShared<{ crate::kernels::scan::tile_slots::<$t>($small) }>; 1]
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

scan_kernel!(scan_exclusive_sum_u32, false, Sum<u32>, false);
scan_kernel!(scan_small_exclusive_sum_u32, true, Sum<u32>, false);
scan_kernel!(scan_exclusive_min_u32, false, Min<u32>, false);
scan_kernel!(scan_small_exclusive_min_u32, true, Min<u32>, false);
scan_kernel!(scan_exclusive_max_u32, false, Max<u32>, false);
scan_kernel!(scan_small_exclusive_max_u32, true, Max<u32>, false);
scan_kernel!(scan_inclusive_sum_u32, false, Sum<u32>, true);
scan_kernel!(scan_small_inclusive_sum_u32, true, Sum<u32>, true);
scan_kernel!(scan_inclusive_min_u32, false, Min<u32>, true);
scan_kernel!(scan_small_inclusive_min_u32, true, Min<u32>, true);
scan_kernel!(scan_inclusive_max_u32, false, Max<u32>, true);
scan_kernel!(scan_small_inclusive_max_u32, true, Max<u32>, true);
scan_kernel!(scan_exclusive_sum_i32, false, Sum<i32>, false);
scan_kernel!(scan_small_exclusive_sum_i32, true, Sum<i32>, false);
scan_kernel!(scan_exclusive_min_i32, false, Min<i32>, false);
scan_kernel!(scan_small_exclusive_min_i32, true, Min<i32>, false);
scan_kernel!(scan_exclusive_max_i32, false, Max<i32>, false);
scan_kernel!(scan_small_exclusive_max_i32, true, Max<i32>, false);
scan_kernel!(scan_inclusive_sum_i32, false, Sum<i32>, true);
scan_kernel!(scan_small_inclusive_sum_i32, true, Sum<i32>, true);
scan_kernel!(scan_inclusive_min_i32, false, Min<i32>, true);
scan_kernel!(scan_small_inclusive_min_i32, true, Min<i32>, true);
scan_kernel!(scan_inclusive_max_i32, false, Max<i32>, true);
scan_kernel!(scan_small_inclusive_max_i32, true, Max<i32>, true);
scan_kernel!(scan_exclusive_sum_u64, false, Sum<u64>, false);
scan_kernel!(scan_small_exclusive_sum_u64, true, Sum<u64>, false);
scan_kernel!(scan_exclusive_min_u64, false, Min<u64>, false);
scan_kernel!(scan_small_exclusive_min_u64, true, Min<u64>, false);
scan_kernel!(scan_exclusive_max_u64, false, Max<u64>, false);
scan_kernel!(scan_small_exclusive_max_u64, true, Max<u64>, false);
scan_kernel!(scan_inclusive_sum_u64, false, Sum<u64>, true);
scan_kernel!(scan_small_inclusive_sum_u64, true, Sum<u64>, true);
scan_kernel!(scan_inclusive_min_u64, false, Min<u64>, true);
scan_kernel!(scan_small_inclusive_min_u64, true, Min<u64>, true);
scan_kernel!(scan_inclusive_max_u64, false, Max<u64>, true);
scan_kernel!(scan_small_inclusive_max_u64, true, Max<u64>, true);
scan_kernel!(scan_exclusive_sum_i64, false, Sum<i64>, false);
scan_kernel!(scan_small_exclusive_sum_i64, true, Sum<i64>, false);
scan_kernel!(scan_exclusive_min_i64, false, Min<i64>, false);
scan_kernel!(scan_small_exclusive_min_i64, true, Min<i64>, false);
scan_kernel!(scan_exclusive_max_i64, false, Max<i64>, false);
scan_kernel!(scan_small_exclusive_max_i64, true, Max<i64>, false);
scan_kernel!(scan_inclusive_sum_i64, false, Sum<i64>, true);
scan_kernel!(scan_small_inclusive_sum_i64, true, Sum<i64>, true);
scan_kernel!(scan_inclusive_min_i64, false, Min<i64>, true);
scan_kernel!(scan_small_inclusive_min_i64, true, Min<i64>, true);
scan_kernel!(scan_inclusive_max_i64, false, Max<i64>, true);
scan_kernel!(scan_small_inclusive_max_i64, true, Max<i64>, true);
scan_kernel!(scan_exclusive_sum_f32, false, Sum<f32>, false);
scan_kernel!(scan_small_exclusive_sum_f32, true, Sum<f32>, false);
scan_kernel!(scan_exclusive_min_f32, false, Min<f32>, false);
scan_kernel!(scan_small_exclusive_min_f32, true, Min<f32>, false);
scan_kernel!(scan_exclusive_max_f32, false, Max<f32>, false);
scan_kernel!(scan_small_exclusive_max_f32, true, Max<f32>, false);
scan_kernel!(scan_inclusive_sum_f32, false, Sum<f32>, true);
scan_kernel!(scan_small_inclusive_sum_f32, true, Sum<f32>, true);
scan_kernel!(scan_inclusive_min_f32, false, Min<f32>, true);
scan_kernel!(scan_small_inclusive_min_f32, true, Min<f32>, true);
scan_kernel!(scan_inclusive_max_f32, false, Max<f32>, true);
scan_kernel!(scan_small_inclusive_max_f32, true, Max<f32>, true);
scan_kernel!(scan_exclusive_sum_f64, false, Sum<f64>, false);
scan_kernel!(scan_small_exclusive_sum_f64, true, Sum<f64>, false);
scan_kernel!(scan_exclusive_min_f64, false, Min<f64>, false);
scan_kernel!(scan_small_exclusive_min_f64, true, Min<f64>, false);
scan_kernel!(scan_exclusive_max_f64, false, Max<f64>, false);
scan_kernel!(scan_small_exclusive_max_f64, true, Max<f64>, false);
scan_kernel!(scan_inclusive_sum_f64, false, Sum<f64>, true);
scan_kernel!(scan_small_inclusive_sum_f64, true, Sum<f64>, true);
scan_kernel!(scan_inclusive_min_f64, false, Min<f64>, true);
scan_kernel!(scan_small_inclusive_min_f64, true, Min<f64>, true);
scan_kernel!(scan_inclusive_max_f64, false, Max<f64>, true);
scan_kernel!(scan_small_inclusive_max_f64, true, Max<f64>, true);
