//! Tiled deferred lighting on the CPU: the reference for `Access::shade_tiles`.
//!
//! The image is cut into [`TILE`]×[`TILE`]-pixel tiles in row-major order; tile `t` has a list
//! [`TileLights`] `(start, count)` into one light array, and every pixel of the tile accumulates
//! every light of its list, in list order, in `f32` — the same order as the GPU kernels, so
//! results differ only by rounding (the GPU may fuse multiply-adds).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

pub use crate::abi::lighting::{tile_grid, Light, Shading, TileLights, TILE};

/// Adds light `l`'s contribution at point `p` to `acc` (rgb, and the weight in `acc[3]`):
/// weight `intensity · max(0, 1 − d²/r²)²`. The same expression as the GPU's
/// (`abi::lighting::accumulate`), written again here so that the reference checks it
/// rather than repeats it.
#[inline]
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

/// The "WaveLane" microbenchmark's body: adds the raw light record to `acc`
/// (`acc[k] += word[k] + word[k + 4]`), as the GPU's `lighting_raw_*` kernels do.
#[inline]
pub fn accumulate_raw(acc: &mut [f32; 4], l: &Light) {
    let a = [l.position[0], l.position[1], l.position[2], l.radius];
    let b = [l.color[0], l.color[1], l.color[2], l.intensity];
    for k in 0..4 {
        acc[k] += a[k] + b[k];
    }
}

/// Shades a `width × height` image: one `[r, g, b, weight]` per pixel, row-major.
///
/// A list reaching past the end of `lights` is cut at its end (as on the GPU).
///
/// # Panics
/// If `tiles` does not hold one list per tile (the GPU API returns an error instead).
pub fn shade(width: u32, height: u32, lights: &[Light], tiles: &[TileLights]) -> Vec<[f32; 4]> {
    shade_with(width, height, lights, tiles, Shading::Point)
}

/// [`shade`] with a choice of [`Shading`].
pub fn shade_with(width: u32, height: u32, lights: &[Light], tiles: &[TileLights], shading: Shading) -> Vec<[f32; 4]> {
    let (tiles_x, tiles_y) = tile_grid(width, height);
    assert_eq!(tiles.len() as u64, tiles_x as u64 * tiles_y as u64, "one light list per tile");
    let mut out = vec![[0.0f32; 4]; width as usize * height as usize];
    if width == 0 {
        return out;
    }
    out.par_chunks_mut(width as usize).enumerate().for_each(|(y, row)| {
        for (x, px) in row.iter_mut().enumerate() {
            let t = tiles[(y / TILE as usize) * tiles_x as usize + x / TILE as usize];
            let start = (t.start as usize).min(lights.len());
            let list = &lights[start..start + (t.count as usize).min(lights.len() - start)];
            let p = [x as f32 + 0.5, y as f32 + 0.5, 0.0];
            let mut acc = [0.0f32; 4];
            for l in list {
                match shading {
                    Shading::Point => accumulate(&mut acc, p, l),
                    Shading::Raw => accumulate_raw(&mut acc, l),
                }
            }
            *px = acc;
        }
    });
    out
}

/// `n` random lights over a `width × height` image: positions inside it (z within ±radius/2),
/// radii in `min_radius .. max_radius`, colours and intensities in `0 .. 1`.
pub fn random_lights(n: usize, width: u32, height: u32, min_radius: f32, max_radius: f32, seed: u64) -> Vec<Light> {
    warpwork_cpu_reference::inputs::generate(n, seed, |r| {
        let radius = r.random_range(min_radius..max_radius.max(min_radius * 1.0001));
        Light {
            position: [
                r.random_range(0.0..width.max(1) as f32),
                r.random_range(0.0..height.max(1) as f32),
                r.random_range(-0.5..0.5) * radius,
            ],
            radius,
            color: [r.random(), r.random(), r.random()],
            intensity: r.random(),
        }
    })
}

/// One list per tile of a `width × height` image, each a random window of `min_count ..=
/// max_count` lights of a pool of `pool` lights (`pool >= max_count`): the overlapping lists
/// that culling produces, without a per-tile copy of every light.
pub fn random_tiles(width: u32, height: u32, pool: u32, min_count: u32, max_count: u32, seed: u64) -> Vec<TileLights> {
    assert!(min_count <= max_count && max_count <= pool, "counts must fit the pool");
    let (tx, ty) = tile_grid(width, height);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..tx as u64 * ty as u64)
        .map(|_| {
            let count = rng.random_range(min_count..=max_count);
            TileLights { start: rng.random_range(0..=pool - count), count }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial(width: u32, height: u32, lights: &[Light], tiles: &[TileLights]) -> Vec<[f32; 4]> {
        let (tx, _) = tile_grid(width, height);
        let mut out = Vec::new();
        for y in 0..height {
            for x in 0..width {
                let t = tiles[((y / TILE) * tx + x / TILE) as usize];
                let mut acc = [0.0f32; 4];
                for i in t.start..t.start + t.count {
                    accumulate(&mut acc, [x as f32 + 0.5, y as f32 + 0.5, 0.0], &lights[i as usize]);
                }
                out.push(acc);
            }
        }
        out
    }

    #[test]
    fn empty_image_and_empty_lists() {
        assert!(shade(0, 0, &[], &[]).is_empty());
        let tiles = vec![TileLights::default(); 4];
        assert!(shade(9, 9, &[], &tiles).iter().all(|p| *p == [0.0; 4]));
    }

    #[test]
    fn light_reaches_only_within_its_radius() {
        let l = Light { position: [4.5, 4.5, 0.0], radius: 2.0, color: [1.0, 0.5, 0.25], intensity: 2.0 };
        let out = shade(8, 8, &[l], &[TileLights { start: 0, count: 1 }]);
        assert_eq!(out[4 * 8 + 4], [2.0, 1.0, 0.5, 2.0], "full weight at the centre");
        assert_eq!(out[0], [0.0; 4], "nothing beyond the radius");
    }

    #[test]
    fn parallel_matches_serial_on_odd_sizes() {
        for (w, h) in [(1, 1), (13, 7), (33, 17), (100, 41)] {
            let lights = random_lights(300, w, h, 2.0, 30.0, 9);
            let tiles = random_tiles(w, h, 300, 0, 70, 4);
            assert_eq!(shade(w, h, &lights, &tiles), serial(w, h, &lights, &tiles));
        }
    }

    #[test]
    fn generators_respect_their_bounds() {
        let tiles = random_tiles(1920, 1080, 500, 3, 40, 1);
        assert_eq!(tiles.len(), 240 * 135);
        assert!(tiles.iter().all(|t| (3..=40).contains(&t.count) && t.start + t.count <= 500));
        let lights = random_lights(1000, 64, 32, 1.0, 8.0, 2);
        assert!(lights.iter().all(|l| (1.0..8.0).contains(&l.radius) && l.position[0] < 64.0));
    }
}
