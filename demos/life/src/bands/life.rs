//! [`BandedLife`]: one board, one band of rows per GPU.

use super::band::Band;
use super::source::{band_board, Source, UNLIMITED};
use super::{exchange, Bands};
use crate::support::ensure_input;
use crate::{BitGrid, Kernel, Limits, Result, Rule};
use std::ops::Range;
use warpwork::multi::Gpus;

/// A Life board split into horizontal bands, one per GPU of a [`Gpus`] handle, each advanced
/// by a [`Life`](crate::Life) of its own on its band plus halo rows (or, with
/// [`Bands::with_window`], kept once and stepped a window at a time), the halos refreshed
/// through NCCL after every `halo` generations (see the [module docs](super) for how, and
/// [`Bands`] for the plan). Gives exactly the cells that one [`Life`](crate::Life) of the
/// whole board gives, with any kernel and rule.
///
/// ```no_run
/// use warpwork::multi::Gpus;
/// use warpwork_life::{BandedLife, Kernel};
/// let gpus = Gpus::new(&[0, 1])?;
/// let mut life = BandedLife::random(&gpus, Kernel::FASTEST, 32768, 65536, 0.5, 42)?;
/// life.step(1000)?; // 125 launches of 8 generations on each GPU, 125 exchanges of 8 rows
/// println!("population {}", life.population()?);
/// # Ok::<(), warpwork::Error>(())
/// ```
pub struct BandedLife<'g> {
    gpus: &'g Gpus,
    /// One per rank, each on `h_r + 2·halo` rows.
    bands: Vec<Band<'g>>,
    /// The board rows each rank owns.
    rows: Vec<Range<usize>>,
    heights: Vec<usize>,
    halo: usize,
    /// Own rows per window, where each band is kept once.
    window: Option<usize>,
    width: usize,
    height: usize,
    generation: u64,
}

impl std::fmt::Debug for BandedLife<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BandedLife {}x{} over {} GPUs ({} rows each, halo {}{}, {}, {}, generation {})",
            self.width,
            self.height,
            self.bands.len(),
            self.heights.iter().map(|h| h.to_string()).collect::<Vec<_>>().join("/"),
            self.halo,
            self.window.map(|r| format!(", windows of {r} rows")).unwrap_or_default(),
            self.rule(),
            self.kernel(),
            self.generation
        )
    }
}

impl<'g> BandedLife<'g> {
    /// The board `grid` split over `gpus` by `bands` (a [`Kernel`] for the default plan).
    /// [`Bands::split`] checks the plan first; then each rank's band with its halo rows is
    /// copied out of `grid` and uploaded to its GPU (two device boards of `h + 2·halo` rows
    /// per rank, as [`Life::new`](crate::Life::new) makes; with [`Bands::with_window`] one
    /// such board and two windows).
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Bands, BitGrid, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let board = BitGrid::random(4096, 3000, 0.3, 7)?;
    /// let plan = Bands::new(Kernel::Bit64T4).with_halo(8).with_heights(vec![1000, 2000]);
    /// let life = BandedLife::new(&gpus, plan, &board)?;
    /// assert_eq!(life.grid()?, board);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(gpus: &'g Gpus, bands: impl Into<Bands>, grid: &BitGrid) -> Result<Self> {
        Self::build(gpus, bands.into(), grid.width(), grid.height(), &Source::Grid(grid))
    }

    /// A random board (each cell alive with probability `density`): the same cells as
    /// [`BitGrid::random`] with this seed, made one band at a time, so that the host never
    /// holds more than one band (within [`Limits::DEFAULT`] for the whole board).
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, BitGrid, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let life = BandedLife::random(&gpus, Kernel::Bit64T8, 1024, 1024, 0.3, 5)?;
    /// assert_eq!(life.grid()?, BitGrid::random(1024, 1024, 0.3, 5)?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn random(
        gpus: &'g Gpus,
        bands: impl Into<Bands>,
        width: usize,
        height: usize,
        density: f64,
        seed: u64,
    ) -> Result<Self> {
        Self::random_with_limits(gpus, bands, width, height, density, seed, &Limits::DEFAULT)
    }

    /// [`BandedLife::random`] within `limits` for the whole board (larger boards than one GPU
    /// holds are what bands are for).
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel, Limits};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let limits = Limits::DEFAULT.with_max_cells(1 << 40).with_max_bytes(1 << 40);
    /// let life = BandedLife::random_with_limits(&gpus, Kernel::FASTEST, 1 << 18, 1 << 18, 0.5, 1, &limits)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn random_with_limits(
        gpus: &'g Gpus,
        bands: impl Into<Bands>,
        width: usize,
        height: usize,
        density: f64,
        seed: u64,
        limits: &Limits,
    ) -> Result<Self> {
        ensure_input!((0.0..=1.0).contains(&density), "density {density} is not in 0..=1");
        limits.check_board(width, height)?;
        Self::build(gpus, bands.into(), width, height, &Source::Random { density, seed })
    }

    /// Checks the plan, then makes each rank's band board from `source` and uploads it, one
    /// band at a time.
    fn build(gpus: &'g Gpus, plan: Bands, width: usize, height: usize, source: &Source) -> Result<Self> {
        let rows = plan.split(width, height, gpus.len())?;
        let d = plan.halo();
        let mut bands = Vec::with_capacity(rows.len());
        for (rank, r) in rows.iter().enumerate() {
            let band = band_board(source, width, height, r.clone(), d)?;
            bands.push(Band::new(gpus.gpu(rank), plan.kernel(), &band, d, plan.window())?);
        }
        let heights = rows.iter().map(|r| r.len()).collect();
        Ok(BandedLife { gpus, bands, rows, heights, halo: d, window: plan.window(), width, height, generation: 0 })
    }

    /// The rule the next steps run on every band (see [`Life::set_rule`](crate::Life::set_rule); a bit kernel loads
    /// the rule's module once per GPU).
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut life = BandedLife::random(&gpus, Kernel::Bit64T8, 1024, 1024, 0.3, 5)?;
    /// life.set_rule("B36/S23".parse()?)?; // HighLife
    /// assert_eq!(life.rule().to_string(), "B36/S23");
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn set_rule(&mut self, rule: Rule) -> Result<()> {
        self.bands.iter_mut().try_for_each(|b| b.set_rule(rule))
    }

    /// Advances `generations` generations (asynchronous on every GPU): blocks of `halo`
    /// generations, each followed by one exchange of halos; a last, shorter block when
    /// `generations` is not a multiple of the halo.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut life = BandedLife::random(&gpus, Kernel::Bit64T8, 1024, 1024, 0.3, 5)?;
    /// life.step(20)?; // 8, 8 and 4 generations, three exchanges
    /// assert_eq!(life.generation(), 20);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn step(&mut self, generations: u64) -> Result<()> {
        let mut left = generations;
        while left > 0 {
            let gens = left.min(self.halo as u64);
            for band in &mut self.bands {
                band.step(gens)?;
            }
            self.exchange()?;
            self.generation += gens;
            left -= gens;
        }
        Ok(())
    }

    /// Refreshes every halo from the neighbouring bands (what [`BandedLife::step`] does after
    /// each block; calling it again changes nothing, which is how a benchmark times the
    /// exchange alone). Asynchronous; NCCL's sends and receives of every rank in one group.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut life = BandedLife::random(&gpus, Kernel::Tiled, 1024, 1024, 0.3, 5)?;
    /// life.exchange()?;
    /// gpus.synchronize()?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn exchange(&mut self) -> Result<()> {
        exchange::exchange(self.gpus, &mut self.bands, &self.heights, self.halo)
    }

    /// Live cells of the current generation: each rank counts its own rows on its device (the
    /// first `halo + h` rows of its board less the first `halo`, so that every count starts at
    /// the board's aligned start), the host adds. Waits for every GPU.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, BitGrid, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let life = BandedLife::random(&gpus, Kernel::Byte, 999, 777, 0.3, 5)?;
    /// assert_eq!(life.population()?, BitGrid::random(999, 777, 0.3, 5)?.population());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn population(&self) -> Result<u64> {
        let mut total = 0;
        for (band, &h) in self.bands.iter().zip(&self.heights) {
            total += band.population(h, self.halo)?;
        }
        Ok(total)
    }

    /// The current generation, read back band by band (waits for every GPU). The host holds
    /// the whole board and one band.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel, Life};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut banded = BandedLife::random(&gpus, Kernel::Bit64T8, 1024, 1024, 0.3, 5)?;
    /// let mut single = Life::random(gpus.gpu(0), Kernel::Bit64T8, 1024, 1024, 0.3, 5)?;
    /// banded.step(100)?;
    /// single.step(100)?;
    /// assert_eq!(banded.grid()?, single.grid()?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn grid(&self) -> Result<BitGrid> {
        let mut out = BitGrid::with_limits(self.width, self.height, &UNLIMITED)?;
        for (band, rows) in self.bands.iter().zip(&self.rows) {
            let g = band.grid()?;
            for (i, y) in rows.clone().enumerate() {
                out.row_mut(y).copy_from_slice(g.row(self.halo + i));
            }
        }
        Ok(out)
    }

    /// The rows each rank owns, top to bottom.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let life = BandedLife::random(&gpus, Kernel::Tiled, 100, 101, 0.3, 5)?;
    /// assert_eq!(life.rows(), [0..51, 51..101]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn rows(&self) -> &[Range<usize>] {
        &self.rows
    }

    /// Halo rows above and below each band: generations between two exchanges.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// assert_eq!(BandedLife::random(&gpus, Kernel::Bit64T12, 128, 128, 0.3, 5)?.halo(), 12);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn halo(&self) -> usize {
        self.halo
    }

    /// Own rows per window where each band is kept once and stepped through windows
    /// ([`Bands::with_window`]); `None` where each band has two boards.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Bands, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let plan = Bands::new(Kernel::Bit64T8).with_window(256);
    /// assert_eq!(BandedLife::random(&gpus, plan, 1024, 1024, 0.3, 5)?.window(), Some(256));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn window(&self) -> Option<usize> {
        self.window
    }

    /// The kernel that advances every band.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// assert_eq!(BandedLife::random(&gpus, Kernel::Multi, 128, 128, 0.3, 5)?.kernel(), Kernel::Multi);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.bands[0].life().kernel()
    }

    /// The rule the board runs.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel, Rule};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// assert_eq!(BandedLife::random(&gpus, Kernel::Multi, 128, 128, 0.3, 5)?.rule(), Rule::CONWAY);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn rule(&self) -> Rule {
        self.bands[0].life().rule()
    }

    /// Width and height of the whole board, in cells.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// assert_eq!(BandedLife::random(&gpus, Kernel::Multi, 300, 200, 0.3, 5)?.size(), (300, 200));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Generations advanced since creation.
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut life = BandedLife::random(&gpus, Kernel::Multi, 300, 200, 0.3, 5)?;
    /// life.step(3)?;
    /// assert_eq!(life.generation(), 3);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows per warp strip of the `bit64` kernels on every band ([`Life::set_strip_rows`](crate::Life::set_strip_rows)).
    ///
    /// ```no_run
    /// use warpwork::multi::Gpus;
    /// use warpwork_life::{BandedLife, Kernel};
    /// let gpus = Gpus::new(&[0, 1])?;
    /// let mut life = BandedLife::random(&gpus, Kernel::Bit64T8, 4096, 4096, 0.3, 5)?;
    /// life.set_strip_rows(Some(128))?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn set_strip_rows(&mut self, rows: Option<u32>) -> Result<()> {
        self.bands.iter_mut().try_for_each(|b| b.set_strip_rows(rows))
    }
}
