//! Reductions: the launch shape of the device-wide reduce (`reduce_{op}_{type}`), which depends
//! only on the input's size, and the layout of its scratch; and the shape of the segmented
//! reduce (`segmented_reduce_{op}_{type}`).
//!
//! **One launch, a grid fixed by `n`.** Block `b` of [`blocks`] reduces elements
//! `[b · span, (b + 1) · span)` ([`span`]) and stores its partial; the last block to finish (an
//! atomic ticket) reduces the partials in block order and writes the result. The grid and the
//! spans depend on `n` and the element size only — not on the device — so a float sum is
//! evaluated in the same order, and gives the same bits, on every run and on every GPU (for
//! the same input address modulo 16: a view that starts mid-vector moves the vector
//! boundaries).
//!
//! **Claims for operators of any order.** Where a block's span would be at least
//! [`CLAIM_MIN_UNITS`] units (a unit: [`UNROLL`] 16-byte vectors per thread of a block), an
//! operator whose result does not depend on the order of evaluation (every one but a float sum)
//! does not keep to spans ([`claims`]): block `b` reduces unit `b`, then claims the next unit
//! from a counter in the scratch until none is left, so that blocks that get through memory
//! faster take more of the input and every multiprocessor finishes at about the same time.
//! The `f32` sum claims too: its warps' partial sums of each unit are added exactly
//! ([`crate::exact`], in [`EXACT_COPIES`] accumulators after the ticket), so the order of the
//! claims does not change its bits.

/// Threads per block of the device-wide reduce.
pub const THREADS: u32 = 128;
/// Threads per block of the segmented reduce where segments are long on average (at least
/// [`LONG_MEAN`] elements, [`segment_threads`]): a block takes a segment with [`UNROLL`] 16-byte
/// loads per thread in flight, so a larger block takes it in fewer trips to memory (mean 8192
/// at 2^16 to 2^22 elements: 0.92–0.95× CUB with 128 threads, 1.03–1.14× with 256).
pub const LONG_SEGMENT_THREADS: u32 = 256;
/// The least mean segment length, in elements, at which the segmented reduce runs blocks of
/// [`LONG_SEGMENT_THREADS`] threads: shorter segments take one trip to memory with
/// [`THREADS`] (mean 256 at 2^18: 0.85× CUB with 128 threads, 0.67× with 256).
pub const LONG_MEAN: u64 = 2048;
/// 16-byte vector loads each thread keeps in flight in the main loop.
pub const UNROLL: usize = 4;
/// The most blocks of a device-wide reduce: one wave of 128-thread blocks on GPUs of 80 or more
/// multiprocessors (an H100's 132 hold 1024 of them at up to 64 registers per thread), and at
/// most 1024 partials for the last block to combine.
pub const MAX_BLOCKS: u64 = 1024;
/// The least input, in bytes, a block of the device-wide reduce takes: [`UNROLL`] 16-byte loads
/// per thread, which a thread issues at once, so a block of this much costs about one trip to
/// memory. Small inputs are spread over as many blocks as this allows (with one load per
/// thread, four times as many blocks each took its own trip and its own partial and ticket).
pub const MIN_BLOCK_BYTES: u64 = THREADS as u64 * 16 * UNROLL as u64;
/// The longest segment, in elements, that one warp of the segmented reduce takes on its own (when
/// every segment of its block's group is as short).
pub const WARP_SEGMENT_MAX: u64 = 1024;
/// The longest mean segment length, in elements, at which the segmented reduce groups
/// [`SEGMENT_GROUP`] segments to a block ([`segment_group`]).
pub const GROUP_MAX_MEAN: u64 = 256;
/// Segments per block of the segmented reduce (one per warp) from [`GROUP_MIN_SEGMENTS`]
/// segments on where they are short on average; otherwise one block per segment.
pub const SEGMENT_GROUP: u64 = THREADS as u64 / 32;
/// The fewest segments that the segmented reduce groups [`SEGMENT_GROUP`] to a block (fewer
/// would leave multiprocessors idle where segments are long).
pub const GROUP_MIN_SEGMENTS: u64 = 4096;

/// Segments per block of a segmented reduce of `segments` segments over `n` elements: groups of
/// [`SEGMENT_GROUP`] where there are many and their mean length is at most [`GROUP_MAX_MEAN`]
/// (a warp can take each); one block per segment otherwise — a block that takes long segments
/// one after the other waits on memory once per segment (mean 8192: 0.91× CUB's block per
/// segment).
pub const fn segment_group(segments: u64, n: u64) -> u64 {
    if segments >= GROUP_MIN_SEGMENTS && n / segments <= GROUP_MAX_MEAN {
        SEGMENT_GROUP
    } else {
        1
    }
}

/// Threads per block of a segmented reduce of `segments` segments (at least one) over `n`
/// elements: [`LONG_SEGMENT_THREADS`] for a block per segment where the mean length is at
/// least [`LONG_MEAN`], [`THREADS`] otherwise (and always for groups of [`SEGMENT_GROUP`]).
pub const fn segment_threads(segments: u64, n: u64) -> u32 {
    if segment_group(segments, n) == 1 && n / segments >= LONG_MEAN {
        LONG_SEGMENT_THREADS
    } else {
        THREADS
    }
}

/// Bytes per block partial in the scratch (the largest accumulator: a 64-bit key and a 64-bit
/// index, for argmin / argmax).
pub const PARTIAL_BYTES: u64 = 16;
/// Bytes before the partials in the scratch: the ticket and the claim counter (a `u32` each),
/// padded to 16.
pub const TICKET_BYTES: u64 = 16;
/// Copies of the exact `f32` sum's accumulator in the scratch: block `b` adds its digits to copy
/// `b % EXACT_COPIES` and the last block adds the copies, so that the atomics of a thousand
/// blocks do not queue on one cache line.
pub const EXACT_COPIES: u64 = 8;
/// Bytes of one copy of the accumulator: the [`crate::exact::F32_DIGITS`] digits (`u64`s) and the
/// flags (a `u32`) in one 128-byte line of their own.
pub const EXACT_COPY_BYTES: u64 = 128;
/// Bytes of the exact `f32` sum's accumulators in the scratch, after the ticket (where the other
/// operators keep their partials, which the `f32` sum does not need): [`EXACT_COPIES`] copies
/// from the first 128-byte boundary after the ticket.
pub const EXACT_BYTES: u64 = EXACT_COPIES * EXACT_COPY_BYTES + EXACT_COPY_BYTES - 16;
/// Threads of the one block of `reduce_prepare`, which zeroes the ticket, the claim counter and
/// the exact `f32` sum's accumulators (one thread's 72 stores took about half a microsecond).
pub const PREPARE_THREADS: u32 = 32;
/// The word of the scratch (from its 16-byte boundary; the ticket is word 0) that counts the
/// claims.
pub const CLAIM_WORD: usize = 1;
/// The fewest units per block span from which operators of any order claim their units.
pub const CLAIM_MIN_UNITS: u64 = 8;

/// Blocks of a device-wide reduce of `n` elements of `size` bytes: enough for
/// [`MIN_BLOCK_BYTES`] each, at most [`MAX_BLOCKS`], at least 1 (an empty input is one block,
/// which writes the identity).
pub const fn blocks(size: usize, n: u64) -> u64 {
    if n == 0 {
        1
    } else {
        n.div_ceil(span(size, n))
    }
}

/// Elements per unit: [`UNROLL`] 16-byte vectors per thread of a block.
pub const fn unit(size: usize) -> u64 {
    MIN_BLOCK_BYTES / size as u64
}

/// Elements each block of a device-wide reduce of `n` elements of `size` bytes reduces (the last
/// block fewer): `n` over at most [`MAX_BLOCKS`] blocks, rounded up to whole vectors per thread,
/// so that every block's loads are the same full vectors.
pub const fn span(size: usize, n: u64) -> u64 {
    let q = unit(size);
    let units = n.div_ceil(q);
    let per_block = units.div_ceil(MAX_BLOCKS);
    let per_block = if per_block == 0 { 1 } else { per_block };
    per_block * q
}

/// Whether the blocks of a device-wide reduce of `n` elements of `size` bytes claim its units
/// (block `b` unit `b`, then unit [`blocks`]` + k` for the `k`-th claim of the launch) where its
/// operator may be evaluated in any order, rather than each reduce its [`span`].
pub const fn claims(size: usize, n: u64) -> bool {
    span(size, n) / unit(size) >= CLAIM_MIN_UNITS
}

/// 32-bit words of scratch a device-wide reduce of `n` elements of `size` bytes takes: the
/// ticket and the claim counter, one partial per block (at least [`EXACT_BYTES`]: the `f32`
/// sum's accumulators, which `reduce_prepare` zeroes for every operator), plus three words so
/// that they can start 16-byte aligned in any `u32` buffer. The blocks are counted as one per unit up to
/// [`MAX_BLOCKS`], which [`blocks`] never exceeds but may fall below for a larger `n` (897
/// blocks of 8-unit spans at 7169 units, 1024 at 7168): so the length never falls as `n` grows,
/// and scratch for `n` elements serves every shorter input.
pub const fn scratch_words(size: usize, n: u64) -> u64 {
    let units = n.div_ceil(unit(size));
    let b = if units > MAX_BLOCKS {
        MAX_BLOCKS
    } else if units == 0 {
        1
    } else {
        units
    };
    let partials = PARTIAL_BYTES * b;
    (TICKET_BYTES + if partials > EXACT_BYTES { partials } else { EXACT_BYTES }) / 4 + 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_the_input_with_at_most_max_blocks() {
        for size in [4usize, 8] {
            for n in [0u64, 1, 31, 33, 511, 512, 513, 4096, 1 << 16, (1 << 20) + 1, 1 << 28, (1 << 32) + 7] {
                let (b, s) = (blocks(size, n), span(size, n));
                assert!((1..=MAX_BLOCKS).contains(&b), "{size} {n}");
                assert!(b * s >= n, "covers: {size} {n}");
                assert!(n == 0 || (b - 1) * s < n, "no empty block: {size} {n}");
                assert_eq!(s * size as u64 % MIN_BLOCK_BYTES, 0, "whole vectors per thread");
            }
        }
        assert_eq!(blocks(4, 1 << 16), 32);
        assert_eq!(blocks(4, 1 << 28), MAX_BLOCKS);
        assert_eq!(span(4, 1 << 28), 1 << 18);
        assert_eq!(blocks(8, 0), 1);
        assert_eq!(scratch_words(4, 1 << 28), (16 + 16 * 1024) / 4 + 3);
        // Enough for the grid, and never less for a larger `n`.
        for size in [4usize, 8] {
            let (mut n, mut last) = (0u64, 0);
            while n < 1 << 34 {
                let words = scratch_words(size, n);
                assert!(words * 4 >= TICKET_BYTES + PARTIAL_BYTES * blocks(size, n) + 12, "{size} {n}");
                assert!(words * 4 >= TICKET_BYTES + EXACT_BYTES + 12, "{size} {n}");
                assert!(words >= last, "{size} {n}: {words} words after {last}");
                last = words;
                n = n * 17 / 16 + 1 + n % 7;
            }
        }
        assert_eq!((blocks(4, 7169 * 2048), blocks(4, 7168 * 2048)), (897, 1024));
        assert!(claims(4, 1 << 24) && claims(8, 1 << 23) && !claims(4, (1 << 24) - 1 - (1 << 21)));
        assert_eq!((segment_group(4095, 4095), segment_group(4096, 4096)), (1, SEGMENT_GROUP));
        assert_eq!((segment_group(1 << 18, 1 << 26), segment_group(1 << 13, 1 << 26)), (SEGMENT_GROUP, 1));
        assert_eq!(SEGMENT_GROUP, 4);
        assert_eq!(segment_threads(8, 1 << 16), LONG_SEGMENT_THREADS);
        assert_eq!((segment_threads(256, 1 << 16), segment_threads(1 << 18, 1 << 26)), (THREADS, THREADS));
        assert_eq!(segment_threads(1 << 14, 1 << 26), LONG_SEGMENT_THREADS);
    }
}
