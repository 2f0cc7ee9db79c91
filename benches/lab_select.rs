//! Tuning lab (see lab/README.md): every `lab_ordered_*` kernel in the loaded module, and the
//! shipped `select_ordered_u32`, timed on the same u32 inputs and checked against the CPU.
//! `cargo bench --bench lab_select` on a GPU machine whose PTX was built by lab/select-ordered.sh.

use warpwork::cudarc::driver::{CudaSlice, LaunchConfig};
use warpwork::timing::gbps;
use warpwork::Gpu;
use warpwork_cpu_reference::{inputs, select};

/// (kernel, warps, 16-byte chunks per thread).
const KERNELS: [(&str, u32, u64); 10] = [
    ("select_ordered_u32", 8, 8),
    ("lab_ordered_8x8_r40", 8, 8),
    ("lab_ordered_8x8_plain", 8, 8),
    ("lab_ordered_8x4", 8, 4),
    ("lab_ordered_4x8", 4, 8),
    ("lab_ordered_4x16", 4, 16),
    ("lab_ordered_4x16_r40", 4, 16),
    ("lab_ordered_16x4", 16, 4),
    ("lab_ordered_16x4_r40", 16, 4),
    ("lab_ordered_16x2", 16, 2),
];

fn main() -> warpwork::Result<()> {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            println!("lab_select: no GPU ({e})");
            return Ok(());
        }
    };
    let reps: usize = std::env::var("LAB_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(21);
    let roof = gpu.copy_roof_gbps(1 << 30)?;
    println!("device: {}; copy roof {roof:.0} GB/s", gpu.info().name);
    let largest = 1usize << 28;
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    let mut out = gpu.zeros::<u32>(largest)?;
    let mut rows = Vec::new();
    for (log2, rate, flagged) in [(28, 0.01, false), (28, 0.5, false), (28, 0.99, false), (28, 0.5, true), (24, 0.5, false), (20, 0.5, false), (16, 0.5, false)] {
        let n = 1usize << log2;
        let d_items = gpu.upload(&items[..n])?;
        let t = (rate * 2f64.powi(32)) as u32;
        let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
        let d_flags = gpu.upload(&flags)?;
        let kept = select::select_if(&items[..n], |v| v < t);
        let bytes = (4 * (n + kept.len()) + if flagged { n } else { 0 }) as u64;
        for (name, warps, chunks) in KERNELS {
            let Ok(f) = gpu.function(name) else { continue };
            let f = f.clone();
            let tile = warps as u64 * 32 * chunks * 4;
            let tiles = (n as u64).div_ceil(tile);
            let mut state = gpu.zeros::<u64>(3 + 2 * tiles as usize)?;
            let op: u32 = if flagged { 0 } else { 1 };
            let (nn, cap, zero, forced) = (n as u64, n as u64, 0u32, 0u32);
            let base = gpu.device_address(&state)?;
            let states_at = (base + 16).next_multiple_of(16) - base;
            let run = |state: &mut CudaSlice<u64>, out: &mut CudaSlice<u32>| -> warpwork::Result<()> {
                gpu.fill_bytes(state, 0)?;
                let mut l = gpu.kernel_args();
                let s = gpu.device_address(state)?;
                let addrs = [s, s + 8, s + states_at];
                l.read(&d_items).read(&d_flags).value(&nn).value(&op).value(&t).value(&zero).write(out).value(&cap);
                l.value(&addrs[0]).value(&addrs[1]).value(&addrs[2]).value(&forced);
                let cfg = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (warps * 32, 1, 1), shared_mem_bytes: 0 };
                unsafe { l.launch(&f, cfg) }
            };
            gpu.fill_bytes(&mut out, 0xAB)?;
            run(&mut state, &mut out)?;
            let count = gpu.download_prefix(&state, 1)?[0] as usize;
            let ok = count == kept.len() && gpu.download_prefix(&out, count)? == kept;
            let ms = gpu.median_ms(2, reps, || run(&mut state, &mut out))?;
            let occ = gpu.occupancy(name, warps * 32, 0).unwrap_or(0);
            rows.push(format!(
                "{name:<24} 2^{log2} {:>4.0}%{} {ms:>8.4} ms {:>6.1}% roof  {occ} blocks/SM  {}",
                rate * 100.0,
                if flagged { " flags" } else { "      " },
                100.0 * gbps(bytes, ms) / roof,
                if ok { "ok" } else { "WRONG" }
            ));
            println!("{}", rows.last().unwrap());
        }
    }
    println!("\n== lab_select summary");
    for r in rows {
        println!("{r}");
    }
    Ok(())
}
