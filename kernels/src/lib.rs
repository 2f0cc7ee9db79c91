//! # warpwork-kernels: device-side building blocks
//!
//! A `#![no_std]` crate for rustc's `nvptx64-nvidia-cuda` target. It is two things:
//!
//! * a **device library** that your own Rust kernels can depend on, layered like CUB:
//!   [`arch`] (thread-level intrinsics written as inline PTX, nothing else), [`warp`] (warp-wide
//!   scans, reductions, searches and appends), [`block`] (block-wide algorithms over shared
//!   memory) and [`device`] (pieces of the general device-wide algorithms — scan, select,
//!   reduce, expand, partition — that coordinate blocks through global memory); each layer uses only
//!   the layers before it. The demonstration workloads (Game of Life, tiled lighting, particles)
//!   are crates of their own built on them, as yours would be (`demos/` in the repository);
//! * warpwork's own **exported kernels** ([`kernels`], behind the `kernels` feature, or one
//!   family's behind its own feature), which the host crate's `build.rs` compiles to PTX and
//!   cubins, one module per family.
//!
//! What the kernels share with the host — the `#[repr(C)]` types, the codes they switch on, their
//! block shapes and names, and the pure functions both sides compute — is defined once in the
//! `warpwork-abi` crate ([`abi`]) and re-exported where the device API uses it.
//!
//! Build with nightly features enabled (`RUSTC_BOOTSTRAP=1` on the pinned stable toolchain), for
//! `-C target-cpu=sm_70` or newer: `vote.sync` and `shfl.sync` need sm_70.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![allow(clippy::missing_safety_doc)]
// Kernels index small per-thread arrays with loop counters on purpose: with constant trip counts
// the loops unroll and the arrays live in registers.
#![allow(clippy::needless_range_loop)]

/// The definitions shared with the host (`warpwork-abi`).
pub use warpwork_abi as abi;

pub mod arch;
pub mod block;
pub mod device;
pub mod warp;

#[cfg(feature = "export")]
pub mod kernels;

/// Kernels cannot unwind or print: a panic traps, which the host sees as a launch failure
/// (`CUDA_ERROR_LAUNCH_FAILED`). warpwork's kernels are written not to panic (no bounds-checked
/// indexing on hot paths); this handler only exists because `no_std` requires one.
#[cfg(feature = "export")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
