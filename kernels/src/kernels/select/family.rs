//! The compaction family's kernels on the ordered select's tile (`select_ordered_tile` with a
//! `MODE`): stable partitions `partition_{tile}_{type}`, unique `unique_{tile}_{type}`, and in
//! one pass each the run-length encoding `run_length_{tile}_{type}`, the non-trivial runs
//! `run_bounds_{tile}_{type}` and unique by key `unique_by_key_{tile}_{type}`. Parameter lists
//! are documented at each macro; the grids are the ordered select's.

use super::{ordered_shape, ordered_slots, Bytes16};
use crate::device::lookback::TileStates;
use crate::device::select::{op, select_ordered_tile, RunOutputs};
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
                forced_fallback, mode::PARTITION, crate::device::select::RunOutputs::NONE
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
                states, forced_fallback, mode::PARTITION, crate::device::select::RunOutputs::NONE
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
                states, forced_fallback, mode::UNIQUE, crate::device::select::RunOutputs::NONE
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

/// Run-length encoding in one pass, `run_length_{tile}_{type}`: unique's parameters, then
/// `lengths` (`capacity` of them, `u64` if `wide` is non-zero, `u32` otherwise): each run's
/// first item goes to `out`, its length to `lengths` at the same slot. `states` holds twice the
/// launch's tile states (the second look-back's right after the first's).
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
            lengths: *mut u8,
            wide: u32,
        ) {
            let zero = <$t>::default();
            let runs = RunOutputs { lengths, wide: wide != 0, last: last_states(states), ..RunOutputs::NONE };
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, out, capacity, counter, start,
                states, forced_fallback, mode::RUNS, runs
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

/// The second look-back's tile states of a run launch: right after the first's (16 bytes per
/// tile, one tile per block).
#[inline(always)]
unsafe fn last_states(states: *mut u32) -> TileStates<u64> {
    TileStates::new(states.add(4 * crate::arch::grid_dim_x() as usize))
}

/// The non-trivial runs in one pass, `run_bounds_{tile}_{type}`, `(items, n, capacity, counter,
/// start, states, forced_fallback, offsets, lengths, wide)`: each run longer than one item as its
/// first index in `offsets` and its length in `lengths` (`capacity` of each, `u64` if `wide` is
/// non-zero, `u32` otherwise), their count in `*counter`. `states` as `run_length_{tile}_{type}`.
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
            offsets: *mut u8,
            lengths: *mut u8,
            wide: u32,
        ) {
            let zero = <$t>::default();
            let runs = RunOutputs { lengths, offsets, wide: wide != 0, last: last_states(states), ..RunOutputs::NONE };
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, core::ptr::null_mut(), capacity,
                counter, start, states, forced_fallback, mode::BOUNDS, runs
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

/// Unique by key in one pass, `unique_by_key_{tile}_{type}` (the keys' type): unique's
/// parameters over the keys, then `values` (`n` of them), `values_out` (`capacity`) and
/// `value_size` (1, 2, 4, 8 or 16 bytes; 16-byte values aligned to 4): each kept key's value
/// goes to `values_out` at the key's slot.
macro_rules! unique_by_key_kernels {
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
            values: *const u8,
            values_out: *mut u8,
            value_size: u32,
        ) {
            let zero = <$t>::default();
            let runs = RunOutputs { values, values_out, value_size, ..RunOutputs::NONE };
            ordered_body!(
                $name, $t, $class, items, core::ptr::null(), n, op::UNIQUE, zero, zero, out, capacity, counter, start,
                states, forced_fallback, mode::BY_KEY, runs
            )
        }
    )*)*};
}

unique_by_key_kernels! {
    u8: unique_by_key_small_u8 = 0, unique_by_key_large_u8 = 2;
    u16: unique_by_key_small_u16 = 0, unique_by_key_large_u16 = 2;
    u32: unique_by_key_small_u32 = 0, unique_by_key_large_u32 = 2;
    u64: unique_by_key_small_u64 = 0, unique_by_key_large_u64 = 2;
    [u32; 4]: unique_by_key_small_bytes16 = 0, unique_by_key_large_bytes16 = 2;
}
