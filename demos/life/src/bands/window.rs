//! A band kept once on its GPU ([`Bands::with_window`](super::Bands::with_window)): one board
//! of `h + 2d` rows (its *store*, laid out as a [`Life`]'s band board: top halo, own rows,
//! bottom halo), stepped a window of rows at a time through a small [`Life`] of two scratch
//! boards.
//!
//! A round of `e ≤ d` generations, after the halo exchange, takes the band's own rows in
//! windows of `R` rows (the last one shorter; [`windows`]). Window `k` starts at own row `s`:
//! its input is the `R_k + 2d` store rows from store row `s` (own rows `s − d .. s + R_k + d`,
//! contiguous in the store), which the first launch of the round reads in place; the later
//! launches ping-pong in the scratch boards. The window is a torus of its own, so after
//! `e ≤ d` generations its middle `R_k` rows are exact (as a band's own rows are). They are
//! copied back into the store only after the first launch of window `k + 1` has been issued:
//! window `k + 1` reads the last `d` own rows of window `k` as they were before the round, and
//! the stream runs the copy after that launch. The copy must not reach rows a later window
//! reads: the input of window `k + 2` starts at own row `s + 2R − d`, at or past the copy's
//! end `s + R` exactly when `R ≥ d`, which the plan checks. The last window is copied back
//! after the loop.

use super::exchange::BandRows;
use super::windows;
use crate::board::CurrentRows;
use crate::transfer::{self, Board, BoardRef, SourceRows};
use crate::{BitGrid, Kernel, Life, Result, Rule};
use bytemuck::Pod;
use std::ops::Range;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::Gpu;

/// A band kept once, stepped through windows.
pub(super) struct Windowed<'g> {
    /// The band's `h + 2d` rows: the current generation, halos included.
    store: Board,
    /// Two boards of `min(R, h) + 2d` rows: the window being stepped and the one before it.
    scratch: Life<'g>,
    width: usize,
    /// Own rows.
    h: usize,
    /// Halo rows.
    d: usize,
    /// Own rows per window.
    window: usize,
}

impl<'g> Windowed<'g> {
    /// The band board `band` (`h + 2d` rows, as [`super::source::band_board`] makes it) kept
    /// once on `gpu`, stepped through windows of `window ≥ d` own rows (the plan checked all).
    pub(super) fn new(gpu: &'g Gpu, kernel: Kernel, band: &BitGrid, d: usize, window: usize) -> Result<Self> {
        let (width, h) = (band.width(), band.height() - 2 * d);
        let store = transfer::upload_board(gpu, kernel.layout(), band)?;
        let rows = window.min(h) + 2 * d;
        let scratch = Life::new(gpu, kernel, &BitGrid::with_limits(width, rows, &super::source::UNLIMITED)?)?;
        Ok(Windowed { store, scratch, width, h, d, window })
    }

    /// Advances `e ≤ d` generations (asynchronous), after which the own rows are exact if the
    /// halos were (see the module docs for the order of the launches and copies).
    pub(super) fn step(&mut self, e: u64) -> Result<()> {
        if e == 0 {
            return Ok(());
        }
        let per_row = transfer::elements_per_row(self.scratch.kernel().layout(), self.width);
        let mut before: Option<Range<usize>> = None;
        for own in windows(self.h, self.window) {
            let height = own.len() + 2 * self.d;
            // Store row `own.start` is own row `own.start − d`: the window's first halo row.
            let src = source(&self.store, own.start * per_row..(own.start + height) * per_row);
            let mut left = e - self.scratch.launch_window(e, height, Some(src))?;
            if let Some(prev) = before.take() {
                // The window before is now the spare board; the launch above has read its rows.
                copy_back(&self.scratch, true, &mut self.store, prev, self.d, per_row)?;
            }
            while left > 0 {
                left -= self.scratch.launch_window(left, height, None)?;
            }
            before = Some(own);
        }
        match before {
            Some(last) => copy_back(&self.scratch, false, &mut self.store, last, self.d, per_row),
            None => Ok(()),
        }
    }

    /// Live cells of the own rows (waits for the GPU).
    pub(super) fn population(&self) -> Result<u64> {
        let store = self.store.get();
        Ok(self.scratch.count_rows(store, self.d + self.h)? - self.scratch.count_rows(store, self.d)?)
    }

    /// The store read back: `h + 2d` rows, halos included (waits for the GPU).
    pub(super) fn grid(&self) -> Result<BitGrid> {
        transfer::download(self.scratch.gpu(), self.store.get(), self.width, self.h + 2 * self.d)
    }

    /// The rule the windows run.
    pub(super) fn set_rule(&mut self, rule: Rule) -> Result<()> {
        self.scratch.set_rule(rule)
    }

    /// Rows per strip of the `bit64` kernels on the windows.
    pub(super) fn set_strip_rows(&mut self, rows: Option<u32>) -> Result<()> {
        self.scratch.set_strip_rows(rows)
    }

    /// The Life that steps the windows (its kernel, rule and GPU are the band's).
    pub(super) fn scratch(&self) -> &Life<'g> {
        &self.scratch
    }
}

impl BandRows for Windowed<'_> {
    fn band_rows(&mut self) -> (CurrentRows<'_>, usize, &Gpu) {
        let gpu = self.scratch.gpu();
        let per_row = transfer::elements_per_row(self.scratch.kernel().layout(), self.width);
        let rows = match &mut self.store {
            Board::U32(b) | Board::Bits32(b) => CurrentRows::U32(b),
            Board::U8(b) => CurrentRows::U8(b),
            Board::Bits64(b) => CurrentRows::U64(b),
        };
        (rows, per_row, gpu)
    }
}

/// Elements `range` of the store, as a kernel's source.
fn source(store: &Board, range: Range<usize>) -> SourceRows<'_> {
    match store {
        Board::U32(b) | Board::Bits32(b) => SourceRows::U32(b.slice(range)),
        Board::U8(b) => SourceRows::U8(b.slice(range)),
        Board::Bits64(b) => SourceRows::U64(b.slice(range)),
    }
}

/// Copies the middle rows of a stepped window (the scratch's current board, or its spare one)
/// into the store: window rows `d .. d + own.len()` to store rows `d + own.start ..`.
fn copy_back(
    scratch: &Life<'_>,
    spare: bool,
    store: &mut Board,
    own: Range<usize>,
    d: usize,
    per_row: usize,
) -> Result<()> {
    fn copy<T: Pod>(
        gpu: &Gpu,
        from: &CudaSlice<T>,
        to: &mut CudaSlice<T>,
        at: Range<usize>,
        d: usize,
        n: usize,
    ) -> Result<()> {
        let window = from.slice(d * n..(d + at.len()) * n);
        gpu.copy(&window, &mut to.slice_mut((d + at.start) * n..(d + at.end) * n))
    }
    let gpu = scratch.gpu();
    match (scratch.board(spare), store) {
        (BoardRef::U32(a) | BoardRef::Bits32(a), Board::U32(b) | Board::Bits32(b)) => copy(gpu, a, b, own, d, per_row),
        (BoardRef::U8(a), Board::U8(b)) => copy(gpu, a, b, own, d, per_row),
        (BoardRef::Bits64(a), Board::Bits64(b)) => copy(gpu, a, b, own, d, per_row),
        _ => Err(crate::Error::InvalidInput("a window and its band in different layouts".into())),
    }
}
