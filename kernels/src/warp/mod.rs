//! Warp-level algorithms: the 32 lanes of a warp cooperate through votes and shuffles, with no
//! shared memory and no barrier.

mod append;
mod broadcast;
mod exact;
mod reduce;
mod reduce_op;
mod scan;
mod scan_op;
mod search;

pub use append::*;
pub use broadcast::*;
pub use exact::*;
pub use reduce::*;
pub use reduce_op::*;
pub use scan::*;
pub use scan_op::*;
pub use search::*;
