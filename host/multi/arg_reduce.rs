//! The sharded argmin / argmax: the global index and value of the least or greatest element of
//! data split across the ranks, on every rank's device.
//!
//! Per rank, on its own stream: the argmin / argmax of its shard ([`crate::Gpu::arg_reduce_into`]),
//! its index made global (the lengths of the lower ranks' shards added, by a one-thread fold
//! kernel), an NCCL all-gather of every rank's index and value, then the same fold over the
//! `ranks` results, in rank order, into the rank's outputs. Each shard is read once.

use super::expand::source_bases;
use super::{Addr, Gpus};
use crate::error::ensure_len;
use crate::reduce::{self, ArgOp, ReduceItem};
use crate::{DeviceRead, DeviceWrite, Error, Gpu, RawSliceMut, Result};
use cudarc::driver::LaunchConfig;
use cudarc::nccl::NcclType;
use warpwork_abi::modules::Family;

/// Bytes `n` elements of `T` take in the scratch, rounded up to 16.
fn padded<T>(n: usize) -> usize {
    (n * std::mem::size_of::<T>()).div_ceil(16) * 16
}

/// Words (of `u32`) at the start of a rank's scratch before its work area: up to three to
/// reach a 16-byte boundary, the rank's own index and value (16 bytes each), and every rank's
/// indices and values (each rounded up to 16 bytes).
fn results_words<T>(ranks: usize) -> usize {
    3 + (32 + padded::<u64>(ranks) + padded::<T>(ranks)) / 4
}

/// The length, in `u32` elements, of the scratch one rank of
/// [`Gpus::arg_reduce_sharded_into`] takes for a shard of `shard_len` elements of `T` among
/// `ranks` ranks: every rank's index and value, and room for the shard's argmin / argmax.
///
/// # Examples
/// ```
/// use warpwork::multi::arg_reduce_shard_scratch_len;
/// use warpwork::reduce::scratch_len;
/// assert!(arg_reduce_shard_scratch_len::<f32>(1 << 20, 2) > scratch_len::<f32>(1 << 20));
/// ```
pub fn arg_reduce_shard_scratch_len<T: ReduceItem>(shard_len: usize, ranks: usize) -> usize {
    results_words::<T>(ranks) + reduce::scratch_len::<T>(shard_len)
}

impl Gpus {
    /// The global index and value of the least ([`ArgOp::Min`]) or greatest ([`ArgOp::Max`])
    /// element of the data whose rank-`r` shard is `shards[r]` (indices numbered over the
    /// shards concatenated in rank order), or `None` if every shard is empty. **Allocates**
    /// each rank's scratch and results and **waits** for rank 0's. See
    /// [`Gpus::arg_reduce_sharded_into`].
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::ArgOp;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shards = vec![gpus.gpu(0).upload(&[3.0f32, -1.0])?, gpus.gpu(1).upload(&[4.0f32, -5.0, 9.0])?];
    /// assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Min)?, Some((3, -5.0)));
    /// assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Max)?, Some((4, 9.0)));
    /// # Ok(()) }
    /// ```
    pub fn arg_reduce_sharded<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        op: ArgOp,
    ) -> Result<Option<(u64, T)>> {
        self.ensure_per_rank("sharded argmin/argmax shards", shards.len())?;
        let (mut indices, mut values, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for (rank, shard) in shards.iter().enumerate() {
            let gpu = self.gpu(rank);
            indices.push(gpu.zeros::<u64>(1)?);
            values.push(gpu.zeros::<T>(1)?);
            scratch.push(gpu.zeros::<u32>(arg_reduce_shard_scratch_len::<T>(shard.len(), self.len()))?);
        }
        self.arg_reduce_sharded_into(shards, op, &mut indices, &mut values, &mut scratch)?;
        let (index, value) = (self.gpu(0).download(&indices[0])?[0], self.gpu(0).download(&values[0])?[0]);
        Ok((index != u64::MAX).then_some((index, value)))
    }

    /// [`Gpus::arg_reduce_sharded`] into `indices[r][0]` and `values[r][0]` on every rank `r`
    /// (the rest of each output is untouched; no element: index `u64::MAX` and the operator's
    /// identity, as [`crate::Gpu::arg_reduce_into`] writes), with caller-provided scratch, one
    /// buffer per rank on that rank's device, of at least
    /// [`arg_reduce_shard_scratch_len::<T>(shards[r].len(), len())`](arg_reduce_shard_scratch_len)
    /// words, which needs no preparation. Allocates nothing, never waits; asynchronous.
    ///
    /// The result is exactly the one-GPU [`crate::Gpu::arg_reduce`] of the shards concatenated:
    /// the first NaN if there is one (its value bit for bit), else the least or greatest with
    /// `−0.0 < +0.0`, ties to the smallest index.
    ///
    /// Everything is checked before any rank issues a collective: one shard, index output,
    /// value output and scratch per rank ([`Error::InvalidInput`]), each on its rank's device
    /// ([`Error::WrongContext`]), outputs and scratch long enough ([`Error::BufferTooSmall`]).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::multi::{arg_reduce_shard_scratch_len, Gpus};
    /// use warpwork::reduce::ArgOp;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let (g0, g1) = (gpus.gpu(0), gpus.gpu(1));
    /// let shards = vec![g0.upload(&[7u64; 1000])?, g1.upload(&[9u64, 3, 3])?];
    /// let mut indices = vec![g0.zeros::<u64>(1)?, g1.zeros::<u64>(1)?];
    /// let mut values = vec![g0.zeros::<u64>(1)?, g1.zeros::<u64>(1)?];
    /// let mut scratch = vec![
    ///     g0.zeros::<u32>(arg_reduce_shard_scratch_len::<u64>(1000, 2))?,
    ///     g1.zeros::<u32>(arg_reduce_shard_scratch_len::<u64>(3, 2))?,
    /// ];
    /// gpus.arg_reduce_sharded_into(&shards, ArgOp::Min, &mut indices, &mut values, &mut scratch)?;
    /// assert_eq!(g1.download(&indices[1])?, [1001]); // on every rank
    /// # Ok(()) }
    /// ```
    pub fn arg_reduce_sharded_into<T: ReduceItem + NcclType>(
        &self,
        shards: &[impl DeviceRead<T>],
        op: ArgOp,
        indices: &mut [impl DeviceWrite<u64>],
        values: &mut [impl DeviceWrite<T>],
        scratch: &mut [impl DeviceWrite<u32>],
    ) -> Result<()> {
        let ranks = self.len();
        self.ensure_per_rank("sharded argmin/argmax shards", shards.len())?;
        self.ensure_per_rank("sharded argmin/argmax index outputs", indices.len())?;
        self.ensure_per_rank("sharded argmin/argmax value outputs", values.len())?;
        self.ensure_per_rank("sharded argmin/argmax scratch buffers", scratch.len())?;
        // Every check, and every module load, before the first rank issues anything.
        let (mut areas, mut held) = (Vec::with_capacity(ranks), Vec::with_capacity(ranks));
        for (rank, (((shard, index), value), s)) in
            shards.iter().zip(indices.iter_mut()).zip(values.iter_mut()).zip(scratch.iter_mut()).enumerate()
        {
            let gpu = self.gpu(rank);
            ensure_len("sharded argmin/argmax index output", index.len(), 1)?;
            ensure_len("sharded argmin/argmax value output", value.len(), 1)?;
            let needed = arg_reduce_shard_scratch_len::<T>(shard.len(), ranks);
            ensure_len("sharded argmin/argmax scratch (u32 words)", s.len(), needed as u64)?;
            gpu.preload(&[Family::Reduce])?;
            let target = gpu.target()?;
            shard.bind(&target)?;
            let (index, value) = (index.bind_mut(&target)?, value.bind_mut(&target)?);
            let len = s.len();
            let bound = s.bind_mut(&target)?;
            let start = bound.addr.next_multiple_of(16);
            let head = results_words::<T>(ranks) - 3;
            let gathered = start + 32;
            areas.push(Area {
                own: (start, start + 16),
                gathered: (gathered, gathered + padded::<u64>(ranks) as u64),
                out: (index.addr, value.addr),
                work: start + 4 * head as u64,
                work_words: len - head - ((start - bound.addr) / 4) as usize,
            });
            held.push((bound, index, value));
        }
        let bases = source_bases(&shards.iter().map(|s| s.len()).collect::<Vec<_>>());
        // Each rank's own result, its index made global, on its own stream.
        for (rank, (shard, area)) in shards.iter().zip(&areas).enumerate() {
            let gpu = self.gpu(rank);
            // SAFETY: the areas lie inside the rank's scratch (its length checked above), which
            // the caller lent mutably for this call; its own index and value at 16-byte boundaries.
            let (mut index, mut value, mut work) = unsafe {
                (
                    RawSliceMut::<u64>::from_raw_parts(area.own.0, 1)?,
                    RawSliceMut::<T>::from_raw_parts(area.own.1, 1)?,
                    RawSliceMut::<u32>::from_raw_parts(area.work, area.work_words)?,
                )
            };
            gpu.arg_reduce_into(shard, op, &mut index, &mut value, &mut work)?;
            // SAFETY: one result in the rank's scratch, folded in place.
            unsafe { fold::<T>(gpu, op, area.own, 1, bases[rank], area.own)? };
        }
        // Every rank gets every index and value.
        self.each_rank_in_group(|rank, gpu, comm| {
            let area = &areas[rank];
            let nccl = |e: cudarc::nccl::result::NcclError| Error::Nccl(e.0);
            let send = Addr { addr: area.own.0, len: 1, stream: gpu.stream() };
            let mut recv = Addr { addr: area.gathered.0, len: ranks, stream: gpu.stream() };
            comm.all_gather::<_, _, u64>(&send, &mut recv).map_err(nccl)?;
            let send = Addr { addr: area.own.1, len: 1, stream: gpu.stream() };
            let mut recv = Addr { addr: area.gathered.1, len: ranks, stream: gpu.stream() };
            comm.all_gather::<_, _, T>(&send, &mut recv).map(|_| ()).map_err(nccl)
        })?;
        // The ranks' results folded, in rank order, on every rank.
        for (rank, area) in areas.iter().enumerate() {
            // SAFETY: `ranks` indices and values in the rank's scratch, into the caller's
            // outputs (bound above, at least one element each).
            unsafe { fold::<T>(self.gpu(rank), op, area.gathered, ranks as u32, 0, area.out)? };
        }
        drop(held);
        Ok(())
    }
}

/// Launches the fold of `count` argmin / argmax results (`from`: the device addresses of their
/// indices and values) with `base` added to the winner's index, into `to` (an index and a
/// value; it may be `from`).
///
/// # Safety
/// Every address is in `gpu`'s context, lent to the call: `from` holds `count` `u64`s and
/// `count` `T`s, `to` one of each.
unsafe fn fold<T: ReduceItem>(
    gpu: &Gpu,
    op: ArgOp,
    from: (u64, u64),
    count: u32,
    base: u64,
    to: (u64, u64),
) -> Result<()> {
    let f = gpu.function(T::ARG_FOLD[usize::from(op == ArgOp::Max)])?;
    let mut l = gpu.kernel_args();
    l.addr(from.0).addr(from.1).value(&count).value(&base).addr(to.0).addr(to.1);
    // SAFETY: `reduce_{argmin|argmax}_fold_{type}(indices, values, count, base, out_index,
    // out_value)` on the addresses the caller vouches for; one thread.
    unsafe { l.launch(f, LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }
}

/// Where one rank's scratch and outputs are (device addresses).
struct Area {
    /// The rank's own index and value (16-byte aligned each).
    own: (u64, u64),
    /// Every rank's indices and values, in rank order.
    gathered: (u64, u64),
    /// The caller's index and value outputs.
    out: (u64, u64),
    /// The arg reduce's scratch.
    work: u64,
    /// Its length in `u32` words.
    work_words: usize,
}
