//! Select kernels, named `select_{variant}_{type}` with variant `lane`, `warp` or `block`, and
//! `select_ordered_{tile}_{type}` with tile `small`, `medium` or `large` (and
//! `select_ordered_bytes` for the generic path):
//!
//! * `{type}` a primitive number (`u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f32`,
//!   `f64`): by flag or by value test. Parameters `(items, flags, n, op, a, b, out, capacity,
//!   counter)`; `flags` is read only for `op::FLAGGED`. Items of 1, 2, 4 or 8 bytes of any other
//!   type are kept by flag through the unsigned kernel of their size.
//! * `bytes16`: 16-byte items, by flag: `(items, flags, n, out, capacity, counter)`.
//! * `bytes`: items of any size, by flag (the generic path, `device::select::select_bytes_tile`):
//!   `(items, flags, n, item_bytes, out, capacity, counter)`.
//!
//! `n`, `capacity` and `*counter` are `u64`. The ordered kernels take more parameters after the
//! counter: `start` (a `u64` holding the first output slot, not written by the launch), the
//! look-back's tile states (`warpwork_abi::scan::tile_state_words(8, tiles)` 32-bit words,
//! 16-byte aligned, zeroed before every launch: `select_ordered_prepare` does both, and the
//! select may be its programmatic dependent) and `forced_fallback` (`u32`, non-zero in tests
//! only). Unordered kernels: `ceil(n / (select_items(size) · 256))` blocks of 256 (generic path:
//! `BYTES_ITEMS`); ordered typed: the tile class `warpwork_abi::select::ordered_tile_class(size,
//! n)` names the kernel, `ordered_tile(size, class)` its shape (warps per block, chunks per
//! thread), `ceil(n / ordered_tile_items(size, n))` blocks; ordered generic: `ceil(n /
//! (BYTES_ITEMS · 256))` blocks of 256. No select kernel takes dynamic shared memory.

use crate::device::lookback::TileStates;
use crate::device::select::{
    op, prepare_ordered_state, select_bytes_ordered_tile, select_bytes_tile, select_ordered_tile, select_tile, Reserve,
};
use crate::static_shared;

use warpwork_abi::scan::tile_load;
use warpwork_abi::select::{mode, ordered_tile, select_items, BYTES_ITEMS};

macro_rules! select_kernel {
    ($name:ident, $t:ty, $reserve:expr) => {
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
        ) {
            let scratch = static_shared!($name: [u32; crate::block::BLOCK_APPEND_SCRATCH_WORDS_U64]);
            const ITEMS: usize = select_items(core::mem::size_of::<$t>());
            select_tile::<$t, ITEMS>($reserve, items, flags, n, op, a, b, out, capacity, counter, scratch);
        }
    };
}

/// The tile shape of `T`'s ordered kernel of tile class `CLASS`: (warps, chunks per thread).
const fn ordered_shape<T>(class: usize) -> (u32, usize) {
    ordered_tile(core::mem::size_of::<T>(), class)
}

/// 16-byte chunks in a tile of `T` of tile class `class` (the size of its `OrderedShared`).
pub(crate) const fn ordered_slots<T>(class: usize) -> usize {
    ordered_shape::<T>(class).0 as usize * 32 * ordered_shape::<T>(class).1
}

/// An ordered typed kernel's body for items `$t` and tile class `$class`, kept by the test
/// `($op, $a, $b)`.
macro_rules! ordered_body {
    ($name:ident, $t:ty, $class:literal, $items:expr, $flags:expr, $n:expr, $op:expr, $a:expr, $b:expr, $out:expr,
     $capacity:expr, $counter:expr, $start:expr, $states:expr, $forced:expr) => {
        ordered_body!($name, $t, $class, $items, $flags, $n, $op, $a, $b, $out, $capacity, $counter, $start, $states,
                      $forced, mode::SELECT, crate::device::select::RunOutputs::NONE)
    };
    ($name:ident, $t:ty, $class:literal, $items:expr, $flags:expr, $n:expr, $op:expr, $a:expr, $b:expr, $out:expr,
     $capacity:expr, $counter:expr, $start:expr, $states:expr, $forced:expr, $mode:expr, $offsets:expr) => {{
        const WARPS: usize = ordered_shape::<$t>($class).0 as usize;
        const CHUNKS: usize = ordered_shape::<$t>($class).1;
        const SLOTS: usize = ordered_slots::<$t>($class);
        // (Paths in full: the declaration sits in a module of its own.)
        let smem = static_shared!(
            $name: [crate::device::select::OrderedShared<{ crate::kernels::select::ordered_slots::<$t>($class) }>; 1]
        );
        select_ordered_tile::<$t, WARPS, CHUNKS, SLOTS, { tile_load::ASYNC }, { $mode }>(
            smem,
            $items,
            $flags,
            $n,
            $op,
            $a,
            $b,
            $out,
            $capacity,
            $counter,
            $start,
            TileStates::new($states),
            $forced != 0,
            $offsets,
        )
    }};
}

macro_rules! select_ordered_kernels {
    ($t:ty: $($name:ident = $class:literal),*) => {$(
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
                $name,
                $t,
                $class,
                items,
                flags,
                n,
                op,
                a,
                b,
                out,
                capacity,
                counter,
                start,
                states,
                forced_fallback
            )
        }
    )*};
}

macro_rules! select_kernels {
    ($($t:ty: $lane:ident, $warp:ident, $block:ident, $small:ident, $medium:ident, $large:ident;)*) => {$(
        select_kernel!($lane, $t, Reserve::Lane);
        select_kernel!($warp, $t, Reserve::Warp);
        select_kernel!($block, $t, Reserve::Block);
        select_ordered_kernels!($t: $small = 0, $medium = 1, $large = 2);
    )*};
}

select_kernels! {
    u8: select_lane_u8, select_warp_u8, select_block_u8,
        select_ordered_small_u8, select_ordered_medium_u8, select_ordered_large_u8;
    i8: select_lane_i8, select_warp_i8, select_block_i8,
        select_ordered_small_i8, select_ordered_medium_i8, select_ordered_large_i8;
    u16: select_lane_u16, select_warp_u16, select_block_u16,
        select_ordered_small_u16, select_ordered_medium_u16, select_ordered_large_u16;
    i16: select_lane_i16, select_warp_i16, select_block_i16,
        select_ordered_small_i16, select_ordered_medium_i16, select_ordered_large_i16;
    u32: select_lane_u32, select_warp_u32, select_block_u32,
        select_ordered_small_u32, select_ordered_medium_u32, select_ordered_large_u32;
    i32: select_lane_i32, select_warp_i32, select_block_i32,
        select_ordered_small_i32, select_ordered_medium_i32, select_ordered_large_i32;
    u64: select_lane_u64, select_warp_u64, select_block_u64,
        select_ordered_small_u64, select_ordered_medium_u64, select_ordered_large_u64;
    i64: select_lane_i64, select_warp_i64, select_block_i64,
        select_ordered_small_i64, select_ordered_medium_i64, select_ordered_large_i64;
    f32: select_lane_f32, select_warp_f32, select_block_f32,
        select_ordered_small_f32, select_ordered_medium_f32, select_ordered_large_f32;
    f64: select_lane_f64, select_warp_f64, select_block_f64,
        select_ordered_small_f64, select_ordered_medium_f64, select_ordered_large_f64;
}

/// A 16-byte item as the `bytes16` kernels move it.
type Bytes16 = [u32; 4];

macro_rules! select_bytes16_kernel {
    ($name:ident, $reserve:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const Bytes16,
            flags: *const u8,
            n: u64,
            out: *mut Bytes16,
            capacity: u64,
            counter: *mut u64,
        ) {
            let scratch = static_shared!($name: [u32; crate::block::BLOCK_APPEND_SCRATCH_WORDS_U64]);
            let zero = Bytes16::default();
            select_tile::<Bytes16, { select_items(16) }>(
                $reserve,
                items,
                flags,
                n,
                op::FLAGGED,
                zero,
                zero,
                out,
                capacity,
                counter,
                scratch,
            );
        }
    };
}

select_bytes16_kernel!(select_lane_bytes16, Reserve::Lane);
select_bytes16_kernel!(select_warp_bytes16, Reserve::Warp);
select_bytes16_kernel!(select_block_bytes16, Reserve::Block);

/// Order-preserving select of 16-byte items by flag, one kernel per tile class.
macro_rules! select_ordered_bytes16_kernels {
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
                $name,
                [u32; 4], // Bytes16, by a path the shared declaration's module resolves
                $class,
                items,
                flags,
                n,
                op::FLAGGED,
                zero,
                zero,
                out,
                capacity,
                counter,
                start,
                states,
                forced_fallback
            )
        }
    )*};
}

select_ordered_bytes16_kernels!(
    select_ordered_small_bytes16 = 0,
    select_ordered_medium_bytes16 = 1,
    select_ordered_large_bytes16 = 2
);

/// Prepares an ordered select's state (`state[0]` the count, `state[1]` the start; `states` the
/// tile states, `words` 32-bit words, 16-byte aligned) before the select, which is launched as
/// its programmatic dependent: [`prepare_ordered_state`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn select_ordered_prepare(state: *mut u64, states: *mut u32, words: u64, append: u32) {
    prepare_ordered_state(state, state.add(1), states, words as usize, append != 0);
}

macro_rules! select_bytes_kernel {
    ($name:ident, $reserve:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const u8,
            flags: *const u8,
            n: u64,
            item_bytes: u32,
            out: *mut u8,
            capacity: u64,
            counter: *mut u64,
        ) {
            let scratch = static_shared!($name: [u32; crate::block::BLOCK_APPEND_SCRATCH_WORDS_U64]);
            select_bytes_tile::<BYTES_ITEMS>($reserve, items, flags, n, item_bytes, out, capacity, counter, scratch);
        }
    };
}

select_bytes_kernel!(select_lane_bytes, Reserve::Lane);
select_bytes_kernel!(select_warp_bytes, Reserve::Warp);
select_bytes_kernel!(select_block_bytes, Reserve::Block);

/// Order-preserving select of items of any size by flag (the generic path).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn select_ordered_bytes(
    items: *const u8,
    flags: *const u8,
    n: u64,
    item_bytes: u32,
    out: *mut u8,
    capacity: u64,
    counter: *mut u64,
    start: *const u64,
    states: *mut u32,
    forced_fallback: u32,
) {
    let scratch = static_shared!(select_ordered_bytes: [u64; crate::device::select::BYTES_ORDERED_SCRATCH_U64]);
    select_bytes_ordered_tile::<BYTES_ITEMS>(
        items,
        flags,
        n,
        item_bytes,
        out,
        capacity,
        counter,
        start,
        TileStates::new(states),
        forced_fallback != 0,
        scratch,
    );
}

// The compaction family's kernels (partition, unique, runs), on the same tile: after the macros
// above, which they use.
mod family;
