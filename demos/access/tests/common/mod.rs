//! What the GPU test binaries share: the device, the small-input switch of the sanitizer runs,
//! and poisoned outputs.
//!
//! Every GPU test is `#[ignore]`d so that machines without a GPU report it as ignored, never as
//! passed; the GPU suite runs them with `--include-ignored` (see warpwork's README).

use bytemuck::Pod;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::Gpu;

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
