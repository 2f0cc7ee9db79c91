//! `warpwork bench compact`: `select_if(item < threshold)` on uniform u32s, every variant, at
//! selection rates 1%, 50% and 99%, and the ordered variant with flags (`flags[i] = item < t`,
//! so the same items are kept). Bytes counted: n·4 read (plus n flag bytes) and kept·4 written.
//!
//! The ordered rows are the ordered-select comparison with CUB: `DeviceSelect::If` with the same
//! predicate, and `DeviceSelect::Flagged` with the same flags, both order-preserving like
//! `Variant::Ordered` (the unordered variants have no CUB twin). Every ordered result, warpwork's
//! and CUB's, is checked item by item against the CPU; the others by their count.

use super::cub::CubPeer;
use super::{cpu_median_ms, cub_cells, device_line, peer_line, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{inputs, select};

const RATES: [f64; 3] = [0.01, 0.5, 0.99];

fn threshold(rate: f64) -> u32 {
    (rate * 2f64.powi(32)).min(u32::MAX as f64) as u32
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    let sizes = args.sizes(4);
    let largest = *sizes.last().unwrap();
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    println!("## compact: select_if(u32 < threshold), uniform u32 input\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, peer, args, &sizes, &items),
        None => run_cpu(args, &sizes, &items),
    }
}

fn run_gpu(gpu: &Gpu, peer: Option<&CubPeer>, args: &BenchArgs, sizes: &[usize], items: &[u32]) -> Result<()> {
    let largest = items.len();
    let roof_bytes = (largest * 4).min(1 << 30);
    let roof = device_line(gpu, roof_bytes)?;
    peer_line(peer);
    let mut out = gpu.zeros::<u32>(largest)?;
    let mut table = Table::new(&["variant", "n", "kept", "time ms", "G items/s", "GB/s", "% roof", "CUB ms", "vs CUB"]);
    for &n in sizes {
        let input = gpu.upload(&items[..n])?;
        for rate in RATES {
            let t = threshold(rate);
            let kept = select::select_if(&items[..n], |v| v < t);
            let mut row = |name: &str, ms: f64, flag_bytes: usize, cub: Option<[String; 2]>| {
                let rate_gbps = gbps((4 * (n + kept.len()) + flag_bytes) as u64, ms);
                let [cub_ms, vs] = cub.unwrap_or_default();
                table.row(vec![
                    name.into(),
                    size(n),
                    format!("{:.0}%", rate * 100.0),
                    format!("{ms:.4}"),
                    giga(n as f64 / (ms * 1e-3)),
                    format!("{rate_gbps:.0}"),
                    format!("{:.1}", 100.0 * rate_gbps / roof),
                    cub_ms,
                    vs,
                ]);
            };
            let keep = Keep::If(Predicate::Less(t));
            for variant in Variant::ALL.into_iter().filter(|v| args.wants(v.name())) {
                let ms = time_warpwork(gpu, args, &input, keep, variant, &mut out, &kept)?;
                let cub = match variant {
                    Variant::Ordered => Some(cub_cells(ms, time_cub(gpu, peer, args, &input, keep, &kept)?)),
                    _ => None,
                };
                row(variant.name(), ms, 0, cub);
            }
            if !args.wants("ordered, flagged") {
                continue;
            }
            let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
            let flags = gpu.upload(&flags)?;
            let keep = Keep::Flagged(&flags);
            let ms = time_warpwork(gpu, args, &input, keep, Variant::Ordered, &mut out, &kept)?;
            let cub = cub_cells(ms, time_cub(gpu, peer, args, &input, keep, &kept)?);
            row("ordered, flagged", ms, n, Some(cub));
        }
    }
    table.print();
    Ok(())
}

/// Median device time of warpwork's `select_into` (which resets the count itself), checked against
/// `kept`: the count, and for [`Variant::Ordered`] the items in order.
fn time_warpwork(
    gpu: &Gpu,
    args: &BenchArgs,
    input: &CudaSlice<u32>,
    keep: Keep<'_, u32>,
    variant: Variant,
    out: &mut CudaSlice<u32>,
    kept: &[u32],
) -> Result<f64> {
    let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, input.len()))?;
    // Cleared, so that the check cannot read an earlier run's items.
    gpu.fill_bytes(out, 0)?;
    let ms = args.median_ms(gpu, 3, || gpu.select_into(input, keep, variant, out, &mut state))?;
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
    Ok(ms)
}

/// Median device time of CUB's select on the same input (`None` without the peer), into a fresh
/// poisoned output, checked item by item against `kept`.
fn time_cub(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    input: &CudaSlice<u32>,
    keep: Keep<'_, u32>,
    kept: &[u32],
) -> Result<Option<f64>> {
    let Some(peer) = peer else { return Ok(None) };
    let n = input.len();
    let mut temp = peer.select_temp(gpu, keep, n)?;
    let mut out = gpu.filled::<u32>(n.max(1), 0xAB)?;
    let mut count = gpu.zeros::<u32>(1)?;
    let ms = args.median_ms(gpu, 3, || peer.select(gpu, &mut temp, input, keep, &mut out, &mut count))?;
    let got = gpu.download(&count)?[0] as usize;
    if got != kept.len() || gpu.download_prefix(&out, got.min(n))? != kept {
        return Err(Error::InvalidInput(format!(
            "bench self-check failed: CUB kept {got} of {n} (the CPU {}), or not the CPU's items in order",
            kept.len()
        )));
    }
    Ok(Some(ms))
}

fn run_cpu(args: &BenchArgs, sizes: &[usize], items: &[u32]) -> Result<()> {
    let mut table = Table::new(&["variant", "n", "kept", "time ms", "G items/s", "GB/s"]);
    for &n in sizes {
        for rate in RATES {
            let t = threshold(rate);
            let mut kept = 0;
            let ms = cpu_median_ms(args.reps().min(5), || kept = select::select_if(&items[..n], |v| v < t).len());
            let bytes = (n + kept) as u64 * 4;
            table.row(vec![
                "cpu-rayon".into(),
                size(n),
                format!("{:.0}%", rate * 100.0),
                format!("{ms:.3}"),
                giga(n as f64 / (ms * 1e-3)),
                format!("{:.1}", gbps(bytes, ms)),
            ]);
        }
    }
    table.print();
    Ok(())
}
