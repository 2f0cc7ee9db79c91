//! Device-wide algorithms, as the per-block bodies that warpwork's kernels instantiate and that
//! your own kernels can call: each function here processes one block's share of a launch.

pub mod expand;
pub mod life;
pub mod lighting;
pub mod lookback;
pub mod particles;
pub mod partition;
pub mod scan;
pub mod select;
