//! Select (keeping the items that pass a test) on the CPU.
//!
//! The GPU's select is unordered; these keep input order, which is one of the orders the GPU may
//! produce. Compare GPU results with these as multisets ([`sorted_bits`]).

use rayon::prelude::*;

/// Below this many items the serial loop beats splitting work across threads.
const PARALLEL_MIN: usize = 1 << 14;

/// Keeps `items[i]` where `flags[i] != 0`, in input order. `items` and `flags` must have equal
/// lengths (the GPU API returns an error where they differ; here it is a caller bug).
pub fn select_flagged<T: Copy + Send + Sync>(items: &[T], flags: &[u8]) -> Vec<T> {
    assert_eq!(items.len(), flags.len(), "items and flags differ in length");
    if items.len() < PARALLEL_MIN {
        return items.iter().zip(flags).filter(|(_, &f)| f != 0).map(|(&v, _)| v).collect();
    }
    items.par_iter().zip(flags.par_iter()).filter(|(_, &f)| f != 0).map(|(&v, _)| v).collect()
}

/// Keeps the items for which `keep` holds, in input order.
pub fn select_if<T: Copy + Send + Sync>(items: &[T], keep: impl Fn(T) -> bool + Sync + Send) -> Vec<T> {
    if items.len() < PARALLEL_MIN {
        return items.iter().copied().filter(|&v| keep(v)).collect();
    }
    items.par_iter().copied().filter(|&v| keep(v)).collect()
}

/// The items' bit patterns, sorted: a canonical form for comparing unordered results as
/// multisets (bit patterns, so that floats, NaN included, compare exactly). Items of up to 16
/// bytes (any `Copy` type: its bytes, little-endian, zero-extended).
pub fn sorted_bits<T: Copy>(items: &[T]) -> Vec<u128> {
    let size = std::mem::size_of::<T>();
    assert!(size <= 16, "sorted_bits takes elements of at most 16 bytes");
    let mut bits: Vec<u128> = items
        .iter()
        .map(|v| {
            let mut word = [0u8; 16];
            // SAFETY: `v` is `size` readable bytes, and `size <= 16`.
            unsafe { std::ptr::copy_nonoverlapping(v as *const T as *const u8, word.as_mut_ptr(), size) };
            u128::from_le_bytes(word)
        })
        .collect();
    bits.par_sort_unstable();
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn serial<T: Copy>(items: &[T], flags: &[u8]) -> Vec<T> {
        let mut out = Vec::new();
        for i in 0..items.len() {
            if flags[i] != 0 {
                out.push(items[i]);
            }
        }
        out
    }

    #[test]
    fn empty_input_selects_nothing() {
        assert!(select_flagged::<u32>(&[], &[]).is_empty());
        assert!(select_if::<u32>(&[], |_| true).is_empty());
    }

    #[test]
    fn large_input_takes_the_parallel_path_in_order() {
        let items: Vec<u32> = (0..100_000).collect();
        let flags: Vec<u8> = items.iter().map(|v| (v % 3 == 0) as u8).collect();
        assert_eq!(select_flagged(&items, &flags), serial(&items, &flags));
        assert_eq!(select_if(&items, |v| v % 3 == 0), serial(&items, &flags));
    }

    proptest! {
        #[test]
        fn flagged_matches_serial(pairs in prop::collection::vec((any::<u32>(), 0u8..3), 0..40_000)) {
            let (items, flags): (Vec<u32>, Vec<u8>) = pairs.into_iter().unzip();
            prop_assert_eq!(select_flagged(&items, &flags), serial(&items, &flags));
        }

        #[test]
        fn if_matches_serial(items in prop::collection::vec(any::<i32>(), 0..40_000), t in any::<i32>()) {
            let flags: Vec<u8> = items.iter().map(|&v| (v < t) as u8).collect();
            prop_assert_eq!(select_if(&items, |v| v < t), serial(&items, &flags));
        }

        #[test]
        fn sorted_bits_is_order_independent(mut items in prop::collection::vec(any::<f32>(), 0..1000)) {
            let a = sorted_bits(&items);
            items.reverse();
            prop_assert_eq!(a, sorted_bits(&items));
        }

        #[test]
        fn sorted_bits_tells_16_byte_items_apart(mut items in prop::collection::vec(any::<[u32; 4]>(), 1..500)) {
            let a = sorted_bits(&items);
            prop_assert!(a.windows(2).all(|w| w[0] <= w[1]));
            items[0][3] ^= 1; // a change in the last word changes the multiset
            prop_assert_ne!(a, sorted_bits(&items));
        }
    }
}
