//! Device-wide algorithms, as the per-block bodies that warpwork's kernels instantiate and that
//! your own kernels can call: each function here processes one block's share of a launch.
//! General-purpose only; the workloads that demonstrate them are crates of their own (`demos/`
//! in the repository), built on these as yours would be.

pub mod expand;
pub mod lookback;
pub mod partition;
pub mod reduce;
pub mod scan;
pub mod select;
