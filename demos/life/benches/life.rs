//! Criterion benchmarks of the Life kernels (GPU, timed with CUDA events) and the CPU reference.
//! Without a GPU the GPU groups are skipped with a note.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;
use warpwork::Gpu;
use warpwork_life::cpu;
use warpwork_life::{BitGrid, Kernel, Life};

/// Generations per iteration: a multiple of every kernel's generations per launch.
const GENS: u64 = 24;

fn gpu_kernels(c: &mut Criterion) {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("life GPU benches skipped: {e}");
            return;
        }
    };
    for side in [4096usize, 16384] {
        let start = BitGrid::random(side, side, 0.5, side as u64).expect("board");
        let mut group = c.benchmark_group(format!("life_gpu_{side}"));
        group.throughput(Throughput::Elements((side * side) as u64 * GENS));
        group.sample_size(10).measurement_time(Duration::from_secs(2));
        for kernel in Kernel::ALL {
            let mut life = Life::new(&gpu, kernel, &start).expect("board");
            group.bench_function(kernel.name(), |b| {
                b.iter_custom(|iters| {
                    let mut total = 0.0;
                    for _ in 0..iters {
                        total += gpu.paced_time_ms(|| life.step(GENS)).expect("step");
                    }
                    Duration::from_secs_f64(total * 1e-3)
                })
            });
        }
        group.finish();
    }
}

fn cpu_reference(c: &mut Criterion) {
    let mut group = c.benchmark_group("life_cpu");
    group.sample_size(10);
    for side in [256usize, 1024] {
        let start = cpu::BitGrid::random(side, side, 0.5, 1);
        group.throughput(Throughput::Elements((side * side) as u64));
        group.bench_function(format!("bit64_{side}"), |b| b.iter(|| cpu::step_once(&start)));
        if side <= 256 {
            group.bench_function(format!("simple_{side}"), |b| b.iter(|| cpu::step_simple(&start)));
        }
    }
    group.finish();
}

criterion_group!(benches, gpu_kernels, cpu_reference);
criterion_main!(benches);
