//! Select by flag over `Pod` items of every size class against the CPU reference: 1, 2, 4, 8
//! and 16 bytes (the typed kernels, 16-byte vector loads), every other size from 3 to 15 bytes
//! and larger ones (the generic path), power-of-two sizes at addresses not aligned to them (the
//! generic path too), and user record types. Needs a GPU (`--include-ignored`); with
//! `WARPWORK_SMALL` set inputs stop at 2^18 items.

mod select_support;

use bytemuck::{Pod, Zeroable};
use select_support::{check, flagged_suite, gpu, random_items, RATES};
use warpwork::select::{Keep, Variant};
use warpwork::{RawSlice, RawSliceMut};
use warpwork_cpu_reference::{inputs, select as cpu};

/// The largest input of these suites (2^20 + 1 is in every suite too): 2^22 items, at most
/// 64 MiB.
fn largest<T>() -> usize {
    (1 << 22).min((64 << 20) / std::mem::size_of::<T>())
}

macro_rules! flagged {
    ($($name:ident: $t:ty, $seed:expr;)*) => {$(
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            flagged_suite::<$t>($seed, largest::<$t>());
        }
    )*};
}

flagged! {
    // The primitive numbers by flag (their value tests are in select_gpu.rs).
    flagged_i8: i8, 101;
    flagged_u16: u16, 102;
    flagged_i16: i16, 103;
    flagged_i32: i32, 104;
    flagged_i64: i64, 105;
    flagged_f32: f32, 106;
    flagged_f64: f64, 107;
    // Size classes 1, 2, 4, 8, 16 with other types (the unsigned kernel of the size; `bytes16`).
    flagged_bytes_2: [u8; 2], 110;
    flagged_bytes_4: [u8; 4], 111;
    flagged_pairs_of_u16: [u16; 2], 112;
    flagged_bytes_8: [u8; 8], 113;
    flagged_pairs_of_f32: [f32; 2], 114;
    flagged_quads_of_u32: [u32; 4], 115;
    flagged_pairs_of_u64: [u64; 2], 116;
    flagged_u128: u128, 117;
    flagged_bytes_16: [u8; 16], 118;
    // Every other size up to 16, with each alignment a Pod array of it can have (generic path).
    flagged_bytes_3: [u8; 3], 120;
    flagged_bytes_5: [u8; 5], 121;
    flagged_bytes_6: [u8; 6], 122;
    flagged_triples_of_u16: [u16; 3], 123;
    flagged_bytes_7: [u8; 7], 124;
    flagged_bytes_9: [u8; 9], 125;
    flagged_quintuples_of_u16: [u16; 5], 126;
    flagged_bytes_11: [u8; 11], 127;
    flagged_triples_of_f32: [f32; 3], 128;
    flagged_bytes_12: [u8; 12], 129;
    flagged_bytes_13: [u8; 13], 130;
    flagged_septuples_of_u16: [u16; 7], 131;
    flagged_bytes_15: [u8; 15], 132;
    // Larger than 16 bytes: the generic path has no size limit.
    flagged_triples_of_u64: [u64; 3], 140;
    flagged_bytes_48: [u8; 48], 141;
}

/// A user's record type, as an application would select it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
struct Particle {
    position: [f32; 3],
    id: u32,
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn flagged_records() {
    flagged_suite::<Particle>(150, largest::<Particle>());
}

/// Items of a power-of-two size at addresses not aligned to it (raw pointers of another
/// framework can be): the generic path, byte by byte. Flags and output at odd offsets too.
fn misaligned_suite<T: Pod + Send + Sync>(seed: u64) {
    let gpu = gpu();
    let size = std::mem::size_of::<T>();
    for n in [1usize, 33, 4097, 100_003] {
        let items: Vec<T> = random_items(n, seed ^ n as u64);
        // Items at byte 1, flags at byte 3, output at byte 5 of their buffers.
        let mut staging = vec![0u8; 1 + n * size];
        staging[1..].copy_from_slice(bytemuck::cast_slice(&items));
        let d_items = gpu.upload(&staging).unwrap();
        let item_addr = gpu.device_address(&d_items).unwrap() + 1;
        // SAFETY: `d_items` holds `1 + n·size` bytes and outlives the views; `T` is `[u8; N]`
        // (alignment 1), so any address is aligned for it.
        let view = unsafe { RawSlice::<T>::from_raw_parts(item_addr, n).unwrap() };
        for rate in RATES {
            let flags = inputs::flags(n, seed + n as u64, rate);
            let mut flag_staging = vec![0u8; 3 + n];
            flag_staging[3..].copy_from_slice(&flags);
            let d_flags = gpu.upload(&flag_staging).unwrap();
            let flag_view = d_flags.slice(3..);
            let expected = cpu::select_flagged(&items, &flags);
            for variant in Variant::ALL {
                let d_out = gpu.filled::<u8>(5 + n * size, select_support::POISON).unwrap();
                let out_addr = gpu.device_address(&d_out).unwrap() + 5;
                // SAFETY: as for `view`; nothing else touches `d_out` until the download.
                let mut out = unsafe { RawSliceMut::<T>::from_raw_parts(out_addr, n).unwrap() };
                let mut state = gpu.zeros::<u64>(warpwork::select::state_len::<T>(variant, n)).unwrap();
                gpu.select_into(&view, Keep::Flagged(&flag_view), variant, &mut out, &mut state).unwrap();
                let count = gpu.select_count(&out, &state).unwrap();
                assert_eq!(count, expected.len(), "n={n} rate={rate} {}", variant.name());
                let got = gpu.download(&d_out).unwrap();
                let (before, kept, after) = (&got[..5], &got[5..5 + count * size], &got[5 + count * size..]);
                assert!(before.iter().chain(after).all(|&b| b == select_support::POISON), "wrote outside the slots");
                let kept: Vec<T> = kept.chunks(size).map(bytemuck::pod_read_unaligned).collect();
                if variant == Variant::Ordered {
                    assert!(bytemuck::cast_slice::<T, u8>(&kept) == bytemuck::cast_slice::<T, u8>(&expected), "order");
                } else {
                    assert!(select_support::same_multiset(&kept, &expected), "{}", variant.name());
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn misaligned_sizes_2_4_8_16() {
    misaligned_suite::<[u8; 2]>(160);
    misaligned_suite::<[u8; 4]>(161);
    misaligned_suite::<[u8; 8]>(162);
    misaligned_suite::<[u8; 16]>(163);
    misaligned_suite::<[u8; 6]>(164);
}

/// All kept and none kept, at sizes around the tiles of every body, for a generic-path and a
/// 16-byte type (the other types' suites run rates 0 and 1 too).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn all_and_none_kept_around_tiles() {
    let gpu = gpu();
    for n in [1023usize, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193] {
        let triples: Vec<[u8; 3]> = random_items(n, 170 + n as u64);
        let quads: Vec<[u32; 4]> = random_items(n, 171 + n as u64);
        let (d_triples, d_quads) = (gpu.upload(&triples).unwrap(), gpu.upload(&quads).unwrap());
        for flag in [0u8, 1] {
            let flags = vec![flag; n];
            let d_flags = gpu.upload(&flags).unwrap();
            for variant in Variant::ALL {
                let e3 = cpu::select_flagged(&triples, &flags);
                check(&gpu, &d_triples, Keep::Flagged(&d_flags), variant, &e3, &format!("[u8; 3] n={n} flag={flag}"));
                let e16 = cpu::select_flagged(&quads, &flags);
                check(&gpu, &d_quads, Keep::Flagged(&d_flags), variant, &e16, &format!("[u32; 4] n={n} flag={flag}"));
            }
        }
    }
}

/// The harness itself (no GPU): the multiset comparison tells permutations from changes for
/// every path (histogram, sorted bits, byte strings).
#[test]
fn the_multiset_comparison_sees_changes() {
    fn sees<T: Pod + Send + Sync>(seed: u64) {
        let items: Vec<T> = random_items(1000, seed);
        let mut shuffled = items.clone();
        shuffled.reverse();
        shuffled.swap(3, 700);
        assert!(select_support::same_multiset(&items, &shuffled), "{}", std::any::type_name::<T>());
        let mut changed = shuffled.clone();
        bytemuck::bytes_of_mut(&mut changed[10])[0] ^= 1;
        assert!(!select_support::same_multiset(&items, &changed), "{}", std::any::type_name::<T>());
        assert!(!select_support::same_multiset(&items, &shuffled[1..]), "{}", std::any::type_name::<T>());
    }
    sees::<u8>(1);
    sees::<[u8; 2]>(2);
    sees::<f32>(3);
    sees::<[u32; 4]>(4);
    sees::<[u8; 48]>(5);
}
