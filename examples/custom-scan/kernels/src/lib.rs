//! A scan that warpwork's host API does not offer — a type and an operator of the user's own —
//! written from warpwork-kernels' building blocks: `arch::shfl_idx_any` moves any 4-byte-multiple
//! value between lanes, `static_shared!` gives the block its shared array, `lane_id`, `warp_id`
//! and `sync_threads` the rest.
//!
//! The type is an affine map `x ↦ a·x + b` on `u32` (wrapping, so exact), and the operator is
//! composition, `f.then(g) = g ∘ f`: associative but **not commutative**, so a scan that combined
//! in the wrong order would be caught. Scanning a list of maps gives, at each position, the map
//! that applies all of them up to there: the solution of a linear recurrence
//! `x[i] = a[i]·x[i−1] + b[i]` for every starting value at once.
//!
//! [`affine_scan_segments`] scans each segment of [`SEGMENT`] maps independently (one block
//! per segment): warp scans by shuffles, then a block scan over the warps' totals in shared memory.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![allow(clippy::missing_safety_doc)]
#![allow(clippy::needless_range_loop)]

use core::ptr::{read_volatile, write_volatile};
use warpwork_kernels::arch::{block_idx_x, lane_id, shfl_idx_any, sync_threads, thread_idx_x, warp_id};
use warpwork_kernels::static_shared;

/// `x ↦ a·x + b (mod 2^32)`. Same layout as the host's.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Affine {
    pub a: u32,
    pub b: u32,
}

impl Affine {
    /// `x ↦ x`.
    pub const IDENTITY: Affine = Affine { a: 1, b: 0 };

    /// `self`, then `next`: `x ↦ next.a·(self.a·x + self.b) + next.b`.
    #[inline(always)]
    pub fn then(self, next: Affine) -> Affine {
        Affine { a: next.a.wrapping_mul(self.a), b: next.a.wrapping_mul(self.b).wrapping_add(next.b) }
    }
}

/// Threads per block.
pub const THREADS: usize = 256;
/// Maps per thread (consecutive).
pub const ITEMS: usize = 4;
/// Maps per segment: one block's.
pub const SEGMENT: usize = THREADS * ITEMS;
/// Warps per block.
pub const WARPS: usize = THREADS / 32;

/// Inclusive scan over the lanes of the warp in lane order (Kogge–Stone: five rounds of
/// shuffles). Every lane of the warp must call it.
#[inline(always)]
fn warp_inclusive(v: Affine) -> Affine {
    let lane = lane_id();
    let mut acc = v;
    let mut d = 1;
    while d < 32 {
        // Every lane shuffles (the mask is the full warp); lanes below `d` ignore the value.
        let earlier = shfl_idx_any(acc, lane.wrapping_sub(d) & 31);
        if lane >= d {
            acc = earlier.then(acc);
        }
        d *= 2;
    }
    acc
}

/// `out[i]` = the composition of `input[s..=i]`, where `s` is the start of `i`'s segment of
/// [`SEGMENT`] maps. Launch `ceil(n / SEGMENT)` blocks of [`THREADS`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn affine_scan_segments(input: *const Affine, out: *mut Affine, n: u32) {
    let warp_totals: *mut Affine = static_shared!(AFFINE_WARP_TOTALS: [crate::Affine; crate::WARPS]);
    let first = block_idx_x() as usize * SEGMENT + thread_idx_x() as usize * ITEMS;
    let n = n as usize;
    // The thread's maps, composed in order (missing ones past `n` are the identity).
    let mut x = [Affine::IDENTITY; ITEMS];
    for i in 0..ITEMS {
        if first + i < n {
            x[i] = *input.add(first + i);
        }
    }
    for i in 1..ITEMS {
        x[i] = x[i - 1].then(x[i]);
    }
    // The lanes before this one, then the warps before this one.
    let inclusive = warp_inclusive(x[ITEMS - 1]);
    let lane = lane_id();
    let lanes_before = shfl_idx_any(inclusive, lane.wrapping_sub(1) & 31);
    let lanes_before = if lane == 0 { Affine::IDENTITY } else { lanes_before };
    if lane == 31 {
        write_volatile(warp_totals.add(warp_id() as usize), inclusive);
    }
    sync_threads();
    let mut before = Affine::IDENTITY;
    for w in 0..warp_id() as usize {
        before = before.then(read_volatile(warp_totals.add(w)));
    }
    let before = before.then(lanes_before);
    for i in 0..ITEMS {
        if first + i < n {
            *out.add(first + i) = before.then(x[i]);
        }
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
