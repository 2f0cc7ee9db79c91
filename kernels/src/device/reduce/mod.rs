//! Device-wide reductions: what one block does.
//!
//! * [`reduce_range`]: a block reduces `input[begin..end]` under any [`ReduceOp`], with 16-byte
//!   read-only loads ([`UNROLL`] in flight per thread) over the 16-byte aligned body and one
//!   element per thread for the head and tail around it.
//! * [`reduce_grid`]: the device-wide reduce in **one launch**: block `b` reduces its span
//!   (`warpwork_abi::reduce::span`), stores its partial and takes a ticket; the last block to
//!   finish combines the partials in block order. The grid and spans depend only on `n` and the
//!   element size, so the order of evaluation — and a float sum's bits — is the same on every
//!   run and every GPU. Operators whose result does not depend on that order claim the input
//!   unit by unit instead where it is long (`warpwork_abi::reduce::claims`), which evens out the
//!   multiprocessors' finishing times.
//! * [`sum_f32_grid`]: the device-wide `f32` sum, which claims its units as those operators do
//!   and adds its warps' partial sums of each unit exactly (its spans, where it keeps to them,
//!   are [`reduce_grid`]'s).
//! * [`reduce_segments`]: a segmented reduce over offsets, a block per segment, or a warp per
//!   segment where a block's group of segments is short.
//! * [`fold_args`]: the argmin / argmax of a few argmin / argmax results of an input's parts (one
//!   thread).
//!
//! Order of evaluation within a block: thread `t` combines, in index order, its head element
//! (`t` < the head's length), the vectors `t, t + THREADS, …` of the body (the elements of
//! each in order), and its tail element; then [`block_reduce`].

mod exact;
mod fold;
mod segments;

pub use exact::sum_f32_grid;
pub use fold::fold_args;
pub use segments::reduce_segments;

use crate::arch::{
    atomic_add_u32, block_idx_x, fence_gpu, grid_dependency_wait, grid_dim_x, load_nc_v4_u32, load_relaxed_u32,
    load_relaxed_u64, load_relaxed_v2_u64, store_relaxed_u32, store_relaxed_u64, store_relaxed_v2_u64, sync_threads,
    thread_idx_x,
};
use crate::block::block_reduce;
use crate::warp::{ArgKey, OrderKey, ReduceOp};
use core::mem::size_of;
use core::ptr::{read_volatile, write_volatile};
pub use warpwork_abi::reduce::{
    blocks, claims, span, unit, CLAIM_WORD, EXACT_BYTES, LONG_SEGMENT_THREADS, MAX_BLOCKS, PARTIAL_BYTES,
    PREPARE_THREADS, THREADS, TICKET_BYTES, UNROLL, WARP_SEGMENT_MAX,
};

/// Warps per block of the shipped reduce kernels.
pub const WARPS: usize = THREADS as usize / 32;
/// Partials each thread of the last block combines.
const PARTIALS_PER_THREAD: usize = (MAX_BLOCKS as usize).div_ceil(THREADS as usize);

/// The shared memory of [`reduce_grid`], [`sum_f32_grid`] and [`reduce_segments`] for blocks of
/// up to 32 warps ([`WARPS`] for the `f32` sum): the warp totals (up to 16 bytes each), the
/// `f32` sum's warp accumulators, the last-block flag and the block's claims.
#[repr(C, align(16))]
pub struct ReduceShared {
    totals: [[u64; 2]; 32],
    /// The `f32` sum's warp accumulators: digits and flags ([`exact`]; blocks of [`WARPS`] warps).
    exact: [[i64; warpwork_abi::exact::F32_DIGITS + 1]; WARPS],
    last: u32,
    claims: [u32; 2],
}

/// `input[begin..end]` reduced under `O` by the block (`BLOCK_THREADS` threads, `BLOCK_WARPS`
/// warps), to every thread; elements are lifted with their index in `input`.
///
/// # Safety
/// `input` holds at least `end` elements, none written during the launch; `begin <= end`;
/// `totals` is `BLOCK_WARPS` accumulators of shared memory used by nothing else until the
/// caller's next barrier; the block has `BLOCK_THREADS = 32 · BLOCK_WARPS` threads and every
/// thread calls this.
#[inline(always)]
pub unsafe fn reduce_range<O: ReduceOp, const BLOCK_THREADS: usize, const BLOCK_WARPS: usize>(
    input: *const O::Item,
    begin: usize,
    end: usize,
    totals: *mut O::T,
) -> O::T {
    let acc = accumulate_range::<O, BLOCK_THREADS>(O::IDENTITY, input, begin, end);
    block_reduce::<O, BLOCK_WARPS>(totals, acc)
}

/// `acc` combined with this thread's elements of `input[begin..end]` (the block's threads
/// share the range out as the module docs say): no barrier, nothing shared.
///
/// # Safety
/// `input` holds at least `end` elements, none written during the launch; `begin <= end`;
/// every thread of the block (`BLOCK_THREADS` threads) calls this with the same range.
#[inline(always)]
pub(super) unsafe fn accumulate_range<O: ReduceOp, const BLOCK_THREADS: usize>(
    acc: O::T,
    input: *const O::Item,
    begin: usize,
    end: usize,
) -> O::T {
    accumulate_share::<O, BLOCK_THREADS>(thread_idx_x() as usize, acc, input, begin, end)
}

/// [`accumulate_range`] for the thread of rank `t` among `SHARERS` threads that share the
/// range (a warp's lanes, for one segment each: `t` is the lane).
///
/// # Safety
/// As [`accumulate_range`], for the `SHARERS` threads of ranks `0..SHARERS`.
#[inline(always)]
pub(super) unsafe fn accumulate_share<O: ReduceOp, const SHARERS: usize>(
    t: usize,
    acc: O::T,
    input: *const O::Item,
    begin: usize,
    end: usize,
) -> O::T {
    let size = size_of::<O::Item>();
    let per = 16 / size;
    let mut acc = acc;
    // Head: the elements before the first 16-byte boundary.
    let misaligned = (input.add(begin) as usize) % 16;
    let head = if misaligned == 0 { 0 } else { ((16 - misaligned) / size).min(end - begin) };
    if t < head {
        acc = O::combine(acc, O::lift(*input.add(begin + t), (begin + t) as u64));
    }
    let body = begin + head;
    let vectors = (end - body) / per;
    let base = input.add(body) as *const [u32; 4];
    let group = UNROLL * SHARERS;
    let full = vectors / group * group;
    let mut v = t;
    while v < full {
        let mut chunks = [[0u32; 4]; UNROLL];
        for (u, c) in chunks.iter_mut().enumerate() {
            *c = load_nc_v4_u32(base.add(v + u * SHARERS));
        }
        acc = O::accumulate(acc, &chunks, |u, j| (body + (v + u * SHARERS) * per + j) as u64);
        v += group;
    }
    // The last part group: every load in flight at once (a block's span at small `n` is less
    // than one group), then the vectors that exist combined in the same order as above.
    if v < vectors {
        let mut chunks = [[0u32; 4]; UNROLL];
        for (u, c) in chunks.iter_mut().enumerate() {
            if v + u * SHARERS < vectors {
                *c = load_nc_v4_u32(base.add(v + u * SHARERS));
            }
        }
        for (u, c) in chunks.iter().enumerate() {
            if v + u * SHARERS < vectors {
                acc = O::accumulate(acc, core::array::from_ref(c), |_, j| (body + (v + u * SHARERS) * per + j) as u64);
            }
        }
    }
    // Tail: the elements after the last whole vector.
    let tail = body + vectors * per;
    if t < end - tail {
        acc = O::combine(acc, O::lift(*input.add(tail + t), (tail + t) as u64));
    }
    acc
}

/// This thread's elements of the units of `input[..n]` the block takes (unit `k` is
/// `input[k · unit..][..unit]`): unit `block`, then unit `grid + c` for each claim `c` it draws
/// from `counter`, until none is left. The next claim is in flight while the block reduces
/// the current unit, and a thread's elements stay in index order (claims only grow).
///
/// # Safety
/// As [`accumulate_range`] for `input[..n]`; `counter` is zeroed before the launch (by the grid
/// this one may be the programmatic dependent of) and only claimed from during it; `claims` is
/// two words of shared memory that nothing else uses during the call; every thread of the
/// block calls this.
#[inline(always)]
unsafe fn accumulate_claims<O: ReduceOp>(
    input: *const O::Item,
    n: usize,
    unit: usize,
    counter: *mut u32,
    claims: *mut u32,
) -> O::T {
    let (block, grid) = (block_idx_x() as usize, grid_dim_x() as usize);
    let mut acc = O::IDENTITY;
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
        acc = accumulate_range::<O, { THREADS as usize }>(acc, input, begin, (begin + unit).min(n));
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

/// Reads a partial (4, 8 or 16 bytes, 16-byte aligned) written by another block, with
/// `ld.relaxed.gpu` (never a stale L1 copy).
#[inline(always)]
unsafe fn load_partial<T: Copy>(p: *const T) -> T {
    let mut out = core::mem::MaybeUninit::<T>::uninit();
    match size_of::<T>() {
        4 => (out.as_mut_ptr() as *mut u32).write(load_relaxed_u32(p as *const u32)),
        8 => (out.as_mut_ptr() as *mut u64).write(load_relaxed_u64(p as *const u64)),
        _ => (out.as_mut_ptr() as *mut [u64; 2]).write(load_relaxed_v2_u64(p as *const [u64; 2])),
    }
    out.assume_init()
}

/// Writes a partial (as [`load_partial`] reads it) with `st.relaxed.gpu`.
#[inline(always)]
unsafe fn store_partial<T: Copy>(p: *mut T, v: T) {
    let src = &v as *const T;
    match size_of::<T>() {
        4 => store_relaxed_u32(p as *mut u32, (src as *const u32).read()),
        8 => store_relaxed_u64(p as *mut u64, (src as *const u64).read()),
        _ => store_relaxed_v2_u64(p as *mut [u64; 2], (src as *const [u64; 2]).read_unaligned()),
    }
}

/// Zeroes the ticket, the claim counter and the `f32` sum's accumulator of the reduce launched
/// next, which may be its programmatic dependent.
///
/// # Safety
/// `ticket` is 16-byte aligned and starts [`TICKET_BYTES`] + [`EXACT_BYTES`] bytes of scratch;
/// the [`PREPARE_THREADS`] threads of one block call this.
#[inline(always)]
pub unsafe fn prepare_ticket(ticket: *mut u32) {
    const { assert!(CLAIM_WORD == 1 && TICKET_BYTES == 16, "the ticket and the claim counter in the first 8 bytes") };
    crate::arch::grid_launch_dependents();
    // The ticket, the claim counter and the `f32` sum's accumulator after them.
    let mut i = thread_idx_x() as usize;
    while i < (TICKET_BYTES + EXACT_BYTES) as usize / 16 {
        store_relaxed_v2_u64((ticket as *mut [u64; 2]).add(i), [0, 0]);
        i += PREPARE_THREADS as usize;
    }
}

/// The device-wide reduce of `input[..n]` under `O`, one block's part: returns `Some(result)`
/// on thread 0 of the block that finishes last (the one that combined every partial), `None`
/// everywhere else.
///
/// # Safety
/// The launch has `warpwork_abi::reduce::blocks(size_of::<O::Item>(), n)` blocks of
/// [`THREADS`] threads; `input` holds `n` elements, none written during the launch; `scratch`
/// is 16-byte aligned and holds [`TICKET_BYTES`] + [`PARTIAL_BYTES`] per block, its first two
/// words (the ticket and the claim counter) zeroed by [`prepare_ticket`] (of which this launch
/// may be the programmatic dependent) unless the grid is one block; `smem` is this block's, in
/// shared memory; every thread calls this.
#[inline(always)]
pub unsafe fn reduce_grid<O: ReduceOp>(
    input: *const O::Item,
    n: usize,
    scratch: *mut u8,
    smem: *mut ReduceShared,
) -> Option<O::T> {
    const { assert!(size_of::<O::T>() as u64 <= PARTIAL_BYTES) };
    let totals = smem as *mut O::T;
    let block = block_idx_x() as usize;
    let grid = grid_dim_x();
    let size = size_of::<O::Item>();
    let ticket = scratch as *mut u32;
    // Claimed units, or the block's span (always for a float sum, whose bits depend on the order).
    let acc = if O::ANY_ORDER && claims(size, n as u64) {
        let slots = core::ptr::addr_of_mut!((*smem).claims) as *mut u32;
        accumulate_claims::<O>(input, n, unit(size) as usize, ticket.add(CLAIM_WORD), slots)
    } else {
        let span = span(size, n as u64) as usize;
        let begin = (block * span).min(n);
        accumulate_range::<O, { THREADS as usize }>(O::IDENTITY, input, begin, (begin + span).min(n))
    };
    let total = block_reduce::<O, WARPS>(totals, acc);
    if grid == 1 {
        return (thread_idx_x() == 0).then_some(total);
    }
    let partials = scratch.add(TICKET_BYTES as usize);
    let last = core::ptr::addr_of_mut!((*smem).last);
    if thread_idx_x() == 0 {
        store_partial(partials.add(block * PARTIAL_BYTES as usize) as *mut O::T, total);
        // The partial before the ticket (a release); the ticket was zeroed by the kernel before.
        fence_gpu();
        grid_dependency_wait();
        let is_last = atomic_add_u32(ticket, 1) == grid - 1;
        if is_last {
            // Every other block's partial before this block's reads (an acquire).
            fence_gpu();
        }
        write_volatile(last, is_last as u32);
    }
    // Also: every thread has read the totals before they are written again below.
    sync_threads();
    if read_volatile(last) == 0 {
        return None;
    }
    // Every load in flight before the first combine: thread `t` takes partials `t`, `t + THREADS`, …
    let mut mine = [O::IDENTITY; PARTIALS_PER_THREAD];
    for (k, m) in mine.iter_mut().enumerate() {
        let p = thread_idx_x() as usize + k * THREADS as usize;
        if p < grid as usize {
            *m = load_partial(partials.add(p * PARTIAL_BYTES as usize) as *const O::T);
        }
    }
    let mut acc = O::IDENTITY;
    for m in mine {
        acc = O::combine(acc, m);
    }
    let total = block_reduce::<O, WARPS>(totals, acc);
    (thread_idx_x() == 0).then_some(total)
}

/// The index and value an [`ArgKey`] result names: `input[index]`, or `(u64::MAX, empty)` when
/// it names no element (an empty input).
///
/// # Safety
/// `input` holds the element the key names.
#[inline(always)]
pub unsafe fn arg_result<T: OrderKey>(input: *const T, key: ArgKey, empty: T) -> (u64, T) {
    if key.index == u64::MAX {
        (u64::MAX, empty)
    } else {
        (key.index, *input.add(key.index as usize))
    }
}
