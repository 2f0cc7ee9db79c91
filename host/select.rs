//! Select: keep the items whose flag is set or that pass a value test.
//!
//! Three kernels share one body (`kernels/src/device/select.rs`) and differ only in how output
//! slots are reserved, which is the point of the seed article:
//!
//! | [`Variant`] | global atomics | notes |
//! |---|---|---|
//! | `Lane`  | one per kept item in the PTX | the naive baseline (ptxas aggregates it per warp, see below) |
//! | `Warp`  | one per warp of 32 × 16 items | ballot + popc gives each lane its slot |
//! | `Block` | one per block of 256 × 16 items | plus one shared atomic per warp |
//! | `Ordered` | one per block (its tile id) | look-back over tiles; input order kept |
//!
//! **The output of `Lane`, `Warp` and `Block` is unordered**: the kept items come out as a
//! permutation of the kept inputs, grouped by warp in whatever order the atomics were granted;
//! compare results as multisets. `Ordered` keeps input order, in one pass: each block counts its
//! tile's kept items, scans the counts, and gets the count of all earlier tiles from a decoupled
//! look-back (`kernels/src/device/select.rs`, `select_ordered_tile`), then writes its items
//! through shared memory with coalesced stores.
//!
//! On `Lane`: the kernel issues one `atom.global.add.u32 [counter], 1` per kept item, but
//! `ptxas` (CUDA 12.9, sm_80 and sm_90 SASS) already rewrites a uniform-address atomic add into
//! a warp-aggregated one: `VOTEU.ANY` → `FLO` (leader) → `POPC` → one `ATOMG.ADD` per warp and
//! per loop step, then a shuffle of the base. So on these GPUs "per lane" really costs one atomic
//! per warp *per item step* (16 per tile), against one per warp per tile for `Warp`, and one per
//! block per tile for `Block`. See `docs/select.md`.

use crate::{error::ensure_input, DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{CudaSlice, LaunchConfig};
use warpwork_abi::kernels;
use warpwork_abi::select::{op, ordered_items};

pub use warpwork_abi::select::THREADS;
/// Items per thread of the unordered variants (`warpwork_abi::select::ITEMS_PER_THREAD`).
pub const ITEMS_PER_THREAD: u32 = warpwork_abi::select::ITEMS_PER_THREAD as u32;
/// Items one block of the unordered variants selects from.
pub const TILE: u32 = THREADS * ITEMS_PER_THREAD;

/// How output slots are reserved; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// One global atomic per kept item.
    Lane,
    /// Warp ballot + popc, one global atomic per warp.
    Warp,
    /// Warp ballot + popc, one shared atomic per warp, one global atomic per block.
    Block,
    /// Order-preserving, single pass: per-tile counts scanned across tiles by a decoupled
    /// look-back instead of atomics. The kept items come out **in input order**.
    Ordered,
}

impl Variant {
    /// All variants, slowest first.
    pub const ALL: [Variant; 4] = [Variant::Lane, Variant::Warp, Variant::Block, Variant::Ordered];

    /// Lower-case name, as in kernel names and bench tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Lane => "lane",
            Variant::Warp => "warp",
            Variant::Block => "block",
            Variant::Ordered => "ordered",
        }
    }

    /// Position in [`Variant::ALL`] and in [`SelectItem::KERNELS`].
    fn index(self) -> usize {
        self as usize
    }
}

/// Element types the select kernels are built for.
pub trait SelectItem: Pod + PartialOrd + Default + std::fmt::Debug + sealed::Sealed {
    /// The kernel of each [`Variant`] for this type, in the order of [`Variant::ALL`].
    const KERNELS: [&'static str; 4];
}
mod sealed {
    pub trait Sealed {}
}
macro_rules! select_item {
    ($($t:ty: $lane:ident, $warp:ident, $block:ident, $ordered:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl SelectItem for $t {
            const KERNELS: [&'static str; 4] = [kernels::$lane, kernels::$warp, kernels::$block, kernels::$ordered];
        }
    )*};
}
select_item! {
    u32: SELECT_LANE_U32, SELECT_WARP_U32, SELECT_BLOCK_U32, SELECT_ORDERED_U32;
    i32: SELECT_LANE_I32, SELECT_WARP_I32, SELECT_BLOCK_I32, SELECT_ORDERED_I32;
    u64: SELECT_LANE_U64, SELECT_WARP_U64, SELECT_BLOCK_U64, SELECT_ORDERED_U64;
    f32: SELECT_LANE_F32, SELECT_WARP_F32, SELECT_BLOCK_F32, SELECT_ORDERED_F32;
}

/// A value test for [`Gpu::select_if`]. Comparisons are Rust's `PartialOrd` on both the GPU and
/// the CPU reference: a NaN fails every test except `NonZero`, and `-0.0` counts as zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Predicate<T> {
    /// `item < a`.
    Less(T),
    /// `item >= a`.
    GreaterEqual(T),
    /// `lo <= item < hi`.
    InRange(T, T),
    /// `item == a`.
    Equal(T),
    /// `item != 0`.
    NonZero,
}

impl<T: SelectItem> Predicate<T> {
    /// Whether `v` passes: the very function the kernels evaluate
    /// (`warpwork_abi::select::test`).
    pub fn test(&self, v: T) -> bool {
        let (code, a, b) = self.abi();
        warpwork_abi::select::test(code, v, a, b)
    }

    /// (op code, a, b) as the kernels take them (`warpwork_abi::select::op`).
    fn abi(&self) -> (u32, T, T) {
        let z = T::default();
        match *self {
            Predicate::Less(a) => (op::LESS, a, z),
            Predicate::GreaterEqual(a) => (op::GREATER_EQUAL, a, z),
            Predicate::InRange(lo, hi) => (op::IN_RANGE, lo, hi),
            Predicate::Equal(a) => (op::EQUAL, a, z),
            Predicate::NonZero => (op::NON_ZERO, z, z),
        }
    }
}

/// What decides whether an item is kept.
#[derive(Clone, Copy)]
pub enum Keep<'a, T: Pod> {
    /// Item `i` is kept where `flags[i] != 0`; `flags` has one byte per item.
    Flagged(&'a dyn DeviceRead<u8>),
    /// Item `i` is kept where the test holds.
    If(Predicate<T>),
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for Keep<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keep::Flagged(flags) => write!(f, "Flagged({} flags)", flags.len()),
            Keep::If(p) => write!(f, "If({p:?})"),
        }
    }
}

/// The result of a compaction: `items[..count]` are the kept items, in the variant's order.
#[derive(Debug)]
pub struct Selection<T> {
    /// Number of kept items.
    pub count: usize,
    /// Device buffer whose first `count` elements are the kept items (its length is the input's).
    pub items: CudaSlice<T>,
}

/// `u32` words of the `state` buffer [`Gpu::select_into`] takes for `n` items of `T`: word 0
/// is the output counter, the rest (ordered only) the look-back state, which the call clears.
///
/// # Examples
/// ```
/// use warpwork::select::{state_words, Variant};
/// assert_eq!(state_words::<u32>(Variant::Block, 1 << 20), 1);
/// assert!(state_words::<u32>(Variant::Ordered, 1 << 20) > 1);
/// ```
pub fn state_words<T>(variant: Variant, n: usize) -> usize {
    match variant {
        Variant::Ordered => 1 + 3 * ordered_tiles::<T>(n) + 1,
        _ => 1,
    }
}

/// Tiles of the ordered kernels for `n` items.
fn ordered_tiles<T>(n: usize) -> usize {
    n.div_ceil(THREADS as usize * ordered_items(std::mem::size_of::<T>()))
}

impl Gpu {
    /// Keeps `items[i]` where `flags[i] != 0`. **Allocates** the output; **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::Variant;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[10u32, 11, 12, 13])?;
    /// let flags = gpu.upload(&[1u8, 0, 0, 1])?;
    /// let kept = gpu.select_flagged(&items, &flags, Variant::Ordered)?;
    /// assert_eq!(gpu.download_prefix(&kept.items, kept.count)?, [10, 13]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_flagged<T: SelectItem>(
        &self,
        items: &impl DeviceRead<T>,
        flags: &impl DeviceRead<u8>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        self.select(items, Keep::Flagged(flags), variant)
    }

    /// Keeps the items that pass `predicate`. **Allocates** the output; **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{Predicate, Variant};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[5i32, -17, 2, 40])?;
    /// let kept = gpu.select_if(&items, Predicate::Less(3), Variant::Ordered)?;
    /// assert_eq!(gpu.download_prefix(&kept.items, kept.count)?, [-17, 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_if<T: SelectItem>(
        &self,
        items: &impl DeviceRead<T>,
        predicate: Predicate<T>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        self.select(items, Keep::If(predicate), variant)
    }

    fn select<T: SelectItem>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        let mut out = self.zeros::<T>(items.len())?;
        let mut state = self.zeros::<u32>(state_words::<T>(variant, items.len()))?;
        self.select_into(items, keep, variant, &mut out, &mut state)?;
        let count = self.select_count(&out, &state)?;
        Ok(Selection { count, items: out })
    }

    /// The form that allocates nothing and never waits: appends the kept items to `out` at the
    /// slots counted by `state[0]` (set it to 0, or to the number of items already in `out`).
    /// `state` holds [`state_words`] words; the words after the first are scratch that the call
    /// clears (ordered variant). Items that would land at or past `out.len()` are not written,
    /// but still counted: read the count with [`Gpu::select_count`], which reports the overflow.
    /// Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{state_words, Keep, Predicate, Variant};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1.5f32, 9.0, -2.0])?;
    /// let mut out = gpu.zeros::<f32>(3)?;
    /// let mut state = gpu.zeros::<u32>(state_words::<f32>(Variant::Ordered, 3))?;
    /// gpu.select_into(&items, Keep::If(Predicate::Less(2.0)), Variant::Ordered, &mut out, &mut state)?;
    /// let n = gpu.select_count(&out, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&out, n)?, [1.5, -2.0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_into<T: SelectItem>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        variant: Variant,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        let flags = match keep {
            Keep::Flagged(flags) => Some(flags),
            Keep::If(_) => None,
        };
        let words = state_words::<T>(variant, items.len());
        let (n, capacity) = check_args(items.len(), flags.map(|f| f.len()), out.len(), state.len(), words)?;
        let (op, a, b) = match keep {
            Keep::Flagged(_) => (op::FLAGGED, T::default(), T::default()),
            Keep::If(p) => p.abi(),
        };
        if n == 0 {
            return Ok(());
        }
        let (a, b) = (Scalar(a), Scalar(b));
        let ordered = variant == Variant::Ordered;
        if ordered {
            // The look-back's status words and tile counter start at zero (its aggregates and
            // inclusive prefixes are written before being read).
            let tiles = ordered_tiles::<T>(n as usize);
            self.zero_words(state, 1..2 + tiles)?;
        }
        let mut l = self.kernel_args();
        let counter = l.bind_mut(state)?;
        l.read(items);
        // The flags parameter is a pointer either way; the items stand in when it is not read.
        match flags {
            Some(f) => l.read(f),
            None => l.read(items),
        };
        l.value(&n).value(&op).value(&a).value(&b).write(out).value(&capacity).addr(counter);
        if ordered {
            let tiles = ordered_tiles::<T>(n as usize) as u64;
            let (f, tile) =
                (self.function(T::KERNELS[variant.index()])?, THREADS * ordered_items(std::mem::size_of::<T>()) as u32);
            // status [tiles], tile counter, aggregate [tiles], inclusive [tiles], after the counter.
            let status = counter + 4;
            l.addr(status).addr(status + 4 * (tiles + 1)).addr(status + 4 * (2 * tiles + 1)).addr(status + 4 * tiles);
            let cfg = LaunchConfig {
                grid_dim: (tiles as u32, 1, 1),
                block_dim: (THREADS, 1, 1),
                // The staging buffer: the tile's kept items, in order.
                shared_mem_bytes: tile * std::mem::size_of::<T>() as u32,
            };
            // SAFETY: the arguments match `select_ordered_*` in `kernels/src/kernels/select.rs`;
            // the look-back state has a zeroed status word per tile and a zeroed tile counter,
            // and the grid has one block per tile.
            return unsafe { l.launch(f, cfg) };
        }
        let f = self.function(T::KERNELS[variant.index()])?;
        let cfg = LaunchConfig { grid_dim: (n.div_ceil(TILE), 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the arguments match `select_*` in `kernels/src/kernels/select.rs`; `items` and
        // `flags` hold `n` elements and `out` holds `capacity`.
        unsafe { l.launch(f, cfg) }
    }

    /// Reads a select count (`state[0]`) back and checks it against the output's capacity:
    /// [`Error::CapacityExceeded`] when items were dropped. **Waits** for the stream.
    pub fn select_count<T>(&self, out: &impl DeviceRead<T>, state: &impl DeviceRead<u32>) -> Result<usize> {
        let count = self.download_prefix(state, 1)?[0] as usize;
        if count > out.len() {
            return Err(Error::CapacityExceeded {
                what: "select output",
                needed: count as u64,
                capacity: out.len() as u64,
            });
        }
        Ok(count)
    }
}

/// Checks a select call's lengths; returns `(n, capacity)` as the kernels take them.
fn check_args(n: usize, flags: Option<usize>, out: usize, state: usize, words: usize) -> Result<(u32, u32)> {
    if n > u32::MAX as usize {
        return Err(Error::CapacityExceeded {
            what: "select input (u32 indices)",
            needed: n as u64,
            capacity: u32::MAX as u64,
        });
    }
    if let Some(flags) = flags {
        ensure_input!(flags == n, "{n} items but {flags} flags");
    }
    ensure_input!(state >= words, "a select state of {state} words; {words} needed");
    Ok((n as u32, out.min(u32::MAX as usize) as u32))
}

/// A scalar kernel argument of a [`SelectItem`] type, passed by value.
#[repr(transparent)]
struct Scalar<T>(T);
unsafe impl<T: SelectItem> cudarc::driver::DeviceRepr for Scalar<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_without_a_gpu() {
        assert_eq!(check_args(10, Some(10), 7, 1, 1).unwrap(), (10, 7));
        assert_eq!(check_args(0, None, 0, 1, 1).unwrap(), (0, 0));
        assert!(matches!(check_args(10, Some(9), 10, 1, 1), Err(Error::InvalidInput(m)) if m.contains("9 flags")));
        assert!(matches!(check_args(10, None, 10, 2, 3), Err(Error::InvalidInput(m)) if m.contains("state")));
        assert!(matches!(
            check_args(u32::MAX as usize + 1, None, 0, 1, 1),
            Err(Error::CapacityExceeded { needed, .. }) if needed == u32::MAX as u64 + 1
        ));
    }

    #[test]
    fn predicates_follow_rust_comparisons() {
        assert!(Predicate::Less(5u32).test(4) && !Predicate::Less(5u32).test(5));
        assert!(Predicate::GreaterEqual(5i32).test(5) && !Predicate::GreaterEqual(5i32).test(-6));
        assert!(Predicate::InRange(2u64, 4).test(2) && !Predicate::InRange(2u64, 4).test(4));
        assert!(Predicate::Equal(-0.0f32).test(0.0));
        assert!(!Predicate::Equal(f32::NAN).test(f32::NAN));
        assert!(Predicate::<f32>::NonZero.test(f32::NAN) && !Predicate::<f32>::NonZero.test(-0.0));
    }

    #[test]
    fn predicates_pass_their_operands_to_the_kernels() {
        assert_eq!(Predicate::Less(1u32).abi(), (op::LESS, 1, 0));
        assert_eq!(Predicate::GreaterEqual(-1i32).abi(), (op::GREATER_EQUAL, -1, 0));
        assert_eq!(Predicate::InRange(1u64, 2).abi(), (op::IN_RANGE, 1, 2));
        assert_eq!(Predicate::Equal(1.5f32).abi(), (op::EQUAL, 1.5, 0.0));
        assert_eq!(Predicate::<u32>::NonZero.abi().0, op::NON_ZERO);
    }

    #[test]
    fn each_variant_has_its_kernel() {
        for v in Variant::ALL {
            assert_eq!(Variant::ALL[v.index()], v);
            for name in [<u32 as SelectItem>::KERNELS[v.index()], <f32 as SelectItem>::KERNELS[v.index()]] {
                assert!(name.starts_with(&format!("select_{}_", v.name())), "{v:?}: {name}");
            }
        }
    }
}
