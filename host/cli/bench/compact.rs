//! `warpwork bench compact`: `select_if(item < threshold)` on uniform u32s, every variant, at
//! selection rates 1%, 50% and 99%. Bytes counted: n·4 read plus kept·4 written.

use super::{cpu_median_ms, device_line, sizes, BenchArgs};
use crate::table::{giga, size, Table};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{inputs, select};

const RATES: [f64; 3] = [0.01, 0.5, 0.99];

fn threshold(rate: f64) -> u32 {
    (rate * 2f64.powi(32)).min(u32::MAX as f64) as u32
}

pub fn run(gpu: Option<&Gpu>, args: &BenchArgs) -> Result<()> {
    let sizes = sizes(args.max_log2);
    let largest = *sizes.last().unwrap();
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    println!("## compact: select_if(u32 < threshold), uniform u32 input\n");
    match gpu {
        Some(gpu) => run_gpu(gpu, args, &sizes, &items),
        None => run_cpu(args, &sizes, &items),
    }
}

fn run_gpu(gpu: &Gpu, args: &BenchArgs, sizes: &[usize], items: &[u32]) -> Result<()> {
    let largest = items.len();
    let roof_bytes = (largest * 4).min(1 << 30);
    let roof = gpu.copy_roof_gbps(roof_bytes)?;
    device_line(gpu, roof, roof_bytes);
    let mut out = gpu.zeros::<u32>(largest)?;
    let mut table = Table::new(&["variant", "n", "kept", "time ms", "G items/s", "GB/s", "% roof"]);
    for &n in sizes {
        let input = gpu.upload(&items[..n])?;
        for rate in RATES {
            let t = threshold(rate);
            let expected = items[..n].iter().filter(|&&v| v < t).count();
            for variant in Variant::ALL {
                let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, n))?;
                let ms = gpu.median_ms(3, args.reps, || {
                    gpu.fill_bytes(&mut state.slice_mut(0..1), 0)?;
                    gpu.select_into(&input, Keep::If(Predicate::Less(t)), variant, &mut out, &mut state)
                })?;
                let got = gpu.select_count(&out, &state)?;
                if got != expected {
                    return Err(Error::InvalidInput(format!(
                        "bench self-check failed: {} kept {got} of {n}, the CPU {expected}",
                        variant.name()
                    )));
                }
                let bytes = (n + expected) as u64 * 4;
                let rate_gbps = gbps(bytes, ms);
                table.row(vec![
                    variant.name().into(),
                    size(n),
                    format!("{:.0}%", rate * 100.0),
                    format!("{ms:.4}"),
                    giga(n as f64 / (ms * 1e-3)),
                    format!("{rate_gbps:.0}"),
                    format!("{:.1}", 100.0 * rate_gbps / roof),
                ]);
            }
        }
    }
    table.print();
    Ok(())
}

fn run_cpu(args: &BenchArgs, sizes: &[usize], items: &[u32]) -> Result<()> {
    let mut table = Table::new(&["variant", "n", "kept", "time ms", "G items/s", "GB/s"]);
    for &n in sizes {
        for rate in RATES {
            let t = threshold(rate);
            let mut kept = 0;
            let ms = cpu_median_ms(args.reps.min(5), || kept = select::select_if(&items[..n], |v| v < t).len());
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
