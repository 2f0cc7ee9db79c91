//! The decoupled look-back (Merrill & Garland) with a decoupled fallback (Smith, Levien &
//! Owens): how a block learns the combination of everything before its tile without waiting for
//! the blocks before it to finish, and without ever hanging.
//!
//! **Tile states.** Each tile publishes its *aggregate* (the combination of its own elements)
//! as soon as it has it, then its *inclusive prefix* (everything up to and including it) once
//! its look-back is done. [`TileStates`] holds one state per tile, in one of two layouts
//! ([`TileLayout`], chosen by the element type's [`ScanElement::TILE_LAYOUT`]):
//! * [`TileLayout::Packed32`] (4-byte elements): one 64-bit word per tile, status in the high
//!   half and value in the low half, written and read with one single-copy-atomic access (a poll
//!   is one load; no ordering between a flag and a value is needed);
//! * [`TileLayout::Pair`] (8-byte elements): two 64-bit words per tile (16 bytes,
//!   aligned), each with the status in its high half and one half of the value in its low half,
//!   written with one 16-byte relaxed store and read with one 16-byte relaxed load. Each word is
//!   single-copy atomic, the pair is not: a poll that finds two different statuses (a
//!   publication seen half done) loads the pair again.
//!
//! The statuses are [`STATUS_INVALID`] = 0, [`STATUS_AGGREGATE`](super::scan::STATUS_AGGREGATE)
//! = 1 and [`STATUS_PREFIX`] = 2.
//!
//! **The look-back** ([`look_back`], one warp): each round polls a window of `32 · W`
//! predecessors at once (lane `l`, slot `q`: the tile `W·l + q` before the window's newest), and
//! is done when every tile nearer than the nearest published inclusive prefix has published at
//! least its aggregate; it then combines those (newest-first layout, order kept) and stops at the
//! prefix, or goes on to the next window. Between polls it sleeps [`SPIN_NS`] (`nanosleep`, sm_90
//! builds; older modules re-poll at once), so polling warps leave the L2 to the loads they wait
//! for.
//!
//! **Never hangs.** Tiles are block indices: a block waits only on tiles of lower index, which
//! the hardware starts first. Should one of them still be silent after a number of polls
//! (`fallback_after`, [`FALLBACK_POLLS`] in normal launches), the waiting warp computes that
//! tile's aggregate itself from the tile's input (`reduce_silent`), so no wait depends on the
//! order blocks are scheduled in. The value is used locally, never published. After reducing,
//! the warp fences and polls the tile once more and prefers a state published meanwhile: with
//! the publishing block fencing between its first publication and its first store of output,
//! this keeps the fallback right for in-place scans (if the reduction had read overwritten
//! input, the re-poll sees the publication).
//!
//! The state needs no atomics and no tile counter; the status words (all
//! `warpwork_abi::scan::tile_state_words`: every word holds a status) are zeroed before every
//! launch, by [`prepare_states`] in a kernel of its own or by the host.
//!
//! **Forcing the fallback** (tests): a launch with `forced_fallback` set looks back with
//! [`fallback_after`]`(true) = 0` (fall back at the first poll that finds a needed predecessor
//! silent) and makes odd tiles wait [`FORCED_STALL_NS`] before publishing ([`forced_stall`]), so
//! that their successors do find them silent. The scans use these.

use super::scan::{STATUS_INVALID, STATUS_PREFIX};
use crate::arch::{
    ballot, block_dim_x, block_idx_x, fence_gpu, global_timer_ns, grid_dim_x, grid_launch_dependents, lane_id,
    load_relaxed_u64, load_relaxed_v2_u64, nanosleep, store_relaxed_u64, store_relaxed_v2_u64, store_v4_u32,
    thread_idx_x, WARP_SIZE,
};
use crate::block::{warp_reduce_high_first, ScanElement, ScanOp, TileLayout};
use core::marker::PhantomData;

/// How long a look-back sleeps between polls of predecessors that have not published, in
/// nanoseconds (sm_90 builds).
pub const SPIN_NS: u32 = 100;
/// Polls of a silent predecessor before the look-back computes its aggregate itself (hundreds
/// of microseconds: a running block publishes within a few).
pub const FALLBACK_POLLS: u32 = 512;
/// How long, in forced-fallback launches, odd tiles wait before publishing: long enough that
/// their successors find them silent.
pub const FORCED_STALL_NS: u64 = 20_000;
/// A slot whose aggregate the fallback computed (its value is in registers, not in memory).
const STATUS_LOCAL: u32 = 5;
/// No slot of the window (a distance larger than any).
const NONE: u32 = u32::MAX;

/// The polls of a silent predecessor before falling back: [`FALLBACK_POLLS`], or 0 in a launch
/// that forces the fallback (tests).
#[inline(always)]
pub fn fallback_after(forced_fallback: bool) -> u32 {
    if forced_fallback {
        0
    } else {
        FALLBACK_POLLS
    }
}

/// In a launch that forces the fallback, odd tiles wait [`FORCED_STALL_NS`] here, before they
/// publish anything (tests); otherwise nothing.
#[inline(always)]
pub fn forced_stall(forced_fallback: bool, tile: usize) {
    if forced_fallback && tile % 2 == 1 {
        let t0 = global_timer_ns();
        while global_timer_ns() - t0 < FORCED_STALL_NS {}
    }
}

/// Zeroes the `words` 32-bit words of a launch's tile states at `states` (16-byte aligned), in a
/// grid-stride loop over any grid, and lets the launch after it start at once: a scan or select
/// launched as this grid's programmatic dependent loads its tile meanwhile and waits for this
/// grid (`grid_dependency_wait`) before it touches the states.
///
/// # Safety
/// `states` holds `words` words; nothing else touches them during the launch.
#[inline(always)]
pub unsafe fn prepare_states(states: *mut u32, words: usize) {
    grid_launch_dependents();
    let threads = grid_dim_x() as usize * block_dim_x() as usize;
    let first = block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize;
    let mut i = first;
    while i < words / 4 {
        store_v4_u32((states as *mut [u32; 4]).add(i), [0; 4]);
        i += threads;
    }
    if first < words % 4 {
        *states.add(words / 4 * 4 + first) = 0;
    }
}

/// The published states of the tiles of one launch, in the layout for `T` (see the module
/// docs), in `warpwork_abi::scan::tile_state_words` 32-bit words at a 16-byte aligned `base` (8-byte aligned suffices
/// for 4-byte elements).
pub struct TileStates<T> {
    base: *mut u32,
    _element: PhantomData<T>,
}

impl<T> Clone for TileStates<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for TileStates<T> {}

impl<T> TileStates<T> {
    /// The states at `base`, in a constant (a placeholder that is never published nor polled
    /// may be null).
    ///
    /// # Safety
    /// As [`TileStates::new`], before the states are used.
    #[inline(always)]
    pub const unsafe fn from_raw(base: *mut u32) -> Self {
        TileStates { base, _element: PhantomData }
    }
}

impl<T: ScanElement> TileStates<T> {
    /// The states at `base`.
    ///
    /// # Safety
    /// `base` is global memory of `warpwork_abi::scan::tile_state_words` words, 8-byte aligned (16-byte
    /// aligned for 8-byte elements), zeroed before the launch.
    #[inline(always)]
    pub unsafe fn new(base: *mut u32) -> Self {
        TileStates { base, _element: PhantomData }
    }

    /// Publishes tile `tile`'s aggregate ([`STATUS_AGGREGATE`](super::scan::STATUS_AGGREGATE))
    /// or inclusive prefix ([`STATUS_PREFIX`]). One thread calls this per publication; publish
    /// the aggregate (if at all) before the prefix.
    ///
    /// # Safety
    /// `tile < tiles`.
    #[inline(always)]
    pub unsafe fn publish(self, tile: usize, status: u32, v: T) {
        let word = (self.base as *mut u64).add(tile);
        let b = v.to_bits();
        match T::TILE_LAYOUT {
            TileLayout::Pair => {
                let s = (status as u64) << 32;
                store_relaxed_v2_u64((self.base as *mut [u64; 2]).add(tile), [s | (b & 0xffff_ffff), s | b >> 32]);
            }
            TileLayout::Packed32 => store_relaxed_u64(word, (status as u64) << 32 | b),
        }
    }

    /// Tile `j`'s status and value, with one relaxed load (the pair layout: one 16-byte load,
    /// repeated while its two halves carry different statuses — a publication seen half done,
    /// which completes).
    #[inline(always)]
    pub unsafe fn poll(self, j: u32) -> (u32, T) {
        let word = (self.base as *const u64).add(j as usize);
        match T::TILE_LAYOUT {
            TileLayout::Pair => loop {
                let [lo, hi] = load_relaxed_v2_u64((self.base as *const [u64; 2]).add(j as usize));
                if lo >> 32 == hi >> 32 {
                    return ((lo >> 32) as u32, T::from_bits((lo & 0xffff_ffff) | hi << 32));
                }
            },
            TileLayout::Packed32 => {
                let w = load_relaxed_u64(word);
                ((w >> 32) as u32, T::from_bits(w))
            }
        }
    }
}

/// The combination of every tile before `tile` (`0 < tile < tiles`), computed by the calling
/// warp from the published states, `32 · W` predecessors per round (see the module docs); the
/// same value on every lane. The caller publishes `tile`'s aggregate before and its inclusive
/// prefix after.
///
/// `reduce_silent(j)` is called by the whole warp (with the same `j` on every lane) for a
/// predecessor that stayed silent for `fallback_after` polls, and returns tile `j`'s aggregate on
/// every lane; `fallback_after = 0` falls back at the first poll that finds a needed predecessor
/// silent (tests use it to force the fallback).
///
/// # Safety
/// `states` is the launch's tile states; every lane of one warp calls this, once per tile.
#[inline(always)]
pub unsafe fn look_back<O: ScanOp, const W: usize>(
    states: TileStates<O::T>,
    tile: usize,
    fallback_after: u32,
    reduce_silent: impl Fn(usize) -> O::T,
) -> O::T {
    let lane = lane_id();
    // Everything newer than the current window, combined (older operands on the left).
    let mut acc = O::IDENTITY;
    // The newest tile of the window: slot `q` of lane `l` is the tile at distance `W·l + q`
    // (tile indices fit in 31 bits: the grid's limit).
    let mut end = tile as i32 - 1;
    loop {
        let tile_at = |q: usize| end - distance::<W>(lane, q) as i32;
        // Before tile 0 counts as a published prefix of nothing (tile 0 publishes its prefix
        // without a look-back, so the walk never passes it).
        let mut status = [STATUS_PREFIX; W];
        let mut value = [O::IDENTITY; W];
        for q in 0..W {
            if tile_at(q) >= 0 {
                (status[q], value[q]) = states.poll(tile_at(q) as u32);
            }
        }
        let mut polls = 0u32;
        let stop = loop {
            let stop = nearest::<W>(&status, |s| s == STATUS_PREFIX);
            let silent = nearest::<W>(&status, |s| s == STATUS_INVALID);
            if silent == NONE || silent > stop {
                break stop;
            }
            if polls >= fallback_after {
                fall_back::<O, W>(states, end, stop, &mut status, &mut value, &reduce_silent);
                continue;
            }
            nanosleep(SPIN_NS);
            polls += 1;
            for q in 0..W {
                if status[q] == STATUS_INVALID {
                    (status[q], value[q]) = states.poll(tile_at(q) as u32);
                }
            }
        };
        // This lane's slots up to the stop, oldest first; then the lanes, oldest (31) first.
        let mut part = O::IDENTITY;
        for q in (0..W).rev() {
            if distance::<W>(lane, q) <= stop {
                part = O::combine(part, value[q]);
            }
        }
        acc = O::combine(warp_reduce_high_first::<O>(part), acc);
        if stop != NONE {
            return acc;
        }
        end -= (WARP_SIZE as usize * W) as i32;
    }
}

/// How far before the window's newest tile slot `q` of lane `lane` is: `W·lane + q`.
#[inline(always)]
fn distance<const W: usize>(lane: u32, q: usize) -> u32 {
    W as u32 * lane + q as u32
}

/// The smallest distance `W·l + q` over the slots whose status satisfies `f` ([`NONE`] if
/// none); warp-uniform.
#[inline(always)]
fn nearest<const W: usize>(status: &[u32; W], f: impl Fn(u32) -> bool) -> u32 {
    let mut best = NONE;
    for (q, &s) in status.iter().enumerate() {
        let lanes = ballot(f(s));
        if lanes != 0 {
            best = best.min(distance::<W>(lanes.trailing_zeros(), q));
        }
    }
    best
}

/// The decoupled fallback: computes the aggregate of every silent slot nearer than `stop`
/// (the window's newest tile is `end`) with `reduce_silent`, then polls that tile once more and
/// keeps a state published meanwhile. Warp-uniform. (Inlined: out of line, the slot arrays would
/// go through the stack; keep `reduce_silent` itself out of line, it is the cold bulk.)
#[inline(always)]
unsafe fn fall_back<O: ScanOp, const W: usize>(
    states: TileStates<O::T>,
    end: i32,
    stop: u32,
    status: &mut [u32; W],
    value: &mut [O::T; W],
    reduce_silent: &impl Fn(usize) -> O::T,
) {
    let lane = lane_id();
    for q in 0..W {
        let mut silent = ballot(status[q] == STATUS_INVALID && distance::<W>(lane, q) < stop);
        while silent != 0 {
            let l = silent.trailing_zeros();
            silent &= silent - 1;
            let j = (end - distance::<W>(l, q) as i32) as u32;
            let v = reduce_silent(j as usize);
            // The reduction's loads come before the second poll.
            fence_gpu();
            if lane == l {
                let (s, published) = states.poll(j);
                (status[q], value[q]) = if s == STATUS_INVALID { (STATUS_LOCAL, v) } else { (s, published) };
            }
        }
    }
}
