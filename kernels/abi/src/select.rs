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

/// Warps per block of the ordered typed kernels (`select_ordered_{type}`, `select_ordered_bytes16`):
/// `32 · ORDERED_WARPS` = [`THREADS`].
pub const ORDERED_WARPS: usize = 8;

/// 16-byte chunks per thread of an ordered typed tile for items of `size` bytes (1, 2, 4, 8 or
/// 16). A tile waits in shared memory, not in registers (`ORDERED_WARPS · 32 · chunks · 16`
/// bytes: 32 KiB, six blocks per SM on sm_90), so that a block waiting for its look-back holds
/// few registers; 1-byte items take half (their flags, one byte per item, wait in registers).
pub const fn ordered_chunks(size: usize) -> usize {
    if size == 1 {
        4
    } else {
        8
    }
}

/// Items per tile of the ordered typed kernels for items of `size` bytes: the host launches
/// `ceil(n / ordered_tile_items(size))` blocks.
pub const fn ordered_tile_items(size: usize) -> usize {
    ORDERED_WARPS * 32 * ordered_chunks(size) * 16 / size
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
    fn ordered_tiles_fill_the_block() {
        assert_eq!(ORDERED_WARPS as u32 * 32, THREADS);
        assert_eq!(ordered_tile_items(4), 8192);
        assert_eq!(ordered_tile_items(1), 16384);
        assert_eq!(ordered_tile_items(16), 2048);
        // A thread's keep bits (chunks × items per chunk) fit the kernels' 128-bit mask.
        for size in [1, 2, 4, 8, 16] {
            assert!(ordered_chunks(size) * 16 / size <= 128);
        }
    }
}
