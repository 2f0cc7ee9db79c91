//! Tuning lab (see lab/README.md): the exclusive sum of u32 and u64 through the public call
//! (`exclusive_scan_into`: the tile class `warpwork_abi::scan::small_tiles` picks, launched after
//! the states' zeroing kernel as its programmatic dependent) and, by hand (a memset, then a plain
//! launch), with the kernel of each tile class; each result checked against the CPU.
//! `cargo bench --bench lab_scan` on a GPU machine; `$LAB_SIZES` (e.g. "16 20 22") limits the
//! sizes, `$LAB_REPS` sets the repetitions.

use bytemuck::Pod;
use warpwork::cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig};
use warpwork::scan::{scratch_words, ScanItem};
use warpwork::Gpu;

const SIZES: [u32; 8] = [16, 17, 18, 19, 20, 21, 22, 24];

fn main() -> warpwork::Result<()> {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            println!("lab_scan: no GPU ({e})");
            return Ok(());
        }
    };
    let reps: usize = std::env::var("LAB_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(31);
    let only: Vec<u32> = std::env::var("LAB_SIZES")
        .map(|s| s.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .unwrap_or_default();
    let sizes: Vec<u32> = SIZES.iter().filter(|k| only.is_empty() || only.contains(k)).copied().collect();
    println!("device: {}", gpu.info().name);
    println!("{:<5} {:>5} {:>10} {:>10} {:>10}  (ms, medians of {reps})", "type", "n", "api", "small", "standard");
    for &k in &sizes {
        row::<u32>(&gpu, k, reps, |i| (i % 64) as u32)?;
    }
    for &k in &sizes {
        row::<u64>(&gpu, k, reps, |i| (i % 64) as u64)?;
    }
    Ok(())
}

fn row<T: ScanItem + Pod + DeviceRepr + PartialEq + std::ops::Add<Output = T> + Default>(
    gpu: &Gpu,
    log2: u32,
    reps: usize,
    value: impl Fn(usize) -> T,
) -> warpwork::Result<()> {
    let n = 1usize << log2;
    let host: Vec<T> = (0..n).map(&value).collect();
    let mut expected = Vec::with_capacity(n);
    let mut acc = T::default();
    for &x in &host {
        expected.push(acc);
        acc = acc + x;
    }
    let input = gpu.upload(&host)?;
    let mut out = gpu.zeros::<T>(n)?;
    let check = |out: &CudaSlice<T>| -> warpwork::Result<&'static str> {
        Ok(if gpu.download(out)? == expected { "" } else { "!" })
    };
    // The public call.
    let mut scratch = gpu.zeros::<u32>(scratch_words::<T>(n))?;
    gpu.fill_bytes(&mut out, 0xAB)?;
    gpu.exclusive_scan_into(&input, &mut out, &mut scratch)?;
    let api_ok = check(&out)?;
    let api = gpu.median_ms(3, reps, || gpu.exclusive_scan_into(&input, &mut out, &mut scratch))?;
    // Each class by hand: memset of the states, plain launch.
    let size = std::mem::size_of::<T>();
    let mut cells = Vec::new();
    for small in [true, false] {
        let (warps, _, _) = warpwork::abi::scan::tile_shape(size, small);
        let tiles = n.div_ceil(warpwork::abi::scan::tile_items(size, small));
        let words = warpwork::abi::scan::tile_state_words(size, tiles);
        let mut states = gpu.zeros::<u32>(words + 4)?;
        let name = format!("scan_{}exclusive_sum_{}", if small { "small_" } else { "" }, T::SUFFIX);
        let f = gpu.function(&name)?.clone();
        let run = |states: &mut CudaSlice<u32>, out: &mut CudaSlice<T>| -> warpwork::Result<()> {
            gpu.fill_bytes(states, 0)?;
            let mut l = gpu.kernel_args();
            l.read(&input).write(out).value(&n).write(states).value(&0u32);
            let cfg = LaunchConfig {
                grid_dim: (tiles as u32, 1, 1),
                block_dim: (warps as u32 * 32, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: `scan_{class}exclusive_sum_T(input, output, n, states, forced_fallback)`,
            // the states (a fresh, 256-byte aligned allocation) sized for `tiles` and zeroed.
            unsafe { l.launch(&f, cfg) }
        };
        gpu.fill_bytes(&mut out, 0xAB)?;
        run(&mut states, &mut out)?;
        let ok = check(&out)?;
        let ms = gpu.median_ms(3, reps, || run(&mut states, &mut out))?;
        cells.push(format!("{ms:>9.4}{ok:1}"));
    }
    println!("{:<5} {:>5} {:>9.4}{api_ok:1} {}", T::SUFFIX, format!("2^{log2}"), api, cells.join(" "));
    Ok(())
}
