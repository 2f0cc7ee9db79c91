//! [`BitGrid`], the Life board on the host: what patterns are read into, what [`crate::Life`]
//! uploads and reads back, and what the tests compare.

use crate::support::{ensure_input, zeroed_vec};
use crate::{Error, Limits, Result};

/// A Life board on the host: `width × height` cells, one bit each. Rows are padded to whole
/// 64-bit words; cell `x` of a row is bit `x % 64` of word `x / 64` (least significant bit first)
/// and padding bits are zero. This is the layout of the `bit64` kernels, so such a board uploads
/// without conversion; the CPU reference (`warpwork-cpu-reference`) uses the same one, so a board
/// converts to and from it with [`BitGrid::into_words`] / [`BitGrid::from_words`], without a copy.
///
/// Every constructor that allocates checks [`Limits`] first and reports an allocation the
/// machine cannot satisfy as [`Error::OutOfMemory`].
///
/// ```
/// use warpwork_life::BitGrid;
/// let mut g = BitGrid::new(70, 3)?;
/// g.set(69, 2, true);
/// assert!(g.get(69, 2) && g.population() == 1);
/// assert_eq!(g.words_per_row(), 2);
/// # Ok::<(), warpwork::Error>(())
/// ```
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
    /// An empty (all dead) board within [`Limits::DEFAULT`].
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::new(100, 50)?;
    /// assert_eq!((g.width(), g.height(), g.population()), (100, 50, 0));
    /// assert!(BitGrid::new(1 << 20, 1 << 20).is_err()); // 2^40 cells: over the default limits
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(width: usize, height: usize) -> Result<Self> {
        Self::with_limits(width, height, &Limits::DEFAULT)
    }

    /// An empty board within `limits` ([`Error::LimitExceeded`] before anything is allocated).
    ///
    /// ```
    /// use warpwork_life::{BitGrid, Limits};
    /// let tiny = Limits::DEFAULT.with_max_cells(100);
    /// assert!(BitGrid::with_limits(10, 10, &tiny).is_ok());
    /// assert!(BitGrid::with_limits(10, 11, &tiny).is_err()); // 110 cells
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn with_limits(width: usize, height: usize, limits: &Limits) -> Result<Self> {
        limits.check_board(width, height)?;
        let words_per_row = width.div_ceil(64);
        let n = words_per_row.checked_mul(height).ok_or(Error::OutOfMemory {
            what: "Life board",
            bytes: Limits::board_bytes(width, height).unwrap_or(u64::MAX),
        })?;
        Ok(BitGrid { width, height, words_per_row, words: zeroed_vec(n, "Life board")? })
    }

    /// A board of its packed rows (`ceil(width / 64)` words each; padding bits are cleared).
    /// Takes the vector as it is: nothing is allocated. [`Error::InvalidInput`] when the length
    /// does not match.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::from_words(3, 2, vec![0b101, u64::MAX])?;
    /// assert_eq!(g.population(), 5); // row 1: only its 3 cells of the word count
    /// assert!(BitGrid::from_words(3, 2, vec![0]).is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn from_words(width: usize, height: usize, words: Vec<u64>) -> Result<Self> {
        let words_per_row = width.div_ceil(64);
        ensure_input!(
            words_per_row.checked_mul(height) == Some(words.len()),
            "{} words are not a {width}x{height} board ({words_per_row} words per row)",
            words.len()
        );
        let mut grid = BitGrid { width, height, words_per_row, words };
        grid.clear_padding();
        Ok(grid)
    }

    /// A random board within [`Limits::DEFAULT`]: each cell alive with probability `density`
    /// (in `0..=1`), reproducible from `seed` whatever the number of threads filling it.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::random(256, 256, 0.25, 7)?;
    /// assert_eq!(g, BitGrid::random(256, 256, 0.25, 7)?);
    /// assert!((14_000..18_000).contains(&g.population()));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn random(width: usize, height: usize, density: f64, seed: u64) -> Result<Self> {
        let mut g = Self::new(width, height)?;
        g.fill_random(density, seed)?;
        Ok(g)
    }

    /// Overwrites every cell: alive with probability `density` (in `0..=1`), from `seed`.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let mut g = BitGrid::new(70, 9)?;
    /// g.fill_random(1.0, 3)?;
    /// assert_eq!(g.population(), 70 * 9); // every cell, and no padding bit
    /// assert!(g.fill_random(1.5, 3).is_err()); // not a probability
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn fill_random(&mut self, density: f64, seed: u64) -> Result<()> {
        ensure_input!((0.0..=1.0).contains(&density), "density {density} is not in 0..=1");
        crate::random::fill(&mut self.words, density, seed);
        self.clear_padding();
        Ok(())
    }

    /// Width in cells.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// assert_eq!(BitGrid::new(70, 3)?.width(), 70);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }
    /// Height in cells.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// assert_eq!(BitGrid::new(70, 3)?.height(), 3);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn height(&self) -> usize {
        self.height
    }
    /// 64-bit words per row: `ceil(width / 64)`.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// assert_eq!(BitGrid::new(64, 1)?.words_per_row(), 1);
    /// assert_eq!(BitGrid::new(65, 1)?.words_per_row(), 2);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }
    /// The packed rows.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let mut g = BitGrid::new(70, 2)?;
    /// g.set(65, 1, true); // row 1, word 1, bit 1
    /// assert_eq!(g.words(), &[0, 0, 0, 0b10]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// The packed rows, by value (no copy): for the CPU reference's board, for example.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::random(130, 4, 0.5, 1)?;
    /// let words = g.clone().into_words();
    /// assert_eq!(words.len(), 3 * 4);
    /// assert_eq!(BitGrid::from_words(130, 4, words)?, g); // and back, again without a copy
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }
    /// Row `y` as words. Panics if `y >= height`.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let mut g = BitGrid::new(10, 3)?;
    /// g.set(4, 2, true);
    /// assert_eq!(g.row(2), &[1 << 4]);
    /// assert_eq!(g.row(1), &[0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn row(&self, y: usize) -> &[u64] {
        &self.words[y * self.words_per_row..(y + 1) * self.words_per_row]
    }
    /// Row `y` as words, to write: the caller keeps the padding bits zero.
    pub(crate) fn row_mut(&mut self, y: usize) -> &mut [u64] {
        &mut self.words[y * self.words_per_row..(y + 1) * self.words_per_row]
    }

    /// Whether cell `(x, y)` is alive. Panics outside the board (as slice indexing does).
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::from_words(3, 1, vec![0b010])?;
    /// assert!(!g.get(0, 0) && g.get(1, 0) && !g.get(2, 0));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn get(&self, x: usize, y: usize) -> bool {
        assert!(x < self.width && y < self.height, "({x}, {y}) outside {}x{}", self.width, self.height);
        self.words[y * self.words_per_row + x / 64] >> (x % 64) & 1 != 0
    }

    /// Sets cell `(x, y)`. Panics outside the board (as slice indexing does).
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let mut g = BitGrid::new(8, 8)?;
    /// g.set(7, 7, true);
    /// assert!(g.get(7, 7));
    /// g.set(7, 7, false);
    /// assert_eq!(g.population(), 0);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
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
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let g = BitGrid::from_words(4, 2, vec![0b1011, 0b0100])?;
    /// assert_eq!(g.population(), 4);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn population(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// Cells that are alive in `self` and dead in `other` or the reverse, up to `max` of them,
    /// row by row (for test messages).
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let a = BitGrid::new(4, 4)?;
    /// let mut b = a.clone();
    /// b.set(3, 0, true);
    /// b.set(1, 2, true);
    /// assert_eq!(a.differences(&b, 10), vec![(3, 0), (1, 2)]);
    /// assert_eq!(a.differences(&b, 1), vec![(3, 0)]); // at most `max`
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn differences(&self, other: &BitGrid, max: usize) -> Vec<(usize, usize)> {
        let mut d = Vec::new();
        if self.width.min(other.width) == 0 {
            return d;
        }
        for y in 0..self.height.min(other.height) {
            for x in 0..self.width.min(other.width) {
                if d.len() == max {
                    return d;
                }
                if self.get(x, y) != other.get(x, y) {
                    d.push((x, y));
                }
            }
        }
        d
    }

    /// Copies `pattern` onto this board with its top-left corner at `(x0, y0)` (its dead cells
    /// too). [`Error::InvalidInput`] when it does not fit, however large the offsets.
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let mut dot = BitGrid::new(1, 1)?;
    /// dot.set(0, 0, true);
    /// let mut board = BitGrid::new(100, 10)?;
    /// board.paste(&dot, 99, 9)?;
    /// assert!(board.get(99, 9));
    /// assert!(board.paste(&dot, usize::MAX, 0).is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn paste(&mut self, pattern: &BitGrid, x0: usize, y0: usize) -> Result<()> {
        let fits = |at: usize, len: usize, size: usize| at.checked_add(len).is_some_and(|end| end <= size);
        ensure_input!(
            fits(x0, pattern.width, self.width) && fits(y0, pattern.height, self.height),
            "a {}x{} pattern at ({x0}, {y0}) does not fit a {}x{} board",
            pattern.width,
            pattern.height,
            self.width,
            self.height
        );
        if pattern.width == 0 {
            return Ok(()); // no cells: nothing to copy, however many rows
        }
        for y in 0..pattern.height {
            let src = pattern.row(y);
            let dst = self.row_mut(y0 + y);
            for (i, &word) in src.iter().enumerate() {
                let bits = (pattern.width - 64 * i).min(64);
                copy_bits(dst, x0 + 64 * i, word, bits);
            }
        }
        Ok(())
    }

    /// [`BitGrid::paste`] at the centre (rounded towards the top left).
    ///
    /// ```
    /// use warpwork_life::BitGrid;
    /// let block = BitGrid::from_words(2, 2, vec![0b11, 0b11])?;
    /// let mut board = BitGrid::new(9, 9)?;
    /// board.paste_centred(&block)?; // top-left corner at ((9 − 2) / 2, (9 − 2) / 2) = (3, 3)
    /// assert!(board.get(3, 3) && board.get(4, 4) && board.population() == 4);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn paste_centred(&mut self, pattern: &BitGrid) -> Result<()> {
        let x0 = (self.width - pattern.width.min(self.width)) / 2;
        let y0 = (self.height - pattern.height.min(self.height)) / 2;
        self.paste(pattern, x0, y0)
    }

    /// Sets the `n` cells `x .. x + n` of row `y` alive, a word at a time. The caller checks
    /// that they lie inside the board.
    pub(crate) fn fill_run(&mut self, x: usize, y: usize, n: usize) {
        let row = self.row_mut(y);
        let (mut at, end) = (x, x + n);
        while at < end {
            let bits = (end - at).min(64 - at % 64);
            let mask = if bits == 64 { u64::MAX } else { ((1u64 << bits) - 1) << (at % 64) };
            row[at / 64] |= mask;
            at += bits;
        }
    }

    /// Every word, rows one after another (padding bits must be cleared after writing them).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Clears the padding bits past `width` in every row.
    pub(crate) fn clear_padding(&mut self) {
        let (wpr, mask) = (self.words_per_row, last_word_mask(self.width));
        if wpr > 0 && mask != u64::MAX {
            for row in self.words.chunks_mut(wpr) {
                row[wpr - 1] &= mask;
            }
        }
    }
}

/// Bits of the last word of a row that are cells (not padding).
fn last_word_mask(width: usize) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// Writes the low `bits` bits (1..=64) of `value` into `row` starting at bit `at`.
fn copy_bits(row: &mut [u64], at: usize, value: u64, bits: usize) {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (i, s) = (at / 64, at % 64);
    let v = value & mask;
    row[i] = (row[i] & !(mask << s)) | (v << s);
    if s != 0 && s + bits > 64 {
        row[i + 1] = (row[i + 1] & !(mask >> (64 - s))) | (v >> (64 - s));
    }
}

#[cfg(test)]
mod tests;
