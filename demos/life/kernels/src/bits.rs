//! One bit per cell: 32 cells per thread ([`bit32_word`]), and 64 cells per lane with a pipeline
//! of generations in registers ([`bit64_strip`]).

use super::{row_sum, rule_lut_step, rule_sliced, wrap, BIT64_OUT_LANES, LUT_PLACEHOLDERS};
use warpwork_kernels::arch::{lane_id, shfl_down, shfl_up};

/// A rule applied to 32 cells at once from the [`row_sum`]s of the rows above, at and below
/// (the middle one including the cells) and the cells themselves.
pub trait SlicedRule: Copy {
    /// The next state of the 32 cells.
    fn next(&self, alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32;
}

/// B3/S23 in its specialised form ([`rule_sliced`], 5 logic instructions per word).
#[derive(Clone, Copy)]
pub struct Conway;

impl SlicedRule for Conway {
    #[inline(always)]
    fn next(&self, alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32 {
        rule_sliced(alive, above, mid, below)
    }
}

/// Any rule, compiled into the truth tables of five `lop3.b32` instructions
/// ([`rule_lut_step`]): the kernels are built with B3/S23's tables ([`LUT_PLACEHOLDERS`]), each
/// `lop3` marked in the PTX by a comment ([`crate::abi::LUT_MARKER`] and its number), and the
/// host writes a rule's tables over the placeholders before it loads the kernels.
#[derive(Clone, Copy)]
pub struct Lut;

/// `lop3.b32` with the placeholder table `k` and its marker (inline PTX: the comment must reach
/// the PTX text, and LLVM must not see the table as a constant it could fold).
#[inline(always)]
fn rule_lop3(k: usize, a: u32, b: u32, c: u32) -> u32 {
    macro_rules! lop3 {
        ($k:literal) => {{
            let d: u32;
            // SAFETY: register logic only.
            unsafe {
                core::arch::asm!(
                    concat!("lop3.b32 {d}, {a}, {b}, {c}, {lut}; // warpwork-life-lut-", $k),
                    d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c,
                    lut = const LUT_PLACEHOLDERS[$k],
                    options(pure, nomem, nostack),
                );
            }
            d
        }};
    }
    match k {
        0 => lop3!(0),
        1 => lop3!(1),
        2 => lop3!(2),
        3 => lop3!(3),
        _ => lop3!(4),
    }
}

impl SlicedRule for Lut {
    #[inline(always)]
    fn next(&self, alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32 {
        rule_lut_step(alive, above, mid, below, rule_lop3)
    }
}

/// One bit per cell, one 32-bit word (32 cells) per thread, one generation: the nine words of
/// the 3×3 word neighbourhood come from global memory (through L1), the rule from `rule`.
///
/// # Safety
/// `src`/`dst` hold `words_per_row · height` words; `wx < words_per_row`, `y < height`.
#[inline(always)]
pub unsafe fn bit32_word<R: SlicedRule>(
    src: *const u32,
    dst: *mut u32,
    words_per_row: u32,
    height: u32,
    wx: u32,
    y: u32,
    rule: R,
) {
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
    *dst.add(y as usize * wpr + wx as usize) = rule.next(alive, sums[0], sums[1], sums[2]);
}

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
    pub fn feed<R: SlicedRule>(&mut self, rule: &R, r: [u32; 2]) -> [u32; 2] {
        let [lo, hi] = r;
        let left_hi = shfl_up(hi, 1);
        let right_lo = shfl_down(lo, 1);
        let below = [
            row_sum((lo << 1) | (left_hi >> 31), lo, (lo >> 1) | (hi << 31)),
            row_sum((hi << 1) | (lo >> 31), hi, (hi >> 1) | (right_lo << 31)),
        ];
        let out = [
            rule.next(self.centre[0], self.above[0], self.mid[0], below[0]),
            rule.next(self.centre[1], self.above[1], self.mid[1], below[1]),
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
    fn step<R: SlicedRule>(&mut self, rule: &R, input: [u32; 2]);
    /// One unskewed step: the stages run first to last, each on what the stage before it
    /// emitted in this same step; returns the last stage's output.
    fn step_flat<R: SlicedRule>(&mut self, rule: &R, input: [u32; 2]) -> [u32; 2];
}

impl Stages for () {
    const LEN: u32 = 0;
    #[inline(always)]
    fn last_out(&self, input: [u32; 2]) -> [u32; 2] {
        input
    }
    #[inline(always)]
    fn step<R: SlicedRule>(&mut self, _: &R, _: [u32; 2]) {}
    #[inline(always)]
    fn step_flat<R: SlicedRule>(&mut self, _: &R, input: [u32; 2]) -> [u32; 2] {
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
    fn step<R: SlicedRule>(&mut self, rule: &R, input: [u32; 2]) {
        self.out = self.stage.feed(rule, self.prev.last_out(input));
        self.prev.step(rule, input);
    }
    #[inline(always)]
    fn step_flat<R: SlicedRule>(&mut self, rule: &R, input: [u32; 2]) -> [u32; 2] {
        let x = self.prev.step_flat(rule, input);
        self.out = self.stage.feed(rule, x);
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
/// The strip's output row `strip_row0 + i` goes to row `i` of `dst`.
///
/// # Safety
/// `src` holds `words_per_row · height` 64-bit words, `dst` `words_per_row · rows`, and they do
/// not overlap; `rows ≥ 1`,
/// `strip_row0 < height`, `first_word < words_per_row`; `rows + 3·P::LEN ≤ 2^32` (the steps are
/// counted in `u32`; the host's `Kernel::check_size` bounds `height` so). Every lane of the warp
/// calls this with the same strip.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn bit64_strip<P: Stages, const SKEW: bool, R: SlicedRule>(
    src: *const u64,
    dst: *mut u64,
    words_per_row: u32,
    height: u32,
    first_word: u32,
    strip_row0: u32,
    rows: u32,
    rule: R,
) {
    let lane = lane_id();
    let wpr = words_per_row as usize;
    let word = ((first_word + lane + words_per_row - 1) % words_per_row) as usize;
    let stores = (1..=BIT64_OUT_LANES).contains(&lane) && first_word + lane - 1 < words_per_row;
    let g = P::LEN;
    let inputs = rows + 2 * g;
    // Input row 0 is `g` rows above the strip (mod height).
    let mut in_row = ((strip_row0 as u64 + height as u64 * g as u64 - g as u64) % height as u64) as u32;
    let mut out_row = 0u32;
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
            pipe.step(&rule, cur);
            pipe.last_out(cur)
        } else {
            pipe.step_flat(&rule, cur)
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
