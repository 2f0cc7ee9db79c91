//! Several GPUs of one process: a [`Gpus`] handle (one [`Gpu`] and one NCCL communicator per
//! GPU, a *rank*) and primitives over data split across them, each GPU holding one *shard*.
//! Built with the crate feature `nccl`; the NCCL library is loaded at run time.
//!
//! * [`Gpus::new`] opens devices by ordinal (their primary contexts, a new stream each);
//!   [`Gpus::from_streams`] takes your cudarc streams, one per device, rank = index.
//! * The sharded primitives take one buffer per rank, each on that rank's device, and issue
//!   every rank's work to its own stream, asynchronously; the ranks exchange small values
//!   (shard totals, counts) through NCCL on the devices, never through the host.
//!
//! **Setting up NCCL.** warpwork (through cudarc) opens `libnccl.so` by that name (or
//! `libnccl.so.<CUDA major version>`), not `libnccl.so.2`, which is the only name the
//! `nvidia-nccl-cu12` / `nvidia-nccl-cu13` Python wheels ship: put a link named `libnccl.so` to
//! it in a directory on the loader path (`ln -s libnccl.so.2 libnccl.so` in the wheel's `lib/`,
//! then `LD_LIBRARY_PATH=<that directory>`). Without it, [`Gpus::new`] returns
//! [`Error::NoNccl`]. On machines with NVLink SHARP (NVSwitch systems), set `NCCL_NVLS_ENABLE=0`:
//! warpwork's collectives are a few bytes, and NCCL's multicast set-up is slow and may fail.
//!
//! **One thread drives every rank.** The communicators are made by `ncclCommInitAll` (one
//! process, all ranks), and warpwork issues each collective to all ranks inside one
//! `ncclGroupStart` / `ncclGroupEnd`, as NCCL requires of one thread driving several
//! communicators (without the group, the first rank's call would wait for the others forever).
//! If you issue your own collectives on [`Gpus::comm`], do the same. A [`Gpus`] is neither
//! `Send` nor `Sync` (cudarc's communicators are not).
//!
//! The sharded primitives: [`Gpus::scan_sharded`] (exclusive or inclusive sums, global prefixes
//! in each shard's output), [`Gpus::reduce_sharded`] (the sum, minimum or maximum, on every
//! device), [`Gpus::arg_reduce_sharded`] (the global index and value of the least or greatest
//! element, on every device), [`Gpus::select_sharded`] (the ordered select, each rank's global
//! offset on every device) and [`Gpus::expand_sharded`] (work expansion, pairs numbered within
//! each shard, with the bases beside them); [`Gpus::all_gather`] for your own values.
//! [`Gpus::time_ms`] times work on every rank with every stream held while it is queued, as
//! [`Gpu::time_ms`] does on one.
//!
//! Cost model, scaling and set-up in detail: the repository's `docs/multi.md`.

use crate::error::ensure_len;
use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};
use cudarc::nccl::NcclType;
use cudarc::nccl::{result as nccl, Comm};
use std::sync::Arc;

mod arg_reduce;
mod expand;
mod offsets;
mod reduce;
mod scan;
mod select;
#[cfg(test)]
mod tests;
mod timing;

pub use arg_reduce::arg_reduce_shard_scratch_len;
pub use expand::{expand_shard_scratch_len, source_bases, ShardExpanded, ShardedExpansion};
pub use reduce::reduce_shard_scratch_len;
pub use scan::shard_scratch_len;
pub use select::{sharded_select_state_len, ShardSelected, ShardedSelection};

/// warpwork on several GPUs of one process: for each rank, a [`Gpu`] issuing to that rank's
/// stream and an NCCL communicator ([`cudarc::nccl::Comm`]) on the same stream.
///
/// # Examples
/// ```no_run
/// use warpwork::multi::Gpus;
/// # fn main() -> warpwork::Result<()> {
/// let gpus = Gpus::new(&[0, 1])?; // NoDriver, NoDevice, NoNccl, DuplicateDevice, Nccl
/// for rank in 0..gpus.len() {
///     println!("rank {rank}: {}", gpus.gpu(rank).info().name);
/// }
/// gpus.synchronize()?;
/// # Ok(()) }
/// ```
pub struct Gpus {
    /// One per rank. Each communicator is dropped before its `Gpu` (field order), while its
    /// context is still alive.
    comms: Vec<Comm>,
    gpus: Vec<Gpu>,
}

impl std::fmt::Debug for Gpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpus").field("gpus", &self.gpus).finish()
    }
}

impl Gpus {
    /// Opens the devices `ordinals` (rank `r` is `ordinals[r]`), each in its primary context
    /// with a new stream, and makes their NCCL communicators. Checks everything it can before
    /// NCCL is called: [`Error::InvalidInput`] for no ordinal, [`Error::DuplicateDevice`] for a
    /// device named twice, [`Error::NoDriver`], [`Error::NoDevice`], then [`Error::NoNccl`]
    /// when the NCCL library cannot be loaded; [`Error::Nccl`] if NCCL itself fails.
    ///
    /// # Examples
    /// ```no_run
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// assert_eq!(gpus.len(), 2);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(ordinals: &[usize]) -> Result<Gpus> {
        check_ordinals(ordinals)?;
        let count = Gpu::device_count()?;
        if let Some(&ordinal) = ordinals.iter().find(|&&o| o >= count) {
            return Err(Error::NoDevice { ordinal, count });
        }
        nccl_present()?;
        let mut streams = Vec::with_capacity(ordinals.len());
        for &ordinal in ordinals {
            streams.push(CudaContext::new(ordinal)?.new_stream()?);
        }
        Self::with_streams(streams)
    }

    /// The ranks on **your** cudarc streams, one per device (rank `r` issues to `streams[r]`).
    /// The same checks as [`Gpus::new`]: two streams of one device are
    /// [`Error::DuplicateDevice`] (NCCL needs one rank per device).
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::driver::CudaContext;
    /// # fn main() -> warpwork::Result<()> {
    /// let streams = vec![CudaContext::new(0)?.new_stream()?, CudaContext::new(1)?.new_stream()?];
    /// let gpus = warpwork::multi::Gpus::from_streams(streams)?;
    /// # Ok(()) }
    /// ```
    pub fn from_streams(streams: Vec<Arc<CudaStream>>) -> Result<Gpus> {
        let ordinals: Vec<usize> = streams.iter().map(|s| s.context().ordinal()).collect();
        check_ordinals(&ordinals)?;
        nccl_present()?;
        Self::with_streams(streams)
    }

    /// Loads warpwork on each stream's context and makes the communicators (the checks done).
    fn with_streams(streams: Vec<Arc<CudaStream>>) -> Result<Gpus> {
        let gpus = streams.iter().map(|s| Gpu::from_stream(s.clone())).collect::<Result<Vec<_>>>()?;
        let comms = Comm::from_devices(streams).map_err(|e| Error::Nccl(e.0))?;
        Ok(Gpus { comms, gpus })
    }

    /// The number of ranks (GPUs).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// assert_eq!(gpus.len(), 2);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Never: a [`Gpus`] has at least one rank (for the `len` / `is_empty` pair).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpus = warpwork::multi::Gpus::new(&[0])?;
    /// assert!(!gpus.is_empty());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// Rank `rank`'s handle: every single-GPU primitive, issued to that rank's stream.
    /// Panics if `rank >= len()`, as slice indexing does.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let shard = gpus.gpu(1).upload(&[1u32, 2, 3])?; // on device 1
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn gpu(&self, rank: usize) -> &Gpu {
        &self.gpus[rank]
    }

    /// Rank `rank`'s NCCL communicator (on the same stream as [`Gpus::gpu`]). Issue your own
    /// collectives on all ranks inside one `group_start` / `group_end`. Panics if
    /// `rank >= len()`.
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::nccl::{group_end, group_start, ReduceOp};
    /// # fn main() -> warpwork::Result<()> {
    /// # let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let mut bufs: Vec<_> = (0..gpus.len()).map(|r| gpus.gpu(r).upload(&[r as f32])).collect::<Result<_, _>>()?;
    /// group_start().unwrap();
    /// for (r, buf) in bufs.iter_mut().enumerate() {
    ///     gpus.comm(r).all_reduce_in_place(buf, &ReduceOp::Sum).unwrap();
    /// }
    /// group_end().unwrap();
    /// # Ok(()) }
    /// ```
    pub fn comm(&self, rank: usize) -> &Comm {
        &self.comms[rank]
    }

    /// Waits until every rank's stream has finished the work issued to it.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// gpus.synchronize()?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.gpus.iter().try_for_each(Gpu::synchronize)
    }

    /// All-gathers `send[r]` (on rank `r`, each the same length `m`) into every rank's
    /// `recv[r][..m · len()]`, rank `r`'s block at `r · m`: NCCL's `ncclAllGather` on every
    /// rank in one group. Asynchronous on each rank's stream; allocates nothing. Checks before
    /// any NCCL call: one buffer per rank ([`Error::InvalidInput`]), equal send lengths, each
    /// buffer in its rank's context ([`Error::WrongContext`]), receive buffers long enough
    /// ([`Error::BufferTooSmall`]).
    ///
    /// # Examples
    /// ```no_run
    /// # fn main() -> warpwork::Result<()> {
    /// # let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let send: Vec<_> = (0..2).map(|r| gpus.gpu(r).upload(&[10 * r as u64])).collect::<Result<_, _>>()?;
    /// let mut recv: Vec<_> = (0..2).map(|r| gpus.gpu(r).zeros::<u64>(2)).collect::<Result<_, _>>()?;
    /// gpus.all_gather(&send, &mut recv)?;
    /// assert_eq!(gpus.gpu(1).download(&recv[1])?, [0, 10]);
    /// # Ok(()) }
    /// ```
    pub fn all_gather<T: NcclType>(&self, send: &[impl DeviceRead<T>], recv: &mut [impl DeviceWrite<T>]) -> Result<()> {
        self.ensure_per_rank("all_gather send buffers", send.len())?;
        self.ensure_per_rank("all_gather receive buffers", recv.len())?;
        let m = send[0].len();
        if let Some(s) = send.iter().find(|s| s.len() != m) {
            return Err(Error::InvalidInput(format!(
                "all_gather send buffers of {m} and {} elements: one length",
                s.len()
            )));
        }
        let needed = m as u64 * self.len() as u64;
        for r in recv.iter() {
            ensure_len("all_gather receive buffer", r.len(), needed)?;
        }
        let mut bound = Vec::with_capacity(self.len());
        for (rank, (s, r)) in send.iter().zip(recv.iter_mut()).enumerate() {
            let target = self.gpus[rank].target()?;
            bound.push((s.bind(&target)?, r.bind_mut(&target)?));
        }
        if m == 0 {
            return Ok(());
        }
        self.each_rank_in_group(|rank, gpu, comm| {
            let (s, r) = &bound[rank];
            let send = Addr { addr: s.addr, len: m, stream: gpu.stream() };
            let mut recv = Addr { addr: r.addr, len: needed as usize, stream: gpu.stream() };
            // `send` holds `m` elements of `T` and `recv` at least `m · len()` (checked above),
            // both in this rank's context and bound to its stream until after the group ends.
            comm.all_gather::<_, _, T>(&send, &mut recv).map(|_| ()).map_err(|e| Error::Nccl(e.0))
        })
    }

    /// Runs `issue(rank, gpu, comm)` for every rank inside one NCCL group, so that collectives
    /// issued from this one thread to several communicators cannot wait on each other. The
    /// group is closed even when `issue` fails; callers check everything that can fail before
    /// (a rank that issued nothing would leave the others' collectives waiting), so `issue`
    /// only makes the NCCL calls themselves.
    pub(crate) fn each_rank_in_group(&self, mut issue: impl FnMut(usize, &Gpu, &Comm) -> Result<()>) -> Result<()> {
        nccl::group_start().map_err(|e| Error::Nccl(e.0))?;
        let mut result = Ok(());
        for (rank, (gpu, comm)) in self.gpus.iter().zip(&self.comms).enumerate() {
            result = gpu.context().bind_to_thread().map_err(Error::from).and_then(|()| issue(rank, gpu, comm));
            if result.is_err() {
                break;
            }
        }
        let end = nccl::group_end().map_err(|e| Error::Nccl(e.0));
        result.and(end.map(|_| ()))
    }

    /// [`Error::InvalidInput`] unless `len` (of the shards, outputs, … of one call) is one per rank.
    pub(crate) fn ensure_per_rank(&self, what: &str, len: usize) -> Result<()> {
        if len != self.len() {
            return Err(Error::InvalidInput(format!("{what}: {len} given, one per rank ({}) needed", self.len())));
        }
        Ok(())
    }
}

/// A device address already bound to a rank's stream, in the shape cudarc's collectives take
/// (the binding orders it after earlier writes; no further event is recorded here).
struct Addr<'a> {
    addr: u64,
    len: usize,
    stream: &'a Arc<CudaStream>,
}

impl<T> DeviceSlice<T> for Addr<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }
}

impl<T> DevicePtr<T> for Addr<'_> {
    fn device_ptr<'a>(&'a self, _stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        (self.addr, SyncOnDrop::Record(None))
    }
}

impl<T> DevicePtrMut<T> for Addr<'_> {
    fn device_ptr_mut<'a>(&'a mut self, _stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        (self.addr, SyncOnDrop::Record(None))
    }
}

/// At least one rank, and no device twice.
fn check_ordinals(ordinals: &[usize]) -> Result<()> {
    if ordinals.is_empty() {
        return Err(Error::InvalidInput("a multi-GPU handle needs at least one device".into()));
    }
    for (i, &ordinal) in ordinals.iter().enumerate() {
        if ordinals[..i].contains(&ordinal) {
            return Err(Error::DuplicateDevice { ordinal });
        }
    }
    Ok(())
}

/// [`Error::NoNccl`] unless the NCCL library can be loaded: cudarc would panic on the first
/// NCCL call without it.
fn nccl_present() -> Result<()> {
    // SAFETY: only tries to open the library.
    if unsafe { cudarc::nccl::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::NoNccl)
    }
}
