//! # warpwork-access-kernels: memory access patterns on the GPU
//!
//! The kernels of the `warpwork-access` demo, written as a user's kernel crate is written: on the
//! device building blocks of `warpwork-kernels`, compiled to PTX for `nvptx64-nvidia-cuda` (see
//! `../README.md`). Two studies, each a workload around one building block:
//!
//! * [`lighting`]: tiled deferred lighting, where the two warps of a block walk the same
//!   (warp-uniform) light list: every lane loading every light, one load per 32 lights spread
//!   by shuffles (`warp::warp_for_each_broadcast`), or staged through shared memory
//!   (`warp::warp_for_each_staged`);
//! * [`particles`]: a memory-bound particle update with the list split between threads
//!   thread-wise, group-wise or grid-stride (`device::partition`).
//!
//! The layouts, block shapes, per-light and per-particle bodies and kernel names are [`abi`]'s,
//! which the host crate compiles too (and unit-tests on the CPU). The entry points are in
//! `kernels.rs`.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![allow(clippy::missing_safety_doc)]
// Kernels index small per-thread arrays with loop counters on purpose: with constant trip counts
// the loops unroll and the arrays live in registers.
#![allow(clippy::needless_range_loop)]

pub mod abi;
mod kernels;
pub mod lighting;
pub mod particles;

/// Kernels cannot unwind or print: a panic traps, which the host sees as a launch failure. The
/// kernels are written not to panic; `no_std` requires a handler all the same.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
