//! GPU tests of the device-wide scans against the CPU reference: every kind × operator × type
//! at odd sizes, on random and adversarial inputs, into poisoned outputs; in place; on
//! misaligned views; and bad input.

mod common;

use warpwork::abi::scan as scan_abi;

use common::values::TestValues;
use common::{gpu, small, POISON};

use warpwork::scan::{scratch_len, Scan, ScanItem, ScanKind, ScanOp};
use warpwork::{Error, Gpu, RawSlice};
use warpwork_cpu_reference::scan::{self as cpu, Element, Op};

/// An element type under test: its values ([`TestValues`]) and adversarial ones.
trait TestElement: ScanItem + Element + TestValues {
    /// Adversarial values for this type: extremes, and for floats NaN and infinities.
    fn specials() -> Vec<Self>;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl TestElement for $t {
            fn specials() -> Vec<Self> {
                vec![<$t>::MAX, <$t>::MIN, 0, 1, <$t>::MAX - 1]
            }
        }
    )*};
}
int_element!(u32, i32, u64, i64);

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl TestElement for $t {
            fn specials() -> Vec<Self> {
                vec![<$t>::NAN, <$t>::INFINITY, <$t>::NEG_INFINITY, -0.0, 0.0, 3.0]
            }
        }
    )*};
}
float_element!(f32, f64);

const SCANS: [Scan; 6] = [
    Scan::exclusive(ScanOp::Sum),
    Scan::exclusive(ScanOp::Min),
    Scan::exclusive(ScanOp::Max),
    Scan::inclusive(ScanOp::Sum),
    Scan::inclusive(ScanOp::Min),
    Scan::inclusive(ScanOp::Max),
];

fn cpu_op(op: ScanOp) -> Op {
    match op {
        ScanOp::Sum => Op::Sum,
        ScanOp::Min => Op::Min,
        ScanOp::Max => Op::Max,
    }
}

fn cpu_scan<T: TestElement>(input: &[T], scan: Scan) -> Vec<T> {
    match scan.kind {
        ScanKind::Exclusive => cpu::exclusive_scan(input, cpu_op(scan.op)),
        ScanKind::Inclusive => cpu::inclusive_scan(input, cpu_op(scan.op)),
    }
}

/// Equal bit for bit, or (floats) equal as numbers (`-0.0 == 0.0`), or both NaN.
fn same<T: TestElement>(a: T, b: T) -> bool {
    bytemuck::bytes_of(&a) == bytemuck::bytes_of(&b)
        || (T::FLOAT && (a.to_f64() == b.to_f64() || (a.to_f64().is_nan() && b.to_f64().is_nan())))
}

/// Checks `got[..n]` against the CPU scan (exactly, or for float sums of real values within
/// the bound of `docs/scan.md`) and that `got[n..]` is still poisoned.
fn check<T: TestElement>(got: &[T], input: &[T], scan: Scan, exact: bool, what: &str) {
    let n = input.len();
    assert!(bytemuck::cast_slice::<T, u8>(&got[n..]).iter().all(|&b| b == POISON), "{what}: wrote past n = {n}");
    if exact || !T::FLOAT || scan.op != ScanOp::Sum {
        let want = cpu_scan(input, scan);
        if let Some(i) = (0..n).find(|&i| !same(got[i], want[i])) {
            panic!("{what}: n = {n}, first difference at {i}: got {:?}, want {:?}", got[i], want[i]);
        }
        return;
    }
    // Float sums of reals: the exact prefix (f64 with a compensation term) and a bound of
    // (16 roundings per tile before, 256 within a tile: generous, see docs/scan.md) · u · Σ|x|.
    let u = if std::mem::size_of::<T>() == 4 { f32::EPSILON as f64 / 2.0 } else { f64::EPSILON / 2.0 };
    let size = std::mem::size_of::<T>();
    let tile = scan_abi::tile_items(size, scan_abi::TileClass::of(size, n as u64));
    let (mut sum, mut carry, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let x = input[i].to_f64();
        if scan.kind == ScanKind::Inclusive {
            (sum, carry) = two_sum(sum, x, carry);
            abs += x.abs();
        }
        let bound = (16 * (i / tile) + 256) as f64 * u * abs + 1e-30;
        let err = (got[i].to_f64() - (sum + carry)).abs();
        assert!(
            err <= bound,
            "{what}: n = {n}, at {i}: got {:?}, exact {}, error {err:e} > bound {bound:e}",
            got[i],
            sum + carry
        );
        if scan.kind == ScanKind::Exclusive {
            (sum, carry) = two_sum(sum, x, carry);
            abs += x.abs();
        }
    }
}

/// `s + x` with the rounding error kept in `c` (Neumaier).
fn two_sum(s: f64, x: f64, c: f64) -> (f64, f64) {
    let t = s + x;
    let e = if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
    (t, c + e)
}

fn run_scan<T: TestElement>(gpu: &Gpu, input: &[T], scan: Scan) -> Vec<T> {
    let d = gpu.upload(input).unwrap();
    // One extra poisoned element checks that nothing is written past n.
    let mut out = gpu.filled::<T>(input.len() + 1, POISON).unwrap();
    gpu.scan(&d, &mut out, scan).unwrap();
    gpu.download(&out).unwrap()
}

/// Sizes around powers of two, around `T`'s tiles of every class (one tile, one and a bit,
/// three and a bit) and around the largest input of each class.
fn sizes<T: ScanItem>() -> Vec<usize> {
    let size = std::mem::size_of::<T>();
    let mut v =
        vec![0, 1, 31, 33, 2047, 2049, 4095, 4096, 4097, 8191, 8193, 12_345, (1 << 16) - 1, (1 << 16) + 1, 1_000_003];
    for class in scan_abi::TileClass::ALL {
        let tile = scan_abi::tile_items(size, class);
        v.extend([tile - 1, tile, tile + 1, 3 * tile + 7]);
    }
    // The last input of each class and the first of the next (2^22 8-byte elements is the
    // largest: skipped under the sanitizers).
    for max_bytes in [scan_abi::SMALL_MAX_BYTES, scan_abi::MEDIUM_MAX_BYTES_8] {
        let last = (max_bytes / size as u64) as usize;
        if !small() || last < 1 << 21 {
            v.extend([last, last + 1]);
        }
    }
    if !small() {
        v.push((1 << 22) + 5);
    }
    v
}

fn every_scan_of<T: TestElement>(gpu: &Gpu) {
    for n in sizes::<T>() {
        for (seed, scan) in SCANS.into_iter().enumerate() {
            let name = format!("{} {scan:?}", T::SUFFIX);
            let r = T::random(n, 100 + seed as u64);
            check(&run_scan(gpu, &r, scan), &r, scan, false, &format!("{name} random"));
            // Partial sums of up to 2^20 small integers are exact: float sums compare exactly.
            let s = T::small_ints(n.min(1 << 20), 200 + seed as u64);
            check(&run_scan(gpu, &s, scan), &s, scan, true, &format!("{name} small integers"));
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scans_of_u32_and_i32_match_cpu() {
    let gpu = gpu();
    every_scan_of::<u32>(&gpu);
    every_scan_of::<i32>(&gpu);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scans_of_u64_and_i64_match_cpu() {
    let gpu = gpu();
    every_scan_of::<u64>(&gpu);
    every_scan_of::<i64>(&gpu);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scans_of_f32_and_f64_match_cpu() {
    let gpu = gpu();
    every_scan_of::<f32>(&gpu);
    every_scan_of::<f64>(&gpu);
}

/// All equal; descending (a new minimum at every element) and ascending (a new maximum);
/// extremes and, for floats, NaN, infinities and signed zeros scattered over integer values.
fn adversarial<T: TestElement>(gpu: &Gpu) {
    for n in [1usize, 4097, 70_001, 1_000_003] {
        let equal = vec![T::from_i32(7); n];
        let descending: Vec<T> = (0..n).map(|i| T::from_i32(1_000_000 - i as i32)).collect();
        let ascending: Vec<T> = (0..n).map(|i| T::from_i32(i as i32 - 500_000)).collect();
        let specials = T::specials();
        let mut mixed = T::small_ints(n, 9);
        for (k, at) in (0..n).step_by(n / 7 + 1).enumerate() {
            mixed[at] = specials[k % specials.len()];
        }
        for scan in SCANS {
            for (name, input) in
                [("equal", &equal), ("descending", &descending), ("ascending", &ascending), ("mixed", &mixed)]
            {
                // Integer-valued inputs below 2^24 in magnitude (sums up to 2^40 for the
                // descending ones: exact in f64, not in f32, so f32 sums of those are skipped).
                let inexact = std::mem::size_of::<T>() == 4
                    && T::FLOAT
                    && scan.op == ScanOp::Sum
                    && name != "mixed"
                    && name != "equal";
                if inexact {
                    continue;
                }
                check(&run_scan(gpu, input, scan), input, scan, true, &format!("{} {scan:?} {name}", T::SUFFIX));
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn adversarial_inputs_match_cpu() {
    let gpu = gpu();
    adversarial::<u32>(&gpu);
    adversarial::<i32>(&gpu);
    adversarial::<u64>(&gpu);
    adversarial::<i64>(&gpu);
    adversarial::<f32>(&gpu);
    adversarial::<f64>(&gpu);
}

fn in_place<T: TestElement>(gpu: &Gpu, scratch: &mut cudarc::driver::CudaSlice<u32>) {
    for n in [1usize, 4097, 1_000_003] {
        for scan in SCANS {
            let input = T::small_ints(n, 31);
            let mut data = gpu.upload(&input).unwrap();
            gpu.scan_in_place(&mut data, scan, scratch).unwrap();
            let got = gpu.download(&data).unwrap();
            let want = cpu_scan(&input, scan);
            assert!((0..n).all(|i| same(got[i], want[i])), "{} {scan:?} in place, n = {n}", T::SUFFIX);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn in_place_scans_reuse_one_scratch() {
    let gpu = gpu();
    // Large enough for every call below; each call clears what it uses.
    let mut scratch = gpu.filled::<u32>(scratch_len::<f64>(1_000_003), 0xff).unwrap();
    in_place::<u32>(&gpu, &mut scratch);
    in_place::<i64>(&gpu, &mut scratch);
    in_place::<f32>(&gpu, &mut scratch);
    in_place::<f64>(&gpu, &mut scratch);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn misaligned_views_take_the_element_path() {
    let gpu = gpu();
    let n = 100_003;
    let input = u32::random(n + 1, 5);
    let d = gpu.upload(&input).unwrap();
    let mut out = gpu.filled::<u32>(n + 2, POISON).unwrap();
    let mut scratch = gpu.zeros::<u32>(scratch_len::<u32>(n) + 1).unwrap();
    // Views one element in: 4 bytes off the 16-byte alignment of the fast path, and the
    // scratch one word in (the states realign themselves).
    let mut scratch_view = scratch.slice_mut(1..);
    gpu.scan_into(&d.slice(1..), &mut out.slice_mut(1..n + 1), Scan::inclusive(ScanOp::Sum), &mut scratch_view)
        .unwrap();
    let got = gpu.download(&out).unwrap();
    let want = cpu::inclusive_scan(&input[1..], Op::Sum);
    assert_eq!(got[0], 0xABAB_ABAB);
    assert_eq!(got[n + 1], 0xABAB_ABAB);
    assert!(got[1..n + 1] == want[..]);

    let input = f64::small_ints(n + 1, 6);
    let d = gpu.upload(&input).unwrap();
    let mut out = gpu.zeros::<f64>(n).unwrap();
    gpu.scan(&d.slice(1..), &mut out, Scan::exclusive(ScanOp::Sum)).unwrap();
    assert!(gpu.download(&out).unwrap() == cpu::exclusive_scan(&input[1..], Op::Sum));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn bad_input_is_a_typed_error() {
    let gpu = gpu();
    let d = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut short = gpu.zeros::<u32>(2).unwrap();
    assert!(matches!(gpu.exclusive_scan(&d, &mut short), Err(Error::BufferTooSmall { len: 2, needed: 3, .. })));
    let mut out = gpu.zeros::<u32>(3).unwrap();
    let mut scratch = gpu.zeros::<u32>(scratch_len::<u32>(3) - 1).unwrap();
    assert!(matches!(
        gpu.scan_into(&d, &mut out, Scan::EXCLUSIVE_SUM, &mut scratch),
        Err(Error::BufferTooSmall { what: "scan scratch (u32 words)", .. })
    ));
    // More tiles than one launch can have: refused before anything is bound or issued (the
    // raw slices are never dereferenced).
    let n = 1usize << 46;
    let huge = unsafe { RawSlice::<u32>::from_raw_parts(1 << 20, n) }.unwrap();
    let mut huge_out = unsafe { warpwork::RawSliceMut::<u32>::from_raw_parts(1 << 20, n) }.unwrap();
    let mut scratch = gpu.zeros::<u32>(1).unwrap();
    assert!(matches!(
        gpu.scan_into(&huge, &mut huge_out, Scan::EXCLUSIVE_SUM, &mut scratch),
        Err(Error::CapacityExceeded { .. })
    ));
}

/// Scratch sized for 2^18 + 1 `u32`s (33 standard tiles) serves 2^18 and fewer (128 small
/// tiles): the size query counts the most tiles of any shorter input.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scratch_for_a_longer_input_serves_a_shorter_one() {
    let gpu = gpu();
    let mut scratch = gpu.filled::<u32>(scratch_len::<u32>((1 << 18) + 1), 0xff).unwrap();
    for n in [(1usize << 18) + 1, 1 << 18, (1 << 18) - 1, 5] {
        let input = u32::small_ints(n, 32);
        let mut data = gpu.upload(&input).unwrap();
        let scan = Scan::exclusive(ScanOp::Sum);
        gpu.scan_in_place(&mut data, scan, &mut scratch).unwrap();
        check(&gpu.download(&data).unwrap(), &input, scan, true, &format!("u32 n = {n} in longer scratch"));
    }
}
