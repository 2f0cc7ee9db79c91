//! A band kept once on its GPU ([`Bands::with_window`](super::Bands::with_window)): one board
//! (its *store*) holding the band's `h + 2d` rows (laid out as a [`Life`]'s band board: top
//! halo, own rows, bottom halo) and `G = min(R, h) + d` spare rows, stepped a window of `R`
//! rows at a time through a small [`Life`] of two scratch boards.
//!
//! The band sits at store row `top`, `0` or `G`, and moves to the other place every round. A
//! round of `e ≤ d` generations, after the halo exchange, takes the band's own rows in windows
//! ([`windows`]; the last one may be shorter), in order when the band moves up and in reverse
//! when it moves down. Window `k`, own rows `s .. s + R_k`, reads the `R_k + 2d` store rows
//! from `top + s` (own rows `s − d .. s + R_k + d`) in place with its first launch; the window
//! is a torus of its own, so after `e ≤ d` generations its middle `R_k` rows are exact (as a
//! band's own rows are), and they go to store rows `top' + d + s ..` of the band's new place
//! `top'`: written there by the round's last launch with a `bit64` kernel, copied there from
//! the scratch board after it with the others. No window reads what another writes: moving up
//! (`top = G`, `top' = 0`) the rows written, `d + s .. d + s + R_k`, end at or before
//! `G + s`, where the reads of this window and the later ones start, because `R_k + d ≤ G`;
//! moving down, symmetrically, they start at or after `s + R_k + 2d`, where the reads of this
//! window and the earlier ones end. So every window reads the band as it was before the round,
//! and the band is read once and written once per round. The halos at the new place are stale
//! until the exchange that follows every round.

use super::exchange::{BandBoard, BandRows};
use super::windows;
use crate::board::{CurrentRows, WindowOut};
use crate::transfer::{self, Board, BoardRef, SourceRows};
use crate::{BitGrid, Error, Kernel, Layout, Life, Result, Rule};
use bytemuck::Pod;
use std::ops::Range;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::Gpu;

/// A band kept once, stepped through windows.
pub(super) struct Windowed<'g> {
    /// The band's `h + 2d` rows (the current generation, halos included) from row `top`, and
    /// `slack` rows more.
    store: Board,
    /// Two boards of `min(R, h) + 2d` rows: a window's generations before the last.
    scratch: Life<'g>,
    width: usize,
    /// Own rows.
    h: usize,
    /// Halo rows.
    d: usize,
    /// Own rows per window.
    window: usize,
    /// The store rows beyond the band's: `min(R, h) + d`.
    slack: usize,
    /// The store row where the band starts: `0` or `slack`.
    top: usize,
    /// Store elements per row.
    per_row: usize,
}

impl<'g> Windowed<'g> {
    /// The band board `band` (`h + 2d` rows, as [`super::source::band_board`] makes it) kept
    /// once on `gpu`, stepped through windows of `window ≥ d` own rows (the plan checked all).
    pub(super) fn new(gpu: &'g Gpu, kernel: Kernel, band: &BitGrid, d: usize, window: usize) -> Result<Self> {
        let (width, h) = (band.width(), band.height() - 2 * d);
        let slack = window.min(h) + d;
        let store = transfer::upload_board(gpu, kernel.layout(), band, slack)?;
        let rows = window.min(h) + 2 * d;
        let scratch = Life::new(gpu, kernel, &BitGrid::with_limits(width, rows, &super::source::UNLIMITED)?)?;
        let per_row = transfer::elements_per_row(kernel.layout(), width);
        Ok(Windowed { store, scratch, width, h, d, window, slack, top: 0, per_row })
    }

    /// Advances `e ≤ d` generations (asynchronous), after which the own rows are exact if the
    /// halos were, and the halos stale (see the module docs for the order of the launches).
    pub(super) fn step(&mut self, e: u64) -> Result<()> {
        if e == 0 {
            return Ok(());
        }
        let up = self.top == self.slack;
        let to = if up { 0 } else { self.slack };
        // Only the bit64 kernels write a window's rows into the band themselves.
        let direct = self.scratch.kernel().layout() == Layout::Bits64;
        let mut order: Vec<Range<usize>> = windows(self.h, self.window).collect();
        if !up {
            order.reverse();
        }
        for own in order {
            let height = own.len() + 2 * self.d;
            // Store row `top + s` is own row `s − d`: the window's first halo row.
            let (from, into) = (self.top + own.start, to + self.d + own.start);
            let mut left = e;
            let mut first = true;
            while left > 0 {
                let last = self.scratch.window_generations(left) == left;
                let out = (last && direct).then_some(into..into + own.len());
                left -= self.launch(left, height, first.then_some(from), out)?;
                first = false;
            }
            if !direct {
                self.copy_in(into, own.len())?;
            }
        }
        self.top = to;
        Ok(())
    }

    /// The next launch of a window of `height` rows with `left` generations to go: from the
    /// store rows from `from` where given (the round's first launch), else from the scratch's
    /// current board; into the store rows `into` where given (the last launch; `bit64`), else
    /// into the scratch's spare board. `into` and the rows read never overlap (module docs).
    fn launch(&mut self, left: u64, height: usize, from: Option<usize>, into: Option<Range<usize>>) -> Result<u64> {
        let n = self.per_row;
        let read = from.map(|f| f * n..(f + height) * n);
        let Some(into) = into else {
            let src = read.map(|r| source(&self.store, r));
            return self.scratch.launch_window(left, height, src, None);
        };
        let Board::Bits64(store) = &mut self.store else {
            return Err(Error::InvalidInput("only a bit64 kernel writes a window into its band".into()));
        };
        let rows = self.d..self.d + into.len();
        let write = into.start * n..into.end * n;
        let Some(read) = read else {
            let out = WindowOut { rows, dst: store.slice_mut(write) };
            return self.scratch.launch_window(left, height, None, Some(out));
        };
        // Two views of the store, split where the rows read and the rows written meet.
        let split = if write.end <= read.start {
            read.start
        } else if read.end <= write.start {
            read.end
        } else {
            return Err(Error::InvalidInput("a window would write rows it reads".into()));
        };
        let (mut before, mut after) = store.split_at_mut(split);
        let (src, dst) = if split == read.start {
            (after.slice(..read.len()), before.slice_mut(write))
        } else {
            (before.slice(read), after.slice_mut(write.start - split..write.end - split))
        };
        self.scratch.launch_window(left, height, Some(SourceRows::U64(src)), Some(WindowOut { rows, dst }))
    }

    /// Copies the middle `rows` rows of the window just stepped (the scratch's current board)
    /// into the store from row `into`.
    fn copy_in(&mut self, into: usize, rows: usize) -> Result<()> {
        fn copy<T: Pod>(
            gpu: &Gpu,
            from: &CudaSlice<T>,
            to: &mut CudaSlice<T>,
            at: Range<usize>,
            skip: usize,
        ) -> Result<()> {
            gpu.copy(&from.slice(skip..skip + at.len()), &mut to.slice_mut(at))
        }
        let (gpu, n, skip) = (self.scratch.gpu(), self.per_row, self.d * self.per_row);
        let at = into * n..(into + rows) * n;
        match (self.scratch.board(), &mut self.store) {
            (BoardRef::U32(a) | BoardRef::Bits32(a), Board::U32(b) | Board::Bits32(b)) => copy(gpu, a, b, at, skip),
            (BoardRef::U8(a), Board::U8(b)) => copy(gpu, a, b, at, skip),
            (BoardRef::Bits64(a), Board::Bits64(b)) => copy(gpu, a, b, at, skip),
            _ => Err(Error::InvalidInput("a window and its band in different layouts".into())),
        }
    }

    /// Live cells of the own rows (waits for the GPU).
    pub(super) fn population(&self) -> Result<u64> {
        let (store, own) = (self.store.get(), self.top + self.d);
        Ok(self.scratch.count_rows(store, own + self.h)? - self.scratch.count_rows(store, own)?)
    }

    /// The band read back: `h + 2d` rows, halos included (waits for the GPU).
    pub(super) fn grid(&self) -> Result<BitGrid> {
        transfer::download(self.scratch.gpu(), self.store.get(), self.top, self.width, self.h + 2 * self.d)
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
    fn band_rows(&mut self) -> BandBoard<'_> {
        let rows = match &mut self.store {
            Board::U32(b) | Board::Bits32(b) => CurrentRows::U32(b),
            Board::U8(b) => CurrentRows::U8(b),
            Board::Bits64(b) => CurrentRows::U64(b),
        };
        BandBoard { rows, first_row: self.top, per_row: self.per_row, gpu: self.scratch.gpu() }
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
