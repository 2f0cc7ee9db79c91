//! Select (keep the items that pass a test): block shape, the predicate codes and the
//! predicates themselves.

/// Threads per block of the select kernels.
pub const THREADS: u32 = 256;
/// Items per thread per tile of the unordered typed kernels for items of `size` bytes: enough
/// independent loads in flight to cover memory latency (16; 8 for 16-byte items, whose 16 would
/// take over 110 registers).
pub const fn select_items(size: usize) -> usize {
    if size >= 16 {
        8
    } else {
        16
    }
}

/// Items per thread of the generic path's kernels (`select_*_bytes`), unordered and ordered.
pub const BYTES_ITEMS: usize = 16;

/// The tile shapes of the ordered select's typed kernels (`select_ordered_{tile}_{type}`,
/// tiles named by `kernels::ORDERED_TILE_NAMES`): (warps per block, 16-byte chunks per thread)
/// for 2- to 16-byte items ([`ordered_tile`] gives 1-byte items theirs). A tile waits in shared
/// memory, not in registers, so that a block waiting for its look-back holds few. Chosen on an
/// H100 (2026-11-25) among the shapes timed side by side for 4-byte items (the "Tile shapes"
/// table of warpwork's design notes, `warpwork::guide::select`):
/// small inputs want few chunks per thread (latency: a thread's chunks are handled one after
/// the other), large ones tiles that many blocks keep resident (4 warps × 12 chunks, 24 KiB:
/// nine blocks per SM), and the medium ones between.
pub const ORDERED_TILES: [(u32, usize); 3] = [(8, 2), (8, 8), (4, 12)];

/// The largest input, in bytes, of each class of [`ORDERED_TILES`] but the last.
pub const ORDERED_CLASS_MAX_BYTES: [u64; 2] = [2 << 20, 128 << 20];

/// Which of [`ORDERED_TILES`] serves an ordered select of `n` items of `size` bytes (by the
/// input's bytes: up to 2 MiB, up to 128 MiB, more: [`ORDERED_CLASS_MAX_BYTES`]).
pub const fn ordered_tile_class(size: usize, n: u64) -> usize {
    let bytes = n.saturating_mul(size as u64);
    if bytes <= ORDERED_CLASS_MAX_BYTES[0] {
        0
    } else if bytes <= ORDERED_CLASS_MAX_BYTES[1] {
        1
    } else {
        2
    }
}

/// The shape of tile class `class` for items of `size` bytes: [`ORDERED_TILES`], with at most 8
/// chunks per thread for 1-byte items (a thread keeps one bit per item, 128 at most).
pub const fn ordered_tile(size: usize, class: usize) -> (u32, usize) {
    let (warps, chunks) = ORDERED_TILES[class];
    (warps, if size == 1 && chunks > 8 { 8 } else { chunks })
}

/// Items per tile of an ordered select of `n` items of `size` bytes: the host launches
/// `ceil(n / ordered_tile_items(size, n))` blocks of `32 · warps`.
pub const fn ordered_tile_items(size: usize, n: u64) -> u64 {
    let (warps, chunks) = ordered_tile(size, ordered_tile_class(size, n));
    (warps as usize * 32 * chunks * 16 / size) as u64
}

/// The classes of [`ORDERED_TILES`] the partition, unique and run kernels are built in: small
/// and large. (Each class of them adds about 1.4 MB to the compressed package, which crates.io
/// caps at 10 MB; inputs the ordered select gives medium tiles take one of these two.)
pub const FAMILY_TILE_CLASSES: [usize; 2] = [0, 2];

/// The largest input, in bytes, that the partition, unique and run kernels take in small tiles
/// ([`family_tile_class`]).
pub const FAMILY_SMALL_TILE_BYTES: u64 = 32 << 20;

/// Which of [`FAMILY_TILE_CLASSES`] (an index into it) serves `n` items of `size` bytes: small
/// tiles up to [`FAMILY_SMALL_TILE_BYTES`], large ones beyond. Measured on an H100 (2026-11-26)
/// for `u32` partitions and run-length encoding: at 2^20 items the large tiles left too few
/// blocks (171 of 4 warps for 132 SMs; 0.72× CUB) where the small ones run 512 (1.03×); at 2^24
/// the small ones' longer look-back chain costs 35% and the large ones win.
pub const fn family_tile_class(size: usize, n: u64) -> usize {
    if n.saturating_mul(size as u64) <= FAMILY_SMALL_TILE_BYTES {
        0
    } else {
        1
    }
}

/// Items per tile of a partition, unique or run launch over `n` items of `size` bytes.
pub const fn family_tile_items(size: usize, n: u64) -> u64 {
    let (warps, chunks) = ordered_tile(size, FAMILY_TILE_CLASSES[family_tile_class(size, n)]);
    (warps as usize * 32 * chunks * 16 / size) as u64
}

/// Which test decides whether an item is kept: the `op` parameter of the select kernels, with
/// the operands `a` and `b`.
pub mod op {
    /// `flags[i] != 0`.
    pub const FLAGGED: u32 = 0;
    /// `item < a`.
    pub const LESS: u32 = 1;
    /// `item >= a`.
    pub const GREATER_EQUAL: u32 = 2;
    /// `a <= item < b`.
    pub const IN_RANGE: u32 = 3;
    /// `item == a`.
    pub const EQUAL: u32 = 4;
    /// `item != 0`.
    pub const NON_ZERO: u32 = 5;
    /// The item's bytes differ from those of the item before it (the first item always passes):
    /// the unique kernels' test, which they set themselves (not a select kernel's `op`).
    pub const UNIQUE: u32 = 6;
}

/// What an order-preserving tile kernel (`device::select::select_ordered_tile`) does with a
/// tile: the kernel's `MODE` parameter.
pub mod mode {
    /// Writes the kept items, in order (select).
    pub const SELECT: u8 = 0;
    /// Writes the kept items in order from slot 0 and the rejected ones from the last slot
    /// down, in reverse input order (partition).
    pub const PARTITION: u8 = 1;
    /// Keeps each item whose bytes differ from the item before it (unique).
    pub const UNIQUE: u8 = 2;
    /// [`UNIQUE`]'s test, and also writes the length of each run (a run-length encoding, in
    /// one pass): a run's first item, at slot `k`, writes the length of run `k − 1`, its own
    /// index less that of the run before it; that one may lie in an earlier tile, so tiles
    /// carry the index of their last kept item in a second look-back.
    pub const RUNS: u8 = 3;

    /// Keeps the first and the last item of every run of two or more equal items (so the kept
    /// items alternate run start, run end): a start at slot `2k` writes offset `k`, an end at
    /// slot `2k + 1` length `k` (its index less the start's, plus one, carried as [`RUNS`]
    /// carries it). The non-trivial runs, in one pass.
    pub const BOUNDS: u8 = 4;

    /// [`UNIQUE`]'s test on keys, and also copies each kept key's value (unique by key).
    pub const BY_KEY: u8 = 5;

    /// Whether tiles of `mode` keep an item by comparing it with its neighbours.
    pub const fn by_neighbour(mode: u8) -> bool {
        mode == UNIQUE || mode == RUNS || mode == BOUNDS || mode == BY_KEY
    }

    /// Whether tiles of `mode` carry the index of the last kept item before them (a second
    /// look-back) to write run lengths.
    pub const fn carries_last(mode: u8) -> bool {
        mode == RUNS || mode == BOUNDS
    }
}

/// Evaluates value test `op` (see [`op`]; not [`op::FLAGGED`], which reads a flag instead) with
/// operands `a`, `b`. The comparisons are Rust's own (`PartialOrd`), so floats behave the same on
/// the GPU and the CPU: NaN is never less, greater, in range or equal, and is non-zero;
/// `-0.0 == 0.0`. An unknown code means "non-zero".
#[inline(always)]
pub fn test<T: PartialOrd + Default + Copy>(op: u32, v: T, a: T, b: T) -> bool {
    match op {
        op::LESS => v < a,
        op::GREATER_EQUAL => v >= a,
        op::IN_RANGE => a <= v && v < b,
        op::EQUAL => v == a,
        _ => v != T::default(),
    }
}

/// A value test on an integer type as one unsigned range check, prepared once per launch: item
/// `x` passes when `any` and `key(x) − lo ≤ last` (wrapping), `key(x)` being `x`'s bits with the
/// sign bit flipped for signed types (so that keys order as values do). It decides exactly as
/// [`test()`] does (checked for every code and edge operand by the tests below), in two or three
/// instructions and without a branch on the code per item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange<K> {
    /// The first key that passes.
    pub lo: K,
    /// How many keys after `lo` pass too.
    pub last: K,
    /// Whether any key passes.
    pub any: bool,
}

/// The integer item types of the value tests, with their [`KeyRange`] form.
pub trait RangeTest: Copy {
    /// The unsigned type of the same width.
    type Key: Copy;
    /// `x`'s key: its bits, the sign bit flipped for signed types.
    fn key(self) -> Self::Key;
    /// Test `op` with operands `a`, `b` as a range of keys.
    fn range(op: u32, a: Self, b: Self) -> KeyRange<Self::Key>;
    /// Whether `self` passes the test `r` stands for.
    fn passes(self, r: KeyRange<Self::Key>) -> bool;
}

macro_rules! range_test {
    ($($t:ty => $k:ty, $flip:expr;)*) => {$(
        impl RangeTest for $t {
            type Key = $k;
            #[inline(always)]
            fn key(self) -> $k {
                (self as $k) ^ $flip
            }
            #[inline(always)]
            fn range(op: u32, a: Self, b: Self) -> KeyRange<$k> {
                let (ka, kb, zero) = (a.key(), b.key(), (0 as $t).key());
                match op {
                    op::LESS => KeyRange { lo: 0, last: ka.wrapping_sub(1), any: ka > 0 },
                    op::GREATER_EQUAL => KeyRange { lo: ka, last: <$k>::MAX - ka, any: true },
                    op::IN_RANGE => KeyRange { lo: ka, last: kb.wrapping_sub(ka).wrapping_sub(1), any: kb > ka },
                    op::EQUAL => KeyRange { lo: ka, last: 0, any: true },
                    _ => KeyRange { lo: zero.wrapping_add(1), last: <$k>::MAX - 1, any: true },
                }
            }
            #[inline(always)]
            fn passes(self, r: KeyRange<$k>) -> bool {
                r.any & (self.key().wrapping_sub(r.lo) <= r.last)
            }
        }
    )*};
}

range_test! {
    u8 => u8, 0; i8 => u8, 0x80; u16 => u16, 0; i16 => u16, 0x8000;
    u32 => u32, 0; i32 => u32, 0x8000_0000; u64 => u64, 0; i64 => u64, 0x8000_0000_0000_0000;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_op_is_its_comparison() {
        assert!(test(op::LESS, 4u32, 5, 0) && !test(op::LESS, 5u32, 5, 0));
        assert!(test(op::GREATER_EQUAL, 5i32, 5, 0) && !test(op::GREATER_EQUAL, -6i32, 5, 0));
        assert!(test(op::IN_RANGE, 2u64, 2, 4) && test(op::IN_RANGE, 3u64, 2, 4) && !test(op::IN_RANGE, 4u64, 2, 4));
        assert!(!test(op::IN_RANGE, 1u64, 2, 4), "below the range");
        assert!(test(op::EQUAL, 7u32, 7, 9) && !test(op::EQUAL, 9u32, 7, 9));
        assert!(test(op::NON_ZERO, 1u32, 0, 0) && !test(op::NON_ZERO, 0u32, 0, 0));
    }

    /// Every code (an unknown one too) and every pair of operands of `i8` and `u8`, against
    /// every item: the range form decides as `test` does.
    #[test]
    fn range_tests_decide_as_test_does() {
        fn all<T: RangeTest + PartialOrd + Default + Copy + core::fmt::Debug>(values: &[T]) {
            for code in [op::LESS, op::GREATER_EQUAL, op::IN_RANGE, op::EQUAL, op::NON_ZERO, 77] {
                for &a in values {
                    for &b in values {
                        let r = T::range(code, a, b);
                        for &x in values {
                            assert_eq!(x.passes(r), test(code, x, a, b), "op {code} a {a:?} b {b:?} x {x:?}");
                        }
                    }
                }
            }
        }
        extern crate std;
        all(&(0..=255u8).collect::<std::vec::Vec<_>>());
        all(&(-128..=127i8).collect::<std::vec::Vec<_>>());
        // Wider types at their edges.
        all(&[i64::MIN, i64::MIN + 1, -2, -1, 0, 1, 2, i64::MAX - 1, i64::MAX]);
        all(&[0u64, 1, 2, u64::MAX / 2, u64::MAX - 1, u64::MAX]);
        all(&[i32::MIN, -1, 0, 1, i32::MAX]);
        all(&[0u32, 1, u32::MAX - 1, u32::MAX]);
        all(&[i16::MIN, -1, 0, 1, i16::MAX]);
        all(&[0u16, 1, u16::MAX]);
    }

    #[test]
    fn floats_compare_as_rust_does() {
        let nan = f32::NAN;
        for code in [op::LESS, op::GREATER_EQUAL, op::IN_RANGE, op::EQUAL] {
            assert!(!test(code, nan, f32::NEG_INFINITY, f32::INFINITY), "NaN fails op {code}");
        }
        assert!(test(op::NON_ZERO, nan, 0.0, 0.0), "NaN is non-zero");
        assert!(!test(op::NON_ZERO, -0.0f32, 0.0, 0.0), "-0.0 is zero");
        assert!(test(op::EQUAL, -0.0f32, 0.0, 0.0));
        assert!(test(op::LESS, f32::NEG_INFINITY, -1e38, 0.0));
    }

    #[test]
    fn ordered_tiles_fit_the_kernels() {
        assert_eq!(ordered_tile_items(4, 1 << 16), 2048);
        assert_eq!(ordered_tile_items(4, 1 << 24), 8192);
        assert_eq!(ordered_tile_items(4, 1 << 28), 6144);
        assert_eq!(ordered_tile(1, 2), (4, 8));
        for size in [1, 2, 4, 8, 16] {
            for class in 0..ORDERED_TILES.len() {
                let (warps, chunks) = ordered_tile(size, class);
                // A thread's keep bits fit 128; the tile fits the 48 KiB of static shared
                // memory a block gets without asking.
                assert!(chunks * 16 / size <= 128 && warps <= 32);
                assert!(warps as usize * 32 * chunks * 16 <= 40 << 10);
            }
        }
    }
}
