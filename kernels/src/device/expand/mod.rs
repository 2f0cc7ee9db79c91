//! Work expansion: source item `i` of pass 1 spawns `counts[i]` destination items; pass 2 runs
//! one thread (or lane-item) per destination item and needs its `(source, local)` index.
//!
//! Every strategy of the seed article is here as a pass-1 **push** (what a source writes, in
//! [`push`]) and a pass-2 **locate** (how a destination index finds its source, in [`locate`]):
//!
//! | strategy | pass 1 writes | pass 2 finds `(src, local)` by |
//! |---|---|---|
//! | S0 `MaxN` | nothing | `t / MAX_N`, `t % MAX_N` over `P1·MAX_N` slots, early out |
//! | S1 `AppendPerItem` | one `(src, local)` per destination item | indexing |
//! | S2 `LinearSearch` | one `(src, count)` per non-empty source | warp-wide linear scan |
//! | S2.5 `ScanBinarySearch` | exclusive prefix of the counts (look-back scan) | binary search |
//! | S2.5+ `PackedAtomic` | `(prefix, src)` per non-empty source via one packed 64-bit atomic | binary search |
//! | S3 `Po2Buckets` | one `(src, offset)` per set bit of N, in bucket `b` | shifts |
//! | S2.5f `ScanFused` | one sum per tile of counts, then a plan of output units | a per-unit tile scan in shared memory and marks ([`fused`]) |
//!
//! The state shared by the passes is an [`ExpandView`] (pointers, sizes) and a [`Control`] block
//! (counters and the overflow flags) in device memory. The host (`warpwork::expand`) builds both;
//! users' own kernels receive a `*const ExpandView` and call [`locate::for_each`].
//!
//! Pass 2 is always a **persistent** loop: the grid can be sized once from the occupancy and
//! every block reads the destination count from the device ([`dst_count`]) — the
//! dispatch-indirect that CUDA lacks.

pub mod fused;
pub mod locate;
pub mod push;

/// Strategy numbers: the host ABI (`warpwork::expand::Strategy`), keep them in step.
pub mod strategy {
    /// S0: `P1·MAX_N` threads, early out.
    pub const MAX_N: u32 = 0;
    /// S1: one record per destination item.
    pub const APPEND_PER_ITEM: u32 = 1;
    /// S2: one `(src, count)` record per source, linear search.
    pub const LINEAR_SEARCH: u32 = 2;
    /// S2.5: device-wide scan, binary search.
    pub const SCAN_BINARY_SEARCH: u32 = 3;
    /// S2.5+: packed 64-bit atomic, compare-and-swap loop.
    pub const PACKED_CAS: u32 = 4;
    /// S2.5+: packed 64-bit atomic, one `atom.add.u64`.
    pub const PACKED_ADD: u32 = 5;
    /// S3: power-of-two buckets.
    pub const PO2_BUCKETS: u32 = 6;
    /// S2.5 fused: tile sums, then a per-unit tile scan and walk ([`super::fused`]).
    pub const SCAN_FUSED: u32 = 7;
}

/// [`Control::flags`] bit: the destination items exceed the capacity (or the 32-bit sum).
pub const FLAG_CAPACITY: u32 = 1;
/// [`Control::flags`] bit: a source asked for more than `MAX_N` items (S0 only).
pub const FLAG_MAX_N: u32 = 2;

/// Buckets of S3: one per bit of a `u32` count.
pub const BUCKETS: usize = 32;

/// Counters the passes share, in device memory. Zero it before pass 1.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Control {
    /// Exact number of destination items (pass 1 of every strategy but S0 adds to it).
    pub total: u64,
    /// S2.5+: `(records << 32) | running sum`. S2.5f: pass 1's launch word (which of each
    /// block's two look-back words the next pass 1 uses, and how many blocks the last one had).
    pub packed: u64,
    /// S1: item slots taken; S2: records taken; S0: pairs emitted; S2.5f: units claimed.
    pub counter: u32,
    /// [`FLAG_CAPACITY`] | [`FLAG_MAX_N`].
    pub flags: u32,
    /// S2.5: the scan's tile counter.
    pub tiles: u32,
    /// S2.5f: units of pass 2 (written by pass 1).
    pub units: u32,
    /// S2.5f: pass-2 blocks finished (the last one clears `counter` and this).
    pub exits: u32,
    /// Padding (keeps the size a multiple of 8).
    pub pad: u32,
    /// S3: records per bucket.
    pub buckets: [u32; BUCKETS],
}

/// Everything pass 1 and pass 2 need, passed to kernels as one `*const ExpandView`.
/// Built by the host; the layout is the host's ABI (`warpwork::expand::View`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExpandView {
    /// `counts[i]`: destination items of source `i`, `p1` of them.
    pub counts: *const u32,
    /// The shared counters.
    pub ctrl: *mut Control,
    /// S2.5: exclusive prefix per source; S2.5+: exclusive prefix per record. `p1` entries.
    pub offsets: *mut u32,
    /// S2.5+: source of each record. `p1` entries.
    pub srcs: *mut u32,
    /// S1: `(src, local)` per item (`capacity`); S2: `(src, count)` per record (`p1`);
    /// S3: `(src, first local)` per bucket record (bucket `b` at `bucket_base[b]`);
    /// S2.5f: `(first item, first unit)` per tile, plus one end record (`tiles + 1`).
    pub records: *mut [u32; 2],
    /// S2.5 look-back state: status, aggregates, inclusive prefixes (one per scan tile).
    /// S2.5f: `scan_status` holds pass 1's look-back words instead (two `u64`s per pass-1 block).
    pub scan_status: *mut u32,
    /// See `scan_status`.
    pub scan_aggregate: *mut u32,
    /// See `scan_status`.
    pub scan_inclusive: *mut u32,
    /// Source items.
    pub p1: u32,
    /// Most destination items allowed.
    pub capacity: u32,
    /// S0's `MAX_N`.
    pub max_n: u32,
    /// One of [`strategy`].
    pub strategy: u32,
    /// S3: first record of each bucket in `records`.
    pub bucket_base: [u32; BUCKETS],
    /// S3: records each bucket holds (`min(p1, capacity >> b)`).
    pub bucket_cap: [u32; BUCKETS],
}

impl ExpandView {
    /// The look-back state of the S2.5 scans (`scan_*` arrays and the control block's tile
    /// counter), as [`crate::device::scan::scan_tile`] takes it.
    ///
    /// # Safety
    /// `self.ctrl` points to the view's control block.
    #[inline(always)]
    pub unsafe fn lookback_state(&self) -> crate::device::scan::LookbackState<u32> {
        crate::device::scan::LookbackState {
            status: self.scan_status,
            aggregate: self.scan_aggregate,
            inclusive: self.scan_inclusive,
            tile_counter: core::ptr::addr_of_mut!((*self.ctrl).tiles),
        }
    }
}

/// Destination items of a finished pass 1, or 0 when a flag is set (so that a pass 2 after an
/// overflow does nothing, and reads nothing out of bounds). For S0 it is the slot count
/// `p1·max_n`, saturated at `u32::MAX` (S0's own loops count slots in 64 bits); for S3 the sum
/// of the buckets.
///
/// # Safety
/// `v` is a valid view whose pass 1 has finished (an earlier launch).
#[inline(always)]
pub unsafe fn dst_count(v: &ExpandView) -> u32 {
    let c = &*v.ctrl;
    if c.flags != 0 {
        return 0;
    }
    match v.strategy {
        strategy::MAX_N => (v.p1 as u64 * v.max_n as u64).min(u32::MAX as u64) as u32,
        strategy::PO2_BUCKETS => {
            let mut t = 0u64;
            for b in 0..BUCKETS {
                t += (c.buckets[b] as u64) << b;
            }
            t.min(v.capacity as u64) as u32
        }
        strategy::PACKED_CAS | strategy::PACKED_ADD => c.packed as u32,
        _ => c.total.min(v.capacity as u64) as u32,
    }
}

/// The checks a scan-based pass 1 makes on one thread's run of counts (`emit` of
/// [`crate::device::scan::scan_tile`]): raises [`FLAG_CAPACITY`] where the 32-bit running sum
/// wraps inside the run, and the thread holding the last count stores the exact total in
/// `ctrl.total` (raising the flag if it exceeds the capacity).
///
/// # Safety
/// `v` is the view of the running pass 1; `first`, `excl`, `values` and `valid` are as `emit`
/// receives them.
#[inline(always)]
pub unsafe fn check_scanned_run<const ITEMS: usize>(
    v: &ExpandView,
    first: usize,
    excl: &[u32; ITEMS],
    values: &[u32; ITEMS],
    valid: usize,
) {
    // Constant indices only (a fixed, unrolled trip count): the arrays stay in registers.
    let (mut wrapped, mut last) = (false, 0u64);
    for j in 0..ITEMS {
        if j < valid {
            wrapped |= excl[j].checked_add(values[j]).is_none();
            last = excl[j] as u64 + values[j] as u64;
        }
    }
    if valid > 0 && first + valid == v.p1 as usize {
        crate::arch::store_relaxed_u64(core::ptr::addr_of_mut!((*v.ctrl).total), last);
        wrapped |= last > v.capacity as u64;
    }
    if wrapped {
        crate::arch::atomic_or_u32(core::ptr::addr_of_mut!((*v.ctrl).flags), FLAG_CAPACITY);
    }
}
