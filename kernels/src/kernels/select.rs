//! Select kernels: `select_{lane,warp,block}_{u32,i32,u64,f32}`.
//!
//! Parameters: `(items, flags, n, op, a, b, out, capacity, counter)`; `flags` is read only for
//! `op::FLAGGED`. Launch with `ceil(n / (ITEMS_PER_THREAD · THREADS))` blocks of `THREADS`
//! (`warpwork_abi::select`).

use crate::device::select::{select_tile, Reserve};
use crate::static_shared;
use warpwork_abi::select::{ITEMS_PER_THREAD, ORDERED_ITEMS_4B, ORDERED_ITEMS_8B};

macro_rules! select_kernel {
    ($name:ident, $t:ty, $reserve:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            flags: *const u8,
            n: u32,
            op: u32,
            a: $t,
            b: $t,
            out: *mut $t,
            capacity: u32,
            counter: *mut u32,
        ) {
            let scratch = static_shared!($name: [u32; crate::block::BLOCK_APPEND_SCRATCH_WORDS]);
            select_tile::<$t, ITEMS_PER_THREAD>($reserve, items, flags, n, op, a, b, out, capacity, counter, scratch);
        }
    };
}

macro_rules! select_kernels {
    ($($t:ty: $lane:ident, $warp:ident, $block:ident;)*) => {$(
        select_kernel!($lane, $t, Reserve::Lane);
        select_kernel!($warp, $t, Reserve::Warp);
        select_kernel!($block, $t, Reserve::Block);
    )*};
}

select_kernels! {
    u32: select_lane_u32, select_warp_u32, select_block_u32;
    i32: select_lane_i32, select_warp_i32, select_block_i32;
    u64: select_lane_u64, select_warp_u64, select_block_u64;
    f32: select_lane_f32, select_warp_f32, select_block_f32;
}

macro_rules! select_ordered_kernel {
    ($name:ident, $t:ty, $items:expr) => {
        /// Order-preserving select: `(items, flags, n, op, a, b, out, capacity, counter, status,
        /// aggregate, inclusive, tile_counter)`; `ceil(n / (ITEMS · THREADS))` blocks of `THREADS`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const $t,
            flags: *const u8,
            n: u32,
            op: u32,
            a: $t,
            b: $t,
            out: *mut $t,
            capacity: u32,
            counter: *mut u32,
            status: *mut u32,
            aggregate: *mut u32,
            inclusive: *mut u32,
            tile_counter: *mut u32,
        ) {
            let scratch = static_shared!($name: [u32; crate::device::select::ORDERED_SCRATCH_U32]);
            let stage = crate::arch::dynamic_shared::<$t>();
            let state = crate::device::scan::LookbackState { status, aggregate, inclusive, tile_counter };
            crate::device::select::select_ordered_tile::<$t, { $items }>(
                items, flags, n, op, a, b, out, capacity, counter, state, scratch, stage,
            );
        }
    };
}

select_ordered_kernel!(select_ordered_u32, u32, ORDERED_ITEMS_4B);
select_ordered_kernel!(select_ordered_i32, i32, ORDERED_ITEMS_4B);
select_ordered_kernel!(select_ordered_u64, u64, ORDERED_ITEMS_8B);
select_ordered_kernel!(select_ordered_f32, f32, ORDERED_ITEMS_4B);
