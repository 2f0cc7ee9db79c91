//! `warpwork bench life --gpus N --window ROWS`: one Life board over N GPUs with each band kept
//! once and stepped through windows of ROWS rows ([`Bands::with_window`]), the fastest kernel,
//! random start (density 1/2), wall-clock times of [`GENS`] generations with every GPU
//! synchronized, and the device memory each GPU's board takes (the drop in the free memory the
//! driver reports, after a step, and the boards' sizes; the largest over the GPUs).
//!
//! * **What windows cost**: the weak-scaling board of `bench life --gpus` (`side × side` per
//!   GPU, 32768 by default) with two boards per band, then through windows with halos of 8 and
//!   of 32 rows.
//! * **The board that needs them**: a `--size × --size` board (2^20 by default: 128 GiB
//!   bit-packed, which two boards per band cannot fit on two 80 GB GPUs) through windows,
//!   halos of 8 and 32 rows.

use super::life_bands::{
    board, free_bytes, rate, wall, BOARD, GENS, GPUS, HALO, KERNEL, MS_PER_GEN, NO_LIMITS, RATE, WIDE,
};
use super::{life, BenchArgs};
use crate::report::{Col, Report, Table, Value};
use warpwork::multi::Gpus;
use warpwork::{Gpu, Result};
use warpwork_life::{BandedLife, Bands, BitGrid};

const WINDOW: Col = Col::key("window", "window", "rows");
const VS: Col = Col::value("vs two boards", "relative_to_two_boards", "× the two-board rate");
const MEMORY: Col = Col::value("GiB/GPU", "device_memory_per_gpu", "GiB (the drop in free memory)");
const BOARDS: Col = Col::value("boards GiB/GPU", "board_memory_per_gpu", "GiB (band and windows, computed)");

pub fn run(gpu: Option<&Gpu>, n: usize, window: usize, args: &BenchArgs, report: &mut Report) -> Result<()> {
    if gpu.is_none() {
        report.say("`--gpus` needs GPUs: nothing to time on the CPU.\n");
        return Ok(());
    }
    let count = Gpu::device_count()?;
    if count < n {
        report.say(format!("{n} GPUs asked for, {count} found: timing {count}.\n"));
    }
    let n = n.min(count);
    let gpus = Gpus::new(&(0..n).collect::<Vec<_>>())?;
    let reps = args.reps().clamp(1, 5);
    report.say(format!(
        "## life over GPUs through windows: {KERNEL}, each band kept once and stepped {window} rows at a time, random start (density 1/2), {GENS} generations per timing, wall clock with every GPU synchronized\n"
    ));
    report.fact("gpus", Value::Int(n as u64));
    // NCCL makes its buffers at the first exchange: before the measured boards.
    let mut warm = BandedLife::new(&gpus, KERNEL, &BitGrid::new(64, 64 * n)?)?;
    warm.step(8)?;
    gpus.synchronize()?;
    drop(warm);

    let side = *life::sides(args).last().expect("checked: life has a size to run");
    let (w, h) = (side, side * n);
    let cols = [BOARD, GPUS, WINDOW, HALO, MS_PER_GEN, RATE, VS, MEMORY, BOARDS];
    let mut cost = Table::new("life windows", &cols);
    let base = measure(&gpus, Bands::new(KERNEL), w, h, reps)?;
    cost.row(row(&base, w, h, n, None));
    for halo in [8, 32] {
        let t = measure(&gpus, Bands::new(KERNEL).with_halo(halo).with_window(window), w, h, reps)?;
        cost.row(row(&t, w, h, n, Some(base.rate)));
    }
    report
        .say(format!("\n### what windows cost: {side} × {side} cells per GPU, two boards per band against windows\n"));
    report.table(cost);

    // Without `--size`, the 2^20 × 2^20 board.
    let side = args.size().unwrap_or(WIDE);
    let mut large = Table::new("life windows large board", &cols);
    for halo in [8, 32] {
        let plan = Bands::new(KERNEL).with_halo(halo).with_window(window);
        match measure(&gpus, plan, side, side, reps.min(3)) {
            Ok(t) => large.row(row(&t, side, side, n, None)),
            Err(e) => report.say(format!("{side} × {side}, halo {halo}: {e}\n")),
        }
    }
    report.say(format!(
        "\n### the board that needs windows: {side} × {side} cells, {} GiB bit-packed\n",
        (side as u64 * side as u64 / 8) >> 30
    ));
    report.table(large);
    Ok(())
}

/// A timed board: its rate, the memory its board takes on the fullest GPU, its plan.
struct Measured {
    t: crate::report::Stats,
    rate: f64,
    bytes: u64,
    /// The bytes of the boards on the fullest GPU, from their sizes.
    boards: u64,
    window: Option<usize>,
    halo: usize,
}

/// [`GENS`] generations of a random `w × h` board split by `plan`, and the device memory it
/// takes: each GPU's free memory before the board is made less its free memory after a step.
fn measure(gpus: &Gpus, plan: Bands, w: usize, h: usize, reps: usize) -> Result<Measured> {
    gpus.synchronize()?;
    let before = free_bytes(gpus)?;
    let mut life = BandedLife::random_with_limits(gpus, plan, w, h, 0.5, 1, &NO_LIMITS)?;
    let t = wall(gpus, reps, || life.step(GENS))?;
    let after = free_bytes(gpus)?;
    let bytes = before.iter().zip(&after).map(|(b, a)| b.saturating_sub(*a)).max().unwrap_or(0);
    let rate = rate(w, h, &t);
    let (d, window) = (life.halo(), life.window());
    // Bit boards: w / 8 bytes a row; a band of h rows takes h + 2d rows, twice without windows;
    // with them, once and min(r, h) + d rows to move into, and two windows of min(r, h) + 2d.
    let rows = |h: usize| match window {
        Some(r) => h + 2 * d + (r.min(h) + d) + 2 * (r.min(h) + 2 * d),
        None => 2 * (h + 2 * d),
    };
    let boards = life.rows().iter().map(|r| (rows(r.len()) * w / 8) as u64).max().unwrap_or(0);
    Ok(Measured { t, rate, bytes, boards, window, halo: d })
}

/// The table row of a measured board on `n` GPUs; `base` is the two-board rate to compare with.
fn row(m: &Measured, w: usize, h: usize, n: usize, base: Option<f64>) -> Vec<Value> {
    vec![
        board(w, h),
        Value::Int(n as u64),
        match m.window {
            Some(r) => Value::Int(r as u64),
            None => Value::text("none (two boards)"),
        },
        Value::Int(m.halo as u64),
        Value::time(m.t.scaled(1.0 / GENS as f64), 4),
        Value::sci(m.rate),
        base.map_or(Value::BLANK, |b| Value::ratio(m.rate / b)),
        Value::fixed(m.bytes as f64 / (1u64 << 30) as f64, 2),
        Value::fixed(m.boards as f64 / (1u64 << 30) as f64, 2),
    ]
}
