//! The demonstration workloads' kernels: Game of Life, tiled lighting, particle update.

mod life;
mod lighting;
mod particles;
