//! Unique: drop consecutive duplicates — keep each item whose bytes differ from those of the item
//! before it (the first item always), in input order, as CUB's `DeviceSelect::Unique` does with
//! `==` on integers.
//!
//! ```text
//! items   5 5 2 2 2 5 7 7
//! out     5 2 5 7            count = 4
//! ```
//!
//! Items compare **by their bytes**, so one kernel serves every type of a size: for floats,
//! `-0.0` and `0.0` differ and two NaNs with the same bits are equal. One pass on the
//! order-preserving select's kernel ([`guide::partition`](crate::guide::partition)): each item
//! is compared with the one before it in the tile staged in shared memory, a tile's first item
//! with the item before the tile, read from global memory.
//!
//! **Items**: any [`Pod`] type of 1, 2, 4, 8 or 16 bytes (aligned to its size; 4 bytes for
//! 16-byte items). **Sizes** are 64-bit. [`Gpu::unique_into`] allocates nothing and never
//! waits; it takes the ordered select's state ([`crate::partition::state_len`]).
//!
//! **By key** ([`Gpu::unique_by_key_into`], as CUB's `DeviceSelect::UniqueByKey`): the first
//! (key, value) pair of every run of equal keys. One pass: unique on the keys, where each kept
//! key's thread also copies the value beside it to the key's slot of the values' output. Its
//! state is the run-length encoding's ([`crate::run_length::state_len`]; the ordered select's,
//! [`crate::partition::state_len`] of the keys, suffices).

use crate::select::family::Mode;
use crate::select::runs::RunCall;
use crate::select::Selection;
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::CudaSlice;

/// The result of a unique by key: `keys[..count]` and `values[..count]`.
#[derive(Debug)]
#[must_use = "the kept pairs are in `keys[..count]` and `values[..count]`"]
pub struct ByKey<K, V> {
    /// Number of kept pairs.
    pub count: usize,
    /// The kept keys (the buffer is as long as the input).
    pub keys: CudaSlice<K>,
    /// Their values (the buffer is as long as the input).
    pub values: CudaSlice<V>,
}

impl Gpu {
    /// Drops consecutive duplicates of `items`. **Allocates** the output; **waits** for the
    /// count.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[5u32, 5, 2, 2, 2, 5, 7, 7])?;
    /// let u = gpu.unique(&items)?;
    /// assert_eq!(gpu.download_prefix(&u.items, u.count)?, [5, 2, 5, 7]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn unique<T: Pod>(&self, items: &impl DeviceRead<T>) -> Result<Selection<T>> {
        let mut out = self.zeros::<T>(items.len())?;
        let mut state = self.zeros::<u64>(crate::partition::state_len::<T>(items.len()))?;
        self.unique_into(items, &mut out, &mut state)?;
        let count = self.select_count(&out, &state)?;
        Ok(Selection { count, items: out })
    }

    /// The form that allocates nothing and never waits: writes the first item of every run of
    /// equal items to `out` in input order and their count to `state[0]`. Items that would land
    /// at or past `out.len()` are not written but still counted: read the count with
    /// [`Gpu::select_count`], which reports the overflow ([`crate::Error::CapacityExceeded`]).
    /// `state` holds at least [`crate::partition::state_len`] `u64`s and needs no preparation
    /// (a CUDA graph can replay the call). `out` does not overlap `items`. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[[1u8, 2], [1, 2], [3, 4], [1, 2]])?; // 2-byte items
    /// let mut out = gpu.zeros::<[u8; 2]>(4)?;
    /// let mut state = gpu.zeros::<u64>(warpwork::partition::state_len::<[u8; 2]>(4))?;
    /// gpu.unique_into(&items, &mut out, &mut state)?;
    /// let count = gpu.select_count(&out, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&out, count)?, [[1, 2], [3, 4], [1, 2]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn unique_into<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        self.launch_family(items, Mode::Unique, out, state, false)
    }

    /// Keeps the first (key, value) pair of every run of equal keys (by bytes). **Allocates**
    /// the outputs and the state; **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let keys = gpu.upload(&[1u32, 1, 2, 2, 1])?;
    /// let values = gpu.upload(&[10u64, 11, 12, 13, 14])?;
    /// let kept = gpu.unique_by_key(&keys, &values)?;
    /// assert_eq!(gpu.download_prefix(&kept.keys, kept.count)?, [1, 2, 1]);
    /// assert_eq!(gpu.download_prefix(&kept.values, kept.count)?, [10, 12, 14]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn unique_by_key<K: Pod, V: Pod>(
        &self,
        keys: &impl DeviceRead<K>,
        values: &impl DeviceRead<V>,
    ) -> Result<ByKey<K, V>> {
        let n = keys.len();
        let (mut keys_out, mut values_out) = (self.zeros::<K>(n)?, self.zeros::<V>(n)?);
        let mut state = self.zeros::<u64>(crate::run_length::state_len::<K>(n, n))?;
        self.unique_by_key_into(keys, values, &mut keys_out, &mut values_out, &mut state)?;
        let count = self.select_count(&keys_out, &state)?;
        Ok(ByKey { count, keys: keys_out, values: values_out })
    }

    /// The form that allocates nothing and never waits: writes the first key of every run of
    /// equal keys to `keys_out` and its value to `values_out`, in input order, and their count
    /// to `state[0]` (read it with [`Gpu::select_count`] on `keys_out`, which reports pairs that
    /// did not fit: [`crate::Error::CapacityExceeded`]; nothing is written past either output).
    /// `values` holds as many items as `keys`, `values_out` at least as many as `keys_out`;
    /// `state` holds [`crate::run_length::state_len`]`(n, keys_out.len())` `u64`s and needs no
    /// preparation. Keys and values of 1, 2, 4, 8 or 16 bytes. One pass (after a small kernel
    /// that prepares the state), asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let keys = gpu.upload(&[7u16, 7, 7, 3])?;
    /// let values = gpu.upload(&[[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])?;
    /// let (mut k, mut v) = (gpu.zeros::<u16>(4)?, gpu.zeros::<[f32; 2]>(4)?);
    /// let mut state = gpu.zeros::<u64>(warpwork::run_length::state_len::<u16>(4, 4))?;
    /// gpu.unique_by_key_into(&keys, &values, &mut k, &mut v, &mut state)?;
    /// let count = gpu.select_count(&k, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&v, count)?, [[1.0, 2.0], [7.0, 8.0]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn unique_by_key_into<K: Pod, V: Pod>(
        &self,
        keys: &impl DeviceRead<K>,
        values: &impl DeviceRead<V>,
        keys_out: &mut impl DeviceWrite<K>,
        values_out: &mut impl DeviceWrite<V>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        let capacity = keys_out.len();
        crate::error::ensure_len("unique by key values output", values_out.len(), capacity as u64)?;
        self.launch_runs::<K, u32, V>(keys, RunCall::ByKey { keys_out, values, values_out }, state, false)
    }
}
