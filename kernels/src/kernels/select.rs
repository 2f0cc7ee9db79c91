//! Select kernels, named `select_{variant}_{type}` with variant `lane`, `warp`, `block` or
//! `ordered`:
//!
//! * `{type}` a primitive number (`u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f32`,
//!   `f64`): by flag or by value test. Parameters `(items, flags, n, op, a, b, out, capacity,
//!   counter)`; `flags` is read only for `op::FLAGGED`. Items of 1, 2, 4 or 8 bytes of any other
//!   type are kept by flag through the unsigned kernel of their size.
//! * `bytes16`: 16-byte items, by flag: `(items, flags, n, out, capacity, counter)`.
//! * `bytes`: items of any size, by flag (the generic path, `device::select::select_bytes_tile`):
//!   `(items, flags, n, item_bytes, out, capacity, counter)`.
//!
//! `n`, `capacity` and `*counter` are `u64`. The ordered kernels take the look-back state after
//! the counter: `(status, aggregate, inclusive, tile_counter)` (`aggregate` and `inclusive` are
//! `u64` per tile). Unordered kernels: `ceil(n / (select_items(size) · 256))` blocks of 256 (generic
//! path: `BYTES_ITEMS`); ordered: `ceil(n / (ordered_items(size) · 256))` (generic path:
//! `BYTES_ITEMS`), with `ordered_items(size) · 256 · size` bytes of dynamic shared memory for
//! the typed ones.

use crate::arch::dynamic_shared;
use crate::device::scan::LookbackState;
use crate::device::select::{
    op, select_bytes_ordered_tile, select_bytes_tile, select_ordered_tile, select_tile, Reserve,
};
use crate::static_shared;

use warpwork_abi::select::{ordered_items, select_items, BYTES_ITEMS};

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

macro_rules! select_ordered_kernel {
    ($name:ident, $t:ty) => {
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
            status: *mut u32,
            aggregate: *mut u64,
            inclusive: *mut u64,
            tile_counter: *mut u32,
        ) {
            let scratch = static_shared!($name: [u64; crate::device::select::ORDERED_SCRATCH_U64]);
            let state = LookbackState { status, aggregate, inclusive, tile_counter };
            select_ordered_tile::<$t, { ordered_items(core::mem::size_of::<$t>()) }>(
                items,
                flags,
                n,
                op,
                a,
                b,
                out,
                capacity,
                counter,
                state,
                scratch,
                dynamic_shared::<$t>(),
            );
        }
    };
}

macro_rules! select_kernels {
    ($($t:ty: $lane:ident, $warp:ident, $block:ident, $ordered:ident;)*) => {$(
        select_kernel!($lane, $t, Reserve::Lane);
        select_kernel!($warp, $t, Reserve::Warp);
        select_kernel!($block, $t, Reserve::Block);
        select_ordered_kernel!($ordered, $t);
    )*};
}

select_kernels! {
    u8: select_lane_u8, select_warp_u8, select_block_u8, select_ordered_u8;
    i8: select_lane_i8, select_warp_i8, select_block_i8, select_ordered_i8;
    u16: select_lane_u16, select_warp_u16, select_block_u16, select_ordered_u16;
    i16: select_lane_i16, select_warp_i16, select_block_i16, select_ordered_i16;
    u32: select_lane_u32, select_warp_u32, select_block_u32, select_ordered_u32;
    i32: select_lane_i32, select_warp_i32, select_block_i32, select_ordered_i32;
    u64: select_lane_u64, select_warp_u64, select_block_u64, select_ordered_u64;
    i64: select_lane_i64, select_warp_i64, select_block_i64, select_ordered_i64;
    f32: select_lane_f32, select_warp_f32, select_block_f32, select_ordered_f32;
    f64: select_lane_f64, select_warp_f64, select_block_f64, select_ordered_f64;
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

/// Order-preserving select of 16-byte items by flag.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn select_ordered_bytes16(
    items: *const Bytes16,
    flags: *const u8,
    n: u64,
    out: *mut Bytes16,
    capacity: u64,
    counter: *mut u64,
    status: *mut u32,
    aggregate: *mut u64,
    inclusive: *mut u64,
    tile_counter: *mut u32,
) {
    let scratch = static_shared!(select_ordered_bytes16: [u64; crate::device::select::ORDERED_SCRATCH_U64]);
    let state = LookbackState { status, aggregate, inclusive, tile_counter };
    let zero = Bytes16::default();
    select_ordered_tile::<Bytes16, { ordered_items(16) }>(
        items,
        flags,
        n,
        op::FLAGGED,
        zero,
        zero,
        out,
        capacity,
        counter,
        state,
        scratch,
        dynamic_shared::<Bytes16>(),
    );
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
    status: *mut u32,
    aggregate: *mut u64,
    inclusive: *mut u64,
    tile_counter: *mut u32,
) {
    let scratch = static_shared!(select_ordered_bytes: [u64; crate::device::select::ORDERED_SCRATCH_U64]);
    let state = LookbackState { status, aggregate, inclusive, tile_counter };
    select_bytes_ordered_tile::<BYTES_ITEMS>(items, flags, n, item_bytes, out, capacity, counter, state, scratch);
}
