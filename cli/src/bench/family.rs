//! The compaction family's rows of `warpwork bench compact`, each beside its CUB twin on the
//! same inputs: stable partition (`DevicePartition::If` with the same `item < threshold`, and
//! `DevicePartition::Flagged` with the same flags) on uniform u32s at 1%, 50% and 99% kept, and
//! unique (`DeviceSelect::Unique`) and run-length encoding with u32 lengths
//! (`DeviceRunLengthEncode::Encode`) on u32 runs of random length (mean 4) of random values.
//! Every result, warpwork's and CUB's, is checked item by item against the CPU reference.
//!
//! Unique by key (`DeviceSelect::UniqueByKey`) takes the same runs as keys and uniform u32s as
//! values; the non-trivial runs (`DeviceRunLengthEncode::NonTrivialRuns`, u32 offsets and
//! lengths) the same runs.
//!
//! Bytes counted: partition n·4 read (plus n flag bytes) and n·4 written; unique n·4 read and
//! runs·4 written; run-length encoding n·4 read and runs·8 written (values and lengths); unique
//! by key n·8 read and runs·8 written;
//! non-trivial runs n·4 read and runs·8 written.

use super::cub::{Call, CubPeer, FamilyOp};
use super::{cub_cells, BenchArgs};
use crate::report::cols::{BANDWIDTH, CUB_TIME, ITEMS_RATE, N, ROOF, TIME, VARIANT, VS_CUB};
use crate::report::{Col, Report, Stats, Table, Value};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::partition::state_len;
use warpwork::select::{Keep, Predicate};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::{family as cpu, inputs};

/// The partition rows (by value test, by flag), then unique, run-length encoding, unique by key
/// and the non-trivial runs.
pub const ROWS: [&str; 6] =
    ["partition", "partition, flagged", "unique", "run-length encode", "unique by key", "non-trivial runs"];

/// The share of items kept (partition) or of runs (unique).
const KEPT: Col = Col::key("kept", "kept", "%");

/// The mean run length of the unique rows' input.
const MEAN_RUN: usize = 4;

/// The partition and unique tables at `sizes`, on `items` (uniform u32s, as long as the largest
/// size), against the device-to-device copy roof `roof` (GB/s).
pub fn run_gpu(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    sizes: &[usize],
    items: &[u32],
    roof: f64,
    report: &mut Report,
) -> Result<()> {
    let largest = items.len();
    let columns = [VARIANT, N, KEPT, TIME, ITEMS_RATE, BANDWIDTH, ROOF, CUB_TIME, VS_CUB];
    let mut out = gpu.zeros::<u32>(largest)?;
    let cub_out = gpu.zeros::<u32>(largest.max(1))?;
    let count = gpu.zeros::<u32>(1)?;
    let row = |table: &mut Table, name: &str, n: usize, kept: f64, bytes: usize, t: Stats, cub: Option<Stats>| {
        let rate = gbps(bytes as u64, t.median);
        let [cub_ms, vs] = cub_cells(t.median, cub);
        table.row(vec![
            Value::text(name),
            Value::Size(n as u64),
            Value::Num { v: kept * 100.0, shown: format!("{:.0}%", kept * 100.0) },
            Value::time(t, 4),
            Value::giga(n as f64 / (t.median * 1e-3)),
            Value::fixed(rate, 0),
            Value::fixed(100.0 * rate / roof, 1),
            cub_ms,
            vs,
        ]);
    };
    if args.wants(ROWS[0]) || args.wants(ROWS[1]) {
        let mut table = Table::new("partition", &columns);
        for &n in sizes {
            let input = gpu.upload(&items[..n])?;
            let mut state = gpu.zeros::<u64>(state_len::<u32>(n))?;
            for rate in [0.01, 0.5, 0.99] {
                let t = (rate * 2f64.powi(32)).min(u32::MAX as f64) as u32;
                let flags: Vec<u8> = items[..n].iter().map(|&v| (v < t) as u8).collect();
                let d_flags = gpu.upload(&flags)?;
                let want = cpu::partition_if(&items[..n], |v| v < t);
                for (name, keep, flag_bytes) in
                    [(ROWS[0], Keep::If(Predicate::Less(t)), 0), (ROWS[1], Keep::Flagged(&d_flags), n)]
                {
                    if !args.wants(name) {
                        continue;
                    }
                    let mine = args.time(gpu, 3, || gpu.partition_into(&input, keep, &mut out, &mut state))?;
                    let got = gpu.select_count(&out, &state)?;
                    check(name, got == want.1 && gpu.download_prefix(&out, n)? == want.0)?;
                    let call = Call {
                        input: gpu.device_address(&input)?,
                        second_input: gpu.device_address(&d_flags)?,
                        out: gpu.device_address(&cub_out)?,
                        count: gpu.device_address(&count)?,
                        ..Call::default()
                    };
                    let cub = time_cub(
                        gpu,
                        peer,
                        args,
                        FamilyOp::Partition(keep),
                        call,
                        n,
                        |cub_n| Ok(cub_n == want.1 && gpu.download_prefix(&cub_out, n)? == want.0),
                        &count,
                    )?;
                    row(&mut table, name, n, rate, 8 * n + flag_bytes, mine, cub);
                }
            }
        }
        report.table(table);
    }
    if ROWS[2..].iter().any(|r| args.wants(r)) {
        let mut table = Table::new("runs", &columns);
        let mut lengths = gpu.zeros::<u32>(largest)?;
        let cub_lengths = gpu.zeros::<u32>(largest.max(1))?;
        let runs = runs(largest, MEAN_RUN, 0xD1CE);
        for &n in sizes.iter().filter(|_| args.wants(ROWS[2])) {
            let input = gpu.upload(&runs[..n])?;
            let mut state = gpu.zeros::<u64>(state_len::<u32>(n))?;
            let want = cpu::unique(&runs[..n]);
            let mine = args.time(gpu, 3, || gpu.unique_into(&input, &mut out, &mut state))?;
            let got = gpu.select_count(&out, &state)?;
            check(ROWS[2], got == want.len() && gpu.download_prefix(&out, got)? == want)?;
            let call = Call {
                input: gpu.device_address(&input)?,
                out: gpu.device_address(&cub_out)?,
                count: gpu.device_address(&count)?,
                ..Call::default()
            };
            let cub = time_cub(
                gpu,
                peer,
                args,
                FamilyOp::Unique,
                call,
                n,
                |cub_n| Ok(cub_n == want.len() && gpu.download_prefix(&cub_out, cub_n.min(n))? == want),
                &count,
            )?;
            let share = want.len() as f64 / n.max(1) as f64;
            row(&mut table, ROWS[2], n, share, 4 * (n + want.len()), mine, cub);
        }
        for &n in sizes.iter().filter(|_| args.wants(ROWS[3])) {
            let input = gpu.upload(&runs[..n])?;
            let mut state = gpu.zeros::<u64>(warpwork::run_length::state_len::<u32>(n, n))?;
            let (want, want_lengths) = cpu::run_length_encode(&runs[..n]);
            let want_lengths: Vec<u32> = want_lengths.iter().map(|&x| x as u32).collect();
            let mine = args.time(gpu, 3, || {
                gpu.run_length_encode_into(&input, &mut out.slice_mut(..n), &mut lengths.slice_mut(..n), &mut state)
            })?;
            let got = gpu.select_count(&out, &state)?;
            check(
                ROWS[3],
                got == want.len()
                    && gpu.download_prefix(&out, got)? == want
                    && gpu.download_prefix(&lengths, got)? == want_lengths,
            )?;
            let call = Call {
                input: gpu.device_address(&input)?,
                out: gpu.device_address(&cub_out)?,
                second_out: gpu.device_address(&cub_lengths)?,
                count: gpu.device_address(&count)?,
                ..Call::default()
            };
            let cub = time_cub(
                gpu,
                peer,
                args,
                FamilyOp::Encode,
                call,
                n,
                |cub_n| {
                    Ok(cub_n == want.len()
                        && gpu.download_prefix(&cub_out, cub_n.min(n))? == want
                        && gpu.download_prefix(&cub_lengths, cub_n.min(n))? == want_lengths)
                },
                &count,
            )?;
            let share = want.len() as f64 / n.max(1) as f64;
            row(&mut table, ROWS[3], n, share, 4 * n + 8 * want.len(), mine, cub);
        }
        let values = inputs::uniform_u32(largest, 0xFA11);
        for &n in sizes.iter().filter(|_| args.wants(ROWS[4])) {
            let (keys, vals) = (gpu.upload(&runs[..n])?, gpu.upload(&values[..n])?);
            let mut state = gpu.zeros::<u64>(warpwork::run_length::state_len::<u32>(n, n))?;
            let (want, want_values) = cpu::unique_by_key(&runs[..n], &values[..n]);
            let mine = args.time(gpu, 3, || {
                gpu.unique_by_key_into(&keys, &vals, &mut out.slice_mut(..n), &mut lengths.slice_mut(..n), &mut state)
            })?;
            let got = gpu.select_count(&out, &state)?;
            check(
                ROWS[4],
                got == want.len()
                    && gpu.download_prefix(&out, got)? == want
                    && gpu.download_prefix(&lengths, got)? == want_values,
            )?;
            let call = Call {
                input: gpu.device_address(&keys)?,
                second_input: gpu.device_address(&vals)?,
                out: gpu.device_address(&cub_out)?,
                second_out: gpu.device_address(&cub_lengths)?,
                count: gpu.device_address(&count)?,
            };
            let cub = time_cub(
                gpu,
                peer,
                args,
                FamilyOp::UniqueByKey,
                call,
                n,
                |cub_n| {
                    Ok(cub_n == want.len()
                        && gpu.download_prefix(&cub_out, cub_n.min(n))? == want
                        && gpu.download_prefix(&cub_lengths, cub_n.min(n))? == want_values)
                },
                &count,
            )?;
            let share = want.len() as f64 / n.max(1) as f64;
            row(&mut table, ROWS[4], n, share, 8 * (n + want.len()), mine, cub);
        }
        for &n in sizes.iter().filter(|_| args.wants(ROWS[5])) {
            let input = gpu.upload(&runs[..n])?;
            let mut state = gpu.zeros::<u64>(warpwork::run_length::non_trivial_state_len::<u32>(n, n))?;
            let (want_offsets, want_lengths) = cpu::non_trivial_runs(&runs[..n]);
            let as32 = |v: &[u64]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
            let (want, want_lengths) = (as32(&want_offsets), as32(&want_lengths));
            let mine = args.time(gpu, 3, || {
                gpu.non_trivial_runs_into(&input, &mut out.slice_mut(..n), &mut lengths.slice_mut(..n), &mut state)
            })?;
            let got = gpu.select_count(&out, &state)?;
            check(
                ROWS[5],
                got == want.len()
                    && gpu.download_prefix(&out, got)? == want
                    && gpu.download_prefix(&lengths, got)? == want_lengths,
            )?;
            let call = Call {
                input: gpu.device_address(&input)?,
                out: gpu.device_address(&cub_out)?,
                second_out: gpu.device_address(&cub_lengths)?,
                count: gpu.device_address(&count)?,
                ..Call::default()
            };
            let cub = time_cub(
                gpu,
                peer,
                args,
                FamilyOp::NonTrivialRuns,
                call,
                n,
                |cub_n| {
                    Ok(cub_n == want.len()
                        && gpu.download_prefix(&cub_out, cub_n.min(n))? == want
                        && gpu.download_prefix(&cub_lengths, cub_n.min(n))? == want_lengths)
                },
                &count,
            )?;
            let share = want.len() as f64 / n.max(1) as f64;
            row(&mut table, ROWS[5], n, share, 4 * n + 8 * want.len(), mine, cub);
        }
        report.table(table);
    }
    Ok(())
}

/// `n` u32s in runs of 1 to `2·mean − 1` copies of uniform random values.
pub fn runs(n: usize, mean: usize, seed: u64) -> Vec<u32> {
    let values = inputs::uniform_u32(n, seed);
    let lengths = inputs::uniform_range(n, seed ^ 0x5eed, 1, 2 * mean as u32);
    let mut out = Vec::with_capacity(n);
    let mut r = 0;
    while out.len() < n {
        out.extend(std::iter::repeat_n(values[r], (lengths[r] as usize).min(n - out.len())));
        r += 1;
    }
    out
}

fn check(what: &str, ok: bool) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::InvalidInput(format!("bench self-check failed: {what} differs from the CPU's result")))
}

/// Device time of CUB's twin (`None` without the peer), then `ok(count)` on its result.
#[allow(clippy::too_many_arguments)]
fn time_cub(
    gpu: &Gpu,
    peer: Option<&CubPeer>,
    args: &BenchArgs,
    op: FamilyOp<'_>,
    call: Call,
    n: usize,
    ok: impl Fn(usize) -> Result<bool>,
    count: &CudaSlice<u32>,
) -> Result<Option<Stats>> {
    let Some(peer) = peer else { return Ok(None) };
    let mut temp = peer.family_temp(gpu, op, n)?;
    // SAFETY: `call` holds the addresses of the bench's live buffers: the input (and flags) of
    // `n` items, outputs of at least `n`, one u32 count; all outlive the timing.
    let t = args.time(gpu, 3, || unsafe { peer.family(gpu, op, &mut temp, call, n) })?;
    let got = gpu.download(count)?[0] as usize;
    check("CUB's twin", ok(got)?)?;
    Ok(Some(t))
}
