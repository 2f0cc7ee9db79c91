//! Memory-access-pattern kernels (issue "access"): tiled lighting with three ways of walking the
//! light list, and a particle update with three list partitionings.
//!
//! * `lighting_{naive,broadcast,staged}(lights, n_lights, tiles, tiles_x, width, height, out)`: launch a
//!   `(tiles_x, tiles_y)` grid of 64-thread blocks. `lighting_raw_*`: the same walks with the
//!   seed's body (sum the light records), where the walk is all the cost.
//! * `particles_{thread_wise,group_wise,grid_stride}(pos, vel, n, items_per_thread, dt, gx, gy, gz)`:
//!   launch `ceil(n / (items_per_thread · blockDim))` blocks (any grid for `grid_stride`).

use crate::device::lighting::{shade_tile, Light, Shading, Walk};
use crate::device::particles::{update, Vec4};
use crate::device::partition::{grid_stride, group_wise, thread_wise};
use crate::static_shared;

macro_rules! lighting_kernel {
    ($name:ident, $walk:expr, $shading:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            lights: *const Light,
            n_lights: u32,
            tiles: *const [u32; 2],
            tiles_x: u32,
            width: u32,
            height: u32,
            out: *mut [f32; 4],
        ) {
            let slots = if $walk == Walk::Staged {
                static_shared!($name: [crate::device::lighting::Light; 64])
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
            update($indices, pos, vel, dt, [gx, gy, gz]);
        }
    };
}
particles_kernel!(particles_thread_wise, |n, k| thread_wise(n, k));
particles_kernel!(particles_group_wise, |n, k| group_wise(n, k));
particles_kernel!(particles_grid_stride, |n, _k| grid_stride(n));
