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
use super::{cpu_median_ms, cub_cells, device_line, peer_line, sizes, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::timing::gbps;
use warpwork::{scan, Error, Gpu, Result};
use warpwork_cpu_reference::{expand as cpu, inputs};

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    println!("## scan: device-wide exclusive sum, uniform [0, 64) input\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args),
        None => run_cpu(args),
    }
}

fn run_gpu(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    let sizes = args.sizes(2);
    let largest = *sizes.iter().max().unwrap();
    let roof_bytes = (largest * 4).min(1 << 30);
    let roof = device_line(gpu, roof_bytes)?;
    peer_line(peer);
    let mut table =
        Table::new(&["type", "n", "time ms", "G items/s", "GB/s", "% roof", "CUB ms", "CUB % roof", "vs CUB"]);
    let v32 = inputs::uniform_range(largest, 3, 0, 64);
    if args.wants("u32") {
        let scanned = cpu::exclusive_scan_u32(&v32);
        rows(gpu, peer, args, roof, &mut table, "u32", &sizes, &v32, &scanned)?;
    }
    if args.wants("u64") {
        // The u64 rows' input is the same values, widened; the host copy of u32 goes first.
        let v64: Vec<u64> = v32.iter().map(|&x| x as u64).collect();
        drop(v32);
        let scanned = cpu::exclusive_scan_u64(&v64);
        rows(gpu, peer, args, roof, &mut table, "u64", &sizes, &v64, &scanned)?;
    }
    table.print();
    Ok(())
}

/// One row per size: warpwork's and CUB's median device times on `v[..n]`, both checked against
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
        let mut scratch = gpu.zeros::<u32>(scan::scratch_words::<T>(n))?;
        let ms = args.median_ms(gpu, 3, || gpu.exclusive_scan_into(&d, &mut o, &mut scratch))?;
        check("warpwork", gpu.download(&o)?, n)?;
        drop(o);
        let cub = match peer {
            Some(peer) => {
                let mut temp = peer.scan_temp::<T>(gpu, n)?;
                let mut o = gpu.filled::<T>(n, 0xAB)?;
                let ms = args.median_ms(gpu, 3, || peer.exclusive_sum(gpu, &mut temp, &d, &mut o))?;
                check("CUB", gpu.download(&o)?, n)?;
                Some(ms)
            }
            None => None,
        };
        let bytes = 2 * std::mem::size_of::<T>() as u64 * n as u64;
        let bw = gbps(bytes, ms);
        let cub_roof = cub.map_or("—".into(), |c| format!("{:.1}", 100.0 * gbps(bytes, c) / roof));
        let [cub_ms, vs] = cub_cells(ms, cub);
        table.row(vec![
            name.into(),
            size(n),
            format!("{ms:.4}"),
            giga(n as f64 / (ms * 1e-3)),
            format!("{bw:.0}"),
            format!("{:.1}", 100.0 * bw / roof),
            cub_ms,
            cub_roof,
            vs,
        ]);
    }
    Ok(())
}

/// Without a GPU: the CPU reference's scan, up to 2^26 (a 2-core machine's minute).
fn run_cpu(args: &BenchArgs) -> Result<()> {
    let sizes = sizes(args.max_log2().min(26), 2);
    let v = inputs::uniform_range(*sizes.last().unwrap(), 3, 0, 64);
    let mut table = Table::new(&["variant", "type", "n", "time ms", "G items/s"]);
    for &n in &sizes {
        let ms = cpu_median_ms(args.reps().min(5), || drop(cpu::exclusive_scan_u32(&v[..n])));
        table.row(vec!["cpu-rayon".into(), "u32".into(), size(n), format!("{ms:.3}"), giga(n as f64 / (ms * 1e-3))]);
    }
    table.print();
    Ok(())
}
