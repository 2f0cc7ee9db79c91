//! The sharded sum: an exclusive or inclusive scan of data split across the ranks, each rank's
//! output holding the global prefixes of its shard.
//!
//! Per rank, on its own stream: the reduce of its shard to one total ([`crate::Gpu::reduce_into`]),
//! an NCCL all-gather of the totals (device to device, no host round trip), then the scan of
//! its shard starting from the sum of the totals of the lower ranks, read by the scan's kernel
//! ([`crate::Gpu::scan_with_base_into`]'s kernel). Each shard is read twice (the reduce, then the scan)
//! and written once: see the repository's `docs/multi.md` for the cost model.

use super::reduce::{values_words, Area};
use super::Gpus;
use crate::error::ensure_len;
use crate::launch::grid_x;
use crate::reduce::{self, ReduceItem, ReduceOp};
use crate::scan::{self, based_tiles, Base, Operands, Scan, ScanKind, ScanOp};
use crate::{DeviceRead, DeviceWrite, RawSliceMut, Result};
use cudarc::nccl::NcclType;
use warpwork_abi::modules::Family;

/// The length, in `u32` elements, of the scratch one rank of [`Gpus::scan_sharded_into`]
/// takes for a shard of `shard_len` elements of `T` among `ranks` ranks: the shard totals, and
/// room for the reduce's and the scan's own scratch (which run one after the other, so they
/// share it).
///
/// # Examples
/// ```
/// use warpwork::multi::shard_scratch_len;
/// use warpwork::scan::scratch_len;
/// assert!(shard_scratch_len::<u32>(1 << 20, 2) > scratch_len::<u32>(1 << 20));
/// assert!(shard_scratch_len::<u64>(0, 8) < 400);
/// ```
pub fn shard_scratch_len<T: ReduceItem>(shard_len: usize, ranks: usize) -> usize {
    values_words::<T>(ranks) + reduce::scratch_len::<T>(shard_len).max(scan::scratch_len::<T>(shard_len))
}

impl Gpus {
    /// The sum of the data whose rank-`r` shard is `shards[r]`, scanned as `kind` says into
    /// `outputs[r]` (at least as long as `shards[r]`; the rest is untouched): each output holds
    /// the global prefixes, as a one-GPU [`crate::Gpu::scan`] of the shards concatenated in rank order
    /// would write them. Shards may have any lengths, 0 included. **Allocates** each rank's
    /// scratch; asynchronous on every rank's stream. Sums as the one-GPU scan's (integer sums
    /// wrap; float sums are not bit-equal to a sequential sum).
    ///
    /// [`crate::Gpu`]: one per rank, so `shards[r]` and `outputs[r]` live on rank `r`'s device.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::ScanKind;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[1u32, 2, 3])?, gpus.gpu(1).upload(&[4u32, 5])?];
    /// let mut outputs = vec![gpus.gpu(0).zeros::<u32>(3)?, gpus.gpu(1).zeros::<u32>(2)?];
    /// gpus.scan_sharded(&shards, &mut outputs, ScanKind::Exclusive)?;
    /// assert_eq!(gpus.gpu(1).download(&outputs[1])?, [6, 10]);
    /// # Ok(()) }
    /// ```
    pub fn scan_sharded<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        outputs: &mut [impl DeviceWrite<T>],
        kind: ScanKind,
    ) -> Result<()> {
        self.ensure_per_rank("sharded scan shards", shards.len())?;
        let mut scratch = Vec::with_capacity(self.len());
        for (rank, shard) in shards.iter().enumerate() {
            scratch.push(self.gpu(rank).zeros::<u32>(shard_scratch_len::<T>(shard.len(), self.len()))?);
        }
        self.scan_sharded_into(shards, outputs, kind, &mut scratch)
    }

    /// [`Gpus::scan_sharded`] with caller-provided scratch, one buffer per rank on that rank's
    /// device, of at least [`shard_scratch_len::<T>(shards[r].len(), len())`](shard_scratch_len)
    /// words; allocates nothing; asynchronous. The scratch needs no preparation.
    ///
    /// Everything is checked before any rank issues anything, so that no collective is ever
    /// entered that some rank would not join: one shard, output and scratch per rank
    /// ([`Error::InvalidInput`](crate::Error::InvalidInput)), each on its rank's device
    /// ([`Error::WrongContext`](crate::Error::WrongContext)), outputs and scratch long enough
    /// ([`Error::BufferTooSmall`](crate::Error::BufferTooSmall)), shard sizes within the scan's
    /// grid ([`Error::CapacityExceeded`](crate::Error::CapacityExceeded)).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::multi::{shard_scratch_len, Gpus};
    /// use warpwork::scan::ScanKind;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[1u64; 1000])?, gpus.gpu(1).upload(&[1u64; 24])?];
    /// let mut outputs = vec![gpus.gpu(0).zeros::<u64>(1000)?, gpus.gpu(1).zeros::<u64>(24)?];
    /// let mut scratch = vec![
    ///     gpus.gpu(0).zeros::<u32>(shard_scratch_len::<u64>(1000, 2))?,
    ///     gpus.gpu(1).zeros::<u32>(shard_scratch_len::<u64>(24, 2))?,
    /// ];
    /// gpus.scan_sharded_into(&shards, &mut outputs, ScanKind::Inclusive, &mut scratch)?;
    /// assert_eq!(gpus.gpu(1).download(&outputs[1])?[23], 1024);
    /// # Ok(()) }
    /// ```
    pub fn scan_sharded_into<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        outputs: &mut [impl DeviceWrite<T>],
        kind: ScanKind,
        scratch: &mut [impl DeviceWrite<u32>],
    ) -> Result<()> {
        let ranks = self.len();
        self.ensure_per_rank("sharded scan shards", shards.len())?;
        self.ensure_per_rank("sharded scan outputs", outputs.len())?;
        self.ensure_per_rank("sharded scan scratch buffers", scratch.len())?;
        // Every check, and every module load, before the first rank issues anything.
        let mut areas = Vec::with_capacity(ranks);
        // The scratch buffers stay bound (cudarc's events record the call when they drop).
        let mut held = Vec::with_capacity(ranks);
        for (rank, ((shard, output), s)) in shards.iter().zip(outputs.iter_mut()).zip(scratch.iter_mut()).enumerate() {
            let gpu = self.gpu(rank);
            let n = shard.len();
            ensure_len("sharded scan output", output.len(), n as u64)?;
            ensure_len("sharded scan scratch (u32 words)", s.len(), shard_scratch_len::<T>(n, ranks) as u64)?;
            grid_x(based_tiles::<T>(n) as u64, "scan tiles (blocks of one launch)")?;
            gpu.preload(&[Family::Reduce, Family::Scan])?;
            let target = gpu.target()?;
            shard.bind(&target)?;
            output.bind_mut(&target)?;
            let len = s.len();
            let bound = s.bind_mut(&target)?;
            areas.push(Area::in_scratch::<T>(bound.addr, len, ranks));
            held.push(bound);
        }
        // Each rank's total, then every rank's total on every rank.
        self.reduce_and_gather(shards, ReduceOp::Sum, &areas)?;
        // The scans, each from the sum of the lower ranks' totals.
        for (rank, ((shard, output), area)) in shards.iter().zip(outputs.iter_mut()).zip(&areas).enumerate() {
            // SAFETY: the work area lies inside the rank's scratch (its length checked above),
            // which the caller lent mutably for this call.
            let mut work = unsafe { RawSliceMut::<u32>::from_raw_parts(area.work, area.work_words)? };
            let base = Base { addr: area.gathered, len: rank };
            let scan = Scan { kind, op: ScanOp::Sum };
            self.gpu(rank).launch_scan(Operands::Apart(shard, output), scan, &mut work, false, Some(base))?;
        }
        drop(held);
        Ok(())
    }
}
