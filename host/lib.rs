//! # warpwork
//!
//! GPU work-distribution primitives for NVIDIA GPUs, with the kernels written in Rust
//! (`kernels/`, compiled to PTX) and launched through [cudarc](https://docs.rs/cudarc).
//!
//! Open a device with [`Gpu::new`], move data with [`Gpu::upload`] / [`Gpu::download`], and call
//! the primitives on [`DeviceBuffer`]s:
//!
//! * [`select`]: keep the items that pass a test (`select_flagged`, `select_if`) with warp ballot + popc.
//! * [`scan`]: device-wide exclusive prefix sum (`exclusive_scan`, u32 and u64), single pass.
//! * [`expand`]: work expansion (`expand`, `expand_with`, [`expand::Expander`]), every strategy.
//! * [`access`]: memory access patterns: warp broadcast loads (`shade_tiles`) and thread-wise vs
//!   group-wise list partitioning (`update_particles`).
//! * [`life`]: Conway's Game of Life on a torus, from brute force to bit-packed temporal blocking.
//!
//! The driver is loaded at run time: without one, [`Gpu::new`] returns [`Error::NoDriver`];
//! nothing panics. Building needs nothing but Rust: the kernels come as PTX shipped with the crate.
//!
//! cudarc (any 0.19 from 0.19.10) needs exactly one CUDA version feature. warpwork enables
//! `cuda-12080` by default; its features `cuda-11080` … `cuda-13040` pick another, and
//! `default-features = false` leaves the choice to your own cudarc dependency. The feature does
//! not limit the driver: drivers of CUDA 11.8 through 13.x work. Every primitive has a CPU twin in the `warpwork-cpu-reference` crate with the
//! same contract, which the tests check the GPU against.

mod demo;
mod driver;
mod error;
pub mod expand;
mod gpu;
mod launch;
pub mod memory;
pub mod scan;
pub mod select;
pub mod timing;

pub use cudarc;
pub use demo::{access, life};
pub use error::{Error, Result};
pub use gpu::{DeviceInfo, Gpu};
pub use launch::KernelArgs;
pub use memory::{DeviceRead, DeviceWrite, RawSlice, RawSliceMut};
/// The layouts, codes, tuning constants and kernel names the kernels share with this library
/// (the `warpwork-abi` crate), for your own launches of warpwork's kernels and your own kernels
/// built on `warpwork-kernels`.
pub use warpwork_abi as abi;

/// The README's examples, compiled as doctests so they stay true to the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
