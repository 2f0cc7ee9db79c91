//! EXPERIMENT ONLY (issue 16's scan tuning; removed before merge): `warpwork bench scanx` times
//! the exclusive sum of every experiment tile shape (`scanx_*` kernels), the shipped kernel and
//! CUB on the same inputs, u32 and u64 at 2^16, 2^20, 2^24, 2^28 and 2^30, each result checked
//! against the CPU. `WARPWORK_SCANX=tag,tag` limits the shapes.

use super::cub::{CubPeer, PeerScanItem};
use super::{device_line, peer_line, BenchArgs};
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// (tag, warps, chunks): the kernels `scanx_{tag}_{u32|u64}`.
const SHAPES: [(&str, u32, u32); 18] = [
    ("w16c4p", 16, 4),
    ("w16c4s", 16, 4),
    ("w16c4a", 16, 4),
    ("w8c4p", 8, 4),
    ("w8c6p", 8, 6),
    ("w8c8p", 8, 8),
    ("w8c8s", 8, 8),
    ("w8c8a", 8, 8),
    ("w8c10p", 8, 10),
    ("w12c6p", 12, 6),
    ("w4c8p", 4, 8),
    ("w4c10p", 4, 10),
    ("w4c12p", 4, 12),
    ("w4c12a", 4, 12),
    ("w4c16p", 4, 16),
    ("w8c8p0", 8, 8),
    ("w8c8p400", 8, 8),
    ("w4c12p0", 4, 12),
];

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs) -> Result<()> {
    let gpu = gpu.ok_or_else(|| Error::InvalidInput("bench scanx needs a GPU".into()))?;
    let only = std::env::var("WARPWORK_SCANX").ok();
    let shapes: Vec<_> = SHAPES
        .iter()
        .copied()
        .filter(|(t, ..)| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *t)))
        .collect();
    let sizes: Vec<usize> = [16, 20, 24, 28, 30].iter().filter(|&&k| k <= args.max_log2).map(|&k| 1 << k).collect();
    let largest = *sizes.last().unwrap();
    let roof = gpu.copy_roof_gbps(1 << 30)?;
    device_line(gpu, roof, 1 << 30);
    peer_line(peer);
    let v32 = inputs::uniform_range(largest, 3, 0, 64);
    let s32 = cpu::exclusive_scan_u32(&v32);
    let t32 = table(gpu, peer, args, &shapes, &sizes, &v32, &s32, "u32")?;
    let v64: Vec<u64> = v32.iter().map(|&x| x as u64).collect();
    drop((v32, s32));
    let s64 = cpu::exclusive_scan_u64(&v64);
    let t64 = table(gpu, peer, args, &shapes, &sizes, &v64, &s64, "u64")?;
    println!("{t32}\n{t64}");
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn table<T: PeerScanItem + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    shapes: &[(&'static str, u32, u32)],
    sizes: &[usize],
    v: &[T],
    want: &[T],
    name: &str,
) -> Result<String> {
    // rows: name -> cells per size (ms)
    let mut rows: Vec<(String, Vec<f64>)> = vec![("CUB".into(), vec![]), ("shipped".into(), vec![])];
    rows.extend(shapes.iter().map(|s| (s.0.to_string(), vec![])));
    rows.push(("CUB again".into(), vec![]));
    let mut bad = vec![];
    for &n in sizes {
        let d = gpu.upload(&v[..n])?;
        let mut o = gpu.filled::<T>(n, 0xAB)?;
        let mut scratch = gpu.zeros::<u32>(4 * n.div_ceil(512) + 16)?;
        let mut check = |who: &str, o: &warpwork::cudarc::driver::CudaSlice<T>| -> Result<()> {
            // (2^30: 4-8 GiB downloads per row; the smaller sizes check those kernels.)
            if n > 1 << 28 {
                return Ok(());
            }
            let got = gpu.download(o)?;
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                println!("WRONG: {who} {name} n={n} at {i}: got {:?} want {:?}", got[i], want[i]);
                bad.push(format!("{who}/{n}"));
            }
            Ok(())
        };
        let cub = |o: &mut warpwork::cudarc::driver::CudaSlice<T>| -> Result<f64> {
            match peer {
                Some(peer) => {
                    let mut temp = peer.scan_temp::<T>(gpu, n)?;
                    gpu.median_ms(3, args.reps, || peer.exclusive_sum(gpu, &mut temp, &d, o))
                }
                None => Ok(f64::NAN),
            }
        };
        let c = cub(&mut o)?;
        check("CUB", &o)?;
        rows[0].1.push(c);
        gpu.fill_bytes(&mut o, 0xAB)?;
        let ms = gpu.median_ms(3, args.reps, || gpu.exclusive_scan_into(&d, &mut o, &mut scratch))?;
        check("shipped", &o)?;
        rows[1].1.push(ms);
        for (k, &(tag, warps, chunks)) in shapes.iter().enumerate() {
            let kernel: &'static str = Box::leak(format!("scanx_{tag}_{name}").into_boxed_str());
            gpu.fill_bytes(&mut o, 0xAB)?;
            let ms = gpu.median_ms(3, args.reps, || {
                gpu.scan_experiment_into(&d, &mut o, (kernel, warps, chunks), &mut scratch)
            })?;
            check(tag, &o)?;
            rows[2 + k].1.push(ms);
        }
        gpu.fill_bytes(&mut o, 0xAB)?;
        let c2 = cub(&mut o)?;
        rows.last_mut().unwrap().1.push(c2);
        eprintln!("{name} 2^{} done", n.trailing_zeros());
    }
    let mut out = format!("### {name}: ms (× CUB = CUB ms / ms)\n| variant |");
    for &n in sizes {
        out += &format!(" 2^{} |", n.trailing_zeros());
    }
    out += "\n|---|";
    out += &"---|".repeat(sizes.len());
    out += "\n";
    for (label, cells) in &rows {
        out += &format!("| {label} |");
        for (i, ms) in cells.iter().enumerate() {
            out += &format!(" {ms:.4} {:.2}× |", rows[0].1[i] / ms);
        }
        out += "\n";
    }
    for (i, &n) in sizes.iter().enumerate() {
        let best = rows[1..rows.len() - 1].iter().min_by(|a, b| a.1[i].total_cmp(&b.1[i])).unwrap();
        out += &format!(
            "BEST {name} 2^{}: {} {:.4} ms {:.2}×\n",
            n.trailing_zeros(),
            best.0,
            best.1[i],
            rows[0].1[i] / best.1[i]
        );
    }
    if !bad.is_empty() {
        out += &format!("WRONG RESULTS: {bad:?}\n");
    }
    Ok(out)
}
