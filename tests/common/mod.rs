//! Helpers shared by the GPU test binaries (each declares `mod common;`): the device, the
//! small-input switch of the sanitizer runs, poisoned outputs, and the check of expansion pairs.
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
