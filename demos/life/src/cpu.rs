//! Conway's Game of Life (B3/S23) and any other Life-like [`Rule`] on a torus: the CPU reference, the oracle the GPU tests check
//! every kernel against, and what `warpwork life` runs without a GPU.
//!
//! It is written independently of the kernels and of the rest of this crate (its own board
//! type, its own rule), so that it checks them rather than repeats them. Its [`BitGrid`] has the
//! layout of the crate's [`crate::BitGrid`] (one bit per cell, each row padded to whole 64-bit
//! words, cell `x` in bit `x % 64` of word `x / 64`, least significant bit first, padding bits
//! zero), so a board moves between the two as its words. [`step_simple`] is the obviously-right
//! per-cell version the rest is tested against; [`step`] is the fast one (rayon over rows, 64
//! cells per word with a bit-sliced adder, any width).

use crate::Rule;
use rand::Rng;
use rayon::prelude::*;

/// A Life board: `width × height` cells, one bit each.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitGrid {
    width: usize,
    height: usize,
    words_per_row: usize,
    words: Vec<u64>,
}

impl std::fmt::Debug for BitGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "BitGrid {}x{} (population {})", self.width, self.height, self.population())?;
        for y in 0..self.height.min(64) {
            let row: String = (0..self.width.min(128)).map(|x| if self.get(x, y) { 'o' } else { '.' }).collect();
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

impl BitGrid {
    /// An empty (all dead) board.
    pub fn new(width: usize, height: usize) -> Self {
        let words_per_row = width.div_ceil(64);
        BitGrid { width, height, words_per_row, words: vec![0; words_per_row * height] }
    }

    /// A board of its packed rows (`words_per_row = ceil(width / 64)` words each). Padding bits
    /// are cleared. `None` when the length does not match.
    pub fn from_words(width: usize, height: usize, mut words: Vec<u64>) -> Option<Self> {
        let words_per_row = width.div_ceil(64);
        if words.len() != words_per_row * height {
            return None;
        }
        let mask = last_word_mask(width);
        if words_per_row > 0 {
            for row in words.chunks_mut(words_per_row) {
                row[words_per_row - 1] &= mask;
            }
        }
        Some(BitGrid { width, height, words_per_row, words })
    }

    /// A random board where each cell is alive with probability `density`, reproducible from
    /// `seed` (whatever the thread count).
    pub fn random(width: usize, height: usize, density: f64, seed: u64) -> Self {
        let words_per_row = width.div_ceil(64);
        let d = density.clamp(0.0, 1.0);
        let words = if d == 0.5 {
            warpwork_cpu_reference::inputs::generate(words_per_row * height, seed, |r| r.random::<u64>())
        } else {
            let threshold = (d * 2f64.powi(32)).min(u32::MAX as f64 + 1.0) as u64;
            warpwork_cpu_reference::inputs::generate(words_per_row * height, seed, |r| {
                (0..64).fold(0u64, |w, b| w | (((r.random::<u32>() as u64) < threshold) as u64) << b)
            })
        };
        Self::from_words(width, height, words).expect("sized above")
    }

    /// Width in cells.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Height in cells.
    pub fn height(&self) -> usize {
        self.height
    }
    /// 64-bit words per row.
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }
    /// The packed rows.
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// The packed rows, by value (no copy): how a board moves to and from another crate's
    /// board of the same layout ([`crate::BitGrid`]).
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }
    /// Row `y` as words.
    pub fn row(&self, y: usize) -> &[u64] {
        &self.words[y * self.words_per_row..(y + 1) * self.words_per_row]
    }

    /// Whether cell `(x, y)` is alive. Panics outside the board.
    pub fn get(&self, x: usize, y: usize) -> bool {
        assert!(x < self.width && y < self.height, "({x}, {y}) outside {}x{}", self.width, self.height);
        self.words[y * self.words_per_row + x / 64] >> (x % 64) & 1 != 0
    }

    /// Sets cell `(x, y)`. Panics outside the board.
    pub fn set(&mut self, x: usize, y: usize, alive: bool) {
        assert!(x < self.width && y < self.height, "({x}, {y}) outside {}x{}", self.width, self.height);
        let w = &mut self.words[y * self.words_per_row + x / 64];
        let bit = 1u64 << (x % 64);
        if alive {
            *w |= bit
        } else {
            *w &= !bit
        }
    }

    /// Live cells.
    pub fn population(&self) -> u64 {
        self.words.par_iter().map(|w| w.count_ones() as u64).sum()
    }

    /// The board as one value per cell, row-major (`alive` for live cells, 0 for dead).
    pub fn to_cells<T: Copy + Send + Sync + Default>(&self, alive: T) -> Vec<T> {
        let mut out = vec![T::default(); self.width * self.height];
        if self.width > 0 {
            out.par_chunks_mut(self.width).enumerate().for_each(|(y, row)| {
                for (x, c) in row.iter_mut().enumerate() {
                    if self.get(x, y) {
                        *c = alive;
                    }
                }
            });
        }
        out
    }

    /// A board from one value per cell, row-major (`is_alive` decides). `None` when the length
    /// is not `width · height`.
    pub fn from_cells<T: Sync>(
        width: usize,
        height: usize,
        cells: &[T],
        is_alive: impl Fn(&T) -> bool + Sync,
    ) -> Option<Self> {
        if cells.len() != width * height {
            return None;
        }
        let mut g = BitGrid::new(width, height);
        let wpr = g.words_per_row;
        if wpr > 0 {
            g.words.par_chunks_mut(wpr).enumerate().for_each(|(y, row)| {
                for x in 0..width {
                    if is_alive(&cells[y * width + x]) {
                        row[x / 64] |= 1 << (x % 64);
                    }
                }
            });
        }
        Some(g)
    }

    /// Cells that are alive in `self` and dead in `other` or the reverse (for test messages).
    pub fn differences(&self, other: &BitGrid) -> Vec<(usize, usize)> {
        let mut d = Vec::new();
        for y in 0..self.height.min(other.height) {
            for x in 0..self.width.min(other.width) {
                if self.get(x, y) != other.get(x, y) {
                    d.push((x, y));
                }
            }
        }
        d
    }
}

/// Bits of the last word of a row that are cells (not padding).
fn last_word_mask(width: usize) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// The B3/S23 rule for one cell.
pub fn rule(alive: bool, neighbours: u32) -> bool {
    neighbours == 3 || (alive && neighbours == 2)
}

/// One generation of B3/S23, cell by cell: the plain version everything else is tested against.
pub fn step_simple(g: &BitGrid) -> BitGrid {
    step_simple_with(g, Rule::CONWAY)
}

/// One generation of `rule`, cell by cell. B0 rules run as written: on a torus every cell's
/// neighbourhood is finite, so a dead region simply turns alive.
pub fn step_simple_with(g: &BitGrid, rule: Rule) -> BitGrid {
    let (w, h) = (g.width, g.height);
    let mut out = BitGrid::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let mut n = 0;
            // Skip the centre by position, not by offset: on a board 1 cell wide (or high) the
            // offsets -1 and +1 land on the cell itself, which then is its own neighbour.
            for (i, dy) in [h - 1, 0, 1].into_iter().enumerate() {
                for (j, dx) in [w - 1, 0, 1].into_iter().enumerate() {
                    if (i, j) != (1, 1) {
                        n += g.get((x + dx) % w, (y + dy) % h) as u32;
                    }
                }
            }
            let alive = g.get(x, y);
            out.set(x, y, if alive { rule.survives(n) } else { rule.born(n) });
        }
    }
    out
}

/// `(a + b + c)` per bit as (sum, carry).
#[inline(always)]
fn add3(a: u64, b: u64, c: u64) -> (u64, u64) {
    (a ^ b ^ c, (a & b) | (c & (a ^ b)))
}

/// Row sums (ones, twos planes) of `west + centre + east` for each word of a row, wrapping
/// across the row's ends at the true width.
fn row_sums(row: &[u64], width: usize, out: &mut Vec<(u64, u64)>) {
    out.clear();
    let n = row.len();
    let last_bit = (width - 1) % 64;
    for i in 0..n {
        let c = row[i];
        let west_in = if i == 0 { row[n - 1] >> last_bit & 1 } else { row[i - 1] >> 63 };
        let west = (c << 1) | west_in;
        let east = if i + 1 < n { (c >> 1) | (row[i + 1] << 63) } else { (c >> 1) | ((row[0] & 1) << last_bit) };
        out.push(add3(west, c, east));
    }
}

/// B3/S23 for 64 cells from the row sums above, at and below (the middle one including the
/// cells themselves): see `rule_sliced` in `kernels/src/abi.rs`.
#[inline(always)]
pub fn rule_sliced(alive: u64, above: (u64, u64), mid: (u64, u64), below: (u64, u64)) -> u64 {
    let (s, cy) = add3(above.0, mid.0, below.0);
    let (x, y) = add3(above.1, mid.1, below.1);
    let p = x ^ cy;
    let q = x ^ y;
    (s & p & !y) | (!s & alive & !p & q)
}

/// Any rule for 64 cells, from the same row sums as [`rule_sliced`]: the 3×3 total (cell
/// included) as four bit planes `t0..t3`, then one `t == k` mask per total `k` in 0..=9, ORed in
/// where the rule says alive (a dead cell is born with `k` neighbours, a live one survives with
/// `k − 1`). Plain and slow next to the kernels' form, and independent of it.
pub fn rule_sliced_with(rule: Rule, alive: u64, above: (u64, u64), mid: (u64, u64), below: (u64, u64)) -> u64 {
    let (t0, c) = add3(above.0, mid.0, below.0); // ones: t0 + 2c
    let (x, y) = add3(above.1, mid.1, below.1); // twos: 2x + 4y
    let (t1, k) = (c ^ x, c & x);
    let (t2, t3) = (k ^ y, k & y);
    let plane = |p: u64, bit: u32| if bit != 0 { p } else { !p };
    let mut next = 0;
    for t in 0..=9u32 {
        let eq = plane(t0, t & 1) & plane(t1, t >> 1 & 1) & plane(t2, t >> 2 & 1) & plane(t3, t >> 3 & 1);
        if rule.born(t) {
            next |= eq & !alive;
        }
        if t >= 1 && rule.survives(t - 1) {
            next |= eq & alive;
        }
    }
    next
}

/// One generation of B3/S23, 64 cells per word with a bit-sliced adder, rows in parallel. Any size.
pub fn step_once(g: &BitGrid) -> BitGrid {
    let mut out = BitGrid::new(g.width, g.height);
    step_once_into(g, &mut out);
    out
}

/// [`step_once`] of `rule`.
pub fn step_once_with(g: &BitGrid, rule: Rule) -> BitGrid {
    let mut out = BitGrid::new(g.width, g.height);
    step_once_into_with(g, &mut out, rule);
    out
}

/// [`step_once`] into a board of the same size, allocating no board: for callers that keep
/// two boards and swap them. Panics if the sizes differ.
pub fn step_once_into(g: &BitGrid, out: &mut BitGrid) {
    step_once_into_with(g, out, Rule::CONWAY)
}

/// [`step_once_into`] of `rule`. The padding bits past the width are cleared after each row,
/// so B0 rules (which turn dead cells alive) leave them dead.
pub fn step_once_into_with(g: &BitGrid, out: &mut BitGrid, rule: Rule) {
    let (w, h, wpr) = (g.width, g.height, g.words_per_row);
    assert_eq!((out.width, out.height), (w, h), "step_once_into: boards of different sizes");
    if w == 0 || h == 0 {
        return;
    }
    let mask = last_word_mask(w);
    let conway = rule == Rule::CONWAY;
    out.words.par_chunks_mut(wpr).enumerate().for_each_init(
        || (Vec::new(), Vec::new(), Vec::new()),
        |(a, m, b), (y, dst)| {
            row_sums(g.row((y + h - 1) % h), w, a);
            row_sums(g.row(y), w, m);
            row_sums(g.row((y + 1) % h), w, b);
            let alive = g.row(y);
            for i in 0..wpr {
                dst[i] = if conway {
                    rule_sliced(alive[i], a[i], m[i], b[i])
                } else {
                    rule_sliced_with(rule, alive[i], a[i], m[i], b[i])
                };
            }
            dst[wpr - 1] &= mask;
        },
    );
}

/// `generations` generations of B3/S23 with [`step_once`].
pub fn step(g: &BitGrid, generations: u64) -> BitGrid {
    step_with(g, Rule::CONWAY, generations)
}

/// `generations` generations of `rule` with [`step_once_with`].
pub fn step_with(g: &BitGrid, rule: Rule, generations: u64) -> BitGrid {
    let mut cur = g.clone();
    for _ in 0..generations {
        cur = step_once_with(&cur, rule);
    }
    cur
}

#[cfg(test)]
mod tests;
