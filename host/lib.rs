//! # warpwork
//!
//! GPU work-distribution primitives for NVIDIA GPUs, with the kernels written in Rust
//! (`kernels/`, compiled to PTX) and launched through [cudarc](https://docs.rs/cudarc).
//!
//! Open a device with [`Gpu::new`], move data with [`Gpu::upload`] / [`Gpu::download`], and call
//! the primitives on [`DeviceBuffer`]s:
//!
//! * [`select`]: stream compaction (`select_flagged`, `select_if`) with warp ballot + popc.
//! * [`scan`]: device-wide scans (`scan`, `scan_into`, `scan_in_place`): exclusive and inclusive,
//!   sum / min / max, for u32, i32, u64, i64, f32 and f64, single pass.
//! * [`expand`]: work expansion (`expand`, `expand_with`, [`expand::Expander`]), every strategy.
//! * [`access`]: memory access patterns: warp broadcast loads (`shade_tiles`) and thread-wise vs
//!   group-wise list partitioning (`update_particles`).
//! * [`life`]: Conway's Game of Life on a torus, from brute force to bit-packed temporal blocking.
//!
//! The driver is loaded at run time: without one, [`Gpu::new`] returns [`Error::NoDriver`];
//! nothing panics. Every primitive has a CPU twin in the `warpwork-cpu-reference` crate with the
//! same contract, which the tests check the GPU against.

pub mod access;
mod driver;
mod error;
pub mod expand;
mod gpu;
mod launch;
pub mod life;
pub mod memory;
pub mod scan;
pub mod select;
pub mod timing;

pub use cudarc;
pub use error::{Error, Result};
pub use gpu::{DeviceInfo, Gpu};
pub use launch::KernelArgs;
pub use memory::{DeviceRead, DeviceWrite, RawSlice, RawSliceMut};

/// The README's examples, compiled as doctests so they stay true to the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
