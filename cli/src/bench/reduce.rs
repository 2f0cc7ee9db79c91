//! `warpwork bench reduce`: the device-wide reductions (`Gpu::reduce_into`,
//! `Gpu::arg_reduce_into`, their scratch allocated once, as CUB's temporary storage is) — sum,
//! min and argmax of u32, f32 and u64 — at every second power of two from 2^16 to 2^max_log2
//! (2^30 by default), beside CUB's `DeviceReduce::Sum`, `Min` and `ArgMax` on the same input
//! when the peer is present; then the segmented sum (`Gpu::segmented_reduce`) beside CUB's
//! `DeviceSegmentedReduce::Sum` at three mean segment lengths, at the same sizes. Bytes counted: the input read
//! (the segmented rows also count their offsets). The roof column is those bytes per second
//! over the device-to-device copy's (bytes read + written per second), measured in the same run.
//!
//! Every result, warpwork's and CUB's, is checked against the CPU reference, exactly: the f32
//! input is integers in [-8, 8] with mean 0, whose sums in any order are exact (a sum of a run of
//! them stays far below 2^24 even at 2^30 items; with mean −0.5, as [-8, 8) had, the sum of 2^26
//! passed 2^24 and the order began to matter), so the check does not depend on the order of
//! evaluation.

use super::cub::CubPeer;
use super::{cpu_stats, cub_cells, device_line, peer_line, BenchArgs};
use crate::report::cols::{BANDWIDTH, CUB_TIME, ITEMS_RATE, N, ROOF, TIME, VARIANT, VS_CUB};
use crate::report::{Col, CpuNote, Report, Table, Value};
use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};
use warpwork::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use warpwork::reduce::{scratch_len, ArgOp, ReduceItem, ReduceOp};
use warpwork::timing::gbps;
use warpwork::{Error, Gpu, Result};
use warpwork_cpu_reference::inputs;
use warpwork_cpu_reference::reduce as cpu;
use warpwork_cpu_reference::scan::Op;

/// The element types, the row names `--only` picks from.
pub const ROWS: [&str; 4] = ["u32", "f32", "u64", "segmented"];

const TYPE: Col = Col::key("type", "type", "");
const OP: Col = Col::key("op", "op", "");
const CUB_ROOF: Col = Col::value("CUB % roof", "cub_roof_share", "% of the copy roof");

type Stream = *mut c_void;
type ReduceFn<T> = unsafe extern "C" fn(c_int, *mut c_void, *mut usize, *const T, *mut T, u64, Stream) -> c_int;
type ArgFn<T> = unsafe extern "C" fn(c_int, *mut c_void, *mut usize, *const T, *mut T, *mut i64, u64, Stream) -> c_int;
type SegmentedFn<T> = unsafe extern "C" fn(*mut c_void, *mut usize, *const T, *mut T, *const i64, u64, Stream) -> c_int;

/// An element type of the bench: warpwork's, the peer's and the CPU reference's.
trait BenchItem: ReduceItem + cpu::ArgElement + PartialEq {
    const NAME: &'static str;
    fn input(n: usize) -> Vec<Self>;
}

impl BenchItem for u32 {
    const NAME: &'static str = "u32";
    fn input(n: usize) -> Vec<u32> {
        inputs::uniform_u64(n, 7).into_iter().map(|x| x as u32).collect()
    }
}
impl BenchItem for u64 {
    const NAME: &'static str = "u64";
    fn input(n: usize) -> Vec<u64> {
        inputs::uniform_u64(n, 8)
    }
}
impl BenchItem for f32 {
    const NAME: &'static str = "f32";
    fn input(n: usize) -> Vec<f32> {
        inputs::uniform_range(n, 9, 0, 17).into_iter().map(|x| x as f32 - 8.0).collect()
    }
}

/// The peer's entries for one type.
struct Peer<'p, T> {
    peer: &'p CubPeer,
    reduce: ReduceFn<T>,
    arg: ArgFn<T>,
    segmented: SegmentedFn<T>,
}

impl<'p, T: BenchItem> Peer<'p, T> {
    fn load(peer: &'p CubPeer) -> Result<Self> {
        let name = |f: &str| format!("ww_cub_{f}_{}", T::NAME);
        Ok(Peer {
            peer,
            reduce: peer.entry(&name("reduce"))?,
            arg: peer.entry(&name("arg_reduce"))?,
            segmented: peer.entry(&name("segmented_sum"))?,
        })
    }

    /// Temporary storage of `call` (a size query: null temp).
    fn temp(&self, gpu: &Gpu, what: &str, call: impl FnOnce(*mut usize) -> c_int) -> Result<CudaSlice<u8>> {
        let mut bytes = 0usize;
        self.peer.check(what, call(&mut bytes))?;
        gpu.zeros(bytes.max(1))
    }
}

pub fn run(gpu: Option<&Gpu>, peer: Option<&CubPeer>, args: &BenchArgs, report: &mut Report) -> Result<()> {
    report.say("## reduce: device-wide sum, min and argmax; segmented sum\n");
    let Some(gpu) = gpu else {
        return run_cpu(args, report);
    };
    let sizes = args.sizes(2);
    let largest = *sizes.iter().max().unwrap();
    let roof = device_line(gpu, (largest * 4).min(1 << 30), report)?;
    peer_line(peer, report);
    let mut table = Table::new("reduce", &[TYPE, OP, N, TIME, ITEMS_RATE, BANDWIDTH, ROOF, CUB_TIME, CUB_ROOF, VS_CUB]);
    let mut ctx = Ctx { gpu, args, roof, table: &mut table };
    if args.wants("u32") {
        ctx.rows::<u32>(peer, &sizes)?;
    }
    if args.wants("f32") {
        ctx.rows::<f32>(peer, &sizes)?;
    }
    if args.wants("u64") {
        ctx.rows::<u64>(peer, &sizes)?;
    }
    if args.wants("segmented") {
        for &n in &sizes {
            ctx.segmented(peer, n)?;
        }
    }
    report.table(table);
    Ok(())
}

struct Ctx<'a> {
    gpu: &'a Gpu,
    args: &'a BenchArgs,
    roof: f64,
    table: &'a mut Table,
}

impl Ctx<'_> {
    /// One row per (op, size) for `T`: sum, min and argmax.
    fn rows<T: BenchItem>(&mut self, peer: Option<&CubPeer>, sizes: &[usize]) -> Result<()> {
        let gpu = self.gpu;
        let peer = peer.map(Peer::<T>::load).transpose()?;
        let v = T::input(*sizes.iter().max().unwrap());
        for &n in sizes {
            let d = gpu.upload(&v[..n])?;
            let mut scratch = gpu.zeros::<u32>(scratch_len::<T>(n))?;
            let (mut out, mut index) = (gpu.zeros::<T>(1)?, gpu.zeros::<u64>(1)?);
            let bytes = (n * std::mem::size_of::<T>()) as u64;
            for (name, op) in [("sum", Some(ReduceOp::Sum)), ("min", Some(ReduceOp::Min)), ("argmax", None)] {
                let want = match op {
                    Some(op) => Want::Value(cpu::reduce(&v[..n], if op == ReduceOp::Sum { Op::Sum } else { Op::Min })),
                    None => Want::Arg(cpu::arg_max(&v[..n]).expect("n > 0")),
                };
                let t = match op {
                    Some(op) => self.args.time(gpu, 3, || gpu.reduce_into(&d, op, &mut out, &mut scratch))?,
                    None => self
                        .args
                        .time(gpu, 3, || gpu.arg_reduce_into(&d, ArgOp::Max, &mut index, &mut out, &mut scratch))?,
                };
                want.check("warpwork", name, n, gpu.download(&out)?[0], gpu.download(&index)?[0] as i64)?;
                let cub = match &peer {
                    Some(p) => Some(self.cub_row(p, &d, op, name, &want)?),
                    None => None,
                };
                self.row(T::NAME, name, n, bytes, t, cub);
            }
        }
        Ok(())
    }

    /// CUB's time for one row, its result checked.
    fn cub_row<T: BenchItem>(
        &self,
        p: &Peer<'_, T>,
        d: &CudaSlice<T>,
        op: Option<ReduceOp>,
        name: &str,
        want: &Want<T>,
    ) -> Result<crate::report::Stats> {
        let gpu = self.gpu;
        let (n, s) = (d.len() as u64, p.peer.stream_of(gpu)?);
        let (mut out, mut index) = (gpu.filled::<T>(1, 0xAB)?, gpu.filled::<i64>(1, 0xAB)?);
        let code = match op {
            Some(ReduceOp::Sum) => 0,
            Some(ReduceOp::Min) => 1,
            _ => 2,
        };
        // SAFETY: size queries (null temp) read no pointer but the size.
        let mut temp = match op {
            Some(_) => p.temp(gpu, "DeviceReduce (size)", |b| unsafe {
                (p.reduce)(code, null_mut(), b, null(), null_mut(), n, s)
            })?,
            None => p.temp(gpu, "DeviceReduce::ArgMax (size)", |b| unsafe {
                (p.arg)(1, null_mut(), b, null(), null_mut(), null_mut(), n, s)
            })?,
        };
        let t = self.args.time(gpu, 3, || {
            let mut bytes = temp.len();
            let (t, _t) = temp.device_ptr_mut(gpu.stream());
            let (i, _i) = d.device_ptr(gpu.stream());
            let (o, _o) = out.device_ptr_mut(gpu.stream());
            let (x, _x) = index.device_ptr_mut(gpu.stream());
            let (t, i, o, x) = (t as *mut c_void, i as *const T, o as *mut T, x as *mut i64);
            // SAFETY: device pointers of live buffers: `d` holds `n` items, `out` and `index` one
            // each, `temp` `bytes` bytes; the calls only queue work on the stream.
            let code = unsafe {
                match op {
                    Some(_) => (p.reduce)(code, t, &mut bytes, i, o, n, s),
                    None => (p.arg)(1, t, &mut bytes, i, o, x, n, s),
                }
            };
            p.peer.check("DeviceReduce", code)
        })?;
        want.check("CUB", name, n as usize, gpu.download(&out)?[0], gpu.download(&index)?[0])?;
        Ok(t)
    }

    fn row(
        &mut self,
        ty: &str,
        op: &str,
        n: usize,
        bytes: u64,
        t: crate::report::Stats,
        cub: Option<crate::report::Stats>,
    ) {
        let ms = t.median;
        let bw = gbps(bytes, ms);
        let cub_roof = cub.map_or(Value::DASH, |c| Value::fixed(100.0 * gbps(bytes, c.median) / self.roof, 1));
        let [cub_ms, vs] = cub_cells(ms, cub);
        self.table.row(vec![
            Value::text(ty),
            Value::text(op),
            Value::Size(n as u64),
            Value::time(t, 4),
            Value::giga(n as f64 / (ms * 1e-3)),
            Value::fixed(bw, 0),
            Value::fixed(100.0 * bw / self.roof, 1),
            cub_ms,
            cub_roof,
            vs,
        ]);
    }

    /// The segmented sum of `n` u32 at mean segment lengths 8, 256 and 8192 (lengths uniform in
    /// [0, 2·mean)).
    fn segmented(&mut self, peer: Option<&CubPeer>, n: usize) -> Result<()> {
        let gpu = self.gpu;
        let peer = peer.map(Peer::<u32>::load).transpose()?;
        let v = u32::input(n);
        let d = gpu.upload(&v)?;
        for mean in [8u64, 256, 8192] {
            let mut offsets = vec![0u64];
            for l in inputs::uniform_range((n as u64 / mean) as usize, 13, 0, 2 * mean as u32) {
                let next = (offsets.last().unwrap() + l as u64).min(n as u64);
                offsets.push(next);
            }
            *offsets.last_mut().unwrap() = n as u64;
            let segments = offsets.len() - 1;
            let want = cpu::segmented_reduce(&v, &offsets, Op::Sum);
            let o = gpu.upload(&offsets)?;
            let mut out = gpu.zeros::<u32>(segments)?;
            let t = self.args.time(gpu, 3, || gpu.segmented_reduce(&d, &o, ReduceOp::Sum, &mut out))?;
            if gpu.download(&out)? != want {
                return Err(Error::InvalidInput(format!("bench self-check: warpwork's segmented sum (mean {mean})")));
            }
            let cub = match &peer {
                Some(p) => {
                    let s = p.peer.stream_of(gpu)?;
                    let seg = segments as u64;
                    // SAFETY: a size query (null temp) reads no pointer but the size.
                    let mut temp = p.temp(gpu, "DeviceSegmentedReduce (size)", |b| unsafe {
                        (p.segmented)(null_mut(), b, null(), null_mut(), null(), seg, s)
                    })?;
                    let mut out = gpu.filled::<u32>(segments, 0xAB)?;
                    let t = self.args.time(gpu, 3, || {
                        let mut bytes = temp.len();
                        let (t, _t) = temp.device_ptr_mut(gpu.stream());
                        let (i, _i) = d.device_ptr(gpu.stream());
                        let (x, _x) = o.device_ptr(gpu.stream());
                        let (r, _r) = out.device_ptr_mut(gpu.stream());
                        // SAFETY: live buffers: `n` items, `segments + 1` offsets (as i64: the
                        // same bits, all below 2^63), `segments` results, `bytes` of temp.
                        let code =
                            unsafe { (p.segmented)(t as _, &mut bytes, i as _, r as _, x as *const i64, seg, s) };
                        p.peer.check("DeviceSegmentedReduce::Sum", code)
                    })?;
                    if gpu.download(&out)? != want {
                        return Err(Error::InvalidInput(format!(
                            "bench self-check: CUB's segmented sum (mean {mean})"
                        )));
                    }
                    Some(t)
                }
                None => None,
            };
            let bytes = (n * 4 + (segments + 1) * 8) as u64;
            self.row("u32", &format!("segmented sum, mean {mean}"), n, bytes, t, cub);
        }
        Ok(())
    }
}

/// What a row must produce: a value, or an argmax's (index, value).
enum Want<T> {
    Value(T),
    Arg((u64, T)),
}

impl<T: BenchItem> Want<T> {
    fn check(&self, who: &str, op: &str, n: usize, value: T, index: i64) -> Result<()> {
        let ok = match *self {
            Want::Value(w) => value == w,
            Want::Arg((i, w)) => index as u64 == i && value == w,
        };
        if ok {
            return Ok(());
        }
        Err(Error::InvalidInput(format!("bench self-check: {who}'s {} {op} of {n} differs from the CPU", T::NAME)))
    }
}

/// The CPU reference's largest input (a 2-core machine's minute).
const CPU_MAX_LOG2: u32 = 26;

/// Without a GPU: the CPU reference's u32 sum, at the sizes of the GPU bench up to
/// 2^[`CPU_MAX_LOG2`].
fn run_cpu(args: &BenchArgs, report: &mut Report) -> Result<()> {
    let (timed, dropped): (Vec<usize>, Vec<usize>) = args.sizes(2).into_iter().partition(|&n| n <= 1 << CPU_MAX_LOG2);
    let reps = args.reps().min(5);
    let reference = "warpwork_cpu_reference::reduce::reduce (u32 sum only)";
    let mut table = Table::cpu(
        "reduce",
        &[VARIANT, TYPE, N, TIME, ITEMS_RATE],
        CpuNote::new(reference, reps, "items", &timed, &dropped),
    );
    let v = u32::input(timed.last().copied().unwrap_or(0));
    for &n in &timed {
        let t = cpu_stats(reps, || {
            std::hint::black_box(cpu::reduce(&v[..n], Op::Sum));
        });
        table.row(vec![
            Value::text("cpu-rayon"),
            Value::text("u32"),
            Value::Size(n as u64),
            Value::time(t, 3),
            Value::giga(n as f64 / (t.median * 1e-3)),
        ]);
    }
    report.table(table);
    Ok(())
}
