//! `warpwork bench expand`: every work-expansion strategy × distribution × P1, materializing the
//! `(src, local)` pairs. Bytes counted: the counts read (4·P1) plus the pairs written (8·P2) —
//! the least any strategy must move. Pass 1 is timed alone; pass 2 is the rest of the total.
//! The total is `Expander::expand`, which runs S2.5f up to 2^18 sources as one launch: such a
//! row says "(one launch)" (no pass 1 of its own, so those cells are blank), and a second row
//! "(two launches)" times `pass1` + `pass2` beside it.
//! Each (distribution, P1) group ends with an `Auto(→ …)` row: `Strategy::Auto`, given the
//! distribution's bound, timed like the others. A second table gives the fixed overhead
//! (P1 = 32, N = 1) with the persistent pass 2 (dispatch-indirect emulation) and with
//! read-back-then-launch; a third, per case, the best strategy (its % of the roof and its speed
//! against CUB's), Auto's time over the best's, that of the row Auto resolved to (the same
//! kernels timed apart), and that of the row `Strategy::AUTO` (Auto told nothing) would pick.
//! (The scan alone: `warpwork bench scan`.)
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

mod cases;

use super::cub::{pairs_are_canonical, CubPeer};
use super::timing::gpu_stats;
use super::{cpu_stats, cub_cells, device_line, peer_line, BenchArgs};
use crate::report::cols::{BANDWIDTH, CUB_TIME, ITEMS_RATE, ROOF, TIME, VARIANT, VS_CUB};
use crate::report::{giga, size, Col, CpuNote, Report, Stats, Table, Value};
use cases::{print_cases, Measured};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{workspace_len, Dispatch, Expander, Strategy};
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

const STRATEGY: Col = Col::key("strategy", "strategy", "");
const DISTRIBUTION: Col = Col::key("N", "distribution", "");
const P1: Col = Col::key("P1", "p1", "sources");
const P2: Col = Col::value("P2", "p2", "items");

/// The rows `--only` picks from: the count distributions (each with every strategy and
/// Auto), and the fixed-overhead table.
pub fn rows() -> Vec<&'static str> {
    CountDistribution::ALL.iter().map(|d| d.name()).chain([FIXED_OVERHEAD]).collect()
}

/// The fixed-overhead table's name for `--only`.
const FIXED_OVERHEAD: &str = "fixed overhead";

/// The P1s (sources) of the bench: `--size`, or 2^10, 2^16 and 2^22, up to 2^max-log2.
pub fn p1s(args: &BenchArgs) -> Vec<usize> {
    match args.size() {
        Some(p1) => vec![p1],
        None => [10usize, 16, 22].into_iter().filter(|&k| k <= args.max_log2() as usize).map(|k| 1 << k).collect(),
    }
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    report.say("## expand: (src, local) pairs materialized on the device\n");
    let p1s = p1s(args);
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args, &p1s, report),
        None => run_cpu(args, &p1s, report),
    }
}

/// How a row runs the two passes: `Expander::expand` (one launch where the strategy has one:
/// S2.5f up to 2^18 sources), or `pass1` then `pass2` with a dispatch.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    OneCall,
    Apart(Dispatch),
}

/// The forms a row of `e` over `p1` sources is timed in, each with its row name's suffix:
/// `Expander::expand`, and where that is one launch (S2.5f), `pass1` + `pass2` in a row of its
/// own beside it.
fn forms(e: &Expander, p1: usize) -> &'static [(Form, &'static str)] {
    if e.runs_once(p1) {
        &[(Form::OneCall, " (one launch)"), (Form::Apart(Dispatch::Persistent), " (two launches)")]
    } else {
        &[(Form::OneCall, "")]
    }
}

/// (pass-1 ms, total ms): device time ([`Gpu::time_ms`]), or with `paced` the time with the host
/// issuing each launch as the device waits ([`Gpu::paced_time_ms`]; the only way to time
/// [`Dispatch::ReadBack`], which waits for pass 1 on the host).
fn time_strategy(
    gpu: &Gpu,
    e: &mut Expander,
    d: &CudaSlice<u32>,
    out: &mut CudaSlice<[u32; 2]>,
    form: Form,
    reps: usize,
    paced: bool,
) -> Result<(Stats, Stats)> {
    let p1 = gpu_stats(gpu, 3, reps, paced, || e.pass1(gpu, d).map(drop))?;
    let total = match form {
        Form::OneCall => gpu_stats(gpu, 3, reps, paced, || e.expand(gpu, d, out).map(drop))?,
        Form::Apart(dispatch) => gpu_stats(gpu, 3, reps, paced, || e.pass1(gpu, d)?.pass2(gpu, out, dispatch))?,
    };
    Ok((p1, total))
}

fn run_gpu(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs, p1s: &[usize], report: &mut Report) -> Result<()> {
    let roof = device_line(gpu, 1 << 30, report)?;
    peer_line(peer, report);
    let mut table = Table::new(
        "expand",
        &[
            STRATEGY,
            DISTRIBUTION,
            P1,
            P2,
            Col::timed("pass 1 ms", "pass1_time", "ms"),
            Col::value("pass 2 ms", "pass2_time", "ms (total median - pass 1 median)"),
            Col::timed("total ms", "total_time", "ms"),
            ITEMS_RATE,
            BANDWIDTH,
            ROOF,
            Col::timed("read-back ms", "readback_time", "ms"),
            Col::value("workspace MiB", "workspace", "MiB"),
            CUB_TIME,
            VS_CUB,
        ],
    );
    let mut measured: Vec<Measured> = Vec::new();
    for &p1 in p1s {
        for dist in CountDistribution::ALL.into_iter().filter(|d| args.wants(d.name())) {
            let c = dist.counts(p1);
            let p2 = cpu::total(&c) as usize;
            let bound = dist.bound();
            let d = gpu.upload(&c)?;
            let mut out = gpu.zeros::<[u32; 2]>(p2.max(1))?;
            let cub = time_cub(gpu, peer, args, &c, &d, p2)?;
            let mut group = strategies(p1, bound);
            // Auto told what a caller would know of these counts: the bound.
            group.push(Strategy::Auto { max_n: Some(bound), own_pass2: false });
            for s in group {
                let mut e = gpu.expander(s, p1, p2)?;
                for &(form, suffix) in forms(&e, p1) {
                    let once = form == Form::OneCall && e.runs_once(p1);
                    let name = row_name(s, e.strategy()) + suffix;
                    let (pass1, total) = time_strategy(gpu, &mut e, &d, &mut out, form, args.reps(), args.paced())?;
                    let (t1, t) = (pass1.median, total.median);
                    let got = match form {
                        Form::OneCall => e.expand(gpu, &d, &mut out)?.count(gpu)?,
                        Form::Apart(dispatch) => {
                            let mut planned = e.pass1(gpu, &d)?;
                            planned.pass2(gpu, &mut out, dispatch)?;
                            planned.count(gpu)?
                        }
                    };
                    if got != p2 {
                        return Err(Error::InvalidInput(format!("bench self-check: {name} gave {got} of {p2}")));
                    }
                    let read_back = if once {
                        None
                    } else {
                        let rb = Form::Apart(Dispatch::ReadBack);
                        Some(time_strategy(gpu, &mut e, &d, &mut out, rb, args.reps().min(7), true)?.1)
                    };
                    let bytes = 4 * p1 as u64 + 8 * p2 as u64;
                    let bw = gbps(bytes, t);
                    let items = p2 as f64 / (t * 1e-3);
                    let roof_percent = 100.0 * bw / roof;
                    let dist = dist.name();
                    // CUB's twin writes the canonical order: on the canonical rows, and on Auto's.
                    let with_cub = s.is_canonical() || matches!(s, Strategy::Auto { .. });
                    let [cub_ms, vs] = if with_cub { cub_cells(t, cub) } else { [Value::BLANK, Value::BLANK] };
                    // Progress on stderr, so a run cut short still reports what it measured.
                    eprintln!(
                        "progress: {name} {dist} P1={} total {t:.4} ms pass1 {t1:.4} ms {} G/s",
                        size(p1),
                        giga(items)
                    );
                    // One launch has no pass 1 of its own to time apart, nor a read-back form.
                    let (pass1_cell, pass2_cell) = if once {
                        (Value::BLANK, Value::BLANK)
                    } else {
                        (Value::time(pass1, 4), Value::fixed((t - t1).max(0.0), 4))
                    };
                    table.row(vec![
                        Value::text(&name),
                        Value::text(dist),
                        Value::Size(p1 as u64),
                        Value::Int(p2 as u64),
                        pass1_cell,
                        pass2_cell,
                        Value::time(total, 4),
                        Value::giga(items),
                        Value::fixed(bw, 0),
                        Value::fixed(roof_percent, 1),
                        read_back.map_or(Value::BLANK, |rb| Value::time(rb, 4)),
                        Value::fixed(workspace_len(s, p1, p2) as f64 * 8.0 / (1 << 20) as f64, 1),
                        cub_ms,
                        vs,
                    ]);
                    let case = format!("{dist} P1={}", size(p1));
                    measured.push(Measured {
                        case,
                        strategy: s,
                        resolved: e.strategy(),
                        untold: Strategy::AUTO.resolve(p1, p2),
                        name,
                        ms: total,
                        items_per_s: items,
                        roof_percent,
                        cub_ms: cub,
                    });
                }
            }
        }
    }
    report.table(table);
    if args.wants(FIXED_OVERHEAD) {
        fixed_overhead(gpu, peer, args, report)?;
    }
    print_cases(&measured, report);
    Ok(())
}

/// The fixed-overhead table: P1 = 32, N = 1, every strategy and the CUB peer.
fn fixed_overhead(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    report.say("\n### fixed overhead: P1 = 32, N = 1 (pass 1 + pass 2, ms)\n");
    let mut t = Table::new(
        "fixed overhead",
        &[
            STRATEGY,
            Col::timed("persistent, device ms", "persistent_time", "ms"),
            Col::timed("persistent, host-paced ms", "persistent_paced_time", "ms"),
            Col::timed("read-back then launch, host-paced ms", "readback_paced_time", "ms"),
            Col::value("launches", "launches", ""),
        ],
    );
    let c = vec![1u32; 32];
    let d = gpu.upload(&c)?;
    let mut out = gpu.zeros::<[u32; 2]>(32)?;
    for s in strategies(32, 1) {
        let mut e = gpu.expander(s, 32, 32)?;
        for &(form, suffix) in forms(&e, 32) {
            let once = form == Form::OneCall && e.runs_once(32);
            let (_, p) = time_strategy(gpu, &mut e, &d, &mut out, form, args.reps(), args.paced())?;
            let (_, pp) = time_strategy(gpu, &mut e, &d, &mut out, form, args.reps(), true)?;
            let read_back = if once {
                Value::DASH
            } else {
                let rb = Form::Apart(Dispatch::ReadBack);
                Value::time(time_strategy(gpu, &mut e, &d, &mut out, rb, args.reps(), true)?.1, 4)
            };
            let launches = match s {
                Strategy::MaxN { .. } => "memset + 1",
                // Its passes leave the control block clean for the next.
                Strategy::ScanFused if once => "1",
                Strategy::ScanFused => "2",
                Strategy::Po2BucketsPerBucket => "memset + 1 + 32",
                _ => "memset + 2",
            };
            let name = format!("{}{suffix}", s.name());
            t.row(vec![Value::text(&name), Value::time(p, 4), Value::time(pp, 4), read_back, Value::text(launches)]);
        }
    }
    if let Some(peer) = peer {
        let mut temp = peer.expand_temp(gpu, 32)?;
        let mut total = gpu.zeros::<u32>(1)?;
        let mut run = || peer.expand(gpu, &mut temp, &d, &mut out, &mut total);
        let p = args.time(gpu, 3, &mut run)?;
        let pp = gpu_stats(gpu, 3, args.reps(), true, &mut run)?;
        if gpu.download(&total)?[0] != 32 || !pairs_are_canonical(&c, &gpu.download(&out)?) {
            return Err(Error::InvalidInput("bench self-check: the CUB expansion of 32 ones differs".into()));
        }
        t.row(vec![
            Value::text("CUB scan + binary search"),
            Value::time(p, 4),
            Value::time(pp, 4),
            Value::DASH,
            Value::text("CUB scan + 1"),
        ]);
    }
    report.table(t);
    Ok(())
}

fn run_cpu(args: &BenchArgs, p1s: &[usize], report: &mut Report) -> Result<()> {
    let reps = args.reps().min(5);
    let note = CpuNote::new("warpwork_cpu_reference::expand::expand", reps, "sources (P1)", p1s, &[]);
    let mut table = Table::cpu("expand", &[VARIANT, DISTRIBUTION, P1, P2, TIME, ITEMS_RATE], note);
    for &p1 in p1s {
        for dist in CountDistribution::ALL.into_iter().filter(|d| args.wants(d.name())) {
            let c = dist.counts(p1);
            let mut n = 0;
            let t = cpu_stats(reps, || n = cpu::expand(&c).len());
            table.row(vec![
                Value::text("cpu-rayon"),
                Value::text(dist.name()),
                Value::Size(p1 as u64),
                Value::Int(n as u64),
                Value::time(t, 3),
                Value::giga(n as f64 / (t.median * 1e-3)),
            ]);
        }
    }
    report.table(table);
    Ok(())
}

/// Device time of the CUB peer's expansion of `counts` (`None` without the peer), with
/// its temporary storage allocated first, into a fresh poisoned output; its pairs and total are
/// checked against the counts.
fn time_cub(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    counts: &[u32],
    d: &CudaSlice<u32>,
    p2: usize,
) -> Result<Option<Stats>> {
    let Some(peer) = peer else { return Ok(None) };
    let mut temp = peer.expand_temp(gpu, counts.len())?;
    let mut pairs = gpu.filled::<[u32; 2]>(p2.max(1), 0xAB)?;
    let mut total = gpu.zeros::<u32>(1)?;
    let t = args.time(gpu, 3, || peer.expand(gpu, &mut temp, d, &mut pairs, &mut total))?;
    let got = gpu.download(&total)?[0] as usize;
    if got != p2 || !pairs_are_canonical(counts, &gpu.download_prefix(&pairs, p2)?) {
        return Err(Error::InvalidInput(format!(
            "bench self-check: the CUB expansion gave {got} of {p2} pairs, or not the canonical ones"
        )));
    }
    Ok(Some(t))
}
