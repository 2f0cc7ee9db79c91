//! GPU tests of the scan from a base in device memory (`Gpu::scan_with_base`, what each rank of
//! a sharded scan runs; no NCCL needed): the exclusive and inclusive sums of every scan type,
//! each element plus the sum of `k` = 0, 1 or 7 base elements, at odd sizes, into poisoned
//! outputs, against the CPU reference.

mod common;

use common::values::TestValues;
use common::{gpu, is_poisoned, poisoned, small};

use warpwork::cudarc::driver::CudaSlice;
use warpwork::scan::{ScanItem, ScanKind};
use warpwork_cpu_reference::inputs;
use warpwork_cpu_reference::scan::{self as cpu, Element, Op};

/// Values in -1..=2 (integers for every type): every partial sum of up to 2^22 of them is exact,
/// floats included, so the GPU's order of evaluation does not matter.
fn values<T: TestValues>(n: usize, seed: u64) -> Vec<T> {
    inputs::uniform_range(n, seed, 0, 4).into_iter().map(|x| T::from_i32(x as i32 - 1)).collect()
}

fn check_based<T: ScanItem + Element + TestValues>(n: usize, k: usize, kind: ScanKind, seed: u64) {
    let gpu = gpu();
    let input = values::<T>(n, seed);
    let base = values::<T>(k, seed + 1);
    let d_in = gpu.upload(&input).unwrap();
    let d_base = gpu.upload(&base).unwrap();
    let mut out: CudaSlice<T> = poisoned(&gpu, n + 1);
    gpu.scan_with_base(&d_in, &mut out, kind, &d_base).unwrap();
    let start = base.iter().fold(T::identity(Op::Sum), |a, &b| T::combine(Op::Sum, a, b));
    let plain = match kind {
        ScanKind::Exclusive => cpu::exclusive_scan(&input, Op::Sum),
        ScanKind::Inclusive => cpu::inclusive_scan(&input, Op::Sum),
    };
    let got = gpu.download(&out).unwrap();
    for i in 0..n {
        let want = T::combine(Op::Sum, start, plain[i]);
        assert!(
            got[i] == want,
            "{} {kind:?} n {n} k {k}: element {i} is {:?}, expected {want:?}",
            std::any::type_name::<T>(),
            got[i]
        );
    }
    assert!(is_poisoned(&got[n..]), "n {n} k {k}: wrote past n");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_with_base_adds_the_sum_of_a_device_array() {
    let big = if small() { (1 << 16) + 1 } else { (1 << 22) + 5 };
    for n in [0, 1, 31, 33, (1 << 13) - 1, (1 << 13) + 1, (1 << 16) + 1, big] {
        for k in [0, 1, 7] {
            for kind in [ScanKind::Exclusive, ScanKind::Inclusive] {
                let seed = (n * 10 + k) as u64;
                check_based::<u32>(n, k, kind, seed);
                check_based::<i32>(n, k, kind, seed);
                check_based::<u64>(n, k, kind, seed);
                check_based::<i64>(n, k, kind, seed);
                check_based::<f32>(n, k, kind, seed);
                check_based::<f64>(n, k, kind, seed);
            }
        }
    }
}
