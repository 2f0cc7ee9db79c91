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

use crate::{error::ensure_input, DeviceBuffer, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{LaunchConfig, PushKernelArg};
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
#[derive(Clone, Copy, Debug)]
pub enum Keep<'a, T: Pod> {
    /// Item `i` is kept where `flags[i] != 0`; `flags` has one byte per item.
    Flagged(&'a DeviceBuffer<u8>),
    /// Item `i` is kept where the test holds.
    If(Predicate<T>),
}

/// The result of a select: `items[..count]` are the kept items, in no particular order.
#[derive(Debug)]
pub struct Selection<T: Pod> {
    /// Number of kept items.
    pub count: usize,
    /// Device buffer whose first `count` elements are the kept items (its length is the input's).
    pub items: DeviceBuffer<T>,
}

impl Gpu {
    /// Keeps `items[i]` where `flags[i] != 0`. Unordered; waits for the count.
    pub fn select_flagged<T: SelectItem>(
        &self,
        items: &DeviceBuffer<T>,
        flags: &DeviceBuffer<u8>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        self.select(items, Keep::Flagged(flags), variant)
    }

    /// Keeps the items that pass `predicate`. Unordered; waits for the count.
    pub fn select_if<T: SelectItem>(
        &self,
        items: &DeviceBuffer<T>,
        predicate: Predicate<T>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        self.select(items, Keep::If(predicate), variant)
    }

    fn select<T: SelectItem>(
        &self,
        items: &DeviceBuffer<T>,
        keep: Keep<'_, T>,
        variant: Variant,
    ) -> Result<Selection<T>> {
        let mut out = self.zeros::<T>(items.len())?;
        let mut counter = self.zeros::<u32>(1)?;
        self.select_into(items, keep, variant, &mut out, &mut counter)?;
        let count = self.download(&counter)?[0] as usize;
        Ok(Selection { count, items: out })
    }

    /// The asynchronous form: appends the kept items to `out` at the slots counted by
    /// `counter[0]` (set it to 0, or to the number of items already in `out`), with no host
    /// synchronization. Items that would land at or past `out.len()` are not written, but still
    /// counted: read `counter` back and compare it with `out.len()` (or use [`Gpu::select_count`]).
    pub fn select_into<T: SelectItem>(
        &self,
        items: &DeviceBuffer<T>,
        keep: Keep<'_, T>,
        variant: Variant,
        out: &mut DeviceBuffer<T>,
        counter: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let flags = match keep {
            Keep::Flagged(flags) => Some(flags),
            Keep::If(_) => None,
        };
        let (n, capacity) = check_args(items.len(), flags.map(|f| f.len()), out.len(), counter.len())?;
        let (op, a, b) = match keep {
            Keep::Flagged(_) => (op::FLAGGED, T::default(), T::default()),
            Keep::If(p) => p.abi(),
        };
        if n == 0 {
            return Ok(());
        }
        if variant == Variant::Ordered {
            return self.select_ordered(items, flags, n, (op, a, b), out, capacity, counter);
        }
        let f = self.function(T::KERNELS[variant.index()])?;
        let cfg = LaunchConfig { grid_dim: (n.div_ceil(TILE), 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let (a, b) = (Scalar(a), Scalar(b));
        // The flags parameter is a pointer either way; the items stand in when it is not read.
        let flags = flags.map_or(items.raw(), |f| f.raw());
        let mut l = self.stream().launch_builder(&f);
        l.arg(items.raw()).arg(flags).arg(&n).arg(&op).arg(&a).arg(&b);
        l.arg(out.raw_mut()).arg(&capacity).arg(counter.raw_mut());
        // SAFETY: the arguments match `select_*` in `kernels/src/kernels/select.rs`; `items` and
        // `flags` hold `n` elements and `out` holds `capacity`.
        unsafe { l.launch(cfg)? };
        Ok(())
    }

    /// [`Variant::Ordered`]: one block per tile of 64 bytes of items per thread, with a fresh
    /// look-back state (status, aggregate, inclusive prefix per tile, and the tile counter).
    #[allow(clippy::too_many_arguments)]
    fn select_ordered<T: SelectItem>(
        &self,
        items: &DeviceBuffer<T>,
        flags: Option<&DeviceBuffer<u8>>,
        n: u32,
        (op, a, b): (u32, T, T),
        out: &mut DeviceBuffer<T>,
        capacity: u32,
        counter: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let tile = THREADS * ordered_items(std::mem::size_of::<T>()) as u32;
        let tiles = n.div_ceil(tile) as usize;
        let state = self.zeros::<u32>(3 * tiles + 1)?;
        let (s, t) = (state.raw(), 4 * tiles);
        let (status, aggregate, inclusive, tile_counter) =
            (s.slice(..t), s.slice(t..2 * t), s.slice(2 * t..3 * t), s.slice(3 * t..));
        let f = self.function(T::KERNELS[Variant::Ordered.index()])?;
        let cfg = LaunchConfig {
            grid_dim: (tiles as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            // The staging buffer: the tile's kept items, in order.
            shared_mem_bytes: tile * std::mem::size_of::<T>() as u32,
        };
        let (a, b) = (Scalar(a), Scalar(b));
        let flags = flags.map_or(items.raw(), |f| f.raw());
        let mut l = self.stream().launch_builder(&f);
        l.arg(items.raw()).arg(flags).arg(&n).arg(&op).arg(&a).arg(&b);
        l.arg(out.raw_mut()).arg(&capacity).arg(counter.raw_mut());
        l.arg(&status).arg(&aggregate).arg(&inclusive).arg(&tile_counter);
        // SAFETY: the arguments match `select_ordered_*` in `kernels/src/kernels/select.rs`; the
        // look-back state has a zeroed slot per tile and the grid has one block per tile.
        unsafe { l.launch(cfg)? };
        Ok(())
    }

    /// Reads a select counter back and checks it against the output's capacity.
    pub fn select_count<T: Pod>(&self, out: &DeviceBuffer<T>, counter: &DeviceBuffer<u32>) -> Result<usize> {
        let count = self.download(counter)?[0] as usize;
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
fn check_args(n: usize, flags: Option<usize>, out: usize, counter: usize) -> Result<(u32, u32)> {
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
    ensure_input!(counter == 1, "the counter must be one u32, got {counter}");
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
        assert_eq!(check_args(10, Some(10), 7, 1).unwrap(), (10, 7));
        assert_eq!(check_args(0, None, 0, 1).unwrap(), (0, 0));
        assert!(matches!(check_args(10, Some(9), 10, 1), Err(Error::InvalidInput(m)) if m.contains("9 flags")));
        assert!(matches!(check_args(10, None, 10, 2), Err(Error::InvalidInput(m)) if m.contains("counter")));
        assert!(matches!(
            check_args(u32::MAX as usize + 1, None, 0, 1),
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
