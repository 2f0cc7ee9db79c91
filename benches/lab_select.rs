//! Tuning lab (see lab/README.md): the ordered select of u32 items, timed on the same inputs
//! through the public call (`select_into`: the tile class `warpwork_abi::select::ordered_tile_class`
//! picks, launched after the state's preparing kernel as its programmatic dependent) and, by
//! hand (a memset, then a plain launch), with the kernel of every tile class; each result
//! checked against the CPU. `cargo bench --bench lab_select` on a GPU machine; `$LAB_SIZES` (e.g. "16 20 28")
//! limits the sizes.

use warpwork::cudarc::driver::{CudaSlice, LaunchConfig};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::timing::gbps;
use warpwork::Gpu;
use warpwork_cpu_reference::{inputs, select};

/// (log2 of the size, share kept, by flag).
const CASES: [(u32, f64, bool); 12] = [
    (16, 0.5, false),
    (18, 0.5, false),
    (20, 0.5, false),
    (21, 0.5, false),
    (22, 0.5, false),
    (24, 0.5, false),
    (26, 0.5, false),
    (28, 0.01, false),
    (28, 0.5, false),
    (28, 0.99, false),
    (28, 0.5, true),
    (30, 0.5, false),
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
    let only: Vec<u32> = std::env::var("LAB_SIZES")
        .map(|s| s.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .unwrap_or_default();
    let cases: Vec<_> = CASES.iter().filter(|c| only.is_empty() || only.contains(&c.0)).copied().collect();
    let roof = gpu.copy_roof_gbps(1 << 30)?;
    println!("device: {}; copy roof {roof:.0} GB/s", gpu.info().name);
    let largest = 1usize << cases.iter().map(|c| c.0).max().unwrap_or(16);
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    let mut out = gpu.zeros::<u32>(largest)?;
    let mut table = vec![];
    for (log2, rate, flagged) in cases {
        let n = 1usize << log2;
        let d_items = gpu.upload(&items[..n])?;
        let t = (rate * 2f64.powi(32)) as u32;
        let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
        let d_flags = gpu.upload(&flags)?;
        let kept = select::select_if(&items[..n], |v| v < t);
        let bytes = (4 * (n + kept.len()) + if flagged { n } else { 0 }) as u64;
        let case = format!("2^{log2}/{:.0}%{}", rate * 100.0, if flagged { "f" } else { "" });
        let check = |out: &CudaSlice<u32>, count: usize| -> warpwork::Result<&'static str> {
            Ok(if count == kept.len() && gpu.download_prefix(out, count)? == kept { "" } else { " WRONG" })
        };
        // The public call.
        let keep = if flagged { Keep::Flagged(&d_flags) } else { Keep::If(Predicate::Less(t)) };
        let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, n))?;
        gpu.fill_bytes(&mut out, 0xAB)?;
        gpu.select_into(&d_items, keep, Variant::Ordered, &mut out, &mut state)?;
        let ok = check(&out, gpu.download_prefix(&state, 1)?[0] as usize)?;
        let ms = gpu.median_ms(2, reps, || gpu.select_into(&d_items, keep, Variant::Ordered, &mut out, &mut state))?;
        let class = warpwork::abi::select::ordered_tile_class(4, n as u64);
        let name = warpwork::abi::kernels::ORDERED_TILE_NAMES[class];
        table.push((case.clone(), format!("api {name}"), ms, ok));
        println!("{case:<12} api {name:<7} {ms:>8.4} ms {:>5.1}% roof{ok}", 100.0 * gbps(bytes, ms) / roof);
        // Every tile class, by hand: memset + plain launch.
        for (class, tile_name) in warpwork::abi::kernels::ORDERED_TILE_NAMES.iter().enumerate() {
            let (warps, chunks) = warpwork::abi::select::ordered_tile(4, class);
            let f = gpu.function(&format!("select_ordered_{tile_name}_u32"))?.clone();
            let tile = warps as u64 * 32 * chunks as u64 * 4;
            let chunks = chunks as u32;
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
                let cfg =
                    LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (warps * 32, 1, 1), shared_mem_bytes: 0 };
                // SAFETY: the arguments of `select_ordered_u32`, the state sized for `tiles`.
                unsafe { l.launch(&f, cfg) }
            };
            gpu.fill_bytes(&mut out, 0xAB)?;
            run(&mut state, &mut out)?;
            let ok = check(&out, gpu.download_prefix(&state, 1)?[0] as usize)?;
            let ms = gpu.median_ms(2, reps, || run(&mut state, &mut out))?;
            let occ = f.occupancy_max_active_blocks_per_multiprocessor(warps * 32, 0, None)?;
            table.push((case.clone(), format!("{warps}x{chunks}"), ms, ok));
            println!(
                "{case:<12} {warps:>2}x{chunks:<4} {ms:>8.4} ms {:>5.1}% roof {occ:>2} blocks/SM{ok}",
                100.0 * gbps(bytes, ms) / roof
            );
        }
    }
    // One row per kernel shape, one column per case.
    let mut cases: Vec<String> = table.iter().map(|r| r.0.clone()).collect();
    cases.dedup();
    let mut shapes: Vec<String> = table.iter().map(|r| r.1.clone()).filter(|s| !s.starts_with("api")).collect();
    shapes.sort();
    shapes.dedup();
    shapes.insert(0, "api".into());
    println!(
        "\n== lab_select summary (ms)\n{:<8}{}",
        "shape",
        cases.iter().map(|c| format!("{c:>12}")).collect::<String>()
    );
    for s in shapes {
        let cell = |c: &String| {
            table
                .iter()
                .find(|r| &r.0 == c && (r.1 == s || (s == "api" && r.1.starts_with("api"))))
                .map_or(format!("{:>12}", "—"), |r| {
                    format!("{:>12}", format!("{:.4}{}", r.2, if r.3.is_empty() { "" } else { "!" }))
                })
        };
        println!("{s:<8}{}", cases.iter().map(cell).collect::<String>());
    }
    Ok(())
}
