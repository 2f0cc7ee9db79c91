use super::*;

#[test]
fn state_lengths_cover_every_body() {
    assert_eq!(state_len::<u8>(Variant::Warp, 1 << 40), 1);
    // 2^20 u32 items: 128 tiles of 8192 for the select, 256 of the generic path's 4096 (a
    // by-flag call at an unaligned address), and 512 of the small tiles of 2048 that the
    // partition, unique and run kernels take up to 32 MiB → count, start, alignment room, 2
    // per tile.
    assert_eq!(state_len::<u32>(Variant::Ordered, 1 << 20), 3 + 2 * 512);
    // 16-byte items by flag: 512 tiles of 2048 for the select, 256 of the generic path's 4096,
    // 2048 of the family's small tiles of 512.
    assert_eq!(state_len::<[u32; 4]>(Variant::Ordered, 1 << 20), 3 + 2 * 2048);
    // Zero-sized items: sized as bytes, refused by the call.
    assert_eq!(state_len::<()>(Variant::Ordered, 0), 3);
}

/// The ordered select with its look-back's fallback forced at every wait (and odd tiles late to
/// publish, so that their successors count them from the input): the same items in the same
/// order as the CPU, for a value test and for flags, through the typed, 16-byte and generic
/// kernels, and appending.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn forced_fallback_matches_cpu() {
    use warpwork_cpu_reference::{inputs, select as cpu};
    let gpu = Gpu::new(0).expect("GPU");
    fn run<T: Pod>(gpu: &Gpu, items: &[T], keep: Keep<'_, T>, expected: &[T], append: bool, what: &str) {
        let d = gpu.upload(items).unwrap();
        let mut out = gpu.filled::<T>(2 * items.len(), 0xAB).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<T>(Variant::Ordered, items.len())).unwrap();
        gpu.launch_select(&d, keep, Variant::Ordered, &mut out, &mut state, false, true).unwrap();
        let mut want = expected.to_vec();
        if append {
            gpu.launch_select(&d, keep, Variant::Ordered, &mut out, &mut state, true, true).unwrap();
            want.extend_from_slice(expected);
        }
        let count = gpu.select_count(&out, &state).unwrap();
        let got = gpu.download(&out).unwrap();
        let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
        assert!(bytes(&got[..count]) == bytes(&want), "{what}: items or their order differ");
        assert!(bytes(&got[count..]).iter().all(|&b| b == 0xAB), "{what}: wrote past the count");
    }
    for n in [8193usize, 300_001, (1 << 20) + 3] {
        let items = inputs::uniform_u32(n, 5 + n as u64);
        let flags = inputs::flags(n, 6 + n as u64, 0.5);
        let d_flags = gpu.upload(&flags).unwrap();
        let keep = Keep::If(Predicate::Less(1 << 31));
        run(&gpu, &items, keep, &cpu::select_if(&items, |v| v < 1 << 31), true, &format!("u32 if, n = {n}"));
        let by_flag = cpu::select_flagged(&items, &flags);
        run(&gpu, &items, Keep::Flagged(&d_flags), &by_flag, false, &format!("u32 flagged, n = {n}"));
        let bytes: Vec<u8> = items.iter().map(|&v| v as u8).collect();
        let kept = cpu::select_flagged(&bytes, &flags);
        run(&gpu, &bytes, Keep::Flagged(&d_flags), &kept, false, &format!("u8 flagged, n = {n}"));
        let wide: Vec<[u32; 4]> = items.iter().map(|&v| [v, !v, v ^ 5, 3]).collect();
        let kept = cpu::select_flagged(&wide, &flags);
        run(&gpu, &wide, Keep::Flagged(&d_flags), &kept, false, &format!("16-byte flagged, n = {n}"));
        let odd: Vec<[u8; 3]> = items.iter().map(|&v| [v as u8, (v >> 8) as u8, (v >> 16) as u8]).collect();
        let kept = cpu::select_flagged(&odd, &flags);
        run(&gpu, &odd, Keep::Flagged(&d_flags), &kept, true, &format!("3-byte flagged, n = {n}"));
    }
}

/// Partition and unique with the look-back's fallback forced (the silent tiles counted from the
/// input by the waiting warp, by the partition's test and by unique's comparison with the item
/// before): the CPU's items in the CPU's order.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn forced_fallback_partition_and_unique_match_cpu() {
    use super::family::Mode;
    use warpwork_cpu_reference::{family as cpu, inputs};
    let gpu = Gpu::new(0).expect("GPU");
    fn run<T: Pod>(gpu: &Gpu, items: &[T], mode: Mode<'_, T>, expected: &[T], count: usize, what: &str) {
        let d = gpu.upload(items).unwrap();
        let mut out = gpu.filled::<T>(items.len(), 0xAB).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<T>(Variant::Ordered, items.len())).unwrap();
        gpu.launch_family(&d, mode, &mut out, &mut state, true).unwrap();
        assert_eq!(gpu.select_count(&out, &state).unwrap(), count, "{what}: count");
        let got = gpu.download(&out).unwrap();
        let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
        assert!(bytes(&got[..expected.len()]) == bytes(expected), "{what}: items or their order differ");
        assert!(bytes(&got[expected.len()..]).iter().all(|&b| b == 0xAB), "{what}: wrote past the result");
    }
    for n in [8193usize, 300_001, (1 << 20) + 3] {
        let items = inputs::uniform_u32(n, 5 + n as u64);
        let flags = inputs::flags(n, 6 + n as u64, 0.5);
        let d_flags = gpu.upload(&flags).unwrap();
        let (want, kept) = cpu::partition_if(&items, |v| v < 1 << 31);
        let keep = Keep::If(Predicate::Less(1 << 31));
        run(&gpu, &items, Mode::Partition(keep), &want, kept, &format!("u32 partition if, n = {n}"));
        let bytes: Vec<u8> = items.iter().map(|&v| v as u8).collect();
        let (want, kept) = cpu::partition_flagged(&bytes, &flags);
        run(&gpu, &bytes, Mode::Partition(Keep::Flagged(&d_flags)), &want, kept, &format!("u8 partition, n = {n}"));
        let runs: Vec<u32> = items.iter().map(|&v| v >> 30).collect();
        let want = cpu::unique(&runs);
        run(&gpu, &runs, Mode::Unique, &want, want.len(), &format!("u32 unique, n = {n}"));
        let wide: Vec<[u32; 4]> = runs.iter().map(|&v| [v, 1, 2, 3]).collect();
        let want = cpu::unique(&wide);
        run(&gpu, &wide, Mode::Unique, &want, want.len(), &format!("16-byte unique, n = {n}"));
    }
    // The partition at the edges of its u32 tiles (2048 items in the small class, 6144 in the
    // large one from 2^19 items on), keeping all, none or every other item.
    for n in [2047usize, 2049, 3 * 2048, 3 * 2048 + 1, 86 * 6144 - 1, 87 * 6144 + 1] {
        let items = inputs::uniform_u32(n, 9 + n as u64);
        for (name, flags) in
            [("all", vec![1u8; n]), ("none", vec![0u8; n]), ("every other", (0..n).map(|i| (i % 2) as u8).collect())]
        {
            let d_flags = gpu.upload(&flags).unwrap();
            let (want, kept) = cpu::partition_flagged(&items, &flags);
            let what = format!("u32 partition {name}, n = {n}");
            run(&gpu, &items, Mode::Partition(Keep::Flagged(&d_flags)), &want, kept, &what);
        }
    }
}

/// Run-length encoding, the non-trivial runs and unique by key in one pass each, with both
/// look-backs' fallback forced (and odd tiles late to publish): values, lengths, offsets as the
/// CPU's, on runs that cross tiles (a tile of 4-byte items holds 2048 or 6144: long runs of one
/// value and runs around a tile's length), and on items all different.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn forced_fallback_runs_match_cpu() {
    use super::runs::{runs_state_len, RunCall};
    use warpwork_cpu_reference::{family as cpu, inputs};
    let gpu = Gpu::new(0).expect("GPU");
    let mut cases: Vec<(String, Vec<u32>)> = Vec::new();
    for n in [8193usize, 300_001, (1 << 20) + 3] {
        let few: Vec<u32> = inputs::uniform_u32(n, 7 + n as u64).iter().map(|&v| v >> 30).collect();
        cases.push((format!("4 values, n = {n}"), few));
        cases.push((format!("one run, n = {n}"), vec![9; n]));
        cases.push((format!("all different, n = {n}"), (0..n as u32).collect()));
        // Runs of a tile's length plus or minus one (both tile classes), and very long ones.
        for len in [2047usize, 2049, 6143, 6145, 100_003] {
            cases.push((format!("runs of {len}, n = {n}"), (0..n).map(|i| (i / len) as u32).collect()));
        }
    }
    for (what, items) in &cases {
        let n = items.len();
        let d = gpu.upload(items).unwrap();
        let mut state = gpu.zeros::<u64>(runs_state_len::<u32>(n)).unwrap();
        // Encode.
        let (want_values, want_lengths) = cpu::run_length_encode(items);
        let (mut values, mut lengths) = (gpu.filled::<u32>(n, 0xAB).unwrap(), gpu.filled::<u64>(n, 0xAB).unwrap());
        let call: RunCall<u32, u64, u8> = RunCall::Encode { values: &mut values, lengths: &mut lengths };
        gpu.launch_runs(&d, call, &mut state, true).unwrap();
        let count = gpu.select_count(&values, &state).unwrap();
        assert_eq!(gpu.download_prefix(&values, count).unwrap(), want_values, "{what}: values");
        assert_eq!(gpu.download_prefix(&lengths, count).unwrap(), want_lengths, "{what}: lengths");
        // Non-trivial runs, u32 offsets and lengths.
        let (want_offsets, want_lengths) = cpu::non_trivial_runs(items);
        let (mut offsets, mut lengths) = (gpu.filled::<u32>(n, 0xAB).unwrap(), gpu.filled::<u32>(n, 0xAB).unwrap());
        let call: RunCall<u32, u32, u8> = RunCall::NonTrivial { offsets: &mut offsets, lengths: &mut lengths };
        gpu.launch_runs(&d, call, &mut state, true).unwrap();
        let count = gpu.select_count(&offsets, &state).unwrap();
        let as64 = |v: Vec<u32>| v.into_iter().map(u64::from).collect::<Vec<u64>>();
        assert_eq!(as64(gpu.download_prefix(&offsets, count).unwrap()), want_offsets, "{what}: offsets");
        assert_eq!(as64(gpu.download_prefix(&lengths, count).unwrap()), want_lengths, "{what}: run lengths");
        // Unique by key: each key's index as its value.
        let index: Vec<u64> = (0..n as u64).collect();
        let d_index = gpu.upload(&index).unwrap();
        let (mut keys, mut kept) = (gpu.filled::<u32>(n, 0xAB).unwrap(), gpu.filled::<u64>(n, 0xAB).unwrap());
        let call: RunCall<u32, u32, u64> =
            RunCall::ByKey { keys_out: &mut keys, values: &d_index, values_out: &mut kept };
        gpu.launch_runs(&d, call, &mut state, true).unwrap();
        let count = gpu.select_count(&keys, &state).unwrap();
        let firsts: Vec<u64> = (0..n).filter(|&i| i == 0 || items[i] != items[i - 1]).map(|i| i as u64).collect();
        assert_eq!(gpu.download_prefix(&keys, count).unwrap(), want_values, "{what}: keys");
        assert_eq!(gpu.download_prefix(&kept, count).unwrap(), firsts, "{what}: key values");
    }
}

/// Every state length of the select family never falls as `n` grows (the tiles grow with the
/// input, so a shorter input can take more of them): a state for `n` items serves every shorter
/// input. Around each tile-class boundary and far beyond.
#[test]
fn state_lengths_never_fall_as_n_grows() {
    fn check(what: &str, len: impl Fn(usize) -> usize) {
        let (mut n, mut last) = (0usize, 0);
        while n < 1 << 40 {
            let l = len(n);
            assert!(l >= last, "{what}: {l} at n = {n}, {last} below it");
            last = l;
            n = n * 33 / 32 + 1 + n % 5;
        }
        for bytes in [2usize << 20, 32 << 20, 128 << 20] {
            for size in [1, 4, 8, 16] {
                let m = bytes / size;
                assert!(len(m + 1) >= len(m) && len(m) >= len(m - 1), "{what}: at {m}");
            }
        }
    }
    for variant in [Variant::Lane, Variant::Warp, Variant::Block, Variant::Ordered] {
        check(&format!("select {variant:?} u8"), |n| state_len::<u8>(variant, n));
        check(&format!("select {variant:?} u32"), |n| state_len::<u32>(variant, n));
        check(&format!("select {variant:?} u64"), |n| state_len::<u64>(variant, n));
        check(&format!("select {variant:?} [u8; 3]"), |n| state_len::<[u8; 3]>(variant, n));
        check(&format!("select {variant:?} [u32; 4]"), |n| state_len::<[u32; 4]>(variant, n));
    }
    check("run length u32", |n| crate::run_length::state_len::<u32>(n, n));
    check("non-trivial runs u64", |n| crate::run_length::non_trivial_state_len::<u64>(n, n));
    check("partition u16", crate::partition::state_len::<u16>);
}
