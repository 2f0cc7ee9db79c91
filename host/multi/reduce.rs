//! The sharded reduce: the sum, minimum or maximum of data split across the ranks, on every
//! rank's device.
//!
//! Per rank, on its own stream: the reduce of its shard to one value ([`crate::Gpu::reduce_into`]),
//! an NCCL all-gather of the values (device to device, no host round trip), then the same
//! reduce over the `ranks` gathered values, in rank order, into the rank's output. Each shard
//! is read once: the per-GPU rate is the one-GPU reduce's less the collective's latency.

use super::{Addr, Gpus};
use crate::error::ensure_len;
use crate::reduce::{self, ReduceItem, ReduceOp};
use crate::{DeviceRead, DeviceWrite, Error, RawSliceMut, Result};
use cudarc::nccl::NcclType;
use warpwork_abi::modules::Family;

/// Words (of `u32`) at the start of a rank's scratch before its work area ([`Area`]): up to
/// three to reach a 16-byte boundary, the rank's own value (16 bytes), and the gathered values
/// of every rank (rounded up to 16 bytes). The sharded scan lays out its scratch the same way.
pub(super) fn values_words<T>(ranks: usize) -> usize {
    3 + 4 + (ranks * std::mem::size_of::<T>()).div_ceil(16) * 4
}

/// The length, in `u32` elements, of the scratch one rank of [`Gpus::reduce_sharded_into`]
/// takes for a shard of `shard_len` elements of `T` among `ranks` ranks: the ranks' values,
/// and room for the reduce's own scratch (the shard's reduce and the reduce of the gathered
/// values run one after the other, so they share it).
///
/// # Examples
/// ```
/// use warpwork::multi::reduce_shard_scratch_len;
/// use warpwork::reduce::scratch_len;
/// assert!(reduce_shard_scratch_len::<f32>(1 << 20, 2) > scratch_len::<f32>(1 << 20));
/// assert!(reduce_shard_scratch_len::<u64>(0, 8) < 400);
/// ```
pub fn reduce_shard_scratch_len<T: ReduceItem>(shard_len: usize, ranks: usize) -> usize {
    values_words::<T>(ranks) + reduce::scratch_len::<T>(shard_len).max(reduce::scratch_len::<T>(ranks))
}

impl Gpus {
    /// The sum, minimum or maximum of the data whose rank-`r` shard is `shards[r]` (any
    /// lengths, 0 included), to the host. **Allocates** each rank's scratch and result and
    /// **waits** for rank 0's. Every rank computes the same value: see
    /// [`Gpus::reduce_sharded_into`].
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::ReduceOp;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[3i32, -1, 4])?, gpus.gpu(1).upload(&[-5i32, 9])?];
    /// assert_eq!(gpus.reduce_sharded(&shards, ReduceOp::Sum)?, 10);
    /// assert_eq!(gpus.reduce_sharded(&shards, ReduceOp::Min)?, -5);
    /// # Ok(()) }
    /// ```
    pub fn reduce_sharded<T: ReduceItem + NcclType>(&self, shards: &[impl DeviceRead<T>], op: ReduceOp) -> Result<T> {
        self.ensure_per_rank("sharded reduce shards", shards.len())?;
        let (mut outs, mut scratch) = (Vec::with_capacity(self.len()), Vec::with_capacity(self.len()));
        for (rank, shard) in shards.iter().enumerate() {
            outs.push(self.gpu(rank).zeros::<T>(1)?);
            scratch.push(self.gpu(rank).zeros::<u32>(reduce_shard_scratch_len::<T>(shard.len(), self.len()))?);
        }
        self.reduce_sharded_into(shards, op, &mut outs, &mut scratch)?;
        Ok(self.gpu(0).download(&outs[0])?[0])
    }

    /// [`Gpus::reduce_sharded`] into `outs[r][0]` on every rank `r` (the rest of each output is
    /// untouched), with caller-provided scratch, one buffer per rank on that rank's device, of
    /// at least [`reduce_shard_scratch_len::<T>(shards[r].len(), len())`](reduce_shard_scratch_len)
    /// words, which needs no preparation. Allocates nothing, never waits; asynchronous.
    ///
    /// The result is [`crate::Gpu::reduce`]'s operator over the shards' own reduces, in rank
    /// order: for integers and for `Min` / `Max` exactly the one-GPU reduce of the shards
    /// concatenated (NaN and signed zeros as there); a float sum adds the shards' sums, each
    /// rounded once, so its bits depend on the shard lengths (and are the same on every run).
    ///
    /// Everything is checked before any rank issues a collective: one shard, output and scratch
    /// per rank ([`Error::InvalidInput`]), each on its rank's device
    /// ([`Error::WrongContext`]), outputs and scratch long enough ([`Error::BufferTooSmall`]).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::multi::{reduce_shard_scratch_len, Gpus};
    /// use warpwork::reduce::ReduceOp;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[2.5f64; 1000])?, gpus.gpu(1).upload(&[-1.0f64; 24])?];
    /// let mut outs = vec![gpus.gpu(0).zeros::<f64>(1)?, gpus.gpu(1).zeros::<f64>(1)?];
    /// let mut scratch = vec![
    ///     gpus.gpu(0).zeros::<u32>(reduce_shard_scratch_len::<f64>(1000, 2))?,
    ///     gpus.gpu(1).zeros::<u32>(reduce_shard_scratch_len::<f64>(24, 2))?,
    /// ];
    /// gpus.reduce_sharded_into(&shards, ReduceOp::Max, &mut outs, &mut scratch)?;
    /// assert_eq!(gpus.gpu(1).download(&outs[1])?, [2.5]); // on every rank
    /// # Ok(()) }
    /// ```
    pub fn reduce_sharded_into<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        op: ReduceOp,
        outs: &mut [impl DeviceWrite<T>],
        scratch: &mut [impl DeviceWrite<u32>],
    ) -> Result<()> {
        let ranks = self.len();
        self.ensure_per_rank("sharded reduce shards", shards.len())?;
        self.ensure_per_rank("sharded reduce outputs", outs.len())?;
        self.ensure_per_rank("sharded reduce scratch buffers", scratch.len())?;
        // Every check, and every module load, before the first rank issues anything.
        let mut areas = Vec::with_capacity(ranks);
        // The scratch buffers stay bound (cudarc's events record the call when they drop).
        let mut held = Vec::with_capacity(ranks);
        for (rank, ((shard, out), s)) in shards.iter().zip(outs.iter_mut()).zip(scratch.iter_mut()).enumerate() {
            let gpu = self.gpu(rank);
            ensure_len("sharded reduce output", out.len(), 1)?;
            let needed = reduce_shard_scratch_len::<T>(shard.len(), ranks);
            ensure_len("sharded reduce scratch (u32 words)", s.len(), needed as u64)?;
            gpu.preload(&[Family::Reduce])?;
            let target = gpu.target()?;
            shard.bind(&target)?;
            out.bind_mut(&target)?;
            let len = s.len();
            let bound = s.bind_mut(&target)?;
            areas.push(Area::in_scratch::<T>(bound.addr, len, ranks));
            held.push(bound);
        }
        // Each rank's own value, then every rank's value on every rank.
        self.reduce_and_gather(shards, op, &areas)?;
        // The values reduced, in rank order, on every rank.
        for (rank, (out, area)) in outs.iter_mut().zip(&areas).enumerate() {
            // SAFETY: the area lies inside the rank's scratch (its length checked above), which
            // the caller lent mutably; the gathered values are `ranks` elements of `T`.
            let (gathered, mut work) = unsafe {
                (
                    crate::RawSlice::<T>::from_raw_parts(area.gathered, ranks)?,
                    RawSliceMut::<u32>::from_raw_parts(area.work, area.work_words)?,
                )
            };
            self.gpu(rank).reduce_into(&gathered, op, out, &mut work)?;
        }
        drop(held);
        Ok(())
    }
}

impl Gpus {
    /// Each rank's shard reduced under `op` into its area's own value, on the rank's stream,
    /// then every rank's value all-gathered into every rank's area (one NCCL group): the first
    /// steps of the sharded reduce and of the sharded scan (whose totals are sums). The callers
    /// have checked everything before, so that no rank enters a collective another would not.
    pub(super) fn reduce_and_gather<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        op: ReduceOp,
        areas: &[Area],
    ) -> Result<()> {
        let ranks = self.len();
        for (rank, (shard, area)) in shards.iter().zip(areas).enumerate() {
            // SAFETY: the areas lie inside the rank's scratch (its length checked by the caller),
            // which the caller lent mutably for this call; its own value is one `T` at a 16-byte
            // boundary.
            let (mut own, mut work) = unsafe {
                (
                    RawSliceMut::<T>::from_raw_parts(area.own, 1)?,
                    RawSliceMut::<u32>::from_raw_parts(area.work, area.work_words)?,
                )
            };
            self.gpu(rank).reduce_into(shard, op, &mut own, &mut work)?;
        }
        self.each_rank_in_group(|rank, gpu, comm| {
            let area = &areas[rank];
            let send = Addr { addr: area.own, len: 1, stream: gpu.stream() };
            let mut recv = Addr { addr: area.gathered, len: ranks, stream: gpu.stream() };
            comm.all_gather::<_, _, T>(&send, &mut recv).map(|_| ()).map_err(|e| Error::Nccl(e.0))
        })
    }
}

/// Where one rank's scratch holds what (device addresses), for the sharded reduce and the
/// sharded scan.
pub(super) struct Area {
    /// The rank's own value (one `T`, 16-byte aligned).
    pub(super) own: u64,
    /// Every rank's value, in rank order.
    pub(super) gathered: u64,
    /// The work area: the reduces' scratch (and, for the scan, then the scan's).
    pub(super) work: u64,
    /// Its length in `u32` words.
    pub(super) work_words: usize,
}

impl Area {
    /// The layout of a rank's scratch of `len` `u32` words at device address `addr` among
    /// `ranks` ranks ([`values_words`]; `len` at least that much, checked by the caller).
    pub(super) fn in_scratch<T>(addr: u64, len: usize, ranks: usize) -> Area {
        let start = addr.next_multiple_of(16);
        let head = values_words::<T>(ranks) - 3;
        let work_words = len - head - ((start - addr) / 4) as usize;
        Area { own: start, gathered: start + 16, work: start + 4 * head as u64, work_words }
    }
}
