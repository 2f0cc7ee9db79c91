//! S0 `MaxN`, materializing: the grid tests every one of the `p1 · max_n` slots.

use crate::arch::{atomic_or_u32, ballot, lanemask_lt, load_nc_u32, popc, thread_idx_x};
use crate::block::block_append;
use crate::device::expand::{ExpandView, FLAG_CAPACITY, FLAG_MAX_N};
use core::ptr::addr_of_mut;

pub use warpwork_abi::expand::MAXN_ITEMS;

/// S0 `MaxN` with a materialized output: the grid covers `p1 · max_n` slots (persistent,
/// block-strided); slot `s` is `(s / max_n, s % max_n)` and is kept where the local index is below
/// the source's count. Kept pairs are appended to `out` through the foundation's `block_append`
/// (one shared atomic per warp, one global atomic per block and step), so the output is dense
/// but unordered. A source whose count exceeds `max_n` raises [`FLAG_MAX_N`].
///
/// # Safety
/// `v` is valid; `scratch` is [`crate::block::BLOCK_APPEND_SCRATCH_WORDS`] shared words; `out`
/// holds `v.capacity` pairs; every thread of the block calls this.
#[inline(always)]
pub unsafe fn maxn_materialize(v: &ExpandView, scratch: *mut u32, out: *mut [u32; 2]) {
    let slots = v.p1 as u64 * v.max_n as u64;
    let threads = crate::arch::block_dim_x() as u64;
    let per_block = threads * MAXN_ITEMS as u64;
    let grid = crate::arch::grid_dim_x() as u64;
    let mut block_base = crate::arch::block_idx_x() as u64 * per_block;
    let ctrl = v.ctrl();
    while block_base < slots {
        let mut keep = [false; MAXN_ITEMS];
        let mut pair = [[0u32; 2]; MAXN_ITEMS];
        let mut masks = [0u32; MAXN_ITEMS];
        let mut warp_count = 0;
        for k in 0..MAXN_ITEMS {
            let s = block_base + k as u64 * threads + thread_idx_x() as u64;
            if s < slots {
                let src = (s / v.max_n as u64) as u32;
                let local = (s % v.max_n as u64) as u32;
                let n = load_nc_u32(v.counts().add(src as usize));
                keep[k] = local < n;
                pair[k] = [src, local];
                if local == v.max_n - 1 && n > v.max_n {
                    atomic_or_u32(addr_of_mut!((*ctrl).flags), FLAG_MAX_N);
                }
            }
            masks[k] = ballot(keep[k]);
            warp_count += popc(masks[k]);
        }
        let mut slot = block_append(scratch, addr_of_mut!((*ctrl).counter), warp_count);
        let below = lanemask_lt();
        for k in 0..MAXN_ITEMS {
            let at = slot as u64 + popc(masks[k] & below) as u64;
            if keep[k] {
                if at < v.capacity as u64 {
                    *out.add(at as usize) = pair[k];
                } else {
                    atomic_or_u32(addr_of_mut!((*ctrl).flags), FLAG_CAPACITY);
                }
            }
            slot = slot.wrapping_add(popc(masks[k]));
        }
        block_base += grid * per_block;
    }
}
