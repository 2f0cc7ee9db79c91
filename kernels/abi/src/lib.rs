//! # warpwork-abi: what the host and the kernels share, defined once
//!
//! warpwork's kernels (the `warpwork-kernels` crate, compiled to PTX) and its host library
//! (`warpwork`, launching them through cudarc) meet at a boundary of raw launches: a kernel
//! receives pointers and scalars, and nothing checks that both sides agree on a struct's layout,
//! an op code, a block size or a kernel's name. This crate is that boundary, written once and
//! used by both (as CUB's tuning policies are read by both its dispatch and its agents):
//!
//! * the `#[repr(C)]` types that cross it ([`expand::Control`], [`expand::ExpandView`]);
//! * the codes a kernel switches on ([`expand::strategy`], [`select::op`], [`expand::FLAG_CAPACITY`] …);
//! * the tuning constants the host sizes grids with and the kernels are built for (threads per
//!   block, items per thread, tiles, claims);
//! * the exported kernels' names ([`kernels`]), which the host's tests check against the PTX,
//!   and the modules they are shipped and loaded in ([`modules`]);
//! * the pure functions both sides compute (the select predicates, the scan's tile shapes,
//!   S2.5f's plan records), so that they are unit-tested on the CPU and the CPU reference runs
//!   the very code the kernels run.
//!
//! `#![no_std]`, no dependencies: it builds for `nvptx64-nvidia-cuda` with `-Zbuild-std=core`
//! and on stable Rust for the host. The `bytemuck` feature (the host enables it) derives
//! `Pod`/`Zeroable` for the shared types.
#![cfg_attr(not(test), no_std)]
// As in the kernels: small arrays indexed by loop counters with constant trip counts unroll, and
// stay in registers, on the GPU.
#![allow(clippy::needless_range_loop)]

pub mod exact;
pub mod expand;
pub mod kernels;
pub mod modules;
pub mod reduce;
pub mod scan;
pub mod select;

/// Threads per warp on every NVIDIA GPU warpwork supports.
pub const WARP_SIZE: u32 = 32;
