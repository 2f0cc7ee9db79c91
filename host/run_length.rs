//! Run-length encoding: each run of equal items (by their bytes) as its item and its length, in
//! input order, as CUB's `DeviceRunLengthEncode::Encode` does; and the runs longer than one item
//! as offsets and lengths ([`Gpu::non_trivial_runs_into`], CUB's `NonTrivialRuns`).
//!
//! ```text
//! items    5 5 2 2 2 5 7 7
//! values   5 2 5 7            count = 4
//! lengths  2 3 1 2
//! ```
//!
//! **One pass**, on the ordered select's kernel ([`guide::partition`](crate::guide::partition)):
//! unique finds the runs' first items and their slots; the first item of run `k` also writes
//! the length of run `k − 1`, its own index less that of run `k − 1`'s first item, and the last
//! tile writes the last run's (`n` less its first index). Run `k − 1` may start in an earlier
//! tile, so each tile also publishes the index of its last run start, and a second look-back,
//! beside the count's, finds the last one before the tile (the maximum of the earlier tiles').
//! The non-trivial runs work the same way on the runs' first and last items.
//!
//! **Items**: any [`Pod`] type of 1, 2, 4, 8 or 16 bytes (aligned to its size; 4 bytes for
//! 16-byte items). **Lengths**: `u32` or `u64` ([`RunLength`]); `u32` lengths refuse inputs of
//! 2^32 items or more. **Sizes** are 64-bit. [`Gpu::run_length_encode_into`] allocates nothing
//! and never waits; its state ([`state_len`]) holds the two look-backs' tile states.

use crate::select::runs::{runs_state_len, RunCall};
use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::CudaSlice;

/// A run length (and offset) type: `u32` or `u64`.
pub trait RunLength: Pod + sealed::Sealed {}
mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}
impl RunLength for u32 {}
impl RunLength for u64 {}

/// `u64` elements of the `state` [`Gpu::non_trivial_runs_into`] takes for `n` items of `T` and
/// outputs of `capacity` runs: the ordered select's state with room for a second look-back's
/// tile states (as [`state_len`]; the outputs need no room in it, whatever `capacity`).
///
/// # Examples
/// ```
/// use warpwork::run_length::non_trivial_state_len;
/// assert!(non_trivial_state_len::<u32>(1000, 10) > warpwork::partition::state_len::<u32>(1000));
/// ```
pub fn non_trivial_state_len<T>(n: usize, capacity: usize) -> usize {
    let _ = capacity;
    runs_state_len::<T>(n)
}

/// Refuses `u32` offsets or lengths for inputs of 2^32 items or more.
fn check_width<L>(n: usize) -> Result<()> {
    if std::mem::size_of::<L>() == 4 && n as u64 > u32::MAX as u64 {
        return Err(Error::CapacityExceeded {
            what: "u32 run offsets or lengths (2^32 items or more: use u64)",
            needed: n as u64,
            capacity: u32::MAX as u64,
        });
    }
    Ok(())
}

/// The result of a run-length encoding: `values[..count]` and `lengths[..count]`.
#[derive(Debug)]
#[must_use = "the runs are in `values[..count]` and `lengths[..count]`"]
pub struct Runs<T, L> {
    /// Number of runs.
    pub count: usize,
    /// Each run's item (the buffer is as long as the input).
    pub values: CudaSlice<T>,
    /// Each run's length (the buffer is as long as the input).
    pub lengths: CudaSlice<L>,
}

/// `u64` elements of the `state` [`Gpu::run_length_encode_into`] takes for `n` items of `T` and
/// outputs of `capacity` runs: the ordered select's state with room for a second set of tile
/// states (the look-back that carries the last run start before each tile). It does not grow
/// with `capacity`.
///
/// # Examples
/// ```
/// use warpwork::run_length::state_len;
/// let ordered = warpwork::partition::state_len::<u32>(1 << 20);
/// assert!(state_len::<u32>(1 << 20, 1 << 20) > ordered);
/// assert!(state_len::<u32>(1 << 20, 1 << 20) <= 2 * ordered);
/// ```
pub fn state_len<T>(n: usize, capacity: usize) -> usize {
    let _ = capacity;
    runs_state_len::<T>(n)
}

impl Gpu {
    /// Run-length encodes `items`, with `u64` lengths. **Allocates** the outputs and the state;
    /// **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[5u32, 5, 2, 2, 2, 5, 7, 7])?;
    /// let runs = gpu.run_length_encode(&items)?;
    /// assert_eq!(gpu.download_prefix(&runs.values, runs.count)?, [5, 2, 5, 7]);
    /// assert_eq!(gpu.download_prefix(&runs.lengths, runs.count)?, [2, 3, 1, 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn run_length_encode<T: Pod>(&self, items: &impl DeviceRead<T>) -> Result<Runs<T, u64>> {
        let n = items.len();
        let (mut values, mut lengths) = (self.zeros::<T>(n)?, self.zeros::<u64>(n)?);
        let mut state = self.zeros::<u64>(state_len::<T>(n, n))?;
        self.run_length_encode_into(items, &mut values, &mut lengths, &mut state)?;
        let count = self.select_count(&values, &state)?;
        Ok(Runs { count, values, lengths })
    }

    /// The form that allocates nothing and never waits: writes each run's item to `values` and
    /// its length to `lengths`, in input order, and the number of runs to `state[0]` (read it
    /// with [`Gpu::select_count`], which reports runs that did not fit in `values` as
    /// [`Error::CapacityExceeded`]; nothing is written past either output). `lengths` holds at
    /// least as many items as `values`; `state` at least [`state_len`]`(n, values.len())` `u64`s,
    /// which need no preparation (a CUDA graph can replay the call). One pass (after a small
    /// kernel that prepares the state), asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::run_length::state_len;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1u8, 1, 1, 9, 1])?;
    /// let (mut values, mut lengths) = (gpu.zeros::<u8>(5)?, gpu.zeros::<u32>(5)?);
    /// let mut state = gpu.zeros::<u64>(state_len::<u8>(5, 5))?;
    /// gpu.run_length_encode_into(&items, &mut values, &mut lengths, &mut state)?;
    /// let runs = gpu.select_count(&values, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&values, runs)?, [1, 9, 1]);
    /// assert_eq!(gpu.download_prefix(&lengths, runs)?, [3, 1, 1]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn run_length_encode_into<T: Pod, L: RunLength>(
        &self,
        items: &impl DeviceRead<T>,
        values: &mut impl DeviceWrite<T>,
        lengths: &mut impl DeviceWrite<L>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        let (n, capacity) = (items.len(), values.len());
        crate::error::ensure_len("run lengths", lengths.len(), capacity as u64)?;
        check_width::<L>(n)?;
        self.launch_runs::<T, L, u8>(items, RunCall::Encode { values, lengths }, state, false)
    }

    /// The runs longer than one item (CUB's `DeviceRunLengthEncode::NonTrivialRuns`): each
    /// one's first index to `offsets` and its length to `lengths`, in input order, and their
    /// number to `state[0]` (read it with [`Gpu::select_count`] on `offsets`, which reports runs
    /// that did not fit: [`Error::CapacityExceeded`]; nothing is written past either output).
    /// `lengths` holds at least as many items as `offsets`; `state` at least
    /// [`non_trivial_state_len`]`(n, offsets.len())` `u64`s and needs no preparation.
    ///
    /// One pass: it keeps the first and the last item of every such run (an item whose
    /// neighbours differ from it on exactly one side); a first item writes its index as the
    /// run's offset, a last item its index less the first's plus one as the run's length.
    /// Asynchronous; allocates nothing.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::run_length::non_trivial_state_len;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[5u32, 5, 2, 2, 2, 5, 7, 7])?;
    /// let (mut offsets, mut lengths) = (gpu.zeros::<u32>(8)?, gpu.zeros::<u32>(8)?);
    /// let mut state = gpu.zeros::<u64>(non_trivial_state_len::<u32>(8, 8))?;
    /// gpu.non_trivial_runs_into(&items, &mut offsets, &mut lengths, &mut state)?;
    /// let runs = gpu.select_count(&offsets, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&offsets, runs)?, [0, 2, 6]);
    /// assert_eq!(gpu.download_prefix(&lengths, runs)?, [2, 3, 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn non_trivial_runs_into<T: Pod, L: RunLength>(
        &self,
        items: &impl DeviceRead<T>,
        offsets: &mut impl DeviceWrite<L>,
        lengths: &mut impl DeviceWrite<L>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        let (n, capacity) = (items.len(), offsets.len());
        crate::error::ensure_len("run lengths", lengths.len(), capacity as u64)?;
        check_width::<L>(n)?;
        self.launch_runs::<T, L, u8>(items, RunCall::NonTrivial { offsets, lengths }, state, false)
    }
}
