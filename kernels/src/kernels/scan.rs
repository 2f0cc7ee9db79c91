//! Device-wide exclusive scan kernels: `scan_exclusive_{u32,u64}(input, output, n, status,
//! aggregate, inclusive, tile_counter)`. Launch `ceil(n / tile)` blocks of [`SCAN_THREADS`] with
//! `status` and `tile_counter` zeroed; in-place (`output == input`) is allowed.

use crate::arch::store_v4_u32;
use crate::device::scan::{scan_tile, LookbackState};
use crate::static_shared;

/// Threads per block of the scan kernels.
pub const SCAN_THREADS: usize = 256;
/// Elements per thread: 16 `u32`s or 8 `u64`s, 64 bytes either way (four 16-byte loads).
pub const SCAN_ITEMS_U32: usize = 16;
/// See [`SCAN_ITEMS_U32`].
pub const SCAN_ITEMS_U64: usize = 8;

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

scan_kernel!(scan_exclusive_u32, u32, SCAN_ITEMS_U32);
scan_kernel!(scan_exclusive_u64, u64, SCAN_ITEMS_U64);
