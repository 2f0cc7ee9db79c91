//! The sharded ordered select: each rank compacts its own shard (the one-GPU ordered select,
//! [`crate::select::Variant::Ordered`]), the counts are all-gathered between the devices, and
//! each rank scans them into the global offsets of every rank's kept items. The kept items stay
//! sharded: rank `r`'s are items `offsets[r] .. offsets[r + 1]` of the global result.

use super::offsets::{scan_words, Spots};
use super::Gpus;
use crate::error::ensure_len;
use crate::select::{state_len, Keep, Variant};
use crate::{DeviceRead, DeviceWrite, RawSliceMut, Result};
use bytemuck::Pod;
use cudarc::driver::CudaSlice;
use warpwork_abi::modules::Family;

/// `u64` elements of the `state` buffer one rank of [`Gpus::select_sharded_into`] takes for a
/// shard of `shard_len` items of `T` among `ranks` ranks: the ordered select's state
/// ([`crate::select::state_len`]), every rank's count, and a small scan's scratch.
///
/// # Examples
/// ```
/// use warpwork::multi::sharded_select_state_len;
/// use warpwork::select::{state_len, Variant};
/// assert!(sharded_select_state_len::<u32>(1000, 2) > state_len::<u32>(Variant::Ordered, 1000));
/// ```
pub fn sharded_select_state_len<T>(shard_len: usize, ranks: usize) -> usize {
    state_len::<T>(Variant::Ordered, shard_len) + ranks + scan_words(ranks).div_ceil(2)
}

/// One rank's part of a [`Gpus::select_sharded`].
#[derive(Debug)]
#[must_use = "the kept items are in `items[..count]`"]
pub struct ShardSelected<T> {
    /// The rank's kept items, in input order, in `items[..count]` (on the rank's device).
    pub items: CudaSlice<T>,
    /// How many of this rank's items were kept.
    pub count: usize,
    /// Where they start in the global result: the counts of the lower ranks added up.
    pub offset: u64,
    /// On the rank's device, `len() + 1` elements: every rank's offset, then the global count
    /// (what [`Gpus::select_sharded_into`] writes).
    pub offsets: CudaSlice<u64>,
}

/// The result of a [`Gpus::select_sharded`]: the kept items, still sharded, and where each
/// shard's part goes in the global order.
#[derive(Debug)]
#[must_use = "the kept items are in each shard's `items[..count]`"]
pub struct ShardedSelection<T> {
    /// Rank by rank.
    pub shards: Vec<ShardSelected<T>>,
    /// Items kept on all ranks together.
    pub total: u64,
}

impl Gpus {
    /// Keeps the items of every shard (`shards[r]` on rank `r`) that `keeps[r]` says, in input
    /// order; the kept items stay on their rank. **Allocates** the outputs and state on each
    /// rank and **waits** for the counts and offsets.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{Keep, Predicate};
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[1u32, 9, 2])?, gpus.gpu(1).upload(&[3u32, 8])?];
    /// let small = Keep::If(Predicate::Less(5));
    /// let kept = gpus.select_sharded(&shards, &[small, small])?;
    /// assert_eq!((kept.shards[1].count, kept.shards[1].offset, kept.total), (1, 2, 3));
    /// # Ok(()) }
    /// ```
    pub fn select_sharded<T: Pod>(
        &self,
        shards: &[impl DeviceRead<T>],
        keeps: &[Keep<'_, T>],
    ) -> Result<ShardedSelection<T>> {
        self.ensure_per_rank("sharded select shards", shards.len())?;
        let (mut outs, mut states, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
        for (rank, shard) in shards.iter().enumerate() {
            let gpu = self.gpu(rank);
            outs.push(gpu.zeros::<T>(shard.len())?);
            states.push(gpu.zeros::<u64>(sharded_select_state_len::<T>(shard.len(), self.len()))?);
            offsets.push(gpu.zeros::<u64>(self.len() + 1)?);
        }
        self.select_sharded_into(shards, keeps, &mut outs, &mut states, &mut offsets)?;
        let mut result = ShardedSelection { shards: Vec::with_capacity(self.len()), total: 0 };
        for (rank, (items, offsets)) in outs.into_iter().zip(offsets).enumerate() {
            let host = self.gpu(rank).download(&offsets)?;
            let (offset, count) = (host[rank], host[rank + 1] - host[rank]);
            result.total = host[self.len()];
            result.shards.push(ShardSelected { items, count: count as usize, offset, offsets });
        }
        Ok(result)
    }

    /// The form that allocates nothing and never waits: rank `r` writes its kept items to
    /// `outs[r]` from slot 0, its count to `states[r][0]`, and to `offsets[r]` (at least
    /// `len() + 1` elements) every rank's global offset, then the global count:
    /// `offsets[r][k]` is where rank `k`'s kept items start in the global order, on every rank's
    /// device. Read them with a download of `offsets[r]`, which waits for the rank's stream.
    /// `states[r]` holds at least [`sharded_select_state_len`] elements and needs no
    /// preparation. As in [`crate::Gpu::select_into`], items past `outs[r].len()` are counted,
    /// not written.
    ///
    /// Checked before any collective: one shard, keep, output, state and offsets buffer per rank
    /// ([`Error::InvalidInput`](crate::Error::InvalidInput)), each on its rank's device ([`Error::WrongContext`](crate::Error::WrongContext)), and
    /// their lengths.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::multi::sharded_select_state_len;
    /// use warpwork::select::{Keep, Predicate};
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[1i64, -9])?, gpus.gpu(1).upload(&[-3i64, 8])?];
    /// let neg = Keep::If(Predicate::Less(0));
    /// let mut outs = vec![gpus.gpu(0).zeros::<i64>(2)?, gpus.gpu(1).zeros::<i64>(2)?];
    /// let mut states = vec![
    ///     gpus.gpu(0).zeros::<u64>(sharded_select_state_len::<i64>(2, 2))?,
    ///     gpus.gpu(1).zeros::<u64>(sharded_select_state_len::<i64>(2, 2))?,
    /// ];
    /// let mut offsets = vec![gpus.gpu(0).zeros::<u64>(3)?, gpus.gpu(1).zeros::<u64>(3)?];
    /// gpus.select_sharded_into(&shards, &[neg, neg], &mut outs, &mut states, &mut offsets)?;
    /// assert_eq!(gpus.gpu(1).download(&offsets[1])?, [0, 1, 2]); // waits
    /// # Ok(()) }
    /// ```
    pub fn select_sharded_into<T: Pod>(
        &self,
        shards: &[impl DeviceRead<T>],
        keeps: &[Keep<'_, T>],
        outs: &mut [impl DeviceWrite<T>],
        states: &mut [impl DeviceWrite<u64>],
        offsets: &mut [impl DeviceWrite<u64>],
    ) -> Result<()> {
        let ranks = self.len();
        self.ensure_per_rank("sharded select shards", shards.len())?;
        self.ensure_per_rank("sharded select tests (keeps)", keeps.len())?;
        self.ensure_per_rank("sharded select outputs", outs.len())?;
        self.ensure_per_rank("sharded select states", states.len())?;
        self.ensure_per_rank("sharded select offsets", offsets.len())?;
        let mut areas = Vec::with_capacity(ranks);
        let mut held = Vec::with_capacity(ranks);
        for (rank, ((shard, state), offs)) in shards.iter().zip(states.iter_mut()).zip(offsets.iter_mut()).enumerate() {
            let gpu = self.gpu(rank);
            ensure_len("sharded select state", state.len(), sharded_select_state_len::<T>(shard.len(), ranks) as u64)?;
            ensure_len("sharded select offsets", offs.len(), ranks as u64 + 1)?;
            gpu.preload(&[Family::Select, Family::Scan])?;
            let select_words = state_len::<T>(Variant::Ordered, shard.len());
            let scratch_words = 2 * (state.len() - select_words - ranks);
            let target = gpu.target()?;
            let (s, o) = (state.bind_mut(&target)?, offs.bind_mut(&target)?);
            areas.push(SelectArea {
                state: s.addr,
                select_words,
                gathered: s.addr + 8 * select_words as u64,
                scratch: s.addr + 8 * (select_words + ranks) as u64,
                scratch_words,
                offsets: o.addr,
            });
            held.push((s, o));
        }
        // Each rank's select (its own checks may still refuse: nothing collective is issued yet).
        for (rank, ((shard, keep), out)) in shards.iter().zip(keeps).zip(outs.iter_mut()).enumerate() {
            // SAFETY: inside the rank's state buffer (its length checked above), lent mutably.
            let mut state = unsafe { RawSliceMut::<u64>::from_raw_parts(areas[rank].state, areas[rank].select_words)? };
            self.gpu(rank).launch_select(shard, *keep, Variant::Ordered, out, &mut state, false, false)?;
        }
        let spots: Vec<Spots> = areas
            .iter()
            .map(|a| Spots {
                count: a.state,
                gathered: a.gathered,
                scratch: a.scratch,
                scratch_words: a.scratch_words,
                offsets: a.offsets,
            })
            .collect();
        self.gather_offsets(&spots)?;
        drop(held);
        Ok(())
    }
}

/// Where one rank's state and offsets are (device addresses).
struct SelectArea {
    /// The ordered select's state (`state[0]`: the rank's count).
    state: u64,
    /// Its length in `u64`s.
    select_words: usize,
    /// Every rank's count.
    gathered: u64,
    /// The scan's scratch, and its length in `u32` words.
    scratch: u64,
    scratch_words: usize,
    /// The caller's offsets buffer.
    offsets: u64,
}
