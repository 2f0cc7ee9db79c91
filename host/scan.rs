//! Device-wide scans: exclusive and inclusive, under sum, min or max, of `u32`, `i32`, `u64`,
//! `i64`, `f32` and `f64`, in a single pass with decoupled look-back
//! (`kernels/src/device/scan/tile.rs`, `kernels/src/device/lookback.rs`; design and
//! measurements in [`guide::scan`](crate::guide::scan)).
//!
//! * [`Gpu::scan`] allocates its scratch; [`Gpu::scan_into`] takes scratch of
//!   [`scratch_len`] `u32`s (CUB's temp storage) and allocates nothing; [`Gpu::scan_in_place`]
//!   scans one buffer into itself. All are asynchronous on the handle's stream and clear the
//!   scratch themselves (one memset), so the scratch needs no preparation and can be reused.
//! * [`Gpu::exclusive_scan`] / [`Gpu::exclusive_scan_into`] are the exclusive sum, as before.
//!
//! **Results.** `Exclusive`: `output[i] = x₀ ⊕ … ⊕ x_{i-1}`, so `output[0]` is the operator's
//! identity. `Inclusive`: `output[i] = x₀ ⊕ … ⊕ xᵢ`. Identities: 0 for integer sums, `-0.0` for
//! float sums (it compares equal to `0.0`, and is the one value that leaves every float
//! unchanged, so `inclusive[0] == input[0]` bit for bit); `T::MAX` / `T::MIN` for integer min /
//! max, `+inf` / `-inf` for float min / max. Integer sums wrap.
//!
//! **Floats.** Min and max are IEEE 754-2019 `minimum` / `maximum`: a NaN anywhere before (or
//! at, inclusive) `i` makes `output[i]` a NaN — always `f32::NAN` / `f64::NAN` — and `-0.0 <
//! +0.0`; these results are exact and the same on every run. Sums are evaluated in the order
//! [the scan notes](crate::guide::scan#float-sums-order-of-evaluation-and-rounding) give (sequential within a thread's run, tree-shaped within a tile, a chain
//! over tiles): not bit-equal to a sequential CPU sum, with an error bounded like a blocked sum's,
//! and **not deterministic from run to run** (how far a tile's look-back reaches depends on
//! timing, and changes the rounding). NaN and infinities propagate through sums as in IEEE
//! arithmetic.

use crate::{DeviceRead, DeviceWrite, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::DeviceRepr;
use warpwork_abi::scan::{tile_shape, tile_state_words, TileClass};

/// Which prefix a scan writes at `i`: of the elements before `i`, or up to and including it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// `output[i] = x₀ ⊕ … ⊕ x_{i-1}`; `output[0]` is the identity.
    Exclusive,
    /// `output[i] = x₀ ⊕ … ⊕ xᵢ`.
    Inclusive,
}

/// The operator a scan combines with (see the module docs for identities and float rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// A scan: its kind and operator.
///
/// # Examples
/// ```
/// use warpwork::scan::{Scan, ScanKind, ScanOp};
/// let s = Scan::inclusive(ScanOp::Max);
/// assert_eq!(s, Scan { kind: ScanKind::Inclusive, op: ScanOp::Max });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scan {
    /// Exclusive or inclusive.
    pub kind: ScanKind,
    /// Sum, min or max.
    pub op: ScanOp,
}

impl Scan {
    /// The exclusive scan under `op`.
    ///
    /// # Examples
    /// ```
    /// use warpwork::scan::{Scan, ScanKind, ScanOp};
    /// let s = Scan::exclusive(ScanOp::Min);
    /// assert_eq!((s.kind, s.op), (ScanKind::Exclusive, ScanOp::Min));
    /// assert_eq!(Scan::exclusive(ScanOp::Sum), Scan::EXCLUSIVE_SUM);
    /// ```
    pub const fn exclusive(op: ScanOp) -> Scan {
        Scan { kind: ScanKind::Exclusive, op }
    }

    /// The inclusive scan under `op`.
    ///
    /// # Examples
    /// ```
    /// use warpwork::scan::{Scan, ScanKind, ScanOp};
    /// const RUNNING_MAX: Scan = Scan::inclusive(ScanOp::Max); // a const fn
    /// assert_eq!((RUNNING_MAX.kind, RUNNING_MAX.op), (ScanKind::Inclusive, ScanOp::Max));
    /// assert_ne!(RUNNING_MAX, Scan::exclusive(ScanOp::Max));
    /// ```
    pub const fn inclusive(op: ScanOp) -> Scan {
        Scan { kind: ScanKind::Inclusive, op }
    }

    /// The exclusive sum.
    pub const EXCLUSIVE_SUM: Scan = Scan::exclusive(ScanOp::Sum);
}

/// Element types the scans are built for: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
pub trait ScanItem: Pod + DeviceRepr + sealed::Sealed {
    /// Kernel-name suffix.
    const SUFFIX: &'static str;
    /// The kernels, `[tile class][kind][op]` (classes in the order of `TileClass::ALL`; 4-byte
    /// elements, which have no medium tiles, repeat the standard ones there).
    #[doc(hidden)]
    const KERNELS: [[[&'static str; 3]; 2]; 3];
    /// The sums from a base ([`Gpu::scan_with_base_into`]): exclusive, inclusive.
    #[doc(hidden)]
    const BASED_KERNELS: [&'static str; 2];
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! class_kernels {
    ($prefix:literal, $t:ident) => {
        [
            [
                concat!($prefix, "exclusive_sum_", stringify!($t)),
                concat!($prefix, "exclusive_min_", stringify!($t)),
                concat!($prefix, "exclusive_max_", stringify!($t)),
            ],
            [
                concat!($prefix, "inclusive_sum_", stringify!($t)),
                concat!($prefix, "inclusive_min_", stringify!($t)),
                concat!($prefix, "inclusive_max_", stringify!($t)),
            ],
        ]
    };
}

macro_rules! scan_items {
    ($($t:ident: $medium:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl ScanItem for $t {
            const SUFFIX: &'static str = stringify!($t);
            const KERNELS: [[[&'static str; 3]; 2]; 3] =
                [class_kernels!("scan_small_", $t), class_kernels!($medium, $t), class_kernels!("scan_", $t)];
            const BASED_KERNELS: [&'static str; 2] =
                [concat!("scan_based_exclusive_sum_", stringify!($t)), concat!("scan_based_inclusive_sum_", stringify!($t))];
        }
    )*};
}
scan_items!(u32: "scan_", i32: "scan_", u64: "scan_medium_", i64: "scan_medium_", f32: "scan_", f64: "scan_medium_");

/// The kernel of `scan` for `n` elements of `T` (the tile class `TileClass::of` picks), and its
/// block size.
fn kernel<T: ScanItem>(scan: Scan, n: usize) -> (&'static str, u32) {
    let kind = match scan.kind {
        ScanKind::Exclusive => 0,
        ScanKind::Inclusive => 1,
    };
    let op = match scan.op {
        ScanOp::Sum => 0,
        ScanOp::Min => 1,
        ScanOp::Max => 2,
    };
    let size = std::mem::size_of::<T>();
    let class = TileClass::of(size, n as u64);
    let index = TileClass::ALL.iter().position(|&c| c == class).unwrap_or(2);
    (T::KERNELS[index][kind][op], 32 * tile_shape(size, class).0 as u32)
}

/// The block size of `T`'s scans in standard tiles.
fn scan_items_standard_threads<T: ScanItem>() -> u32 {
    32 * tile_shape(std::mem::size_of::<T>(), TileClass::Standard).0 as u32
}

/// Tiles (blocks) of a scan of `n` elements.
fn tiles<T: ScanItem>(n: usize) -> usize {
    warpwork_abi::scan::tiles(std::mem::size_of::<T>(), n as u64) as usize
}

/// The length, in `u32` elements, of the `scratch` buffer a scan of `n` elements of `T` takes
/// ([`Gpu::scan_into`], [`Gpu::scan_in_place`], [`Gpu::exclusive_scan_into`]): the look-back's
/// tile states (8 bytes per tile of 4-byte elements, 16 per tile of 8-byte ones), plus three
/// elements so that they can start 16-byte aligned in any `u32` buffer. Like
/// [`crate::select::state_len`], it counts elements of the buffer it sizes. Never less for a
/// larger `n` (the tiles grow with the input, so it counts the most tiles of any input up to
/// `n`): scratch for `n` elements serves every shorter input.
///
/// # Examples
/// ```
/// use warpwork::scan::scratch_len;
/// assert_eq!(scratch_len::<u32>(0), 3);
/// assert_eq!(scratch_len::<u32>(1), 5); // one tile: one u64, plus the alignment words
/// assert!(scratch_len::<f64>(1 << 20) > scratch_len::<f32>(1 << 20));
/// assert!(scratch_len::<u32>((1 << 18) + 1) >= scratch_len::<u32>(1 << 18)); // larger tiles
/// ```
pub fn scratch_len<T: ScanItem>(n: usize) -> usize {
    let size = std::mem::size_of::<T>();
    tile_state_words(size, warpwork_abi::scan::tiles_at_most(size, n as u64) as usize) + 3
}

impl Gpu {
    /// Scans `input` into the first `input.len()` elements of `output` (which may be longer;
    /// the rest is untouched). **Allocates** its scratch; asynchronous. See the [module
    /// docs](crate::scan) for what each [`Scan`] writes.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::{Scan, ScanOp};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3i32, -1, 4, -1, 5])?;
    /// let mut output = gpu.zeros::<i32>(5)?;
    /// gpu.scan(&input, &mut output, Scan::inclusive(ScanOp::Min))?;
    /// assert_eq!(gpu.download(&output)?, [3, -1, -1, -1, -1]);
    /// gpu.scan(&input, &mut output, Scan::exclusive(ScanOp::Sum))?;
    /// assert_eq!(gpu.download(&output)?, [0, 3, 2, 6, 5]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn scan<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        scan: Scan,
    ) -> Result<()> {
        let mut scratch = self.zeros::<u32>(scratch_len::<T>(input.len()))?;
        self.scan_into(input, output, scan, &mut scratch)
    }

    /// [`Gpu::scan`] with caller-provided scratch of at least
    /// [`scratch_len::<T>(input.len())`](scratch_len) words, which it clears (one memset on
    /// the stream) and overwrites: allocates nothing, so it can be captured into a CUDA graph.
    /// Asynchronous. Sizes up to `2^31 - 1` tiles of 8192 (4-byte) or 4096 (8-byte) elements;
    /// beyond, [`crate::Error::CapacityExceeded`] before anything is issued.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::{scratch_len, Scan, ScanOp};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[1.5f64; 1000])?;
    /// let mut output = gpu.zeros::<f64>(1000)?;
    /// let mut scratch = gpu.zeros::<u32>(scratch_len::<f64>(1000))?;
    /// gpu.scan_into(&input, &mut output, Scan::inclusive(ScanOp::Sum), &mut scratch)?;
    /// assert_eq!(gpu.download(&output)?[999], 1500.0); // exact here: every sum is representable
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn scan_into<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        scan: Scan,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        self.launch_scan(Operands::Apart(input, output), scan, scratch, false, None)
    }

    /// Scans `data` into itself. Takes scratch as [`Gpu::scan_into`]; allocates nothing;
    /// asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::scan::{scratch_len, Scan, ScanOp};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut data = gpu.upload(&[2u64, 7, 1, 8])?;
    /// let mut scratch = gpu.zeros::<u32>(scratch_len::<u64>(4))?;
    /// gpu.scan_in_place(&mut data, Scan::inclusive(ScanOp::Max), &mut scratch)?;
    /// assert_eq!(gpu.download(&data)?, [2, 7, 7, 8]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn scan_in_place<T: ScanItem, B: DeviceWrite<T>>(
        &self,
        data: &mut B,
        scan: Scan,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        self.launch_scan::<T, B, B>(Operands::InPlace(data), scan, scratch, false, None)
    }

    /// The exclusive sum: [`Gpu::scan`] with [`Scan::EXCLUSIVE_SUM`]. **Allocates** its scratch;
    /// asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3u32, 1, 4, 1, 5])?;
    /// let mut output = gpu.zeros::<u32>(5)?;
    /// gpu.exclusive_scan(&input, &mut output)?;
    /// assert_eq!(gpu.download(&output)?, [0, 3, 4, 8, 9]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn exclusive_scan<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
    ) -> Result<()> {
        self.scan(input, output, Scan::EXCLUSIVE_SUM)
    }

    /// The exclusive sum with caller-provided scratch: [`Gpu::scan_into`] with
    /// [`Scan::EXCLUSIVE_SUM`]. Allocates nothing; asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[2u64; 1000])?;
    /// let mut output = gpu.zeros::<u64>(1000)?;
    /// let mut scratch = gpu.zeros::<u32>(warpwork::scan::scratch_len::<u64>(1000))?;
    /// gpu.exclusive_scan_into(&input, &mut output, &mut scratch)?;
    /// assert_eq!(gpu.download(&output)?[999], 1998);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn exclusive_scan_into<T: ScanItem>(
        &self,
        input: &impl DeviceRead<T>,
        output: &mut impl DeviceWrite<T>,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        self.scan_into(input, output, Scan::EXCLUSIVE_SUM, scratch)
    }
}

mod based;
mod launch;
pub(crate) use based::{based_kernel, based_tiles};
pub(crate) use launch::{Base, Operands};

#[cfg(test)]
mod tests;
