//! GPU tests of the device-wide exclusive scan against the CPU reference.

mod common;

use common::{gpu, is_poisoned, poisoned, small};
use warpwork_cpu_reference::{expand as cpu, inputs};

fn sizes() -> Vec<usize> {
    let mut v = vec![0, 1, 31, 33, 4095, 4096, 4097, (1 << 16) + 1, 1_000_003];
    if !small() {
        v.extend([(1 << 24) - 1, 1 << 26]);
    }
    v
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_u32_matches_cpu() {
    let gpu = gpu();
    for n in sizes() {
        for (name, input) in [
            ("uniform", inputs::uniform_u32(n, 11)),
            ("small", inputs::uniform_range(n, 12, 0, 100)),
            ("ones", vec![1u32; n]),
        ] {
            let d = gpu.upload(&input).unwrap();
            // One extra poisoned element checks nothing is written past n.
            let mut out = poisoned::<u32>(&gpu, n + 1);
            gpu.exclusive_scan(&d, &mut out).unwrap();
            let got = gpu.download(&out).unwrap();
            let want = cpu::exclusive_scan_u32(&input);
            assert!(got[..n] == want[..], "u32 scan {name} n={n} differs");
            assert!(is_poisoned(&got[n..]), "u32 scan n={n} wrote past the end");
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_u64_matches_cpu() {
    let gpu = gpu();
    for n in sizes() {
        let (a, b) = (inputs::uniform_u32(n, 21), inputs::uniform_u32(n, 22));
        let input: Vec<u64> = a.iter().zip(&b).map(|(&a, &b)| (((a as u64) << 32) | b as u64) >> (b % 64)).collect();
        let d = gpu.upload(&input).unwrap();
        let mut out = poisoned::<u64>(&gpu, n + 1);
        gpu.exclusive_scan(&d, &mut out).unwrap();
        let got = gpu.download(&out).unwrap();
        assert!(got[..n] == cpu::exclusive_scan_u64(&input)[..], "u64 scan n={n} differs");
        assert!(is_poisoned(&got[n..]), "u64 scan n={n} wrote past the end");
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_in_place_and_repeated() {
    let gpu = gpu();
    let input = inputs::uniform_range(300_001, 5, 0, 1000);
    let want = cpu::exclusive_scan_u32(&input);
    for _ in 0..20 {
        let mut d = gpu.upload(&input).unwrap();
        let src = gpu.upload(&input).unwrap();
        gpu.exclusive_scan(&src, &mut d).unwrap();
        assert!(gpu.download(&d).unwrap() == want);
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_rejects_short_output() {
    let gpu = gpu();
    let d = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut out = gpu.zeros::<u32>(2).unwrap();
    assert!(matches!(gpu.exclusive_scan(&d, &mut out), Err(warpwork::Error::InvalidInput(_))));
}
