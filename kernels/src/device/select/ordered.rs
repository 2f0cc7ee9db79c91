//! Order-preserving select in a single pass, on the device-wide scans' decoupled look-back
//! ([`crate::device::lookback`]): block `b` selects from tile `b` and learns how many items all
//! earlier tiles keep from their published counts.
//!
//! A tile is `WARPS` warps × 32 lanes × `CHUNKS` 16-byte chunks. Each warp owns a contiguous
//! share of it, read **warp-striped**: lane `l`'s `k`-th chunk is chunk `32·k + l` of the share,
//! so every warp load covers 512 consecutive bytes (copied straight into shared memory with
//! `cp.async` on sm_90), and the share keeps input order as (chunk, item in chunk). The tile
//! waits in shared memory, not in registers, so a block waiting for its look-back holds few
//! registers and many tiles stay resident per SM. Three shapes are shipped
//! (`warpwork_abi::select::ORDERED_TILES`), chosen per launch by the input's size: small tiles
//! of few chunks per thread for small inputs (latency), larger ones for large inputs (fewer
//! tiles, more bytes resident per SM).
//!
//! 1. **Count**: each lane reads its chunks back from shared memory, tests their items and keeps
//!    one bit per item (a `u128`: at most 128 items per thread); one warp sum per warp, one
//!    barrier, and every warp knows the kept count of the warps before it and of the tile.
//! 2. **Look back** (warp 0): publish the tile's count, look back, publish the inclusive count.
//! 3. **Compact** (every warp, overlapping warp 0's look-back): each warp moves its kept items to
//!    the front of its own share of shared memory, in order: per chunk row, a warp scan of the
//!    lanes' counts (several rows packed in one 32-bit scan) ranks each kept item. A kept item
//!    only ever moves down, into rows the warp has already read, so the compaction is in place.
//! 4. **Write**: after one barrier, each warp stores its compacted run at `start + kept before
//!    the tile + kept before the warp` with coalesced stores (32 consecutive items per store
//!    instruction). Slots at or past the output's capacity are not written.
//!
//! The block of the last tile stores the count. The first slot, `start`, is read from its own
//! word, which nothing in the launch writes: a block may start after the last tile has stored
//! the new count (the look-back's fallback does not wait for it), so the count word cannot
//! double as the start.

use super::compact::{compact_share, nonzero_bytes, passing};
use super::lookback::{count_tile, last_in_tile, publish_and_look_back, publish_and_look_back_last, Recount};
use super::partition::{stage_rows, write_partition};
use super::runs::{
    copy_value, copy_values, each_kept, last_at, last_kept, scan_lasts, store_length_before, store_width, write_runs,
    RunOutputs, BEFORE_AT, OWN_AT,
};
use super::unique::{bound_bits, unique_bits};
use super::{load_flag_run, op, vectors_aligned, SelectValue};
use crate::arch::{
    block_idx_x, grid_dependency_wait, grid_dim_x, lane_id, load_nc_v4_u32, load_shared, load_shared_v4, opaque,
    store_shared_u32, store_shared_v4, sync_threads, sync_warp, thread_idx_x, warp_id, WARP_SIZE,
};
use crate::block::Max;
use crate::device::lookback::TileStates;
use crate::warp::{warp_reduce_high_first, warp_sum};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};
use warpwork_abi::select::mode;

use warpwork_abi::scan::tile_load;

/// The most warps an ordered tile's block may have (the size of [`OrderedShared::totals`]).
const MAX_WARPS: usize = 32;

/// The shared memory of [`select_ordered_tile`] for tiles of `SLOTS` 16-byte chunks (threads ×
/// chunks per thread): one allocation of this per block.
#[repr(C, align(16))]
pub struct OrderedShared<const SLOTS: usize> {
    /// The tile, each warp's share in load order; then each share's kept items, compacted.
    chunks: [[u32; 4]; SLOTS],
    /// Kept items per warp. The run modes that carry the last kept index (at most 8 warps)
    /// keep each warp's last kept index in its share plus one (0: none) at `16 + warp`, what
    /// warp 1 derives from those at `runs::BEFORE_AT` and `runs::OWN_AT`, and the tile's carried
    /// index plus one (a `u64`, 0: none) in the last two words.
    totals: [u32; MAX_WARPS],
    /// The tile's first output slot: the start plus every earlier tile's kept count.
    first: u64,
    /// What the look-back's fallback reads to count a tile ([`Recount`], by warp 0): kept here
    /// rather than in registers across the look-back, which it would cost seven of.
    recount: [u64; 7],
}

/// Order-preserving select of tile `blockIdx.x` (`WARPS` warps × `CHUNKS` 16-byte chunks per
/// thread) of `items[..n]`: keeps item `i` where `flags[i] != 0` ([`op::FLAGGED`]) or where
/// [`super::test`]`(op, items[i], a, b)` holds ([`SelectValue::passes`]), and writes the kept
/// items in input order to `out` from slot `*start` on (see the module docs). The last tile's block stores `*start` + the kept
/// count in `*counter`. Slots at or past `capacity` are not written (the count still says how
/// many there were). `LOAD` is a [`tile_load`] mode; `forced_fallback` makes the look-back fall
/// back at once and odd tiles publish late (tests).
///
/// `start`, `counter` and `states` are touched only after `griddepcontrol.wait`, so the kernel
/// may be launched as a programmatic dependent of the one that prepares them
/// ([`super::prepare_ordered_state`]): its blocks load and count their tiles meanwhile.
///
/// # Safety
/// `MODE` ([`mode`]) generalises the tile: [`mode::SELECT`] is the select above;
/// [`mode::PARTITION`] also writes each rejected item, from `out[n − 1]` down in input order
/// (so the rejected items end up after the kept ones in reverse input order; `capacity ≥ n`,
/// `*start == 0`), its kept items' compaction then waits for the look-back; [`mode::UNIQUE`]
/// keeps each item whose bytes differ from the item before it (the first item always), ignoring
/// `flags`, `op`, `a` and `b`.
///
/// [`mode::RUNS`] is unique that also writes run lengths to `runs.lengths`: the kept item at
/// slot `k ≥ 1` writes the length of run `k − 1` (its index less that of the kept item before
/// it), the last tile the last run's (`n` less the last kept index). A second warp runs a
/// second look-back ([`Max`] over `runs.last`, a second set of tile states) for the index of
/// the last kept item before the tile. [`mode::BOUNDS`] keeps the first and the last item of
/// every run longer than one (kept items alternate start, end), writes no items, but offset
/// `k` (the start at slot `2k`) and length `k` (the end at slot `2k + 1`: its index less the
/// start's, plus one) to `runs.offsets` and `runs.lengths`, and `k`'s count (half the kept
/// count) to `counter`; `capacity` counts runs. [`mode::BY_KEY`] is unique on keys that also
/// copies each kept key's value from `runs.values` to `runs.values_out` at its slot; its
/// compaction waits for the look-back. Nothing is written at or past `capacity`. The run modes
/// take `*start == 0`.
///
/// `SLOTS == 32 · WARPS · CHUNKS`, `CHUNKS · 16 / size_of::<T>() ≤ 128`; the launch has
/// `ceil(n / tile)` blocks of `32 · WARPS` threads; `items` (and `flags` for [`op::FLAGGED`]) hold
/// `n` elements, `T`-aligned; `out` holds `capacity` and does not overlap `items`; `counter` and
/// `start` are global `u64`s (`start` not written during the launch); `states` holds the
/// launch's tile states, zeroed; `smem` points to an [`OrderedShared`] used by nothing else;
/// every thread calls this with the same arguments.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_ordered_tile<
    T: SelectValue,
    const WARPS: usize,
    const CHUNKS: usize,
    const SLOTS: usize,
    const LOAD: u8,
    const MODE: u8,
>(
    smem: *mut OrderedShared<SLOTS>,
    items: *const T,
    flags: *const u8,
    n: u64,
    op: u32,
    a: T,
    b: T,
    out: *mut T,
    capacity: u64,
    counter: *mut u64,
    start: *const u64,
    states: TileStates<u64>,
    forced_fallback: bool,
    runs: RunOutputs,
) {
    let v = 16 / core::mem::size_of::<T>();
    const { assert!(WARPS <= MAX_WARPS && SLOTS == WARPS * 32 * CHUNKS) };
    const { assert!(CHUNKS * 16 / core::mem::size_of::<T>() <= 128) };
    let per_warp = WARP_SIZE as usize * CHUNKS * v;
    let tile_len = WARPS * per_warp;
    let tile = block_idx_x() as usize;
    let n = n as usize;
    let valid = (n - tile * tile_len).min(tile_len);
    let (warp, lane) = (warp_id() as usize, lane_id() as usize);
    let share = tile * tile_len + warp * per_warp;
    // Items of this warp's share inside the input (the last tile's shares may hold fewer).
    let limit = valid.saturating_sub(warp * per_warp);
    let region = (addr_of_mut!((*smem).chunks) as *mut [u32; 4]).add(warp * WARP_SIZE as usize * CHUNKS);
    let mine = |k: usize| region.add(WARP_SIZE as usize * k + lane);
    // Index inside the share of item `j` of this lane's chunk `k`.
    let at = |k: usize, j: usize| (WARP_SIZE as usize * k + lane) * v + j;
    let unique = const { mode::by_neighbour(MODE) };
    let flagged = op == op::FLAGGED;
    let t = T::prepare(op, a, b);
    let recount = addr_of_mut!((*smem).recount) as *mut Recount<T>;
    const { assert!(core::mem::size_of::<Recount<T>>() <= 56) };
    if thread_idx_x() == 0 {
        write_volatile(addr_of_mut!((*recount).items), items);
        write_volatile(addr_of_mut!((*recount).flags), flags);
        write_volatile(addr_of_mut!((*recount).op), op);
        if const { mode::by_neighbour(MODE) } {
            // No operands (as 16-byte arrays they would go through the stack).
        } else if !flagged {
            write_volatile(addr_of_mut!((*recount).a), a);
            write_volatile(addr_of_mut!((*recount).b), b);
        }
    }

    // Load: the share into shared memory; the flags (one byte per item), as keep bits (bit
    // `k·v + j` for item `j` of chunk `k`; a `u128`, so that a loop the compiler does not unroll
    // still keeps them in registers).
    let mut keep = 0u128;
    let set = |keep: &mut u128, k: usize, bits: u32| *keep |= (bits as u128) << (k * v);
    if valid == tile_len && vectors_aligned(items, flags, op, v) {
        let src = items.add(share) as *const [u32; 4];
        let chunk_src = |k: usize| src.add(WARP_SIZE as usize * k + lane);
        if LOAD == tile_load::ASYNC && cfg!(feature = "sm90") {
            #[cfg(feature = "sm90")]
            for k in 0..CHUNKS {
                crate::arch::copy_async_16(mine(k), chunk_src(k));
            }
        } else {
            // Four chunks at a time through registers.
            for k0 in (0..CHUNKS).step_by(4) {
                let four =
                    [0, 1, 2, 3].map(|q| if k0 + q < CHUNKS { load_nc_v4_u32(chunk_src(k0 + q)) } else { [0; 4] });
                for (q, &c) in four.iter().enumerate().filter(|(q, _)| k0 + q < CHUNKS) {
                    store_shared_v4(mine(k0 + q), c);
                }
            }
        }
        if flagged {
            for k in 0..CHUNKS {
                set(&mut keep, k, nonzero_bytes(load_flag_run(flags.add(share + at(k, 0)), v), v));
            }
        }
        #[cfg(feature = "sm90")]
        if LOAD == tile_load::ASYNC {
            // A lane reads back only the chunks it copied itself: no barrier needed.
            crate::arch::copy_async_wait_all();
        }
        // (Unique runs this too, and overwrites the bits below: skipping it here changed the
        // select's code.)
        if !flagged {
            for k in 0..CHUNKS {
                set(&mut keep, k, passing::<T>(load_shared_v4(mine(k)), t));
            }
        }
    } else {
        // Item by item, straight to shared memory, in loops kept from unrolling (the last tile
        // only: unrolled, this path was a third of each kernel's code).
        for k in 0..opaque(CHUNKS) {
            let mut bits = 0u32;
            for j in 0..opaque(v) {
                let (i, slot) = (at(k, j), (mine(k) as *mut T).add(j));
                if i < limit {
                    let x = *items.add(share + i);
                    T::store_staged(slot, x);
                    let kept = if flagged { *flags.add(share + i) != 0 } else { x.passes(t) };
                    bits |= (kept as u32) << j;
                }
            }
            set(&mut keep, k, bits);
        }
    }
    if unique {
        // Each item against the one before it, read from the warp's staged share (every lane's
        // copies complete and visible after the warp barrier); the share's first item against
        // the item before the share, from global memory.
        sync_warp();
        keep = if const { MODE == mode::BOUNDS } {
            bound_bits::<T, CHUNKS>(region, items, share, limit, n)
        } else {
            unique_bits::<T, CHUNKS>(region, items, share, limit)
        };
    }
    let warp_kept = warp_sum(keep.count_ones());
    let totals = addr_of_mut!((*smem).totals) as *mut u32;
    // (Run modes: each warp's last kept index plus one, and the tile's carried one.)
    let (lasts, carried) = (totals.wrapping_add(MAX_WARPS / 2), totals.wrapping_add(MAX_WARPS - 2) as *mut u64);
    const { assert!(!mode::carries_last(MODE) || (WARPS >= 2 && WARPS <= BEFORE_AT)) };
    let last =
        if const { mode::carries_last(MODE) } { warp_reduce_high_first::<Max<u32>>(last_kept(keep, v)) } else { 0 };
    if lane == 0 {
        write_volatile(totals.add(warp), warp_kept);
        if const { mode::carries_last(MODE) } {
            write_volatile(lasts.add(warp), last);
        }
    }
    sync_threads();

    // Every warp compacts its share, warp 0 then publishes and looks back (its successors
    // find the tile's count published before it compacts; the others' compaction overlaps its
    // look-back). Nothing after the barrier branches on the tile, so that LLVM keeps one copy
    // of it.
    let first_slot = addr_of_mut!((*smem).first);
    // (The bounds of non-trivial runs write no items.)
    if const { MODE != mode::PARTITION && MODE != mode::BOUNDS } {
        compact_share::<T, CHUNKS>(region, keep);
    }
    // A partition stages both sides of each row instead (lane `k` keeps row `k`'s kept count).
    let rows = if const { MODE == mode::PARTITION } { stage_rows::<T, CHUNKS>(region, keep, limit) } else { 0 };
    if const { mode::carries_last(MODE) } && warp == 1 {
        // The second look-back: the index plus one of the last kept item before the tile. (It
        // stands before warp 0's: after it, though dead in the other modes, it changed the
        // select's block layout.)
        let reduce = |j: usize| last_in_tile::<T, MODE>(recount, j * tile_len, tile_len);
        let own = scan_lasts::<WARPS>(totals, lasts, tile * tile_len, per_warp);
        grid_dependency_wait();
        let earlier = publish_and_look_back_last(runs.last, tile, own, forced_fallback, reduce);
        if lane == 0 {
            write_volatile(carried, earlier);
        }
    }
    if warp == 0 {
        let reduce = |j: usize| count_tile::<T, MODE>(recount, j * tile_len, tile_len);
        let aggregate = counts::<WARPS>(totals, 0).2;
        // The state is the preparing kernel's (a programmatic dependent launch may start early).
        grid_dependency_wait();
        let earlier = publish_and_look_back(states, tile, aggregate as u64, forced_fallback, reduce);
        if lane == 0 {
            write_volatile(first_slot, read_volatile(start).wrapping_add(earlier));
        }
    }
    sync_threads();

    // Write: the warp's kept items, 32 consecutive ones per store. (The counts are read again
    // from shared memory: kept in registers, they would be live across the look-back.)
    let (before, warp_kept, aggregate) = counts::<WARPS>(totals, warp);
    let tile_first = read_volatile(first_slot);
    let first = tile_first.wrapping_add(before as u64);
    if const { MODE == mode::PARTITION } {
        write_partition::<T, CHUNKS>(region, rows, limit, out, n as u64, share as u64, first);
    }
    if const { MODE == mode::BY_KEY && core::mem::size_of::<T>() < 4 } {
        // Each kept key's value, at the key's slot (below the capacity).
        let room = super::room_after(first, capacity) as usize;
        let kept = |r: u32, i: usize, _| {
            if (r as usize) < room {
                copy_value(runs.values, share + i, runs.values_out, first as usize + r as usize, runs.value_size);
            }
        };
        each_kept::<CHUNKS, false>(keep, v, kept);
    }
    // The index plus one of the last kept item before the warp's share (0: none).
    let carry = if const { mode::carries_last(MODE) } {
        last_at(totals, BEFORE_AT + warp, tile * tile_len, read_volatile(carried))
    } else {
        0
    };
    if const { mode::carries_last(MODE) && core::mem::size_of::<T>() < 4 } {
        // Slot `s` (global, its item at `p`) after the kept item at `q + 1 = previous`.
        let wide = runs.wide;
        let kept = |r: u32, i: usize, previous: u32| {
            let (s, p) = (first + r as u64, (share + i) as u64);
            let q1 = if previous != 0 { (share + previous as usize) as u64 } else { carry };
            if MODE == mode::RUNS {
                store_length_before(runs, s, p, q1, capacity);
            } else if s % 2 == 0 {
                if s / 2 < capacity {
                    store_width(runs.offsets, s / 2, p, wide);
                }
            } else if s / 2 < capacity {
                // A run's end: from its start (the kept item before) to here, both included.
                store_width(runs.lengths, s / 2, p + 2 - q1, wide);
            }
        };
        each_kept::<CHUNKS, true>(keep, v, kept);
    }
    // (The bounds of non-trivial runs write offsets and lengths only; a partition has written
    // all.)
    let end = if const { MODE == mode::BOUNDS || MODE == mode::PARTITION } {
        0
    } else {
        warp_kept.min(super::room_after(first, capacity))
    };
    // `dst` is only dereferenced below the capacity (`end` is 0 when `first` is past it).
    let dst = out.wrapping_add(first as usize);
    let stage = region as *const T;
    let mut e = lane as u32;
    while e + 3 * WARP_SIZE < end {
        let x = [0, 1, 2, 3].map(|u| T::load_staged(stage.add((e + u * WARP_SIZE) as usize)));
        for (u, x) in x.into_iter().enumerate() {
            *dst.add((e + u as u32 * WARP_SIZE) as usize) = x;
        }
        e += 4 * WARP_SIZE;
    }
    while e < end {
        *dst.add(e as usize) = T::load_staged(stage.add(e as usize));
        e += WARP_SIZE;
    }
    if const { (mode::carries_last(MODE) || MODE == mode::BY_KEY) && core::mem::size_of::<T>() >= 4 } {
        // Items of 4 bytes or more: the kept items' indices in the share, by rank, in the staging
        // region (free once the items are out; a `u32` per item fits), then every length (and
        // offset) from two neighbouring indices, or every kept key's value, 32 consecutive slots
        // per store.
        let idx = region as *mut u32;
        sync_warp();
        each_kept::<CHUNKS, false>(keep, v, |r, i, _| store_shared_u32(idx.add(r as usize), i as u32));
        sync_warp();
        if const { MODE == mode::BY_KEY } {
            copy_values(idx, warp_kept.min(super::room_after(first, capacity)), share, first, runs);
        } else {
            write_runs::<MODE>(idx, warp_kept, share, first, carry, capacity, runs);
        }
    }
    if thread_idx_x() == 0 && tile == grid_dim_x() as usize - 1 {
        let total = tile_first.wrapping_add(aggregate as u64);
        if const { MODE == mode::RUNS } {
            // The last run's length: from the last kept item to the end (`n ≥ 1`: one run).
            let last = last_at(totals, OWN_AT, tile * tile_len, read_volatile(carried));
            if total - 1 < capacity {
                store_width(runs.lengths, total - 1, n as u64 + 1 - last, runs.wide);
            }
        }
        *counter = if const { MODE == mode::BOUNDS } { total / 2 } else { total };
    }
}

/// From the warps' kept counts in `totals`: (kept by the warps before `warp`, by `warp`, by the
/// tile).
#[inline(always)]
unsafe fn counts<const WARPS: usize>(totals: *const u32, warp: usize) -> (u32, u32, u32) {
    let (mut before, mut mine, mut all) = (0, 0, 0);
    for w in 0..WARPS {
        let t = load_shared(totals.add(w));
        if w < warp {
            before += t;
        }
        if w == warp {
            mine = t;
        }
        all += t;
    }
    (before, mine, all)
}
