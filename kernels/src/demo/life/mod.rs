//! Conway's Game of Life (B3/S23) on a torus: the per-thread bodies of every kernel variant.
//!
//! Two layouts, two rule implementations:
//!
//! * **one cell per element** (`u32` or `u8`, 0 dead / non-zero alive): [`rule`] decides one cell
//!   from its neighbour count. The seed article's variants (brute force, sparse write-skip,
//!   several cells per thread, shared tile, bytes, ballot) all use it;
//! * **one bit per cell**, rows of 64-bit words with cell `x` in bit `x % 64` of word `x / 64`
//!   (least significant bit first, so the same memory read as `u32` words has cell `x` in bit
//!   `x % 32` of word `x / 32`). [`rule_sliced`] applies the rule to 32 cells at once with a
//!   bit-sliced adder: ptxas fuses its and/or/xor trees into `LOP3` instructions.
//!
//! Every neighbour index wraps around the board (a torus), for any width and height ≥ 1. The rule
//! functions and the launch shapes are `warpwork_abi::life`'s (unit-tested on the CPU there).

mod bits;
mod cells;
mod population;

pub use bits::*;
pub use cells::*;
pub use population::*;
pub use warpwork_abi::life::{add3, row_sum, rule, rule_sliced, wrap, BIT64_OUT_LANES, MULTI_CELLS, TILE};
