//! Unit tests of `scan` (no GPU needed).

#[test]
fn every_kernel_name_is_one_the_abi_lists() {
    fn check<T: ScanItem>() {
        use warpwork_abi::kernels::{SCAN_KERNELS, SCAN_MEDIUM_KERNELS, SCAN_SMALL_KERNELS};
        for (class, names) in TileClass::ALL.iter().zip(T::KERNELS) {
            let list: &[&str] = match (class, class.exists_for(std::mem::size_of::<T>())) {
                (TileClass::Small, _) => &SCAN_SMALL_KERNELS,
                (TileClass::Medium, true) => &SCAN_MEDIUM_KERNELS,
                _ => &SCAN_KERNELS,
            };
            for name in names.iter().flatten() {
                assert!(list.contains(name), "{name}");
            }
        }
        for name in T::BASED_KERNELS {
            assert!(warpwork_abi::kernels::SCAN_BASED_KERNELS.contains(&name), "{name}");
        }
    }
    check::<u32>();
    check::<i32>();
    check::<u64>();
    check::<i64>();
    check::<f32>();
    check::<f64>();
}

use super::*;

#[test]
fn scratch_covers_the_states_at_any_alignment() {
    for n in [1usize, 4095, 4096, 4097, 1 << 20, 1 << 22, 1 << 24, (1 << 32) + 7] {
        let t32 = tiles::<u32>(n);
        let small = TileClass::of(4, n as u64) == TileClass::Small;
        assert_eq!(t32, n.div_ceil(if small { 2048 } else { 8192 }));
        assert_eq!(scratch_len::<u32>(n), 2 * t32 + 3);
        let t64 = tiles::<u64>(n);
        let (items, threads) = match TileClass::of(8, n as u64) {
            TileClass::Small => (1024, 128),
            TileClass::Medium => (4096, 256),
            TileClass::Standard => (4096, 128),
        };
        assert_eq!(t64, n.div_ceil(items));
        assert_eq!(scratch_len::<f64>(n), 4 * t64 + 3);
        assert_eq!(kernel::<u64>(Scan::EXCLUSIVE_SUM, n).1, threads);
    }
    assert_eq!(kernel::<u32>(Scan::EXCLUSIVE_SUM, 1 << 16), ("scan_small_exclusive_sum_u32", 256));
    assert_eq!(kernel::<u32>(Scan::EXCLUSIVE_SUM, 1 << 26), ("scan_exclusive_sum_u32", 256));
    assert_eq!(kernel::<u32>(Scan::EXCLUSIVE_SUM, 1 << 20), ("scan_exclusive_sum_u32", 256));
    assert_eq!(kernel::<f64>(Scan::EXCLUSIVE_SUM, 1 << 20), ("scan_medium_exclusive_sum_f64", 256));
    assert_eq!(tiles::<i32>((1 << 32) + 7), (1 << 19) + 1);
}

/// The look-back's fallback forced at every wait (and odd tiles late to publish, so that
/// their successors wait): results still match the CPU, for the packed (4-byte) and split
/// (8-byte) tile states, in place too.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn forced_fallback_matches_cpu() {
    use cudarc::driver::CudaSlice;
    use warpwork_cpu_reference::{inputs, scan as cpu};
    let gpu = Gpu::new(0).expect("GPU");
    for n in [4097usize, 300_001, 1 << 20] {
        let small = inputs::uniform_range(n, 7, 0, 100);
        let mut scratch = gpu.zeros::<u32>(scratch_len::<f64>(n)).unwrap();

        let d = gpu.upload(&small).unwrap();
        let mut out = gpu.filled::<u32>(n + 1, 0xAB).unwrap();
        gpu.launch_scan(Operands::Apart(&d, &mut out), Scan::EXCLUSIVE_SUM, &mut scratch, true, None).unwrap();
        let got = gpu.download(&out).unwrap();
        assert!(got[..n] == cpu::exclusive_scan(&small, cpu::Op::Sum)[..], "u32 sum, n = {n}");
        assert_eq!(got[n], 0xABAB_ABAB);

        let wide: Vec<f64> = small.iter().map(|&x| x as f64 - 50.0).collect();
        let d = gpu.upload(&wide).unwrap();
        let mut out = gpu.zeros::<f64>(n).unwrap();
        gpu.launch_scan(Operands::Apart(&d, &mut out), Scan::inclusive(ScanOp::Sum), &mut scratch, true, None).unwrap();
        assert!(gpu.download(&out).unwrap() == cpu::inclusive_scan(&wide, cpu::Op::Sum), "f64 sum, n = {n}");

        let signed: Vec<i64> = inputs::uniform_u64(n, 8).into_iter().map(|x| x as i64).collect();
        let mut data = gpu.upload(&signed).unwrap();
        let scan = Scan::inclusive(ScanOp::Max);
        gpu.launch_scan::<i64, CudaSlice<i64>, _>(Operands::InPlace(&mut data), scan, &mut scratch, true, None)
            .unwrap();
        assert!(gpu.download(&data).unwrap() == cpu::inclusive_scan(&signed, cpu::Op::Max), "i64 max in place");

        let mut data = gpu.upload(&small).unwrap();
        let scan = Scan::exclusive(ScanOp::Min);
        gpu.launch_scan::<u32, CudaSlice<u32>, _>(Operands::InPlace(&mut data), scan, &mut scratch, true, None)
            .unwrap();
        assert!(gpu.download(&data).unwrap() == cpu::exclusive_scan(&small, cpu::Op::Min), "u32 min in place");
    }
}

#[test]
fn kernel_names_are_systematic() {
    assert_eq!(kernel::<u32>(Scan::EXCLUSIVE_SUM, 1 << 30).0, "scan_exclusive_sum_u32");
    assert_eq!(kernel::<f64>(Scan::inclusive(ScanOp::Max), 1 << 30).0, "scan_inclusive_max_f64");
    assert_eq!(kernel::<i64>(Scan::exclusive(ScanOp::Min), 5).0, "scan_small_exclusive_min_i64");
}

#[test]
fn a_sum_from_a_base_fits_the_plain_scans_scratch() {
    // It runs standard tiles at every size: never more tiles than the class the plain scan picks.
    fn check<T: ScanItem>() {
        for n in [0usize, 1, 31, 4097, (1 << 16) + 1, (1 << 20) + 3, 1 << 26, (1 << 32) + 7] {
            assert!(based_tiles::<T>(n) <= tiles::<T>(n), "n = {n}");
            assert!(tile_state_words(std::mem::size_of::<T>(), based_tiles::<T>(n)) + 3 <= scratch_len::<T>(n));
        }
        assert_eq!(based_kernel::<T>(ScanKind::Exclusive).0, T::BASED_KERNELS[0]);
        assert_eq!(based_kernel::<T>(ScanKind::Inclusive).0, T::BASED_KERNELS[1]);
    }
    check::<u32>();
    check::<i32>();
    check::<u64>();
    check::<i64>();
    check::<f32>();
    check::<f64>();
}

/// The scratch never shrinks as `n` grows (the tiles grow with the input's class, so a shorter
/// input can take more of them): scratch for `n` elements serves every shorter input.
#[test]
fn scratch_never_falls_as_n_grows() {
    fn check<T: ScanItem>() {
        let (mut n, mut last) = (0usize, 0);
        while n < 1 << 40 {
            let words = scratch_len::<T>(n);
            assert!(words >= last, "{}: {words} at n = {n}, {last} below it", T::SUFFIX);
            assert!(words >= tile_state_words(std::mem::size_of::<T>(), tiles::<T>(n)) + 3);
            last = words;
            n = n * 33 / 32 + 1 + n % 5;
        }
    }
    check::<u32>();
    check::<u64>();
    check::<f64>();
    // 2^18 u32s take 128 small tiles, one more element 33 standard ones.
    assert!(tiles::<u32>((1 << 18) + 1) < tiles::<u32>(1 << 18));
    assert_eq!(scratch_len::<u32>((1 << 18) + 1), scratch_len::<u32>(1 << 18));
}
