//! Counting the live cells of a board, whatever its layout.

/// Adds the live cells of a board to `*total`: `popc(word & mask)` over the `n_bytes / 4` whole
/// 32-bit words of `data`, then `popc(byte & mask)` over a tail of fewer than 4 bytes. One mask
/// serves every layout: `1` for a `u32` per cell (bit 0 is "alive", also for the sparse kernel's
/// states 2/3), `0x0101_0101` for a byte per cell, all ones for bit-packed rows. Grid-stride;
/// one atomic per warp.
///
/// # Safety
/// `data` holds `n_bytes` bytes and is 4-byte aligned; `total` is a global `u64`. Whole warps
/// call this.
#[inline(always)]
pub unsafe fn count_live(data: *const u8, n_bytes: u64, mask: u32, total: *mut u64) {
    use warpwork_kernels::arch::{atomic_add_u64, global_thread_idx, grid_threads, lane_id, load_nc_u32};
    use warpwork_kernels::warp::warp_inclusive_sum_u64;
    let words = n_bytes / 4;
    let mut count = 0u64;
    let mut i = global_thread_idx();
    while i < words {
        count += (load_nc_u32((data as *const u32).add(i as usize)) & mask).count_ones() as u64;
        i += grid_threads();
    }
    if global_thread_idx() == 0 {
        for b in words * 4..n_bytes {
            count += (*data.add(b as usize) as u32 & mask & 0xff).count_ones() as u64;
        }
    }
    let sum = warp_inclusive_sum_u64(count);
    if lane_id() == 31 && sum != 0 {
        atomic_add_u64(total, sum);
    }
}
