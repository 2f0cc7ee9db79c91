//! Conway's Game of Life (B3/S23) on a torus: the per-thread bodies of every kernel variant.
//!
//! Two layouts, two rule implementations:
//!
//! * **one cell per element** (`u32` or `u8`, 0 dead / non-zero alive): [`rule`] decides one cell
//!   from its neighbour count. The seed article's variants (brute force, sparse write-skip,
//!   several cells per thread, shared tile, bytes, ballot) all use it;
//! * **one bit per cell**, rows of 64-bit words with cell `x` in bit `x % 64` of word `x / 64`
//!   (least significant bit first, so the same memory read as `u32` words has cell `x` in bit
//!   `x % 32` of word `x / 32`). [`rule_sliced`] applies the rule to 32 cells at once with a
//!   bit-sliced adder: ptxas fuses its and/or/xor trees into `LOP3` instructions.
//!
//! Every neighbour index wraps around the board (a torus), for any width and height ≥ 1.

use crate::arch::{lane_id, shfl_down, shfl_up};

/// The B3/S23 rule: a dead cell with 3 live neighbours is born, a live one with 2 or 3 survives.
#[inline(always)]
pub fn rule(alive: bool, neighbours: u32) -> bool {
    neighbours == 3 || (alive && neighbours == 2)
}

/// `(a + b + c)` of three bit planes as (sum bit, carry bit): a full adder, two `LOP3`s.
#[inline(always)]
pub fn add3(a: u32, b: u32, c: u32) -> (u32, u32) {
    (a ^ b ^ c, (a & b) | (c & (a ^ b)))
}

/// The horizontal sum of one row word, `west + centre + east` per bit, as two bit planes (ones,
/// twos). `west`/`east` are the row shifted so that each bit holds its west / east neighbour.
#[inline(always)]
pub fn row_sum(west: u32, centre: u32, east: u32) -> (u32, u32) {
    add3(west, centre, east)
}

/// B3/S23 for 32 cells at once. `above`, `mid`, `below` are the [`row_sum`]s of the three rows
/// (the middle one *including* the cell itself), `alive` the cells. With the 3×3 total `t`
/// (neighbours + self), the next state is `t == 3 || (alive && t == 4)`.
///
/// `t = s + 2·(x + cy + 2y)` where `(s, cy)` adds the ones planes and `(x, y)` the twos planes;
/// `t == 3` is `s & (x ^ cy) & !y` and `t == 4` is `!s & !(x ^ cy) & (x ^ y)`: 9 logic ops,
/// which ptxas packs into `LOP3`s.
#[inline(always)]
pub fn rule_sliced(alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32 {
    let (s, cy) = add3(above.0, mid.0, below.0);
    let (x, y) = add3(above.1, mid.1, below.1);
    let p = x ^ cy;
    let q = x ^ y;
    (s & p & !y) | (!s & alive & !p & q)
}

/// `(x + d) mod n` for `d` in `-1..=1` and `x < n`, without a division.
#[inline(always)]
pub fn wrap(x: u32, d: i32, n: u32) -> u32 {
    if d < 0 {
        if x == 0 {
            n - 1
        } else {
            x - 1
        }
    } else if d > 0 {
        if x + 1 == n {
            0
        } else {
            x + 1
        }
    } else {
        x
    }
}

/// Brute force, as in the seed: counts the eight neighbours of `(x, y)` with the seed's modulo
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
    *dst.add(i) = T::from(rule(alive, n));
}

/// Sparse write-skip (the seed's states 0/1 = "unchanged since the last step", 2/3 = "just
/// changed", bit 0 = alive). `dst` holds the generation before `src`; a cell that is unchanged
/// now and was unchanged the step before already has the right value there, so it is not
/// written. Invariant: where a cell's flag is 0, the other buffer holds the same alive bit
/// (start with both buffers equal, flags 0).
///
/// # Safety
/// As [`naive_cell`].
#[inline(always)]
pub unsafe fn sparse_cell(src: *const u32, dst: *mut u32, width: u32, height: u32, x: u32, y: u32) {
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
    let next = rule(alive, n);
    if next != alive {
        *dst.add(i) = 2 | next as u32;
    } else if state > 1 {
        *dst.add(i) = state - 2;
    }
}

/// Cells per thread of [`multi_cells`].
pub const MULTI_CELLS: usize = 8;

/// Several cells per thread: the [`MULTI_CELLS`] cells `x0 ..` of row `y`, with the
/// `3 × (MULTI_CELLS + 2)` neighbourhood loaded once into registers (each load serves up to
/// three cells instead of one).
///
/// # Safety
/// As [`naive_cell`], with `x0 < width`.
#[inline(always)]
pub unsafe fn multi_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, x0: u32, y: u32) {
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
            *out.add(x) = rule(win[1][c + 1] != 0, n) as u32;
        }
    }
}

/// Side of the square thread block of [`tiled_cells`].
pub const TILE: u32 = 16;
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
pub unsafe fn tiled_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, tile: *mut u32) {
    use crate::arch::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y};
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
        *dst.add(y as usize * w + x as usize) = rule(at(1, 1) != 0, n) as u32;
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
pub unsafe fn ballot_cells(src: *const u32, dst: *mut u32, width: u32, height: u32, x0: u32, y: u32) {
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
        let m = crate::arch::ballot(v) as u64;
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
        *dst.add(y as usize * w + x as usize) = rule(alive, n) as u32;
    }
}

/// One bit per cell, one 32-bit word (32 cells) per thread, one generation: the nine words of
/// the 3×3 word neighbourhood come from global memory (through L1), the rule from
/// [`rule_sliced`].
///
/// # Safety
/// `src`/`dst` hold `words_per_row · height` words; `wx < words_per_row`, `y < height`.
#[inline(always)]
pub unsafe fn bit32_word(src: *const u32, dst: *mut u32, words_per_row: u32, height: u32, wx: u32, y: u32) {
    let wpr = words_per_row as usize;
    let (xl, xr) = (wrap(wx, -1, words_per_row) as usize, wrap(wx, 1, words_per_row) as usize);
    let mut sums = [(0, 0); 3];
    let rows = [wrap(y, -1, height), y, wrap(y, 1, height)];
    let mut alive = 0;
    for r in 0..3 {
        let row = src.add(rows[r] as usize * wpr);
        let (l, c, e) = (*row.add(xl), *row.add(wx as usize), *row.add(xr));
        sums[r] = row_sum((c << 1) | (l >> 31), c, (c >> 1) | (e << 31));
        if r == 1 {
            alive = c;
        }
    }
    *dst.add(y as usize * wpr + wx as usize) = rule_sliced(alive, sums[0], sums[1], sums[2]);
}

/// Words of output per warp in [`bit64_strip`]: lanes 1..=30. Lanes 0 and 31 hold the halo
/// words, whose outer bits go stale by one cell per generation (fine for up to 64 generations).
pub const BIT64_OUT_LANES: u32 = 30;

/// One stage of the register pipeline of [`bit64_strip`]: the row sums of the two rows above
/// the one being fed, and the cells of the previous row.
#[derive(Clone, Copy, Default)]
pub struct Stage {
    above: [(u32, u32); 2],
    mid: [(u32, u32); 2],
    centre: [u32; 2],
}

impl Stage {
    /// Feeds row `r` (this lane's 64 cells as (low, high) words) and returns the next
    /// generation of the row before it. West/east neighbours across the lane's edges come from
    /// the neighbouring lanes by shuffle.
    #[inline(always)]
    pub fn feed(&mut self, r: [u32; 2]) -> [u32; 2] {
        let [lo, hi] = r;
        let left_hi = shfl_up(hi, 1);
        let right_lo = shfl_down(lo, 1);
        let below = [
            row_sum((lo << 1) | (left_hi >> 31), lo, (lo >> 1) | (hi << 31)),
            row_sum((hi << 1) | (lo >> 31), hi, (hi >> 1) | (right_lo << 31)),
        ];
        let out = [
            rule_sliced(self.centre[0], self.above[0], self.mid[0], below[0]),
            rule_sliced(self.centre[1], self.above[1], self.mid[1], below[1]),
        ];
        self.above = self.mid;
        self.mid = below;
        self.centre = r;
        out
    }
}

/// A chain of pipeline [`Stage`]s as nested types (`Link<Link<()>>` is two stages), so that
/// every stage is a distinct set of registers: an array indexed in a loop would need the loop
/// fully unrolled to leave local memory, which LLVM does not do for more than two stages.
pub trait Stages: Copy + Default {
    /// Number of stages (generations per pass).
    const LEN: u32;
    /// What the last stage emitted in the previous step (`input` for the empty chain).
    fn last_out(&self, input: [u32; 2]) -> [u32; 2];
    /// One skewed step: each stage consumes what the stage before it emitted in the previous
    /// step (last stage first), the first stage consumes `input`.
    fn step(&mut self, input: [u32; 2]);
    /// One unskewed step: the stages run first to last, each on what the stage before it
    /// emitted in this same step; returns the last stage's output.
    fn step_flat(&mut self, input: [u32; 2]) -> [u32; 2];
}

impl Stages for () {
    const LEN: u32 = 0;
    #[inline(always)]
    fn last_out(&self, input: [u32; 2]) -> [u32; 2] {
        input
    }
    #[inline(always)]
    fn step(&mut self, _: [u32; 2]) {}
    #[inline(always)]
    fn step_flat(&mut self, input: [u32; 2]) -> [u32; 2] {
        input
    }
}

/// A stage after the stages `P`.
#[derive(Clone, Copy, Default)]
pub struct Link<P> {
    stage: Stage,
    out: [u32; 2],
    prev: P,
}

impl<P: Stages> Stages for Link<P> {
    const LEN: u32 = P::LEN + 1;
    #[inline(always)]
    fn last_out(&self, _: [u32; 2]) -> [u32; 2] {
        self.out
    }
    #[inline(always)]
    fn step(&mut self, input: [u32; 2]) {
        self.out = self.stage.feed(self.prev.last_out(input));
        self.prev.step(input);
    }
    #[inline(always)]
    fn step_flat(&mut self, input: [u32; 2]) -> [u32; 2] {
        let x = self.prev.step_flat(input);
        self.out = self.stage.feed(x);
        self.out
    }
}

/// One bit per cell, 64 cells per lane, `P::LEN` generations per launch (temporal blocking).
///
/// A warp owns a strip of `rows` output rows and 30 words (1920 cells) across: its 32 lanes load
/// words `first_word - 1 ..= first_word + 30` (wrapping), exchange edge bits by shuffle, and
/// stream down the strip. Each of the `P::LEN` pipeline stages keeps a three-row window in
/// registers and feeds the next stage, so a row is read once and written once per launch however
/// many generations it advances: `2 bits / P::LEN` of DRAM traffic per cell and generation.
///
/// With `SKEW`, the stages run skewed: stage `j` consumes what stage `j - 1` produced in the *previous*
/// iteration (they are updated last to first), so the `P::LEN` stages of one iteration are
/// independent and the scheduler can overlap them, at the price of `g - 1` more steps per
/// strip. Without it each stage waits for the one before it in the same step. The strip starts `P::LEN` rows above its
/// first output row and ends `P::LEN` rows below its last (the vertical halo); rows and words wrap
/// around the torus, so any size works (a board narrower than the warp repeats periodically).
///
/// # Safety
/// `src`/`dst` hold `words_per_row · height` 64-bit words and differ; `rows ≥ 1`,
/// `strip_row0 < height`, `first_word < words_per_row`; `rows + 3·P::LEN ≤ 2^32` (the steps are
/// counted in `u32`; the host's `Kernel::check_size` bounds `height` so). Every lane of the warp calls this with
/// the same strip.
#[inline(always)]
pub unsafe fn bit64_strip<P: Stages, const SKEW: bool>(
    src: *const u64,
    dst: *mut u64,
    words_per_row: u32,
    height: u32,
    first_word: u32,
    strip_row0: u32,
    rows: u32,
) {
    let lane = lane_id();
    let wpr = words_per_row as usize;
    let word = ((first_word + lane + words_per_row - 1) % words_per_row) as usize;
    let stores = (1..=BIT64_OUT_LANES).contains(&lane) && first_word + lane - 1 < words_per_row;
    let g = P::LEN;
    let inputs = rows + 2 * g;
    // Input row 0 is `g` rows above the strip (mod height).
    let mut in_row = ((strip_row0 as u64 + height as u64 * g as u64 - g as u64) % height as u64) as u32;
    let mut out_row = strip_row0;
    let load = |row: u32| {
        let v = *src.add(row as usize * wpr + word);
        [v as u32, (v >> 32) as u32]
    };
    let mut pipe = P::default();
    let mut next = load(in_row);
    // Skewed, the last stage emits row `i - (2g - 1)` of input step `i`; unskewed, row `i - g`.
    // Rows g .. g + rows are the valid ones.
    let (first_out, steps) = if SKEW { (3 * g - 1, inputs + g - 1) } else { (2 * g, inputs) };
    for i in 0..steps {
        let cur = next;
        if i + 1 < inputs {
            in_row = if in_row + 1 == height { 0 } else { in_row + 1 };
            next = load(in_row);
        }
        let out = if SKEW {
            pipe.step(cur);
            pipe.last_out(cur)
        } else {
            pipe.step_flat(cur)
        };
        if i >= first_out {
            if stores {
                let [lo, hi] = out;
                *dst.add(out_row as usize * wpr + word) = lo as u64 | (hi as u64) << 32;
            }
            out_row += 1;
        }
    }
}

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
    use crate::arch::{atomic_add_u64, global_thread_idx, grid_threads, load_nc_u32, warp_inclusive_sum_u64};
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
