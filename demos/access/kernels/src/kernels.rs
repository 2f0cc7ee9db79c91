//! The exported kernels (named in [`crate::abi::kernels`]): thin launches of the bodies in
//! [`crate::lighting`] and [`crate::particles`].
//!
//! * `lighting_{naive,broadcast,staged}(lights, n_lights, tiles, tiles_x, width, height, out)`:
//!   tiled lighting with three ways of walking the light list; launch a `(tiles_x, tiles_y)`
//!   grid of 64-thread blocks. `lighting_raw_*`: the same walks with the "WaveLane" body (sum the
//!   light records), where the walk is all the cost.
//! * `particles_{thread_wise,group_wise,grid_stride}(pos, vel, n, items_per_thread, dt, gx, gy,
//!   gz)`: the particle update under three list partitionings; launch
//!   `ceil(n / (items_per_thread · blockDim))` blocks (any grid for `grid_stride`).

use crate::lighting::{shade_tile, Light, Shading, TileLights, Walk};
use crate::particles::{update, Step, Vec4};
use warpwork_kernels::device::partition::{grid_stride, group_wise, thread_wise};
use warpwork_kernels::static_shared;

macro_rules! lighting_kernel {
    ($name:ident, $walk:expr, $shading:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            lights: *const Light,
            n_lights: u32,
            tiles: *const TileLights,
            tiles_x: u32,
            width: u32,
            height: u32,
            out: *mut [f32; 4],
        ) {
            let slots = if $walk == Walk::Staged {
                static_shared!($name: [crate::abi::lighting::Light; crate::abi::lighting::THREADS as usize])
            } else {
                core::ptr::null_mut()
            };
            shade_tile($walk, $shading, lights, n_lights, tiles, tiles_x, width, height, out, slots);
        }
    };
}
lighting_kernel!(lighting_naive, Walk::Naive, Shading::Point);
lighting_kernel!(lighting_broadcast, Walk::Broadcast, Shading::Point);
lighting_kernel!(lighting_staged, Walk::Staged, Shading::Point);
lighting_kernel!(lighting_raw_naive, Walk::Naive, Shading::Raw);
lighting_kernel!(lighting_raw_broadcast, Walk::Broadcast, Shading::Raw);
lighting_kernel!(lighting_raw_staged, Walk::Staged, Shading::Raw);

macro_rules! particles_kernel {
    ($name:ident, |$n:ident, $k:ident| $indices:expr) => {
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            pos: *mut Vec4,
            vel: *mut Vec4,
            $n: u64,
            $k: u32,
            dt: f32,
            gx: f32,
            gy: f32,
            gz: f32,
        ) {
            let ($n, $k) = ($n as usize, $k as usize);
            update($indices, pos, vel, &Step { dt, gravity: [gx, gy, gz] });
        }
    };
}
particles_kernel!(particles_thread_wise, |n, k| thread_wise(n, k));
particles_kernel!(particles_group_wise, |n, k| group_wise(n, k));
particles_kernel!(particles_grid_stride, |n, _k| grid_stride(n));
