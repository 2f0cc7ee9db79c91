//! Tiled deferred lighting: the workload of the warp broadcast loads (`crate::warp::broadcast`).
//!
//! The image is cut into 8×8-pixel tiles; tile `(tx, ty)` has a list `(start, count)` into one
//! light array, and every pixel of the tile accumulates every light of its list. A block of 64
//! threads shades one tile (thread `t` is pixel `(t % 8, t / 8)`), so each of its two warps walks
//! the whole list: the list is warp-uniform, which is what the broadcast helpers need.

use crate::arch::{block_idx_x, block_idx_y, store_v4_f32, thread_idx_x, warp_id};
use crate::warp::{warp_for_each_broadcast, warp_for_each_staged};

/// Tile edge in pixels.
pub const TILE: u32 = 8;

/// A point light: 32 bytes, 16-byte aligned so that a load of one is two 16-byte vector loads.
/// Same layout as the host's `warpwork::access::Light`.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Light {
    /// World position (pixel units; the image lies in the plane z = 0).
    pub position: [f32; 3],
    /// Radius of influence: beyond it the light contributes nothing.
    pub radius: f32,
    /// Linear RGB colour.
    pub color: [f32; 3],
    /// Scale of the colour.
    pub intensity: f32,
}

/// How a tile walks its light list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Every lane loads every light itself (a uniform address per load).
    Naive,
    /// One load per 32 lights, then `shfl.sync.idx` per word ([`warp_for_each_broadcast`]).
    Broadcast,
    /// One load per 32 lights, staged through shared memory ([`warp_for_each_staged`]).
    Staged,
}

/// Adds light `l`'s contribution at point `p` to `acc` (rgb, and the weight in `acc[3]`):
/// weight `intensity · max(0, 1 − d²/r²)²`. Branch-free, so the cost does not depend on how many
/// lights reach the pixel. The CPU reference (`warpwork_cpu_reference::lighting`) is the same.
#[inline(always)]
pub fn accumulate(acc: &mut [f32; 4], p: [f32; 3], l: &Light) {
    let dx = l.position[0] - p[0];
    let dy = l.position[1] - p[1];
    let dz = l.position[2] - p[2];
    let d2 = dx * dx + dy * dy + dz * dz;
    let a = (1.0 - d2 / (l.radius * l.radius)).max(0.0);
    let w = a * a * l.intensity;
    acc[0] += l.color[0] * w;
    acc[1] += l.color[1] * w;
    acc[2] += l.color[2] * w;
    acc[3] += w;
}

/// The seed article's microbenchmark body: adds the light's raw record to `acc`, the first four
/// words and then the last four (`acc[k] += word[k] + word[k + 4]`). Eight adds per light, so the
/// loop is bound by how the light reaches the lanes, not by the math.
#[inline(always)]
pub fn accumulate_raw(acc: &mut [f32; 4], l: &Light) {
    let a = [l.position[0], l.position[1], l.position[2], l.radius];
    let b = [l.color[0], l.color[1], l.color[2], l.intensity];
    for k in 0..4 {
        acc[k] += a[k] + b[k];
    }
}

/// What each pixel computes from each light of its tile.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shading {
    /// A point light's falloff ([`accumulate`]): about 20 flops and a division per light.
    Point,
    /// The raw sum of the light records ([`accumulate_raw`]): 8 adds per light.
    Raw,
}

/// Shades the tile `(blockIdx.x, blockIdx.y)` of a `width × height` image into `out`
/// (row-major, one `[f32; 4]` per pixel). Launch a `(tiles_x, tiles_y)` grid of 64-thread blocks.
///
/// # Safety
/// `lights` holds `n_lights` lights; `tiles` holds `tiles_x · tiles_y` `(start, count)` pairs;
/// `out` holds `width · height` pixels and is 16-byte aligned; for [`Walk::Staged`], `slots` is 64 `Light`s of shared
/// memory. Every thread of the block calls this (pixels outside the image still take part in the
/// warp's loads and shuffles, and only skip the store).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn shade_tile(
    walk: Walk,
    shading: Shading,
    lights: *const Light,
    n_lights: u32,
    tiles: *const [u32; 2],
    tiles_x: u32,
    width: u32,
    height: u32,
    out: *mut [f32; 4],
    slots: *mut Light,
) {
    let (tx, ty) = (block_idx_x(), block_idx_y());
    let t = thread_idx_x();
    let x = tx * TILE + t % TILE;
    let y = ty * TILE + t / TILE;
    let [start, count] = *tiles.add(ty as usize * tiles_x as usize + tx as usize);
    // Lists reaching past the light array are cut at its end (the host API's contract), so a
    // bad list cannot make the kernel read out of bounds.
    let start = start.min(n_lights);
    let count = count.min(n_lights - start);
    let list = lights.add(start as usize);
    let p = [x as f32 + 0.5, y as f32 + 0.5, 0.0];
    let mut acc = [0.0f32; 4];
    let mut body = |l: &Light| match shading {
        Shading::Point => accumulate(&mut acc, p, l),
        Shading::Raw => accumulate_raw(&mut acc, l),
    };
    match walk {
        Walk::Naive => {
            for i in 0..count as usize {
                body(&*list.add(i));
            }
        }
        Walk::Broadcast => warp_for_each_broadcast(list, count, |l| body(&l)),
        Walk::Staged => {
            let slot = slots.add(warp_id() as usize * 32);
            warp_for_each_staged(list, count, slot, |l| body(&l))
        }
    }
    if x < width && y < height {
        store_v4_f32(out.add(y as usize * width as usize + x as usize), acc);
    }
}
