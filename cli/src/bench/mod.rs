//! `warpwork bench WHAT`: one table per primitive, every number measured in this run.
//!
//! GPU times are CUDA events after warm-up, every repetition kept: tables show the median, JSON
//! and CSV (`--format`, [`crate::report`]) min, median and max. Each run states the device and
//! the device-to-device copy roof measured in it. Without a GPU the command says so and times the
//! CPU reference instead, saying what it timed, so it works on any machine.
//!
//! `compact`, `expand`, `scan` and `reduce` also run CUB on the same inputs when the CUB peer library is
//! present ([`cub`]): their rows with a CUB twin get CUB's time and warpwork's speed relative to
//! it; without the peer those cells read "—".

mod access;
mod args;
mod compact;
mod cub;
mod expand;
mod family;
mod life;
mod life_bands;
mod life_window;
mod multi;
mod reduce;
mod scan;
mod startup;
mod timing;

pub use args::BenchArgs;
use args::What;
use timing::cpu_stats;

use crate::report::{Report, Stats, Value};
use warpwork::{Error, Gpu};

pub fn run(args: BenchArgs) -> warpwork::Result<()> {
    args.check()?;
    if let (What::Startup, Ok(family)) = (args.what, std::env::var(startup::CHILD)) {
        return startup::child(&family);
    }
    if args.what == What::Multi {
        return run_multi(&args);
    }
    let (gpu, mut report) = match Gpu::new(0) {
        Ok(gpu) => {
            let device = gpu.info().name.clone();
            (Some(gpu), Report::new(args.format, args.what.name(), device))
        }
        Err(e @ (Error::NoDriver | Error::NoDevice { .. } | Error::UnsupportedDevice { .. })) => {
            let mut report = Report::new(args.format, args.what.name(), cpu_name());
            report.say(format!("No usable GPU ({e}): timing the CPU reference (rayon) instead.\n"));
            report.fact("no_gpu", Value::text(e.to_string()));
            (None, report)
        }
        Err(e) => return Err(e),
    };
    // The CUB peer, for the benches with CUB twins (and only with a GPU to run it on).
    let peer = match (&gpu, args.what) {
        (Some(_), What::Compact | What::Expand | What::Scan | What::Reduce) => cub::CubPeer::find()?,
        _ => None,
    };
    let peer = peer.as_ref();
    let r = &mut report;
    match args.what {
        What::Compact => compact::run(gpu.as_ref(), peer, &args, r),
        What::Expand => expand::run(gpu.as_ref(), peer, &args, r),
        What::Scan => scan::run(gpu.as_ref(), peer, &args, r),
        What::Reduce => reduce::run(gpu.as_ref(), peer, &args, r),
        What::Access => access::run(gpu.as_ref(), &args, r),
        What::Life => life::run(gpu.as_ref(), &args, r),
        What::Startup => startup::run(gpu.as_ref(), r),
        What::Multi => multi::run(&args, r), // (run_multi above returns first)
    }?;
    report.finish();
    Ok(())
}

/// `bench multi`: several GPUs, or a line saying why not (it has no CPU twin).
fn run_multi(args: &BenchArgs) -> warpwork::Result<()> {
    let device = match Gpu::new(0) {
        Ok(gpu) => gpu.info().name.clone(),
        Err(e @ (Error::NoDriver | Error::NoDevice { .. } | Error::UnsupportedDevice { .. })) => {
            let mut report = Report::new(args.format, args.what.name(), cpu_name());
            report.say(format!("No usable GPU ({e}): the multi-GPU bench has nothing to time.\n"));
            report.fact("no_gpu", Value::text(e.to_string()));
            report.finish();
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let mut report = Report::new(args.format, args.what.name(), device);
    multi::run(args, &mut report)?;
    report.finish();
    Ok(())
}

/// The device of a run without a GPU: "cpu: " and the processor's model where the system says it.
fn cpu_name() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|info| {
        info.lines().find_map(|l| {
            l.strip_prefix("model name").map(|m| m.trim_start_matches([' ', '\t', ':']).trim().to_string())
        })
    });
    format!("cpu: {}", model.unwrap_or_else(|| std::env::consts::ARCH.into()))
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
pub fn device_line(gpu: &Gpu, roof_bytes: usize, report: &mut Report) -> warpwork::Result<f64> {
    let roof_gbps = gpu.copy_roof_gbps(roof_bytes)?;
    report.fact("copy_roof_gbps", Value::fixed(roof_gbps, 0));
    let i = gpu.info();
    report.say(format!(
        "device: {} (CC {}.{}, {} SMs, kernels {}); copy roof {:.0} GB/s (read+write, {} MiB copy, this run)\n",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.sm_count,
        i.code,
        roof_gbps,
        roof_bytes >> 20
    ));
    Ok(roof_gbps)
}

/// The line naming the CUB peer the CUB columns come from, or saying they are empty.
pub fn peer_line(peer: Option<&cub::CubPeer>, report: &mut Report) {
    match peer {
        Some(p) => {
            report.fact("cub_peer", Value::text(p.describe()));
            report.say(format!("CUB peer: {}\n", p.describe()));
        }
        None => report.say(format!(
            "CUB peer: absent (build it with peers/cub/build.sh, or set {}): the CUB columns read —\n",
            cub::ENV
        )),
    }
}

/// The CUB columns of a row with a CUB twin: CUB's time, and warpwork's speed relative to CUB's
/// (CUB's median time / warpwork's; above 1 warpwork is faster), or "—" twice without the peer.
pub fn cub_cells(warpwork_ms: f64, cub: Option<Stats>) -> [Value; 2] {
    match cub {
        Some(c) => [Value::time(c, 4), Value::ratio(c.median / warpwork_ms)],
        None => [Value::DASH, Value::DASH],
    }
}
