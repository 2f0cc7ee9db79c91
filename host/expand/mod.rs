//! Work expansion: source `i` spawns `counts[i]` destination items; pass 2 runs per destination
//! item and knows its `(source, local)` pair. Eight strategies, S0 to S3, each defined in
//! [`Strategy`]'s docs (design notes: [`guide::expand`](crate::guide::expand)); the device building blocks are in
//! `kernels/src/device/expand/` for users' own kernels.
//!
//! * [`Gpu::expand`]: materializes the `(src, local)` pairs on the device.
//! * [`Gpu::expand_with`]: runs **your** pass-2 kernel instead (through an [`Expander`]);
//!   nothing is materialized.
//! * [`Expander`]: the reusable form (its workspace is one buffer of [`workspace_len`] `u64`s,
//!   allocated once by [`Gpu::expander`] or yours in [`Gpu::expander_in`]; nothing is allocated
//!   per call), with both passes in one call ([`Expander::expand`], one launch where it can) or
//!   pass 1 and pass 2 as separate calls and a choice of [`Dispatch`] for pass 2. Its
//!   [`Expander::pass1`] borrows the counts and returns a [`Planned`] expansion, the only value
//!   with a pass 2 and a count: the order of calls is enforced by the types, and the counts
//!   cannot be freed or written while the kernels reading them may run.
//!
//! [`Strategy::Auto`] picks a strategy from P1 and an optional bound on the counts, on the host
//! ([`Strategy::resolve`]: the rule and the measurements behind it).
//!
//! Capacity: the caller picks the most destination items allowed. A larger total, or one that
//! overflows the 32-bit sums the strategies use, is detected on the device (a flag in the control
//! block), nothing is written out of bounds, and the call returns [`Error::CapacityExceeded`].
//! Destination indices are 32-bit up to a capacity of `u32::MAX`; past it
//! [`Strategy::ScanBinarySearch`] and [`Strategy::ScanFused`] run their 64-bit kernels
//! ([`Expander::is_wide`]) and the other strategies refuse the capacity.
//!
//! The code is split by concept: [`Strategy`] (`strategy.rs`) and its table of facts
//! (`facts.rs`: codes, kernels (32- and 64-bit), block shapes, workspace, how pass 2 is launched
//! and sized),
//! `Auto`'s rule (`auto.rs`), the workspace plan (`workspace.rs`: each part's size and place in
//! the one buffer), making an [`Expander`] in it (`make.rs`), the expander's state and the
//! [`Planned`] expansion (`expander.rs`), pass 1 (`pass1.rs`), the materializing pass 2
//! (`pass2.rs`), both in one call (`once.rs`) and a user's pass 2 (`user.rs`).
//!
//! [`Error::CapacityExceeded`]: crate::Error::CapacityExceeded

mod auto;
mod expander;
mod facts;
mod make;
mod once;
mod pass1;
mod pass2;
mod strategy;
mod user;
mod workspace;

pub use expander::{Expander, Planned};
pub use strategy::{Dispatch, Strategy};
pub use workspace::workspace_len;

pub use cudarc::driver::CudaFunction;
/// The control block and the view every expansion kernel receives, as the kernels define them.
pub use warpwork_abi::expand::{Control, ExpandView, BUCKETS, THREADS};

use crate::{DeviceRead, Gpu, Result};
use cudarc::driver::CudaSlice;

/// Materialized expansion: `pairs[..count]` are the `(src, local)` pairs, in the strategy's order.
#[derive(Debug)]
pub struct Expansion {
    /// Destination items.
    pub count: usize,
    /// `capacity` pairs; the first `count` are written.
    pub pairs: CudaSlice<[u32; 2]>,
}

impl Gpu {
    /// Expands `counts` with `strategy` and materializes the `(src, local)` pairs (at most
    /// `capacity` of them) on the device. **Allocates** the expander and the output; **waits**
    /// for the count. [`Strategy::Auto`] is resolved for `counts.len()` sources.
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 0, 1])?;
    /// let e = gpu.expand(&counts, Strategy::ScanFused, 16)?;
    /// assert_eq!(gpu.download_prefix(&e.pairs, e.count)?, [[0, 0], [0, 1], [2, 0]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expand(&self, counts: &impl DeviceRead<u32>, strategy: Strategy, capacity: usize) -> Result<Expansion> {
        let mut e = self.expander(strategy, counts.len(), capacity)?;
        let mut pairs = self.zeros::<[u32; 2]>(capacity.max(1))?;
        let count = e.expand(self, counts, &mut pairs)?.count(self)?;
        Ok(Expansion { count, pairs })
    }
}
