//! Criterion benchmarks of the access-pattern kernels: tiled lighting (naive / broadcast /
//! staged) at 1080p and particle updates (thread-wise / group-wise / grid-stride), timed on the
//! GPU with CUDA events, plus the CPU references. Without a GPU only the CPU groups run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use warpwork::Gpu;
use warpwork_access::cpu::{lighting, particles};
use warpwork_access::{tile_grid, Access, LightingKernel, Partition, Shading, Step};

const STEP: Step = Step { dt: 1e-3, gravity: [0.0, -9.81, 0.0] };
const W: u32 = 1920;
const H: u32 = 1080;

fn gpu_time(gpu: &Gpu, iters: u64, mut f: impl FnMut() -> warpwork::Result<()>) -> Duration {
    let ms = gpu
        .paced_time_ms(|| {
            for _ in 0..iters {
                f()?;
            }
            Ok(())
        })
        .expect("GPU work");
    Duration::from_secs_f64(ms * 1e-3)
}

fn lighting_bench(c: &mut Criterion, access: Option<&Access>) {
    let mut g = c.benchmark_group("lighting_1080p");
    let (tx, ty) = tile_grid(W, H);
    for count in [16u32, 256] {
        let lights = lighting::random_lights(8192, W, H, 16.0, 256.0, 1);
        let tiles = lighting::random_tiles(W, H, 8192, count, count, 2);
        g.throughput(Throughput::Elements(tx as u64 * ty as u64 * 64 * count as u64));
        match access {
            Some(access) => {
                let gpu = access.gpu();
                let (dl, dt) = (gpu.upload(&lights).unwrap(), gpu.upload(&tiles).unwrap());
                let mut out = gpu.zeros::<[f32; 4]>((W * H) as usize).unwrap();
                for kernel in LightingKernel::ALL {
                    g.bench_function(BenchmarkId::new(kernel.name(), count), |b| {
                        b.iter_custom(|iters| {
                            gpu_time(gpu, iters, || {
                                access.shade_tiles_into(W, H, &dl, &dt, Shading::Point, kernel, &mut out)
                            })
                        })
                    });
                }
            }
            None if count == 16 => {
                g.sample_size(10);
                g.bench_function(BenchmarkId::new("cpu-rayon", count), |b| {
                    b.iter(|| lighting::shade(W, H, &lights, &tiles))
                });
            }
            None => {}
        }
    }
    g.finish();
}

fn particles_bench(c: &mut Criterion, access: Option<&Access>) {
    let mut g = c.benchmark_group("particles");
    let n = 1usize << 24;
    g.throughput(Throughput::Bytes(n as u64 * 64));
    match access {
        Some(access) => {
            let gpu = access.gpu();
            let mut p = gpu.filled::<[f32; 4]>(n, 0x3C).unwrap();
            let mut v = gpu.filled::<[f32; 4]>(n, 0x3C).unwrap();
            for partition in Partition::ALL {
                for ipt in [1u32, 16, 64] {
                    g.bench_function(BenchmarkId::new(partition.name(), format!("2^24/ipt{ipt}")), |b| {
                        b.iter_custom(|iters| {
                            gpu_time(gpu, iters, || access.update_particles(&mut p, &mut v, STEP, partition, ipt))
                        })
                    });
                }
            }
        }
        None => {
            let (mut p, mut v) = particles::random(n, 1);
            g.sample_size(10);
            g.bench_function(BenchmarkId::new("cpu-rayon", "2^24"), |b| {
                b.iter(|| particles::update(&mut p, &mut v, STEP))
            });
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            println!("note: no usable GPU ({e}); skipping the GPU groups, timing the CPU references only");
            None
        }
    };
    let access = gpu.as_ref().map(|gpu| Access::new(gpu).expect("loading the access kernels"));
    lighting_bench(c, access.as_ref());
    particles_bench(c, access.as_ref());
}

criterion_group!(access, benches);
criterion_main!(access);
