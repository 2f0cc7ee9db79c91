//! One tile of a device-wide single-pass scan under any [`ScanOp`]: block `b` scans tile `b` of
//! `32 · WARPS` threads × `CHUNKS` 16-byte chunks per thread (the shipped shapes are
//! `warpwork_abi::scan::TILE_*`) and learns the combination of every earlier tile from the
//! decoupled look-back ([`crate::device::lookback`]).
//!
//! Memory traffic is one coalesced read and one coalesced write of the tile: a warp loads its
//! share with 16-byte loads in which the 32 lanes cover 512 consecutive bytes (or copies it with
//! `cp.async`, straight into shared memory, [`tile_load::ASYNC`]), into the shared-memory tile
//! (swizzled, so neither direction has bank conflicts), from which each thread reads back its own
//! run of consecutive chunks, one chunk at a time; the results go out the same way in reverse.
//! The elements wait in shared memory, not in registers, so the tile's size costs shared memory
//! and no registers: a block waiting for its look-back holds few. The last tile, and buffers
//! that are not 16-byte aligned, take a per-element path instead.
//!
//! Order of evaluation (what a float sum's rounding follows; see `docs/scan.md`): each thread
//! combines its own elements one after the other; the block combines the thread totals with a
//! warp scan (Kogge-Stone) and the warp totals in warp order; the look-back combines tile values
//! as [`crate::device::lookback::look_back`] describes; a thread's outputs are then
//! `((tile prefix ⊕ thread prefix) ⊕ x₀) ⊕ x₁ …`.

use super::{STATUS_AGGREGATE, STATUS_PREFIX};
use crate::arch::{
    block_idx_x, fence_gpu, grid_dependency_wait, lane_id, load_shared, load_shared_v4, load_v4_u32, opaque,
    store_shared_v4, store_v4_u32, sync_threads, sync_warp, thread_idx_x, WARP_SIZE,
};
use crate::block::{block_exclusive_scan, warp_reduce_high_first, ScanElement, ScanOp};
use crate::device::lookback::{fallback_after, forced_stall, look_back, TileStates};
use core::ptr::{addr_of_mut, write_volatile};

/// Predecessors each lane polls per look-back round (32 per round for the warp).
pub const LOOKBACK_WINDOW: usize = 1;
/// The most warps a tile's block may have (the size of [`ScanShared::totals`]).
const MAX_WARPS: usize = 32;

pub use warpwork_abi::scan::tile_load;

/// Elements of `T` per thread of a tile of `CHUNKS` 16-byte chunks per thread.
pub const fn items_per_thread<T, const CHUNKS: usize>() -> usize {
    CHUNKS * 16 / core::mem::size_of::<T>()
}

/// Elements of `T` per tile of `WARPS` warps × `CHUNKS` 16-byte chunks per thread.
pub const fn tile_items<T, const WARPS: usize, const CHUNKS: usize>() -> usize {
    WARPS * WARP_SIZE as usize * items_per_thread::<T, CHUNKS>()
}

/// The shared memory of [`consume_tile`] for tiles of `SLOTS` 16-byte chunks (threads ×
/// chunks per thread): one allocation of this per block.
#[repr(C, align(16))]
pub struct ScanShared<const SLOTS: usize> {
    /// The tile, in 16-byte chunks: each warp's share, swizzled (see [`slot`]).
    runs: [[u32; 4]; SLOTS],
    /// The warp totals of the block scan (as `T`).
    totals: [u64; MAX_WARPS],
    /// The tile's exclusive prefix from the look-back (as `T`).
    prefix: u64,
}

/// Where 16-byte chunk `c` of a warp's share (`CHUNKS` per lane) sits in shared memory: `c`
/// with its low three bits xor-ed by those of `c / CHUNKS` (the lane whose run holds it), so
/// that eight lanes storing consecutive chunks, and eight lanes reading the `q`-th chunk of
/// their own runs, each touch eight different 16-byte bank groups (for even `CHUNKS` up to 16).
#[inline(always)]
fn slot<const CHUNKS: usize>(c: usize) -> usize {
    c ^ ((c / CHUNKS) & 7)
}

/// Element `j` of a 16-byte chunk.
#[inline(always)]
pub(crate) fn item<T: ScanElement>(chunk: &[u32; 4], j: usize) -> T {
    if T::WIDE {
        T::from_bits(chunk[2 * j] as u64 | (chunk[2 * j + 1] as u64) << 32)
    } else {
        T::from_bits(chunk[j] as u64)
    }
}

#[inline(always)]
fn set_item<T: ScanElement>(chunk: &mut [u32; 4], j: usize, v: T) {
    let b = v.to_bits();
    if T::WIDE {
        (chunk[2 * j], chunk[2 * j + 1]) = (b as u32, (b >> 32) as u32);
    } else {
        chunk[j] = b as u32;
    }
}

/// Scans tile `blockIdx.x` (of `WARPS` warps × `CHUNKS` 16-byte chunks per thread) of
/// `input[..n]` into `output[..n]` under `O` (exclusive, or inclusive with `INCLUSIVE`), moving
/// the elements in as `LOAD` ([`tile_load`]) says. The launch may be the programmatic dependent
/// of the kernel that zeroes `states` ([`crate::device::lookback::prepare_states`]). `output` may be `input` (an in-place scan);
/// otherwise the two do not overlap. `forced_fallback` makes every look-back fall back at once
/// when it finds a predecessor silent, and odd tiles wait before publishing (for tests).
///
/// # Safety
/// `SLOTS == 32 · WARPS · CHUNKS`; the launch has `ceil(n / tile_items::<T, WARPS, CHUNKS>())`
/// blocks of `32 · WARPS` threads; `input` and `output` hold `n` elements; `states` is the
/// launch's tile states, statuses zeroed; `smem` points to a [`ScanShared`] in shared memory
/// used by nothing else; every thread calls this; with `BASED`, `base` holds `base_len`
/// elements.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn consume_tile<
    O: ScanOp,
    const INCLUSIVE: bool,
    const BASED: bool,
    const WARPS: usize,
    const CHUNKS: usize,
    const SLOTS: usize,
    const LOAD: u8,
>(
    states: TileStates<O::T>,
    smem: *mut ScanShared<SLOTS>,
    input: *const O::T,
    output: *mut O::T,
    n: usize,
    forced_fallback: bool,
    base: *const O::T,
    base_len: usize,
) {
    const { assert!(WARPS <= MAX_WARPS && SLOTS == WARPS * WARP_SIZE as usize * CHUNKS) };
    let per_chunk = 16 / core::mem::size_of::<O::T>();
    let per_thread = items_per_thread::<O::T, CHUNKS>() as u32;
    let tile_len = tile_items::<O::T, WARPS, CHUNKS>();
    let tile = block_idx_x() as usize;
    // Offsets inside the tile are 32-bit, and the tile's elements `tile_in[..valid]`.
    let tile_in = input.add(tile * tile_len);
    let tile_out = output.add(tile * tile_len);
    let valid = (n - tile * tile_len).min(tile_len) as u32;
    let tid = thread_idx_x();
    let (warp, lane) = (tid / WARP_SIZE, lane_id());
    let warp_first = warp * WARP_SIZE * per_thread;
    let first = warp_first + lane * per_thread;
    let warp_chunks = WARP_SIZE as usize * CHUNKS;
    let region = (addr_of_mut!((*smem).runs) as *mut [u32; 4]).add(warp as usize * warp_chunks);
    let mine = |q: usize| region.add(slot::<CHUNKS>(CHUNKS * lane as usize + q));
    let fast = valid as usize == tile_len && (input as usize | output as usize).is_multiple_of(16);
    let in_place = core::ptr::eq(input, output);

    // The warp's share goes to shared memory (coalesced, or element by element), and each
    // thread reads its own run back from there, one chunk at a time (so that few registers
    // hold the tile).
    if fast {
        let src = tile_in.add(warp_first as usize) as *const [u32; 4];
        if LOAD == tile_load::ASYNC && cfg!(feature = "sm90") {
            #[cfg(feature = "sm90")]
            {
                for k in 0..CHUNKS {
                    let c = WARP_SIZE as usize * k + lane as usize;
                    crate::arch::copy_async_16(region.add(slot::<CHUNKS>(c)), src.add(c));
                }
                crate::arch::copy_async_wait_all();
            }
        } else {
            let mut chunks = [[0u32; 4]; CHUNKS];
            for (k, c) in chunks.iter_mut().enumerate() {
                let p = src.add(WARP_SIZE as usize * k + lane as usize);
                *c = load_v4_u32(p);
            }
            for (k, &c) in chunks.iter().enumerate() {
                store_shared_v4(region.add(slot::<CHUNKS>(WARP_SIZE as usize * k + lane as usize)), c);
            }
        }
        sync_warp();
    } else {
        for q in 0..CHUNKS {
            let mut chunk = [0u32; 4];
            for j in 0..per_chunk {
                let i = first + (q * per_chunk + j) as u32;
                set_item(&mut chunk, j, if i < valid { *tile_in.add(i as usize) } else { O::IDENTITY });
            }
            store_shared_v4(mine(q), chunk);
        }
    }
    let mut total = O::IDENTITY;
    for q in 0..CHUNKS {
        let chunk = load_shared_v4(mine(q));
        for j in 0..per_chunk {
            // The run's first element starts the chain (no identity on its left: `x ⊕ id` is
            // `x` for every operator, but keep the order of evaluation the docs give).
            let x = item::<O::T>(&chunk, j);
            total = if q == 0 && j == 0 { x } else { O::combine(total, x) };
        }
    }
    let totals = addr_of_mut!((*smem).totals) as *mut O::T;
    let (thread_prefix, aggregate) = block_exclusive_scan::<O, WARPS>(totals, total);

    // Warp 0 publishes and looks back; lane 0 leaves the tile's prefix in shared memory (tile 0
    // too: nothing after the barrier may branch on the tile, or LLVM duplicates the barrier
    // onto two paths).
    let prefix_slot = addr_of_mut!((*smem).prefix) as *mut O::T;
    if warp == 0 {
        // The launch may be the programmatic dependent of the kernel that zeroes the states
        // (`prepare_states`): the tile is loaded and reduced meanwhile, the states wait for it.
        grid_dependency_wait();
        let mut before =
            publish_and_look_back::<O, WARPS, CHUNKS>(states, tile_in, tile, aggregate, in_place, forced_fallback);
        if lane == 0 {
            if BASED {
                before = O::combine(fold_base::<O>(base, base_len), before);
            }
            write_volatile(prefix_slot, before);
        }
    }
    sync_threads();
    let tile_prefix = load_shared(prefix_slot);

    let mut run = O::combine(tile_prefix, thread_prefix);
    for q in 0..CHUNKS {
        let mut chunk = load_shared_v4(mine(q));
        for j in 0..per_chunk {
            let x = item::<O::T>(&chunk, j);
            if INCLUSIVE {
                run = O::combine(run, x);
                set_item(&mut chunk, j, run);
            } else {
                set_item(&mut chunk, j, run);
                run = O::combine(run, x);
            }
        }
        if fast {
            store_shared_v4(mine(q), chunk);
        } else {
            for j in 0..per_chunk {
                let i = first + (q * per_chunk + j) as u32;
                if i < valid {
                    *tile_out.add(i as usize) = item(&chunk, j);
                }
            }
        }
    }
    if fast {
        sync_warp();
        let dst = tile_out.add(warp_first as usize) as *mut [u32; 4];
        for k in 0..CHUNKS {
            let c = WARP_SIZE as usize * k + lane as usize;
            store_v4_u32(dst.add(c), load_shared_v4(region.add(slot::<CHUNKS>(c))));
        }
    }
}

/// `base[0] ⊕ … ⊕ base[len - 1]`, left to right (the identity for `len == 0`): a few elements,
/// read once per block by one thread.
#[inline(always)]
unsafe fn fold_base<O: ScanOp>(base: *const O::T, len: usize) -> O::T {
    let mut acc = O::IDENTITY;
    let mut i = 0;
    while i < len {
        acc = O::combine(acc, *base.add(i));
        i += 1;
    }
    acc
}

/// Warp 0's part: publishes the tile's aggregate (its inclusive prefix for tile 0), looks back,
/// publishes the inclusive prefix and returns the exclusive one (on every lane).
#[inline(always)]
unsafe fn publish_and_look_back<O: ScanOp, const WARPS: usize, const CHUNKS: usize>(
    states: TileStates<O::T>,
    tile_in: *const O::T,
    tile: usize,
    aggregate: O::T,
    in_place: bool,
    forced_fallback: bool,
) -> O::T {
    let lane = lane_id();
    // In place, a look-back's fallback may read this tile's input: the first publication is
    // out before any output is stored (see `crate::device::lookback`).
    if tile == 0 {
        if lane == 0 {
            states.publish(0, STATUS_PREFIX, aggregate);
            if in_place {
                fence_gpu();
            }
        }
        return O::IDENTITY;
    }
    forced_stall(forced_fallback, tile);
    if lane == 0 {
        states.publish(tile, STATUS_AGGREGATE, aggregate);
        if in_place {
            fence_gpu();
        }
    }
    let reduce = |j| {
        let tile_len = tile_items::<O::T, WARPS, CHUNKS>();
        reduce_tile_by_warp::<O>(tile_in.sub((tile - j) * tile_len), tile_len)
    };
    let before = look_back::<O, LOOKBACK_WINDOW>(states, tile, fallback_after(forced_fallback), reduce);
    if lane == 0 {
        states.publish(tile, STATUS_PREFIX, O::combine(before, aggregate));
    }
    before
}

/// The aggregate of the (full) tile at `tile_in`, by the calling warp, for the look-back's
/// fallback: lane `31 - l` combines the `l`-th run of consecutive elements, then the lanes are
/// combined oldest first, so the order is the operator's. Cold, and written to stay small: the
/// loop (four loads per round) is kept from unrolling, so it adds few registers to the kernel.
#[inline(always)]
unsafe fn reduce_tile_by_warp<O: ScanOp>(tile_in: *const O::T, tile_len: usize) -> O::T {
    let per_lane = tile_len / WARP_SIZE as usize;
    let run = tile_in.add((WARP_SIZE as usize - 1 - lane_id() as usize) * per_lane);
    let mut acc = O::IDENTITY;
    let mut i = 0;
    while i < opaque(per_lane) {
        let four = [*run.add(i), *run.add(i + 1), *run.add(i + 2), *run.add(i + 3)];
        acc = O::combine(O::combine(acc, four[0]), O::combine(O::combine(four[1], four[2]), four[3]));
        // Convergent: keeps the optimizer from unrolling the loop.
        sync_warp();
        i += 4;
    }
    warp_reduce_high_first::<O>(acc)
}
