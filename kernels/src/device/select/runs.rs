//! Run-length encoding's second pass: run lengths from run offsets.

use crate::arch::{block_dim_x, block_idx_x, grid_dim_x, thread_idx_x};

/// A run length as the second pass writes it (`u32` or `u64`).
pub trait RunLength: Copy {
    /// `x` (the caller made sure it fits).
    fn from_u64(x: u64) -> Self;
}
impl RunLength for u32 {
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        x as u32
    }
}
impl RunLength for u64 {
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        x
    }
}

/// `lengths[r] = offsets[r + 1] − offsets[r]` for `r` below `min(*count, capacity)`, and
/// `n − offsets[r]` for the last run (`r + 1 == *count`); nothing is read at or past `capacity`
/// (a run whose successor's offset was not stored, because the output was too small, gets no
/// length). A grid-stride loop over any grid.
///
/// # Safety
/// `offsets` holds `min(*count, capacity)` offsets (written by the first pass, finished before
/// this launch), `lengths` holds `capacity` items; `count` is a global `u64`.
#[inline(always)]
pub unsafe fn run_lengths<L: RunLength>(
    offsets: *const u64,
    count: *const u64,
    n: u64,
    capacity: u64,
    lengths: *mut L,
) {
    let runs = *count;
    let end = runs.min(capacity);
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut r = block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64;
    while r < end {
        let next = if r + 1 == runs {
            Some(n)
        } else if r + 1 < capacity {
            Some(*offsets.add(r as usize + 1))
        } else {
            None
        };
        if let Some(next) = next {
            *lengths.add(r as usize) = L::from_u64(next - *offsets.add(r as usize));
        }
        r += stride;
    }
}

/// `out[r] = values[offsets[r]]` for `r` below `min(*count, capacity)`: each run's value, for
/// unique by key (the offsets are the key runs' first indices). A grid-stride loop over any grid.
///
/// # Safety
/// `offsets` holds `min(*count, capacity)` indices into `values` (written by the first pass,
/// finished before this launch), `out` holds `capacity` items; `count` is a global `u64`.
#[inline(always)]
pub unsafe fn gather_runs<V: Copy>(
    offsets: *const u64,
    count: *const u64,
    capacity: u64,
    values: *const V,
    out: *mut V,
) {
    let end = (*count).min(capacity);
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut r = block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64;
    while r < end {
        *out.add(r as usize) = *values.add(*offsets.add(r as usize) as usize);
        r += stride;
    }
}

/// Run `k` of the runs longer than one item, for `k` below `min(*bound_count / 2, capacity)`:
/// `offsets[k] = bounds[2k]`, `lengths[k] = bounds[2k + 1] − bounds[2k] + 1` (the bounds are
/// the first and the last index of each run, alternately); and `*count = *bound_count / 2`
/// (block 0, thread 0). A grid-stride loop over any grid.
///
/// # Safety
/// `bounds` holds `min(*bound_count, 2 · capacity)` indices (written by the first pass, finished
/// before this launch), `offsets` and `lengths` `capacity` items each; `bound_count` and `count`
/// are distinct global `u64`s.
#[inline(always)]
pub unsafe fn run_bounds<L: RunLength>(
    bounds: *const u64,
    bound_count: *const u64,
    count: *mut u64,
    capacity: u64,
    offsets: *mut L,
    lengths: *mut L,
) {
    let runs = *bound_count / 2;
    if block_idx_x() == 0 && thread_idx_x() == 0 {
        *count = runs;
    }
    let end = runs.min(capacity);
    let stride = grid_dim_x() as u64 * block_dim_x() as u64;
    let mut k = block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64;
    while k < end {
        let (first, last) = (*bounds.add(2 * k as usize), *bounds.add(2 * k as usize + 1));
        *offsets.add(k as usize) = L::from_u64(first);
        *lengths.add(k as usize) = L::from_u64(last - first + 1);
        k += stride;
    }
}
