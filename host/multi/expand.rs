//! The sharded expansion: rank `r` expands its own shard of counts with its own [`Expander`]
//! (the one-GPU expansion, any strategy but S0 `MaxN`), the ranks' destination totals are
//! all-gathered, and every rank scans them into the global destination offsets.
//!
//! **Numbers are local plus a base.** The pairs a rank writes are those of the one-GPU
//! expansion of its shard: `(source, local)` with the source numbered from 0 within the shard,
//! at destination indices from 0. In the global numbering (the shards concatenated in rank
//! order), rank `r`'s source `s` is `source_base[r] + s` and its destination `d` is
//! `dst_base[r] + d`: the source bases are the shard lengths of the lower ranks added up, known on
//! the host ([`source_bases`]); the destination bases are the lower ranks' totals added up, on
//! every device (the offsets [`Gpus::expand_sharded_into`] writes) and, after a wait, on the host
//! ([`Gpus::expand_sharded`]). The pairs' kernels (eight strategies) are the one-GPU ones
//! unchanged, so a global source number costs the consumer one addition.

use super::offsets::{scan_words, Spots};
use super::Gpus;
use crate::expand::{Expander, Strategy};
use crate::memory::bind::BindMut;
use crate::{DeviceRead, DeviceWrite, Error, Result};
use cudarc::driver::CudaSlice;

/// The `u32` words of scratch one rank of [`Gpus::expand_sharded_into`] takes among `ranks`
/// ranks (the gathered totals and a small scan's scratch, whatever the shard's size).
///
/// # Examples
/// ```
/// assert!(warpwork::multi::expand_shard_scratch_len(8) < 64);
/// ```
pub fn expand_shard_scratch_len(ranks: usize) -> usize {
    3 + 2 * ranks + scan_words(ranks)
}

/// The global number of each shard's first source: `[0, n₀, n₀ + n₁, …]` for shards of
/// `lens[r]` sources (the lengths of the count shards).
///
/// # Examples
/// ```
/// assert_eq!(warpwork::multi::source_bases(&[3, 0, 5]), [0, 3, 3]);
/// ```
pub fn source_bases(lens: &[usize]) -> Vec<u64> {
    lens.iter()
        .scan(0u64, |sum, &n| {
            let base = *sum;
            *sum += n as u64;
            Some(base)
        })
        .collect()
}

/// One rank's part of a [`Gpus::expand_sharded`].
///
/// **Numbers are local plus a base.** The pairs are those of the one-GPU expansion of the
/// rank's shard: `(source, local)` with the source numbered from 0 within the shard, at
/// destination indices from 0. In the global numbering (the shards concatenated in rank order)
/// pair `(s, l)` at index `d` is source `source_base + s` at destination `dst_base + d`.
#[derive(Debug)]
#[must_use = "the pairs are in `pairs[..count]`"]
pub struct ShardExpanded {
    /// The shard's `(source, local)` pairs in `pairs[..count]`, numbered within the shard (on
    /// the rank's device).
    pub pairs: CudaSlice<[u32; 2]>,
    /// The shard's destination items.
    pub count: usize,
    /// The global number of the shard's first source.
    pub source_base: u64,
    /// The global index of the shard's first destination item.
    pub dst_base: u64,
    /// On the rank's device, `len() + 1` elements: every rank's destination base, then the
    /// global total.
    pub offsets: CudaSlice<u64>,
}

/// The result of a [`Gpus::expand_sharded`]: the pairs, still sharded, with each shard's bases.
#[derive(Debug)]
#[must_use = "the pairs are in each shard's `pairs[..count]`"]
pub struct ShardedExpansion {
    /// Rank by rank.
    pub shards: Vec<ShardExpanded>,
    /// Destination items on all ranks together.
    pub total: u64,
}

impl Gpus {
    /// Expands every rank's shard of counts (`counts[r]` on rank `r`) with `strategy`, each
    /// rank's pairs on its own device, at most `capacity` per rank. **Allocates** an expander,
    /// the pairs and the offsets on each rank and **waits** for the counts. Pairs are numbered
    /// within each shard, with its bases beside them ([`ShardExpanded`]). `MaxN` (S0), which
    /// counts in pass 2, is refused ([`Error::InvalidInput`]).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let counts = vec![gpus.gpu(0).upload(&[2u32, 0])?, gpus.gpu(1).upload(&[1u32, 3])?];
    /// let e = gpus.expand_sharded(&counts, Strategy::ScanFused, 16)?;
    /// let second = &e.shards[1];
    /// assert_eq!((second.count, second.source_base, second.dst_base, e.total), (4, 2, 2, 6));
    /// // Its first pair, (0, 0), is global source 2 + 0 at global destination 2 + 0.
    /// assert_eq!(gpus.gpu(1).download_prefix(&second.pairs, 1)?, [[0, 0]]);
    /// # Ok(()) }
    /// ```
    pub fn expand_sharded(
        &self,
        counts: &[impl DeviceRead<u32>],
        strategy: Strategy,
        capacity: usize,
    ) -> Result<ShardedExpansion> {
        let ranks = self.len();
        self.ensure_per_rank("sharded expansion counts", counts.len())?;
        let (mut expanders, mut pairs, mut offsets, mut scratch) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (rank, c) in counts.iter().enumerate() {
            let gpu = self.gpu(rank);
            expanders.push(gpu.expander(strategy, c.len(), capacity)?);
            pairs.push(gpu.zeros::<[u32; 2]>(capacity.max(1))?);
            offsets.push(gpu.zeros::<u64>(ranks + 1)?);
            scratch.push(gpu.zeros::<u32>(expand_shard_scratch_len(ranks))?);
        }
        self.expand_sharded_into(&mut expanders, counts, &mut pairs, &mut offsets, &mut scratch)?;
        let lens: Vec<usize> = counts.iter().map(|c| c.len()).collect();
        let bases = source_bases(&lens);
        let mut result = ShardedExpansion { shards: Vec::with_capacity(ranks), total: 0 };
        for (rank, ((e, pairs), offsets)) in expanders.iter().zip(pairs).zip(offsets).enumerate() {
            let gpu = self.gpu(rank);
            let count = e.count(gpu)?;
            let host = gpu.download(&offsets)?;
            result.total = host[ranks];
            result.shards.push(ShardExpanded { pairs, count, source_base: bases[rank], dst_base: host[rank], offsets });
        }
        Ok(result)
    }

    /// The form that allocates nothing and never waits: rank `r` runs both passes of
    /// `expanders[r]` (made on rank `r`'s device, for at least `counts[r].len()` sources: see
    /// [`crate::Gpu::expander`]) on `counts[r]`, materializing into `pairs[r]` as
    /// [`Expander::expand`] does, and writes to `offsets[r]` (at least `len() + 1` elements)
    /// every rank's destination base, then the global total. `scratch[r]` holds at least
    /// [`expand_shard_scratch_len`]`(len())` words. Read each rank's count with
    /// [`Expander::count`] (it waits, and reports a capacity overflow; the offsets assume every
    /// rank's items fit).
    ///
    /// Checked before any collective: one expander, counts, pairs, offsets and scratch buffer per
    /// rank ([`Error::InvalidInput`]), no `MaxN` expander, each buffer on its rank's device
    /// ([`Error::WrongContext`]), their lengths; then each rank's own expansion checks its
    /// arguments before the all-gather is issued.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// use warpwork::multi::{expand_shard_scratch_len, Gpus};
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let (g0, g1) = (gpus.gpu(0), gpus.gpu(1));
    /// let counts = vec![g0.upload(&[2u32, 0])?, g1.upload(&[1u32, 3])?];
    /// let mut expanders = vec![g0.expander(Strategy::ScanFused, 2, 8)?, g1.expander(Strategy::ScanFused, 2, 8)?];
    /// let mut pairs = vec![g0.zeros::<[u32; 2]>(8)?, g1.zeros::<[u32; 2]>(8)?];
    /// let mut offsets = vec![g0.zeros::<u64>(3)?, g1.zeros::<u64>(3)?];
    /// let mut scratch = vec![g0.zeros::<u32>(expand_shard_scratch_len(2))?, g1.zeros::<u32>(expand_shard_scratch_len(2))?];
    /// gpus.expand_sharded_into(&mut expanders, &counts, &mut pairs, &mut offsets, &mut scratch)?;
    /// assert_eq!(g1.download(&offsets[1])?, [0, 2, 6]); // waits
    /// # Ok(()) }
    /// ```
    pub fn expand_sharded_into(
        &self,
        expanders: &mut [Expander],
        counts: &[impl DeviceRead<u32>],
        pairs: &mut [impl DeviceWrite<[u32; 2]>],
        offsets: &mut [impl DeviceWrite<u64>],
        scratch: &mut [impl DeviceWrite<u32>],
    ) -> Result<()> {
        let ranks = self.len();
        self.ensure_per_rank("sharded expansion expanders", expanders.len())?;
        self.ensure_per_rank("sharded expansion counts", counts.len())?;
        self.ensure_per_rank("sharded expansion outputs", pairs.len())?;
        self.ensure_per_rank("sharded expansion offsets", offsets.len())?;
        self.ensure_per_rank("sharded expansion scratch buffers", scratch.len())?;
        if let Some(e) = expanders.iter().find(|e| matches!(e.strategy(), Strategy::MaxN { .. })) {
            return Err(Error::InvalidInput(format!(
                "the sharded expansion needs each rank's total after pass 1: {} counts in pass 2",
                e.strategy().name()
            )));
        }
        // Every buffer is checked against its rank's context before anything is issued.
        for (rank, (((e, c), p), (o, s))) in
            expanders.iter_mut().zip(counts).zip(pairs.iter()).zip(offsets.iter().zip(scratch.iter())).enumerate()
        {
            let target = self.gpu(rank).target()?;
            crate::error::ensure_len("sharded expansion offsets", o.len(), ranks as u64 + 1)?;
            crate::error::ensure_len(
                "sharded expansion scratch (u32 words)",
                s.len(),
                expand_shard_scratch_len(ranks) as u64,
            )?;
            c.bind(&target)?;
            p.bind(&target)?;
            o.bind(&target)?;
            s.bind(&target)?;
            e.workspace_mut().bind_mut(&target)?;
        }
        // Each rank's expansion (its own checks may still refuse: nothing collective yet).
        for (rank, ((e, c), p)) in expanders.iter_mut().zip(counts).zip(pairs.iter_mut()).enumerate() {
            let _ = e.expand(self.gpu(rank), c, p)?;
        }
        let mut held = Vec::with_capacity(ranks);
        let mut spots = Vec::with_capacity(ranks);
        for (rank, ((e, o), s)) in expanders.iter_mut().zip(offsets.iter_mut()).zip(scratch.iter_mut()).enumerate() {
            let target = self.gpu(rank).target()?;
            let scratch_len = s.len();
            let (w, o, s) = (e.workspace_mut().bind_mut(&target)?, o.bind_mut(&target)?, s.bind_mut(&target)?);
            let start = s.addr.next_multiple_of(16);
            let used = ((start - s.addr) / 4) as usize + 2 * ranks;
            spots.push(Spots {
                count: w.addr,
                gathered: start,
                scratch: start + 8 * ranks as u64,
                scratch_words: scratch_len - used,
                offsets: o.addr,
            });
            held.push((w, o, s));
        }
        self.gather_offsets(&spots)?;
        drop(held);
        Ok(())
    }
}
