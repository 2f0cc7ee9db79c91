//! Conway's Game of Life (B3/S23) on a torus, on the GPU, with every kernel of the seed article
//! and the bit-packed ones beyond it.
//!
//! ```no_run
//! use warpwork::{Gpu, life::{Life, Kernel}};
//! let gpu = Gpu::new(0)?;
//! let mut life = Life::random(&gpu, Kernel::FASTEST, 4096, 4096, 0.35, 42)?;
//! life.step(1000)?;
//! println!("population {}", life.population()?);
//! # Ok::<(), warpwork::Error>(())
//! ```
//!
//! | [`Kernel`] | cell layout | what it tries |
//! |---|---|---|
//! | `naive-1d-64`, `naive-1d-256`, `naive-2d-8x8`, `naive-2d-16x16` | `u32` | brute force, modulo wrap, launch shapes |
//! | `sparse` | `u32` (0/1, 2/3 = just changed) | skips the write of cells unchanged for two steps |
//! | `multi` | `u32` | 8 cells per thread, neighbourhood in registers |
//! | `tiled` | `u32` | 16×16 shared-memory tile with halo |
//! | `byte` | `u8` | a quarter of the bytes |
//! | `ballot` | `u32` | warp ballots turn rows into masks, `popc` counts |
//! | `bit32` | 1 bit | 32 cells per thread, bit-sliced adder |
//! | `bit64`, `bit64-t2` … `bit64-t12` | 1 bit | 64 cells per lane, shuffles for the edges, 1…12 generations per launch in registers |
//! | `bit64-t8-flat` | 1 bit | `bit64-t8` without the skewed pipeline (fewer halo rows, less overlap) |
//!
//! Any width and height ≥ 1 work for the cell kernels; `bit32` needs a width that is a multiple of
//! 32 and the `bit64` family a multiple of 64 ([`Error::InvalidInput`] otherwise).

pub mod pattern;

pub use warpwork_cpu_reference::life::BitGrid;

use crate::{error::ensure_input, DeviceBuffer, Error, Gpu, Result};
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// A Life kernel; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Brute force, 1D launch, 64 threads per block.
    Naive1d64,
    /// Brute force, 1D launch, 256 threads per block.
    Naive1d256,
    /// Brute force, 2D launch, 8×8 blocks.
    Naive2d8x8,
    /// Brute force, 2D launch, 16×16 blocks.
    Naive2d16x16,
    /// Sparse write-skip (states 0–3).
    Sparse,
    /// Eight cells per thread in registers.
    Multi,
    /// Shared-memory tile with halo.
    Tiled,
    /// One byte per cell.
    Byte,
    /// Warp ballot + popc neighbour counting.
    Ballot,
    /// One bit per cell, 32 per thread.
    Bit32,
    /// One bit per cell, 64 per lane, shuffles, one generation per launch.
    Bit64,
    /// As `Bit64`, 2 generations per launch.
    Bit64T2,
    /// As `Bit64`, 4 generations per launch.
    Bit64T4,
    /// As `Bit64`, 8 generations per launch.
    Bit64T8,
    /// As `Bit64`, 12 generations per launch.
    Bit64T12,
    /// As `Bit64T8` with the pipeline stages unskewed (each waits for the one before it).
    Bit64T8Flat,
}

/// How a kernel stores the board on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One `u32` per cell.
    U32,
    /// One byte per cell.
    U8,
    /// One bit per cell, rows of `width / 32` 32-bit words.
    Bits32,
    /// One bit per cell, rows of `width / 64` 64-bit words.
    Bits64,
}

impl Kernel {
    /// Every kernel, in the order of the seed article, then the bit-packed ones.
    pub const ALL: [Kernel; 16] = [
        Kernel::Naive1d64,
        Kernel::Naive1d256,
        Kernel::Naive2d8x8,
        Kernel::Naive2d16x16,
        Kernel::Sparse,
        Kernel::Multi,
        Kernel::Tiled,
        Kernel::Byte,
        Kernel::Ballot,
        Kernel::Bit32,
        Kernel::Bit64,
        Kernel::Bit64T2,
        Kernel::Bit64T4,
        Kernel::Bit64T8,
        Kernel::Bit64T12,
        Kernel::Bit64T8Flat,
    ];

    /// The fastest kernel for large boards (a width that is a multiple of 64), as measured on an
    /// H100 (`docs/life.md`).
    pub const FASTEST: Kernel = Kernel::Bit64T8Flat;

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Naive1d64 => "naive-1d-64",
            Kernel::Naive1d256 => "naive-1d-256",
            Kernel::Naive2d8x8 => "naive-2d-8x8",
            Kernel::Naive2d16x16 => "naive-2d-16x16",
            Kernel::Sparse => "sparse",
            Kernel::Multi => "multi",
            Kernel::Tiled => "tiled",
            Kernel::Byte => "byte",
            Kernel::Ballot => "ballot",
            Kernel::Bit32 => "bit32",
            Kernel::Bit64 => "bit64",
            Kernel::Bit64T2 => "bit64-t2",
            Kernel::Bit64T4 => "bit64-t4",
            Kernel::Bit64T8 => "bit64-t8",
            Kernel::Bit64T12 => "bit64-t12",
            Kernel::Bit64T8Flat => "bit64-t8-flat",
        }
    }

    /// The kernel of a [`Kernel::name`].
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }

    /// How the board is stored on the device.
    pub fn layout(self) -> Layout {
        match self {
            Kernel::Byte => Layout::U8,
            Kernel::Bit32 => Layout::Bits32,
            Kernel::Bit64
            | Kernel::Bit64T2
            | Kernel::Bit64T4
            | Kernel::Bit64T8
            | Kernel::Bit64T12
            | Kernel::Bit64T8Flat => Layout::Bits64,
            _ => Layout::U32,
        }
    }

    /// Generations one launch advances (temporal blocking).
    pub fn generations_per_launch(self) -> u32 {
        match self {
            Kernel::Bit64T2 => 2,
            Kernel::Bit64T4 => 4,
            Kernel::Bit64T8 | Kernel::Bit64T8Flat => 8,
            Kernel::Bit64T12 => 12,
            _ => 1,
        }
    }

    /// DRAM bytes per cell and generation if every cell is read once and written once per launch:
    /// the kernel's own bandwidth limit is `copy roof / this`. (`sparse` writes less on boards
    /// that settle; this counts the full write.)
    pub fn bytes_per_cell(self) -> f64 {
        let per_launch = match self.layout() {
            Layout::U32 => 8.0,
            Layout::U8 => 2.0,
            Layout::Bits32 | Layout::Bits64 => 0.25,
        };
        per_launch / self.generations_per_launch() as f64
    }

    /// Checks that this kernel can run a `width × height` board.
    pub fn check_size(self, width: usize, height: usize) -> Result<()> {
        ensure_input!(width >= 1 && height >= 1, "a Life board needs at least 1x1 cells, got {width}x{height}");
        ensure_input!(
            width <= u32::MAX as usize && height <= u32::MAX as usize,
            "{width}x{height}: Life kernels index rows and columns with u32"
        );
        let cells = width as u64 * height as u64;
        match self.layout() {
            Layout::Bits32 => ensure_input!(
                width.is_multiple_of(32),
                "kernel {} needs a width that is a multiple of 32 cells, got {width} (use bit64 for multiples of 64 or a cell kernel)",
                self.name()
            ),
            Layout::Bits64 => ensure_input!(
                width.is_multiple_of(64),
                "kernel {} needs a width that is a multiple of 64 cells, got {width} (bit32 takes multiples of 32, cell kernels any width)",
                self.name()
            ),
            _ => {}
        }
        let (threads, limit) = match self {
            Kernel::Naive2d8x8 => (height.div_ceil(8) as u64, 65535),
            Kernel::Naive2d16x16 | Kernel::Tiled => (height.div_ceil(16) as u64, 65535),
            Kernel::Ballot => (width.div_ceil(32) as u64 * height as u64 * 32, (1u64 << 31) * 64),
            _ => (cells, (1u64 << 31) * 64),
        };
        if threads > limit {
            return Err(Error::CapacityExceeded { what: "Life launch grid", needed: threads, capacity: limit });
        }
        Ok(())
    }
}

impl std::str::FromStr for Kernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Kernel::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
            Error::InvalidInput(format!("unknown Life kernel {s:?}; one of {}", names.join(", ")))
        })
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The two device boards (current and next generation) in a kernel's layout.
enum Boards {
    U32([DeviceBuffer<u32>; 2]),
    U8([DeviceBuffer<u8>; 2]),
    Bits32([DeviceBuffer<u32>; 2]),
    Bits64([DeviceBuffer<u64>; 2]),
}

/// A Life board on the GPU, advanced by one chosen [`Kernel`].
pub struct Life<'g> {
    gpu: &'g Gpu,
    kernel: Kernel,
    width: usize,
    height: usize,
    boards: Boards,
    /// Index of the board holding the current generation.
    cur: usize,
    generation: u64,
    strip_rows: Option<u32>,
}

impl std::fmt::Debug for Life<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Life {}x{} ({}, generation {})", self.width, self.height, self.kernel, self.generation)
    }
}

impl<'g> Life<'g> {
    /// A board starting from `grid`.
    pub fn new(gpu: &'g Gpu, kernel: Kernel, grid: &BitGrid) -> Result<Self> {
        let (width, height) = (grid.width(), grid.height());
        kernel.check_size(width, height)?;
        // `sparse` needs both boards equal at the start (its skipped writes rely on it); the
        // others overwrite the second board before reading it.
        let boards = match kernel.layout() {
            Layout::U32 => {
                let cells = grid.to_cells(1u32);
                Boards::U32([gpu.upload(&cells)?, gpu.upload(&cells)?])
            }
            Layout::U8 => {
                let cells = grid.to_cells(1u8);
                Boards::U8([gpu.upload(&cells)?, gpu.zeros(cells.len())?])
            }
            Layout::Bits32 => {
                let words = to_words32(grid);
                Boards::Bits32([gpu.upload(&words)?, gpu.zeros(words.len())?])
            }
            Layout::Bits64 => Boards::Bits64([gpu.upload(grid.words())?, gpu.zeros(grid.words().len())?]),
        };
        Ok(Life { gpu, kernel, width, height, boards, cur: 0, generation: 0, strip_rows: None })
    }

    /// An empty board.
    pub fn empty(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize) -> Result<Self> {
        kernel.check_size(width, height)?;
        Self::new(gpu, kernel, &BitGrid::new(width, height))
    }

    /// A random board: each cell alive with probability `density`, reproducible from `seed`.
    pub fn random(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize, density: f64, seed: u64) -> Result<Self> {
        kernel.check_size(width, height)?;
        ensure_input!((0.0..=1.0).contains(&density), "density {density} is not in 0..=1");
        Self::new(gpu, kernel, &BitGrid::random(width, height, density, seed))
    }

    /// A `width × height` board with `pattern` in its centre.
    pub fn with_pattern(gpu: &'g Gpu, kernel: Kernel, width: usize, height: usize, pattern: &BitGrid) -> Result<Self> {
        kernel.check_size(width, height)?;
        Self::new(gpu, kernel, &pattern::centred(pattern, width, height)?)
    }

    /// The kernel that advances this board.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    /// Width in cells.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Height in cells.
    pub fn height(&self) -> usize {
        self.height
    }
    /// Generations advanced since creation.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows per warp strip of the `bit64` kernels. Taller strips waste less on the vertical halo
    /// (each strip recomputes about `3·g` rows for `g` generations per launch), shorter ones give
    /// more warps. The default fills whole waves of resident warps (see [`Life::strip_rows`]);
    /// `None` restores it.
    pub fn set_strip_rows(&mut self, rows: Option<u32>) -> Result<()> {
        ensure_input!(rows != Some(0), "strip rows must be at least 1");
        self.strip_rows = rows;
        Ok(())
    }

    /// Rows per strip a `bit64` launch of `gens` generations uses: unless set, the strips are
    /// sized so that the launch is a whole number of waves of resident warps (no half-empty
    /// last wave), with strips near `16·gens` rows tall.
    pub fn strip_rows(&self, gens: u32) -> u32 {
        if let Some(r) = self.strip_rows {
            return r.min(self.height as u32);
        }
        let chunks = (self.width / 64).div_ceil(BIT64_OUT_LANES as usize).max(1);
        let blocks_per_sm = self.gpu.occupancy(self.bit64_name(gens), 128, 0).unwrap_or(2).max(1) as usize;
        let resident_warps = blocks_per_sm * 4 * self.gpu.info().sm_count as usize;
        let strips_per_wave = (resident_warps / chunks).max(1);
        let target = 16 * gens as usize;
        let waves = ((self.height as f64 / (strips_per_wave * target) as f64).round() as usize).max(1);
        self.height.div_ceil(waves * strips_per_wave).clamp(1, self.height) as u32
    }

    /// Advances `generations` generations (asynchronous: returns once the launches are queued).
    /// Temporally blocked kernels take as many full launches as fit and finish with shorter ones.
    pub fn step(&mut self, generations: u64) -> Result<()> {
        let mut left = generations;
        while left > 0 {
            let gens = match self.kernel.layout() {
                Layout::Bits64 => {
                    let g = self.kernel.generations_per_launch() as u64;
                    [g, 8, 4, 2, 1].into_iter().find(|&k| k <= g && k <= left).unwrap_or(1) as u32
                }
                _ => 1,
            };
            self.launch(gens)?;
            self.cur ^= 1;
            self.generation += gens as u64;
            left -= gens as u64;
        }
        Ok(())
    }

    fn launch(&mut self, gens: u32) -> Result<()> {
        let (w, h) = (self.width as u32, self.height as u32);
        let cells = self.width as u64 * self.height as u64;
        let cfg_1d = |threads: u64, block: u32| LaunchConfig {
            grid_dim: (threads.div_ceil(block as u64) as u32, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let cfg_2d = |b: u32| LaunchConfig {
            grid_dim: (w.div_ceil(b), h.div_ceil(b), 1),
            block_dim: (b, b, 1),
            shared_mem_bytes: 0,
        };
        let strip_rows = self.strip_rows(gens);
        let (name, cfg, args) = match self.kernel {
            Kernel::Naive1d64 => ("life_naive_1d", cfg_1d(cells, 64), (w, h)),
            Kernel::Naive1d256 => ("life_naive_1d", cfg_1d(cells, 256), (w, h)),
            Kernel::Naive2d8x8 => ("life_naive_2d", cfg_2d(8), (w, h)),
            Kernel::Naive2d16x16 => ("life_naive_2d", cfg_2d(16), (w, h)),
            Kernel::Sparse => ("life_sparse", cfg_1d(cells, 256), (w, h)),
            Kernel::Multi => ("life_multi", cfg_1d(w.div_ceil(MULTI_CELLS) as u64 * h as u64, 256), (w, h)),
            Kernel::Tiled => ("life_tiled", cfg_2d(16), (w, h)),
            Kernel::Byte => ("life_byte", cfg_1d(cells, 256), (w, h)),
            Kernel::Ballot => ("life_ballot", cfg_1d(w.div_ceil(32) as u64 * h as u64 * 32, 256), (w, h)),
            Kernel::Bit32 => ("life_bit32", cfg_1d((w / 32) as u64 * h as u64, 256), (w / 32, h)),
            _ => {
                let name = self.bit64_name(gens);
                let warps = (w / 64).div_ceil(BIT64_OUT_LANES) as u64 * h.div_ceil(strip_rows) as u64;
                (name, cfg_1d(warps * 32, 128), (w / 64, h))
            }
        };
        let f = self.gpu.function(name)?;
        let mut l = self.gpu.stream().launch_builder(&f);
        let cur = self.cur;
        macro_rules! pair {
            ($bufs:expr) => {{
                let (a, b) = $bufs.split_at_mut(1);
                if cur == 0 {
                    (&a[0], &mut b[0])
                } else {
                    (&b[0], &mut a[0])
                }
            }};
        }
        match &mut self.boards {
            Boards::U32(bufs) | Boards::Bits32(bufs) => {
                let (src, dst) = pair!(bufs);
                l.arg(src.raw()).arg(dst.raw_mut()).arg(&args.0).arg(&args.1);
                // SAFETY: `life_*(src, dst, width|words_per_row, height)` over boards of that size.
                unsafe { l.launch(cfg)? };
            }
            Boards::U8(bufs) => {
                let (src, dst) = pair!(bufs);
                l.arg(src.raw()).arg(dst.raw_mut()).arg(&args.0).arg(&args.1);
                // SAFETY: as above, one byte per cell.
                unsafe { l.launch(cfg)? };
            }
            Boards::Bits64(bufs) => {
                let (src, dst) = pair!(bufs);
                l.arg(src.raw()).arg(dst.raw_mut()).arg(&args.0).arg(&args.1).arg(&strip_rows);
                // SAFETY: `life_bit64_t*(src, dst, words_per_row, height, strip_rows)`, strip_rows ≥ 1.
                unsafe { l.launch(cfg)? };
            }
        }
        Ok(())
    }

    /// Fills the board the next launch writes with `0xAB` bytes, so that cells a kernel fails
    /// to write stand out (a test aid). Refused for `sparse`, whose skipped writes rely on that
    /// board holding the previous generation.
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

    /// The `bit64` kernel advancing `gens` (1, 2, 4, 8 or 12) generations per launch.
    fn bit64_name(&self, gens: u32) -> &'static str {
        match gens {
            1 => "life_bit64_t1",
            2 => "life_bit64_t2",
            4 => "life_bit64_t4",
            8 if self.kernel == Kernel::Bit64T8Flat => "life_bit64_t8_flat",
            8 => "life_bit64_t8",
            _ => "life_bit64_t12",
        }
    }

    /// The current generation, read back (waits for the GPU).
    pub fn grid(&self) -> Result<BitGrid> {
        let (w, h) = (self.width, self.height);
        let bad = || Error::InvalidInput("device board has an unexpected size".into());
        match &self.boards {
            Boards::U32(b) => {
                BitGrid::from_cells(w, h, &self.gpu.download(&b[self.cur])?, |&c| c & 1 != 0).ok_or_else(bad)
            }
            Boards::U8(b) => BitGrid::from_cells(w, h, &self.gpu.download(&b[self.cur])?, |&c| c != 0).ok_or_else(bad),
            Boards::Bits32(b) => from_words32(w, h, &self.gpu.download(&b[self.cur])?).ok_or_else(bad),
            Boards::Bits64(b) => BitGrid::from_words(w, h, self.gpu.download(&b[self.cur])?).ok_or_else(bad),
        }
    }

    /// Live cells of the current generation, counted on the device (one reduction; only the
    /// count comes back). Waits for the GPU.
    pub fn population(&self) -> Result<u64> {
        // Which bits of each 32-bit word are cells: see `count_live` in the kernels.
        let (board, mask) = match &self.boards {
            Boards::U32(b) => (b[self.cur].raw(), 1u32),
            Boards::U8(b) => (b[self.cur].raw(), 0x0101_0101),
            Boards::Bits32(b) => (b[self.cur].raw(), u32::MAX),
            Boards::Bits64(b) => (b[self.cur].raw(), u32::MAX),
        };
        let mut total = self.gpu.zeros::<u64>(1)?;
        let n_bytes = board.len() as u64;
        let threads = 256u32;
        let blocks = (n_bytes.div_ceil(4 * threads as u64) as u32).clamp(1, 8 * self.gpu.info().sm_count);
        let f = self.gpu.function("life_population")?;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        let mut l = self.gpu.stream().launch_builder(&f);
        l.arg(board).arg(&n_bytes).arg(&mask).arg(total.raw_mut());
        // SAFETY: `life_population(data, n_bytes, mask, total)`; the board holds `n_bytes` bytes
        // (a fresh allocation, so 4-byte aligned) and `total` one u64.
        unsafe { l.launch(cfg)? };
        Ok(self.gpu.download(&total)?[0])
    }
}

/// Output words per warp of the `bit64` kernels (`BIT64_OUT_LANES` in the kernels).
pub const BIT64_OUT_LANES: u32 = 30;
/// Cells per thread of `multi` (`MULTI_CELLS` in the kernels).
pub const MULTI_CELLS: u32 = 8;

/// A grid as rows of `width / 32` 32-bit words (width a multiple of 32).
fn to_words32(g: &BitGrid) -> Vec<u32> {
    let per_row = g.width() / 32;
    let mut out = Vec::with_capacity(per_row * g.height());
    for y in 0..g.height() {
        let row: &[u32] = bytemuck::cast_slice(g.row(y));
        out.extend_from_slice(&row[..per_row]);
    }
    out
}

fn from_words32(width: usize, height: usize, words: &[u32]) -> Option<BitGrid> {
    let per_row = width / 32;
    let wpr = width.div_ceil(64);
    if words.len() != per_row * height {
        return None;
    }
    let mut out = vec![0u64; wpr * height];
    for y in 0..height {
        let dst: &mut [u32] = bytemuck::cast_slice_mut(&mut out[y * wpr..(y + 1) * wpr]);
        dst[..per_row].copy_from_slice(&words[y * per_row..(y + 1) * per_row]);
    }
    BitGrid::from_words(width, height, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in Kernel::ALL {
            assert_eq!(k.name().parse::<Kernel>().unwrap(), k);
        }
        assert!(matches!("nope".parse::<Kernel>(), Err(Error::InvalidInput(_))));
    }

    #[test]
    fn sizes_are_checked_without_a_gpu() {
        assert!(Kernel::Bit64.check_size(100, 10).is_err());
        assert!(Kernel::Bit32.check_size(96, 10).is_ok());
        assert!(Kernel::Bit64.check_size(96, 10).is_err());
        assert!(Kernel::Naive1d64.check_size(1, 1).is_ok());
        assert!(Kernel::Naive1d64.check_size(0, 5).is_err());
        assert!(Kernel::Naive2d8x8.check_size(8, 65535 * 8 + 1).is_err());
    }

    #[test]
    fn words32_round_trip() {
        for w in [32, 64, 96, 160] {
            let g = BitGrid::random(w, 5, 0.5, w as u64);
            assert_eq!(from_words32(w, 5, &to_words32(&g)).unwrap(), g);
        }
    }
}
