//! The compaction family's kernels on the ordered select's tile (`select_ordered_tile` with a
//! `MODE`): stable partitions `partition_{tile}_{type}`, unique `unique_{tile}_{type}`, the runs'
//! first passes `run_length_{tile}_{type}` and `run_bounds_{tile}_{type}`, and their second
//! passes `run_lengths_{u32,u64}`, `run_bounds_{u32,u64}` and `gather_runs_{type}`. Parameter
//! lists are documented at each macro; the grids of the tile kernels are the ordered select's.

use super::{ordered_shape, ordered_slots, Bytes16};
use crate::device::lookback::TileStates;
use crate::device::select::{gather_runs, op, run_bounds, run_lengths, select_ordered_tile};
use crate::static_shared;

use warpwork_abi::scan::tile_load;
use warpwork_abi::select::mode;

/// Stable partitions `partition_{tile}_{type}`: the parameters and grid of the ordered select
/// kernels of the same type and tile (the start is 0 and `capacity ≥ n`); the kept items go to
/// `out[..count]` in input order, the rejected ones to `out[count..n]` in reverse input order.
macro_rules! partition_kernels {
    ($($t:ty: $($name:ident = $class:literal),*;)*) => {$($(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            flags: *const u8,
            n: u64,
            op: u32,
            a: $t,
            b: $t,
            out: *mut $t,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            ordered_body!(
                $name, $t, $class, items, flags, n, op, a, b, out, capacity, counter, start, states,
                forced_fallback, mode::PARTITION, core::ptr::null_mut()
            )
        }
    )*)*};
}

partition_kernels! {
    u8: partition_small_u8 = 0, partition_large_u8 = 2;
    i8: partition_small_i8 = 0, partition_large_i8 = 2;
    u16: partition_small_u16 = 0, partition_large_u16 = 2;
    i16: partition_small_i16 = 0, partition_large_i16 = 2;
    u32: partition_small_u32 = 0, partition_large_u32 = 2;
    i32: partition_small_i32 = 0, partition_large_i32 = 2;
    u64: partition_small_u64 = 0, partition_large_u64 = 2;
    i64: partition_small_i64 = 0, partition_large_i64 = 2;
    f32: partition_small_f32 = 0, partition_large_f32 = 2;
    f64: partition_small_f64 = 0, partition_large_f64 = 2;
}

/// Stable partitions of 16-byte items by flag: the parameters of the ordered `bytes16` kernels.
macro_rules! partition_bytes16_kernels {
    ($($name:ident = $class:literal),*) => {$(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const Bytes16,
            flags: *const u8,
            n: u64,
            out: *mut Bytes16,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            let zero = Bytes16::default();
            ordered_body!(
                $name, [u32; 4], $class, items, flags, n, op::FLAGGED, zero, zero, out, capacity, counter, start,
                states, forced_fallback, mode::PARTITION, core::ptr::null_mut()
            )
        }
    )*};
}

partition_bytes16_kernels!(partition_small_bytes16 = 0, partition_large_bytes16 = 2);

/// Unique `unique_{tile}_{type}` (items compared by their bytes, so one kernel per size):
/// `(items, n, out, capacity, counter, start, states, forced_fallback)`, the grid of the ordered
/// select kernels of the same size and tile. Keeps each item that differs from the one before it.
macro_rules! unique_kernels {
    ($($t:ty: $($name:ident = $class:literal),*;)*) => {$($(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            n: u64,
            out: *mut $t,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            let zero = <$t>::default();
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, out, capacity, counter, start,
                states, forced_fallback, mode::UNIQUE, core::ptr::null_mut()
            )
        }
    )*)*};
}

unique_kernels! {
    u8: unique_small_u8 = 0, unique_large_u8 = 2;
    u16: unique_small_u16 = 0, unique_large_u16 = 2;
    u32: unique_small_u32 = 0, unique_large_u32 = 2;
    u64: unique_small_u64 = 0, unique_large_u64 = 2;
    [u32; 4]: unique_small_bytes16 = 0, unique_large_bytes16 = 2;
}

/// Run-length encoding's first pass `run_length_{tile}_{type}`: unique's parameters, then
/// `offsets` (`*mut u64`, `capacity` of them): writes each run's first item to `out` and its
/// index to `offsets` at the same slot. `run_lengths_{u32,u64}` then turns the offsets into
/// lengths.
macro_rules! run_length_kernels {
    ($($t:ty: $($name:ident = $class:literal),*;)*) => {$($(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            n: u64,
            out: *mut $t,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
            offsets: *mut u64,
        ) {
            let zero = <$t>::default();
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, out, capacity, counter, start,
                states, forced_fallback, mode::RUNS, offsets
            )
        }
    )*)*};
}

run_length_kernels! {
    u8: run_length_small_u8 = 0, run_length_large_u8 = 2;
    u16: run_length_small_u16 = 0, run_length_large_u16 = 2;
    u32: run_length_small_u32 = 0, run_length_large_u32 = 2;
    u64: run_length_small_u64 = 0, run_length_large_u64 = 2;
    [u32; 4]: run_length_small_bytes16 = 0, run_length_large_bytes16 = 2;
}

/// Run-length encoding's second pass, `(offsets, count, n, capacity, lengths)`: `lengths[r] =
/// offsets[r + 1] − offsets[r]` (`n − offsets[r]` for the last run) for the `min(*count,
/// capacity)` runs (`*count` a `u64` the first pass wrote), as `u32` or `u64`
/// ([`run_lengths`]). A grid-stride loop over any grid of 256-thread blocks.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn run_lengths_u32(
    offsets: *const u64,
    count: *const u64,
    n: u64,
    capacity: u64,
    lengths: *mut u32,
) {
    run_lengths(offsets, count, n, capacity, lengths)
}

/// [`run_lengths_u32`] with `u64` lengths.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn run_lengths_u64(
    offsets: *const u64,
    count: *const u64,
    n: u64,
    capacity: u64,
    lengths: *mut u64,
) {
    run_lengths(offsets, count, n, capacity, lengths)
}

/// The non-trivial runs' first pass `run_bounds_{tile}_{type}`, `(items, n, capacity, counter,
/// start, states, forced_fallback, offsets)`: the index of the first and of the last item of
/// every run longer than one item, alternately, in `offsets` (`capacity` of them), and their
/// count in `*counter`; `run_bounds_{u32,u64}` then turns them into offsets and lengths.
macro_rules! run_bounds_kernels {
    ($($t:ty: $($name:ident = $class:literal),*;)*) => {$($(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            n: u64,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
            offsets: *mut u64,
        ) {
            let zero = <$t>::default();
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, core::ptr::null_mut(), capacity,
                counter, start, states, forced_fallback, mode::BOUNDS, offsets
            )
        }
    )*)*};
}

run_bounds_kernels! {
    u8: run_bounds_small_u8 = 0, run_bounds_large_u8 = 2;
    u16: run_bounds_small_u16 = 0, run_bounds_large_u16 = 2;
    u32: run_bounds_small_u32 = 0, run_bounds_large_u32 = 2;
    u64: run_bounds_small_u64 = 0, run_bounds_large_u64 = 2;
    [u32; 4]: run_bounds_small_bytes16 = 0, run_bounds_large_bytes16 = 2;
}

/// The non-trivial runs' second pass, `(bounds, bound_count, count, capacity, offsets, lengths)`:
/// run `k` (below `min(*bound_count / 2, capacity)`) starts at `bounds[2k]` and ends at
/// `bounds[2k + 1]`; writes its offset and length (as `u32` or `u64`) and `*count = *bound_count
/// / 2` ([`run_bounds`]). Any grid of 256-thread blocks.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn run_bounds_u32(
    bounds: *const u64,
    bound_count: *const u64,
    count: *mut u64,
    capacity: u64,
    offsets: *mut u32,
    lengths: *mut u32,
) {
    run_bounds(bounds, bound_count, count, capacity, offsets, lengths)
}

/// [`run_bounds_u32`] with `u64` offsets and lengths.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn run_bounds_u64(
    bounds: *const u64,
    bound_count: *const u64,
    count: *mut u64,
    capacity: u64,
    offsets: *mut u64,
    lengths: *mut u64,
) {
    run_bounds(bounds, bound_count, count, capacity, offsets, lengths)
}

/// Unique by key's second pass `gather_runs_{type}`, `(offsets, count, capacity, values, out)`:
/// `out[r] = values[offsets[r]]` for the `min(*count, capacity)` key runs whose first indices
/// the first pass (`run_length_{tile}_{type}`) wrote ([`gather_runs`]). Values of 1, 2, 4, 8 or
/// 16 bytes (one kernel per size); any grid of 256-thread blocks.
macro_rules! gather_kernels {
    ($($name:ident: $v:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            offsets: *const u64,
            count: *const u64,
            capacity: u64,
            values: *const $v,
            out: *mut $v,
        ) {
            gather_runs(offsets, count, capacity, values, out)
        }
    )*};
}

gather_kernels! {
    gather_runs_u8: u8;
    gather_runs_u16: u16;
    gather_runs_u32: u32;
    gather_runs_u64: u64;
    gather_runs_bytes16: [u32; 4];
}
