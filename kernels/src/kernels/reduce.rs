//! Reduction kernels, all instances of [`crate::device::reduce`]:
//!
//! * `reduce_{sum|min|max|argmin|argmax}_{u32|i32|u64|i64|f32|f64}(input, n, value, index,
//!   scratch)`: the device-wide reduce of `input[..n]` in one launch of
//!   `warpwork_abi::reduce::blocks(size_of::<T>(), n)` blocks of `warpwork_abi::reduce::THREADS`
//!   threads. Writes the result to `value[0]` (and, for argmin / argmax, its index to `index[0]`:
//!   `u64::MAX` and the identity of min / max for an empty input; `index` is unused otherwise).
//!   `scratch` (16-byte aligned) is the ticket, the claim counter and the block partials, or the
//!   `f32` sum's exact accumulators (`warpwork_abi::reduce::scratch_words`); all but the
//!   partials are zeroed by `reduce_prepare`, of which the reduce may be the programmatic
//!   dependent (not needed for a grid of one block). `reduce_sum_f32` is
//!   `device::reduce::sum_f32_grid`, the rest `device::reduce::reduce_grid`.
//! * `segmented_reduce_{sum|min|max}_{type}(input, n, offsets, segments, group, out)`: `out[s]`
//!   is the reduction of `input[offsets[s]..offsets[s + 1]]` (offsets clamped to `n`), in groups
//!   of `group` segments per block (1, or `warpwork_abi::reduce::SEGMENT_GROUP`:
//!   `warpwork_abi::reduce::segment_group`); any grid of blocks of
//!   `warpwork_abi::reduce::segment_threads` threads (one per group is best).
//! * `reduce_{argmin|argmax}_fold_{type}(indices, values, count, base, out_index, out_value)`:
//!   `device::reduce::fold_args` over `count` results, one thread (the indices may be
//!   `out_index`, the values `out_value`: each is read before the one write).
//! * `reduce_prepare(ticket)`: zeroes the ticket, the claim counter and the `f32` sum's
//!   accumulators after it (`TICKET_BYTES + EXACT_BYTES`); one block of
//!   `warpwork_abi::reduce::PREPARE_THREADS` threads.

use crate::block::{Max, Min, Sum};
use crate::device::reduce::{arg_result, fold_args, prepare_ticket, reduce_grid, reduce_segments, sum_f32_grid};
use crate::static_shared;
use crate::warp::{ArgMax, ArgMin, ScanOp};

/// Zeroes the ticket, the claim counter and the `f32` sum's accumulators of the reduce launched
/// next, which may start early as its programmatic dependent.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn reduce_prepare(ticket: *mut u32) {
    prepare_ticket(ticket);
}

macro_rules! reduce_kernels {
    ($t:ident: $sum:ident, $min:ident, $max:ident, $argmin:ident, $argmax:ident,
     $ssum:ident, $smin:ident, $smax:ident, $fmin:ident, $fmax:ident) => {
        reduce_kernels!(@fold $fmin, ArgMin<$t>, Min<$t>, $t);
        reduce_kernels!(@fold $fmax, ArgMax<$t>, Max<$t>, $t);
        reduce_kernels!(@sum $sum, $t);
        reduce_kernels!(@plain $min, $t, reduce_grid::<Min<$t>>);
        reduce_kernels!(@plain $max, $t, reduce_grid::<Max<$t>>);
        reduce_kernels!(@arg $argmin, ArgMin<$t>, Min<$t>, $t);
        reduce_kernels!(@arg $argmax, ArgMax<$t>, Max<$t>, $t);
        reduce_kernels!(@segmented $ssum, Sum<$t>, $t);
        reduce_kernels!(@segmented $smin, Min<$t>, $t);
        reduce_kernels!(@segmented $smax, Max<$t>, $t);
    };
    // The f32 sum adds its claimed units' partial sums exactly (`device::reduce::sum_f32_grid`).
    (@sum $name:ident, f32) => {
        reduce_kernels!(@plain $name, f32, sum_f32_grid);
    };
    (@sum $name:ident, $t:ty) => {
        reduce_kernels!(@plain $name, $t, reduce_grid::<Sum<$t>>);
    };
    (@plain $name:ident, $t:ty, $grid:path) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            n: usize,
            value: *mut $t,
            _index: *mut u64,
            scratch: *mut u8,
        ) {
            let smem = static_shared!($name: [crate::device::reduce::ReduceShared; 1]);
            if let Some(total) = $grid(input, n, scratch, smem) {
                *value = total;
            }
        }
    };
    (@arg $name:ident, $op:ty, $empty:ty, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            n: usize,
            value: *mut $t,
            index: *mut u64,
            scratch: *mut u8,
        ) {
            let smem = static_shared!($name: [crate::device::reduce::ReduceShared; 1]);
            if let Some(key) = reduce_grid::<$op>(input, n, scratch, smem) {
                let (i, v) = arg_result(input, key, <$empty as ScanOp>::IDENTITY);
                *index = i;
                *value = v;
            }
        }
    };
    (@fold $name:ident, $op:ty, $empty:ty, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            indices: *const u64,
            values: *const $t,
            count: u32,
            base: u64,
            out_index: *mut u64,
            out_value: *mut $t,
        ) {
            let (i, v) = fold_args::<$op, $t>(indices, values, count, base, <$empty as ScanOp>::IDENTITY);
            *out_index = i;
            *out_value = v;
        }
    };
    (@segmented $name:ident, $op:ty, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            n: usize,
            offsets: *const u64,
            segments: usize,
            group: usize,
            out: *mut $t,
        ) {
            let smem = static_shared!($name: [crate::device::reduce::ReduceShared; 1]);
            reduce_segments::<$op>(input, n, offsets, segments, group, out, smem);
        }
    };
}

reduce_kernels!(u32: reduce_sum_u32, reduce_min_u32, reduce_max_u32, reduce_argmin_u32, reduce_argmax_u32,
    segmented_reduce_sum_u32, segmented_reduce_min_u32, segmented_reduce_max_u32,
    reduce_argmin_fold_u32, reduce_argmax_fold_u32);
reduce_kernels!(i32: reduce_sum_i32, reduce_min_i32, reduce_max_i32, reduce_argmin_i32, reduce_argmax_i32,
    segmented_reduce_sum_i32, segmented_reduce_min_i32, segmented_reduce_max_i32,
    reduce_argmin_fold_i32, reduce_argmax_fold_i32);
reduce_kernels!(u64: reduce_sum_u64, reduce_min_u64, reduce_max_u64, reduce_argmin_u64, reduce_argmax_u64,
    segmented_reduce_sum_u64, segmented_reduce_min_u64, segmented_reduce_max_u64,
    reduce_argmin_fold_u64, reduce_argmax_fold_u64);
reduce_kernels!(i64: reduce_sum_i64, reduce_min_i64, reduce_max_i64, reduce_argmin_i64, reduce_argmax_i64,
    segmented_reduce_sum_i64, segmented_reduce_min_i64, segmented_reduce_max_i64,
    reduce_argmin_fold_i64, reduce_argmax_fold_i64);
reduce_kernels!(f32: reduce_sum_f32, reduce_min_f32, reduce_max_f32, reduce_argmin_f32, reduce_argmax_f32,
    segmented_reduce_sum_f32, segmented_reduce_min_f32, segmented_reduce_max_f32,
    reduce_argmin_fold_f32, reduce_argmax_fold_f32);
reduce_kernels!(f64: reduce_sum_f64, reduce_min_f64, reduce_max_f64, reduce_argmin_f64, reduce_argmax_f64,
    segmented_reduce_sum_f64, segmented_reduce_min_f64, segmented_reduce_max_f64,
    reduce_argmin_fold_f64, reduce_argmax_fold_f64);
