//! Pass 1: what each strategy writes for its sources. Each function processes one tile of
//! [`PUSH_ITEMS`]` × blockDim.x` sources (thread `t` owns the [`PUSH_ITEMS`] consecutive sources
//! from `(blockIdx.x·blockDim.x + t)·PUSH_ITEMS`); launch `ceil(p1 / tile)` blocks.
//!
//! Atomics are aggregated: a thread sums its sources, a warp or the block sums its threads, and
//! one lane per warp (S1, S2) or per block (total, S2.5+, S3) touches global memory. With
//! 2^22 sources that is thousands of atomics on a hot word instead of millions.
//!
//! In your own kernel the counts would come from your culling decision instead of an array: copy
//! the body and replace [`load_counts`].

use super::{Control, ExpandView, BUCKETS, FLAG_CAPACITY};
use crate::arch::{
    atomic_add_u32, atomic_add_u64, atomic_cas_u64, atomic_or_u32, block_dim_x, block_idx_x, lane_id, load_nc_v4_u32,
    load_relaxed_u64, shared_atomic_add_u32, shfl_idx, sync_threads, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::block_exclusive_sum;
use crate::warp::{warp_append, warp_inclusive_sum, warp_inclusive_sum_u64, warp_or, warp_owner};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};

pub use warpwork_abi::expand::PUSH_ITEMS;

/// Shared `u64`s a push needs (block scan scratch plus broadcast slots).
pub const PUSH_SCRATCH_U64: usize = crate::block::BLOCK_SCAN_SCRATCH + 2;
/// Shared `u32`s [`push_po2_buckets`] needs for a block of up to 1024 threads.
pub const PO2_SCRATCH_U32: usize = 2 * BUCKETS + 32 * BUCKETS;

/// This thread's first source and its [`PUSH_ITEMS`] counts (zero past `p1`), with one or two
/// 16-byte loads when the run is whole.
#[inline(always)]
pub unsafe fn load_counts(counts: *const u32, p1: u32) -> (u32, [u32; PUSH_ITEMS]) {
    let first = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize * PUSH_ITEMS;
    let mut c = [0u32; PUSH_ITEMS];
    let p1 = p1 as usize;
    if first + PUSH_ITEMS <= p1 {
        for v in 0..PUSH_ITEMS / 4 {
            let q = load_nc_v4_u32(counts.add(first + 4 * v) as *const [u32; 4]);
            c[4 * v..4 * v + 4].copy_from_slice(&q);
        }
    } else {
        for (j, x) in c.iter_mut().enumerate() {
            if first + j < p1 {
                *x = *counts.add(first + j);
            }
        }
    }
    (first as u32, c)
}

/// Adds the block's exact sum to `ctrl.total` (one atomic per block) and raises
/// [`FLAG_CAPACITY`] when the running total passes `capacity`. Every thread calls it.
#[inline(always)]
pub unsafe fn add_total(scratch: *mut u64, ctrl: *mut Control, capacity: u32, thread_sum: u64) {
    let (_, block) = block_exclusive_sum(scratch, thread_sum);
    if thread_idx_x() == 0 && block != 0 {
        let old = atomic_add_u64(addr_of_mut!((*ctrl).total), block);
        if old + block > capacity as u64 {
            atomic_or_u32(addr_of_mut!((*ctrl).flags), FLAG_CAPACITY);
        }
    }
}

#[inline(always)]
fn sum64(c: &[u32; PUSH_ITEMS]) -> u64 {
    c.iter().map(|&x| x as u64).sum()
}

/// S1 `AppendPerItem`: one `(src, local)` record per destination item in `v.records()`, at slots
/// from one `warp_append` per warp. The warp then fills its whole run cooperatively (lane `l`
/// writes items `l, l+32, …`), so stores stay coalesced however uneven the counts are.
///
/// # Safety
/// `v` is valid; `scratch` is [`PUSH_SCRATCH_U64`] shared `u64`s; every thread calls it.
#[inline(always)]
pub unsafe fn push_append_per_item(v: &ExpandView, scratch: *mut u64) {
    let (first, c) = load_counts(v.counts(), v.p1);
    push_append_per_item_with(v, first, c, scratch)
}

/// [`push_append_per_item`] with the thread's counts given (from your own pass-1 decision instead of
/// `v.counts()`): `first` is the thread's first source, `(blockIdx.x·blockDim.x + t)·PUSH_ITEMS`,
/// and `c` its [`PUSH_ITEMS`] counts (zero past `p1`).
///
/// # Safety
/// As [`push_append_per_item`].
#[inline(always)]
pub unsafe fn push_append_per_item_with(v: &ExpandView, first: u32, c: [u32; PUSH_ITEMS], scratch: *mut u64) {
    let exact = sum64(&c);
    add_total(scratch, v.ctrl(), v.capacity, exact);
    // A warp whose items alone exceed the capacity has overflowed (add_total flags it): it
    // writes nothing, instead of looping over up to 2^32 items per row.
    let warp_items = warp_inclusive_sum_u64(exact);
    let warp_items = ((shfl_idx((warp_items >> 32) as u32, WARP_SIZE - 1) as u64) << 32)
        | shfl_idx(warp_items as u32, WARP_SIZE - 1) as u64;
    if warp_items > v.capacity as u64 {
        return;
    }
    let mine: u32 = c.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    let start = warp_append(addr_of_mut!((*v.ctrl()).counter), mine);
    let lane = lane_id();
    // Row by row (source j of every lane), the warp writes the row's items together.
    let mut run = start;
    // Rows are taken from the front of a shifted copy: constant indices only, so the counts stay
    // in registers even though the row loop is not unrolled (a dynamic index would put the array
    // on the stack).
    let mut rest = c;
    for j in 0..PUSH_ITEMS {
        let n = rest[0];
        for k in 0..PUSH_ITEMS - 1 {
            rest[k] = rest[k + 1];
        }
        let incl = warp_inclusive_sum(n);
        let row = shfl_idx(incl, WARP_SIZE - 1);
        // A warp-uniform trip count: every lane takes part in every shuffle (lanes past the row
        // compute garbage and write nothing).
        let mut i0 = 0;
        while i0 < row {
            let i = i0 + lane;
            let owner = warp_owner(incl, i);
            let owner_incl_below = shfl_idx(incl, owner).wrapping_sub(shfl_idx(n, owner));
            let local = i.wrapping_sub(owner_incl_below);
            let at = shfl_idx(run, owner) as u64 + local as u64;
            let src = shfl_idx(first, owner) + j as u32;
            if i < row && at < v.capacity as u64 {
                *v.records().add(at as usize) = [src, local];
            }
            // Saturating: a row within 32 of 2^32 items would wrap `i0` to 0 and start over.
            i0 = i0.saturating_add(WARP_SIZE);
        }
        run = run.wrapping_add(n);
    }
}

/// S2 `LinearSearch`: one `(src, count)` record per non-empty source, at slots from one
/// `warp_append` per warp.
///
/// # Safety
/// As [`push_append_per_item`]; `v.records()` holds `p1` records.
#[inline(always)]
pub unsafe fn push_linear(v: &ExpandView, scratch: *mut u64) {
    let (first, c) = load_counts(v.counts(), v.p1);
    push_linear_with(v, first, c, scratch)
}

/// [`push_linear`] with the thread's counts given (from your own pass-1 decision instead of
/// `v.counts()`): `first` is the thread's first source, `(blockIdx.x·blockDim.x + t)·PUSH_ITEMS`,
/// and `c` its [`PUSH_ITEMS`] counts (zero past `p1`).
///
/// # Safety
/// As [`push_linear`].
#[inline(always)]
pub unsafe fn push_linear_with(v: &ExpandView, first: u32, c: [u32; PUSH_ITEMS], scratch: *mut u64) {
    add_total(scratch, v.ctrl(), v.capacity, sum64(&c));
    let k = c.iter().filter(|&&n| n != 0).count() as u32;
    let mut slot = warp_append(addr_of_mut!((*v.ctrl()).counter), k);
    for (j, &n) in c.iter().enumerate() {
        if n != 0 {
            if slot < v.p1 {
                *v.records().add(slot as usize) = [first + j as u32, n];
            }
            slot += 1;
        }
    }
}

/// Bits of the block-local packed word: record count above, sum below. 51 bits hold the sum of
/// 1024 threads × 8 counts < 2^32 each; 13 bits hold 8192 records.
const LOCAL_SUM_BITS: u32 = 51;

/// S2.5+ `PackedAtomic`: the block scans its `(records, sum)` pairs, then takes its place in the
/// global packed word `ctrl.packed = (records << 32) | sum` with **one** 64-bit atomic — a
/// compare-and-swap loop (`cas = true`, the form first described; it can refuse a sum that would carry out
/// of 32 bits) or a single `atom.add.u64`. Each non-empty source writes its record: the exclusive
/// prefix to `offsets[r]` and its index to `srcs[r]`, so pass 2 binary-searches `offsets`.
///
/// # Safety
/// As [`push_append_per_item`]; `v.offsets()` and `v.srcs()` hold `p1` entries.
#[inline(always)]
pub unsafe fn push_packed(v: &ExpandView, scratch: *mut u64, cas: bool) {
    let (first, c) = load_counts(v.counts(), v.p1);
    push_packed_with(v, first, c, scratch, cas)
}

/// [`push_packed`] with the thread's counts given (from your own pass-1 decision instead of
/// `v.counts()`): `first` is the thread's first source, `(blockIdx.x·blockDim.x + t)·PUSH_ITEMS`,
/// and `c` its [`PUSH_ITEMS`] counts (zero past `p1`).
///
/// # Safety
/// As [`push_packed`].
#[inline(always)]
pub unsafe fn push_packed_with(v: &ExpandView, first: u32, c: [u32; PUSH_ITEMS], scratch: *mut u64, cas: bool) {
    let k = c.iter().filter(|&&n| n != 0).count() as u64;
    let local = (k << LOCAL_SUM_BITS) | sum64(&c);
    let (excl, block) = block_exclusive_sum(scratch, local);
    let slot = scratch.add(crate::block::BLOCK_SCAN_SCRATCH);
    let ctrl = v.ctrl();
    if thread_idx_x() == 0 {
        let bk = block >> LOCAL_SUM_BITS;
        let bs = block & ((1 << LOCAL_SUM_BITS) - 1);
        let packed = addr_of_mut!((*ctrl).packed);
        let mut bad = bs > u32::MAX as u64;
        let old = if cas {
            let mut old = load_relaxed_u64(packed);
            loop {
                let lo = old & 0xffff_ffff;
                let over = lo + bs > u32::MAX as u64;
                // Refuse to carry into the record count: keep the sum saturated instead.
                let new_lo = if over { u32::MAX as u64 } else { lo + bs };
                let new = (((old >> 32) + bk) << 32) | new_lo;
                let seen = atomic_cas_u64(packed, old, new);
                if seen == old {
                    bad |= over;
                    break old;
                }
                old = seen;
            }
        } else {
            let old = atomic_add_u64(packed, (bk << 32) | (bs & 0xffff_ffff));
            bad |= (old & 0xffff_ffff) + bs > u32::MAX as u64;
            old
        };
        if bad || (old & 0xffff_ffff) + bs > v.capacity as u64 {
            atomic_or_u32(addr_of_mut!((*ctrl).flags), FLAG_CAPACITY);
        }
        if bs != 0 {
            atomic_add_u64(addr_of_mut!((*ctrl).total), bs);
        }
        write_volatile(slot, old);
    }
    sync_threads();
    let base = read_volatile(slot);
    let mut rec = (base >> 32) as u32 + (excl >> LOCAL_SUM_BITS) as u32;
    let mut pre = (base as u32).wrapping_add(excl as u32);
    for (j, &n) in c.iter().enumerate() {
        if n != 0 {
            if rec < v.p1 {
                *v.offsets().add(rec as usize) = pre;
                *v.srcs().add(rec as usize) = first + j as u32;
            }
            rec += 1;
            pre = pre.wrapping_add(n);
        }
    }
}

/// S3 `Po2Buckets`: each source splits N into its set bits and appends `(src, N mod 2^b)` to
/// bucket `b` for every set bit `b` (the record stands for locals `N mod 2^b .. + 2^b`).
/// Warps count per bucket with shuffles and one shared atomic per (warp, bucket); the block takes
/// its slots with one global atomic per non-empty bucket.
///
/// # Safety
/// As [`push_append_per_item`]; `scratch32` is [`PO2_SCRATCH_U32`] shared `u32`s.
#[inline(always)]
pub unsafe fn push_po2_buckets(v: &ExpandView, scratch: *mut u64, scratch32: *mut u32) {
    let (first, c) = load_counts(v.counts(), v.p1);
    push_po2_buckets_with(v, first, c, scratch, scratch32)
}

/// [`push_po2_buckets`] with the thread's counts given (from your own pass-1 decision instead of
/// `v.counts()`): `first` is the thread's first source, `(blockIdx.x·blockDim.x + t)·PUSH_ITEMS`,
/// and `c` its [`PUSH_ITEMS`] counts (zero past `p1`).
///
/// # Safety
/// As [`push_po2_buckets`].
#[inline(always)]
pub unsafe fn push_po2_buckets_with(
    v: &ExpandView,
    first: u32,
    c: [u32; PUSH_ITEMS],
    scratch: *mut u64,
    scratch32: *mut u32,
) {
    let tid = thread_idx_x();
    let bcount = scratch32;
    let bbase = scratch32.add(BUCKETS);
    let woff = scratch32.add(2 * BUCKETS + warp_id() as usize * BUCKETS);
    if tid < BUCKETS as u32 {
        write_volatile(bcount.add(tid as usize), 0);
    }
    // (add_total's barriers also publish the zeroing.)
    add_total(scratch, v.ctrl(), v.capacity, sum64(&c));
    let mask = warp_or(c.iter().fold(0, |a, &n| a | n));
    let ones = |b: u32| c.iter().filter(|&&n| n >> b & 1 != 0).count() as u32;
    let mut bits = mask;
    while bits != 0 {
        let b = bits.trailing_zeros();
        bits &= bits - 1;
        let incl = warp_inclusive_sum(ones(b));
        if lane_id() == WARP_SIZE - 1 {
            write_volatile(woff.add(b as usize), shared_atomic_add_u32(bcount.add(b as usize), incl));
        }
    }
    sync_threads();
    if tid < BUCKETS as u32 {
        let n = read_volatile(bcount.add(tid as usize));
        let base = if n != 0 { atomic_add_u32(addr_of_mut!((*v.ctrl()).buckets[tid as usize]), n) } else { 0 };
        write_volatile(bbase.add(tid as usize), base);
    }
    sync_threads();
    let mut bits = mask;
    while bits != 0 {
        let b = bits.trailing_zeros();
        bits &= bits - 1;
        let k = ones(b);
        let incl = warp_inclusive_sum(k);
        let mut slot = read_volatile(bbase.add(b as usize))
            .wrapping_add(read_volatile(woff.add(b as usize)))
            .wrapping_add(incl - k);
        let cap = v.bucket_cap[b as usize];
        let rec = v.records().add(v.bucket_base[b as usize] as usize);
        let low = (1u32 << b) - 1;
        for (j, &n) in c.iter().enumerate() {
            if n >> b & 1 != 0 {
                if slot < cap {
                    *rec.add(slot as usize) = [first + j as u32, n & low];
                } else {
                    atomic_or_u32(addr_of_mut!((*v.ctrl()).flags), FLAG_CAPACITY);
                }
                slot = slot.wrapping_add(1);
            }
        }
    }
}
