//! `warpwork bench scan`: the device-wide exclusive scan (`Gpu::exclusive_scan_into`, its
//! scratch allocated once, as CUB's temporary storage is), u32 and u64,
//! at every second power of two from 2^16 to 2^max_log2 (2^30 by default), beside CUB's
//! `DeviceScan::ExclusiveSum` on the same input when the peer is present. Bytes counted: the
//! input read plus the output written. Inputs are uniform in [0, 64); sums wrap.
//!
//! The CPU scan of the largest input is computed once: the scan of a prefix is the prefix of the
//! scan, so every size is checked against it, warpwork's and CUB's outputs alike (CUB writes into
//! a fresh poisoned buffer, so it cannot pass on warpwork's leftovers).

use super::cub::{CubPeer, PeerScanItem};
use super::{cpu_stats, cub_cells, device_line, peer_line, BenchArgs};
use crate::report::cols::{BANDWIDTH, CUB_TIME, ITEMS_RATE, N, ROOF, TIME, VARIANT, VS_CUB};
use crate::report::{Col, CpuNote, Report, Table, Value};
use warpwork::timing::gbps;
use warpwork::{scan, Error, Gpu, Result};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// The element types, the row names `--only` picks from.
const U32: &str = "u32";
const U64: &str = "u64";
pub const ROWS: [&str; 2] = [U32, U64];

const TYPE: Col = Col::key("type", "type", "");
const CUB_ROOF: Col = Col::value("CUB % roof", "cub_roof_share", "% of the copy roof");
/// The CPU reference's largest input (a 2-core machine's minute).
const CPU_MAX_LOG2: u32 = 26;

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    report.say("## scan: device-wide exclusive sum, uniform [0, 64) input\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args, report),
        None => run_cpu(args, report),
    }
}

fn run_gpu(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    let sizes = args.sizes(2);
    let largest = *sizes.iter().max().unwrap();
    let roof_bytes = (largest * 4).min(1 << 30);
    let roof = device_line(gpu, roof_bytes, report)?;
    peer_line(peer, report);
    let mut table = Table::new("scan", &[TYPE, N, TIME, ITEMS_RATE, BANDWIDTH, ROOF, CUB_TIME, CUB_ROOF, VS_CUB]);
    let v32 = inputs::uniform_range(largest, 3, 0, 64);
    if args.wants(U32) {
        let scanned = cpu::exclusive_scan_u32(&v32);
        rows(gpu, peer, args, roof, &mut table, U32, &sizes, &v32, &scanned)?;
    }
    if args.wants(U64) {
        // The u64 rows' input is the same values, widened; the host copy of u32 goes first.
        let v64: Vec<u64> = v32.iter().map(|&x| x as u64).collect();
        drop(v32);
        let scanned = cpu::exclusive_scan_u64(&v64);
        rows(gpu, peer, args, roof, &mut table, U64, &sizes, &v64, &scanned)?;
    }
    report.table(table);
    Ok(())
}

/// One row per size: warpwork's and CUB's device times on `v[..n]`, both checked against
/// `scanned[..n]`.
#[allow(clippy::too_many_arguments)]
fn rows<T: PeerScanItem + PartialEq>(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    roof: f64,
    table: &mut Table,
    name: &str,
    sizes: &[usize],
    v: &[T],
    scanned: &[T],
) -> Result<()> {
    let check = |who: &str, got: Vec<T>, n: usize| {
        if got[..] != scanned[..n] {
            return Err(Error::InvalidInput(format!(
                "bench self-check: {who}'s {name} scan of {n} differs from the CPU"
            )));
        }
        Ok(())
    };
    for &n in sizes {
        let d = gpu.upload(&v[..n])?;
        let mut o = gpu.zeros::<T>(n)?;
        // The allocation-free form, its scratch allocated once, as CUB's temporary storage is.
        let mut scratch = gpu.zeros::<u32>(scan::scratch_len::<T>(n))?;
        let t = args.time(gpu, 3, || gpu.exclusive_scan_into(&d, &mut o, &mut scratch))?;
        check("warpwork", gpu.download(&o)?, n)?;
        drop(o);
        let cub = match peer {
            Some(peer) => {
                let mut temp = peer.scan_temp::<T>(gpu, n)?;
                let mut o = gpu.filled::<T>(n, 0xAB)?;
                let t = args.time(gpu, 3, || peer.exclusive_sum(gpu, &mut temp, &d, &mut o))?;
                check("CUB", gpu.download(&o)?, n)?;
                Some(t)
            }
            None => None,
        };
        let bytes = 2 * std::mem::size_of::<T>() as u64 * n as u64;
        let ms = t.median;
        let bw = gbps(bytes, ms);
        let cub_roof = cub.map_or(Value::DASH, |c| Value::fixed(100.0 * gbps(bytes, c.median) / roof, 1));
        let [cub_ms, vs] = cub_cells(ms, cub);
        table.row(vec![
            Value::text(name),
            Value::Size(n as u64),
            Value::time(t, 4),
            Value::giga(n as f64 / (ms * 1e-3)),
            Value::fixed(bw, 0),
            Value::fixed(100.0 * bw / roof, 1),
            cub_ms,
            cub_roof,
            vs,
        ]);
    }
    Ok(())
}

/// Without a GPU: the CPU reference's u32 scan, at the sizes of the GPU bench up to
/// 2^[`CPU_MAX_LOG2`] (a 2-core machine's minute).
fn run_cpu(args: &BenchArgs, report: &mut Report) -> Result<()> {
    let (timed, dropped): (Vec<usize>, Vec<usize>) = args.sizes(2).into_iter().partition(|&n| n <= 1 << CPU_MAX_LOG2);
    let reps = args.reps().min(5);
    let reference = "warpwork_cpu_reference::expand::exclusive_scan_u32 (u32 only)";
    let mut table = Table::cpu(
        "scan",
        &[VARIANT, TYPE, N, TIME, ITEMS_RATE],
        CpuNote::new(reference, reps, "items", &timed, &dropped),
    );
    let v = inputs::uniform_range(timed.last().copied().unwrap_or(0), 3, 0, 64);
    for &n in &timed {
        let t = cpu_stats(reps, || drop(cpu::exclusive_scan_u32(&v[..n])));
        table.row(vec![
            Value::text("cpu-rayon"),
            Value::text(U32),
            Value::Size(n as u64),
            Value::time(t, 3),
            Value::giga(n as f64 / (t.median * 1e-3)),
        ]);
    }
    report.table(table);
    Ok(())
}
