//! GPU tests of the segmented reductions against the CPU reference, every operator × type:
//! many tiny segments with empty ones among them, groups with a long one, a few hundred short
//! ones, one huge segment, unaligned starts, offsets out of range or decreasing (clamped,
//! nothing read out of bounds), and no segments; outputs poisoned past the segments.

mod common;

use common::reduce::{cpu_op, same, TestElement, OPS};
use common::{gpu, is_poisoned, poisoned, small};

use warpwork::Gpu;
use warpwork_cpu_reference::inputs;
use warpwork_cpu_reference::reduce as cpu;

fn check_segments<T: TestElement>(gpu: &Gpu, input: &[T], offsets: &[u64], what: &str) {
    let d = gpu.upload(input).unwrap();
    let o = gpu.upload(offsets).unwrap();
    let segments = offsets.len().saturating_sub(1);
    for op in OPS {
        let mut out = poisoned::<T>(gpu, segments + 1);
        gpu.segmented_reduce(&d, &o, op, &mut out).unwrap();
        let got = gpu.download(&out).unwrap();
        assert!(is_poisoned(&got[segments..]), "{what} {op:?}: wrote past the segments");
        let want = cpu::segmented_reduce(input, offsets, cpu_op(op));
        if let Some(s) = (0..segments).find(|&s| !same(got[s], want[s])) {
            panic!("{what} {op:?}: segment {s} {:?}: got {:?}, want {:?}", &offsets[s..s + 2], got[s], want[s]);
        }
    }
}

fn segmented<T: TestElement>(gpu: &Gpu) {
    let n = if small() { 30_001 } else { 3_000_001 };
    let input = T::small_ints(n, 11);
    let what = T::SUFFIX;
    // Many tiny segments (lengths 0 to 6), with empty ones among them.
    let mut tiny = vec![0u64];
    let lengths = inputs::uniform_range(n / 3, 12, 0, 7);
    for l in lengths {
        let next = (tiny.last().unwrap() + l as u64).min(n as u64);
        tiny.push(next);
    }
    check_segments(gpu, &input, &tiny, &format!("{what} tiny segments"));
    // Many segments (grouped four to a block): short ones (one warp each, up to 1024 elements:
    // 1024 and 1025 among them) with, in some groups, one of thousands (then the block takes
    // each of its group's).
    let mut grouped = vec![0u64];
    for k in 0..(n / 40).max(5000) {
        let l = match k % 97 {
            0 => 2000 + k % 3000,
            1..=3 => 200 + k % 100,
            4 => 1024,
            5 => 1025,
            6 | 7 => 300 + k % 700,
            _ => k % 9,
        };
        grouped.push((grouped.last().unwrap() + l as u64).min(n as u64));
    }
    check_segments(gpu, &input, &grouped, &format!("{what} grouped, some long"));
    // Many long segments (more than 256 elements on average): one block each.
    if !small() {
        let long: Vec<u64> = (0..=5000u64).map(|k| (k * 600 + k % 7).min(n as u64)).collect();
        check_segments(gpu, &input, &long, &format!("{what} many long segments"));
    }
    // A few hundred segments of up to 512 elements (as many as the grouping's threshold sees
    // at small sizes): unaligned starts, lengths around a warp's width and the one-trip limit.
    let mut few = vec![0u64];
    for k in 0..300u64 {
        let l = match k % 5 {
            0 => 32 + k % 3,
            1 => 512,
            _ => (k * 37) % 513,
        };
        few.push((few.last().unwrap() + l).min(n as u64));
    }
    check_segments(gpu, &input, &few, &format!("{what} a few hundred short segments"));
    // One huge segment, then empty ones at the end.
    check_segments(gpu, &input, &[0, n as u64, n as u64, n as u64], &format!("{what} one huge segment"));
    // Mixed lengths, unaligned starts.
    let mixed: Vec<u64> = [0u64, 1, 5, 17, 4096, 4097, 70_000, 70_001, 250_000, n as u64].to_vec();
    check_segments(gpu, &input, &mixed, &format!("{what} mixed"));
    // Offsets out of range and decreasing: clamped, nothing read out of bounds.
    check_segments(gpu, &input, &[5, 3, n as u64 + 10, u64::MAX, 7], &format!("{what} out of range"));
    // No segments.
    check_segments(gpu, &input, &[0], &format!("{what} none"));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn segmented_reductions_match_cpu() {
    let gpu = gpu();
    segmented::<u32>(&gpu);
    segmented::<i32>(&gpu);
    segmented::<u64>(&gpu);
    segmented::<i64>(&gpu);
    segmented::<f32>(&gpu);
    segmented::<f64>(&gpu);
}
