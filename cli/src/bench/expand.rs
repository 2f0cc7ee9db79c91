//! `warpwork bench expand`: every work-expansion strategy × distribution × P1, materializing the
//! `(src, local)` pairs. Bytes counted: the counts read (4·P1) plus the pairs written (8·P2) —
//! the least any strategy must move. Pass 1 is timed alone; pass 2 is the rest of the total.
//! Each (distribution, P1) group ends with an `Auto(→ …)` row: `Strategy::Auto`, given the
//! distribution's bound, timed like the others. A second table gives the fixed overhead
//! (P1 = 32, N = 1) with the persistent pass 2 (dispatch-indirect emulation) and with
//! read-back-then-launch; a third, per case, the best strategy (its % of the roof and its speed
//! against CUB's), Auto's time over the best's, and that of the row Auto resolved to (the same
//! kernels timed apart). (The scan alone: `warpwork bench scan`.)
//!
//! The counts come from `warpwork_cpu_reference::counts` (fixed seeds). `MaxN` and `Auto` get the
//! distribution's *bound* (the largest count it can produce, known before the counts are drawn),
//! not the largest count drawn, which a caller would have to read the counts for.
//!
//! CUB's twin is the expansion the issue names: `cub::DeviceScan::ExclusiveSum` of the counts and
//! a binary search per destination item, writing the same pairs in the same canonical order as
//! the canonical strategies (S2.5, S2.5f), on whose rows (and Auto's) its time and the ratio
//! appear, and in the best-per-case table. Its pairs are checked against the counts like
//! warpwork's.

use super::cub::{pairs_are_canonical, CubPeer};
use super::{cpu_median_ms, cub_cells, device_line, peer_line, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{workspace_bytes, Dispatch, Expander, Strategy};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::counts::CountDistribution;
use warpwork_cpu_reference::expand as cpu;

/// The concrete strategies of a group: S0 with the bound where its `P1 · bound` slots stay
/// within 2^31, S2 up to 2^16 sources (its search grows with P1), and the others.
fn strategies(p1: usize, bound: u32) -> Vec<Strategy> {
    let mut v = Vec::new();
    if (p1 as u64) * (bound.max(1) as u64) <= 1 << 31 {
        v.push(Strategy::MaxN { max_n: bound.max(1) });
    }
    for s in Strategy::UNBOUNDED {
        if s != Strategy::LinearSearch || p1 <= 1 << 16 {
            v.push(s);
        }
    }
    v
}

/// The table's name of strategy `s`, which an expander resolved to `resolved`: Auto's with
/// what it resolved to.
fn row_name(s: Strategy, resolved: Strategy) -> String {
    match s {
        Strategy::Auto { .. } => format!("Auto(→ {})", resolved.name()),
        _ => s.name().into(),
    }
}

/// One timed row, for the per-case summary.
struct Measured {
    case: String,
    strategy: Strategy,
    /// What the expander resolved `strategy` to (itself unless Auto).
    resolved: Strategy,
    name: String,
    ms: f64,
    items_per_s: f64,
    roof_percent: f64,
    cub_ms: Option<f64>,
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    println!("## expand: (src, local) pairs materialized on the device\n");
    let p1s: Vec<usize> =
        [10usize, 16, 22].into_iter().filter(|&k| k <= args.max_log2() as usize).map(|k| 1 << k).collect();
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
    let roof = device_line(gpu, 1 << 30)?;
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
    let mut measured: Vec<Measured> = Vec::new();
    for &p1 in p1s {
        for dist in CountDistribution::ALL {
            let c = dist.counts(p1);
            let p2 = cpu::total(&c) as usize;
            let bound = dist.bound();
            let d = gpu.upload(&c)?;
            let mut out = gpu.zeros::<[u32; 2]>(p2.max(1))?;
            let cub = time_cub(gpu, peer, args, &c, &d, p2)?;
            let mut group = strategies(p1, bound);
            // Auto told what a caller would know of these counts: the bound and the non-empty share.
            let nonzero_percent = Some(dist.nonzero_percent());
            group.push(Strategy::Auto { max_n: Some(bound), nonzero_percent, own_pass2: false });
            for s in group {
                let mut e = gpu.expander(s, p1, p2)?;
                let name = row_name(s, e.strategy());
                let (t1, t) =
                    time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps(), args.paced())?;
                let got = {
                    let mut planned = e.pass1(gpu, &d)?;
                    planned.pass2(gpu, &mut out, Dispatch::Persistent)?;
                    planned.count(gpu)?
                };
                if got != p2 {
                    return Err(Error::InvalidInput(format!("bench self-check: {name} gave {got} of {p2}")));
                }
                let (_, rb) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::ReadBack, args.reps().min(7), true)?;
                let bytes = 4 * p1 as u64 + 8 * p2 as u64;
                let bw = gbps(bytes, t);
                let items = p2 as f64 / (t * 1e-3);
                let roof_percent = 100.0 * bw / roof;
                let dist = dist.name();
                // CUB's twin writes the canonical order: on the canonical rows, and on Auto's.
                let with_cub = s.is_canonical() || matches!(s, Strategy::Auto { .. });
                let [cub_ms, vs] = if with_cub { cub_cells(t, cub) } else { Default::default() };
                // Progress on stderr, so a run cut short still reports what it measured.
                eprintln!(
                    "progress: {name} {dist} P1={} total {t:.4} ms pass1 {t1:.4} ms {} G/s read-back {rb:.4} ms",
                    size(p1),
                    giga(items)
                );
                table.row(vec![
                    name.clone(),
                    dist.into(),
                    size(p1),
                    p2.to_string(),
                    format!("{t1:.4}"),
                    format!("{:.4}", (t - t1).max(0.0)),
                    format!("{t:.4}"),
                    giga(items),
                    format!("{bw:.0}"),
                    format!("{roof_percent:.1}"),
                    format!("{rb:.4}"),
                    format!("{:.1}", workspace_bytes(s, p1, p2) as f64 / (1 << 20) as f64),
                    cub_ms,
                    vs,
                ]);
                let case = format!("{dist} P1={}", size(p1));
                measured.push(Measured {
                    case,
                    strategy: s,
                    resolved: e.strategy(),
                    name,
                    ms: t,
                    items_per_s: items,
                    roof_percent,
                    cub_ms: cub,
                });
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
        let (_, p) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps(), args.paced())?;
        let (_, pp) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::Persistent, args.reps(), true)?;
        let (_, r) = time_strategy(gpu, &mut e, &d, &mut out, Dispatch::ReadBack, args.reps(), true)?;
        let launches = match s {
            Strategy::MaxN { .. } => "memset + 1",
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
        let p = args.median_ms(gpu, 3, &mut run)?;
        let pp = gpu.median_paced_ms(3, args.reps(), &mut run)?;
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

    print_cases(&measured);
    Ok(())
}

/// Per case: the best concrete strategy (its time, rate, % of the roof, and speed against the
/// CUB peer's), and Auto's pick with its time over the best's (within 5% is the target).
fn print_cases(measured: &[Measured]) {
    println!("\n### best strategy per case, and Auto against it\n");
    let mut t = Table::new(&[
        "case",
        "best strategy",
        "best ms",
        "best G items/s",
        "best % roof",
        "CUB G items/s",
        "best vs CUB",
        "Auto",
        "Auto ms",
        "Auto / best",
        "pick's row / best",
    ]);
    let mut cases: Vec<&str> = Vec::new();
    for m in measured {
        if !cases.contains(&m.case.as_str()) {
            cases.push(&m.case);
        }
    }
    for case in cases {
        let of_case = || measured.iter().filter(|m| m.case == case);
        let is_auto = |m: &&Measured| matches!(m.strategy, Strategy::Auto { .. });
        let Some(best) = of_case().filter(|m| !is_auto(m)).min_by(|a, b| a.ms.total_cmp(&b.ms)) else { continue };
        // Rates: the ratio is best / CUB, above 1 where warpwork's best is faster.
        let (cub_rate, vs) = match best.cub_ms {
            Some(ms) => (giga(best.items_per_s * best.ms / ms), format!("{:.2}×", ms / best.ms)),
            None => ("—".into(), "—".into()),
        };
        // Auto's own timing, and the timing of the concrete row it resolved to (the same
        // kernels, timed apart: their difference is the timing noise).
        let (auto_name, auto_ms, ratio, pick_ratio) = match of_case().find(is_auto) {
            Some(a) => {
                let ratio = a.ms / best.ms;
                let verdict = if ratio <= 1.05 { "within 5%" } else { "OVER 5%" };
                let pick_ratio = match of_case().find(|m| m.strategy == a.resolved) {
                    Some(m) => format!("{:.3}", m.ms / best.ms),
                    None => "—".into(),
                };
                (a.name.clone(), format!("{:.4}", a.ms), format!("{ratio:.3} ({verdict})"), pick_ratio)
            }
            None => ("—".into(), "—".into(), "—".into(), "—".into()),
        };
        t.row(vec![
            case.into(),
            best.name.clone(),
            format!("{:.4}", best.ms),
            giga(best.items_per_s),
            format!("{:.1}", best.roof_percent),
            cub_rate,
            vs,
            auto_name,
            auto_ms,
            ratio,
            pick_ratio,
        ]);
    }
    t.print();
}

fn run_cpu(args: &BenchArgs, p1s: &[usize]) -> Result<()> {
    let mut table = Table::new(&["variant", "N", "P1", "P2", "time ms", "G items/s"]);
    for &p1 in p1s {
        for dist in CountDistribution::ALL {
            let c = dist.counts(p1);
            let mut n = 0;
            let ms = cpu_median_ms(args.reps().min(5), || n = cpu::expand(&c).len());
            table.row(vec![
                "cpu-rayon".into(),
                dist.name().into(),
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
    let ms = args.median_ms(gpu, 3, || peer.expand(gpu, &mut temp, d, &mut pairs, &mut total))?;
    let got = gpu.download(&total)?[0] as usize;
    if got != p2 || !pairs_are_canonical(counts, &gpu.download_prefix(&pairs, p2)?) {
        return Err(Error::InvalidInput(format!(
            "bench self-check: the CUB expansion gave {got} of {p2} pairs, or not the canonical ones"
        )));
    }
    Ok(Some(ms))
}
