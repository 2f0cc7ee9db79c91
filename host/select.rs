//! Stream compaction: keep the items whose flag is set or that pass a value test.
//!
//! The three unordered variants share one body (`kernels/src/device/select.rs`) and differ only
//! in how output slots are reserved, which is the point of AMD GPUOpen's "Fast Compaction with
//! mbcnt"; the fourth keeps input order:
//!
//! | [`Variant`] | global atomics | notes |
//! |---|---|---|
//! | `Lane`  | one per kept item in the PTX | the naive baseline (ptxas aggregates it per warp, see below) |
//! | `Warp`  | one per warp of 32 × 16 items | ballot + popc gives each lane its slot |
//! | `Block` | one per block of 256 × 16 items | plus one shared atomic per warp |
//! | `Ordered` | none | decoupled look-back over tiles; input order kept |
//!
//! **The output of `Lane`, `Warp` and `Block` is unordered**: the kept items come out as a
//! permutation of the kept inputs, grouped by warp in whatever order the atomics were granted;
//! compare results as multisets. `Ordered` keeps input order, in one pass: each block copies its
//! tile into shared memory, counts the kept items, compacts them there while one warp learns the
//! count of all earlier tiles from a decoupled look-back, and writes them with coalesced stores
//! (`kernels/src/device/select/ordered.rs`; design and measurements in [`guide::select`](crate::guide::select)). Its
//! tiles come in three sizes, chosen by the input's size.
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
//! block per tile for `Block`. See [`guide::select`](crate::guide::select).

pub(crate) mod family;
mod keep;
mod plan;
pub(crate) mod runs;

pub use keep::{Keep, Predicate, SelectItem};

use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{sys, CudaSlice, LaunchConfig};
use keep::value_test_suffix;
use plan::{check_args, grid_blocks, ordered_tiles_bound, Body, OrderedState};

pub use warpwork_abi::select::THREADS;
/// Items per thread of the unordered kernels for items of 1 to 8 bytes (`select_items` in the
/// kernels; 16-byte items take 8).
pub const ITEMS_PER_THREAD: u32 = plan::select_items(4) as u32;
/// Items one block of the unordered kernels handles, for items of 1 to 8 bytes.
pub const TILE: u32 = THREADS * ITEMS_PER_THREAD;

/// How output slots are reserved; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// All variants, in the order of the module docs' table.
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
#[must_use = "the kept items are in `items[..count]`"]
pub struct Selection<T> {
    /// Number of kept items.
    pub count: usize,
    /// Device buffer whose first `count` elements are the kept items (its length is the input's).
    pub items: CudaSlice<T>,
}

/// `u64` elements of the `state` buffer [`Gpu::select_into`] and [`Gpu::select_append_into`]
/// take for `n` items of `T`: element 0 is the output count, the rest (ordered variant only)
/// scratch for the look-back, which the call prepares itself.
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
            OrderedState { tiles }.len() as usize
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

    /// The form that allocates nothing and never waits: writes the kept items to `out` from
    /// slot 0 and their count to `state[0]`. `state` holds at least [`state_len`] `u64`s, which
    /// need no preparation: the call sets the count and the look-back scratch itself, so the
    /// same call can be replayed (a CUDA graph) with no memset in between. Items that would land
    /// at or past `out.len()` are not written, but still counted: read the count with
    /// [`Gpu::select_count`], which reports the overflow. Sizes and the count are 64-bit.
    /// Asynchronous. [`Gpu::select_append_into`] appends to what `out` already holds instead.
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
        self.launch_select(items, keep, variant, out, state, false, false)
    }

    /// As [`Gpu::select_into`], but appends: the kept items go to `out` after the `state[0]`
    /// items it already holds (the count of an earlier select into the same `out` and `state`,
    /// or a count you set), and `state[0]` becomes the new total. Asynchronous; allocates
    /// nothing.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::select::{state_len, Keep, Predicate, Variant};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let (a, b) = (gpu.upload(&[1u32, 7, 2])?, gpu.upload(&[8u32, 0])?);
    /// let mut out = gpu.zeros::<u32>(5)?;
    /// let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, 3))?;
    /// let small = Keep::If(Predicate::Less(5));
    /// gpu.select_into(&a, small, Variant::Ordered, &mut out, &mut state)?;
    /// gpu.select_append_into(&b, small, Variant::Ordered, &mut out, &mut state)?;
    /// let n = gpu.select_count(&out, &state)?;
    /// assert_eq!(gpu.download_prefix(&out, n)?, [1, 2, 0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn select_append_into<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        variant: Variant,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
    ) -> Result<()> {
        self.launch_select(items, keep, variant, out, state, true, false)
    }

    /// [`Gpu::select_into`] (`append` false) and [`Gpu::select_append_into`] (`append` true).
    /// `forced_fallback` forces the ordered look-back's fallback (tests).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_select<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        keep: Keep<'_, T>,
        variant: Variant,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
        append: bool,
        forced_fallback: bool,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let (flags, predicate) = match keep {
            Keep::Flagged(flags) => (Some(flags), None),
            Keep::If(p) => {
                let suffix = value_test_suffix::<T>("select")?;
                (None, Some((suffix, p.abi())))
            }
        };
        let needed = state_len::<T>(variant, items.len()) as u64;
        let (n, capacity) = check_args(items.len(), flags.map(|f| f.len()), out.len(), state.len(), needed)?;
        crate::error::ensure_input!(size > 0, "select items of zero bytes");

        let mut l = self.kernel_args();
        let items_addr = l.bind(items)?;
        let out_addr = l.bind_mut(out)?;
        let counter = l.bind_mut(state)?;
        let stream = self.cu_stream();
        if n == 0 {
            if !append {
                // SAFETY: the count, inside `state`.
                unsafe { sys::cuMemsetD32Async(counter, 0, 2, stream).result()? };
            }
            return Ok(());
        }
        let body = Body::choose(size, predicate.map(|(suffix, _)| suffix), items_addr, out_addr)?;
        let shape = body.shape(variant, n);
        let blocks = grid_blocks(n, shape.tile)?;
        let ordered = OrderedState { tiles: blocks as u64 };
        let states_at = OrderedState::states_offset(counter);
        // Everything that can fail comes before the first launch.
        let f = self.function(shape.kernel)?;
        // The flags parameter is a pointer either way; the items stand in when it is not read.
        let flags_addr = match flags {
            Some(f) => l.bind(f)?,
            None => items_addr,
        };
        let item_bytes =
            u32::try_from(size).map_err(|_| Error::InvalidInput(format!("select items of {size} bytes")))?;
        // Unordered: the count the atomics add to is cleared (unless appending). Ordered: a
        // kernel sets the first slot (element 1: zero, or the count so far when appending) and
        // zeroes the look-back's tile states; the select is its programmatic dependent, whose
        // blocks start loading their tiles while it runs.
        match (variant, append) {
            (Variant::Ordered, _) => self.prepare_ordered(counter, ordered, append)?,
            // SAFETY: the count, inside `state`.
            (_, false) => unsafe { sys::cuMemsetD32Async(counter, 0, 2, stream).result()? },
            (_, true) => {}
        }
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
        let forced_fallback = forced_fallback as u32;
        if variant == Variant::Ordered {
            l.addr(counter + 8).addr(counter + states_at).value(&forced_fallback);
        }
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (shape.threads, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the arguments match the kernel `shape` names (`select_{variant}_{type}` or
        // `select_ordered_{tile}_{type}` in `kernels/src/kernels/select.rs`) for the chosen body (`plan::Body`, whose alignment rules the addresses meet); `items`
        // and `flags` hold `n` elements, `out` holds `capacity` (a distinct buffer: `out` is
        // borrowed mutably); the grid has one block per tile; for the ordered variant the start
        // and the tile states of `blocks` tiles lie inside `state`, prepared above on the stream
        // by the kernel the ordered select is the programmatic dependent of (it waits for that
        // kernel before touching the state).
        unsafe {
            if variant == Variant::Ordered {
                l.launch_dependent(f, cfg)
            } else {
                l.launch(f, cfg)
            }
        }
    }

    /// Launches `select_ordered_prepare` for the ordered state at device address `counter`
    /// (`state_len` elements, bound by the caller's argument list until its own launch): sets the
    /// start (element 1: zero, or the count so far when `append`) and zeroes the tile states of
    /// `ordered`. The order-preserving kernels are launched after it as its programmatic
    /// dependents.
    pub(in crate::select) fn prepare_ordered(&self, counter: u64, ordered: OrderedState, append: bool) -> Result<()> {
        let states_at = OrderedState::states_offset(counter);
        let words = (ordered.words_to_end(counter) - states_at as usize / 4) as u64;
        let (append, states) = (append as u32, counter + states_at);
        let mut p = self.kernel_args();
        p.value(&counter).value(&states).value(&words).value(&append);
        let blocks = (words / 4).div_ceil(256).clamp(1, 1024) as u32;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let prepare = self.function(warpwork_abi::kernels::SELECT_ORDERED_PREPARE)?;
        // SAFETY: `select_ordered_prepare(state, states, words, append)` writes element 1 of the
        // state and the `words` words (a multiple of 4) of tile states at a 16-byte boundary
        // inside it (the caller checked that the state holds `state_len` elements).
        unsafe { p.launch(prepare, cfg) }
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
mod tests;
