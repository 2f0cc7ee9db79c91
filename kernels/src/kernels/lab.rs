//! Tuning lab (not shipped): the exclusive sum of `u64` in tile shapes other than the shipped
//! ones, for `benches/lab_scan.rs` to time beside them. Built only with the `lab` feature, by
//! `scripts/lab-ptx.sh`; `lab_scan_u64_w{warps}c{chunks}[a]` takes the parameters of the scan
//! kernels (`a`: loaded with `cp.async`).

use crate::block::Sum;
use crate::device::lookback::TileStates;
use crate::device::scan::tile::{consume_tile, tile_load, ScanShared};
use crate::static_shared;

macro_rules! lab_scan {
    ($name:ident, $warps:literal, $chunks:literal, $load:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const u64,
            output: *mut u64,
            n: usize,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            let smem = static_shared!($name: [crate::device::scan::tile::ScanShared<{ $warps * 32 * $chunks }>; 1]);
            let smem: *mut ScanShared<{ $warps * 32 * $chunks }> = smem;
            consume_tile::<Sum<u64>, false, false, $warps, $chunks, { $warps * 32 * $chunks }, { $load }>(
                TileStates::<u64>::new(states),
                smem,
                input,
                output,
                n,
                forced_fallback != 0,
                core::ptr::null(),
                0,
            );
        }
    };
}

lab_scan!(lab_scan_u64_w2c16, 2, 16, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w4c8, 4, 8, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w4c12, 4, 12, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w4c16, 4, 16, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w4c16a, 4, 16, tile_load::ASYNC);
lab_scan!(lab_scan_u64_w8c4, 8, 4, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w8c8, 8, 8, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w8c8a, 8, 8, tile_load::ASYNC);
lab_scan!(lab_scan_u64_w16c4, 16, 4, tile_load::PLAIN);
lab_scan!(lab_scan_u64_w16c2, 16, 2, tile_load::PLAIN);
