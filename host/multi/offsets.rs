//! The step the sharded select and the sharded expansion share: every rank's count (one `u64`
//! each, on its device) all-gathered, then scanned on every rank into the ranks' global offsets.

use super::{Addr, Gpus};
use crate::scan::{Operands, Scan, ScanOp};
use crate::{Error, RawSlice, RawSliceMut, Result};

/// One rank's device addresses for [`Gpus::gather_offsets`], all checked by the caller to lie
/// in buffers of that rank's context lent to the call.
pub(crate) struct Spots {
    /// The rank's count: one `u64`.
    pub count: u64,
    /// Room for every rank's count: `len()` `u64`s.
    pub gathered: u64,
    /// The scan's scratch: `scratch_words` `u32`s, at least `scan::scratch_len::<u64>(len())`.
    pub scratch: u64,
    pub scratch_words: usize,
    /// The offsets: `len() + 1` `u64`s.
    pub offsets: u64,
}

/// `u32` words of scratch [`Gpus::gather_offsets`] needs per rank besides the gathered counts.
pub(crate) fn scan_words(ranks: usize) -> usize {
    crate::scan::scratch_len::<u64>(ranks)
}

impl Gpus {
    /// All-gathers every rank's count (issued to all ranks in one NCCL group), then writes on
    /// each rank `offsets = [0, c₀, c₀ + c₁, …, c₀ + … + c_{len-1}]`: rank `k`'s global offset
    /// at `k`, the global count last. Asynchronous on each rank's stream.
    pub(crate) fn gather_offsets(&self, spots: &[Spots]) -> Result<()> {
        let ranks = self.len();
        self.each_rank_in_group(|rank, gpu, comm| {
            let s = &spots[rank];
            let send = Addr { addr: s.count, len: 1, stream: gpu.stream() };
            let mut recv = Addr { addr: s.gathered, len: ranks, stream: gpu.stream() };
            comm.all_gather::<_, _, u64>(&send, &mut recv).map(|_| ()).map_err(|e| Error::Nccl(e.0))
        })?;
        for (rank, s) in spots.iter().enumerate() {
            let gpu = self.gpu(rank);
            // SAFETY: the caller's contract on `Spots`: each range lies inside a buffer of this
            // rank's context lent to the call, and they do not overlap.
            let (counts, mut first, mut rest, mut scratch) = unsafe {
                (
                    RawSlice::<u64>::from_raw_parts(s.gathered, ranks)?,
                    RawSliceMut::<u64>::from_raw_parts(s.offsets, 1)?,
                    RawSliceMut::<u64>::from_raw_parts(s.offsets + 8, ranks)?,
                    RawSliceMut::<u32>::from_raw_parts(s.scratch, s.scratch_words)?,
                )
            };
            gpu.fill_bytes(&mut first, 0)?;
            let scan = Scan::inclusive(ScanOp::Sum);
            gpu.launch_scan(Operands::Apart(&counts, &mut rest), scan, &mut scratch, false, None)?;
        }
        Ok(())
    }
}
