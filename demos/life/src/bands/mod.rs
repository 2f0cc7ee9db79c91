//! One Life board over several GPUs: each GPU (a *rank*) owns a horizontal band of rows, and
//! the ranks swap the rows along their borders through NCCL (the crate feature `nccl`).
//!
//! **How it works.** Rank `r` holds its `h_r` rows plus `d` *halo* rows above and `d` below, a
//! board of `h_r + 2d` rows that any [`Kernel`] runs as a torus of its own, unchanged. Cell
//! `(x, y)` after `e` generations depends on rows `y − e ..= y + e` only, so after `e ≤ d`
//! generations the band's own rows are exact (the rows the small torus wraps wrongly are at
//! most `e` rows from its top and bottom edges, all in the halo). Then the ranks exchange: each
//! sends its first `d` rows to the rank above (into that rank's bottom halo) and its last `d`
//! rows to the rank below (into its top halo), and the next `d` generations can run. The board
//! is still a torus: rank 0's upper neighbour is the last rank. One rank runs too (its halos
//! are copied from its own rows on its device).
//!
//! **The halo depth** `d` is the kernel's [`Kernel::generations_per_launch`] unless
//! [`Bands::with_halo`] sets a multiple of it: deeper halos exchange less often and recompute
//! `2d` rows per rank more. [`Bands`] is the plan (the kernel, the depth, the split of the
//! rows); [`Bands::split`] checks it and needs no GPU.
//!
//! **Kernels.** Every kernel runs a band. `sparse` only with a halo of 1 row: it skips writing
//! cells whose neighbourhood did not change, which relies on the other board of its pair
//! holding the generation before, and that is garbage in the rows a deeper halo lets go stale
//! ([`Bands::split`] refuses it).
//!
//! **Windows.** Each band keeps two boards of `h + 2d` rows, as a `Life` does (the kernels read
//! one and write the other). For a board whose bands do not fit twice (2^20 × 2^20 cells is
//! 128 GiB bit-packed: 64 GiB a band on two GPUs, 128 GiB with its second board),
//! [`Bands::with_window`] keeps each band once, with `R + d` rows of room, and steps it `R`
//! rows at a time: each window of `R + 2d` band rows is stepped as a torus of its own (its
//! first launch reads the band in place, later launches use two small scratch boards) and its
//! middle `R` rows, exact after `e ≤ d` generations, go to the band's other place, `R + d` rows
//! up or down, where no window of the round reads: the `bit64` kernels write them there
//! themselves, so that the memory traffic is that of two boards; the other kernels' windows are
//! copied there (one more read and write of the band per round). Each window recomputes `2d`
//! rows and adds a launch's start and tail: use windows when the two boards do not fit.
//!
//! The board type is `BandedLife` (with the feature `nccl`): made from a [`BitGrid`](crate::BitGrid)
//! or at random, stepped, counted and read back like a [`Life`](crate::Life), and equal to it
//! cell for cell. The exchange is not overlapped with the next launch. Set-up (libnccl.so), what
//! scales and what the bench measures: the repository's `docs/life.md`.

#[cfg(feature = "nccl")]
mod band;
#[cfg(feature = "nccl")]
mod exchange;
#[cfg(feature = "nccl")]
mod life;
#[cfg(feature = "nccl")]
pub use life::BandedLife;
#[cfg_attr(not(feature = "nccl"), allow(dead_code))]
mod source;
#[cfg(feature = "nccl")]
mod window;

use crate::support::ensure_input;
use crate::{Kernel, Result};
use std::ops::Range;

/// How a board is split into bands: the [`Kernel`], the halo depth and the band heights. A
/// [`Kernel`] converts into the default plan (halo = the kernel's generations per launch, rows
/// split as evenly as possible, the first ranks taking one row more).
///
/// ```
/// use warpwork_life::{Bands, Kernel};
/// let plan = Bands::new(Kernel::Bit64T8).with_halo(16);
/// assert_eq!(plan.halo(), 16);
/// assert_eq!(plan.split(4096, 1001, 2)?, [0..501, 501..1001]);
/// let uneven = Bands::new(Kernel::Tiled).with_heights(vec![10, 90]);
/// assert_eq!(uneven.split(100, 100, 2)?, [0..10, 10..100]);
/// assert!(Bands::new(Kernel::Bit64T8).split(64, 20, 4).is_err()); // 5-row bands, 8-row halos
/// # Ok::<(), warpwork::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bands {
    kernel: Kernel,
    halo: Option<usize>,
    heights: Option<Vec<usize>>,
    window: Option<usize>,
}

impl From<Kernel> for Bands {
    fn from(kernel: Kernel) -> Self {
        Bands::new(kernel)
    }
}

impl Bands {
    /// The default plan for `kernel`.
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert_eq!(Bands::new(Kernel::Bit64T12).halo(), 12);
    /// assert_eq!(Bands::new(Kernel::Tiled).halo(), 1);
    /// ```
    pub fn new(kernel: Kernel) -> Self {
        Bands { kernel, halo: None, heights: None, window: None }
    }

    /// Halo rows above and below each band, hence generations between two exchanges: a
    /// multiple of the kernel's generations per launch (checked by [`Bands::split`]).
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert!(Bands::new(Kernel::Bit64T4).with_halo(12).split(64, 64, 2).is_ok());
    /// assert!(Bands::new(Kernel::Bit64T4).with_halo(6).split(64, 64, 2).is_err());
    /// ```
    pub fn with_halo(mut self, rows: usize) -> Self {
        self.halo = Some(rows);
        self
    }

    /// Rows of each rank's band, top to bottom (one per rank, summing to the board's height;
    /// checked by [`Bands::split`]).
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// let plan = Bands::new(Kernel::Byte).with_heights(vec![3, 1, 6]);
    /// assert_eq!(plan.split(7, 10, 3)?, [0..3, 3..4, 4..10]);
    /// assert!(plan.split(7, 11, 3).is_err()); // 10 rows given for 11
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn with_heights(mut self, heights: Vec<usize>) -> Self {
        self.heights = Some(heights);
        self
    }

    /// Keeps each band once on its GPU and steps it through windows of `rows` of its rows at a
    /// time, for boards whose bands do not fit twice (see the [module docs](self)): the band
    /// takes `h + 2·halo` rows, `rows + halo` rows more to move into and two windows of
    /// `rows + 2·halo` rows, instead of two boards of `h + 2·halo` rows. Each window is stepped
    /// as a board of its own and its own rows written into the band's next place (by the
    /// `bit64` kernels themselves, with the memory traffic of two boards; copied for the
    /// others), and `2·halo` rows are recomputed per window.
    /// [`Bands::split`] checks `rows`: at least the halo, a window of `rows + 2·halo` rows the
    /// kernel can run, not `sparse`.
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// let plan = Bands::new(Kernel::Bit64T8Flat).with_window(4096);
    /// assert_eq!(plan.window(), Some(4096));
    /// assert!(plan.split(1 << 20, 1 << 20, 2).is_ok()); // 2^19 rows a band, 128 windows each
    /// assert!(Bands::new(Kernel::Bit64T8).with_window(4).split(64, 64, 2).is_err()); // < halo
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn with_window(mut self, rows: usize) -> Self {
        self.window = Some(rows);
        self
    }

    /// The rows of a window, where each band is kept once ([`Bands::with_window`]).
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert_eq!(Bands::new(Kernel::Tiled).window(), None);
    /// assert_eq!(Bands::new(Kernel::Tiled).with_window(64).window(), Some(64));
    /// ```
    pub fn window(&self) -> Option<usize> {
        self.window
    }

    /// The kernel that runs every band.
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert_eq!(Bands::from(Kernel::Multi).kernel(), Kernel::Multi);
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The halo depth: as set, or the kernel's generations per launch.
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert_eq!(Bands::new(Kernel::Bit64T8Flat).halo(), 8);
    /// ```
    pub fn halo(&self) -> usize {
        self.halo.unwrap_or(self.kernel.generations_per_launch() as usize)
    }

    /// The rows of a `width × height` board each of `ranks` ranks owns, after checking
    /// everything a banded board needs before it allocates:
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) for no rank, an empty board, a halo
    /// that is 0 or not a multiple of the kernel's generations per launch (or deeper than 1 for
    /// `sparse`), heights that are not one per rank or do not sum to `height`, or a band shorter
    /// than the halo (its neighbours' halos would need rows of ranks further away), a window
    /// ([`Bands::with_window`]) shorter than the halo or with `sparse`; and each band's board of
    /// `h + 2·halo` rows must pass [`Kernel::check_size`], and so must its windows (the
    /// tallest, `min(window, h) + 2·halo` rows, and the last, shorter one where the window does
    /// not divide `h`).
    ///
    /// ```
    /// use warpwork_life::{Bands, Kernel};
    /// assert_eq!(Bands::new(Kernel::Tiled).split(5, 7, 3)?, [0..3, 3..5, 5..7]);
    /// assert!(Bands::new(Kernel::Bit64).split(100, 64, 2).is_err()); // not a multiple of 64 wide
    /// assert!(Bands::new(Kernel::Sparse).with_halo(2).split(8, 8, 2).is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn split(&self, width: usize, height: usize, ranks: usize) -> Result<Vec<Range<usize>>> {
        ensure_input!(ranks >= 1, "a banded Life board needs at least one rank");
        ensure_input!(width >= 1 && height >= 1, "a Life board needs at least 1x1 cells, got {width}x{height}");
        let (d, g) = (self.halo(), self.kernel.generations_per_launch() as usize);
        ensure_input!(
            d >= 1 && d.is_multiple_of(g),
            "a halo of {d} rows: {} needs a multiple of its {g} generations per launch",
            self.kernel.name()
        );
        ensure_input!(
            self.kernel != Kernel::Sparse || d == 1,
            "sparse runs bands with a halo of 1 row only (its skipped writes rely on the previous generation, stale in deeper halos), not {d}"
        );
        if let Some(r) = self.window {
            ensure_input!(
                r >= d,
                "a window of {r} rows is shorter than the {d}-row halo (it would recompute more halo rows than it keeps)"
            );
            ensure_input!(
                self.kernel != Kernel::Sparse,
                "sparse cannot step a band through windows (its skipped writes rely on the board it writes holding the previous generation)"
            );
            let with_halos = d.checked_mul(2).and_then(|x| x.checked_add(r));
            ensure_input!(with_halos.is_some(), "a window of {r} rows and its halos overflow");
        }
        let heights = match &self.heights {
            Some(h) => {
                ensure_input!(h.len() == ranks, "{} band heights given for {ranks} ranks", h.len());
                let sum = h.iter().try_fold(0usize, |s, &x| s.checked_add(x));
                ensure_input!(sum == Some(height), "band heights {h:?} do not sum to the board's {height} rows");
                h.clone()
            }
            None => (0..ranks).map(|r| height / ranks + usize::from(r < height % ranks)).collect(),
        };
        let mut rows = Vec::with_capacity(ranks);
        let mut start = 0;
        for (rank, &h) in heights.iter().enumerate() {
            ensure_input!(
                h >= d,
                "band {rank} of {h} rows is shorter than the {d}-row halo ({height} rows over {ranks} ranks; use fewer ranks or a shallower halo)"
            );
            let with_halos = d.checked_mul(2).and_then(|x| x.checked_add(h));
            ensure_input!(with_halos.is_some(), "band {rank} of {h} rows and its halos overflow");
            self.kernel.check_size(width, with_halos.unwrap_or(usize::MAX))?;
            if let Some(r) = self.window {
                // The tallest window and the last, shorter one (heights only shrink the launch).
                let last = h - (h - 1) / r * r;
                for window in [r.min(h), last] {
                    self.kernel.check_size(width, window + 2 * d)?;
                }
            }
            rows.push(start..start + h);
            start += h;
        }
        Ok(rows)
    }
}

/// The own rows of each window of a band of `h` rows in windows of `r ≥ 1` rows, in the order
/// they are stepped (the last one shorter where `r` does not divide `h`).
#[cfg_attr(not(feature = "nccl"), allow(dead_code))]
fn windows(h: usize, r: usize) -> impl Iterator<Item = Range<usize>> {
    (0..h).step_by(r.max(1)).map(move |s| s..(s + r).min(h))
}

#[cfg(test)]
mod tests;
