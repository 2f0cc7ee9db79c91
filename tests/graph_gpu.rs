//! CUDA graphs: warpwork's allocation-free forms (select, every variant; scan; reduce; expansion) recorded
//! by stream capture on a non-default stream, replayed with fresh inputs copied into the same
//! buffers between replays, and every replay checked against the CPU reference; and the calls a
//! graph cannot hold refused during a capture, which stays valid.
//!
//! Capture follows cudarc's rule: its event tracking is off while capturing (a wait on an event
//! recorded outside a capture would invalidate it), as in cudarc's own graph tests.

mod common;

use common::small;

use std::sync::Arc;
use warpwork::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpwork::cudarc::driver::{CudaContext, CudaGraph, CudaSlice, CudaStream};
use warpwork::expand::{Dispatch, Planned, Strategy};
use warpwork::reduce::{ArgOp, ReduceOp};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::{Error, Gpu, RawSlice};
use warpwork_cpu_reference::{expand as cpu_expand, inputs, reduce as cpu_reduce, scan::Op, select as cpu_select};

const REPLAYS: u64 = 100;

/// A handle on a new (non-default) stream of device 0's primary context.
fn gpu_on_new_stream() -> (Arc<CudaContext>, Arc<CudaStream>, Gpu) {
    let ctx = CudaContext::new(0).expect("the GPU suite needs a CUDA device");
    let stream = ctx.new_stream().unwrap();
    let gpu = Gpu::from_stream(stream.clone()).unwrap();
    (ctx, stream, gpu)
}

/// Captures what `record` issues on `stream` into a graph, with cudarc's event tracking off
/// for the capture (and on again after it, whatever `record` returns).
fn capture(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    record: impl FnOnce() -> Result<(), Error>,
) -> (Result<(), Error>, Option<CudaGraph>) {
    stream.synchronize().unwrap();
    // SAFETY: nothing runs on this context's other streams during the capture, no buffer is
    // created or freed during it, and the captured work is ordered on `stream` by the replays.
    unsafe { ctx.disable_event_tracking() };
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).unwrap();
    let recorded = record();
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    // SAFETY: as above; tracking resumes for the buffers created with it on.
    unsafe { ctx.enable_event_tracking() };
    (recorded, graph.expect("end_capture: the capture was invalidated"))
}

/// The select predicate's threshold (`item < THRESHOLD`): about a third kept.
const THRESHOLD: u32 = u32::MAX / 3;

/// One round's inputs, different every round (seeded by it).
struct Round {
    items: Vec<u32>,
    flags: Vec<u8>,
    counts: Vec<u32>,
}

fn round(r: u64, n: usize, p1: usize) -> Round {
    let rate = [0.0, 0.01, 0.5, 0.99, 1.0][(r % 5) as usize];
    let counts = if r.is_multiple_of(2) {
        inputs::uniform_range(p1, 300 + r, 0, 64)
    } else {
        inputs::power_law(p1, 300 + r, 1.2, 1 << 10)
    };
    Round { items: inputs::uniform_u32(n, 100 + r), flags: inputs::flags(n, 200 + r, rate), counts }
}

/// The largest total any round can spawn (power-law counts are at most 2^10).
fn capacity(p1: usize) -> usize {
    p1 * (1 << 10)
}

/// One select call of the graph: its variant, what keeps an item, and its own output and state.
struct SelectCase {
    variant: Variant,
    flagged: bool,
    out: CudaSlice<u32>,
    state: CudaSlice<u64>,
}

/// One expansion of the graph: its output, and after capture the planned expansion whose
/// count is read after each replay.
struct ExpandCase {
    strategy: Strategy,
    /// Both passes by `Expander::expand` (S2.5f: one launch) instead of `pass1` and `pass2`.
    one_call: bool,
    out: CudaSlice<[u32; 2]>,
}

fn check_select(gpu: &Gpu, case: &SelectCase, input: &Round, what: &str) {
    let want = if case.flagged {
        cpu_select::select_flagged(&input.items, &input.flags)
    } else {
        cpu_select::select_if(&input.items, |v| v < THRESHOLD)
    };
    let n = gpu.select_count(&case.out, &case.state).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(n, want.len(), "{what}: count");
    let mut got = gpu.download_prefix(&case.out, n).unwrap();
    if case.variant == Variant::Ordered {
        assert!(got == want, "{what}: items or their order differ");
    } else {
        got.sort_unstable();
        let mut want = want;
        want.sort_unstable();
        assert!(got == want, "{what}: the kept items differ");
    }
}

fn check_expand(
    gpu: &Gpu,
    planned: &Planned<'_, '_>,
    case: &ExpandCase,
    counts: &[u32],
    want: &[[u32; 2]],
    what: &str,
) {
    let n = planned.count(gpu).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(n as u64, cpu_expand::total(counts), "{what}: count");
    let mut got = gpu.download_prefix(&case.out, n).unwrap();
    if !case.strategy.is_canonical() {
        got = cpu_expand::sorted_pairs(&got);
    }
    assert!(got == want, "{what}: pairs differ");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn select_scan_and_expand_replay_from_a_captured_graph() {
    let (ctx, stream, gpu) = gpu_on_new_stream();
    let (n, p1) = if small() { (20_011, 3_001) } else { (300_007, 20_011) };
    let first = round(0, n, p1);
    let mut items = gpu.upload(&first.items).unwrap();
    let mut flags = gpu.upload(&first.flags).unwrap();
    let mut counts = gpu.upload(&first.counts).unwrap();
    let mut selects: Vec<SelectCase> = Variant::ALL
        .into_iter()
        .flat_map(|variant| [true, false].map(|flagged| (variant, flagged)))
        .map(|(variant, flagged)| SelectCase {
            variant,
            flagged,
            out: gpu.filled::<u32>(n, 0xAB).unwrap(),
            state: gpu.zeros::<u64>(state_len::<u32>(variant, n)).unwrap(),
        })
        .collect();
    let mut scan_out = gpu.filled::<u32>(n, 0xAB).unwrap();
    let mut scratch = gpu.zeros::<u32>(warpwork::scan::scratch_len::<u32>(n)).unwrap();
    // Reductions: a sum and an argmin sharing one scratch, handed in dirty (no preparation
    // needed: the ticket is zeroed in the graph), and a segmented max over fixed offsets.
    let mut reduce_scratch = gpu.filled::<u32>(warpwork::reduce::scratch_len::<u32>(n), 0xAB).unwrap();
    let (mut sum, mut arg_index, mut arg_value) =
        (gpu.filled::<u32>(1, 0xAB).unwrap(), gpu.filled::<u64>(1, 0xAB).unwrap(), gpu.filled::<u32>(1, 0xAB).unwrap());
    let offsets: Vec<u64> = vec![0, 1, 1, 4097, n as u64 / 2, n as u64];
    let segment_offsets = gpu.upload(&offsets).unwrap();
    let mut segment_max = gpu.filled::<u32>(offsets.len() - 1, 0xAB).unwrap();
    let strategies = [
        (Strategy::ScanFused, true),
        (Strategy::ScanFused, false),
        (Strategy::ScanBinarySearch, false),
        (Strategy::AppendPerItem, true),
        (Strategy::MaxN { max_n: 1 << 10 }, false),
    ];
    let mut expanders: Vec<_> = strategies.iter().map(|&(s, _)| gpu.expander(s, p1, capacity(p1)).unwrap()).collect();
    assert!(expanders[0].runs_once(p1), "the graph holds S2.5f's one launch");
    let mut expands: Vec<ExpandCase> = strategies
        .iter()
        .map(|&(strategy, one_call)| ExpandCase {
            strategy,
            one_call,
            out: gpu.filled::<[u32; 2]>(capacity(p1), 0xAB).unwrap(),
        })
        .collect();
    // The graph reads the counts through their address, so that they can be refilled between
    // replays while the planned expansions (which borrow what pass 1 read) live.
    // SAFETY: `counts` outlives every use of `counts_view`, and each refill is issued to the
    // same stream as the replays, so it never overlaps one.
    let counts_view = unsafe { RawSlice::<u32>::from_raw_parts(gpu.device_address(&counts).unwrap(), p1) }.unwrap();

    // The predicate's threshold is a kernel parameter, fixed in the graph.
    let threshold = THRESHOLD;
    let mut planned: Vec<Planned<'_, '_>> = Vec::new();
    let (planned_ref, expanders_ref, expands_ref) = (&mut planned, &mut expanders, &mut expands);
    let (selects_ref, scan_ref, scratch_ref, items_ref, flags_ref) =
        (&mut selects, &mut scan_out, &mut scratch, &items, &flags);
    let (g, cv) = (&gpu, &counts_view);
    let (rs_ref, sum_ref, ai_ref, av_ref, so_ref, sm_ref) =
        (&mut reduce_scratch, &mut sum, &mut arg_index, &mut arg_value, &segment_offsets, &mut segment_max);
    let (recorded, graph) = capture(&ctx, &stream, move || {
        for c in selects_ref.iter_mut() {
            // No memset: `select_into` starts its count at zero on every replay.
            let keep = if c.flagged { Keep::Flagged(flags_ref) } else { Keep::If(Predicate::Less(threshold)) };
            g.select_into(items_ref, keep, c.variant, &mut c.out, &mut c.state)?;
        }
        g.exclusive_scan_into(items_ref, scan_ref, scratch_ref)?;
        g.reduce_into(items_ref, ReduceOp::Sum, sum_ref, rs_ref)?;
        g.arg_reduce_into(items_ref, ArgOp::Min, ai_ref, av_ref, rs_ref)?;
        g.segmented_reduce(items_ref, so_ref, ReduceOp::Max, sm_ref)?;
        for (e, case) in expanders_ref.iter_mut().zip(expands_ref.iter_mut()) {
            if case.one_call {
                planned_ref.push(e.expand(g, cv, &mut case.out)?);
            } else {
                let mut p = e.pass1(g, cv)?;
                p.pass2(g, &mut case.out, Dispatch::Persistent)?;
                planned_ref.push(p);
            }
        }
        Ok(())
    });
    recorded.expect("recording into the graph");
    let graph = graph.expect("a graph");
    assert_eq!(gpu.download(&scan_out).unwrap()[..4], [0xABAB_ABAB; 4], "capture ran the work instead of recording it");

    for r in 0..=REPLAYS {
        let input = round(r, n, p1);
        gpu.upload_into(&input.items, &mut items).unwrap();
        gpu.upload_into(&input.flags, &mut flags).unwrap();
        gpu.upload_into(&input.counts, &mut counts).unwrap();
        graph.launch().unwrap();
        for c in &selects {
            let what = format!("replay {r}: select {} {}", c.variant.name(), if c.flagged { "flagged" } else { "if" });
            check_select(&gpu, c, &input, &what);
        }
        let scanned = gpu.download(&scan_out).unwrap();
        assert!(scanned == cpu_expand::exclusive_scan_u32(&input.items), "replay {r}: scan differs");
        assert_eq!(gpu.download(&sum).unwrap()[0], cpu_reduce::reduce(&input.items, Op::Sum), "replay {r}: sum");
        let (i, v) = cpu_reduce::arg_min(&input.items).unwrap();
        assert_eq!((gpu.download(&arg_index).unwrap()[0], gpu.download(&arg_value).unwrap()[0]), (i, v), "replay {r}");
        let maxes = cpu_reduce::segmented_reduce(&input.items, &offsets, Op::Max);
        assert!(gpu.download(&segment_max).unwrap() == maxes, "replay {r}: segmented max differs");
        let want = cpu_expand::expand(&input.counts);
        for (p, case) in planned.iter().zip(&expands) {
            let how = if case.one_call { "expand" } else { "pass1 + pass2" };
            check_expand(&gpu, p, case, &input.counts, &want, &format!("replay {r}: {how} {}", case.strategy.name()));
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn calls_a_graph_cannot_hold_are_refused_and_the_capture_stays_valid() {
    let (ctx, stream, gpu) = gpu_on_new_stream();
    let counts_a: Vec<u32> = (0..5000).map(|i| i % 7).collect();
    let counts = gpu.upload(&counts_a).unwrap();
    let other_counts = gpu.upload(&[1u32; 10]).unwrap();
    let mut items = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut out = gpu.filled::<[u32; 2]>(30_000, 0xAB).unwrap();
    let mut e = gpu.expander(Strategy::ScanFused, 5000, 30_000).unwrap();

    let refused = |r: Result<(), Error>, what: &str| {
        assert!(matches!(r, Err(Error::StreamCapture(_))), "{what}: {r:?}");
    };
    let mut kept_planned = None;
    let (e_ref, out_ref, items_ref, kept_ref) = (&mut e, &mut out, &mut items, &mut kept_planned);
    let (g, counts_ref, other_ref) = (&gpu, &counts, &other_counts);
    let (recorded, graph) = capture(&ctx, &stream, move || {
        refused(g.download(&*items_ref).map(|_| ()), "download");
        refused(g.upload(&[1u32]).map(|_| ()), "upload (allocates)");
        refused(g.upload_into(&[7u32], items_ref), "upload_into (host memory)");
        refused(g.zeros::<u8>(4).map(|_| ()), "allocation");
        refused(g.synchronize(), "synchronize");
        refused(g.time_ms(|| Ok(())).map(|_| ()), "time_ms");
        refused(g.select_if(&*items_ref, Predicate::Less(2), Variant::Block).map(|_| ()), "select_if (allocates)");
        // New counts rewrite the expander's descriptor by memsets: capturable, and the graph's
        // last pass 1 (on `counts`) is what its pass 2 expands.
        drop(e_ref.pass1(g, other_ref)?);
        let mut p = e_ref.pass1(g, counts_ref)?;
        refused(p.pass2(g, out_ref, Dispatch::ReadBack), "Dispatch::ReadBack");
        p.pass2(g, out_ref, Dispatch::Persistent)?;
        refused(p.count(g).map(|_| ()), "count");
        *kept_ref = Some(p);
        Ok(())
    });
    recorded.expect("the capturable calls");
    let graph = graph.expect("the capture stayed valid");
    let p = kept_planned.unwrap();
    for _ in 0..3 {
        graph.launch().unwrap();
        assert_eq!(p.count(&gpu).unwrap(), cpu_expand::total(&counts_a) as usize);
        assert!(gpu.download_prefix(&out, p.count(&gpu).unwrap()).unwrap() == cpu_expand::expand(&counts_a));
    }

    // With cudarc's event tracking on, cudarc buffers cannot be bound inside a capture: refused
    // before cudarc waits on an event, so the capture is not invalidated.
    let mut state = gpu.zeros::<u64>(1).unwrap();
    let mut kept = gpu.zeros::<u32>(3).unwrap();
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).unwrap();
    let r = gpu.select_into(&items, Keep::If(Predicate::Less(3)), Variant::Warp, &mut kept, &mut state);
    let ended = stream.end_capture(CUgraphInstantiate_flags(0));
    assert!(matches!(r, Err(Error::StreamCapture(ref m)) if m.contains("event tracking")), "{r:?}");
    assert!(ended.is_ok(), "the capture was invalidated: {:?}", ended.err());
    // And the stream works as before.
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, 3)).unwrap();
    gpu.select_into(&items, Keep::If(Predicate::Less(3)), Variant::Ordered, &mut kept, &mut state).unwrap();
    assert_eq!(gpu.select_count(&kept, &state).unwrap(), 2);
    assert_eq!(gpu.download_prefix(&kept, 2).unwrap(), [1, 2]);
}
