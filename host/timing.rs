//! Timing device work with CUDA events, and the copy roof every memory-bound kernel is scored
//! against.
//!
//! [`Gpu::time_ms`] holds the stream while the host queues the work (a one-thread kernel spins
//! on a flag in pinned host memory, the way nvbench's blocking kernel does), so the events time
//! what the device spends, from the first queued operation to the last, and not how fast the
//! host can issue launches. [`Gpu::paced_time_ms`] times without the hold: the device then waits
//! for each launch as the host issues it, which is what a caller that synchronizes after every
//! call sees (and the only way to time work that itself waits on the host, such as a read-back).

use crate::{Error, Gpu, Result};
use cudarc::driver::sys::{self, CUevent_flags};
use cudarc::driver::{CudaEvent, LaunchConfig};
use std::ptr::{read_volatile, write_volatile};

/// How long the hold waits for the host before giving up (the timing then fails).
const HOLD_TIMEOUT_NS: u64 = 2_000_000_000;

/// Two `u32`s of pinned host memory, mapped into the device's address space: `[release,
/// outcome]` of the `hold_stream` kernel.
pub(crate) struct HoldFlag(*mut u32);

// SAFETY: the pointer is to pinned memory owned by this value; the host touches it only with
// volatile accesses between launches of the hold kernel.
unsafe impl Send for HoldFlag {}
unsafe impl Sync for HoldFlag {}

impl Drop for HoldFlag {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `Gpu::hold_flag`, freed once.
        unsafe {
            let _ = cudarc::driver::result::free_host(self.0.cast());
        }
    }
}

impl Gpu {
    fn hold_flag(&self) -> Result<&HoldFlag> {
        let hold = &self.loaded().hold;
        if let Some(h) = hold.get() {
            return Ok(h);
        }
        self.context().bind_to_thread()?;
        // SAFETY: 8 bytes of pinned host memory; with unified addressing (every 64-bit CUDA
        // platform) its host pointer is also its device address.
        let p = unsafe { cudarc::driver::result::malloc_host(8, cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP)? }
            as *mut u32;
        let _ = hold.set(HoldFlag(p));
        Ok(hold.get().expect("set above"))
    }

    /// Milliseconds the device spends on the work `f` issues to [`Gpu::stream`], measured with
    /// a pair of CUDA events around it while the stream is held until all of it is queued (see
    /// the module docs). `f` must not wait for the stream, nor issue more launches than the
    /// driver queues (about a thousand: the host would wait for room in a held queue); use
    /// [`Gpu::paced_time_ms`] for those (criterion's batches of many iterations are the latter).
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let flag = self.hold_flag()?.0;
        // SAFETY: `flag` is the hold's two pinned words; no hold kernel is running now (every
        // timing waits for its end event, which follows the hold).
        unsafe {
            write_volatile(flag, 0);
            write_volatile(flag.add(1), 0);
        }
        let hold = self.function(warpwork_abi::kernels::HOLD_STREAM)?;
        let mut l = self.kernel_args();
        let flag_addr = flag as u64;
        l.value(&flag_addr).value(&HOLD_TIMEOUT_NS);
        // SAFETY: `hold_stream(flag, timeout_ns)` reads `flag[0]` and writes `flag[1]`, both
        // valid mapped host memory for as long as this `Gpu` lives.
        unsafe { l.launch(hold, LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 })? };
        let timed = self.paced_time_ms(|| {
            let queued = f();
            // SAFETY: as above; the hold only reads this word.
            unsafe { write_volatile(flag, 1) };
            queued
        });
        // SAFETY: the end event has completed, so the hold has finished writing.
        let outcome = unsafe { read_volatile(flag.add(1)) };
        let ms = timed?;
        if outcome != 1 {
            return Err(Error::InvalidInput(
                "time_ms: the timed work waited for the held stream (time it with paced_time_ms)".into(),
            ));
        }
        Ok(ms)
    }

    /// Milliseconds between CUDA events recorded before and after the work `f` issues, without
    /// holding the stream: includes the device's waits for the host's launches.
    pub fn paced_time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let start = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        self.record(&start)?;
        f()?;
        self.record(&end)?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)? as f64)
    }

    /// Records `event` on the stream calls on this handle go to (raw ones included).
    fn record(&self, event: &CudaEvent) -> Result<()> {
        // SAFETY: an event and a stream of this handle's context.
        unsafe { sys::cuEventRecord(event.cu_event(), self.cu_stream()).result()? };
        Ok(())
    }

    /// Median of `reps` [`Gpu::time_ms`] timings of `f` after `warmup` untimed runs.
    pub fn median_ms(&self, warmup: usize, reps: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.median_of(warmup, reps, f, false)
    }

    /// Median of `reps` [`Gpu::paced_time_ms`] timings of `f` after `warmup` untimed runs.
    pub fn median_paced_ms(&self, warmup: usize, reps: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.median_of(warmup, reps, f, true)
    }

    fn median_of(&self, warmup: usize, reps: usize, mut f: impl FnMut() -> Result<()>, paced: bool) -> Result<f64> {
        for _ in 0..warmup {
            f()?;
        }
        self.synchronize()?;
        let mut times = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            times.push(if paced { self.paced_time_ms(&mut f)? } else { self.time_ms(&mut f)? });
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }

    /// Device-to-device copy bandwidth in GB/s (10^9 bytes/s), counting bytes read plus bytes
    /// written, for a copy of `bytes` bytes: the roof for kernels that stream memory once.
    pub fn copy_roof_gbps(&self, bytes: usize) -> Result<f64> {
        let src = self.filled::<u8>(bytes, 0x5a)?;
        let mut dst = self.zeros::<u8>(bytes)?;
        let ms = self.median_ms(2, 9, || self.copy(&src, &mut dst))?;
        Ok(gbps(2 * bytes as u64, ms))
    }
}

/// GB/s (10^9 bytes per second) for `bytes` moved in `ms` milliseconds.
pub fn gbps(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}
