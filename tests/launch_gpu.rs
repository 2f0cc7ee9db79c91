//! GPU tests of the two ways a handle launches a kernel that may start before its predecessor
//! ends (S2.5f's pass 2): programmatic dependent launch where the device and driver have it, and
//! the plain launch that replaces it elsewhere (drivers without `cuLaunchKernelEx`, compute
//! capability below 9.0), forced here with `Gpu::with_plain_launch`.

mod common;

use common::{gpu, small};

use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;
use warpwork_cpu_reference::{expand as cpu, inputs};

const POISON: [u32; 2] = [0xABAB_ABAB; 2];

/// Runs S2.5f on `counts` twice per dispatch after one pass 1 (pass 2 clears what it claims from,
/// so a second run is a test of its own) and compares with the CPU reference pair by pair.
fn fused_matches_cpu(gpu: &Gpu, counts: &[u32], what: &str) {
    let expected = cpu::expand(counts);
    let total = expected.len();
    let d = gpu.upload(counts).unwrap();
    let mut e = gpu.expander(Strategy::ScanFused, counts.len(), total).unwrap();
    let mut planned = e.pass1(gpu, &d).unwrap();
    for dispatch in [Dispatch::Persistent, Dispatch::ReadBack, Dispatch::Persistent] {
        let what = format!("{what} {dispatch:?}");
        let mut out = gpu.filled::<[u32; 2]>(total + 5, 0xAB).unwrap();
        planned.pass2(gpu, &mut out, dispatch).unwrap();
        assert_eq!(planned.count(gpu).unwrap_or_else(|err| panic!("{what}: {err}")), total, "{what}: count");
        let got = gpu.download(&out).unwrap();
        assert!(got[total..].iter().all(|&p| p == POISON), "{what}: wrote past the count");
        if let Some(at) = (0..total).find(|&i| got[i] != expected[i]) {
            panic!("{what}: pair {at} is {:?}, expected {:?}", got[at], expected[at]);
        }
    }
}

fn inputs_for(p1: usize) -> [(&'static str, Vec<u32>); 3] {
    [
        ("one", vec![1u32; p1]),
        ("uniform[0,64)", inputs::uniform_range(p1, 7, 0, 64)),
        ("power-law", inputs::power_law(p1, 8, 1.2, 1 << 16)),
    ]
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_fused_through_the_plain_launch_matches_cpu() {
    let gpu = gpu().with_plain_launch();
    assert!(!gpu.programmatic_dependent_launch());
    let large = if small() { 1 << 16 } else { 1 << 22 };
    for p1 in [1usize, 2049, 8193, 100_003, large] {
        for (dist, counts) in inputs_for(p1) {
            fused_matches_cpu(&gpu, &counts, &format!("plain launch P1={p1} N={dist}"));
        }
    }
}

/// A handle launches programmatically exactly on compute capability 9.0 and newer, unless asked
/// otherwise (every driver for such a GPU has `cuLaunchKernelEx`), and both paths give the
/// reference's answer on the same input.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn programmatic_where_the_device_has_it_and_both_agree() {
    let gpu = gpu();
    let cc9 = gpu.info().compute_capability.0 >= 9;
    let plain_asked = std::env::var_os("WARPWORK_PLAIN_LAUNCH").is_some_and(|v| !v.is_empty() && v != "0");
    assert_eq!(gpu.programmatic_dependent_launch(), cc9 && !plain_asked, "{:?}", gpu.info());
    let counts = inputs::power_law(100_003, 9, 1.2, 1 << 16);
    fused_matches_cpu(&gpu, &counts, "default launch");
    fused_matches_cpu(&gpu.with_plain_launch(), &counts, "plain launch after the default");
}
