//! GPU-vs-CPU tests of the access-pattern kernels: tiled lighting (naive, broadcast, staged) and
//! the particle update (thread-wise, group-wise, grid-stride). Every test needs a GPU.
//!
//! Set `WARPWORK_SMALL=1` to skip the largest inputs (for runs under compute-sanitizer).

mod common;

use common::{gpu, is_poisoned, poisoned, small};
use warpwork::Error;
use warpwork_access::cpu::{lighting, particles};
use warpwork_access::{tile_grid, Access, Light, LightingKernel, Partition, Shading, Step, TileLights};

/// `got` is within `rel · |want| + abs` of `want`, element by element (NaN never is).
fn assert_close(got: &[[f32; 4]], want: &[[f32; 4]], rel: f32, abs: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for k in 0..4 {
            let tol = rel * w[k].abs() + abs;
            assert!((g[k] - w[k]).abs() <= tol, "{what}: element {i}.{k}: GPU {} vs CPU {} (tol {tol})", g[k], w[k]);
        }
    }
}

/// Shades with every kernel into a poisoned image and compares with the CPU.
fn check_lighting(access: &Access, width: u32, height: u32, lights: &[Light], tiles: &[TileLights], what: &str) {
    let gpu = access.gpu();
    let max_count = tiles.iter().map(|t| t.count.min(lights.len() as u32)).max().unwrap_or(0);
    let d_lights = gpu.upload(lights).unwrap();
    let d_tiles = gpu.upload(tiles).unwrap();
    for shading in [Shading::Point, Shading::Raw] {
        let want = lighting::shade_with(width, height, lights, tiles, shading);
        for kernel in LightingKernel::ALL {
            let mut out = poisoned::<[f32; 4]>(gpu, want.len());
            access.shade_tiles_into(width, height, &d_lights, &d_tiles, shading, kernel, &mut out).unwrap();
            let got = gpu.download(&out).unwrap();
            // Point terms are non-negative, so the sum bounds them; the per-light term allows for
            // a fused multiply-add near the radius, where 1 − d²/r² cancels. Raw sums are adds
            // only, in the CPU's order, so they match to rounding.
            let what = format!("{what} {shading:?} {}", kernel.name());
            assert_close(&got, &want, 1e-4, 2e-6 * (max_count as f32 + 1.0), &what);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lighting_matches_cpu_on_odd_images_and_list_lengths() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    // List lengths around the 32-light chunk: empty, partial, exact, one over, many chunks.
    for (w, h) in [(1, 1), (8, 8), (13, 7), (33, 17), (100, 41), (257, 129)] {
        for max_count in [0, 1, 31, 32, 33, 100, 700] {
            let lights = lighting::random_lights(1000, w, h, 1.0, 40.0, (w * 31 + h) as u64);
            let tiles = lighting::random_tiles(w, h, 1000, 0, max_count, max_count as u64);
            check_lighting(&access, w, h, &lights, &tiles, &format!("{w}x{h} ≤{max_count} lights"));
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lighting_with_fixed_list_lengths() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    for count in [1, 32, 64, 65, 257] {
        let (w, h) = (71, 45);
        let lights = lighting::random_lights(2048, w, h, 4.0, 60.0, count as u64);
        let tiles = lighting::random_tiles(w, h, 2048, count, count, 7);
        check_lighting(&access, w, h, &lights, &tiles, &format!("{count} lights per tile"));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lighting_cuts_lists_past_the_light_array() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let (w, h) = (24, 16);
    let lights = lighting::random_lights(50, w, h, 4.0, 30.0, 1);
    let (tx, ty) = tile_grid(w, h);
    let tiles: Vec<TileLights> = (0..tx * ty)
        .map(|i| match i % 3 {
            0 => TileLights { start: 40, count: 1000 },
            1 => TileLights { start: 77, count: 5 },
            _ => TileLights { start: 0, count: u32::MAX },
        })
        .collect();
    check_lighting(&access, w, h, &lights, &tiles, "lists past the end");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn empty_buffers() {
    // Zero-length device buffers: no lights at all (every list is cut to nothing), an empty
    // image with no tiles, no particles.
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let (w, h) = (24, 16);
    let (tx, ty) = tile_grid(w, h);
    let tiles = vec![TileLights { start: 3, count: 9 }; (tx * ty) as usize];
    check_lighting(&access, w, h, &[], &tiles, "no lights at all");
    let lights = gpu.upload(&lighting::random_lights(10, 16, 16, 1.0, 4.0, 1)).unwrap();
    let empty = gpu.upload::<TileLights>(&[]).unwrap();
    assert!(gpu
        .download(&access.shade_tiles(0, 5, &lights, &empty, LightingKernel::Staged).unwrap())
        .unwrap()
        .is_empty());
    let mut p = gpu.upload::<[f32; 4]>(&[]).unwrap();
    let mut v = gpu.upload::<[f32; 4]>(&[]).unwrap();
    for partition in Partition::ALL {
        access.update_particles(&mut p, &mut v, STEP, partition, 1).unwrap();
    }
    gpu.synchronize().unwrap();
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lighting_full_hd() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let (w, h, max) = if small() { (200, 120, 40) } else { (1920, 1080, 300) };
    let lights = lighting::random_lights(4096, w, h, 8.0, 200.0, 5);
    let tiles = lighting::random_tiles(w, h, 4096, 0, max, 6);
    check_lighting(&access, w, h, &lights, &tiles, "full HD");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lighting_rejects_inconsistent_input() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let lights = gpu.upload(&lighting::random_lights(10, 16, 16, 1.0, 4.0, 1)).unwrap();
    let tiles = gpu.upload(&[TileLights::default(); 3]).unwrap();
    let r = access.shade_tiles(16, 16, &lights, &tiles, LightingKernel::Broadcast);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let tiles = gpu.upload(&[TileLights::default(); 4]).unwrap();
    let mut out = gpu.zeros::<[f32; 4]>(255).unwrap();
    let r = access.shade_tiles_into(16, 16, &lights, &tiles, Shading::Point, LightingKernel::Naive, &mut out);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
}

const STEP: Step = Step { dt: 0.01, gravity: [0.5, -9.81, 0.25] };

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn particles_match_cpu_every_partition() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let mut sizes = vec![1usize, 31, 33, 255, 257, (1 << 16) + 1, (1 << 20) - 1];
    if !small() {
        sizes.push((1 << 24) + 3);
    }
    for n in sizes {
        let (pos, vel) = particles::random(n, n as u64);
        let (mut want_p, mut want_v) = (pos.clone(), vel.clone());
        particles::update(&mut want_p, &mut want_v, STEP);
        for partition in Partition::ALL {
            for ipt in [1, 3, 16, 64] {
                let mut d_pos = gpu.upload(&pos).unwrap();
                let mut d_vel = gpu.upload(&vel).unwrap();
                access.update_particles(&mut d_pos, &mut d_vel, STEP, partition, ipt).unwrap();
                // Each particle must be stepped exactly once: a skipped one keeps its old
                // velocity, a twice-stepped one gains 2·g·dt; both fail the comparison.
                let what = format!("n={n} {} ipt={ipt}", partition.name());
                assert_close(&gpu.download(&d_pos).unwrap(), &want_p, 1e-6, 1e-5, &format!("{what} pos"));
                assert_close(&gpu.download(&d_vel).unwrap(), &want_v, 1e-6, 1e-5, &format!("{what} vel"));
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn particles_leave_other_buffers_alone() {
    // Two particle sets side by side: updating one must not touch the other (poisoned).
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let (pos, vel) = particles::random(1000, 2);
    for partition in Partition::ALL {
        let mut d_pos = gpu.upload(&pos).unwrap();
        let mut d_vel = gpu.upload(&vel).unwrap();
        let guard = poisoned::<[f32; 4]>(&gpu, 1000);
        access.update_particles(&mut d_pos, &mut d_vel, STEP, partition, 7).unwrap();
        let g = gpu.download(&guard).unwrap();
        assert!(is_poisoned(&g), "{}", partition.name());
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn particles_reject_inconsistent_input() {
    let gpu = gpu();
    let access = Access::new(&gpu).unwrap();
    let mut p = gpu.zeros::<[f32; 4]>(10).unwrap();
    let mut v = gpu.zeros::<[f32; 4]>(11).unwrap();
    let r = access.update_particles(&mut p, &mut v, STEP, Partition::GroupWise, 4);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let mut v = gpu.zeros::<[f32; 4]>(10).unwrap();
    let r = access.update_particles(&mut p, &mut v, STEP, Partition::ThreadWise, 0);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
}
