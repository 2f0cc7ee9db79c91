//! Tuning lab (not shipped): the exclusive sum of `u64` in tile shapes other than the shipped
//! ones, for `benches/lab_scan.rs` to time beside them, and the stable partition's former
//! design, for `benches/lab_partition.rs`. Built only with the `lab` feature, by
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

/// The stable partition of `u32` items as it was before its rejected side was staged
/// (`device::select::PARTITION_SCATTER`), in the shipped partition's two tile classes:
/// `lab_partition_scatter_{small,large}_u32` take the parameters and grid of
/// `partition_{small,large}_u32`, so `benches/lab_partition.rs` times both the same way.
macro_rules! lab_partition_scatter {
    ($name:ident, $class:literal) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            items: *const u32,
            flags: *const u8,
            n: u64,
            op: u32,
            a: u32,
            b: u32,
            out: *mut u32,
            capacity: u64,
            counter: *mut u64,
            start: *const u64,
            states: *mut u32,
            forced_fallback: u32,
        ) {
            use crate::device::select::{select_ordered_tile, PARTITION_SCATTER};
            const WARPS: usize = partition_shape($class).0;
            const CHUNKS: usize = partition_shape($class).1;
            const SLOTS: usize = WARPS * 32 * CHUNKS;
            // (Paths in full: the declaration sits in a module of its own.)
            let smem = static_shared!(
                $name: [crate::device::select::OrderedShared<{ crate::kernels::lab::partition_slots($class) }>; 1]
            );
            select_ordered_tile::<u32, WARPS, CHUNKS, SLOTS, { crate::abi::scan::tile_load::ASYNC }, PARTITION_SCATTER>(
                smem,
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
                TileStates::new(states),
                forced_fallback != 0,
                crate::device::select::RunOutputs::NONE,
            )
        }
    };
}

/// (warps, chunks per thread) of the shipped partition's `u32` tiles of family class `class`.
const fn partition_shape(class: usize) -> (usize, usize) {
    let (warps, chunks) = crate::abi::select::ordered_tile(4, crate::abi::select::FAMILY_TILE_CLASSES[class]);
    (warps as usize, chunks)
}

/// 16-byte chunks in a partition tile of family class `class`.
pub(crate) const fn partition_slots(class: usize) -> usize {
    partition_shape(class).0 * 32 * partition_shape(class).1
}

lab_partition_scatter!(lab_partition_scatter_small_u32, 0);
lab_partition_scatter!(lab_partition_scatter_large_u32, 1);
