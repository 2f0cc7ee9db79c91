//! Tuning lab (see lab/README.md): the stable partition of u32 items by a value test, timed on
//! the same inputs through the public call (`partition_into`: the preparing kernel, then the tile
//! kernel as its programmatic dependent) and, by hand (a memset of the state, then a plain
//! launch), with the shipped kernel (`partition_{tile}_u32`, both sides staged in shared memory)
//! and, when `$LAB_MODULE` names the lab's cubin (`scripts/lab-ptx.sh`), with the former design
//! (`lab_partition_scatter_{tile}_u32`, the rejected items stored straight from registers) in the
//! same tile; each result checked against the CPU. `cargo bench --bench lab_partition` on a GPU
//! machine; `$LAB_SIZES` (e.g. "16 20 28") limits the sizes, `$LAB_REPS` sets the repetitions.

use warpwork::abi::kernels::FAMILY_TILE_NAMES;
use warpwork::abi::select::{family_tile_class, family_tile_items, ordered_tile, FAMILY_TILE_CLASSES};
use warpwork::cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig};
use warpwork::partition::state_len;
use warpwork::select::{Keep, Predicate};
use warpwork::timing::gbps;
use warpwork::Gpu;
use warpwork_cpu_reference::{family as cpu, inputs};

const SIZES: [u32; 8] = [16, 18, 20, 22, 24, 26, 28, 30];
const RATES: [f64; 3] = [0.01, 0.5, 0.99];

fn main() -> warpwork::Result<()> {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            println!("lab_partition: no GPU ({e})");
            return Ok(());
        }
    };
    let reps: usize = std::env::var("LAB_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(21);
    let only: Vec<u32> = std::env::var("LAB_SIZES")
        .map(|s| s.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .unwrap_or_default();
    let sizes: Vec<u32> = SIZES.iter().filter(|k| only.is_empty() || only.contains(k)).copied().collect();
    let lab = match std::env::var("LAB_MODULE") {
        Ok(path) => {
            let image = std::fs::read(&path).map_err(|e| warpwork::Error::InvalidInput(format!("{path}: {e}")))?;
            Some(gpu.context().load_module(warpwork::cudarc::nvrtc::Ptx::from_binary(image))?)
        }
        Err(_) => None,
    };
    let roof = gpu.copy_roof_gbps(1 << 30)?;
    println!("device: {}; copy roof {roof:.0} GB/s", gpu.info().name);
    println!(
        "{:<12} {:>10} {:>10} {:>10} {:>8}  (ms, medians of {reps}; ! = wrong result)",
        "case", "api", "staged", "scatter", "old/new"
    );
    let largest = 1usize << sizes.iter().max().copied().unwrap_or(16);
    let items = inputs::uniform_u32(largest, 0xC0FFEE);
    let mut out = gpu.zeros::<u32>(largest)?;
    for &log2 in &sizes {
        let n = 1usize << log2;
        let d_items = gpu.upload(&items[..n])?;
        let mut state = gpu.zeros::<u64>(state_len::<u32>(n))?;
        let class = family_tile_class(4, n as u64);
        let tile_name = FAMILY_TILE_NAMES[class];
        let shipped = gpu.function(&format!("partition_{tile_name}_u32"))?.clone();
        let scatter = match &lab {
            Some(m) => Some(m.load_function(&format!("lab_partition_scatter_{tile_name}_u32"))?),
            None => None,
        };
        for rate in RATES {
            let t = (rate * 2f64.powi(32)) as u32;
            let want = cpu::partition_if(&items[..n], |v| v < t);
            let case = format!("2^{log2}/{:.0}%", rate * 100.0);
            let check = |out: &CudaSlice<u32>, state: &CudaSlice<u64>| -> warpwork::Result<&'static str> {
                let count = gpu.download_prefix(state, 1)?[0] as usize;
                Ok(if count == want.1 && gpu.download_prefix(out, n)? == want.0 { "" } else { "!" })
            };
            // The public call.
            let keep = Keep::If(Predicate::Less(t));
            gpu.fill_bytes(&mut out, 0xAB)?;
            gpu.partition_into(&d_items, keep, &mut out, &mut state)?;
            let ok = check(&out, &state)?;
            let api = gpu.median_ms(2, reps, || gpu.partition_into(&d_items, keep, &mut out, &mut state))?;
            let api = format!("{api:.4}{ok}");
            let by_hand = |f: &CudaFunction, out: &mut CudaSlice<u32>, state: &mut CudaSlice<u64>| {
                by_hand(&gpu, f, class, &d_items, n, t, out, state, reps)
            };
            let new = by_hand(&shipped, &mut out, &mut state)?;
            let new_ok = check(&out, &state)?;
            let (old, old_cell) = match &scatter {
                Some(f) => {
                    let ms = by_hand(f, &mut out, &mut state)?;
                    (Some(ms), format!("{ms:.4}{}", check(&out, &state)?))
                }
                None => (None, "—".to_owned()),
            };
            let ratio = old.map_or("—".to_owned(), |o| format!("{:.2}", o / new));
            let bytes = 8 * n as u64;
            println!(
                "{case:<12} {api:>10} {:>10} {old_cell:>10} {ratio:>8}  ({tile_name}; staged {:.1}% roof)",
                format!("{new:.4}{new_ok}"),
                100.0 * gbps(bytes, new) / roof
            );
        }
    }
    Ok(())
}

/// Times kernel `f` (the parameters of `partition_{tile}_u32`, tile class `class` of the family)
/// on `items` kept where `< t`, by hand: a memset of `state` (count, start, tile states) then a
/// plain launch. Returns the median; the last run's result stays in `out` and `state`.
#[allow(clippy::too_many_arguments)]
fn by_hand(
    gpu: &Gpu,
    f: &CudaFunction,
    class: usize,
    items: &CudaSlice<u32>,
    n: usize,
    t: u32,
    out: &mut CudaSlice<u32>,
    state: &mut CudaSlice<u64>,
    reps: usize,
) -> warpwork::Result<f64> {
    let (warps, _) = ordered_tile(4, FAMILY_TILE_CLASSES[class]);
    let tiles = (n as u64).div_ceil(family_tile_items(4, n as u64));
    let (nn, cap, op, zero, forced) = (n as u64, n as u64, warpwork::abi::select::op::LESS, 0u32, 0u32);
    let run = |state: &mut CudaSlice<u64>, out: &mut CudaSlice<u32>| -> warpwork::Result<()> {
        gpu.fill_bytes(state, 0)?;
        let s = gpu.device_address(state)?;
        let states_at = (s + 16).next_multiple_of(16) - s;
        let addrs = [s, s + 8, s + states_at];
        let mut l = gpu.kernel_args();
        l.read(items).read(items).value(&nn).value(&op).value(&t).value(&zero).write(out).value(&cap);
        l.value(&addrs[0]).value(&addrs[1]).value(&addrs[2]).value(&forced);
        let cfg = LaunchConfig { grid_dim: (tiles as u32, 1, 1), block_dim: (warps * 32, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the arguments of `partition_{tile}_u32` (and of the lab's kernels, which take
        // the same); the state holds the count, the start and the tile states of `tiles` tiles
        // (`state_len` covers them); `out` holds `n` items.
        unsafe { l.launch(f, cfg) }
    };
    gpu.fill_bytes(out, 0xAB)?;
    run(state, out)?;
    gpu.median_ms(2, reps, || run(state, out))
}
