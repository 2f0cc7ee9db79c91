//! What the access-pattern kernels and the `warpwork-access` host crate share, defined once: the
//! `#[repr(C)]` types that cross the launch ([`lighting::Light`], [`lighting::TileLights`]), the
//! block shapes the host sizes grids with, the per-light and per-particle bodies, and the
//! kernels' names.
//!
//! These files are modules of the kernel crate and, through `#[path]`, of the host crate, so
//! they are plain `core` Rust that builds for both targets. On the host the shared types derive
//! bytemuck's `Pod` (so that they upload as they are); the kernel crate has no bytemuck. Their
//! tests run on the host (`cargo test -p warpwork-access`).

pub mod lighting;
pub mod particles;

/// The exported kernels' names: `kernels.rs` spells each symbol once more (an exported symbol
/// cannot be named by a constant), and the host crate's tests check that the shipped PTX
/// exports exactly `KERNELS`.
pub mod kernels {
    /// Lighting, every lane loads every light, point-light falloff:
    /// `(lights, n_lights, tiles, tiles_x, width, height, out)`.
    pub const LIGHTING_NAIVE: &str = "lighting_naive";
    /// Lighting, warp broadcast loads through shuffles.
    pub const LIGHTING_BROADCAST: &str = "lighting_broadcast";
    /// Lighting, warp broadcast loads through shared memory.
    pub const LIGHTING_STAGED: &str = "lighting_staged";
    /// As [`LIGHTING_NAIVE`] with the raw body (sum the light records).
    pub const LIGHTING_RAW_NAIVE: &str = "lighting_raw_naive";
    /// As [`LIGHTING_BROADCAST`] with the raw body.
    pub const LIGHTING_RAW_BROADCAST: &str = "lighting_raw_broadcast";
    /// As [`LIGHTING_STAGED`] with the raw body.
    pub const LIGHTING_RAW_STAGED: &str = "lighting_raw_staged";
    /// Particles, a contiguous chunk per thread:
    /// `(pos, vel, n, items_per_thread, dt, gx, gy, gz)`.
    pub const PARTICLES_THREAD_WISE: &str = "particles_thread_wise";
    /// Particles, a block-wide tile walked together.
    pub const PARTICLES_GROUP_WISE: &str = "particles_group_wise";
    /// Particles, a grid-stride loop.
    pub const PARTICLES_GRID_STRIDE: &str = "particles_grid_stride";

    /// Every exported kernel.
    pub const KERNELS: [&str; 9] = [
        LIGHTING_NAIVE,
        LIGHTING_BROADCAST,
        LIGHTING_STAGED,
        LIGHTING_RAW_NAIVE,
        LIGHTING_RAW_BROADCAST,
        LIGHTING_RAW_STAGED,
        PARTICLES_THREAD_WISE,
        PARTICLES_GROUP_WISE,
        PARTICLES_GRID_STRIDE,
    ];
}
