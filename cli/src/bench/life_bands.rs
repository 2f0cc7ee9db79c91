//! `warpwork bench life --gpus N`: one Life board over 1 … N GPUs ([`BandedLife`]), the fastest
//! kernel (bit64-t8-flat, halos of 8 rows), random start (density 1/2), wall-clock times of
//! [`GENS`] generations with every GPU synchronized.
//!
//! * **Weak scaling**: a `side × side` band per GPU (`side` = the largest board of
//!   `bench life`, 32768 by default), so the board grows with the GPUs.
//! * **Strong scaling**: one `2·side × 2·side` board (65536² by default) over 1 … N GPUs, and
//!   beside it the same board on one GPU as a plain [`Life`] (no halo, no exchange).
//!   On 2 GPUs and more, also halos of 32 rows (one exchange per four launches).
//! * **NCCL's share**: each row also times the exchanges alone ([`BandedLife::exchange`], as
//!   many as the step makes), as a share of the step's time.
//! * **The largest board**: a board 2^20 cells wide, as tall as the N GPUs' free memory holds.
//!   A 2^20 × 2^20 board is 128 GiB bit-packed, and the bit kernels need a second board to
//!   write (a warp reads rows that other warps of the launch are writing), so it needs 2 × 128 GiB
//!   over the GPUs: more than two 80 GB GPUs hold. The bench says how tall a board fits and
//!   times it. `--window ROWS` keeps each band once instead (`life_window`), which fits it.

use super::{life, BenchArgs};
use crate::report::{Col, Report, Stats, Table, Value};
use std::time::Instant;
use warpwork::multi::Gpus;
use warpwork::{Error, Gpu, Result};
use warpwork_life::{BandedLife, Bands, Kernel, Life, Limits};

/// Generations per timed run: 12 exchanges of 8-row halos.
pub(super) const GENS: u64 = 96;
/// The kernel every band runs.
pub(super) const KERNEL: Kernel = Kernel::FASTEST;
/// The width of the largest board (and the side of `life_window`'s board that needs windows).
pub(super) const WIDE: usize = 1 << 20;
/// Device memory each GPU keeps free beside the largest board (NCCL's buffers, the modules).
const SPARE_BYTES: usize = 3 << 30;

/// Any board the bench makes: it sizes them to the GPUs' memory itself.
pub(super) const NO_LIMITS: Limits = Limits::DEFAULT.with_max_cells(u64::MAX).with_max_bytes(u64::MAX);

pub(super) const BOARD: Col = Col::key("board", "board", "cells");
pub(super) const GPUS: Col = Col::key("GPUs", "gpus", "");
const ROWS: Col = Col::value("rows/GPU", "rows_per_gpu", "rows");
pub(super) const HALO: Col = Col::key("halo", "halo", "rows");
pub(super) const MS_PER_GEN: Col = Col::timed("ms/gen", "time_per_generation", "ms");
pub(super) const RATE: Col = Col::value("cell updates/s", "update_rate", "cell updates/s");
const SCALING: Col = Col::value("vs 1 GPU", "speedup", "× the 1-GPU rate");
const EXCHANGE: Col = Col::timed("exchange ms/gen", "exchange_per_generation", "ms");
const SHARE: Col = Col::value("exchange share", "exchange_share", "% of the step");

pub fn run(gpu: Option<&Gpu>, max_gpus: usize, args: &BenchArgs, report: &mut Report) -> Result<()> {
    if gpu.is_none() {
        report.say("`--gpus` needs GPUs: nothing to time on the CPU.\n");
        return Ok(());
    }
    let count = Gpu::device_count()?;
    let n = max_gpus.min(count);
    if n < max_gpus {
        report.say(format!("{max_gpus} GPUs asked for, {count} found: timing 1 … {n}.\n"));
    }
    let side = *life::sides(args).last().expect("checked: life has a size to run");
    let reps = args.reps().clamp(1, 5);
    report.say(format!(
        "## life over GPUs: {KERNEL}, halo of 8 rows, random start (density 1/2), {GENS} generations per timing, wall clock with every GPU synchronized\n"
    ));
    report.fact("gpus", Value::Int(n as u64));
    // One handle per GPU count, the first k GPUs: NCCL's communicators are made for a set of ranks.
    let cols = [BOARD, GPUS, ROWS, HALO, MS_PER_GEN, RATE, SCALING, EXCHANGE, SHARE];
    let mut weak = Table::new("life weak scaling", &cols);
    let mut strong = Table::new("life strong scaling", &cols);
    let (mut weak_base, mut strong_base) = (None, None);
    for k in 1..=n {
        let gpus = Gpus::new(&(0..k).collect::<Vec<_>>())?;
        let (w, h) = (side, side * k);
        let row = time_board(&gpus, Bands::new(KERNEL), w, h, reps)?;
        weak.row(cells(&row, w, h, k, &mut weak_base));
        let (w, h) = (2 * side, 2 * side);
        if k == 1 {
            // The plain one-GPU board: what the bands' halos and exchanges cost on one GPU.
            let mut life = Life::random(gpus.gpu(0), KERNEL, w, h, 0.5, 1)?;
            let t = wall(&gpus, reps, || life.step(GENS))?;
            let rate = rate(w, h, &t);
            strong.row(vec![
                board(w, h),
                Value::text("1 (Life)"),
                Value::Int(h as u64),
                Value::text("none"),
                Value::time(t.scaled(1.0 / GENS as f64), 4),
                Value::sci(rate),
                Value::BLANK,
                Value::BLANK,
                Value::BLANK,
            ]);
        }
        let row = time_board(&gpus, Bands::new(KERNEL), w, h, reps)?;
        strong.row(cells(&row, w, h, k, &mut strong_base));
        if k > 1 {
            // Deeper halos: one exchange per 4 launches, 2 × 32 rows recomputed per GPU.
            let row = time_board(&gpus, Bands::new(KERNEL).with_halo(32), w, h, reps)?;
            strong.row(cells(&row, w, h, k, &mut strong_base));
        }
    }
    report.say(format!("\n### weak scaling: {side} × {side} cells per GPU\n"));
    report.table(weak);
    report.say(format!("\n### strong scaling: one {} × {} board\n", 2 * side, 2 * side));
    report.table(strong);
    largest(n, reps, report)
}

/// A timed banded board: the step's and the exchanges' times, rows per GPU, halo depth.
struct Timed {
    step: Stats,
    exchange: Stats,
    rows: usize,
    halo: usize,
}

/// [`GENS`] generations of a random `w × h` board split by `plan`, and as many exchanges alone
/// as those generations make.
fn time_board(gpus: &Gpus, plan: Bands, w: usize, h: usize, reps: usize) -> Result<Timed> {
    let mut life = BandedLife::random_with_limits(gpus, plan, w, h, 0.5, 1, &NO_LIMITS)?;
    let step = wall(gpus, reps, || life.step(GENS))?;
    let exchanges = GENS.div_ceil(life.halo() as u64);
    let exchange = wall(gpus, reps, || (0..exchanges).try_for_each(|_| life.exchange()))?;
    Ok(Timed { step, exchange, rows: life.rows()[0].len(), halo: life.halo() })
}

/// The row of a timed board on `k` GPUs; `base` is the 1-GPU rate of the same table.
fn cells(t: &Timed, w: usize, h: usize, k: usize, base: &mut Option<f64>) -> Vec<Value> {
    let rate = rate(w, h, &t.step);
    let base = *base.get_or_insert(rate);
    vec![
        board(w, h),
        Value::Int(k as u64),
        Value::Int(t.rows as u64),
        Value::Int(t.halo as u64),
        Value::time(t.step.scaled(1.0 / GENS as f64), 4),
        Value::sci(rate),
        Value::ratio(rate / base),
        Value::time(t.exchange.scaled(1.0 / GENS as f64), 4),
        Value::fixed(100.0 * t.exchange.median / t.step.median, 1),
    ]
}

/// Cell updates per second of a `w × h` board stepped [`GENS`] generations in `t` (ms).
pub(super) fn rate(w: usize, h: usize, t: &Stats) -> f64 {
    (w * h) as f64 * GENS as f64 / (t.median * 1e-3)
}

/// Each GPU's free device memory, as the driver reports it.
pub(super) fn free_bytes(gpus: &Gpus) -> Result<Vec<u64>> {
    (0..gpus.len())
        .map(|rank| {
            gpus.gpu(rank).context().bind_to_thread()?;
            Ok(warpwork::cudarc::driver::result::mem_get_info()?.0 as u64)
        })
        .collect()
}

/// `W × H` in the table.
pub(super) fn board(w: usize, h: usize) -> Value {
    Value::text(format!("{w} × {h}"))
}

/// Wall-clock [`Stats`] (ms) of `reps` runs of `f` after one untimed, every GPU synchronized
/// before and after each.
pub(super) fn wall(gpus: &Gpus, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<Stats> {
    f()?;
    gpus.synchronize()?;
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        f()?;
        gpus.synchronize()?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Stats::of(samples))
}

/// The tallest board 2^20 cells wide that `n` GPUs hold (two bit boards per band, halos
/// included, [`SPARE_BYTES`] left free on each), timed; and what 2^20 × 2^20 would need.
fn largest(n: usize, reps: usize, report: &mut Report) -> Result<()> {
    let gpus = Gpus::new(&(0..n).collect::<Vec<_>>())?;
    let row_bytes = WIDE / 8;
    let halo = Bands::new(KERNEL).halo();
    let mut rows_per_gpu = usize::MAX;
    for free in free_bytes(&gpus)? {
        let fits = (free as usize).saturating_sub(SPARE_BYTES) / (2 * row_bytes);
        rows_per_gpu = rows_per_gpu.min(fits.saturating_sub(2 * halo) / 1024 * 1024);
    }
    let need = 2 * (WIDE * WIDE / 8) / n;
    report.say(format!(
        "\n### the largest board: {WIDE} cells wide\n\n\
         A {WIDE} × {WIDE} board is {} GiB bit-packed; its bands need {} GiB per GPU on {n} GPU(s) \
         (the bit kernels write a second board: a warp reads rows that other warps of the same \
         launch write, so no kernel updates in place). The GPUs hold {rows_per_gpu} rows each.\n",
        (WIDE * WIDE / 8) >> 30,
        need >> 30,
    ));
    if rows_per_gpu < halo {
        report.say("Not even one band fits: skipped.\n");
        return Ok(());
    }
    let (w, h) = (WIDE, rows_per_gpu * n);
    let mut table = Table::new("life largest board", &[BOARD, GPUS, ROWS, HALO, MS_PER_GEN, RATE, EXCHANGE, SHARE]);
    let t = time_board(&gpus, Bands::new(KERNEL), w, h, reps.min(3)).map_err(|e| match e {
        Error::Driver(d) => Error::InvalidInput(format!("the {w} × {h} board did not fit after all: {d}")),
        e => e,
    })?;
    let mut row = cells(&t, w, h, n, &mut None);
    row.remove(6); // no 1-GPU rate to compare with
    table.row(row);
    report.table(table);
    Ok(())
}
