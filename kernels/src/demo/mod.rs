//! Demonstration workloads built on the general algorithms: tiled lighting (the workload of
//! the warp broadcast loads) and a particle update (the workload of
//! the list partitionings in [`crate::device::partition`]). Their per-thread and per-block
//! bodies, as [`crate::device`] holds those of the general algorithms.

pub mod lighting;
pub mod particles;
