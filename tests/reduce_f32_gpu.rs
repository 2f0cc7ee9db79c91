//! GPU tests of the `f32` sum's contract — a fixed tree where the blocks keep to spans, the
//! exact sum of the warps' partial sums of each claimed unit, rounded once, where they claim —
//! checked bit for bit against that contract computed on the CPU, at odd sizes, in misaligned
//! views, on inputs no float order sums exactly (cancellations, values across the whole
//! exponent range), and in a CUDA graph replayed with new inputs; and IEEE's answers for NaNs,
//! infinities, overflow and signed zeros.

mod common;

use common::f32_sum::device_f32_sum;
use common::values::TestValues;
use common::{gpu, is_poisoned, poisoned, small};

use warpwork::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpwork::cudarc::driver::CudaContext;
use warpwork::reduce::{scratch_len, ReduceOp};
use warpwork::Gpu;

/// The sum of `d[skip..skip + len]` into a poisoned two-element output, with poisoned scratch
/// one word into its buffer.
fn sum(gpu: &Gpu, d: &warpwork::cudarc::driver::CudaSlice<f32>, skip: usize, len: usize) -> f32 {
    let mut out = poisoned::<f32>(gpu, 2);
    let mut scratch = poisoned::<u32>(gpu, scratch_len::<f32>(len) + 1);
    gpu.reduce_into(&d.slice(skip..skip + len), ReduceOp::Sum, &mut out, &mut scratch.slice_mut(1..)).unwrap();
    let got = gpu.download(&out).unwrap();
    assert!(is_poisoned(&got[1..]), "n = {len}: wrote past the output");
    got[0]
}

/// A small xorshift for the inputs below.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Finite values of every size from 2^−149 to 2^127, either sign: random bits with the
/// exponent's lowest bit cleared (so never all ones: no infinity, no NaN).
fn wide(n: usize, seed: u64) -> Vec<f32> {
    let mut next = rng(seed);
    (0..n).map(|_| f32::from_bits(next() as u32 & 0xff7f_ffff)).collect()
}

/// Large values that cancel (`a`, then `−a` a few elements later) among small ones: sums whose
/// float evaluation depends on the order.
fn cancelling(n: usize, seed: u64) -> Vec<f32> {
    let mut next = rng(seed);
    let mut v: Vec<f32> = (0..n).map(|_| (next() % 2001) as f32 / 1000.0 - 1.0).collect();
    let mut i = 0;
    while i + 37 < n {
        let big = (1u64 << (20 + next() % 60)) as f32;
        v[i] = big;
        v[i + 37] = -big;
        i += 1 + (next() % 500) as usize;
    }
    v
}

fn sizes() -> Vec<usize> {
    let unit = 2048;
    let mut v = vec![0, 1, 2, 3, 5, 31, 33, 511, 512, 513, 4097, (1 << 16) - 1, (1 << 16) + 1];
    v.extend([unit * 1024 - 1, unit * 1024 + 1, unit * 8 * 1024 - 1 - 2048, 1 << 23]);
    // From 2^24 on the units are claimed (under the sanitizers too).
    v.push((1 << 24) + 3);
    if !small() {
        v.extend([(1 << 24) - 1, 1 << 24, 25_000_001]);
    }
    v
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn f32_sums_are_the_exact_sum_of_the_documented_partials() {
    let gpu = gpu();
    for n in sizes() {
        let inputs = [
            ("random", f32::random(n + 3, 7)),
            ("wide", wide(n + 3, 8)),
            ("cancelling", cancelling(n + 3, 9)),
            ("mostly zero", (0..n + 3).map(|i| if i % 1000 == 999 { 0.1 } else { 0.0 }).collect()),
        ];
        for (what, input) in &inputs {
            let d = gpu.upload(input).unwrap();
            for skip in [0, 1, 3] {
                let got = sum(&gpu, &d, skip, n);
                let want = device_f32_sum(&input[skip..skip + n], skip);
                // (A NaN's bits are the hardware's where the sum is a float tree.)
                let agree = got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan();
                assert!(agree, "{what}, n = {n} from {skip}: {got:e} ({:#x}), want {want:e}", got.to_bits());
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn f32_sums_of_special_values() {
    let gpu = gpu();
    let n = (1 << 24) + 5;
    for len in [1usize, 100, 70_000, n] {
        let run = |input: &[f32]| sum(&gpu, &gpu.upload(input).unwrap(), 0, input.len());
        let at_end = |x: f32, rest: f32| {
            let mut v = vec![rest; len];
            v[len - 1] = x;
            v
        };
        assert!(run(&at_end(f32::NAN, 1.0)).is_nan(), "NaN, n = {len}");
        assert_eq!(run(&at_end(f32::INFINITY, -1.0)), f32::INFINITY, "+inf, n = {len}");
        assert_eq!(run(&at_end(f32::NEG_INFINITY, 1.0)), f32::NEG_INFINITY, "-inf, n = {len}");
        assert_eq!(run(&vec![-0.0; len]).to_bits(), (-0.0f32).to_bits(), "-0.0s, n = {len}");
        assert_eq!(run(&at_end(0.0, -0.0)).to_bits(), 0, "a +0.0 among -0.0s, n = {len}");
        if len > 1 {
            let mut v = vec![0.0; len];
            v[0] = f32::INFINITY;
            v[len - 1] = f32::NEG_INFINITY;
            assert!(run(&v).is_nan(), "+inf and -inf, n = {len}");
            let (mut a, mut b) = (vec![0.0; len], vec![0.0; len]);
            (a[0], a[len - 1]) = (f32::MAX, f32::MAX);
            (b[0], b[len - 1]) = (3.0e38, -3.0e38);
            assert_eq!(run(&a), f32::INFINITY, "overflow, n = {len}");
            assert_eq!(run(&b).to_bits(), 0, "x + -x, n = {len}");
        }
    }
    // 1 + 2^−149 + … − 1: a float sum in input order loses every 2^−149; here only those in the
    // partial sums of 1 and −1 are lost.
    let tiny = f32::from_bits(1);
    let mut v = vec![tiny; n];
    (v[0], v[n - 1]) = (1.0, -1.0);
    let got = sum(&gpu, &gpu.upload(&v).unwrap(), 0, n);
    assert_eq!(got.to_bits(), device_f32_sum(&v, 0).to_bits(), "tiny values beside 1");
    assert!(got >= f32::from_bits((n - 2048) as u32), "tiny values beside 1: {got:e}");
}

/// A sum recorded once into a CUDA graph (on a stream of its own, cudarc's event tracking off
/// while capturing) and replayed with new inputs copied into the same buffer: every replay
/// zeroes its own ticket, claim counter and accumulators.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn f32_sums_replay_from_a_captured_graph() {
    let ctx = CudaContext::new(0).expect("the GPU suite needs a CUDA device");
    let stream = ctx.new_stream().unwrap();
    let gpu = Gpu::from_stream(stream.clone()).unwrap();
    for n in [100_003usize, (1 << 24) + 3] {
        let mut d = gpu.zeros::<f32>(n).unwrap();
        let mut out = poisoned::<f32>(&gpu, 1);
        let mut scratch = poisoned::<u32>(&gpu, scratch_len::<f32>(n));
        stream.synchronize().unwrap();
        // SAFETY: nothing runs on this context's other streams during the capture, and no
        // buffer is created or freed during it.
        unsafe { ctx.disable_event_tracking() };
        stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).unwrap();
        let recorded = gpu.reduce_into(&d, ReduceOp::Sum, &mut out, &mut scratch);
        let graph = stream.end_capture(CUgraphInstantiate_flags(0));
        // SAFETY: as above.
        unsafe { ctx.enable_event_tracking() };
        recorded.unwrap();
        let graph = graph.unwrap().expect("a captured graph");
        for r in 0..(if small() { 3 } else { 12 }) {
            let input = if r & 1 == 0 { cancelling(n, 100 + r) } else { wide(n, 200 + r) };
            gpu.upload_into(&input, &mut d).unwrap();
            graph.launch().unwrap();
            let got = gpu.download(&out).unwrap()[0];
            let want = device_f32_sum(&input, 0);
            assert!(
                got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                "n = {n}, replay {r}: {got:e}, want {want:e}"
            );
        }
    }
}
