//! One cell per element (`u32` or `u8`, 0 dead / non-zero alive): the compute-shader kernels.
//! Each takes the packed rule (`abi::pack_rule`) and decides a cell with `abi::rule`.

use super::{rule as cell_rule, wrap, MULTI_CELLS, TILE};
use warpwork_kernels::arch::lane_id;

/// Brute force: counts the eight neighbours of `(x, y)` with the compute-shader version's modulo
/// wrap `(x + dx + width) % width` and writes the next state (0 or 1). `T` is `u32` or `u8`.
///
/// # Safety
/// `src` and `dst` hold `width · height` cells; `x < width`, `y < height`.
#[inline(always)]
pub unsafe fn naive_cell<T: Copy + Into<u32> + From<bool>>(
    src: *const T,
    dst: *mut T,
    width: u32,
    height: u32,
    x: u32,
    y: u32,
    rule: u32,
) {
    let (w, h) = (width as u64, height as u64);
    let mut n = 0u32;
    for dy in 0..3u64 {
        for dx in 0..3u64 {
            if dx == 1 && dy == 1 {
                continue;
            }
            let nx = (x as u64 + dx + w - 1) % w;
            let ny = (y as u64 + dy + h - 1) % h;
            n += ((*src.add((ny * w + nx) as usize)).into() != 0) as u32;
        }
    }
    let i = y as usize * width as usize + x as usize;
    let alive = (*src.add(i)).into() != 0;
    *dst.add(i) = T::from(cell_rule(rule, alive, n));
}

/// Sparse write-skip (states 0/1 = "unchanged since the last step", 2/3 = "just
/// changed", bit 0 = alive). `dst` holds the generation before `src`; a cell that is unchanged
/// now and was unchanged the step before already has the right value there, so it is not
/// written. Invariant: where a cell's flag is 0, the other buffer holds the same alive bit
/// (start with both buffers equal, flags 0).
///
/// # Safety
/// As [`naive_cell`].
#[inline(always)]
pub unsafe fn sparse_cell(src: *const u32, dst: *mut u32, width: u32, height: u32, x: u32, y: u32, rule: u32) {
    let w = width as usize;
    let (xl, xr) = (wrap(x, -1, width) as usize, wrap(x, 1, width) as usize);
    let mut n = 0;
    for (r, ny) in [wrap(y, -1, height), y, wrap(y, 1, height)].into_iter().enumerate() {
        let row = src.add(ny as usize * w);
        n += (*row.add(xl) & 1) + (*row.add(xr) & 1);
        // By position, not by row number: on a board one row high, the rows above and below
        // are the cell's own row, and the cell is its own north and south neighbour.
        if r != 1 {
            n += *row.add(x as usize) & 1;
        }
    }
    let i = y as usize * w + x as usize;
    let state = *src.add(i);
    let alive = state & 1 != 0;
    let next = cell_rule(rule, alive, n);
    if next != alive {
        *dst.add(i) = 2 | next as u32;
    } else if state > 1 {
        *dst.add(i) = state - 2;
    }
}

/// Several cells per thread: the [`MULTI_CELLS`] cells `x0 ..` of row `y`, with the
/// `3 × (MULTI_CELLS + 2)` neighbourhood loaded once into registers (each load serves up to
/// three cells instead of one).
///
/// # Safety
/// As [`naive_cell`], with `x0 < width`.
#[inline(always)]
pub unsafe fn multi_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, x0: u32, y: u32, rule: u32) {
    const C: usize = MULTI_CELLS;
    let w = width as usize;
    let mut win = [[0u32; C + 2]; 3];
    let rows = [wrap(y, -1, height), y, wrap(y, 1, height)];
    for r in 0..3 {
        let row = src.add(rows[r] as usize * w);
        let mut x = wrap(x0, -1, width);
        for c in 0..C + 2 {
            win[r][c] = (*row.add(x as usize) != 0) as u32;
            x = wrap(x, 1, width);
        }
    }
    let out = dst.add(y as usize * w);
    for c in 0..C {
        let x = x0 as usize + c;
        if x < w {
            let n = win[0][c]
                + win[0][c + 1]
                + win[0][c + 2]
                + win[1][c]
                + win[1][c + 2]
                + win[2][c]
                + win[2][c + 1]
                + win[2][c + 2];
            *out.add(x) = cell_rule(rule, win[1][c + 1] != 0, n) as u32;
        }
    }
}

/// Shared-memory words of [`tiled_cells`]: the tile plus a one-cell halo.
pub const TILE_SHARED: usize = ((TILE + 2) * (TILE + 2)) as usize;

/// Shared-memory tile with halo: a `TILE × TILE` block loads its `(TILE + 2)²` neighbourhood
/// into shared memory once (each cell read from global memory about 1.3 times instead of 9),
/// then each thread counts from shared memory.
///
/// # Safety
/// As [`naive_cell`]; `tile` points to [`TILE_SHARED`] words of shared memory; the block is
/// `TILE × TILE` threads and every thread calls this. `width < 2^31` (and `height < 2^31`): the
/// halo index `bx + sx + width − 1` is computed in `u32` (the host's `Kernel::check_size`).
#[inline(always)]
pub unsafe fn tiled_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, tile: *mut u32, rule: u32) {
    use warpwork_kernels::arch::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y};
    const S: u32 = TILE + 2;
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (bx, by) = (block_idx_x() * TILE, block_idx_y() * TILE);
    let w = width as usize;
    let mut i = ty * TILE + tx;
    while i < S * S {
        let (sx, sy) = (i % S, i / S);
        // (bx + sx - 1) mod width without underflow; bx + sx may pass the edge of a partial tile.
        let gx = (bx + sx + width - 1) % width;
        let gy = (by + sy + height - 1) % height;
        *tile.add(i as usize) = (*src.add(gy as usize * w + gx as usize) != 0) as u32;
        i += TILE * TILE;
    }
    sync_threads();
    let (x, y) = (bx + tx, by + ty);
    if x < width && y < height {
        let at = |dx: u32, dy: u32| *tile.add(((ty + dy) * S + tx + dx) as usize);
        let n = at(0, 0) + at(1, 0) + at(2, 0) + at(0, 1) + at(2, 1) + at(0, 2) + at(1, 2) + at(2, 2);
        *dst.add(y as usize * w + x as usize) = cell_rule(rule, at(1, 1) != 0, n) as u32;
    }
}

/// Ballot-based counting: a warp takes 32 consecutive cells of row `y` starting at `x0`; three
/// ballots turn the rows above, at and below into bit masks, and each lane counts its
/// neighbours with `popc` on a 3-bit window. Every lane of the warp must call this (the lanes
/// past the row's end vote "dead" and write nothing).
///
/// # Safety
/// As [`naive_cell`], with `x0 < width` and `x0` warp-uniform.
#[inline(always)]
pub unsafe fn ballot_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, x0: u32, y: u32, rule: u32) {
    let lane = lane_id();
    let x = x0 + lane;
    let inside = x < width;
    let w = width as usize;
    // The last lane inside the row; its east neighbour and lane 0's west one come from memory.
    let last = (width - x0).min(32) - 1;
    let west = wrap(x0, -1, width);
    let east = if x0 + last + 1 == width { 0 } else { x0 + last + 1 };
    let mut masks = [0u64; 3];
    let rows = [wrap(y, -1, height), y, wrap(y, 1, height)];
    for r in 0..3 {
        let row = src.add(rows[r] as usize * w);
        let v = inside && *row.add(x.min(width - 1) as usize) != 0;
        let m = warpwork_kernels::arch::ballot(v) as u64;
        let wb = (*row.add(west as usize) != 0) as u64;
        let eb = (*row.add(east as usize) != 0) as u64;
        // Bit i + 1 is lane i; bit 0 the west neighbour of lane 0; bit last + 2 the east one.
        masks[r] = wb | (m << 1) | (eb << (last + 2));
    }
    let n = ((masks[0] >> lane) & 7).count_ones()
        + ((masks[1] >> lane) & 5).count_ones()
        + ((masks[2] >> lane) & 7).count_ones();
    if inside {
        let alive = (masks[1] >> (lane + 1)) & 1 != 0;
        *dst.add(y as usize * w + x as usize) = cell_rule(rule, alive, n) as u32;
    }
}
