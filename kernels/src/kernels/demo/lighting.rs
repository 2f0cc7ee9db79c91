//! Tiled lighting kernels with three ways of walking the light list:
//! `lighting_{naive,broadcast,staged}(lights, n_lights, tiles, tiles_x, width, height, out)`:
//! launch a `(tiles_x, tiles_y)` grid of 64-thread blocks. `lighting_raw_*`: the same walks with
//! the seed's body (sum the light records), where the walk is all the cost.

use crate::demo::lighting::{shade_tile, Light, Shading, TileLights, Walk};
use crate::static_shared;

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
                static_shared!($name: [warpwork_abi::lighting::Light; warpwork_abi::lighting::THREADS as usize])
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
