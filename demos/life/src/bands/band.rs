//! One rank's band: a [`Life`] of its `h + 2d` rows (two boards), or the band kept once and
//! stepped through windows ([`Windowed`]).

use super::exchange::{BandBoard, BandRows};
use super::window::Windowed;
use crate::{BitGrid, Kernel, Life, Result, Rule};
use warpwork::Gpu;

/// One rank's band of `h` own rows and `d` halo rows above and below.
pub(super) enum Band<'g> {
    /// Two boards of `h + 2d` rows.
    Whole(Life<'g>),
    /// One board of `h + 2d` rows and two small windows.
    Windowed(Windowed<'g>),
}

impl<'g> Band<'g> {
    /// The band board `band` (`h + 2d` rows) on `gpu`, stepped through windows of `window`
    /// own rows where given.
    pub(super) fn new(gpu: &'g Gpu, kernel: Kernel, band: &BitGrid, d: usize, window: Option<usize>) -> Result<Self> {
        Ok(match window {
            Some(r) => Band::Windowed(Windowed::new(gpu, kernel, band, d, r)?),
            None => Band::Whole(Life::new(gpu, kernel, band)?),
        })
    }

    /// Advances `e ≤ d` generations (asynchronous).
    pub(super) fn step(&mut self, e: u64) -> Result<()> {
        match self {
            Band::Whole(life) => life.step(e),
            Band::Windowed(w) => w.step(e),
        }
    }

    /// Live cells of the `h` own rows (waits for the GPU).
    pub(super) fn population(&self, h: usize, d: usize) -> Result<u64> {
        match self {
            // Counted from the board's start, so that each count starts aligned.
            Band::Whole(life) => Ok(life.population_rows(d + h)? - life.population_rows(d)?),
            Band::Windowed(w) => w.population(),
        }
    }

    /// The band board read back, halos included (waits for the GPU).
    pub(super) fn grid(&self) -> Result<BitGrid> {
        match self {
            Band::Whole(life) => life.grid(),
            Band::Windowed(w) => w.grid(),
        }
    }

    /// The rule the next steps run.
    pub(super) fn set_rule(&mut self, rule: Rule) -> Result<()> {
        match self {
            Band::Whole(life) => life.set_rule(rule),
            Band::Windowed(w) => w.set_rule(rule),
        }
    }

    /// Rows per strip of the `bit64` kernels.
    pub(super) fn set_strip_rows(&mut self, rows: Option<u32>) -> Result<()> {
        match self {
            Band::Whole(life) => life.set_strip_rows(rows),
            Band::Windowed(w) => w.set_strip_rows(rows),
        }
    }

    /// The Life that runs the band's kernel and rule (its board, or its windows').
    pub(super) fn life(&self) -> &Life<'g> {
        match self {
            Band::Whole(life) => life,
            Band::Windowed(w) => w.scratch(),
        }
    }
}

impl BandRows for Band<'_> {
    fn band_rows(&mut self) -> BandBoard<'_> {
        match self {
            Band::Whole(life) => life.band_rows(),
            Band::Windowed(w) => w.band_rows(),
        }
    }
}
