//! Warp-level algorithms: the 32 lanes of a warp cooperate through votes and shuffles, with no
//! shared memory and no barrier.

mod append;
mod broadcast;
mod search;

pub use append::*;
pub use broadcast::*;
pub use search::*;
