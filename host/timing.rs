//! Timing device work with CUDA events, and the copy roof every memory-bound kernel is scored
//! against.

use crate::{Gpu, Result};
use cudarc::driver::sys::CUevent_flags;

impl Gpu {
    /// Milliseconds the device spends on the work `f` issues to [`Gpu::stream`], measured with a
    /// pair of CUDA events around it (the host clock would count launch and sync overhead).
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let start = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = self.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(self.stream())?;
        f()?;
        end.record(self.stream())?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)? as f64)
    }

    /// Median of `reps` timings of `f` after `warmup` untimed runs.
    pub fn median_ms(&self, warmup: usize, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
        for _ in 0..warmup {
            f()?;
        }
        let mut times = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            times.push(self.time_ms(&mut f)?);
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
