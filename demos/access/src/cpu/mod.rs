//! The CPU references of the two studies: the oracle the GPU tests check every kernel against,
//! and the baseline `warpwork bench access` times without a GPU. rayon, the same contracts as
//! [`Access`](crate::Access)'s calls; the per-light and per-particle arithmetic is written again
//! here (not taken from [`crate::abi`]) so that the reference checks the kernels rather than
//! repeats them. Also the seeded generators of lights, tile lists and particles that the tests,
//! the benches and the CLI share.

pub mod lighting;
pub mod particles;
