//! `warpwork life`: run a Life pattern (or a random soup) on the GPU, or on the CPU reference
//! where there is none, under B3/S23 or any other Life-like rule, and save the result as PNG
//! and/or RLE.
//!
//! Every argument is checked before any work ([`plan`]): sizes, offsets and their products,
//! the kernel (without a GPU too), the size limits, the output files (opened before the run).
//! Errors are typed and printed; no argument makes it panic.

mod output;
mod plan;

use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;
use warpwork::multi::Gpus;
use warpwork::{Error, Gpu, Result};
use warpwork_life::cpu;
use warpwork_life::{pattern, BandedLife, BitGrid, Kernel, Life, Limits, Rule};

#[derive(Args)]
pub struct LifeArgs {
    /// Pattern: an `.rle` or `.cells` file, or a built-in name (glider, blinker, block, beehive,
    /// toad, pulsar, glider-gun, r-pentomino, acorn). Without one: a random soup.
    pattern: Option<String>,
    /// Board size `WxH` (the pattern is centred in it) [default: the rule's torus suffix, else
    /// 2048x2048]. A `--size` that differs from the rule's torus is an error.
    #[arg(long, value_parser = plan::parse_size)]
    size: Option<(usize, usize)>,
    /// The rule, overriding the pattern file's: any Life-like rule in Golly's notations
    /// (`B36/S23`, `b36s23`, or survival first `23/36`), optionally with a torus suffix
    /// `:T<width>,<height>` that sets the board size (other bounded grids, `:P`, `:K`, `:C`,
    /// `:S`, shifted or infinite tori, are refused). Default: the pattern file's rule, else B3/S23.
    /// B0 rules run exactly on the torus (no complement trick is needed on a finite board).
    #[arg(long)]
    rule: Option<String>,
    /// Generations to run.
    #[arg(long, short, default_value_t = 1000)]
    generations: u64,
    /// Kernel (`warpwork life --kernel list` prints them); `auto` picks the fastest that fits.
    #[arg(long, default_value = "auto")]
    kernel: String,
    /// Density of the random soup (when no pattern is given).
    #[arg(long, default_value_t = 0.35)]
    density: f64,
    /// Seed of the random soup.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run on the CPU reference even if there is a GPU.
    #[arg(long)]
    cpu: bool,
    /// Split the board over the first N GPUs: a band of rows each, halo rows exchanged through
    /// NCCL (needs libnccl.so on the loader path; set NCCL_NVLS_ENABLE=0 on NVSwitch machines).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    gpus: Option<u32>,
    /// Write a PNG snapshot of the final board (live cells black).
    #[arg(long)]
    png: Option<PathBuf>,
    /// The part of the board the PNG shows, `X,Y,WxH` (default: the whole board up to 4096x4096,
    /// else the 4096x4096 centre).
    #[arg(long, value_parser = plan::parse_window)]
    window: Option<(usize, usize, usize, usize)>,
    /// Pixels per cell in the PNG (default: enough to make small boards at least 512 pixels;
    /// at most 65536 pixels a side).
    #[arg(long)]
    scale: Option<usize>,
    /// Write the final board as RLE.
    #[arg(long)]
    rle: Option<PathBuf>,
    /// Largest board (and pattern) in cells; the default, 2^36, is a 262144x262144 board.
    #[arg(long, default_value_t = Limits::DEFAULT.max_cells)]
    max_cells: u64,
    /// Largest board in bytes (bit-packed, rows padded to 64-bit words) and largest pattern
    /// file; the default, 2^33, is 8 GiB.
    #[arg(long, default_value_t = Limits::DEFAULT.max_bytes)]
    max_bytes: u64,
}

pub fn run(args: LifeArgs) -> Result<()> {
    if args.kernel == "list" {
        for k in Kernel::ALL {
            println!(
                "{:<15} {:.4} B/cell/gen, {} generation(s) per launch",
                k.name(),
                k.bytes_per_cell(),
                k.generations_per_launch()
            );
        }
        return Ok(());
    }
    if args.cpu && args.gpus.is_some() {
        return Err(Error::InvalidInput("--cpu and --gpus together: one or the other".into()));
    }
    let plan = plan::Plan::new(&args)?;
    if let Some(n) = args.gpus {
        // The split over the GPUs, checked before any work like the rest of the plan.
        warpwork_life::Bands::new(plan.gpu_kernel()?).split(plan.width, plan.height, n as usize)?;
    }
    let (start, name) = plan.start(&args)?;
    let (w, h) = (plan.width, plan.height);
    let gpu = if args.cpu {
        None
    } else {
        match Gpu::new(0) {
            Ok(g) => Some(g),
            Err(e @ (Error::NoDriver | Error::NoDevice { .. } | Error::UnsupportedDevice { .. })) => {
                println!("No usable GPU ({e}): running on the CPU reference (rayon) instead.");
                None
            }
            Err(e) => return Err(e),
        }
    };
    let rule = plan.rule.rule;
    println!(
        "{name} on a {w}x{h} torus, rule {rule}, {} generations, population {}",
        args.generations,
        start.population()
    );
    let (end, secs, what) = match &gpu {
        Some(_) if args.gpus.is_some() => {
            let n = args.gpus.unwrap_or(1) as usize;
            run_bands(n, plan.gpu_kernel()?, rule, args.generations, &start)?
        }
        Some(gpu) => run_gpu(gpu, plan.gpu_kernel()?, rule, args.generations, &start)?,
        None => {
            let t = Instant::now();
            let end = run_cpu(rule, args.generations, start, &plan.limits)?;
            (end, t.elapsed().as_secs_f64(), "CPU reference (rayon, 64 cells per word)".to_string())
        }
    };
    let updates = w as f64 * h as f64 * args.generations as f64;
    println!(
        "{what}: {} generations in {secs:.3} s, {:.3e} cell updates/s; final population {}",
        args.generations,
        updates / secs.max(1e-9),
        end.population()
    );
    if let Some((out, view)) = plan.png {
        let path = out.shown().to_owned();
        out.write(|f| output::write_png(&end, view, f))?;
        println!("wrote {path} ({}x{} cells at ({}, {}))", view.width, view.height, view.x, view.y);
    }
    if let Some(out) = plan.rle {
        let path = out.shown().to_owned();
        let title = format!("{name}, generation {}", args.generations);
        out.write(|f| pattern::write_rle_with(&end, Some(&title), &plan.rule, f))?;
        println!("wrote {path}");
    }
    Ok(())
}

fn run_gpu(gpu: &Gpu, kernel: Kernel, rule: Rule, generations: u64, start: &BitGrid) -> Result<(BitGrid, f64, String)> {
    let cells = start.width() as f64 * start.height() as f64;
    let mut life = Life::new(gpu, kernel, start)?;
    life.set_rule(rule)?;
    gpu.synchronize()?;
    let secs = in_chunks(generations, cells, 16, |n| {
        life.step(n)?;
        gpu.synchronize()
    })?;
    let i = gpu.info();
    Ok((life.grid()?, secs, format!("GPU {} kernel {kernel}", i.name)))
}

/// The board split over the first `n` GPUs ([`BandedLife`]), stepped in chunks like `run_gpu`.
fn run_bands(
    n: usize,
    kernel: Kernel,
    rule: Rule,
    generations: u64,
    start: &BitGrid,
) -> Result<(BitGrid, f64, String)> {
    let cells = start.width() as f64 * start.height() as f64;
    let gpus = Gpus::new(&(0..n).collect::<Vec<_>>())?;
    let mut life = BandedLife::new(&gpus, kernel, start)?;
    life.set_rule(rule)?;
    gpus.synchronize()?;
    let secs = in_chunks(generations, cells, 16, |k| {
        life.step(k)?;
        gpus.synchronize()
    })?;
    let heights: Vec<String> = life.rows().iter().map(|r| r.len().to_string()).collect();
    let what = format!(
        "{n} GPU(s) {} kernel {kernel}, bands of {} rows, halos of {}",
        gpus.gpu(0).info().name,
        heights.join("/"),
        life.halo()
    );
    Ok((life.grid()?, secs, what))
}

/// Steps on the CPU reference in chunks with a progress bar, between two boards allocated up
/// front (within `limits`, a typed error if the memory is not there) and swapped.
fn run_cpu(rule: Rule, generations: u64, start: BitGrid, limits: &Limits) -> Result<BitGrid> {
    let (w, h) = (start.width(), start.height());
    let spare = BitGrid::with_limits(w, h, limits)?;
    let as_cpu = |g: BitGrid| {
        cpu::BitGrid::from_words(w, h, g.into_words())
            .ok_or_else(|| Error::InvalidInput("CPU reference board of another size".into()))
    };
    let (mut cur, mut next) = (as_cpu(start)?, as_cpu(spare)?);
    in_chunks(generations, w as f64 * h as f64, 1, |n| {
        for _ in 0..n {
            cpu::step_once_into_with(&cur, &mut next, rule);
            std::mem::swap(&mut cur, &mut next);
        }
        Ok(())
    })?;
    BitGrid::from_words(w, h, cur.into_words())
}

/// Runs `generations` generations through `step(n)` in chunks with a progress bar, the first
/// chunk `chunk` generations, doubling while a chunk takes under 0.05 s (to aim for about 10
/// progress updates a second); returns the seconds the stepping took.
fn in_chunks(generations: u64, cells: f64, mut chunk: u64, mut step: impl FnMut(u64) -> Result<()>) -> Result<f64> {
    let mut bar = Progress::new(generations);
    let t = Instant::now();
    let mut done = 0;
    while done < generations {
        let n = chunk.min(generations - done);
        let c = Instant::now();
        step(n)?;
        done += n;
        bar.update(done, cells, t.elapsed().as_secs_f64());
        if c.elapsed().as_secs_f64() < 0.05 {
            chunk = chunk.saturating_mul(2);
        }
    }
    let secs = t.elapsed().as_secs_f64();
    bar.finish();
    Ok(secs)
}

/// A one-line progress bar on stderr, shown only on a terminal and for runs over half a second.
struct Progress {
    total: u64,
    shown: bool,
    tty: bool,
}

impl Progress {
    fn new(total: u64) -> Self {
        Progress { total, shown: false, tty: std::io::stderr().is_terminal() }
    }

    fn update(&mut self, done: u64, cells: f64, secs: f64) {
        if !self.tty || (secs < 0.5 && !self.shown) {
            return;
        }
        self.shown = true;
        let width = 40;
        let filled = (done as f64 / self.total.max(1) as f64 * width as f64) as usize;
        let rate = cells * done as f64 / secs.max(1e-9);
        let eta = secs / done.max(1) as f64 * (self.total - done) as f64;
        eprint!(
            "\r[{}{}] {done}/{} generations, {rate:.2e} cell updates/s, {eta:.0} s left ",
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.total
        );
        let _ = std::io::stderr().flush();
    }

    fn finish(&self) {
        if self.shown {
            eprintln!();
        }
    }
}
