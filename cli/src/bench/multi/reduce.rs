//! The sharded reduce (`Gpus::reduce_sharded_into`) against the one-GPU reduce
//! (`Gpu::reduce_into`) of the same per-GPU size: the sum of `u32`s, all `0x01010101` (made on
//! the devices), every result checked. Bytes per GPU: the shard read once.

use super::{time_all, GPUS, VS_ONE};
use crate::bench::BenchArgs;
use crate::report::cols::{BANDWIDTH, ITEMS_RATE, N, TIME, VARIANT};
use crate::report::{Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::multi::{reduce_shard_scratch_len, Gpus};
use warpwork::reduce::{scratch_len, ReduceOp};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};

/// Every input byte.
const FILL: u8 = 1;

/// The reduce table: for each per-GPU size, the one-GPU reduce on rank 0 of `one`, then the
/// sharded reduce on every handle.
pub fn table(one: &Gpus, handles: &[&Gpus], sizes: &[usize], args: &BenchArgs) -> Result<Table> {
    let mut table = Table::new("multi-reduce", &[VARIANT, GPUS, N, TIME, ITEMS_RATE, BANDWIDTH, VS_ONE]);
    for &n in sizes {
        let one_gpu = single(one.gpu(0), n, args)?;
        let one_rate = n as f64 / (one_gpu.median * 1e-3);
        let mut row = |variant: &str, gpus: usize, stats: Stats| {
            let rate = n as f64 / (stats.median * 1e-3);
            table.row(vec![
                Value::text(variant),
                Value::Int(gpus as u64),
                Value::Size(n as u64),
                Value::time(stats, 4),
                Value::giga(rate),
                Value::fixed(gbps(4 * n as u64, stats.median), 0),
                Value::ratio(rate / one_rate),
            ]);
        };
        row("one-GPU reduce (sum)", 1, one_gpu);
        for gpus in handles {
            row("sharded reduce (sum)", gpus.len(), sharded(gpus, n, args)?);
        }
    }
    Ok(table)
}

/// The one-GPU sum of `n` items: its stats, result checked.
fn single(gpu: &Gpu, n: usize, args: &BenchArgs) -> Result<Stats> {
    let input = gpu.filled::<u32>(n, FILL)?;
    let mut out = gpu.zeros::<u32>(1)?;
    let mut scratch = gpu.zeros::<u32>(scratch_len::<u32>(n))?;
    let t = args.time(gpu, 3, || gpu.reduce_into(&input, ReduceOp::Sum, &mut out, &mut scratch))?;
    check(gpu, &out, n as u64, "one-GPU reduce")?;
    Ok(t)
}

/// The sharded sum of `n` items per rank: its stats, every rank's result checked.
fn sharded(gpus: &Gpus, n: usize, args: &BenchArgs) -> Result<Stats> {
    let ranks = gpus.len();
    let (mut shards, mut outs, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..ranks {
        let g = gpus.gpu(r);
        shards.push(g.filled::<u32>(n, FILL)?);
        outs.push(g.zeros::<u32>(1)?);
        scratch.push(g.zeros::<u32>(reduce_shard_scratch_len::<u32>(n, ranks))?);
    }
    let t = time_all(gpus, args, || gpus.reduce_sharded_into(&shards, ReduceOp::Sum, &mut outs, &mut scratch))?;
    for (r, o) in outs.iter().enumerate() {
        check(gpus.gpu(r), o, (ranks * n) as u64, "sharded reduce")?;
    }
    Ok(t)
}

/// Checks a sum of `items` elements `0x01010101` (wrapping).
fn check(gpu: &Gpu, out: &CudaSlice<u32>, items: u64, what: &str) -> Result<()> {
    let got = gpu.download(out)?[0];
    let want = (items as u32).wrapping_mul(0x0101_0101);
    if got != want {
        return Err(Error::InvalidInput(format!(
            "bench self-check: {what} of {items} items: {got:#x}, expected {want:#x}"
        )));
    }
    Ok(())
}
