//! Stream compaction: keep the items whose flag is set or that pass a value test.
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
//! **Items.** By flag ([`Keep::Flagged`], [`Gpu::select_flagged`]): any [`Pod`] type of at
//! least one byte. Items of 1, 2, 4 or 8 bytes aligned to their size go through the unsigned
//! kernel of that size, 16-byte items through a 16-byte kernel (both 16-byte vector loads);
//! every other size (3, 5, 6, 7, 9 … 15 bytes and larger), and power-of-two sizes at addresses
//! not aligned to them, through the generic path, which copies each kept item in the widest
//! words its size and addresses allow. By value test ([`Keep::If`], [`Gpu::select_if`]): the
//! [`SelectItem`] types `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
//!
//! **Sizes** are 64-bit: inputs, outputs and the count may exceed 2^32 items (the device-side
//! count is a `u64`); the grid limit (2^31 − 1 tiles, about 2^43 items) is checked before any
//! launch ([`Error::CapacityExceeded`]).
//!
//! On `Lane`: the kernel issues one `atom.global.add.u64 [counter], 1` per kept item, but
//! `ptxas` (CUDA 12.9, sm_80 and sm_90 SASS) already rewrites a uniform-address atomic add into
//! a warp-aggregated one: `VOTEU.ANY` → `FLO` (leader) → `POPC` → one `ATOMG.ADD` per warp and
//! per loop step, then a shuffle of the base. So on these GPUs "per lane" really costs one atomic
//! per warp *per item step* (16 per tile), against one per warp per tile for `Warp`, and one per
//! block per tile for `Block`. See `docs/compaction.md`.

mod keep;
mod plan;

pub use keep::{Keep, Predicate, SelectItem};

use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{CudaSlice, LaunchConfig};
use keep::predicate_suffix;
use plan::{check_args, grid_blocks, ordered_tiles_bound, Body, LookbackLayout};

pub use warpwork_abi::select::THREADS;
/// Items per thread of the unordered kernels for items of 1 to 8 bytes (`select_items` in the
/// kernels; 16-byte items take 8).
pub const ITEMS_PER_THREAD: u32 = plan::select_items(4) as u32;
/// Items one block of the unordered kernels handles, for items of 1 to 8 bytes.
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
    ///
    /// # Examples
    /// ```
    /// use warpwork::select::Variant;
    /// assert_eq!(Variant::Ordered.name(), "ordered");
    /// let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
    /// assert_eq!(names, ["lane", "warp", "block", "ordered"]);
    /// ```
    pub fn name(self) -> &'static str {
        warpwork_abi::kernels::SELECT_VARIANTS[self as usize]
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

/// `u64` elements of the `state` buffer [`Gpu::select_into`] takes for `n` items of `T`:
/// element 0 is the output count, the rest (ordered variant only) the look-back scratch, which
/// the call clears.
///
/// # Examples
/// ```
/// use warpwork::select::{state_len, Variant};
/// assert_eq!(state_len::<u32>(Variant::Block, 1 << 20), 1);
/// assert!(state_len::<[u8; 3]>(Variant::Ordered, 1 << 20) > 1);
/// ```
pub fn state_len<T>(variant: Variant, n: usize) -> usize {
    match variant {
        Variant::Ordered => {
            let tiles = ordered_tiles_bound(std::mem::size_of::<T>().max(1), n as u64);
            LookbackLayout { tiles }.state_len() as usize
        }
        _ => 1,
    }
}

impl Gpu {
    /// Keeps `items[i]` where `flags[i] != 0`, for items of any [`Pod`] type. **Allocates** the
    /// output; **waits** for the count.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::Variant;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[[1u8, 2, 3], [4, 5, 6], [7, 8, 9]])?; // 3-byte items
    /// let flags = gpu.upload(&[1u8, 0, 1])?;
    /// let kept = gpu.select_flagged(&items, &flags, Variant::Ordered)?;
    /// assert_eq!(gpu.download_prefix(&kept.items, kept.count)?, [[1, 2, 3], [7, 8, 9]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_flagged<T: Pod>(
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
    /// let items = gpu.upload(&[5i16, -17, 2, 40])?;
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

    fn select<T: Pod>(&self, items: &impl DeviceRead<T>, keep: Keep<'_, T>, variant: Variant) -> Result<Selection<T>> {
        let mut out = self.zeros::<T>(items.len())?;
        let mut state = self.zeros::<u64>(state_len::<T>(variant, items.len()))?;
        self.select_into(items, keep, variant, &mut out, &mut state)?;
        let count = self.select_count(&out, &state)?;
        Ok(Selection { count, items: out })
    }

    /// The form that allocates nothing and never waits: appends the kept items to `out` at the
    /// slots counted by `state[0]` (set it to 0, or to the number of items already in `out`).
    /// `state` holds at least [`state_len`] `u64`s; the elements after the first are scratch
    /// that the call clears (ordered variant). Items that would land at or past `out.len()` are
    /// not written, but still counted: read the count with [`Gpu::select_count`], which reports
    /// the overflow. Sizes and the count are 64-bit. Asynchronous.
    ///
    /// `T` is any [`Pod`] type with [`Keep::Flagged`]; [`Keep::If`] needs a [`SelectItem`] type
    /// ([`Error::InvalidInput`] otherwise).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{state_len, Keep, Predicate, Variant};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1.5f64, 9.0, -2.0])?;
    /// let mut out = gpu.zeros::<f64>(3)?;
    /// let mut state = gpu.zeros::<u64>(state_len::<f64>(Variant::Ordered, 3))?;
    /// gpu.select_into(&items, Keep::If(Predicate::Less(2.0)), Variant::Ordered, &mut out, &mut state)?;
    /// let n = gpu.select_count(&out, &state)?; // waits
    /// assert_eq!(gpu.download_prefix(&out, n)?, [1.5, -2.0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_into<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        variant: Variant,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let (flags, predicate) = match keep {
            Keep::Flagged(flags) => (Some(flags), None),
            Keep::If(p) => {
                let suffix = predicate_suffix::<T>().ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "a value test on {}: predicates are for u8, i8, u16, i16, u32, i32, u64, i64, f32 and f64 \
                         (select other items by flag)",
                        std::any::type_name::<T>()
                    ))
                })?;
                (None, Some((suffix, p.abi())))
            }
        };
        let needed = state_len::<T>(variant, items.len()) as u64;
        let (n, capacity) = check_args(items.len(), flags.map(|f| f.len()), out.len(), state.len(), needed)?;
        crate::error::ensure_input!(size > 0, "select items of zero bytes");
        if n == 0 {
            return Ok(());
        }

        let mut l = self.kernel_args();
        let items_addr = l.bind(items)?;
        let out_addr = l.bind_mut(out)?;
        let body = Body::choose(size, predicate.map(|(suffix, _)| suffix), items_addr, out_addr)?;
        let tile = body.tile(variant);
        let blocks = grid_blocks(n, tile)?;
        let lookback = LookbackLayout { tiles: blocks as u64 };
        if variant == Variant::Ordered {
            // The look-back's status words and tile counter start at zero (its aggregates and
            // inclusive prefixes are written before being read).
            self.zero_words(state, lookback.zeroed_words())?;
        }
        let counter = l.bind_mut(state)?;
        let f = self.function(body.kernel(variant))?;

        // The flags parameter is a pointer either way; the items stand in when it is not read.
        let flags_addr = match flags {
            Some(f) => l.bind(f)?,
            None => items_addr,
        };
        let item_bytes =
            u32::try_from(size).map_err(|_| Error::InvalidInput(format!("select items of {size} bytes")))?;
        let (op, a, b) = match predicate {
            Some((_, (op, a, b))) => (op, Scalar(a), Scalar(b)),
            None => (warpwork_abi::select::op::FLAGGED, Scalar(T::zeroed()), Scalar(T::zeroed())),
        };
        l.addr(items_addr).addr(flags_addr).value(&n);
        match body {
            // By flag through a typed kernel, the operands are unused zeros of the item's size.
            Body::Typed { .. } => l.value(&op).value(&a).value(&b),
            Body::Bytes16 => &mut l,
            Body::Bytes { .. } => l.value(&item_bytes),
        };
        l.addr(out_addr).value(&capacity).addr(counter);
        if variant == Variant::Ordered {
            let [status, aggregate, inclusive, tile_counter] = lookback.offsets();
            l.addr(counter + status).addr(counter + aggregate).addr(counter + inclusive).addr(counter + tile_counter);
        }
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: body.shared_bytes(variant),
        };
        // SAFETY: the arguments match `select_{variant}_{type}` in `kernels/src/kernels/select.rs`
        // for the chosen body (`plan::Body`, whose alignment rules the addresses meet); `items`
        // and `flags` hold `n` elements, `out` holds `capacity`; the grid has one block per
        // tile; for the ordered variant the look-back state of `blocks` tiles lies inside
        // `state` (at least `state_len` elements) with its status words and tile counter zeroed.
        unsafe { l.launch(f, cfg) }
    }

    /// Reads a select count (`state[0]`) back and checks it against the output's capacity:
    /// [`Error::CapacityExceeded`] when items were dropped. **Waits** for the stream.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{state_len, Keep, Predicate, Variant};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let items = gpu.upload(&[1u8, 2, 3, 4])?;
    /// let mut out = gpu.zeros::<u8>(2)?; // room for two
    /// let mut state = gpu.zeros::<u64>(state_len::<u8>(Variant::Block, 4))?;
    /// gpu.select_into(&items, Keep::If(Predicate::NonZero), Variant::Block, &mut out, &mut state)?;
    /// assert!(matches!(gpu.select_count(&out, &state), Err(warpwork::Error::CapacityExceeded { needed: 4, .. })));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_count<T>(&self, out: &impl DeviceRead<T>, state: &impl DeviceRead<u64>) -> Result<usize> {
        let count = self.download_prefix(state, 1)?[0];
        match usize::try_from(count) {
            Ok(count) if count <= out.len() => Ok(count),
            _ => Err(Error::CapacityExceeded { what: "select output", needed: count, capacity: out.len() as u64 }),
        }
    }
}

/// A scalar kernel argument of a [`Pod`] type, passed by value (its bytes, as the kernel's
/// parameter of the same size).
#[repr(transparent)]
struct Scalar<T>(T);
unsafe impl<T: Pod> cudarc::driver::DeviceRepr for Scalar<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_lengths_cover_every_body() {
        assert_eq!(state_len::<u8>(Variant::Warp, 1 << 40), 1);
        // 2^20 u32 items: 256 tiles of 4096 → 1 + 129 + 512.
        assert_eq!(state_len::<u32>(Variant::Ordered, 1 << 20), 1 + 129 + 2 * 256);
        // 16-byte items: 1024-item tiles.
        assert_eq!(state_len::<[u32; 4]>(Variant::Ordered, 1 << 20), 1 + 513 + 2 * 1024);
        // Zero-sized items: sized as bytes, refused by the call.
        assert_eq!(state_len::<()>(Variant::Ordered, 0), 2);
    }
}
