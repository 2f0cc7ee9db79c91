//! `warpwork bench life`: every Life kernel on random boards (density 1/2) of 4096², 16384²
//! and 32768² cells, 24 generations per timing (a multiple of every kernel's generations per
//! launch). Reports cell updates per second and the fraction of the kernel's own bandwidth
//! limit: the copy roof divided by its bytes per cell and generation (8 for `u32` cells, 2 for
//! bytes, 1/4 for bits, 1/(4·k) for `k` generations per launch). Then a sweep of the strip
//! height of the temporally blocked kernels.

use super::{cpu_median_ms, device_line, BenchArgs};
use crate::table::Table;
use warpwork::{Gpu, Result};
use warpwork_life::cpu;
use warpwork_life::{BitGrid, Kernel, Life};

/// Generations per timed run.
const GENS: u64 = 24;

/// Board sides measured: those with at most `4 · 2^max_log2` cells (all three by default).
fn sides(args: &BenchArgs) -> Vec<usize> {
    [4096usize, 16384, 32768].into_iter().filter(|s| s * s <= 1usize << (args.max_log2() + 2)).collect()
}

/// Cell updates per second as `x.xxe13`.
fn rate(cells: usize, gens: u64, ms: f64) -> String {
    format!("{:.3e}", cells as f64 * gens as f64 / (ms * 1e-3))
}

pub fn run(gpu: Option<&Gpu>, args: &BenchArgs) -> Result<()> {
    println!("## life: B3/S23 on a torus, random start (density 1/2), {GENS} generations per timing\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, args),
        None => run_cpu(args),
    }
}

fn run_gpu(gpu: &Gpu, args: &BenchArgs) -> Result<()> {
    let roof = device_line(gpu, 1 << 30)?;
    let reps = args.reps().clamp(1, 7);
    let mut table = Table::new(&["kernel", "board", "B/cell/gen", "ms/gen", "cell updates/s", "GB/s", "% own roof"]);
    let mut tune = Table::new(&["kernel", "board", "strip rows", "ms/gen", "cell updates/s"]);
    for side in sides(args) {
        let start = BitGrid::random(side, side, 0.5, side as u64)?;
        let cells = side * side;
        let mut check: Option<(BitGrid, u64)> = None;
        for kernel in Kernel::ALL {
            let mut life = Life::new(gpu, kernel, &start)?;
            let ms = args.median_of(gpu, 1, reps, || life.step(GENS))?;
            // Self-check: every kernel must agree after the same number of generations.
            let g = life.generation();
            let grid = life.grid()?;
            match &check {
                Some((want, at)) if *at == g => {
                    if grid != *want {
                        return Err(warpwork::Error::InvalidInput(format!("bench self-check: {kernel} disagrees")));
                    }
                }
                _ => check = Some((grid, g)),
            }
            let bytes = kernel.bytes_per_cell() * cells as f64 * GENS as f64;
            let gbs = bytes / (ms * 1e-3) / 1e9;
            table.row(vec![
                kernel.name().into(),
                format!("{side}²"),
                format!("{:.4}", kernel.bytes_per_cell()),
                format!("{:.4}", ms / GENS as f64),
                rate(cells, GENS, ms),
                format!("{gbs:.0}"),
                format!("{:.1}", 100.0 * gbs / roof),
            ]);
        }
        if side >= 16384 {
            for kernel in [Kernel::Bit64T4, Kernel::Bit64T8, Kernel::Bit64T12, Kernel::Bit64T8Flat] {
                let mut life = Life::new(gpu, kernel, &start)?;
                for rows in [None, Some(48), Some(64), Some(96), Some(128), Some(192), Some(256), Some(512)] {
                    life.set_strip_rows(rows)?;
                    let ms = args.median_of(gpu, 1, reps, || life.step(GENS))?;
                    tune.row(vec![
                        kernel.name().into(),
                        format!("{side}²"),
                        rows.map_or(format!("default ({})", life.strip_rows(kernel.generations_per_launch())), |r| {
                            r.to_string()
                        }),
                        format!("{:.4}", ms / GENS as f64),
                        rate(cells, GENS, ms),
                    ]);
                }
            }
        }
    }
    table.print();
    println!("\n### strip height of the temporally blocked kernels\n");
    tune.print();
    Ok(())
}

fn run_cpu(args: &BenchArgs) -> Result<()> {
    let mut table = Table::new(&["kernel", "board", "ms/gen", "cell updates/s"]);
    for side in sides(args).into_iter().take(2) {
        let start = cpu::BitGrid::random(side, side, 0.5, side as u64);
        let gens = 4;
        let ms = cpu_median_ms(args.reps().min(3), || {
            std::hint::black_box(cpu::step(&start, gens));
        });
        table.row(vec![
            "cpu-bit64 (rayon)".into(),
            format!("{side}²"),
            format!("{:.3}", ms / gens as f64),
            rate(side * side, gens, ms),
        ]);
    }
    table.print();
    Ok(())
}
