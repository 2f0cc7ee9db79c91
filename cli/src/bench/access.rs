//! `warpwork bench access`: the two memory-access-pattern studies.
//!
//! * Tiled lighting at 1080p and 4K with 1..4096 lights per tile (lists are windows of an
//!   8192-light pool): naive (every lane loads every light), broadcast (one load per 32 lights,
//!   `shfl.sync.idx` per word) and staged (one load per 32 lights through shared memory).
//!   Reported in light·pixel evaluations per second and as speedup over naive.
//! * Particle update (32 bytes read + 32 written per particle) with the list split thread-wise,
//!   group-wise (block tiles) and grid-stride, for 1..64 items per thread: GB/s and % of the copy
//!   roof measured in the same run.

use super::{cpu_stats, device_line, sizes, BenchArgs};
use crate::report::cols::{BANDWIDTH, ITEMS_RATE, N, ROOF, TIME};
use crate::report::{size, Col, CpuNote, Report, Table, Value};
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

/// The CPU reference's light counts per tile (at 1080p only), and its largest particle update.
const CPU_LIGHTS_PER_TILE: [u32; 4] = [1, 4, 16, 64];
const CPU_MAX_LOG2: u32 = 24;

const KERNEL: Col = Col::key("kernel", "kernel", "");
const IMAGE: Col = Col::key("image", "image", "");
const LIGHTS: Col = Col::key("lights/tile", "lights_per_tile", "lights");
const EVAL_RATE: Col = Col::value("G light·px/s", "eval_rate", "G light·pixel evaluations/s");
const PARTITION: Col = Col::key("partition", "partition", "");

/// The particle counts of the bench: every fourth power of two from 2^16 to 2^max-log2.
pub fn particle_sizes(args: &BenchArgs) -> Vec<usize> {
    sizes(args.max_log2(), 4)
}

pub fn run(gpu: Option<&Gpu>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    match gpu {
        Some(gpu) => {
            let roof_bytes = ((1usize << args.max_log2()) * 32).min(1 << 30);
            let roof = device_line(gpu, roof_bytes, report)?;
            let access = Access::new(gpu)?;
            lighting_gpu(&access, args, report)?;
            particles_gpu(&access, args, roof, report)
        }
        None => {
            lighting_cpu(args, report);
            particles_cpu(args, report);
            Ok(())
        }
    }
}

fn scene(w: u32, h: u32, count: u32) -> (Vec<lighting::Light>, Vec<TileLights>) {
    let lights = lighting::random_lights(POOL as usize, w, h, 16.0, 256.0, 11);
    let tiles = lighting::random_tiles(w, h, POOL, count, count, count as u64);
    (lights, tiles)
}

fn lighting_gpu(access: &Access, args: &BenchArgs, report: &mut Report) -> Result<()> {
    let gpu = access.gpu();
    report.say(format!("## access: tiled lighting (8×8 tiles, 32-byte lights, lists into an {POOL}-light pool)\n"));
    report.say("body `point`: point-light falloff (~20 flops + a division per light); `raw`: WaveLane's");
    report.say("loop, summing the light records (8 adds per light). speedup = naive time / this time.\n");
    let cols = [
        Col::key("body", "body", ""),
        KERNEL,
        IMAGE,
        LIGHTS,
        TIME,
        EVAL_RATE,
        Col::value("speedup", "speedup", "naive median time / this median time"),
    ];
    let mut table = Table::new("lighting", &cols);
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
                    let t = args.time(gpu, 2, || {
                        access.shade_tiles_into(w, h, &d_lights, &d_tiles, shading, kernel, &mut out)
                    })?;
                    let ms = t.median;
                    if let Some(want) = &want {
                        self_check(&gpu.download(&out)?, want, kernel)?;
                    }
                    if kernel == LightingKernel::Naive {
                        naive_ms = ms;
                    }
                    let evals = (tx * ty) as f64 * 64.0 * count as f64;
                    table.row(vec![
                        Value::text(if shading == Shading::Point { "point" } else { "raw" }),
                        Value::text(kernel.name()),
                        Value::text(format!("{name} ({tx}×{ty} tiles)")),
                        Value::Int(count.into()),
                        Value::time(t, 4),
                        Value::giga(evals / (ms * 1e-3)),
                        Value::ratio(naive_ms / ms),
                    ]);
                }
            }
        }
    }
    report.table(table);
    report.say("");
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

fn particles_gpu(access: &Access, args: &BenchArgs, roof: f64, report: &mut Report) -> Result<()> {
    let gpu = access.gpu();
    report.say("## access: particle update (pos + vel, f32x4 each: 32 B read + 32 B written per particle)\n");
    let sizes = particle_sizes(args);
    let largest = *sizes.last().unwrap();
    // 0x3C bytes are the float 0.0115: valid, positive positions and velocities.
    let mut pos = gpu.filled::<[f32; 4]>(largest, 0x3C)?;
    let mut vel = gpu.filled::<[f32; 4]>(largest, 0x3C)?;
    let items_per_thread = Col::key("items/thread", "items_per_thread", "items");
    let mut table = Table::new("particles", &[PARTITION, N, items_per_thread, TIME, ITEMS_RATE, BANDWIDTH, ROOF]);
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
                let t = args.time(gpu, 2, || access.update_particles(p, v, STEP, partition, ipt))?;
                let ms = t.median;
                let rate = gbps(n as u64 * PARTICLE_BYTES, ms);
                if n == largest && partition != Partition::ThreadWise {
                    best_group = best_group.max(rate);
                }
                table.row(vec![
                    Value::text(partition.name()),
                    Value::Size(n as u64),
                    Value::Int(ipt.into()),
                    Value::time(t, 4),
                    Value::giga(n as f64 / (ms * 1e-3)),
                    Value::fixed(rate, 0),
                    Value::fixed(100.0 * rate / roof, 1),
                ]);
            }
        }
    }
    report.table(table);
    report.say(format!(
        "\nbest group-wise/grid-stride at n = {}: {best_group:.0} GB/s = {:.1}% of the copy roof\n",
        size(largest),
        100.0 * best_group / roof
    ));
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

fn lighting_cpu(args: &BenchArgs, report: &mut Report) {
    report.say("## access: tiled lighting on the CPU reference (rayon)\n");
    let (name, w, h) = RESOLUTIONS[0];
    let reps = args.reps().min(3);
    let counts = CPU_LIGHTS_PER_TILE.map(|c| c as usize);
    let dropped: Vec<usize> = LIGHTS_PER_TILE.map(|c| c as usize).into_iter().filter(|c| !counts.contains(c)).collect();
    let reference = format!("warpwork_access::cpu::lighting::shade ({name} only, the point body)");
    let note = CpuNote::new(reference, reps, "lights per tile", &counts, &dropped);
    let mut table = Table::cpu("lighting", &[KERNEL, IMAGE, LIGHTS, TIME, EVAL_RATE], note);
    for count in CPU_LIGHTS_PER_TILE {
        let (lights, tiles) = scene(w, h, count);
        let t = cpu_stats(reps, || drop(lighting::shade(w, h, &lights, &tiles)));
        let (tx, ty) = tile_grid(w, h);
        let evals = (tx * ty) as f64 * 64.0 * count as f64;
        table.row(vec![
            Value::text("cpu-rayon"),
            Value::text(name),
            Value::Int(count.into()),
            Value::time(t, 3),
            Value::giga(evals / (t.median * 1e-3)),
        ]);
    }
    report.table(table);
    report.say("");
}

fn particles_cpu(args: &BenchArgs, report: &mut Report) {
    report.say("## access: particle update on the CPU reference (rayon)\n");
    let (timed, dropped): (Vec<usize>, Vec<usize>) =
        particle_sizes(args).into_iter().partition(|&n| n <= 1 << CPU_MAX_LOG2);
    let reps = args.reps().min(5);
    let note = CpuNote::new("warpwork_access::cpu::particles::update", reps, "particles", &timed, &dropped);
    let mut table = Table::cpu("particles", &[PARTITION, N, TIME, ITEMS_RATE, BANDWIDTH], note);
    for &n in &timed {
        let (mut p, mut v) = particles::random(n, 1);
        let t = cpu_stats(reps, || particles::update(&mut p, &mut v, STEP));
        table.row(vec![
            Value::text("cpu-rayon"),
            Value::Size(n as u64),
            Value::time(t, 3),
            Value::giga(n as f64 / (t.median * 1e-3)),
            Value::fixed(gbps(n as u64 * PARTICLE_BYTES, t.median), 1),
        ]);
    }
    report.table(table);
}
