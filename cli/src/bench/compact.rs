//! `warpwork bench compact`: `select_if(item < threshold)` on uniform u32s, every variant, at
//! selection rates 1%, 50% and 99%, and the ordered variant with flags (`flags[i] = item < t`,
//! so the same items are kept). Bytes counted: n·4 read (plus n flag bytes) and kept·4 written.
//!
//! The ordered rows are the ordered-select comparison with CUB: `DeviceSelect::If` with the same
//! predicate, and `DeviceSelect::Flagged` with the same flags, both order-preserving like
//! `Variant::Ordered` (the unordered variants have no CUB twin). Every ordered result, warpwork's
//! and CUB's, is checked item by item against the CPU; the others by their count.

use super::cub::CubPeer;
use super::{cpu_stats, cub_cells, device_line, peer_line, BenchArgs};
use crate::report::cols::{BANDWIDTH, CUB_TIME, ITEMS_RATE, N, ROOF, TIME, VARIANT, VS_CUB};
use crate::report::{Col, CpuNote, Report, Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{inputs, select};

const RATES: [f64; 3] = [0.01, 0.5, 0.99];

/// The rows of the ordered variant with flags.
const FLAGGED: &str = "ordered, flagged";

/// The selection rate of a row: the share of the items kept.
const KEPT: Col = Col::key("kept", "kept", "%");

/// Every row name of the GPU tables, the names `--only` picks from: the variants, then
/// [`FLAGGED`], then the compaction family's (`super::family`).
pub fn rows() -> Vec<&'static str> {
    Variant::ALL.iter().map(|v| v.name()).chain([FLAGGED]).chain(super::family::ROWS).collect()
}

/// A row's selection rate, `1%` in the table.
fn kept_share(rate: f64) -> Value {
    Value::Num { v: rate * 100.0, shown: format!("{:.0}%", rate * 100.0) }
}

fn threshold(rate: f64) -> u32 {
    (rate * 2f64.powi(32)).min(u32::MAX as f64) as u32
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    let sizes = args.sizes(4);
    let largest = *sizes.last().unwrap();
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    report.say("## compact: select_if(u32 < threshold), uniform u32 input\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args, &sizes, &items, report),
        None => run_cpu(args, &sizes, &items, report),
    }
}

fn run_gpu(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    sizes: &[usize],
    items: &[u32],
    report: &mut Report,
) -> Result<()> {
    let largest = items.len();
    let roof_bytes = (largest * 4).min(1 << 30);
    let roof = device_line(gpu, roof_bytes, report)?;
    peer_line(peer, report);
    let mut out = gpu.zeros::<u32>(largest)?;
    let mut table = Table::new("compact", &[VARIANT, N, KEPT, TIME, ITEMS_RATE, BANDWIDTH, ROOF, CUB_TIME, VS_CUB]);
    for &n in sizes {
        let input = gpu.upload(&items[..n])?;
        for rate in RATES {
            let t = threshold(rate);
            let kept = select::select_if(&items[..n], |v| v < t);
            let mut row = |name: &str, timed: Stats, flag_bytes: usize, cub: Option<[Value; 2]>| {
                let ms = timed.median;
                let rate_gbps = gbps((4 * (n + kept.len()) + flag_bytes) as u64, ms);
                // No CUB twin: blank (the ordered rows read "—" without the peer).
                let [cub_ms, vs] = cub.unwrap_or([Value::BLANK, Value::BLANK]);
                table.row(vec![
                    Value::text(name),
                    Value::Size(n as u64),
                    kept_share(rate),
                    Value::time(timed, 4),
                    Value::giga(n as f64 / (ms * 1e-3)),
                    Value::fixed(rate_gbps, 0),
                    Value::fixed(100.0 * rate_gbps / roof, 1),
                    cub_ms,
                    vs,
                ]);
            };
            let keep = Keep::If(Predicate::Less(t));
            for variant in Variant::ALL.into_iter().filter(|v| args.wants(v.name())) {
                let timed = time_warpwork(gpu, args, &input, keep, variant, &mut out, &kept)?;
                let cub = match variant {
                    Variant::Ordered => Some(cub_cells(timed.median, time_cub(gpu, peer, args, &input, keep, &kept)?)),
                    _ => None,
                };
                row(variant.name(), timed, 0, cub);
            }
            if !args.wants(FLAGGED) {
                continue;
            }
            let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
            let flags = gpu.upload(&flags)?;
            let keep = Keep::Flagged(&flags);
            let timed = time_warpwork(gpu, args, &input, keep, Variant::Ordered, &mut out, &kept)?;
            let cub = cub_cells(timed.median, time_cub(gpu, peer, args, &input, keep, &kept)?);
            row(FLAGGED, timed, n, Some(cub));
        }
    }
    report.table(table);
    super::family::run_gpu(gpu, peer, args, sizes, items, roof, report)
}

/// Device time of warpwork's `select_into` (which resets the count itself), checked against
/// `kept`: the count, and for [`Variant::Ordered`] the items in order.
fn time_warpwork(
    gpu: &Gpu,
    args: &BenchArgs,
    input: &CudaSlice<u32>,
    keep: Keep<'_, u32>,
    variant: Variant,
    out: &mut CudaSlice<u32>,
    kept: &[u32],
) -> Result<Stats> {
    let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, input.len()))?;
    // Cleared, so that the check cannot read an earlier run's items.
    gpu.fill_bytes(out, 0)?;
    let t = args.time(gpu, 3, || gpu.select_into(input, keep, variant, out, &mut state))?;
    let got = gpu.select_count(out, &state)?;
    let in_order = variant != Variant::Ordered || gpu.download_prefix(out, got)? == kept;
    if got != kept.len() || !in_order {
        return Err(Error::InvalidInput(format!(
            "bench self-check failed: {} kept {got} of {} (the CPU {}){}",
            variant.name(),
            input.len(),
            kept.len(),
            if in_order { "" } else { ", or not the CPU's items in order" }
        )));
    }
    Ok(t)
}

/// Device time of CUB's select on the same input (`None` without the peer), into a fresh
/// poisoned output, checked item by item against `kept`.
fn time_cub(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    input: &CudaSlice<u32>,
    keep: Keep<'_, u32>,
    kept: &[u32],
) -> Result<Option<Stats>> {
    let Some(peer) = peer else { return Ok(None) };
    let n = input.len();
    let mut temp = peer.select_temp(gpu, keep, n)?;
    let mut out = gpu.filled::<u32>(n.max(1), 0xAB)?;
    let mut count = gpu.zeros::<u32>(1)?;
    let t = args.time(gpu, 3, || peer.select(gpu, &mut temp, input, keep, &mut out, &mut count))?;
    let got = gpu.download(&count)?[0] as usize;
    if got != kept.len() || gpu.download_prefix(&out, got.min(n))? != kept {
        return Err(Error::InvalidInput(format!(
            "bench self-check failed: CUB kept {got} of {n} (the CPU {}), or not the CPU's items in order",
            kept.len()
        )));
    }
    Ok(Some(t))
}

fn run_cpu(args: &BenchArgs, sizes: &[usize], items: &[u32], report: &mut Report) -> Result<()> {
    let reps = args.reps().min(5);
    let note = CpuNote::new("warpwork_cpu_reference::select::select_if", reps, "items", sizes, &[]);
    let mut table = Table::cpu("compact", &[VARIANT, N, KEPT, TIME, ITEMS_RATE, BANDWIDTH], note);
    for &n in sizes {
        for rate in RATES {
            let t = threshold(rate);
            let mut kept = 0;
            let ms = cpu_stats(reps, || kept = select::select_if(&items[..n], |v| v < t).len());
            let bytes = (n + kept) as u64 * 4;
            table.row(vec![
                Value::text("cpu-rayon"),
                Value::Size(n as u64),
                kept_share(rate),
                Value::time(ms, 3),
                Value::giga(n as f64 / (ms.median * 1e-3)),
                Value::fixed(gbps(bytes, ms.median), 1),
            ]);
        }
    }
    report.table(table);
    Ok(())
}
