//! The device-wide `f32` sum where its blocks claim units: rounded once from an exact sum of
//! partial sums, so that its bits do not depend on which block took which unit.
//!
//! Each warp sums its share of each unit the block claims in the fixed order of
//! [`accumulate_range`] and [`warp_reduce`]; that partial sum is added exactly to the warp's
//! accumulator ([`WarpExactF32`]: digit `i` in lane `i`). A block adds its warps' accumulators in
//! shared memory and its digits into one of `warpwork_abi::reduce::EXACT_COPIES` accumulators in
//! the scratch with integer atomics (in any order: integers add exactly), then takes a ticket;
//! the last block adds the copies and rounds the total once. Where the blocks keep to spans
//! (shorter inputs), the sum is [`reduce_grid`]'s fixed tree: no claim can change its order
//! there, and its end is cheaper (one partial per block, no accumulators to add).

use super::{accumulate_range, reduce_grid, ReduceShared, CLAIM_WORD, THREADS, TICKET_BYTES, WARPS};
use crate::arch::{
    atomic_add_u32, atomic_add_u64, atomic_or_u32, block_idx_x, fence_gpu, grid_dependency_wait, grid_dim_x, lane_id,
    load_relaxed_u32, load_relaxed_u64, shfl_idx, sync_threads, sync_warp, thread_idx_x, warp_id,
};
use crate::block::Sum;
use crate::warp::{warp_reduce, WarpExactF32};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::exact::F32_DIGITS;
use warpwork_abi::reduce::{claims, unit, EXACT_COPIES, EXACT_COPY_BYTES};

/// This warp's partial sums of the units of `input[..n]` the block takes, added exactly (a
/// [`fold_units`]).
///
/// # Safety
/// As `accumulate_claims` (the other operators' claims, in the parent module).
#[inline(always)]
unsafe fn claimed_sums(input: *const f32, n: usize, counter: *mut u32, claims: *mut u32) -> WarpExactF32 {
    let add = |mut acc: WarpExactF32, begin: usize, end: usize| {
        let part = accumulate_range::<Sum<f32>, { THREADS as usize }>(-0.0, input, begin, end);
        acc.add(warp_reduce::<Sum<f32>>(part));
        acc
    };
    fold_units(WarpExactF32::EMPTY, n, unit(4) as usize, counter, claims, add)
}

/// `acc` folded with `body(acc, begin, end)`, on every thread of the block, over the units of
/// `input[..n]` the block takes (unit `k` is `[k · unit, min((k + 1) · unit, n))`): unit
/// `block`, then unit `grid + c` for each claim `c` it draws from `counter`, until none is left
/// — the other operators' claims (`accumulate_claims`: the next claim in flight while the block
/// works on the current unit, handed to the threads at one barrier per unit).
///
/// Two loops for one protocol, each in the form that compiles well: `accumulate_claims`
/// through this fold made the `u32` sum and minimum 2.5% slower at 2^28 (0.349 against 0.340
/// ms); the `f32` sum written as a plain loop was unswitched by LLVM on thread 0's claim, so
/// that warp 0 ran every unit twice, once per path (0.475 against 0.341 ms).
///
/// # Safety
/// `counter` is zeroed before the launch (by the grid this one may be the programmatic
/// dependent of) and only claimed from during it; `claims` is two words of shared memory that
/// nothing else uses during the call; every thread of the block calls this.
#[inline(always)]
unsafe fn fold_units<A>(
    acc: A,
    n: usize,
    unit: usize,
    counter: *mut u32,
    claims: *mut u32,
    body: impl Fn(A, usize, usize) -> A,
) -> A {
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let mut acc = acc;
    let (mut k, mut slot) = (block, 0);
    while k * unit < n {
        let begin = k * unit;
        // The next claim is taken before this unit's loads are used: its trip to memory
        // overlaps theirs.
        let mut next = 0;
        if thread_idx_x() == 0 {
            if k == block {
                grid_dependency_wait();
            }
            next = atomic_add_u32(counter, 1);
        }
        acc = body(acc, begin, (begin + unit).min(n));
        if thread_idx_x() == 0 {
            write_volatile(claims.add(slot), next);
        }
        // The claim is visible to every thread; each has read the one before (in the other
        // slot) before it is written again.
        sync_threads();
        k = grid + read_volatile(claims.add(slot)) as usize;
        slot ^= 1;
    }
    acc
}

/// The device-wide sum of `input[..n]`, returned on thread 0 of the block that finishes last
/// (`None` everywhere else): where the blocks claim units (`warpwork_abi::reduce::claims`), the
/// exact sum of every warp's partial sums of each unit, rounded to nearest
/// (`warpwork_abi::exact::f32_round`); elsewhere [`super::reduce_grid`]'s.
///
/// # Safety
/// As [`super::reduce_grid`]; the scratch holds [`TICKET_BYTES`] +
/// `warpwork_abi::reduce::EXACT_BYTES`, all zeroed by [`super::prepare_ticket`] (of which this
/// launch may be the programmatic dependent) unless the grid is one block.
#[inline(always)]
pub unsafe fn sum_f32_grid(input: *const f32, n: usize, scratch: *mut u8, smem: *mut ReduceShared) -> Option<f32> {
    if !claims(4, n as u64) {
        // Spans in a fixed tree (module docs).
        return reduce_grid::<Sum<f32>>(input, n, scratch, smem);
    }
    let ticket = scratch as *mut u32;
    let slots = addr_of_mut!((*smem).claims) as *mut u32;
    let acc = claimed_sums(input, n, ticket.add(CLAIM_WORD), slots);
    // The warps' accumulators added in warp 0.
    let exact = addr_of_mut!((*smem).exact) as *mut [i64; F32_DIGITS + 1];
    let lane = lane_id() as usize;
    if lane < F32_DIGITS {
        write_volatile((*exact.add(warp_id() as usize)).as_mut_ptr().add(lane), acc.digit);
    }
    if lane == 0 {
        write_volatile((*exact.add(warp_id() as usize)).as_mut_ptr().add(F32_DIGITS), acc.flags as i64);
    }
    sync_threads();
    if warp_id() != 0 {
        return None;
    }
    let mut block = WarpExactF32::EMPTY;
    for w in 0..WARPS {
        if lane < F32_DIGITS {
            block.digit += read_volatile((*exact.add(w)).as_ptr().add(lane));
        }
        block.flags |= read_volatile((*exact.add(w)).as_ptr().add(F32_DIGITS)) as u32;
    }
    // (Units are claimed only where the grid is hundreds of blocks: the ticket is always taken.)
    // Bounded digits (each within about 2^33 but the last), so that a thousand blocks' sums
    // never overflow one.
    block.carry();
    let copies = (scratch.add(TICKET_BYTES as usize) as usize).next_multiple_of(EXACT_COPY_BYTES as usize) as *mut u8;
    let copy = |c: usize| copies.add(c * EXACT_COPY_BYTES as usize) as *mut u64;
    let mine = copy(block_idx_x() as usize % EXACT_COPIES as usize);
    // Each lane adds its digit (zero digits, most of them, need no atomic), then fences (a
    // release) before lane 0's ticket.
    grid_dependency_wait();
    if lane < F32_DIGITS && block.digit != 0 {
        atomic_add_u64(mine.add(lane), block.digit as u64);
    }
    if lane == 0 {
        atomic_or_u32(mine.add(F32_DIGITS) as *mut u32, block.flags);
    }
    fence_gpu();
    sync_warp();
    let mut is_last = 0;
    if lane == 0 {
        is_last = (atomic_add_u32(ticket, 1) == grid_dim_x() - 1) as u32;
    }
    if shfl_idx(is_last, 0) == 0 {
        return None;
    }
    // Every other block's digits before this block's reads (an acquire).
    fence_gpu();
    // Every load in flight before the first add.
    let mut digits = [0u64; EXACT_COPIES as usize];
    let mut flags = [0u32; EXACT_COPIES as usize];
    for c in 0..EXACT_COPIES as usize {
        if lane < F32_DIGITS {
            digits[c] = load_relaxed_u64(copy(c).add(lane));
        }
        flags[c] = load_relaxed_u32(copy(c).add(F32_DIGITS) as *const u32);
    }
    let mut total = WarpExactF32::EMPTY;
    for c in 0..EXACT_COPIES as usize {
        total.digit += digits[c] as i64;
        total.flags |= flags[c];
    }
    let sum = total.round();
    (thread_idx_x() == 0).then_some(sum)
}
