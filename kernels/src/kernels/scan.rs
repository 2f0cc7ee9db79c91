//! Device-wide exclusive scan kernels: `scan_exclusive_{u32,u64}(input, output, n, status,
//! aggregate, inclusive, tile_counter)`. Launch `ceil(n / tile)` blocks of `warpwork_abi::scan::
//! THREADS` with `status` and `tile_counter` zeroed; in-place (`output == input`) is allowed.

use crate::arch::store_v4_u32;
use crate::device::scan::{scan_tile, LookbackState};
use crate::static_shared;
use warpwork_abi::scan::{ITEMS_U32, ITEMS_U64};

macro_rules! scan_kernel {
    ($name:ident, $t:ty, $items:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            n: usize,
            status: *mut u32,
            aggregate: *mut $t,
            inclusive: *mut $t,
            tile_counter: *mut u32,
        ) {
            let scratch = static_shared!($name: [$t; crate::device::scan::SCAN_TILE_SCRATCH]);
            let state = LookbackState { status, aggregate, inclusive, tile_counter };
            scan_tile::<$t, { $items }, { crate::device::scan::NARROW_LOOKBACK }>(state, scratch, input, n, |first, excl, _values, valid| {
                if valid == $items {
                    let src = excl.as_ptr() as *const [u32; 4];
                    let dst = output.add(first) as *mut [u32; 4];
                    for v in 0..core::mem::size_of::<[$t; $items]>() / 16 {
                        store_v4_u32(dst.add(v), *src.add(v));
                    }
                } else {
                    for j in 0..valid {
                        *output.add(first + j) = excl[j];
                    }
                }
            });
        }
    };
}

scan_kernel!(scan_exclusive_u32, u32, ITEMS_U32);
scan_kernel!(scan_exclusive_u64, u64, ITEMS_U64);
