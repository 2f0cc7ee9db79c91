//! Work expansion and exclusive scan on the CPU.
//!
//! [`expand`] produces the `(src, local)` pairs in **canonical order**: source-major, local
//! ascending — the order the GPU's `ScanBinarySearch` produces. The other GPU strategies produce
//! a permutation of it; compare those sorted ([`sorted_pairs`]).

use rayon::prelude::*;

/// Below this many items the serial loop beats splitting work across threads.
const PARALLEL_MIN: usize = 1 << 14;

/// Exclusive prefix sum, wrapping (the GPU scan's contract for `u32`); see [`crate::scan`] for
/// every operator and type.
pub fn exclusive_scan_u32(input: &[u32]) -> Vec<u32> {
    crate::scan::exclusive_scan(input, crate::scan::Op::Sum)
}

/// Exclusive prefix sum of `u64`s, wrapping.
pub fn exclusive_scan_u64(input: &[u64]) -> Vec<u64> {
    crate::scan::exclusive_scan(input, crate::scan::Op::Sum)
}

/// Total destination items (exact, in `u64`).
pub fn total(counts: &[u32]) -> u64 {
    if counts.len() < PARALLEL_MIN {
        counts.iter().map(|&c| c as u64).sum()
    } else {
        counts.par_iter().map(|&c| c as u64).sum()
    }
}

/// The `(src, local)` pairs of every destination item, canonical order. The caller keeps the
/// total within memory (it is `total(counts)` pairs).
pub fn expand(counts: &[u32]) -> Vec<[u32; 2]> {
    let n = total(counts) as usize;
    let mut out = vec![[0u32; 2]; n];
    if n < PARALLEL_MIN {
        let mut at = 0;
        for (s, &c) in counts.iter().enumerate() {
            for l in 0..c {
                out[at] = [s as u32, l];
                at += 1;
            }
        }
        return out;
    }
    // Split the output at source boundaries, fill the pieces in parallel.
    let mut rest: &mut [[u32; 2]] = &mut out;
    let mut pieces = Vec::with_capacity(counts.len());
    for &c in counts {
        let (head, tail) = rest.split_at_mut(c as usize);
        pieces.push(head);
        rest = tail;
    }
    pieces.into_par_iter().enumerate().with_min_len(1 << 10).for_each(|(s, piece)| {
        for (l, p) in piece.iter_mut().enumerate() {
            *p = [s as u32, l as u32];
        }
    });
    out
}

/// Pairs sorted into canonical order (for comparing unordered GPU results).
pub fn sorted_pairs(pairs: &[[u32; 2]]) -> Vec<[u32; 2]> {
    let mut v = pairs.to_vec();
    v.par_sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn serial(counts: &[u32]) -> Vec<[u32; 2]> {
        counts.iter().enumerate().flat_map(|(s, &c)| (0..c).map(move |l| [s as u32, l])).collect()
    }

    #[test]
    fn empty_and_zero_inputs_expand_to_nothing() {
        assert!(expand(&[]).is_empty());
        assert!(expand(&[0, 0, 0]).is_empty());
        assert!(exclusive_scan_u32(&[]).is_empty());
    }

    #[test]
    fn large_input_takes_the_parallel_path() {
        let counts: Vec<u32> = (0..50_000u32).map(|i| i % 7).collect();
        assert_eq!(expand(&counts), serial(&counts));
        let ex = exclusive_scan_u32(&counts);
        assert_eq!(ex[0], 0);
        assert_eq!(ex[49_999] + counts[49_999], total(&counts) as u32);
    }

    #[test]
    fn scan_wraps() {
        assert_eq!(exclusive_scan_u32(&[u32::MAX, 2, 3]), vec![0, u32::MAX, 1]);
        assert_eq!(exclusive_scan_u64(&[u64::MAX, 2]), vec![0, u64::MAX]);
    }

    proptest! {
        #[test]
        fn expand_matches_serial(counts in prop::collection::vec(0u32..40, 0..3000)) {
            prop_assert_eq!(expand(&counts), serial(&counts));
        }

        #[test]
        fn scan_matches_serial(v in prop::collection::vec(any::<u64>(), 0..40_000)) {
            let mut run = 0u64;
            let want: Vec<u64> = v.iter().map(|&x| { let r = run; run = run.wrapping_add(x); r }).collect();
            prop_assert_eq!(exclusive_scan_u64(&v), want);
        }

        #[test]
        fn sorted_pairs_is_order_independent(counts in prop::collection::vec(0u32..20, 0..300)) {
            let mut p = expand(&counts);
            p.reverse();
            prop_assert_eq!(sorted_pairs(&p), expand(&counts));
        }
    }
}
