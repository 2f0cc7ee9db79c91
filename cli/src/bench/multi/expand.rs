//! The sharded expansion (`Gpus::expand_sharded_into`) against the one-GPU expansion
//! (`Expander::expand`) of the same per-GPU sources, both with S2.5f (`ScanFused`, the fastest
//! strategy on these counts in `bench expand`): `size / 64` sources per GPU with counts uniform
//! in `0 .. 64` (about `size / 2` pairs), the same counts on every rank. Rates are pairs per
//! second per GPU; bytes per GPU: the counts read and the pairs written, as `bench expand`
//! counts them.

use super::{time_all, GPUS, VS_ONE};
use crate::bench::BenchArgs;
use crate::report::cols::{BANDWIDTH, TIME, VARIANT};
use crate::report::{Col, Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{Expander, Strategy};
use warpwork::multi::{expand_shard_scratch_len, Gpus};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::inputs;

const SOURCES: Col = Col::key("sources", "sources", "items");
const PAIRS: Col = Col::value("pairs", "pairs", "items");
const PAIRS_RATE: Col = Col::value("G pairs/s", "pairs_rate", "G pairs/s");
/// Counts are uniform below it.
const MAX_COUNT: u32 = 64;
const STRATEGY: Strategy = Strategy::ScanFused;

/// The expansion table: for each per-GPU size, the one-GPU expansion on rank 0 of `one`, then
/// the sharded expansion on every handle.
pub fn table(one: &Gpus, handles: &[&Gpus], sizes: &[usize], args: &BenchArgs) -> Result<Table> {
    let mut table = Table::new("multi-expand", &[VARIANT, GPUS, SOURCES, PAIRS, TIME, PAIRS_RATE, BANDWIDTH, VS_ONE]);
    for &size in sizes {
        let counts = inputs::uniform_range((size / 64).max(1), 0xE7A4D, 0, MAX_COUNT);
        let expect = Expect::of(&counts);
        let one_gpu = single(one.gpu(0), &counts, &expect, args)?;
        let pairs = expect.pairs;
        let one_rate = pairs as f64 / (one_gpu.median * 1e-3);
        let mut row = |variant: &str, gpus: usize, stats: Stats| {
            let rate = pairs as f64 / (stats.median * 1e-3);
            table.row(vec![
                Value::text(variant),
                Value::Int(gpus as u64),
                Value::Size(counts.len() as u64),
                Value::Int(pairs as u64),
                Value::time(stats, 4),
                Value::giga(rate),
                Value::fixed(gbps((4 * counts.len() + 8 * pairs) as u64, stats.median), 0),
                Value::ratio(rate / one_rate),
            ]);
        };
        row("one-GPU expansion (S2.5f)", 1, one_gpu);
        for gpus in handles {
            row("sharded expansion (S2.5f)", gpus.len(), sharded(gpus, &counts, &expect, args)?);
        }
    }
    Ok(table)
}

/// What a shard's expansion must give: the pairs, and the first and last pair.
struct Expect {
    pairs: usize,
    first: Option<[u32; 2]>,
    last: Option<[u32; 2]>,
}

impl Expect {
    fn of(counts: &[u32]) -> Expect {
        let first = counts.iter().position(|&c| c > 0).map(|s| [s as u32, 0]);
        let last = counts.iter().rposition(|&c| c > 0).map(|s| [s as u32, counts[s] - 1]);
        Expect { pairs: counts.iter().map(|&c| c as usize).sum(), first, last }
    }
}

/// The one-GPU expansion of `counts`: its stats, output checked.
fn single(gpu: &Gpu, counts: &[u32], expect: &Expect, args: &BenchArgs) -> Result<Stats> {
    let input = gpu.upload(counts)?;
    let mut e = gpu.expander(STRATEGY, counts.len(), expect.pairs)?;
    let mut pairs = gpu.zeros::<[u32; 2]>(expect.pairs.max(1))?;
    let t = args.time(gpu, 3, || e.expand(gpu, &input, &mut pairs).map(|_| ()))?;
    check(gpu, &e, &pairs, expect, "one-GPU expansion")?;
    Ok(t)
}

/// The sharded expansion of `counts` on every rank: its stats, every rank's output and
/// destination bases checked.
fn sharded(gpus: &Gpus, counts: &[u32], expect: &Expect, args: &BenchArgs) -> Result<Stats> {
    let ranks = gpus.len();
    let (mut inputs, mut expanders, mut pairs, mut offsets, mut scratch) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..ranks {
        let g = gpus.gpu(r);
        inputs.push(g.upload(counts)?);
        expanders.push(g.expander(STRATEGY, counts.len(), expect.pairs)?);
        pairs.push(g.zeros::<[u32; 2]>(expect.pairs.max(1))?);
        offsets.push(g.zeros::<u64>(ranks + 1)?);
        scratch.push(g.zeros::<u32>(expand_shard_scratch_len(ranks))?);
    }
    let t = time_all(gpus, args, || {
        gpus.expand_sharded_into(&mut expanders, &inputs, &mut pairs, &mut offsets, &mut scratch)
    })?;
    let want: Vec<u64> = (0..=ranks as u64).map(|k| k * expect.pairs as u64).collect();
    for r in 0..ranks {
        let g = gpus.gpu(r);
        let got = g.download(&offsets[r])?;
        if got != want {
            return Err(Error::InvalidInput(format!(
                "bench self-check: sharded expansion bases on rank {r}: {got:?}, expected {want:?}"
            )));
        }
        check(g, &expanders[r], &pairs[r], expect, "sharded expansion")?;
    }
    Ok(t)
}

/// Checks an expansion's count and its first and last pair against `expect`.
fn check(gpu: &Gpu, e: &Expander, pairs: &CudaSlice<[u32; 2]>, expect: &Expect, what: &str) -> Result<()> {
    let count = e.count(gpu)?;
    let ends = match count {
        0 => (None, None),
        c => (Some(gpu.download(&pairs.slice(0..1))?[0]), Some(gpu.download(&pairs.slice(c - 1..c))?[0])),
    };
    if count != expect.pairs || ends != (expect.first, expect.last) {
        return Err(Error::InvalidInput(format!(
            "bench self-check: {what}: {count} pairs, first and last {ends:?}; expected {} and {:?}",
            expect.pairs,
            (expect.first, expect.last)
        )));
    }
    Ok(())
}
