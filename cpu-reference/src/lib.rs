//! # warpwork-cpu-reference
//!
//! rayon implementations of warpwork's primitives with the same contracts as the GPU versions.
//! The tests check every kernel against these, and the benchmarks report them alongside.

pub mod select;
