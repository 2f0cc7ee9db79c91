//! The sharded reduce (`Gpus::reduce_sharded_into`) and argmax (`Gpus::arg_reduce_sharded_into`)
//! against the one-GPU forms (`Gpu::reduce_into`, `Gpu::arg_reduce_into`) of the same per-GPU
//! size: the sum and the argmax of `u32`s, all `0x01010101` (made on the devices; the argmax is
//! then the first element), every result checked. Bytes per GPU: the shard read once.

use super::{time_all, GPUS, VS_ONE};
use crate::bench::BenchArgs;
use crate::report::cols::{BANDWIDTH, ITEMS_RATE, N, TIME, VARIANT};
use crate::report::{Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::multi::{arg_reduce_shard_scratch_len, reduce_shard_scratch_len, Gpus};
use warpwork::reduce::{scratch_len, ArgOp, ReduceOp};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};

/// Every input byte.
const FILL: u8 = 1;

/// The reduce table: for each per-GPU size, the one-GPU reduce on rank 0 of `one`, then the
/// sharded reduce on every handle.
pub fn table(one: &Gpus, handles: &[&Gpus], sizes: &[usize], args: &BenchArgs) -> Result<Table> {
    let mut table = Table::new("multi-reduce", &[VARIANT, GPUS, N, TIME, ITEMS_RATE, BANDWIDTH, VS_ONE]);
    for &n in sizes {
        let (one_sum, one_arg) = single(one.gpu(0), n, args)?;
        let mut row = |variant: &str, gpus: usize, stats: Stats, one_gpu: Stats| {
            let one_rate = n as f64 / (one_gpu.median * 1e-3);
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
        row("one-GPU reduce (sum)", 1, one_sum, one_sum);
        for gpus in handles {
            row("sharded reduce (sum)", gpus.len(), sharded(gpus, n, args)?, one_sum);
        }
        row("one-GPU argmax", 1, one_arg, one_arg);
        for gpus in handles {
            row("sharded argmax", gpus.len(), sharded_arg(gpus, n, args)?, one_arg);
        }
    }
    Ok(table)
}

/// The one-GPU sum and argmax of `n` items: their stats, results checked.
fn single(gpu: &Gpu, n: usize, args: &BenchArgs) -> Result<(Stats, Stats)> {
    let input = gpu.filled::<u32>(n, FILL)?;
    let mut out = gpu.zeros::<u32>(1)?;
    let mut scratch = gpu.zeros::<u32>(scratch_len::<u32>(n))?;
    let sum = args.time(gpu, 3, || gpu.reduce_into(&input, ReduceOp::Sum, &mut out, &mut scratch))?;
    check(gpu, &out, n as u64, "one-GPU reduce")?;
    let mut index = gpu.zeros::<u64>(1)?;
    let arg = args.time(gpu, 3, || gpu.arg_reduce_into(&input, ArgOp::Max, &mut index, &mut out, &mut scratch))?;
    check_arg(gpu, &index, &out, "one-GPU argmax")?;
    Ok((sum, arg))
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

/// The sharded argmax of `n` items per rank: its stats, every rank's result checked.
fn sharded_arg(gpus: &Gpus, n: usize, args: &BenchArgs) -> Result<Stats> {
    let ranks = gpus.len();
    let (mut shards, mut indices, mut values, mut scratch) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..ranks {
        let g = gpus.gpu(r);
        shards.push(g.filled::<u32>(n, FILL)?);
        indices.push(g.zeros::<u64>(1)?);
        values.push(g.zeros::<u32>(1)?);
        scratch.push(g.zeros::<u32>(arg_reduce_shard_scratch_len::<u32>(n, ranks))?);
    }
    let t = time_all(gpus, args, || {
        gpus.arg_reduce_sharded_into(&shards, ArgOp::Max, &mut indices, &mut values, &mut scratch)
    })?;
    for r in 0..ranks {
        check_arg(gpus.gpu(r), &indices[r], &values[r], "sharded argmax")?;
    }
    Ok(t)
}

/// Checks an argmax of elements all `0x01010101`: the first one.
fn check_arg(gpu: &Gpu, index: &CudaSlice<u64>, value: &CudaSlice<u32>, what: &str) -> Result<()> {
    let got = (gpu.download(index)?[0], gpu.download(value)?[0]);
    if got != (0, 0x0101_0101) {
        return Err(Error::InvalidInput(format!("bench self-check: {what}: {got:?}, expected (0, 0x01010101)")));
    }
    Ok(())
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
