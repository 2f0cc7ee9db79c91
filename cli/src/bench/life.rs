//! `warpwork bench life`: every Life kernel on random boards (density 1/2) of 4096², 16384²
//! and 32768² cells, 24 generations per timing (a multiple of every kernel's generations per
//! launch). Reports cell updates per second and the fraction of the kernel's own bandwidth
//! limit: the copy roof divided by its bytes per cell and generation (8 for `u32` cells, 2 for
//! bytes, 1/4 for bits, 1/(4·k) for `k` generations per launch). Then a sweep of the strip
//! height of the temporally blocked kernels, and the rules table: the fastest kernel on B3/S23
//! and on other Life-like rules (`--rule`, or the named ones of [`RULES`]), each rule's speed
//! relative to B3/S23's in the same run. With `--gpus N`, one board over several GPUs instead
//! (`life_bands`); with `--gpus N --window ROWS`, its bands kept once and stepped through
//! windows (`life_window`).

use super::{cpu_stats, device_line, BenchArgs};
use crate::report::{Col, CpuNote, Report, Table, Value};
use warpwork::{Gpu, Result};
use warpwork_life::cpu;
use warpwork_life::{BitGrid, Kernel, Life, Rule};

/// Generations per timed run.
const GENS: u64 = 24;

/// Generations per timed run on the CPU reference.
const CPU_GENS: u64 = 4;
/// Boards the CPU reference runs: the first two of the GPU's.
const CPU_BOARDS: usize = 2;

const KERNEL: Col = Col::key("kernel", "kernel", "");
const BOARD: Col = Col::key("board", "board_side", "cells per side");
const MS_PER_GEN: Col = Col::timed("ms/gen", "time_per_generation", "ms");
const UPDATE_RATE: Col = Col::value("cell updates/s", "update_rate", "cell updates/s");

/// The rules table's default rules: B3/S23 first (the baseline), then the family Golly and
/// LifeWiki users run most.
pub const RULES: [(&str, &str); 7] = [
    ("B3/S23", "Life"),
    ("B36/S23", "HighLife"),
    ("B3678/S34678", "Day & Night"),
    ("B2/S", "Seeds"),
    ("B368/S245", "Morley"),
    ("B36/S125", "2x2"),
    ("B3/S012345678", "Life without death"),
];

/// Board sides measured: those with at most `4 · 2^max_log2` cells (all three by default).
pub fn sides(args: &BenchArgs) -> Vec<usize> {
    [4096usize, 16384, 32768].into_iter().filter(|s| s * s <= 1usize << (args.max_log2() + 2)).collect()
}

/// Cell updates per second, `x.xxxe13` in the table.
fn rate(cells: usize, gens: u64, ms: f64) -> Value {
    Value::sci(cells as f64 * gens as f64 / (ms * 1e-3))
}

/// A board side, `4096²` in the table.
fn board(side: usize) -> Value {
    Value::Num { v: side as f64, shown: format!("{side}²") }
}

pub fn run(gpu: Option<&Gpu>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    match (args.gpus, args.window) {
        (Some(n), Some(rows)) => return super::life_window::run(gpu, n as usize, rows, args, report),
        (Some(n), None) => return super::life_bands::run(gpu, n as usize, args, report),
        _ => {}
    }
    let rules = if args.rules.is_empty() { "B3/S23" } else { "Life-like rules" };
    report.say(format!("## life: {rules} on a torus, random start (density 1/2), {GENS} generations per timing\n"));
    match gpu {
        Some(gpu) => run_gpu(gpu, args, report),
        None => run_cpu(args, report),
    }
}

fn run_gpu(gpu: &Gpu, args: &BenchArgs, report: &mut Report) -> Result<()> {
    let roof = device_line(gpu, 1 << 30, report)?;
    let reps = args.reps().clamp(1, 7);
    if args.rules.is_empty() {
        kernel_tables(gpu, args, roof, reps, report)?;
    }
    rules_table(gpu, args, reps, report)
}

/// The rules table: [`Kernel::FASTEST`] on each rule at the boards of 16384² cells and up (or
/// the largest that `--max-log2` allows), B3/S23 first; the last column is the rule's update
/// rate relative to B3/S23's on the same board.
fn rules_table(gpu: &Gpu, args: &BenchArgs, reps: usize, report: &mut Report) -> Result<()> {
    let mut rules: Vec<(Rule, String)> = Vec::new();
    let named = |r: Rule| RULES.iter().find(|(s, _)| s.parse::<Rule>().ok() == Some(r)).map(|(_, n)| n.to_string());
    let given: Vec<Rule> = args.rules.iter().map(|r| r.parse()).collect::<Result<_>>()?;
    let list =
        if given.is_empty() { RULES.iter().map(|(r, _)| r.parse()).collect::<Result<Vec<Rule>>>()? } else { given };
    for r in std::iter::once(Rule::CONWAY).chain(list) {
        if !rules.iter().any(|(x, _)| *x == r) {
            rules.push((r, named(r).unwrap_or_default()));
        }
    }
    let all = sides(args);
    let big: Vec<usize> = all.iter().copied().filter(|&s| s >= 16384).collect();
    let boards = if big.is_empty() { all.last().copied().into_iter().collect() } else { big };
    let kernel = Kernel::FASTEST;
    report.say(format!("\n### rules: {kernel} on Life-like rules, relative to B3/S23\n"));
    let rule_col = Col::key("rule", "rule", "");
    let cols = [
        rule_col,
        Col::value("name", "name", ""),
        BOARD,
        MS_PER_GEN,
        UPDATE_RATE,
        Col::value("vs B3/S23", "relative_to_b3s23", "%"),
    ];
    let mut table = Table::new("rules", &cols);
    for side in boards {
        let start = BitGrid::random(side, side, 0.5, side as u64)?;
        let cells = side * side;
        let mut base = None;
        for (rule, name) in &rules {
            let mut life = Life::new(gpu, kernel, &start)?;
            life.set_rule(*rule)?;
            let t = args.time_of(gpu, 1, reps, || life.step(GENS))?;
            let per_sec = cells as f64 * GENS as f64 / (t.median * 1e-3);
            let base_rate = *base.get_or_insert(per_sec);
            table.row(vec![
                Value::text(rule.to_string()),
                Value::text(name.clone()),
                board(side),
                Value::time(t.scaled(1.0 / GENS as f64), 4),
                rate(cells, GENS, t.median),
                Value::fixed(100.0 * per_sec / base_rate, 1),
            ]);
        }
    }
    report.table(table);
    Ok(())
}

/// Every kernel on B3/S23 at every board, then the strip-height sweep.
fn kernel_tables(gpu: &Gpu, args: &BenchArgs, roof: f64, reps: usize, report: &mut Report) -> Result<()> {
    let cols = [
        KERNEL,
        BOARD,
        Col::value("B/cell/gen", "bytes_per_cell_generation", "B"),
        MS_PER_GEN,
        UPDATE_RATE,
        Col::value("GB/s", "bandwidth", "GB/s"),
        Col::value("% own roof", "own_roof_share", "% of copy roof / bytes per cell and generation"),
    ];
    let mut table = Table::new("life", &cols);
    let strip_rows = Col::key("strip rows", "strip_rows", "rows");
    let mut tune = Table::new("strip height", &[KERNEL, BOARD, strip_rows, MS_PER_GEN, UPDATE_RATE]);
    for side in sides(args) {
        let start = BitGrid::random(side, side, 0.5, side as u64)?;
        let cells = side * side;
        let mut check: Option<(BitGrid, u64)> = None;
        for kernel in Kernel::ALL {
            let mut life = Life::new(gpu, kernel, &start)?;
            let t = args.time_of(gpu, 1, reps, || life.step(GENS))?;
            let ms = t.median;
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
                Value::text(kernel.name()),
                board(side),
                Value::fixed(kernel.bytes_per_cell(), 4),
                Value::time(t.scaled(1.0 / GENS as f64), 4),
                rate(cells, GENS, ms),
                Value::fixed(gbs, 0),
                Value::fixed(100.0 * gbs / roof, 1),
            ]);
        }
        if side >= 16384 {
            for kernel in [Kernel::Bit64T4, Kernel::Bit64T8, Kernel::Bit64T12, Kernel::Bit64T8Flat] {
                let mut life = Life::new(gpu, kernel, &start)?;
                for rows in [None, Some(48), Some(64), Some(96), Some(128), Some(192), Some(256), Some(512)] {
                    life.set_strip_rows(rows)?;
                    let t = args.time_of(gpu, 1, reps, || life.step(GENS))?;
                    let chosen = life.strip_rows(kernel.generations_per_launch());
                    tune.row(vec![
                        Value::text(kernel.name()),
                        board(side),
                        match rows {
                            Some(r) => Value::Int(r as u64),
                            // Text, so that the row's keys differ from those of the same height given.
                            None => Value::text(format!("default ({chosen})")),
                        },
                        Value::time(t.scaled(1.0 / GENS as f64), 4),
                        rate(cells, GENS, t.median),
                    ]);
                }
            }
        }
    }
    report.table(table);
    report.say("\n### strip height of the temporally blocked kernels\n");
    report.table(tune);
    Ok(())
}

fn run_cpu(args: &BenchArgs, report: &mut Report) -> Result<()> {
    if !args.rules.is_empty() {
        report.say("The rules table (--rule) needs a GPU: the CPU reference is timed on B3/S23.\n");
    }
    let sides = sides(args);
    let (timed, dropped) = sides.split_at(sides.len().min(CPU_BOARDS));
    let cells = |v: &[usize]| v.iter().map(|s| s * s).collect::<Vec<_>>();
    let reps = args.reps().min(3);
    let mut note = CpuNote::new("warpwork_life::cpu::step (bit64)", reps, "cells", &cells(timed), &cells(dropped));
    note.generations = Some(CPU_GENS);
    let mut table = Table::cpu("life", &[KERNEL, BOARD, MS_PER_GEN, UPDATE_RATE], note);
    for &side in timed {
        let start = cpu::BitGrid::random(side, side, 0.5, side as u64);
        let t = cpu_stats(reps, || {
            std::hint::black_box(cpu::step(&start, CPU_GENS));
        });
        table.row(vec![
            Value::text("cpu-bit64 (rayon)"),
            board(side),
            Value::time(t.scaled(1.0 / CPU_GENS as f64), 3),
            rate(side * side, CPU_GENS, t.median),
        ]);
    }
    report.table(table);
    Ok(())
}
