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
use std::sync::MutexGuard;

/// How long the hold waits for the host before giving up (the timing then fails).
const HOLD_TIMEOUT_NS: u64 = 2_000_000_000;

/// Two `u32`s of pinned host memory, mapped into the device's address space: `[release,
/// outcome]` of the `hold_stream` kernel.
pub(crate) struct HoldFlag(*mut u32);

// SAFETY: the pointer is to pinned memory owned by this value; the host touches it only with
// volatile accesses, under the context's hold lock, while no hold kernel runs (or, for the
// release word, which the kernel only reads).
unsafe impl Send for HoldFlag {}
unsafe impl Sync for HoldFlag {}

impl Drop for HoldFlag {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `Gpu::time_ms`, freed once.
        unsafe {
            let _ = cudarc::driver::result::free_host(self.0.cast());
        }
    }
}

/// A held stream: the hold kernel is queued on it and spins until [`Hold::release`]. Dropping
/// it releases the hold and waits for the stream, on every path out of a timing (an error or a
/// panic in the timed work included): the hold kernel reads and writes the flag, so neither the
/// next timing nor the flag's free may come before it has finished. The context's hold lock is
/// kept until then (one timing at a time per context).
pub(crate) struct Hold<'a> {
    gpu: &'a Gpu,
    flag: *mut u32,
    _lock: MutexGuard<'a, Option<HoldFlag>>,
}

impl Hold<'_> {
    /// Lets the held stream go on (the work queued behind the hold starts).
    pub(crate) fn release(&self) {
        // SAFETY: the hold's release word, valid while the lock is ours; the kernel only reads it.
        unsafe { write_volatile(self.flag, 1) };
    }

    /// Releases the hold, waits for the stream, and says whether the hold saw its release
    /// before giving up ([`Error::InvalidInput`] if not: the timed work waited for the held
    /// stream, so the timing measured the hold's timeout).
    pub(crate) fn finish(self) -> Result<()> {
        self.release();
        self.gpu.synchronize()?;
        // SAFETY: the stream has been synchronized, so the hold has finished writing.
        let outcome = unsafe { read_volatile(self.flag.add(1)) };
        if outcome != 1 {
            return Err(Error::InvalidInput(
                "time_ms: the timed work waited for the held stream (a first call of a primitive loads its kernels, \
                 which waits for the device: run the work once before timing it; time work that reads back with \
                 paced_time_ms)"
                    .into(),
            ));
        }
        Ok(())
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        self.release();
        // An error here means the context has failed, and with it the hold kernel.
        let _ = self.gpu.synchronize();
    }
}

impl Gpu {
    /// Holds the stream: queues the one-thread hold kernel, which spins until the returned
    /// [`Hold`] is released (or gives up after [`HOLD_TIMEOUT_NS`]). Refused while another
    /// timing on this context holds its stream.
    pub(crate) fn hold(&self) -> Result<Hold<'_>> {
        self.refuse_in_capture("a timing waits for the stream")?;
        let mut lock = match self.loaded().hold.try_lock() {
            Ok(h) => h,
            // A panic inside an earlier timing: its `Hold` was still dropped, the flag is idle.
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                return Err(Error::InvalidInput(
                    "time_ms: another timing is running on this context (timings hold the device, one at a time)"
                        .into(),
                ))
            }
        };
        if lock.is_none() {
            self.context().bind_to_thread()?;
            // SAFETY: 8 bytes of pinned host memory; with unified addressing (every 64-bit CUDA
            // platform) its host pointer is also its device address.
            let p = unsafe { cudarc::driver::result::malloc_host(8, cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP)? };
            *lock = Some(HoldFlag(p as *mut u32));
        }
        let flag = lock.as_ref().expect("set above").0;
        // SAFETY: `flag` is the hold's two pinned words; no hold kernel is running now (the lock
        // is ours, and every timing waits for its hold to finish before releasing it).
        unsafe {
            write_volatile(flag, 0);
            write_volatile(flag.add(1), 0);
        }
        let f_hold = self.function(warpwork_abi::kernels::HOLD_STREAM)?;
        let mut l = self.kernel_args();
        let flag_addr = flag as u64;
        l.value(&flag_addr).value(&HOLD_TIMEOUT_NS);
        // SAFETY: `hold_stream(flag, timeout_ns)` reads `flag[0]` and writes `flag[1]`, both
        // valid mapped host memory until the `Hold` has waited for the kernel (the flag is freed
        // only with the context's last handle, and the lock is held until then).
        unsafe { l.launch(f_hold, LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 })? };
        Ok(Hold { gpu: self, flag, _lock: lock })
    }

    /// Milliseconds the device spends on the work `f` issues to [`Gpu::stream`], measured with
    /// a pair of CUDA events around it while the stream is held until all of it is queued (see
    /// the module docs). `f` must not wait for the stream, nor issue more launches than the
    /// driver queues (about a thousand: the host would wait for room in a held queue); use
    /// [`Gpu::paced_time_ms`] for those (criterion's batches of many iterations are the latter).
    /// A first call of a primitive waits (loading its kernels waits for the device, which the
    /// hold keeps busy): run the work once before timing it. A timing whose work waited is
    /// refused with [`Error::InvalidInput`] once the hold gives up (after 2 s). **Waits** for
    /// the stream. One timing at a time per context: a second one while one runs
    /// (another thread, or `f` itself) is refused with [`Error::InvalidInput`].
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let src = gpu.filled::<u8>(1 << 20, 1)?;
    /// let mut dst = gpu.zeros::<u8>(1 << 20)?;
    /// let ms = gpu.time_ms(|| gpu.copy(&src, &mut dst))?;
    /// println!("{:.1} GB/s", warpwork::timing::gbps(2 << 20, ms));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let hold = self.hold()?;
        let timed = self.paced_time_ms(|| {
            let queued = f();
            hold.release();
            queued
        });
        let held = hold.finish();
        let ms = timed?;
        held.map(|()| ms)
    }

    /// Milliseconds between CUDA events recorded before and after the work `f` issues, without
    /// holding the stream: includes the device's waits for the host's launches. **Waits** for
    /// the stream.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[3u32; 1000])?;
    /// // A read-back waits for the host: time it paced.
    /// let ms = gpu.paced_time_ms(|| gpu.expand(&counts, warpwork::expand::Strategy::ScanFused, 3000).map(|_| ()))?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn paced_time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        self.refuse_in_capture("a timing waits for the stream")?;
        let start = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        self.record(&start)?;
        f()?;
        self.record(&end)?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)? as f64)
    }

    /// Records `event` on the stream calls on this handle go to (raw ones included).
    pub(crate) fn record(&self, event: &CudaEvent) -> Result<()> {
        // SAFETY: an event and a stream of this handle's context.
        unsafe { sys::cuEventRecord(event.cu_event(), self.cu_stream()).result()? };
        Ok(())
    }

    /// Median of `reps` [`Gpu::time_ms`] timings of `f` after `warmup` untimed runs.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(1 << 20)?;
    /// let ms = gpu.median_ms(2, 9, || gpu.fill_bytes(&mut v, 7))?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn median_ms(&self, warmup: usize, reps: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.median_of(warmup, reps, f, false)
    }

    /// Median of `reps` [`Gpu::paced_time_ms`] timings of `f` after `warmup` untimed runs.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1u32, 5, 9])?;
    /// let ms = gpu.median_paced_ms(1, 5, || {
    ///     gpu.select_if(&items, warpwork::select::Predicate::Less(6), warpwork::select::Variant::Block).map(|_| ())
    /// })?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
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
    /// **Allocates** two buffers of `bytes`; waits.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// println!("copy roof {:.0} GB/s", gpu.copy_roof_gbps(1 << 28)?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn copy_roof_gbps(&self, bytes: usize) -> Result<f64> {
        let src = self.filled::<u8>(bytes, 0x5a)?;
        let mut dst = self.zeros::<u8>(bytes)?;
        let ms = self.median_ms(2, 9, || self.copy(&src, &mut dst))?;
        Ok(gbps(2 * bytes as u64, ms))
    }
}

/// GB/s (10^9 bytes per second) for `bytes` moved in `ms` milliseconds.
///
/// # Examples
/// ```
/// assert_eq!(warpwork::timing::gbps(2_000_000_000, 1000.0), 2.0);
/// ```
pub fn gbps(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}
