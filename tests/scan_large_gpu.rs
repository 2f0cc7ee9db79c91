//! The scans past 2^32 elements: n = 2^32 + 7 `u32`s (16 GiB in, 16 GiB out: an 80 GB GPU).
//! The input is constant except for a random head and a random tail, so the expected prefix
//! sums have a closed form; the whole tail (the last 2^20 elements and the element past n) and
//! windows at sampled positions are checked. Skipped under `WARPWORK_SMALL=1`.

mod common;

use common::{gpu, small};

use warpwork::scan::{Scan, ScanOp};
use warpwork_cpu_reference::inputs;

const N: usize = (1 << 32) + 7;
const HEAD: usize = 1 << 16;
const TAIL: usize = 1 << 20;
/// Every byte of the constant part: each element is 0x0101_0101.
const BYTE: u8 = 1;
const C: u32 = 0x0101_0101;

/// Exclusive prefix sums of `v` and its total (wrapping).
fn prefixes(v: &[u32]) -> Vec<u32> {
    let mut run = 0u32;
    let mut out: Vec<u32> = v
        .iter()
        .map(|&x| {
            let before = run;
            run = run.wrapping_add(x);
            before
        })
        .collect();
    out.push(run);
    out
}

/// The exclusive sum before element `i` (wrapping), from the head's and the tail's prefix sums
/// (each with its total last) and the constant middle.
fn exclusive_at(i: usize, head: &[u32], tail: &[u32]) -> u32 {
    if i <= HEAD {
        return head[i];
    }
    let middle_end = N - TAIL;
    let s = head[HEAD].wrapping_add(C.wrapping_mul((i.min(middle_end) - HEAD) as u32));
    if i <= middle_end {
        s
    } else {
        s.wrapping_add(tail[i - middle_end])
    }
}

#[test]
#[ignore = "needs a GPU with 40 GB: run the GPU suite"]
fn scans_past_2_pow_32_elements() {
    if small() {
        return;
    }
    let gpu = gpu();
    let head = inputs::uniform_u32(HEAD, 41);
    let tail = inputs::uniform_u32(TAIL, 42);
    let mut input = gpu.filled::<u32>(N, BYTE).unwrap();
    gpu.upload_into(&head, &mut input.slice_mut(..HEAD)).unwrap();
    gpu.upload_into(&tail, &mut input.slice_mut(N - TAIL..)).unwrap();
    let (head_sums, tail_sums) = (prefixes(&head), prefixes(&tail));
    let mut output = gpu.filled::<u32>(N + 1, 0xAB).unwrap();
    let samples: Vec<usize> =
        inputs::uniform_u64(64, 43).into_iter().map(|x| (x % (N as u64 - 4096)) as usize).collect();
    for scan in [Scan::exclusive(ScanOp::Sum), Scan::inclusive(ScanOp::Sum)] {
        gpu.scan(&input, &mut output, scan).unwrap();
        let inclusive = scan == Scan::inclusive(ScanOp::Sum);
        let want = |i: usize| exclusive_at(i + inclusive as usize, &head_sums, &tail_sums);
        // The head, 2^31, the 2^32 boundary up to the poisoned element past n, sampled windows,
        // and the whole tail.
        let mut windows = vec![0..HEAD + 4096, (1 << 31) - 100..(1 << 31) + 100, (1 << 32) - 4096..N + 1];
        windows.extend(samples.iter().map(|&s| s..s + 4096));
        windows.push(N - TAIL - 4096..N + 1);
        for w in windows {
            let got = gpu.download(&output.slice(w.clone())).unwrap();
            for (k, &g) in got.iter().enumerate() {
                let i = w.start + k;
                let expected = if i == N { 0xABAB_ABAB } else { want(i) };
                assert_eq!(g, expected, "{scan:?}: element {i} of {N}");
            }
        }
    }
}
