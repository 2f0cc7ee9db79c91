//! Tiled deferred lighting, the workload of the warp broadcast loads: the light and list
//! layouts, the tiling, and what a pixel computes from a light.
//!
//! The image is cut into [`TILE`]×[`TILE`]-pixel tiles in row-major order; tile `t` has a list
//! [`TileLights`] `(start, count)` into one light array, and every pixel of the tile accumulates
//! every light of its list. A block of [`THREADS`] threads shades one tile.

/// Tile edge in pixels.
pub const TILE: u32 = 8;
/// Threads per block of the lighting kernels: one per pixel of a tile (two warps).
pub const THREADS: u32 = TILE * TILE;

/// A point light: 32 bytes, 16-byte aligned, so that a load of one is two 16-byte vector loads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(not(target_arch = "nvptx64"), derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C, align(16))]
pub struct Light {
    /// World position in pixel units; the image lies in the plane z = 0, pixel `(x, y)` at
    /// `(x + 0.5, y + 0.5, 0)`.
    pub position: [f32; 3],
    /// Radius of influence (> 0): beyond it the light contributes nothing.
    pub radius: f32,
    /// Linear RGB colour.
    pub color: [f32; 3],
    /// Scale of the colour.
    pub intensity: f32,
}

/// One tile's light list: `lights[start .. start + count]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "nvptx64"), derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct TileLights {
    /// First light of the list.
    pub start: u32,
    /// Number of lights.
    pub count: u32,
}

/// What each pixel computes from each light of its tile (each is its own kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shading {
    /// A point light's falloff ([`accumulate`]): about 20 flops and a division per light.
    Point,
    /// The raw sum of the light records ([`accumulate_raw`]): sebbbi's "WaveLane" microbenchmark, 8 adds
    /// per light, where the cost is all in how the lights reach the lanes.
    Raw,
}

/// Tiles across and down for a `width × height` image (partial tiles at the edges count).
#[inline(always)]
pub fn tile_grid(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(TILE), height.div_ceil(TILE))
}

/// Adds light `l`'s contribution at point `p` to `acc` (rgb, and the weight in `acc[3]`):
/// weight `intensity · max(0, 1 − d²/r²)²`. Branch-free, so the cost does not depend on how many
/// lights reach the pixel.
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

/// The "WaveLane" microbenchmark's body: adds the light's raw record to `acc`, the first four
/// words and then the last four (`acc[k] += word[k] + word[k + 4]`).
#[inline(always)]
pub fn accumulate_raw(acc: &mut [f32; 4], l: &Light) {
    let a = [l.position[0], l.position[1], l.position[2], l.radius];
    let b = [l.color[0], l.color[1], l.color[2], l.intensity];
    for k in 0..4 {
        acc[k] += a[k] + b[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Light = Light { position: [4.5, 4.5, 0.0], radius: 2.0, color: [1.0, 0.5, 0.25], intensity: 2.0 };

    #[test]
    fn layouts_are_what_the_kernels_load() {
        assert_eq!((core::mem::size_of::<Light>(), core::mem::align_of::<Light>()), (32, 16));
        assert_eq!(core::mem::size_of::<TileLights>(), 8);
        assert_eq!(THREADS, 2 * 32, "two whole warps per tile");
    }

    #[test]
    fn tiles_cover_partial_edges() {
        assert_eq!(tile_grid(0, 0), (0, 0));
        assert_eq!(tile_grid(8, 8), (1, 1));
        assert_eq!(tile_grid(9, 17), (2, 3));
        assert_eq!(tile_grid(1920, 1080), (240, 135));
    }

    #[test]
    fn falloff_is_full_at_the_centre_and_zero_beyond_the_radius() {
        let mut acc = [0.0; 4];
        accumulate(&mut acc, [4.5, 4.5, 0.0], &L);
        assert_eq!(acc, [2.0, 1.0, 0.5, 2.0]);
        let mut acc = [0.0; 4];
        accumulate(&mut acc, [4.5, 6.5, 0.0], &L);
        assert_eq!(acc, [0.0; 4], "at the radius");
        accumulate(&mut acc, [4.5, 5.5, 0.0], &L);
        // d² / r² = 1/4: weight 2 · (3/4)² = 1.125.
        assert_eq!(acc, [1.125, 0.5625, 0.28125, 1.125]);
    }

    #[test]
    fn raw_body_sums_the_record_halves() {
        let mut acc = [1.0; 4];
        accumulate_raw(&mut acc, &L);
        assert_eq!(acc, [1.0 + 4.5 + 1.0, 1.0 + 4.5 + 0.5, 1.0 + 0.0 + 0.25, 1.0 + 2.0 + 2.0]);
    }
}
