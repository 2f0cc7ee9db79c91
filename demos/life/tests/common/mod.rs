//! What the GPU test binaries share: the device and the small-input switch of the sanitizer runs.
//!
//! Every GPU test is `#[ignore]`d so that machines without a GPU report it as ignored, never as
//! passed; the GPU suite runs them with `--include-ignored` (see warpwork's README).

// Each test binary uses a subset of these.
#![allow(dead_code)]

use warpwork::Gpu;

/// The banded boards' helpers (the tests that need the feature `nccl`).
#[cfg(feature = "nccl")]
pub mod bands;

/// Device 0, which the GPU suite runs on.
pub fn gpu() -> Gpu {
    Gpu::new(0).expect("the GPU suite needs a CUDA device")
}

/// Whether `WARPWORK_SMALL` is set, as the GPU suite does under compute-sanitizer: tests then
/// skip their largest inputs.
pub fn small() -> bool {
    std::env::var_os("WARPWORK_SMALL").is_some()
}
