//! Checking expansions of more than 2^32 pairs on the host without a host copy of them: the
//! output comes back in chunks of [`CHUNK`] pairs through one staging buffer, and each chunk is
//! compared with the canonical expansion computed on the fly from the counts' prefix. Used by
//! the expansion tests at the `u32` limit and past it (`#[path]`-included by those binaries
//! only: the others need neither rayon nor the pinned staging).

// Each including binary uses a subset.
#![allow(dead_code)]

use rayon::prelude::*;
use std::ops::Range;
use warpwork::cudarc::driver::{sys, CudaSlice, PinnedHostSlice};
use warpwork::Gpu;
use warpwork_cpu_reference::expand as cpu;

/// Pairs per download (1 GiB).
pub const CHUNK: usize = 1 << 27;
/// A poisoned pair (every byte 0xAB).
pub const POISON: [u32; 2] = [0xABAB_ABAB; 2];

/// Each source's first destination index.
pub fn exclusive_prefix(counts: &[u32]) -> Vec<u64> {
    counts
        .iter()
        .scan(0u64, |run, &c| {
            let first = *run;
            *run += c as u64;
            Some(first)
        })
        .collect()
}

/// Whether `pairs` are pairs `first ..` of the canonical expansion of `counts`.
pub fn check_canonical(counts: &[u32], prefix: &[u64], first: u64, pairs: &[[u32; 2]]) -> Result<(), String> {
    const PART: usize = 1 << 16;
    pairs.par_chunks(PART).enumerate().try_for_each(|(k, part)| {
        let start = first + (k * PART) as u64;
        // The last source starting at or before `start`: the one holding it.
        let mut src = prefix.partition_point(|&p| p <= start).saturating_sub(1);
        let mut local = start - prefix[src];
        for (j, &got) in part.iter().enumerate() {
            while src < counts.len() && local == counts[src] as u64 {
                (src, local) = (src + 1, 0);
            }
            let at = start + j as u64;
            if src == counts.len() {
                return Err(format!("pair {at} is past the expansion's {} pairs", cpu::total(counts)));
            }
            if got != [src as u32, local as u32] {
                return Err(format!("pair {at} is {got:?}, expected {:?}", [src as u32, local as u32]));
            }
            local += 1;
        }
        Ok(())
    })
}

/// The first pair of `guard` that is not [`POISON`].
pub fn first_written(guard: &[[u32; 2]]) -> Option<usize> {
    guard.par_iter().position_first(|&p| p != POISON)
}

/// Host memory for one chunk of pairs: page-locked when the driver gives it (copies at full
/// PCIe speed, and no pages to fault in per chunk), else an ordinary vector.
pub enum Staging {
    Pinned(PinnedHostSlice<u64>),
    Pageable(Vec<[u32; 2]>),
}

impl Staging {
    pub fn new(gpu: &Gpu) -> Staging {
        // SAFETY: a chunk is read only after a copy has filled it.
        match unsafe { gpu.context().alloc_pinned_with_flags::<u64>(CHUNK, 0) } {
            Ok(p) => Staging::Pinned(p),
            Err(_) => Staging::Pageable(vec![[0; 2]; CHUNK]),
        }
    }

    fn ptr(&mut self) -> *mut [u32; 2] {
        match self {
            Staging::Pinned(p) => p.as_mut_ptr().expect("pinned staging").cast(),
            Staging::Pageable(v) => v.as_mut_ptr(),
        }
    }
}

/// Downloads `out[range]` chunk by chunk and calls `f(first index, chunk)` on each.
pub fn read_chunks(
    gpu: &Gpu,
    out: &CudaSlice<[u32; 2]>,
    range: Range<usize>,
    staging: &mut Staging,
    mut f: impl FnMut(usize, &[[u32; 2]]),
) {
    assert!(range.end <= out.len());
    let base = gpu.device_address(out).unwrap();
    let host = staging.ptr();
    let mut at = range.start;
    while at < range.end {
        let n = CHUNK.min(range.end - at);
        // SAFETY: `host` holds `CHUNK` pairs and `out[at..at + n]` lies inside `out`; the stream
        // is synchronized before the chunk is read.
        unsafe { sys::cuMemcpyDtoHAsync_v2(host.cast(), base + 8 * at as u64, 8 * n, gpu.cu_stream()).result() }
            .unwrap();
        gpu.synchronize().unwrap();
        f(at, unsafe { std::slice::from_raw_parts(host, n) });
        at += n;
    }
}
