//! Timings with their spread: min, median and max of the timed repetitions ([`Stats`]).
//!
//! The library's `Gpu::median_ms` keeps only the median; the same loop here times each
//! repetition with the library's single-run timers ([`Gpu::time_ms`], the stream held while
//! the work is queued, or [`Gpu::paced_time_ms`]) and keeps every sample.

use super::BenchArgs;
use crate::report::Stats;
use std::time::Instant;
use warpwork::{Gpu, Result};

/// [`Stats`] of `reps` (at least 1) timings of `f` after `warmup` untimed runs: with the stream
/// held ([`Gpu::time_ms`]), or each run on its own when `paced` ([`Gpu::paced_time_ms`]).
pub fn gpu_stats(
    gpu: &Gpu,
    warmup: usize,
    reps: usize,
    paced: bool,
    mut f: impl FnMut() -> Result<()>,
) -> Result<Stats> {
    for _ in 0..warmup {
        f()?;
    }
    gpu.synchronize()?;
    let mut samples = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        samples.push(if paced { gpu.paced_time_ms(&mut f)? } else { gpu.time_ms(&mut f)? });
    }
    Ok(Stats::of(samples))
}

/// [`Stats`] of the wall time of `f` on the CPU, in milliseconds: `reps` (at least 1) timed
/// runs after one untimed.
pub fn cpu_stats(reps: usize, mut f: impl FnMut()) -> Stats {
    f();
    Stats::of(
        (0..reps.max(1))
            .map(|_| {
                let s = Instant::now();
                f();
                s.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

impl BenchArgs {
    /// The device time of `f` over [`BenchArgs::reps`] runs after `warmup`: with the stream
    /// held, or each run on its own with `--paced`.
    pub fn time(&self, gpu: &Gpu, warmup: usize, f: impl FnMut() -> Result<()>) -> Result<Stats> {
        gpu_stats(gpu, warmup, self.reps(), self.paced(), f)
    }

    /// [`BenchArgs::time`] over `reps` runs.
    pub fn time_of(&self, gpu: &Gpu, warmup: usize, reps: usize, f: impl FnMut() -> Result<()>) -> Result<Stats> {
        gpu_stats(gpu, warmup, reps, self.paced(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_timings_keep_every_repetition() {
        let mut runs = 0;
        let s = cpu_stats(4, || runs += 1);
        assert_eq!(runs, 5, "one untimed run, then four timed");
        assert!(s.min <= s.median && s.median <= s.max && s.min >= 0.0);
        cpu_stats(0, || runs += 1);
        assert_eq!(runs, 7, "at least one timed run");
    }
}
