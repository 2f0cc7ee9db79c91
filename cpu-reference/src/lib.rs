//! # warpwork-cpu-reference
//!
//! rayon implementations of warpwork's primitives with the same contracts as the GPU versions.
//! The tests check every kernel against these, and the benchmarks report them alongside.
//! [`inputs`] holds the seeded generators (uniform, power-law) that tests and benches share;
//! [`counts`] the count distributions of the expansion benchmark, built from them; [`family`]
//! the rest of the compaction family (partition, unique, run-length encoding).

pub mod counts;
pub mod expand;
pub mod family;
pub mod inputs;
pub mod reduce;
pub mod scan;
pub mod select;
