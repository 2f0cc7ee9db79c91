//! `warpwork bench multi`: the sharded exclusive sum of `u32` (`Gpus::scan_sharded_into`, its
//! scratch allocated once) on 1, 2, 4 and 8 GPUs (those the machine has, and all of them), at 2^28 and
//! 2^31 items per GPU (`--size` for one size), beside the one-GPU exclusive sum and the one-GPU
//! sum from a device base of the same per-GPU size on GPU 0, and the NCCL all-gather of one
//! `u32` per GPU timed alone (the collective inside the sharded scan), held and paced.
//!
//! Rates are per GPU: items/s is the shard's items over the sharded call's time. Bytes counted
//! per GPU: the sharded scan reads its shard twice (the reduce to the shard's total, then the
//! scan) and writes it once, 12 bytes per `u32` item; the one-GPU scans read and write once, 8
//! bytes per item. The time of a sharded call is the longest, over the GPUs, between CUDA events
//! recorded on each GPU's stream before and after it, with every stream held while the host
//! queues the call (`Gpus::time_ms`, as the one-GPU rows are timed with `Gpu::time_ms`; with
//! `--paced`, neither holds, and the host's time to issue each rank's work in turn shows).
//! Inputs are all `0x01010101`, made on the devices; every output is checked at its first,
//! second and last element against the global prefix.
//!
//! Then the sharded reduce and argmax, the sharded ordered select and the sharded expansion
//! against their one-GPU forms of the same per-GPU size ([`reduce`], [`select`], [`expand`]),
//! timed the same way.
//!
//! Set `NCCL_NVLS_ENABLE=0` on NVSwitch machines, and put `libnccl.so` on the loader path (see
//! docs/multi.md); without two GPUs or NCCL, the bench says what it could not run.

mod expand;
mod reduce;
mod select;

use super::{device_line, BenchArgs};
use crate::report::cols::{BANDWIDTH, ITEMS_RATE, N, TIME, VARIANT};
use crate::report::{Col, Report, Stats, Table, Value};
use warpwork::cudarc::driver::{CudaSlice, CudaView};
use warpwork::multi::{shard_scratch_len, Gpus};
use warpwork::scan::{self, ScanKind};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};

const GPUS: Col = Col::key("GPUs", "gpus", "");
/// Per-GPU rate over the one-GPU form's, in the reduce, select and expansion tables.
const VS_ONE: Col = Col::value("vs 1 GPU", "vs_one_gpu", "per-GPU rate over the one-GPU form's");
const SHARE: Col = Col::value("vs 1-GPU scan", "vs_one_gpu", "per-GPU items/s over the one-GPU scan's");
/// Every input element: its prefixes are `i · 0x01010101`, checkable anywhere without a copy.
const FILL: u8 = 1;

/// The per-GPU sizes: `--size`, or 2^28 and 2^31.
pub fn sizes(args: &BenchArgs) -> Vec<usize> {
    args.size().map_or_else(|| vec![1 << 28, 1 << 31], |n| vec![n])
}

pub fn run(args: &BenchArgs, report: &mut Report) -> Result<()> {
    report.say("## multi: sharded exclusive sum of u32 over NCCL, per-GPU rates\n");
    let count = Gpu::device_count()?;
    let one = match Gpus::new(&[0]) {
        Ok(g) => g,
        Err(e @ Error::NoNccl) => {
            report.say(format!("Not run: {e}\n"));
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    device_line(one.gpu(0), 1 << 30, report)?;
    // 2, 4 and 8 GPUs where the machine has them, and all of them.
    let mut ks: Vec<usize> = [2, 4, 8].into_iter().filter(|&k| k <= count).collect();
    if count > 1 && !ks.contains(&count) {
        ks.push(count);
    }
    let more: Vec<Gpus> = ks.iter().map(|&k| Gpus::new(&(0..k).collect::<Vec<_>>())).collect::<Result<_>>()?;
    if more.is_empty() {
        report.say(format!("Only {count} GPU: the rows of several GPUs are not run.\n"));
    }
    report.say(
        "NCCL_NVLS_ENABLE: ".to_string() + &std::env::var("NCCL_NVLS_ENABLE").unwrap_or_else(|_| "unset".into()) + "\n",
    );
    let mut table = Table::new("multi", &[VARIANT, GPUS, N, TIME, ITEMS_RATE, BANDWIDTH, SHARE]);
    for n in sizes(args) {
        // The one-GPU scans first, on GPU 0, then the sharded ones (inputs freed in between).
        let gpu = one.gpu(0);
        let (plain, based) = {
            let d = gpu.filled::<u32>(n, FILL)?;
            let mut o = gpu.zeros::<u32>(n)?;
            let mut scratch = gpu.zeros::<u32>(scan::scratch_len::<u32>(n))?;
            let plain = args.time(gpu, 3, || gpu.exclusive_scan_into(&d, &mut o, &mut scratch))?;
            check(gpu, &o, 0, "one-GPU scan")?;
            let base = gpu.zeros::<u32>(1)?;
            let based =
                args.time(gpu, 3, || gpu.scan_with_base_into(&d, &mut o, ScanKind::Exclusive, &base, &mut scratch))?;
            check(gpu, &o, 0, "one-GPU scan from a base")?;
            (plain, based)
        };
        let one_rate = n as f64 / (plain.median * 1e-3);
        let row = |t: &mut Table, variant: &str, gpus: usize, stats: Stats, bytes_per_item: u64| {
            let rate = n as f64 / (stats.median * 1e-3);
            t.row(vec![
                Value::text(variant),
                Value::Int(gpus as u64),
                Value::Size(n as u64),
                Value::time(stats, 4),
                Value::giga(rate),
                Value::fixed(gbps(bytes_per_item * n as u64, stats.median), 0),
                Value::ratio(rate / one_rate),
            ]);
        };
        row(&mut table, "one-GPU scan", 1, plain, 8);
        row(&mut table, "one-GPU scan from a base", 1, based, 8);
        for gpus in std::iter::once(&one).chain(&more) {
            let t = sharded(gpus, n, args)?;
            row(&mut table, "sharded scan", gpus.len(), t, 12);
        }
    }
    report.table(table);
    let handles: Vec<&Gpus> = std::iter::once(&one).chain(&more).collect();
    report.say("\n## multi: sharded reduce (sum and argmax of u32), per-GPU rates\n");
    report.table(reduce::table(&one, &handles, &sizes(args), args)?);
    report.say("\n## multi: sharded ordered select (u32 < 2^31, half kept), per-GPU rates\n");
    report.table(select::table(&one, &handles, &sizes(args), args)?);
    report.say("\n## multi: sharded expansion (S2.5f, counts uniform in 0..64), per-GPU rates\n");
    report.table(expand::table(&one, &handles, &sizes(args), args)?);
    report.say("");
    for gpus in handles {
        let [held, paced] = gather(gpus, args)?;
        report.say(format!(
            "NCCL all-gather of one u32 per GPU, alone, {} GPU(s): median {:.4} ms (min {:.4}, max {:.4}) with the \
             streams held; paced (the host issuing each rank's part in turn): median {:.4} ms (min {:.4}, max {:.4})\n",
            gpus.len(),
            held.median,
            held.min,
            held.max,
            paced.median,
            paced.min,
            paced.max
        ));
    }
    Ok(())
}

/// The sharded scan of `n` items per GPU: its stats, outputs checked.
fn sharded(gpus: &Gpus, n: usize, args: &BenchArgs) -> Result<Stats> {
    let ranks = gpus.len();
    let mut shards = Vec::with_capacity(ranks);
    let mut outputs = Vec::with_capacity(ranks);
    let mut scratch = Vec::with_capacity(ranks);
    for r in 0..ranks {
        let g = gpus.gpu(r);
        shards.push(g.filled::<u32>(n, FILL)?);
        outputs.push(g.zeros::<u32>(n)?);
        scratch.push(g.zeros::<u32>(shard_scratch_len::<u32>(n, ranks))?);
    }
    let t = time_all(gpus, args, || gpus.scan_sharded_into(&shards, &mut outputs, ScanKind::Exclusive, &mut scratch))?;
    for (r, o) in outputs.iter().enumerate() {
        check(gpus.gpu(r), o, (r * n) as u64, "sharded scan")?;
    }
    Ok(t)
}

/// The all-gather of one `u32` per GPU, alone: held ([`Gpus::time_ms`]) and paced
/// ([`Gpus::paced_time_ms`]).
fn gather(gpus: &Gpus, args: &BenchArgs) -> Result<[Stats; 2]> {
    let ranks = gpus.len();
    let send: Vec<CudaSlice<u32>> = (0..ranks).map(|r| gpus.gpu(r).zeros::<u32>(1)).collect::<Result<_>>()?;
    let mut recv: Vec<CudaSlice<u32>> = (0..ranks).map(|r| gpus.gpu(r).zeros::<u32>(ranks)).collect::<Result<_>>()?;
    for _ in 0..3 {
        gpus.all_gather(&send, &mut recv)?;
    }
    gpus.synchronize()?;
    let mut times = |paced: bool| -> Result<Stats> {
        let samples = (0..args.reps().max(1))
            .map(|_| {
                let f = || gpus.all_gather(&send, &mut recv);
                if paced {
                    gpus.paced_time_ms(f)
                } else {
                    gpus.time_ms(f)
                }
            })
            .collect::<Result<_>>()?;
        Ok(Stats::of(samples))
    };
    Ok([times(false)?, times(true)?])
}

/// [`Stats`] of `reps` runs of `f` after `warmup`: each run's time is the longest over the GPUs
/// between events recorded on each GPU's stream before and after it, with every stream held
/// while the work is queued ([`Gpus::time_ms`]), or each run on its own with `--paced`
/// ([`Gpus::paced_time_ms`]), as the one-GPU rows are timed.
pub(super) fn time_all(gpus: &Gpus, args: &BenchArgs, mut f: impl FnMut() -> Result<()>) -> Result<Stats> {
    for _ in 0..3 {
        f()?;
    }
    gpus.synchronize()?;
    let mut samples = Vec::with_capacity(args.reps().max(1));
    for _ in 0..args.reps().max(1) {
        samples.push(if args.paced() { gpus.paced_time_ms(&mut f)? } else { gpus.time_ms(&mut f)? });
    }
    Ok(Stats::of(samples))
}

/// Checks the exclusive sum of all-`0x01010101` input at the first, second and last element of
/// `o`, whose first element is global element `first`.
fn check(gpu: &Gpu, o: &CudaSlice<u32>, first: u64, what: &str) -> Result<()> {
    let n = o.len();
    for i in [0, 1.min(n - 1), n - 1] {
        let view: CudaView<u32> = o.slice(i..i + 1);
        let got = gpu.download(&view)?[0];
        let want = ((first + i as u64) as u32).wrapping_mul(0x0101_0101);
        if got != want {
            return Err(Error::InvalidInput(format!(
                "bench self-check: {what}, element {i} of a shard starting at {first}: {got:#x}, expected {want:#x}"
            )));
        }
    }
    Ok(())
}
