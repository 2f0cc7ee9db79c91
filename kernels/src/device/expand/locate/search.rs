//! S2.5 and S2.5+: a destination item finds its record in an exclusive prefix array by binary
//! search, streamed 32 records at a time per warp. Generic over the [`Offset`] width: `u32`
//! prefixes and destination indices below 2^32 items, `u64` past it (S2.5 with a wide capacity).

use super::{warps, PASS2_STEP};
use crate::arch::{lane_id, load_nc_u32, shfl_idx, WARP_SIZE};
use crate::device::expand::{dst_count, ExpandView, Offset};

/// First index in `lo..hi` whose `prefix` value exceeds `t` (`hi` if none): binary search.
///
/// # Safety
/// `prefix[lo..hi]` is readable and non-decreasing.
#[inline(always)]
pub unsafe fn upper_bound<O: Offset>(prefix: *const O, mut lo: u32, mut hi: u32, t: O) -> u32 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if O::load_nc(prefix.add(mid as usize)) <= t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The record of destination item `t` for prefix-sum strategies: `upper_bound(t) - 1`, the
/// per-thread binary search of S2.5 (`t` must be below the total), and `t`'s local index.
///
/// # Safety
/// As [`upper_bound`].
#[inline(always)]
pub unsafe fn locate_binary<O: Offset>(prefix: *const O, records: u32, t: O) -> (u32, u32) {
    let r = upper_bound(prefix, 0, records, t) - 1;
    (r, t.local_from(O::load_nc(prefix.add(r as usize))))
}

/// The lane of a warp whose window of 32 inclusive bounds holds item `i`: the number of lanes
/// whose bound `w` (lane `l` holds record `cur + l`'s exclusive prefix) is at most `i`, found
/// by a five-step binary search over the lanes ([`crate::warp::warp_owner`] for any width).
#[inline(always)]
fn window_owner<O: Offset>(w: O, i: O) -> u32 {
    let mut c = 0;
    let mut s = 16;
    while s > 0 {
        if w.shfl(c + s - 1) <= i {
            c += s;
        }
        s >>= 1;
    }
    c
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
pub unsafe fn search_driver<O: Offset>(
    prefix: *const O,
    records: u32,
    total: O,
    mut f: impl FnMut(O, [u32; 2], [u32; 2], u32),
) {
    let (warp, warps) = warps();
    // The chunk bounds in 64 bits: a chunk reaches 2^32 (one warp, a total near 2^32), and so
    // does `a + chunk` for the last warp. Inside the chunk everything fits in the offset width:
    // `a` is a multiple of `PASS2_STEP` below `total`, so every step's items do too.
    let total64 = total.to_u64();
    let chunk = total64.div_ceil(warps as u64).div_ceil(PASS2_STEP as u64) * PASS2_STEP as u64;
    let a = warp as u64 * chunk;
    if a >= total64 {
        return;
    }
    let b = O::from_u64((a + chunk).min(total64));
    let a = O::from_u64(a);
    let lane = lane_id();
    let mut cur = upper_bound(prefix, 0, records, a) - 1;
    let mut base = a;
    loop {
        // `lane < records - cur` rather than `cur + lane < records`, which wraps for a `cur`
        // within 32 of 2^32 (`cur < records` always).
        let w = if lane < records - cur { O::load_nc(prefix.add((cur + lane) as usize)) } else { O::MAX };
        let w_last = w.shfl(WARP_SIZE - 1);
        let mut rec = [0u32; 2];
        let mut local = [0u32; 2];
        for k in 0..2 {
            let t = base.add_u32(2 * lane + k as u32);
            let c = window_owner(w, t);
            let start = w.shfl(c.wrapping_sub(1) & 31);
            if t < w_last {
                rec[k] = cur + c - 1;
                local[k] = t.local_from(start);
            } else if t < b {
                // Only when `prefix[cur + 31]` is a real value (at most `t`): `cur + 32 <= records`.
                let r = upper_bound(prefix, cur + WARP_SIZE, records, t) - 1;
                rec[k] = r;
                local[k] = t.local_from(O::load_nc(prefix.add(r as usize)));
            }
        }
        let t0 = base.add_u32(2 * lane);
        let valid = if t0 < b { b.distance_capped(t0, 2) } else { 0 };
        f(t0, rec, local, valid);
        // The chunk's last step ends here: `base + PASS2_STEP` may be 2^32, which wraps.
        if b.distance_capped(base, PASS2_STEP + 1) <= PASS2_STEP {
            break;
        }
        // A whole step: lane 31's second item is its last, and the next step starts there.
        cur = shfl_idx(rec[1], WARP_SIZE - 1);
        base = base.add_u32(PASS2_STEP);
    }
}

/// S2.5+'s pass 2 (both packed strategies): [`search_driver`] over the packed records, with
/// each record's source loaded from `srcs`. `f(t, [source; 2], [local; 2], valid)`.
///
/// # Safety
/// `v` is a valid view of a packed strategy after its pass 1. The whole warp calls this.
#[inline(always)]
pub unsafe fn packed_driver(v: &ExpandView, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let records = (*v.ctrl()).packed_records().min(v.p1);
    let srcs = v.srcs();
    search_driver(v.offsets(), records, dst_count(v), |t, rec, local, valid| {
        let mut src = [0u32; 2];
        for k in 0..valid as usize {
            src[k] = load_nc_u32(srcs.add(rec[k] as usize));
        }
        f(t, src, local, valid)
    })
}
