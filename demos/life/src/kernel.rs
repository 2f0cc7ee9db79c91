//! [`Kernel`]: the Life kernels by name, their layouts, the board sizes each can index, and
//! the launch shapes the host sizes grids with.

use crate::support::ensure_input;
use crate::{Error, Result};
use warpwork::cudarc::driver::LaunchConfig;

/// A Life kernel; see the [module docs](super).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

pub use crate::abi::BIT64_OUT_LANES;
/// Cells per thread of `multi` ([`crate::abi::MULTI_CELLS`]).
pub const MULTI_CELLS: u32 = crate::abi::MULTI_CELLS as u32;
/// Most blocks of a launch grid in x (CUDA's limit, 2^31 − 1).
pub(crate) const MAX_GRID_X: u64 = i32::MAX as u64;
/// Most blocks of a launch grid in y.
const MAX_GRID_Y: u64 = 65535;

/// `blocks` as a grid's x dimension: [`Error::CapacityExceeded`] for `what` past
/// [`MAX_GRID_X`], before anything is launched.
fn grid_x(blocks: u64, what: &'static str) -> Result<u32> {
    if blocks > MAX_GRID_X {
        return Err(Error::CapacityExceeded { what, needed: blocks, capacity: MAX_GRID_X });
    }
    Ok(blocks as u32)
}

impl Kernel {
    /// Every kernel: the one-cell-per-element ones from brute force up, then the bit-packed ones.
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
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::Bit64T8Flat.name(), "bit64-t8-flat");
    /// assert_eq!(Kernel::Naive2d16x16.to_string(), "naive-2d-16x16"); // Display is the name
    /// ```
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

    /// The kernel of a [`Kernel::name`], or `None` for a name no kernel has. (`str::parse`
    /// does the same with an [`Error::InvalidInput`] that lists the names.)
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::from_name("bit64-t4"), Some(Kernel::Bit64T4));
    /// assert_eq!(Kernel::from_name("bit64-t3"), None);
    /// assert!(Kernel::ALL.iter().all(|k| Kernel::from_name(k.name()) == Some(*k)));
    /// ```
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }

    /// How the board is stored on the device.
    ///
    /// ```
    /// use warpwork_life::{Kernel, Layout};
    /// assert_eq!(Kernel::Byte.layout(), Layout::U8);
    /// assert_eq!(Kernel::Bit64T12.layout(), Layout::Bits64);
    /// assert_eq!(Kernel::Tiled.layout(), Layout::U32);
    /// ```
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
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::Bit64T8Flat.generations_per_launch(), 8);
    /// assert_eq!(Kernel::Sparse.generations_per_launch(), 1);
    /// ```
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
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::Naive1d256.bytes_per_cell(), 8.0); // read and write a u32
    /// assert_eq!(Kernel::Byte.bytes_per_cell(), 2.0);
    /// assert_eq!(Kernel::Bit64T8.bytes_per_cell(), 0.25 / 8.0); // 2 bits over 8 generations
    /// ```
    pub fn bytes_per_cell(self) -> f64 {
        let per_launch = match self.layout() {
            Layout::U32 => 8.0,
            Layout::U8 => 2.0,
            Layout::Bits32 | Layout::Bits64 => 0.25,
        };
        per_launch / self.generations_per_launch() as f64
    }

    /// The widest board this kernel indexes correctly. Every kernel takes its sides as `u32`;
    /// `tiled` computes `(x + width − 1) % width` in `u32` for halo columns up to 17 cells past
    /// its block, which wraps from a width of 2^31 on, so it stops at 2^31 − 1 (the "2^31 rule").
    /// The others compute neighbour indices with `wrap` (`x ± 1` against the side) or in 64 bits.
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::Tiled.max_width(), (1 << 31) - 1);
    /// assert_eq!(Kernel::Bit64.max_width(), u32::MAX as u64);
    /// ```
    pub fn max_width(self) -> u64 {
        match self {
            Kernel::Tiled => (1 << 31) - 1,
            _ => u32::MAX as u64,
        }
    }

    /// The tallest board this kernel indexes correctly. A `bit64` warp counts the rows of its
    /// strip plus `3·g − 1` halo steps in `u32` (`g` generations per launch; a strip can be the
    /// whole board), so the board may be at most `2^32 − 3·g` rows; the others index rows as
    /// [`Kernel::max_width`] says for columns (the launch grid may limit them further: see
    /// [`Kernel::check_size`]).
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert_eq!(Kernel::Bit64T12.max_height(), (1 << 32) - 36); // 3 halo steps per generation
    /// assert_eq!(Kernel::Naive1d64.max_height(), u32::MAX as u64);
    /// ```
    pub fn max_height(self) -> u64 {
        match self.layout() {
            Layout::Bits64 => (1u64 << 32) - 3 * self.generations_per_launch() as u64,
            _ => u32::MAX as u64,
        }
    }

    /// Checks that this kernel can run a `width × height` board: at least 1×1; a multiple of
    /// 32 (`bit32`) or 64 (`bit64*`) wide ([`Error::InvalidInput`] otherwise); within
    /// [`Kernel::max_width`] and [`Kernel::max_height`] and a launch grid the hardware takes
    /// (2^31 − 1 blocks in x, 65535 in y: [`Error::CapacityExceeded`] otherwise). Allocates
    /// nothing and needs no GPU.
    ///
    /// ```
    /// use warpwork_life::Kernel;
    /// assert!(Kernel::Tiled.check_size((1 << 31) - 1, 1).is_ok());
    /// assert!(Kernel::Tiled.check_size(1 << 31, 1).is_err()); // its u32 index would wrap
    /// assert!(Kernel::Naive1d256.check_size(1 << 31, 1).is_ok());
    /// assert!(Kernel::Bit64.check_size(100, 10).is_err()); // not a multiple of 64
    /// ```
    pub fn check_size(self, width: usize, height: usize) -> Result<()> {
        ensure_input!(width >= 1 && height >= 1, "a Life board needs at least 1x1 cells, got {width}x{height}");
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
        if width as u64 > self.max_width() {
            return Err(Error::CapacityExceeded {
                what: "Life board width (the kernel's u32 column index)",
                needed: width as u64,
                capacity: self.max_width(),
            });
        }
        if height as u64 > self.max_height() {
            return Err(Error::CapacityExceeded {
                what: "Life board height (the kernel's u32 row index)",
                needed: height as u64,
                capacity: self.max_height(),
            });
        }
        // Strips of one row are the largest grid a `bit64` launch can have.
        self.launch_config(width as u32, height as u32, 1).map(|_| ())
    }

    /// The launch of one step of a `width × height` board (sides already checked), with
    /// `strip_rows ≥ 1` rows per warp strip for the `bit64` kernels: the one place the grid
    /// shapes are computed. [`Error::CapacityExceeded`] for a grid the hardware cannot launch.
    pub(crate) fn launch_config(self, width: u32, height: u32, strip_rows: u32) -> Result<LaunchConfig> {
        let (w, h) = (width as u64, height as u64);
        let cfg_1d = |threads: u64, block: u32| {
            let blocks = grid_x(threads.div_ceil(block as u64), "Life launch grid (blocks)")?;
            Ok(LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 })
        };
        let cfg_2d = |b: u32| {
            let rows = h.div_ceil(b as u64);
            if rows > MAX_GRID_Y {
                return Err(Error::CapacityExceeded {
                    what: "Life launch grid (block rows)",
                    needed: rows,
                    capacity: MAX_GRID_Y,
                });
            }
            Ok(LaunchConfig {
                grid_dim: (width.div_ceil(b), rows as u32, 1),
                block_dim: (b, b, 1),
                shared_mem_bytes: 0,
            })
        };
        match self {
            Kernel::Naive1d64 => cfg_1d(w * h, 64),
            Kernel::Naive1d256 | Kernel::Sparse | Kernel::Byte => cfg_1d(w * h, 256),
            Kernel::Naive2d8x8 => cfg_2d(8),
            Kernel::Naive2d16x16 => cfg_2d(16),
            Kernel::Tiled => cfg_2d(crate::abi::TILE),
            Kernel::Multi => cfg_1d(w.div_ceil(MULTI_CELLS as u64) * h, 256),
            Kernel::Ballot => cfg_1d(w.div_ceil(32).saturating_mul(h).saturating_mul(32), 256),
            Kernel::Bit32 => cfg_1d((w / 32) * h, 256),
            _ => {
                let warps = (w / 64).div_ceil(BIT64_OUT_LANES as u64) * h.div_ceil(strip_rows.max(1) as u64);
                cfg_1d(warps.saturating_mul(32), 128)
            }
        }
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

#[cfg(test)]
mod tests;
