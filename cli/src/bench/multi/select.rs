//! The sharded ordered select (`Gpus::select_sharded_into`) against the one-GPU ordered select
//! (`Gpu::select_into`, `Variant::Ordered`) of the same per-GPU size: `u32 < 2^31` on uniform
//! random `u32`s (half kept), the same items on every rank. Bytes per GPU: the shard read once
//! and the kept items written once, as `bench compact` counts them.

use super::{time_all, GPUS, VS_ONE};
use crate::bench::BenchArgs;
use crate::report::cols::{BANDWIDTH, ITEMS_RATE, N, TIME, VARIANT};
use crate::report::{Col, Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::multi::{sharded_select_state_len, Gpus};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::inputs;

const KEPT: Col = Col::key("kept", "kept", "%");
/// Items below it are kept: half of uniform `u32`s.
const THRESHOLD: u32 = 1 << 31;

/// The select table: for each per-GPU size, the one-GPU select on rank 0 of `one`, then the
/// sharded select on every handle.
pub fn table(one: &Gpus, handles: &[&Gpus], sizes: &[usize], args: &BenchArgs) -> Result<Table> {
    let mut table = Table::new("multi-select", &[VARIANT, GPUS, N, KEPT, TIME, ITEMS_RATE, BANDWIDTH, VS_ONE]);
    for &n in sizes {
        let items = inputs::uniform_u32(n, 0x5E1EC7);
        let kept: Vec<u32> = items.iter().copied().filter(|&v| v < THRESHOLD).collect();
        let expect = Expect { count: kept.len(), first: kept.first().copied(), last: kept.last().copied() };
        let one_gpu = single(one.gpu(0), &items, &expect, args)?;
        let one_rate = n as f64 / (one_gpu.median * 1e-3);
        let share = 100.0 * kept.len() as f64 / n.max(1) as f64;
        let mut row = |variant: &str, gpus: usize, stats: Stats| {
            let rate = n as f64 / (stats.median * 1e-3);
            table.row(vec![
                Value::text(variant),
                Value::Int(gpus as u64),
                Value::Size(n as u64),
                Value::Num { v: share, shown: format!("{share:.1}%") },
                Value::time(stats, 4),
                Value::giga(rate),
                Value::fixed(gbps(4 * (n + kept.len()) as u64, stats.median), 0),
                Value::ratio(rate / one_rate),
            ]);
        };
        row("one-GPU ordered select", 1, one_gpu);
        for gpus in handles {
            row("sharded select", gpus.len(), sharded(gpus, &items, &expect, args)?);
        }
    }
    Ok(table)
}

/// What a shard's select must give: the count, and the first and last kept item.
struct Expect {
    count: usize,
    first: Option<u32>,
    last: Option<u32>,
}

/// The one-GPU ordered select of `items`: its stats, output checked.
fn single(gpu: &Gpu, items: &[u32], expect: &Expect, args: &BenchArgs) -> Result<Stats> {
    let input = gpu.upload(items)?;
    let mut out = gpu.zeros::<u32>(items.len())?;
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, items.len()))?;
    let keep = Keep::If(Predicate::Less(THRESHOLD));
    let t = args.time(gpu, 3, || gpu.select_into(&input, keep, Variant::Ordered, &mut out, &mut state))?;
    let count = gpu.download_prefix(&state, 1)?[0] as usize;
    check(gpu, &out, count, expect, "one-GPU ordered select")?;
    Ok(t)
}

/// The sharded select of `items` on every rank: its stats, every rank's output and offsets
/// checked.
fn sharded(gpus: &Gpus, items: &[u32], expect: &Expect, args: &BenchArgs) -> Result<Stats> {
    let (ranks, n) = (gpus.len(), items.len());
    let (mut shards, mut outs, mut states, mut offsets) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..ranks {
        let g = gpus.gpu(r);
        shards.push(g.upload(items)?);
        outs.push(g.zeros::<u32>(n)?);
        states.push(g.zeros::<u64>(sharded_select_state_len::<u32>(n, ranks))?);
        offsets.push(g.zeros::<u64>(ranks + 1)?);
    }
    let keeps = vec![Keep::If(Predicate::Less(THRESHOLD)); ranks];
    let t = time_all(gpus, args, || gpus.select_sharded_into(&shards, &keeps, &mut outs, &mut states, &mut offsets))?;
    let want: Vec<u64> = (0..=ranks as u64).map(|k| k * expect.count as u64).collect();
    for r in 0..ranks {
        let g = gpus.gpu(r);
        let got = g.download(&offsets[r])?;
        if got != want {
            return Err(Error::InvalidInput(format!(
                "bench self-check: sharded select offsets on rank {r}: {got:?}, expected {want:?}"
            )));
        }
        check(g, &outs[r], expect.count, expect, "sharded select")?;
    }
    Ok(t)
}

/// Checks a select's count and its first and last kept item against `expect`.
fn check(gpu: &Gpu, out: &CudaSlice<u32>, count: usize, expect: &Expect, what: &str) -> Result<()> {
    let ends = match count {
        0 => (None, None),
        c => (Some(gpu.download(&out.slice(0..1))?[0]), Some(gpu.download(&out.slice(c - 1..c))?[0])),
    };
    if count != expect.count || ends != (expect.first, expect.last) {
        return Err(Error::InvalidInput(format!(
            "bench self-check: {what}: {count} kept, first and last {ends:?}; expected {} and {:?}",
            expect.count,
            (expect.first, expect.last)
        )));
    }
    Ok(())
}
