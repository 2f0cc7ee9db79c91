//! Select kernels: `select_{lane,warp,block}_{u32,i32,u64,f32}`.
//!
//! Parameters: `(items, flags, n, op, a, b, out, capacity, counter)`; `flags` is read only for
//! `op::FLAGGED`. Launch with `ceil(n / (SELECT_ITEMS · blockDim.x))` blocks.

use crate::device::select::{select_tile, Reserve};
use crate::static_shared;

/// Items per thread per tile: enough independent loads in flight to cover memory latency.
pub const SELECT_ITEMS: usize = 16;

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
            select_tile::<$t, SELECT_ITEMS>($reserve, items, flags, n, op, a, b, out, capacity, counter, scratch);
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
        /// aggregate, inclusive, tile_counter)`; `ceil(n / (ITEMS · 256))` blocks of 256.
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

/// Items per thread of the ordered kernels: 64 bytes of items per thread.
pub const ORDERED_ITEMS_4B: usize = 16;
/// See [`ORDERED_ITEMS_4B`].
pub const ORDERED_ITEMS_8B: usize = 8;

select_ordered_kernel!(select_ordered_u32, u32, ORDERED_ITEMS_4B);
select_ordered_kernel!(select_ordered_i32, i32, ORDERED_ITEMS_4B);
select_ordered_kernel!(select_ordered_u64, u64, ORDERED_ITEMS_8B);
select_ordered_kernel!(select_ordered_f32, f32, ORDERED_ITEMS_4B);
