//! Particle-update kernels with three list partitionings:
//! `particles_{thread_wise,group_wise,grid_stride}(pos, vel, n, items_per_thread, dt, gx, gy, gz)`:
//! launch `ceil(n / (items_per_thread · blockDim))` blocks (any grid for `grid_stride`).

use crate::demo::particles::{update, Step, Vec4};
use crate::device::partition::{grid_stride, group_wise, thread_wise};

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
