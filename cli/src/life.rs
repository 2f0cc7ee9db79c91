//! `warpwork life`: run a Life pattern (or a random soup) on the GPU, or on the CPU reference
//! where there is none, and save the result as PNG and/or RLE.

use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;
use warpwork::life::{pattern, BitGrid, Kernel, Life};
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::life as cpu;

#[derive(Args)]
pub struct LifeArgs {
    /// Pattern: an `.rle` or `.cells` file, or a built-in name (glider, blinker, block, beehive,
    /// toad, pulsar, glider-gun, r-pentomino, acorn). Without one: a random soup.
    pattern: Option<String>,
    /// Board size `WxH` (the pattern is centred in it).
    #[arg(long, default_value = "2048x2048", value_parser = parse_size)]
    size: (usize, usize),
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
    /// Write a PNG snapshot of the final board (live cells black).
    #[arg(long)]
    png: Option<PathBuf>,
    /// The part of the board the PNG shows, `X,Y,WxH` (default: the whole board up to 4096x4096,
    /// else the 4096x4096 centre).
    #[arg(long, value_parser = parse_window)]
    window: Option<(usize, usize, usize, usize)>,
    /// Pixels per cell in the PNG (default: enough to make small boards at least 512 pixels).
    #[arg(long)]
    scale: Option<usize>,
    /// Write the final board as RLE.
    #[arg(long)]
    rle: Option<PathBuf>,
}

fn parse_size(s: &str) -> std::result::Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("{s:?}: expected WxH, e.g. 1024x768"))?;
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{v:?} in {s:?}: {e}"));
    Ok((p(w)?, p(h)?))
}

fn parse_window(s: &str) -> std::result::Result<(usize, usize, usize, usize), String> {
    let mut parts = s.splitn(3, ',');
    let (x, y, size) = match (parts.next(), parts.next(), parts.next()) {
        (Some(x), Some(y), Some(size)) => (x, y, size),
        _ => return Err(format!("{s:?}: expected X,Y,WxH")),
    };
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{v:?} in {s:?}: {e}"));
    let (w, h) = parse_size(size)?;
    Ok((p(x)?, p(y)?, w, h))
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
    let (w, h) = args.size;
    let (start, name) = match &args.pattern {
        Some(p) => {
            let text = match pattern::builtin(p) {
                Some(t) => t.to_string(),
                None => std::fs::read_to_string(p)
                    .map_err(|e| Error::InvalidInput(format!("{p}: {e} (and not a built-in pattern name)")))?,
            };
            let pat = pattern::parse(&text).map_err(|e| Error::InvalidInput(format!("{p}: {e}")))?;
            let name = pat.name.clone().unwrap_or_else(|| p.clone());
            (pattern::centred(&pat.grid, w, h)?, name)
        }
        None => {
            if !(0.0..=1.0).contains(&args.density) {
                return Err(Error::InvalidInput(format!("density {} is not in 0..=1", args.density)));
            }
            (BitGrid::random(w, h, args.density, args.seed), format!("random soup, density {}", args.density))
        }
    };
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
    println!("{name} on a {w}x{h} torus, {} generations, population {}", args.generations, start.population());
    let (end, secs, what) = match &gpu {
        Some(gpu) => run_gpu(gpu, &args, &start)?,
        None => {
            let t = Instant::now();
            let end = with_progress(args.generations, start, |g, n| Ok(cpu::step(&g, n)))?;
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
    if let Some(path) = &args.png {
        let window = args.window.unwrap_or_else(|| {
            let (ww, wh) = (w.min(4096), h.min(4096));
            ((w - ww) / 2, (h - wh) / 2, ww, wh)
        });
        write_png(&end, path, window, args.scale)?;
        println!("wrote {} ({}x{} cells at ({}, {}))", path.display(), window.2, window.3, window.0, window.1);
    }
    if let Some(path) = &args.rle {
        let text = pattern::to_rle(&end, Some(&format!("{name}, generation {}", args.generations)));
        std::fs::write(path, text).map_err(|e| Error::InvalidInput(format!("{}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn run_gpu(gpu: &Gpu, args: &LifeArgs, start: &BitGrid) -> Result<(BitGrid, f64, String)> {
    let (w, h) = (start.width(), start.height());
    let kernel = if args.kernel == "auto" {
        if w % 64 == 0 {
            Kernel::FASTEST
        } else if w % 32 == 0 {
            Kernel::Bit32
        } else {
            Kernel::Tiled
        }
    } else {
        args.kernel.parse()?
    };
    let mut life = Life::new(gpu, kernel, start)?;
    gpu.synchronize()?;
    let t = Instant::now();
    let mut done = 0;
    let mut bar = Progress::new(args.generations);
    let mut chunk = 16u64;
    while done < args.generations {
        let n = chunk.min(args.generations - done);
        let c = Instant::now();
        life.step(n)?;
        gpu.synchronize()?;
        done += n;
        bar.update(done, w * h, t.elapsed().as_secs_f64());
        // Aim for about 10 progress updates a second.
        if c.elapsed().as_secs_f64() < 0.05 {
            chunk *= 2;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    bar.finish();
    let i = gpu.info();
    Ok((life.grid()?, secs, format!("GPU {} kernel {kernel}", i.name)))
}

/// Steps on the CPU in chunks with a progress bar.
fn with_progress(gens: u64, start: BitGrid, step: impl Fn(BitGrid, u64) -> Result<BitGrid>) -> Result<BitGrid> {
    let cells = start.width() * start.height();
    let mut bar = Progress::new(gens);
    let t = Instant::now();
    let (mut g, mut done, mut chunk) = (start, 0, 1u64);
    while done < gens {
        let n = chunk.min(gens - done);
        let c = Instant::now();
        g = step(g, n)?;
        done += n;
        bar.update(done, cells, t.elapsed().as_secs_f64());
        if c.elapsed().as_secs_f64() < 0.05 {
            chunk *= 2;
        }
    }
    bar.finish();
    Ok(g)
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

    fn update(&mut self, done: u64, cells: usize, secs: f64) {
        if !self.tty || (secs < 0.5 && !self.shown) {
            return;
        }
        self.shown = true;
        let width = 40;
        let filled = (done as f64 / self.total.max(1) as f64 * width as f64) as usize;
        let rate = cells as f64 * done as f64 / secs.max(1e-9);
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

/// Writes cells `window = (x, y, w, h)` of `g` as a 1-bit grayscale PNG, `scale` pixels per cell.
fn write_png(g: &BitGrid, path: &PathBuf, window: (usize, usize, usize, usize), scale: Option<usize>) -> Result<()> {
    let (x0, y0, ww, wh) = window;
    if ww == 0 || wh == 0 || x0 + ww > g.width() || y0 + wh > g.height() {
        return Err(Error::InvalidInput(format!(
            "PNG window {ww}x{wh} at ({x0}, {y0}) is not inside the {}x{} board",
            g.width(),
            g.height()
        )));
    }
    let scale = scale.unwrap_or_else(|| (512 / ww.max(wh)).clamp(1, 16)).max(1);
    let (pw, ph) = (ww * scale, wh * scale);
    if pw > 1 << 16 || ph > 1 << 16 {
        return Err(Error::InvalidInput(format!("a {pw}x{ph} pixel PNG is too large: choose a --window")));
    }
    let io = |e: std::io::Error| Error::InvalidInput(format!("{}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), pw as u32, ph as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::One);
    let png_err = |e: png::EncodingError| Error::InvalidInput(format!("{}: {e}", path.display()));
    let mut writer = enc.write_header().map_err(png_err)?;
    let stride = pw.div_ceil(8);
    let mut data = vec![0xffu8; stride * ph];
    for y in 0..wh {
        for x in 0..ww {
            if g.get(x0 + x, y0 + y) {
                for sy in 0..scale {
                    let row = &mut data[(y * scale + sy) * stride..];
                    for sx in 0..scale {
                        let px = x * scale + sx;
                        row[px / 8] &= !(0x80 >> (px % 8));
                    }
                }
            }
        }
    }
    writer.write_image_data(&data).map_err(png_err)?;
    writer.finish().map_err(png_err)?;
    Ok(())
}
