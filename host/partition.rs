//! Stable two-way partition: the items that pass a test (or whose flag is set) first, **in input
//! order**, then all the others **in reverse input order** — the order of CUB's
//! `DevicePartition::If` and `DevicePartition::Flagged`.
//!
//! ```text
//! items   3 8 1 9 4 7     keep: item < 5
//! out     3 1 4 7 9 8     count = 3: out[..3] kept (input order), out[3..] rejected (reversed)
//! ```
//!
//! One pass over the input, on the order-preserving select's kernel
//! ([`guide::partition`](crate::guide::partition)): each tile learns from a decoupled look-back
//! how many items the tiles before it keep, which also says how many they reject; the rejected
//! items are written from the output's last slot down, which is why they come out reversed (the
//! kept total is only known at the end). Every output slot `0..n` is written.
//!
//! **Items**: by flag, any [`Pod`] type of 1, 2, 4, 8 or 16 bytes (aligned to its size; 4 bytes
//! for 16-byte items); by value test, the [`SelectItem`] types. **Sizes** are 64-bit.
//! [`Gpu::partition_into`] allocates nothing and never waits; it takes the ordered select's
//! state ([`state_len`]).

use crate::select::family::Mode;
use crate::select::{Keep, Predicate, SelectItem, Variant};
use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::CudaSlice;

/// The result of a partition: `items[..count]` passed, `items[count..]` did not.
#[derive(Debug)]
#[must_use = "the kept items are in `items[..count]`, the others after them"]
pub struct Partition<T> {
    /// Number of items that passed.
    pub count: usize,
    /// All the items: those that passed, in input order, then the others in reverse input order.
    pub items: CudaSlice<T>,
}

/// `u64` elements of the `state` buffer [`Gpu::partition_into`] takes for `n` items of `T` (the
/// ordered select's: the count at element 0, then the look-back's scratch, which the call
/// prepares itself).
///
/// # Examples
/// ```
/// assert_eq!(
///     warpwork::partition::state_len::<u32>(1 << 20),
///     warpwork::select::state_len::<u32>(warpwork::select::Variant::Ordered, 1 << 20)
/// );
/// ```
pub fn state_len<T>(n: usize) -> usize {
    crate::select::state_len::<T>(Variant::Ordered, n)
}

impl Gpu {
    /// Partitions `items` by `flags` (`flags[i] != 0` first). **Allocates** the output; **waits**
    /// for the count.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[10u16, 11, 12, 13, 14])?;
    /// let flags = gpu.upload(&[1u8, 0, 0, 1, 0])?;
    /// let p = gpu.partition_flagged(&items, &flags)?;
    /// assert_eq!((p.count, gpu.download(&p.items)?), (2, vec![10, 13, 14, 12, 11]));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn partition_flagged<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        flags: &impl DeviceRead<u8>,
    ) -> Result<Partition<T>> {
        self.partition(items, Keep::Flagged(flags))
    }

    /// Partitions `items` by a value test (passing items first). **Allocates** the output;
    /// **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::Predicate;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[3i32, 8, 1, 9, 4, 7])?;
    /// let p = gpu.partition_if(&items, Predicate::Less(5))?;
    /// assert_eq!((p.count, gpu.download(&p.items)?), (3, vec![3, 1, 4, 7, 9, 8]));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn partition_if<T: SelectItem>(
        &self,
        items: &impl DeviceRead<T>,
        predicate: Predicate<T>,
    ) -> Result<Partition<T>> {
        self.partition(items, Keep::If(predicate))
    }

    fn partition<T: Pod>(&self, items: &impl DeviceRead<T>, keep: Keep<'_, T>) -> Result<Partition<T>> {
        let mut out = self.zeros::<T>(items.len())?;
        let mut state = self.zeros::<u64>(state_len::<T>(items.len()))?;
        self.partition_into(items, keep, &mut out, &mut state)?;
        let count = self.select_count(&out, &state)?;
        Ok(Partition { count, items: out })
    }

    /// The form that allocates nothing and never waits: writes the items that pass `keep` to
    /// `out[..count]` in input order and the others to `out[count..n]` in reverse input order,
    /// and the count to `state[0]` (read it with [`Gpu::select_count`]). `out` holds at least `n`
    /// items ([`crate::Error::BufferTooSmall`] otherwise) and does not overlap `items`; `state`
    /// holds at least [`state_len`] `u64`s and needs no preparation, so the call can be replayed
    /// (a CUDA graph). Asynchronous.
    ///
    /// Items of 1, 2, 4, 8 or 16 bytes ([`crate::Error::InvalidInput`] for other sizes,
    /// [`crate::Error::Misaligned`] for items not aligned to their size, 4 bytes for 16-byte
    /// ones); [`Keep::If`] needs a [`SelectItem`] type.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{Keep, Predicate};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1.5f32, -2.0, 7.0, 0.5])?;
    /// let mut out = gpu.zeros::<f32>(4)?;
    /// let mut state = gpu.zeros::<u64>(warpwork::partition::state_len::<f32>(4))?;
    /// gpu.partition_into(&items, Keep::If(Predicate::Less(1.0)), &mut out, &mut state)?;
    /// let count = gpu.select_count(&out, &state)?; // waits
    /// assert_eq!((count, gpu.download(&out)?), (2, vec![-2.0, 0.5, 7.0, 1.5]));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn partition_into<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        self.launch_family(items, Mode::Partition(keep), out, state, false)
    }
}
