//! Timing work issued to every rank, as [`Gpu::time_ms`] times one stream.

use super::Gpus;
use crate::{Gpu, Result};
use cudarc::driver::sys::CUevent_flags;

impl Gpus {
    /// Milliseconds the devices spend on the work `f` issues to the ranks' streams: the longest,
    /// over the ranks, between CUDA events recorded on each rank's stream before and after it,
    /// with **every** stream held until all of it is queued (as [`Gpu::time_ms`] holds one).
    /// So a sharded call is timed from the moment every rank may start to the last rank's end,
    /// without the host's time to issue each rank's launches and NCCL's group in turn (which
    /// [`Gpus::paced_time_ms`] includes). `f` must not wait for any rank's stream, and a first
    /// call does (loading a primitive's kernels waits for the device; NCCL also connects the
    /// ranks on their first exchange): run the work once before timing it. A timing whose work waited is refused with
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) once the hold gives up (after 2 s),
    /// as is one started while another timing holds one of the contexts. **Waits** for every
    /// rank.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::multi::{shard_scratch_len, Gpus};
    /// use warpwork::scan::ScanKind;
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let n = 1 << 24;
    /// let shards = vec![gpus.gpu(0).filled::<u32>(n, 1)?, gpus.gpu(1).filled::<u32>(n, 1)?];
    /// let mut outs = vec![gpus.gpu(0).zeros::<u32>(n)?, gpus.gpu(1).zeros::<u32>(n)?];
    /// let len = shard_scratch_len::<u32>(n, 2);
    /// let mut scratch = vec![gpus.gpu(0).zeros::<u32>(len)?, gpus.gpu(1).zeros::<u32>(len)?];
    /// let mut scan = || gpus.scan_sharded_into(&shards, &mut outs, ScanKind::Exclusive, &mut scratch);
    /// scan()?; // loads the kernels, connects the ranks
    /// let ms = gpus.time_ms(scan)?;
    /// println!("{:.0} G items/s per GPU", n as f64 / (ms * 1e6));
    /// # Ok(()) }
    /// ```
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        // A failure part way leaves the holds made so far to their drops, which release them.
        let holds = self.gpus.iter().map(Gpu::hold).collect::<Result<Vec<_>>>()?;
        let timed = self.events_around(|| {
            let queued = f();
            holds.iter().for_each(|h| h.release());
            queued
        });
        let held: Result<()> = holds.into_iter().try_for_each(|h| h.finish());
        let ms = timed?;
        held.map(|()| ms)
    }

    /// Milliseconds between CUDA events recorded on every rank's stream before and after the
    /// work `f` issues, without holding the streams (the longest over the ranks): includes the
    /// devices' waits for the host as it issues each rank's work, which is what a caller that
    /// synchronizes after every call sees, and the only way to time work that itself waits for
    /// a stream. **Waits** for every rank.
    ///
    /// # Examples
    /// ```no_run
    /// # fn main() -> warpwork::Result<()> {
    /// let gpus = warpwork::multi::Gpus::new(&[0, 1])?;
    /// let send = vec![gpus.gpu(0).upload(&[1u32])?, gpus.gpu(1).upload(&[2u32])?];
    /// let mut recv = vec![gpus.gpu(0).zeros::<u32>(2)?, gpus.gpu(1).zeros::<u32>(2)?];
    /// let ms = gpus.paced_time_ms(|| gpus.all_gather(&send, &mut recv))?;
    /// # Ok(()) }
    /// ```
    pub fn paced_time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        for gpu in &self.gpus {
            gpu.refuse_in_capture("a timing waits for the stream")?;
        }
        self.events_around(f)
    }

    /// The longest time over the ranks between events recorded on each stream before and after
    /// `f`'s work; waits for the end events.
    fn events_around(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let new_event = |gpu: &Gpu| gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        let mut marks = Vec::with_capacity(self.gpus.len());
        for gpu in &self.gpus {
            let (start, end) = (new_event(gpu)?, new_event(gpu)?);
            gpu.record(&start)?;
            marks.push((start, end));
        }
        f()?;
        for (gpu, (_, end)) in self.gpus.iter().zip(&marks) {
            gpu.record(end)?;
        }
        let mut longest = 0f64;
        for (start, end) in &marks {
            end.synchronize()?;
            longest = longest.max(start.elapsed_ms(end)? as f64);
        }
        Ok(longest)
    }
}
