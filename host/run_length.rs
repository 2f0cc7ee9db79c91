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
//! **Two passes**, both on the stream, no wait between them: the first is unique on the ordered
//! select's kernel ([`guide::partition`](crate::guide::partition)), which also writes each run's
//! first index (its offset) beside its item; the second turns the offsets into lengths
//! (`offsets[r + 1] − offsets[r]`, `n − offsets[r]` for the last run). A single pass would need
//! the look-back to carry each tile's last run start with its count (CUB's reduce-by-key); the
//! second pass costs one read and one write of the offsets, 12 or 16 bytes per run.
//!
//! **Items**: any [`Pod`] type of 1, 2, 4, 8 or 16 bytes (aligned to its size; 4 bytes for
//! 16-byte items). **Lengths**: `u32` or `u64` ([`RunLength`]); `u32` lengths refuse inputs of
//! 2^32 items or more. **Sizes** are 64-bit. [`Gpu::run_length_encode_into`] allocates nothing
//! and never waits; its state ([`state_len`]) holds the offsets.

use crate::select::family::{family_state_len, Mode};
use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{CudaSlice, LaunchConfig};

/// A run length (and offset) type: `u32` or `u64`.
pub trait RunLength: Pod + sealed::Sealed {
    /// The second pass's kernel for this type.
    #[doc(hidden)]
    const KERNEL: &'static str;
    /// The non-trivial runs' second pass for this type.
    #[doc(hidden)]
    const BOUNDS_KERNEL: &'static str;
}
mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}
impl RunLength for u32 {
    const KERNEL: &'static str = warpwork_abi::kernels::RUN_LENGTHS_U32;
    const BOUNDS_KERNEL: &'static str = warpwork_abi::kernels::RUN_BOUNDS_U32;
}
impl RunLength for u64 {
    const KERNEL: &'static str = warpwork_abi::kernels::RUN_LENGTHS_U64;
    const BOUNDS_KERNEL: &'static str = warpwork_abi::kernels::RUN_BOUNDS_U64;
}

/// `u64` elements of the `state` [`Gpu::non_trivial_runs_into`] takes for `n` items of `T` and
/// outputs of `capacity` runs: the ordered select's state, two bounds per output slot, a count.
///
/// # Examples
/// ```
/// use warpwork::run_length::non_trivial_state_len;
/// assert_eq!(non_trivial_state_len::<u32>(1000, 10), warpwork::partition::state_len::<u32>(1000) + 21);
/// ```
pub fn non_trivial_state_len<T>(n: usize, capacity: usize) -> usize {
    crate::select::family::bounds_state_len::<T>(n, capacity)
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
/// outputs of `capacity` runs: the ordered select's state, then one offset per output slot.
///
/// # Examples
/// ```
/// use warpwork::run_length::state_len;
/// assert_eq!(state_len::<u32>(1000, 1000), warpwork::partition::state_len::<u32>(1000) + 1000);
/// ```
pub fn state_len<T>(n: usize, capacity: usize) -> usize {
    family_state_len::<T>(true, n, capacity)
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
    /// which need no preparation (a CUDA graph can replay the call). Two launches, asynchronous.
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
        self.launch_family(items, Mode::Runs, values, state, false)?;
        self.launch_run_lengths::<T, L>(n, capacity, lengths, state)
    }

    /// The second pass: the lengths of the runs whose offsets the first pass wrote after the
    /// ordered state in `state`.
    pub(crate) fn launch_run_lengths<T, L: RunLength>(
        &self,
        n: usize,
        capacity: usize,
        lengths: &mut impl DeviceWrite<L>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        if n == 0 || capacity == 0 {
            return Ok(());
        }
        let f = self.function(L::KERNEL)?;
        let mut l = self.kernel_args();
        let counter = l.bind_mut(state)?;
        let out = l.bind_mut(lengths)?;
        let offsets = counter + 8 * family_state_len::<T>(false, n, capacity) as u64;
        let (n64, cap64) = (n as u64, capacity as u64);
        l.addr(offsets).addr(counter).value(&n64).value(&cap64).addr(out);
        let blocks = capacity.div_ceil(256).clamp(1, 4096) as u32;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: `run_lengths_{u32,u64}(offsets, count, n, capacity, lengths)`: the offsets
        // (`capacity` u64s after the ordered state) and the count lie inside `state`, whose
        // length the first pass checked, written by the first pass earlier on this stream;
        // `lengths` holds at least `capacity` items (checked by the caller); a grid-stride loop.
        unsafe { l.launch(f, cfg) }
    }

    /// The runs longer than one item (CUB's `DeviceRunLengthEncode::NonTrivialRuns`): each
    /// one's first index to `offsets` and its length to `lengths`, in input order, and their
    /// number to `state[0]` (read it with [`Gpu::select_count`] on `offsets`, which reports runs
    /// that did not fit: [`Error::CapacityExceeded`]; nothing is written past either output).
    /// `lengths` holds at least as many items as `offsets`; `state` at least
    /// [`non_trivial_state_len`]`(n, offsets.len())` `u64`s and needs no preparation.
    ///
    /// Two passes: the first keeps the first and the last item of every such run (an item
    /// whose neighbours differ from it on exactly one side) and writes only their indices; the
    /// second pairs them into offsets and lengths. Asynchronous; allocates nothing.
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
        self.launch_bounds(items, capacity, state, false)?;
        self.launch_bounds_pass2::<T, L>(n, offsets, lengths, state)
    }

    /// The non-trivial runs' second pass: offsets and lengths from the bounds in `state`, and
    /// the run count into `state[0]`.
    pub(crate) fn launch_bounds_pass2<T, L: RunLength>(
        &self,
        n: usize,
        offsets: &mut impl DeviceWrite<L>,
        lengths: &mut impl DeviceWrite<L>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        let capacity = offsets.len();
        let len = non_trivial_state_len::<T>(n, capacity) as u64;
        let f = self.function(L::BOUNDS_KERNEL)?;
        let mut l = self.kernel_args();
        let base = l.bind_mut(state)?;
        let (o, ln) = (l.bind_mut(offsets)?, l.bind_mut(lengths)?);
        let bounds = base + 8 * crate::partition::state_len::<T>(n) as u64;
        let cap64 = capacity as u64;
        l.addr(bounds).addr(base + 8 * (len - 1)).addr(base).value(&cap64).addr(o).addr(ln);
        let blocks = capacity.div_ceil(256).clamp(1, 4096) as u32;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: `run_bounds_{u32,u64}(bounds, bound_count, count, capacity, offsets, lengths)`:
        // the `2 · capacity` bounds and their count (the state's last element) lie inside
        // `state` (its length checked by the first pass), written earlier on this stream; the
        // count it writes is element 0; `offsets` and `lengths` hold `capacity` items each.
        unsafe { l.launch(f, cfg) }
    }
}
