//! Pass 2: how a destination index finds its `(source, local)` pair, per strategy.
//!
//! Every driver here is **persistent**: it reads the destination count from the device
//! ([`super::dst_count`]) and loops over it with whatever grid it was launched with, so the host
//! can size pass 2 from the occupancy without reading anything back. Lanes take destination
//! items in consecutive **pairs** (`t`, `t + 1` with `t` even), so a materializing pass 2 writes
//! two 8-byte pairs as one 16-byte vector and a warp store is one contiguous 512-byte run.
//!
//! The drivers call `f(t, src, local, valid)` once per lane and step, where `valid` (0, 1 or 2)
//! says how many of items `t`, `t + 1` exist. [`for_each`] wraps them into a per-item callback
//! for users' own pass-2 kernels.

use super::push::warp_owner;
use super::{dst_count, strategy, ExpandView, BUCKETS, FLAG_MAX_N};
use crate::arch::{
    atomic_or_u32, ballot, global_thread_idx, grid_threads, lane_id, lanemask_lt, load_nc_u32, load_v4_u32, popc,
    shfl_idx, store_v4_u32_streaming, thread_idx_x, warp_inclusive_sum, WARP_SIZE,
};
use crate::block::block_append;
use core::ptr::addr_of_mut;

/// Destination items a warp handles per step (two per lane).
pub const STEP: u32 = 2 * WARP_SIZE;

/// First index in `lo..hi` whose `prefix` value exceeds `t` (`hi` if none): binary search.
///
/// # Safety
/// `prefix[lo..hi]` is readable and non-decreasing.
#[inline(always)]
pub unsafe fn upper_bound(prefix: *const u32, mut lo: u32, mut hi: u32, t: u32) -> u32 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if load_nc_u32(prefix.add(mid as usize)) <= t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The record of destination item `t` for prefix-sum strategies: `upper_bound(t) - 1`, the
/// per-thread binary search of S2.5 (`t` must be below the total).
///
/// # Safety
/// As [`upper_bound`].
#[inline(always)]
pub unsafe fn locate_binary(prefix: *const u32, records: u32, t: u32) -> (u32, u32) {
    let r = upper_bound(prefix, 0, records, t) - 1;
    (r, t - load_nc_u32(prefix.add(r as usize)))
}

/// This warp's index and the number of warps in the grid.
#[inline(always)]
fn warps() -> (u32, u32) {
    ((global_thread_idx() / WARP_SIZE as u64) as u32, (grid_threads() / WARP_SIZE as u64) as u32)
}

/// S2.5 / S2.5+ driver: each warp takes one contiguous chunk of `[0, total)`, binary-searches
/// its first record once, then streams: per step it loads the next 32 prefix values (one
/// coalesced line) and every lane finds its records among them with five shuffles. Only an item
/// beyond that window (32 records spanning fewer than 64 items) binary-searches again.
/// `f(t, [record; 2], [local; 2], valid)`.
///
/// # Safety
/// `prefix[..records]` is the non-decreasing exclusive prefix of the records' counts, `total`
/// their sum. The whole warp calls this.
#[inline(always)]
pub unsafe fn search_driver(
    prefix: *const u32,
    records: u32,
    total: u32,
    mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32),
) {
    let (warp, warps) = warps();
    // The chunk bounds in 64 bits: a chunk reaches 2^32 (one warp, a total near 2^32), and so
    // does `a + chunk` for the last warp. Inside the chunk everything fits in 32 bits: `a` is a
    // multiple of `STEP` below `total < 2^32`, so every step's items `base .. base + STEP - 1`
    // do too.
    let chunk = (total as u64).div_ceil(warps as u64).div_ceil(STEP as u64) * STEP as u64;
    let a = warp as u64 * chunk;
    if a >= total as u64 {
        return;
    }
    let b = (a + chunk).min(total as u64) as u32;
    let a = a as u32;
    let lane = lane_id();
    let mut cur = upper_bound(prefix, 0, records, a) - 1;
    let mut base = a;
    loop {
        // `lane < records - cur` rather than `cur + lane < records`, which wraps for a `cur`
        // within 32 of 2^32 (`cur < records` always).
        let w = if lane < records - cur { load_nc_u32(prefix.add((cur + lane) as usize)) } else { u32::MAX };
        let w_last = shfl_idx(w, WARP_SIZE - 1);
        let mut rec = [0u32; 2];
        let mut local = [0u32; 2];
        for k in 0..2 {
            let t = base + 2 * lane + k as u32;
            let c = warp_owner(w, t);
            let start = shfl_idx(w, c.wrapping_sub(1) & 31);
            if t < w_last {
                rec[k] = cur + c - 1;
                local[k] = t - start;
            } else if t < b {
                // Only when `prefix[cur + 31]` is a real value (at most `t`): `cur + 32 <= records`.
                let r = upper_bound(prefix, cur + WARP_SIZE, records, t) - 1;
                rec[k] = r;
                local[k] = t - load_nc_u32(prefix.add(r as usize));
            }
        }
        let t0 = base + 2 * lane;
        let valid = if t0 < b { (b - t0).min(2) } else { 0 };
        f(t0, rec, local, valid);
        // The chunk's last step ends here: `base + STEP` may be 2^32, which wraps.
        if b - base <= STEP {
            break;
        }
        // A whole step: lane 31's second item is its last, and the next step starts there.
        cur = shfl_idx(rec[1], WARP_SIZE - 1);
        base += STEP;
    }
}

/// S3 merged driver: ONE grid serves all 32 buckets. Bucket `b` holds `count_b` records of `2^b`
/// items; lane `b` of every warp holds the bucket's first item `E_b` (a warp scan), an item finds
/// its bucket among those 32 values with five shuffles, then its record and local index by
/// shifts: `rec = bucket[(t - E_b) >> b]`, `local = rec.offset + (t - E_b) mod 2^b`.
/// `f(t, [src; 2], [local; 2], valid)`.
///
/// # Safety
/// `v` is a finished S3 pass 1. The whole warp calls this.
#[inline(always)]
pub unsafe fn po2_driver(v: &ExpandView, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let total = dst_count(v);
    let lane = lane_id();
    let items = if total == 0 { 0 } else { (*v.ctrl).buckets[lane as usize] << lane };
    let incl = warp_inclusive_sum(items);
    let e = incl - items;
    let e_top = shfl_idx(e, WARP_SIZE - 1);
    let bucket_base = v.bucket_base[lane as usize];
    let (warp, warps) = warps();
    let mut base = warp as u64 * STEP as u64;
    while base < total as u64 {
        let t0 = base as u32 + 2 * lane;
        let mut src = [0u32; 2];
        let mut local = [0u32; 2];
        for k in 0..2 {
            let t = t0 + k as u32;
            let mut bucket = warp_owner(e, t);
            if e_top <= t {
                bucket = WARP_SIZE;
            }
            let bucket = bucket.wrapping_sub(1) & 31;
            let eb = shfl_idx(e, bucket);
            let bb = shfl_idx(bucket_base, bucket);
            if t < total {
                (src[k], local[k]) = po2_item(v.records.add(bb as usize), bucket, t - eb);
            }
        }
        let valid = if t0 < total { (total - t0).min(2) } else { 0 };
        f(t0, src, local, valid);
        base += warps as u64 * STEP as u64;
    }
}

/// Item `idx` of an S3 bucket `b` whose records start at `rec`: record `idx >> b` holds the source
/// and the local index of its first item; the item is `idx mod 2^b` further on.
#[inline(always)]
unsafe fn po2_item(rec: *const [u32; 2], b: u32, idx: u32) -> (u32, u32) {
    let r = *rec.add((idx >> b) as usize);
    (r[0], r[1] + (idx & ((1u32 << b) - 1)))
}

/// S3 one-launch-per-bucket driver (what merging saves): serves bucket `b` only, writing item
/// `idx` of the bucket at destination `E_b + idx`. `f(t, [src; 2], [local; 2], valid)` where `t`
/// is the destination of the first item and the second is `t + 1`.
///
/// # Safety
/// As [`po2_driver`].
#[inline(always)]
pub unsafe fn po2_bucket_driver(v: &ExpandView, b: u32, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    if dst_count(v) == 0 || b >= BUCKETS as u32 {
        return;
    }
    let c = &*v.ctrl;
    let mut eb = 0u32;
    for j in 0..b as usize {
        eb += c.buckets[j] << j;
    }
    let n = c.buckets[b as usize] << b;
    let rec = v.records.add(v.bucket_base[b as usize] as usize);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * STEP as u64;
    while base < n as u64 {
        let i0 = base as u32 + 2 * lane;
        let mut src = [0u32; 2];
        let mut local = [0u32; 2];
        for k in 0..2 {
            let idx = i0 + k as u32;
            if idx < n {
                (src[k], local[k]) = po2_item(rec, b, idx);
            }
        }
        let valid = if i0 < n { (n - i0).min(2) } else { 0 };
        f(eb + i0, src, local, valid);
        base += warps as u64 * STEP as u64;
    }
}

/// S1 driver: destination item `t` is record `t`; a lane reads two records as one 16-byte load.
///
/// # Safety
/// `v` is a finished S1 pass 1. The whole warp calls this.
#[inline(always)]
pub unsafe fn append_driver(v: &ExpandView, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let total = dst_count(v);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * STEP as u64;
    while base < total as u64 {
        let t0 = base as u32 + 2 * lane;
        let valid = if t0 < total { (total - t0).min(2) } else { 0 };
        let (mut src, mut local) = ([0u32; 2], [0u32; 2]);
        if valid == 2 {
            let q = load_v4_u32(v.records.add(t0 as usize) as *const [u32; 4]);
            src = [q[0], q[2]];
            local = [q[1], q[3]];
        } else if valid == 1 {
            let r = *v.records.add(t0 as usize);
            src[0] = r[0];
            local[0] = r[1];
        }
        f(t0, src, local, valid);
        base += warps as u64 * STEP as u64;
    }
}

/// S2 driver: per step of 64 items the warp scans the `(src, count)` records from the first,
/// 32 at a time (a warp scan of the counts), and each lane picks its record out of the chunk that
/// covers it with five shuffles. Linear in the number of records per step: only for small P1.
///
/// # Safety
/// `v` is a finished S2 pass 1. The whole warp calls this.
#[inline(always)]
pub unsafe fn linear_driver(v: &ExpandView, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let total = dst_count(v);
    let records = (*v.ctrl).counter.min(v.p1);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * STEP as u64;
    while base < total as u64 {
        let lo = base as u32;
        // Not `(lo + STEP).min(total)`: the last step of a total near 2^32 ends at 2^32.
        let hi = if total - lo < STEP { total } else { lo + STEP };
        let t0 = lo + 2 * lane;
        let (mut src, mut local) = ([0u32; 2], [0u32; 2]);
        let mut acc = 0u32;
        let mut r0 = 0u32;
        while r0 < records {
            // Record indices without a wrap for `records` near 2^32 (`r0 < records`).
            let r = if lane < records - r0 { *v.records.add((r0 + lane) as usize) } else { [0, 0] };
            let incl = warp_inclusive_sum(r[1]).wrapping_add(acc);
            let end = shfl_idx(incl, WARP_SIZE - 1);
            if end > lo {
                for k in 0..2 {
                    let t = t0 + k as u32;
                    let c = warp_owner(incl, t) & 31;
                    let s = shfl_idx(r[0], c);
                    let first = shfl_idx(incl, c) - shfl_idx(r[1], c);
                    if t < hi && t >= acc && t < end {
                        src[k] = s;
                        local[k] = t - first;
                    }
                }
            }
            if end >= hi {
                break;
            }
            acc = end;
            r0 = r0.saturating_add(WARP_SIZE);
        }
        let valid = if t0 < hi { (hi - t0).min(2) } else { 0 };
        f(t0, src, local, valid);
        base += warps as u64 * STEP as u64;
    }
}

/// Writes a lane's pair of results to `out[t]`, `out[t + 1]`: one 16-byte store when both exist
/// and `t` is even, else 8-byte stores. The 16-byte stores are *streaming* (evict first from
/// L2): an expansion's output is written once and is usually larger than L2, and left at normal
/// priority it pushed out the counts that S2.5f's pass 2 rereads and the next pass 1 reads
/// (S2.5f power-law 2^22: 4.5 µs faster, uniform 8 µs).
///
/// # Safety
/// `out[t..t + valid]` is writable.
#[inline(always)]
pub unsafe fn write_pairs(out: *mut [u32; 2], t: u32, src: [u32; 2], local: [u32; 2], valid: u32) {
    if valid == 2 && t.is_multiple_of(2) {
        store_v4_u32_streaming(out.add(t as usize) as *mut [u32; 4], [src[0], local[0], src[1], local[1]]);
    } else {
        for k in 0..valid as usize {
            *out.add(t as usize + k) = [src[k], local[k]];
        }
    }
}

/// Slots of S0 each thread tests per step of [`maxn_materialize`].
pub const MAXN_ITEMS: u32 = 4;

/// S0 `MaxN` with a materialized output: the grid covers `p1 · max_n` slots (persistent,
/// block-strided); slot `s` is `(s / max_n, s % max_n)` and is kept where the local index is below
/// the source's count. Kept pairs are appended to `out` through the foundation's `block_append`
/// (one shared atomic per warp, one global atomic per block and step), so the output is dense
/// but unordered. A source whose count exceeds `max_n` raises [`FLAG_MAX_N`].
///
/// # Safety
/// `v` is valid; `scratch` is [`crate::block::BLOCK_APPEND_SCRATCH_WORDS`] shared words; `out`
/// holds `v.capacity` pairs; every thread of the block calls this.
#[inline(always)]
pub unsafe fn maxn_materialize(v: &ExpandView, scratch: *mut u32, out: *mut [u32; 2]) {
    let slots = v.p1 as u64 * v.max_n as u64;
    let threads = crate::arch::block_dim_x() as u64;
    let per_block = threads * MAXN_ITEMS as u64;
    let grid = crate::arch::grid_dim_x() as u64;
    let mut block_base = crate::arch::block_idx_x() as u64 * per_block;
    let ctrl = v.ctrl;
    while block_base < slots {
        let mut keep = [false; MAXN_ITEMS as usize];
        let mut pair = [[0u32; 2]; MAXN_ITEMS as usize];
        let mut masks = [0u32; MAXN_ITEMS as usize];
        let mut warp_count = 0;
        for k in 0..MAXN_ITEMS as usize {
            let s = block_base + k as u64 * threads + thread_idx_x() as u64;
            if s < slots {
                let src = (s / v.max_n as u64) as u32;
                let local = (s % v.max_n as u64) as u32;
                let n = load_nc_u32(v.counts.add(src as usize));
                keep[k] = local < n;
                pair[k] = [src, local];
                if local == v.max_n - 1 && n > v.max_n {
                    atomic_or_u32(addr_of_mut!((*ctrl).flags), FLAG_MAX_N);
                }
            }
            masks[k] = ballot(keep[k]);
            warp_count += popc(masks[k]);
        }
        let mut slot = block_append(scratch, addr_of_mut!((*ctrl).counter), warp_count);
        let below = lanemask_lt();
        for k in 0..MAXN_ITEMS as usize {
            let at = slot as u64 + popc(masks[k] & below) as u64;
            if keep[k] {
                if at < v.capacity as u64 {
                    *out.add(at as usize) = pair[k];
                } else {
                    atomic_or_u32(addr_of_mut!((*ctrl).flags), super::FLAG_CAPACITY);
                }
            }
            slot = slot.wrapping_add(popc(masks[k]));
        }
        block_base += grid * per_block;
    }
}

/// Calls `f(src, local)` once for every destination item of a finished pass 1, whatever the
/// strategy in `v` — the body of a user's own pass-2 kernel. Persistent: launch it with any grid
/// (e.g. occupancy-sized); the count is read on the device. Item order is the strategy's.
/// For S0 the grid tests all `p1 · max_n` slots and calls `f` for the kept ones.
///
/// # Safety
/// `v` is the view pass 1 ran with (an earlier launch). Every thread of the grid calls this,
/// with whole warps converged (the drivers use warp shuffles).
#[inline(always)]
pub unsafe fn for_each(v: &ExpandView, mut f: impl FnMut(u32, u32)) {
    let mut each = |_t: u32, src: [u32; 2], local: [u32; 2], valid: u32| {
        for k in 0..valid as usize {
            f(src[k], local[k]);
        }
    };
    match v.strategy {
        strategy::MAX_N => {
            let slots = v.p1 as u64 * v.max_n as u64;
            let mut s = global_thread_idx();
            while s < slots {
                let src = (s / v.max_n as u64) as u32;
                let local = (s % v.max_n as u64) as u32;
                if local < load_nc_u32(v.counts.add(src as usize)) {
                    f(src, local);
                }
                s += grid_threads();
            }
        }
        strategy::APPEND_PER_ITEM => append_driver(v, each),
        strategy::LINEAR_SEARCH => linear_driver(v, each),
        strategy::SCAN_BINARY_SEARCH => search_driver(v.offsets, v.p1, dst_count(v), each),
        strategy::PACKED_CAS | strategy::PACKED_ADD => {
            let records = ((*v.ctrl).packed >> 32) as u32;
            let srcs = v.srcs;
            search_driver(v.offsets, records.min(v.p1), dst_count(v), |t, rec, local, valid| {
                let mut src = [0u32; 2];
                for k in 0..valid as usize {
                    src[k] = load_nc_u32(srcs.add(rec[k] as usize));
                }
                each(t, src, local, valid)
            })
        }
        strategy::PO2_BUCKETS => po2_driver(v, each),
        // SCAN_FUSED's pass 2 needs shared memory for a tile's bounds (see `super::fused`), which
        // this closure-only API cannot give it: users call `for_each_fused` in their own kernel,
        // and the host refuses a user's pass 2 for it.
        _ => {}
    }
}
