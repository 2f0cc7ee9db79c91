//! Stream compaction on the GPU against the CPU reference: the value tests of every primitive
//! type, the call forms, appending, capacity overflow and misuse. Needs a GPU: every test is
//! ignored unless the GPU suite is run (`--include-ignored`, see README). Items of other `Pod`
//! types are in `select_gpu_types.rs`, inputs and outputs past 2^32 items in
//! `select_gpu_large.rs`.
//!
//! With `WARPWORK_SMALL` set (as the GPU suite does under compute-sanitizer) inputs stop at
//! 2^18 items instead of 2^26.

mod select_support;

use select_support::{check, flagged_suite, gpu, POISON};
use warpwork::select::{state_len, Keep, Predicate, SelectItem, Variant};
use warpwork::{Error, RawSlice, RawSliceMut};
use warpwork_cpu_reference::{inputs, select as cpu};

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_u32() {
    flagged_suite::<u32>(1, 1 << 26);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_u8() {
    flagged_suite::<u8>(2, 1 << 26);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_u64() {
    flagged_suite::<u64>(3, 1 << 22);
}

/// `select_if(item < t)` on uniform u32 at every rate (thresholds 0 and MAX+1 give 0% and 100%).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn less_than_at_every_rate_u32() {
    let gpu = gpu();
    for n in select_support::sizes(1 << 26) {
        let items = inputs::uniform_u32(n, 10 + n as u64);
        let d_items = gpu.upload(&items).unwrap();
        for rate in select_support::RATES {
            let p =
                if rate >= 1.0 { Predicate::GreaterEqual(0) } else { Predicate::Less((rate * 2f64.powi(32)) as u32) };
            let expected = cpu::select_if(&items, |v| p.test(v));
            for variant in Variant::ALL {
                check(&gpu, &d_items, Keep::If(p), variant, &expected, &format!("u32 {p:?} n={n}"));
            }
        }
    }
}

/// Exactly one item kept, at the first and last position, around tile edges and in the middle,
/// by flag and by value test, every variant and three item sizes.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn exactly_one_item_kept() {
    let gpu = gpu();
    let n = 3 * 16384 + 77;
    for at in [0, 31, 4095, 4096, 8191, 8192, 16384, n / 2, n - 1] {
        let mut flags = vec![0u8; n];
        flags[at] = 1;
        let d_flags = gpu.upload(&flags).unwrap();
        let items: Vec<u32> = (0..n as u32).map(|i| if i as usize == at { 7 } else { 1000 + i }).collect();
        let d_items = gpu.upload(&items).unwrap();
        let narrow: Vec<u8> = select_support::random_items(n, at as u64);
        let wide: Vec<u64> = select_support::random_items(n, at as u64);
        let (d_narrow, d_wide) = (gpu.upload(&narrow).unwrap(), gpu.upload(&wide).unwrap());
        for variant in Variant::ALL {
            let what = format!("one kept at {at}");
            check(&gpu, &d_items, Keep::If(Predicate::Less(8)), variant, &[7], &what);
            check(&gpu, &d_items, Keep::Flagged(&d_flags), variant, &[items[at]], &what);
            check(&gpu, &d_narrow, Keep::Flagged(&d_flags), variant, &[narrow[at]], &what);
            check(&gpu, &d_wide, Keep::Flagged(&d_flags), variant, &[wide[at]], &what);
        }
    }
}

/// Every predicate on `items`, at the full length and at a few odd prefixes.
fn predicate_suite<T: SelectItem + Send + Sync>(items: Vec<T>, predicates: &[Predicate<T>]) {
    let gpu = gpu();
    for n in [items.len(), 1, 33, 4097, 8193] {
        let d_items = gpu.upload(&items[..n]).unwrap();
        for &p in predicates {
            let expected = cpu::select_if(&items[..n], |v| p.test(v));
            for variant in Variant::ALL {
                check(&gpu, &d_items, Keep::If(p), variant, &expected, &format!("{p:?} n={n}"));
            }
        }
    }
}

/// 100 003 values (not a multiple of any tile) of `0..range` shifted by `offset`.
fn values(seed: u64, range: u32, offset: i64) -> impl Iterator<Item = i64> {
    inputs::uniform_range(100_003, seed, 0, range).into_iter().map(move |v| v as i64 + offset)
}

macro_rules! unsigned_suite {
    ($name:ident, $t:ty, $seed:expr) => {
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            let mut items: Vec<$t> = values($seed, 50, 0).map(|v| v as $t).collect();
            items[7] = <$t>::MAX;
            use Predicate::*;
            predicate_suite::<$t>(
                items,
                &[Less(10), GreaterEqual(40), InRange(5, 7), InRange(7, 5), Equal(3), Equal(<$t>::MAX), NonZero],
            );
        }
    };
}
unsigned_suite!(every_predicate_u8, u8, 21);
unsigned_suite!(every_predicate_u16, u16, 22);
unsigned_suite!(every_predicate_u32, u32, 23);

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_predicate_u64() {
    let items: Vec<u64> = values(24, 1000, 0).map(|v| (v as u64) << 33 | v as u64).collect();
    use Predicate::*;
    predicate_suite::<u64>(
        items,
        &[Less(100 << 33), GreaterEqual(900 << 33), InRange(5 << 33, 1 << 40), Equal(7 << 33 | 7), NonZero],
    );
}

/// Signed types: negatives, zero, both extremes; every predicate, including ones that keep
/// everything and nothing.
macro_rules! signed_suite {
    ($name:ident, $t:ty, $seed:expr) => {
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            let mut items: Vec<$t> = values($seed, 100, -50).map(|v| v as $t).collect();
            for (i, special) in [<$t>::MIN, <$t>::MAX, -1, 0].into_iter().enumerate() {
                for j in (i..items.len()).step_by(101) {
                    items[j] = special;
                }
            }
            use Predicate::*;
            predicate_suite::<$t>(
                items,
                &[
                    Less(-10),
                    GreaterEqual(0),
                    InRange(-5, 5),
                    Equal(-7),
                    Equal(<$t>::MIN),
                    NonZero,
                    Less(<$t>::MIN),
                    GreaterEqual(<$t>::MIN),
                ],
            );
        }
    };
}
signed_suite!(every_predicate_i8, i8, 31);
signed_suite!(every_predicate_i16, i16, 32);
signed_suite!(every_predicate_i32, i32, 33);
signed_suite!(every_predicate_i64, i64, 34);

/// Floats: NaN, ±0, ±∞ and the extremes mixed into -10.00 .. 9.99; Rust's comparisons (NaN
/// fails all but NonZero, -0.0 == 0.0).
macro_rules! float_suite {
    ($name:ident, $t:ty, $seed:expr) => {
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            let mut items: Vec<$t> = values($seed, 2000, -1000).map(|v| v as $t / 100.0).collect();
            let specials = [<$t>::NAN, -0.0, 0.0, <$t>::INFINITY, <$t>::NEG_INFINITY, <$t>::MIN, <$t>::MAX];
            for (i, special) in specials.into_iter().enumerate() {
                for j in (i..items.len()).step_by(97) {
                    items[j] = special;
                }
            }
            use Predicate::*;
            predicate_suite::<$t>(
                items,
                &[
                    Less(0.0),
                    GreaterEqual(5.5),
                    InRange(-1.0, 1.0),
                    Equal(0.0),
                    Equal(-0.0),
                    NonZero,
                    Less(<$t>::NAN),
                    GreaterEqual(<$t>::NEG_INFINITY),
                ],
            );
        }
    };
}
float_suite!(every_predicate_f32_with_nan_zero_and_infinity, f32, 35);
float_suite!(every_predicate_f64_with_nan_zero_and_infinity, f64, 36);

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
    let triples: Vec<[u8; 3]> = select_support::random_items(5000, 33);
    let d_triples = gpu.upload(&triples).unwrap();
    let s = gpu.select_flagged(&d_triples, &gpu.upload(&flags[..5000]).unwrap(), Variant::Ordered).unwrap();
    assert_eq!(gpu.download_prefix(&s.items, s.count).unwrap(), cpu::select_flagged(&triples, &flags[..5000]));
}

/// `select_append_into` appends after the existing items; `select_into` starts over.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn appends_after_existing_items() {
    let gpu = gpu();
    let items = inputs::uniform_u32(50_001, 41);
    let d_items = gpu.upload(&items).unwrap();
    for variant in Variant::ALL {
        let mut out = gpu.filled::<u32>(2 * items.len(), POISON).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, d_items.len())).unwrap();
        // A count left by an earlier call does not carry over into `select_into`.
        gpu.upload_into(&[12_345], &mut state.slice_mut(0..1)).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::Less(1 << 30)), variant, &mut out, &mut state).unwrap();
        let high = Keep::If(Predicate::GreaterEqual(3 << 30));
        gpu.select_append_into(&d_items, high, variant, &mut out, &mut state).unwrap();
        let count = gpu.select_count(&out, &state).unwrap();
        let expected = cpu::select_if(&items, |v| !(1 << 30..3 << 30).contains(&v));
        assert_eq!(count, expected.len());
        if variant == Variant::Ordered {
            let mut in_order = cpu::select_if(&items, |v| v < 1 << 30);
            in_order.extend(cpu::select_if(&items, |v| v >= 3 << 30));
            assert_eq!(gpu.download_prefix(&out, count).unwrap(), in_order, "ordered append");
        }
        assert_eq!(cpu::sorted_bits(&gpu.download_prefix(&out, count).unwrap()), cpu::sorted_bits(&expected));
    }
}

/// A state sized for 2^19 + 1 `u32`s (past 2 MiB: larger tiles) serves 2^19 and fewer (more,
/// smaller tiles): the size query counts the most tiles of any shorter input.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn state_for_a_longer_input_serves_a_shorter_one() {
    let gpu = gpu();
    let longest = (1 << 19) + 1;
    let items = inputs::uniform_u32(longest, 43);
    let d_items = gpu.upload(&items).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, longest)).unwrap();
    let mut out = gpu.filled::<u32>(longest, POISON).unwrap();
    for n in [longest, longest - 1, 1000] {
        let keep = Keep::If(Predicate::Less(1 << 31));
        gpu.select_into(&d_items.slice(..n), keep, Variant::Ordered, &mut out, &mut state).unwrap();
        let count = gpu.select_count(&out, &state).unwrap();
        let want = cpu::select_if(&items[..n], |v| v < 1 << 31);
        assert_eq!(gpu.download_prefix(&out, count).unwrap(), want, "n = {n}");
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
        let mut out = gpu.filled::<u32>(1000, POISON).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, d_items.len())).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::Less(1 << 31)), variant, &mut out, &mut state).unwrap();
        match gpu.select_count(&out, &state) {
            Err(Error::CapacityExceeded { needed, capacity, .. }) => {
                assert_eq!((needed as usize, capacity), (expected.len(), 1000));
            }
            other => panic!("expected CapacityExceeded, got {other:?}"),
        }
        let got = gpu.download(&out).unwrap();
        assert!(got.iter().all(|v| expected.binary_search(&(*v as u128)).is_ok()), "{}", variant.name());
        if variant == Variant::Ordered {
            let in_order = cpu::select_if(&items, |v| v < 1 << 31);
            assert_eq!(got, in_order[..1000], "ordered: the first 1000 kept items, in order");
        }
    }
}

/// Views that start inside a buffer (items and flags not 16-byte aligned, output not either)
/// take the kernels' checked loads instead of faulting.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn views_at_unaligned_offsets() {
    let gpu = gpu();
    let n = 100_001;
    let items = inputs::uniform_u32(n + 3, 61);
    let flags = inputs::flags(n + 3, 62, 0.5);
    let (d_items, d_flags) = (gpu.upload(&items).unwrap(), gpu.upload(&flags).unwrap());
    for offset in 1..4 {
        let (view, flag_view) = (d_items.slice(offset..offset + n), d_flags.slice(offset..offset + n));
        let (src, f) = (&items[offset..offset + n], &flags[offset..offset + n]);
        for variant in Variant::ALL {
            let mut out = gpu.filled::<u32>(n + 1, POISON).unwrap();
            let mut state = gpu.zeros::<u64>(state_len::<u32>(variant, n)).unwrap();
            let mut out_view = out.slice_mut(1..);
            gpu.select_into(&view, Keep::Flagged(&flag_view), variant, &mut out_view, &mut state).unwrap();
            let count = gpu.select_count(&out_view, &state).unwrap();
            let expected = cpu::select_flagged(src, f);
            assert_eq!(count, expected.len());
            let got = gpu.download(&out).unwrap();
            assert_eq!(got[0], u32::from_ne_bytes([POISON; 4]), "wrote before the view");
            let kept = &got[1..1 + count];
            if variant == Variant::Ordered {
                assert_eq!(kept, expected, "offset {offset}");
            } else {
                assert_eq!(cpu::sorted_bits(kept), cpu::sorted_bits(&expected), "offset {offset} {}", variant.name());
            }
            let p = Predicate::Less(1 << 30);
            select_support::check(&gpu, &view, Keep::If(p), variant, &cpu::select_if(src, |v| p.test(v)), "view");
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

/// Misuse is refused before any launch, and the context stays usable.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn misuse_is_refused_before_launch() {
    let gpu = gpu();
    // A value test on a type without value-test kernels.
    let records = gpu.upload(&[[1u8, 2, 3], [4, 5, 6]]).unwrap();
    let mut out = gpu.zeros::<[u8; 3]>(2).unwrap();
    let mut state = gpu.zeros::<u64>(1).unwrap();
    let keep = Keep::If(Predicate::Equal([1u8, 2, 3]));
    assert!(matches!(
        gpu.select_into(&records, keep, Variant::Block, &mut out, &mut state),
        Err(Error::InvalidInput(_))
    ));
    // Zero-sized items.
    let units = gpu.zeros::<()>(0).unwrap();
    let mut unit_out = gpu.zeros::<()>(0).unwrap();
    let flags = gpu.zeros::<u8>(0).unwrap();
    let r = gpu.select_into(&units, Keep::Flagged(&flags), Variant::Warp, &mut unit_out, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    // A state too short for the ordered variant.
    let items = gpu.upload(&vec![7u32; 10_000]).unwrap();
    let mut out = gpu.zeros::<u32>(10_000).unwrap();
    let r = gpu.select_into(&items, Keep::If(Predicate::NonZero), Variant::Ordered, &mut out, &mut state);
    assert!(matches!(r, Err(Error::BufferTooSmall { len: 1, .. })), "{r:?}");
    // More tiles than a grid holds (2^31 - 1 of 4096 items): refused before anything is read.
    // SAFETY: nothing is launched (the call fails its size check first); the lengths only
    // have to be representable.
    let huge = 1usize << 44;
    let base = gpu.device_address(&items).unwrap();
    let (big_items, big_flags) = unsafe {
        (RawSlice::<u8>::from_raw_parts(base, huge).unwrap(), RawSlice::<u8>::from_raw_parts(base, huge).unwrap())
    };
    let mut big_out = unsafe { RawSliceMut::<u8>::from_raw_parts(base, huge).unwrap() };
    for variant in [Variant::Lane, Variant::Warp, Variant::Block] {
        let r = gpu.select_into(&big_items, Keep::Flagged(&big_flags), variant, &mut big_out, &mut state);
        assert!(matches!(r, Err(Error::CapacityExceeded { needed, .. }) if needed == huge as u64), "{r:?}");
    }
    // The context is still usable.
    let expected = vec![7u32; 10_000];
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, 10_000)).unwrap();
    let keep = Keep::If(Predicate::NonZero);
    gpu.select_into(&items, keep, Variant::Ordered, &mut out, &mut state).unwrap();
    assert_eq!(gpu.select_count(&out, &state).unwrap(), 10_000);
    assert_eq!(gpu.download(&out).unwrap(), expected);
}
