//! # warpwork-life
//!
//! Conway's Game of Life (B3/S23) and every other Life-like rule ([`Rule`]: HighLife, Day &
//! Night, Seeds, ...) on a torus, on the GPU, with the kernels of a well-known blog post
//! on brute-forcing Life in compute shaders and bit-packed ones beyond them: a demonstration built on warpwork's public API the way a
//! user's crate is. Its kernels are its own crate (`kernels/`, on `warpwork-kernels`' device
//! building blocks), shipped as PTX that [`Life`] loads into the [`Gpu`](warpwork::Gpu)'s
//! context and launches with [`Gpu::kernel_args`](warpwork::Gpu::kernel_args). Errors are
//! warpwork's [`Error`].
//!
//! ```no_run
//! use warpwork::Gpu;
//! use warpwork_life::{Kernel, Life};
//! let gpu = Gpu::new(0)?;
//! let mut life = Life::random(&gpu, Kernel::FASTEST, 4096, 4096, 0.35, 42)?;
//! life.step(1000)?;
//! println!("population {}", life.population()?);
//! # Ok::<(), warpwork::Error>(())
//! ```
//!
//! | [`Kernel`] | cell layout | what it tries |
//! |---|---|---|
//! | `naive-1d-64`, `naive-1d-256`, `naive-2d-8x8`, `naive-2d-16x16` | `u32` | brute force, modulo wrap, launch shapes |
//! | `sparse` | `u32` (0/1, 2/3 = just changed) | skips the write of cells unchanged for two steps |
//! | `multi` | `u32` | 8 cells per thread, neighbourhood in registers |
//! | `tiled` | `u32` | 16×16 shared-memory tile with halo |
//! | `byte` | `u8` | a quarter of the bytes |
//! | `ballot` | `u32` | warp ballots turn rows into masks, `popc` counts |
//! | `bit32` | 1 bit | 32 cells per thread, bit-sliced adder |
//! | `bit64`, `bit64-t2` … `bit64-t12` | 1 bit | 64 cells per lane, shuffles for the edges, 1…12 generations per launch in registers |
//! | `bit64-t8-flat` | 1 bit | `bit64-t8` without the skewed pipeline (fewer halo rows, less overlap) |
//!
//! Any width and height ≥ 1 work for the cell kernels; `bit32` needs a width that is a multiple of
//! 32 and the `bit64` family a multiple of 64 ([`Error::InvalidInput`](warpwork::Error) otherwise).
//!
//! **Several GPUs.** With the feature `nccl`, `BandedLife` runs one board over the GPUs of a
//! `warpwork::multi::Gpus` handle, a band of rows per GPU with halo rows exchanged through NCCL,
//! every kernel unchanged; [`Bands`] plans and checks the split (see the [`bands`] module).
//!
//! [`cpu`] is the CPU reference the tests check every kernel against (rayon, written
//! independently of the kernels), and what the `warpwork life` command runs without a GPU.
//!
//! # Errors and limits
//!
//! * **Size policy.** Boards and patterns are bounded by [`Limits`] (default 2^36 cells and
//!   8 GiB per board, and 8 GiB of pattern text), checked before anything is allocated:
//!   [`Error::LimitExceeded`]. [`BitGrid::with_limits`] and the
//!   parsers in [`pattern`] take the limits to raise them.
//! * **Index widths.** Every kernel takes its sides as `u32`; [`Kernel::check_size`] refuses a
//!   board a kernel cannot index or launch ([`Error::CapacityExceeded`](warpwork::Error)): `tiled`
//!   stops at widths of 2^31 − 1 (the 2^31 rule), the `bit64` family at `2^32 − 3·g` rows, the
//!   2D launches at 65535 block rows, the 1D ones at 2^31 − 1 blocks.
//! * **Memory.** A host allocation that fails is [`Error::OutOfMemory`](warpwork::Error), a device
//!   one a driver error: never an abort.
//! * **Patterns.** Parse errors name the line and column; see [`pattern`] for what the readers
//!   accept and refuse.

#[path = "../kernels/src/abi.rs"]
pub mod abi;
pub mod bands;
mod board;
pub mod cpu;
mod grid;
mod kernel;
mod limits;
mod module;
pub mod pattern;
mod random;
mod rule;
mod support;
mod transfer;

#[cfg(feature = "nccl")]
pub use bands::BandedLife;
pub use bands::Bands;
pub use board::Life;
pub use grid::BitGrid;
pub use kernel::{Kernel, Layout, BIT64_OUT_LANES, MULTI_CELLS};
pub use limits::Limits;
pub use rule::{Rule, RuleSpec};

use warpwork::{Error, Result};

/// The README's example, compiled as a doctest so that it stays true to the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
