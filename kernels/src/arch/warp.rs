//! Warp-level intrinsics: lane id, lane masks, votes, population count and shuffles.

use core::arch::asm;

pub use warpwork_abi::WARP_SIZE;

/// Lane of this thread within its warp (`%laneid`, 0..32).
#[inline(always)]
pub fn lane_id() -> u32 {
    let r: u32;
    unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// Warp of this thread within a 1D block.
#[inline(always)]
pub fn warp_id() -> u32 {
    super::thread_idx_x() / WARP_SIZE
}

macro_rules! lanemask {
    ($(#[$doc:meta])* $name:ident, $reg:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            let r: u32;
            unsafe { asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r, options(pure, nomem, nostack)) };
            r
        }
    };
}
lanemask!(/// Bits of the lanes below this one (`%lanemask_lt`): `popc(ballot & lanemask_lt())` is the
          /// rank of this lane among the voting lanes (AMD's `mbcnt`).
          lanemask_lt, "%lanemask_lt");
lanemask!(/// Bits of the lanes at or below this one (`%lanemask_le`).
          lanemask_le, "%lanemask_le");
lanemask!(/// This lane's own bit (`%lanemask_eq`).
          lanemask_eq, "%lanemask_eq");
lanemask!(/// Bits of the lanes at or above this one (`%lanemask_ge`).
          lanemask_ge, "%lanemask_ge");
lanemask!(/// Bits of the lanes above this one (`%lanemask_gt`).
          lanemask_gt, "%lanemask_gt");

/// `__ballot_sync(0xffffffff, p)`: bit `i` is set when lane `i` passed `true`.
#[inline(always)]
pub fn ballot(p: bool) -> u32 {
    let r: u32;
    unsafe {
        asm!("{{ .reg .pred %p; setp.ne.u32 %p, {x}, 0; vote.sync.ballot.b32 {r}, %p, 0xffffffff; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nomem, nostack))
    };
    r
}

/// `__syncwarp()` (`bar.warp.sync 0xffffffff`): the lanes of the warp reconverge, and their
/// shared-memory accesses before it are visible to each other after it. Needed between a lane's
/// store to a warp-private shared slot and another lane's load of it.
#[inline(always)]
pub fn sync_warp() {
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) };
}

/// `__all_sync(0xffffffff, p)`.
#[inline(always)]
pub fn vote_all(p: bool) -> bool {
    ballot(p) == u32::MAX
}

/// `__any_sync(0xffffffff, p)`.
#[inline(always)]
pub fn vote_any(p: bool) -> bool {
    ballot(p) != 0
}

/// Population count (`popc.b32`).
#[inline(always)]
pub fn popc(x: u32) -> u32 {
    x.count_ones()
}

/// Rank of this lane among the lanes whose bit is set in `mask` (AMD's `mbcnt(mask)`).
#[inline(always)]
pub fn rank_in(mask: u32) -> u32 {
    popc(mask & lanemask_lt())
}

macro_rules! shfl {
    ($(#[$doc:meta])* $name:ident, $mode:literal, $clamp:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(v: u32, lane_or_delta: u32) -> u32 {
            let r: u32;
            unsafe {
                asm!(concat!("shfl.sync.", $mode, ".b32 {r}, {v}, {l}, ", $clamp, ", 0xffffffff;"),
                     r = out(reg32) r, v = in(reg32) v, l = in(reg32) lane_or_delta,
                     options(nomem, nostack))
            };
            r
        }
    };
}
shfl!(/// `__shfl_sync`: the value of lane `lane` (broadcast when `lane` is warp-uniform).
      shfl_idx, "idx", "0x1f");
shfl!(/// `__shfl_xor_sync`: the value of lane `lane_id() ^ mask` (butterfly reductions).
      shfl_xor, "bfly", "0x1f");
shfl!(/// `__shfl_up_sync`: the value of lane `lane_id() - delta`; lanes below `delta` keep their own.
      shfl_up, "up", "0x0");
shfl!(/// `__shfl_down_sync`: the value of lane `lane_id() + delta`; the top `delta` lanes keep their own.
      shfl_down, "down", "0x1f");

/// [`shfl_idx`] for any `Copy` value, moved one 32-bit word at a time. `T`'s size must be a
/// multiple of 4 bytes (checked at compile time).
#[inline(always)]
pub fn shfl_idx_any<T: Copy>(v: T, lane: u32) -> T {
    by_words(v, |w| shfl_idx(w, lane))
}

/// [`shfl_down`] for any `Copy` value, moved one 32-bit word at a time: lane `l` gets lane
/// `l + delta`'s value (the top `delta` lanes keep their own). `T`'s size must be a multiple of
/// 4 bytes (checked at compile time).
#[inline(always)]
pub fn shfl_down_any<T: Copy>(v: T, delta: u32) -> T {
    by_words(v, |w| shfl_down(w, delta))
}

/// `v` with `f` applied to each of its 32-bit words (a shuffle moves one word at a time).
#[inline(always)]
fn by_words<T: Copy>(v: T, f: impl Fn(u32) -> u32) -> T {
    const { assert!(core::mem::size_of::<T>().is_multiple_of(4)) };
    let mut out = core::mem::MaybeUninit::<T>::uninit();
    let words = core::mem::size_of::<T>() / 4;
    let src = &v as *const T as *const u32;
    let dst = out.as_mut_ptr() as *mut u32;
    let mut i = 0;
    while i < words {
        unsafe { dst.add(i).write_unaligned(f(src.add(i).read_unaligned())) };
        i += 1;
    }
    unsafe { out.assume_init() }
}
