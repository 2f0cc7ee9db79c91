//! Work expansion: source `i` of pass 1 spawns `counts[i]` destination items; pass 2 runs per
//! destination item and needs its `(source, local)` pair. Pass 1 and pass 2 share an
//! [`ExpandView`] (addresses and sizes, written by the host) and a [`Control`] block (counters
//! and overflow flags, in device memory); the [`strategy`] code in the view picks how.

pub mod fused;

use crate::WARP_SIZE;

/// Strategy codes ([`ExpandView::strategy`]): the host's `warpwork::expand::Strategy`. The
/// short names S0 … S3 are the ones `Strategy`'s docs define and the benchmark tables print.
pub mod strategy {
    /// S0 `MaxN`: `P1·MAX_N` slots, early out.
    pub const MAX_N: u32 = 0;
    /// S1 `AppendPerItem`: one record per destination item.
    pub const APPEND_PER_ITEM: u32 = 1;
    /// S2 `LinearSearch`: one `(src, count)` record per source, linear search.
    pub const LINEAR_SEARCH: u32 = 2;
    /// S2.5 `ScanBinarySearch`: device-wide scan, binary search.
    pub const SCAN_BINARY_SEARCH: u32 = 3;
    /// S2.5+ `PackedAtomicCas`: packed 64-bit atomic, compare-and-swap loop.
    pub const PACKED_ATOMIC_CAS: u32 = 4;
    /// S2.5+ `PackedAtomicAdd`: packed 64-bit atomic, one `atom.add.u64`.
    pub const PACKED_ATOMIC_ADD: u32 = 5;
    /// S3 `Po2Buckets`: power-of-two buckets (both pass-2 forms).
    pub const PO2_BUCKETS: u32 = 6;
    /// S2.5f `ScanFused`: tile sums and a plan of units, then a per-unit tile scan and walk.
    pub const SCAN_FUSED: u32 = 7;
}

/// [`Control::flags`] bit: the destination items exceed the capacity (or the 32-bit sum).
pub const FLAG_CAPACITY: u32 = 1;
/// [`Control::flags`] bit: a source asked for more than `max_n` items (S0 only).
pub const FLAG_MAX_N: u32 = 2;

/// Buckets of S3: one per bit of a `u32` count.
pub const BUCKETS: usize = 32;

/// Threads per block of every expansion kernel but S2.5f's pass 2 (and of a user's pass-2
/// kernel).
pub const THREADS: u32 = 256;
/// Sources per thread of a pass-1 push (`ceil(p1 / (PUSH_ITEMS · THREADS))` blocks).
pub const PUSH_ITEMS: usize = 8;
/// Destination items a warp produces per step of a pass-2 driver: two per lane, so that a
/// lane's pair of 8-byte outputs is one 16-byte store.
pub const PASS2_STEP: u32 = 2 * WARP_SIZE;
/// Slots of S0 each thread tests per step of its materializing pass 2.
pub const MAXN_ITEMS: usize = 4;

/// Counters the passes share, in device memory. Zero it before pass 1 (S2.5f's pass 1 leaves
/// it ready for the next).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct Control {
    /// Exact number of destination items (pass 1 of every strategy but S0 adds to it).
    pub total: u64,
    /// S2.5+: `(records << 32) | running sum` ([`Control::packed_records`]). S2.5f: pass 1's
    /// launch word (which of each block's two look-back words the next pass 1 uses, and how many
    /// blocks the last one had).
    pub packed: u64,
    /// S1: item slots taken; S2: records taken; S0: pairs emitted; S2.5f: units claimed.
    pub counter: u32,
    /// [`FLAG_CAPACITY`] | [`FLAG_MAX_N`].
    pub flags: u32,
    /// Unused (zero; S2.5's scan needs no tile counter).
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

impl Control {
    /// S2.5+: the records pass 1 wrote (the high half of [`Control::packed`]).
    #[inline(always)]
    pub fn packed_records(&self) -> u32 {
        (self.packed >> 32) as u32
    }

    /// S2.5+: the running sum of the counts (the low half of [`Control::packed`]).
    #[inline(always)]
    pub fn packed_sum(&self) -> u32 {
        self.packed as u32
    }

    /// S3: the destination items the buckets hold, `Σ buckets[b] · 2^b` (exact).
    #[inline(always)]
    pub fn bucket_items(&self) -> u64 {
        let mut t = 0u64;
        for b in 0..BUCKETS {
            t += (self.buckets[b] as u64) << b;
        }
        t
    }
}

/// Everything pass 1 and pass 2 need, passed to every expansion kernel (and to a user's pass-2
/// kernel) as its first parameter, `*const ExpandView`. Written by the host: the addresses are
/// device addresses (`u64`, so that the host can build it as plain data); kernels read them as
/// pointers through the accessors ([`ExpandView::counts`] …).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct ExpandView {
    /// `counts[i]`: destination items of source `i`, `p1` of them (`u32`).
    pub counts: u64,
    /// The [`Control`] block.
    pub ctrl: u64,
    /// S2.5: exclusive prefix per source (`p1` `u32`s, or `u64`s when [`ExpandView::wide`]);
    /// S2.5+: exclusive prefix per record (`p1` `u32`s).
    pub offsets: u64,
    /// S2.5+: source of each record. `p1` `u32`s. S2.5f: the tiles' lists for pass 2
    /// (`fused::FUSED_LIST_WORDS` `u32`s per tile).
    pub srcs: u64,
    /// `[u32; 2]` records. S1: `(src, local)` per item (`capacity`); S2: `(src, count)` per
    /// record (`p1`); S3: `(src, first local)` per bucket record (bucket `b` at
    /// `bucket_base[b]`); S2.5f: `(first item, first unit)` and a list flag per tile, plus one
    /// end record (`tiles + 1`, two `[u32; 2]` each: `fused::FUSED_RECORD_SLOTS`).
    pub records: u64,
    /// S2.5: the tile states of its scan (`device::lookback::TileStates` of the offset width,
    /// one per scan tile). S2.5f: pass 1's look-back words (two `u64`s per pass-1 block).
    pub scan_status: u64,
    /// Unused (zero): kept so that the fields after it keep their offsets.
    pub scan_aggregate: u64,
    /// Unused (zero): as `scan_aggregate`.
    pub scan_inclusive: u64,
    /// Source items.
    pub p1: u32,
    /// Most destination items allowed, saturated at `u32::MAX` (see `wide_capacity`).
    pub capacity: u32,
    /// S0's `max_n`.
    pub max_n: u32,
    /// One of [`strategy`].
    pub strategy: u32,
    /// S3: first record of each bucket in `records`.
    pub bucket_base: [u32; BUCKETS],
    /// S3: records each bucket holds (`min(p1, capacity >> b)`).
    pub bucket_cap: [u32; BUCKETS],
    /// Bytes per destination index, S2.5 prefix and S2.5f plan-record item: 4, or 8 for S2.5
    /// and S2.5f with a capacity of 2^32 or more ([`ExpandView::wide`]; the host decides when it
    /// builds the expander). Placed last, so that the 32-bit kernels see the layout they always
    /// had.
    pub offset_bytes: u32,
    /// Padding (keeps the size a multiple of 8).
    pub pad: u32,
    /// The capacity in full. `capacity` holds it saturated at `u32::MAX`, which is what the
    /// 32-bit strategies compare against (they refuse a capacity past it).
    pub wide_capacity: u64,
}

impl ExpandView {
    /// [`ExpandView::counts`] as a pointer.
    #[inline(always)]
    pub fn counts(&self) -> *const u32 {
        self.counts as *const u32
    }
    /// [`ExpandView::ctrl`] as a pointer.
    #[inline(always)]
    pub fn ctrl(&self) -> *mut Control {
        self.ctrl as *mut Control
    }
    /// [`ExpandView::offsets`] as a pointer.
    #[inline(always)]
    pub fn offsets(&self) -> *mut u32 {
        self.offsets as *mut u32
    }
    /// [`ExpandView::srcs`] as a pointer.
    #[inline(always)]
    pub fn srcs(&self) -> *mut u32 {
        self.srcs as *mut u32
    }
    /// [`ExpandView::records`] as a pointer.
    #[inline(always)]
    pub fn records(&self) -> *mut [u32; 2] {
        self.records as *mut [u32; 2]
    }
    /// [`ExpandView::scan_status`] as a pointer.
    #[inline(always)]
    pub fn scan_status(&self) -> *mut u32 {
        self.scan_status as *mut u32
    }
    /// Destination indices, S2.5's prefixes and S2.5f's plan records are 64-bit
    /// ([`ExpandView::offset_bytes`] is 8).
    #[inline(always)]
    pub fn wide(&self) -> bool {
        self.offset_bytes == 8
    }
}

/// Destination items of a finished pass 1, as pass 2 covers them: 0 when a flag is set (so a
/// pass 2 after an overflow does nothing and reads nothing out of bounds); for S0 the slot
/// count `p1·max_n` (saturated at `u32::MAX`: S0's own loops count slots in 64 bits); for S2.5+ the packed sum; otherwise
/// the total (S3: of the buckets), at most the capacity.
#[inline(always)]
pub fn dst_count(c: &Control, v: &ExpandView) -> u32 {
    if c.flags != 0 {
        return 0;
    }
    match v.strategy {
        strategy::MAX_N => (v.p1 as u64 * v.max_n as u64).min(u32::MAX as u64) as u32,
        strategy::PO2_BUCKETS => c.bucket_items().min(v.capacity as u64) as u32,
        strategy::PACKED_ATOMIC_CAS | strategy::PACKED_ATOMIC_ADD => c.packed_sum(),
        _ => c.total.min(v.capacity as u64) as u32,
    }
}

/// [`dst_count`] in 64 bits: the destination items of a view with 8-byte offsets
/// ([`ExpandView::wide`]), the total at most the full capacity (0 when a flag is set); for every
/// other view the same as [`dst_count`].
#[inline(always)]
pub fn dst_count_wide(c: &Control, v: &ExpandView) -> u64 {
    if !v.wide() {
        return dst_count(c, v) as u64;
    }
    if c.flags != 0 {
        return 0;
    }
    c.total.min(v.wide_capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_stable() {
        // The host uploads these as bytes and the kernels read them as structs: sizes multiple
        // of 8, no padding the compiler could add differently.
        assert_eq!(core::mem::size_of::<Control>(), 8 + 8 + 6 * 4 + 4 * BUCKETS);
        assert_eq!(core::mem::size_of::<ExpandView>(), 8 * 8 + 4 * 4 + 2 * 4 * BUCKETS + 2 * 4 + 8);
        assert_eq!(core::mem::offset_of!(Control, counter), 16);
        assert_eq!(core::mem::offset_of!(ExpandView, p1), 64);
        // The wide fields come last: the 32-bit kernels' field offsets are those of before.
        assert_eq!(core::mem::offset_of!(ExpandView, offset_bytes), 8 * 8 + 4 * 4 + 2 * 4 * BUCKETS);
    }

    #[test]
    fn dst_count_wide_goes_past_u32() {
        let wide = ExpandView {
            strategy: strategy::SCAN_BINARY_SEARCH,
            capacity: u32::MAX,
            wide_capacity: 1 << 36,
            offset_bytes: 8,
            ..ExpandView::default()
        };
        let mut c = Control { total: (1 << 32) + 7, ..Control::default() };
        assert!(wide.wide());
        assert_eq!(dst_count_wide(&c, &wide), (1 << 32) + 7);
        c.total = 1 << 40;
        assert_eq!(dst_count_wide(&c, &wide), 1 << 36, "capped at the full capacity");
        c.flags = FLAG_CAPACITY;
        assert_eq!(dst_count_wide(&c, &wide), 0);
        // A 32-bit view: the 32-bit count.
        let narrow = ExpandView { offset_bytes: 4, ..wide };
        let c = Control { total: 100, ..Control::default() };
        assert!(!narrow.wide());
        assert_eq!(dst_count_wide(&c, &narrow), 100);
    }

    #[test]
    fn strategy_codes_are_distinct() {
        use strategy::*;
        let mut codes = [
            MAX_N,
            APPEND_PER_ITEM,
            LINEAR_SEARCH,
            SCAN_BINARY_SEARCH,
            PACKED_ATOMIC_CAS,
            PACKED_ATOMIC_ADD,
            PO2_BUCKETS,
            SCAN_FUSED,
        ];
        codes.sort_unstable();
        assert!(codes.windows(2).all(|w| w[0] != w[1]));
    }

    #[test]
    fn dst_count_per_strategy() {
        let view = |strategy| ExpandView { strategy, p1: 10, capacity: 100, max_n: 7, ..ExpandView::default() };
        let mut c = Control { total: 150, packed: (3 << 32) | 42, ..Control::default() };
        c.buckets[0] = 3;
        c.buckets[4] = 2;
        assert_eq!(dst_count(&c, &view(strategy::MAX_N)), 70);
        assert_eq!(dst_count(&c, &view(strategy::PACKED_ATOMIC_ADD)), 42);
        assert_eq!(c.packed_records(), 3);
        assert_eq!(c.bucket_items(), 3 + 32);
        assert_eq!(dst_count(&c, &view(strategy::PO2_BUCKETS)), 35);
        assert_eq!(dst_count(&c, &view(strategy::SCAN_BINARY_SEARCH)), 100, "capped at the capacity");
        c.flags = FLAG_CAPACITY;
        for s in 0..8 {
            assert_eq!(dst_count(&c, &view(s)), 0, "strategy {s} after an overflow");
        }
    }
}
