//! The decoupled look-back of S2.5f's pass 1: one 64-bit word per block holds its status and
//! its sum, so a poll is one load; a predecessor silent for [`FALLBACK_POLLS`] polls is summed by
//! the waiting warp itself (the *decoupled fallback*).

use super::{FUSED_PUSH_TILES, FUSED_TILE};
use crate::arch::{ballot, lane_id, load_relaxed_u64, load_v4_u32, nanosleep, sync_warp, vote_any, WARP_SIZE};
use crate::device::expand::ExpandView;
use crate::device::lookback::{FALLBACK_POLLS, SPIN_NS};
use crate::warp::warp_sum_saturated;

/// Bit of pass 1's launch word (`ctrl.packed`): which of each block's two look-back words this
/// launch uses. Bits 32..63 below it hold the previous launch's block count.
pub(super) const LAUNCH_PARITY: u64 = 1 << 63;
/// A look-back word's status: the block's own sum is published.
pub(super) const LB_AGGREGATE: u64 = 1 << 62;
/// A look-back word's status: the sum of everything up to and including the block.
pub(super) const LB_PREFIX: u64 = 2 << 62;
/// A look-back word's flag: the sum rests on a fallback (a block summed by another), so that
/// block may not have read the launch word yet.
pub(super) const LB_FELL_BACK: u64 = 1 << 61;
/// A look-back word's value bits: sums saturate here (far above any capacity).
pub(super) const LB_VALUE: u64 = LB_FELL_BACK - 1;
/// Predecessors each lane inspects per look-back round (32·4 = 128 blocks). More cost registers
/// (pass 1 has 64 at 4: four blocks per SM, the whole grid of P1 = 2^22 in one wave; 16 made 102)
/// and measured no faster.
const LOOKBACK: usize = 4;

/// The sum of the blocks before `pos` (`> 0`) and [`LB_FELL_BACK`] if it rests on a fallback,
/// by the calling warp. `words` is this launch's side (block `j`'s word at `words[2j]`). Each
/// round loads the words of the `32·LOOKBACK` nearest predecessors not yet seen (lane `l`, slot
/// `q`: the block `32q + l` before the window's end), waits until each has published something,
/// and adds the aggregates up to the nearest inclusive prefix; without one in the window the
/// next round goes further back. Block 0 publishes its prefix at once, so the walk ends.
#[inline(always)]
pub(super) unsafe fn look_back(v: &ExpandView, words: *const u64, pos: u32) -> (u64, u64) {
    let lane = lane_id() as i64;
    let word = |j: i64| if j >= 0 { load_relaxed_u64(words.add(2 * j as usize)) } else { LB_PREFIX };
    let (mut before, mut fell_back) = (0u64, false);
    let mut end = pos as i64 - 1;
    loop {
        let mut w = [0u64; LOOKBACK];
        for (q, x) in w.iter_mut().enumerate() {
            *x = word(end - (32 * q as i64 + lane));
        }
        let mut polls = 0;
        // Warp-uniform (the fallback shuffles): lanes whose words are all out wait with the rest.
        while vote_any(w.iter().any(|&x| x < LB_AGGREGATE)) {
            if polls == FALLBACK_POLLS {
                // Sum each silent predecessor's counts instead (all its tiles are full: only
                // the last block's are not).
                for (q, x) in w.iter_mut().enumerate() {
                    let mut silent = ballot(*x < LB_AGGREGATE);
                    while silent != 0 {
                        let l = silent.trailing_zeros();
                        silent &= silent - 1;
                        let sum = block_sum_by_warp(v.counts(), (end - (32 * q as i64 + l as i64)) as usize);
                        if lane as u32 == l {
                            *x = LB_AGGREGATE | LB_FELL_BACK | sum;
                        }
                    }
                }
                break;
            }
            nanosleep(SPIN_NS);
            for (q, x) in w.iter_mut().enumerate() {
                if *x < LB_AGGREGATE {
                    *x = word(end - (32 * q as i64 + lane));
                }
            }
            polls += 1;
        }
        // The nearest inclusive prefix: the smallest distance `32q + l` whose word has one.
        let mut stop = u32::MAX;
        for (q, &x) in w.iter().enumerate() {
            let prefixes = ballot(x >= LB_PREFIX);
            if stop == u32::MAX && prefixes != 0 {
                stop = 32 * q as u32 + prefixes.trailing_zeros();
            }
        }
        let mut sum = 0u64;
        for (q, &x) in w.iter().enumerate() {
            if 32 * q as u32 + lane as u32 <= stop {
                sum = sat_add(sum, x & LB_VALUE);
                fell_back |= x & LB_FELL_BACK != 0;
            }
        }
        before = sat_add(before, warp_sum_saturated(sum, LB_VALUE));
        if stop != u32::MAX {
            return (before, if ballot(fell_back) != 0 { LB_FELL_BACK } else { 0 });
        }
        end -= 32 * LOOKBACK as i64;
    }
}

/// The sum of pass-1 block `j`'s counts (four full tiles), by the calling warp: a look-back's
/// fallback for a block that has not published.
#[inline(never)]
unsafe fn block_sum_by_warp(counts: *const u32, j: usize) -> u64 {
    // A side effect, so that the compiler may not sink the call into the one lane that uses
    // its result (it shuffles across the warp).
    sync_warp();
    let run = counts.add(j * FUSED_PUSH_TILES * FUSED_TILE as usize) as *const [u32; 4];
    let mut sum = 0u64;
    for i in 0..FUSED_PUSH_TILES * FUSED_TILE as usize / 4 / WARP_SIZE as usize {
        let [a, b, c, d] = load_v4_u32(run.add(i * WARP_SIZE as usize + lane_id() as usize));
        sum += a as u64 + b as u64 + c as u64 + d as u64;
    }
    // At most 2^45: the saturation never bites.
    warp_sum_saturated(sum, LB_VALUE)
}

/// Waits (the calling warp) until each of the `grid` blocks has published its word on this
/// launch's side.
#[inline(never)]
pub(super) unsafe fn wait_for_all(words: *const u64, grid: u32) {
    let mut j = lane_id();
    while j < grid {
        while load_relaxed_u64(words.add(2 * j as usize)) < LB_AGGREGATE {
            nanosleep(SPIN_NS);
        }
        j += WARP_SIZE;
    }
    sync_warp();
}

/// `a + b`, saturated at [`LB_VALUE`] (both at most that).
#[inline(always)]
pub(super) fn sat_add(a: u64, b: u64) -> u64 {
    (a + b).min(LB_VALUE)
}
