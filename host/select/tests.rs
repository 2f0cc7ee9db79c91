//! Unit tests of `select`: sizes without a GPU, and the ordered look-back's forced fallback on
//! one (ignored here: run the GPU suite).

use super::*;
use warpwork_abi::select as abi;
use warpwork_cpu_reference::{inputs, select as cpu};

#[test]
fn state_lengths_cover_every_body() {
    assert_eq!(state_len::<u8>(Variant::Warp, 1 << 40), 1);
    // 2^20 u32 items: 128 tiles of 512 × 16 (the generic path's tiles are as many) → 1 + 128.
    assert_eq!(state_len::<u32>(Variant::Ordered, 1 << 20), 1 + 128);
    // 16-byte items: tiles of 512 × 4.
    assert_eq!(state_len::<[u32; 4]>(Variant::Ordered, 1 << 20), 1 + 512);
    // 3-byte items: the generic path only (512 × 16).
    assert_eq!(state_len::<[u8; 3]>(Variant::Ordered, (1 << 20) + 3), 1 + 129);
    // One tile, and none.
    assert_eq!(state_len::<u64>(Variant::Ordered, 1), 2);
    assert_eq!(state_len::<u64>(Variant::Ordered, 0), 1);
    // Zero-sized items: sized as bytes, refused by the call.
    assert_eq!(state_len::<()>(Variant::Ordered, 0), 1);
    // Past 2^32 items: 64-bit sizes, one u64 per tile.
    assert_eq!(state_len::<u8>(Variant::Ordered, (1 << 36) + 7), 1 + (1 << 23) + 1);
}

/// Items of `T` in one tile of the ordered kernel that serves `T` (aligned: the typed body of
/// its size; other sizes: the generic path).
fn ordered_tile<T>() -> usize {
    let size = std::mem::size_of::<T>();
    let per_thread = if [1, 2, 4, 8, 16].contains(&size) { abi::ordered_items(size) } else { abi::BYTES_ITEMS };
    abi::ORDERED_THREADS as usize * per_thread
}

/// The sizes every body is checked at: 0, 1, 31, 33, a tile ± 1, a few tiles and 2^20 + 3.
fn sizes(tile: usize) -> [usize; 9] {
    [0, 1, 31, 33, tile - 1, tile, tile + 1, 3 * tile + 5, (1 << 20) + 3]
}

/// Items already in the output before each call (`state[0]`'s starting value): the kept items
/// land after them, and tile 0 seeds the look-back with it.
const PRESET: usize = 5;
/// Slots after the expected ones that must stay poisoned.
const SLACK: usize = 3;

/// Runs the ordered select of `items` with the fallback forced and checks it against
/// `expected` (the CPU's result): the count, the kept items in order after [`PRESET`] poisoned
/// slots, and the poison after them.
fn check_forced<T: Pod>(gpu: &Gpu, items: &[T], keep: KeepOn<T>, expected: &[T], what: &str) {
    let n = items.len();
    let d_items = gpu.upload(items).unwrap();
    let mut out = gpu.filled::<T>(PRESET + n + SLACK, 0xAB).unwrap();
    let mut state = vec![0u64; state_len::<T>(Variant::Ordered, n)];
    state[0] = PRESET as u64;
    // Garbage in the tile states: the call must clear them.
    state[1..].fill(u64::MAX);
    let mut d_state = gpu.upload(&state).unwrap();
    match keep {
        KeepOn::Flags(flags) => {
            let d_flags = gpu.upload(&flags).unwrap();
            gpu.launch_select(&d_items, Keep::Flagged(&d_flags), Variant::Ordered, &mut out, &mut d_state, true)
        }
        KeepOn::Test(p) => gpu.launch_select(&d_items, Keep::If(p), Variant::Ordered, &mut out, &mut d_state, true),
    }
    .unwrap_or_else(|e| panic!("{what}, n = {n}: {e}"));
    let count = gpu.select_count(&out, &d_state).unwrap();
    assert_eq!(count, PRESET + expected.len(), "{what}, n = {n}: count");
    let got = gpu.download(&out).unwrap();
    let bytes: &[u8] = bytemuck::cast_slice(&got);
    let size = std::mem::size_of::<T>();
    assert!(bytes[..PRESET * size].iter().all(|&b| b == 0xAB), "{what}, n = {n}: slots before the preset written");
    let kept = &bytes[PRESET * size..count * size];
    if kept != bytemuck::cast_slice::<T, u8>(expected) {
        let first = kept.iter().zip(bytemuck::cast_slice::<T, u8>(expected)).position(|(a, b)| a != b);
        panic!("{what}, n = {n}: kept items differ from the CPU's (first at byte {first:?})");
    }
    assert!(bytes[count * size..].iter().all(|&b| b == 0xAB), "{what}, n = {n}: slots past the count written");
}

/// How a [`check_forced`] call keeps items.
enum KeepOn<T> {
    Flags(Vec<u8>),
    Test(Predicate<T>),
}

/// By flag, at a rate, and all / none kept; the CPU reference decides.
fn by_flags<T: Pod + Send + Sync>(gpu: &Gpu, items: &[T], seed: u64, what: &str) {
    let n = items.len();
    for (rate, how) in [(0.5, "half"), (1.0, "all"), (0.0, "none")] {
        let flags = inputs::flags(n, seed, rate);
        let expected = cpu::select_flagged(items, &flags);
        check_forced(gpu, items, KeepOn::Flags(flags), &expected, &format!("{what} by flag, {how} kept"));
    }
}

/// By value test; the CPU reference (with the predicate's own `test`) decides.
fn by_test<T: SelectItem + Send + Sync>(gpu: &Gpu, items: &[T], predicates: &[Predicate<T>], what: &str) {
    for &p in predicates {
        let expected = cpu::select_if(items, |v| p.test(v));
        check_forced(gpu, items, KeepOn::Test(p), &expected, &format!("{what} if {p:?}"));
    }
}

/// The ordered select with the look-back's fallback forced (odd tiles publish late; every
/// waiting warp counts a silent predecessor's kept items itself, tile 0's including the preset
/// count): every kernel body (typed of 1, 2, 4, 8 bytes by test and by flag, 16-byte, generic)
/// matches the CPU at sizes around its tile, with all and none kept.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn ordered_forced_fallback_matches_cpu() {
    let gpu = Gpu::new(0).expect("GPU");
    let words = |n: usize, seed| inputs::uniform_u32(n, seed);

    for n in sizes(ordered_tile::<u8>()) {
        let items: Vec<u8> = words(n, 1).into_iter().map(|w| w as u8).collect();
        by_test(&gpu, &items, &[Predicate::Less(100), Predicate::NonZero, Predicate::Less(0)], "u8");
        by_flags(&gpu, &items, 2, "u8");
    }
    for n in sizes(ordered_tile::<i16>()) {
        let items: Vec<i16> = words(n, 3).into_iter().map(|w| w as i16).collect();
        by_test(&gpu, &items, &[Predicate::InRange(-1000, 20_000), Predicate::GreaterEqual(i16::MIN)], "i16");
    }
    for n in sizes(ordered_tile::<u32>()) {
        let items = words(n, 4);
        by_test(&gpu, &items, &[Predicate::GreaterEqual(u32::MAX / 2), Predicate::Equal(7)], "u32");
        by_flags(&gpu, &items, 5, "u32");
        let floats: Vec<f32> =
            items.iter().map(|&w| if w % 97 == 0 { f32::NAN } else { w as f32 / u32::MAX as f32 }).collect();
        by_test(&gpu, &floats, &[Predicate::Less(0.25)], "f32");
    }
    for n in sizes(ordered_tile::<u64>()) {
        let items = inputs::uniform_u64(n, 6);
        by_flags(&gpu, &items, 7, "u64");
        let floats: Vec<f64> = items.iter().map(|&w| if w % 3 == 0 { 0.0 } else { w as f64 }).collect();
        by_test(&gpu, &floats, &[Predicate::NonZero], "f64");
    }
    for n in sizes(ordered_tile::<[u32; 4]>()) {
        let items: Vec<[u32; 4]> = words(n, 8).into_iter().map(|w| [w, !w, w ^ 0x5555, n as u32]).collect();
        by_flags(&gpu, &items, 9, "16-byte");
    }
    for n in sizes(ordered_tile::<[u8; 3]>()) {
        let items: Vec<[u8; 3]> =
            words(n, 10).into_iter().map(|w| [w as u8, (w >> 8) as u8, (w >> 16) as u8]).collect();
        by_flags(&gpu, &items, 11, "3-byte (generic path)");
    }
}
