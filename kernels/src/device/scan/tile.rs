//! One tile of a device-wide single-pass scan under any [`ScanOp`]: block `b` scans tile `b` of
//! [`TILE_THREADS`] threads × 64 bytes (16 four-byte or 8 eight-byte elements per thread) and
//! learns the combination of every earlier tile from the decoupled look-back
//! ([`crate::device::lookback`]).
//!
//! Memory traffic is one coalesced read and one coalesced write of the tile: a warp loads its
//! 2 KiB with 16-byte loads in which the 32 lanes cover 512 consecutive bytes, and stores its
//! share of the shared-memory tile (swizzled, so neither direction has bank conflicts), from
//! which each thread reads back its own 64 consecutive bytes; the results go out the same way in
//! reverse. Between the two, the elements wait in shared memory, not in registers, so a block
//! waiting for its look-back holds few registers. The last tile, and buffers that are not 16-byte
//! aligned, take a per-element path instead.
//!
//! Order of evaluation (what a float sum's rounding follows; see `docs/scan.md`): each thread
//! combines its own elements one after the other; the block combines the thread totals with a
//! warp scan (Kogge-Stone) and the warp totals in warp order; the look-back combines tile values
//! as [`crate::device::lookback::look_back`] describes; a thread's outputs are then
//! `((tile prefix ⊕ thread prefix) ⊕ x₀) ⊕ x₁ …`.

use super::{STATUS_AGGREGATE, STATUS_PREFIX};
use crate::arch::{
    block_idx_x, fence_gpu, global_timer_ns, lane_id, load_shared, load_shared_v4, load_v4_u32, store_shared_v4,
    store_v4_u32, sync_threads, sync_warp, thread_idx_x, WARP_SIZE,
};
use crate::block::{block_exclusive_scan, warp_reduce_high_first, ScanElement, ScanOp};
use crate::device::lookback::{look_back, TileStates, FALLBACK_POLLS};
use core::ptr::{addr_of_mut, write_volatile};

/// Threads per block of a scan tile.
pub const TILE_THREADS: usize = 512;
const WARPS: usize = TILE_THREADS / WARP_SIZE as usize;
/// 32-bit words each thread owns: 64 bytes, four 16-byte chunks.
const RUN_WORDS: usize = 16;
const CHUNKS: usize = RUN_WORDS / 4;
const WARP_CHUNKS: usize = WARP_SIZE as usize * CHUNKS;
/// Predecessors each lane polls per look-back round (128 per round for the warp).
pub const LOOKBACK_WINDOW: usize = 1;
/// How long, in forced-fallback launches, odd tiles wait before publishing: long enough that
/// their successors find them silent.
const FORCED_STALL_NS: u64 = 20_000;

/// Elements of `T` per thread: 16 four-byte or 8 eight-byte ones.
pub const fn items_per_thread<T>() -> usize {
    RUN_WORDS * 4 / core::mem::size_of::<T>()
}

/// Elements of `T` per tile.
pub const fn tile_items<T>() -> usize {
    TILE_THREADS * items_per_thread::<T>()
}

/// The shared memory of [`consume_tile`]: one allocation of this per block.
#[repr(C, align(16))]
pub struct ScanShared {
    /// The tile, in 16-byte chunks: each warp's 2 KiB, swizzled (see [`slot`]).
    runs: [[u32; 4]; TILE_THREADS * CHUNKS],
    /// The warp totals of the block scan (as `T`).
    totals: [u64; WARPS],
    /// The tile's exclusive prefix from the look-back (as `T`).
    prefix: u64,
}

/// Where 16-byte chunk `c` of a warp's share sits in shared memory: `c` with its low three bits
/// xor-ed by the next three, so that eight lanes storing consecutive chunks, and eight lanes
/// reading the first (or second…) chunk of their own runs, each touch eight different 16-byte
/// bank groups.
#[inline(always)]
fn slot(c: usize) -> usize {
    c ^ ((c >> 3) & 7)
}

#[inline(always)]
fn item<T: ScanElement>(words: &[u32; RUN_WORDS], j: usize) -> T {
    if T::WIDE {
        T::from_bits(words[2 * j] as u64 | (words[2 * j + 1] as u64) << 32)
    } else {
        T::from_bits(words[j] as u64)
    }
}

#[inline(always)]
fn set_item<T: ScanElement>(words: &mut [u32; RUN_WORDS], j: usize, v: T) {
    let b = v.to_bits();
    if T::WIDE {
        (words[2 * j], words[2 * j + 1]) = (b as u32, (b >> 32) as u32);
    } else {
        words[j] = b as u32;
    }
}

/// Scans tile `blockIdx.x` of `input[..n]` into `output[..n]` under `O` (exclusive, or
/// inclusive with `INCLUSIVE`). `output` may be `input` (an in-place scan); otherwise the two do
/// not overlap. `forced_fallback` makes every look-back fall back at once when it finds a
/// predecessor silent, and odd tiles wait before publishing (for tests).
///
/// # Safety
/// The launch has `ceil(n / tile_items::<T>())` blocks of [`TILE_THREADS`] threads; `input`
/// and `output` hold `n` elements; `states` is the launch's tile states, statuses zeroed;
/// `smem` points to a [`ScanShared`] in shared memory used by nothing else; every thread calls
/// this.
#[inline(always)]
pub unsafe fn consume_tile<O: ScanOp, const INCLUSIVE: bool>(
    states: TileStates<O::T>,
    smem: *mut ScanShared,
    input: *const O::T,
    output: *mut O::T,
    n: usize,
    forced_fallback: bool,
) {
    let tile = block_idx_x() as usize;
    let per_thread = items_per_thread::<O::T>() as u32;
    // Offsets inside the tile are 32-bit, and the tile's elements `tile_in[..valid]`.
    let tile_in = input.add(tile * tile_items::<O::T>());
    let tile_out = output.add(tile * tile_items::<O::T>());
    let valid = (n - tile * tile_items::<O::T>()).min(tile_items::<O::T>()) as u32;
    let tid = thread_idx_x();
    let (warp, lane) = (tid / WARP_SIZE, lane_id());
    let warp_first = warp * WARP_SIZE * per_thread;
    let first = warp_first + lane * per_thread;
    let region = (addr_of_mut!((*smem).runs) as *mut [u32; 4]).add(warp as usize * WARP_CHUNKS);
    let mine = |q: usize| region.add(slot(CHUNKS * lane as usize + q));
    let fast = valid as usize == tile_items::<O::T>() && (input as usize | output as usize).is_multiple_of(16);
    let in_place = core::ptr::eq(input, output);

    // The thread's run goes to shared memory (coalesced, or element by element), and comes
    // back from there.
    let mut words = [0u32; RUN_WORDS];
    if fast {
        let src = tile_in.add(warp_first as usize) as *const [u32; 4];
        let mut chunks = [[0u32; 4]; CHUNKS];
        for (k, c) in chunks.iter_mut().enumerate() {
            *c = load_v4_u32(src.add(WARP_SIZE as usize * k + lane as usize));
        }
        for (k, &c) in chunks.iter().enumerate() {
            store_shared_v4(region.add(slot(WARP_SIZE as usize * k + lane as usize)), c);
        }
        sync_warp();
    } else {
        for j in 0..per_thread {
            let x = if first + j < valid { *tile_in.add((first + j) as usize) } else { O::IDENTITY };
            set_item(&mut words, j as usize, x);
        }
        for q in 0..CHUNKS {
            store_shared_v4(mine(q), [words[4 * q], words[4 * q + 1], words[4 * q + 2], words[4 * q + 3]]);
        }
    }
    for q in 0..CHUNKS {
        let c = load_shared_v4(mine(q));
        words[4 * q..4 * q + 4].copy_from_slice(&c);
    }
    let mut total = item::<O::T>(&words, 0);
    for j in 1..per_thread as usize {
        total = O::combine(total, item(&words, j));
    }
    let totals = addr_of_mut!((*smem).totals) as *mut O::T;
    let (thread_prefix, aggregate) = block_exclusive_scan::<O, WARPS>(totals, total);

    // Warp 0 publishes and looks back; lane 0 leaves the tile's prefix in shared memory (tile 0
    // too: nothing after the barrier may branch on the tile, or LLVM duplicates the barrier
    // onto two paths).
    let prefix_slot = addr_of_mut!((*smem).prefix) as *mut O::T;
    if warp == 0 {
        let before = publish_and_look_back::<O>(states, tile_in, tile, aggregate, in_place, forced_fallback);
        if lane == 0 {
            write_volatile(prefix_slot, before);
        }
    }
    sync_threads();
    let tile_prefix = load_shared(prefix_slot);

    for q in 0..CHUNKS {
        let c = load_shared_v4(mine(q));
        words[4 * q..4 * q + 4].copy_from_slice(&c);
    }
    let mut run = O::combine(tile_prefix, thread_prefix);
    for j in 0..per_thread as usize {
        let x = item::<O::T>(&words, j);
        if INCLUSIVE {
            run = O::combine(run, x);
            set_item(&mut words, j, run);
        } else {
            set_item(&mut words, j, run);
            run = O::combine(run, x);
        }
    }
    if fast {
        for q in 0..CHUNKS {
            store_shared_v4(mine(q), [words[4 * q], words[4 * q + 1], words[4 * q + 2], words[4 * q + 3]]);
        }
        sync_warp();
        let dst = tile_out.add(warp_first as usize) as *mut [u32; 4];
        for k in 0..CHUNKS {
            let c = WARP_SIZE as usize * k + lane as usize;
            store_v4_u32(dst.add(c), load_shared_v4(region.add(slot(c))));
        }
    } else {
        for j in 0..per_thread {
            if first + j < valid {
                *tile_out.add((first + j) as usize) = item(&words, j as usize);
            }
        }
    }
}

/// Warp 0's part: publishes the tile's aggregate (its inclusive prefix for tile 0), looks back,
/// publishes the inclusive prefix and returns the exclusive one (on every lane).
#[inline(always)]
unsafe fn publish_and_look_back<O: ScanOp>(
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
    if forced_fallback && tile % 2 == 1 {
        let t0 = global_timer_ns();
        while global_timer_ns() - t0 < FORCED_STALL_NS {}
    }
    if lane == 0 {
        states.publish(tile, STATUS_AGGREGATE, aggregate);
        if in_place {
            fence_gpu();
        }
    }
    let fallback_after = if forced_fallback { 0 } else { FALLBACK_POLLS };
    let before = look_back::<O, LOOKBACK_WINDOW>(states, tile, fallback_after, |j| {
        reduce_tile_by_warp::<O>(tile_in.sub((tile - j) * tile_items::<O::T>()))
    });
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
unsafe fn reduce_tile_by_warp<O: ScanOp>(tile_in: *const O::T) -> O::T {
    let per_lane = tile_items::<O::T>() / WARP_SIZE as usize;
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

/// `x`, through a register move the optimizer cannot see through.
#[inline(always)]
fn opaque(x: usize) -> usize {
    let y: usize;
    // SAFETY: a register move.
    unsafe { core::arch::asm!("mov.u64 {y}, {x};", x = in(reg64) x, y = out(reg64) y, options(pure, nomem, nostack)) };
    y
}
