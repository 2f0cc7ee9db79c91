//! Helpers shared by the GPU test binaries (each declares `mod common;`): the device, the
//! small-input switch of the sanitizer runs, poisoned outputs, and the run and check of an
//! expansion.
//!
//! Every GPU test is `#[ignore]`d so that machines without a GPU report it as ignored; the GPU
//! suite runs them with `--include-ignored` (see README).

// Each test binary uses a subset of these.
#![allow(dead_code)]

pub mod f32_sum;
pub mod reduce;
pub mod values;

use bytemuck::Pod;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;
use warpwork_cpu_reference::expand as cpu;

/// Device 0, which the GPU suite runs on.
pub fn gpu() -> Gpu {
    Gpu::new(0).expect("the GPU suite needs a CUDA device")
}

/// Whether `WARPWORK_SMALL` is set, as the GPU suite does under compute-sanitizer: tests then
/// skip their largest inputs.
pub fn small() -> bool {
    std::env::var_os("WARPWORK_SMALL").is_some()
}

/// The byte every output is filled with before a kernel writes it, so that elements a kernel
/// failed to write, or wrote out of bounds, stand out.
pub const POISON: u8 = 0xAB;

/// A device buffer of `len` elements whose every byte is [`POISON`].
pub fn poisoned<T: Pod>(gpu: &Gpu, len: usize) -> CudaSlice<T> {
    gpu.filled(len, POISON).expect("allocating a poisoned buffer")
}

/// Whether every byte of `values` is still [`POISON`]: nothing wrote them.
pub fn is_poisoned<T: Pod>(values: &[T]) -> bool {
    bytemuck::cast_slice::<T, u8>(values).iter().all(|&b| b == POISON)
}

/// Checks `pairs` (sorted into canonical order first unless `canonical`) against `counts`,
/// without materializing the reference: source by source, locals ascending.
pub fn check_pairs(counts: &[u32], pairs: &[[u32; 2]], canonical: bool, what: &str) {
    let sorted;
    let pairs = if canonical {
        pairs
    } else {
        sorted = cpu::sorted_pairs(pairs);
        &sorted[..]
    };
    assert_eq!(pairs.len() as u64, cpu::total(counts), "{what}: count");
    let mut at = 0usize;
    for (s, &c) in counts.iter().enumerate() {
        for l in 0..c {
            if pairs[at] != [s as u32, l] {
                panic!("{what}: pair {at} is {:?}, expected {:?}", pairs[at], [s as u32, l]);
            }
            at += 1;
        }
    }
}

/// Runs `strategy` on `counts` (both passes apart, `dispatch`) with a poisoned output 5 pairs
/// longer than the total, and checks the count, the pairs and that nothing past the count was
/// written.
pub fn expand_and_check(gpu: &Gpu, counts: &[u32], strategy: Strategy, dispatch: Dispatch, what: &str) {
    let total = cpu::total(counts) as usize;
    let slack = 5;
    let d = gpu.upload(counts).unwrap();
    let mut e = gpu.expander(strategy, counts.len(), total + slack).unwrap();
    let mut out = poisoned::<[u32; 2]>(gpu, total + slack);
    let mut planned = e.pass1(gpu, &d).unwrap();
    planned.pass2(gpu, &mut out, dispatch).unwrap();
    let count = planned.count(gpu).unwrap_or_else(|err| panic!("{what}: {err}"));
    assert_eq!(count, total, "{what}: count");
    let got = gpu.download(&out).unwrap();
    assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
    check_pairs(counts, &got[..total], strategy.is_canonical(), what);
}
