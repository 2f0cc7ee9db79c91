//! Block-level algorithms: the warps of a block cooperate through shared memory and barriers.
//! Every thread of the block must call these (they contain `sync_threads`).

mod append;
mod scan;
mod scan_op;

pub use append::*;
pub use scan::*;
pub use scan_op::*;
