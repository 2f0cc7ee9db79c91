use super::*;

#[test]
fn state_lengths_cover_every_body() {
    assert_eq!(state_len::<u8>(Variant::Warp, 1 << 40), 1);
    // 2^20 u32 items: 128 tiles of 8192, or 256 of the generic path's 4096 (a by-flag call at
    // an unaligned address) → count, start, alignment room, 2 per tile.
    assert_eq!(state_len::<u32>(Variant::Ordered, 1 << 20), 3 + 2 * 256);
    // 16-byte items by flag: 512 tiles of 2048, or 256 of the generic path's 4096.
    assert_eq!(state_len::<[u32; 4]>(Variant::Ordered, 1 << 20), 3 + 2 * 512);
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
