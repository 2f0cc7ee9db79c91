//! GPU tests of the reductions against the CPU reference: every operator × type at odd sizes,
//! on random and adversarial inputs (all equal, the extreme at the last element, NaN, signed
//! zeros), into poisoned outputs; determinism of float sums; misaligned views; and bad input.
//! The segmented reductions: `reduce_segmented_gpu.rs`.

mod common;

use common::reduce::{cpu_op, same, TestElement, OPS};
use common::values::TestValues;
use common::{gpu, is_poisoned, poisoned, small};

use warpwork::cudarc::driver::CudaContext;
use warpwork::reduce::{scratch_len, ArgOp, ReduceItem, ReduceOp};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::reduce as cpu;
use warpwork_cpu_reference::scan::Op;

/// The reduction into a poisoned two-element output (the second must stay poisoned), with
/// poisoned scratch.
fn run<T: TestElement>(gpu: &Gpu, input: &[T], op: ReduceOp) -> T {
    let d = gpu.upload(input).unwrap();
    let mut out = poisoned::<T>(gpu, 2);
    let mut scratch = poisoned::<u32>(gpu, scratch_len::<T>(input.len()));
    gpu.reduce_into(&d, op, &mut out, &mut scratch).unwrap();
    let got = gpu.download(&out).unwrap();
    assert!(is_poisoned(&got[1..]), "{} {op:?}: wrote past the output", T::SUFFIX);
    got[0]
}

/// Argmin / argmax into poisoned two-element outputs, checked against the CPU (exactly; the
/// value bit for bit).
fn check_arg<T: TestElement>(gpu: &Gpu, input: &[T], what: &str) {
    let d = gpu.upload(input).unwrap();
    for op in [ArgOp::Min, ArgOp::Max] {
        let (mut index, mut value) = (poisoned::<u64>(gpu, 2), poisoned::<T>(gpu, 2));
        let mut scratch = poisoned::<u32>(gpu, scratch_len::<T>(input.len()));
        gpu.arg_reduce_into(&d, op, &mut index, &mut value, &mut scratch).unwrap();
        let (i, v) = (gpu.download(&index).unwrap(), gpu.download(&value).unwrap());
        assert!(is_poisoned(&i[1..]) && is_poisoned(&v[1..]), "{what} {op:?}: wrote past the outputs");
        let want = if op == ArgOp::Min { cpu::arg_min(input) } else { cpu::arg_max(input) };
        let got = (i[0] != u64::MAX).then_some((i[0], v[0]));
        let agree = match (got, want) {
            (Some((gi, gv)), Some((wi, wv))) => gi == wi && bytemuck::bytes_of(&gv) == bytemuck::bytes_of(&wv),
            (None, None) => {
                let (lo, hi) = T::extremes();
                bytemuck::bytes_of(&v[0]) == bytemuck::bytes_of(if op == ArgOp::Min { &hi } else { &lo })
            }
            _ => false,
        };
        assert!(agree, "{what} {op:?}, n = {}: got {got:?} (value {:?}), want {want:?}", input.len(), v[0]);
    }
}

/// Checks a reduction of `input` under `op`: exactly, or for float sums of reals within
/// `(log2(n) + 64) · u · Σ|x|` of the exact sum (a tree of per-thread runs: see docs/reduce.md).
fn check<T: TestElement>(got: T, input: &[T], op: ReduceOp, exact: bool, what: &str) {
    if exact || !T::FLOAT || op != ReduceOp::Sum {
        let want = cpu::reduce(input, cpu_op(op));
        assert!(same(got, want), "{what} {op:?}, n = {}: got {got:?}, want {want:?}", input.len());
        return;
    }
    let u = if std::mem::size_of::<T>() == 4 { f32::EPSILON as f64 / 2.0 } else { f64::EPSILON / 2.0 };
    let (exact_sum, abs) = cpu::compensated_sum(input.iter().map(|x| x.to_f64()));
    // Per thread a run of up to n / (1024 · 128) elements, then 5 + 2 + 5 + 2 tree levels.
    let bound = ((input.len() / (1 << 17)) as f64 + 64.0) * u * abs + 1e-30;
    let err = (got.to_f64() - exact_sum).abs();
    assert!(err <= bound, "{what}: n = {}, got {got:?}, exact {exact_sum}, error {err:e} > {bound:e}", input.len());
}

/// Sizes around powers of two and around the block spans.
fn sizes<T: ReduceItem>() -> Vec<usize> {
    let per_block = 128 * 16 * 4 / std::mem::size_of::<T>();
    let mut v = vec![0, 1, 2, 3, 4, 5, 31, 33, 127, 129, 1023, 1025, 12_345, (1 << 16) - 1, (1 << 16) + 1];
    v.extend([per_block - 1, per_block, per_block + 1, 1024 * per_block - 1, 1024 * per_block + 1]);
    v.extend([per_block / 4 - 1, per_block / 4 + 1, 1024 * per_block / 4 + 1]);
    v.extend([1_000_003, (1 << 20) + 7]);
    if !small() {
        v.extend([(1 << 23) - 3, 25_000_001]);
    }
    v
}

fn every_reduce_of<T: TestElement>(gpu: &Gpu) {
    for n in sizes::<T>() {
        for (seed, op) in OPS.into_iter().enumerate() {
            let r = T::random(n, 100 + seed as u64);
            check(run(gpu, &r, op), &r, op, false, &format!("{} random", T::SUFFIX));
            let s = T::small_ints(n.min(1 << 20), 200 + seed as u64);
            check(run(gpu, &s, op), &s, op, true, &format!("{} small integers", T::SUFFIX));
        }
        check_arg(gpu, &T::random(n, 300), &format!("{} random", T::SUFFIX));
        check_arg(gpu, &T::small_ints(n, 301), &format!("{} small integers (ties)", T::SUFFIX));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn reductions_of_u32_and_i32_match_cpu() {
    let gpu = gpu();
    every_reduce_of::<u32>(&gpu);
    every_reduce_of::<i32>(&gpu);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn reductions_of_u64_and_i64_match_cpu() {
    let gpu = gpu();
    every_reduce_of::<u64>(&gpu);
    every_reduce_of::<i64>(&gpu);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn reductions_of_f32_and_f64_match_cpu() {
    let gpu = gpu();
    every_reduce_of::<f32>(&gpu);
    every_reduce_of::<f64>(&gpu);
}

/// All equal (argmin and argmax: index 0); the extreme at the last element, and at the first;
/// for floats NaN (first NaN wins, min and max NaN), signed zeros and infinities.
fn adversarial<T: TestElement>(gpu: &Gpu) {
    let (lo, hi) = T::extremes();
    // (The largest is skipped under the sanitizers.)
    for n in [1usize, 2, 33, 4097, 70_001, 1_000_003].into_iter().filter(|&n| !small() || n < 1 << 20) {
        let what = format!("{} n = {n}", T::SUFFIX);
        let equal = vec![T::from_i32(7); n];
        check_arg(gpu, &equal, &format!("{what} all equal"));
        let (mut at_last, mut at_first) = (T::small_ints(n, 5), T::small_ints(n, 6));
        at_last[n - 1] = lo;
        at_first[0] = hi;
        if n > 1 {
            at_last[n - 2] = hi;
            at_first[n - 1] = lo;
        }
        // Every element the extreme whose arg key is the largest possible (64-bit types: a key
        // equal to "no element"'s), and sorted runs (each vector holds a new best, ties inside).
        let (all_lo, all_hi) = (vec![lo; n], vec![hi; n]);
        let mut rising = T::small_ints(n, 8);
        rising.sort_by(|a, b| a.to_f64().total_cmp(&b.to_f64()));
        let falling: Vec<T> = rising.iter().rev().copied().collect();
        for input in [&all_lo, &all_hi, &rising, &falling] {
            check_arg(gpu, input, &format!("{what} all extreme or sorted"));
        }
        for input in [&equal, &at_last, &at_first] {
            check_arg(gpu, input, &format!("{what} extremes"));
            for op in OPS {
                check(run(gpu, input, op), input, op, true, &format!("{what} extremes"));
            }
        }
        if T::FLOAT {
            let mut specials = T::small_ints(n, 7);
            let nan = bytemuck::cast_slice::<u8, T>(&vec![0xFFu8; std::mem::size_of::<T>()])[0]; // a NaN with a payload
            for (k, at) in (0..n).step_by(n / 5 + 1).enumerate() {
                specials[at] = [T::from_i32(0), lo, hi, nan][k % 4];
            }
            check_arg(gpu, &specials, &format!("{what} NaN and infinities"));
            for op in OPS {
                check(run(gpu, &specials, op), &specials, op, true, &format!("{what} NaN and infinities"));
            }
            let zeros: Vec<T> = (0..n).map(|i| if i % 3 == 1 { T::from_i32(0) } else { T::neg_zero() }).collect();
            check_arg(gpu, &zeros, &format!("{what} signed zeros"));
            // The sign of a zero minimum or maximum, bit for bit (`same` takes -0.0 == +0.0).
            for op in [ReduceOp::Min, ReduceOp::Max] {
                let (got, want) = (run(gpu, &zeros, op), cpu::reduce(&zeros, cpu_op(op)));
                assert_eq!(bytemuck::bytes_of(&got), bytemuck::bytes_of(&want), "{what} signed zeros {op:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn adversarial_inputs_match_cpu() {
    let gpu = gpu();
    adversarial::<u32>(&gpu);
    adversarial::<i32>(&gpu);
    adversarial::<u64>(&gpu);
    adversarial::<i64>(&gpu);
    adversarial::<f32>(&gpu);
    adversarial::<f64>(&gpu);
}

/// Inputs long enough (eight units per block) that the blocks claim the input unit by unit as
/// they go (every operator but the `f64` sum; the `f32` sum adds its units' partial sums
/// exactly: `reduce_f32_gpu.rs`): the winner in the
/// first claimed unit, just before it, at the last element and in the middle; the first of many
/// ties; misaligned views; and the same result on every run, whichever blocks claim what.
fn claimed<T: TestElement>(gpu: &Gpu) {
    let n = (15 << 22) / std::mem::size_of::<T>() + 5; // 60 MiB and a bit: 8 units per block
    let (lo, hi) = T::extremes();
    // Block `b` takes unit `b` (of 8 KiB) unclaimed; the grid is 961 blocks of 8-unit spans.
    let unit = 8192 / std::mem::size_of::<T>();
    let units = n.div_ceil(unit);
    let first_claimed = units.div_ceil(units.div_ceil(1024)) * unit;
    for (k, at) in [first_claimed, first_claimed - 1, n - 1, n / 2].into_iter().enumerate() {
        let mut input = T::small_ints(n, 20 + k as u64);
        (input[at], input[first_claimed + 1 + k]) = (lo, hi);
        let what = format!("{} n = {n}, extremes at {at}", T::SUFFIX);
        check_arg(gpu, &input, &what);
        for op in OPS {
            // (Exactly: a float input holds both infinities, so its sum is NaN in any order.)
            check(run(gpu, &input, op), &input, op, true, &what);
        }
    }
    let ties = T::small_ints(n, 30);
    for _ in 0..3 {
        check_arg(gpu, &ties, &format!("{} n = {n} ties", T::SUFFIX));
    }
    let d = gpu.upload(&ties).unwrap();
    let mut scratch = poisoned::<u32>(gpu, scratch_len::<T>(n) + 1);
    let mut out = poisoned::<T>(gpu, 1);
    for skip in 1..4 {
        for op in [ReduceOp::Min, ReduceOp::Max] {
            gpu.reduce_into(&d.slice(skip..), op, &mut out, &mut scratch.slice_mut(1..)).unwrap();
            let want = cpu::reduce(&ties[skip..], cpu_op(op));
            assert!(same(gpu.download(&out).unwrap()[0], want), "{} view from {skip}, {op:?}", T::SUFFIX);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn claimed_parts_match_cpu() {
    let gpu = gpu();
    claimed::<u32>(&gpu);
    claimed::<u64>(&gpu);
    claimed::<f32>(&gpu);
    claimed::<i64>(&gpu);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn float_sums_are_the_same_bits_every_run() {
    let gpu = gpu();
    // Spans below 2^24 `f32`s; from there on claimed units, whose partial sums are added exactly
    // (the same bits whatever the claims).
    for n in [1_000_003usize, 1 << 22, (15 << 20) + 5, (1 << 26) + 3] {
        let input = f32::random(n, 41);
        let first = run(&gpu, &input, ReduceOp::Sum);
        check(first, &input, ReduceOp::Sum, false, &format!("f32 n = {n}"));
        for _ in 0..5 {
            assert_eq!(run(&gpu, &input, ReduceOp::Sum).to_bits(), first.to_bits(), "n = {n}");
        }
    }
    let input = f64::random((15 << 19) + 5, 42);
    let first = run(&gpu, &input, ReduceOp::Sum);
    for _ in 0..5 {
        assert_eq!(run(&gpu, &input, ReduceOp::Sum).to_bits(), first.to_bits(), "f64");
    }
}

/// Long float sums count every element once, on inputs whose sums are exact in any order
/// (`f32`: a 1 at the first and last of every 256 elements; `f64`: small integers): at sizes
/// whose last span is short, in misaligned views, in scratch sized for a longer input whose grid
/// is smaller (16 897 units take 994 blocks, 7168 units 1024), and with a shorter sum in the
/// same scratch in between; then the same bits on every run of random reals.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn long_float_sums_count_every_element_once() {
    let gpu = gpu();
    for n in [(1usize << 25) + (1 << 20) + 7, (1 << 26) + 3] {
        let input: Vec<f32> = (0..n).map(|i| if i % 256 == 0 || i % 256 == 255 { 1.0 } else { 0.0 }).collect();
        let d = gpu.upload(&input).unwrap();
        let mut scratch = poisoned::<u32>(&gpu, scratch_len::<f32>(n) + 1);
        let mut out = poisoned::<f32>(&gpu, 1);
        for (skip, len) in [(0, n), (1, n - 1), (2, n - 5), (3, n - 3), (0, 7168 * 2048), (1, 7168 * 2048 - 1)] {
            let view = d.slice(skip..skip + len);
            gpu.reduce_into(&view, ReduceOp::Sum, &mut out, &mut scratch.slice_mut(1..)).unwrap();
            let want = input[skip..skip + len].iter().map(|&x| x as f64).sum::<f64>() as f32;
            assert_eq!(gpu.download(&out).unwrap()[0], want, "f32 n = {n}: {len} from {skip}");
            // A shorter sum in between: the next must not depend on what it left behind.
            gpu.reduce_into(&d.slice(..1 << 20), ReduceOp::Sum, &mut out, &mut scratch.slice_mut(1..)).unwrap();
        }
        let random = f32::random(n, 43);
        let first = run(&gpu, &random, ReduceOp::Sum);
        check(first, &random, ReduceOp::Sum, false, &format!("f32 n = {n}"));
        for _ in 0..3 {
            assert_eq!(run(&gpu, &random, ReduceOp::Sum).to_bits(), first.to_bits(), "f32 n = {n}");
        }
    }
    for n in [(1usize << 24) + 5, 3 << 23] {
        let input = f64::small_ints(n, 44);
        check(run(&gpu, &input, ReduceOp::Sum), &input, ReduceOp::Sum, true, "f64 small integers");
        let random = f64::random(n, 45);
        let first = run(&gpu, &random, ReduceOp::Sum);
        check(first, &random, ReduceOp::Sum, false, &format!("f64 n = {n}"));
        assert_eq!(run(&gpu, &random, ReduceOp::Sum).to_bits(), first.to_bits(), "f64 n = {n}");
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn misaligned_views_and_reused_scratch() {
    let gpu = gpu();
    let n = 100_003;
    let input = u32::random(n + 3, 5);
    let d = gpu.upload(&input).unwrap();
    // Scratch reused by every call, one word in (it realigns itself).
    let mut scratch = poisoned::<u32>(&gpu, scratch_len::<u64>(n) + 1);
    let mut out = poisoned::<u32>(&gpu, 1);
    for skip in 0..4 {
        let view = d.slice(skip..skip + n - skip);
        for op in OPS {
            gpu.reduce_into(&view, op, &mut out, &mut scratch.slice_mut(1..)).unwrap();
            let want = cpu::reduce(&input[skip..n], cpu_op(op));
            assert_eq!(gpu.download(&out).unwrap()[0], want, "view from {skip}, {op:?}");
        }
        assert_eq!(gpu.arg_reduce(&view, ArgOp::Max).unwrap(), cpu::arg_max(&input[skip..n]), "argmax from {skip}");
    }
    let input = f64::small_ints(n + 1, 6);
    let d = gpu.upload(&input).unwrap();
    assert_eq!(gpu.reduce(&d.slice(1..), ReduceOp::Sum).unwrap(), cpu::reduce(&input[1..], Op::Sum));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn convenience_forms_return_host_values() {
    let gpu = gpu();
    let d = gpu.upload(&[3i64, -9, 4, -9]).unwrap();
    assert_eq!(gpu.reduce(&d, ReduceOp::Sum).unwrap(), -11);
    assert_eq!(gpu.arg_reduce(&d, ArgOp::Min).unwrap(), Some((1, -9)));
    let empty = gpu.zeros::<f32>(0).unwrap();
    assert_eq!(gpu.arg_reduce(&empty, ArgOp::Max).unwrap(), None);
    assert_eq!(gpu.reduce(&empty, ReduceOp::Min).unwrap(), f32::INFINITY);
    let s = gpu.reduce(&empty, ReduceOp::Sum).unwrap();
    assert!(s == 0.0 && s.is_sign_negative(), "the identity of float sums is -0.0");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn bad_input_is_a_typed_error_and_the_next_call_works() {
    let gpu = gpu();
    let d = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut empty_out = gpu.zeros::<u32>(0).unwrap();
    let mut scratch = gpu.zeros::<u32>(scratch_len::<u32>(3)).unwrap();
    assert!(matches!(
        gpu.reduce_into(&d, ReduceOp::Sum, &mut empty_out, &mut scratch),
        Err(Error::BufferTooSmall { what: "reduce output", len: 0, needed: 1 })
    ));
    let mut out = poisoned::<u32>(&gpu, 1);
    let mut short = gpu.zeros::<u32>(scratch_len::<u32>(3) - 1).unwrap();
    assert!(matches!(
        gpu.reduce_into(&d, ReduceOp::Sum, &mut out, &mut short),
        Err(Error::BufferTooSmall { what: "reduce scratch (u32 words)", .. })
    ));
    let (mut index, mut value) = (gpu.zeros::<u64>(0).unwrap(), gpu.zeros::<u32>(1).unwrap());
    assert!(matches!(
        gpu.arg_reduce_into(&d, ArgOp::Min, &mut index, &mut value, &mut scratch),
        Err(Error::BufferTooSmall { what: "arg_reduce index output", .. })
    ));
    let offsets = gpu.upload(&[0u64, 1, 3]).unwrap();
    let mut seg_out = poisoned::<u32>(&gpu, 1);
    assert!(matches!(
        gpu.segmented_reduce(&d, &offsets, ReduceOp::Sum, &mut seg_out),
        Err(Error::BufferTooSmall { what: "segmented_reduce output", len: 1, needed: 2 })
    ));
    assert!(is_poisoned(&gpu.download(&out).unwrap()) && is_poisoned(&gpu.download(&seg_out).unwrap()));
    // Nothing was issued: the next calls work.
    gpu.reduce_into(&d, ReduceOp::Sum, &mut out, &mut scratch).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), [6]);
    let mut seg_out = gpu.zeros::<u32>(2).unwrap();
    gpu.segmented_reduce(&d, &offsets, ReduceOp::Sum, &mut seg_out).unwrap();
    assert_eq!(gpu.download(&seg_out).unwrap(), [1, 5]);

    // A buffer of another context.
    let other = match CudaContext::new_non_primary(0, 0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped the other-context case: this driver cannot create a second context ({e})");
            return;
        }
    };
    let theirs = other.new_stream().unwrap().clone_htod(&[1u32, 2, 3]).unwrap();
    assert!(matches!(gpu.reduce_into(&theirs, ReduceOp::Max, &mut out, &mut scratch), Err(Error::WrongContext)));
    gpu.reduce_into(&d, ReduceOp::Max, &mut out, &mut scratch).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), [3]);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn past_2_pow_32_elements() {
    if small() {
        eprintln!("skipped under WARPWORK_SMALL: 16 GiB of input");
        return;
    }
    let gpu = gpu();
    let n = (1usize << 32) + 7;
    if gpu.info().total_memory < 5 * n {
        eprintln!("skipped: the device has less than {} bytes", 5 * n);
        return;
    }
    // Every element 0x01010101 (a memset) but a 0 and a u32::MAX past 2^32: the sum wraps.
    let mut d = gpu.filled::<u32>(n, 0x01).unwrap();
    let at = (1usize << 32) + 3;
    gpu.upload_into(&[0u32, u32::MAX], &mut d.slice_mut(at..at + 2)).unwrap();
    let sum = ((n as u64 - 2) * 0x0101_0101).wrapping_add(u32::MAX as u64) as u32;
    assert_eq!(gpu.reduce(&d, ReduceOp::Sum).unwrap(), sum);
    assert_eq!(gpu.arg_reduce(&d, ArgOp::Min).unwrap(), Some((at as u64, 0)));
    assert_eq!(gpu.arg_reduce(&d, ArgOp::Max).unwrap(), Some((at as u64 + 1, u32::MAX)));
    let offsets = gpu.upload(&[0u64, at as u64, n as u64]).unwrap();
    let mut out = gpu.zeros::<u32>(2).unwrap();
    gpu.segmented_reduce(&d, &offsets, ReduceOp::Min, &mut out).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), [0x0101_0101, 0]);
}
