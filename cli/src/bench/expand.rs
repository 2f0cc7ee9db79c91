//! `warpwork bench expand`: every work-expansion strategy × distribution × P1, materializing the
//! `(src, local)` pairs. Bytes counted: the counts read (4·P1) plus the pairs written (8·P2) —
//! the least any strategy must move. Pass 1 is timed alone; pass 2 is the rest of the total.
//! A second table gives the fixed overhead (P1 = 32, N = 1) with the persistent pass 2
//! (dispatch-indirect emulation) and with read-back-then-launch; a third the best strategy per
//! case. (The scan alone: `warpwork bench scan`.)
//!
//! CUB's twin is the expansion the issue names: `cub::DeviceScan::ExclusiveSum` of the counts and
//! a binary search per destination item, writing the same pairs in the same canonical order as
//! the canonical strategies (S2.5, S2.5f), on whose rows its time and the ratio appear, and in
//! the best-per-case table. Its pairs are checked against the counts like warpwork's.

use super::cub::{pairs_are_canonical, CubPeer};
use super::{cpu_median_ms, cub_cells, device_line, peer_line, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{workspace_bytes, Dispatch, Expander, Strategy};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{expand as cpu, inputs};

const DISTS: [&str; 4] = ["uniform[0,64)", "power-law", "small N<=4", "few huge"];

fn counts(dist: &str, p1: usize) -> Vec<u32> {
    match dist {
        "uniform[0,64)" => inputs::uniform_range(p1, 0xE1, 0, 64),
        "power-law" => inputs::power_law(p1, 0xE2, 1.2, 1 << 16),
        "small N<=4" => inputs::uniform_range(p1, 0xE3, 0, 5),
        // One source in 1024 spawns 2^15 items: about 32 per source on average, all in a few.
        _ => (0..p1).map(|i| if i % 1024 == 511 || (p1 < 1024 && i == p1 / 2) { 1 << 15 } else { 0 }).collect(),
    }
}

fn strategies(p1: usize, max_n: u32) -> Vec<Strategy> {
    let mut v = Vec::new();
    if (p1 as u64) * (max_n.max(1) as u64) <= 1 << 31 {
        v.push(Strategy::MaxN { max_n: max_n.max(1) });
    }
    for s in Strategy::UNBOUNDED {
        if s != Strategy::LinearSearch || p1 <= 1 << 16 {
            v.push(s);
        }
    }
    v
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    println!("## expand: (src, local) pairs materialized on the device\n");
    let p1s: Vec<usize> =
        [10usize, 16, 22].into_iter().filter(|&k| k <= args.max_log2 as usize).map(|k| 1 << k).collect();
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args, &p1s),
        None => run_cpu(args, &p1s),
    }
}

/// (pass-1 ms, total ms) medians: device time ([`Gpu::median_ms`]), or with `paced` the time
/// with the host issuing each launch as the device waits ([`Gpu::median_paced_ms`]; the only way
/// to time [`Dispatch::ReadBack`], which waits for pass 1 on the host).
fn time_strategy(
    gpu: &Gpu,
    e: &mut Expander,
    d: &CudaSlice<u32>,
    out: &mut CudaSlice<[u32; 2]>,
    dispatch: Dispatch,
    reps: usize,
    paced: bool,
) -> Result<(f64, f64)> {
    let median = |f: &mut dyn FnMut() -> Result<()>| {
        if paced {
            gpu.median_paced_ms(3, reps, f)
        } else {
            gpu.median_ms(3, reps, f)
        }
    };
    let p1 = median(&mut || e.pass1(gpu, d).map(drop))?;
    let total = median(&mut || e.pass1(gpu, d)?.pass2(gpu, out, dispatch))?;
    Ok((p1, total))
}

fn run_gpu(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs, p1s: &[usize]) -> Result<()> {
    let roof_bytes = 1 << 30;
    let roof = gpu.copy_roof_gbps(roof_bytes)?;
    device_line(gpu, roof, roof_bytes);
    peer_line(peer);
    let mut table = Table::new(&[
        "strategy",
        "N",
        "P1",
        "P2",
        "pass 1 ms",
        "pass 2 ms",
        "total ms",
        "G items/s",
        "GB/s",
        "% roof",
        "read-back ms",
        "workspace MiB",
        "CUB ms",
        "vs CUB",
    ]);
    // (case, a strategy's destination items/s, CUB's for the case)
    let mut best: Vec<(String, f64, Option<f64>)> = Vec::new();
    for &p1 in p1s {
        for dist in DISTS {
            let c = counts(dist, p1);
            let p2 = cpu::total(&c) as usize;
            let max_n = c.iter().copied().max().unwrap_or(0);
            let d = gpu.upload(&c)?;
            let mut out = gpu.zeros::<[u32; 2]>(p2.max(1))?;
            let cub = time_cub(gpu, peer, args, &c, &d, p2)?;
            for s in strategies(p1, max_n) {
                let mut e = gpu.expander(s, p1, p2)?;
                let (t1, t) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps, false)?;
                let got = {
                    let mut planned = e.pass1(gpu, &d)?;
                    planned.pass2(gpu, &mut out, Dispatch::Persistent)?;
                    planned.count(gpu)?
                };
                if got != p2 {
                    return Err(Error::InvalidInput(format!("bench self-check: {} gave {got} of {p2}", s.name())));
                }
                let (_, rb) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::ReadBack, args.reps.min(7), true)?;
                let bytes = 4 * p1 as u64 + 8 * p2 as u64;
                let bw = gbps(bytes, t);
                let items = p2 as f64 / (t * 1e-3);
                best.push((format!("{dist} P1={}", size(p1)), items, cub.map(|ms| p2 as f64 / (ms * 1e-3))));
                let [cub_ms, vs] = if s.is_canonical() { cub_cells(t, cub) } else { Default::default() };
                // Progress on stderr, so a run cut short still reports what it measured.
                eprintln!(
                    "progress: {} {dist} P1={} total {t:.4} ms pass1 {t1:.4} ms {} G/s read-back {rb:.4} ms",
                    s.name(),
                    size(p1),
                    giga(items)
                );
                table.row(vec![
                    s.name().into(),
                    dist.into(),
                    size(p1),
                    p2.to_string(),
                    format!("{t1:.4}"),
                    format!("{:.4}", (t - t1).max(0.0)),
                    format!("{t:.4}"),
                    giga(items),
                    format!("{bw:.0}"),
                    format!("{:.1}", 100.0 * bw / roof),
                    format!("{rb:.4}"),
                    format!("{:.1}", workspace_bytes(s, p1, p2) as f64 / (1 << 20) as f64),
                    cub_ms,
                    vs,
                ]);
            }
        }
    }
    table.print();

    println!("\n### fixed overhead: P1 = 32, N = 1 (pass 1 + pass 2, ms)\n");
    let mut t = Table::new(&[
        "strategy",
        "persistent, device ms",
        "persistent, host-paced ms",
        "read-back then launch, host-paced ms",
        "launches",
    ]);
    let c = vec![1u32; 32];
    let d = gpu.upload(&c)?;
    let mut out = gpu.zeros::<[u32; 2]>(32)?;
    for s in strategies(32, 1) {
        let mut e = gpu.expander(s, 32, 32)?;
        let (_, p) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps, false)?;
        let (_, pp) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps, true)?;
        let (_, r) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::ReadBack, args.reps, true)?;
        let launches = match s {
            Strategy::MaxN { .. } => "memset + 1",
            Strategy::ScanBinarySearch => "memset + 2",
            // Its pass 1 leaves the control block clean for the next.
            Strategy::ScanFused => "2",
            Strategy::Po2BucketsPerBucket => "memset + 1 + 32",
            _ => "memset + 2",
        };
        t.row(vec![s.name().into(), format!("{p:.4}"), format!("{pp:.4}"), format!("{r:.4}"), launches.into()]);
    }
    if let Some(peer) = peer {
        let mut temp = peer.expand_temp(gpu, 32)?;
        let mut total = gpu.zeros::<u32>(1)?;
        let mut run = || peer.expand(gpu, &mut temp, &d, &mut out, &mut total);
        let p = gpu.median_ms(3, args.reps, &mut run)?;
        let pp = gpu.median_paced_ms(3, args.reps, &mut run)?;
        if gpu.download(&total)?[0] != 32 || !pairs_are_canonical(&c, &gpu.download(&out)?) {
            return Err(Error::InvalidInput("bench self-check: the CUB expansion of 32 ones differs".into()));
        }
        t.row(vec![
            "CUB scan + binary search".into(),
            format!("{p:.4}"),
            format!("{pp:.4}"),
            "—".into(),
            "CUB scan + 1".into(),
        ]);
    }
    t.print();

    println!("\n### best strategy per case (G destination items/s)\n");
    let mut t = Table::new(&["case", "best G items/s", "CUB G items/s", "best vs CUB"]);
    let mut seen: Vec<String> = Vec::new();
    for (case, _, _) in &best {
        if !seen.contains(case) {
            seen.push(case.clone());
        }
    }
    for case in seen {
        let of_case = || best.iter().filter(|(c, _, _)| *c == case);
        let b = of_case().map(|(_, v, _)| *v).fold(0.0, f64::max);
        let cub = of_case().find_map(|(_, _, cub)| *cub);
        // Rates: the ratio is best / CUB, above 1 where warpwork's best is faster.
        let (cub_rate, vs) = match cub {
            Some(r) => (giga(r), format!("{:.2}×", b / r)),
            None => ("—".into(), "—".into()),
        };
        t.row(vec![case, giga(b), cub_rate, vs]);
    }
    t.print();
    Ok(())
}

fn run_cpu(args: &BenchArgs, p1s: &[usize]) -> Result<()> {
    let mut table = Table::new(&["variant", "N", "P1", "P2", "time ms", "G items/s"]);
    for &p1 in p1s {
        for dist in DISTS {
            let c = counts(dist, p1);
            let mut n = 0;
            let ms = cpu_median_ms(args.reps.min(5), || n = cpu::expand(&c).len());
            table.row(vec![
                "cpu-rayon".into(),
                dist.into(),
                size(p1),
                n.to_string(),
                format!("{ms:.3}"),
                giga(n as f64 / (ms * 1e-3)),
            ]);
        }
    }
    table.print();
    Ok(())
}

/// Median device time of the CUB peer's expansion of `counts` (`None` without the peer), with
/// its temporary storage allocated first, into a fresh poisoned output; its pairs and total are
/// checked against the counts.
fn time_cub(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    counts: &[u32],
    d: &CudaSlice<u32>,
    p2: usize,
) -> Result<Option<f64>> {
    let Some(peer) = peer else { return Ok(None) };
    let mut temp = peer.expand_temp(gpu, counts.len())?;
    let mut pairs = gpu.filled::<[u32; 2]>(p2.max(1), 0xAB)?;
    let mut total = gpu.zeros::<u32>(1)?;
    let ms = gpu.median_ms(3, args.reps, || peer.expand(gpu, &mut temp, d, &mut pairs, &mut total))?;
    let got = gpu.download(&total)?[0] as usize;
    if got != p2 || !pairs_are_canonical(counts, &gpu.download_prefix(&pairs, p2)?) {
        return Err(Error::InvalidInput(format!(
            "bench self-check: the CUB expansion gave {got} of {p2} pairs, or not the canonical ones"
        )));
    }
    Ok(Some(ms))
}
