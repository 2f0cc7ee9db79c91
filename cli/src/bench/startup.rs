//! `warpwork bench startup`: how long a fresh process waits for its first result, per kernel
//! family, from cubins and from PTX, with the driver's compilation cache disabled
//! (`CUDA_CACHE_DISABLE=1`, as on a fresh machine, a CI runner or after a driver update) and
//! enabled and warm.
//!
//! Each measurement is a new process (this binary again, with [`CHILD`] naming the family): a
//! process's first CUDA call pays for the driver's initialisation, which no in-process loop can
//! repeat. The child stamps wall-clock times (shared between processes) at its start, once
//! `Gpu::new` returns, and once the first result is on the host; the parent stamps the spawn.

use crate::report::{Col, Report, Table, Value};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};
use warpwork::abi::modules::Family;
use warpwork::select::{Predicate, Variant};
use warpwork::{Error, Gpu, Result};

/// The environment variable that makes `warpwork bench startup` the measured child: its value is
/// the family whose first result it times.
pub const CHILD: &str = "WARPWORK_STARTUP_CHILD";

/// The families timed, each by the first call a user would make of it.
const FAMILIES: [Family; 3] = [Family::Select, Family::Scan, Family::Expand];

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// The child: opens the GPU, runs the family's first call, prints one line of stamps. For
/// `driver`, only what any CUDA program pays first: cudarc opens the device's primary context and
/// a stream (warpwork's `Gpu::new` does that and nothing more until a kernel is needed).
pub fn child(family: &str) -> Result<()> {
    let start = now_ms();
    if family == "driver" {
        let ctx = warpwork::cudarc::driver::CudaContext::new(0)?;
        let _stream = ctx.new_stream()?;
        let opened = now_ms();
        println!("{start} {opened} {opened} 0 0 cudarc only");
        return Ok(());
    }
    let gpu = Gpu::new(0)?;
    let opened = now_ms();
    let input: Vec<u32> = (0..1u32 << 20).collect();
    let items = gpu.upload(&input)?;
    gpu.synchronize()?;
    let uploaded = now_ms();
    let check = match family {
        "select" => gpu.select_if(&items, Predicate::Less(1000), Variant::Ordered)?.count == 1000,
        "scan" => {
            let mut out = gpu.zeros::<u32>(input.len())?;
            gpu.exclusive_scan(&items, &mut out)?;
            gpu.download(&out)?[2] == 1
        }
        "expand" => {
            let counts = gpu.upload(&[3u32; 1000])?;
            gpu.expand(&counts, warpwork::expand::Strategy::AUTO, 3000)?.count == 3000
        }
        other => return Err(Error::InvalidInput(format!("{CHILD}={other}: no such family"))),
    };
    let done = now_ms();
    if !check {
        return Err(Error::InvalidInput(format!("the first {family} result is wrong")));
    }
    let load_ms: f64 = gpu.modules().iter().map(|m| m.load_time.as_secs_f64() * 1e3).sum();
    let code = gpu.modules().iter().map(|m| format!("{:?}: {}", m.family, m.code)).collect::<Vec<_>>().join("; ");
    println!("{start} {opened} {done} {load_ms} {} {code}", uploaded - opened);
    Ok(())
}

/// One child's stamps, relative to its spawn.
struct Stamps {
    to_main: f64,
    gpu_new: f64,
    first_result: f64,
    load: f64,
    upload: f64,
    code: String,
}

fn spawn(family: &str, ptx: bool, cache: Option<&std::path::Path>) -> Result<Stamps> {
    let exe = std::env::current_exe().map_err(|e| Error::InvalidInput(format!("this binary's path: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.args(["bench", "startup"]).env(CHILD, family).env_remove(warpwork::FORCE_PTX_VAR);
    if ptx {
        cmd.env(warpwork::FORCE_PTX_VAR, "ptx");
    }
    match cache {
        Some(dir) => cmd.env("CUDA_CACHE_PATH", dir).env_remove("CUDA_CACHE_DISABLE"),
        None => cmd.env("CUDA_CACHE_DISABLE", "1"),
    };
    let spawned = now_ms();
    let out = cmd.output().map_err(|e| Error::InvalidInput(format!("starting the child: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::InvalidInput(format!(
            "the {family} startup child failed: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let mut f = text.trim().splitn(6, ' ');
    let mut num = || f.next().and_then(|s| s.parse::<f64>().ok()).unwrap_or(f64::NAN);
    let (start, opened, done, load, upload) = (num(), num(), num(), num(), num());
    let code = f.next().unwrap_or("").to_owned();
    Ok(Stamps { to_main: start - spawned, gpu_new: opened - start, first_result: done - opened, load, upload, code })
}

/// One process each: single times in ms, not timings of repetitions.
const COLS: [Col; 9] = [
    Col::key("family", "family", ""),
    Col::key("code", "code", ""),
    Col::key("driver cache", "driver_cache", ""),
    Col::value("start → main ms", "to_main", "ms"),
    Col::value("Gpu::new ms", "gpu_new", "ms"),
    Col::value("→ first result ms", "first_result", "ms"),
    Col::value("of which upload ms", "upload", "ms"),
    Col::value("of which loading ms", "loading", "ms"),
    Col::value("loaded", "loaded", ""),
];

pub fn run(gpu: Option<&Gpu>, report: &mut Report) -> Result<()> {
    report.say("## startup: a new process's first result, per kernel family\n");
    let Some(gpu) = gpu else {
        report.say("No GPU: nothing to time (the startup is the driver's and the GPU's).");
        return Ok(());
    };
    let i = gpu.info();
    report.say(format!(
        "device: {} (CC {}.{}); this device is given {}\n",
        i.name, i.compute_capability.0, i.compute_capability.1, i.code
    ));
    let cache = std::env::temp_dir().join(format!("warpwork-startup-cache-{}", std::process::id()));
    let mut table = Table::new("startup", &COLS);
    let ms = |v: f64| Value::fixed(v, 1);
    let driver = spawn("driver", false, None)?;
    table.row(vec![
        Value::text("(none)"),
        Value::DASH,
        Value::text("disabled"),
        ms(driver.to_main),
        ms(driver.gpu_new),
        Value::DASH,
        Value::DASH,
        Value::DASH,
        Value::text(driver.code),
    ]);
    for family in FAMILIES.map(|f| f.name()) {
        for ptx in [false, true] {
            for warm in [false, true] {
                let s = if warm {
                    let _ = std::fs::remove_dir_all(&cache);
                    spawn(family, ptx, Some(&cache))?; // fills the cache
                    spawn(family, ptx, Some(&cache))?
                } else {
                    spawn(family, ptx, None)?
                };
                table.row(vec![
                    Value::text(family),
                    Value::text(if ptx { "PTX (forced)" } else { "shipped default" }),
                    Value::text(if warm { "on, warm" } else { "disabled" }),
                    ms(s.to_main),
                    ms(s.gpu_new),
                    ms(s.first_result),
                    ms(s.upload),
                    ms(s.load),
                    Value::text(s.code),
                ]);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    report.table(table);
    report.say(
        "\n\"Gpu::new\" is the driver's initialisation and the primary context (the first row, \
         \"cudarc only\", is the same for a program that never loads warpwork); \"→ first result\" \
         runs from its return to the result on the host: a 4 MiB upload (from pageable memory, \
         waited for), loading the family's module, the call and the download.",
    );
    Ok(())
}
