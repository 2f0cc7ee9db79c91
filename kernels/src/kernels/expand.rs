//! Work-expansion kernels. Every kernel takes `view: *const ExpandView` first (see
//! `crate::device::expand`); pass-2 kernels also take `out: *mut [u32; 2]` (`capacity` pairs).
//!
//! Pass 1 (`expand_push_*`): `ceil(p1 / (PUSH_ITEMS · THREADS))` blocks of `THREADS` threads, or
//! for `expand_push_scan[_wide]` `ceil(p1 / (scan::ITEMS_U32 · THREADS))`, for
//! `expand_push_fused[_wide]` `fused_push_blocks(p1)` blocks of `FUSED_THREADS`. Pass 2
//! (`expand_pass2_*`): any grid of `THREADS`-thread blocks (`FUSED_PASS2_THREADS` for
//! `expand_pass2_fused[_wide]`; persistent loops, the host sizes the grid from the occupancy).
//! The `_wide` kernels are the 64-bit instances (destination indices, S2.5's prefixes, S2.5f's
//! plan records) the host runs for a capacity past `u32::MAX`. The names are
//! `warpwork_abi::kernels`'.

use crate::arch::atomic_or_u32;
use crate::device::expand::locate::{self, write_pairs};
use crate::device::expand::ExpandView;
use crate::device::expand::{push, push_scan};
use crate::static_shared;
use core::ptr::addr_of_mut;

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_append(view: *const ExpandView) {
    push::push_append_per_item(
        &*view,
        static_shared!(EXPAND_PUSH_APPEND: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]),
    );
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_linear(view: *const ExpandView) {
    push::push_linear(&*view, static_shared!(EXPAND_PUSH_LINEAR: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_packed_cas(view: *const ExpandView) {
    push::push_packed(
        &*view,
        static_shared!(EXPAND_PUSH_PACKED_CAS: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]),
        true,
    );
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_packed_add(view: *const ExpandView) {
    push::push_packed(
        &*view,
        static_shared!(EXPAND_PUSH_PACKED_ADD: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]),
        false,
    );
}

/// S2.5f pass 1: one block of `FUSED_THREADS` threads per `FUSED_PUSH_TILES` tiles of `FUSED_TILE` counts (see
/// [`crate::device::expand::fused`]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_fused(view: *const ExpandView) {
    let scratch = static_shared!(EXPAND_PUSH_FUSED: [u64; crate::device::expand::fused::FUSED_PUSH_SCRATCH_U64]);
    crate::device::expand::fused::push_fused_tiles::<u32>(&*view, scratch);
}

/// S2.5f pass 1 with 64-bit destination indices (the host's choice for a capacity of 2^32 and
/// more): as `expand_push_fused`, wide plan records.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_fused_wide(view: *const ExpandView) {
    let scratch = static_shared!(EXPAND_PUSH_FUSED_WIDE: [u64; crate::device::expand::fused::FUSED_PUSH_SCRATCH_U64]);
    crate::device::expand::fused::push_fused_tiles::<u64>(&*view, scratch);
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_po2(view: *const ExpandView) {
    push::push_po2_buckets(
        &*view,
        static_shared!(EXPAND_PUSH_PO2: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]),
        static_shared!(EXPAND_PUSH_PO2_B: [u32; crate::device::expand::push::PO2_SCRATCH_U32]),
    );
}

/// S2.5 pass 1 with 32-bit offsets: the device-wide look-back scan of the counts into
/// `offsets` (see [`crate::device::expand::push_scan`]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_scan(view: *const ExpandView) {
    push_scan::push_scan::<u32>(
        &*view,
        static_shared!(EXPAND_PUSH_SCAN: [u64; crate::device::expand::push_scan::PUSH_SCAN_SCRATCH_U64]),
    );
}

/// S2.5 pass 1 with 64-bit offsets (the host's choice for a capacity of 2^32 or more).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_push_scan_wide(view: *const ExpandView) {
    push_scan::push_scan::<u64>(
        &*view,
        static_shared!(EXPAND_PUSH_SCAN_WIDE: [u64; crate::device::expand::push_scan::PUSH_SCAN_SCRATCH_U64]),
    );
}

/// S2.5f pass 2: a persistent grid of `FUSED_PASS2_THREADS`-thread blocks produces the units
/// pass 1 planned (see [`crate::device::expand::fused`]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_fused(view: *const ExpandView, out: *mut [u32; 2]) {
    use crate::device::expand::fused;
    let smem = static_shared!(EXPAND_PASS2_FUSED: [crate::device::expand::fused::FusedShared; 1]);
    fused::for_each_fused::<u32>(&*view, smem, |d, src, local, n| write_pairs(out, d, src, local, n));
}

/// S2.5f pass 2 with 64-bit destination indices (after `expand_push_fused_wide`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_fused_wide(view: *const ExpandView, out: *mut [u32; 2]) {
    use crate::device::expand::fused;
    let smem = static_shared!(EXPAND_PASS2_FUSED_WIDE: [crate::device::expand::fused::FusedShared<u64>; 1]);
    fused::for_each_fused::<u64>(&*view, smem, |d, src, local, n| write_pairs(out, d, src, local, n));
}

/// S2.5f's two passes in one launch (32-bit destination indices; the host's choice for at most
/// `FUSED_ONCE_MAX_P1` sources): a persistent grid of `FUSED_PASS2_THREADS`-thread blocks, at
/// least one per tile (see `crate::device::expand::fused::once`); `forced_fallback` (tests,
/// otherwise 0) makes every block sum the tiles not yet published itself.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_fused_once(view: *const ExpandView, out: *mut [u32; 2], forced_fallback: u32) {
    use crate::device::expand::fused;
    let smem = static_shared!(EXPAND_FUSED_ONCE: [crate::device::expand::fused::OnceShared; 1]);
    let plan = static_shared!(EXPAND_FUSED_ONCE_PLAN: [crate::device::expand::fused::OncePlan; 1]);
    let forced = forced_fallback != 0;
    fused::fused_once(&*view, smem, plan, forced, |d, src, local, n| write_pairs(out, d, src, local, n));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_maxn(view: *const ExpandView, out: *mut [u32; 2]) {
    let scratch = static_shared!(EXPAND_PASS2_MAXN: [u32; crate::block::BLOCK_APPEND_SCRATCH_WORDS]);
    locate::maxn_materialize(&*view, scratch, out);
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_append(view: *const ExpandView, out: *mut [u32; 2]) {
    locate::append_driver(&*view, |t, s, l, n| write_pairs(out, t, s, l, n));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_linear(view: *const ExpandView, out: *mut [u32; 2]) {
    locate::linear_driver(&*view, |t, s, l, n| write_pairs(out, t, s, l, n));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_scan(view: *const ExpandView, out: *mut [u32; 2]) {
    let v = &*view;
    locate::search_driver(v.offsets(), v.p1, crate::device::expand::dst_count(v), |t, rec, l, n| {
        write_pairs(out, t, rec, l, n)
    });
}

/// S2.5 pass 2 with 64-bit offsets and destination indices.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_scan_wide(view: *const ExpandView, out: *mut [u32; 2]) {
    let v = &*view;
    let offsets = v.offsets() as *const u64;
    locate::search_driver(offsets, v.p1, crate::device::expand::dst_count_wide(v), |t, rec, l, n| {
        write_pairs(out, t, rec, l, n)
    });
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_packed(view: *const ExpandView, out: *mut [u32; 2]) {
    locate::packed_driver(&*view, |t, s, l, n| write_pairs(out, t, s, l, n));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_po2(view: *const ExpandView, out: *mut [u32; 2]) {
    locate::po2_driver(&*view, |t, s, l, n| write_pairs(out, t, s, l, n));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_pass2_po2_bucket(view: *const ExpandView, out: *mut [u32; 2], bucket: u32) {
    locate::po2_bucket_driver(&*view, bucket, |t, s, l, n| write_pairs(out, t, s, l, n));
}

/// A pass-2 kernel written the way a user writes one (`Gpu::expand_with`'s contract): for every
/// destination item it counts `hits[src] += 1` and `local_sums[src] += local`. The tests use it to
/// check [`locate::for_each`] for every strategy.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_for_each_histogram(
    view: *const ExpandView,
    hits: *mut u32,
    local_sums: *mut u64,
) {
    locate::for_each(&*view, |src, local| {
        crate::arch::atomic_add_u32(hits.add(src as usize), 1);
        crate::arch::atomic_add_u64(local_sums.add(src as usize), local as u64);
    });
}

/// S0 has no pass 1; when pass 2 is a user's kernel (which does not count what it keeps), this
/// reduction supplies the destination count: `ctrl.total` (one atomic per block, with the
/// capacity check) and [`crate::device::expand::FLAG_MAX_N`] for a count above `max_n`. Launched
/// like a pass-1 push.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn expand_maxn_total(view: *const ExpandView) {
    let v = &*view;
    let (_, c) = push::load_counts(v.counts(), v.p1);
    if c.iter().any(|&n| n > v.max_n) {
        atomic_or_u32(addr_of_mut!((*v.ctrl()).flags), crate::device::expand::FLAG_MAX_N);
    }
    let sum = c.iter().map(|&n| n as u64).sum();
    push::add_total(
        static_shared!(EXPAND_MAXN_TOTAL: [u64; crate::device::expand::push::PUSH_SCRATCH_U64]),
        v.ctrl(),
        v.capacity,
        sum,
    );
}
