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

/// The most 16-byte chunks per thread an ordered typed tile may have for items of `size` bytes
/// (1, 2, 4, 8 or 16): a thread keeps one bit per item in 128 bits, and the kernels unroll their
/// loops to this bound.
pub const fn ordered_max_chunks(size: usize) -> usize {
    if size == 1 {
        8
    } else {
        12
    }
}

/// The tile shape of an ordered typed select of `n` items of `size` bytes: (warps per block,
/// 16-byte chunks per thread). A tile waits in shared memory, not in registers, so a block
/// waiting for its look-back holds few registers. Chosen on an H100 (2026-11-25) from the
/// shapes measured side by side for 4-byte items (docs/select.md): small inputs want few chunks
/// per thread (latency: each thread's chunks are handled one after the other), large ones large
/// tiles that many blocks keep resident (four warps × 12 chunks, 24 KiB: nine blocks per SM).
pub const fn ordered_shape(size: usize, n: u64) -> (u32, usize) {
    let bytes = n.saturating_mul(size as u64);
    let (warps, chunks) = if bytes <= 2 << 20 {
        (8, 2)
    } else if bytes <= 8 << 20 {
        (8, 4)
    } else if bytes <= 128 << 20 {
        (8, 8)
    } else {
        (4, 12)
    };
    let max = ordered_max_chunks(size);
    (warps, if chunks > max { max } else { chunks })
}

/// Items per tile of an ordered typed select of `n` items of `size` bytes ([`ordered_shape`]):
/// the host launches `ceil(n / ordered_tile_items(size, n))` blocks.
pub const fn ordered_tile_items(size: usize, n: u64) -> u64 {
    let (warps, chunks) = ordered_shape(size, n);
    (warps as usize * 32 * chunks * 16 / size) as u64
}

/// Bytes of dynamic shared memory an ordered typed tile of `shape` takes: the tile itself.
pub const fn ordered_tile_bytes(shape: (u32, usize)) -> u32 {
    shape.0 * 32 * shape.1 as u32 * 16
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
    fn ordered_shapes_fit_the_kernels() {
        assert_eq!(ordered_tile_items(4, 1 << 16), 2048);
        assert_eq!(ordered_tile_items(4, 1 << 28), 6144);
        for size in [1, 2, 4, 8, 16] {
            // A thread's keep bits fit the kernels' 128-bit mask.
            assert!(ordered_max_chunks(size) * 16 / size <= 128);
            for log2 in 0..44 {
                let (warps, chunks) = ordered_shape(size, 1 << log2);
                assert!((1..=ordered_max_chunks(size)).contains(&chunks) && warps <= 32);
                // The tile, plus the kernels' few static bytes, within the 48 KiB a block gets
                // without asking.
                assert!(ordered_tile_bytes((warps, chunks)) <= 40 << 10);
            }
        }
    }
}
