//! The names of warpwork's exported kernels (`#[no_mangle] extern "ptx-kernel"` functions of
//! `warpwork-kernels`), in lists by family ([`crate::modules::Family`]: the module each is
//! shipped and loaded in). An exported symbol cannot be named by a constant, so the kernels spell
//! these out once more; the host's tests check that the `.entry` list of every shipped module is
//! exactly its family's list.

macro_rules! kernel_names {
    ($($(#[$ldoc:meta])* $list:ident { $($(#[$doc:meta])* $name:ident = $symbol:literal;)* })*) => {
        $(
            $($(#[$doc])* pub const $name: &str = $symbol;)*
            $(#[$ldoc])*
            pub const $list: &[&str] = &[$($name),*];
        )*
    };
}

kernel_names! {
    /// The work-expansion kernels (`kernels/src/kernels/expand.rs`): every kernel takes
    /// `*const ExpandView` first; pass 2 also `out: *mut [u32; 2]`.
    EXPAND_KERNELS {
    /// S1 pass 1.
    EXPAND_PUSH_APPEND = "expand_push_append";
    /// S2 pass 1.
    EXPAND_PUSH_LINEAR = "expand_push_linear";
    /// S2.5 pass 1: the look-back scan of the counts (32-bit offsets).
    EXPAND_PUSH_SCAN = "expand_push_scan";
    /// S2.5 pass 1 with 64-bit offsets (capacities of 2^32 and more).
    EXPAND_PUSH_SCAN_WIDE = "expand_push_scan_wide";
    /// S2.5+ pass 1, compare-and-swap loop.
    EXPAND_PUSH_PACKED_CAS = "expand_push_packed_cas";
    /// S2.5+ pass 1, one 64-bit add.
    EXPAND_PUSH_PACKED_ADD = "expand_push_packed_add";
    /// S3 pass 1.
    EXPAND_PUSH_PO2 = "expand_push_po2";
    /// S2.5f pass 1: tile sums and the plan.
    EXPAND_PUSH_FUSED = "expand_push_fused";
    /// S2.5f pass 1 with 64-bit destination indices (capacities of 2^32 and more).
    EXPAND_PUSH_FUSED_WIDE = "expand_push_fused_wide";
    /// S0: the destination count for a user's pass 2.
    EXPAND_MAXN_TOTAL = "expand_maxn_total";
    /// S0 pass 2.
    EXPAND_PASS2_MAXN = "expand_pass2_maxn";
    /// S1 pass 2.
    EXPAND_PASS2_APPEND = "expand_pass2_append";
    /// S2 pass 2.
    EXPAND_PASS2_LINEAR = "expand_pass2_linear";
    /// S2.5 pass 2.
    EXPAND_PASS2_SCAN = "expand_pass2_scan";
    /// S2.5 pass 2 with 64-bit offsets and destination indices.
    EXPAND_PASS2_SCAN_WIDE = "expand_pass2_scan_wide";
    /// S2.5+ pass 2 (both pass-1 forms).
    EXPAND_PASS2_PACKED = "expand_pass2_packed";
    /// S3 pass 2, all buckets in one launch.
    EXPAND_PASS2_PO2 = "expand_pass2_po2";
    /// S3 pass 2, one launch per bucket (`bucket` after `out`).
    EXPAND_PASS2_PO2_BUCKET = "expand_pass2_po2_bucket";
    /// S2.5f pass 2.
    EXPAND_PASS2_FUSED = "expand_pass2_fused";
    /// S2.5f pass 2 with 64-bit destination indices.
    EXPAND_PASS2_FUSED_WIDE = "expand_pass2_fused_wide";
    /// S2.5f's two passes in one launch, for small inputs.
    EXPAND_FUSED_ONCE = "expand_fused_once";
    /// A pass 2 written as users write theirs (`for_each`): counts hits and local sums per
    /// source, for the tests.
    EXPAND_FOR_EACH_HISTOGRAM = "expand_for_each_histogram";
    }

    /// The select family's kernels besides the typed ones ([`SELECT_KERNELS`],
    /// [`SELECT_ORDERED_KERNELS`]), in `kernels/src/kernels/select.rs`.
    SELECT_SUPPORT_KERNELS {
    /// `select_ordered_prepare(state, states, words, append)`: prepares an ordered select's state
    /// (start, tile states) before the select launch, which may start early.
    SELECT_ORDERED_PREPARE = "select_ordered_prepare";
    /// The ordered select's generic path (items of any size, by flag): the parameters of
    /// [`SELECT_KERNELS`]' `bytes` kernels, then the start, the tile states and the
    /// forced-fallback switch.
    SELECT_ORDERED_BYTES = "select_ordered_bytes";
    }

    /// The scan family's kernel besides the scans themselves ([`SCAN_KERNELS`],
    /// [`SCAN_SMALL_KERNELS`], [`SCAN_MEDIUM_KERNELS`], [`SCAN_BASED_KERNELS`]), in `kernels/src/kernels/scan.rs`.
    SCAN_SUPPORT_KERNELS {
    /// `scan_prepare(states, words)`: zeroes a scan launch's tile states before the scan, which
    /// may start early as its programmatic dependent.
    SCAN_PREPARE = "scan_prepare";
    }

    /// The reduce family's kernel besides the reductions ([`REDUCE_KERNELS`],
    /// [`SEGMENTED_REDUCE_KERNELS`]), in `kernels/src/kernels/reduce.rs`.
    REDUCE_SUPPORT_KERNELS {
    /// `reduce_prepare(ticket)`: zeroes a reduce launch's ticket, claim counter and `f32`
    /// accumulators before the reduce, which may start early as its programmatic dependent; a
    /// block of `reduce::PREPARE_THREADS` threads.
    REDUCE_PREPARE = "reduce_prepare";
    }

    /// The timing kernel (`kernels/src/kernels/timing.rs`).
    TIMING_KERNELS {
    /// `hold_stream(flag, timeout_ns)`: the stream hold behind `Gpu::time_ms`.
    HOLD_STREAM = "hold_stream";
    }
}

/// The item types of the select kernels, as kernel-name suffixes: value tests for the ten
/// primitive numbers, and by flag for 16-byte items (`bytes16`) and any other size (`bytes`).
pub const SELECT_ITEM_TYPES: [&str; 12] =
    ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bytes16", "bytes"];
/// The select variants, as kernel-name infixes (`warpwork::select::Variant` in this order).
pub const SELECT_VARIANTS: [&str; 4] = ["lane", "warp", "block", "ordered"];
/// The tile classes of the ordered select's typed kernels, smallest first, as kernel-name
/// infixes (`warpwork_abi::select::ORDERED_TILES` gives their shapes).
pub const ORDERED_TILE_NAMES: [&str; 3] = ["small", "medium", "large"];

macro_rules! select_names {
    ($($t:literal),*) => {
        [$(concat!("select_lane_", $t), concat!("select_warp_", $t), concat!("select_block_", $t)),*]
    };
}

/// The unordered select kernels `select_{variant}_{type}` (`kernels/src/kernels/select.rs`),
/// variants of one type together: `(items, flags, n, op, a, b, out, capacity, counter)`. The
/// order is [`SELECT_ITEM_TYPES`] × the first three [`SELECT_VARIANTS`].
pub const SELECT_KERNELS: [&str; 36] =
    select_names!("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bytes16", "bytes");

macro_rules! ordered_names {
    ($($t:literal),*) => {
        [$(concat!("select_ordered_small_", $t), concat!("select_ordered_medium_", $t),
           concat!("select_ordered_large_", $t)),*]
    };
}

/// The ordered select's typed kernels `select_ordered_{tile}_{type}`, tiles of one type
/// together: the parameters of [`SELECT_KERNELS`], then the start, the tile states and the
/// forced-fallback switch. The order is the first eleven [`SELECT_ITEM_TYPES`] ×
/// [`ORDERED_TILE_NAMES`]; the generic path's is [`SELECT_ORDERED_BYTES`].
pub const SELECT_ORDERED_KERNELS: [&str; 33] =
    ordered_names!("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bytes16");

/// The tile classes the partition, unique and run kernels are built in, as kernel-name infixes:
/// the ordered select's small and large tiles (`warpwork_abi::select::FAMILY_TILE_CLASSES`).
pub const FAMILY_TILE_NAMES: [&str; 2] = ["small", "large"];

macro_rules! family_names {
    ($prefix:literal: $($t:literal),*) => {
        [$(concat!($prefix, "_small_", $t), concat!($prefix, "_large_", $t)),*]
    };
}

/// The stable partitions `partition_{tile}_{type}` (`kernels/src/kernels/select.rs`): the
/// parameters and grid of [`SELECT_ORDERED_KERNELS`] (with the start 0); the kept items go to
/// the output's front in input order, the others to its back in reverse input order. The order
/// is the first eleven [`SELECT_ITEM_TYPES`] × [`ORDERED_TILE_NAMES`].
pub const PARTITION_KERNELS: [&str; 22] =
    family_names!("partition": "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bytes16");

/// The item types of the unique kernels, as kernel-name suffixes: items are compared by their
/// bytes, so one kernel serves every type of a size.
pub const UNIQUE_ITEM_TYPES: [&str; 5] = ["u8", "u16", "u32", "u64", "bytes16"];

/// The unique kernels `unique_{tile}_{type}` (`kernels/src/kernels/select.rs`): `(items, n, out,
/// capacity, counter, start, states, forced_fallback)`, the grid of [`SELECT_ORDERED_KERNELS`].
/// The order is [`UNIQUE_ITEM_TYPES`] × [`ORDERED_TILE_NAMES`].
pub const UNIQUE_KERNELS: [&str; 10] = family_names!("unique": "u8", "u16", "u32", "u64", "bytes16");

/// Run-length encoding in one pass, `run_length_{tile}_{type}` (`kernels/src/kernels/select.rs`):
/// the parameters of [`UNIQUE_KERNELS`], then `lengths` (`capacity` of them) and `wide` (`u32`:
/// non-zero for `u64` lengths, zero for `u32`); each run's first item goes to `out`, its length
/// to `lengths` at the same slot. The tile states are twice the ordered select's (a second
/// look-back, right after the first). The order is [`UNIQUE_ITEM_TYPES`] × [`ORDERED_TILE_NAMES`].
pub const RUN_LENGTH_KERNELS: [&str; 10] = family_names!("run_length": "u8", "u16", "u32", "u64", "bytes16");

/// The non-trivial runs in one pass, `run_bounds_{tile}_{type}` (`kernels/src/kernels/select.rs`):
/// `(items, n, capacity, counter, start, states, forced_fallback, offsets, lengths, wide)`, each
/// run longer than one item as its first index in `offsets` and its length in `lengths`
/// (`capacity` of each, `u64` if `wide` is non-zero, `u32` otherwise), their count in
/// `*counter`; tile states as [`RUN_LENGTH_KERNELS`]'. The order is [`UNIQUE_ITEM_TYPES`] ×
/// [`ORDERED_TILE_NAMES`].
pub const RUN_BOUNDS_KERNELS: [&str; 10] = family_names!("run_bounds": "u8", "u16", "u32", "u64", "bytes16");

/// Unique by key in one pass, `unique_by_key_{tile}_{type}` (`kernels/src/kernels/select.rs`):
/// the parameters of [`UNIQUE_KERNELS`] over the keys, then `values` (`n` of them), `values_out`
/// (`capacity`) and `value_size` (`u32`: 1, 2, 4, 8 or 16 bytes); each kept key's value goes to
/// `values_out` at the key's slot. The order is [`UNIQUE_ITEM_TYPES`] (of the keys) ×
/// [`ORDERED_TILE_NAMES`].
pub const UNIQUE_BY_KEY_KERNELS: [&str; 10] = family_names!("unique_by_key": "u8", "u16", "u32", "u64", "bytes16");

macro_rules! scan_names {
    ($($t:literal),*) => {
        [$(concat!("scan_exclusive_sum_", $t), concat!("scan_exclusive_min_", $t), concat!("scan_exclusive_max_", $t),
           concat!("scan_inclusive_sum_", $t), concat!("scan_inclusive_min_", $t), concat!("scan_inclusive_max_", $t)),*]
    };
}

/// The element types of the scan kernels, as kernel-name suffixes.
pub const SCAN_ITEM_TYPES: [&str; 6] = ["u32", "i32", "u64", "i64", "f32", "f64"];

/// The device-wide scans in standard tiles, `scan_{exclusive|inclusive}_{sum|min|max}_{type}`
/// (`kernels/src/kernels/scan.rs`): `(input, output, n, states, forced_fallback)`. The order is
/// [`SCAN_ITEM_TYPES`] × (exclusive, inclusive) × (sum, min, max).
pub const SCAN_KERNELS: [&str; 36] = scan_names!("u32", "i32", "u64", "i64", "f32", "f64");

macro_rules! scan_small_names {
    ($($t:literal),*) => {
        [$(concat!("scan_small_exclusive_sum_", $t), concat!("scan_small_exclusive_min_", $t),
           concat!("scan_small_exclusive_max_", $t), concat!("scan_small_inclusive_sum_", $t),
           concat!("scan_small_inclusive_min_", $t), concat!("scan_small_inclusive_max_", $t)),*]
    };
}

/// The same scans in small tiles (`warpwork_abi::scan::TileClass` says when):
/// `scan_small_{exclusive|inclusive}_{sum|min|max}_{type}`, in the order of [`SCAN_KERNELS`].
pub const SCAN_SMALL_KERNELS: [&str; 36] = scan_small_names!("u32", "i32", "u64", "i64", "f32", "f64");

macro_rules! scan_medium_names {
    ($($t:literal),*) => {
        [$(concat!("scan_medium_exclusive_sum_", $t), concat!("scan_medium_exclusive_min_", $t),
           concat!("scan_medium_exclusive_max_", $t), concat!("scan_medium_inclusive_sum_", $t),
           concat!("scan_medium_inclusive_min_", $t), concat!("scan_medium_inclusive_max_", $t)),*]
    };
}

/// The scans of 8-byte elements in medium tiles: `scan_medium_{kind}_{op}_{type}` for `u64`,
/// `i64` and `f64`, in the order of [`SCAN_KERNELS`].
pub const SCAN_MEDIUM_KERNELS: [&str; 18] = scan_medium_names!("u64", "i64", "f64");

macro_rules! scan_based_names {
    ($($t:literal),*) => {
        [$(concat!("scan_based_exclusive_sum_", $t), concat!("scan_based_inclusive_sum_", $t)),*]
    };
}

/// The sums that start from a base in device memory, in standard tiles for every `n`:
/// `scan_based_{exclusive|inclusive}_sum_{type}`, `(input, output, n, states, forced_fallback,
/// base, base_len)`, every output plus `base[0] + … + base[base_len - 1]`. The order is
/// [`SCAN_ITEM_TYPES`] × (exclusive, inclusive).
pub const SCAN_BASED_KERNELS: [&str; 12] = scan_based_names!("u32", "i32", "u64", "i64", "f32", "f64");

macro_rules! reduce_names {
    ($($t:literal),*) => {
        [$(concat!("reduce_sum_", $t), concat!("reduce_min_", $t), concat!("reduce_max_", $t),
           concat!("reduce_argmin_", $t), concat!("reduce_argmax_", $t)),*]
    };
}

/// The device-wide reductions `reduce_{sum|min|max|argmin|argmax}_{type}`
/// (`kernels/src/kernels/reduce.rs`): `(input, n, value, index, scratch)`. The order is
/// [`SCAN_ITEM_TYPES`] × (sum, min, max, argmin, argmax).
pub const REDUCE_KERNELS: [&str; 30] = reduce_names!("u32", "i32", "u64", "i64", "f32", "f64");

macro_rules! segmented_names {
    ($($t:literal),*) => {
        [$(concat!("segmented_reduce_sum_", $t), concat!("segmented_reduce_min_", $t),
           concat!("segmented_reduce_max_", $t)),*]
    };
}

/// The segmented reductions `segmented_reduce_{sum|min|max}_{type}`: `(input, n, offsets,
/// segments, group, out)`, a block per group of segments. The order is [`SCAN_ITEM_TYPES`] × (sum, min, max).
pub const SEGMENTED_REDUCE_KERNELS: [&str; 18] = segmented_names!("u32", "i32", "u64", "i64", "f32", "f64");

macro_rules! arg_fold_names {
    ($($t:literal),*) => {
        [$(concat!("reduce_argmin_fold_", $t), concat!("reduce_argmax_fold_", $t)),*]
    };
}

/// The folds of argmin / argmax results `reduce_{argmin|argmax}_fold_{type}`: `(indices,
/// values, count, base, out_index, out_value)`, one thread: of the `count` pairs
/// `(indices[k], values[k])` that hold an element (index not `u64::MAX`), in order, the one the
/// reduction picks (first NaN, then the least or greatest, ties to the smallest index), with
/// `base` added to its index, or `(u64::MAX, identity)` for none. Behind the sharded argmin /
/// argmax (each rank's result made global, then the ranks' results folded). The order is
/// [`SCAN_ITEM_TYPES`] × (argmin, argmax).
pub const ARG_FOLD_KERNELS: [&str; 12] = arg_fold_names!("u32", "i32", "u64", "i64", "f32", "f64");

/// Every exported kernel, family by family (what the shipped modules export together; checked
/// by a host test).
pub fn all_kernels() -> impl Iterator<Item = &'static str> {
    crate::modules::Family::ALL.into_iter().flat_map(|f| f.kernels())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn select_names_follow_types_and_variants() {
        for (t, ty) in SELECT_ITEM_TYPES.iter().enumerate() {
            for (v, var) in SELECT_VARIANTS[..3].iter().enumerate() {
                assert_eq!(SELECT_KERNELS[3 * t + v], std::format!("select_{var}_{ty}"));
            }
            for (k, tile) in ORDERED_TILE_NAMES.iter().enumerate().filter(|_| *ty != "bytes") {
                assert_eq!(SELECT_ORDERED_KERNELS[3 * t + k], std::format!("select_ordered_{tile}_{ty}"));
            }
        }
        assert_eq!(SELECT_ORDERED_BYTES, "select_ordered_bytes");
        for (t, ty) in SELECT_ITEM_TYPES[..11].iter().enumerate() {
            for (k, tile) in FAMILY_TILE_NAMES.iter().enumerate() {
                assert_eq!(PARTITION_KERNELS[2 * t + k], std::format!("partition_{tile}_{ty}"));
            }
        }
        for (t, ty) in UNIQUE_ITEM_TYPES.iter().enumerate() {
            for (k, tile) in FAMILY_TILE_NAMES.iter().enumerate() {
                assert_eq!(UNIQUE_KERNELS[2 * t + k], std::format!("unique_{tile}_{ty}"));
                assert_eq!(RUN_LENGTH_KERNELS[2 * t + k], std::format!("run_length_{tile}_{ty}"));
                assert_eq!(RUN_BOUNDS_KERNELS[2 * t + k], std::format!("run_bounds_{tile}_{ty}"));
                assert_eq!(UNIQUE_BY_KEY_KERNELS[2 * t + k], std::format!("unique_by_key_{tile}_{ty}"));
            }
        }
    }

    #[test]
    fn names_are_distinct_ptx_identifiers() {
        let all: Vec<&str> = all_kernels().collect();
        let mut names = all.clone();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a kernel name is listed twice");
        for n in all {
            assert!(
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{n}"
            );
        }
    }
}
