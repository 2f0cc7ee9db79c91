//! S1 and S2: a destination item reads its record (S1), or the warp scans the `(src, count)`
//! records linearly (S2).

use super::{warps, PASS2_STEP};
use crate::arch::{lane_id, load_v4_u32, shfl_idx, WARP_SIZE};
use crate::device::expand::{dst_count, ExpandView};
use crate::warp::{warp_inclusive_sum, warp_owner};

/// S1 driver: destination item `t` is record `t`; a lane reads two records as one 16-byte load.
///
/// # Safety
/// `v` is a finished S1 pass 1. The whole warp calls this.
#[inline(always)]
pub unsafe fn append_driver(v: &ExpandView, mut f: impl FnMut(u32, [u32; 2], [u32; 2], u32)) {
    let total = dst_count(v);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * PASS2_STEP as u64;
    while base < total as u64 {
        let t0 = base as u32 + 2 * lane;
        let valid = if t0 < total { (total - t0).min(2) } else { 0 };
        let (mut src, mut local) = ([0u32; 2], [0u32; 2]);
        if valid == 2 {
            let q = load_v4_u32(v.records().add(t0 as usize) as *const [u32; 4]);
            src = [q[0], q[2]];
            local = [q[1], q[3]];
        } else if valid == 1 {
            let r = *v.records().add(t0 as usize);
            src[0] = r[0];
            local[0] = r[1];
        }
        f(t0, src, local, valid);
        base += warps as u64 * PASS2_STEP as u64;
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
    let records = (*v.ctrl()).counter.min(v.p1);
    let lane = lane_id();
    let (warp, warps) = warps();
    let mut base = warp as u64 * PASS2_STEP as u64;
    while base < total as u64 {
        let lo = base as u32;
        // Not `(lo + PASS2_STEP).min(total)`: the last step of a total near 2^32 ends at 2^32.
        let hi = if total - lo < PASS2_STEP { total } else { lo + PASS2_STEP };
        let t0 = lo + 2 * lane;
        let (mut src, mut local) = ([0u32; 2], [0u32; 2]);
        let mut acc = 0u32;
        let mut r0 = 0u32;
        while r0 < records {
            // Record indices without a wrap for `records` near 2^32 (`r0 < records`).
            let r = if lane < records - r0 { *v.records().add((r0 + lane) as usize) } else { [0, 0] };
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
        base += warps as u64 * PASS2_STEP as u64;
    }
}
