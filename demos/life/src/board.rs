//! [`Life`]: a board on the GPU, advanced by one chosen [`Kernel`].

use crate::abi::kernels;
use crate::support::ensure_input;
use crate::transfer::{self, Boards};
use crate::{BitGrid, Error, Kernel, Layout, Result, Rule, BIT64_OUT_LANES};
use warpwork::cudarc::driver::CudaFunction;
use warpwork::{Gpu, Kernels};

#[cfg(feature = "nccl")]
mod band;
mod launch;
mod population;
#[cfg(feature = "nccl")]
pub(crate) use band::CurrentRows;
#[cfg(feature = "nccl")]
pub(crate) use launch::WindowOut;

/// A Life board on the GPU, advanced by one chosen [`Kernel`]. It borrows the [`Gpu`] handle
/// (its launches go to that handle's stream) and holds the Life kernels, looked up when the board
/// is made from the module the context's first board loaded ([`Gpu::kernels`]), and for a bit
/// kernel on a rule other than B3/S23 the bit kernels with that rule in their `lop3` tables
/// (loaded once per context and rule, [`Gpu::ptx_kernels`]).
pub struct Life<'g> {
    gpu: &'g Gpu,
    kernels: Kernels,
    /// The bit kernels with the rule's tables, for a bit layout and a rule other than B3/S23.
    rule_kernels: Option<Kernels>,
    kernel: Kernel,
    width: usize,
    height: usize,
    boards: Boards,
    /// Index of the board holding the current generation.
    cur: usize,
    generation: u64,
    strip_rows: Option<u32>,
    rule: Rule,
}

impl std::fmt::Debug for Life<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Life {}x{} ({}, {}, generation {})",
            self.width, self.height, self.rule, self.kernel, self.generation
        )
    }
}

impl<'g> Life<'g> {
    /// A board starting from `grid`. [`Kernel::check_size`] first; then the Life module is
    /// loaded into `gpu`'s context and the two device boards are allocated (a driver error if the
    /// device is out of memory) and filled 2^20 cells at a time.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{BitGrid, Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::new(&gpu, Kernel::Tiled, &BitGrid::random(1000, 500, 0.3, 1)?)?;
    /// assert_eq!(life.population()?, BitGrid::random(1000, 500, 0.3, 1)?.population());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(gpu: &'g Gpu, kernel: Kernel, grid: &BitGrid) -> Result<Self> {
        let (width, height) = (grid.width(), grid.height());
        kernel.check_size(width, height)?;
        // The module is loaded once per context (the first board's), its kernels looked up here.
        let kernels = gpu.kernels(&crate::module::DEVICE_CODE, &kernels::KERNELS)?;
        let boards = transfer::upload(gpu, kernel.layout(), kernel == Kernel::Sparse, grid)?;
        Ok(Life {
            gpu,
            kernels,
            rule_kernels: None,
            kernel,
            width,
            height,
            boards,
            cur: 0,
            generation: 0,
            strip_rows: None,
            rule: Rule::CONWAY,
        })
    }

    /// An empty board (within [`crate::Limits::DEFAULT`]; for larger ones build the [`BitGrid`]
    /// with [`BitGrid::with_limits`] and call [`Life::new`]).
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::empty(&gpu, Kernel::Bit64, 4096, 1024)?;
    /// assert_eq!(life.population()?, 0);
    /// assert!(Life::empty(&gpu, Kernel::Bit64, 4000, 1024).is_err()); // not a multiple of 64
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn empty(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize) -> Result<Self> {
        kernel.check_size(width, height)?;
        Self::new(gpu, kernel, &BitGrid::new(width, height)?)
    }

    /// A random board: each cell alive with probability `density`, reproducible from `seed`
    /// (within [`crate::Limits::DEFAULT`], like [`Life::empty`]).
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let mut life = Life::random(&gpu, Kernel::Byte, 1000, 1000, 0.3, 42)?;
    /// life.step(100)?;
    /// println!("{} cells alive after 100 generations", life.population()?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn random(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize, density: f64, seed: u64) -> Result<Self> {
        kernel.check_size(width, height)?;
        Self::new(gpu, kernel, &BitGrid::random(width, height, density, seed)?)
    }

    /// A `width × height` board with `pattern` in its centre (within
    /// [`crate::Limits::DEFAULT`], like [`Life::empty`]).
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{pattern, Kernel, Life, Limits};
    /// let gpu = Gpu::new(0)?;
    /// let glider = pattern::parse(pattern::builtin("glider").unwrap(), &Limits::DEFAULT)?.grid;
    /// let mut life = Life::with_pattern(&gpu, Kernel::Tiled, 64, 64, &glider)?;
    /// life.step(4 * 64)?; // one cell diagonally per 4 generations: once round the torus
    /// assert_eq!(life.grid()?, pattern::centred(&glider, 64, 64)?);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn with_pattern(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize, pattern: &BitGrid) -> Result<Self> {
        kernel.check_size(width, height)?;
        Self::new(gpu, kernel, &crate::pattern::centred(pattern, width, height)?)
    }

    /// The rule the next steps run (B3/S23 unless set). Every kernel runs any [`Rule`]: the cell
    /// kernels take it as a parameter; the bit kernels run B3/S23 in a specialised form and any
    /// other rule with its truth tables written into their code, a module of its own that this
    /// call loads the first time the context sees the rule (the driver compiles it: a fraction
    /// of a second; see `docs/life.md`). B0 rules run exactly on the torus.
    ///
    /// ```no_run
    /// use warpwork::Gpu;
    /// use warpwork_life::{BitGrid, Kernel, Life, Rule};
    /// let gpu = Gpu::new(0)?;
    /// let mut life = Life::new(&gpu, Kernel::FASTEST, &BitGrid::new(64, 64)?)?;
    /// life.set_rule("B2/S".parse()?)?; // Seeds
    /// assert_eq!(life.rule().to_string(), "B2/S");
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn set_rule(&mut self, rule: Rule) -> Result<()> {
        let bits = matches!(self.kernel.layout(), Layout::Bits32 | Layout::Bits64);
        self.rule_kernels = if bits && rule != Rule::CONWAY {
            let ptx = crate::module::rule_ptx(rule.packed())?;
            Some(self.gpu.ptx_kernels("warpwork-life bit kernels", &ptx, &crate::module::RULE_KERNELS)?)
        } else {
            None
        };
        self.rule = rule;
        Ok(())
    }

    /// The rule the board runs.
    ///
    /// ```no_run
    /// use warpwork::Gpu;
    /// use warpwork_life::{Kernel, Life, Rule};
    /// let gpu = Gpu::new(0)?;
    /// assert_eq!(Life::empty(&gpu, Kernel::Bit32, 64, 64)?.rule(), Rule::CONWAY);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The kernel that advances this board.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::empty(&gpu, Kernel::FASTEST, 128, 128)?;
    /// assert_eq!(life.kernel(), Kernel::Bit64T8Flat);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    /// Width in cells.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::empty(&gpu, Kernel::Multi, 300, 200)?;
    /// assert_eq!((life.width(), life.height()), (300, 200));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }
    /// Height in cells.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::empty(&gpu, Kernel::Multi, 300, 200)?;
    /// assert_eq!(life.height(), 200);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn height(&self) -> usize {
        self.height
    }
    /// Generations advanced since creation.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let mut life = Life::empty(&gpu, Kernel::Bit64T8, 512, 512)?;
    /// life.step(20)?; // two launches of 8 generations, one of 4
    /// assert_eq!(life.generation(), 20);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows per warp strip of the `bit64` kernels. Taller strips waste less on the vertical halo
    /// (each strip recomputes about `3·g` rows for `g` generations per launch), shorter ones give
    /// more warps. The default fills whole waves of resident warps (see [`Life::strip_rows`]);
    /// `None` restores it.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let mut life = Life::random(&gpu, Kernel::Bit64T4, 4096, 4096, 0.3, 1)?;
    /// life.set_strip_rows(Some(64))?;
    /// assert_eq!(life.strip_rows(4), 64);
    /// assert!(life.set_strip_rows(Some(0)).is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn set_strip_rows(&mut self, rows: Option<u32>) -> Result<()> {
        ensure_input!(rows != Some(0), "strip rows must be at least 1");
        self.strip_rows = rows;
        Ok(())
    }

    /// Rows per strip a `bit64` launch of `gens` generations uses: unless set, the strips are
    /// sized so that the launch is a whole number of waves of resident warps (no half-empty
    /// last wave), with strips near `16·gens` rows tall.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let life = Life::empty(&gpu, Kernel::Bit64T8, 8192, 8192)?;
    /// let rows = life.strip_rows(8); // sized from this GPU's occupancy and SM count
    /// assert!((1..=8192).contains(&rows));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn strip_rows(&self, gens: u32) -> u32 {
        self.strip_rows_for(gens, self.height)
    }

    /// [`Life::strip_rows`] for a launch on the first `height` rows (a band's window).
    fn strip_rows_for(&self, gens: u32, height: usize) -> u32 {
        if let Some(r) = self.strip_rows {
            return r.min(height as u32);
        }
        let chunks = (self.width / 64).div_ceil(BIT64_OUT_LANES as usize).max(1);
        let occupancy = |f: &CudaFunction| f.occupancy_max_active_blocks_per_multiprocessor(128, 0, None).ok();
        let blocks_per_sm =
            self.bit_kernel(self.bit64_name(gens)).ok().and_then(occupancy).unwrap_or(2).max(1) as usize;
        let resident_warps = blocks_per_sm * 4 * self.gpu.info().sm_count as usize;
        let strips_per_wave = (resident_warps / chunks).max(1);
        let target = 16 * gens as usize;
        let waves = ((height as f64 / (strips_per_wave * target) as f64).round() as usize).max(1);
        height.div_ceil(waves * strips_per_wave).clamp(1, height) as u32
    }

    /// Advances `generations` generations (asynchronous: returns once the launches are queued).
    /// Temporally blocked kernels take as many full launches as fit and finish with shorter ones.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let blinker = warpwork_life::BitGrid::from_words(3, 1, vec![0b111])?;
    /// let mut life = Life::with_pattern(&gpu, Kernel::Naive2d16x16, 16, 16, &blinker)?;
    /// let start = life.grid()?;
    /// life.step(2)?; // a blinker has period 2
    /// assert_eq!(life.grid()?, start);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn step(&mut self, generations: u64) -> Result<()> {
        let mut left = generations;
        while left > 0 {
            let gens = self.launch_generations(left);
            self.launch(gens, self.height, None, None)?;
            self.cur ^= 1;
            self.generation += gens as u64;
            left -= gens as u64;
        }
        Ok(())
    }

    /// Fills the board the next launch writes with `0xAB` bytes, so that cells a kernel fails
    /// to write stand out (a test aid). Refused for `sparse`, whose skipped writes rely on that
    /// board holding the previous generation.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let mut life = Life::random(&gpu, Kernel::Ballot, 100, 100, 0.3, 7)?;
    /// life.poison_spare()?; // a cell the next step fails to write now reads as 0xAB garbage
    /// life.step(1)?;
    /// let after = life.grid()?; // a test compares it with the CPU reference's step
    /// assert!(Life::empty(&gpu, Kernel::Sparse, 8, 8)?.poison_spare().is_err());
    /// # let _ = after;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn poison_spare(&mut self) -> Result<()> {
        let spare = self.cur ^ 1;
        match &mut self.boards {
            Boards::U32(b) if self.kernel != Kernel::Sparse => b[spare] = self.gpu.filled(b[spare].len(), 0xAB)?,
            Boards::Bits32(b) => b[spare] = self.gpu.filled(b[spare].len(), 0xAB)?,
            Boards::U8(b) => b[spare] = self.gpu.filled(b[spare].len(), 0xAB)?,
            Boards::Bits64(b) => b[spare] = self.gpu.filled(b[spare].len(), 0xAB)?,
            Boards::U32(_) => {
                return Err(Error::InvalidInput("sparse reads the spare board: it cannot be poisoned".into()))
            }
        }
        Ok(())
    }

    /// The current generation, read back (waits for the GPU). Converted 2^20 cells at a time:
    /// the host needs the packed board and a few MiB, whatever the device layout.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let board = warpwork_life::BitGrid::random(640, 480, 0.5, 3)?;
    /// let life = Life::new(&gpu, Kernel::Bit32, &board)?;
    /// assert_eq!(life.grid()?, board); // no step yet: the board as uploaded
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn grid(&self) -> Result<BitGrid> {
        transfer::download(self.gpu, self.boards.get(self.cur), 0, self.width, self.height)
    }

    /// Live cells of the current generation, counted on the device (one reduction; only the
    /// count comes back). Waits for the GPU.
    ///
    /// ```no_run
    /// use warpwork::{Gpu, Kernels};
    /// use warpwork_life::{Kernel, Life};
    /// let gpu = Gpu::new(0)?;
    /// let board = warpwork_life::BitGrid::random(640, 480, 0.5, 3)?;
    /// let life = Life::new(&gpu, Kernel::Sparse, &board)?;
    /// assert_eq!(life.population()?, board.population());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn population(&self) -> Result<u64> {
        self.population_rows(self.height)
    }
}
