//! Planning an expander's device memory: which parts a strategy needs, how large, where each
//! lies in the one workspace buffer, and what a reset clears.

use super::facts::Facts;
use super::{Control, ExpandView, Strategy};
use crate::{Error, Result};
use std::ops::Range;
use warpwork_abi::expand::fused::{
    FUSED_LIST_WORDS, FUSED_ONCE_SUMS_AT, FUSED_ONCE_TILES, FUSED_RECORD_SLOTS, FUSED_TILE,
};
use warpwork_abi::expand::BUCKETS;
use warpwork_abi::scan::tile_state_words;

/// The kinds of workspace the strategies need besides the counts and the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Workspace {
    /// Nothing (S0).
    None,
    /// One record per destination item (S1).
    RecordPerItem,
    /// One record per source (S2).
    RecordPerSource,
    /// A prefix per source and the look-back state per scan tile (S2.5).
    Scan,
    /// A prefix and a source per record (S2.5+).
    Packed,
    /// Records in power-of-two buckets (S3).
    Buckets,
    /// A plan record and a list per tile, two 64-bit look-back words per pass-1 block (S2.5f).
    Fused,
}

/// Bytes per offset (destination indices, S2.5's prefixes, S2.5f's plan records) for
/// `capacity` destination items: 4 up to `u32::MAX`; past it 8 for the strategies with 64-bit
/// kernels (S2.5, and S2.5f up to its largest capacity), and for the others
/// [`Error::CapacityExceeded`].
pub(super) fn offset_bytes(strategy: Strategy, capacity: usize) -> Result<u32> {
    if capacity <= u32::MAX as usize {
        return Ok(4);
    }
    match strategy.facts().wide {
        Some(w) if capacity as u64 <= w.max_capacity => Ok(8),
        Some(w) => Err(Error::CapacityExceeded {
            what: "expand capacity (the strategy's 64-bit plan)",
            needed: capacity as u64,
            capacity: w.max_capacity,
        }),
        None => Err(Error::CapacityExceeded {
            what: "expand capacity (u32 destination indices: only ScanBinarySearch and ScanFused go past them)",
            needed: capacity as u64,
            capacity: u32::MAX as u64,
        }),
    }
}

/// The sizes of one expander's parts, in elements, for up to `p1` sources and `capacity`
/// destination items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// `u32` words of prefixes (S2.5: one `u32` or `u64` per source; S2.5+: a `u32` per record).
    pub offsets: usize,
    /// `u32` sources per record (S2.5+).
    pub srcs: usize,
    /// `[u32; 2]` records.
    pub records: usize,
    /// `u32` words from [`STATES_AT`] on: S2.5's tile states, or S2.5f's look-back words and
    /// then its one launch's tile sums (every word holds a status, so a reset clears them all
    /// with the control block).
    pub lookback_words: usize,
    /// S2.5f: where its one launch's tile sums (a `u64` per tile) start, in `u32` words from the
    /// look-back words' start (the view's `offsets` points there).
    pub sums_at: usize,
}

impl Layout {
    /// The layout of `facts`' workspace; `offset_bytes` is [`offset_bytes`]'s choice (4 or 8).
    pub(super) fn new(facts: &Facts, p1: usize, capacity: usize, offset_bytes: u32) -> Layout {
        let none = Layout { offsets: 0, srcs: 0, records: 0, lookback_words: 0, sums_at: 0 };
        // Pass 1's blocks, as it is launched: S2.5's scan tiles, S2.5f's look-back pairs.
        let push_blocks = facts.push.map_or(0, |push| push.blocks(p1));
        match facts.workspace {
            Workspace::None => none,
            Workspace::RecordPerItem => Layout { records: capacity, ..none },
            Workspace::RecordPerSource => Layout { records: p1, ..none },
            Workspace::Scan => {
                // The kernels' tile states of the offset width, one tile per pass-1 block.
                let states = tile_state_words(offset_bytes as usize, push_blocks);
                Layout { offsets: (offset_bytes as usize / 4).saturating_mul(p1), lookback_words: states, ..none }
            }
            Workspace::Packed => Layout { offsets: p1, srcs: p1, ..none },
            Workspace::Buckets => Layout { records: bucket_layout(p1, capacity).0, ..none },
            Workspace::Fused => {
                // `warpwork_abi::expand::fused::fused_tiles` for any `usize`, two `u64` look-back
                // words per pass-1 block; plan records take two `[u32; 2]` slots.
                // The one launch (32-bit offsets only) takes a count of summed tiles on a line
                // of its own, then a `u64` sum per tile, up to its largest input.
                let tiles = p1.div_ceil(FUSED_TILE as usize);
                let words = 4 * push_blocks;
                let sums =
                    if offset_bytes == 8 { 0 } else { 2 * (FUSED_ONCE_SUMS_AT + tiles.min(FUSED_ONCE_TILES as usize)) };
                // And each tile's list for pass 2 (where pass 1 lists the tile's non-empty sources).
                let (records, srcs) = (FUSED_RECORD_SLOTS * (tiles + 1), tiles.saturating_mul(FUSED_LIST_WORDS));
                Layout { records, srcs, lookback_words: words + sums, sums_at: words, ..none }
            }
        }
    }

    /// Where the parts lie in the workspace buffer, or `None` when its bytes overflow `usize`
    /// (only for sizes [`Gpu::expander`](crate::Gpu::expander) refuses).
    pub(super) fn parts(&self) -> Option<Parts> {
        let mut at = 0usize;
        let mut place = |bytes: Option<usize>| -> Option<Range<usize>> {
            let start = at.checked_next_multiple_of(PART_START)?;
            at = start.checked_add(bytes?.max(1).checked_next_multiple_of(PART_ALIGN)?)?;
            Some(start..at)
        };
        let state = place(STATES_AT.checked_add(self.lookback_words).and_then(|w| w.checked_mul(4)))?;
        let view = place(Some(std::mem::size_of::<ExpandView>()))?;
        let offsets = place(self.offsets.checked_mul(4))?;
        let srcs = place(self.srcs.checked_mul(4))?;
        let records = place(self.records.checked_mul(8))?;
        Some(Parts { state, view, offsets, srcs, records })
    }
}

/// The alignment the kernels need of every part of the workspace, in bytes: their widest
/// accesses are 16-byte vector loads (two S1 records at once, the pair layout of 8-byte tile
/// states). The buffer must start at a multiple of it, and each part's length is rounded up to
/// it.
pub(super) const PART_ALIGN: usize = 16;

/// Where each part starts, in bytes from the buffer's start: at a multiple of 256, as the driver
/// aligns allocations, so that a part lies as a buffer of its own would (a warp's run of
/// records covers whole 32-byte sectors and 128-byte lines, as when the kernels were measured).
pub(super) const PART_START: usize = 256;
const _: () = assert!(PART_START.is_multiple_of(PART_ALIGN));

/// Where the parts of one expander's workspace lie in its one buffer of `u64`s, as byte ranges
/// from its start: in this order, none overlapping, each starting at a multiple of
/// [`PART_START`] bytes and at least [`PART_ALIGN`] long, so that every address in the view
/// points inside the buffer (also that of a part the strategy does not use). The kernels see
/// only the view's addresses: to them the parts are separate buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Parts {
    /// The [`Control`] block, then the look-back words from [`STATES_AT`] on: everything a
    /// reset zeroes, in one memset.
    pub state: Range<usize>,
    /// The [`ExpandView`] the kernels receive.
    pub view: Range<usize>,
    /// `u32` prefixes ([`Layout::offsets`]).
    pub offsets: Range<usize>,
    /// `u32` sources ([`Layout::srcs`]).
    pub srcs: Range<usize>,
    /// `[u32; 2]` records ([`Layout::records`]).
    pub records: Range<usize>,
}

impl Parts {
    /// The buffer's length in `u64` elements (every part ends at a multiple of [`PART_ALIGN`]
    /// bytes).
    pub(super) fn len(&self) -> usize {
        self.records.end / 8
    }

    /// The state's 32-bit words, as `Gpu::zero_words` takes them.
    pub(super) fn state_words(&self) -> Range<usize> {
        self.state.start / 4..self.state.end / 4
    }

    /// The 32-bit word of the view's field at byte `offset` (`std::mem::offset_of!`), as
    /// `Gpu::set_words` takes it.
    pub(super) fn view_word(&self, offset: usize) -> usize {
        (self.view.start + offset) / 4
    }

    /// The view's `u64` elements, for its upload.
    pub(super) fn view_elements(&self) -> Range<usize> {
        self.view.start / 8..self.view.start / 8 + std::mem::size_of::<ExpandView>() / 8
    }
}

/// `u64` elements of the workspace buffer an expander takes for up to `p1` sources and
/// `capacity` destination items with `strategy` ([`Gpu::expander_in`](crate::Gpu::expander_in);
/// [`Gpu::expander`](crate::Gpu::expander) allocates it): everything the expander keeps on the
/// device besides the counts and the output — the control block, the descriptor its kernels
/// receive, and the strategy's records, prefixes and look-back words (the "workspace" column of
/// [the expansion notes](crate::guide::expand#strategies-and-their-memory-cost)). For
/// [`Strategy::Auto`], that of the strategy it resolves to for `p1` and `capacity`.
/// `usize::MAX` where the size overflows `usize` (only for sizes the expander refuses).
///
/// ```
/// use warpwork::expand::{workspace_len, Strategy};
/// let (p1, capacity) = (1 << 20, 1 << 24);
/// // S1 keeps one 8-byte record (one u64) per destination item, S2.5 a 4-byte prefix per source.
/// assert!(workspace_len(Strategy::AppendPerItem, p1, capacity) > capacity);
/// assert!(workspace_len(Strategy::ScanBinarySearch, p1, capacity) < p1);
/// ```
pub fn workspace_len(strategy: Strategy, p1: usize, capacity: usize) -> usize {
    let strategy = strategy.resolve(p1, capacity);
    // A capacity the strategy refuses is sized as its 32-bit layout (the expander refuses it).
    let offset_bytes = offset_bytes(strategy, capacity).unwrap_or(4);
    Layout::new(strategy.facts(), p1, capacity, offset_bytes).parts().map_or(usize::MAX, |p| p.len())
}

/// (total records, base per bucket, capacity per bucket) of S3: bucket `b` holds at most
/// `min(p1, capacity >> b)` records.
/// The bases are `None` when a bucket would start past `u32::MAX` (the kernels index records
/// from a `u32` base): only for more than about 2^30 sources with a capacity near 2^32.
pub(super) fn bucket_layout(p1: usize, capacity: usize) -> (usize, Option<[u32; BUCKETS]>, [u32; BUCKETS]) {
    let (mut base, mut cap) = ([0u32; BUCKETS], [0u32; BUCKETS]);
    let mut at = 0usize;
    let mut fits = true;
    for b in 0..BUCKETS {
        fits &= u32::try_from(at).is_ok();
        base[b] = at as u32;
        // `p1 <= u32::MAX` (`Gpu::expander`), so each bucket's count fits.
        cap[b] = p1.min(capacity >> b) as u32;
        at += cap[b] as usize;
    }
    (at, fits.then_some(base), cap)
}

/// `u32` words of the [`Control`] block at the front of an expander's workspace.
pub(super) const CTRL_WORDS: usize = std::mem::size_of::<Control>() / 4;
/// Where the look-back words start in the workspace, in `u32` words: after the control block,
/// at a 16-byte boundary (the pair layout of 8-byte tile states loads 16 bytes at once).
pub(super) const STATES_AT: usize = CTRL_WORDS.next_multiple_of(4);
const _: () = assert!(STATES_AT >= CTRL_WORDS && STATES_AT.is_multiple_of(4));
// The control block is read back, and the view uploaded, as whole `u64`s.
const _: () = assert!(CTRL_WORDS.is_multiple_of(2) && std::mem::size_of::<ExpandView>().is_multiple_of(8));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_layout_bounds_each_bucket_by_sources_and_capacity() {
        let (total, base, cap) = bucket_layout(1000, 1 << 12);
        assert_eq!(cap[0], 1000);
        assert_eq!(cap[3], 512);
        assert_eq!(cap[12], 1);
        assert_eq!(cap[13], 0);
        assert_eq!(base.unwrap()[1], 1000);
        assert_eq!(total, cap.iter().map(|&c| c as usize).sum::<usize>());
        assert_eq!(bucket_layout(0, 0).0, 0);
    }

    #[test]
    fn bucket_layout_at_the_u32_capacity() {
        let max = u32::MAX as usize;
        // A few sources: every bucket's base fits.
        let (total, base, cap) = bucket_layout(1000, max);
        assert!(base.is_some() && total < max);
        assert_eq!(cap[31], 1);
        // 2^31 sources at capacity u32::MAX: bucket 3 would start at 2^31 + (2^31 - 1) + (2^30 - 1) > 2^32.
        let (_, base, _) = bucket_layout(1 << 31, max);
        assert!(base.is_none(), "a base past u32::MAX must be refused, not truncated");
    }

    #[test]
    fn workspace_grows_as_documented() {
        let (p1, cap) = (1 << 20, 1 << 25);
        let parts = |s: Strategy, cap: usize| {
            let r = s.resolve(p1, cap);
            Layout::new(r.facts(), p1, cap, offset_bytes(r, cap).unwrap()).parts().unwrap()
        };
        // MaxN keeps the control block and the view only; each unused part is 16 bytes.
        let maxn = parts(Strategy::MaxN { max_n: 32 }, cap);
        let (ctrl, view) = (4 * STATES_AT, std::mem::size_of::<ExpandView>());
        assert_eq!((maxn.state.len(), maxn.view.len()), (ctrl, view.next_multiple_of(PART_ALIGN)));
        assert_eq!([maxn.offsets.len(), maxn.srcs.len(), maxn.records.len()], [PART_ALIGN; 3]);
        // What the strategies add, part by part (the "workspace" column of the notes).
        assert_eq!(parts(Strategy::AppendPerItem, cap).records.len(), cap * 8);
        assert_eq!(parts(Strategy::LinearSearch, cap).records.len(), p1 * 8);
        let packed = parts(Strategy::PackedAtomicAdd, cap);
        assert_eq!((packed.offsets.len(), packed.srcs.len()), (p1 * 4, p1 * 4));
        // S2.5: a prefix per source, one 8-byte tile state per tile of 4096.
        let scan = parts(Strategy::ScanBinarySearch, cap);
        assert_eq!((scan.offsets.len(), scan.state.len() - ctrl), (p1 * 4, (p1 / 4096) * 8));
        // Past u32::MAX destination items: 8-byte prefixes, 16-byte tile states.
        let scan = parts(Strategy::ScanBinarySearch, 1 << 36);
        assert_eq!((scan.offsets.len(), scan.state.len() - ctrl), (p1 * 8, (p1 / 4096) * 16));
        // S2.5f: a 16-byte plan record per tile of 2048 and the end record, 16 bytes per
        // pass-1 block, the one launch's count and sums (a u64 per tile, up to its 128 tiles),
        // and a list of 2176 bytes per tile.
        let fused = parts(Strategy::ScanFused, cap);
        let state = (p1 / 8192) * 16 + (16 + 128) * 8;
        assert_eq!((fused.records.len(), fused.state.len() - ctrl), ((p1 / 2048 + 1) * 16, state));
        assert_eq!(fused.srcs.len(), p1 / 2048 * 2176);
        // Past u32::MAX: the same plan records, no one launch.
        let fused = parts(Strategy::ScanFused, 1 << 36);
        assert_eq!((fused.records.len(), fused.state.len() - ctrl), ((p1 / 2048 + 1) * 16, (p1 / 8192) * 16));
        assert!(parts(Strategy::Po2Buckets, cap).records.len() > parts(Strategy::ScanBinarySearch, cap).offsets.len());
        // The buffer: the parts, and at most one placement's padding before each.
        for s in Strategy::UNBOUNDED.into_iter().chain([Strategy::MaxN { max_n: 32 }, Strategy::AUTO]) {
            let p = parts(s, cap);
            let sum = p.state.len() + p.view.len() + p.offsets.len() + p.srcs.len() + p.records.len();
            let len = workspace_len(s, p1, cap);
            assert!(8 * len >= sum && 8 * len <= sum + 4 * PART_START, "{s:?}: {len} u64s for {sum} bytes");
        }
        // Auto is sized as what it resolves to.
        let auto = Strategy::AUTO.resolve(p1, cap);
        assert_eq!(workspace_len(Strategy::AUTO, p1, cap), workspace_len(auto, p1, cap));
    }

    #[test]
    fn parts_are_aligned_apart_and_inside_the_buffer() {
        let max = u32::MAX as usize;
        let fused_max = warpwork_abi::expand::fused::FUSED_MAX_CAPACITY as usize;
        let strategies = Strategy::UNBOUNDED.into_iter().chain([
            Strategy::MaxN { max_n: 1 },
            Strategy::MaxN { max_n: 32 },
            Strategy::AUTO,
            Strategy::Auto { max_n: Some(4), own_pass2: false },
        ]);
        for s in strategies {
            for p1 in [0usize, 1, 31, 33, 4095, 4097, 8193, 100_003, 1 << 22, max] {
                for cap in [0usize, 1, 1000, 1 << 24, max, max + 1, 1 << 36, fused_max, fused_max + 1] {
                    let r = s.resolve(p1, cap);
                    let what = format!("{s:?} (→ {}) p1 = {p1}, capacity = {cap}", r.name());
                    let offset_bytes = offset_bytes(r, cap).unwrap_or(4);
                    let layout = Layout::new(r.facts(), p1, cap, offset_bytes);
                    let parts = layout.parts().unwrap_or_else(|| panic!("{what}: no parts"));
                    let len = workspace_len(s, p1, cap);
                    assert_eq!(parts.len(), len, "{what}");
                    let needed = [
                        4 * (STATES_AT + layout.lookback_words),
                        std::mem::size_of::<ExpandView>(),
                        4 * layout.offsets,
                        4 * layout.srcs,
                        8 * layout.records,
                    ];
                    let ranges = [&parts.state, &parts.view, &parts.offsets, &parts.srcs, &parts.records];
                    let mut end = 0;
                    for (part, needed) in ranges.into_iter().zip(needed) {
                        assert!(part.start.is_multiple_of(PART_START), "{what}: {part:?} misaligned");
                        assert!(part.len().is_multiple_of(PART_ALIGN), "{what}: {part:?} not whole 16 bytes");
                        assert!(part.start >= end, "{what}: {part:?} overlaps the part before it (ends at {end})");
                        assert!(part.len() >= needed.max(1), "{what}: {part:?} is shorter than {needed} bytes");
                        end = part.end;
                    }
                    assert_eq!(parts.state.start, 0, "{what}: the control block comes first");
                    assert!(end <= 8 * len, "{what}: the parts end at {end}, past {len} u64s");
                    assert!(parts.state_words().end * 4 <= parts.view.start, "{what}");
                    let view = parts.view_elements();
                    assert!(8 * view.start >= parts.view.start && 8 * view.end <= parts.view.end, "{what}");
                    assert_eq!(parts.view_word(0) * 4, parts.view.start, "{what}");
                }
            }
        }
    }

    #[test]
    fn a_workspace_past_the_address_space_is_usize_max() {
        // Sizes every expander refuses, where the bytes overflow usize: no panic, no wrap.
        assert_eq!(workspace_len(Strategy::AppendPerItem, 1, usize::MAX), usize::MAX);
        assert_eq!(workspace_len(Strategy::ScanBinarySearch, usize::MAX, 1 << 40), usize::MAX);
        assert_eq!(workspace_len(Strategy::LinearSearch, usize::MAX / 4, 1 << 20), usize::MAX);
    }

    #[test]
    fn offsets_widen_past_u32_only_where_the_strategy_can() {
        let max = u32::MAX as usize;
        for s in Strategy::UNBOUNDED.into_iter().chain([Strategy::MaxN { max_n: 4 }]) {
            assert_eq!(offset_bytes(s, max).unwrap(), 4, "{s:?} at u32::MAX");
            assert_eq!(offset_bytes(s, 0).unwrap(), 4);
            match (s, offset_bytes(s, max + 1)) {
                (Strategy::ScanBinarySearch | Strategy::ScanFused, r) => assert_eq!(r.unwrap(), 8),
                (_, Err(Error::CapacityExceeded { needed, capacity, .. })) => {
                    assert_eq!((needed, capacity), (max as u64 + 1, max as u64), "{s:?}")
                }
                (_, r) => panic!("{s:?} past u32::MAX: {r:?}"),
            }
        }
        assert_eq!(offset_bytes(Strategy::ScanBinarySearch, 1 << 40).unwrap(), 8);
        // S2.5f's unit numbers stay 32-bit: its capacity stops at 2^42.
        let fused_max = warpwork_abi::expand::fused::FUSED_MAX_CAPACITY as usize;
        assert_eq!(offset_bytes(Strategy::ScanFused, fused_max).unwrap(), 8);
        assert!(matches!(
            offset_bytes(Strategy::ScanFused, fused_max + 1),
            Err(Error::CapacityExceeded { capacity, .. }) if capacity == fused_max as u64
        ));
    }

    #[test]
    fn state_words_per_layout() {
        // 3 tiles: one packed u64 per tile for 4-byte offsets, a pair of u64s per tile for
        // 8-byte ones.
        let (s25, s25f) = (Strategy::ScanBinarySearch.facts(), Strategy::ScanFused.facts());
        let scan = Layout::new(s25, 10_000, 0, 4);
        assert_eq!((scan.offsets, scan.lookback_words), (10_000, 6));
        let wide = Layout::new(s25, 10_000, 0, 8);
        assert_eq!((wide.offsets, wide.lookback_words), (20_000, 12));
        // S2.5f, 5 tiles in 2 pass-1 blocks: two u64 look-back words per block, then (32-bit
        // offsets only) the one launch's count, on a 128-byte line, and a u64 sum per tile.
        let fused = Layout::new(s25f, 10_000, 0, 4);
        assert_eq!((fused.records, fused.lookback_words, fused.sums_at), (2 * (5 + 1), 8 + 32 + 10, 8));
        let fused_wide = Layout::new(s25f, 10_000, 0, 8);
        assert_eq!((fused_wide.records, fused_wide.lookback_words), (2 * (5 + 1), 8));
    }
}
