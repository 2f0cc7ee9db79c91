//! Thread-level intrinsics: the handful of PTX instructions every warpwork kernel is built from.
//!
//! rustc's `nvptx64-nvidia-cuda` target exposes indices and the barrier through
//! `core::arch::nvptx`, but not warp votes, shuffles, lane masks, scoped atomics or shared memory.
//! Those are written here as small inline-PTX functions, each `#[inline(always)]` so that they cost
//! exactly the instruction they wrap. All warp-wide operations use the full mask `0xffffffff`:
//! call them with every lane of the warp converged (warpwork kernels keep whole warps alive until
//! after their last warp-wide call, and only then let out-of-range lanes drop out).

mod atomic;
#[cfg(feature = "sm90")]
mod float;
mod index;
mod memory;
mod shared;
mod warp;

pub use atomic::*;
#[cfg(feature = "sm90")]
pub use float::*;
pub use index::*;
pub use memory::*;
pub use shared::*;
pub use warp::*;
