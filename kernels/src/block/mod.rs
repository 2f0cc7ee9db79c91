//! Block-level algorithms: the warps of a block cooperate through shared memory and barriers.
//! Every thread of the block must call these (they contain `sync_threads`).

mod append;
mod reduce;
mod scan;

pub use append::*;
pub use reduce::*;
pub use scan::*;
// The scan operators and the warp scan under any operator live in `crate::warp` (the warp-wide
// sums are instances of it); the block scans and the look-back use them through here too.
pub use crate::warp::{
    maximum_f32, maximum_f64, minimum_f32, minimum_f64, shfl_down_element, shfl_idx_element, shfl_up_element,
    warp_inclusive_scan, warp_reduce_high_first, Max, Min, ScanElement, ScanOp, Sum, TileLayout,
};
