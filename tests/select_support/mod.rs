//! Helpers shared by the select GPU tests (`select_gpu.rs`, `select_gpu_types.rs`,
//! `select_gpu_large.rs`): a poisoned run of one select against an expected result.
#![allow(dead_code)]

use bytemuck::Pod;
use warpwork::select::{state_len, Keep, Variant};
use warpwork::{DeviceRead, Gpu};
use warpwork_cpu_reference::{inputs, select as cpu};

#[path = "../common/mod.rs"]
mod common;

/// The device, the suite's small switch (compute-sanitizer: inputs stop at 2^18 items, and the
/// tests past 2^32 items are skipped) and the poison byte: the GPU tests' own.
pub use common::{gpu, small, POISON};

/// Selection rates: none, few, half, most, all.
pub const RATES: [f64; 5] = [0.0, 0.01, 0.5, 0.99, 1.0];

/// The sizes: 0, 1, 31, 32, 33, around the tiles (1024, 2048, 4096, 8192 and 16384 items),
/// three tiles and a bit, 2^20 + 1, and `largest` when the suite is not small.
pub fn sizes(largest: usize) -> Vec<usize> {
    let mut v = vec![
        0,
        1,
        31,
        32,
        33,
        1000,
        1023,
        2049,
        4095,
        4097,
        8191,
        8193,
        16383,
        16385,
        3 * 8192 + 5,
        (1 << 20) + 1,
        largest,
    ];
    let cap = if small() { 1 << 18 } else { usize::MAX };
    v.retain(|&n| n <= cap);
    v.dedup();
    v
}

/// `n` items of `T` with uniformly random bytes.
pub fn random_items<T: Pod>(n: usize, seed: u64) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let words = inputs::uniform_u64((n * size).div_ceil(8), seed);
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    bytes[..n * size].chunks_exact(size.max(1)).map(bytemuck::pod_read_unaligned).collect()
}

/// Whether `a` and `b` hold the same items, counted with multiplicity (bit patterns): how
/// unordered results are compared.
pub fn same_multiset<T: Pod>(a: &[T], b: &[T]) -> bool {
    let size = std::mem::size_of::<T>();
    if a.len() != b.len() {
        return false;
    }
    if size <= 2 {
        // Every bit pattern has its bin: a histogram is the multiset, without a sort.
        let histogram = |v: &[T]| {
            let mut bins = vec![0u64; 1 << (8 * size)];
            for item in bytemuck::cast_slice::<T, u8>(v).chunks(size) {
                bins[item.iter().rev().fold(0, |acc, &b| acc << 8 | b as usize)] += 1;
            }
            bins
        };
        return histogram(a) == histogram(b);
    }
    if size <= 16 {
        return cpu::sorted_bits(a) == cpu::sorted_bits(b);
    }
    let sorted = |v: &[T]| {
        let mut items: Vec<&[u8]> = bytemuck::cast_slice::<T, u8>(v).chunks(size).collect();
        items.sort_unstable();
        items.concat()
    };
    sorted(a) == sorted(b)
}

/// Runs one select of `input` into a poisoned output as long as the input, and checks it
/// against `expected` (the CPU's, in input order): in order and bit for bit for
/// [`Variant::Ordered`], as a multiset for the others, with nothing written past the count.
pub fn check<T: Pod>(
    gpu: &Gpu,
    input: &impl DeviceRead<T>,
    keep: Keep<'_, T>,
    variant: Variant,
    expected: &[T],
    what: &str,
) {
    let mut out = gpu.filled::<T>(input.len(), POISON).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<T>(variant, input.len())).unwrap();
    gpu.select_into(input, keep, variant, &mut out, &mut state).unwrap();
    let count = gpu.select_count(&out, &state).unwrap();
    assert_eq!(count, expected.len(), "{what} {}: count", variant.name());
    let got = gpu.download(&out).unwrap();
    let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
    if variant == Variant::Ordered {
        assert!(bytes(&got[..count]) == bytes(expected), "{what} ordered: items or their order differ");
    } else {
        assert!(same_multiset(&got[..count], expected), "{what} {}: kept items differ", variant.name());
    }
    assert!(bytes(&got[count..]).iter().all(|&b| b == POISON), "{what} {}: wrote past the count", variant.name());
}

/// Every variant, size and rate of a by-flag select of random `T`s.
pub fn flagged_suite<T: Pod + Send + Sync>(seed: u64, largest: usize) {
    let gpu = gpu();
    for n in sizes(largest) {
        let items: Vec<T> = random_items(n, seed ^ n as u64);
        let d_items = gpu.upload(&items).unwrap();
        for rate in RATES {
            let flags = inputs::flags(n, seed.wrapping_add(n as u64), rate);
            let d_flags = gpu.upload(&flags).unwrap();
            let expected = cpu::select_flagged(&items, &flags);
            for variant in Variant::ALL {
                let what = format!("{} flagged n={n} rate={rate}", std::any::type_name::<T>());
                check(&gpu, &d_items, Keep::Flagged(&d_flags), variant, &expected, &what);
            }
        }
    }
}
