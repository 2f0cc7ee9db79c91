//! Work expansion: source `i` spawns `counts[i]` destination items; pass 2 runs per destination
//! item and knows its `(source, local)` pair. Every strategy of the seed article is here (see
//! [`Strategy`] and `docs/expand.md`); the device building blocks are in
//! `kernels/src/device/expand/` for users' own kernels.
//!
//! * [`Gpu::expand`]: materializes the `(src, local)` pairs on the device.
//! * [`Gpu::expand_with`]: runs **your** pass-2 kernel instead (through an [`Expander`]);
//!   nothing is materialized.
//! * [`Expander`]: the reusable form (workspace allocated once), with pass 1 and pass 2 as
//!   separate calls and a choice of [`Dispatch`] for pass 2.
//!
//! Capacity: the caller picks the most destination items allowed. A larger total, or one that
//! overflows the 32-bit sums the strategies use, is detected on the device (a flag in the control
//! block), nothing is written out of bounds, and the call returns [`Error::CapacityExceeded`].

use crate::memory::bind::{Bind, BindMut, Bound};
use crate::{error::ensure_input, DeviceRead, DeviceWrite, Error, Gpu, KernelArgs, Result};
use bytemuck::{Pod, Zeroable};
pub use cudarc::driver::CudaFunction;
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig};

/// Threads per block of every expansion kernel (and of a user's pass-2 kernel).
pub const THREADS: u32 = 256;
/// Sources per thread in pass 1 (`PUSH_ITEMS`).
const PUSH_ITEMS: u32 = 8;
/// Sources per thread of the S2.5 scan (`SCAN_ITEMS_U32`).
const SCAN_ITEMS: u32 = 16;
/// Counts per thread of a `ScanFused` tile (`FUSED_ITEMS` in the kernels).
const FUSED_ITEMS: u32 = 8;
/// Threads of a `ScanFused` pass-2 block (`FUSED_PASS2_THREADS`: eight walking warps and a
/// scheduling one).
const FUSED_PASS2_THREADS: u32 = THREADS + 32;
/// Tiles each `ScanFused` pass-1 block sums (`PUSH_TILES`).
const FUSED_PUSH_TILES: u32 = 4;
/// Units a `ScanFused` pass-2 block claims at once at most (`CLAIM_UNITS`).
const FUSED_CLAIM_UNITS: u32 = 4;
/// Buckets of S3.
pub const BUCKETS: usize = 32;
const FLAG_CAPACITY: u32 = 1;
const FLAG_MAX_N: u32 = 2;

/// How pass 2 finds the `(src, local)` of a destination item. Names match the seed article.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// S0: pass 2 covers `P1 · max_n` slots and drops those past the source's count. Every count
    /// must be at most `max_n` ([`Error::InvalidInput`] otherwise). Output order: unordered.
    MaxN {
        /// The most items one source may spawn.
        max_n: u32,
    },
    /// S1: pass 1 appends one `(src, local)` record per destination item. Unordered (by warp).
    AppendPerItem,
    /// S2: pass 1 appends one `(src, count)` per non-empty source; pass 2 searches linearly.
    /// Cost grows with P1 per item: for small P1 only. Unordered (by warp).
    LinearSearch,
    /// S2.5: device-wide exclusive scan of the counts, binary search. **Canonical order**.
    ScanBinarySearch,
    /// S2.5+: pass 1 builds the prefix with a packed `(records, sum)` 64-bit compare-and-swap
    /// loop (one per block); binary search. Unordered (by block).
    PackedAtomicCas,
    /// S2.5+ with one 64-bit `atom.add` per block instead of the CAS loop. Unordered (by block).
    PackedAtomicAdd,
    /// S3: one record per set bit of N in power-of-two buckets; pass 2 by shifts, one merged
    /// launch for all buckets. Unordered (by bucket).
    Po2Buckets,
    /// S3 with one pass-2 launch per bucket (32 launches): what merging saves.
    Po2BucketsPerBucket,
    /// S2.5f: S2.5 with the scan fused into pass 2 — pass 1 only sums tiles of counts and plans
    /// pass 2's units (pieces of at most 2048 destination items); pass 2 claims up to four
    /// units at a time (fewer near the end), scans the tile of a claim's units in shared memory
    /// once and produces their items without any per-item search.
    /// No prefix array, and pass 2 is balanced over the output. Materializing only: its pass 2
    /// needs shared memory, so [`Gpu::expand_with`] refuses it (users' own kernels get the same
    /// loop from `warpwork_kernels::device::expand::fused::for_each_fused`). **Canonical order**.
    ScanFused,
}

impl Strategy {
    /// Every strategy except `MaxN` (which needs its bound).
    pub const UNBOUNDED: [Strategy; 8] = [
        Strategy::AppendPerItem,
        Strategy::LinearSearch,
        Strategy::ScanBinarySearch,
        Strategy::PackedAtomicCas,
        Strategy::PackedAtomicAdd,
        Strategy::Po2Buckets,
        Strategy::Po2BucketsPerBucket,
        Strategy::ScanFused,
    ];

    /// Short name for tables: the seed's number and the API name.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(warpwork::expand::Strategy::ScanFused.name(), "S2.5f ScanFused");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Strategy::MaxN { .. } => "S0 MaxN",
            Strategy::AppendPerItem => "S1 AppendPerItem",
            Strategy::LinearSearch => "S2 LinearSearch",
            Strategy::ScanBinarySearch => "S2.5 ScanBinarySearch",
            Strategy::PackedAtomicCas => "S2.5+ PackedAtomic(CAS)",
            Strategy::PackedAtomicAdd => "S2.5+ PackedAtomic(add)",
            Strategy::Po2Buckets => "S3 Po2Buckets(merged)",
            Strategy::Po2BucketsPerBucket => "S3 Po2Buckets(per-bucket)",
            Strategy::ScanFused => "S2.5f ScanFused",
        }
    }

    /// Whether pairs come out in canonical order (source-major, local ascending).
    ///
    /// # Examples
    /// ```
    /// use warpwork::expand::Strategy;
    /// assert!(Strategy::ScanBinarySearch.is_canonical());
    /// assert!(!Strategy::AppendPerItem.is_canonical()); // compare as a multiset
    /// ```
    pub fn is_canonical(self) -> bool {
        matches!(self, Strategy::ScanBinarySearch | Strategy::ScanFused)
    }

    /// The kernel ABI number (`strategy` in `kernels/src/device/expand/mod.rs`).
    fn code(self) -> u32 {
        match self {
            Strategy::MaxN { .. } => 0,
            Strategy::AppendPerItem => 1,
            Strategy::LinearSearch => 2,
            Strategy::ScanBinarySearch => 3,
            Strategy::PackedAtomicCas => 4,
            Strategy::PackedAtomicAdd => 5,
            Strategy::Po2Buckets | Strategy::Po2BucketsPerBucket => 6,
            Strategy::ScanFused => 7,
        }
    }

    fn push_kernel(self) -> Option<&'static str> {
        match self {
            Strategy::MaxN { .. } => None,
            Strategy::ScanFused => Some("expand_push_fused"),
            Strategy::AppendPerItem => Some("expand_push_append"),
            Strategy::LinearSearch => Some("expand_push_linear"),
            Strategy::ScanBinarySearch => Some("expand_push_scan"),
            Strategy::PackedAtomicCas => Some("expand_push_packed_cas"),
            Strategy::PackedAtomicAdd => Some("expand_push_packed_add"),
            Strategy::Po2Buckets | Strategy::Po2BucketsPerBucket => Some("expand_push_po2"),
        }
    }

    /// Threads per block of the strategy's own pass 2.
    fn pass2_threads(self) -> u32 {
        if self == Strategy::ScanFused {
            FUSED_PASS2_THREADS
        } else {
            THREADS
        }
    }

    fn pass2_kernel(self) -> &'static str {
        match self {
            Strategy::MaxN { .. } => "expand_pass2_maxn",
            Strategy::AppendPerItem => "expand_pass2_append",
            Strategy::LinearSearch => "expand_pass2_linear",
            Strategy::ScanBinarySearch => "expand_pass2_scan",
            Strategy::PackedAtomicCas | Strategy::PackedAtomicAdd => "expand_pass2_packed",
            Strategy::Po2Buckets => "expand_pass2_po2",
            Strategy::Po2BucketsPerBucket => "expand_pass2_po2_bucket",
            Strategy::ScanFused => "expand_pass2_fused",
        }
    }
}

/// How pass 2 is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dispatch {
    /// Dispatch-indirect emulation: an occupancy-sized grid whose blocks read the destination
    /// count on the device and loop over it. No host synchronization between the passes.
    Persistent,
    /// Read the count back to the host, then launch a grid sized to it (capped at the
    /// persistent grid). Costs a stream synchronization and a copy.
    ReadBack,
}

/// The control block (`Control` in `kernels/src/device/expand/mod.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Control {
    /// Exact destination items (all strategies but S0).
    pub total: u64,
    /// S2.5+: `(records << 32) | sum`. S2.5f: pass 1's launch word (look-back side, last grid).
    pub packed: u64,
    /// S1 item slots / S2 records / S0 emitted pairs.
    pub counter: u32,
    /// Overflow flags.
    pub flags: u32,
    /// S2.5 scan tile counter.
    pub tiles: u32,
    /// S2.5f units of pass 2.
    pub units: u32,
    /// S2.5f pass-2 blocks finished.
    pub exits: u32,
    /// Padding.
    pub pad: u32,
    /// S3 records per bucket.
    pub buckets: [u32; BUCKETS],
}

/// The descriptor every expansion kernel (and a user's pass-2 kernel) receives as its first
/// argument, `*const ExpandView` (`kernels/src/device/expand/mod.rs`): device addresses and sizes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct View {
    /// Counts (P1 `u32`).
    pub counts: u64,
    /// The [`Control`] block.
    pub ctrl: u64,
    /// Prefix sums (S2.5 per source, S2.5+ per record).
    pub offsets: u64,
    /// S2.5+ record sources.
    pub srcs: u64,
    /// Records (S1, S2, S3; S2.5f per tile).
    pub records: u64,
    /// S2.5 look-back status; S2.5f: two `u64` look-back words per pass-1 block.
    pub scan_status: u64,
    /// S2.5 look-back aggregates.
    pub scan_aggregate: u64,
    /// S2.5 look-back inclusive prefixes.
    pub scan_inclusive: u64,
    /// Sources.
    pub p1: u32,
    /// Most destination items.
    pub capacity: u32,
    /// S0 bound.
    pub max_n: u32,
    /// Strategy ABI number.
    pub strategy: u32,
    /// S3 first record of each bucket.
    pub bucket_base: [u32; BUCKETS],
    /// S3 records each bucket holds.
    pub bucket_cap: [u32; BUCKETS],
}

// SAFETY: plain `#[repr(C)]` data, passed to kernels by address.
unsafe impl DeviceRepr for View {}

/// Materialized expansion: `pairs[..count]` are the `(src, local)` pairs, in the strategy's order.
#[derive(Debug)]
pub struct Expansion {
    /// Destination items.
    pub count: usize,
    /// `capacity` pairs; the first `count` are written.
    pub pairs: CudaSlice<[u32; 2]>,
}

/// Device memory each strategy needs besides the counts and the output, in bytes, for `p1`
/// sources and `capacity` destination items (the "memory cost" column of docs/expand.md).
///
/// # Examples
/// ```
/// use warpwork::expand::{workspace_bytes, Strategy};
/// let (p1, capacity) = (1 << 20, 1 << 26);
/// // S1 keeps a record per destination item, S2.5f a few words per tile of 2048 counts.
/// assert!(workspace_bytes(Strategy::AppendPerItem, p1, capacity) > 8 * capacity);
/// assert!(workspace_bytes(Strategy::ScanFused, p1, capacity) < 64 * 1024);
/// ```
pub fn workspace_bytes(strategy: Strategy, p1: usize, capacity: usize) -> usize {
    let ctrl = std::mem::size_of::<Control>() + std::mem::size_of::<View>();
    ctrl + match strategy {
        Strategy::MaxN { .. } => 0,
        Strategy::AppendPerItem => capacity * 8,
        Strategy::LinearSearch => p1 * 8,
        Strategy::ScanBinarySearch => p1 * 4 + p1.div_ceil((THREADS * SCAN_ITEMS) as usize) * 12,
        Strategy::ScanFused => (fused_tiles(p1) + 1) * 8 + fused_blocks(p1) * 16,
        Strategy::PackedAtomicCas | Strategy::PackedAtomicAdd => p1 * 8,
        Strategy::Po2Buckets | Strategy::Po2BucketsPerBucket => bucket_layout(p1, capacity).0 * 8,
    }
}

/// (total records, base per bucket, capacity per bucket) of S3: bucket `b` holds at most
/// `min(p1, capacity >> b)` records.
fn bucket_layout(p1: usize, capacity: usize) -> (usize, [u32; BUCKETS], [u32; BUCKETS]) {
    let (mut base, mut cap) = ([0u32; BUCKETS], [0u32; BUCKETS]);
    let mut at = 0usize;
    for b in 0..BUCKETS {
        base[b] = at as u32;
        cap[b] = p1.min(capacity >> b) as u32;
        at += cap[b] as usize;
    }
    (at, base, cap)
}

/// A reusable expansion of up to `max_p1` sources into at most `capacity` destination items with
/// one [`Strategy`]: its workspace is allocated once, by [`Gpu::expander`].
///
/// The order of calls is enforced by the types: [`Expander::pass1`] borrows the counts and
/// returns a [`Planned`] expansion, which alone has pass 2 and the count. The counts stay
/// borrowed as long as the `Planned` lives, so they cannot be freed (or written) while the
/// kernels that read them may still run.
///
/// # Examples
/// ```no_run
/// use warpwork::expand::{Dispatch, Strategy};
/// # let gpu = warpwork::Gpu::new(0)?;
/// let counts = gpu.upload(&[2u32, 0, 3])?;
/// let mut out = gpu.zeros::<[u32; 2]>(16)?;
/// let mut e = gpu.expander(Strategy::ScanFused, 3, 16)?; // allocates, once
/// let mut planned = e.pass1(&gpu, &counts)?;
/// planned.pass2(&gpu, &mut out, Dispatch::Persistent)?;
/// let n = planned.count(&gpu)?; // waits
/// assert_eq!(gpu.download_prefix(&out, n)?, [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]]);
/// # Ok::<(), warpwork::Error>(())
/// ```
pub struct Expander {
    strategy: Strategy,
    max_p1: usize,
    capacity: usize,
    /// The [`Control`] block followed by the scan state (status, aggregates, inclusive prefixes
    /// per tile): one allocation, so that a pass 1 clears both with one memset.
    state: CudaSlice<u32>,
    view: CudaSlice<View>,
    host_view: View,
    /// The strategy's other workspace (its addresses are in the view).
    offsets: CudaSlice<u32>,
    srcs: CudaSlice<u32>,
    records: CudaSlice<[u32; 2]>,
    /// Words after the control block that a reset clears.
    reset_words: usize,
    view_uploaded: bool,
    pass2_blocks: u32,
}

impl std::fmt::Debug for Expander {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expander({}, p1 ≤ {}, capacity {})", self.strategy.name(), self.max_p1, self.capacity)
    }
}

/// An expansion after its pass 1: the only way to run pass 2 and read the count. It borrows the
/// [`Expander`] mutably and the counts (`'c`) immutably for as long as it lives.
pub struct Planned<'e, 'c> {
    e: &'e mut Expander,
    counts: Option<&'c dyn DeviceRead<u32>>,
    p1: usize,
    /// Whether a pass 2 ran since pass 1 (S0's pass 2 then recounts from zero).
    pass2_ran: bool,
    /// S0: whether the last pass 2 was a user's kernel (the count is then `total`).
    user_pass2: bool,
    /// S0: `expand_maxn_total` has counted since pass 1 (it adds to the total, so a second user
    /// pass 2 must not count again).
    maxn_counted: bool,
}

impl std::fmt::Debug for Planned<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Planned({:?}, p1 = {})", self.e, self.p1)
    }
}

fn addr<T>(gpu: &Gpu, b: &CudaSlice<T>) -> Result<u64> {
    gpu.device_address(b)
}

impl Gpu {
    /// An [`Expander`] for up to `max_p1` sources and at most `capacity` destination items.
    /// **Allocates** its workspace ([`workspace_bytes`]).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(warpwork::expand::Strategy::ScanBinarySearch, 1 << 20, 1 << 26)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expander(&self, strategy: Strategy, max_p1: usize, capacity: usize) -> Result<Expander> {
        if max_p1 > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "expand sources (u32 indices)",
                needed: max_p1 as u64,
                capacity: u32::MAX as u64,
            });
        }
        if capacity > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "expand capacity (u32 destination indices)",
                needed: capacity as u64,
                capacity: u32::MAX as u64,
            });
        }
        if let Strategy::MaxN { max_n } = strategy {
            ensure_input!(max_n > 0, "MaxN needs max_n > 0");
        }
        let one = |n: usize| n.max(1);
        let (offsets, srcs, records, scan_tiles) = match strategy {
            Strategy::MaxN { .. } => (self.zeros(1)?, self.zeros(1)?, self.zeros(1)?, 0),
            Strategy::AppendPerItem => (self.zeros(1)?, self.zeros(1)?, self.zeros(one(capacity))?, 0),
            Strategy::LinearSearch => (self.zeros(1)?, self.zeros(1)?, self.zeros(one(max_p1))?, 0),
            Strategy::ScanBinarySearch => {
                let tiles = max_p1.div_ceil((THREADS * SCAN_ITEMS) as usize);
                (self.zeros(one(max_p1))?, self.zeros(1)?, self.zeros(1)?, tiles)
            }
            Strategy::ScanFused => (self.zeros(1)?, self.zeros(1)?, self.zeros(fused_tiles(max_p1) + 1)?, 0),
            Strategy::PackedAtomicCas | Strategy::PackedAtomicAdd => {
                (self.zeros(one(max_p1))?, self.zeros(one(max_p1))?, self.zeros(1)?, 0)
            }
            Strategy::Po2Buckets | Strategy::Po2BucketsPerBucket => {
                (self.zeros(1)?, self.zeros(1)?, self.zeros(one(bucket_layout(max_p1, capacity).0))?, 0)
            }
        };
        // After the control block: S2.5's status, aggregate and inclusive prefix per scan tile
        // (a reset clears the status words), or S2.5f's two 64-bit look-back words per pass-1
        // block (a reset clears them all).
        let (lookback_words, reset_words) = match strategy {
            Strategy::ScanFused => {
                let words = 4 * fused_blocks(max_p1);
                (words, words)
            }
            _ => (3 * scan_tiles, scan_tiles),
        };
        let state = self.zeros::<u32>(CTRL_WORDS + lookback_words)?;
        let view = self.zeros::<View>(1)?;
        let (_, bucket_base, bucket_cap) = bucket_layout(max_p1, capacity);
        let t4 = scan_tiles as u64 * 4;
        let ctrl = addr(self, &state)?;
        let scan = ctrl + 4 * CTRL_WORDS as u64;
        let host_view = View {
            counts: 0,
            ctrl,
            offsets: addr(self, &offsets)?,
            srcs: addr(self, &srcs)?,
            records: addr(self, &records)?,
            scan_status: scan,
            scan_aggregate: scan + t4,
            scan_inclusive: scan + 2 * t4,
            p1: 0,
            capacity: capacity as u32,
            max_n: if let Strategy::MaxN { max_n } = strategy { max_n } else { 0 },
            strategy: strategy.code(),
            bucket_base,
            bucket_cap,
        };
        let per_sm = self.occupancy(strategy.pass2_kernel(), strategy.pass2_threads(), 0)?.max(1);
        Ok(Expander {
            strategy,
            max_p1,
            capacity,
            state,
            view,
            host_view,
            offsets,
            srcs,
            records,
            reset_words,
            view_uploaded: false,
            pass2_blocks: per_sm * self.info().sm_count,
        })
    }

    /// Expands `counts` with `strategy` and materializes the `(src, local)` pairs (at most
    /// `capacity` of them) on the device. **Allocates** the expander and the output; **waits**
    /// for the count.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[1u32, 2])?;
    /// let x = gpu.expand(&counts, Strategy::ScanBinarySearch, 8)?;
    /// assert_eq!(gpu.download_prefix(&x.pairs, x.count)?, [[0, 0], [1, 0], [1, 1]]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn expand(&self, counts: &impl DeviceRead<u32>, strategy: Strategy, capacity: usize) -> Result<Expansion> {
        let mut e = self.expander(strategy, counts.len(), capacity)?;
        let mut pairs = self.zeros::<[u32; 2]>(capacity.max(1))?;
        let mut planned = e.pass1(self, counts)?;
        planned.pass2(self, &mut pairs, Dispatch::Persistent)?;
        let count = planned.count(self)?;
        Ok(Expansion { count, pairs })
    }

    /// Expands `counts` through `expander` (pass 1) and runs **your** pass-2 kernel `pass2`
    /// over the destination items; nothing is materialized. **Waits**, and returns the number
    /// of destination items (or the overflow the device flagged).
    ///
    /// # The pass-2 kernel contract
    /// * Its first parameter is `view: *const ExpandView` (`warpwork_kernels::device::expand`);
    ///   `args` pushes the remaining parameters, in order.
    /// * It is launched with blocks of [`THREADS`] threads and a persistent grid (occupancy ×
    ///   SMs, sized on the host without reading the count back); every thread calls
    ///   `warpwork_kernels::device::expand::locate::for_each(&*view, |src, local| …)` with whole
    ///   warps converged, and does its per-item work in the closure.
    /// * It must not write the view, the control block or the strategy's workspace.
    ///
    /// The expander's strategy decides how items are located; see `examples/meshlet-cull`.
    ///
    /// # Safety
    /// `args` must push arguments matching the kernel's parameters after the view, and `pass2`
    /// must follow the contract.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[3u32, 0, 2])?;
    /// let mut hits = gpu.zeros::<u32>(3)?;
    /// let mut sums = gpu.zeros::<u64>(3)?;
    /// let f = gpu.function("expand_for_each_histogram")?; // (view, hits, sums)
    /// let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 5)?;
    /// let n = unsafe { gpu.expand_with(&mut e, &counts, f, |l| { l.write(&mut hits).write(&mut sums); })? };
    /// assert_eq!(n, 5);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub unsafe fn expand_with<'a>(
        &'a self,
        expander: &'a mut Expander,
        counts: &'a impl DeviceRead<u32>,
        pass2: &'a CudaFunction,
        args: impl FnOnce(&mut KernelArgs<'a>),
    ) -> Result<usize> {
        let mut planned = expander.pass1(self, counts)?;
        planned.pass2_with(self, pass2, args)?;
        planned.count(self)
    }
}

impl Expander {
    /// The strategy.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(Strategy::Po2Buckets, 100, 1000)?;
    /// assert_eq!(e.strategy(), Strategy::Po2Buckets);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Blocks of a persistent pass 2 (occupancy × SMs).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let e = gpu.expander(warpwork::expand::Strategy::ScanBinarySearch, 100, 1000)?;
    /// assert!(e.persistent_blocks() >= gpu.info().sm_count);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn persistent_blocks(&self) -> u32 {
        self.pass2_blocks
    }

    /// Prepares a pass 1 over `p1` sources that **your own kernel** runs: it receives the
    /// view first ([`Planned::pass1_args`]) and calls a `push_*_with` building block with its
    /// own counts. Zeroes the control block and the scan state and points the view at `p1`
    /// sources with no counts array. Asynchronous.
    ///
    /// Refused ([`Error::InvalidInput`], nothing issued) for the strategies whose pass 2 reads
    /// the counts array, which an own pass 1 does not have: `MaxN` and `ScanFused`.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut e = gpu.expander(Strategy::Po2Buckets, 1000, 1 << 16)?;
    /// let mut planned = e.pass1_by_own_kernel(&gpu, 1000)?;
    /// let mut l = planned.pass1_args(&gpu)?; // the view, the workspace bound
    /// // l.read(&my_meshes)…; unsafe { l.launch(my_pass1, cfg)? }; then planned.pass2_with(…)
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1_by_own_kernel(&mut self, gpu: &Gpu, p1: usize) -> Result<Planned<'_, 'static>> {
        ensure_input!(
            !matches!(self.strategy, Strategy::MaxN { .. } | Strategy::ScanFused),
            "{}'s pass 2 reads the counts array, which a pass 1 of your own kernel does not have \
             (use Expander::pass1, or another strategy)",
            self.strategy.name()
        );
        self.reset_for(gpu, p1, 0, true)?;
        Ok(Planned::new(self, None, p1))
    }

    /// Points the view at `counts_addr` and `p1` sources and, with `clear`, zeroes the control
    /// block and the scan state.
    fn reset_for(&mut self, gpu: &Gpu, p1: usize, counts_addr: u64, clear: bool) -> Result<()> {
        ensure_input!(p1 <= self.max_p1, "{p1} sources for an expander of at most {}", self.max_p1);
        if !self.view_uploaded || counts_addr != self.host_view.counts || p1 as u32 != self.host_view.p1 {
            // The descriptor changes: one copy from host memory, which a graph cannot hold.
            gpu.refuse_in_capture(
                "the expander's descriptor is uploaded from host memory when the counts' address \
                 or length change: run one pass 1 with the same counts before capturing",
            )?;
            self.host_view.counts = counts_addr;
            self.host_view.p1 = p1 as u32;
            gpu.upload_into(std::slice::from_ref(&self.host_view), &mut self.view)?;
            self.view_uploaded = true;
        }
        // The control block and the look-back words a reset clears (S2.5's status words: its
        // aggregates and inclusive prefixes need no clearing; all of S2.5f's): one memset.
        if clear {
            let words = CTRL_WORDS + self.reset_words;
            gpu.zero_words(&mut self.state, 0..words)?;
        }
        Ok(())
    }

    /// Pass 1: resets the control block (S2.5f: its pass 1 does that itself) and runs the
    /// strategy's push over `counts`, which stay borrowed by the returned [`Planned`].
    /// Asynchronous; capturable once a pass 1 has run on the same counts (address and length:
    /// the first one uploads the expander's descriptor from host memory). [`Error::InvalidInput`]
    /// for more counts than the expander's `max_p1`, [`Error::WrongContext`] for counts of
    /// another context.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::{Dispatch, Strategy};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[1u32, 0, 2])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(3)?;
    /// let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 3)?;
    /// let mut planned = e.pass1(&gpu, &counts)?; // `counts` stays borrowed by `planned`
    /// planned.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    /// assert_eq!(planned.count(&gpu)?, 3);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1<'e, 'c>(&'e mut self, gpu: &Gpu, counts: &'c impl DeviceRead<u32>) -> Result<Planned<'e, 'c>> {
        let p1 = counts.len();
        // S2.5f's pass 1 leaves its state ready for the next (its last block stores every control
        // field it reads and flips the launch word; each launch clears the previous launch's
        // look-back words), and pass 2 clears its claims: no memset before it, one operation
        // less on the stream.
        let clears_itself = self.strategy == Strategy::ScanFused && p1 > 0;
        let counts_addr = gpu.device_address(counts)?;
        self.reset_for(gpu, p1, counts_addr, !clears_itself)?;
        if let (Some(name), true) = (self.strategy.push_kernel(), p1 > 0) {
            let per_block = THREADS
                * match self.strategy {
                    Strategy::ScanBinarySearch => SCAN_ITEMS,
                    Strategy::ScanFused => FUSED_ITEMS * FUSED_PUSH_TILES,
                    _ => PUSH_ITEMS,
                };
            let f = gpu.function(name)?;
            let cfg = LaunchConfig {
                grid_dim: ((p1 as u32).div_ceil(per_block), 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            let (view, _bound) = self.bind_workspace(gpu, Some(counts))?;
            let mut l = gpu.kernel_args();
            l.addr(view);
            // SAFETY: every `expand_push_*` takes the view pointer, which describes buffers this
            // expander owns (sized for `max_p1` and `capacity`, bound above) and `counts` (`p1`
            // elements).
            unsafe { l.launch(f, cfg)? };
        }
        Ok(Planned::new(self, Some(counts), p1))
    }

    /// Binds the view and the buffers it points to (and the counts) for a launch on `gpu`, so
    /// that cudarc orders the launch after earlier uses of them and their frees after it:
    /// returns the view's address and the bindings, to drop once the launch is issued. The
    /// workspace is bound for writing (every expansion kernel writes the control block or the
    /// strategy's records), so that a launch on another stream waits for it; the view and the
    /// counts for reading.
    fn bind_workspace<'s>(
        &'s mut self,
        gpu: &'s Gpu,
        counts: Option<&'s dyn DeviceRead<u32>>,
    ) -> Result<(u64, Vec<Bound<'s>>)> {
        let to = gpu.target()?;
        let mut bound = Vec::with_capacity(6);
        bound.push(self.view.bind(&to)?);
        let view = bound[0].addr;
        bound.push(self.state.bind_mut(&to)?);
        bound.push(self.offsets.bind_mut(&to)?);
        bound.push(self.srcs.bind_mut(&to)?);
        bound.push(self.records.bind_mut(&to)?);
        if let Some(c) = counts {
            bound.push(c.bind(&to)?);
        }
        Ok((view, bound))
    }

    /// Downloads the control block (waits for the stream).
    fn control(&self, gpu: &Gpu) -> Result<Control> {
        Ok(bytemuck::pod_read_unaligned(bytemuck::cast_slice(&gpu.download_prefix(&self.state, CTRL_WORDS)?)))
    }

    /// One launch of the strategy's own pass 2 (`expand_pass2_*(view, out[, bucket])`).
    fn launch_pass2(
        &mut self,
        gpu: &Gpu,
        counts: Option<&dyn DeviceRead<u32>>,
        grid: u32,
        bucket: Option<&u32>,
        out: &mut dyn DeviceWrite<[u32; 2]>,
    ) -> Result<()> {
        let strategy = self.strategy;
        let f = gpu.function(strategy.pass2_kernel())?;
        let block_dim = (strategy.pass2_threads(), 1, 1);
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim, shared_mem_bytes: 0 };
        let (view, _bound) = self.bind_workspace(gpu, counts)?;
        let mut l = gpu.kernel_args();
        l.addr(view).write(out);
        if let Some(b) = bucket {
            l.value(b);
        }
        if strategy == Strategy::ScanFused {
            // Its blocks start while pass 1's blocks look back (both kernels say so).
            // SAFETY: `expand_pass2_fused(view, out)`; `out` holds `capacity` pairs (checked by
            // the caller); the kernel waits for pass 1 before reading the plan.
            return unsafe { l.launch_dependent(f, cfg) };
        }
        // SAFETY: `expand_pass2_*(view, out[, bucket])`; `out` holds `capacity` pairs (checked
        // by the caller).
        unsafe { l.launch(f, cfg) }
    }
}

impl<'e, 'c> Planned<'e, 'c> {
    fn new(e: &'e mut Expander, counts: Option<&'c dyn DeviceRead<u32>>, p1: usize) -> Self {
        Planned { e, counts, p1, pass2_ran: false, user_pass2: false, maxn_counted: false }
    }

    /// The descriptor every expansion kernel receives first (`*const ExpandView` in the
    /// kernels). To launch your own pass-1 kernel with it, prefer [`Planned::pass1_args`],
    /// which also binds the workspace that kernel writes.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[4u32, 1])?;
    /// let mut e = gpu.expander(warpwork::expand::Strategy::ScanBinarySearch, 2, 5)?;
    /// let planned = e.pass1(&gpu, &counts)?;
    /// let view = gpu.download(planned.view())?[0];
    /// assert_eq!(view.p1, 2);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn view(&self) -> &CudaSlice<View> {
        &self.e.view
    }

    /// The argument list of a launch of **your own pass-1 kernel** on `gpu` (after
    /// [`Expander::pass1_by_own_kernel`]): the view is its first argument, and the expander's
    /// workspace, which that kernel writes through the view, is bound for writing, so that
    /// cudarc orders the launch after earlier uses of the workspace and frees it only after the
    /// launch. Push the kernel's remaining arguments and launch it (`unsafe`).
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::driver::LaunchConfig;
    /// use warpwork::expand::{Strategy, THREADS};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// # let (my_pass1, my_pass2) = (gpu.function("hold_stream")?, gpu.function("expand_for_each_histogram")?);
    /// let meshes = gpu.upload(&[0u32; 1000])?; // whatever your pass 1 reads
    /// let n = 1000u32;
    /// let mut e = gpu.expander(Strategy::Po2Buckets, 1000, 1 << 16)?;
    /// let mut planned = e.pass1_by_own_kernel(&gpu, 1000)?;
    /// let mut l = planned.pass1_args(&gpu)?;
    /// l.read(&meshes).value(&n);
    /// let cfg = LaunchConfig { grid_dim: (n.div_ceil(8 * THREADS), 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    /// // SAFETY (for a real `my_pass1(view, meshes, n)`): the arguments match its parameters.
    /// unsafe { l.launch(my_pass1, cfg)? };
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass1_args<'a>(&'a mut self, gpu: &'a Gpu) -> Result<KernelArgs<'a>> {
        let e = &mut *self.e;
        let mut l = gpu.kernel_args();
        let view = l.bind(&e.view)?;
        l.bind_mut(&mut e.state)?;
        l.bind_mut(&mut e.offsets)?;
        l.bind_mut(&mut e.srcs)?;
        l.bind_mut(&mut e.records)?;
        l.addr(view);
        Ok(l)
    }

    /// Pass 2, materializing: writes the `(src, local)` pairs into `out` (at least `capacity`
    /// long). Asynchronous for [`Dispatch::Persistent`], and capturable;
    /// [`Dispatch::ReadBack`] **waits** for pass 1's count. It may run again and writes the
    /// same pairs.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::{Dispatch, Strategy};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 2])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(4)?;
    /// let mut e = gpu.expander(Strategy::AppendPerItem, 2, 4)?;
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// planned.pass2(&gpu, &mut out, Dispatch::ReadBack)?; // grid sized by the count
    /// assert_eq!(planned.count(&gpu)?, 4);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn pass2(&mut self, gpu: &Gpu, out: &mut impl DeviceWrite<[u32; 2]>, dispatch: Dispatch) -> Result<()> {
        let e = &mut *self.e;
        ensure_input!(out.len() >= e.capacity, "an output of {} pairs for capacity {}", out.len(), e.capacity);
        if dispatch == Dispatch::ReadBack {
            gpu.refuse_in_capture("Dispatch::ReadBack reads the count back (use Dispatch::Persistent)")?;
        }
        self.user_pass2 = false;
        if matches!(e.strategy, Strategy::MaxN { .. }) && self.pass2_ran {
            // S0's pass 2 counts the pairs it writes in the control block: start again from zero.
            let counter = std::mem::offset_of!(Control, counter) / 4;
            gpu.zero_words(&mut e.state, counter..counter + 1)?;
        }
        self.pass2_ran = true;
        let per_block = (THREADS / 32) as u64 * 64;
        let pass2_blocks = e.pass2_blocks;
        let blocks = |items: u64| -> u32 { (items.div_ceil(per_block).max(1) as u32).min(pass2_blocks) };
        let (grid, bucket_items) = match dispatch {
            Dispatch::Persistent => (e.pass2_blocks, None),
            Dispatch::ReadBack if e.strategy == Strategy::ScanFused => {
                // One block per first claim at most (each claims units until none is left).
                let c = e.control(gpu)?;
                (c.units.div_ceil(FUSED_CLAIM_UNITS).max(1).min(e.pass2_blocks), None)
            }
            Dispatch::ReadBack => {
                let c = e.control(gpu)?;
                let items = match e.strategy {
                    Strategy::MaxN { max_n } => {
                        (self.p1 as u64 * max_n as u64).div_ceil(THREADS as u64 * MAXN_ITEMS) * per_block
                    }
                    _ if c.flags != 0 => 0,
                    Strategy::PackedAtomicCas | Strategy::PackedAtomicAdd => c.packed & 0xffff_ffff,
                    Strategy::Po2Buckets | Strategy::Po2BucketsPerBucket => {
                        (0..BUCKETS).map(|b| (c.buckets[b] as u64) << b).sum()
                    }
                    _ => c.total,
                };
                let per_bucket: [u64; BUCKETS] = std::array::from_fn(|b| (c.buckets[b] as u64) << b);
                (blocks(items), Some(per_bucket))
            }
        };
        if e.strategy == Strategy::Po2BucketsPerBucket {
            let ids: [u32; BUCKETS] = std::array::from_fn(|b| b as u32);
            for (b, id) in ids.iter().enumerate() {
                let g = bucket_items.map_or(grid, |items| blocks(items[b]));
                if bucket_items.is_some_and(|items| items[b] == 0) {
                    continue;
                }
                e.launch_pass2(gpu, self.counts, g, Some(id), out)?;
            }
            Ok(())
        } else {
            e.launch_pass2(gpu, self.counts, grid, None, out)
        }
    }

    /// Pass 2 with the caller's kernel (see [`Gpu::expand_with`] for the contract): a persistent
    /// grid of occupancy × SMs blocks of [`THREADS`]. Asynchronous; capturable. It may run
    /// again. Refused for `ScanFused` ([`Error::InvalidInput`]: its pass 2 needs shared memory
    /// the contract does not give).
    ///
    /// # Safety
    /// `args` must push arguments matching the kernel's parameters after the view, and the
    /// kernel must follow [`Gpu::expand_with`]'s contract.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::Strategy;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[2u32, 3])?;
    /// let (mut hits, mut sums) = (gpu.zeros::<u32>(2)?, gpu.zeros::<u64>(2)?);
    /// let f = gpu.function("expand_for_each_histogram")?; // (view, hits, sums)
    /// let mut e = gpu.expander(Strategy::ScanBinarySearch, 2, 5)?;
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// // SAFETY: `expand_for_each_histogram(view, hits, sums)` follows the contract.
    /// unsafe { planned.pass2_with(&gpu, f, |l| { l.write(&mut hits).write(&mut sums); })? };
    /// assert_eq!(gpu.download(&hits)?, [2, 3]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub unsafe fn pass2_with<'a>(
        &mut self,
        gpu: &'a Gpu,
        pass2: &'a CudaFunction,
        args: impl FnOnce(&mut KernelArgs<'a>),
    ) -> Result<()> {
        let e = &mut *self.e;
        ensure_input!(
            e.strategy != Strategy::ScanFused,
            "ScanFused's pass 2 needs shared memory for its tile scans, which the for_each contract \
             does not give: use ScanBinarySearch with your pass-2 kernel, or for_each_fused in your \
             own kernel"
        );
        let per_sm = pass2.occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)?.max(1);
        let cfg = LaunchConfig {
            grid_dim: (per_sm * gpu.info().sm_count, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        if let Strategy::MaxN { .. } = e.strategy {
            // S0 has no pass 1 and a user's pass 2 keeps no count: count on the device first,
            // once per pass 1 (the count adds to the total).
            if self.p1 > 0 && !self.maxn_counted {
                let f = gpu.function("expand_maxn_total")?;
                let cfg = LaunchConfig {
                    grid_dim: ((self.p1 as u32).div_ceil(THREADS * PUSH_ITEMS), 1, 1),
                    block_dim: (THREADS, 1, 1),
                    shared_mem_bytes: 0,
                };
                let (view, _bound) = e.bind_workspace(gpu, self.counts)?;
                let mut l = gpu.kernel_args();
                l.addr(view);
                // SAFETY: `expand_maxn_total(view)` over the `p1` counts the view points to.
                l.launch(f, cfg)?;
                self.maxn_counted = true;
            }
            self.user_pass2 = true;
        }
        let (view, _bound) = e.bind_workspace(gpu, self.counts)?;
        let mut l = gpu.kernel_args();
        l.addr(view);
        args(&mut l);
        l.launch(pass2, cfg)
    }

    /// **Waits** for the passes and returns the number of destination items, or the overflow
    /// pass 1/2 flagged on the device ([`Error::CapacityExceeded`]; `MaxN`: a count above
    /// `max_n` is [`Error::InvalidInput`]). For `MaxN`, which counts in pass 2, asking before any
    /// pass 2 is refused ([`Error::InvalidInput`]).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::expand::{Dispatch, Strategy};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let counts = gpu.upload(&[7u32; 10])?;
    /// let mut out = gpu.zeros::<[u32; 2]>(50)?;
    /// let mut e = gpu.expander(Strategy::ScanFused, 10, 50)?; // 70 items do not fit
    /// let mut planned = e.pass1(&gpu, &counts)?;
    /// planned.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    /// assert!(matches!(planned.count(&gpu), Err(warpwork::Error::CapacityExceeded { .. })));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn count(&self, gpu: &Gpu) -> Result<usize> {
        let e = &*self.e;
        ensure_input!(
            self.pass2_ran || self.user_pass2 || !matches!(e.strategy, Strategy::MaxN { .. }),
            "MaxN counts its items in pass 2: run a pass 2 before asking for the count"
        );
        let c = e.control(gpu)?;
        let needed = match e.strategy {
            Strategy::MaxN { .. } if !self.user_pass2 => c.counter as u64,
            _ => c.total,
        };
        if c.flags & FLAG_MAX_N != 0 {
            let max_n = e.host_view.max_n;
            return Err(Error::InvalidInput(format!("a source spawns more than max_n = {max_n} items")));
        }
        if c.flags & FLAG_CAPACITY != 0 || needed > e.capacity as u64 {
            return Err(Error::CapacityExceeded {
                what: "expand destination items",
                needed: needed.max(e.capacity as u64 + 1),
                capacity: e.capacity as u64,
            });
        }
        Ok(needed as usize)
    }
}

/// Tiles of `ScanFused` for `p1` sources (`THREADS · FUSED_ITEMS` counts each).
fn fused_tiles(p1: usize) -> usize {
    p1.div_ceil((THREADS * FUSED_ITEMS) as usize)
}

/// Pass-1 blocks of `ScanFused` for `p1` sources (`FUSED_PUSH_TILES` tiles each).
fn fused_blocks(p1: usize) -> usize {
    fused_tiles(p1).div_ceil(FUSED_PUSH_TILES as usize)
}

/// `u32` words of the [`Control`] block at the front of an expander's state buffer.
const CTRL_WORDS: usize = std::mem::size_of::<Control>() / 4;

/// Slots per thread of S0's pass 2 (`MAXN_ITEMS`): a block covers `THREADS · MAXN_ITEMS` slots
/// per step.
const MAXN_ITEMS: u64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_only_the_scan_strategies_are_canonical() {
        let mut all = Strategy::UNBOUNDED.to_vec();
        all.push(Strategy::MaxN { max_n: 4 });
        let mut names: Vec<_> = all.iter().map(|s| s.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        let canonical: Vec<_> = all.iter().filter(|s| s.is_canonical()).copied().collect();
        assert_eq!(canonical, [Strategy::ScanBinarySearch, Strategy::ScanFused]);
    }

    #[test]
    fn bucket_layout_bounds_each_bucket_by_sources_and_capacity() {
        let (total, base, cap) = bucket_layout(1000, 1 << 12);
        assert_eq!(cap[0], 1000);
        assert_eq!(cap[3], 512);
        assert_eq!(cap[12], 1);
        assert_eq!(cap[13], 0);
        assert_eq!(base[1], 1000);
        assert_eq!(total, cap.iter().map(|&c| c as usize).sum::<usize>());
        assert_eq!(bucket_layout(0, 0).0, 0);
    }

    #[test]
    fn workspace_grows_as_documented() {
        let (p1, cap) = (1 << 20, 1 << 25);
        let base = workspace_bytes(Strategy::MaxN { max_n: 32 }, p1, cap);
        assert_eq!(workspace_bytes(Strategy::AppendPerItem, p1, cap) - base, cap * 8);
        assert_eq!(workspace_bytes(Strategy::PackedAtomicAdd, p1, cap) - base, p1 * 8);
        assert!(workspace_bytes(Strategy::Po2Buckets, p1, cap) > workspace_bytes(Strategy::ScanBinarySearch, p1, cap));
    }
}
