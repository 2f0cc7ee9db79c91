//! criterion benchmarks of select: every GPU variant, the device-to-device copy of the
//! same bytes (the roof) and the CPU reference. GPU time comes from CUDA events (`iter_custom`).
//! Without a GPU only the CPU reference runs.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::Gpu;
use warpwork_cpu_reference::{inputs, select};

const SIZES: [usize; 3] = [1 << 16, 1 << 22, 1 << 26];
const HALF: u32 = 1 << 31;

fn gpu_benches(c: &mut Criterion) {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => return eprintln!("select GPU benches skipped: {e}"),
    };
    let mut group = c.benchmark_group("select_gpu_50pct");
    for n in SIZES {
        let items = inputs::uniform_u32(n, 7);
        let kept = items.iter().filter(|&&v| v < HALF).count();
        let bytes = (n + kept) as u64 * 4;
        group.throughput(Throughput::Bytes(bytes));
        let input = gpu.upload(&items).unwrap();
        let mut out = gpu.zeros::<u32>(n).unwrap();
        for variant in Variant::ALL {
            let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, n)).unwrap();
            group.bench_function(BenchmarkId::new(variant.name(), n), |b| {
                b.iter_custom(|iters| {
                    let ms = gpu
                        .paced_time_ms(|| {
                            for _ in 0..iters {
                                gpu.fill_bytes(&mut state.slice_mut(0..1), 0)?;
                                gpu.select_into(
                                    &input,
                                    Keep::If(Predicate::Less(HALF)),
                                    variant,
                                    &mut out,
                                    &mut state,
                                )?;
                            }
                            Ok(())
                        })
                        .unwrap();
                    Duration::from_secs_f64(ms * 1e-3)
                })
            });
        }
        // The roof: a device-to-device copy moving the same number of bytes (read + write).
        let src = gpu.zeros::<u8>(bytes as usize / 2).unwrap();
        let mut dst = gpu.zeros::<u8>(bytes as usize / 2).unwrap();
        group.bench_function(BenchmarkId::new("copy_roof", n), |b| {
            b.iter_custom(|iters| {
                let ms = gpu
                    .paced_time_ms(|| {
                        for _ in 0..iters {
                            gpu.copy(&src, &mut dst)?;
                        }
                        Ok(())
                    })
                    .unwrap();
                Duration::from_secs_f64(ms * 1e-3)
            })
        });
    }
    group.finish();
}

fn cpu_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("select_cpu_50pct");
    group.sample_size(10);
    for n in [1 << 16, 1 << 22] {
        let items = inputs::uniform_u32(n, 7);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("rayon", n), |b| b.iter(|| select::select_if(&items, |v| v < HALF)));
    }
    group.finish();
}

criterion_group!(benches, gpu_benches, cpu_benches);
criterion_main!(benches);
