//! `warpwork bench WHAT`: one table per primitive, every number measured in this run.
//!
//! GPU times are CUDA-event medians after warm-up; each table states the device and the
//! device-to-device copy roof measured in the same run. Without a GPU the command says so and
//! times the CPU reference instead, so it works on any machine.
//!
//! `compact`, `expand` and `scan` also run CUB on the same inputs when the CUB peer library is
//! present ([`cub`]): their rows with a CUB twin get CUB's time and warpwork's speed relative to
//! it; without the peer those cells read "—".

mod access;
mod compact;
mod cub;
mod expand;
mod life;
mod scan;
mod startup;

use clap::{Args, ValueEnum};
use warpwork::{Error, Gpu};

#[derive(Clone, Copy, ValueEnum)]
pub enum What {
    /// Stream compaction: lane vs warp vs block atomics, and the ordered variant beside CUB's.
    Compact,
    /// Work expansion: every strategy (S0 … S3) and Auto, two-pass breakdown, fixed overhead.
    Expand,
    /// Device-wide exclusive scan, u32 and u64, 2^16 to 2^30.
    Scan,
    /// Memory access patterns: warp broadcast loads (tiled lighting), list partitioning (particles).
    Access,
    /// Game of Life: every kernel, cell updates per second.
    Life,
    /// A new process's wait for its first result, per kernel family: cubins vs PTX, driver
    /// cache disabled and warm.
    Startup,
}

#[derive(Args)]
pub struct BenchArgs {
    /// Which primitive to measure.
    what: What,
    /// Largest input as a power of two (inputs run from 2^16 up to this; default 30 for scan, 28
    /// for the others).
    #[arg(long = "max-log2", value_name = "MAX_LOG2", value_parser = clap::value_parser!(u32).range(16..=30))]
    max_log2_arg: Option<u32>,
    /// Timed repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Time every run on its own, the host waiting for each (no held stream): what a profiler
    /// such as Nsight Compute needs, which serializes and replays launches. Includes launch
    /// gaps, so the numbers are not the default mode's.
    #[arg(long)]
    paced: bool,
    /// Only the rows whose name contains ROW (compact: `lane`, `warp`, `block`, `ordered`,
    /// `flagged`; scan: `u32`, `u64`), and CUB only beside those.
    #[arg(long, value_name = "ROW")]
    only: Option<String>,
    /// One input size instead of the bench's range: `2^28` or `268435456` (compact, scan).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    size: Option<usize>,
}

/// `2^k` (k ≤ 40) or a plain count, at least 1.
fn parse_size(s: &str) -> Result<usize, String> {
    let n = match s.split_once('^') {
        Some(("2", k)) => match k.parse::<u32>() {
            Ok(k) if k <= 40 => 1usize << k,
            _ => return Err(format!("{s}: expected 2^k with k at most 40")),
        },
        Some(_) => return Err(format!("{s}: powers are written 2^k")),
        None => s.parse::<usize>().map_err(|e| format!("{s}: {e}"))?,
    };
    if n == 0 {
        return Err("the size must be at least 1".into());
    }
    Ok(n)
}

impl BenchArgs {
    /// `--max-log2`, or the bench's default.
    pub fn max_log2(&self) -> u32 {
        let default = if matches!(self.what, What::Scan) { 30 } else { 28 };
        self.max_log2_arg.unwrap_or(default)
    }

    /// Timed repetitions per measurement.
    pub fn reps(&self) -> usize {
        self.reps as usize
    }

    /// The sizes a bench of `step` runs: `--size`, or 2^16 … 2^max-log2.
    pub fn sizes(&self, step: usize) -> Vec<usize> {
        self.size.map_or_else(|| sizes(self.max_log2(), step), |n| vec![n])
    }

    /// Whether row `name` is wanted (`--only`).
    pub fn wants(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// The median device time of `f` over [`BenchArgs::reps`] runs after `warmup`: with the
    /// stream held ([`Gpu::median_ms`]), or each run on its own with `--paced`
    /// ([`Gpu::median_paced_ms`]).
    pub fn median_ms(
        &self,
        gpu: &Gpu,
        warmup: usize,
        f: impl FnMut() -> warpwork::Result<()>,
    ) -> warpwork::Result<f64> {
        self.median_of(gpu, warmup, self.reps(), f)
    }

    /// [`BenchArgs::median_ms`] over `reps` runs.
    pub fn median_of(
        &self,
        gpu: &Gpu,
        warmup: usize,
        reps: usize,
        f: impl FnMut() -> warpwork::Result<()>,
    ) -> warpwork::Result<f64> {
        if self.paced {
            gpu.median_paced_ms(warmup, reps, f)
        } else {
            gpu.median_ms(warmup, reps, f)
        }
    }

    /// Whether `--paced` was given.
    pub fn paced(&self) -> bool {
        self.paced
    }

    /// Checks what the options ask of the bench: an error before anything runs.
    fn check(&self) -> warpwork::Result<()> {
        let refuse = |m: String| Err(Error::InvalidInput(m));
        if self.size.is_some() && !matches!(self.what, What::Compact | What::Scan) {
            return refuse("--size is for compact and scan".into());
        }
        if self.only.is_some() && !matches!(self.what, What::Compact | What::Scan) {
            return refuse("--only is for compact and scan".into());
        }
        let rows: &[&str] = match self.what {
            What::Compact => &["lane", "warp", "block", "ordered", "ordered, flagged"],
            What::Scan => &["u32", "u64"],
            _ => &[],
        };
        if let Some(o) = &self.only {
            if !rows.iter().any(|r| r.contains(o.as_str())) {
                return refuse(format!("--only {o}: no row of this bench is named so (rows: {})", rows.join(", ")));
            }
        }
        Ok(())
    }
}

pub fn run(args: BenchArgs) -> warpwork::Result<()> {
    args.check()?;
    if let (What::Startup, Ok(family)) = (args.what, std::env::var(startup::CHILD)) {
        return startup::child(&family);
    }
    let gpu = match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e @ (Error::NoDriver | Error::NoDevice { .. } | Error::UnsupportedDevice { .. })) => {
            println!("No usable GPU ({e}): timing the CPU reference (rayon) instead.\n");
            None
        }
        Err(e) => return Err(e),
    };
    // The CUB peer, for the benches with CUB twins (and only with a GPU to run it on).
    let peer = match (&gpu, args.what) {
        (Some(_), What::Compact | What::Expand | What::Scan) => cub::CubPeer::find()?,
        _ => None,
    };
    let peer = peer.as_ref();
    match args.what {
        What::Compact => compact::run(gpu.as_ref(), peer, &args),
        What::Expand => expand::run(gpu.as_ref(), peer, &args),
        What::Scan => scan::run(gpu.as_ref(), peer, &args),
        What::Access => access::run(gpu.as_ref(), &args),
        What::Life => life::run(gpu.as_ref(), &args),
        What::Startup => startup::run(gpu.as_ref()),
    }
}

/// Sizes 2^16, 2^(16+step), ... up to 2^max_log2, plus 2^max_log2 itself.
pub fn sizes(max_log2: u32, step: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (16..=max_log2).step_by(step).map(|k| 1usize << k).collect();
    if *v.last().unwrap() != 1 << max_log2 {
        v.push(1 << max_log2);
    }
    v
}

/// Measures the device-to-device copy roof with a `roof_bytes` copy, prints the device line every
/// GPU table starts with (the roof included), and returns the roof in GB/s.
pub fn device_line(gpu: &Gpu, roof_bytes: usize) -> warpwork::Result<f64> {
    let roof_gbps = gpu.copy_roof_gbps(roof_bytes)?;
    let i = gpu.info();
    println!(
        "device: {} (CC {}.{}, {} SMs, kernels {}); copy roof {:.0} GB/s (read+write, {} MiB copy, this run)\n",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.sm_count,
        i.code,
        roof_gbps,
        roof_bytes >> 20
    );
    Ok(roof_gbps)
}

/// The line naming the CUB peer the CUB columns come from, or saying they are empty.
pub fn peer_line(peer: Option<&cub::CubPeer>) {
    match peer {
        Some(p) => println!("CUB peer: {}\n", p.describe()),
        None => println!(
            "CUB peer: absent (build it with peers/cub/build.sh, or set {}): the CUB columns read —\n",
            cub::ENV
        ),
    }
}

/// The CUB columns of a row with a CUB twin: CUB's time, and warpwork's speed relative to CUB's
/// (CUB's time / warpwork's; above 1 warpwork is faster), or "—" twice without the peer.
pub fn cub_cells(warpwork_ms: f64, cub_ms: Option<f64>) -> [String; 2] {
    match cub_ms {
        Some(c) => [format!("{c:.4}"), format!("{:.2}×", c / warpwork_ms)],
        None => ["—".into(), "—".into()],
    }
}

/// Median wall time of `f` on the CPU, in milliseconds.
pub fn cpu_median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let s = std::time::Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(line: &str) -> Result<BenchArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("bench").chain(line.split_whitespace())).map(|c| c.args)
    }

    #[test]
    fn sizes_are_powers_or_counts() {
        assert_eq!(parse_size("2^28"), Ok(1 << 28));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err() && parse_size("2^41").is_err() && parse_size("3^4").is_err());
        assert!(parse_size("2^").is_err() && parse_size("lots").is_err());
    }

    #[test]
    fn options_are_checked_before_anything_runs() {
        let args = parse("compact --only ordered --size 2^20 --paced").unwrap();
        assert!(args.check().is_ok() && args.paced());
        assert_eq!(args.sizes(4), [1 << 20]);
        assert!(args.wants("ordered, flagged") && !args.wants("block"));
        assert!(parse("compact --reps 0").is_err(), "no repetitions");
        assert!(parse("compact --only nothing").unwrap().check().is_err(), "a row no bench has");
        assert!(parse("life --size 2^20").unwrap().check().is_err(), "--size is not life's");
        assert_eq!(parse("scan").unwrap().sizes(2).len(), 8);
    }
}
