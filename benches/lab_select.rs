//! Tuning lab (see lab/README.md): every `lab_ordered_*` kernel in the loaded module, and the
//! shipped `select_ordered_u32`, timed on the same u32 inputs and checked against the CPU.
//! `cargo bench --bench lab_select` on a GPU machine whose PTX was built by lab/select-ordered.sh.

use warpwork::cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig};
use warpwork::cudarc::nvrtc::Ptx;
use warpwork::timing::gbps;
use warpwork::Gpu;
use warpwork_cpu_reference::{inputs, select};

/// The kernels to time: warpwork's shipped `select_ordered_u32`, and every `lab_*_{W}x{C}…`
/// entry of the module at `$LAB_PTX` (W warps, C 16-byte chunks per thread), with their shapes.
fn kernels(gpu: &Gpu) -> warpwork::Result<Vec<(String, CudaFunction, u32, u64)>> {
    let shipped = warpwork::abi::select::ordered_chunks(4) as u64;
    let mut v = vec![("select_ordered_u32".to_string(), gpu.function("select_ordered_u32")?.clone(), 8, shipped)];
    let Ok(path) = std::env::var("LAB_PTX") else { return Ok(v) };
    let text = std::fs::read_to_string(&path).expect("LAB_PTX");
    let module = gpu.context().load_module(Ptx::from_src(text.clone()))?;
    for name in text.lines().filter_map(|l| l.strip_prefix(".visible .entry ")?.strip_suffix('(')) {
        let Some(shape) = name.strip_prefix("lab_").and_then(|r| r.split('_').nth(1)) else { continue };
        let (w, c) = shape.split_once('x').expect("lab_{tag}_{W}x{C}");
        v.push((name.to_string(), module.load_function(name)?, w.parse().unwrap(), c.parse().unwrap()));
    }
    Ok(v)
}

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
    let kernels = kernels(&gpu)?;
    for (log2, rate, flagged) in [(28, 0.01, false), (28, 0.5, false), (28, 0.99, false), (28, 0.5, true), (24, 0.5, false), (20, 0.5, false), (16, 0.5, false)] {
        let n = 1usize << log2;
        let d_items = gpu.upload(&items[..n])?;
        let t = (rate * 2f64.powi(32)) as u32;
        let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
        let d_flags = gpu.upload(&flags)?;
        let kept = select::select_if(&items[..n], |v| v < t);
        let bytes = (4 * (n + kept.len()) + if flagged { n } else { 0 }) as u64;
        for (name, f, warps, chunks) in &kernels {
            let (warps, chunks) = (*warps, *chunks);
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
                unsafe { l.launch(f, cfg) }
            };
            gpu.fill_bytes(&mut out, 0xAB)?;
            run(&mut state, &mut out)?;
            let count = gpu.download_prefix(&state, 1)?[0] as usize;
            let ok = count == kept.len() && gpu.download_prefix(&out, count)? == kept;
            let ms = gpu.median_ms(2, reps, || run(&mut state, &mut out))?;
            let occ = f.occupancy_max_active_blocks_per_multiprocessor(warps * 32, 0, None)?;
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
