//! S2.5 and S2.5+: a destination item finds its record in an exclusive prefix array by binary
//! search, streamed 32 records at a time per warp.

use super::{warps, PASS2_STEP};
use crate::arch::{lane_id, load_nc_u32, shfl_idx, WARP_SIZE};
use crate::warp::warp_owner;

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
    // multiple of `PASS2_STEP` below `total < 2^32`, so every step's items do too.
    let chunk = (total as u64).div_ceil(warps as u64).div_ceil(PASS2_STEP as u64) * PASS2_STEP as u64;
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
        // The chunk's last step ends here: `base + PASS2_STEP` may be 2^32, which wraps.
        if b - base <= PASS2_STEP {
            break;
        }
        // A whole step: lane 31's second item is its last, and the next step starts there.
        cur = shfl_idx(rec[1], WARP_SIZE - 1);
        base += PASS2_STEP;
    }
}
