//! Tiled deferred lighting: the workload of warpwork-kernels' warp broadcast loads
//! (`warp::warp_for_each_broadcast`, `warp::warp_for_each_staged`).
//!
//! The image is cut into 8×8-pixel tiles; tile `(tx, ty)` has a list `(start, count)` into one
//! light array, and every pixel of the tile accumulates every light of its list (the layouts and
//! the per-light body are [`crate::abi::lighting`]'s). A block of 64
//! threads shades one tile (thread `t` is pixel `(t % 8, t / 8)`), so each of its two warps walks
//! the whole list: the list is warp-uniform, which is what the broadcast helpers need.

pub use crate::abi::lighting::{accumulate, accumulate_raw, Light, Shading, TileLights, THREADS, TILE};
use warpwork_kernels::arch::{block_idx_x, block_idx_y, store_v4_f32, thread_idx_x, warp_id};
use warpwork_kernels::warp::{warp_for_each_broadcast, warp_for_each_staged};

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

/// Shades the tile `(blockIdx.x, blockIdx.y)` of a `width × height` image into `out`
/// (row-major, one `[f32; 4]` per pixel). Launch a `(tiles_x, tiles_y)` grid of [`THREADS`]-thread
/// blocks.
///
/// # Safety
/// `lights` holds `n_lights` lights; `tiles` holds `tiles_x · tiles_y` lists; `out` holds
/// `width · height` pixels and is 16-byte aligned; for [`Walk::Staged`], `slots` is [`THREADS`]
/// `Light`s of shared memory (32 per warp). Every thread of the block calls this (pixels outside the image still take part in the
/// warp's loads and shuffles, and only skip the store).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn shade_tile(
    walk: Walk,
    shading: Shading,
    lights: *const Light,
    n_lights: u32,
    tiles: *const TileLights,
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
    let TileLights { start, count } = *tiles.add(ty as usize * tiles_x as usize + tx as usize);
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
