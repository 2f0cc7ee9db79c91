//! Planning an expander's device memory: which buffers a strategy needs, how large, and what a
//! reset clears.

use super::facts::Facts;
use super::{Control, ExpandView, Strategy};
use crate::{Error, Result};
use warpwork_abi::expand::fused::{FUSED_ONCE_SUMS_AT, FUSED_ONCE_TILES, FUSED_TILE, FUSED_WIDE_RECORD_SLOTS};
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
    /// A plan record per tile and two 64-bit look-back words per pass-1 block (S2.5f).
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

/// The sizes of one expander's buffers, in elements, for up to `p1` sources and `capacity`
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
                Layout { offsets: offset_bytes as usize / 4 * p1, lookback_words: states, ..none }
            }
            Workspace::Packed => Layout { offsets: p1, srcs: p1, ..none },
            Workspace::Buckets => Layout { records: bucket_layout(p1, capacity).0, ..none },
            Workspace::Fused => {
                // `warpwork_abi::expand::fused::fused_tiles` for any `usize`, two `u64` look-back
                // words per pass-1 block; 64-bit plan records take two `[u32; 2]` slots.
                // The one launch (32-bit offsets only) takes a count of summed tiles on a line
                // of its own, then a `u64` sum per tile, up to its largest input.
                let tiles = p1.div_ceil(FUSED_TILE as usize);
                let words = 4 * push_blocks;
                let (slots, sums) = match offset_bytes {
                    8 => (FUSED_WIDE_RECORD_SLOTS, 0),
                    _ => (1, 2 * (FUSED_ONCE_SUMS_AT + tiles.min(FUSED_ONCE_TILES as usize))),
                };
                Layout { records: slots * (tiles + 1), lookback_words: words + sums, sums_at: words, ..none }
            }
        }
    }

    /// Device bytes of the workspace, the control block and the view included.
    pub(super) fn bytes(&self) -> usize {
        4 * STATES_AT
            + std::mem::size_of::<ExpandView>()
            + 4 * (self.offsets + self.srcs + self.lookback_words)
            + 8 * self.records
    }
}

/// Device memory each strategy needs besides the counts and the output, in bytes, for `p1`
/// sources and `capacity` destination items (the "workspace" column of
/// [the expansion notes](crate::guide::expand#strategies-and-their-memory-cost));
/// for [`Strategy::Auto`], that of the strategy it resolves to for `p1`.
///
/// ```
/// use warpwork::expand::{workspace_bytes, Strategy};
/// let (p1, capacity) = (1 << 20, 1 << 24);
/// // S1 keeps one 8-byte record per destination item, S2.5 a prefix per source.
/// assert!(workspace_bytes(Strategy::AppendPerItem, p1, capacity) > 8 * capacity);
/// assert!(workspace_bytes(Strategy::ScanBinarySearch, p1, capacity) < 8 * p1);
/// ```
pub fn workspace_bytes(strategy: Strategy, p1: usize, capacity: usize) -> usize {
    let strategy = strategy.resolve(p1, capacity);
    // A capacity the strategy refuses is sized as its 32-bit layout (`Gpu::expander` refuses it).
    let offset_bytes = offset_bytes(strategy, capacity).unwrap_or(4);
    Layout::new(strategy.facts(), p1, capacity, offset_bytes).bytes()
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

/// `u32` words of the [`Control`] block at the front of an expander's state buffer.
pub(super) const CTRL_WORDS: usize = std::mem::size_of::<Control>() / 4;
/// Where the look-back words start in the state buffer, in `u32` words: after the control
/// block, at a 16-byte boundary (the pair layout of 8-byte tile states loads 16 bytes at once).
pub(super) const STATES_AT: usize = CTRL_WORDS.next_multiple_of(4);
const _: () = assert!(STATES_AT >= CTRL_WORDS && STATES_AT.is_multiple_of(4));

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
        let base = workspace_bytes(Strategy::MaxN { max_n: 32 }, p1, cap);
        assert_eq!(base, 4 * STATES_AT + std::mem::size_of::<ExpandView>());
        assert_eq!(workspace_bytes(Strategy::AppendPerItem, p1, cap) - base, cap * 8);
        assert_eq!(workspace_bytes(Strategy::LinearSearch, p1, cap) - base, p1 * 8);
        assert_eq!(workspace_bytes(Strategy::PackedAtomicAdd, p1, cap) - base, p1 * 8);
        // S2.5: a prefix per source, one 8-byte tile state per tile of 4096.
        assert_eq!(workspace_bytes(Strategy::ScanBinarySearch, p1, cap) - base, p1 * 4 + (p1 / 4096) * 8);
        // Past u32::MAX destination items: 8-byte prefixes, 16-byte tile states.
        let wide = workspace_bytes(Strategy::ScanBinarySearch, p1, 1 << 36) - base;
        assert_eq!(wide, p1 * 8 + (p1 / 4096) * 16);
        // S2.5f: a plan record per tile of 2048 and the end record, 16 bytes per pass-1 block,
        // and the one launch's count and sums (a u64 per tile, up to its 128 tiles).
        let fused = (p1 / 2048 + 1) * 8 + (p1 / 8192) * 16 + (16 + 128) * 8;
        assert_eq!(workspace_bytes(Strategy::ScanFused, p1, cap) - base, fused);
        // Past u32::MAX: 16-byte plan records.
        let wide = workspace_bytes(Strategy::ScanFused, p1, 1 << 36) - base;
        assert_eq!(wide, (p1 / 2048 + 1) * 16 + (p1 / 8192) * 16);
        assert!(workspace_bytes(Strategy::Po2Buckets, p1, cap) > workspace_bytes(Strategy::ScanBinarySearch, p1, cap));
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
        assert_eq!((fused.records, fused.lookback_words, fused.sums_at), (5 + 1, 8 + 32 + 10, 8));
        let fused_wide = Layout::new(s25f, 10_000, 0, 8);
        assert_eq!((fused_wide.records, fused_wide.lookback_words), (2 * (5 + 1), 8));
    }
}
