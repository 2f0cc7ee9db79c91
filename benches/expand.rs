//! Criterion benchmarks of work expansion: the CPU reference, and on a GPU every strategy at
//! P1 = 2^16 with N ~ U[0, 64) (pass 1 + pass 2, materialized pairs) plus the exclusive scan.
//! Without a GPU the GPU groups are skipped with a note.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;
use warpwork_cpu_reference::{expand as cpu, inputs};

const P1: usize = 1 << 16;

fn bench(c: &mut Criterion) {
    let counts = inputs::uniform_range(P1, 1, 0, 64);
    let p2 = cpu::total(&counts) as usize;

    let mut g = c.benchmark_group("expand_cpu");
    g.throughput(Throughput::Elements(p2 as u64));
    g.bench_function("rayon", |b| b.iter(|| cpu::expand(&counts)));
    g.finish();

    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("expand: no GPU ({e}); skipping the GPU groups");
            return;
        }
    };
    let d = gpu.upload(&counts).unwrap();
    let mut out = gpu.zeros::<[u32; 2]>(p2).unwrap();
    let mut g = c.benchmark_group("expand_gpu");
    g.throughput(Throughput::Elements(p2 as u64));
    let mut list = vec![Strategy::MaxN { max_n: 64 }];
    list.extend(Strategy::UNBOUNDED);
    for s in list {
        let mut e = gpu.expander(s, P1, p2).unwrap();
        g.bench_function(BenchmarkId::new(s.name(), P1), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let ms =
                        gpu.paced_time_ms(|| e.pass1(&gpu, &d)?.pass2(&gpu, &mut out, Dispatch::Persistent)).unwrap();
                    total += Duration::from_secs_f64(ms * 1e-3);
                }
                total
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("scan_gpu");
    let n = 1 << 24;
    let v = inputs::uniform_range(n, 2, 0, 64);
    let d = gpu.upload(&v).unwrap();
    let mut o = gpu.zeros::<u32>(n).unwrap();
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("exclusive_scan_u32", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += Duration::from_secs_f64(gpu.paced_time_ms(|| gpu.exclusive_scan(&d, &mut o)).unwrap() * 1e-3);
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
