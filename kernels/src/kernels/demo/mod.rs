//! The demonstration workloads' kernels: tiled lighting, particle update.

mod lighting;
mod particles;
