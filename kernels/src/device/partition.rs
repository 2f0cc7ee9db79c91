//! List partitioning: which indices of an `n`-item list each thread of a launch processes.
//!
//! Two orders of the same work ("thread-wise vs group-wise list partitioning"):
//!
//! * [`thread_wise`]: thread `g` takes the contiguous chunk `g·k .. g·k + k`. The CPU habit
//!   (each core streams its own cache lines), but on a GPU the 32 lanes of one load instruction
//!   touch 32 addresses `k` items apart: up to 32 memory transactions per instruction, each
//!   mostly wasted unless the cache keeps the line until the lane's next iteration.
//! * [`group_wise`]: the threads of a block take a tile of `k · blockDim` items together; step
//!   `j` of thread `t` is `tile + j·blockDim + t`, so each warp load is one contiguous run
//!   (coalesced). [`grid_stride`] is the same order at grid scope: step `j` of global thread `g`
//!   is `j·gridThreads + g`.
//!
//! Each returns an [`Indices`] iterator; use it as `for i in group_wise(n, k) { ... }`.
//! Indices are `usize` (64-bit), so lists longer than 2^32 work.

use crate::arch::{block_dim_x, block_idx_x, global_thread_idx, grid_threads, thread_idx_x};

/// An arithmetic progression of indices `next, next + stride, ...` below `end`.
#[derive(Clone, Copy)]
pub struct Indices {
    next: usize,
    end: usize,
    stride: usize,
}

impl Iterator for Indices {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.next < self.end {
            let i = self.next;
            self.next += self.stride;
            Some(i)
        } else {
            None
        }
    }
}

/// This thread's contiguous chunk of `items_per_thread` items of an `n`-item list (1D launch).
/// Launch `ceil(n / (items_per_thread · blockDim))` blocks.
#[inline(always)]
pub fn thread_wise(n: usize, items_per_thread: usize) -> Indices {
    let start = global_thread_idx() as usize * items_per_thread;
    Indices { next: start, end: n.min(start + items_per_thread), stride: 1 }
}

/// This thread's items of its block's tile of `items_per_thread · blockDim` items, walked by the
/// block together (coalesced). Launch `ceil(n / (items_per_thread · blockDim))` blocks.
#[inline(always)]
pub fn group_wise(n: usize, items_per_thread: usize) -> Indices {
    let threads = block_dim_x() as usize;
    let tile = block_idx_x() as usize * items_per_thread * threads;
    Indices { next: tile + thread_idx_x() as usize, end: n.min(tile + items_per_thread * threads), stride: threads }
}

/// This thread's items when the whole grid walks the list together (the grid-stride loop): any
/// grid size covers all `n` items.
#[inline(always)]
pub fn grid_stride(n: usize) -> Indices {
    Indices { next: global_thread_idx() as usize, end: n, stride: grid_threads() as usize }
}
