//! Select on the GPU against the CPU reference. Needs a GPU: every test is ignored
//! unless the GPU suite is run (`--include-ignored`, see README).
//!
//! With `WARPWORK_SMALL` set (as the GPU suite does under compute-sanitizer) inputs stop at
//! 2^18 items instead of 2^26.

use bytemuck::Pod;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::select::state_words;
use warpwork::select::{Keep, Predicate, SelectItem, Variant};
mod common;

use common::{gpu, is_poisoned, poisoned, small};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{inputs, select as cpu};

const RATES: [f64; 5] = [0.0, 0.01, 0.5, 0.99, 1.0];

fn max_log2() -> u32 {
    if small() {
        18
    } else {
        26
    }
}

/// The sizes: 0, 1, 31, 32, 33, 1000, 2^20 + 1, 2^26 (capped by `max_log2`).
fn sizes() -> Vec<usize> {
    let mut v = vec![0, 1, 31, 32, 33, 1000, 4095, 4097, (1 << 20) + 1, 1 << 26];
    v.retain(|&n| n <= 1 << max_log2() || n < 4098);
    v
}

fn random_bits<T: Pod>(n: usize, seed: u64) -> Vec<T> {
    let words = inputs::uniform_u64(n, seed);
    words.iter().map(|w| bytemuck::pod_read_unaligned(&w.to_le_bytes()[..std::mem::size_of::<T>()])).collect()
}

/// Runs one select into a poisoned output and checks it against `expected` as a multiset,
/// and that nothing past the count was written.
fn check<T: SelectItem + Send + Sync>(
    gpu: &Gpu,
    input: &CudaSlice<T>,
    keep: Keep<'_, T>,
    variant: Variant,
    expected: &[T],
    what: &str,
) {
    let mut out = poisoned::<T>(gpu, input.len());
    let mut counter = gpu.zeros::<u32>(state_words::<T>(variant, input.len())).unwrap();
    gpu.select_into(input, keep, variant, &mut out, &mut counter).unwrap();
    let count = gpu.select_count(&out, &counter).unwrap();
    assert_eq!(count, expected.len(), "{what} {}: count", variant.name());
    let got = gpu.download(&out).unwrap();
    if variant == Variant::Ordered {
        // Input order, bit for bit (the CPU reference keeps input order).
        let bits = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
        assert!(bits(&got[..count]) == bits(expected), "{what} ordered: items or their order differ");
    } else {
        assert_eq!(
            cpu::sorted_bits(&got[..count]),
            cpu::sorted_bits(expected),
            "{what} {}: kept items",
            variant.name()
        );
    }
    assert!(is_poisoned(&got[count..]), "{what} {}: wrote past the count", variant.name());
}

fn flagged_suite<T: SelectItem + Send + Sync>(seed: u64) {
    let gpu = gpu();
    for n in sizes() {
        let items: Vec<T> = random_bits(n, seed ^ n as u64);
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

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_u32() {
    flagged_suite::<u32>(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_i32() {
    flagged_suite::<i32>(2);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_u64() {
    flagged_suite::<u64>(3);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_f32() {
    flagged_suite::<f32>(4);
}

/// `select_if(item < t)` on uniform u32 at every rate (thresholds 0 and MAX+1 give 0% and 100%).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn less_than_at_every_rate_u32() {
    let gpu = gpu();
    for n in sizes() {
        let items = inputs::uniform_u32(n, 10 + n as u64);
        let d_items = gpu.upload(&items).unwrap();
        for rate in RATES {
            let p =
                if rate >= 1.0 { Predicate::GreaterEqual(0) } else { Predicate::Less((rate * 2f64.powi(32)) as u32) };
            let expected = cpu::select_if(&items, |v| p.test(v));
            for variant in Variant::ALL {
                check(&gpu, &d_items, Keep::If(p), variant, &expected, &format!("u32 {p:?} n={n}"));
            }
        }
    }
}

fn predicate_suite<T: SelectItem + Send + Sync>(items: Vec<T>, predicates: &[Predicate<T>]) {
    let gpu = gpu();
    let d_items = gpu.upload(&items).unwrap();
    for &p in predicates {
        let expected = cpu::select_if(&items, |v| p.test(v));
        for variant in Variant::ALL {
            check(&gpu, &d_items, Keep::If(p), variant, &expected, &format!("{p:?} n={}", items.len()));
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_predicate_u32() {
    let items = inputs::uniform_range(100_003, 21, 0, 50);
    use Predicate::*;
    predicate_suite::<u32>(items, &[Less(10), GreaterEqual(40), InRange(5, 7), InRange(7, 5), Equal(3), NonZero]);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_predicate_i32() {
    let items: Vec<i32> = inputs::uniform_range(100_003, 22, 0, 100).iter().map(|&v| v as i32 - 50).collect();
    use Predicate::*;
    predicate_suite::<i32>(items, &[Less(-10), GreaterEqual(0), InRange(-5, 5), Equal(-7), NonZero, Less(i32::MIN)]);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_predicate_u64() {
    let items: Vec<u64> =
        inputs::uniform_range(100_003, 23, 0, 1000).iter().map(|&v| (v as u64) << 33 | v as u64).collect();
    use Predicate::*;
    predicate_suite::<u64>(
        items,
        &[Less(100 << 33), GreaterEqual(900 << 33), InRange(5 << 33, 1 << 40), Equal(7 << 33 | 7), NonZero],
    );
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_predicate_f32_with_nan_zero_and_infinity() {
    let mut items: Vec<f32> =
        inputs::uniform_range(100_003, 24, 0, 2000).iter().map(|&v| v as f32 / 100.0 - 10.0).collect();
    for (i, special) in [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY].into_iter().enumerate() {
        for j in (i..items.len()).step_by(97) {
            items[j] = special;
        }
    }
    use Predicate::*;
    predicate_suite::<f32>(
        items,
        &[Less(0.0), GreaterEqual(5.5), InRange(-1.0, 1.0), Equal(0.0), NonZero, Less(f32::NAN)],
    );
}

/// The convenience forms allocate their own output and wait for the count.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn convenience_forms() {
    let gpu = gpu();
    let items = inputs::uniform_u32(12_345, 31);
    let flags = inputs::flags(items.len(), 32, 0.3);
    let d_items = gpu.upload(&items).unwrap();
    let s = gpu.select_flagged(&d_items, &gpu.upload(&flags).unwrap(), Variant::Block).unwrap();
    let expected = cpu::select_flagged(&items, &flags);
    assert_eq!(s.count, expected.len());
    assert_eq!(cpu::sorted_bits(&gpu.download_prefix(&s.items, s.count).unwrap()), cpu::sorted_bits(&expected));
    let s = gpu.select_if(&d_items, Predicate::Less(1 << 31), Variant::Warp).unwrap();
    assert_eq!(s.count, items.iter().filter(|&&v| v < 1 << 31).count());
}

/// A counter that does not start at zero appends after the existing items.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn appends_after_existing_items() {
    let gpu = gpu();
    let items = inputs::uniform_u32(50_001, 41);
    let d_items = gpu.upload(&items).unwrap();
    for variant in Variant::ALL {
        let mut out = poisoned::<u32>(&gpu, 2 * items.len());
        let mut counter = gpu.zeros::<u32>(state_words::<u32>(variant, d_items.len())).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::Less(1 << 30)), variant, &mut out, &mut counter).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::GreaterEqual(3 << 30)), variant, &mut out, &mut counter).unwrap();
        let count = gpu.select_count(&out, &counter).unwrap();
        let expected = cpu::select_if(&items, |v| !(1 << 30..3 << 30).contains(&v));
        assert_eq!(count, expected.len());
        if variant == Variant::Ordered {
            let mut in_order = cpu::select_if(&items, |v| v < 1 << 30);
            in_order.extend(cpu::select_if(&items, |v| v >= 3 << 30));
            assert_eq!(gpu.download_prefix(&out, count).unwrap(), in_order, "ordered append");
        }
        let got = gpu.download(&out).unwrap();
        assert_eq!(cpu::sorted_bits(&got[..count]), cpu::sorted_bits(&expected));
        assert!(is_poisoned(&got[count..]), "{}: wrote past the count", variant.name());
    }
}

/// An output smaller than the kept count is reported, and only valid items land inside it.
/// (Writes past the buffer would show under compute-sanitizer memcheck, which the suite runs.)
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn capacity_overflow_is_an_error() {
    let gpu = gpu();
    let items = inputs::uniform_u32(100_000, 51);
    let d_items = gpu.upload(&items).unwrap();
    let expected = cpu::sorted_bits(&cpu::select_if(&items, |v| v < 1 << 31));
    for variant in Variant::ALL {
        let mut out = poisoned::<u32>(&gpu, 1000);
        let mut counter = gpu.zeros::<u32>(state_words::<u32>(variant, d_items.len())).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::Less(1 << 31)), variant, &mut out, &mut counter).unwrap();
        match gpu.select_count(&out, &counter) {
            Err(Error::CapacityExceeded { needed, capacity, .. }) => {
                assert_eq!((needed as usize, capacity), (expected.len(), 1000));
            }
            other => panic!("expected CapacityExceeded, got {other:?}"),
        }
        let got = gpu.download(&out).unwrap();
        assert!(got.iter().all(|v| expected.binary_search(&(*v as u64)).is_ok()), "{}", variant.name());
        if variant == Variant::Ordered {
            let in_order = cpu::select_if(&items, |v| v < 1 << 31);
            assert_eq!(got, in_order[..1000], "ordered: the first 1000 kept items, in order");
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn mismatched_flags_are_rejected() {
    let gpu = gpu();
    let items = gpu.upload(&[1u32, 2, 3]).unwrap();
    let flags = gpu.upload(&[1u8, 0]).unwrap();
    assert!(matches!(gpu.select_flagged(&items, &flags, Variant::Block), Err(Error::InvalidInput(_))));
}
