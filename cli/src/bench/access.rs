//! `warpwork bench access`: the two memory-access-pattern studies.
//!
//! * Tiled lighting at 1080p and 4K with 1..4096 lights per tile (lists are windows of an
//!   8192-light pool): naive (every lane loads every light), broadcast (one load per 32 lights,
//!   `shfl.sync.idx` per word) and staged (one load per 32 lights through shared memory).
//!   Reported in light·pixel evaluations per second and as speedup over naive.
//! * Particle update (32 bytes read + 32 written per particle) with the list split thread-wise,
//!   group-wise (block tiles) and grid-stride, for 1..64 items per thread: GB/s and % of the copy
//!   roof measured in the same run.

use super::{cpu_median_ms, device_line, sizes, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_access::cpu::{lighting, particles};
use warpwork_access::{tile_grid, Access, LightingKernel, Partition, Shading, Step, TileLights};

const RESOLUTIONS: [(&str, u32, u32); 2] = [("1080p", 1920, 1080), ("4K", 3840, 2160)];
const LIGHTS_PER_TILE: [u32; 8] = [1, 4, 16, 32, 64, 256, 1024, 4096];
const POOL: u32 = 8192;
const ITEMS_PER_THREAD: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];
const STEP: Step = Step { dt: 1e-3, gravity: [0.0, -9.81, 0.0] };
/// Bytes a particle update moves per particle: position and velocity, read and written.
const PARTICLE_BYTES: u64 = 64;

pub fn run(gpu: Option<&Gpu>, args: &BenchArgs) -> Result<()> {
    match gpu {
        Some(gpu) => {
            let roof_bytes = ((1usize << args.max_log2()) * 32).min(1 << 30);
            let roof = device_line(gpu, roof_bytes)?;
            let access = Access::new(gpu)?;
            lighting_gpu(&access, args)?;
            particles_gpu(&access, args, roof)
        }
        None => {
            lighting_cpu(args);
            particles_cpu(args);
            Ok(())
        }
    }
}

fn scene(w: u32, h: u32, count: u32) -> (Vec<lighting::Light>, Vec<TileLights>) {
    let lights = lighting::random_lights(POOL as usize, w, h, 16.0, 256.0, 11);
    let tiles = lighting::random_tiles(w, h, POOL, count, count, count as u64);
    (lights, tiles)
}

fn lighting_gpu(access: &Access, args: &BenchArgs) -> Result<()> {
    let gpu = access.gpu();
    println!("## access: tiled lighting (8×8 tiles, 32-byte lights, lists into an {POOL}-light pool)\n");
    println!("body `point`: point-light falloff (~20 flops + a division per light); `raw`: WaveLane's");
    println!("loop, summing the light records (8 adds per light). speedup = naive time / this time.\n");
    let mut table = Table::new(&["body", "kernel", "image", "lights/tile", "time ms", "G light·px/s", "speedup"]);
    for shading in [Shading::Point, Shading::Raw] {
        for (name, w, h) in RESOLUTIONS {
            let (tx, ty) = tile_grid(w, h);
            let mut out = gpu.zeros::<[f32; 4]>(w as usize * h as usize)?;
            for count in LIGHTS_PER_TILE {
                let (lights, tiles) = scene(w, h, count);
                let (d_lights, d_tiles) = (gpu.upload(&lights)?, gpu.upload(&tiles)?);
                let want = (count <= 16).then(|| lighting::shade_with(w, h, &lights, &tiles, shading));
                let mut naive_ms = 0.0;
                for kernel in LightingKernel::ALL {
                    let ms = args.median_ms(gpu, 2, || {
                        access.shade_tiles_into(w, h, &d_lights, &d_tiles, shading, kernel, &mut out)
                    })?;
                    if let Some(want) = &want {
                        self_check(&gpu.download(&out)?, want, kernel)?;
                    }
                    if kernel == LightingKernel::Naive {
                        naive_ms = ms;
                    }
                    let evals = (tx * ty) as f64 * 64.0 * count as f64;
                    table.row(vec![
                        if shading == Shading::Point { "point" } else { "raw" }.into(),
                        kernel.name().into(),
                        format!("{name} ({tx}×{ty} tiles)"),
                        count.to_string(),
                        format!("{ms:.4}"),
                        giga(evals / (ms * 1e-3)),
                        format!("{:.2}×", naive_ms / ms),
                    ]);
                }
            }
        }
    }
    table.print();
    println!();
    Ok(())
}

/// The bench refuses to report a kernel whose image differs from the CPU's.
fn self_check(got: &[[f32; 4]], want: &[[f32; 4]], kernel: LightingKernel) -> Result<()> {
    let bad = got.iter().zip(want).flat_map(|(g, w)| (0..4).map(move |k| (g[k], w[k]))).find(|&(g, w)| {
        let tol = 1e-4 * w.abs() + 1e-4;
        (g - w).abs() > tol || g.is_nan()
    });
    match bad {
        Some((g, w)) => Err(Error::InvalidInput(format!(
            "bench self-check failed: lighting {} gave {g}, the CPU {w}",
            kernel.name()
        ))),
        None => Ok(()),
    }
}

fn particles_gpu(access: &Access, args: &BenchArgs, roof: f64) -> Result<()> {
    let gpu = access.gpu();
    println!("## access: particle update (pos + vel, f32x4 each: 32 B read + 32 B written per particle)\n");
    let sizes = sizes(args.max_log2(), 4);
    let largest = *sizes.last().unwrap();
    // 0x3C bytes are the float 0.0115: valid, positive positions and velocities.
    let mut pos = gpu.filled::<[f32; 4]>(largest, 0x3C)?;
    let mut vel = gpu.filled::<[f32; 4]>(largest, 0x3C)?;
    let mut table = Table::new(&["partition", "n", "items/thread", "time ms", "G items/s", "GB/s", "% roof"]);
    let mut best_group = 0.0f64;
    for &n in &sizes {
        // Smaller sizes get buffers of their own (the kernels take whole buffers).
        let mut smaller;
        let (p, v) = if n == largest {
            (&mut pos, &mut vel)
        } else {
            smaller = (gpu.filled::<[f32; 4]>(n, 0x3C)?, gpu.filled::<[f32; 4]>(n, 0x3C)?);
            (&mut smaller.0, &mut smaller.1)
        };
        for partition in Partition::ALL {
            for ipt in ITEMS_PER_THREAD {
                let ms = args.median_ms(gpu, 2, || access.update_particles(p, v, STEP, partition, ipt))?;
                let rate = gbps(n as u64 * PARTICLE_BYTES, ms);
                if n == largest && partition != Partition::ThreadWise {
                    best_group = best_group.max(rate);
                }
                table.row(vec![
                    partition.name().into(),
                    size(n),
                    ipt.to_string(),
                    format!("{ms:.4}"),
                    giga(n as f64 / (ms * 1e-3)),
                    format!("{rate:.0}"),
                    format!("{:.1}", 100.0 * rate / roof),
                ]);
            }
        }
    }
    table.print();
    println!(
        "\nbest group-wise/grid-stride at n = {}: {best_group:.0} GB/s = {:.1}% of the copy roof\n",
        size(largest),
        100.0 * best_group / roof
    );
    particles_check(access)
}

/// A last GPU-vs-CPU check of every partition on fresh random particles.
fn particles_check(access: &Access) -> Result<()> {
    let gpu = access.gpu();
    let (pos, vel) = particles::random((1 << 20) + 7, 5);
    let (mut want_p, mut want_v) = (pos.clone(), vel.clone());
    particles::update(&mut want_p, &mut want_v, STEP);
    for partition in Partition::ALL {
        let (mut p, mut v) = (gpu.upload(&pos)?, gpu.upload(&vel)?);
        access.update_particles(&mut p, &mut v, STEP, partition, 16)?;
        let (got_p, got_v) = (gpu.download(&p)?, gpu.download(&v)?);
        let close = |g: &[[f32; 4]], w: &[[f32; 4]]| {
            g.iter().zip(w).all(|(a, b)| (0..4).all(|k| (a[k] - b[k]).abs() <= 1e-6 * b[k].abs() + 1e-5))
        };
        if !close(&got_p, &want_p) || !close(&got_v, &want_v) {
            return Err(Error::InvalidInput(format!("bench self-check failed: particles {}", partition.name())));
        }
    }
    Ok(())
}

fn lighting_cpu(args: &BenchArgs) {
    println!("## access: tiled lighting on the CPU reference (rayon)\n");
    let mut table = Table::new(&["kernel", "image", "lights/tile", "time ms", "G light·px/s"]);
    let (name, w, h) = RESOLUTIONS[0];
    for count in [1, 4, 16, 64] {
        let (lights, tiles) = scene(w, h, count);
        let ms = cpu_median_ms(args.reps().min(3), || drop(lighting::shade(w, h, &lights, &tiles)));
        let (tx, ty) = tile_grid(w, h);
        let evals = (tx * ty) as f64 * 64.0 * count as f64;
        table.row(vec![
            "cpu-rayon".into(),
            name.into(),
            count.to_string(),
            format!("{ms:.3}"),
            giga(evals / (ms * 1e-3)),
        ]);
    }
    table.print();
    println!();
}

fn particles_cpu(args: &BenchArgs) {
    println!("## access: particle update on the CPU reference (rayon)\n");
    let mut table = Table::new(&["partition", "n", "time ms", "G items/s", "GB/s"]);
    for n in sizes(args.max_log2().min(24), 4) {
        let (mut p, mut v) = particles::random(n, 1);
        let ms = cpu_median_ms(args.reps().min(5), || particles::update(&mut p, &mut v, STEP));
        table.row(vec![
            "cpu-rayon".into(),
            size(n),
            format!("{ms:.3}"),
            giga(n as f64 / (ms * 1e-3)),
            format!("{:.1}", gbps(n as u64 * PARTICLE_BYTES, ms)),
        ]);
    }
    table.print();
}
