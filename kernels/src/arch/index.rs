//! Thread, block and grid indices, and the block barrier.

use core::arch::nvptx;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    unsafe { nvptx::_thread_idx_x() as u32 }
}
/// `threadIdx.y`.
#[inline(always)]
pub fn thread_idx_y() -> u32 {
    unsafe { nvptx::_thread_idx_y() as u32 }
}
/// `blockIdx.x`.
#[inline(always)]
pub fn block_idx_x() -> u32 {
    unsafe { nvptx::_block_idx_x() as u32 }
}
/// `blockIdx.y`.
#[inline(always)]
pub fn block_idx_y() -> u32 {
    unsafe { nvptx::_block_idx_y() as u32 }
}
/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    unsafe { nvptx::_block_dim_x() as u32 }
}
/// `blockDim.y`.
#[inline(always)]
pub fn block_dim_y() -> u32 {
    unsafe { nvptx::_block_dim_y() as u32 }
}
/// `gridDim.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    unsafe { nvptx::_grid_dim_x() as u32 }
}
/// `gridDim.y`.
#[inline(always)]
pub fn grid_dim_y() -> u32 {
    unsafe { nvptx::_grid_dim_y() as u32 }
}

/// Linear index of this thread in a 1D grid: `blockIdx.x * blockDim.x + threadIdx.x`.
/// 64-bit so that grids over more than 2^32 threads index correctly.
#[inline(always)]
pub fn global_thread_idx() -> u64 {
    block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64
}

/// Total threads of a 1D grid: the stride of a grid-stride loop.
#[inline(always)]
pub fn grid_threads() -> u64 {
    grid_dim_x() as u64 * block_dim_x() as u64
}

/// `__syncthreads()`: block-wide barrier that also orders shared and global memory accesses of the
/// block's threads. Every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    unsafe { nvptx::_syncthreads() }
}

/// `griddepcontrol.launch_dependents` (sm_90 builds; nothing on older ones): this block lets
/// the kernel launched after this one on the stream with programmatic dependent launch start
/// (once every block of this grid has said so or exited). It orders nothing: the dependent
/// still calls [`grid_dependency_wait`] before it reads what this grid writes.
#[inline(always)]
pub fn grid_launch_dependents() {
    #[cfg(feature = "sm90")]
    unsafe {
        core::arch::asm!("griddepcontrol.launch_dependents;", options(nostack))
    };
}

/// `griddepcontrol.wait` (sm_90 builds; nothing on older ones, whose launches never overlap):
/// waits until the grids this one depends on have finished and their memory is visible. Without
/// programmatic dependent launch it returns at once.
#[inline(always)]
pub fn grid_dependency_wait() {
    #[cfg(feature = "sm90")]
    unsafe {
        core::arch::asm!("griddepcontrol.wait;", options(nostack))
    };
}

/// `%globaltimer`: the device's nanosecond clock (shared by all SMs, unlike `%clock64`).
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    let t: u64;
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) };
    t
}

/// `nanosleep.u32`: suspends the thread for about `ns` nanoseconds (the hardware picks up to
/// twice that). A polling loop that sleeps between polls leaves the L2 to the work it waits for.
///
/// Only in the `sm90` build: the sm_70 module is PTX ISA 6.0 (rustc's default for sm_70), and
/// `nanosleep` needs 6.3, so there this returns at once and the poll does not pause.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    #[cfg(feature = "sm90")]
    unsafe {
        core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nostack))
    };
    #[cfg(not(feature = "sm90"))]
    let _ = ns;
}

/// `x`, through a register move the optimizer cannot see through: as a loop bound, keeps a
/// cold loop from being unrolled (see the look-back's fallbacks).
#[inline(always)]
pub fn opaque(x: usize) -> usize {
    let y: usize;
    // SAFETY: a register move.
    unsafe { core::arch::asm!("mov.u64 {y}, {x};", x = in(reg64) x, y = out(reg64) y, options(pure, nomem, nostack)) };
    y
}
