//! The rest of the compaction family on the CPU: stable partition, unique (and by key), and
//! run-length encoding, with the GPU's contracts (rayon above a small size).
//!
//! Equality is **by bytes** throughout (as the GPU compares items), so for floats `-0.0` and
//! `0.0` differ and a NaN equals a NaN of the same bits.

use rayon::prelude::*;

/// Below this many items the serial loops beat splitting work across threads.
const PARALLEL_MIN: usize = 1 << 14;

/// Whether `a` and `b` hold the same bytes.
pub fn same_bytes<T: Copy>(a: &T, b: &T) -> bool {
    let size = std::mem::size_of::<T>();
    // SAFETY: both point to `size` readable bytes (`T: Copy` is plain data here: the GPU
    // primitives take `Pod` items).
    unsafe {
        std::slice::from_raw_parts(a as *const T as *const u8, size)
            == std::slice::from_raw_parts(b as *const T as *const u8, size)
    }
}

/// Stable two-way partition by `keep(i)`: the kept items in input order, then the others in
/// **reverse** input order (the GPU's, and CUB's `DevicePartition`, order); returns the items
/// and the kept count.
fn partition_by<T: Copy + Send + Sync>(items: &[T], keep: impl Fn(usize) -> bool + Sync + Send) -> (Vec<T>, usize) {
    let (mut kept, mut rejected): (Vec<T>, Vec<T>) = if items.len() < PARALLEL_MIN {
        let kept = (0..items.len()).filter(|&i| keep(i)).map(|i| items[i]).collect();
        let rejected = (0..items.len()).filter(|&i| !keep(i)).map(|i| items[i]).collect();
        (kept, rejected)
    } else {
        let kept = (0..items.len()).into_par_iter().filter(|&i| keep(i)).map(|i| items[i]).collect();
        let rejected = (0..items.len()).into_par_iter().filter(|&i| !keep(i)).map(|i| items[i]).collect();
        (kept, rejected)
    };
    let count = kept.len();
    rejected.reverse();
    kept.append(&mut rejected);
    (kept, count)
}

/// Stable partition by flag: `flags[i] != 0` first (the others after them, reversed). `items`
/// and `flags` have equal lengths.
pub fn partition_flagged<T: Copy + Send + Sync>(items: &[T], flags: &[u8]) -> (Vec<T>, usize) {
    assert_eq!(items.len(), flags.len(), "items and flags differ in length");
    partition_by(items, |i| flags[i] != 0)
}

/// Partition by a value test: the items for which `keep` holds first.
pub fn partition_if<T: Copy + Send + Sync>(items: &[T], keep: impl Fn(T) -> bool + Sync + Send) -> (Vec<T>, usize) {
    partition_by(items, |i| keep(items[i]))
}

/// The indices of the run heads: `0` and every `i` whose item differs (bytes) from item `i − 1`.
pub fn run_heads<T: Copy + Send + Sync>(items: &[T]) -> Vec<usize> {
    let head = |i: usize| i == 0 || !same_bytes(&items[i], &items[i - 1]);
    if items.len() < PARALLEL_MIN {
        (0..items.len()).filter(|&i| head(i)).collect()
    } else {
        (0..items.len()).into_par_iter().filter(|&i| head(i)).collect()
    }
}

/// Drops consecutive duplicates: the first item of every run of equal items, in order.
pub fn unique<T: Copy + Send + Sync>(items: &[T]) -> Vec<T> {
    run_heads(items).into_iter().map(|i| items[i]).collect()
}

/// Unique by key: the first (key, value) of every run of equal keys, in order. `keys` and
/// `values` have equal lengths.
pub fn unique_by_key<K: Copy + Send + Sync, V: Copy + Send + Sync>(keys: &[K], values: &[V]) -> (Vec<K>, Vec<V>) {
    assert_eq!(keys.len(), values.len(), "keys and values differ in length");
    let heads = run_heads(keys);
    (heads.iter().map(|&i| keys[i]).collect(), heads.iter().map(|&i| values[i]).collect())
}

/// Run-length encoding: each run's item and its length, in order.
pub fn run_length_encode<T: Copy + Send + Sync>(items: &[T]) -> (Vec<T>, Vec<u64>) {
    let heads = run_heads(items);
    let lengths =
        (0..heads.len()).map(|r| (heads.get(r + 1).copied().unwrap_or(items.len()) - heads[r]) as u64).collect();
    (heads.iter().map(|&i| items[i]).collect(), lengths)
}

/// The runs longer than one item: each one's first index (offset) and length, in order.
pub fn non_trivial_runs<T: Copy + Send + Sync>(items: &[T]) -> (Vec<u64>, Vec<u64>) {
    let heads = run_heads(items);
    let mut offsets = Vec::new();
    let mut lengths = Vec::new();
    for r in 0..heads.len() {
        let len = heads.get(r + 1).copied().unwrap_or(items.len()) - heads[r];
        if len > 1 {
            offsets.push(heads[r] as u64);
            lengths.push(len as u64);
        }
    }
    (offsets, lengths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_keeps_order_and_reverses_the_rest() {
        let items = [3, 8, 1, 9, 4, 7];
        assert_eq!(partition_if(&items, |v| v < 5), (vec![3, 1, 4, 7, 9, 8], 3));
        assert_eq!(partition_flagged(&[10u16, 11, 12, 13, 14], &[1, 0, 0, 1, 0]), (vec![10, 13, 14, 12, 11], 2));
        assert_eq!(partition_if::<u8>(&[], |_| true), (vec![], 0));
        // Parallel and serial agree.
        let big: Vec<u32> = (0..100_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let (out, count) = partition_if(&big, |v| v % 3 == 0);
        let kept: Vec<u32> = big.iter().copied().filter(|v| v % 3 == 0).collect();
        let mut rest: Vec<u32> = big.iter().copied().filter(|v| v % 3 != 0).collect();
        rest.reverse();
        assert_eq!((out[..count].to_vec(), out[count..].to_vec()), (kept, rest));
    }

    #[test]
    fn unique_and_runs() {
        let items = [5u32, 5, 2, 2, 2, 5, 7, 7];
        assert_eq!(unique(&items), [5, 2, 5, 7]);
        assert_eq!(run_length_encode(&items), (vec![5, 2, 5, 7], vec![2, 3, 1, 2]));
        assert_eq!(non_trivial_runs(&items), (vec![0, 2, 6], vec![2, 3, 2]));
        assert_eq!(unique_by_key(&items, &[0u8, 1, 2, 3, 4, 5, 6, 7]), (vec![5, 2, 5, 7], vec![0, 2, 5, 6]));
        assert_eq!(unique::<u8>(&[]), Vec::<u8>::new());
        assert_eq!(run_length_encode::<u8>(&[]), (vec![], vec![]));
        // By bytes: -0.0 and 0.0 differ, NaN equals itself.
        assert_eq!(unique(&[0.0f32, -0.0, f32::NAN, f32::NAN]).len(), 3);
        let long: Vec<u16> = (0..70_000u32).map(|i| (i / 1000) as u16).collect();
        assert_eq!(unique(&long).len(), 70);
        assert_eq!(non_trivial_runs(&long).1.iter().sum::<u64>(), 70_000);
    }
}
