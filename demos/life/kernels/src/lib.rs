//! # warpwork-life-kernels: Conway's Game of Life, and Life-like rules, on the GPU
//!
//! The kernels of the `warpwork-life` demo, written as a user's kernel crate is written: on the
//! device building blocks of `warpwork-kernels` (thread indices, ballots, shuffles, warp sums,
//! shared memory, atomics), compiled to PTX for `nvptx64-nvidia-cuda` (see `../README.md`).
//!
//! Any Life-like rule on a torus, two layouts:
//!
//! * **one cell per element** (`u32` or `u8`, 0 dead / non-zero alive): [`abi::rule`] decides one
//!   cell from its neighbour count and the rule (the packed masks of [`abi::pack_rule`], a kernel
//!   parameter). The compute-shader variants (brute force, sparse write-skip,
//!   several cells per thread, shared tile, bytes, ballot) all use it ([`cells`]);
//! * **one bit per cell**, rows of 64-bit words with cell `x` in bit `x % 64` of word `x / 64`
//!   (least significant bit first, so the same memory read as `u32` words has cell `x` in bit
//!   `x % 32` of word `x / 32`). [`abi::rule_sliced`] applies B3/S23 to 32 cells at once with a
//!   bit-sliced adder (ptxas fuses its and/or/xor trees into `LOP3` instructions), and
//!   [`abi::rule_lut_step`] any rule on the same sliced total as six `lop3`s whose truth tables
//!   ([`abi::rule_luts`]) the host writes into the PTX per rule ([`bits::Lut`]); each bit kernel
//!   is exported in both forms (`life_bit*` with the tables, `life_bit*_b3s23`).
//!
//! Every neighbour index wraps around the board (a torus), for any width and height ≥ 1. The rule
//! functions, the launch shapes and the kernel names are [`abi`]'s, which the host crate compiles
//! too (and unit-tests on the CPU). The entry points are in `kernels.rs`.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![allow(clippy::missing_safety_doc)]
// Kernels index small per-thread arrays with loop counters on purpose: with constant trip counts
// the loops unroll and the arrays live in registers.
#![allow(clippy::needless_range_loop)]

pub mod abi;
pub mod bits;
pub mod cells;
mod kernels;
pub mod population;

use abi::{row_sum, rule, rule_lut_step, rule_sliced, wrap, BIT64_OUT_LANES, LUT_PLACEHOLDERS, MULTI_CELLS, TILE};

/// Kernels cannot unwind or print: a panic traps, which the host sees as a launch failure. The
/// kernels are written not to panic; `no_std` requires a handler all the same.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
