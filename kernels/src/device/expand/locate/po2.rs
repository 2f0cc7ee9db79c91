//! S3: a destination item finds its power-of-two bucket, then its record by shifts.

use super::{warps, PASS2_STEP};
use crate::arch::{lane_id, shfl_idx, WARP_SIZE};
use crate::device::expand::{dst_count, ExpandView, BUCKETS};
use crate::warp::{warp_inclusive_sum, warp_owner};

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
    let items = if total == 0 { 0 } else { (*v.ctrl()).buckets[lane as usize] << lane };
    let incl = warp_inclusive_sum(items);
    let e = incl - items;
    let e_top = shfl_idx(e, WARP_SIZE - 1);
    let bucket_base = v.bucket_base[lane as usize];
    let (warp, warps) = warps();
    let mut base = warp as u64 * PASS2_STEP as u64;
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
                (src[k], local[k]) = po2_item(v.records().add(bb as usize), bucket, t - eb);
            }
        }
        let valid = if t0 < total { (total - t0).min(2) } else { 0 };
        f(t0, src, local, valid);
        base += warps as u64 * PASS2_STEP as u64;
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
    let c = &*v.ctrl();
    let mut eb = 0u32;
    for j in 0..b as usize {
        eb += c.buckets[j] << j;
    }
    let n = c.buckets[b as usize] << b;
    let rec = v.records().add(v.bucket_base[b as usize] as usize);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * PASS2_STEP as u64;
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
        base += warps as u64 * PASS2_STEP as u64;
    }
}
