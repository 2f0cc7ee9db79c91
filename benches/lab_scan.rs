//! Tuning lab (see lab/README.md): the exclusive sum of u32 and u64 through the public call
//! (`exclusive_scan_into`: the tile class `warpwork_abi::scan::TileClass::of` picks, launched after
//! the states' zeroing kernel as its programmatic dependent) and, by hand (a memset, then a plain
//! launch), with the kernel of each tile class (`TileClass`); each result checked against the CPU.
//! `cargo bench --bench lab_scan` on a GPU machine; `$LAB_SIZES` (e.g. "16 20 22") limits the
//! sizes, `$LAB_REPS` sets the repetitions. With `$LAB_MODULE` naming the lab's cubin
//! (`scripts/lab-ptx.sh`), the `u64` rows also time the lab's tile shapes the same way.

use bytemuck::Pod;
use warpwork::abi::scan::TileClass;
use warpwork::cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig};
use warpwork::scan::{scratch_len, ScanItem};
use warpwork::Gpu;

const SIZES: [u32; 9] = [16, 17, 18, 19, 20, 21, 22, 23, 24];

/// The lab's `u64` kernels: (name, warps, 16-byte chunks per thread).
const LAB_SHAPES: [(&str, u32, usize); 10] = [
    ("lab_scan_u64_w2c16", 2, 16),
    ("lab_scan_u64_w4c8", 4, 8),
    ("lab_scan_u64_w4c12", 4, 12),
    ("lab_scan_u64_w4c16", 4, 16),
    ("lab_scan_u64_w4c16a", 4, 16),
    ("lab_scan_u64_w8c4", 8, 4),
    ("lab_scan_u64_w8c8", 8, 8),
    ("lab_scan_u64_w8c8a", 8, 8),
    ("lab_scan_u64_w16c4", 16, 4),
    ("lab_scan_u64_w16c2", 16, 2),
];

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
    println!(
        "{:<5} {:>5} {:>10} {:>10} {:>10} {:>10}  (ms, medians of {reps})",
        "type", "n", "api", "small", "medium", "standard"
    );
    for &k in &sizes {
        row::<u32>(&gpu, k, reps, |i| (i % 64) as u32)?;
    }
    for &k in &sizes {
        row::<u64>(&gpu, k, reps, |i| (i % 64) as u64)?;
    }
    if let Ok(path) = std::env::var("LAB_MODULE") {
        let image = std::fs::read(&path).map_err(|e| warpwork::Error::InvalidInput(format!("{path}: {e}")))?;
        let module = gpu.context().load_module(warpwork::cudarc::nvrtc::Ptx::from_binary(image))?;
        println!("\nu64 tile shapes by hand (memset + plain launch), ms:");
        println!("{:<22}{}", "shape", sizes.iter().map(|k| format!("{:>10}", format!("2^{k}"))).collect::<String>());
        for (name, warps, chunks) in LAB_SHAPES {
            let f = module.load_function(name)?;
            let mut line = format!("{name:<22}");
            for &k in &sizes {
                let tile = warps as usize * 32 * chunks * 2;
                line += &format!("{:>10}", shape_cell(&gpu, &f, k, reps, warps, tile)?);
            }
            println!("{line}");
        }
    }
    Ok(())
}

/// The time of one lab kernel on 2^log2 `u64`s, checked.
fn shape_cell(
    gpu: &Gpu,
    f: &warpwork::cudarc::driver::CudaFunction,
    log2: u32,
    reps: usize,
    warps: u32,
    tile: usize,
) -> warpwork::Result<String> {
    let n = 1usize << log2;
    let host: Vec<u64> = (0..n).map(|i| (i % 64) as u64).collect();
    let input = gpu.upload(&host)?;
    let mut out = gpu.zeros::<u64>(n)?;
    let tiles = n.div_ceil(tile);
    let mut states = gpu.zeros::<u32>(4 * tiles + 4)?;
    let run = |states: &mut CudaSlice<u32>, out: &mut CudaSlice<u64>| -> warpwork::Result<()> {
        gpu.fill_bytes(states, 0)?;
        let mut l = gpu.kernel_args();
        l.read(&input).write(out).value(&n).write(states).value(&0u32);
        let cfg = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (warps * 32, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the lab kernels take the scan kernels' parameters; states sized for `tiles`.
        unsafe { l.launch(f, cfg) }
    };
    run(&mut states, &mut out)?;
    let got = gpu.download(&out)?;
    let mut acc = 0u64;
    let ok = host.iter().zip(&got).all(|(&x, &g)| {
        let right = g == acc;
        acc += x;
        right
    });
    let ms = gpu.median_ms(3, reps, || run(&mut states, &mut out))?;
    Ok(format!("{ms:.4}{}", if ok { "" } else { "!" }))
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
    let mut scratch = gpu.zeros::<u32>(scratch_len::<T>(n))?;
    gpu.fill_bytes(&mut out, 0xAB)?;
    gpu.exclusive_scan_into(&input, &mut out, &mut scratch)?;
    let api_ok = check(&out)?;
    let api = gpu.median_ms(3, reps, || gpu.exclusive_scan_into(&input, &mut out, &mut scratch))?;
    // Each class by hand: memset of the states, plain launch.
    let size = std::mem::size_of::<T>();
    let mut cells = Vec::new();
    for class in TileClass::ALL {
        if !class.exists_for(size) {
            cells.push(format!("{:>10}", "—"));
            continue;
        }
        let (warps, _, _) = warpwork::abi::scan::tile_shape(size, class);
        let tiles = n.div_ceil(warpwork::abi::scan::tile_items(size, class));
        let words = warpwork::abi::scan::tile_state_words(size, tiles);
        let mut states = gpu.zeros::<u32>(words + 4)?;
        let prefix = match class {
            TileClass::Small => "small_",
            TileClass::Medium => "medium_",
            TileClass::Standard => "",
        };
        let name = format!("scan_{prefix}exclusive_sum_{}", T::SUFFIX);
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
